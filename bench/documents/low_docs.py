"""Why a PDF's word recall is under 98 %: each word pdftotext has and cleave's view lacks is put
in one class, and the document gets the class of most of its missing words.

usage: python3 low_docs.py CLEAVE_BINARY pdf.tsv [THRESHOLD]

Classes of a missing word (the first that fits):
  cjk        holds a CJK ideograph, kana or hangul (pdftotext and pdf_oxide put spaces
             between CJK and Latin text differently, so `长期jwt` is one word or two)
  symbol     holds a letter outside ASCII that is not Latin-1/Latin Extended: Greek, math
             alphanumerics, Cyrillic (math italic `𝐴𝑎`, `χ0`)
  accent     holds a Latin letter with a diacritic or a dotless ı (a combining accent set
             apart: `artı́culo` read as `art ıculo`)
  number     digits only or digits and letters (sub- and superscripts set apart: `x0`)
  ligature   ASCII letters, and cleave's view has the word with a ligature's letters lost or
             cut short (`defines` → `defnes`, `option` → `opon`): a loss
  tex-logo   a word ending in `tex` (LaTeX, XeTeX, BibTeX): the raised A and lowered E of the
             logo are glyphs set apart, which pdf_oxide puts on another line or word
  split      ASCII letters, found in the same page of cleave's view once spaces are removed
             (a word glued to its neighbour or cut in two: `ListofFigures`, `in terval`)
  lost       ASCII letters found nowhere on that page of cleave's view, even without spaces
Each document then gets a verdict from its 3-gram recall (pdf_corpus.py) and its character
recall (the multiset of NFKC-folded letters and digits, order and spacing ignored):
  A loss: ligatures    characters missing, most of them i/f/l (pdf_oxide 0.3.78 maps a Type 1
                       glyph named `f_i` to `f` alone: fonts/font_dict.rs, "Priority 4")
  B accents apart      characters missing, mostly accented letters (the accent comes out as a
                       spacing mark beside its letter instead of composed with it)
  C loss: symbols      other characters missing (under 99.5 %)
  D spelling only      3-gram recall >= 98 %: the letters are there, in their lines
  E order              every character there (>= 99.5 %) but 3-gram recall < 98 %: letters
                       moved to other lines or interleaved (the TeX logo's lowered E, sub- and
                       superscripts, form layouts, columns)
"""
import collections, re, subprocess, sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from pdf_corpus import as_poppler_brackets, fold, norm  # noqa: E402

LIGS = ("ffi", "ffl", "ff", "fi", "fl", "ft", "tt", "ti", "th", "fj", "st", "ct")


def is_cjk(c):
    o = ord(c)
    return 0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF or 0x3000 <= o <= 0x30FF


def is_latin_ext(c):
    return 0xC0 <= ord(c) <= 0x24F or c in "ı"


def ligature_lost(w, extra):
    for lig in LIGS:
        if lig in w:
            for r in ("", lig[0], lig[-1]):
                if w.replace(lig, r) in extra:
                    return True
    return False


def classify(w, extra, page_squash):
    if any(is_cjk(c) for c in w):
        return "cjk"
    if any(not c.isascii() and not is_latin_ext(c) for c in w):
        return "symbol"
    if not w.isascii():
        return "accent"
    if any(c.isdigit() for c in w):
        return "number"
    if ligature_lost(w, extra):
        return "ligature"
    if w.endswith("tex"):
        return "tex-logo"
    if w in page_squash:
        return "split"
    return "lost"


def main():
    cleave, tsv = sys.argv[1], sys.argv[2]
    bar = float(sys.argv[3]) if len(sys.argv) > 3 else 0.98
    rows = [l.rstrip("\n").split("\t") for l in open(tsv)][1:]
    by_class = collections.Counter()
    words_by_class = collections.Counter()
    verdicts = collections.Counter()
    print("recall\tgrams\tlatin\tchars\tcols\tpages\tmissing\tclass\tverdict\tshares\tfile\texamples (lost/ligature)\tcharacters missing")
    for r in rows:
        if r[3] in ("-", "0") or r[5] == "-" or float(r[3]) >= bar:
            continue
        path = r[0]
        pop = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", path, "-"], capture_output=True).stdout.decode("utf-8", "replace").split("\f")
        view = as_poppler_brackets(
            subprocess.run([cleave, "extract", path], capture_output=True).stdout.decode(), "\f".join(pop)
        ).split("\f")
        counts = collections.Counter()
        examples = []
        for k, pg in enumerate(pop):
            vpg = view[k] if k < len(view) else ""
            pw, vw = collections.Counter(norm(pg)), collections.Counter(norm(vpg))
            miss, extra = pw - vw, vw - pw
            squash = "".join(norm(vpg))
            for w, n in miss.items():
                c = classify(w, extra, squash)
                counts[c] += n
                if c in ("lost", "ligature") and len(examples) < 6:
                    examples.append(w)
        a = collections.Counter(c for c in fold("\n".join(pop)) if c.isalnum())
        b = collections.Counter(c for c in fold("\n".join(view)) if c.isalnum())
        chars = sum(min(v, b[k]) for k, v in a.items()) / max(sum(a.values()), 1)
        lost_chars = (a - b).most_common(6)
        lost = dict(lost_chars)
        accents = sum(v for k, v in lost.items() if not k.isascii() and k.isalpha() and 0xC0 <= ord(k) <= 0x24F)
        grams_r = float(r[11]) if len(r) > 11 else 0.0
        if chars < 0.999 and lost.get("i", 0) + lost.get("f", 0) >= 20:
            verdict = "A loss: ligatures"
        elif chars < 0.999 and accents >= 5:
            verdict = "B accents apart"
        elif chars < 0.995:
            verdict = "C loss: symbols"
        elif grams_r >= 0.98:
            verdict = "D spelling only"
        else:
            verdict = "E order"
        verdicts[verdict] += 1
        total = sum(counts.values())
        top = counts.most_common(1)[0][0] if counts else "-"
        by_class[top] += 1
        words_by_class.update(counts)
        shares = ",".join(f"{c}:{n}" for c, n in counts.most_common())
        name = path.rsplit("/", 1)[-1].replace("x_usr_share_doc_texlive-doc_", "")
        grams = r[11] if len(r) > 11 else "-"
        latin = r[12] if len(r) > 12 else "-"
        print(f"{r[3]}\t{grams}\t{latin}\t{chars:.4f}\t{r[2]}\t{r[1]}\t{total}\t{top}\t{verdict}\t{shares}\t{name}\t{' '.join(examples)}\t{lost_chars if chars < 0.999 else ''}")
    print("documents by verdict: " + ", ".join(f"{c} {n}" for c, n in sorted(verdicts.items())))
    print("documents by main class: " + ", ".join(f"{c} {n}" for c, n in by_class.most_common()))
    print("missing words by class: " + ", ".join(f"{c} {n}" for c, n in words_by_class.most_common()))


if __name__ == "__main__":
    main()
