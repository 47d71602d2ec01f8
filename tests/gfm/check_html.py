"""Renders a GitHub rendering (`--format gfm`) as GitHub does and checks the HTML.

Driven by tests/gfm.rs: `python check_html.py SPEC.json`, the spec holding

- `gfm`: the file to render (GitHub Flavored Markdown);
- `agent_markdown`: the agent Markdown of the same run, uncollapsed, whose
  failure sections say what every failure's message and source lines are;
- `link_base`: the only URL prefix a link may have (null: no link at all);
- `literals`: strings that must be in the rendered text, as literal text.

GitHub renders with cmark-gfm, its extensions on (table, strikethrough,
autolink, tagfilter, tasklist) and raw HTML let through (it keeps
`<details>`, then sanitizes); `cmarkgfm` is that library. The checks:

1. every failure's message lines and failing source line (from the agent
   Markdown's section of each group shown in full) are lines of a `<pre>`;
2. only allowed elements and attributes: details (open), summary, table and
   its parts (th/td align), pre, code (class language-*), a (href under the
   link base), p, ul, li, headings, strong, em;
3. the literals are in the text;
4. no `@name` mention or `#12` reference in text outside code, pre and a
   (GitHub's filters skip those elements);
5. the `<details>` elements are exactly the ones the source opens and
   closes on lines of their own (no test text opened or closed one), and
   every heading is one of ours.

Prints each problem; exits 1 when there are any, 0 otherwise.
"""

import json
import re
import sys
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

EXTENSIONS = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]
ALLOWED = {
    "details": {"open"},
    "summary": set(),
    "table": set(),
    "thead": set(),
    "tbody": set(),
    "tr": set(),
    "th": {"align"},
    "td": {"align"},
    "pre": set(),
    "code": {"class"},
    "a": {"href"},
    "p": set(),
    "ul": set(),
    "li": set(),
    "h1": set(),
    "h2": set(),
    "h3": set(),
    "h4": set(),
    "h5": set(),
    "h6": set(),
    "strong": set(),
    "em": set(),
}
# Elements whose text GitHub's mention and reference filters skip.
SHIELDS = {"code", "pre", "a"}
MENTION = re.compile(r"(?:^|[^\w`/])@[A-Za-z0-9]")
REFERENCE = re.compile(r"(?:^|[^\w&/])#\d")
# Our headings: the first line, and the parts of the report.
# The page's own headings: the headline (its starts, `Test FAILURE`, ...,
# come in the spec, worded by the library: `headlines`) and the sections'.
SECTIONS = r"Failures: |New failures: |Fixed: |Flaky \(|Slower than usual \(|Collection errors: "


def heading_pattern(headlines):
    """A heading of ours: one of the headline starts, or a section's."""
    starts = "|".join(re.escape(h) for h in headlines)
    return re.compile(rf"^({starts}|{SECTIONS})")


class Page(HTMLParser):
    def __init__(self, link_base):
        super().__init__(convert_charrefs=True)
        self.link_base = link_base
        self.problems = []
        self.stack = []
        self.text = []
        self.pres = []
        self.summaries = []
        self.headings = []
        self.details_open = 0
        self.details_closed = 0

    def handle_starttag(self, tag, attrs):
        allowed = ALLOWED.get(tag)
        if allowed is None:
            self.problems.append(f"element <{tag}> is not allowed: {attrs}")
        else:
            for name, value in attrs:
                if name not in allowed:
                    self.problems.append(f"<{tag} {name}={value!r}> is not allowed")
                elif tag == "a" and not (
                    self.link_base and (value or "").startswith(self.link_base)
                ):
                    self.problems.append(f"a link outside the repository: {value!r}")
                elif tag == "code" and not (value or "").startswith("language-"):
                    self.problems.append(f"<code class={value!r}>")
        if tag == "details":
            self.details_open += 1
        if tag == "pre":
            # Each code block belongs to the section whose summary came
            # last: a group's lines must be in its own block.
            owner = self.summaries[-1][1].split(" · ")[-1].strip() if self.summaries else ""
            self.pres.append([owner, ""])
        if tag in ("summary", "h1", "h2", "h3", "h4", "h5", "h6"):
            (self.summaries if tag == "summary" else self.headings).append([tag, ""])
        self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag == "details":
            self.details_closed += 1
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        self.text.append(data)
        if "pre" in self.stack and self.pres:
            self.pres[-1][1] += data
        for collected in (self.summaries, self.headings):
            if collected and collected[-1][0] in self.stack:
                collected[-1][1] += data
        if not SHIELDS.intersection(self.stack):
            for pattern, what in ((MENTION, "mention"), (REFERENCE, "reference")):
                if pattern.search(data):
                    self.problems.append(f"a {what} outside code: {data!r}")


def failure_sections(markdown):
    """Each failure section of the agent Markdown: (id, message lines and
    source lines, continuation lines of the message)."""
    sections = []
    lines = markdown.splitlines()
    # A heading may say how the group stands: `### FAILED (new): id`,
    # and end with the test's line: `id (line 12)`.
    head = re.compile(r"^### (FAILED|ERROR[a-z ]*)(?: \([^)]*\))?: (.*?)(?: \(line \d+\))?$")
    i = 0
    while i < len(lines):
        m = head.match(lines[i])
        i += 1
        if not m or i >= len(lines):
            continue
        # A message line the agent Markdown escaped (`\## ...`) is shown
        # as it is in a code block.
        message = lines[i].strip()
        if message.startswith(("\\#", "\\>")):
            message = message[1:]
        first = [message]
        more = []
        i += 1
        in_message = True
        while i < len(lines) and lines[i].startswith("  "):
            line = lines[i].strip()
            stop = ("at ", "Same failure in ", "Rerun: ", "Captured ", "… ")
            if line.startswith(stop):
                in_message = False
            if line.startswith("> "):
                first.append(line)
            elif in_message:
                more.append(line)
            i += 1
        sections.append((m.group(2), first, more))
    return sections


def check(spec):
    with open(spec["gfm"], encoding="utf-8") as f:
        source = f.read()
    html = cmarkgfm.markdown_to_html_with_extensions(
        source, options=Options.CMARK_OPT_UNSAFE, extensions=EXTENSIONS
    )
    page = Page(spec.get("link_base"))
    page.feed(html)
    page.close()
    problems = list(page.problems)

    opened = sum(1 for l in source.splitlines() if l.startswith("<details"))
    closed = sum(1 for l in source.splitlines() if l == "</details>")
    if (page.details_open, page.details_closed) != (opened, closed):
        problems.append(
            f"<details>: {page.details_open} opened and {page.details_closed} closed "
            f"in the HTML, {opened} and {closed} on lines of their own in the source"
        )
    heading = heading_pattern(spec["headlines"])
    for _, text in page.headings:
        if not heading.match(text):
            problems.append(f"a heading that is not ours: {text!r}")

    text = "".join(page.text)
    for literal in spec.get("literals", []):
        if literal not in text:
            problems.append(f"not in the text as written: {literal!r}")

    pre_lines = {}
    for owner, block in page.pres:
        pre_lines.setdefault(owner, set()).update(l.strip() for l in block.splitlines())
    shown = {t.split(" · ")[-1].strip() for _, t in page.summaries}
    shortened = "Shortened to fit " in text
    checked = 0
    with open(spec["agent_markdown"], encoding="utf-8") as f:
        sections = failure_sections(f.read())
    for test_id, must, message_rest in sections:
        if test_id not in shown:
            continue
        checked += 1
        for line in must + ([] if shortened else message_rest):
            if line and line not in pre_lines.get(test_id, set()):
                problems.append(f"{test_id}: not a line of its section's <pre>: {line!r}")
    # Not vacuous: some failure was compared, unless the rendering was
    # shortened to one line per group (no failure section at all).
    if sections and not checked and not (shortened and not page.summaries):
        problems.append("no failure of the agent Markdown is shown in full")
    return problems, checked


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        spec = json.load(f)
    problems, checked = check(spec)
    for p in problems:
        print(p)
    print(f"{spec['gfm']}: {checked} failure sections checked, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
