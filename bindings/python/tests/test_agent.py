"""The agent face: `Chunker.outline` and `Chunker.select` give what `cleave outline` and
`cleave select` give, from the same chunks `chunk_tree` yields."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import cleave

AUTH = '''"""Sessions and logins."""


class AuthService:
    """Checks passwords and hands out session tokens."""

    def login(self, user, password):
        """Log a user in: verify the password hash, then open a session."""
        if not verify_hash(user.password_hash, password):
            raise PermissionError("bad password")
        return self.open_session(user)

    def open_session(self, user):
        token = new_token()
        self.sessions[token] = user
        return token


def verify_hash(stored, password):
    return stored == hash_password(password)
'''

GUIDE = """# Guide

## Install

Run the installer and answer its questions.

## Sessions

A session starts at login and ends when its token expires.
"""


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "auth.py").write_text(AUTH)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(GUIDE)
    return tmp_path


def test_outline_names_symbols_and_sections_with_the_chunks_that_hold_them(repo: Path) -> None:
    chunker = cleave.Chunker(budget=300)
    files = {f["path"]: f for f in chunker.outline(repo)}
    assert set(files) == {"docs/guide.md", "src/auth.py"}
    code = files["src/auth.py"]
    assert code["language"] == "python"
    names = [e["name"] for e in code["entries"]]
    assert "AuthService" in " ".join(names) and any("login" in n for n in names), names
    login = next(e for e in code["entries"] if e["name"].endswith("login"))
    assert login["depth"] == 1 and login["kind"] == "symbol"
    text = AUTH.encode()
    assert b"def login" in text[login["byte_start"] : login["byte_end"]]
    # Every chunk id an entry names is a chunk of the same run.
    ids = {c.id for r in chunker.chunk_tree(repo) for c in r}
    assert all(i in ids for f in files.values() for e in f["entries"] for i in e["chunks"])
    sections = [e["label"] for e in files["docs/guide.md"]["entries"]]
    assert sections == ["Guide", "Install", "Sessions"], sections


def test_select_returns_whole_chunks_within_the_budget_with_their_sources(repo: Path) -> None:
    chunker = cleave.Chunker(budget=300)
    out = chunker.select(repo, "how does login verify the password", budget=900)
    assert out["passages"], out
    assert out["size"] <= 900
    assert len(out["text"]) <= 900  # chars: the rendered selection is what the budget bounds
    for p in out["passages"]:
        chunk = p["chunk"]
        assert isinstance(chunk, cleave.Chunk)
        assert p["tag"].startswith(f"[source:{chunk.path}")
        assert f"=== {p['title']} {p['tag']} ===" in out["text"]
        source = (repo / chunk.path).read_text()
        assert source[chunk.char_start : chunk.char_end] == chunk.text
    assert any("def login" in p["chunk"].text for p in out["passages"])
    assert out["query_type"] in ("concept", "algorithm", "code")
    code = chunker.select(repo, "login", budget=900, kind="code")
    assert code["query_type"] == "code"
    with pytest.raises(ValueError):
        chunker.select(repo, "login", budget=900, kind="poem")
    with pytest.raises(ValueError):
        chunker.select(repo, "login", budget=200)


def test_outline_and_select_equal_the_cli(cli, repo: Path) -> None:
    def run(*args: str) -> dict:
        proc = subprocess.run([str(cli.binary), *args], capture_output=True, check=True)
        return json.loads(proc.stdout)

    chunker = cleave.Chunker(budget=300)
    # The CLI selects from chunks of min(--chunk-budget, 2/3 of --budget): 300 here.
    cli_sel = run("select", str(repo), "--query", "session token", "--budget", "900",
                  "--chunk-budget", "300", "--format", "json")
    py_sel = chunker.select(repo, "session token", budget=900)
    assert [p["chunk"].id for p in py_sel["passages"]] == [p["chunk"]["id"] for p in cli_sel["passages"]]
    assert py_sel["size"] == cli_sel["size"]
    cli_outline = run("outline", str(repo), "--chunk-budget", "300", "--format", "json")
    flat = json.dumps(cli_outline)
    for f in chunker.outline(repo):
        for e in f["entries"]:
            assert json.dumps(e["name"])[1:-1] in flat
            assert all(i in flat for i in e["chunks"])
