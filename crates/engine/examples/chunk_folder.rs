//! Chunks the folder (or file) given as the first argument through the library alone and
//! prints every chunk record as JSON Lines, then a summary on stderr.
//!
//!     cargo run -p cleave-engine --example chunk_folder -- path/to/repo

use std::io::Write;

use cleave_core::{ChunkConfig, Unit};
use cleave_engine::{FileEntry, Settings, Summary, WalkOptions, chunk_tree, write_chunk};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args_os().nth(1).ok_or("usage: chunk_folder PATH")?;
    let settings = Settings::new(ChunkConfig::new(2000, Unit::Chars)?);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut stdout = std::io::BufWriter::new(std::io::stdout());
    let (mut summary, mut failed) = (Summary::default(), None);
    chunk_tree(root.as_ref(), &WalkOptions::default(), &settings, threads, |result| {
        summary.add(&FileEntry::of(&result));
        let mut lines = Vec::new();
        for chunk in &result.chunks {
            if let Err(err) = write_chunk(&mut lines, chunk) {
                failed.get_or_insert(std::io::Error::from(err));
            }
            lines.push(b'\n');
        }
        if let Err(err) = stdout.write_all(&lines) {
            failed.get_or_insert(err);
        }
    })?;
    stdout.flush()?;
    if let Some(err) = failed {
        return Err(err.into());
    }
    // stderr may be closed: the summary is a courtesy, not a result.
    let _ = writeln!(std::io::stderr(), "{}", summary.line());
    Ok(())
}
