//! `cleave outline`: what an agent reads first. Per file its language or document type, and
//! its symbols or numbered sections with lines and chunk ids; folders grouped by directory.
//! Built from the engine's per-file results, the same chunks `cleave chunk` writes.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Result;
use cleave_engine::{ChunkSizer, FileResult, Outcome, OutlineEntry};
use serde::Serialize;

use crate::args::{OutlineArgs, OutlineFormat, config};
use crate::term;

/// One file of the outline.
#[derive(Serialize)]
struct FileOutline {
    path: String,
    #[serde(flatten)]
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc_type_confidence: Option<f32>,
    bytes: u64,
    chunks: Vec<String>,
    entries: Vec<OutlineEntry>,
}

impl FileOutline {
    fn of(result: FileResult) -> Self {
        Self {
            chunks: result.chunks.iter().map(|c| c.id.clone()).collect(),
            path: result.rel,
            outcome: result.outcome,
            language: result.language,
            doc_type: result.doc_class.as_ref().map(|c| c.0.clone()),
            doc_type_confidence: result.doc_class.map(|c| c.1),
            bytes: result.bytes,
            entries: result.outline.unwrap_or_default(),
        }
    }
}

pub fn run(args: &OutlineArgs) -> Result<ExitCode> {
    let (results, errors) = crate::agent::results(&args.path, &args.chunking, None, true)?;
    let files: Vec<FileOutline> = results.into_iter().map(FileOutline::of).collect();
    let out = match args.format {
        OutlineFormat::Json => {
            let mut out = serde_json::to_vec(&serde_json::json!({ "files": files }))?;
            out.push(b'\n');
            out
        }
        OutlineFormat::Text => {
            let measure = config(
                args.budget.unwrap_or(1000).max(64),
                args.chunking.unit,
                &args.chunking.tokenizer,
            )?;
            render_within(&files, args.budget, measure.sizer()).into_bytes()
        }
    };
    term::stdout(&out)?;
    Ok(if errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The deepest text outline that fits `budget`, saying what was left out.
fn render_within(files: &[FileOutline], budget: Option<usize>, sizer: &dyn ChunkSizer) -> String {
    let deepest = files.iter().flat_map(|f| &f.entries).map(|e| e.depth + 1).max().unwrap_or(0);
    let total: usize = files.iter().map(|f| f.entries.len()).sum();
    let Some(budget) = budget else { return render(files, deepest) };
    // Levels 0..depth of entries, from all of them down to files alone.
    for depth in (0..=deepest).rev() {
        let mut text = render(files, depth);
        let kept: usize = files.iter().flat_map(|f| &f.entries).filter(|e| e.depth < depth).count();
        if kept < total {
            let _ = writeln!(
                text,
                "({} of {total} entries left out: those nested deeper than {depth} levels; a larger --budget or --format json shows them)",
                total - kept
            );
        }
        if sizer.size(&text) <= budget {
            return text;
        }
    }
    // Even the file list is too long: as many files as fit.
    let mut n = files.len();
    loop {
        let mut text = render(&files[..n], 0);
        let _ = writeln!(text, "({} more files and every entry left out)", files.len() - n);
        if n == 0 || sizer.size(&text) <= budget {
            return if sizer.size(&text) <= budget { text } else { String::new() };
        }
        n /= 2;
    }
}

/// Files grouped by folder, with their entries up to `depth` levels.
fn render(files: &[FileOutline], depth: usize) -> String {
    let mut out = String::new();
    let mut folder = None;
    for f in files {
        let (dir, name) = f.path.rsplit_once('/').map_or(("", f.path.as_str()), |(d, n)| (d, n));
        if folder != Some(dir) {
            if !dir.is_empty() {
                let _ = writeln!(out, "{dir}/");
            }
            folder = Some(dir);
        }
        let indent = if dir.is_empty() { "" } else { "  " };
        let _ = write!(out, "{indent}{name}");
        match &f.outcome {
            Outcome::Skipped { reason } => {
                let _ = writeln!(out, " · skipped: {reason}");
                continue;
            }
            Outcome::Fallback { reason } => {
                let _ = write!(out, " · fallback: {reason}");
            }
            Outcome::Chunked => {}
        }
        if let Some(lang) = &f.language {
            let _ = write!(out, " · {lang}");
        }
        if let (Some(t), Some(c)) = (&f.doc_type, f.doc_type_confidence) {
            let _ = write!(out, " · {t} ({c:.2})");
        }
        let n = f.chunks.len();
        let _ = writeln!(out, " · {n} chunk{}", if n == 1 { "" } else { "s" });
        for e in f.entries.iter().filter(|e| e.depth < depth) {
            let pad = "  ".repeat(e.depth + 1);
            let title = match &e.number {
                Some(number) => format!("{number} {}", e.label),
                None => e.label.clone(),
            };
            let lines = if e.line_start == e.line_end {
                format!("L{}", e.line_start)
            } else {
                format!("L{}-{}", e.line_start, e.line_end)
            };
            let ids: Vec<&str> = e.chunks.iter().map(|id| &id[..id.len().min(8)]).collect();
            let _ = writeln!(out, "{indent}{pad}{title}  {lines}  @{}", ids.join(","));
        }
    }
    out
}
