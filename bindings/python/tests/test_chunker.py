"""Character offsets, pickling, batches, trees, languages and errors."""

from __future__ import annotations

import copy
import errno
import os
import pickle
import threading
import time
from pathlib import Path

import pytest

import cleave

# Non-ASCII everywhere: two-, three- and four-byte UTF-8, combining marks, CJK, emoji, and
# headings and paragraphs so that a small budget cuts it into many chunks.
PROSE = "\n\n".join(
    f"## Größe {i} — naïve café ☃\n\n"
    f"Ünïcödé 𝄞 text {i}: 日本語のテキスト、中文文本。 e\u0301 👩‍💻 {'ж' * (i % 7)}\n"
    f"- 項目 {i} ✓\n- λ = {i}·π\n"
    for i in range(40)
)

PYTHON = '''"""Módulo de ejemplo: ñandú, 北京."""


class Caché:
    """Guarda valores — «rápido»."""

    def __init__(self):
        self.datos = {"clé": "valeur ☃"}

    def obtener(self, clave):
        # comentario: 𝄞𝄞𝄞
        return self.datos.get(clave, "∅")


def función(x):
    return x * 2  # ×2
'''


def assert_offsets(text: str, chunks: list[cleave.Chunk]) -> None:
    assert chunks
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text
        assert text.encode()[c.byte_start : c.byte_end] == c.text.encode()
        assert c.char_end - c.char_start == len(c.text) == len(c)


@pytest.mark.parametrize("budget", [60, 120, 500])
@pytest.mark.parametrize("unit", ["chars", "bytes", "tokens"])
def test_char_offsets_slice_non_ascii_text_exactly(budget: int, unit: str) -> None:
    chunker = cleave.Chunker(budget=budget, unit=unit)
    for text, path in [(PROSE, "notes.md"), (PYTHON, "cache.py"), (PROSE, None)]:
        chunks = chunker.chunk_text(text, path=path)
        assert_offsets(text, chunks)
        assert "".join(c.text for c in chunks) == text


def test_char_offsets_with_overlap() -> None:
    chunks = cleave.Chunker(budget=200, overlap=40).chunk_text(PROSE, path="notes.md")
    assert_offsets(PROSE, chunks)
    assert any(b.char_start < a.char_end for a, b in zip(chunks, chunks[1:]))


def test_char_offsets_of_every_fixture(fixtures: Path) -> None:
    results = cleave.Chunker(budget=300).chunk_tree(fixtures, hidden=True, no_ignore=True)
    n = 0
    for result in results:
        # Decoded documents are chunked through a text view: their offsets index that.
        if result.outcome == "skipped" or not result.chunks or result.encoding:
            continue
        text = (fixtures / result.path).read_bytes().decode("utf-8")
        assert_offsets(text, result.chunks)
        n += 1
    assert n > 20


def test_chunk_fields() -> None:
    [first, *_] = chunks = cleave.Chunker(budget=2000).chunk_text(PYTHON, path="pkg/cache.py")
    assert len(chunks) == 1
    assert first.path == "pkg/cache.py" and first.language == "python" and first.kind == "code"
    assert (first.line_start, first.line_end) == (1, PYTHON.count("\n"))
    assert "Caché.obtener" in first.symbols and "función" in first.symbols
    assert first.scope == [] and first.part is None
    assert first.rendered == first.header + first.text
    assert first.header.startswith("# pkg/cache.py")
    assert first.tokens == len(first.rendered)
    record = first.to_dict()
    assert list(record)[:4] == ["id", "path", "language", "kind"]
    assert record["text"] == PYTHON and "char_start" not in record
    assert first.to_dict(char_offsets=True)["char_end"] == len(PYTHON)
    assert cleave.Chunk.from_json(first.to_json(), 0, len(PYTHON)) == first
    prose = cleave.Chunker(budget=300).chunk_text(PROSE, path="a.md")
    assert prose[1].provenance["char_offset"] == prose[1].char_start
    assert prose[1].kind == "prose" and prose[1].provenance["tag"].startswith("[source:a.md")
    assert isinstance(prose[1].classification["keywords"], list)


def test_parts_of_an_atom_too_large() -> None:
    body = "".join(f"    x{i} = {i}  # ñ\n" for i in range(200))
    chunks = cleave.Chunker(budget=300).chunk_text(f"def big():\n{body}", path="big.py")
    parts = [c.part for c in chunks if c.part]
    assert parts and parts[0]["count"] == len(parts) and parts[0]["of"].startswith("def big")


def test_pickling_round_trips() -> None:
    chunker = cleave.Chunker(budget=150, unit="tokens", tokenizer="cl100k", overlap=10)
    chunks = chunker.chunk_text(PROSE, path="notes.md")
    again = pickle.loads(pickle.dumps(chunks))
    assert again == chunks
    assert [(c.char_start, c.char_end, c.to_json()) for c in again] == [
        (c.char_start, c.char_end, c.to_json()) for c in chunks
    ]
    assert copy.deepcopy(chunks[3]) == chunks[3]
    [result] = chunker.chunk_many([("notes.md", PROSE)])
    back = pickle.loads(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == result and back.to_dict() == result.to_dict() and back.chunks == chunks
    clone = pickle.loads(pickle.dumps(chunker))
    assert repr(clone) == repr(chunker)
    assert clone.chunk_text(PROSE, path="notes.md") == chunks


def test_chunk_many_keeps_order_and_equals_sequential(tmp_path: Path, fixtures: Path) -> None:
    files = sorted(p for p in fixtures.rglob("*") if p.is_file())
    items: list = []
    for i, p in enumerate(files):
        # Paths, str pairs and bytes pairs, interleaved.
        if i % 3 == 0:
            items.append(p)
        elif i % 3 == 1:
            items.append((str(p), p.read_bytes()))
        else:
            try:
                items.append((p, p.read_text(encoding="utf-8")))
            except UnicodeDecodeError:
                items.append(str(p))
    items = items * 3
    parallel = cleave.Chunker(budget=300, threads=4).chunk_many(items)
    serial = cleave.Chunker(budget=300, threads=1).chunk_many(items)
    assert parallel == serial
    assert [r.path for r in parallel] == [str(i[0] if isinstance(i, tuple) else i) for i in items]
    one_by_one = cleave.Chunker(budget=300)
    for item, result in zip(items, parallel):
        if isinstance(item, tuple) and isinstance(item[1], str):
            assert result.chunks == one_by_one.chunk_text(item[1], path=item[0])
        elif not isinstance(item, tuple):
            assert result == one_by_one.chunk_file(item)


def test_a_bad_item_never_kills_the_batch(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("def f():\n    return 1\n")
    (tmp_path / "image.bin").write_bytes(b"\x89PNG\x00\x00\x01")
    (tmp_path / "big.txt").write_text("x" * 5000)
    items = [
        tmp_path / "ok.py",
        tmp_path / "missing.py",
        tmp_path,
        tmp_path / "image.bin",
        ("latin.txt", "café".encode("latin-1")),
        tmp_path / "big.txt",
        ("empty.md", ""),
        ("ok.md", "# Title\n\nText.\n"),
    ]
    results = cleave.Chunker(budget=200, max_file_size=4096).chunk_many(items)
    got = [(r.outcome, r.skip_kind) for r in results]
    assert got == [
        ("chunked", None),
        ("skipped", "unreadable"),
        ("skipped", "not-regular"),
        ("skipped", "binary"),
        ("skipped", "not-utf8"),
        ("skipped", "too-large"),
        ("skipped", "empty"),
        ("chunked", None),
    ]
    assert results[1].is_error and "No such file" in results[1].reason
    assert results[1].path == str(tmp_path / "missing.py")
    assert not results[3].is_error and results[3].chunks == []


def test_chunk_many_rejects_what_is_not_an_item() -> None:
    chunker = cleave.Chunker()
    with pytest.raises(TypeError):
        chunker.chunk_many([("a.py", 3)])
    with pytest.raises(TypeError):
        chunker.chunk_many([("a.py", "x", "y")])
    with pytest.raises(TypeError):
        chunker.chunk_many([42])
    assert chunker.chunk_many([]) == []
    assert len(chunker.chunk_many(iter([("a.py", "x = 1\n")]))) == 1


def test_chunk_tree_streams_and_stops_early(tmp_path: Path) -> None:
    for i in range(400):
        (tmp_path / f"m{i:03}.py").write_text("".join(f"def f{j}():\n    return {j}\n\n" for j in range(60)))
    tree = cleave.Chunker(budget=200, threads=2).chunk_tree(tmp_path)
    assert tree.total == 400
    first = next(tree)
    assert first.path == "m000.py" and first.outcome == "chunked"
    # Dropping the iterator stops the background work rather than chunking the rest.
    del tree
    paths = [r.path for r in cleave.Chunker(budget=200).chunk_tree(tmp_path)]
    assert paths == sorted(paths) and len(paths) == 400


def test_walk_lists_what_the_cli_reads_and_nothing_it_leaves_out(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.py").write_text("x = 1\n")
    (tmp_path / "run.log").write_text("log\n")
    (tmp_path / ".env").write_text("SECRET=1\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def a():\n    return 1\n")
    (tmp_path / "b.md").write_text("# B\n")
    files = cleave.walk(tmp_path)
    assert files == [str(tmp_path / "b.md"), str(tmp_path / "src" / "a.py")]
    # The same files the tree chunks, as the CLI reads them.
    chunked = [r.path for r in cleave.Chunker(budget=200).chunk_tree(tmp_path) if r.outcome != "skipped"]
    assert [os.path.relpath(f, tmp_path) for f in files] == chunked
    everything = cleave.walk(tmp_path, hidden=True, no_ignore=True)
    assert str(tmp_path / "run.log") in everything and str(tmp_path / ".env") in everything
    with pytest.raises(cleave.CleaveError):
        cleave.walk(tmp_path / "missing")


def test_waiting_for_the_tree_releases_the_interpreter(tmp_path: Path) -> None:
    for i in range(60):
        (tmp_path / f"m{i:03}.py").write_text("".join(f"def f{j}():\n    return {j}\n\n" for j in range(400)))
    ticks = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.0005)

    def ticks_while(work) -> tuple[int, float, object]:
        nonlocal ticks
        ticks = 0
        stop.clear()
        counter = threading.Thread(target=count)
        counter.start()
        started = time.perf_counter()
        try:
            out = work()
        finally:
            elapsed = time.perf_counter() - started
            stop.set()
            counter.join()
        return ticks, elapsed, out

    # The rate at which the counting thread ticks beside an idle main thread (a loaded
    # machine sleeps longer than asked), then beside the tree being chunked.
    idle, idle_seconds, _ = ticks_while(lambda: time.sleep(0.3))
    busy, busy_seconds, results = ticks_while(
        lambda: list(cleave.Chunker(budget=120, threads=1).chunk_tree(tmp_path))
    )
    assert len(results) == 60
    # Holding the interpreter while waiting would leave the counter a few ticks per result.
    # Released, it keeps a good share of its idle rate.
    assert busy / busy_seconds > 0.2 * idle / idle_seconds, (idle, idle_seconds, busy, busy_seconds)


def test_language_by_name() -> None:
    chunker = cleave.Chunker(budget=2000)
    [c] = chunker.chunk_text(PYTHON, language="python")
    assert c.language == "python" and c.path == "<text>.py" and "función" in c.symbols
    [c] = chunker.chunk_text(PYTHON, path="bin/tool", language="Python")
    assert c.language == "python" and c.path == "bin/tool.py"
    [c] = chunker.chunk_text(PYTHON, path="lib/cache.py", language="python")
    assert c.path == "lib/cache.py"
    [c] = chunker.chunk_text("# T\n\nx\n", language="markdown")
    assert c.language == "markdown"
    [c] = chunker.chunk_text(PYTHON)
    assert c.language == "text" and c.path == "" and c.header == ""
    assert "python" in cleave.LANGUAGES and "markdown" in cleave.LANGUAGES
    for name in cleave.LANGUAGES:
        [c] = chunker.chunk_text("x\n", language=name)
        assert c.language == name
    with pytest.raises(ValueError, match="unknown language"):
        chunker.chunk_text("x", language="cobol")


def test_errors_carry_the_path(tmp_path: Path) -> None:
    chunker = cleave.Chunker()
    missing = tmp_path / "nope.py"
    with pytest.raises(cleave.CleaveError) as err:
        chunker.chunk_file(missing)
    assert isinstance(err.value, OSError)
    assert err.value.errno == errno.ENOENT
    assert err.value.path == str(missing) and err.value.filename == str(missing)
    assert str(missing) in str(err.value)
    with pytest.raises(cleave.CleaveError) as err:
        chunker.chunk_file(tmp_path)
    assert err.value.path == str(tmp_path)
    with pytest.raises(cleave.CleaveError) as err:
        chunker.chunk_tree(tmp_path / "no" / "such" / "root")
    assert err.value.path.endswith("root") and err.value.errno == errno.ENOENT
    if os.geteuid() != 0:  # root reads any file
        locked = tmp_path / "locked.py"
        locked.write_text("x = 1\n")
        locked.chmod(0)
        with pytest.raises(cleave.CleaveError, match="locked.py"):
            chunker.chunk_file(locked)
    (tmp_path / "data.bin").write_bytes(b"\x00\x01")
    skipped = chunker.chunk_file(tmp_path / "data.bin")
    assert (skipped.outcome, skipped.skip_kind, len(skipped)) == ("skipped", "binary", 0)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(budget=0),
        dict(budget=7),
        dict(budget=31, unit="bytes"),
        dict(budget=-1),
        dict(unit="words"),
        dict(unit="tokens", tokenizer="gpt2"),
        dict(budget=100, overlap=50),
        dict(threads=0),
    ],
)
def test_bad_options_are_value_errors(kwargs) -> None:
    with pytest.raises((ValueError, OverflowError)) as err:
        cleave.Chunker(**kwargs)
    if kwargs.get("budget", 0) >= 0:
        assert isinstance(err.value, ValueError)


def test_budget_message() -> None:
    with pytest.raises(ValueError, match="budget of 3 chars is too small: it must be at least 8"):
        cleave.Chunker(budget=3)


def test_file_result_iterates_over_its_chunks(fixtures: Path) -> None:
    result = cleave.Chunker(budget=300).chunk_file(fixtures / "code" / "python" / "app.py")
    assert result.outcome == "chunked" and result.language == "python" and result.reason is None
    assert list(result) == result.chunks and len(result) == len(result.chunks) > 1
    assert result.to_dict()["chunks"] == len(result)
    assert result.bytes == (fixtures / "code" / "python" / "app.py").stat().st_size
    assert "FileResult(" in repr(result) and "Chunk(" in repr(result.chunks[0])
