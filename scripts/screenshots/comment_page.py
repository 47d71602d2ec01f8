"""Turns a GitHub-Flavoured Markdown file into a page that looks like a PR
comment on GitHub, for scripts/screenshots.sh.

The Markdown goes through cmarkgfm, GitHub's own renderer (cmark-gfm), with
GitHub's extensions on and raw HTML let through, as GitHub renders comments
before it sanitizes them; the page is styled with github-markdown-css
(GitHub's own stylesheet for rendered Markdown), inlined.

Usage: python comment_page.py COMMENT.md GITHUB_MARKDOWN.css OUT.html
"""

import html
import sys

import cmarkgfm
from cmarkgfm.cmark import Options

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
{css}
body {{ background: #f6f8fa; margin: 0; padding: 24px; }}
.comment {{ max-width: 880px; margin: 0 auto; background: #fff;
  border: 1px solid #d0d7de; border-radius: 6px; }}
.comment-header {{ padding: 8px 16px; background: #f6f8fa; color: #57606a;
  border-bottom: 1px solid #d0d7de; border-radius: 6px 6px 0 0;
  font: 14px -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }}
.comment-header b {{ color: #1f2328; }}
.markdown-body {{ padding: 16px; }}
</style></head>
<body><div class="comment">
<div class="comment-header"><b>github-actions</b> bot commented</div>
<div class="markdown-body">
{body}
</div></div></body></html>
"""


def main() -> None:
    comment, css_path, out = sys.argv[1:4]
    with open(comment, encoding="utf-8") as f:
        text = f.read()
    with open(css_path, encoding="utf-8") as f:
        css = f.read()
    body = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    with open(out, "w", encoding="utf-8") as f:
        f.write(PAGE.format(title=html.escape(comment), css=css, body=body))


if __name__ == "__main__":
    main()
