#!/usr/bin/env bash
# Makes the README's two pictures with headless Chromium:
#   docs/images/pr-comment.png   `report --format gfm` (the PR comment and
#                                job summary) as GitHub shows it: rendered by
#                                cmarkgfm (GitHub's cmark-gfm), styled by
#                                github-markdown-css
#   docs/images/html-report.png  `report --format html`
# from the mixed example project's results (tests/fixtures/pytest/mixed)
# compared with a baseline in which fewer tests failed. Needs what
# scripts/setup.sh installs (.venv with cmarkgfm, Debian's chromium) and npm.
# Usage: bash scripts/screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --quiet --release
bin="${CARGO_TARGET_DIR:-target}/release/pytest-mcp"
work="${CARGO_TARGET_DIR:-target}/screenshots"
mkdir -p "$work" docs/images
cp scripts/screenshots/package.json scripts/screenshots/package-lock.json "$work"/
npm ci --silent --prefix "$work" --no-audit --no-fund
css="$work/node_modules/github-markdown-css/github-markdown-light.css"

fixture=tests/fixtures/pytest/mixed
inputs=("$fixture/report.json" "$fixture/junit-xunit1.xml")
baseline=(--baseline tests/fixtures/baseline/mixed-before.xml)
link=(--link-base "https://github.com/example/library/blob/4f2c9e1")

"$bin" report "${inputs[@]}" "${baseline[@]}" "${link[@]}" --format gfm -o "$work/comment.md"
.venv/bin/python scripts/screenshots/comment_page.py "$work/comment.md" "$css" "$work/comment.html"
"$bin" report "${inputs[@]}" "${baseline[@]}" --format html -o "$work/report.html"

# shot PAGE PNG WIDTH HEIGHT
shot() {
    local profile
    profile=$(mktemp -d)
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$profile" --window-size="$3,$4" \
        --screenshot="$PWD/$2" "file://$PWD/$1" >/dev/null 2>&1
    rm -rf "$profile"
    echo "screenshots: $2 ($(wc -c <"$2") bytes)"
}
shot "$work/comment.html" docs/images/pr-comment.png 1000 1000
shot "$work/report.html" docs/images/html-report.png 1280 1400
