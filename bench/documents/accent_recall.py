"""Word and 3-gram recall of one or more PDFs with accents composed on both sides.

usage: python3 accent_recall.py CLEAVE_BINARY PDF...

pdf_corpus.py compares words as the two tools spell them. pdftotext writes an accented letter
decomposed (`co\u0301mo`, and `artı\u0301culo` on a dotless i), and its word pattern splits a
word at the mark, so `cómo` counts as `co` + `mo` and a view that holds the whole word is
charged for it. Here both texts are NFC-composed first and a dotless ı or ȷ carrying a mark
is read as i or j (`ı\u0301` = í), then measured with pdf_corpus.py's own norm() and grams().
Printed per file: word recall and 3-gram recall as pdf_corpus.py has them, then composed.
"""
import collections, subprocess, sys, unicodedata

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from pdf_corpus import grams, norm  # noqa: E402


def compose(text):
    text = unicodedata.normalize("NFC", text)
    for dotless, letter in (("\u0131", "i"), ("\u0237", "j")):
        for mark in range(0x300, 0x370):
            pair = dotless + chr(mark)
            if pair in text:
                text = text.replace(pair, unicodedata.normalize("NFC", letter + chr(mark)))
    return text


def recall(ref, got):
    n = sum(ref.values())
    return sum(min(v, got[k]) for k, v in ref.items()) / n if n else 1.0


def measures(pop, view):
    words = recall(collections.Counter(norm(pop)), collections.Counter(norm(view)))
    return words, recall(grams(pop), grams(view))


def main():
    cleave = sys.argv[1]
    print("word  3-gram | composed: word  3-gram  file")
    for path in sys.argv[2:]:
        pop = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", path, "-"], capture_output=True).stdout.decode("utf-8", "replace")
        view = subprocess.run([cleave, "extract", path], capture_output=True).stdout.decode("utf-8", "replace")
        pop, view = pop.replace("\f", "\n"), view.replace("\f", "\n")
        w, g = measures(pop, view)
        cw, cg = measures(compose(pop), compose(view))
        print(f"{100 * w:5.1f} {100 * g:6.1f}  |         {100 * cw:5.1f} {100 * cg:6.1f}  {path.rsplit('/', 1)[-1]}")


if __name__ == "__main__":
    main()
