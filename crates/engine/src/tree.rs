//! A whole tree: the walk's entries read, chunked and handed on in path order, on a pool of
//! threads.

use std::path::Path;

use crate::cache::{Cache, CachedFile};
use crate::file::{Context, FileResult, Settings, chunk_file};
use crate::outcome::{Outcome, Skip};
use crate::pipeline::{Plan, run_ordered};
use crate::read::read_input;
use crate::walk::{Input, WalkOptions, walk};

/// Bytes of files (each counted 4 KiB larger) that may be in progress or waiting to be handed
/// on, per thread: bounds memory by a window rather than by the corpus, and lets the other
/// threads run ahead while one works through a large file.
const WINDOW_PER_THREAD: u64 = 4 << 20;

/// Files above this size are "large": they go to the first [`LARGE_FILE_WORKERS`] workers
/// only (see `pipeline`).
const LARGE_FILE: u64 = 256 * 1024;

/// How many workers take large files (the first one always, the others when no small file
/// is left for them to take). Each worker's allocator keeps the high-water mark of the largest
/// parse it made (one section of a large file: tens of MB), so this bounds the peak memory of
/// a run on a machine of many threads, while up to four of them still chunk a corpus of large
/// files in parallel: with all large files on one worker, a corpus made of them (CSS themes,
/// bundles) ran on one core whatever `--threads` said (bench/runs/2026-11-28-large-files.txt).
const LARGE_FILE_WORKERS: usize = 4;

/// Reads and chunks one walked entry (a skipped entry gives its skip).
pub fn chunk_input(input: &Input, settings: &Settings, ctx: &mut Context) -> FileResult {
    if let Some(reason) = &input.skip {
        return FileResult::skipped(&input.rel, input.size, reason.clone());
    }
    match read_input(input, settings.max_file_size) {
        Ok(bytes) => chunk_file(&input.rel, bytes, settings, ctx),
        Err(reason) => FileResult::skipped(&input.rel, input.size, reason),
    }
}

/// A file's result: chunked now, or found in the cache with its records already rendered.
#[derive(Debug)]
pub enum Produced {
    /// Chunked (or skipped) in this run.
    Fresh(FileResult),
    /// Found in the cache.
    Cached(CachedFile),
}

/// [`chunk_input`] through a cache: an unchanged file (same size, modified time and inode as
/// the last run remembers) is not read; a file whose bytes hash to a stored entry is not
/// chunked; anything else is chunked and stored. A failed store only costs the next run time.
pub fn chunk_input_cached(
    input: &Input,
    settings: &Settings,
    ctx: &mut Context,
    cache: &Cache,
) -> Produced {
    if input.skip.is_some() {
        return Produced::Fresh(chunk_input(input, settings, ctx));
    }
    let stat = cache.stat(input);
    if let Some(stat) = &stat
        && let Some(key) = cache.key_by_stat(input, stat)
        && let Some(cached) = cache.load(&key)
    {
        cache.remember(input, stat, &key);
        return Produced::Cached(cached);
    }
    let bytes = match read_input(input, settings.max_file_size) {
        Ok(bytes) => bytes,
        Err(reason) => return Produced::Fresh(FileResult::skipped(&input.rel, input.size, reason)),
    };
    let key = cache.key(&input.rel, &bytes);
    if let Some(cached) = cache.load(&key) {
        if let Some(stat) = &stat {
            cache.remember(input, stat, &key);
        }
        return Produced::Cached(cached);
    }
    let result = chunk_file(&input.rel, bytes, settings, ctx);
    if !matches!(result.outcome, Outcome::Skipped { .. })
        && cache.store(&key, &result).is_ok()
        && let Some(stat) = &stat
    {
        cache.remember(input, stat, &key);
    }
    Produced::Fresh(result)
}

/// [`chunk_entries`] through a cache (see [`chunk_input_cached`]).
pub fn chunk_entries_cached<R: Send, E: Send>(
    pool: &rayon::ThreadPool,
    entries: &[Input],
    settings: &Settings,
    cache: &Cache,
    map: impl Fn(Produced) -> R + Sync,
    receive: impl FnMut(R) -> Result<(), E> + Send,
) -> Result<(), E> {
    run_ordered(
        pool,
        entries,
        plan(pool, entries),
        Context::new,
        |ctx, input| map(chunk_input_cached(input, settings, ctx, cache)),
        receive,
    )
}

pub(crate) fn plan(pool: &rayon::ThreadPool, entries: &[Input]) -> Plan {
    let threads = pool.current_num_threads().max(1) as u64;
    Plan::new(
        WINDOW_PER_THREAD * threads,
        entries.iter().map(|f| {
            let size = if f.skip.is_some() { 0 } else { f.size };
            (size + 4096, size > LARGE_FILE)
        }),
    )
    .heavy_workers(LARGE_FILE_WORKERS)
}

/// Chunks `entries` on `pool`'s threads. `map` runs on the worker that chunked a file (render
/// records there: serialising is not free), and `receive` gets the results in path order, each
/// as soon as the ones before it are in. Stops at the first error of `receive`. The calling
/// thread must not be one of `pool`'s.
pub fn chunk_entries<R: Send, E: Send>(
    pool: &rayon::ThreadPool,
    entries: &[Input],
    settings: &Settings,
    map: impl Fn(FileResult) -> R + Sync,
    receive: impl FnMut(R) -> Result<(), E> + Send,
) -> Result<(), E> {
    run_ordered(
        pool,
        entries,
        plan(pool, entries),
        Context::new,
        |ctx, input| map(chunk_input(input, settings, ctx)),
        receive,
    )
}

/// Walks `root` and chunks every file on `threads` threads, calling `receive` with each
/// entry's result in path order (skipped entries included). The simple entry point for a
/// program that wants every file's chunks.
pub fn chunk_tree(
    root: &Path,
    options: &WalkOptions,
    settings: &Settings,
    threads: usize,
    mut receive: impl FnMut(FileResult) + Send,
) -> std::io::Result<()> {
    let walked = walk(root, options)?;
    let pool = crate::pipeline::worker_pool(threads).map_err(std::io::Error::other)?;
    chunk_entries(
        &pool,
        &walked.entries,
        settings,
        |r| r,
        |r| {
            receive(r);
            Ok(())
        },
    )
}

/// Decodes and chunks bytes the caller already holds, as if they were the file `rel`.
pub fn chunk_bytes(rel: &str, bytes: Vec<u8>, settings: &Settings) -> FileResult {
    chunk_file(rel, bytes, settings, &mut Context::new())
}

/// The entries of `path` that answer questions about it, in path order: the walk's, leaving
/// out what it passed over on purpose (hidden, ignored, version control, cleave's outputs).
pub fn walk_entries(path: &Path, options: &WalkOptions) -> std::io::Result<Vec<Input>> {
    let walked = walk(path, options)?;
    Ok(walked
        .entries
        .into_iter()
        .filter(|e| {
            !matches!(
                &e.skip,
                Some(Skip::Hidden | Skip::Ignored | Skip::VersionControl | Skip::Output)
            )
        })
        .collect())
}

/// Chunks every file under `path` into memory, for faces that answer questions about a whole
/// tree (outline, select, read): the results in path order, leaving out the entries the walk
/// passed over on purpose (hidden, ignored, version control, cleave's outputs), and how many
/// entries could not be read.
pub fn chunk_path(
    path: &Path,
    options: &WalkOptions,
    settings: &Settings,
    threads: usize,
) -> std::io::Result<(Vec<FileResult>, usize)> {
    let entries = walk_entries(path, options)?;
    let pool = crate::pipeline::worker_pool(threads).map_err(std::io::Error::other)?;
    let mut files = Vec::with_capacity(entries.len());
    let mut errors = 0;
    let res: Result<(), std::convert::Infallible> = chunk_entries(
        &pool,
        &entries,
        settings,
        |r| r,
        |r| {
            errors += usize::from(r.is_error());
            files.push(r);
            Ok(())
        },
    );
    match res {
        Ok(()) => Ok((files, errors)),
        Err(never) => match never {},
    }
}
