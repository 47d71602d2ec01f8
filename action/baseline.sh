#!/usr/bin/env bash
# The baseline step of action.yml ("Baseline from the base branch"), run
# with bash by that step (`$GITHUB_ACTION_PATH` is the action's checkout):
# with `baseline-artifact`, the latest successful run of `baseline-workflow`
# on `base-branch` (else the pull request's base branch) is found with `gh`,
# its artifact downloaded into $RUNNER_TEMP/pytest-mcp-baseline and that
# directory written to the step's `dir` output for the report step to
# compare with. Anything missing on the way is a notice or a warning, never
# a failed step. Its inputs come through the step's env (INPUT_*, GH_TOKEN);
# tests/action/gh_steps.rs runs it against a stand-in `gh`.
set -euo pipefail
if [ -z "$INPUT_BASELINE_ARTIFACT" ]; then
  exit 0
fi
# escape TEXT: a workflow command's message as GitHub's toolkit
# escapes it, so that gh's words cannot start a command.
escape() {
  local s=${1//%/%25}
  s=${s//$'\r'/%0D}
  printf '%s' "${s//$'\n'/%0A}"
}
notice() { echo "::notice title=pytest-mcp::$(escape "$1"): no baseline comparison"; }
# A failure here (a fork's token, no artifact) is a warning: the
# report goes on without the comparison.
warn() { echo "::warning title=pytest-mcp::$(escape "$1: $(head -n 3 "$err")"): no baseline comparison"; }
branch=${INPUT_BASE_BRANCH:-${GITHUB_BASE_REF:-}}
if [ -z "$branch" ]; then
  notice "no base branch (not a pull request and no base-branch input)"
  exit 0
fi
# GitHub's runners carry both; a self-hosted one may not.
for tool in gh jq; do
  if ! command -v "$tool" > /dev/null; then
    echo "::warning title=pytest-mcp::$tool not found on this runner: no baseline comparison"
    exit 0
  fi
done
# GITHUB_WORKFLOW_REF: owner/repo/.github/workflows/tests.yml@refs/...
# (GitHub Enterprise Server before 3.9 has only the name).
workflow=$INPUT_BASELINE_WORKFLOW
if [ -z "$workflow" ]; then
  workflow=${GITHUB_WORKFLOW_REF:-}
  workflow=${workflow%%@*}
  workflow=${workflow##*/}
  workflow=${workflow:-${GITHUB_WORKFLOW:-}}
fi
err="$RUNNER_TEMP/pytest-mcp-gh-error"
if ! runs=$(gh run list --repo "$GITHUB_REPOSITORY" --branch "$branch" --workflow "$workflow" \
  --status success --limit 20 --json databaseId,event 2>"$err"); then
  warn "cannot list the runs of $workflow on $branch"
  exit 0
fi
# Not a pull request's run: a fork's branch may bear the base
# branch's name, and its run is no result of the base branch.
if ! run_id=$(jq -r 'first(.[] | select(.event | startswith("pull_request") | not) | .databaseId) // empty' <<<"$runs" 2>"$err"); then
  warn "cannot read gh's list of the runs of $workflow on $branch"
  exit 0
fi
if [ -z "$run_id" ]; then
  notice "no successful run of $workflow on $branch"
  exit 0
fi
dir="$RUNNER_TEMP/pytest-mcp-baseline"
rm -rf "$dir"
mkdir -p "$dir"
if ! gh run download "$run_id" --repo "$GITHUB_REPOSITORY" --name "$INPUT_BASELINE_ARTIFACT" \
  --dir "$dir" 2>"$err"; then
  warn "cannot download artifact $INPUT_BASELINE_ARTIFACT of run $run_id ($workflow on $branch)"
  exit 0
fi
if [ -z "$(find "$dir" -type f \( -name '*.xml' -o -name '*.json' \) -print -quit)" ]; then
  notice "artifact $INPUT_BASELINE_ARTIFACT of run $run_id holds no .xml or .json file"
  exit 0
fi
echo "Baseline: artifact $INPUT_BASELINE_ARTIFACT of run $run_id ($workflow on $branch)"
echo "dir=$dir" >> "$GITHUB_OUTPUT"
