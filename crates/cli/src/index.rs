//! `cleave index`: chunks a path into the index that `outline`, `select` and `read` use while it
//! is current (see `cleave_engine::index_root`).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use cleave_engine::index_root;

use crate::agent::index_dir;
use crate::args::{IndexArgs, config};
use crate::guard::{self, Output, Root};
use crate::term;

pub fn run(args: &IndexArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let chunking = &args.chunking;
    if chunking.no_index {
        anyhow::bail!("--no-index: `cleave index` writes the index");
    }
    let root = Root::new(&args.path)?;
    let dir = index_dir(&args.path, chunking.index.as_deref());
    let out = Output::index(&dir)?;
    guard::check_cache(&root, &out, &[], None)?;
    let config = config(chunking.chunk_budget, chunking.unit, &chunking.tokenizer)?;
    let settings = cleave_engine::Settings::new(config)
        .with_max_file_size(chunking.walk.max_file_size)
        .with_outline(true);
    let threads = crate::chunk::threads(chunking.threads);
    let options = chunking.walk.options(threads, vec![out.resolved.clone()]);
    let report = index_root(&args.path, &options, &settings, threads, &dir)
        .with_context(|| format!("index {}", dir.display()))?;
    term::note(format_args!(
        "cleave index: {} files, {} chunks into {} ({} unchanged, {} from the cache, {} chunked, {} skipped) in {:.2} s",
        report.files,
        report.chunks,
        dir.display(),
        report.reused,
        report.loaded,
        report.chunked,
        report.skipped,
        started.elapsed().as_secs_f64()
    ));
    Ok(if report.errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
