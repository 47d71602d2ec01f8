#!/usr/bin/env bash
# Sets up the Python environments, pinned. Safe to run again: it installs
# only what is missing or changed. Needs python3 (3.11 or newer) with venv
# and pip.
#
#   bash scripts/setup.sh          the test suite (scripts/test.sh): ./.venv
#                                  with requirements-dev.txt, ./.venv-nojson
#                                  with pytest alone (the runner's tests need
#                                  a project interpreter without
#                                  pytest-json-report), Debian's chromium
#                                  for the HTML report test, and the sdists
#                                  of requirements-suites.txt in ./.suites
#                                  (tests/real_suites.rs, the bench's
#                                  `suites` section); with npm, the CTRF
#                                  reference validator in tests/ctrf
#                                  (tests/ctrf_out.rs); and the plugin
#                                  matrix's virtualenvs (below)
#   bash scripts/setup.sh --demo   the demo (scripts/demo.sh): ./.venv with
#                                  requirements-demo.txt (pytest and
#                                  pytest-json-report) and nothing else
#
# The plugin matrix (tests/plugins.rs, tests/plugins/<project>/): one
# virtualenv per `venv:` group of requirements-plugins.txt, under
# .venv-plugins/<group>/: `quiet`, shared by the plugins that do nothing
# until a project turns them on; `randomly`, `sugar` and `hypothesis`, each
# a plugin that changes every run it is installed into, alone; `retry` and
# `flaky` (their `flaky` marks clash with pytest-rerunfailures'), and
# `nbval` (a Jupyter kernel and its dependencies), alone too. Each gets
# the `all` lines (pytest, pytest-json-report) and its group's. A group is
# made afresh when its lines change (the lines it was installed from are
# kept in .venv-plugins/<group>/.installed); the groups install side by
# side. From nothing, with pip's cache empty, the seven take about a minute (nbval's the longest).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=tests
case "${1:-}" in
"") ;;
--demo) mode=demo ;;
*)
    echo "usage: bash scripts/setup.sh [--demo]" >&2
    exit 2
    ;;
esac

# The demo's pins must be the test suite's, so that one .venv serves both.
while IFS= read -r line; do
    case "$line" in "" | "#"*) continue ;; esac
    if ! grep -qxF "$line" requirements-dev.txt; then
        echo "setup: requirements-demo.txt pins '$line', which requirements-dev.txt does not" >&2
        exit 1
    fi
done <requirements-demo.txt
# The plugin matrix runs the pytest and pytest-json-report the suite pins.
while IFS= read -r pin; do
    if ! grep -qxF "$pin" requirements-dev.txt; then
        echo "setup: requirements-plugins.txt pins '$pin' for every venv, which requirements-dev.txt does not" >&2
        exit 1
    fi
done < <(sed -n 's/^\([^ #]*\) *# venv: all\b.*/\1/p' requirements-plugins.txt)

python=${PYTHON:-python3}
stamp=.venv/.requirements-installed      # a copy of requirements-dev.txt once installed
demo_stamp=.venv/.demo-requirements-installed

# pip_install REQUIREMENTS STAMP: into .venv (created when missing).
pip_install() {
    echo "setup: installing $1 into .venv ($($python --version 2>&1))" >&2
    [ -x .venv/bin/python ] || "$python" -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$1"
    cp "$1" "$2"
}

if [ "$mode" = demo ]; then
    # The test suite's .venv has everything the demo needs.
    if [ -x .venv/bin/python ] && { cmp -s requirements-dev.txt "$stamp" \
        || cmp -s requirements-demo.txt "$demo_stamp"; }; then
        exit 0
    fi
    pip_install requirements-demo.txt "$demo_stamp"
    exit 0
fi

# Debian's Chromium renders the HTML report in tests/html.rs. Installed when
# missing and we may (root with apt-get, as in CI); otherwise that test says
# how to install it, or set PYTEST_MCP_SKIP_CHROMIUM=1.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium (for the HTML report test)" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if ! { [ -x .venv/bin/python ] && cmp -s requirements-dev.txt "$stamp"; }; then
    pip_install requirements-dev.txt "$stamp"
fi
if ! { [ -x .venv-nojson/bin/python ] && [ -f .venv-nojson/.installed ]; }; then
    pytest_pin=$(grep -E '^pytest==' requirements-dev.txt)
    echo "setup: creating .venv-nojson with $pytest_pin" >&2
    "$python" -m venv .venv-nojson
    .venv-nojson/bin/python -m pip install --quiet --disable-pip-version-check "$pytest_pin"
    touch .venv-nojson/.installed
fi

# The real libraries' sdists (their own test suites, run with bugs injected):
# downloaded, never installed, when missing or when the pins changed.
suites_stamp=.suites/.requirements-downloaded  # a copy of requirements-suites.txt once downloaded
if ! cmp -s requirements-suites.txt "$suites_stamp"; then
    echo "setup: downloading the sdists of requirements-suites.txt into .suites" >&2
    rm -rf .suites
    .venv/bin/python -m pip download --quiet --disable-pip-version-check --no-deps \
        --no-binary :all: --require-hashes -r requirements-suites.txt -d .suites/
    cp requirements-suites.txt "$suites_stamp"
fi

# npm ctrf, the reference implementation of CTRF, pinned in
# tests/ctrf/package-lock.json: tests/ctrf_out.rs checks our CTRF with its
# validateStrict. Only with npm (without it that test says so and passes).
ctrf_stamp=tests/ctrf/node_modules/.installed-lock.json  # a copy of the lock once installed
if command -v npm >/dev/null 2>&1 && ! cmp -s tests/ctrf/package-lock.json "$ctrf_stamp"; then
    echo "setup: installing npm ctrf (tests/ctrf/package-lock.json) into tests/ctrf/node_modules" >&2
    # A registry out of reach costs that one check (the test says it
    # skipped and why), not the whole setup.
    if (cd tests/ctrf && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error); then
        cp tests/ctrf/package-lock.json "$ctrf_stamp"
    else
        echo "setup: npm ci failed in tests/ctrf; tests/ctrf_out.rs will skip the validateStrict check" >&2
    fi
fi

# The plugin matrix's virtualenvs (see the header): each group that is
# missing or whose lines changed is made afresh, side by side.
plugin_lines() { # GROUP: the requirements of .venv-plugins/GROUP, comments cut
    sed -n "s/^\([^ #][^ ]*\) *# venv: \(all\|$1\)\b.*/\1/p" requirements-plugins.txt
}
plugin_venv() { # GROUP
    local dir=.venv-plugins/$1
    rm -rf "$dir"
    "$python" -m venv "$dir"
    plugin_lines "$1" >"$dir/requirements.txt"
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$dir/requirements.txt"
    # pytest rewrites the asserts of every plugin it loads and caches the
    # result beside it, unless PYTHONDONTWRITEBYTECODE is set (the MCP
    # suite sets it): one pytest start here writes that cache, which halves
    # every later run's start in the quiet venv. It collects nothing (5).
    local empty python
    empty=$(mktemp -d)
    python=$(cd "$dir" && pwd)/bin/python
    (cd "$empty" && env -u PYTHONDONTWRITEBYTECODE "$python" -m pytest --collect-only -q -p no:cacheprovider >/dev/null 2>&1) || true
    rm -rf "$empty"
    cp "$dir/requirements.txt" "$dir/.installed"
}
pids=()
while IFS= read -r group; do
    if [ -x ".venv-plugins/$group/bin/python" ] && cmp -s <(plugin_lines "$group") ".venv-plugins/$group/.installed"; then
        continue
    fi
    echo "setup: installing the '$group' plugins of requirements-plugins.txt into .venv-plugins/$group" >&2
    plugin_venv "$group" &
    pids+=("$!")
done < <(sed -n 's/.*# venv: \([a-z_]*\).*/\1/p' requirements-plugins.txt | grep -vx all | sort -u)
for pid in "${pids[@]}"; do
    wait "$pid" || { echo "setup: a plugin venv failed to install (requirements-plugins.txt)" >&2; exit 1; }
done
