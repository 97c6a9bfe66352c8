"""Ray Data local mode and chonkie beside chunk_many and the CLI, in one process and run.

    python bindings/python/bench/scale.py --cli target/release/cleave CORPUS...

Needs `ray[data]` (2.x), `chonkie` and, for the quality counts, `tree-sitter` with the grammar
packages `tree-sitter-{python,go,rust,java,typescript}`; a missing one leaves its rows out.

For each corpus folder (one language), best of --runs, sizes in chars at the same budget:
- cli: `cleave chunk DIR --format jsonl` to /dev/null (walk, read, chunk, render records);
- chunk_many: the wheel on the folder's files (paths), every result made a Python object;
- chunk_many(texts) t=1: the wheel on (path, text) pairs in memory, one thread (chonkie's terms);
- ChunkFiles, no Ray, t=1: the map_batches callable of `cleave/ray.py` called in this process on
  Arrow batches of --batch-size files read here: the records-to-Arrow cost without Ray's;
- ray N workers: the pipeline of `cleave/ray.py` in local mode: `read_binary_files` of the files
  the CLI walks -> `map_batches(ChunkFiles, concurrency=N)` (one Chunker per actor, threads=1)
  -> `materialize()` (in memory, in Ray's object store); the actors start inside the timing,
  `ray.init` does not. `ray N workers -> parquet` writes the same to Parquet instead.
  The rows of one more 2-worker run are then compared with the CLI's records, field by field,
  and the files' outcomes with the CLI's report (its regular files: Ray is given the files the
  walk reports, not a folder, which it would read through, hidden files and all).
- chonkie recursive / token / sentence: chonkie's non-code chunkers with its built-in
  "character" tokenizer, `chunk(text)` on every non-empty file, sequentially (chonkie's own
  default; its CodeChunker needs `tree_sitter_language_pack` grammars from the network).

Quality, at the budget, for cleave (chunk_many) and each chonkie chunker:
- in budget: share of chunks whose size is within the budget (cleave: `tokens`, the size of
  header + text it packs to; chonkie: `len(text)`);
- cut top-level: share of chunks that end strictly inside a top-level definition (a function,
  class, impl, type... not nested in another, per tree-sitter), of any size;
- cut fitting: share of chunks that end strictly inside a definition at any depth (function,
  method, class...) whose whole text would have fit the budget: a cut no budget forced.
  A chunk "ends inside" [s, e) when s < end < e, with `end` the chunk's last non-whitespace
  byte + 1 in the source; the file's last chunk is never counted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import cleave

#: The fields compared between the Ray rows and the CLI's records (as tests/test_scale.py).
FIELDS = ("path", "id", "byte_start", "byte_end", "line_start", "line_end", "tokens", "symbols",
          "scope", "header", "text")

#: Per extension: grammar (module, function) and the node types that count as definitions.
DEFINITIONS: dict[str, tuple[str, str, set[str]]] = {
    ".py": ("tree_sitter_python", "language",
            {"function_definition", "class_definition", "decorated_definition"}),
    ".go": ("tree_sitter_go", "language",
            {"function_declaration", "method_declaration", "type_declaration"}),
    ".rs": ("tree_sitter_rust", "language",
            {"function_item", "impl_item", "struct_item", "enum_item", "trait_item", "mod_item",
             "union_item", "macro_definition"}),
    ".java": ("tree_sitter_java", "language",
              {"class_declaration", "interface_declaration", "enum_declaration",
               "record_declaration", "annotation_type_declaration", "method_declaration",
               "constructor_declaration"}),
    ".ts": ("tree_sitter_typescript", "language_typescript",
            {"function_declaration", "generator_function_declaration", "class_declaration",
             "abstract_class_declaration", "interface_declaration", "enum_declaration",
             "module", "internal_module", "method_definition"}),
    ".tsx": ("tree_sitter_typescript", "language_tsx",
             {"function_declaration", "generator_function_declaration", "class_declaration",
              "abstract_class_declaration", "interface_declaration", "enum_declaration",
              "module", "internal_module", "method_definition"}),
}


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "absent"


class Definitions:
    """Byte spans of definitions per file, from tree-sitter: top-level ones, and all of them."""

    def __init__(self) -> None:
        import tree_sitter

        self.ts = tree_sitter
        self.parsers: dict[str, Any] = {}

    def spans(self, ext: str, source: bytes) -> tuple[list[tuple[int, int]],
                                                     list[tuple[int, int, int]]]:
        """(top-level spans, every definition's (start, end, chars))."""
        module, func, kinds = DEFINITIONS[ext]
        if ext not in self.parsers:
            lang = getattr(__import__(module), func)()
            self.parsers[ext] = self.ts.Parser(self.ts.Language(lang))
        tree = self.parsers[ext].parse(source)
        top: list[tuple[int, int]] = []
        every: list[tuple[int, int, int]] = []
        stack = [(tree.root_node, False)]
        while stack:
            node, inside = stack.pop()
            is_def = node.type in kinds
            if is_def:
                s, e = node.start_byte, node.end_byte
                every.append((s, e, len(source[s:e].decode("utf-8", "replace"))))
                if not inside:
                    top.append((s, e))
            for child in node.children:
                stack.append((child, inside or is_def))
        return top, every


def quality(ends_per_file: list[tuple[bytes, list[int], list[int]]], spans: dict[int, Any],
            budget: int) -> tuple[int, float, float, float]:
    """(chunks, in budget %, cut top-level %, cut fitting %).

    `ends_per_file`: (source, byte ends of the chunks, sizes of the chunks) per file;
    `spans[i]` the definitions of file i (or None without a grammar)."""
    n = within = top_cuts = fit_cuts = 0
    for i, (source, ends, sizes) in enumerate(ends_per_file):
        n += len(ends)
        within += sum(1 for s in sizes if s <= budget)
        if spans.get(i) is None or not ends:
            continue
        top, every = spans[i]
        last = max(ends)
        for end in ends:
            if end >= last:
                continue
            while end > 0 and source[end - 1:end].isspace():
                end -= 1
            if any(s < end < e for s, e in top):
                top_cuts += 1
            if any(s < end < e and chars <= budget for s, e, chars in every):
                fit_cuts += 1
    pct = (lambda k: 100.0 * k / n) if n else (lambda k: 0.0)
    return n, pct(within), pct(top_cuts), pct(fit_cuts)


def ray_rows_equal_cli(rows: list[dict], cli_lines: list[str]) -> str:
    """'yes' or what differs, comparing FIELDS of every chunk (order aside)."""
    def key(values: dict, nested: Callable[[Any], tuple]) -> tuple:
        return tuple(nested(values[f]) if f in ("symbols", "scope") else values[f]
                     for f in FIELDS)

    got = sorted(key(r, lambda v: tuple(v or ())) for r in rows if r["id"] is not None)
    want = sorted(key(json.loads(line), tuple) for line in cli_lines)
    if got == want:
        return f"yes ({len(got)} chunks)"
    extra = set(got) - set(want)
    missing = set(want) - set(got)
    return f"NO: ray {len(got)} chunks, cli {len(want)}; {len(extra)} only in ray, " \
           f"{len(missing)} only in cli"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--cli", type=Path, required=True)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--batch-size", type=int, default=16,
                        help="files per map_batches batch")
    parser.add_argument("--no-parquet", action="store_true")
    args = parser.parse_args()
    budget = args.budget

    cli_version = subprocess.run([str(args.cli), "--version"], capture_output=True,
                                 text=True).stdout.strip()
    print(f"# {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()}, "
          f"python {platform.python_version()}, budget {budget} chars, best of {args.runs}")
    print(f"# {cli_version}; wheel cleave {version('cleave')}; ray {version('ray')}; "
          f"pyarrow {version('pyarrow')}; chonkie {version('chonkie')} "
          f"(chonkie-core {version('chonkie-core')}); tree-sitter {version('tree-sitter')}")

    try:
        import pyarrow as pa
    except ImportError:
        pa = None
    try:
        import ray
    except ImportError as err:
        ray = None
        print(f"(ray left out: {err})")
    try:
        import chonkie
        chonkers = {
            "recursive": chonkie.RecursiveChunker(tokenizer="character", chunk_size=budget),
            "token": chonkie.TokenChunker(tokenizer="character", chunk_size=budget,
                                          chunk_overlap=0),
            "sentence": chonkie.SentenceChunker(tokenizer="character", chunk_size=budget,
                                                chunk_overlap=0),
        }
    except ImportError as err:
        chonkers = {}
        print(f"(chonkie left out: {err})")
    try:
        definitions: Definitions | None = Definitions()
    except ImportError as err:
        definitions = None
        print(f"(quality cuts left out: {err})")

    scratch = Path(tempfile.mkdtemp(prefix="cleave-scale-bench-"))
    if ray is not None:
        # Logical CPUs: up to two actors hold one each, and the read tasks need their own.
        ray.init(num_cpus=max(args.workers) + 2, include_dashboard=False, log_to_driver=False,
                 _temp_dir=str(scratch / "ray"))
        ray.data.DataContext.get_current().enable_progress_bars = False
        # Warm up Ray's worker processes (imports, first actor) outside every timing.
        from cleave.ray import ChunkFiles

        warm = [str(p) for p in sorted(args.corpora[0].resolve().rglob("*")) if p.is_file()][:20]
        ray.data.read_binary_files(warm, include_paths=True).map_batches(
            ChunkFiles, fn_constructor_kwargs={"budget": budget}, batch_format="pyarrow",
            concurrency=max(args.workers)).materialize()
    chunker = cleave.Chunker(budget=budget)
    single = cleave.Chunker(budget=budget, threads=1)
    try:
        for corpus in args.corpora:
            corpus = corpus.resolve()
            walked = list(chunker.chunk_tree(corpus))
            # Regular files only: the walk also reports a skipped hidden folder, which
            # read_binary_files would read through (hidden files included).
            all_paths = [str(corpus / r.path) for r in walked if (corpus / r.path).is_file()]
            files = [corpus / r.path for r in walked if r.outcome != "skipped"]
            texts = [(str(p.relative_to(corpus)), p.read_text(encoding="utf-8")) for p in files]
            mb = sum(len(t.encode()) for _, t in texts) / 1e6
            n_chunks = sum(len(r) for r in walked)
            print(f"\n## {corpus.name} — {len(files)} files ({len(walked)} walked), {mb:.1f} MB, "
                  f"{n_chunks} cleave chunks")

            def cli() -> None:
                subprocess.run(
                    [str(args.cli), "chunk", str(corpus), "--format", "jsonl", "--quiet",
                     "--budget", str(budget)],
                    stdout=subprocess.DEVNULL, check=True,
                )

            rows: list[tuple[str, Callable[[], Any]]] = [
                ("cli", cli),
                ("chunk_many", lambda: chunker.chunk_many(files)),
                ("chunk_many(texts) t=1", lambda: single.chunk_many(texts)),
            ]
            from cleave.ray import ChunkFiles

            def chunk_files_alone() -> None:
                call = ChunkFiles(root=str(corpus), budget=budget)
                for i in range(0, len(all_paths), args.batch_size):
                    paths = all_paths[i:i + args.batch_size]
                    call(pa.table({"path": paths,
                                   "bytes": [Path(p).read_bytes() for p in paths]}))

            if pa is not None:
                rows.append(("ChunkFiles, no Ray, t=1", chunk_files_alone))
            if ray is not None:

                def pipeline(workers: int):
                    ds = ray.data.read_binary_files(all_paths, include_paths=True)
                    return ds.map_batches(
                        ChunkFiles,
                        fn_constructor_kwargs={"root": str(corpus), "budget": budget},
                        batch_format="pyarrow",
                        batch_size=args.batch_size,
                        concurrency=workers,
                    )

                for workers in args.workers:
                    rows.append((f"ray {workers} worker{'s' * (workers > 1)}",
                                 lambda w=workers: pipeline(w).materialize()))
                    if not args.no_parquet:
                        def parquet(w: int = workers) -> None:
                            target = scratch / "parquet"
                            shutil.rmtree(target, ignore_errors=True)
                            pipeline(w).write_parquet(str(target))
                        rows.append((f"ray {workers} worker{'s' * (workers > 1)} -> parquet",
                                     parquet))
            sources = [t for _, t in texts if t]
            for name, c in chonkers.items():
                rows.append((f"chonkie {name}", lambda c=c: [c.chunk(t) for t in sources]))

            cli_time = None
            chonkie_outs: dict[str, list[list[Any]]] = {}
            for name, f in rows:
                times = []
                for _ in range(args.runs):
                    started = time.perf_counter()
                    out = f()
                    times.append(time.perf_counter() - started)
                seconds = min(times)
                cli_time = cli_time or seconds
                if name.startswith("chonkie"):
                    chunks = sum(len(x) for x in out)
                else:
                    chunks = n_chunks
                print(f"{name:30} {seconds:7.3f} s {mb / seconds:6.2f} MB/s "
                      f"{chunks / seconds:8.0f} chunks/s  {cli_time / seconds:5.2f}x cli",
                      flush=True)
                if name.startswith("chonkie"):
                    chonkie_outs[name] = out

            if ray is not None:
                report = scratch / "report.json"
                lines = subprocess.run(
                    [str(args.cli), "chunk", str(corpus), "--format", "jsonl", "--quiet",
                     "--budget", str(budget), "--report", str(report)],
                    capture_output=True, check=True).stdout.decode("utf-8").splitlines()
                outcomes = {f["path"]: f["outcome"]
                            for f in json.loads(report.read_text(encoding="utf-8"))["files"]
                            if (corpus / f["path"]).is_file()}
                workers = max(args.workers)
                ray_rows = pipeline(workers).take_all()
                same_outcomes = {r["path"]: r["outcome"] for r in ray_rows} == outcomes
                print(f"ray ({workers} workers) rows equal the cli's records: "
                      f"{ray_rows_equal_cli(ray_rows, lines)}; file outcomes equal: "
                      f"{'yes' if same_outcomes else 'NO'} ({len(outcomes)} files)")

            # Quality at the budget.
            sources_b = [t.encode() for t in sources]
            spans: dict[int, Any] = {}
            if definitions is not None:
                spans = {i: definitions.spans(Path(p).suffix, sources_b[i])
                         if Path(p).suffix in DEFINITIONS else None
                         for i, p in enumerate(p for p, t in texts if t)}
            by_path = {r.path: r for r in chunker.chunk_many(
                [(p, t) for p, t in texts if t])}
            cleave_ends = []
            for (p, t), source in zip([(p, t) for p, t in texts if t], sources_b, strict=True):
                cs = by_path[p].chunks
                cleave_ends.append((source, [c.byte_end for c in cs], [c.tokens for c in cs]))
            table = [("cleave chunk_many", quality(cleave_ends, spans, budget))]
            for name, out in chonkie_outs.items():
                # The offsets the cut counts rely on: every chunk is its source's slice, and
                # the chunks join back to the source.
                exact = sum(all(text[c.start_index:c.end_index] == c.text for c in chunks)
                            and "".join(c.text for c in chunks) == text
                            for text, chunks in zip(sources, out, strict=True))
                print(f"{name}: chunks are exact slices joining back to the source in "
                      f"{exact} of {len(sources)} files")
                ends = []
                for source, text, chunks in zip(sources_b, sources, out, strict=True):
                    ends.append((source, [len(text[:c.end_index].encode()) for c in chunks],
                                 [len(c.text) for c in chunks]))
                table.append((name, quality(ends, spans, budget)))
            print(f"{'quality':30} {'chunks':>7} {'in budget':>10} {'cut top-level':>14} "
                  f"{'cut fitting':>12}")
            for name, (n, within, top, fit) in table:
                print(f"{name:30} {n:7d} {within:9.1f}% {top:13.1f}% {fit:11.1f}%")
    finally:
        if ray is not None:
            ray.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
