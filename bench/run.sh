#!/usr/bin/env bash
# The benchmark suite behind `just bench`: cleave end to end against a tree-sitter parse-only
# baseline and text-splitter's CodeSplitter, on the pinned corpora of corpus.sh.
#
#   bench/run.sh                 # every corpus, budgets 2000 and 8000, units chars and tokens
#   bench/run.sh python go       # some corpora
#
# Environment: THREADS (2), REPS (3: best of), SPLITTER_REPS (1), BUDGETS ("2000 8000"),
# UNITS ("chars tokens"), SCALE ("python": the corpus timed at 1x, 2x and 4x; empty to skip),
# NO_SPLITTER=1 to skip text-splitter, LIBRARY=0 to skip the in-process library pipeline, SNAPSHOT=REV to measure a commit rather than the
# working tree (SNAPSHOT=1: HEAD), OUT (the report file; default
# bench/runs/<date>-<machine>.txt).
#
# Every contender is a whole process timed from outside, start to exit (wall clock), with peak
# RSS from /usr/bin/time: cleave writes JSON Lines to a file; the harness binary (parse-only,
# text-splitter, and cleave's library pipeline in process) reads the same files with the same
# number of rayon threads. cleave and parse-only run alternately, REPS rounds for each budget and
# unit, and each of their ratios compares the runs of one such set.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
threads="${THREADS:-2}"
reps="${REPS:-3}"
splitter_reps="${SPLITTER_REPS:-1}"
budgets="${BUDGETS:-2000 8000}"
units="${UNITS:-chars tokens}"
scale="${SCALE-python}"
tmp="$here/tmp/run"
mkdir -p "$tmp" "$here/runs"

langs=("$@")
((${#langs[@]})) || langs=(rust python typescript go java)

# Tools: GNU time for peak RSS.
if [[ ! -x /usr/bin/time ]]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends time >/dev/null
fi

"$here/corpus.sh" "${langs[@]}"

# What is measured: the working tree by default (a developer timing a change before committing
# it), or with SNAPSHOT=REV (SNAPSHOT=1 means HEAD) a commit exported with `git archive` into
# bench/tmp/snapshot, so that a run is not disturbed by others' edits in progress. The harness
# is this folder's, built against the same cleave sources.
src_root="$root"
cleave_target="$root/target"
if [[ -n ${SNAPSHOT:-} ]]; then
    rev="$SNAPSHOT"
    [[ $rev == 1 ]] && rev=HEAD
    src_root="$here/tmp/snapshot"
    cleave_target="$here/target/snapshot"
    commit=$(cd "$root" && git rev-parse "$rev")
    if [[ "$(cat "$src_root/.commit" 2>/dev/null)" != "$commit" ]]; then
        rm -rf "$src_root" && mkdir -p "$src_root/bench"
        (cd "$root" && git archive "$commit" -- . ':!bench') | tar -x -C "$src_root"
        echo "$commit" >"$src_root/.commit"
    fi
    rsync -a --delete "$here/src" "$here/benches" "$src_root/bench/" 2>/dev/null ||
        cp -r "$here/src" "$here/benches" "$src_root/bench/"
    cp "$here/Cargo.toml" "$here/Cargo.lock" "$src_root/bench/"
    echo "bench: measuring $(cd "$root" && git log -1 --format='%h %s' "$rev")" >&2
fi
echo "bench: building cleave (release) and the harness (release)" >&2
(cd "$src_root" && CARGO_TARGET_DIR="$cleave_target" cargo build --release --quiet -p cleave-cli)
(cd "$src_root/bench" && CARGO_TARGET_DIR="$here/target" cargo build --release --quiet --bins)
cleave="$cleave_target/release/cleave"
harness="$here/target/release/cleave-bench"

# run_once NAME CMD...: runs CMD once (stdout to $tmp/NAME.out); prints its wall seconds, peak
# RSS (KiB), CPU seconds (user + system) and status (ok or fail).
run_once() {
    local name="$1" t0 t1 secs rss u s status=ok
    shift
    t0=$(date +%s%N)
    if ! /usr/bin/time -f '%M %U %S' -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
        status=fail
    fi
    t1=$(date +%s%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    read -r rss u s < <(tail -1 "$tmp/$name.time")
    [[ "$rss" =~ ^[0-9]+$ ]] || { rss=0; u=0; s=0; }
    echo "$secs $rss $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }') $status"
}

# fold "BEST PEAK CPU STATUS" "SECS RSS CPU STATUS": the best wall time, the largest peak, the
# least CPU time and the worst status of both (the first may be empty). CPU time is the steadier
# figure on a shared machine: other jobs stretch wall time far more.
fold() {
    [[ -z $1 ]] && { echo "$2"; return; }
    awk -v a="$1" -v b="$2" 'BEGIN {
        split(a, x, " "); split(b, y, " ")
        printf "%s %s %s %s\n", (y[1] < x[1] ? y[1] : x[1]), (y[2] > x[2] ? y[2] : x[2]),
            (y[3] < x[3] ? y[3] : x[3]), (x[4] == "ok" ? y[4] : x[4]) }'
}

# measure NAME REPS CMD...: runs CMD REPS times (stdout to $tmp/NAME.out), stopping at a
# failure; prints the fold of the runs.
measure() {
    local name="$1" n="$2" acc="" one
    shift 2
    for ((i = 0; i < n; i++)); do
        one=$(run_once "$name" "$@")
        acc=$(fold "$acc" "$one")
        [[ $one == *fail ]] && break
    done
    echo "$acc"
}

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
results="$tmp/results.tsv"
: >"$results"
# row CORPUS BYTES BUDGET UNIT CONTENDER SECS PEAK_KB CPU_SECS STATUS CHUNKS
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"; }

bench_corpus() { # CORPUS [quick]: quick = cleave chars at the first budget + parse-only only
    local corpus="$1" quick="${2:-}" dir="$here/corpus/$1"
    local bytes files
    local parse_cmd=("$harness" parse --threads "$threads" "$dir") parse_all=""
    read -r secs peak cpu status < <(run_once parse "${parse_cmd[@]}")
    bytes=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' "$tmp/parse.out")
    files=$(sed -n 's/.*files=\([0-9]*\).*/\1/p' "$tmp/parse.out")
    echo "bench: $corpus: $files files, $bytes bytes; parse-only ${secs}s (cpu ${cpu}s)" >&2
    parse_all=$(fold "" "$secs $peak $cpu $status")
    for budget in $budgets; do
        for unit in $units; do
            if [[ -n $quick ]] && [[ $unit != chars || $budget != "${budgets%% *}" ]]; then continue; fi
            local cu=$unit
            [[ $unit == tokens ]] && cu=tokens
            # cleave and parse-only run alternately, so that a busy minute on the machine
            # lands on both sides of their ratio; parse-only gets a row of its own here.
            local cleave_cmd=("$cleave" chunk "$dir" --format jsonl --budget "$budget" --unit "$cu"
                --threads "$threads" --no-ignore --quiet) parse_acc="" cleave_acc="" one
            for ((r = 0; r < reps; r++)); do
                one=$(run_once parse "${parse_cmd[@]}")
                parse_acc=$(fold "$parse_acc" "$one")
                one=$(run_once cleave "${cleave_cmd[@]}")
                cleave_acc=$(fold "$cleave_acc" "$one")
                [[ $one == *fail ]] && break
            done
            parse_all=$(fold "$parse_all" "$parse_acc")
            read -r secs peak cpu status <<<"$parse_acc"
            row "$corpus" "$bytes" "$budget" "$unit" parse "$secs" "$peak" "$cpu" "$status" 0
            read -r secs peak cpu status <<<"$cleave_acc"
            local chunks
            chunks=$(wc -l <"$tmp/cleave.out")
            # Every non-empty, non-hidden UTF-8 file must come out as chunks (empty files give none).
            local seen
            seen=$(python3 -c 'import json, os, sys
paths = set()
for line in open(sys.argv[1], encoding="utf-8"):
    paths.add(json.loads(line)["path"])
expected = 0
for d, ds, fs in os.walk(sys.argv[2]):
    ds[:] = [x for x in ds if not x.startswith(".")]  # cleave skips hidden entries
    for f in fs:
        if f.startswith("."):
            continue
        b = open(os.path.join(d, f), "rb").read()
        try:
            expected += bool(b) and bool(b.decode("utf-8"))
        except UnicodeDecodeError:
            pass
print(f"{len(paths)}/{expected}")' "$tmp/cleave.out" "$dir" 2>/dev/null || echo "?")
            [[ $status == ok && ${seen%/*} != "${seen#*/}" ]] && status="files:$seen"
            echo "bench: $corpus $budget $unit: cleave ${secs}s (cpu ${cpu}s, $status, $chunks chunks)" >&2
            row "$corpus" "$bytes" "$budget" "$unit" cleave "$secs" "$peak" "$cpu" "$status" "$chunks"
            rm -f "$tmp/cleave.out"

            if [[ ${LIBRARY:-1} != 0 ]]; then
            read -r secs peak cpu status < <(measure pipeline "$reps" "$harness" pipeline --threads "$threads" \
                --budget "$budget" --unit "$unit" "$dir")
            chunks=$(sed -n 's/.*chunks=\([0-9]*\).*/\1/p' "$tmp/pipeline.out")
            echo "bench: $corpus $budget $unit: library pipeline ${secs}s ($(cut -d' ' -f7- "$tmp/pipeline.out"))" >&2
            row "$corpus" "$bytes" "$budget" "$unit" library "$secs" "$peak" "$cpu" "$status" "${chunks:-0}"
            fi

            if [[ -z $quick && -z ${NO_SPLITTER:-} ]]; then
                read -r secs peak cpu status < <(measure splitter "$splitter_reps" "$harness" splitter \
                    --threads "$threads" --budget "$budget" --unit "$unit" "$dir")
                chunks=$(sed -n 's/.*chunks=\([0-9]*\).*/\1/p' "$tmp/splitter.out")
                echo "bench: $corpus $budget $unit: text-splitter ${secs}s (cpu ${cpu}s)" >&2
                row "$corpus" "$bytes" "$budget" "$unit" text-splitter "$secs" "$peak" "$cpu" "$status" "${chunks:-0}"
            fi
        done
    done
    read -r secs peak cpu status <<<"$parse_all"
    row "$corpus" "$bytes" - - parse "$secs" "$peak" "$cpu" "$status" 0
}

for lang in "${langs[@]}"; do bench_corpus "$lang"; done
for lang in $scale; do
    [[ " ${langs[*]} " == *" $lang "* ]] || continue
    for n in 2 4; do bench_corpus "$lang-x$n" quick; done
done

# The report: the machine, then the table.
machine="$(hostname -s 2>/dev/null || echo machine)"
out="${OUT:-$here/runs/$(date +%Y-%m-%d)-$machine.txt}"
{
    echo "cleave benchmark run, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "command: ${SNAPSHOT:+SNAPSHOT=$SNAPSHOT }bench/run.sh ${*:-} (THREADS=$threads REPS=$reps SPLITTER_REPS=$splitter_reps BUDGETS=\"$budgets\" UNITS=\"$units\" SCALE=\"$scale\" LIBRARY=${LIBRARY:-1})"
    if [[ -n ${SNAPSHOT:-} ]]; then
        echo "cleave: $(cd "$root" && git log -1 --format='%h %s' "$rev") (SNAPSHOT: that commit, exported)"
    else
        echo "cleave: working tree on $(cd "$root" && git log -1 --format='%h %s')$(cd "$root" && git diff --quiet HEAD -- crates grammars || echo ' + uncommitted changes')"
    fi
    echo "machine: $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -sr)"
    echo "toolchain: $(rustc -V)"
    echo "load average (1, 5, 15 min): $load_before at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end (other jobs share the machine)"
    echo "threads: $threads everywhere (cleave --threads, rayon pools of the harness)"
    echo "timing: wall clock of the whole process, best of $reps (text-splitter: best of $splitter_reps); cpu = user + system, least of the runs; peak = max RSS"
    echo "        parse-only and cleave alternate, $reps rounds for each budget and unit; cleave/parse compares the runs of one set"
    echo "corpora:"
    for lang in "${langs[@]}"; do
        echo "  $lang: $(sed -n 's/^source: //p' "$here/corpus/$lang.MANIFEST"); $(sed -n 's/^files: //p' "$here/corpus/$lang.MANIFEST") files, digest $(sed -n 's/^digest: //p' "$here/corpus/$lang.MANIFEST")"
    done
    echo
    python3 "$here/report.py" "$results"
} >"$out"
cat "$out"
echo "bench: written to $out" >&2
