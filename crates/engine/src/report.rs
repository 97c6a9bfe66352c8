//! What a run says about its files: one entry per walked entry, and a typed summary.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::decode::Encoding;
use crate::file::FileResult;
use crate::outcome::Outcome;

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
    /// Size in bytes (of the text view, for a decoded file).
    pub bytes: u64,
    /// What the text view was decoded from, when it is not the file's own UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
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
    /// Whether the file could not be read (not serialised: the outcome says it).
    #[serde(skip)]
    pub is_error: bool,
}

impl FileEntry {
    /// The entry for a processed file.
    pub fn of(result: &FileResult) -> Self {
        Self {
            path: result.rel.clone(),
            outcome: result.outcome.clone(),
            language: result.language.clone(),
            bytes: result.bytes,
            encoding: result.encoding,
            chunks: result.chunks.len(),
            diagnostics: result.diagnostics.clone(),
            doc_type: result.doc_class.as_ref().map(|c| c.0.clone()),
            doc_type_confidence: result.doc_class.as_ref().map(|c| c.1),
            is_error: result.is_error(),
        }
    }
}

/// Counts over a run's entries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Entries (files and skipped entries).
    pub files: usize,
    /// Chunked by their own atomizer.
    pub chunked: usize,
    /// Chunked by a coarser atomizer.
    pub fallback: usize,
    /// Skipped, by kind of reason.
    pub skipped: BTreeMap<&'static str, usize>,
    /// Chunks written.
    pub chunks: usize,
    /// Bytes chunked.
    pub bytes: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Worker threads.
    pub threads: usize,
    /// Entries that could not be read.
    #[serde(skip)]
    pub errors: usize,
}

impl Summary {
    /// Counts one entry.
    pub fn add(&mut self, entry: &FileEntry) {
        self.files += 1;
        match &entry.outcome {
            Outcome::Chunked => self.chunked += 1,
            Outcome::Fallback { .. } => self.fallback += 1,
            Outcome::Skipped { reason } => *self.skipped.entry(reason.kind()).or_default() += 1,
        }
        self.chunks += entry.chunks;
        self.bytes += entry.bytes;
        self.errors += usize::from(entry.is_error);
    }

    /// Entries skipped, whatever the reason.
    pub fn n_skipped(&self) -> usize {
        self.skipped.values().sum()
    }

    /// The one-line summary printed on stderr.
    pub fn line(&self) -> String {
        use std::fmt::Write as _;
        let mut line = format!(
            "cleave: {} files: {} chunked, {} fallback, {} skipped",
            self.files,
            self.chunked,
            self.fallback,
            self.n_skipped()
        );
        if !self.skipped.is_empty() {
            let kinds: Vec<String> = self.skipped.iter().map(|(k, v)| format!("{v} {k}")).collect();
            let _ = write!(line, " ({})", kinds.join(", "));
        }
        let _ = write!(
            line,
            " → {} chunks from {:.1} MB in {:.2} s on {} threads",
            self.chunks,
            self.bytes as f64 / 1e6,
            self.seconds,
            self.threads
        );
        line
    }
}
