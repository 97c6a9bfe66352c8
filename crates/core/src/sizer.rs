//! Sizers: how the budget is counted. Bytes, chars, BPE tokens and a cheap estimate share one
//! small trait.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use foldhash::fast::FixedState;

use crate::pretok::ascii_pieces;
use crate::text::count_chars;

/// Measures text in one unit.
///
/// Byte and char sizes are additive: the size of a concatenation is the sum of the sizes. Token
/// counts are not (a BPE merges across the seam), but they split exactly at some line starts
/// ([`ChunkSizer::line_seams`]), which lets the packer size any range from one pass per file and
/// measure every finished chunk exactly.
///
/// A sizer of the caller's (see `ChunkConfig::from_sizer`) needs only [`ChunkSizer::size`] and
/// [`ChunkSizer::name`]: the other methods default to the answers that are always safe (not
/// additive, no known seams), under which the packer measures every chunk whole.
pub trait ChunkSizer: Send + Sync {
    /// The size of `text` in this sizer's unit.
    fn size(&self, text: &str) -> usize;

    /// The name of the unit in reports and configurations: `chars`, `tokens:o200k`, `hf:PATH`.
    fn name(&self) -> String;

    /// Whether `size(text) > cap`. A sizer that can tell without measuring all of a long text
    /// says so here: the packer asks this of every candidate header, and a header can repeat
    /// kilobytes (a table's head row, a heading of garbage) where the cap is a few dozen units.
    fn exceeds(&self, text: &str, cap: usize) -> bool {
        self.size(text) > cap
    }

    /// Whether `size(a + b) == size(a) + size(b)` for all `a`, `b`.
    fn is_additive(&self) -> bool {
        false
    }

    /// Where sizes split exactly: `size(a + b) == size(a) + size(b)` for every `b` starting
    /// at such a seam after an `a` that ends in a newline.
    fn line_seams(&self) -> LineSeams {
        if self.is_additive() { LineSeams::Every } else { LineSeams::None }
    }

    /// Whether ASCII text measures its length in bytes, additively (bytes, chars): a range of
    /// an ASCII file then needs no counting at all.
    fn ascii_is_bytes(&self) -> bool {
        false
    }

    /// The largest size one Unicode scalar value can have. Budgets are validated against it,
    /// so that a body can always hold a char. Four fits every byte-level tokenizer (a char is
    /// at most four UTF-8 bytes, and none spends more than a token per byte).
    fn max_char_size(&self) -> usize {
        4
    }
}

/// Which line starts split a size exactly (see [`ChunkSizer::line_seams`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineSeams {
    /// Every position does (bytes, chars).
    Every,
    /// Clean line starts do: after a line break (`\n`, `\r\n` or a lone `\r`), where no blank
    /// line and no `/` follows. That is where the OpenAI pre-tokenizers always split, whatever
    /// precedes.
    Clean,
    /// None is known to.
    None,
}

/// A BPE vocabulary shipped inside the binary (no download).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Tokenizer {
    /// OpenAI's `o200k_base` (GPT-4o and later).
    #[default]
    O200k,
    /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5).
    Cl100k,
}

impl Tokenizer {
    fn bpe(self) -> &'static bpe_openai::Tokenizer {
        match self {
            Tokenizer::O200k => bpe_openai::o200k_base(),
            Tokenizer::Cl100k => bpe_openai::cl100k_base(),
        }
    }

    /// The short name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::O200k => "o200k",
            Tokenizer::Cl100k => "cl100k",
        }
    }
}

impl FromStr for Tokenizer {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "o200k" | "o200k_base" => Ok(Tokenizer::O200k),
            "cl100k" | "cl100k_base" => Ok(Tokenizer::Cl100k),
            _ => Err(format!("unknown tokenizer `{s}` (expected o200k or cl100k)")),
        }
    }
}

/// The unit a budget is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unit {
    /// UTF-8 bytes.
    Bytes,
    /// Unicode scalar values, the way Python's `len` counts.
    Chars,
    /// BPE tokens of a real vocabulary.
    Tokens(Tokenizer),
    /// A cheap token estimate: one token per four bytes, rounded up.
    Estimate,
}

impl Unit {
    /// The sizer for this unit. The BPE tables load once per process, on first use.
    pub fn sizer(self) -> &'static dyn ChunkSizer {
        match self {
            Unit::Bytes => &Bytes,
            Unit::Chars => &Chars,
            Unit::Tokens(Tokenizer::O200k) => &Tokens(Tokenizer::O200k),
            Unit::Tokens(Tokenizer::Cl100k) => &Tokens(Tokenizer::Cl100k),
            Unit::Estimate => &Estimate,
        }
    }

    /// The largest size one Unicode scalar value can have in this unit. Budgets are validated
    /// against it, so a body can always hold at least one char.
    pub fn max_char_size(self) -> usize {
        self.sizer().max_char_size()
    }

    /// The name used in reports, e.g. `chars` or `tokens:o200k`.
    pub fn name(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Bytes => f.write_str("bytes"),
            Unit::Chars => f.write_str("chars"),
            Unit::Tokens(t) => write!(f, "tokens:{}", t.name()),
            Unit::Estimate => f.write_str("estimate"),
        }
    }
}

/// Counts UTF-8 bytes.
#[derive(Debug, Clone, Copy)]
pub struct Bytes;

impl ChunkSizer for Bytes {
    fn size(&self, text: &str) -> usize {
        text.len()
    }
    fn name(&self) -> String {
        Unit::Bytes.to_string()
    }
    fn is_additive(&self) -> bool {
        true
    }
    fn ascii_is_bytes(&self) -> bool {
        true
    }
}

/// Counts Unicode scalar values.
#[derive(Debug, Clone, Copy)]
pub struct Chars;

impl ChunkSizer for Chars {
    fn size(&self, text: &str) -> usize {
        count_chars(text.as_bytes())
    }
    fn name(&self) -> String {
        Unit::Chars.to_string()
    }
    fn max_char_size(&self) -> usize {
        1
    }
    fn is_additive(&self) -> bool {
        true
    }
    fn ascii_is_bytes(&self) -> bool {
        true
    }
}

/// Counts BPE tokens exactly as the model's tokenizer would.
#[derive(Debug, Clone, Copy)]
pub struct Tokens(pub Tokenizer);

/// Pre-tokens longer than this are counted without the cache: they are rare and seldom repeat.
const CACHED_PIECE_MAX: usize = 48;
/// The cache is emptied when it holds this many pre-tokens, which bounds its memory (about
/// 2 MB per thread): identifiers and keywords of one language fit many times over.
const CACHE_MAX_ENTRIES: usize = 1 << 15;

thread_local! {
    /// Token counts of pre-tokens, per tokenizer, per thread. Source code repeats the same
    /// identifiers, keywords and indentation runs all the time; counting a pre-token is a BPE
    /// run with allocations, looking it up is a hash.
    static PIECE_COUNTS: RefCell<[HashMap<Box<str>, u32, FixedState>; 2]> = const {
        RefCell::new([
            HashMap::with_hasher(FixedState::with_seed(0)),
            HashMap::with_hasher(FixedState::with_seed(0)),
        ])
    };
}

impl Tokens {
    /// The token count of `text`, or of a prefix of its pre-tokens once that is past `limit`:
    /// the count is the sum of the pre-tokens' counts, so a partial sum past the limit proves
    /// the whole is.
    fn count_upto(&self, text: &str, limit: usize) -> usize {
        if text.is_empty() {
            return 0;
        }
        let tokenizer = self.0.bpe();
        PIECE_COUNTS.with(|cache| {
            let mut cache = cache.borrow_mut();
            let counts = &mut cache[self.0 as usize];
            if counts.len() > CACHE_MAX_ENTRIES {
                counts.clear();
            }
            let mut count = |piece: &str| -> usize {
                if piece.len() > CACHED_PIECE_MAX {
                    return tokenizer.bpe.count(piece.as_bytes());
                }
                if let Some(&n) = counts.get(piece) {
                    return n as usize;
                }
                let n = tokenizer.bpe.count(piece.as_bytes());
                counts.insert(piece.into(), n as u32);
                n
            };
            let mut total = 0;
            let mut add = |piece: &str| {
                total += count(piece);
                total <= limit
            };
            if text.is_ascii() {
                for piece in ascii_pieces(text, self.0 == Tokenizer::O200k) {
                    if !add(piece) {
                        break;
                    }
                }
            } else {
                for piece in tokenizer.split(text) {
                    if !add(piece) {
                        break;
                    }
                }
            }
            total
        })
    }
}

impl ChunkSizer for Tokens {
    /// The same count as `bpe_openai::Tokenizer::count` (the sum of the counts of the text's
    /// pre-tokens; the OpenAI vocabularies need no normalisation), with pre-token counts cached
    /// and ASCII text pre-tokenized without a regex.
    fn size(&self, text: &str) -> usize {
        self.count_upto(text, usize::MAX)
    }

    /// Counts pre-tokens only until the count passes `cap`.
    fn exceeds(&self, text: &str, cap: usize) -> bool {
        self.count_upto(text, cap) > cap
    }

    fn name(&self) -> String {
        Unit::Tokens(self.0).to_string()
    }

    fn is_additive(&self) -> bool {
        false
    }

    fn line_seams(&self) -> LineSeams {
        LineSeams::Clean
    }
}

/// Estimates tokens as bytes / 4, rounded up. Fast, and never the truth.
#[derive(Debug, Clone, Copy)]
pub struct Estimate;

impl ChunkSizer for Estimate {
    fn size(&self, text: &str) -> usize {
        text.len().div_ceil(4)
    }
    fn name(&self) -> String {
        Unit::Estimate.to_string()
    }
    fn is_additive(&self) -> bool {
        false
    }
    fn max_char_size(&self) -> usize {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_measure() {
        let s = "héllo wörld";
        assert_eq!(Unit::Bytes.sizer().size(s), 13);
        assert_eq!(Unit::Chars.sizer().size(s), 11);
        assert_eq!(Unit::Estimate.sizer().size(s), 4);
        let t = Unit::Tokens(Tokenizer::O200k).sizer().size("hello world");
        assert_eq!(t, 2);
        let t = Unit::Tokens(Tokenizer::Cl100k).sizer().size("hello world");
        assert_eq!(t, 2);
        assert_eq!(Unit::Tokens(Tokenizer::O200k).sizer().size(""), 0);
    }

    #[test]
    fn cached_counts_equal_the_tokenizers_own() {
        let texts = [
            "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n",
            "    \n\n\t  mixed   whitespace\r\n and 'quotes' don't ",
            "Ünïcödé — 文字 🎉 emoji and numbers 1234567 3.14159",
            &"a".repeat(300),
        ];
        for tokenizer in [Tokenizer::O200k, Tokenizer::Cl100k] {
            for _ in 0..2 {
                for text in texts {
                    assert_eq!(
                        Tokens(tokenizer).size(text),
                        tokenizer.bpe().count(text),
                        "{text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn exceeds_answers_as_the_whole_count_would() {
        let texts = [
            "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n".repeat(20),
            "Ünïcödé — 文字 🎉 emoji and numbers 1234567 3.14159 ".repeat(30),
            format!("<!-- | {} | -->\n", "column | ".repeat(300)),
            String::new(),
        ];
        for tokenizer in [Tokenizer::O200k, Tokenizer::Cl100k] {
            let sizer = Tokens(tokenizer);
            for text in &texts {
                let size = sizer.size(text);
                for cap in [0, 1, 2, 7, size.saturating_sub(1), size, size + 1, 10 * size + 3] {
                    assert_eq!(
                        sizer.exceeds(text, cap),
                        size > cap,
                        "{tokenizer:?} {cap} {text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_char_never_exceeds_its_bound() {
        for unit in [Unit::Bytes, Unit::Chars, Unit::Estimate, Unit::Tokens(Tokenizer::O200k)] {
            for c in ['a', 'é', '☃', '𝄞', '\u{10FFFF}', '鬱'] {
                let s = c.to_string();
                assert!(unit.sizer().size(&s) <= unit.max_char_size(), "{unit} {c:?}");
            }
        }
    }

    #[test]
    fn sizers_name_their_units() {
        for unit in [
            Unit::Bytes,
            Unit::Chars,
            Unit::Estimate,
            Unit::Tokens(Tokenizer::O200k),
            Unit::Tokens(Tokenizer::Cl100k),
        ] {
            assert_eq!(unit.sizer().name(), unit.name());
        }
        assert_eq!(Unit::Chars.max_char_size(), 1);
        assert_eq!(Unit::Bytes.max_char_size(), 4);
        assert_eq!(Unit::Estimate.max_char_size(), 1);
        assert_eq!(Unit::Tokens(Tokenizer::O200k).max_char_size(), 4);
    }

    #[test]
    fn unit_names() {
        assert_eq!(Unit::Tokens(Tokenizer::Cl100k).to_string(), "tokens:cl100k");
        assert_eq!("o200k_base".parse::<Tokenizer>(), Ok(Tokenizer::O200k));
        assert!("gpt2".parse::<Tokenizer>().is_err());
    }
}
