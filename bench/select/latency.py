#!/usr/bin/env python3
"""End-to-end latency of `cleave select` on an indexed root, process start to exit.

    python3 bench/select/latency.py CLEAVE ROOT INDEX_DIR [--rounds N]

Indexes ROOT into INDEX_DIR (`cleave index ROOT --index INDEX_DIR`, timed), then runs every
query of QUERIES through `cleave select ROOT --index INDEX_DIR --budget 4000` N rounds (the
first one a warm-up, not counted), and prints p50, p90, p99 and max of the wall times, and the
same for `--no-index` on a few queries (chunking on the fly) for scale. Fails if a selection
warns that the index was not used or goes over its budget.
"""
import argparse
import json
import statistics
import subprocess
import time

QUERIES = [
    "how are errors reported to the caller",
    "where is the configuration file parsed",
    "hash map iteration order",
    "parse command line arguments",
    "thread pool worker shutdown",
    "how does the iterator skip elements",
    "unicode string normalization",
    "format a number with padding",
    "read a file into a buffer",
    "sort a slice by key",
    "what happens when the allocation fails",
    "test that the cache is invalidated",
]


def run(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    took = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr}")
    return took, p


def pct(xs, p):
    xs = sorted(xs)
    return xs[round((len(xs) - 1) * p)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cleave")
    ap.add_argument("root")
    ap.add_argument("index")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    took, p = run([a.cleave, "index", a.root, "--index", a.index])
    print(f"index: {took:.2f} s ({p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''})")
    times = []
    for r in range(a.rounds):
        for q in QUERIES:
            took, p = run([a.cleave, "select", a.root, "--index", a.index, "--query", q,
                           "--budget", "4000", "--format", "json"])
            if "index" in p.stderr:
                raise SystemExit(f"the index was not used: {p.stderr}")
            sel = json.loads(p.stdout)
            if sel["size"] > 4000:
                raise SystemExit(f"over budget: {sel['size']}")
            if r > 0:
                times.append(took * 1000)
    print(f"select with the index, {len(times)} runs: p50 {pct(times, .5):.0f} ms, "
          f"p90 {pct(times, .9):.0f} ms, p99 {pct(times, .99):.0f} ms, max {max(times):.0f} ms, "
          f"mean {statistics.mean(times):.0f} ms")
    slow = []
    for q in QUERIES[:3]:
        took, _ = run([a.cleave, "select", a.root, "--no-index", "--query", q,
                       "--budget", "4000", "--format", "json"])
        slow.append(took * 1000)
    print(f"select without it (chunking on the fly), {len(slow)} runs: median "
          f"{statistics.median(slow):.0f} ms")


if __name__ == "__main__":
    main()
