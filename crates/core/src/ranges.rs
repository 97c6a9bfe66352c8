//! Exact sizes of any range of one text, in constant time plus the partial lines at the
//! range's ends.
//!
//! A BPE count is not additive, but the OpenAI pre-tokenizers always split at a clean line
//! start (see [`LineSeams::Clean`]): the size of a range is the size of its first partial
//! segment, plus a difference of prefix sizes, plus the size of its last partial segment.
//! One pre-tokenizer pass over the file builds the prefix table; every atom, piece and chunk
//! is then measured without tokenizing the text again.
//!
//! A long line (minified code, a base64 blob, a paragraph on one line) would make the partial
//! segments long, and the char splitter measures many prefixes of it: such lines get seams of
//! their own every [`WORD_SEAM_STRIDE`] bytes or so, at word seams (see [`word_seam`]).

use std::ops::Range;

use crate::sizer::{ChunkSizer, LineSeams};

/// Lines longer than this get word seams inside them. Shorter lines (nearly every line of code
/// and prose) keep their line-start seams only, so the prefix table of an ordinary file does
/// not grow.
const LONG_LINE: usize = 1024;
/// Least distance between two word seams inside a long line: a range's partial segments then
/// stay within about this many bytes, so measuring any range of a long line costs two short
/// tokenizer runs and a lookup.
const WORD_SEAM_STRIDE: usize = 64;

pub(crate) struct RangeSizes<'a, 'z> {
    text: &'a str,
    sizer: &'z dyn ChunkSizer,
    /// Seams in ascending order: positions where the size of the text splits exactly.
    seams: Vec<usize>,
    /// `before[i]`: the size of `text[..seams[i]]`.
    before: Vec<usize>,
    /// The text is ASCII and the sizer counts ASCII in bytes: a range's size is its length.
    ascii: bool,
}

impl<'a, 'z> RangeSizes<'a, 'z> {
    /// Builds the prefix table over `line_starts` (ascending, as `Source` keeps them).
    pub(crate) fn new(text: &'a str, line_starts: &[usize], sizer: &'z dyn ChunkSizer) -> Self {
        Self::with_stride(text, line_starts, sizer, LONG_LINE, WORD_SEAM_STRIDE)
    }

    /// [`Self::new`] with word seams in lines longer than `long`, `stride` bytes apart (tests
    /// use small values to put a seam at every word seam).
    pub(crate) fn with_stride(
        text: &'a str,
        line_starts: &[usize],
        sizer: &'z dyn ChunkSizer,
        long: usize,
        stride: usize,
    ) -> Self {
        let mut seams = Vec::new();
        let mut before = Vec::new();
        let ascii = sizer.ascii_is_bytes() && text.is_ascii();
        let kind = sizer.line_seams();
        if kind != LineSeams::None && !ascii {
            seams.reserve(line_starts.len() + 1);
            seams.push(0);
            let line_seams = line_starts.iter().copied().filter(|&at| {
                at > 0 && at < text.len() && (kind == LineSeams::Every || clean(text, at))
            });
            let mut last = 0;
            for at in line_seams.chain(std::iter::once(text.len())) {
                // Additive sizers split anywhere, but they measure fast too: word seams are for
                // the pre-tokenizers' long lines.
                if kind == LineSeams::Clean && at - last > long {
                    let mut c = last + stride.max(1);
                    while c < at {
                        if word_seam(text.as_bytes(), c) {
                            seams.push(c);
                            c += stride.max(1);
                        } else {
                            c += 1;
                        }
                    }
                }
                seams.push(at);
                last = at;
            }
            // One pass: the size of each segment between seams, summed.
            before.reserve(seams.len());
            let (mut last, mut total) = (0, 0);
            for &at in &seams {
                total += sizer.size(&text[last..at]);
                before.push(total);
                last = at;
            }
        }
        Self { text, sizer, seams, before, ascii }
    }

    /// The size of `text[range]`.
    pub(crate) fn size(&self, range: Range<usize>) -> usize {
        if self.ascii {
            return range.len();
        }
        self.size_after("", range)
    }

    /// The size of `head + text[range]`, `head` being a header (empty, or ending in a newline
    /// for the fast path).
    pub(crate) fn size_after(&self, head: &str, range: Range<usize>) -> usize {
        let Range { start, end } = range;
        if self.ascii {
            return self.sizer.size(head) + (end - start);
        }
        // First and last seams inside the range.
        let mut first = self.seams.partition_point(|&s| s < start);
        let last = self.seams.partition_point(|&s| s <= end);
        // The start of the text is a seam for the text alone; after a header it is one only
        // if the text starts clean.
        if first < last
            && self.seams[first] == 0
            && !head.is_empty()
            && self.sizer.line_seams() == LineSeams::Clean
            && !starts_clean(self.text)
        {
            first += 1;
        }
        let head_joins = !(head.is_empty() || head.ends_with('\n'));
        if first >= last || head_joins {
            return self.direct(head, start..end);
        }
        let (c1, c2) = (self.seams[first], self.seams[last - 1]);
        let size = self.direct(head, start..c1)
            + (self.before[last - 1] - self.before[first])
            + self.sizer.size(&self.text[c2..end]);
        debug_assert_eq!(size, self.direct(head, start..end), "{head:?} + {start}..{end}");
        size
    }

    fn direct(&self, head: &str, range: Range<usize>) -> usize {
        let body = &self.text[range];
        if head.is_empty() {
            self.sizer.size(body)
        } else if body.is_empty() {
            self.sizer.size(head)
        } else if head.ends_with('\n')
            && match self.sizer.line_seams() {
                LineSeams::Every => true,
                LineSeams::Clean => starts_clean(body),
                LineSeams::None => false,
            }
        {
            self.sizer.size(head) + self.sizer.size(body)
        } else {
            let mut s = String::with_capacity(head.len() + body.len());
            s.push_str(head);
            s.push_str(body);
            self.sizer.size(&s)
        }
    }
}

/// Whether the line starting at `at` (just after a line break) starts clean: neither `/` nor a
/// run of white space that holds a line break. The OpenAI pre-tokenizers end a pre-token there
/// whatever comes before (a pre-token holding the line break before `at` can only go on with
/// line breaks, or with `/` after punctuation), and the pre-tokens after it do not depend on
/// what precedes. Their patterns treat `\r` and `\n` alike (`[\r\n]`, `\s`), so a line that
/// ends in a lone `\r` (classic Mac OS) ends at a seam just as one ending in `\n` does; the
/// position between `\r` and `\n` is no line start and never starts clean.
pub(crate) fn clean(text: &str, at: usize) -> bool {
    at > 0 && matches!(text.as_bytes()[at - 1], b'\n' | b'\r') && starts_clean(&text[at..])
}

/// Whether the OpenAI pre-tokenizers always split at `at`, inside a line, whatever text comes
/// before it (or a header ending in a newline): between an ASCII letter and an ASCII digit
/// either way, or before a space that follows a printable ASCII char and precedes one.
///
/// No pre-token can hold a letter and a digit (letter runs, digit runs of up to three, and
/// punctuation runs exclude both), and none can hold a printable char and the space after it
/// (letter, digit and punctuation runs hold no white space; a punctuation run only goes on with
/// line breaks and `/`). The pre-tokens from `at` on depend only on the text from `at`: the
/// patterns look behind nothing, and a space followed by a printable char holds no line break,
/// so a newline before it (a header's) ends its own pre-token too, as at a clean line start.
fn word_seam(bytes: &[u8], at: usize) -> bool {
    let (Some(&before), Some(&here)) =
        (at.checked_sub(1).and_then(|i| bytes.get(i)), bytes.get(at))
    else {
        return false;
    };
    (before.is_ascii_alphabetic() && here.is_ascii_digit())
        || (before.is_ascii_digit() && here.is_ascii_alphabetic())
        || (here == b' '
            && before.is_ascii_graphic()
            && bytes.get(at + 1).is_some_and(u8::is_ascii_graphic))
}

fn starts_clean(rest: &str) -> bool {
    if rest.starts_with('/') {
        return false;
    }
    for c in rest.chars() {
        if c == '\n' || c == '\r' {
            return false;
        }
        if !c.is_whitespace() {
            return true;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizer::{Tokenizer, Unit};
    use crate::text::Source;

    const TEXTS: &[&str] = &[
        "fn main() {\n    let x = 1;\n\n    println!(\"{x}\");\n}\n// done\n\n\n/// doc\npub fn f() {}\n",
        "def f(x):\n  \n    return x  \n\n\nclass A:\n\tpass\r\n\r\n  # comment\n",
        "Ünïcödé — 文字 🎉\n  emoji\n\u{a0}\u{2028}x\n123456789\n'''s\n\n  \n\t\n}\n//\n/*\n */\n",
        "no newline at all",
        "a1b22c333 x, y.z;w 4d/e 'f 9 g\t5 h  i j's k'S7 l'LL8 m\u{a0}n 中1文a2 \u{300}3 é4 5é",
        "classic\rMac  \r\rtext\r /x\r\t\ry'all\r\n\rmixed\n\rend\r",
        "\n\n\n   \n",
    ];

    #[test]
    fn every_range_measures_as_its_text() {
        for unit in [
            Unit::Tokens(Tokenizer::O200k),
            Unit::Tokens(Tokenizer::Cl100k),
            Unit::Chars,
            Unit::Bytes,
            Unit::Estimate,
        ] {
            let sizer = unit.sizer();
            for (text, (long, stride)) in
                TEXTS.iter().flat_map(|t| [(t, (LONG_LINE, WORD_SEAM_STRIDE)), (t, (0, 1))])
            {
                let source = Source::new("t", text);
                let sizes =
                    RangeSizes::with_stride(text, source.line_starts(), sizer, long, stride);
                let cuts: Vec<usize> =
                    (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
                for (i, &a) in cuts.iter().enumerate() {
                    for &b in &cuts[i..] {
                        for head in ["", "// src/x.rs\n// in impl A\n"] {
                            let whole = format!("{head}{}", &text[a..b]);
                            assert_eq!(
                                sizes.size_after(head, a..b),
                                sizer.size(&whole),
                                "{unit} {head:?} + {:?}",
                                &text[a..b]
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn long_lines_get_word_seams() {
        let line = "abc1 xyz ".repeat(300);
        let text = format!("{line}\nshort 1a\n");
        let source = Source::new("t", &text);
        let sizer = Unit::Tokens(Tokenizer::O200k).sizer();
        let sizes = RangeSizes::new(&text, source.line_starts(), sizer);
        assert!(sizes.seams.len() > line.len() / WORD_SEAM_STRIDE / 2, "{}", sizes.seams.len());
        assert!(sizes.seams.windows(2).all(|w| w[0] < w[1]), "ascending, no repeats");
        let inner = sizes.seams.iter().filter(|&&s| s > line.len()).count();
        assert_eq!(inner, 2, "a short line keeps its line start only (and the end)");
        assert_eq!(sizes.size(0..text.len()), sizer.size(&text));
        assert_eq!(sizes.size(3..2000), sizer.size(&text[3..2000]));
    }

    #[test]
    fn clean_line_starts() {
        let text = "a\nb\n\nc\n  d\n  \ne\n/f\n";
        let clean: Vec<usize> = (0..text.len()).filter(|&i| clean(text, i)).collect();
        // `b`, `c`, `  d`, `e`; not the blank line, not `  ` before a line break, not `/f`.
        assert_eq!(clean, vec![2, 5, 7, 14]);
        let text = "a\rb\r\rc\r\nd";
        let starts: Vec<usize> = (0..text.len()).filter(|&i| super::clean(text, i)).collect();
        // `b`, `c`, `d`; not the blank line, not between `\r` and `\n`.
        assert_eq!(starts, vec![2, 5, 8]);
    }
}
