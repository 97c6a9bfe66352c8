//! `cleave select` and `cleave read`, and what they share with `cleave outline`: the files of
//! a path chunked by the engine, the same records `cleave chunk` writes.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use cleave_engine::{
    ChunkConfig, FileResult, Query, QueryType, Settings, chunk_path, read_ids, render_passages,
    select,
};
use serde::Serialize;

use crate::args::{ChunkingArgs, OutlineFormat, QueryTypeArg, ReadArgs, SelectArgs, unit};
use crate::term;

/// Chunks every file under `path` (outlines too when asked) with the engine; `chunk_budget`
/// overrides the arguments' chunk budget.
pub fn collect(
    path: &Path,
    args: &ChunkingArgs,
    chunk_budget: Option<usize>,
    outline: bool,
) -> Result<(Vec<FileResult>, usize)> {
    let unit = unit(args.unit, args.tokenizer);
    let config = ChunkConfig::new(chunk_budget.unwrap_or(args.chunk_budget), unit)?;
    let settings =
        Settings::new(config).with_max_file_size(args.walk.max_file_size).with_outline(outline);
    let threads = crate::chunk::threads(args.threads);
    chunk_path(path, &args.walk.options(threads, Vec::new()), &settings, threads)
        .with_context(|| format!("{}", path.display()))
}

pub fn run_select(args: &SelectArgs) -> Result<ExitCode> {
    let sizer = unit(args.chunking.unit, args.chunking.tokenizer).sizer();
    // A chunk and its tag line must fit the selection's budget with room to spare.
    let chunk_budget = args.chunking.chunk_budget.min(args.budget * 2 / 3);
    if chunk_budget < args.chunking.chunk_budget {
        term::warn(format_args!(
            "chunks of {chunk_budget} units (--chunk-budget {} does not fit --budget {} with its tag)",
            args.chunking.chunk_budget, args.budget
        ));
    }
    let (files, errors) = collect(&args.path, &args.chunking, Some(chunk_budget), false)?;
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
    let selection = select(&files, &query, sizer);
    let out = match args.format {
        OutlineFormat::Json => json(&selection)?,
        OutlineFormat::Text => {
            let mut text = render_passages(&selection.passages);
            if selection.passages.is_empty() {
                text.push_str("(no chunk matches the query)\n");
            }
            text.into_bytes()
        }
    };
    term::stdout(&out)?;
    term::note(format_args!(
        "cleave select: {} passages, {} units of {} ({}), {} candidates, {} left out",
        selection.passages.len(),
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
    let sizer = unit(args.chunking.unit, args.chunking.tokenizer).sizer();
    let (files, errors) = collect(&args.path, &args.chunking, None, false)?;
    for id in &args.ids {
        if id.len() < 4 {
            bail!("id {id:?}: give at least 4 characters");
        }
    }
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
