//! `cleave select` and `cleave read`, and what they share with `cleave outline`: the files of
//! a path chunked by the engine, the same records `cleave chunk` writes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use cleave_engine::{
    FileResult, IndexState, Query, QueryType, Settings, TermIndex, WalkOptions, chunk_path,
    read_ids, render_passages, select,
};
use serde::Serialize;

use crate::args::{ChunkingArgs, OutlineFormat, QueryTypeArg, ReadArgs, SelectArgs, config};
use crate::term;

/// The settings and walk of the chunking arguments; `chunk_budget` overrides their chunk budget.
fn settings(
    path: &Path,
    args: &ChunkingArgs,
    chunk_budget: Option<usize>,
    outline: bool,
) -> Result<(Settings, WalkOptions, usize, Option<PathBuf>)> {
    let config = config(chunk_budget.unwrap_or(args.chunk_budget), args.unit, &args.tokenizer)?;
    let settings =
        Settings::new(config).with_max_file_size(args.walk.max_file_size).with_outline(outline);
    let threads = crate::chunk::threads(args.threads);
    let index = if args.no_index { None } else { Some(index_dir(path, args.index.as_deref())) };
    // The index folder is never walked as input, wherever it is.
    let exclude = index.iter().filter_map(|d| std::fs::canonicalize(d).ok()).collect();
    Ok((settings, args.walk.options(threads, exclude), threads, index))
}

/// Where the index of `path` is: the folder given, or `.cleave-index` in the folder (beside
/// the file) that `path` names.
pub fn index_dir(path: &Path, given: Option<&Path>) -> PathBuf {
    match given {
        Some(dir) => dir.to_owned(),
        None if path.is_dir() => path.join(DEFAULT_INDEX),
        None => path.parent().unwrap_or(Path::new(".")).join(DEFAULT_INDEX),
    }
}

/// The index folder's name when none is given.
pub const DEFAULT_INDEX: &str = ".cleave-index";

/// The files of a path: what the caller's work made of an index that is current, or the
/// files chunked now.
pub enum Files<R> {
    /// The work's result over the index `cleave index` wrote, current for these options.
    Indexed(R),
    /// Every file chunked in this run, and how many could not be read.
    Chunked(Vec<FileResult>, usize),
}

/// The files under `path` (outlines too when asked): `work` over a current index when there is
/// one (it runs while the walk proves the index current), else chunked by the engine now. Says
/// why an index that is there was not used, or why the work gave nothing (an entry of the
/// cache no longer loads).
pub fn collect<R: Send>(
    path: &Path,
    args: &ChunkingArgs,
    chunk_budget: Option<usize>,
    outline: bool,
    work: impl FnOnce(&TermIndex) -> Option<R> + Send,
) -> Result<Files<R>> {
    let (settings, options, threads, index) = settings(path, args, chunk_budget, outline)?;
    if let Some(dir) = &index {
        let explicit = args.index.is_some();
        match TermIndex::open_with(dir, path, &options, &settings, work) {
            Ok(Ok((_, Some(out)))) => return Ok(Files::Indexed(out)),
            Ok(Ok((_, None))) => {
                term::warn(format_args!(
                    "index {}: an entry no longer loads: chunking on the fly",
                    dir.display()
                ));
            }
            Ok(Err(IndexState::Missing)) if !explicit && !dir.exists() => {}
            Ok(Err(state)) => {
                let why = match state {
                    IndexState::Missing if !dir.exists() => "is not there".to_owned(),
                    IndexState::Missing => format!(
                        "holds no index of this path for these chunking options (chunk budget {}, {}) and this build of cleave",
                        settings.config.budget(),
                        settings.config.unit_name()
                    ),
                    IndexState::Stale { changed } => {
                        format!("is stale ({changed} files changed since `cleave index`)")
                    }
                    IndexState::Broken => "does not read back (damaged)".to_owned(),
                };
                term::warn(format_args!("index {} {why}: chunking on the fly", dir.display()));
            }
            Err(e) => {
                term::warn(format_args!("index {}: {e}: chunking on the fly", dir.display()));
            }
        }
    }
    let (files, errors) = chunk_path(path, &options, &settings, threads)
        .with_context(|| format!("{}", path.display()))?;
    Ok(Files::Chunked(files, errors))
}

/// Every file's result under `path`, in path order, and how many could not be read: from a
/// current index when there is one, else chunked now.
pub fn results(
    path: &Path,
    args: &ChunkingArgs,
    chunk_budget: Option<usize>,
    outline: bool,
) -> Result<(Vec<FileResult>, usize)> {
    Ok(match collect(path, args, chunk_budget, outline, TermIndex::results)? {
        Files::Indexed(files) => (files, 0),
        Files::Chunked(files, errors) => (files, errors),
    })
}

pub fn run_select(args: &SelectArgs) -> Result<ExitCode> {
    if args.query.trim().is_empty() {
        anyhow::bail!("--query is empty: ask a question");
    }
    let measure = config(args.budget, args.chunking.unit, &args.chunking.tokenizer)?;
    let sizer = measure.sizer();
    // A chunk and its tag line must fit the selection's budget with room to spare.
    let chunk_budget = args.chunking.chunk_budget.min(args.budget * 2 / 3);
    if chunk_budget < args.chunking.chunk_budget {
        term::warn(format_args!(
            "chunks of {chunk_budget} units (--chunk-budget {} does not fit --budget {} with its tag)",
            args.chunking.chunk_budget, args.budget
        ));
    }
    let query = Query {
        text: args.query.clone(),
        keywords: args.keywords.clone(),
        kind: match args.query_type {
            Some(QueryTypeArg::Concept) => QueryType::Concept,
            Some(QueryTypeArg::Algorithm) => QueryType::Algorithm,
            Some(QueryTypeArg::Code) => QueryType::Code,
            None => QueryType::guess(&args.query),
        },
        max_segments: args.max_segments,
        budget: args.budget,
        passthrough: args.passthrough,
    };
    let found = collect(&args.path, &args.chunking, Some(chunk_budget), false, |index| {
        index.select(&query, sizer)
    })?;
    let (selection, errors) = match found {
        Files::Indexed(selection) => (selection, 0),
        Files::Chunked(files, errors) => (select(&files, &query, sizer), errors),
    };
    let out = match args.format {
        OutlineFormat::Json => json(&selection)?,
        OutlineFormat::Text => {
            let mut text = render_passages(&selection.passages);
            if selection.passages.is_empty() && selection.left_out > 0 {
                text.push_str(&format!(
                    "({} chunks match the query, but none fits --budget {} with its tag, or \
                     --max-segments is 0)\n",
                    selection.left_out, args.budget
                ));
            } else if selection.passages.is_empty() {
                text.push_str("(no chunk matches the query)\n");
            }
            text.into_bytes()
        }
    };
    term::stdout(&out)?;
    term::note(format_args!(
        "cleave select: {} passage{}, {} units of {} ({}), {} candidates, {} left out",
        selection.passages.len(),
        if selection.passages.len() == 1 { "" } else { "s" },
        selection.size,
        args.budget,
        selection.strategy,
        selection.candidates,
        selection.left_out
    ));
    Ok(if errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn json(value: &impl Serialize) -> Result<Vec<u8>> {
    let mut out = serde_json::to_vec(value)?;
    out.push(b'\n');
    Ok(out)
}

pub fn run_read(args: &ReadArgs) -> Result<ExitCode> {
    let measure = config(args.budget, args.chunking.unit, &args.chunking.tokenizer)?;
    let sizer = measure.sizer();
    for id in &args.ids {
        if id.len() < 4 {
            bail!("id {id:?}: give at least 4 characters");
        }
    }
    let (files, errors) = results(&args.path, &args.chunking, None, false)?;
    let result = read_ids(&files, &args.ids, args.budget, sizer);
    let out = match args.format {
        OutlineFormat::Json => json(&result)?,
        OutlineFormat::Text => {
            let mut text = render_passages(&result.passages);
            for (what, ids) in
                [("not found", &result.not_found), ("did not fit", &result.did_not_fit)]
            {
                if !ids.is_empty() {
                    text.push_str(&format!("({what}: {})\n", ids.join(", ")));
                }
            }
            text.into_bytes()
        }
    };
    term::stdout(&out)?;
    let missing = !result.not_found.is_empty();
    Ok(if errors > 0 || missing { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
