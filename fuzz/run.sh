#!/usr/bin/env bash
# Runs one fuzz target on one core: fuzz/run.sh TARGET [SECONDS] [libFuzzer options...]
#   TARGET   junit_reader | json_report_reader | ctrf_reader | coverage_reader | params
#   SECONDS  total time (default 600)
# Seeds the corpus first when it is empty (fuzz/seed.sh). Inputs that crash
# land in fuzz/artifacts/TARGET/; the log, with libFuzzer's final figures, in
# fuzz/logs/TARGET.log.
set -euo pipefail

fuzz="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="${1:?usage: fuzz/run.sh junit_reader|json_report_reader|ctrf_reader|coverage_reader|params [SECONDS] [libFuzzer options...]}"
seconds="${2:-600}"
shift $(($# < 2 ? $# : 2))
case "$target" in
junit_reader) dict=junit.dict; max_len=131072 ;;
json_report_reader) dict=json_report.dict; max_len=131072 ;;
ctrf_reader) dict=ctrf.dict; max_len=131072 ;;
coverage_reader) dict=coverage.dict; max_len=65536 ;;
params) dict=params.dict; max_len=8192 ;;
*) echo "unknown target: $target" >&2; exit 2 ;;
esac
if [ -z "$(ls -A "$fuzz/corpus/$target" 2>/dev/null)" ]; then
    "$fuzz/seed.sh"
fi
mkdir -p "$fuzz/logs"
cd "$(dirname "$fuzz")"
# One process, one core (no -fork/-jobs); a single input taking over 10 s
# counts as a hang; the default 2 GB memory limit catches blow-ups.
cargo +nightly fuzz run "$target" -- \
    -max_total_time="$seconds" -timeout=10 -max_len="$max_len" \
    -dict="fuzz/dicts/$dict" -print_final_stats=1 "$@" 2>&1 | tee "$fuzz/logs/$target.log"
