//! One printer per output mode behind one trait: JSON Lines, one JSON document, or a folder
//! of chunk files with a manifest.
//!
//! A printer renders a file's records on the worker thread that chunked it (serialising is not
//! free: it should not stand on one thread behind the parallel work), and writes the rendered
//! files in path order.

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, Result};
use cleave_engine::{
    CachedFile, Chunk, Classification, ContentKind, Cuts, FileEntry, FileResult, Part, Provenance,
    write_chunk,
};
use serde::Serialize;

use crate::atomic::{AtomicFile, StagedDir};
use crate::guard::GENERATOR;

/// What a run was asked to do, as recorded in reports and manifests.
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    /// The budget.
    pub budget: usize,
    /// Its unit.
    pub unit: String,
    /// Overlap in units.
    pub overlap: usize,
    /// Whether headers were injected.
    pub headers: bool,
    /// Where text that needs several chunks was cut: written only when not balanced (the
    /// default), as `"fill"`.
    #[serde(skip_serializing_if = "is_balanced", serialize_with = "cuts_name")]
    pub cuts: Cuts,
    /// The PATH given.
    pub root: String,
}

fn is_balanced(cuts: &Cuts) -> bool {
    *cuts == Cuts::Balanced
}

/// [`Cuts`] by its command-line name.
fn cuts_name<S: serde::Serializer>(cuts: &Cuts, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match cuts {
        Cuts::Balanced => "balanced",
        Cuts::Fill => "fill",
    })
}

/// An output mode.
pub trait Printer: Sync {
    /// Renders one file's records (on a worker thread).
    fn render(&self, result: &FileResult) -> Result<Vec<u8>>;
    /// Renders a file found in the cache, whose records are JSON Lines already.
    fn render_cached(&self, cached: CachedFile) -> Result<Vec<u8>> {
        self.render(&cached.into_result()?)
    }
    /// Writes a rendered file, in path order.
    fn write(&self, rendered: &[u8]) -> Result<()>;
    /// Ends the output and moves it into place. Dropping a printer without finishing removes
    /// what it wrote.
    fn finish(self: Box<Self>, files: &[FileEntry], run: &RunInfo) -> Result<()>;
}

/// Where a stream goes: stdout, a file written aside and moved into place at the end, or a
/// special file (a FIFO, `/dev/stdout`, a terminal) written directly: renaming over a device
/// would replace it.
pub enum Stream {
    /// Standard output.
    Stdout(io::BufWriter<io::Stdout>),
    /// A regular file.
    File(AtomicFile),
    /// A special file, and its path for messages.
    Special(io::BufWriter<fs::File>, std::path::PathBuf),
}

impl Stream {
    /// Stdout, or `path` (`-` is stdout).
    pub fn new(path: Option<&Path>) -> Result<Self> {
        let Some(path) = path.filter(|p| *p != Path::new("-")) else {
            return Ok(Stream::Stdout(io::BufWriter::with_capacity(1 << 16, io::stdout())));
        };
        if crate::atomic::names_a_descriptor(path) {
            // `/dev/stdout`, `/proc/self/fd/1` and links to them name an open file, perhaps
            // one the shell opened for appending: add to it, never replace or truncate it.
            let file = fs::File::options()
                .append(true)
                .open(path)
                .with_context(|| format!("{}: cannot open", path.display()))?;
            return Ok(Stream::Special(
                io::BufWriter::with_capacity(1 << 16, file),
                path.to_owned(),
            ));
        }
        match fs::metadata(path) {
            Ok(meta) if !meta.is_file() => {
                let file = fs::File::options()
                    .write(true)
                    .open(path)
                    .with_context(|| format!("{}: cannot open", path.display()))?;
                Ok(Stream::Special(io::BufWriter::with_capacity(1 << 16, file), path.to_owned()))
            }
            _ => Ok(Stream::File(AtomicFile::create(path)?)),
        }
    }

    pub(crate) fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        match self {
            Stream::Stdout(out) => {
                out.write_all(bytes).map_err(|e| crate::term::StdoutError(e).into())
            }
            Stream::File(file) => file
                .write_all(bytes)
                .with_context(|| format!("{}: cannot write", file.target().display())),
            Stream::Special(out, path) => {
                out.write_all(bytes).with_context(|| format!("{}: cannot write", path.display()))
            }
        }
    }

    pub(crate) fn finish(self) -> Result<()> {
        match self {
            Stream::Stdout(mut out) => out.flush().map_err(|e| crate::term::StdoutError(e).into()),
            Stream::File(file) => file.commit(),
            Stream::Special(mut out, path) => {
                out.flush().with_context(|| format!("{}: cannot write", path.display()))
            }
        }
    }
}

/// Records separated for a list: each on its own line, commas between them. `first` says
/// whether nothing was written yet.
fn append_listed(out: &mut Vec<u8>, first: &mut bool, rendered: &[u8]) {
    if rendered.is_empty() {
        return;
    }
    if !*first {
        out.push(b',');
    }
    *first = false;
    out.extend_from_slice(rendered);
}

/// Each record as `\n{record}`, commas between.
fn render_listed<T>(
    items: &[T],
    mut one: impl FnMut(&mut Vec<u8>, usize, &T) -> Result<()>,
) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        buf.push(b'\n');
        one(&mut buf, i, item)?;
    }
    Ok(buf)
}

fn capacity(result: &FileResult) -> usize {
    result.chunks.iter().map(|c| c.text.len() + c.header.len() + 256).sum()
}

/// JSON Lines: one record per line.
pub struct Jsonl(Mutex<Stream>);

impl Jsonl {
    /// JSON Lines to `stream`.
    pub fn new(stream: Stream) -> Self {
        Self(Mutex::new(stream))
    }
}

impl Printer for Jsonl {
    fn render(&self, result: &FileResult) -> Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(capacity(result));
        for chunk in &result.chunks {
            write_chunk(&mut buf, chunk)?;
            buf.push(b'\n');
        }
        Ok(buf)
    }

    fn render_cached(&self, cached: CachedFile) -> Result<Vec<u8>> {
        Ok(cached.records)
    }

    fn write(&self, rendered: &[u8]) -> Result<()> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).write_all(rendered)
    }

    fn finish(self: Box<Self>, _: &[FileEntry], _: &RunInfo) -> Result<()> {
        self.0.into_inner().unwrap_or_else(PoisonError::into_inner).finish()
    }
}

/// One JSON document: `{"chunks": [...], "run": {...}, "files": [...]}`, chunks streamed.
pub struct Json(Mutex<(Stream, bool)>);

impl Json {
    /// A JSON document to `stream`.
    pub fn new(stream: Stream) -> Self {
        Self(Mutex::new((stream, true)))
    }
}

impl Printer for Json {
    fn render(&self, result: &FileResult) -> Result<Vec<u8>> {
        render_listed(&result.chunks, |buf, _, chunk| Ok(write_chunk(buf, chunk)?))
    }

    fn write(&self, rendered: &[u8]) -> Result<()> {
        if rendered.is_empty() {
            return Ok(());
        }
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (stream, first) = &mut *state;
        let mut buf = Vec::with_capacity(rendered.len() + 16);
        if *first {
            buf.extend_from_slice(b"{\"chunks\": [");
        }
        append_listed(&mut buf, first, rendered);
        stream.write_all(&buf)
    }

    fn finish(self: Box<Self>, files: &[FileEntry], run: &RunInfo) -> Result<()> {
        let (mut stream, first) = self.0.into_inner().unwrap_or_else(PoisonError::into_inner);
        let mut buf = Vec::new();
        if first {
            buf.extend_from_slice(b"{\"chunks\": [");
        }
        buf.extend_from_slice(b"\n], \"run\": ");
        serde_json::to_writer(&mut buf, run)?;
        buf.extend_from_slice(b", \"files\": ");
        serde_json::to_writer(&mut buf, files)?;
        buf.extend_from_slice(b"}\n");
        stream.write_all(&buf)?;
        stream.finish()
    }
}

/// A folder of chunk files (header + body, keeping the source extension; the body alone for
/// a format without comments, see `cleave_engine::header_in_text`) and a
/// `manifest.json` listing every chunk and every entry's outcome: what an agent hands to
/// sub-agents, one chunk file each.
pub struct Folder {
    staged: StagedDir,
    manifest: Mutex<(Vec<u8>, bool)>,
}

impl Folder {
    /// Starts building the folder `target` aside.
    pub fn new(target: &Path) -> Result<Self> {
        let staged = StagedDir::create(target)?;
        let chunks = staged.path().join("chunks");
        fs::create_dir(&chunks).with_context(|| format!("{}: cannot create", chunks.display()))?;
        Ok(Self { staged, manifest: Mutex::new((Vec::new(), true)) })
    }
}

impl Printer for Folder {
    fn render(&self, result: &FileResult) -> Result<Vec<u8>> {
        let (base, ext) = (chunk_file_base(&result.rel), chunk_ext(&result.rel));
        // A decoded file's records index its text view, not its bytes: the view goes beside
        // the chunks, so that the output alone shows (and `verify` can check) what was cut.
        let view = match result.encoding {
            Some(encoding) if !result.chunks.is_empty() => {
                let view_ext = if encoding.is_document() { "md" } else { ext };
                let file = format!("{}.view.{view_ext}", base.replacen("chunks/", "views/", 1));
                let path = self.staged.path().join(&file);
                write_new(&path, text_view(&result.chunks).as_bytes())?;
                Some(file)
            }
            _ => None,
        };
        render_listed(&result.chunks, |buf, idx, chunk| {
            let file = format!("{base}.{:04}.{ext}", idx + 1);
            let path = self.staged.path().join(&file);
            let mut body = Vec::with_capacity(chunk.header.len() + chunk.text.len());
            // A format without comments (JSON) has no room for a header in its own text: the
            // manifest's entry keeps it, the file stays data.
            let in_text = cleave_engine::header_in_text(&chunk.language);
            if in_text {
                body.extend_from_slice(chunk.header.as_bytes());
            }
            body.extend_from_slice(chunk.text.as_bytes());
            write_new(&path, &body)?;
            let mut entry = ManifestChunk::of(chunk, file);
            entry.view = view.as_deref();
            entry.header = (!in_text && !chunk.header.is_empty()).then_some(chunk.header.as_str());
            serde_json::to_writer(&mut *buf, &entry)?;
            Ok(())
        })
    }

    fn write(&self, rendered: &[u8]) -> Result<()> {
        let mut state = self.manifest.lock().unwrap_or_else(PoisonError::into_inner);
        let (buf, first) = &mut *state;
        append_listed(buf, first, rendered);
        Ok(())
    }

    fn finish(self: Box<Self>, files: &[FileEntry], run: &RunInfo) -> Result<()> {
        let (chunks, _) = self.manifest.into_inner().unwrap_or_else(PoisonError::into_inner);
        let mut manifest = Vec::with_capacity(chunks.len() + 4096);
        manifest.extend_from_slice(GENERATOR.as_bytes());
        manifest.extend_from_slice(b", \"run\": ");
        serde_json::to_writer(&mut manifest, run)?;
        manifest.extend_from_slice(b", \"files\": ");
        serde_json::to_writer(&mut manifest, files)?;
        manifest.extend_from_slice(b", \"chunks\": [");
        manifest.extend_from_slice(&chunks);
        manifest.extend_from_slice(b"\n]}\n");
        let path = self.staged.path().join("manifest.json");
        let writing = crate::atomic::write_guard()?;
        fs::write(&path, manifest).with_context(|| format!("{}: cannot write", path.display()))?;
        // Released before the commit, which takes the handler's other lock.
        drop(writing);
        self.staged.commit()
    }
}

/// Writes a file that must not exist yet: two outputs can never share a file silently.
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let _writing = crate::atomic::write_guard()?;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot create", parent.display()))?;
    }
    let mut out = fs::File::options()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("{}: cannot create", path.display()))?;
    out.write_all(bytes).with_context(|| format!("{}: cannot write", path.display()))
}

/// The text view chunks index, rebuilt from them: bodies in order, each from where the one
/// before it ended (with overlap, bodies repeat the end of the one before).
fn text_view(chunks: &[Chunk]) -> String {
    let mut view = String::new();
    for c in chunks {
        let skip = view.len().saturating_sub(c.byte_start);
        view.push_str(c.text.get(skip..).unwrap_or(""));
    }
    view
}

/// `chunks/<readable tail>.<hash>` for a source path: the tail keeps the name readable, the
/// hash of the whole path keeps names unique (two paths with the same tail, or whose
/// characters both fold to `_`, differ in it). The chunk index and extension follow.
fn chunk_file_base(path: &str) -> String {
    const TAIL_BYTES: usize = 80;
    let flat: Vec<char> = path
        .chars()
        .map(|c| match c {
            '/' => '~',
            c if c.is_alphanumeric() || "._-".contains(c) => c,
            _ => '_',
        })
        .collect();
    // The tail is bounded in bytes, not chars: a file name may take 255 bytes, and a CJK char
    // takes three.
    let mut tail = String::new();
    for c in flat.iter().rev() {
        if tail.len() + c.len_utf8() > TAIL_BYTES {
            break;
        }
        tail.insert(0, *c);
    }
    let hash = xxhash_rust::xxh3::xxh3_64(path.as_bytes());
    format!("chunks/{tail}.{:012x}", hash >> 16)
}

/// The source's extension, kept so that a chunk file still reads as its language (`txt` when
/// there is none, or it is not a plain short extension).
fn chunk_ext(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.')
        .map(|(_, e)| e)
        .filter(|e| !e.is_empty() && e.len() <= 8 && e.chars().all(|c| c.is_ascii_alphanumeric()))
        .unwrap_or("txt")
}

/// A chunk in the manifest: the record without its text, plus the chunk file's name.
#[derive(Debug, Serialize)]
struct ManifestChunk<'a> {
    id: &'a str,
    file: String,
    path: &'a str,
    language: &'a str,
    kind: ContentKind,
    byte_start: usize,
    byte_end: usize,
    line_start: usize,
    line_end: usize,
    tokens: usize,
    symbols: &'a [String],
    scope: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<&'a Part>,
    #[serde(skip_serializing_if = "Option::is_none")]
    provenance: Option<&'a Provenance>,
    #[serde(skip_serializing_if = "Option::is_none")]
    classification: Option<&'a Classification>,
    /// For a decoded file: its text view's file in the output, which the ranges index.
    #[serde(skip_serializing_if = "Option::is_none")]
    view: Option<&'a str>,
    /// The header, for a chunk whose file could not hold it (a format without comments).
    #[serde(skip_serializing_if = "Option::is_none")]
    header: Option<&'a str>,
}

impl<'a> ManifestChunk<'a> {
    fn of(chunk: &'a Chunk, file: String) -> Self {
        Self {
            id: &chunk.id,
            file,
            path: &chunk.path,
            language: &chunk.language,
            kind: chunk.kind,
            byte_start: chunk.byte_start,
            byte_end: chunk.byte_end,
            line_start: chunk.line_start,
            line_end: chunk.line_end,
            tokens: chunk.tokens,
            symbols: &chunk.symbols,
            scope: &chunk.scope,
            part: chunk.part.as_ref(),
            provenance: chunk.provenance.as_ref(),
            classification: chunk.classification.as_ref(),
            view: None,
            header: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_file_names_differ_where_paths_do() {
        let names: Vec<String> = ["a b.py", "a_b.py", "a?b.py", "x/a b.py", "é.py", "e.py"]
            .iter()
            .map(|p| chunk_file_base(p))
            .collect();
        let unique: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        let deep = format!("{}/same/tail.rs", "d".repeat(300));
        let deeper = format!("{}/same/tail.rs", "e".repeat(300));
        assert_ne!(chunk_file_base(&deep), chunk_file_base(&deeper));
        assert!(chunk_file_base(&deep).len() < 120);
    }
}
