//! cleave-code: tree-sitter syntax trees turned into cleave atom trees with context headers.
//!
//! A language is data: a folder `grammars/<name>/` with an `atoms.scm` query whose captures
//! come from a closed vocabulary ([`CAPTURE_NAMES`], documented in `grammars/README.md`), and
//! one row of the sorted registry (`registry.rs`). [`atomize_code`] parses a file once, runs
//! the query once, and walks the syntax tree once: items become symbol atoms (labelled,
//! scopes, with their doc comments and attributes), bodies open into members or statements,
//! and the text between them becomes gaps. Imports become the header context. Regions under
//! parse errors fall back to blank-line blocks of lines, and the share of the file in error is
//! reported.
//!
//! ```
//! use cleave_code::{ParseContext, atomize_code, language_by_name};
//!
//! let rust = language_by_name("rust").unwrap();
//! let text = "use std::fmt;\n\n/// A token.\nstruct Token;\n\nimpl fmt::Display for Token {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"tok\")\n    }\n}\n";
//! let tree = atomize_code(rust, text, &mut ParseContext::new());
//! let labels: Vec<_> = tree.root.children.iter().filter_map(|a| a.label_text()).collect();
//! assert_eq!(labels, ["struct Token", "impl fmt::Display for Token"]);
//! ```

#![deny(missing_docs)]

mod builder;
mod capture;
mod config;
mod context;
mod dump;
mod idmap;
mod imports;
mod pattern;
mod pieces;
mod registry;
mod runs;
mod scan;
mod sections;
mod tags;

use cleave_core::AtomTree;

pub use capture::{CAPTURE_NAMES, ItemKind};
pub use config::{LanguageConfig, LoadError};
pub use context::ParseContext;
pub use dump::dump_atoms;
pub use pieces::PIECE_BYTES;
pub use registry::{
    Language, MissingGrammar, language_by_name, language_for_file, language_for_path,
    language_for_shebang, languages,
};
pub use sections::{
    SECTION_BYTES, atomize_code_in_pieces, atomize_code_in_sections, member_run_count, parse_only,
    section_starts,
};
pub use tags::deeper_than as markup_nesting_deeper_than;

/// Atomizes source code. Never fails: parse errors degrade locally and are reported as
/// diagnostics in the tree.
pub fn atomize_code(language: &Language, text: &str, ctx: &mut ParseContext) -> AtomTree {
    atomize_code_in_sections(language, text, ctx, SECTION_BYTES)
}
