//! Shared pieces of cleave's fuzz targets: how an input's first bytes become a
//! [`ChunkConfig`], and the one check every target ends with.
//!
//! Every target reads its input the same way: a few leading bytes choose the options of the
//! run (see [`Options::parse`]), a target may take one more byte of its own (a language, a
//! format), and the rest is the text (or, for the packer, the raw material of an atom tree). Keeping the layout in one place means a seed written for one target reads
//! the same way in another, and a crash file can be decoded by hand.

#![deny(missing_docs)]

pub mod prose;

use cleave_core::{AtomTree, Chunk, ChunkConfig, Tokenizer, Unit, check_chunks, check_invariants};

/// How many leading bytes [`Options::parse`] consumes.
pub const OPTION_BYTES: usize = 4;

/// The largest budget a fuzz input can ask for. Larger budgets only make every input one
/// chunk, which exercises nothing the smaller ones do not.
pub const MAX_BUDGET: usize = 4000;

/// The options of one fuzz run, decoded from the input's first [`OPTION_BYTES`] bytes.
#[derive(Debug, Clone)]
pub struct Options {
    /// The validated configuration to pack with.
    pub config: ChunkConfig,
}

impl Options {
    /// Splits `data` into options and the rest; `None` if `data` is shorter than the options.
    ///
    /// Layout: byte 0 picks the unit; bytes 1-2 the budget (with bit 0 of byte 1 choosing a
    /// small budget, below 200 over the unit's minimum, where most splitting happens); byte 3
    /// holds headers on/off (bit 0) and the overlap in percent of the budget (bits 1-6, zero
    /// when bit 7 is set). An overlap the configuration refuses becomes no overlap: refusing
    /// it is `ChunkConfig`'s job, tested in its own crate, and the packer never sees it.
    pub fn parse(data: &[u8]) -> Option<(Self, &[u8])> {
        let (head, rest) = data.split_first_chunk::<OPTION_BYTES>()?;
        let [unit_byte, lo, hi, flags] = *head;
        let unit = match unit_byte % 8 {
            0 | 1 => Unit::Chars,
            2 | 3 => Unit::Bytes,
            4 => Unit::Estimate,
            5 | 6 => Unit::Tokens(Tokenizer::O200k),
            _ => Unit::Tokens(Tokenizer::Cl100k),
        };
        let min = 8 * unit.max_char_size();
        let raw = usize::from(u16::from_le_bytes([lo, hi]) >> 1);
        let budget = if lo & 1 == 1 { min + raw % 200 } else { min + raw % (MAX_BUDGET - min + 1) };
        // The minimum is valid by construction, so this only fails if `ChunkConfig` changes
        // its rules; then no input is worth running and the target says so by skipping.
        let config = ChunkConfig::new(budget, unit).ok()?;
        let headers = flags & 1 == 0;
        let pct = if flags & 0x80 != 0 { 0 } else { usize::from((flags >> 1) & 0x3f) };
        let overlap = budget * pct / 100;
        let config = match config.clone().with_overlap(overlap) {
            Ok(with) => with,
            Err(_) => config,
        }
        .with_headers(headers);
        Some((Options { config }, rest))
    }
}

/// Panics, listing every violation, unless the chunks of `text` keep every invariant of
/// DESIGN.md for `tree`: the shared checker, plus that the tree's root covers the whole text
/// (the checker validates the tiling below the root, not where the root lies).
pub fn check(path: &str, text: &str, tree: &AtomTree, chunks: &[Chunk], config: &ChunkConfig) {
    assert_eq!(
        tree.root.range,
        0..text.len(),
        "the root atom of a {} tree does not cover the text",
        tree.language
    );
    let source = cleave_core::Source::new(path, text);
    let errors = check_invariants(&source, tree, chunks, config);
    assert!(
        errors.is_empty(),
        "{} invariant violations ({} chunks, budget {} {}, overlap {}, headers {}):\n{}",
        errors.len(),
        chunks.len(),
        config.budget(),
        config.unit_name(),
        config.overlap(),
        config.headers(),
        errors.join("\n")
    );
}

/// Panics unless `chunks` keep the invariants that need no tree (for records read back).
pub fn check_records(path: &str, text: &str, chunks: &[Chunk], config: &ChunkConfig) {
    let source = cleave_core::Source::new(path, text);
    let errors = check_chunks(&source, chunks, config);
    assert!(errors.is_empty(), "{} invariant violations:\n{}", errors.len(), errors.join("\n"));
}

/// The input as text, or `None` when it is not UTF-8: the atomizers take `&str`, and turning
/// bytes into text (or a reason to skip the file) is the reader's job, not theirs.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
