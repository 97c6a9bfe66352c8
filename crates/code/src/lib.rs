//! cleave-code: tree-sitter syntax trees turned into cleave atom trees with context headers.
//!
//! PLACEHOLDER API (being implemented): the signatures below are the contract the CLI and
//! `cleave-prose` build against; the bodies fall back to blank-line blocks for now.

#![deny(missing_docs)]

use cleave_core::{AtomTree, CommentStyle, ContentKind, atomize_blocks};

/// A language cleave parses: one row of the registry.
#[derive(Debug)]
pub struct Language {
    /// Name as it appears in records: `rust`, `python`, `typescript`, `tsx`, …
    pub name: &'static str,
    /// File extensions without the dot.
    pub extensions: &'static [&'static str],
    /// Line comment token used for headers.
    pub comment: &'static str,
}

static LANGUAGES: &[Language] = &[
    Language { name: "go", extensions: &["go"], comment: "//" },
    Language { name: "java", extensions: &["java"], comment: "//" },
    Language { name: "javascript", extensions: &["js", "mjs", "cjs", "jsx"], comment: "//" },
    Language { name: "python", extensions: &["py", "pyi"], comment: "#" },
    Language { name: "rust", extensions: &["rs"], comment: "//" },
    Language { name: "tsx", extensions: &["tsx"], comment: "//" },
    Language { name: "typescript", extensions: &["ts", "mts", "cts"], comment: "//" },
];

/// Every language, sorted by name.
pub fn languages() -> &'static [Language] {
    LANGUAGES
}

/// The language of a path, by extension.
pub fn language_for_path(path: &str) -> Option<&'static Language> {
    let ext = path.rsplit_once('.')?.1;
    LANGUAGES.iter().find(|l| l.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

/// The language of a script, by its shebang line (`#!/usr/bin/env python3`).
pub fn language_for_shebang(first_line: &str) -> Option<&'static Language> {
    let line = first_line.strip_prefix("#!")?;
    let prog = line.split_whitespace().filter(|w| !w.ends_with("/env") && !w.starts_with('-')).next()?;
    let prog = prog.rsplit('/').next()?;
    let name = match prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.') {
        "python" => "python",
        "node" | "nodejs" => "javascript",
        "deno" | "ts-node" | "tsx" => "typescript",
        _ => return None,
    };
    language_by_name(name)
}

/// The language with this name (also used for Markdown fence info strings).
pub fn language_by_name(name: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.name.eq_ignore_ascii_case(name))
}

/// Per-thread parsing state (parser and cursor), built once per worker thread.
#[derive(Debug, Default)]
pub struct ParseContext {}

impl ParseContext {
    /// A fresh context.
    pub fn new() -> Self {
        Self {}
    }
}

/// Atomizes source code. Never fails: parse errors degrade locally and are reported as
/// diagnostics in the tree.
pub fn atomize_code(language: &Language, text: &str, _ctx: &mut ParseContext) -> AtomTree {
    let mut tree = atomize_blocks(text, language.name, ContentKind::Code);
    tree.comment = CommentStyle::line(language.comment);
    tree
}
