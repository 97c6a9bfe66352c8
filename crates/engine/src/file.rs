//! One file, from bytes to chunk records: decode, detect, atomize, pack, annotate.

use std::panic::{AssertUnwindSafe, catch_unwind};

use cleave_code::ParseContext;
use cleave_core::{
    AtomTree, Chunk, ChunkConfig, ContentKind, Severity, Source, atomize_blocks, pack,
};

use crate::decode::{Decoded, Encoding, decode};
use crate::detect::{Kind, detect};
use crate::outcome::{Outcome, Skip};
use crate::outline::{OutlineEntry, outline};

/// Everything known about one file after processing.
#[derive(Debug, Clone)]
pub struct FileResult {
    /// Relative path.
    pub rel: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Language or format name, if detected.
    pub language: Option<String>,
    /// Size in bytes of the text view (the file's size for a skipped file, when known).
    pub bytes: u64,
    /// What the text view was decoded from, when it is not the file's own UTF-8.
    pub encoding: Option<Encoding>,
    /// The chunks.
    pub chunks: Vec<Chunk>,
    /// Notes from the atomizer (parse errors, unterminated regions).
    pub diagnostics: Vec<String>,
    /// Document type for prose, with confidence.
    pub doc_class: Option<(String, f32)>,
    /// The file's symbols or sections, when the settings ask for them.
    pub outline: Option<Vec<OutlineEntry>>,
    /// The file's top-level import statements (and Rust's `mod x;`), verbatim, as the code
    /// atomizer found them: what packs build the import graph from. Empty for documents.
    pub imports: Vec<String>,
    /// Term statistics of each chunk for ranking, made on the first selection that reads the
    /// file and kept with it: a server answering many queries over one root tokenizes each
    /// chunk once, not once per query.
    pub(crate) terms: std::sync::OnceLock<Box<[crate::terms::ChunkTerms]>>,
}

impl FileResult {
    /// A file or entry that was not chunked.
    pub fn skipped(rel: &str, bytes: u64, reason: Skip) -> Self {
        Self {
            rel: rel.to_owned(),
            outcome: Outcome::Skipped { reason },
            language: None,
            bytes,
            encoding: None,
            chunks: Vec::new(),
            diagnostics: Vec::new(),
            doc_class: None,
            outline: None,
            imports: Vec::new(),
            terms: std::sync::OnceLock::new(),
        }
    }

    /// Term statistics of each chunk, in chunk order (computed once).
    pub(crate) fn chunk_terms(&self) -> &[crate::terms::ChunkTerms] {
        self.terms.get_or_init(|| self.chunks.iter().map(crate::terms::ChunkTerms::of).collect())
    }

    /// The file's part in ranking outline entries ([`crate::ranked_entries`]).
    pub fn rank_file(&self) -> crate::RankFile<'_> {
        crate::RankFile {
            path: &self.rel,
            language: self.language.as_deref(),
            entries: self.outline.as_deref().unwrap_or(&[]),
            chunks: &self.chunks,
        }
    }

    /// Whether the file could not be read (this makes the CLI's exit code non-zero).
    pub fn is_error(&self) -> bool {
        matches!(&self.outcome, Outcome::Skipped { reason } if reason.is_error())
    }
}

/// Settings shared by every file of a run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Budget, unit, overlap, headers.
    pub config: ChunkConfig,
    /// Files above this size are skipped without being read.
    pub max_file_size: u64,
    /// Whether each result carries its file's outline.
    pub outline: bool,
}

impl Settings {
    /// Settings with `config`, the default size limit (16 MiB), no outlines.
    pub fn new(config: ChunkConfig) -> Self {
        Self { config, max_file_size: DEFAULT_MAX_FILE_SIZE, outline: false }
    }

    /// Sets the size limit.
    pub fn with_max_file_size(mut self, max_file_size: u64) -> Self {
        self.max_file_size = max_file_size;
        self
    }

    /// Asks for each file's outline.
    pub fn with_outline(mut self, outline: bool) -> Self {
        self.outline = outline;
        self
    }
}

/// The default size limit: files above it are skipped.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 16 * 1024 * 1024;

/// Per-thread state: parsers and query cursors, reused from file to file.
#[derive(Debug, Default)]
pub struct Context {
    parse: ParseContext,
}

impl Context {
    /// A fresh context.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Chunks one file given as bytes: decode, detect, atomize, pack, annotate. `rel` names it in
/// records. Never panics: an atomizer that panics is reported as a fallback.
pub fn chunk_file(rel: &str, bytes: Vec<u8>, settings: &Settings, ctx: &mut Context) -> FileResult {
    let len = bytes.len() as u64;
    if len > settings.max_file_size {
        let reason = Skip::TooLarge { size: len, limit: settings.max_file_size };
        return FileResult::skipped(rel, len, reason);
    }
    match decode(rel, bytes) {
        Ok(decoded) => chunk_decoded(rel, &decoded, settings, ctx),
        Err(reason) => FileResult::skipped(rel, len, reason),
    }
}

/// Chunks a decoded text view: a document's Markdown view is atomized as Markdown, its pages
/// go into the tree's locations (so provenance names them), and its records carry the
/// document's format as their language.
pub fn chunk_decoded(
    rel: &str,
    decoded: &Decoded,
    settings: &Settings,
    ctx: &mut Context,
) -> FileResult {
    let document = decoded.encoding.document_name();
    let mut result =
        chunk_view(rel, &decoded.text, kind_of(rel, decoded), &decoded.pages, settings, ctx);
    if !decoded.is_verbatim() {
        result.encoding = Some(decoded.encoding);
    }
    if !decoded.notes.is_empty() {
        // Part of the document could not be read: the file says so in its outcome, not only
        // in a diagnostic, as a file whose parse failed does.
        if matches!(result.outcome, Outcome::Chunked) {
            result.outcome = Outcome::Fallback { reason: decoded.notes.join("; ") };
        }
        result.diagnostics.splice(0..0, decoded.notes.iter().cloned());
    }
    if let Some(name) = document {
        result.language = Some(name.to_owned());
        for chunk in &mut result.chunks {
            chunk.language = name.to_owned();
        }
    }
    result
}

/// Chunks text that is already in memory, as the file `rel`.
pub fn chunk_text(rel: &str, text: &str, settings: &Settings, ctx: &mut Context) -> FileResult {
    chunk_view(rel, text, detect(rel, text), &[], settings, ctx)
}

fn chunk_view(
    rel: &str,
    text: &str,
    kind: Kind,
    pages: &[(usize, cleave_core::PageLabel)],
    settings: &Settings,
    ctx: &mut Context,
) -> FileResult {
    if text.is_empty() {
        return FileResult::skipped(rel, 0, Skip::Empty);
    }
    let (name, content) = (kind.name(), kind.content());
    let atomized = catch_unwind(AssertUnwindSafe(|| atomize(kind, text, &mut ctx.parse)));
    let mut fallback = None;
    let tree = match atomized {
        Ok(tree) => match tree.root.validate(text) {
            Ok(()) if tree.root.range == (0..text.len()) => tree,
            Ok(()) => {
                fallback = Some(format!("{name} atomizer did not cover the file"));
                atomize_blocks(text, name, content)
            }
            Err(err) => {
                fallback = Some(format!("{name} atomizer built an invalid tree: {err}"));
                atomize_blocks(text, name, content)
            }
        },
        Err(panic) => {
            fallback = Some(format!("{name} atomizer failed: {}", panic_message(&panic)));
            // A panicking parser may leave its state half-updated: start afresh.
            ctx.parse = ParseContext::new();
            atomize_blocks(text, name, content)
        }
    };
    let mut tree = tree;
    tree.locations.pages = pages.to_vec();
    let diagnostics: Vec<String> = tree.diagnostics.iter().map(|d| d.message.clone()).collect();
    if fallback.is_none()
        && let Some(d) = tree.diagnostics.iter().find(|d| d.severity == Severity::Fallback)
    {
        fallback = Some(d.message.clone());
    }
    let source = Source::new(rel, text);
    let mut chunks = pack(&source, &tree, &settings.config);
    let doc_class =
        cleave_prose::annotate(&tree, &source, &mut chunks).map(|c| (c.doc_type, c.confidence));
    let outline = settings.outline.then(|| outline(&tree, &source, &chunks));
    let imports = crate::imports::statements(&tree, text);
    FileResult {
        rel: rel.to_owned(),
        outcome: match fallback {
            Some(reason) => Outcome::Fallback { reason },
            None => Outcome::Chunked,
        },
        language: Some(name.to_owned()),
        bytes: text.len() as u64,
        encoding: None,
        chunks,
        diagnostics,
        doc_class,
        outline,
        imports,
        terms: std::sync::OnceLock::new(),
    }
}

fn atomize(kind: Kind, text: &str, ctx: &mut ParseContext) -> AtomTree {
    match kind {
        Kind::Code(lang) => cleave_code::atomize_code(lang, text, ctx),
        Kind::Prose(format) => cleave_prose::atomize_prose(format, text, ctx),
        Kind::Text => atomize_blocks(text, "text", ContentKind::Prose),
    }
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

/// The kind a decoded text view is atomized as: Markdown for a document's view, else by name.
fn kind_of(rel: &str, decoded: &Decoded) -> Kind {
    match decoded.encoding.document_name() {
        Some(_) => Kind::Prose(cleave_prose::Format::Markdown),
        None => detect(rel, &decoded.text),
    }
}

/// The atom tree of one file as the chunker sees it, as text: what `cleave dump-atoms` prints.
pub fn dump_atoms(rel: &str, decoded: &Decoded) -> String {
    use std::fmt::Write as _;
    let text = decoded.text.as_str();
    let tree = atomize(kind_of(rel, decoded), text, &mut ParseContext::new());
    let mut out = format!("# {rel}: {} ({:?})\n", tree.language, tree.content);
    for ctx_line in &tree.context {
        let _ = writeln!(out, "# context: {ctx_line}");
    }
    for d in &tree.diagnostics {
        let _ = writeln!(out, "# {:?}: {}", d.severity, d.message);
    }
    if let Err(err) = tree.root.validate(text) {
        let _ = writeln!(out, "# INVALID TREE: {err}");
    }
    out.push_str(&tree.root.dump(text));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_decoder_could_not_read_makes_the_file_fallen_back_and_says_so() {
        let config =
            cleave_core::ChunkConfig::new(1000, cleave_core::Unit::Chars).expect("a config");
        let settings = Settings::new(config);
        let mut ctx = Context::new();
        let decoded = |notes: Vec<String>| Decoded {
            text: "# Title\n\nfirst page\n\u{c}\n\nthird page\n".to_owned(),
            encoding: Encoding::Pdf,
            pages: Vec::new(),
            notes,
        };
        let whole = chunk_decoded("a.pdf", &decoded(Vec::new()), &settings, &mut ctx);
        assert!(matches!(whole.outcome, Outcome::Chunked), "{:?}", whole.outcome);
        let note = "1 of its 3 pages could not be read and are empty in its text view: 2";
        let part = chunk_decoded("a.pdf", &decoded(vec![note.to_owned()]), &settings, &mut ctx);
        match &part.outcome {
            Outcome::Fallback { reason } => assert_eq!(reason, note),
            other => panic!("fallen back, not {other:?}"),
        }
        assert_eq!(part.diagnostics.first().map(String::as_str), Some(note));
        // What was read is chunked all the same.
        assert_eq!(part.chunks.len(), whole.chunks.len());
    }
}
