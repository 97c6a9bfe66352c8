//! Writing results: JSON Lines, one JSON document, or a chunk-file folder with a manifest.
//!
//! Records are rendered on the worker threads (serialising is not free: it should not stand
//! on one thread behind the parallel work) and written in path order by the main thread.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use cleave_core::Chunk;
use serde::Serialize;

use crate::json;
use crate::process::{FileResult, Outcome};

/// The manifest's generator tag: how `--out` recognises a folder it may replace.
pub const GENERATOR: &str = "cleave";

/// One file's line in the report and the manifest.
#[derive(Debug, Clone, Serialize)]
pub struct FileEntry {
    /// Relative path.
    pub path: String,
    /// chunked, fallback or skipped, with the reason.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Language or format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Size in bytes.
    pub bytes: u64,
    /// Number of chunks.
    pub chunks: usize,
    /// Atomizer notes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
    /// Document type, for prose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<String>,
    /// Confidence of the document type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_type_confidence: Option<f32>,
}

impl FileEntry {
    /// The entry for a processed file.
    pub fn of(result: &FileResult) -> Self {
        Self {
            path: result.rel.clone(),
            outcome: result.outcome.clone(),
            language: result.language.clone(),
            bytes: result.bytes,
            chunks: result.chunks.len(),
            diagnostics: result.diagnostics.clone(),
            doc_type: result.doc_class.as_ref().map(|c| c.0.clone()),
            doc_type_confidence: result.doc_class.as_ref().map(|c| c.1),
        }
    }
}

/// A chunk in the manifest: the record without its text, plus the chunk file's name.
#[derive(Debug, Clone, Serialize)]
pub struct ManifestChunk<'a> {
    /// Stable id.
    pub id: &'a str,
    /// Chunk file, relative to the manifest.
    pub file: String,
    /// Source path.
    pub path: &'a str,
    /// Language.
    pub language: &'a str,
    /// Code, prose or data.
    pub kind: cleave_core::ContentKind,
    /// Byte range of the body in the source.
    pub byte_start: usize,
    /// End of the byte range.
    pub byte_end: usize,
    /// First line.
    pub line_start: usize,
    /// Last line.
    pub line_end: usize,
    /// Size of header + body.
    pub tokens: usize,
    /// Symbols wholly inside.
    pub symbols: &'a [String],
    /// Scope at the start.
    pub scope: &'a [String],
    /// Part of an oversize atom.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<&'a cleave_core::Part>,
    /// Provenance, for documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<&'a cleave_core::Provenance>,
    /// Classification, for documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub classification: Option<&'a cleave_core::Classification>,
}

/// Where records go.
pub enum Sink {
    /// JSON Lines to a writer.
    Jsonl(Box<dyn Write + Send + Sync>),
    /// One JSON document to a writer: chunks streamed, files at the end.
    Json { out: Box<dyn Write + Send + Sync>, first: bool },
    /// A chunk-file folder, built in a temporary folder and renamed into place at the end.
    Dir { tmp: PathBuf, target: PathBuf, manifest_chunks: Vec<u8>, first: bool },
}

/// Renders records for a [`Sink`]; shared by the worker threads.
pub enum Renderer {
    Jsonl,
    Json,
    /// Writes chunk files into this folder and renders manifest entries.
    Dir(PathBuf),
}

impl Renderer {
    /// Renders one file's records; runs on worker threads. For a folder it also writes the
    /// chunk files and returns the manifest entries.
    pub fn render(&self, result: &FileResult) -> io::Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(
            result.chunks.iter().map(|c| c.text.len() + c.header.len() + 256).sum(),
        );
        match self {
            Renderer::Jsonl => {
                for chunk in &result.chunks {
                    json::write_chunk(&mut buf, chunk)?;
                    buf.push(b'\n');
                }
            }
            Renderer::Json => {
                for chunk in &result.chunks {
                    buf.extend_from_slice(b",\n");
                    json::write_chunk(&mut buf, chunk)?;
                }
            }
            Renderer::Dir(tmp) => {
                for (idx, chunk) in result.chunks.iter().enumerate() {
                    let file = chunk_file_name(chunk, idx);
                    fs::write(tmp.join(&file), chunk.rendered())?;
                    buf.extend_from_slice(b",\n");
                    serde_json::to_writer(&mut buf, &manifest_chunk(chunk, file))?;
                }
            }
        }
        Ok(buf)
    }
}

impl Sink {
    /// A sink writing `format` to stdout or to `output`.
    pub fn stream(json: bool, output: Option<&Path>) -> Result<Self> {
        let out: Box<dyn Write + Send + Sync> = match output {
            Some(path) => Box::new(io::BufWriter::with_capacity(
                1 << 16,
                fs::File::create(path)
                    .with_context(|| format!("{}: cannot create", path.display()))?,
            )),
            None => Box::new(io::BufWriter::with_capacity(1 << 16, io::stdout())),
        };
        Ok(if json { Sink::Json { out, first: true } } else { Sink::Jsonl(out) })
    }

    /// A sink writing chunk files into `target`, refusing a non-empty folder that is not an
    /// earlier cleave output unless `force`.
    pub fn dir(target: &Path, force: bool) -> Result<Self> {
        if target.exists() {
            if !target.is_dir() {
                bail!("{}: exists and is not a folder", target.display());
            }
            let empty = fs::read_dir(target)?.next().is_none();
            if !empty && !force && !is_cleave_output(target) {
                bail!(
                    "{}: folder is not empty and holds no cleave manifest.json; use --force to replace it",
                    target.display()
                );
            }
        }
        let parent =
            target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot create", parent.display()))?;
        let name =
            target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let tmp = parent.join(format!(".{name}.cleave-tmp-{}", std::process::id()));
        if tmp.exists() {
            fs::remove_dir_all(&tmp)?;
        }
        fs::create_dir_all(tmp.join("chunks"))
            .with_context(|| format!("{}: cannot create", tmp.display()))?;
        Ok(Sink::Dir { tmp, target: target.to_owned(), manifest_chunks: Vec::new(), first: true })
    }

    /// What renders records for this sink on worker threads, while the sink writes.
    pub fn renderer(&self) -> Renderer {
        match self {
            Sink::Jsonl(_) => Renderer::Jsonl,
            Sink::Json { .. } => Renderer::Json,
            Sink::Dir { tmp, .. } => Renderer::Dir(tmp.clone()),
        }
    }

    /// Writes rendered records, in order.
    pub fn write(&mut self, rendered: &[u8]) -> io::Result<()> {
        match self {
            Sink::Jsonl(out) => out.write_all(rendered),
            Sink::Json { out, first } => {
                if rendered.is_empty() {
                    return Ok(());
                }
                if *first {
                    out.write_all(b"{\"chunks\": [")?;
                    *first = false;
                    out.write_all(&rendered[1..])
                } else {
                    out.write_all(rendered)
                }
            }
            Sink::Dir { manifest_chunks, first, .. } => {
                if rendered.is_empty() {
                    return Ok(());
                }
                if *first {
                    *first = false;
                    manifest_chunks.extend_from_slice(&rendered[2..]);
                } else {
                    manifest_chunks.extend_from_slice(rendered);
                }
                Ok(())
            }
        }
    }

    /// Ends the output: closes the JSON document, or writes the manifest and moves the folder
    /// into place.
    pub fn finish(self, files: &[FileEntry], run: &serde_json::Value) -> Result<()> {
        match self {
            Sink::Jsonl(mut out) => Ok(out.flush()?),
            Sink::Json { mut out, first } => {
                if first {
                    out.write_all(b"{\"chunks\": [")?;
                }
                out.write_all(b"\n], \"run\": ")?;
                serde_json::to_writer(&mut out, run)?;
                out.write_all(b", \"files\": ")?;
                serde_json::to_writer(&mut out, files)?;
                out.write_all(b"}\n")?;
                Ok(out.flush()?)
            }
            Sink::Dir { tmp, target, manifest_chunks, .. } => {
                let mut manifest = Vec::with_capacity(manifest_chunks.len() + 4096);
                manifest.extend_from_slice(b"{\"generator\": ");
                serde_json::to_writer(&mut manifest, GENERATOR)?;
                manifest.extend_from_slice(b", \"run\": ");
                serde_json::to_writer(&mut manifest, run)?;
                manifest.extend_from_slice(b", \"files\": ");
                serde_json::to_writer(&mut manifest, files)?;
                manifest.extend_from_slice(b", \"chunks\": [\n");
                manifest.extend_from_slice(&manifest_chunks);
                manifest.extend_from_slice(b"\n]}\n");
                fs::write(tmp.join("manifest.json"), manifest)?;
                if target.exists() {
                    fs::remove_dir_all(&target)
                        .with_context(|| format!("{}: cannot replace", target.display()))?;
                }
                fs::rename(&tmp, &target).with_context(|| {
                    format!("{}: cannot move output into place", target.display())
                })?;
                Ok(())
            }
        }
    }

    /// Removes a half-built folder after a failure.
    pub fn abandon(self) {
        if let Sink::Dir { tmp, .. } = self {
            let _ = fs::remove_dir_all(tmp);
        }
    }
}

fn is_cleave_output(dir: &Path) -> bool {
    let Ok(file) = fs::File::open(dir.join("manifest.json")) else { return false };
    let mut head = [0u8; 64];
    let n = io::Read::read(&mut io::BufReader::new(file), &mut head).unwrap_or(0);
    let head = String::from_utf8_lossy(&head[..n]);
    head.starts_with("{\"generator\": \"cleave\"")
}

/// `chunks/<flattened path>.<index>.<ext>`: unique per file and index, readable, and keeping
/// the source extension so the chunk still reads as its language.
fn chunk_file_name(chunk: &Chunk, idx: usize) -> String {
    let mut flat: String = chunk
        .path
        .chars()
        .map(|c| {
            if c == '/' {
                '~'
            } else if c.is_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if flat.len() > 120 {
        let cut = cleave_core::floor_char_boundary(&flat, flat.len() - 120);
        flat = format!("…{}", &flat[cut..]);
    }
    let ext =
        chunk.path.rsplit_once('.').map(|(_, e)| e).filter(|e| !e.contains('/') && e.len() <= 8);
    match ext {
        Some(ext) => format!("chunks/{flat}.{:04}.{ext}", idx + 1),
        None => format!("chunks/{flat}.{:04}.txt", idx + 1),
    }
}

fn manifest_chunk(chunk: &Chunk, file: String) -> ManifestChunk<'_> {
    ManifestChunk {
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
    }
}
