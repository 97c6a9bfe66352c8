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

Since 2026-11-25 each row also carries measures that charge a spelling difference less than a
loss (the word figures above are kept beside them, unchanged):
- gram recall: both texts NFKC-folded (math italic 𝐴 → A, subscript ₉ → 9, ligatures → letters)
  and lower-cased, each line reduced to its letters and digits with spaces and punctuation
  removed, then the multiset of character 3-grams inside each line, pdftotext's as the
  reference. A word split or glued differently (`List of Figures` / `ListofFigures`), CJK next
  to Latin with or without a space, `𝐴𝑎` / `𝐴 𝑎` cost nothing; a letter that is missing or
  wrong still costs the 3-grams that hold it (`defines` → `defnes` loses 3 of 5), and a line
  whose letters are scattered over other lines (the raised A of the LaTeX logo) loses its
  3-grams across the scatter. Reading order does not change it beyond line ends.
- latin recall: the word recall over words of two or more ASCII letters only (no digits,
  symbols, Greek, CJK), the old tokenisation otherwise.
- page correctness (words or grams): a chunk piece is on its page when at least 90 % of its
  words or at least 90 % of its 3-grams are among that pdftotext page's (words miss a formula
  spelled otherwise, in-line 3-grams miss a table whose cells pdftotext puts on lines of their
  own; text that is on the page passes one of the two). A piece that fails is a real miss when under 60 % of its
  3-grams are on the named page and another page holds at least 90 % of them: text on
  another page than its record names (a looser rule, 10 points better elsewhere, caught running
  heads such as `7.2. THE \SIDESET COMMAND 21`, 0.89 on their own page, which the table of
  contents holds whole). The others are counted as spelling misses.
"""
import unicodedata
import collections, difflib, json, os, re, resource, subprocess, sys, time

WORD = re.compile(r"[^\W_]+", re.UNICODE)
LIG = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
HYPH = re.compile(r"([^\W\d_]{2,})-\n\s*([a-z])")
ANGLE = re.compile(r"η(\w+?)ι")
# The same, over a bracketed phrase (`ηoptarg defaultι`, poppler: `hoptarg defaulti`); used by
# the 3-gram measures only, so the word recall keeps the spelling of earlier runs.
ANGLE_PHRASE = re.compile(r"η([^ηι\n]{1,60}?)ι")


def as_poppler_brackets(view, pop):
    """TeX's math angle brackets from a font without a ToUnicode map: poppler spells the font's
    codes (`h`, `i`), cleave the brackets (`⟨`, `⟩`, since 2026-11-29; pdf_oxide `η`, `ι`). When
    poppler's text of the document has no bracket, the view's are spelled as pdf_oxide's, which
    ANGLE maps to poppler's spelling, so runs before and after that change measure alike."""
    if "\u27e8" in pop or "\u2329" in pop or "\u3008" in pop:
        return view
    return view.replace("\u27e8", "η").replace("\u27e9", "ι")


def norm(text):
    for k, v in LIG.items():
        text = text.replace(k, v)
    text = HYPH.sub(r"\1\2", text)
    text = ANGLE.sub(r"h\1i", text)
    return [w.lower() for w in WORD.findall(text)]


def fold(text):
    text = unicodedata.normalize("NFKC", text)
    text = HYPH.sub(r"\1\2", text)
    return ANGLE_PHRASE.sub(r"h\1i", text).lower()


def grams(text):
    """The multiset of character 3-grams inside each line of letters and digits."""
    out = collections.Counter()
    for line in fold(text).split("\n"):
        s = "".join(c for c in line if c.isalnum())
        if 0 < len(s) < 3:
            out[s] += 1
        for i in range(len(s) - 2):
            out[s[i:i + 3]] += 1
    return out


def is_latin(w):
    return len(w) >= 2 and w.isascii() and w.isalpha()


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
        f.write("file\tpages\tcols\trecall\torder\tchunks\tpage_ok\tpdftotext_s\tcleave_s\trss_kb\tnote\tgram_recall\tlatin_recall\tpage_ok_any\tpage_real_miss\n")
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
            pop_text = p.stdout.decode("utf-8", "replace")
            view = as_poppler_brackets(c.stdout.decode(), pop_text)
            view_pages = view.split("\f")
            pop_words = [norm(pg) for pg in pop_pages]
            view_words = [norm(pg) for pg in view_pages]
            total = collections.Counter(w for pg in pop_words for w in pg)
            got = collections.Counter(w for pg in view_words for w in pg)
            n = sum(total.values())
            recall = sum(min(v, got[k]) for k, v in total.items()) / n if n else 1.0
            lat_total = {k: v for k, v in total.items() if is_latin(k)}
            n_lat = sum(lat_total.values())
            latin = sum(min(v, got[k]) for k, v in lat_total.items()) / n_lat if n_lat else 1.0
            pop_grams = [grams(pg) for pg in pop_pages]
            g_total = sum(pop_grams, collections.Counter())
            g_got = grams(view.replace("\f", "\n"))
            n_g = sum(g_total.values())
            gram_recall = sum(min(v, g_got[k]) for k, v in g_total.items()) / n_g if n_g else 1.0
            ratios = []
            for a, b in zip(pop_words, view_words):
                if a and len(a) < 4000 and len(b) < 4000:
                    ratios.append(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio())
            order = sum(ratios) / len(ratios) if ratios else 1.0
            layout = subprocess.run(["pdftotext", "-q", "-layout", "-l", "20", path, "-"], capture_output=True).stdout.decode("utf-8", "replace")
            cols = "2" if two_column(layout) else "1"
            r = subprocess.run([cleave, "chunk", path, "--budget", "1000", "-q"], capture_output=True)
            chunks = [json.loads(l) for l in r.stdout.decode().splitlines() if l.strip()]
            for ch in chunks:
                ch["text"] = as_poppler_brackets(ch["text"], pop_text)
            pop_sets = [set(w) for w in pop_words]
            ok = 0
            ok_g = 0
            real = 0
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
                good_g = True
                for i, piece in enumerate(ch["text"].split("\f")):
                    g = grams(piece)
                    n_piece = sum(g.values())
                    words = norm(piece)
                    if not n_piece or not words:
                        continue
                    def share(k):
                        if not 0 <= k < len(pop_grams):
                            return 0.0
                        by_grams = sum(v for key, v in g.items() if key in pop_grams[k]) / n_piece
                        by_words = sum(w in pop_sets[k] for w in words) / len(words)
                        return max(by_grams, by_words)
                    named = page - 1 + i
                    here = share(named)
                    if here < 0.9:
                        good_g = False
                        best = max(range(len(pop_grams)), key=share)
                        if best != named and here < 0.6 and share(best) >= 0.9:
                            real += 1
                            print(f"real page miss: {path} chunk {ch['id']} names p.{named + 1} ({here:.2f}), p.{best + 1} holds {share(best):.2f}", file=sys.stderr)
                        break
                ok_g += good_g
            rss = peak_rss_kb([cleave, "extract", path])
            note = "" if len(view_pages) == len(pop_pages) else f"pages {len(view_pages)} vs {len(pop_pages)}"
            f.write(f"{path}\t{len(pop_pages)}\t{cols}\t{recall:.4f}\t{order:.4f}\t{len(chunks)}\t{ok}\t{t_pop:.3f}\t{t_cl:.3f}\t{rss}\t{note}\t{gram_recall:.4f}\t{latin:.4f}\t{ok_g}\t{real}\n")
            f.flush()


if __name__ == "__main__":
    main()
