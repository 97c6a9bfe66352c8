#!/usr/bin/env python3
"""Answer recall of `cleave select` against two baselines, on the corpus bench/select/fetch.sh
builds and the questions in bench/select/questions.jsonl (stdlib only).

    bench/select/fetch.sh
    python3 bench/select/recall.py [--cleave /work/bin/cleave] [--out FILE] [--jobs 2]
        [--questions bench/select/questions-heldout.jsonl]

For every question and every budget (2000 and 4000 chars) it asks three methods for a
selection out of the question's PATH (the file, or the repository folder):

  cleave    `cleave select PATH --query Q --budget B --format json` (query type guessed by cleave),
            and the same with `--format text` to measure what an agent would read;
  bm25      BM25 (k1 1.2, b 0.75) over fixed 500-char windows with 100 chars of overlap over the
            text views of PATH's files, top windows in score order while the union of the chosen
            characters fits the budget (tags and separators not counted: generous to it);
  sections  the section-priority strategy alone, no query: sections titled Abstract, Summary,
            Conclusion(s), Results or Introduction in reading order, then the rest of the text
            in reading order, cut at the budget (headings found in the text view: Markdown `#`
            lines, LaTeX \\part..\\subsubsection; a code file has none).

A question is answered when its passage lies wholly inside one contiguous stretch of the
selection: chosen ranges that touch are merged, the text of each merged stretch is taken from
the file's text view (`cleave extract`), and containment is tested with whitespace collapsed
(runs of whitespace become one space, on both sides). A selection is over budget when its
rendered text (cleave: the `--format text` output) is longer than the budget in chars.

For each cleave miss it also asks `cleave select` for its whole ranking (budget 10^7,
--passthrough 0, --max-segments 100000) and says where the passage's chunks stood.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
BUDGETS = (2000, 4000)
WINDOW, OVERLAP = 500, 100
PREFERRED = re.compile(r"\b(abstract|summary|conclusions?|results|introduction)\b", re.I)
STOP = set(
    "a an and are as at be by can do does for from how i if in is it its my of on or so that the "
    "this to what when where which who why will with you your".split()
)


def norm(text):
    return " ".join(text.split())


# ---------------------------------------------------------------- text views


class Views:
    def __init__(self, cleave):
        self.cleave = cleave
        self.cache = {}

    def get(self, path):
        """The text view of one file, as bytes."""
        if path not in self.cache:
            if path.endswith((".html", ".htm", ".docx", ".pptx", ".xlsx", ".pdf")):
                out = subprocess.run(
                    [self.cleave, "extract", path], capture_output=True, check=True
                ).stdout
            else:
                with open(path, "rb") as fh:
                    out = fh.read()
            self.cache[path] = out
        return self.cache[path]


def files_of(path):
    if os.path.isfile(path):
        return [path]
    out = []
    for root, dirs, names in os.walk(path):
        dirs.sort()
        for name in sorted(names):
            if not name.startswith("."):
                out.append(os.path.join(root, name))
    return out


def stretches(ranges):
    """Merges [start, end) ranges that overlap or touch."""
    out = []
    for s, e in sorted(ranges):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def contains(texts, passage):
    """Whether the (whitespace-collapsed) passage lies inside one of the texts."""
    p = norm(passage)
    return any(p in norm(t) for t in texts)


# ---------------------------------------------------------------- cleave


def run_cleave(cleave, path, question, budget, fmt, extra=()):
    cmd = [cleave, "select", path, "--query", question, "--budget", str(budget), "--format", fmt]
    cmd += list(extra)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, cwd=CORPUS)
    elapsed = time.monotonic() - t0
    if proc.returncode not in (0,):
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return proc.stdout.decode("utf-8"), elapsed


# Diagnostic variants of cleave (not among the three compared methods): what changes when cleave
# is told the labelled query type, or chunks smaller for the selection.
VARIANTS = {
    "typed": lambda q: ["--query-type", q["query_type"]],
    "cb500": lambda q: ["--chunk-budget", "500"],
    "cb300": lambda q: ["--chunk-budget", "300"],
}


def cleave_method(cleave, views, q, budget, variant=None):
    path = q["file"]
    base = os.path.join(CORPUS, path)
    typed = variant is not None
    extra = VARIANTS[variant](q) if typed else []
    out, elapsed = run_cleave(cleave, path, q["question"], budget, "json", extra)
    sel = json.loads(out)
    # the text an agent reads, measured for the budget (the variants trust the size field)
    text = "" if typed else run_cleave(cleave, path, q["question"], budget, "text", extra)[0]
    by_file = defaultdict(list)
    for p in sel["passages"]:
        c = p["chunk"]
        by_file[c["path"]].append((c["byte_start"], c["byte_end"]))
    texts = []
    for rel, ranges in by_file.items():
        full = base if os.path.isfile(base) else os.path.join(base, rel)
        view = views.get(full)
        texts += [view[s:e].decode("utf-8", "replace") for s, e in stretches(ranges)]
    return {
        "hit": contains(texts, q["passage"]),
        "size": len(text) if not typed else sel["size"],
        "json_size": sel["size"],
        "body_chars": sum(len(p["chunk"]["text"]) for p in sel["passages"]),
        "passages": len(sel["passages"]),
        "query_type": sel["query_type"],
        "strategy": sel["strategy"],
        "seconds": elapsed,
        "chosen": [(p["chunk"]["path"], p["chunk"]["byte_start"], p["chunk"]["byte_end"]) for p in sel["passages"]],
    }


def diagnose(cleave, views, q, budget):
    """Where the passage's chunks stand in cleave's whole ranking."""
    path = q["file"]
    base = os.path.join(CORPUS, path)
    out, _ = run_cleave(
        cleave, path, q["question"], 10_000_000, "json",
        ["--passthrough", "0", "--max-segments", "100000", "--chunk-budget", str(min(1000, budget * 2 // 3))],
    )
    sel = json.loads(out)
    ranked = sorted(sel["passages"], key=lambda p: -p["score"])
    rank = {(p["chunk"]["path"], p["chunk"]["byte_start"]): i + 1 for i, p in enumerate(ranked)}
    # the passage's byte range in its file
    rel = q.get("source") or os.path.basename(path)
    full = base if os.path.isfile(base) else os.path.join(base, q["source"])
    view = views.get(full)
    pb = q["passage"].encode("utf-8")
    start = view.find(pb)
    end = start + len(pb)
    hold = []
    # all chunks of that file (with and without a score) from `cleave chunk` would be exact; the
    # ranking lists only chunks with a score, so chunks of the passage absent from it scored 0.
    for p in sel["passages"]:
        c = p["chunk"]
        if c["path"] == rel and c["byte_start"] < end and c["byte_end"] > start:
            hold.append({
                "rank": rank[(c["path"], c["byte_start"])],
                "score": round(p["score"], 2),
                "chars": len(c["text"]),
                "range": (c["byte_start"], c["byte_end"]),
            })
    covered = sum(min(h["range"][1], end) - max(h["range"][0], start) for h in hold)
    holding = {(rel, h["range"][0]) for h in hold}
    return {
        # the whole ranking, best first: (holds part of the passage, body chars, file, start, end)
        "ranking": [
            ((p["chunk"]["path"], p["chunk"]["byte_start"]) in holding, len(p["chunk"]["text"]),
             p["chunk"]["path"], p["chunk"]["byte_start"], p["chunk"]["byte_end"])
            for p in ranked
        ],
        "candidates": len(ranked),
        "hold": sorted(hold, key=lambda h: h["range"]),
        "passage_bytes": (start, end),
        "uncovered_bytes": (end - start) - covered,
        "top_score": round(ranked[0]["score"], 2) if ranked else 0,
    }


def simulate(d, budget, overhead):
    """Whether cleave's own ranking answers the question when each passage costs its body plus
    `overhead` chars (greedy by score, skipping what does not fit, as select.rs does)."""
    if not d["hold"] or d["uncovered_bytes"] > 0:
        return False
    need = sum(1 for r in d["ranking"] if r[0])
    used = got = 0
    for holds, chars, *_ in d["ranking"]:
        if used >= budget:
            break
        if used + chars + overhead <= budget:
            used += chars + overhead
            got += holds
    return got == need


def at_rank(d, k):
    """Whether every chunk holding the passage is among the first k of the ranking."""
    return bool(d["hold"]) and d["uncovered_bytes"] == 0 and max(h["rank"] for h in d["hold"]) <= k


# ---------------------------------------------------------------- BM25 windows


def tokens(text):
    return [t for t in re.findall(r"[a-z0-9]+", text.lower()) if t not in STOP]


class Windows:
    def __init__(self, views, path):
        self.docs = []  # (file, start, end) in chars of the decoded view
        self.texts = {}
        toks = []
        for f in files_of(path):
            try:
                t = views.get(f).decode("utf-8")
            except UnicodeDecodeError:
                continue
            self.texts[f] = t
            s = 0
            while True:
                e = min(s + WINDOW, len(t))
                self.docs.append((f, s, e))
                toks.append(Counter(tokens(t[s:e])))
                if e >= len(t):
                    break
                s += WINDOW - OVERLAP
        self.tf = toks
        self.lens = [sum(c.values()) for c in toks]
        self.avg = sum(self.lens) / max(1, len(self.lens))
        self.df = Counter()
        for c in toks:
            self.df.update(c.keys())

    def select(self, question, budget, k1=1.2, b=0.75):
        n = len(self.docs)
        q = set(tokens(question))
        scores = []
        for i, tf in enumerate(self.tf):
            s = 0.0
            for t in q:
                f = tf.get(t)
                if f:
                    idf = math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5))
                    s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * self.lens[i] / self.avg))
            if s > 0:
                scores.append((-s, i))
        scores.sort()
        chosen = defaultdict(list)
        used = 0
        for _, i in scores:
            f, s, e = self.docs[i]
            trial = stretches(chosen[f] + [(s, e)])
            new = sum(b_ - a for a, b_ in trial) - sum(b_ - a for a, b_ in stretches(chosen[f]))
            if used + new > budget:
                continue
            chosen[f].append((s, e))
            used += new
            if used >= budget:
                break
        texts = [self.texts[f][s:e] for f, rs in chosen.items() for s, e in stretches(rs)]
        return texts, used


# ---------------------------------------------------------------- section priority

MD_HEAD = re.compile(r"^#{1,6}\s+(.*)$")
TEX_HEAD = re.compile(r"\\(part|chapter|section|subsection|subsubsection)\*?(<[^>]*>)?\{([^}]*)")


def sections(path, text):
    """(title, start, end) of each stretch between headings, in chars."""
    heads = []
    if path.endswith(".tex"):
        for m in TEX_HEAD.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if "%" not in text[line_start:m.start()]:
                heads.append((m.group(3), line_start))
    elif path.endswith((".md", ".html", ".htm", ".markdown")):
        fence = False
        pos = 0
        for line in text.splitlines(keepends=True):
            if line.lstrip().startswith("```"):
                fence = not fence
            elif not fence:
                m = MD_HEAD.match(line)
                if m:
                    heads.append((m.group(1), pos))
            pos += len(line)
    out = []
    if not heads or heads[0][1] > 0:
        out.append(("", 0, heads[0][1] if heads else len(text)))
    for i, (title, s) in enumerate(heads):
        e = heads[i + 1][1] if i + 1 < len(heads) else len(text)
        out.append((title, s, e))
    return out


def section_priority(views, path, budget):
    spans = []  # (file text, start, end) in the order they are taken
    rest = []
    for f in files_of(path):
        try:
            t = views.get(f).decode("utf-8")
        except UnicodeDecodeError:
            continue
        for title, s, e in sections(f, t):
            (spans if PREFERRED.search(title) else rest).append((f, t, s, e))
    texts = []
    used = 0
    for f, t, s, e in spans + rest:
        if used >= budget:
            break
        take = min(e - s, budget - used)
        texts.append((f, s, s + take, t))
        used += take
    # merge touching pieces of the same file (a preferred section and the text right after it)
    by_file = defaultdict(list)
    full = {}
    for f, s, e, t in texts:
        by_file[f].append((s, e))
        full[f] = t
    return [full[f][s:e] for f, rs in by_file.items() for s, e in stretches(rs)], used


# ---------------------------------------------------------------- report


def pct(hits, n):
    return f"{hits / n:.2f} ({hits}/{n})" if n else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cleave", default=os.environ.get("CLEAVE", "/work/bin/cleave"))
    ap.add_argument("--questions", default=os.path.join(HERE, "questions.jsonl"),
                    help="question file (default questions.jsonl; questions-heldout.jsonl is the held-out set)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma-separated question ids")
    ap.add_argument("--variants", default="typed,cb500,cb300", help=f"diagnostic cleave variants: {','.join(VARIANTS)}")
    args = ap.parse_args()

    qs = [json.loads(l) for l in open(args.questions, encoding="utf-8") if l.strip()]
    if args.only:
        keep = {int(x) for x in args.only.split(",")}
        qs = [q for q in qs if q["id"] in keep]
    views = Views(args.cleave)

    # every passage must be a verbatim substring of its file's text view
    for q in qs:
        base = os.path.join(CORPUS, q["file"])
        f = base if os.path.isfile(base) else os.path.join(base, q["source"])
        if q["passage"].encode("utf-8") not in views.get(f):
            sys.exit(f"question {q['id']}: passage not in {f}")

    results = {}
    t0 = time.monotonic()

    variants = [v for v in args.variants.split(",") if v]

    def one(qb):
        q, b = qb
        r = {"cleave": cleave_method(args.cleave, views, q, b)}
        for v in variants:
            r[v] = cleave_method(args.cleave, views, q, b, v)
        return (q["id"], b), r

    with ThreadPoolExecutor(args.jobs) as pool:
        for key, r in pool.map(one, [(q, b) for q in qs for b in BUDGETS]):
            results[key] = r
    cleave_seconds = time.monotonic() - t0

    windows = {}
    for q in qs:
        if q["file"] not in windows:
            windows[q["file"]] = Windows(views, os.path.join(CORPUS, q["file"]))
        for b in BUDGETS:
            texts, used = windows[q["file"]].select(q["question"], b)
            results[(q["id"], b)]["bm25"] = {"hit": contains(texts, q["passage"]), "size": used}
            texts, used = section_priority(views, os.path.join(CORPUS, q["file"]), b)
            results[(q["id"], b)]["sections"] = {"hit": contains(texts, q["passage"]), "size": used}

    diag = {q["id"]: diagnose(args.cleave, views, q, BUDGETS[0]) for q in qs}
    misses = {i: d for i, d in diag.items() if any(not results[(i, b)]["cleave"]["hit"] for b in BUDGETS)}

    methods = ("cleave", "bm25", "sections")
    lines = []
    w = lines.append
    w("# cleave select: answer recall")
    w("")
    ver = subprocess.run([args.cleave, "--version"], capture_output=True, text=True).stdout.strip()
    w(f"cleave: {args.cleave} ({ver})")
    w(f"commit: {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=HERE).stdout.strip()}")
    w(f"corpus: bench/select/fetch.sh, {open(os.path.join(HERE, 'corpus.MANIFEST')).read().splitlines()[-1] if os.path.exists(os.path.join(HERE, 'corpus.MANIFEST')) else '?'}")
    default_questions = os.path.abspath(args.questions) == os.path.join(HERE, "questions.jsonl")
    w(f"questions: {'' if default_questions else os.path.basename(args.questions) + ', '}"
      f"{len(qs)} ({sum(q['paraphrased'] for q in qs)} paraphrased; "
      f"{sum(q['file'].startswith('repos/') for q in qs)} over repositories); "
      f"cleave wall time {cleave_seconds:.0f} s for {(2 + len(variants)) * len(qs) * len(BUDGETS)} runs with {args.jobs} jobs")
    w("containment: the passage, whitespace collapsed, inside one merged stretch of the selection")
    w("methods: cleave = `cleave select PATH --query Q --budget B --format json` (type guessed); bm25 = 500-char")
    w("windows, 100 overlap; sections = section priority alone, no query.")
    w("")
    w("## Summary")
    w("")
    groups = [("all", lambda q: True)]
    groups += [("paraphrased", lambda q: q["paraphrased"]), ("literal", lambda q: not q["paraphrased"])]
    groups += [(f"type {t}", (lambda t: lambda q: q["query_type"] == t)(t)) for t in ("concept", "algorithm", "code")]
    groups += [("documents", lambda q: q["file"].startswith("docs/")), ("repositories", lambda q: q["file"].startswith("repos/"))]
    head = f"{'questions':<22}" + "".join(f"{m + ' @' + str(b):>17}" for b in BUDGETS for m in methods)
    w(head)
    for name, pred in groups:
        sub = [q for q in qs if pred(q)]
        row = f"{name + ' (' + str(len(sub)) + ')':<22}"
        for b in BUDGETS:
            for m in methods:
                row += f"{pct(sum(results[(q['id'], b)][m]['hit'] for q in sub), len(sub)):>17}"
        w(row)
    w("")
    for b in BUDGETS:
        over = [q["id"] for q in qs if results[(q["id"], b)]["cleave"]["size"] > b]
        over_json = [q["id"] for q in qs if results[(q["id"], b)]["cleave"]["json_size"] > b]
        w(f"over budget at {b}: cleave {len(over)} (rendered text) / {len(over_json)} (its own size field)"
          f"{' ' + str(over) if over else ''}; bm25 "
          f"{sum(results[(q['id'], b)]['bm25']['size'] > b for q in qs)}; sections "
          f"{sum(results[(q['id'], b)]['sections']['size'] > b for q in qs)}")
    for b in BUDGETS:
        rs = [results[(q["id"], b)]["cleave"] for q in qs]
        n = sum(r["passages"] for r in rs)
        over_head = sum(r["size"] - r["body_chars"] for r in rs)
        w(f"cleave at {b}: {n / len(rs):.1f} passages per selection, {sum(r['size'] for r in rs) / len(rs):.0f} chars used; "
          f"tag lines and chunk headers take {over_head / max(1, n):.0f} chars per passage, "
          f"{over_head / max(1, sum(r['size'] for r in rs)):.0%} of the chars used; "
          f"median cleave run {sorted(r['seconds'] for r in rs)[len(rs) // 2]:.2f} s")
    if variants:
        w("")
        w("Diagnostic variants of cleave (same questions; size from cleave's own size field): "
          "typed = the labelled --query-type given; cbN = --chunk-budget N")
        w("")
        w(f"{'questions':<22}" + "".join(f"{v + ' @' + str(b):>17}" for b in BUDGETS for v in variants))
        for name, pred in groups:
            sub = [q for q in qs if pred(q)]
            row = f"{name + ' (' + str(len(sub)) + ')':<22}"
            for b in BUDGETS:
                for v in variants:
                    row += f"{pct(sum(results[(q['id'], b)][v]['hit'] for q in sub), len(sub)):>17}"
            w(row)
        for b in BUDGETS:
            w(f"over budget at {b}: " + ", ".join(
                f"{v} {sum(results[(q['id'], b)][v]['json_size'] > b for q in qs)}" for v in variants)
              + "; passages per selection: " + ", ".join(
                f"{v} {sum(results[(q['id'], b)][v]['passages'] for q in qs) / len(qs):.1f}" for v in variants))
    w("")
    w("Ranking against packing, from cleave's own whole ranking of each question (chunks of the")
    w("default 1000 chars): the share of questions whose passage lies in chunks ranked within the top k,")
    w("and the recall a greedy pick from that same ranking would reach if each passage cost its body")
    w("plus 0 chars (no tag, no header) or plus 80 chars (one short tag line) instead of today's tag")
    w("line and chunk header:")
    w("")
    w(f"{'questions':<22}" + "".join(f"{'top ' + str(k):>12}" for k in (1, 2, 3, 5, 10))
      + "".join(f"{'+' + str(o) + ' @' + str(b):>14}" for b in BUDGETS for o in (0, 80)))
    for name, pred in groups:
        sub = [q for q in qs if pred(q)]
        if not sub:
            continue
        row = f"{name + ' (' + str(len(sub)) + ')':<22}"
        row += "".join(f"{sum(at_rank(diag[q['id']], k) for q in sub) / len(sub):>12.2f}" for k in (1, 2, 3, 5, 10))
        row += "".join(f"{sum(simulate(diag[q['id']], b, o) for q in sub) / len(sub):>14.2f}" for b in BUDGETS for o in (0, 80))
        w(row)
    guessed = Counter((q["query_type"], results[(q["id"], BUDGETS[0])]["cleave"]["query_type"]) for q in qs)
    w("query type (labelled -> guessed by cleave): " + ", ".join(f"{a}->{b_} {n}" for (a, b_), n in sorted(guessed.items())))
    w("")
    w("## Per question")
    w("")
    w("id  file                                     P type       | cleave 2k 4k (chars)  | bm25 2k 4k | sect 2k 4k | "
      + "".join(f"{v} 2k 4k | " for v in variants) + "question")
    for q in qs:
        r2, r4 = results[(q["id"], 2000)], results[(q["id"], 4000)]
        mark = lambda r: "Y" if r["hit"] else "."
        w(f"{q['id']:<3} {q['file'][:40]:<40} {'P' if q['paraphrased'] else '-'} {q['query_type']:<10} | "
          f"{mark(r2['cleave'])}  {mark(r4['cleave'])} ({r2['cleave']['size']:>4} {r4['cleave']['size']:>4}) | "
          f"{mark(r2['bm25'])}  {mark(r4['bm25'])}      | {mark(r2['sections'])}  {mark(r4['sections'])}      | "
          + "".join(f"{mark(r2[v])}  {mark(r4[v])}{' ' * (len(v) + 2)}| " for v in variants) + q["question"])
    w("")
    w("## cleave misses: where the passage's chunks stood (chunk budget 1000, whole ranking)")
    w("")
    for q in qs:
        if q["id"] not in misses:
            continue
        d = misses[q["id"]]
        r2, r4 = results[(q["id"], 2000)]["cleave"], results[(q["id"], 4000)]["cleave"]
        hold = "; ".join(
            f"rank {h['rank']} score {h['score']} {h['chars']} chars" for h in d["hold"]
        ) or "no chunk of the passage scored"
        w(f"{q['id']} [{'miss' if not r2['hit'] else 'hit'} 2k, {'miss' if not r4['hit'] else 'hit'} 4k] "
          f"{q['file']} ({q['query_type']}, guessed {r2['query_type']}, {'paraphrased' if q['paraphrased'] else 'literal'}): "
          f"{q['question']}")
        w(f"    passage {len(q['passage'])} chars; chunks holding it: {hold}; "
          f"{d['uncovered_bytes']} bytes of it in chunks that did not score; {d['candidates']} chunks scored, top score {d['top_score']}; "
          f"chosen at 2k: {r2['passages']} passages, {r2['size']} chars")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    sys.stdout.write(text)
    raw = "select-recall.json" if default_questions else f"select-recall-{os.path.basename(args.questions).removesuffix('.jsonl')}.json"
    with open(os.path.join(HERE, "..", "tmp", raw), "w") as fh:
        json.dump({f"{k[0]}@{k[1]}": v for k, v in results.items()} | {"diagnosis": diag}, fh, default=str)


if __name__ == "__main__":
    main()
