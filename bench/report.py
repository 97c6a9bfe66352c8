#!/usr/bin/env python3
"""Formats bench/run.sh's results.tsv: the main table, the targets of issue 5, linearity.

Rows: corpus, bytes, budget, unit, contender (parse|cleave|library|text-splitter), wall
seconds, peak RSS in KiB, [CPU seconds,] status, chunks. Ratios are given on wall time and, where
recorded, on CPU time (user + system), which other jobs on a shared machine disturb far less.
"""
import sys
from collections import defaultdict

rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
res = {}
corpora = []
for row in rows:
    if len(row) == 9:
        row.insert(7, "")
    corpus, nbytes, budget, unit, who, secs, peak, cpu, status, chunks = row
    if corpus not in corpora:
        corpora.append(corpus)
    res[(corpus, budget, unit, who)] = dict(
        bytes=int(nbytes), secs=float(secs), peak=int(peak) / 1024, ok=status == "ok" or status.startswith("files:"), status=status,
        chunks=int(chunks), cpu=float(cpu) if cpu else None,
    )
has_cpu = any(r["cpu"] for r in res.values())


def get(corpus, budget, unit, who):
    r = res.get((corpus, budget, unit, who))
    return r if r and r["ok"] else None


def mbs(r):
    return f"{r['bytes'] / 1e6 / r['secs']:.1f}" if r else (res_status(r))


def res_status(r):
    return "n/a"


def fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def cpu_ratio(a, b):
    """a's CPU time over b's, or None."""
    return a["cpu"] / b["cpu"] if a and b and a["cpu"] and b["cpu"] else None


header = [
    "corpus", "MB", "budget", "unit", "cleave MB/s", "parse MB/s", "cleave/parse", "(cpu)", "library MB/s",
    "t-s MB/s", "cleave/t-s", "(cpu)", "tok/chars", "(cpu)", "cleave peak MB", "parse peak MB", "t-s peak MB",
    "chunks cleave", "chunks t-s",
]
table = []
for corpus in corpora:
    parse = get(corpus, "-", "-", "parse")
    keys = sorted({(b, u) for (c, b, u, w) in res if c == corpus and b != "-"}, key=lambda k: (int(k[0]), k[1]))
    for budget, unit in keys:
        # parse-only as timed alternately with this budget and unit, else the corpus's best.
        parse = get(corpus, budget, unit, "parse") or get(corpus, "-", "-", "parse")
        cl = get(corpus, budget, unit, "cleave")
        lib = get(corpus, budget, unit, "library")
        ts = get(corpus, budget, unit, "text-splitter")
        chars = get(corpus, budget, "chars", "cleave")
        raw = res.get((corpus, budget, unit, "cleave"))
        nbytes = (parse or cl or lib or {"bytes": 0})["bytes"]
        table.append([
            corpus, f"{nbytes / 1e6:.1f}", budget, unit,
            mbs(cl) if cl else (raw["status"] if raw else "n/a"),
            mbs(parse),
            fmt(parse["secs"] / cl["secs"] if cl and parse else None, ".2f"),
            fmt(cpu_ratio(parse, cl), ".2f"),
            mbs(lib),
            mbs(ts),
            fmt(ts["secs"] / cl["secs"] if cl and ts else None, ".1f"),
            fmt(cpu_ratio(ts, cl), ".1f"),
            fmt(cl["secs"] / chars["secs"] if unit != "chars" and cl and chars else None, ".2f"),
            fmt(cpu_ratio(cl, chars) if unit != "chars" else None, ".2f"),
            fmt(cl["peak"] if cl else None, ".0f"),
            fmt(parse["peak"] if parse else None, ".0f"),
            fmt(ts["peak"] if ts else None, ".0f"),
            str(cl["chunks"]) if cl else "n/a",
            str(ts["chunks"]) if ts else "n/a",
        ])

widths = [max(len(r[i]) for r in [header] + table) for i in range(len(header))]
print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
for r in table:
    print("  ".join(c.rjust(w) for c, w in zip(r, widths)))
print()
print("cleave/parse: parse-only time / cleave time (target >= 0.8, chars). cleave/t-s: text-splitter")
print("time / cleave time (target >= 5). tok/chars: cleave time in tokens / in chars (target <= 1.5).")
print("Each ratio on wall time, then (cpu) on CPU time (user + system).")
print("library: cleave's atomize + pack + JSON in process (harness), without the CLI's walk and writer.")
odd = sorted({(k[0], v["status"]) for k, v in res.items() if v["status"].startswith("files:")})
for corpus, status in odd:
    print(f"note: {corpus}: cleave wrote chunks for {status[6:]} files (seen / non-empty UTF-8 files not")
    print("  hidden): check `cleave chunk --report` for the files it skipped.")
print()

# Targets, per corpus (the scaled copies only serve linearity).
print("targets (judged on CPU time where recorded: on a shared machine wall time mostly measures the other jobs):")
for corpus in corpora:
    if "-x" in corpus:
        continue
    checks = []
    for budget in sorted({b for (c, b, u, w) in res if c == corpus and b != "-"}, key=int):
        parse = get(corpus, budget, "chars", "parse") or get(corpus, "-", "-", "parse")
        cl = get(corpus, budget, "chars", "cleave")
        tok = get(corpus, budget, "tokens", "cleave")
        if cl and parse:
            r = parse["secs"] / cl["secs"]
            c = cpu_ratio(parse, cl)
            cs = f" (cpu {c:.2f})" if c else ""
            v = c or r
            checks.append(f"{budget}: e2e/parse {r:.2f}{cs} {'ok' if v >= 0.8 else 'MISS'}")
        else:
            checks.append(f"{budget}: e2e/parse n/a")
        if cl and tok:
            r = tok["secs"] / cl["secs"]
            c = cpu_ratio(tok, cl)
            cs = f" (cpu {c:.2f})" if c else ""
            v = c or r
            checks.append(f"tok/chars {r:.2f}{cs} {'ok' if v <= 1.5 else 'MISS'}")
        for unit in ("chars", "tokens"):
            c = get(corpus, budget, unit, "cleave")
            t = get(corpus, budget, unit, "text-splitter")
            if c and t:
                r = t["secs"] / c["secs"]
                cr = cpu_ratio(t, c)
                cs = f" (cpu {cr:.1f}x)" if cr else ""
                v = cr or r
                checks.append(f"vs t-s {unit} {r:.1f}x{cs} {'ok' if v >= 5 else 'MISS'}")
    peaks = [r["peak"] for (c, b, u, w), r in res.items() if c == corpus and w == "cleave" and r["ok"]]
    if peaks:
        checks.append(f"peak {max(peaks):.0f} MB {'ok' if max(peaks) <= 200 else 'MISS'}")
    print(f"  {corpus}: " + "; ".join(checks))

scaled = defaultdict(list)
for corpus in corpora:
    base = corpus.split("-x")[0]
    if any(c.startswith(base + "-x") for c in corpora):
        scaled[base].append(corpus)
for base, group in scaled.items():
    first = sorted({b for (c, b, u, w) in res if c == base and b != "-"}, key=int)[0]
    print()
    print(f"linearity ({base}, budget {first}, chars): size, time, peak, and each per MB")
    for corpus in group:
        for who, b, u in (("parse", "-", "-"), ("cleave", first, "chars"), ("library", first, "chars")):
            r = get(corpus, b, u, who)
            if r:
                mb = r["bytes"] / 1e6
                cpu = f"  {r['cpu']:7.2f} cpu-s  {r['cpu'] / mb * 1000:6.1f} cpu-ms/MB" if r["cpu"] else ""
                print(f"  {corpus:12} {who:8} {mb:6.1f} MB  {r['secs']:7.2f} s  {r['peak']:6.0f} MB peak"
                      f"  {r['secs'] / mb * 1000:6.1f} ms/MB  {r['peak'] / mb:5.2f} peak/MB{cpu}")
