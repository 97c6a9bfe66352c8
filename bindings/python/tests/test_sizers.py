"""Budgets counted by a Hugging Face tokenizer.json or by a Python callable."""

from __future__ import annotations

import pickle
import threading
from pathlib import Path

import pytest

import cleave

from conftest import REPO

WORDLEVEL = REPO / "crates" / "core" / "tests" / "fixtures" / "wordlevel-tokenizer.json"


def words(text: str) -> int:
    """A tokenizer of our own: whitespace-separated words, plus one per line break."""
    return len(text.split()) + text.count("\n")


def test_tokenizer_json_equals_the_cli(cli, fixtures: Path) -> None:
    lines, report = cli.chunk(fixtures, "--unit", "tokens", "--tokenizer", str(WORDLEVEL), "--budget", "120")
    chunker = cleave.Chunker(budget=120, unit="tokens", tokenizer=WORDLEVEL)
    results = list(chunker.chunk_tree(fixtures))
    assert [c.to_json() for r in results for c in r.chunks] == lines
    assert [r.to_dict() for r in results] == report["files"]
    # The path may be given as str too, and the chunker pickles with it.
    again = pickle.loads(pickle.dumps(cleave.Chunker(budget=120, unit="tokens", tokenizer=str(WORDLEVEL))))
    text = (fixtures / "code" / "python" / "app.py").read_text()
    assert again.chunk_text(text, path="app.py") == chunker.chunk_text(text, path="app.py")


def test_tokenizer_file_errors(tmp_path: Path) -> None:
    with pytest.raises(cleave.CleaveError) as err:
        cleave.Chunker(unit="tokens", tokenizer=tmp_path / "missing.json")
    assert err.value.path == str(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="bad.json"):
        cleave.Chunker(unit="tokens", tokenizer=tmp_path / "bad.json")
    with pytest.raises(ValueError, match="unit=\"tokens\""):
        cleave.Chunker(unit="chars", tokenizer=WORDLEVEL)
    with pytest.raises(ValueError, match="unknown tokenizer"):
        cleave.Chunker(unit="tokens", tokenizer="gpt2")
    with pytest.raises(TypeError):
        cleave.Chunker(unit="tokens", tokenizer=42)


def test_callable_tokenizer_bounds_every_chunk(fixtures: Path) -> None:
    chunker = cleave.Chunker(budget=150, unit="tokens", tokenizer=words)
    n = 0
    for result in chunker.chunk_tree(fixtures):
        for c in result.chunks:
            assert c.tokens == words(c.rendered) <= 150
            n += 1
    assert n > 30
    assert "tokenizer=<function words" in repr(chunker)


def test_callable_tokenizer_in_parallel_batches(fixtures: Path) -> None:
    # Workers of the pool call back into Python: each takes the interpreter in turn, the
    # calling thread waits without it, and the result equals a one-thread run.
    calls = []
    lock = threading.Lock()

    def counting(text: str) -> int:
        with lock:
            calls.append(threading.get_ident())
        return words(text)

    files = sorted(p for p in fixtures.rglob("*.py") if p.is_file()) * 4
    items = [(str(p), p.read_text()) for p in files]
    parallel = cleave.Chunker(budget=100, unit="tokens", tokenizer=counting, threads=4).chunk_many(items)
    serial = cleave.Chunker(budget=100, unit="tokens", tokenizer=words, threads=1).chunk_many(items)
    assert parallel == serial
    assert calls and threading.get_ident() not in calls
    for r in parallel:
        assert all(c.tokens == words(c.rendered) <= 100 for c in r.chunks)


def test_a_failing_tokenizer_raises_its_error() -> None:
    def broken(text: str) -> int:
        if "boom" in text:
            raise RuntimeError("tokenizer broke")
        return len(text)

    chunker = cleave.Chunker(budget=100, unit="tokens", tokenizer=broken, threads=2)
    with pytest.raises(RuntimeError, match="tokenizer broke"):
        chunker.chunk_text("x = 1\n" * 50 + "boom\n", path="a.py")
    with pytest.raises(RuntimeError, match="tokenizer broke"):
        chunker.chunk_many([("a.py", "x = 1\n"), ("b.py", "boom = 1\n" * 40)])
    # The error is not kept: the next call succeeds.
    assert chunker.chunk_text("x = 1\n", path="a.py")
    with pytest.raises(TypeError):
        cleave.Chunker(budget=100, unit="tokens", tokenizer=lambda t: "many").chunk_text("x = 1\n")
    with pytest.raises(OverflowError):
        cleave.Chunker(budget=100, unit="tokens", tokenizer=lambda t: -1).chunk_text("x = 1\n")
