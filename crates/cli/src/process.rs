//! One file, from bytes on disk to chunk records: read, check, detect, atomize, pack.

use std::panic::{AssertUnwindSafe, catch_unwind};

use cleave_code::ParseContext;
use cleave_core::{
    AtomTree, Chunk, ChunkConfig, ContentKind, Severity, Source, atomize_blocks, pack,
};
use serde::Serialize;

use crate::walk::Input;

/// How many leading bytes are searched for a NUL to call a file binary (git's rule).
const BINARY_SNIFF: usize = 8000;

/// How a file ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// Chunked by its own atomizer.
    Chunked,
    /// Chunked, but by a coarser atomizer than its own.
    Fallback {
        /// Why.
        reason: String,
    },
    /// Not chunked.
    Skipped {
        /// Why.
        reason: String,
    },
}

/// Everything known about one file after processing.
#[derive(Debug)]
pub struct FileResult {
    /// Relative path.
    pub rel: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Whether the file could not be read (this makes the exit code non-zero).
    pub is_error: bool,
    /// Language or format name, if detected.
    pub language: Option<String>,
    /// Size in bytes.
    pub bytes: u64,
    /// The chunks.
    pub chunks: Vec<Chunk>,
    /// Notes from the atomizer (parse errors, unterminated regions).
    pub diagnostics: Vec<String>,
    /// Document type for prose, with confidence.
    pub doc_class: Option<(String, f32)>,
}

impl FileResult {
    fn skipped(input: &Input, bytes: u64, reason: String, is_error: bool) -> Self {
        Self {
            rel: input.rel.clone(),
            outcome: Outcome::Skipped { reason },
            is_error,
            language: None,
            bytes,
            chunks: Vec::new(),
            diagnostics: Vec::new(),
            doc_class: None,
        }
    }
}

/// Settings shared by every file of a run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Budget, unit, overlap, headers.
    pub config: ChunkConfig,
    /// Files above this size are skipped.
    pub max_file_size: u64,
}

/// What a file is, by name and first line.
enum Kind {
    Code(&'static cleave_code::Language),
    Prose(cleave_prose::Format),
    Text,
}

fn detect(rel: &str, text: &str) -> Kind {
    if let Some(lang) = cleave_code::language_for_path(rel) {
        return Kind::Code(lang);
    }
    if let Some(format) = cleave_prose::format_for_path(rel) {
        return Kind::Prose(format);
    }
    let first_line = text.lines().next().unwrap_or("");
    if let Some(lang) = cleave_code::language_for_shebang(first_line) {
        return Kind::Code(lang);
    }
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name.eq_ignore_ascii_case("README") || name.eq_ignore_ascii_case("LICENSE") {
        return Kind::Prose(cleave_prose::Format::Text);
    }
    Kind::Text
}

/// Reads, checks, atomizes and packs one file. Never panics: an atomizer that panics is
/// reported as a fallback to the generic text atomizer.
pub fn process(input: &Input, settings: &Settings, ctx: &mut ParseContext) -> FileResult {
    let bytes = match std::fs::read(&input.abs) {
        Ok(bytes) => bytes,
        Err(err) => return FileResult::skipped(input, 0, format!("unreadable: {err}"), true),
    };
    let len = bytes.len() as u64;
    if len > settings.max_file_size {
        let reason = format!("over the size limit ({len} bytes > {})", settings.max_file_size);
        return FileResult::skipped(input, len, reason, false);
    }
    if bytes.is_empty() {
        return FileResult::skipped(input, 0, "empty".to_owned(), false);
    }
    if bytes[..bytes.len().min(BINARY_SNIFF)].contains(&0) {
        return FileResult::skipped(input, len, "binary (NUL byte)".to_owned(), false);
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let at = err.utf8_error().valid_up_to();
            return FileResult::skipped(
                input,
                len,
                format!("not UTF-8 (invalid byte at offset {at})"),
                false,
            );
        }
    };
    chunk_text(input, &text, settings, ctx)
}

fn chunk_text(
    input: &Input,
    text: &str,
    settings: &Settings,
    ctx: &mut ParseContext,
) -> FileResult {
    let kind = detect(&input.rel, text);
    let (name, content) = match &kind {
        Kind::Code(lang) => (lang.name, ContentKind::Code),
        Kind::Prose(format) => (format.name(), format.content()),
        Kind::Text => ("text", ContentKind::Prose),
    };
    let atomized = catch_unwind(AssertUnwindSafe(|| match &kind {
        Kind::Code(lang) => cleave_code::atomize_code(lang, text, ctx),
        Kind::Prose(format) => cleave_prose::atomize_prose(*format, text, ctx),
        Kind::Text => atomize_blocks(text, "text", ContentKind::Prose),
    }));
    let mut fallback = None;
    let tree = match atomized {
        Ok(tree) => match tree.root.validate(text) {
            Ok(()) if tree.root.range == (0..text.len()) => tree,
            Ok(()) => {
                fallback = Some(format!("{name} atomizer did not cover the file"));
                blocks_tree(text, name, content)
            }
            Err(err) => {
                fallback = Some(format!("{name} atomizer built an invalid tree: {err}"));
                blocks_tree(text, name, content)
            }
        },
        Err(panic) => {
            fallback = Some(format!("{name} atomizer failed: {}", panic_message(&panic)));
            // A panicking parser may leave its state half-updated: start afresh.
            *ctx = ParseContext::new();
            blocks_tree(text, name, content)
        }
    };
    let diagnostics: Vec<String> = tree.diagnostics.iter().map(|d| d.message.clone()).collect();
    if fallback.is_none()
        && let Some(d) = tree.diagnostics.iter().find(|d| d.severity == Severity::Fallback)
    {
        fallback = Some(d.message.clone());
    }
    let source = Source::new(&input.rel, text);
    let mut chunks = pack(&source, &tree, &settings.config);
    let doc_class =
        cleave_prose::annotate(&tree, &source, &mut chunks).map(|c| (c.doc_type, c.confidence));
    FileResult {
        rel: input.rel.clone(),
        outcome: match fallback {
            Some(reason) => Outcome::Fallback { reason },
            None => Outcome::Chunked,
        },
        is_error: false,
        language: Some(name.to_owned()),
        bytes: text.len() as u64,
        chunks,
        diagnostics,
        doc_class,
    }
}

fn blocks_tree(text: &str, name: &str, content: ContentKind) -> AtomTree {
    atomize_blocks(text, name, content)
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_owned()
    }
}

/// Atomizes one file for `cleave dump-atoms`.
pub fn dump(rel: &str, text: &str) -> String {
    let mut ctx = ParseContext::new();
    let tree = match detect(rel, text) {
        Kind::Code(lang) => cleave_code::atomize_code(lang, text, &mut ctx),
        Kind::Prose(format) => cleave_prose::atomize_prose(format, text, &mut ctx),
        Kind::Text => atomize_blocks(text, "text", ContentKind::Prose),
    };
    let mut out = format!("# {rel}: {} ({:?})\n", tree.language, tree.content);
    for ctx_line in &tree.context {
        out.push_str(&format!("# context: {ctx_line}\n"));
    }
    for d in &tree.diagnostics {
        out.push_str(&format!("# {:?}: {}\n", d.severity, d.message));
    }
    if let Err(err) = tree.root.validate(text) {
        out.push_str(&format!("# INVALID TREE: {err}\n"));
    }
    out.push_str(&tree.root.dump(text));
    out
}
