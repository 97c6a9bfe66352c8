//! Scanners: hand-written atomizers for languages that a registry row gives no tree-sitter
//! grammar but whose structure a small lexer finds (SQL's statements). A scanner is one
//! function from text to the root's children; the driver (`sections.rs`) builds the tree
//! around them with the row's name, comment syntax and separator, as for a grammar. A new
//! scanner language is a module here and a registry row naming its function: no change to
//! the driver or the engine.
//!
//! Scanners must tile the text, never panic on any input and stay linear in its length; the
//! property tests in `tests/it/atoms.rs` run them on arbitrary bytes.

pub(crate) mod sql;

use cleave_core::{Atom, Diagnostic};

/// A scanner: the root's children (tiling `0..text.len()`) and what it has to say.
pub(crate) type Scanner = fn(text: &str) -> (Vec<Atom>, Vec<Diagnostic>);

/// Folds white space runs into single spaces and caps the length at a char boundary, with
/// an ellipsis: labels and signatures read on one line.
pub(crate) fn fold(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 4));
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > max {
            break;
        }
    }
    if out.len() > max {
        let cut = cleave_core::floor_char_boundary(&out, max);
        out.truncate(cut);
        out.push('…');
    }
    out
}
