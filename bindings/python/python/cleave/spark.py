"""Spark: chunk a corpus with `DataFrame.mapInArrow`, one `Chunker` per Python worker.

    import cleave
    from pyspark.sql import SparkSession
    from cleave.spark import SCHEMA, chunk_files

    spark = SparkSession.builder.getOrCreate()
    files = spark.read.format("binaryFile").load(cleave.walk("corpus/"))
    chunks = files.select("path", "content").mapInArrow(
        chunk_files(root="corpus/", budget=2000, unit="chars"), SCHEMA
    )
    chunks.write.parquet("chunks/")

Rows are those of `cleave.ray`: one per chunk record, or one per file without chunks with its
outcome and reason. Spark's `binaryFile` source gives `file:` URIs; they are turned back into
paths relative to `root`, as `cleave chunk ROOT` names them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote, urlparse

from . import Chunker
from .ray import arrow_schema, records, spark_schema

#: The output schema, as Spark DDL.
SCHEMA = spark_schema()


def _local(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme in ("file", "") else uri


def chunk_files(
    root: str | os.PathLike[str] | None = None, **chunker: Any
) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """A function for `mapInArrow` over a `binaryFile` frame's `path` and `content` columns.

    The `Chunker` is built once per Python worker, on its first batch; keyword arguments go to
    it (`threads` defaults to 1: Spark already runs one task per core).
    """
    chunker.setdefault("threads", 1)
    base = None if root is None else os.path.abspath(os.fspath(root))

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        engine = Chunker(**chunker)
        for batch in batches:
            columns = batch.to_pydict()
            items = []
            for uri, content in zip(columns["path"], columns["content"], strict=True):
                path = _local(str(uri))
                rel = path if base is None else os.path.relpath(path, base).replace(os.sep, "/")
                items.append((rel, bytes(content)))
            table = pa.table(records(engine.chunk_many(items)), schema=arrow_schema())
            yield from table.to_batches()

    return run
