//! `cleave`: walks a tree in parallel and writes chunks an LLM can use on their own.
//!
//! The walk is sorted and results are written in path order, so the output is byte-identical
//! at any thread count. Files are processed in batches: workers read, atomize, pack and render
//! a batch while the main thread writes the previous results in order, which bounds memory by
//! a batch rather than by the corpus.

mod args;
mod json;
mod output;
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
use rayon::prelude::*;

use crate::args::{ChunkArgs, Cli, Command, DumpArgs, FormatArg, SizeArgs, TokenizerArg, UnitArg};
use crate::output::{FileEntry, Sink};
use crate::process::{Outcome, Settings, process};

/// Files handed to the workers at once, per thread.
const BATCH_PER_THREAD: usize = 64;

/// Files above this size are "large": see the batch loop in `run_chunk`.
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
    let walked = walk::walk(&args.path, args.hidden, args.no_ignore)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
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
    // Large files all go to one thread (the one running this loop) while the others take the
    // small files: a large file's syntax tree costs tens of bytes per source byte, and each
    // thread's allocator keeps its own high-water mark, so spreading large files over threads
    // would multiply the peak memory of the run.
    let write_res: Result<()> = pool.install(|| {
        let mut large_ctx = ParseContext::new();
        for batch in walked.files.chunks(BATCH_PER_THREAD * threads) {
            let sink_ref = &sink;
            let work = |ctx: &mut ParseContext, input: &walk::Input| {
                let result = process(input, &settings, ctx);
                let bytes = sink_ref.render(&result);
                (FileEntry::of(&result), result.is_error, bytes)
            };
            let (large, small): (Vec<usize>, Vec<usize>) =
                (0..batch.len()).partition(|&i| batch[i].size > LARGE_FILE);
            let (large_out, small_out) = rayon::join(
                || large.iter().map(|&i| work(&mut large_ctx, &batch[i])).collect::<Vec<_>>(),
                || {
                    small
                        .par_iter()
                        .map_init(ParseContext::new, |ctx, &i| work(ctx, &batch[i]))
                        .collect::<Vec<_>>()
                },
            );
            let mut slots: Vec<Option<_>> = (0..batch.len()).map(|_| None).collect();
            for (i, out) in large.iter().zip(large_out).chain(small.iter().zip(small_out)) {
                slots[*i] = Some(out);
            }
            for (entry, is_error, bytes) in slots.into_iter().flatten() {
                let bytes =
                    bytes.with_context(|| format!("{}: cannot write chunks", entry.path))?;
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
            }
            if let Some(bar) = &progress {
                bar.inc(batch.len() as u64);
            }
        }
        Ok(())
    });
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
        "unit": config.unit().name(),
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
