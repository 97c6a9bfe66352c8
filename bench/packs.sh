#!/usr/bin/env bash
# Packs on the bench corpora: packs per MB against the lower bound, crumbs, and import
# locality against directory-order packing in the same run (`--baseline`).
# Usage: bench/packs.sh [CORPUS_DIR] > bench/runs/DATE-packs.txt
set -euo pipefail
corpus=${1:-bench/corpus}
bin=${CLEAVE:-target/release/cleave}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-10s %-6s %6s %6s %6s %6s %7s %8s %8s %7s %9s %9s %6s %6s\n' \
  corpus unit budget MB packs lower 'over%' packs/MB bound/MB 'crumb%' locality dir-order cycle secs
for lang in rust python go java typescript; do
  for unit in chars tokens; do
    for budget in 8000 32000; do
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
over = (s["packs"] / s["lower_bound"] - 1) * 100 if s["lower_bound"] else 0
print(f'{lang:<10} {unit:<6} {budget:>6} {mb:>6.1f} {s["packs"]:>6} {s["lower_bound"]:>6} {over:>6.1f}% '
      f'{s["packs"]/mb:>8.1f} {s["lower_bound"]/mb:>8.1f} {s["crumbs"]*100/s["packs"]:>6.2f}% '
      f'{s["import_locality"]*100:>8.1f}% {s["directory_order"]["import_locality"]*100:>8.1f}% '
      f'{s["largest_cycle"]:>6} {end-start:>6.1f}')
PY
      rm -rf "$out"
    done
  done
done
