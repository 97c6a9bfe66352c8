//! What an index buys (issue 17): on a copy of a root, the cold `index_root`, a re-index after
//! editing 1 % of the files, and selections that open the index and select from it (the work
//! of `cleave select` on an indexed root, without process start-up), p50/p99/max.
//!
//!     cargo run --release -p cleave-engine --example index_latency -- path/to/repo [queries.txt]
//!
//! The root is copied to a temporary folder first: the edits never touch it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use cleave_core::{ChunkConfig, Unit};
use cleave_engine::{Query, QueryType, Settings, TermIndex, WalkOptions, index_root};

const QUERIES: [&str; 12] = [
    "how are errors reported to the caller",
    "where is the configuration file parsed",
    "hash map iteration order",
    "parse command line arguments",
    "thread pool worker shutdown",
    "how does the iterator skip elements",
    "unicode string normalization",
    "format a number with padding",
    "read a file into a buffer",
    "sort a slice by key",
    "what happens when the allocation fails",
    "test that the cache is invalidated",
];

fn copy_tree(from: &Path, to: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &target, files)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
            files.push(target);
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let root = PathBuf::from(args.next().ok_or("usage: index_latency PATH [queries.txt]")?);
    let queries: Vec<String> = match args.next() {
        Some(path) => std::fs::read_to_string(path)?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect(),
        None => QUERIES.iter().map(|q| (*q).to_owned()).collect(),
    };
    let tmp = std::env::temp_dir().join(format!("cleave-index-latency-{}", std::process::id()));
    let copy = tmp.join("root");
    let index = tmp.join("index");
    let mut files = Vec::new();
    copy_tree(&root, &copy, &mut files)?;
    files.sort();
    let bytes: u64 = files.iter().filter_map(|f| f.metadata().ok()).map(|m| m.len()).sum();
    let settings = Settings::new(ChunkConfig::new(1000, Unit::Chars)?);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Walked with one thread per core, as the CLI does.
    let options = WalkOptions { threads, ..WalkOptions::default() };

    let t = Instant::now();
    let cold = index_root(&copy, &options, &settings, threads, &index)?;
    let cold_time = t.elapsed();
    let t = Instant::now();
    let unchanged = index_root(&copy, &options, &settings, threads, &index)?;
    let unchanged_time = t.elapsed();
    // Edit every hundredth file: a line appended changes its bytes, size and modified time.
    let edited: Vec<&PathBuf> = files.iter().step_by(100).collect();
    for f in &edited {
        let mut text = std::fs::read(f)?;
        text.extend_from_slice(b"\n");
        std::fs::write(f, text)?;
    }
    let t = Instant::now();
    let warm = index_root(&copy, &options, &settings, threads, &index)?;
    let warm_time = t.elapsed();
    println!(
        "{} files, {:.1} MB, {} chunks, index {:.1} MB",
        cold.files,
        bytes as f64 / 1e6,
        cold.chunks,
        warm.index_bytes as f64 / 1e6
    );
    println!("cold index: {:.2} s ({} chunked)", cold_time.as_secs_f64(), cold.chunked);
    println!(
        "re-index, nothing changed: {:.3} s = {:.1} % of cold ({} unchanged)",
        unchanged_time.as_secs_f64(),
        100.0 * unchanged_time.as_secs_f64() / cold_time.as_secs_f64(),
        unchanged.reused
    );
    println!(
        "re-index after editing {} files ({:.1} %): {:.3} s = {:.1} % of cold ({} unchanged, {} chunked)",
        edited.len(),
        100.0 * edited.len() as f64 / files.len() as f64,
        warm_time.as_secs_f64(),
        100.0 * warm_time.as_secs_f64() / cold_time.as_secs_f64(),
        warm.reused,
        warm.chunked
    );

    let sizer = Unit::Chars.sizer();
    let mut times = Vec::new();
    let mut opens = Vec::new();
    let mut passages = 0;
    for round in 0..5 {
        for text in &queries {
            let query = Query {
                text: text.clone(),
                keywords: Vec::new(),
                kind: QueryType::guess(text),
                max_segments: 20,
                budget: 4000,
                passthrough: 12_000,
            };
            let t = Instant::now();
            let opened = TermIndex::open(&index, &copy, &options, &settings)?
                .map_err(|state| format!("index not current: {state:?}"))?;
            let open = t.elapsed();
            let selection = opened.select(&query, sizer).ok_or("a record did not load")?;
            let took = t.elapsed();
            assert!(selection.size <= 4000);
            if round > 0 {
                opens.push(open);
                times.push(took);
                passages += selection.passages.len();
            }
        }
    }
    times.sort();
    opens.sort();
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e3;
    println!(
        "open + select, {} queries (after one warm-up round): p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, {:.1} passages each",
        times.len(),
        pct(0.5),
        pct(0.99),
        times.last().map_or(0.0, |d| d.as_secs_f64() * 1e3),
        passages as f64 / times.len() as f64
    );
    println!(
        "of which opening the index (read, check, walk and stat the root): p50 {:.1} ms, max {:.1} ms",
        opens[opens.len() / 2].as_secs_f64() * 1e3,
        opens.last().map_or(0.0, |d| d.as_secs_f64() * 1e3)
    );
    std::fs::remove_dir_all(&tmp)?;
    Ok(())
}
