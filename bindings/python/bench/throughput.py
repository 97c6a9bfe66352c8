"""Throughput of the wheel against the CLI and semantic-text-splitter, in one process and run.

    python bindings/python/bench/throughput.py --cli target/release/cleave CORPUS...

For each corpus folder (one language), best of --runs:
- cli: `cleave chunk DIR --format jsonl` to /dev/null (walk, read, chunk, render records);
- chunk_tree: the wheel walking and chunking the same folder, every result made a Python object;
- chunk_many: the wheel on the list of the folder's files (paths), the same;
- chunk_many+json: the same, plus `to_json()` of every chunk (the CLI's rendering);
- chunk_many(texts): the wheel on (path, text) pairs already in memory;
- semantic-text-splitter: `CodeSplitter(grammar, budget).chunk_all(texts)` on the same texts.
Sizes are in chars, at the same budget. The machine and its load are printed with the table.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import subprocess
import time
from pathlib import Path

import cleave

GRAMMARS = {".py": "tree_sitter_python", ".go": "tree_sitter_go", ".rs": "tree_sitter_rust"}


def best(runs: int, f) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        f()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--cli", type=Path, required=True)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    print(f"# {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()}, "
          f"python {platform.python_version()}, budget {args.budget} chars, best of {args.runs}")
    chunker = cleave.Chunker(budget=args.budget)
    for corpus in args.corpora:
        results = list(chunker.chunk_tree(corpus))
        files = [corpus / r.path for r in results if r.outcome != "skipped"]
        texts = [(str(p.relative_to(corpus)), p.read_text(encoding="utf-8")) for p in files]
        mb = sum(len(t.encode()) for _, t in texts) / 1e6
        n_chunks = sum(len(r) for r in results)
        print(f"\n## {corpus} — {len(files)} files, {mb:.1f} MB, {n_chunks} chunks")

        def cli() -> None:
            subprocess.run(
                [str(args.cli), "chunk", str(corpus), "--format", "jsonl", "--quiet",
                 "--budget", str(args.budget)],
                stdout=subprocess.DEVNULL, check=True,
            )

        def many_json() -> None:
            for r in chunker.chunk_many(files):
                for c in r.chunks:
                    c.to_json()

        rows = [
            ("cli", cli),
            ("chunk_tree", lambda: list(chunker.chunk_tree(corpus))),
            ("chunk_many", lambda: chunker.chunk_many(files)),
            ("chunk_many+json", many_json),
            ("chunk_many(texts)", lambda: chunker.chunk_many(texts)),
        ]
        ext = files[0].suffix if files else ""
        try:
            from semantic_text_splitter import CodeSplitter

            grammar = importlib.import_module(GRAMMARS[ext]).language()
            splitter = CodeSplitter(grammar, args.budget)
            only = [t for _, t in texts]
            rows.append(("semantic-text-splitter", lambda: splitter.chunk_all(only)))
        except (ImportError, KeyError) as err:
            print(f"(semantic-text-splitter left out: {err})")
        cli_time = None
        for name, f in rows:
            seconds = best(args.runs, f)
            cli_time = cli_time or seconds
            print(f"{name:24} {seconds:7.3f} s {mb / seconds:7.1f} MB/s  {cli_time / seconds:5.2f}x cli")


if __name__ == "__main__":
    main()
