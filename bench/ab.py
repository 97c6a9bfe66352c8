#!/usr/bin/env python3
"""Two or more cleave builds side by side against the parse-only floor, in the same run.

    python3 bench/ab.py --rounds 7 --threads 2 before=/tmp/cleave-old after=target/release/cleave \
        -- css rust go

Each round runs the floor (bench/target/release/cleave-bench parse), then each build
(`cleave chunk DIR --budget 2000 --no-ignore -q -o FILE`), on each corpus of bench/corpus; for
each it keeps the least wall seconds, the least CPU seconds (user + system, from wait4) and the
largest peak RSS over the rounds, and prints the floor's over the build's seconds as ratios
(wall and CPU). The builds' outputs are compared byte for byte at the end of each corpus. On a
shared machine other jobs slow some runs and never speed one up, so the least of several
alternating runs is the steadiest estimate; report ratios, not seconds.
"""

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(cmd):
    """Wall seconds, CPU seconds and peak RSS (MiB) of one run of `cmd`."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"ab: {' '.join(map(str, cmd))} failed ({status})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    split = argv.index("--")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--budget", default="2000")
    ap.add_argument("builds", nargs="+", help="NAME=PATH of each cleave build")
    opts = ap.parse_args(argv[:split])
    builds = [b.split("=", 1) for b in opts.builds]
    corpora = argv[split + 1 :]
    floor = HERE / "target" / "release" / "cleave-bench"
    print(f"load average {' '.join(open('/proc/loadavg').read().split()[:3])} at the start; "
          f"{os.cpu_count()} CPUs; threads {opts.threads}; budget {opts.budget}; "
          f"least wall and CPU seconds, largest peak RSS of {opts.rounds} rounds")
    head = f"{'corpus':>11} {'floor wall':>10} {'cpu':>6}"
    for name, _ in builds:
        head += f" | {name + ' wall':>12} {'ratio':>5} {'cpu':>6} {'ratio':>5} {'RSS MiB':>7}"
    print(head)
    with tempfile.TemporaryDirectory() as tmp:
        for corpus in corpora:
            folder = HERE / "corpus" / corpus
            best = {}
            for _ in range(opts.rounds):
                runs = [("floor", [floor, "parse", "--threads", opts.threads, folder])]
                runs += [(name, [path, "chunk", folder, "--threads", opts.threads, "--budget",
                                 opts.budget, "--no-ignore", "-q", "-o", f"{tmp}/{name}.jsonl"])
                         for name, path in builds]
                for name, cmd in runs:
                    wall, cpu, rss = run(cmd)
                    w, c, r = best.get(name, (wall, cpu, rss))
                    best[name] = (min(w, wall), min(c, cpu), max(r, rss))
            fw, fc, _ = best["floor"]
            line = f"{corpus:>11} {fw:>10.3f} {fc:>6.3f}"
            for name, _ in builds:
                w, c, r = best[name]
                line += f" | {w:>12.3f} {fw / w:>5.2f} {c:>6.3f} {fc / c:>5.2f} {r:>7.0f}"
            outputs = [f"{tmp}/{name}.jsonl" for name, _ in builds]
            same = all(filecmp.cmp(outputs[0], o, shallow=False) for o in outputs[1:])
            print(line + ("" if same else "   OUTPUTS DIFFER"), flush=True)


if __name__ == "__main__":
    main()
