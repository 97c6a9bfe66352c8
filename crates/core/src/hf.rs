//! Budgets counted by a Hugging Face tokenizer: a local `tokenizer.json`, loaded with the
//! `tokenizers` crate (pure Rust: `fancy-regex`, no C build, no download). Behind the
//! `hf-tokenizers` feature.

use std::fmt;
use std::path::Path;

use crate::config::ConfigError;
use crate::sizer::ChunkSizer;

/// Text the tokenizer must encode when loaded: words, punctuation, digits, white space of every
/// kind and chars of several widths. A tokenizer that fails on it is refused at configuration
/// time, so that packing never meets a tokenizer error.
const PROBE: &str = "Hello, world! fn f(x: u32) -> u32 { x }\n\tdef g():\r\n  42 é ☃ 𝄞 文字\n";

/// Counts tokens as a Hugging Face tokenizer does, without special tokens (`[CLS]`, `<s>`):
/// the budget bounds the chunk's own text, and what a model adds around it is the caller's.
///
/// Truncation and padding set in the file are turned off: a count must never be cut short at
/// the model's length nor padded up to it. Nothing is assumed of the tokenizer (normalizers
/// and pre-tokenizers vary), so the packer measures every chunk whole: it is not additive and
/// has no known seams.
pub struct HfTokenizer {
    tokenizer: tokenizers::Tokenizer,
    name: String,
}

impl HfTokenizer {
    /// Loads `tokenizer.json` from `path`.
    ///
    /// The name also carries a hash of the file's bytes (`hf:PATH@1a2b3c4d`), so that whatever
    /// is keyed by the sizer's name (a cache) tells two versions of one file apart.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let json = std::fs::read(path)
            .map_err(|e| ConfigError::Sizer { name: shown.clone(), reason: e.to_string() })?;
        let hash = xxhash_rust::xxh3::xxh3_64(&json) >> 32;
        Self::from_bytes(&format!("{shown}@{hash:08x}"), &json)
    }

    /// Loads a tokenizer from the bytes of a `tokenizer.json`; `name` says where they come
    /// from (its name in reports is `hf:NAME`).
    pub fn from_bytes(name: &str, json: &[u8]) -> Result<Self, ConfigError> {
        let tokenizer = tokenizers::Tokenizer::from_bytes(json)
            .map_err(|e| ConfigError::Sizer { name: name.to_owned(), reason: e.to_string() })?;
        Self::ready(tokenizer, name.to_owned())
    }

    fn ready(mut tokenizer: tokenizers::Tokenizer, name: String) -> Result<Self, ConfigError> {
        let refuse =
            |e: tokenizers::Error| ConfigError::Sizer { name: name.clone(), reason: e.to_string() };
        tokenizer.with_truncation(None).map_err(refuse)?;
        tokenizer.with_padding(None);
        tokenizer.encode_fast(PROBE, false).map_err(refuse)?;
        Ok(Self { tokenizer, name: format!("hf:{name}") })
    }
}

impl ChunkSizer for HfTokenizer {
    fn size(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        // The probe at load time makes an error here unlikely; should one happen all the same,
        // the byte length is the count of a byte-level tokenizer that merged nothing, which no
        // tokenizer without an expanding normalizer exceeds.
        self.tokenizer.encode_fast(text, false).map_or(text.len(), |enc| enc.len())
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

impl fmt::Debug for HfTokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HfTokenizer").field("name", &self.name).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::atom::{Atom, AtomKind, AtomLabel, AtomTree, Boundary, CommentStyle, ContentKind};
    use crate::check::check_invariants;
    use crate::config::ChunkConfig;
    use crate::pack::pack;
    use crate::plain::atomize_blocks;
    use crate::text::Source;

    /// A WordLevel tokenizer written by hand: a `Whitespace` pre-tokenizer (`\w+|[^\w\s]+`), a
    /// small vocabulary with `[UNK]`, and, to be turned off, truncation at 8, padding to 16 and
    /// BERT's `[CLS]`/`[SEP]`.
    fn fixture() -> HfTokenizer {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/wordlevel-tokenizer.json");
        HfTokenizer::from_file(path).unwrap()
    }

    /// The fixture's count, by hand: one token per run of word chars and per run of other
    /// chars that are not white space.
    fn runs(text: &str) -> usize {
        let class = |c: char| {
            if c.is_whitespace() {
                0
            } else if c.is_alphanumeric() || c == '_' {
                1
            } else {
                2
            }
        };
        let mut prev = 0;
        let mut n = 0;
        for c in text.chars() {
            let k = class(c);
            if k != 0 && k != prev {
                n += 1;
            }
            prev = k;
        }
        n
    }

    const TEXTS: &[&str] = &[
        "",
        "fn",
        "the cat sat on the mat, and the dog (a big one) did not.",
        "def f(self, x):\n    return x + 1  # é ☃ done\r\n\n",
        "one two three four five six seven eight nine ten eleven twelve thirteen",
    ];

    #[test]
    fn counts_words_without_truncation_padding_or_special_tokens() {
        let hf = fixture();
        for text in TEXTS {
            assert_eq!(hf.size(text), runs(text), "{text:?}");
        }
        assert_eq!(hf.size(TEXTS[4]), 13, "not truncated at 8");
        assert_eq!(hf.size("fn"), 1, "neither padded to 16 nor given [CLS] and [SEP]");
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/wordlevel-tokenizer.json");
        // The name carries the path and a hash of the file's bytes (8 hex digits).
        let name = hf.name();
        let hash = name.strip_prefix(&format!("hf:{path}@")).expect("path and hash");
        assert!(hash.len() == 8 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{name}");
        assert!(!hf.is_additive());
    }

    #[test]
    fn bad_files_are_refused_when_loaded() {
        let err = HfTokenizer::from_file("/nonexistent/tokenizer.json").unwrap_err();
        assert!(matches!(err, ConfigError::Sizer { .. }), "{err}");
        assert!(err.to_string().starts_with("cannot load the sizer /nonexistent/tokenizer.json"));
        let err = HfTokenizer::from_bytes("inline", b"{\"model\": 1}").unwrap_err();
        assert!(err.to_string().starts_with("cannot load the sizer inline: "), "{err}");
        let json = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/wordlevel-tokenizer.json"
        ))
        .unwrap();
        assert_eq!(HfTokenizer::from_bytes("inline", &json).unwrap().name(), "hf:inline");
    }

    /// A small module: an impl with methods of statements, blank lines between items.
    fn code() -> (String, Atom) {
        let mut text = String::new();
        let mut items = Vec::new();
        for i in 0..6 {
            let start = text.len();
            text.push_str(&format!("class Item{i}:\n"));
            let mut methods = vec![Atom::gap(start..text.len())];
            for j in 0..5 {
                let m = text.len();
                text.push_str(&format!("    def method_{j}(self, x, y):\n"));
                let mut stmts = vec![Atom::gap(m..text.len())];
                for k in 0..4 {
                    let s = text.len();
                    text.push_str(&format!("        x = x + y * {k} - self.f(x, {j})\n"));
                    stmts.push(
                        Atom::new(AtomKind::Block, s..text.len())
                            .with_boundary(Boundary::Statement),
                    );
                }
                methods.push(
                    Atom::new(AtomKind::Symbol, m..text.len())
                        .with_scope(true)
                        .with_boundary(Boundary::Member)
                        .with_label(AtomLabel {
                            label: format!("def method_{j}"),
                            name: Some(format!("method_{j}")),
                            signature: Some(format!("def method_{j}(self, x, y):")),
                        })
                        .with_children(stmts),
                );
            }
            items.push(
                Atom::new(AtomKind::Symbol, start..text.len())
                    .with_scope(true)
                    .with_boundary(Boundary::Item)
                    .with_label(AtomLabel {
                        label: format!("class Item{i}"),
                        name: Some(format!("Item{i}")),
                        signature: None,
                    })
                    .with_children(methods),
            );
            let blank = text.len();
            text.push('\n');
            items.push(Atom::gap(blank..text.len()).with_boundary(Boundary::Item));
        }
        let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(items);
        (text, root)
    }

    #[test]
    fn chunks_fit_budgets_counted_by_the_tokenizer() {
        let sizer: Arc<dyn ChunkSizer> = Arc::new(fixture());
        let (code, root) = code();
        let mut code_tree = AtomTree::new("python", ContentKind::Code, root);
        code_tree.comment = CommentStyle::line("#");
        code_tree.context = vec!["imports: os, sys".to_owned()];
        let prose: String = (0..40)
            .map(|i| {
                format!("Paragraph {i} says the same thing, and then (again) it says more.\n\n")
            })
            .collect();
        let prose_tree = atomize_blocks(&prose, "text", ContentKind::Prose);
        let blob = "x".repeat(3000) + " tail of words\n";
        let blob_tree = atomize_blocks(&blob, "text", ContentKind::Prose);
        for (path, text, tree) in [
            ("src/items.py", code.as_str(), &code_tree),
            ("notes.txt", prose.as_str(), &prose_tree),
            ("blob.txt", blob.as_str(), &blob_tree),
        ] {
            let source = Source::new(path, text);
            for budget in [32, 40, 64, 120, 400] {
                for (overlap, headers) in [(0, true), (0, false), (budget / 4, true)] {
                    let config = ChunkConfig::from_sizer(budget, Arc::clone(&sizer))
                        .unwrap()
                        .with_overlap(overlap)
                        .unwrap()
                        .with_headers(headers);
                    let chunks = pack(&source, tree, &config);
                    let errors = check_invariants(&source, tree, &chunks, &config);
                    assert!(errors.is_empty(), "{path} {budget} {overlap}: {errors:#?}");
                    for c in &chunks {
                        assert_eq!(c.tokens, runs(&c.rendered()), "{path} {budget}: {c:?}");
                        assert!(c.tokens <= budget);
                    }
                    if overlap == 0 && budget >= 120 {
                        // Chunks are filled by the tokenizer's count (about half full at
                        // least, once the budget holds several statements), not by a count of
                        // bytes or chars.
                        let most = runs(text) / (budget / 2) + 2;
                        assert!(chunks.len() <= most, "{path} {budget}: {} chunks", chunks.len());
                    }
                }
            }
        }
    }
}
