//! `cleave chunk`: the walk, the output checks, the ordered pipeline into one printer, the
//! summary and the report.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use cleave_engine::{
    Cache, FileEntry, Outcome, Produced, Settings, Summary, chunk_entries, chunk_entries_cached,
    walk,
};
use serde::Serialize;

use crate::args::{ChunkArgs, FormatArg};
use crate::atomic::{ensure_dir_target, remove_temporaries_on_signal};
use crate::guard::{self, GENERATOR, Output, Root};
use crate::printer::{Folder, Json, Jsonl, Printer, RunInfo, Stream};
use crate::term;

/// Most worker threads per core: more only costs memory and start-up.
const MAX_THREADS_PER_CORE: usize = 4;

pub fn run(args: &ChunkArgs) -> Result<ExitCode> {
    // First of all, so that an interrupt at any point ends with exit code 130 and no
    // temporaries left behind.
    remove_temporaries_on_signal();
    let started = Instant::now();
    let config = args.size.config()?.with_cuts(args.cuts.into());
    let settings = Settings::new(config.clone()).with_max_file_size(args.walk.max_file_size);
    let threads = threads(args.threads);

    // Outputs are checked against the input before anything is created or walked.
    let root = Root::new(&args.path)?;
    let out_file = args.output.as_deref().map(|p| Output::file(p, "-o")).transpose()?;
    let report = args.report.as_deref().map(|p| Output::file(p, "--report")).transpose()?;
    let out_dir = args.out.as_deref().map(Output::dir).transpose()?;
    let cache_dir = args.cache.as_deref().map(Output::cache).transpose()?;
    let files: Vec<&Output> = out_file.iter().chain(&report).collect();
    guard::check(&root, &files, out_dir.as_ref(), args.force)?;
    if let Some(dir) = &out_dir {
        ensure_dir_target(&dir.resolved)?;
    }
    if let Some(dir) = &cache_dir {
        guard::check_cache(&root, dir, &files, out_dir.as_ref())?;
    }
    let exclude = files
        .iter()
        .chain(&out_dir.as_ref())
        .chain(&cache_dir.as_ref())
        .map(|o| o.resolved.clone())
        .collect();
    let cache = cache_dir
        .as_ref()
        .map(|dir| Cache::open(&dir.resolved, &args.path, &settings))
        .transpose()
        .with_context(|| "--cache")?;
    let walked = walk(&args.path, &args.walk.options(threads, exclude))
        .with_context(|| format!("{}", args.path.display()))?;
    let pool = cleave_engine::worker_pool(threads).context("cannot start worker threads")?;

    let printer: Box<dyn Printer> = match (&out_dir, args.format) {
        (Some(dir), _) => Box::new(Folder::new(&dir.resolved)?),
        (None, FormatArg::Json) => {
            Box::new(Json::new(Stream::new(out_file.as_ref().map(Output::target))?))
        }
        (None, FormatArg::Jsonl) => {
            Box::new(Jsonl::new(Stream::new(out_file.as_ref().map(Output::target))?))
        }
    };
    let progress = progress_bar(walked.entries.len(), args.quiet);
    let mut entries = Vec::with_capacity(walked.entries.len());
    let mut summary = Summary { threads, ..Summary::default() };
    let printer_ref = &*printer;
    let receive = |(entry, rendered): (FileEntry, Result<Vec<u8>>)| {
        let rendered = rendered.with_context(|| format!("{}: cannot write chunks", entry.path))?;
        printer_ref.write(&rendered)?;
        if let Outcome::Skipped { reason } = &entry.outcome
            && reason.is_error()
        {
            term::warn(format_args!("{}: {reason}", entry.path));
        }
        summary.add(&entry);
        entries.push(entry);
        if let Some(bar) = &progress {
            bar.inc(1);
        }
        anyhow::Ok(())
    };
    let res = match &cache {
        None => chunk_entries(
            &pool,
            &walked.entries,
            &settings,
            |result| (FileEntry::of(&result), printer_ref.render(&result)),
            receive,
        ),
        Some(cache) => chunk_entries_cached(
            &pool,
            &walked.entries,
            &settings,
            cache,
            |produced| match produced {
                Produced::Fresh(result) => (FileEntry::of(&result), printer_ref.render(&result)),
                Produced::Cached(cached) => {
                    let mut entry = FileEntry::of(&cached.result);
                    entry.chunks = cached.records.iter().filter(|&&b| b == b'\n').count();
                    (entry, printer_ref.render_cached(cached))
                }
            },
            receive,
        ),
    };
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    // On an error the printer is dropped unfinished, which removes what it wrote.
    res?;
    summary.seconds = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
    let run = RunInfo {
        budget: config.budget(),
        unit: config.unit_name(),
        overlap: config.overlap(),
        headers: config.headers(),
        cuts: config.cuts(),
        root: args.path.to_string_lossy().into_owned(),
    };
    printer.finish(&entries, &run)?;
    if let Some(cache) = cache {
        cache.finish().with_context(|| "--cache: cannot write its stat table")?;
    }
    if let Some(report) = &report {
        write_report(report.target(), &run, &summary, &entries)?;
    }
    if !args.quiet {
        term::note(summary.line());
    }
    Ok(if summary.errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The thread count asked for, or one per core; clamped to a few per core.
pub fn threads(asked: Option<usize>) -> usize {
    // A count that no machine clamps needs no core count: `available_parallelism` reads the
    // cgroup files under /proc and /sys, about half a millisecond of system time per run.
    if let Some(n) = asked
        && n <= MAX_THREADS_PER_CORE
    {
        return n.max(1);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = cores * MAX_THREADS_PER_CORE;
    match asked {
        Some(n) if n > max => {
            term::warn(format_args!(
                "--threads {n} is more than {max} ({MAX_THREADS_PER_CORE} per core): using {max}"
            ));
            max
        }
        Some(n) => n.max(1),
        None => cores,
    }
}

#[derive(Serialize)]
struct Report<'a> {
    run: &'a RunInfo,
    summary: &'a Summary,
    files: &'a [FileEntry],
}

fn write_report(
    path: &std::path::Path,
    run: &RunInfo,
    summary: &Summary,
    files: &[FileEntry],
) -> Result<()> {
    let mut file = crate::printer::Stream::new(Some(path))?;
    let body = serde_json::to_vec_pretty(&Report { run, summary, files })?;
    // The generator tag first, so that a later run recognises the report as its own output.
    let what = || format!("{}: cannot write report", path.display());
    let mut all = Vec::with_capacity(body.len() + GENERATOR.len() + 1);
    all.extend_from_slice(GENERATOR.as_bytes());
    all.push(b',');
    all.extend_from_slice(&body[1..]);
    file.write_all(&all).with_context(what)?;
    file.finish()
}

fn progress_bar(len: usize, quiet: bool) -> Option<indicatif::ProgressBar> {
    if quiet || len < 200 || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed} (eta {eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}
