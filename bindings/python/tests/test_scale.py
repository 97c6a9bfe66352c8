"""The Ray Data and Spark pipelines give the CLI's chunks, byte for byte.

Ray (2.60) and pyspark (4.3, with the machine's Java 17) are heavy: they are not in the default
CI run. `.ci/scale` installs them and runs this file with `CLEAVE_REQUIRE_SCALE=1`, which turns
a missing engine into a failure instead of a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

REQUIRED = os.environ.get("CLEAVE_REQUIRE_SCALE") == "1"

#: The fields compared with the CLI's records.
FIELDS = ("path", "id", "byte_start", "byte_end", "line_start", "line_end", "tokens", "symbols",
          "scope", "header", "text")


def _import(name: str):
    try:
        return __import__(name)
    except ImportError:
        if REQUIRED:
            pytest.fail(f"{name} is required (CLEAVE_REQUIRE_SCALE=1) but not installed")
        pytest.skip(f"{name} is not installed (see .ci/scale)")


@pytest.fixture(scope="module")
def corpus(fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The code and prose fixtures, copied without hidden files or links (which Ray's and
    Spark's file readers would read and the CLI skips), plus a binary file that is skipped."""
    root = tmp_path_factory.mktemp("corpus")
    for part in ("code", "markdown", "latex"):
        src = fixtures / part
        if src.is_dir():
            shutil.copytree(src, root / part, symlinks=False,
                            ignore=shutil.ignore_patterns(".*"))
    (root / "blob.bin").write_bytes(bytes(range(256)) * 8)
    return root


def _expected(cli, corpus: Path) -> tuple[list[tuple], dict[str, str]]:
    lines, report = cli.chunk(corpus, "--budget", "600")
    chunks = sorted(tuple(json.loads(line)[f] if f not in ("symbols", "scope")
                          else tuple(json.loads(line)[f]) for f in FIELDS) for line in lines)
    outcomes = {f["path"]: f["outcome"] for f in report["files"]}
    assert len(chunks) > 20
    return chunks, outcomes


def _rows(rows: list[dict]) -> tuple[list[tuple], dict[str, str]]:
    chunks = sorted(
        tuple(tuple(r[f] or ()) if f in ("symbols", "scope") else r[f] for f in FIELDS)
        for r in rows if r["id"] is not None
    )
    outcomes = {r["path"]: r["outcome"] for r in rows}
    return chunks, outcomes


def test_ray_data_pipeline_equals_the_cli(cli, corpus: Path) -> None:
    ray = _import("ray")
    from cleave.ray import ChunkFiles

    # Logical CPUs: the two actors hold one each, and the read tasks need their own.
    ray.init(num_cpus=4, include_dashboard=False, log_to_driver=False,
             ignore_reinit_error=True)
    try:
        ds = ray.data.read_binary_files(str(corpus), include_paths=True)
        out = ds.map_batches(
            ChunkFiles,
            fn_constructor_kwargs={"root": str(corpus), "budget": 600},
            batch_format="pyarrow",
            batch_size=8,
            compute=ray.data.ActorPoolStrategy(size=2),
        )
        rows = out.take_all()
    finally:
        ray.shutdown()
    chunks, outcomes = _rows(rows)
    expected, expected_outcomes = _expected(cli, corpus)
    assert chunks == expected
    assert outcomes == expected_outcomes
    assert outcomes["blob.bin"] == "skipped"


def test_spark_pipeline_equals_the_cli(cli, corpus: Path) -> None:
    _import("pyspark")
    from pyspark.sql import SparkSession

    from cleave.spark import SCHEMA, chunk_files

    # The workers run this interpreter, the one the wheel is installed in.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (SparkSession.builder.master("local[2]").appName("cleave-test")
             .config("spark.ui.enabled", "false")
             .config("spark.pyspark.python", sys.executable).getOrCreate())
    try:
        files = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
                 .load(str(corpus)))
        out = files.select("path", "content").mapInArrow(
            chunk_files(root=str(corpus), budget=600), SCHEMA)
        rows = [r.asDict() for r in out.collect()]
    finally:
        spark.stop()
    chunks, outcomes = _rows(rows)
    expected, expected_outcomes = _expected(cli, corpus)
    assert chunks == expected
    assert outcomes == expected_outcomes
