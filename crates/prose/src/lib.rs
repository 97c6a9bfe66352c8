//! cleave-prose: Markdown, LaTeX, plain text and data files turned into cleave atom trees.
//!
//! Each format has its own module: `markdown`, `latex`, `text` (plain text and
//! reStructuredText), `data` (JSON, YAML, TOML); `classify` labels chunks and documents. This
//! file only dispatches.

#![deny(missing_docs)]

mod classify;
mod data;
mod latex;
mod markdown;
mod text;

use cleave_code::ParseContext;
use cleave_core::{AtomTree, Chunk, ContentKind};

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

    /// Prose or data.
    pub fn content(self) -> ContentKind {
        match self {
            Format::Json | Format::Yaml | Format::Toml => ContentKind::Data,
            _ => ContentKind::Prose,
        }
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

/// Classifies the chunks of one document (sets `classification` on each) and the document.
pub fn classify(format: Format, chunks: &mut [Chunk]) -> Option<DocumentClass> {
    classify::classify(format, chunks)
}
