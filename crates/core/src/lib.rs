//! cleave-core: the text model, atoms, sizers and the packer behind cleave.
//!
//! An atomizer (in `cleave-code` or `cleave-prose`) turns a source into an [`AtomTree`]:
//! nested atoms whose children tile their parent, with labels, scopes and boundary strengths.
//! [`pack`] turns that tree into [`Chunk`]s that tile the source byte for byte and fit a
//! [`ChunkConfig`]'s budget, header included, counted by a [`ChunkSizer`] in bytes, chars or
//! real BPE tokens, or by any sizer the caller brings (`ChunkConfig::from_sizer`; with the
//! `hf-tokenizers` feature, `HfTokenizer` reads a Hugging Face `tokenizer.json`).
//! [`check_invariants`] verifies the promise on any output. Annotation comes after packing and
//! reads the tree, not the chunk text: [`locate`] fills a prose chunk's provenance from the
//! section atoms and the tree's [`Locations`]; atoms carry a [`Region`] (math, code, proof …)
//! for classifiers.
//!
//! ```
//! use cleave_core::{ChunkConfig, ContentKind, Source, Unit, atomize_blocks, pack};
//!
//! let text = "First paragraph.\n\nSecond paragraph, a little longer.\n";
//! let source = Source::new("notes.txt", text);
//! let tree = atomize_blocks(text, "text", ContentKind::Prose);
//! let config = ChunkConfig::new(60, Unit::Chars).unwrap();
//! let chunks = pack(&source, &tree, &config);
//! assert_eq!(chunks.iter().map(|c| c.text.as_str()).collect::<String>(), text);
//! assert!(chunks.iter().all(|c| c.tokens <= 60));
//! ```

#![deny(missing_docs)]

mod atom;
mod check;
mod chunk;
mod config;
mod header;
#[cfg(feature = "hf-tokenizers")]
mod hf;
mod pack;
mod plain;
mod pretok;
mod ranges;
mod sizer;
mod text;

pub use atom::{
    Atom, AtomKind, AtomLabel, AtomTree, Boundary, CommentStyle, ContentKind, Diagnostic,
    Locations, PageLabel, Region, Severity, ceil_char_boundary, floor_char_boundary, tile,
};
pub use check::{assert_invariants, check_chunks, check_invariants};
pub use chunk::{
    Chunk, Classification, Part, Provenance, chunk_id, locate, page_span, provenance_tag,
};
pub use config::{ChunkConfig, ConfigError, Cuts};
#[cfg(feature = "hf-tokenizers")]
pub use hf::HfTokenizer;
pub use pack::{line_ranges, pack};
pub use plain::{atomize_blocks, blocks};
pub use sizer::{Bytes, Chars, ChunkSizer, Estimate, LineSeams, Tokenizer, Tokens, Unit};
pub use text::Source;

#[cfg(test)]
mod proptests;
