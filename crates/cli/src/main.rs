//! `cleave`: walks a tree in parallel and writes chunks an LLM can use on their own.
//!
//! The walk is sorted and results are written in path order, so the output is byte-identical
//! at any thread count. Workers read, atomize, pack and render files in path order while the
//! main thread writes the finished results in order; a worker takes a file only while few enough
//! results wait, which bounds memory by a window of files rather than by the corpus.

mod args;
mod json;
mod output;
mod pipeline;
mod process;
mod verify;
mod walk;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use cleave_code::ParseContext;
use cleave_core::{ChunkConfig, Tokenizer, Unit};

use crate::args::{ChunkArgs, Cli, Command, DumpArgs, FormatArg, SizeArgs, TokenizerArg, UnitArg};
use crate::output::{FileEntry, Sink};
use crate::process::{Outcome, Settings, process};

/// Bytes of files (each counted 4 KiB larger) that may be in progress or waiting to be written,
/// per thread: bounds memory by a window rather than by the corpus, and lets the other threads
/// run ahead while one works through a large file.
const WINDOW_PER_THREAD: u64 = 4 << 20;

/// Files above this size are "large": they all go to one worker (see `pipeline`).
const LARGE_FILE: u64 = 256 * 1024;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match cli.command {
        Command::Chunk(args) => run_chunk(&args),
        Command::DumpAtoms(args) => run_dump(&args),
        Command::Verify(args) => verify::run(&args),
    };
    match res {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`cleave chunk . | head`) is how the reader says it has enough.
            if err.chain().any(|e| {
                e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("cleave: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// A validated configuration from command-line values.
pub(crate) fn build_config(size: &SizeArgs) -> Result<ChunkConfig> {
    let tokenizer = match size.tokenizer {
        TokenizerArg::O200k => Tokenizer::O200k,
        TokenizerArg::Cl100k => Tokenizer::Cl100k,
    };
    let unit = match size.unit {
        UnitArg::Chars => Unit::Chars,
        UnitArg::Bytes => Unit::Bytes,
        UnitArg::Estimate => Unit::Estimate,
        UnitArg::Tokens => Unit::Tokens(tokenizer),
    };
    Ok(ChunkConfig::new(size.budget, unit)?
        .with_overlap(size.overlap)?
        .with_headers(!size.no_headers))
}

fn run_chunk(args: &ChunkArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let config = build_config(&args.size)?;
    let settings = Settings { config: config.clone(), max_file_size: args.max_file_size };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let walked = walk::walk(&args.path, args.hidden, args.no_ignore, threads)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;

    let mut sink = match &args.out {
        Some(dir) => Sink::dir(dir, args.force)?,
        None => Sink::stream(args.format == FormatArg::Json, args.output.as_deref())?,
    };
    let progress = progress_bar(walked.files.len(), args.quiet);

    let mut entries = Vec::with_capacity(walked.files.len());
    let mut n_chunks = 0usize;
    let mut n_bytes = 0u64;
    let mut n_errors = walked.errors.len();
    for (path, err) in &walked.errors {
        eprintln!("cleave: {path}: {err}");
    }
    // Workers read, atomize, pack and render files in path order; this thread writes each
    // file's records as soon as the files before it are written. Large files all go to one
    // worker (see `pipeline`).
    let renderer = sink.renderer();
    let work = |ctx: &mut ParseContext, input: &walk::Input| {
        let result = process(input, &settings, ctx);
        let bytes = renderer.render(&result);
        (FileEntry::of(&result), result.is_error, bytes)
    };
    let write_res: Result<()> = pipeline::run_ordered(
        &pool,
        &walked.files,
        pipeline::Plan::new(
            WINDOW_PER_THREAD * threads as u64,
            walked.files.iter().map(|f| (f.size + 4096, f.size > LARGE_FILE)),
        ),
        ParseContext::new,
        work,
        |(entry, is_error, bytes)| {
            let bytes = bytes.with_context(|| format!("{}: cannot write chunks", entry.path))?;
            sink.write(&bytes)?;
            if is_error {
                n_errors += 1;
                if let Outcome::Skipped { reason } = &entry.outcome {
                    eprintln!("cleave: {}: {reason}", entry.path);
                }
            }
            n_chunks += entry.chunks;
            n_bytes += entry.bytes;
            entries.push(entry);
            if let Some(bar) = &progress {
                bar.inc(1);
            }
            Ok(())
        },
    );
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if let Err(err) = write_res {
        sink.abandon();
        return Err(err);
    }
    let elapsed = started.elapsed();
    let run = serde_json::json!({
        "budget": config.budget(),
        "unit": config.unit_name(),
        "overlap": config.overlap(),
        "headers": config.headers(),
        "root": args.path.to_string_lossy(),
    });
    sink.finish(&entries, &run)?;

    let summary = summarize(&entries, n_chunks, n_bytes, elapsed.as_secs_f64(), threads);
    if let Some(path) = &args.report {
        let report = serde_json::json!({ "run": run, "summary": summary, "files": entries });
        std::fs::write(path, serde_json::to_vec_pretty(&report)?)
            .with_context(|| format!("{}: cannot write report", path.display()))?;
    }
    if !args.quiet {
        eprintln!("{}", summary_line(&summary));
    }
    Ok(if n_errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn summarize(
    entries: &[FileEntry],
    n_chunks: usize,
    n_bytes: u64,
    secs: f64,
    threads: usize,
) -> serde_json::Value {
    let mut chunked = 0;
    let mut fallback = 0;
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    for e in entries {
        match &e.outcome {
            Outcome::Chunked => chunked += 1,
            Outcome::Fallback { .. } => fallback += 1,
            Outcome::Skipped { reason } => {
                *skipped.entry(skip_kind(reason).to_owned()).or_default() += 1;
            }
        }
    }
    serde_json::json!({
        "files": entries.len(),
        "chunked": chunked,
        "fallback": fallback,
        "skipped": skipped,
        "chunks": n_chunks,
        "bytes": n_bytes,
        "seconds": (secs * 1000.0).round() / 1000.0,
        "threads": threads,
    })
}

/// A short, stable name for a skip reason, for the summary's counts.
fn skip_kind(reason: &str) -> &'static str {
    match reason {
        r if r.starts_with("binary") => "binary",
        r if r.starts_with("empty") => "empty",
        r if r.starts_with("not UTF-8") => "not-utf8",
        r if r.starts_with("over the size limit") => "too-large",
        r if r.starts_with("unreadable") => "unreadable",
        _ => "other",
    }
}

fn summary_line(s: &serde_json::Value) -> String {
    let skipped: Vec<String> = s["skipped"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| format!("{v} {k}")).collect())
        .unwrap_or_default();
    let n_skipped: u64 =
        s["skipped"].as_object().map_or(0, |m| m.values().filter_map(|v| v.as_u64()).sum());
    let mb = s["bytes"].as_f64().unwrap_or(0.0) / 1e6;
    let secs = s["seconds"].as_f64().unwrap_or(0.0);
    let mut line = format!(
        "cleave: {} files: {} chunked, {} fallback, {} skipped",
        s["files"], s["chunked"], s["fallback"], n_skipped
    );
    if !skipped.is_empty() {
        line.push_str(&format!(" ({})", skipped.join(", ")));
    }
    line.push_str(&format!(
        " → {} chunks from {mb:.1} MB in {secs:.2} s on {} threads",
        s["chunks"], s["threads"]
    ));
    line
}

fn progress_bar(len: usize, quiet: bool) -> Option<indicatif::ProgressBar> {
    if quiet || len < 200 || !io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}

fn run_dump(args: &DumpArgs) -> Result<ExitCode> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("{}: cannot read as UTF-8", args.file.display()))?;
    let rel = args.file.to_string_lossy().replace('\\', "/");
    print!("{}", process::dump(&rel, &text));
    Ok(ExitCode::SUCCESS)
}
