//! `cleave select` and `cleave read`, and what they share with `cleave outline`: the files of
//! a path chunked by the engine, the same records `cleave chunk` writes.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use cleave_engine::{
    ChunkConfig, FileResult, Passage, Query, QueryType, Settings, Skip, chunk_entries,
    render_passages, select, walk,
};
use serde::Serialize;

use crate::args::{ChunkingArgs, OutlineFormat, QueryTypeArg, ReadArgs, SelectArgs, unit};
use crate::term;

/// Chunks every file under `path` (outlines too when asked), leaving out the entries the walk
/// passed over on purpose (hidden, ignored, version control, outputs). Returns the results in
/// path order and the number of entries that could not be read. `chunk_budget` overrides the
/// arguments' chunk budget.
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
    let walked = walk(path, &args.walk.options(threads, Vec::new()))
        .with_context(|| format!("{}", path.display()))?;
    let entries: Vec<_> = walked
        .entries
        .into_iter()
        .filter(|e| {
            !matches!(
                &e.skip,
                Some(Skip::Hidden | Skip::Ignored | Skip::VersionControl | Skip::Output)
            )
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let mut files = Vec::new();
    let mut errors = 0;
    chunk_entries(
        &pool,
        &entries,
        &settings,
        |r| r,
        |r| {
            errors += usize::from(r.is_error());
            files.push(r);
            anyhow::Ok(())
        },
    )?;
    Ok((files, errors))
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

#[derive(Serialize)]
struct ReadResult {
    passages: Vec<Passage>,
    /// Ids that name no chunk, or more than one.
    not_found: Vec<String>,
    /// Ids whose chunk did not fit the budget after the ones before them.
    did_not_fit: Vec<String>,
    size: usize,
}

pub fn run_read(args: &ReadArgs) -> Result<ExitCode> {
    let sizer = unit(args.chunking.unit, args.chunking.tokenizer).sizer();
    let (files, errors) = collect(&args.path, &args.chunking, None, false)?;
    let chunks: Vec<_> = files.iter().flat_map(|f| &f.chunks).collect();
    let mut result = ReadResult {
        passages: Vec::new(),
        not_found: Vec::new(),
        did_not_fit: Vec::new(),
        size: 0,
    };
    for id in &args.ids {
        if id.len() < 4 {
            bail!("id {id:?}: give at least 4 characters");
        }
        let found: Vec<_> = chunks.iter().filter(|c| c.id.starts_with(id.as_str())).collect();
        let [chunk] = found.as_slice() else {
            result.not_found.push(id.clone());
            continue;
        };
        let mut trial = result.passages.clone();
        trial.push(Passage::new(chunk, 0.0));
        let size = sizer.size(&render_passages(&trial));
        if size <= args.budget {
            result.passages = trial;
            result.size = size;
        } else {
            result.did_not_fit.push(id.clone());
        }
    }
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
