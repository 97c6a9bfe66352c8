//! One file, from bytes to chunk records: decode, detect, atomize, pack, annotate.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use cleave_code::ParseContext;
use cleave_core::{
    AtomTree, Chunk, ChunkConfig, ContentKind, Severity, Source, atomize_blocks, pack,
};
use serde::{Serialize, Serializer};

use crate::decode::{Decoded, Encoding, decode};
use crate::detect::{Kind, detect};

/// Why a file or another entry of a tree was not chunked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skip {
    /// No bytes.
    Empty,
    /// A NUL byte in the first 8000 bytes.
    Binary,
    /// Not valid UTF-8.
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// UTF-16 with a byte-order mark that does not decode.
    BadUtf16 {
        /// Offset of the first bad code unit.
        offset: usize,
    },
    /// Text that looks like UTF-16 but has no byte-order mark.
    Utf16NoBom,
    /// Larger than the run's limit; not read.
    TooLarge {
        /// Size in bytes.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Could not be opened or read.
    Unreadable(String),
    /// A symbolic link, not followed.
    Symlink,
    /// A symbolic link whose target lies outside the walked root.
    LinkOutsideRoot,
    /// A symbolic link whose target does not exist.
    BrokenLink,
    /// Not a regular file: a FIFO, a socket, a device.
    NotRegular(&'static str),
    /// The entry changed between the walk and the read (replaced by a link or another file).
    Changed,
    /// Left out by an ignore file (`.gitignore`, `.ignore`, …), here or above the root.
    Ignored,
    /// A hidden file or folder.
    Hidden,
    /// A version-control folder.
    VersionControl,
    /// An output of this cleave run, or a temporary folder of an earlier one.
    Output,
    /// A name that is not valid UTF-8: records could not name it losslessly.
    NonUtf8Name,
}

impl Skip {
    /// A short, stable name for the summary's counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Skip::Empty => "empty",
            Skip::Binary => "binary",
            Skip::NotUtf8 { .. } | Skip::BadUtf16 { .. } | Skip::Utf16NoBom => "not-utf8",
            Skip::TooLarge { .. } => "too-large",
            Skip::Unreadable(_) => "unreadable",
            Skip::Symlink | Skip::LinkOutsideRoot | Skip::BrokenLink => "symlink",
            Skip::NotRegular(_) => "not-regular",
            Skip::Changed => "changed",
            Skip::Ignored => "ignored",
            Skip::Hidden => "hidden",
            Skip::VersionControl => "vcs",
            Skip::Output => "output",
            Skip::NonUtf8Name => "bad-name",
        }
    }

    /// Whether the skip means something went wrong (the exit code says so).
    pub fn is_error(&self) -> bool {
        matches!(self, Skip::Unreadable(_) | Skip::Changed)
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::Empty => f.write_str("empty"),
            Skip::Binary => f.write_str("binary (NUL byte)"),
            Skip::NotUtf8 { offset } => write!(f, "not UTF-8 (invalid byte at offset {offset})"),
            Skip::BadUtf16 { offset } => {
                write!(f, "not UTF-8: UTF-16 with a bad code unit at offset {offset}")
            }
            Skip::Utf16NoBom => {
                f.write_str("not UTF-8: looks like UTF-16 without a byte-order mark")
            }
            Skip::TooLarge { size, limit } => {
                write!(f, "over the size limit ({size} bytes > {limit})")
            }
            Skip::Unreadable(err) => write!(f, "unreadable: {err}"),
            Skip::Symlink => {
                f.write_str("symlink (not followed; --follow follows links inside the root)")
            }
            Skip::LinkOutsideRoot => f.write_str("symlink to a target outside the walked root"),
            Skip::BrokenLink => f.write_str("symlink to nothing (its target does not exist)"),
            Skip::NotRegular(what) => write!(f, "not a regular file ({what})"),
            Skip::Changed => f.write_str("changed between the walk and the read"),
            Skip::Ignored => f.write_str("ignored by an ignore file"),
            Skip::Hidden => f.write_str("hidden (--hidden includes it)"),
            Skip::VersionControl => f.write_str("version-control folder"),
            Skip::Output => f.write_str("output of cleave"),
            Skip::NonUtf8Name => f.write_str("file name is not UTF-8"),
        }
    }
}

impl Serialize for Skip {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

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
        reason: Skip,
    },
}

/// Everything known about one file after processing.
#[derive(Debug)]
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
}

impl Settings {
    /// Settings with `config` and the default size limit (16 MiB).
    pub fn new(config: ChunkConfig) -> Self {
        Self { config, max_file_size: DEFAULT_MAX_FILE_SIZE }
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
    match decode(bytes) {
        Ok(decoded) => chunk_decoded(rel, &decoded, settings, ctx),
        Err(reason) => FileResult::skipped(rel, len, reason),
    }
}

/// Chunks a decoded text view.
pub fn chunk_decoded(
    rel: &str,
    decoded: &Decoded,
    settings: &Settings,
    ctx: &mut Context,
) -> FileResult {
    let mut result = chunk_text(rel, &decoded.text, settings, ctx);
    if !decoded.is_verbatim() {
        result.encoding = Some(decoded.encoding);
    }
    result
}

/// Chunks text that is already in memory, as the file `rel`.
pub fn chunk_text(rel: &str, text: &str, settings: &Settings, ctx: &mut Context) -> FileResult {
    if text.is_empty() {
        return FileResult::skipped(rel, 0, Skip::Empty);
    }
    let kind = detect(rel, text);
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
    let diagnostics: Vec<String> = tree.diagnostics.iter().map(|d| d.message.clone()).collect();
    if fallback.is_none()
        && let Some(d) = tree.diagnostics.iter().find(|d| d.severity == Severity::Fallback)
    {
        fallback = Some(d.message.clone());
    }
    let source = Source::new(rel, text);
    let mut chunks = pack(&source, &tree, &settings.config);
    let doc_class = match kind {
        Kind::Prose(format) => cleave_prose::classify(format, &mut chunks),
        Kind::Text => cleave_prose::classify(cleave_prose::Format::Text, &mut chunks),
        Kind::Code(_) => None,
    }
    .map(|c| (c.doc_type, c.confidence));
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

/// The atom tree of one file as the chunker sees it, as text: what `cleave dump-atoms` prints.
pub fn dump_atoms(rel: &str, text: &str) -> String {
    use std::fmt::Write as _;
    let tree = atomize(detect(rel, text), text, &mut ParseContext::new());
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
