//! JSON, YAML and TOML atomizer: keys as atoms, top-level first, then nested, with the key path
//! as the scope (`in server > tls`) and as qualified symbol names (`server.tls`).
//!
//! Each format has a small scanner of its own (`json`, `yaml`, `toml`) that reports byte ranges
//! and never builds values: chunking needs where an entry starts and ends, not what it means,
//! and the scanners cost less to build and run than tree-sitter grammars. A JSON file that does
//! not scan falls back to blank-line blocks with a diagnostic; the YAML and TOML scanners are
//! line-based and degrade locally (a line they cannot read belongs to the entry above it).

mod json;
mod toml;
mod yaml;

use cleave_core::{
    Atom, AtomKind, AtomLabel, AtomTree, CommentStyle, Diagnostic, Severity, atomize_blocks,
};

use crate::Format;

/// Deepest nesting read as structure; deeper values are leaves.
const MAX_DEPTH: usize = 48;

/// Atomizes a data file.
pub(crate) fn atomize(format: Format, text: &str) -> AtomTree {
    let parsed = match format {
        Format::Json => json::atomize(text),
        Format::Yaml => Ok(yaml::atomize(text)),
        _ => Ok(toml::atomize(text)),
    };
    let mut tree = match parsed {
        Ok(root) => AtomTree::new(format.name(), format.content(), root),
        Err(message) => {
            let mut tree = atomize_blocks(text, format.name(), format.content());
            tree.diagnostics.push(Diagnostic::new(
                Severity::Degraded,
                format!("{message}; read as blank-line blocks"),
            ));
            tree
        }
    };
    // JSON has no comments. Headers use `//`, the comment of JSONC and JSON5 (tsconfig.json,
    // VS Code settings): a reader sees at once that the line is not data.
    tree.comment = match format {
        Format::Json => CommentStyle::line("//"),
        _ => CommentStyle::line("#"),
    };
    tree.separator = ".";
    tree
}

/// Entries that follow their parent's head (`"deps": {`, `steps:`, `[server]`): the first one
/// sticks to it, cutting there costs like cutting between words, so no chunk ends on a lone
/// head.
fn glue_first(mut entries: Vec<Atom>) -> Vec<Atom> {
    if let Some(first) = entries.first_mut() {
        first.boundary = cleave_core::Boundary::Word;
    }
    entries
}

/// A key's atom: a named scope.
fn key_atom(range: std::ops::Range<usize>, key: &str) -> Atom {
    Atom::new(AtomKind::Symbol, range).with_scope(true).with_label(AtomLabel {
        label: key.to_owned(),
        name: Some(key.to_owned()),
        signature: None,
    })
}

/// An array element's atom: a scope labelled with its index, with no name of its own.
fn index_atom(range: std::ops::Range<usize>, index: usize) -> Atom {
    Atom::new(AtomKind::Block, range).with_scope(true).with_label(AtomLabel {
        label: format!("[{index}]"),
        name: None,
        signature: None,
    })
}
