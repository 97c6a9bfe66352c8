#!/usr/bin/env bash
# Runs targets one after the other for SECONDS each, niced, and appends one line per run to
# runs/log.tsv (date, target, seconds, executions, exec/s, corpus files, artifacts) for RUNS.md.
#
#   fuzz/long.sh SECONDS TARGET...
set -uo pipefail
cd "$(dirname "$0")"
secs=$1
shift
mkdir -p runs
for t in "$@"; do
    mkdir -p "runs/corpus/$t" "artifacts/$t"
    log="runs/$t.$(date -u +%Y%m%dT%H%M%S).log"
    start=$(date -u +%FT%TZ)
    t0=$(date +%s)
    nice -n 19 cargo +nightly fuzz run -s none "$t" "runs/corpus/$t" "corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    elapsed=$(($(date +%s) - t0))
    execs=$(grep -oP '^stat::number_of_executed_units: \K[0-9]+' "$log" || echo '?')
    rate=$(grep -oP '^stat::average_exec_per_sec: +\K[0-9]+' "$log" || echo '?')
    files=$(find "runs/corpus/$t" -type f | wc -l)
    found=$(find "artifacts/$t" -type f | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$start" "$t" "$elapsed" "$execs" "$rate" \
        "$files" "$found" "$rc" >>runs/log.tsv
done
