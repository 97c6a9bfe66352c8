"""The wheel's chunks are the CLI's records, byte for byte, and its outcomes the CLI's."""

from __future__ import annotations

from pathlib import Path

import pytest

import cleave

# (Chunker arguments, the same on the command line): units, small and default budgets,
# overlap and headers off, so that every path through the records is compared.
CONFIGS = [
    (dict(budget=2000), []),
    (dict(budget=200), ["--budget", "200"]),
    (dict(budget=300, unit="tokens"), ["--budget", "300", "--unit", "tokens"]),
    (
        dict(budget=400, unit="tokens", tokenizer="cl100k", overlap=40),
        ["--budget", "400", "--unit", "tokens", "--tokenizer", "cl100k", "--overlap", "40"],
    ),
    (dict(budget=256, unit="bytes", headers=False), ["--budget", "256", "--unit", "bytes", "--no-headers"]),
    (dict(budget=150, unit="estimate"), ["--budget", "150", "--unit", "estimate"]),
]


def records(results) -> list[str]:
    return [chunk.to_json() for result in results for chunk in result.chunks]


@pytest.mark.parametrize(("kwargs", "args"), CONFIGS, ids=lambda v: str(v))
def test_chunk_tree_equals_the_cli_byte_for_byte(cli, fixtures: Path, kwargs, args) -> None:
    lines, report = cli.chunk(fixtures, *args)
    results = list(cleave.Chunker(**kwargs).chunk_tree(fixtures))
    assert records(results) == lines
    # Every entry, skipped ones included, with the CLI's outcome, reason and counts.
    assert [r.to_dict() for r in results] == report["files"]
    assert len(lines) > 50


@pytest.mark.parametrize(("kwargs", "args"), CONFIGS[:3], ids=lambda v: str(v))
def test_chunk_text_and_chunk_many_equal_the_cli(cli, fixtures: Path, kwargs, args) -> None:
    lines, report = cli.chunk(fixtures, *args)
    chunker = cleave.Chunker(**kwargs)
    chunked = [e for e in report["files"] if e["outcome"] != "skipped"]
    # Texts named by their path relative to the root, as the walk names them. A file the CLI
    # decoded (HTML, PDF, Office, UTF-16: the report names its encoding) goes in as bytes, as
    # chunk_text chunks a string as it is given.
    texts = []
    for entry in chunked:
        rel = entry["path"]
        data = (fixtures / rel).read_bytes()
        try:
            if entry.get("encoding") not in (None, "utf-8"):
                raise UnicodeDecodeError("utf-8", data, 0, 0, "decoded by the CLI")
            texts.append((rel, data.decode("utf-8")))
        except UnicodeDecodeError:
            texts.append((rel, data))
    by_text = [c.to_json() for rel, t in texts if isinstance(t, str) for c in chunker.chunk_text(t, path=rel)]
    expected = [line for line in lines if any(f'"path":"{rel}"' in line for rel, t in texts if isinstance(t, str))]
    assert by_text == expected
    assert records(chunker.chunk_many(texts)) == lines


def test_mixed_tree_outcomes(cli, fixtures: Path) -> None:
    root = fixtures / "mixed"
    _, report = cli.chunk(root)
    tree = cleave.Chunker().chunk_tree(root)
    assert tree.total == len(report["files"])
    results = list(tree)
    assert [r.to_dict() for r in results] == report["files"]
    outcomes = {r.path: (r.outcome, r.skip_kind) for r in results}
    assert outcomes["src/auth.py"] == ("chunked", None)
    assert outcomes[".hidden.txt"] == ("skipped", "hidden")
    assert outcomes["target"] == ("skipped", "ignored")
    # Hidden and ignored entries are walked when asked, as with --hidden --no-ignore.
    _, everything = cli.chunk(root, "--hidden", "--no-ignore")
    results = list(cleave.Chunker().chunk_tree(root, hidden=True, no_ignore=True))
    assert [r.to_dict() for r in results] == everything["files"]
    assert any(r.path == "target/ignored.txt" and r.outcome == "chunked" for r in results)
