//! `cleave verify`: the shared invariant checker over JSON Lines and the files on disk.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use cleave_core::{Chunk, Source, check_chunks};

use crate::args::VerifyArgs;

/// Reads the records, groups them by path, and checks each file's chunks; prints one line per
/// violation and a summary. Exit code 1 when anything is wrong.
pub fn run(args: &VerifyArgs) -> Result<ExitCode> {
    let config = crate::build_config(&args.size)?;
    let reader: Box<dyn BufRead> = if args.jsonl == Path::new("-") {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let file = std::fs::File::open(&args.jsonl)
            .with_context(|| format!("{}: cannot open", args.jsonl.display()))?;
        Box::new(BufReader::new(file))
    };
    let mut files: BTreeMap<String, Vec<Chunk>> = BTreeMap::new();
    let mut order_errors = 0usize;
    let mut last_path = String::new();
    for (n, line) in reader.lines().enumerate() {
        let line = line?;
        let chunk: Chunk = serde_json::from_str(&line)
            .with_context(|| format!("line {}: not a chunk record", n + 1))?;
        if chunk.path != last_path {
            if chunk.path < last_path || files.contains_key(&chunk.path) {
                eprintln!("{}: records out of path order", chunk.path);
                order_errors += 1;
            }
            last_path.clone_from(&chunk.path);
        }
        files.entry(chunk.path.clone()).or_default().push(chunk);
    }
    let (mut n_chunks, mut n_bytes, mut violations) = (0usize, 0usize, order_errors);
    let mut crumbs = 0usize;
    for (path, chunks) in &files {
        let file = if args.root.is_file() { args.root.clone() } else { args.root.join(path) };
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("{}: cannot read", file.display()))?;
        let source = Source::new(path, &text);
        for e in check_chunks(&source, chunks, &config) {
            println!("{path}: {e}");
            violations += 1;
        }
        n_chunks += chunks.len();
        n_bytes += text.len();
        crumbs += chunks.iter().filter(|c| c.tokens * 20 < config.budget()).count();
    }
    eprintln!(
        "cleave verify: {} files, {n_chunks} chunks, {n_bytes} bytes: {violations} violations; {:.2} % of chunks under 5 % of the budget",
        files.len(),
        if n_chunks == 0 { 0.0 } else { crumbs as f64 * 100.0 / n_chunks as f64 }
    );
    Ok(if violations == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
