#!/usr/bin/env python3
"""Sums callgrind inclusive counts for the functions PROFILE.md names.

Run in a folder holding cg.parse.<lang> and cg.pipe.<lang> (callgrind outputs of
`cleave-bench parse` and `cleave-bench pipeline`): python3 callgrind_summary.py rust python
"""
import re, subprocess, sys
keys = [
 ("parse (ts_parser_parse_with_options)", r":ts_parser_parse_with_options \["),
 ("  of which re-parse of ranges (parse_ranges)", r"ParseContext::parse_ranges \["),
 ("query pass (ts_query_cursor_next_match)", r":ts_query_cursor_next_match \["),
 ("walk to atoms (Walker::entries)", r"Walker::entries \["),
 ("pack (cleave_core::pack)", r"cleave_core::pack::pack \["),
 ("JSON (Chunk::serialize)", r"Serialize for cleave_core::chunk::Chunk>::serialize \["),
 ("tree drop", r"Tree as core::ops::drop::Drop>::drop \["),
 ("query compile, once (OnceLock init)", r"OnceLock<T>::initialize \["),
 ("line index (Source::new)", r"Source::new \["),
 ("malloc+free (all callers)", r"malloc.c:(malloc|free) \["),
]
def total(f):
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", f], capture_output=True, text=True).stdout
    tot = int(re.search(r"([\d,]+) \(100.0%\)\s+PROGRAM TOTALS", out).group(1).replace(",", ""))
    return tot, out
for lang in sys.argv[1:]:
    ptot, _ = total(f"cg.parse.{lang}")
    tot, out = total(f"cg.pipe.{lang}")
    print(f"{lang}: parse-only process {ptot/1e6:,.0f} M Ir; cleave pipeline process {tot/1e6:,.0f} M Ir; ratio {tot/ptot:.2f}")
    for name, pat in keys:
        best = 0
        for line in out.splitlines():
            if re.search(pat, line):
                m = re.match(r"\s*([\d,]+)", line)
                if m: best = max(best, int(m.group(1).replace(",", "")))
        print(f"   {name:45} {best/1e6:8,.0f} M  {100*best/tot:5.1f} %  {best/ptot*100:5.1f} % of parse-only")
