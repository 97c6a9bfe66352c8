#!/usr/bin/env bash
# The parse-only ratio alone, with more rounds than run.sh gives it: parse-only and cleave
# (chars) run alternately, ROUNDS times per corpus, and each keeps its least CPU time (user +
# system) and its least wall time. On a shared machine the other jobs slow some runs and never
# speed one up, so the least of many alternating runs is the steadiest estimate of a process's
# own cost.
#
#   bench/interleaved.sh                 # every corpus
#   bench/interleaved.sh python go       # some corpora
#
# Environment: ROUNDS (7), THREADS (2), BUDGET (2000), OUT (the report file; default
# bench/runs/<date>-<machine>-interleaved.txt). Measures the working tree.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
rounds="${ROUNDS:-7}"
threads="${THREADS:-2}"
budget="${BUDGET:-2000}"
langs=("$@")
((${#langs[@]})) || langs=(rust python typescript go java)
out="${OUT:-$here/runs/$(date -u +%Y-%m-%d)-$(hostname -s 2>/dev/null || echo machine)-interleaved.txt}"

"$here/corpus.sh" "${langs[@]}"
# shellcheck source=bench/lib.sh
source "$here/lib.sh"
build_contenders interleaved
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CPU seconds (user + system) and wall seconds of one run of the command, to the millisecond
# (the rusage of wait4; /usr/bin/time prints hundredths, too coarse for the small corpora).
cpu() {
    python3 -c 'import os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, _, ru = os.wait4(p.pid, 0)
print(f"{ru.ru_utime + ru.ru_stime:.3f} {time.perf_counter() - t:.3f}")' "$@"
}

{
    echo "cleave parse-only ratio, interleaved, $(date -u '+%Y-%m-%d %H:%M') UTC"
    echo "command: bench/interleaved.sh ${langs[*]}  (ROUNDS=$rounds THREADS=$threads BUDGET=$budget)"
    echo "cleave: $(cd "$root" && git log -1 --format='%h %s')$(cd "$root" && git diff --quiet HEAD -- crates || echo ' (+ uncommitted changes)')"
    echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
    echo "each round runs parse-only, then cleave chunk (chars, JSONL to a file); least CPU seconds and least wall"
    echo "seconds of $rounds rounds; per-round ratios are on CPU time"
    echo
    printf '%11s %6s %12s %13s %9s %11s %12s %9s   %s\n' corpus MB 'parse cpu-s' 'cleave cpu-s' 'cpu ratio' \
        'parse wall' 'cleave wall' 'wall ratio' 'per-round ratios'
} | tee "$out"

for lang in "${langs[@]}"; do
    dir="$here/corpus/$lang"
    if [[ $lang == html ]]; then
        # HTML as source: an .html page would be decoded to Markdown by the CLI (a document,
        # not the grammar); the same bytes named .xhtml (hard links) go to the html row.
        (cd "$dir" && find . -name '*.html' -print0) | while IFS= read -r -d '' f; do
            mkdir -p "$tmp/xhtml/$(dirname "$f")" && ln "$dir/$f" "$tmp/xhtml/${f%.html}.xhtml"
        done
        dir="$tmp/xhtml"
    fi
    mb=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f", s / 1e6 }')
    best_parse="" best_cleave="" wall_parse="" wall_cleave="" ratios=""
    for ((r = 0; r < rounds; r++)); do
        read -r p pw < <(cpu "$harness" parse --threads "$threads" "$dir")
        read -r c cw < <(cpu "$cleave" chunk "$dir" --threads "$threads" --budget "$budget" --no-ignore -q \
            -o "$tmp/out.jsonl")
        best_parse=$(awk -v a="$p" -v b="${best_parse:-$p}" 'BEGIN { print (a < b) ? a : b }')
        best_cleave=$(awk -v a="$c" -v b="${best_cleave:-$c}" 'BEGIN { print (a < b) ? a : b }')
        wall_parse=$(awk -v a="$pw" -v b="${wall_parse:-$pw}" 'BEGIN { print (a < b) ? a : b }')
        wall_cleave=$(awk -v a="$cw" -v b="${wall_cleave:-$cw}" 'BEGIN { print (a < b) ? a : b }')
        ratios+="$(awk -v p="$p" -v c="$c" 'BEGIN { printf "%.2f ", p / c }')"
    done
    awk -v l="$lang" -v mb="$mb" -v p="$best_parse" -v c="$best_cleave" -v pw="$wall_parse" \
        -v cw="$wall_cleave" -v r="$ratios" 'BEGIN {
        printf "%11s %6.1f %12.3f %13.3f %9.2f %11.3f %12.3f %9.2f   %s\n", l, mb, p, c, p / c, pw, cw, pw / cw, r }' |
        tee -a "$out"
done
echo "interleaved: written to $out" >&2
