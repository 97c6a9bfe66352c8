//! Terms for ranking: the words of a text as selection matches them (identifiers split,
//! Snowball-stemmed, stop words out), and each chunk's weighted term frequencies over its
//! fields, computed once per chunk and kept with its file.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use cleave_core::{Chunk, ContentKind};
use rust_stemmers::{Algorithm, Stemmer};

/// The words of a text for matching: lower-case runs of letters and digits, identifiers also
/// split at `_` and at camelCase humps (the whole identifier is kept too), stop words out.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if raw.is_empty() {
            continue;
        }
        let whole = raw.to_lowercase();
        let mut parts = Vec::new();
        for piece in raw.split('_').filter(|p| !p.is_empty()) {
            let mut start = 0;
            let chars: Vec<(usize, char)> = piece.char_indices().collect();
            for w in 1..chars.len() {
                let (at, c) = chars[w];
                let prev = chars[w - 1].1;
                let next_lower = chars.get(w + 1).is_some_and(|(_, n)| n.is_lowercase());
                if c.is_uppercase()
                    && (prev.is_lowercase()
                        || prev.is_ascii_digit()
                        || prev.is_uppercase() && next_lower)
                {
                    parts.push(piece[start..at].to_lowercase());
                    start = at;
                }
            }
            parts.push(piece[start..].to_lowercase());
        }
        let split = parts.len() > 1;
        for p in parts {
            if !is_stop(&p) && p.chars().count() > 1 {
                out.push(stem(&p));
            }
        }
        if split && !is_stop(&whole) {
            out.push(whole);
        }
    }
    out
}

/// The English Snowball (Porter2) stemmer, built once.
static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// A word's stem, so that "chunks" meets "chunk", "parsing" meets "parse", "files" meets "file"
/// and "equality" meets "equal". A suffix strip of our own made "files" into "fil", "typed"
/// into "typ" and "logging" into "logg", which met nothing.
fn stem(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

/// English stop words, sorted (a test checks it).
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for",
    "from", "has", "have", "how", "if", "in", "into", "is", "it", "its", "of", "on", "or", "our",
    "should", "so", "that", "the", "their", "them", "then", "there", "these", "this", "to", "was",
    "we", "what", "when", "where", "which", "who", "why", "will", "with", "would", "you",
];

fn is_stop(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Fields of a chunk and their weights in BM25F.
const FIELDS: [(Field, f64); 4] =
    [(Field::Body, 1.0), (Field::Header, 1.5), (Field::Symbols, 2.5), (Field::Section, 2.5)];

#[derive(Clone, Copy)]
enum Field {
    Body,
    Header,
    Symbols,
    Section,
}

fn field_text(chunk: &Chunk, field: Field) -> String {
    match field {
        Field::Body if chunk.kind != ContentKind::Code => prose_words(&chunk.text).into_owned(),
        Field::Body => chunk.text.clone(),
        Field::Header => format!("{} {}", chunk.path, chunk.scope.join(" ")),
        Field::Symbols => chunk.symbols.join(" "),
        Field::Section => {
            chunk.provenance.as_ref().map(|p| p.section.join(" ")).unwrap_or_default()
        }
    }
}

/// The words of a prose body, without what is markup rather than content: the destination and
/// title of a Markdown link or image (`[text](url "title")` reads as `[text]`; a decoded HTML
/// page repeats a link's title on every mention, and those words outranked the text), and the
/// backslash of an escaped punctuation mark (`lru\_cache` is the identifier `lru_cache`).
fn prose_words(text: &str) -> Cow<'_, str> {
    if !text.contains("](") && !text.contains('\\') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if bytes.get(at + 1).is_some_and(u8::is_ascii_punctuation) => {
                out.push_str(&text[kept..at]);
                kept = at + 1;
                at += 2;
            }
            b']' if bytes.get(at + 1) == Some(&b'(') => match link_destination_end(bytes, at + 1) {
                Some(end) => {
                    out.push_str(&text[kept..=at]);
                    kept = end;
                    at = end;
                }
                None => at += 1,
            },
            _ => at += 1,
        }
    }
    out.push_str(&text[kept..]);
    Cow::Owned(out)
}

/// Where a link's `(destination "title")` that opens at `open` ends (past its `)`), if it is
/// one: balanced parentheses, on one line, at most 2 KiB.
fn link_destination_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quoted = false;
    for (i, &b) in bytes.iter().enumerate().skip(open).take(2048) {
        match b {
            b'\n' => return None,
            b'"' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The weighted term frequencies of one chunk over its fields, and its weighted length: what
/// BM25F needs of a chunk, whatever the query. Terms are kept as 64-bit hashes in one sorted
/// array beside their frequencies: a query looks up a handful of terms in every chunk of a
/// root, and contiguous integers make that lookup cheap where boxed strings missed the cache on
/// every probe. (Two terms sharing a hash would share a frequency; at 64 bits, among the terms
/// of one chunk, that does not happen in practice.)
#[derive(Debug, Clone, Default)]
pub struct ChunkTerms {
    hashes: Box<[u64]>,
    tfs: Box<[f32]>,
    len: f32,
}

/// The hash a term is kept and looked up by.
pub(crate) fn term_hash(term: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(term.as_bytes())
}

impl ChunkTerms {
    pub(crate) fn of(chunk: &Chunk) -> Self {
        let mut tf: HashMap<u64, f32> = HashMap::new();
        let mut len = 0.0f32;
        for (field, w) in FIELDS {
            let w = w as f32;
            for t in terms(&field_text(chunk, field)) {
                len += w;
                *tf.entry(term_hash(&t)).or_insert(0.0) += w;
            }
        }
        let mut pairs: Vec<(u64, f32)> = tf.into_iter().collect();
        pairs.sort_unstable_by_key(|p| p.0);
        Self {
            hashes: pairs.iter().map(|p| p.0).collect(),
            tfs: pairs.iter().map(|p| p.1).collect(),
            len,
        }
    }

    /// The chunk's weighted length over its fields.
    pub(crate) fn len(&self) -> f32 {
        self.len
    }

    /// Its terms' hashes, sorted, beside their weighted frequencies.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (u64, f32)> + '_ {
        self.hashes.iter().copied().zip(self.tfs.iter().copied())
    }

    /// A chunk's statistics as [`ChunkTerms::pairs`] and [`ChunkTerms::len`] gave them.
    pub(crate) fn from_parts(hashes: Vec<u64>, tfs: Vec<f32>, len: f32) -> Option<Self> {
        let sorted = hashes.windows(2).all(|w| w[0] < w[1]);
        (sorted && hashes.len() == tfs.len()).then(|| Self {
            hashes: hashes.into(),
            tfs: tfs.into(),
            len,
        })
    }

    /// The weighted frequency of the term hashed as `hash` (see [`term_hash`]), if the chunk
    /// holds it.
    pub(crate) fn tf(&self, hash: u64) -> Option<f32> {
        self.hashes.binary_search(&hash).ok().map(|i| self.tfs[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn identifiers_split_and_stay_whole() {
        assert_eq!(terms("parseHTTPRequest"), ["pars", "http", "request", "parsehttprequest"]);
        assert_eq!(terms("max_file_size"), ["max", "file", "size", "max_file_size"]);
        assert_eq!(terms("What is the chunks budget?"), ["chunk", "budget"]);
    }

    #[test]
    fn words_meet_their_stems() {
        assert_eq!(terms("files typed logging equality"), ["file", "type", "log", "equal"]);
        assert_eq!(terms("file types logs equal"), ["file", "type", "log", "equal"]);
    }

    #[test]
    fn link_destinations_are_not_prose_words() {
        assert_eq!(
            prose_words(
                r#"see [`lru_cache`](#functools.lru_cache "functools.lru_cache") and (this)"#
            ),
            "see [`lru_cache`] and (this)"
        );
        assert_eq!(prose_words(r"the lru\_cache \[x\]"), "the lru_cache [x]");
        assert_eq!(prose_words("[a](b(c)d) e"), "[a] e");
        // Not a link: left as it is.
        assert_eq!(prose_words("f[i](x\n) y"), "f[i](x\n) y");
        assert_eq!(prose_words("no links here"), "no links here");
    }

    #[test]
    fn chunk_terms_weigh_fields() {
        let chunk = cleave_core::Chunk {
            id: "x".into(),
            path: "src/parse.rs".into(),
            language: "rust".into(),
            kind: cleave_core::ContentKind::Code,
            byte_start: 0,
            byte_end: 10,
            line_start: 1,
            line_end: 1,
            tokens: 10,
            symbols: vec!["parse".into()],
            scope: Vec::new(),
            part: None,
            provenance: None,
            classification: None,
            header: String::new(),
            text: "fn parse() {}".into(),
        };
        let t = ChunkTerms::of(&chunk);
        // Body (1.0) + header path (1.5) + symbols (2.5).
        assert_eq!(t.tf(term_hash(&stem("parse"))), Some(5.0));
        assert_eq!(t.tf(term_hash("missing")), None);
        assert!(t.len() >= 5.0);
    }
}
