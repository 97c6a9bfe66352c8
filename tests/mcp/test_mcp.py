"""End-to-end test of `cleave mcp` over stdio with the official MCP Python SDK as the client.

    python tests/mcp/test_mcp.py                       # the checks, on fixtures/mixed
    python tests/mcp/test_mcp.py --bench DIR [--rounds N]   # round-trip latency of each tool

The binary is $CLEAVE_BIN (default target/debug/cleave). Exits non-zero on the first failed
check, naming it.
"""

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("CLEAVE_BIN", str(REPO / "target" / "debug" / "cleave"))
FIXTURE = REPO / "fixtures" / "mixed"
TOOLS = {"outline", "select", "read", "segment"}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def server(*roots):
    args = ["mcp"]
    for root in roots:
        args += ["--root", str(root)]
    return StdioServerParameters(command=BIN, args=args)


async def call(session, name, args):
    res = await session.call_tool(name, args)
    if res.is_error:
        raise AssertionError(f"{name}({args}) failed: {res.content[0].text}")
    return res, res.structured_content


async def error_of(session, name, args):
    """The message of a call that must fail: a tool error result, or a protocol error."""
    try:
        res = await session.call_tool(name, args)
    except MCPError as err:
        return str(err)
    check(res.is_error, f"{name}({args}) should have failed, got {res.content}")
    return res.content[0].text


async def checks():
    async with stdio_client(server(FIXTURE)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "cleave", f"server name: {init.server_info}")

            # tools/list: the four tools, each with input and output schemas.
            tools = {t.name: t for t in (await session.list_tools()).tools}
            check(set(tools) == TOOLS, f"tools: {sorted(tools)}")
            for t in tools.values():
                check(t.input_schema.get("type") == "object", f"{t.name}: input schema")
                check("path" in t.input_schema.get("properties", {}), f"{t.name}: path")
                check("path" in t.input_schema.get("required", []), f"{t.name}: path required")
                check(t.output_schema and t.output_schema.get("type") == "object",
                      f"{t.name}: output schema")
                check(t.annotations and t.annotations.read_only_hint, f"{t.name}: read-only")
            check({"path", "query"} <= set(tools["select"].input_schema["required"]),
                  "select requires path and query")
            check("ids" in tools["read"].input_schema["required"], "read requires ids")
            for name, fields in [("outline", {"files", "next_cursor"}),
                                 ("select", {"text", "passages", "size"}),
                                 ("read", {"text", "passages", "not_found"}),
                                 ("segment", {"records", "next_cursor", "total"})]:
                props = set(tools[name].output_schema.get("properties", {}))
                check(fields <= props, f"{name} output schema: {sorted(props)}")

            # outline: docs/guide.md with its numbered sections and their chunk ids.
            _, out = await call(session, "outline", {"path": "."})
            files = {f["path"]: f for f in out["files"]}
            check({"docs/guide.md", "src/auth.py", "src/lib.rs"} <= set(files),
                  f"outline files: {sorted(files)}")
            check("target/ignored.txt" not in files and ".hidden.txt" not in files,
                  "ignored and hidden files are left out")
            guide = files["docs/guide.md"]
            sections = {e["number"]: e for e in guide["entries"] if e.get("number")}
            check(sections.get("1.1", {}).get("label") == "Install", f"1.1: {sections.get('1.1')}")
            linux = sections.get("1.1.1")
            check(linux and linux["label"] == "Linux" and linux["chunks"], f"1.1.1: {linux}")
            symbols = [e["name"] for e in files["src/auth.py"]["entries"]]
            check(symbols, "auth.py has symbols")

            # select: a passage from the guide, within the budget, tagged.
            budget = 1500
            res, sel = await call(session, "select", {
                "path": ".", "query": "install on linux with cargo", "budget": budget})
            check(sel["passages"], "select found passages")
            check(any(p["path"] == "docs/guide.md" for p in sel["passages"]),
                  f"select passages: {[p['path'] for p in sel['passages']]}")
            check(sel["size"] <= budget and len(sel["text"]) <= budget,
                  f"select size {sel['size']} / {len(sel['text'])} over {budget}")
            check("cargo install" in sel["text"], "the install command is selected")
            check(res.content[0].text == sel["text"], "text content is the rendered passages")
            check(sel["passages"][0]["tag"] in sel["text"], "passages carry their tags")
            res, none = await call(session, "select", {"path": ".", "query": "zyzzyva"})
            check(not none["passages"] and "no chunk matches" in res.content[0].text,
                  f"no match: {res.content}")

            # The ids of a selection are read back with the chunk budget it reports.
            _, small = await call(session, "select", {
                "path": ".", "query": "install on linux with cargo", "budget": 600})
            check(small["chunk_budget"] == 400, f"select's chunk budget: {small['chunk_budget']}")
            ids = [p["id"] for p in small["passages"]]
            _, back = await call(session, "read", {"path": ".", "ids": ids, "budget": 600,
                                                   "chunk_budget": small["chunk_budget"]})
            check([p["id"] for p in back["passages"]] == ids, f"read back: {back}")

            # read: the chunk outline listed for 1.1.1, by id.
            chunk_id = linux["chunks"][0]
            res, got = await call(session, "read", {"path": ".", "ids": [chunk_id]})
            check([p["id"] for p in got["passages"]] == [chunk_id], f"read: {got['passages']}")
            check("cargo install --path crates/cli" in got["text"], "read returns the chunk")
            _, got = await call(session, "read", {"path": "docs", "ids": [chunk_id[:8], "ffffffff"]})
            check(got["not_found"] == ["ffffffff"] and len(got["passages"]) == 1,
                  f"read by prefix from a folder: {got}")

            # segment: every record of the guide, a page at a time; the bodies give the file back.
            text, cursor, ids, pages = "", None, [], 0
            while True:
                args = {"path": "docs/guide.md", "limit": 1}
                if cursor:
                    args["cursor"] = cursor
                _, page = await call(session, "segment", args)
                pages += 1
                check(len(page["records"]) == 1, f"segment page: {page}")
                for rec in page["records"]:
                    check(rec["path"] == "docs/guide.md", f"record path {rec['path']}")
                    text += rec["text"]
                    ids.append(rec["id"])
                cursor = page.get("next_cursor")
                if not cursor:
                    break
                check(pages < 100, "segment pages end")
            original = (FIXTURE / "docs" / "guide.md").read_text()
            check(text == original, "segment records tile the file")
            check(ids == guide["chunks"], "segment ids are outline's ids")
            check(pages == page["total"], "one record per page")

            # Refusals: clear errors, and the server keeps answering.
            msg = await error_of(session, "outline", {"path": "../"})
            check("outside the roots" in msg, f"outside: {msg}")
            msg = await error_of(session, "read", {"path": "/etc/passwd", "ids": ["abcd"]})
            check("outside the roots" in msg, f"absolute outside: {msg}")
            msg = await error_of(session, "select", {"path": "missing", "query": "x"})
            check("does not exist" in msg, f"missing: {msg}")
            msg = await error_of(session, "segment", {"path": ".", "cursor": "nonsense"})
            check("cursor" in msg, f"cursor: {msg}")
            msg = await error_of(session, "select", {"path": "."})
            check("query" in msg, f"no query: {msg}")
            msg = await error_of(session, "select", {"path": ".", "query": "x", "budget": 3})
            check("budget" in msg, f"tiny budget: {msg}")
            _, again = await call(session, "outline", {"path": "docs/guide.md"})
            check([f["path"] for f in again["files"]] == ["docs/guide.md"], "still answering")

            # A small outline budget pages files and says so.
            _, small = await call(session, "outline", {"path": ".", "budget": 600})
            check(small.get("next_cursor") and small.get("note"), f"paged outline: {small}")
            check(len(str(small)) > 0 and small["files"], "paged outline has files")
    print("mcp: all checks passed")


async def bench(root, rounds):
    """Median and worst round trip of each tool on `root`, after one cold outline."""
    async with stdio_client(server(root)) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            t = time.perf_counter()
            _, out = await call(session, "outline", {"path": "."})
            cold = time.perf_counter() - t
            print(f"{root}: cold outline (chunks the root) {cold * 1000:.0f} ms, "
                  f"{out['total_files']} files")
            _, sel = await call(session, "select", {"path": ".", "query": "how are chunks packed"})
            ids = [p["id"] for p in sel["passages"]][:3] or ["abcd"]
            calls = {
                "outline": {"path": "."},
                "select": {"path": ".", "query": "how does the request handle authentication"},
                "read": {"path": ".", "ids": ids},
                "segment": {"path": ".", "limit": 20},
            }
            for name, args in calls.items():
                times = []
                for _ in range(rounds):
                    t = time.perf_counter()
                    await call(session, name, args)
                    times.append(time.perf_counter() - t)
                print(f"  {name:8} median {statistics.median(times) * 1000:7.1f} ms, "
                      f"max {max(times) * 1000:7.1f} ms over {rounds} calls")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", type=Path, help="measure round trips on this root instead")
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args()
    try:
        if a.bench:
            asyncio.run(bench(a.bench.resolve(), a.rounds))
        else:
            asyncio.run(checks())
    except AssertionError as err:
        print(f"mcp: FAILED: {err}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
