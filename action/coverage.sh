# shellcheck shell=bash disable=SC2034 # coverage: read by the report step
# Sourced by action.yml's report step when the `coverage` input is set, after
# its `expand` (globs, as for `files`): appends to the step's `coverage`
# array the flags that give `report` the change's coverage
# (docs/github-action.md, "Change coverage"): `--coverage=FILE` for each
# coverage data file `coverage` matches, `--base=REF` (`coverage-base`, else
# a revision chosen by the event) and `--baseline-coverage=FILE` for each
# file `coverage-baseline` matches. Each flag carries its value after `=`,
# so that a value is never taken for a flag (a file named `-x` included).
# No coverage data at all is a warning: the report goes on without it. Its
# inputs come through the step's env (INPUT_COVERAGE*);
# tests/action/coverage_flags.rs runs the step with a stand-in pytest-mcp.

read -r -d '' -a coverage_patterns <<<"$INPUT_COVERAGE" || true
if [ "${#coverage_patterns[@]}" -eq 0 ]; then
  return 0
fi
expanded=()
expand "$INPUT_COVERAGE"
coverage_files=("${expanded[@]}")
if [ "${#coverage_files[@]}" -eq 0 ]; then
  # The globs on one line, as a workflow command's message holds them.
  coverage_shown=${coverage_patterns[*]}
  echo "::warning title=pytest-mcp::no coverage data matches '${coverage_shown//%/%25}': no change coverage"
  return 0
fi

coverage_base=$INPUT_COVERAGE_BASE
if [ -n "$coverage_base" ]; then
  # One revision git reads as such: never one of its options, nor a range.
  if [[ ! "$coverage_base" =~ ^[A-Za-z0-9_][A-Za-z0-9_./^~@{}+-]{0,254}$ || "$coverage_base" == *..* ]]; then
    echo "::error title=pytest-mcp::input coverage-base must be a git revision (a branch, a tag, a commit, HEAD^1)"
    exit 1
  fi
  echo "Change coverage: against $coverage_base (coverage-base)"
else
  coverage_base=HEAD
  case "${GITHUB_EVENT_NAME:-}" in
  pull_request)
    # actions/checkout checks out the merge commit GitHub made of the pull
    # request and its base branch: its first parent is the base branch's
    # head. A checkout of the pull request's head instead (one parent) is
    # compared with the event's base commit.
    coverage_base=HEAD^1
    if [ "$(git cat-file -p HEAD 2>/dev/null | grep -c '^parent ')" = 1 ] &&
      [ -f "${GITHUB_EVENT_PATH:-}" ] && command -v jq > /dev/null; then
      coverage_sha=$(jq -r '.pull_request.base.sha // empty' "$GITHUB_EVENT_PATH" 2>/dev/null || true)
      if [[ "$coverage_sha" =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]]; then
        coverage_base=$coverage_sha
      fi
    fi
    ;;
  push)
    # The branch's tip before the push (its merge-base with HEAD after a
    # force push); all zeros when the push made the branch: HEAD then.
    coverage_sha=""
    if [ -f "${GITHUB_EVENT_PATH:-}" ] && command -v jq > /dev/null; then
      coverage_sha=$(jq -r '.before // empty' "$GITHUB_EVENT_PATH" 2>/dev/null || true)
    fi
    if [[ "$coverage_sha" =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ && ! "$coverage_sha" =~ ^0+$ ]]; then
      coverage_base=$coverage_sha
    fi
    ;;
  esac
  echo "Change coverage: against $coverage_base (by the ${GITHUB_EVENT_NAME:-unknown} event)"
fi
# actions/checkout fetches one commit unless told: the report would only
# say that git does not know the revision; here is why.
if ! command -v git > /dev/null || ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  echo "::warning title=pytest-mcp::no git checkout here: the change cannot be told (check the repository out in this job)"
elif ! git rev-parse --verify --quiet "$coverage_base^{commit}" > /dev/null; then
  echo "::warning title=pytest-mcp::coverage-base $coverage_base is not in this checkout: give actions/checkout fetch-depth: 2 (a pull request's merge commit) or 0"
fi

for file in "${coverage_files[@]}"; do coverage+=("--coverage=$file"); done
coverage+=("--base=$coverage_base")
expanded=()
expand "$INPUT_COVERAGE_BASELINE"
for file in "${expanded[@]}"; do coverage+=("--baseline-coverage=$file"); done
