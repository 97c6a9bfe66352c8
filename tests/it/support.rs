//! Running the binary and checking its records.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cleave_engine::{Chunk, ChunkConfig, Source, Tokenizer, Unit, check_chunks};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// A fixture folder or file.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("fixtures").join(rel)
}

/// `cleave` with the given arguments.
pub fn cleave() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("cleave").expect("cleave binary")
}

/// Runs `cleave chunk` and returns stdout, stderr and the exit code.
pub fn run(args: &[&str]) -> (Vec<u8>, String, i32) {
    let out = cleave().arg("chunk").args(args).output().expect("run cleave");
    (out.stdout, String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code().unwrap_or(-1))
}

/// Parses JSON Lines into chunks.
pub fn parse_jsonl(bytes: &[u8]) -> Vec<Chunk> {
    let text = std::str::from_utf8(bytes).expect("JSONL is UTF-8");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad record {e}: {l}")))
        .collect()
}

/// Chunks grouped by path, in output order.
pub fn by_path(chunks: Vec<Chunk>) -> BTreeMap<String, Vec<Chunk>> {
    let mut map: BTreeMap<String, Vec<Chunk>> = BTreeMap::new();
    for c in chunks {
        map.entry(c.path.clone()).or_default().push(c);
    }
    map
}

/// The unit named on the command line.
pub fn unit(name: &str) -> Unit {
    match name {
        "chars" => Unit::Chars,
        "bytes" => Unit::Bytes,
        "tokens" => Unit::Tokens(Tokenizer::O200k),
        "estimate" => Unit::Estimate,
        other => panic!("unknown unit {other}"),
    }
}

/// Checks every file's chunks against the file on disk under `root`; returns the violations.
pub fn check_all(root: &Path, chunks: Vec<Chunk>, config: &ChunkConfig) -> Vec<String> {
    let mut errors = Vec::new();
    for (path, chunks) in by_path(chunks) {
        let file = if root.is_file() { root.to_owned() } else { root.join(&path) };
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let source = Source::new(&path, &text);
        for e in check_chunks(&source, &chunks, config) {
            errors.push(format!("{path}: {e}"));
        }
    }
    errors
}
