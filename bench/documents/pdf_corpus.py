"""PDF corpus measure for issue 18: cleave's PDF text view against poppler's pdftotext.

usage: python3 pdf_corpus.py CLEAVE_BINARY LIST_OF_PDFS OUT.tsv

For each PDF: `pdftotext` (whole file, pages split at form feeds) and `cleave extract` are
timed in the same run, one process each; `cleave chunk --budget 1000` gives the records.
Reported per file: pages, word recall of cleave's view against pdftotext (multiset of
lower-cased letter/digit words, ligatures folded and line-end hyphens joined on both sides),
reading-order similarity (difflib ratio of the word sequences, page by page), page
correctness (a chunk's text, split at the form feeds it holds, found on the pdftotext pages
its record names: at least 90 % of each piece's words on that page), two-column or not
(pdftotext -layout: a majority of text lines with a wide gap near the middle), and both
tools' wall time and cleave's peak RSS.

Both extractors misread the angle brackets of Computer Modern's symbol font (`⟨csname⟩`):
poppler as the letters h and i (`hcsnamei`), pdf_oxide as η and ι (`ηcsnameι`). The words
are folded to poppler's spelling before counting, so neither is charged for the font.
"""
import collections, difflib, json, os, re, resource, subprocess, sys, time

WORD = re.compile(r"[^\W_]+", re.UNICODE)
LIG = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
HYPH = re.compile(r"([^\W\d_]{2,})-\n\s*([a-z])")
ANGLE = re.compile(r"η(\w+?)ι")


def norm(text):
    for k, v in LIG.items():
        text = text.replace(k, v)
    text = HYPH.sub(r"\1\2", text)
    text = ANGLE.sub(r"h\1i", text)
    return [w.lower() for w in WORD.findall(text)]


def two_column(layout):
    lines = [l for l in layout.split("\n") if len(l.strip()) > 20]
    if not lines:
        return False
    width = max(len(l) for l in lines)
    hits = 0
    for l in lines:
        for m in re.finditer(r"\S( {3,})\S", l):
            mid = (m.start(1) + m.end(1)) / 2
            if 0.35 * width < mid < 0.65 * width:
                hits += 1
                break
    return hits / len(lines) > 0.4


def run(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True)
    return p, time.perf_counter() - t


def peak_rss_kb(cmd):
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True)
    try:
        return int(p.stderr.decode().strip().split("\n")[-1])
    except ValueError:
        return -1


def main():
    cleave, listing, out = sys.argv[1], sys.argv[2], sys.argv[3]
    files = [l.strip() for l in open(listing) if l.strip()]
    rows = []
    with open(out, "w") as f:
        f.write("file\tpages\tcols\trecall\torder\tchunks\tpage_ok\tpdftotext_s\tcleave_s\trss_kb\tnote\n")
        for path in files:
            p, t_pop = run(["pdftotext", "-q", "-enc", "UTF-8", path, "-"])
            if p.returncode != 0:
                f.write(f"{path}\t0\t-\t-\t-\t-\t-\t{t_pop:.3f}\t-\t-\tpdftotext failed\n")
                continue
            pop_pages = p.stdout.decode("utf-8", "replace").split("\f")
            if pop_pages and not pop_pages[-1].strip():
                pop_pages = pop_pages[:-1]
            c, t_cl = run([cleave, "extract", path])
            if c.returncode != 0:
                f.write(f"{path}\t{len(pop_pages)}\t-\t0\t-\t-\t-\t{t_pop:.3f}\t{t_cl:.3f}\t-\tcleave: {c.stderr.decode()[:120].strip()}\n")
                continue
            view = c.stdout.decode()
            view_pages = view.split("\f")
            pop_words = [norm(pg) for pg in pop_pages]
            view_words = [norm(pg) for pg in view_pages]
            total = collections.Counter(w for pg in pop_words for w in pg)
            got = collections.Counter(w for pg in view_words for w in pg)
            n = sum(total.values())
            recall = sum(min(v, got[k]) for k, v in total.items()) / n if n else 1.0
            ratios = []
            for a, b in zip(pop_words, view_words):
                if a and len(a) < 4000 and len(b) < 4000:
                    ratios.append(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio())
            order = sum(ratios) / len(ratios) if ratios else 1.0
            layout = subprocess.run(["pdftotext", "-q", "-layout", "-l", "20", path, "-"], capture_output=True).stdout.decode("utf-8", "replace")
            cols = "2" if two_column(layout) else "1"
            r = subprocess.run([cleave, "chunk", path, "--budget", "1000", "-q"], capture_output=True)
            chunks = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
            pop_sets = [set(w) for w in pop_words]
            ok = 0
            for ch in chunks:
                prov = ch.get("provenance") or {}
                page = prov.get("page")
                if not isinstance(page, int):
                    continue
                good = True
                for i, piece in enumerate(ch["text"].split("\f")):
                    words = norm(piece)
                    if not words:
                        continue
                    on = pop_sets[page - 1 + i] if page - 1 + i < len(pop_sets) else set()
                    if sum(w in on for w in words) < 0.9 * len(words):
                        good = False
                        break
                ok += good
            rss = peak_rss_kb([cleave, "extract", path])
            note = "" if len(view_pages) == len(pop_pages) else f"pages {len(view_pages)} vs {len(pop_pages)}"
            f.write(f"{path}\t{len(pop_pages)}\t{cols}\t{recall:.4f}\t{order:.4f}\t{len(chunks)}\t{ok}\t{t_pop:.3f}\t{t_cl:.3f}\t{rss}\t{note}\n")
            f.flush()


if __name__ == "__main__":
    main()
