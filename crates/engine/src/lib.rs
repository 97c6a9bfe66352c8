//! cleave-engine: the library face of cleave, what `ignore` and `grep-*` are to ripgrep.
//!
//! One file goes through **read** (only what the walk found, never through a swapped link or
//! a FIFO, never past the size limit), **decode** (bytes → the text view that is chunked, or a
//! reason to skip), **detect** (code language, prose or data format, by extension, shebang or
//! name), **atomize** (`cleave-code`, `cleave-prose`), **pack** (`cleave-core`) and
//! **annotate** (provenance and classification). [`chunk_file`] does it for bytes in memory,
//! [`chunk_tree`] for a whole folder on a pool of threads, in path order. Every face of cleave
//! (the CLI, the MCP server, the Python wheel) is built from the [`FileResult`]s and the chunk
//! records ([`write_chunk`]) this crate returns.
//!
//! ```
//! use cleave_core::{ChunkConfig, Unit};
//! use cleave_engine::{Settings, chunk_bytes};
//!
//! let settings = Settings::new(ChunkConfig::new(200, Unit::Chars).unwrap());
//! let text = "fn main() {\n    println!(\"hi\");\n}\n";
//! let result = chunk_bytes("src/main.rs", text.as_bytes().to_vec(), &settings);
//! assert_eq!(result.language.as_deref(), Some("rust"));
//! assert_eq!(result.chunks.iter().map(|c| c.text.as_str()).collect::<String>(), text);
//! ```
//!
//! The engine reads files; `cleave-core`, `cleave-code` and `cleave-prose` do no IO.

#![deny(missing_docs)]

mod cache;
mod decode;
mod detect;
mod file;
mod importance;
mod imports;
mod index;
mod marks;
mod outcome;
mod outline;
mod packs;
mod pipeline;
mod read;
mod record;
mod report;
mod select;
mod terms;
mod tree;
mod walk;

// The chunking vocabulary a face needs, so that a face depends on the engine alone.
pub use cache::{Cache, CachedFile, SOURCE_ID};
pub use cleave_code::{Language, languages};
#[cfg(feature = "hf-tokenizers")]
pub use cleave_core::HfTokenizer;
pub use cleave_core::{
    Chunk, ChunkConfig, ChunkSizer, Classification, ConfigError, ContentKind, Cuts, PageLabel,
    Part, Provenance, Source, Tokenizer, Unit, check_chunks, check_invariants,
};
pub use decode::{Decoded, Encoding, decode};
pub use detect::{Kind, detect, header_in_text};
pub use file::{
    Context, DEFAULT_MAX_FILE_SIZE, FileResult, Settings, chunk_decoded, chunk_file, chunk_text,
    dump_atoms,
};
pub use importance::{LEFT_OUT_FIRST, RankFile, first_ranked, largest_fitting, ranked_entries};
pub use index::{IndexReport, IndexState, TermIndex, index_root};
pub use marks::{
    GENERATOR, is_cache_dir, is_cleave_output_dir, is_cleave_output_file, is_cleave_temp,
    is_manifest_dir,
};
pub use outcome::{Outcome, Skip};
pub use outline::{OutlineEntry, outline, title_number};
pub use packs::{
    ImportGraph, Member, Pack, PackLink, PackOrder, PackStats, Packing, frame_reserve,
    member_budget, member_config, pack,
};
pub use pipeline::{Plan, WORKER_STACK_BYTES, run_ordered, worker_pool};
pub use read::{read_input, read_path};
pub use record::{write_chunk, write_str};
pub use report::{FileEntry, Summary};
pub use select::{
    Passage, Query, QueryType, Reading, Selection, read_ids, render as render_passages, select, tag,
};
pub use terms::terms;
pub use tree::{
    Produced, chunk_bytes, chunk_entries, chunk_entries_cached, chunk_input, chunk_input_cached,
    chunk_path, chunk_tree, walk_entries,
};
pub use walk::{Input, WalkOptions, Walked, passed_over, relative, walk};
