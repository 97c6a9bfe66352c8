//! cleave-prose: Markdown, LaTeX, plain text and data files turned into cleave atom trees.
//!
//! Each format has its own module: `markdown`, `latex`, `text` (plain text and
//! reStructuredText), `data` (JSON, YAML, TOML). [`annotate`], run after packing, locates and
//! labels the chunks from the atom tree (`classify`, with the word lists of `words`). This file
//! only dispatches.

#![deny(missing_docs)]

mod classify;
mod data;
mod latex;
mod markdown;
mod text;
mod words;

use cleave_code::ParseContext;
use cleave_core::{AtomTree, Chunk, ContentKind, Source, locate};

/// A document or data format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Markdown (`.md`, `.markdown`, `.mdx`).
    Markdown,
    /// LaTeX sources (`.tex`, `.sty`, `.cls`, `.bib` stays text).
    Latex,
    /// Plain text (`.txt`, no extension).
    Text,
    /// reStructuredText (`.rst`).
    Rst,
    /// JSON (`.json`).
    Json,
    /// YAML (`.yaml`, `.yml`).
    Yaml,
    /// TOML (`.toml`).
    Toml,
}

impl Format {
    /// Name as it appears in records.
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Latex => "latex",
            Format::Text => "text",
            Format::Rst => "rst",
            Format::Json => "json",
            Format::Yaml => "yaml",
            Format::Toml => "toml",
        }
    }

    /// The format whose records carry `name` as their language, the inverse of
    /// [`Format::name`].
    pub fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "markdown" => Format::Markdown,
            "latex" => Format::Latex,
            "text" => Format::Text,
            "rst" => Format::Rst,
            "json" => Format::Json,
            "yaml" => Format::Yaml,
            "toml" => Format::Toml,
            _ => return None,
        })
    }

    /// Prose or data.
    pub fn content(self) -> ContentKind {
        match self {
            Format::Json | Format::Yaml | Format::Toml => ContentKind::Data,
            _ => ContentKind::Prose,
        }
    }

    /// Whether the format has comments that a header can be written in. JSON has none: its
    /// headers (`//`, as JSONC writes comments) live in the record only, never inside a chunk
    /// file, so that a chunk file holding a whole JSON value still parses as JSON.
    pub fn has_comments(self) -> bool {
        !matches!(self, Format::Json)
    }
}

/// The format of a path, by extension.
pub fn format_for_path(path: &str) -> Option<Format> {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "md" | "markdown" | "mdx" | "mkd" => Format::Markdown,
        "tex" | "ltx" | "sty" | "cls" => Format::Latex,
        "txt" | "text" => Format::Text,
        "rst" => Format::Rst,
        "json" => Format::Json,
        "yaml" | "yml" => Format::Yaml,
        "toml" => Format::Toml,
        _ => return None,
    })
}

/// Atomizes a document or data file. Never fails: unterminated regions degrade locally and
/// are reported as diagnostics in the tree.
pub fn atomize_prose(format: Format, text: &str, code: &mut ParseContext) -> AtomTree {
    match format {
        Format::Markdown => markdown::atomize(text, code),
        Format::Latex => latex::atomize(text),
        Format::Text => text::atomize(text, false),
        Format::Rst => text::atomize(text, true),
        Format::Json | Format::Yaml | Format::Toml => data::atomize(format, text),
    }
}

/// Per-document classification: its type and a confidence in 0..=1.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentClass {
    /// `research paper`, `technical doc`, `algorithm-focused`, `implementation guide`, `general`.
    pub doc_type: String,
    /// Confidence in 0..=1.
    pub confidence: f32,
}

/// Annotates the chunks of one source, packed from `tree`: fills each prose chunk's
/// provenance (section path, paragraph, char offset, page, tag) and each document chunk's
/// classification (content type, math, code, tables, keywords), and returns the document's
/// class. Everything is read from the tree's regions and locations, not by scanning the text
/// again; code gets neither and `None`.
///
/// The format is the tree's language (`markdown`, `latex`, …, as [`Format::name`] writes it);
/// a prose tree of another language (the generic text atomizer's) is classified as text.
pub fn annotate(
    tree: &AtomTree,
    source: &Source<'_>,
    chunks: &mut [Chunk],
) -> Option<DocumentClass> {
    let format = match tree.content {
        ContentKind::Code => return None,
        ContentKind::Prose => Format::from_name(&tree.language).unwrap_or(Format::Text),
        ContentKind::Data => Format::from_name(&tree.language).unwrap_or(Format::Json),
    };
    locate(tree, source, chunks);
    classify::classify(format, tree, source.text(), chunks)
}
