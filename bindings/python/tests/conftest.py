"""Shared fixtures: the repository's fixtures folder and the `cleave` binary to compare with.

The binary is `$CLEAVE_BIN`, else the workspace's `target/{release,debug}/cleave`. Without one
the comparisons are skipped, unless `CLEAVE_REQUIRE_CLI=1` (set by `.ci/python`), which turns
a missing binary into a failure so that CI cannot pass by skipping them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "fixtures"


def _cli() -> Path | None:
    given = os.environ.get("CLEAVE_BIN")
    if given:
        return Path(given)
    for profile in ("release", "debug"):
        candidate = REPO / "target" / profile / "cleave"
        if candidate.is_file():
            return candidate
    return None


@pytest.fixture(scope="session")
def fixtures() -> Path:
    assert FIXTURES.is_dir(), f"the repository's fixtures are expected at {FIXTURES}"
    return FIXTURES


class Cli:
    """Runs `cleave chunk` and returns its JSON Lines and its report."""

    def __init__(self, binary: Path, tmp: Path) -> None:
        self.binary = binary
        self.tmp = tmp

    def chunk(self, root: Path, *args: str) -> tuple[list[str], dict]:
        report = self.tmp / f"report-{len(list(self.tmp.iterdir()))}.json"
        proc = subprocess.run(
            [str(self.binary), "chunk", str(root), "--format", "jsonl", "--quiet",
             "--report", str(report), *args],
            capture_output=True,
            check=False,
        )
        # Exit code 1 means some file could not be read, which the fixtures do on purpose.
        assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
        lines = proc.stdout.decode("utf-8").splitlines()
        return lines, json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    binary = _cli()
    if binary is None or not binary.is_file():
        if os.environ.get("CLEAVE_REQUIRE_CLI") == "1":
            pytest.fail(f"no cleave binary (CLEAVE_BIN={os.environ.get('CLEAVE_BIN')!r})")
        pytest.skip("no cleave binary: build it with `cargo build -p cleave-cli` or set CLEAVE_BIN")
    return Cli(binary, tmp_path_factory.mktemp("cli"))
