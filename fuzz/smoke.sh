#!/usr/bin/env bash
# Runs every fuzz target for N seconds (default 10) from the committed seeds, one after the
# other, and exits non-zero if any of them crashes, hangs or runs out of memory. CI may call
# it; the long runs are done by hand and logged in RUNS.md.
#
#   fuzz/smoke.sh [SECONDS] [TARGET...]
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`). New
# inputs go to runs/corpus/<target>/ and crashes to artifacts/<target>/, both gitignored.
set -uo pipefail
cd "$(dirname "$0")"
secs=${1:-10}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

# No sanitizer: the crates forbid unsafe code, and cargo-fuzz's AddressSanitizer flags reach
# only Rust code, not the tree-sitter grammars' C; without it the runs are about twice as fast.
nice -n 19 cargo +nightly fuzz build -s none || exit 2

failed=()
for t in "${targets[@]}"; do
    mkdir -p "runs/corpus/$t" "artifacts/$t"
    echo "== $t: ${secs}s"
    if ! cargo +nightly fuzz run -s none "$t" "runs/corpus/$t" "corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 \
        -artifact_prefix="artifacts/$t/" -print_final_stats=1 2>"runs/$t.smoke.log"; then
        echo "!! $t failed: see fuzz/runs/$t.smoke.log and fuzz/artifacts/$t/"
        tail -40 "runs/$t.smoke.log"
        failed+=("$t")
    else
        grep -E '^stat::number_of_executed_units|^Done' "runs/$t.smoke.log" || true
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "crashed: ${failed[*]}"
    exit 1
fi
echo "all ${#targets[@]} targets ran ${secs}s without a crash"
