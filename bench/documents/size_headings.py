"""PDF headings told by font size, against the bookmarks of the same files (issue 18).

usage: python3 size_headings.py CLEAVE_BINARY LIST_OF_PDFS WORKDIR

For each PDF of the list that has bookmarks which give cleave's text view at least one heading, a copy
without bookmarks is written with pypdf (`PdfWriter.append(..., import_outline=False)`: the
pages as they are, no outline), and the headings of cleave's text view of the copy (told by
font size) are compared with those of the original (bookmarks found on their page), as
multisets of titles reduced to lower-case letters and digits. Recall: bookmark headings found
again; precision: size headings that are bookmark headings. A document's bookmarks often
leave headings out (a class's manual bookmarks its sections, not its subsections, nor the
title page), so precision here is a lower bound: the rest must be read to be judged.

Needs pypdf from PyPI.
"""
import collections, os, re, subprocess, sys

from pypdf import PdfReader, PdfWriter


def headings(cleave, path):
    try:
        p = subprocess.run([cleave, "extract", path], capture_output=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return None
    out = []
    for line in p.stdout.decode("utf-8", "replace").split("\n"):
        m = re.match(r"^(#{1,6}) (.*)", line)
        if m:
            out.append("".join(c.lower() for c in m.group(2) if c.isalnum()))
    return out


def has_bookmarks(src):
    try:
        return len(PdfReader(src).outline) > 0
    except Exception:
        return False


def without_bookmarks(src, dst):
    try:
        writer = PdfWriter()
        writer.append(PdfReader(src), import_outline=False)
        with open(dst, "wb") as f:
            writer.write(f)
        return True
    except Exception:
        return False


def main():
    cleave, listing, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    rows = []
    for i, src in enumerate(l.strip() for l in open(listing) if l.strip()):
        # Without bookmarks, the original's headings are told by size too: no ground truth.
        if not has_bookmarks(src):
            continue
        truth = headings(cleave, src)
        if not truth:
            continue
        copy = os.path.join(work, f"{i}.pdf")
        if not without_bookmarks(src, copy):
            continue
        got = headings(cleave, copy)
        os.remove(copy)
        if got is None:
            continue
        t, g = collections.Counter(truth), collections.Counter(got)
        matched = sum((t & g).values())
        rows.append((matched, sum(t.values()), sum(g.values()), os.path.basename(src)))
    for m, t, g, name in sorted(rows, key=lambda r: (r[0] / r[1], r[3])):
        print(f"recall {m / t:.2f} precision {m / max(g, 1):.2f} bookmarks {t:5d} sizes {g:5d}  {name}")
    m = sum(r[0] for r in rows)
    t = sum(r[1] for r in rows)
    g = sum(r[2] for r in rows)
    some = sum(1 for r in rows if r[2] > 0)
    print(f"documents {len(rows)} (with size headings {some}): bookmark headings {t}, size headings {g}, "
          f"matched {m}: recall {m / max(t, 1):.3f}, precision {m / max(g, 1):.3f}")
    recalls = sorted(r[0] / r[1] for r in rows)
    if recalls:
        print(f"per-document recall: median {recalls[len(recalls) // 2]:.2f}")


main()
