#!/usr/bin/env python3
"""How much of a package's public API a budgeted `cleave outline` shows.

The truth is what the package itself declares public, written by its authors, not by us:
Python's `__all__` lists (read with `ast`, literal lists and tuples only) and TypeScript's
`export { … } from` / `export function|class|const …` lines of an index file. A name counts
only when the full outline (`--format json`) has an entry for it, since no budget can show
what the outline does not hold. A name is shown when some entry line of the budgeted text
outline has it as a word of its label.

    python3 bench/outline/api_recall.py BIN [BIN2 …] [--budgets 2000,4000,8000]

Each BIN is a cleave binary; targets are listed in TARGETS below (path to outline, files that
declare the API), relative to the repository root unless absolute.
"""
import ast
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPOS = os.path.join(ROOT, "bench/select/corpus/repos")
HTTPX = os.environ.get("HTTPX", "/tmp/httpx")  # encode/httpx, fetched (ae1b9f66)

TARGETS = [
    ("httpx (package)", f"{HTTPX}/httpx", [f"{HTTPX}/httpx/__init__.py"]),
    ("httpx (repository)", HTTPX, [f"{HTTPX}/httpx/__init__.py"]),
    ("rxjs", f"{REPOS}/rxjs", [f"{REPOS}/rxjs/src/index.ts"]),
    ("django/http", f"{REPOS}/django/http", [f"{REPOS}/django/http/__init__.py"]),
    ("django/urls", f"{REPOS}/django/urls", [f"{REPOS}/django/urls/__init__.py"]),
    ("django/template", f"{REPOS}/django/template", [f"{REPOS}/django/template/__init__.py"]),
    ("django/core", f"{REPOS}/django/core",
     [f"{REPOS}/django/core/paginator.py", f"{REPOS}/django/core/exceptions.py",
      f"{REPOS}/django/core/signing.py"]),
    ("django (all)", f"{REPOS}/django",
     [f"{REPOS}/django/http/__init__.py", f"{REPOS}/django/urls/__init__.py",
      f"{REPOS}/django/template/__init__.py", f"{REPOS}/django/shortcuts.py"]),
]


def python_all(path):
    tree = ast.parse(open(path, encoding="utf-8").read())
    names = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) \
                and isinstance(node.value, (ast.List, ast.Tuple)):
            names += [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    if not names:  # a module without __all__: its public top-level classes and functions
        names = [n.name for n in tree.body
                 if isinstance(n, (ast.ClassDef, ast.FunctionDef)) and not n.name.startswith("_")]
    return names


def ts_exports(path):
    text = open(path, encoding="utf-8").read()
    names = []
    for group in re.findall(r"export\s*(?:type\s*)?\{([^}]*)\}", text):
        for part in group.split(","):
            part = re.sub(r"^\s*type\s+", "", part).strip()
            if part:
                names.append(part.split(" as ")[-1].strip())
    names += re.findall(r"export\s+(?:declare\s+)?(?:abstract\s+)?(?:function|class|const|interface|type|enum)\s+(\w+)", text)
    return names


def api(files):
    names = []
    for f in files:
        names += python_all(f) if f.endswith(".py") else ts_exports(f)
    return sorted(set(n for n in names if n))


def words(label):
    return set(re.findall(r"[A-Za-z_$][\w$]*", label))


def entry_labels_json(bin_, path):
    out = subprocess.run([bin_, "outline", path, "--format", "json"], capture_output=True,
                         text=True, check=False).stdout
    labels = []
    for f in json.loads(out)["files"]:
        labels += [e["label"] for e in f.get("entries", [])]
    return labels


ENTRY = re.compile(r"^\s+(.*?)  L\d+(?:-\d+)?  @")


def shown_labels(bin_, path, budget):
    out = subprocess.run([bin_, "outline", path, "--budget", str(budget)],
                         capture_output=True, text=True, check=False).stdout
    labels = [m.group(1) for m in map(ENTRY.match, out.splitlines()) if m]
    return labels, len(out)


def main():
    args = sys.argv[1:]
    budgets = [2000, 4000, 8000]
    if "--budgets" in args:
        i = args.index("--budgets")
        budgets = [int(b) for b in args[i + 1].split(",")]
        del args[i:i + 2]
    bins = args
    print("target".ljust(20), "API", "in outline", " ".join(
        f"{os.path.basename(os.path.dirname(os.path.dirname(b))) or b}@{B}".rjust(14)
        for B in budgets for b in bins))
    totals = {}
    for name, path, files in TARGETS:
        if not os.path.exists(path):
            print(name.ljust(20), "missing", path)
            continue
        names = api(files)
        defined = set()
        for label in entry_labels_json(bins[0], path):
            defined |= words(label)
        truth = [n for n in names if n in defined]
        cells = []
        for B in budgets:
            for b in bins:
                labels, size = shown_labels(b, path, B)
                shown = set()
                for label in labels:
                    shown |= words(label)
                hit = sum(n in shown for n in truth)
                key = (B, b)
                t = totals.setdefault(key, [0, 0])
                t[0] += hit
                t[1] += len(truth)
                cells.append(f"{hit}/{len(truth)} ({len(labels)} e)".rjust(14))
        print(name.ljust(20), str(len(names)).rjust(3), str(len(truth)).rjust(10), " ".join(cells))
    print("total".ljust(35), " ".join(
        f"{totals[(B, b)][0]}/{totals[(B, b)][1]} {totals[(B, b)][0] / max(1, totals[(B, b)][1]):.2f}".rjust(14)
        for B in budgets for b in bins))


if __name__ == "__main__":
    main()
