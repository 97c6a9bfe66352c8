"""Ray Data: chunk a corpus past one machine with one `Chunker` per actor.

    import ray
    import cleave
    from cleave.ray import ChunkFiles
    from ray.data import ActorPoolStrategy

    # The files `cleave chunk corpus/` reads: a folder given to Ray as it is would bring
    # `.git/`, ignored and hidden files along.
    ds = ray.data.read_binary_files(cleave.walk("corpus/"), include_paths=True)
    chunks = ds.map_batches(
        ChunkFiles,
        fn_constructor_kwargs={"root": "corpus/", "budget": 2000, "unit": "chars"},
        batch_format="pyarrow",
        compute=ActorPoolStrategy(size=4),
    )
    chunks.write_parquet("chunks/")

Each output row is one chunk record (the fields of `cleave chunk`'s JSON Lines, with
character offsets beside the byte offsets) or, for a file that gave no chunk, one row that says
why (`outcome` "skipped" or "fallback" with its `reason`, no chunk fields): every input file
ends with at least one row, and a bad file never fails its batch. The chunks are the CLI's,
byte for byte: both run the same engine over the same bytes (tests/test_scale.py checks it).

Ray itself is not a dependency of the wheel: this module imports only `pyarrow`, which Ray Data
brings.
"""

from __future__ import annotations

import json
import os
from typing import Any

from . import Chunker

#: Columns of every output batch, in order.
COLUMNS = (
    "path",
    "outcome",
    "reason",
    "id",
    "language",
    "kind",
    "byte_start",
    "byte_end",
    "char_start",
    "char_end",
    "line_start",
    "line_end",
    "tokens",
    "symbols",
    "scope",
    "part",
    "provenance",
    "header",
    "text",
)


#: Arrow type of each column, by name (strings unless listed).
_TYPES = {
    "byte_start": "int64",
    "byte_end": "int64",
    "char_start": "int64",
    "char_end": "int64",
    "line_start": "int64",
    "line_end": "int64",
    "tokens": "int64",
    "symbols": "list<string>",
    "scope": "list<string>",
}


def arrow_schema() -> Any:
    """The Arrow schema of every output batch (a batch of skipped files has the same one)."""
    import pyarrow as pa

    kinds = {"int64": pa.int64(), "list<string>": pa.list_(pa.string())}
    return pa.schema([(name, kinds.get(_TYPES.get(name, ""), pa.string())) for name in COLUMNS])


def spark_schema() -> str:
    """The output schema as Spark DDL."""
    ddl = {"int64": "long", "list<string>": "array<string>"}
    return ", ".join(f"{name} {ddl.get(_TYPES.get(name, ''), 'string')}" for name in COLUMNS)


def _relative(path: str, root: str | None) -> str:
    """The path as `cleave chunk ROOT` names it: relative to the root, `/`-separated."""
    if root is None:
        return path
    rel = os.path.relpath(path, root)
    return rel.replace(os.sep, "/")


def records(results: list[Any]) -> dict[str, list[Any]]:
    """Columns of chunk records (and one row per file without chunks) from `FileResult`s."""
    out: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for result in results:
        if not result.chunks:
            row = dict.fromkeys(COLUMNS)
            row.update(path=result.path, outcome=result.outcome, reason=result.reason)
            for name in COLUMNS:
                out[name].append(row[name])
            continue
        for chunk in result.chunks:
            d = chunk.to_dict(char_offsets=True)
            d["outcome"] = result.outcome
            d["reason"] = result.reason
            # Nested fields as JSON text: one flat schema that Parquet and Arrow keep as is.
            for nested in ("part", "provenance"):
                d[nested] = None if d.get(nested) is None else json.dumps(d[nested])
            for name in COLUMNS:
                out[name].append(d.get(name))
    return out


class ChunkFiles:
    """A callable class for `Dataset.map_batches`: one `Chunker` per actor, built once.

    The batch must hold `path` (from `include_paths=True`) and `bytes` columns, as
    `ray.data.read_binary_files` makes them. `root` makes paths relative, as the CLI writes
    them; the other keyword arguments go to `Chunker` (`threads` defaults to 1: Ray already runs
    one actor per core).
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, **chunker: Any) -> None:
        chunker.setdefault("threads", 1)
        self.chunker = Chunker(**chunker)
        self.root = None if root is None else os.fspath(root)

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        columns = batch.to_pydict() if isinstance(batch, pa.Table) else dict(batch)
        items = [
            (_relative(str(p), self.root), bytes(b))
            for p, b in zip(columns["path"], columns["bytes"], strict=True)
        ]
        return pa.table(records(self.chunker.chunk_many(items)), schema=arrow_schema())
