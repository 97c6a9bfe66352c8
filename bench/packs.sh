#!/usr/bin/env bash
# Packs on the bench corpora: packs per MB against the lower bounds (total size / budget, and
# the bin-packing bound L2 for the members as they are), crumbs, and import locality against
# directory-order packing in the same run (`--baseline`).
# Usage: bench/packs.sh [CORPUS_DIR] > bench/runs/DATE-packs.txt
#   LANGS="c cpp markdown" bench/packs.sh   # some corpora (default: the first wave, the
#                                            # second wave's code corpora and markdown)
# How a corpus's imports resolve (per import kind, same-folder share, cycles, a bound on
# locality per setting): CLEAVE_GRAPH_CORPUS=DIR cargo test -p cleave-engine --lib \
#   corpus_report -- --nocapture
set -euo pipefail
corpus=${1:-bench/corpus}
bin=${CLEAVE:-target/release/cleave}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-10s %-6s %6s %5s %6s %6s %6s %6s %7s %7s %7s %6s %9s %9s %6s %6s %6s\n' \
  corpus unit budget MB packs lower L2 L2room 'over%' 'overL2%' 'L2/low%' 'crumb%' locality dir-order dirpk cycle secs
for lang in ${LANGS:-rust python go java typescript c cpp csharp ruby php kotlin scala swift bash markdown}; do
  for unit in ${UNITS:-chars tokens}; do
    for budget in ${BUDGETS:-8000 32000}; do
      out="$tmp/$lang-$unit-$budget"
      start=$(date +%s.%N)
      "$bin" pack "$corpus/$lang" --budget "$budget" --unit "$unit" --out "$out" --baseline -q
      end=$(date +%s.%N)
      "$bin" verify "$out" --root "$corpus/$lang" --budget "$budget" --unit "$unit" >/dev/null 2>&1 \
        || { echo "verify failed: $lang $unit $budget" >&2; exit 1; }
      python3 - "$out/manifest.json" "$lang" "$unit" "$budget" "$start" "$end" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
lang, unit, budget, start, end = sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
s = m["stats"]
mb = sum(f["bytes"] for f in m["files"] if f.get("outcome") != "skipped") / 1e6
pct = lambda a, b: (a / b - 1) * 100 if b else 0
d = s["directory_order"]
print(f'{lang:<10} {unit:<6} {budget:>6} {mb:>5.1f} {s["packs"]:>6} {s["lower_bound"]:>6} '
      f'{s["lower_bound_l2"]:>6} {s["lower_bound_l2_room"]:>6} '
      f'{pct(s["packs"], s["lower_bound"]):>6.1f}% {pct(s["packs"], s["lower_bound_l2"]):>6.1f}% '
      f'{pct(s["lower_bound_l2"], s["lower_bound"]):>6.1f}% {s["crumbs"]*100/s["packs"]:>5.2f}% '
      f'{s["import_locality"]*100:>8.1f}% {d["import_locality"]*100:>8.1f}% {d["packs"]:>6} '
      f'{s["largest_cycle"]:>6} {end-start:>6.1f}')
PY
      rm -rf "$out"
    done
  done
done
