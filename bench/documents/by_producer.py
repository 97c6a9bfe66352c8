"""pdf_corpus.py's TSV summed by the program that wrote each PDF (pdfinfo's Producer and
Creator), for corpora of mixed origin such as bench/documents/pdf-mixed-2026-11-29.txt.

usage: python3 by_producer.py OUT.tsv [OTHER.tsv]

With a second TSV (the same files measured by another build) it also lists the files whose
word recall, 3-gram recall or reading order moved, each way.
"""
import re
import subprocess
import sys

FAMILIES = [
    ("tex", r"\btex\b|pdftex|xetex|luatex|dvipdf|miktex|tex live|latex"),
    ("word/excel", r"microsoft|\bword\b"),
    ("libreoffice", r"libreoffice|openoffice|staroffice"),
    ("chrome/skia", r"skia|chrome|chromium"),
    ("quartz", r"quartz|mac os|macos"),
    ("acrobat", r"acrobat|distiller|adobe pdf library|pdfmaker"),
    ("itext", r"itext"),
    ("ghostscript", r"ghostscript"),
    ("pdfium", r"pdfium"),
    ("matplotlib", r"matplotlib"),
]


def family(path):
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, errors="replace").stdout
    fields = dict(l.split(":", 1) for l in info.splitlines() if ":" in l)
    who = (fields.get("Producer", "") + " " + fields.get("Creator", "")).lower()
    return next((name for name, pat in FAMILIES if re.search(pat, who)), "other")


def load(path):
    rows = [l.rstrip("\n").split("\t") for l in open(path)][1:]
    return {r[0]: r for r in rows}


def num(x):
    try:
        return float(x)
    except ValueError:
        return None


def table(rows, fam):
    print(f"{'producer':12} {'PDFs':>4} {'pages':>5} {'failed':>6} {'w>=98%':>6} {'words':>6} "
          f"{'g>=98%':>6} {'grams':>6} {'order':>6} {'pages ok':>8} {'misses':>6}")
    groups = sorted(set(fam.values()), key=lambda k: -sum(1 for v in fam.values() if v == k))
    for name in groups + ["all", "all but tex"]:
        rs = [r for f, r in rows.items() if name == "all" or fam[f] == name
              or (name == "all but tex" and fam[f] != "tex")]
        ok = [r for r in rs if len(r) >= 15 and num(r[3]) is not None and r[5] != "-"]
        n = max(len(ok), 1)
        words = [num(r[3]) for r in ok]
        grams = [num(r[11]) for r in ok]
        chunks = sum(int(r[5]) for r in ok)
        print(f"{name:12} {len(rs):4} {sum(int(r[1]) for r in rs if r[1].isdigit()):5} "
              f"{len(rs) - len(ok):6} {sum(w >= 0.98 for w in words):6} {100 * sum(words) / n:6.1f} "
              f"{sum(g >= 0.98 for g in grams):6} {100 * sum(grams) / n:6.1f} "
              f"{sum(num(r[4]) for r in ok) / n:6.3f} "
              f"{100 * sum(int(r[13]) for r in ok) / max(chunks, 1):7.1f}% "
              f"{sum(int(r[14]) for r in ok):6}")


def main():
    rows = load(sys.argv[1])
    fam = {f: family(f) for f in rows}
    table(rows, fam)
    if len(sys.argv) > 2:
        other = load(sys.argv[2])
        print(f"\nmoved between {sys.argv[1]} and {sys.argv[2]}:")
        for f in sorted(rows):
            a, b = rows[f], other.get(f)
            if not b or len(a) < 15 or len(b) < 15 or num(a[3]) is None or num(b[3]) is None:
                continue
            d = [num(b[i]) - num(a[i]) for i in (3, 11, 4)]
            if any(abs(x) >= 0.001 for x in d):
                # Recall first; reading order decides where both recalls stayed.
                key = d[0] + d[1] if abs(d[0] + d[1]) >= 0.001 else d[2]
                way = "up  " if key > 0 else "down"
                print(f"{way} words {100 * num(a[3]):5.1f} -> {100 * num(b[3]):5.1f}  grams "
                      f"{100 * num(a[11]):5.1f} -> {100 * num(b[11]):5.1f}  order {num(a[4]):.3f} -> "
                      f"{num(b[4]):.3f}  {fam[f]:11} {f}")


main()
