//! Selection latency over one chunked root, as a long-lived server (`cleave mcp`) sees it:
//! the root is chunked once, then each query is timed, the first one (which computes every
//! chunk's term statistics) apart from the rest. Prints p50, p99 and max of the warm queries.
//!
//!     cargo run --release -p cleave-engine --example select_latency -- path/to/repo

use std::time::Instant;

use cleave_core::{ChunkConfig, Unit};
use cleave_engine::{Query, QueryType, Settings, WalkOptions, chunk_tree, select};

const QUERIES: [&str; 12] = [
    "how are database migrations applied",
    "where is the request routed to a view",
    "password hashing algorithm",
    "template rendering context",
    "cache backend expiry",
    "how does the ORM build a join",
    "form validation errors",
    "middleware order",
    "signal dispatch receivers",
    "timezone conversion",
    "file upload storage",
    "test client cookies",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::env::args_os().nth(1).ok_or("usage: select_latency PATH")?;
    let settings = Settings::new(ChunkConfig::new(2000, Unit::Chars)?);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut files = Vec::new();
    chunk_tree(root.as_ref(), &WalkOptions::default(), &settings, threads, |r| files.push(r))?;
    let chunks: usize = files.iter().map(|f| f.chunks.len()).sum();
    let sizer = Unit::Chars.sizer();
    let query = |text: &str| Query {
        text: text.to_owned(),
        keywords: Vec::new(),
        kind: QueryType::guess(text),
        max_segments: 8,
        budget: 4000,
        passthrough: 4000,
    };
    let t = Instant::now();
    let first = select(&files, &query(QUERIES[0]), sizer);
    let cold = t.elapsed();
    let mut warm = Vec::new();
    for round in 0..5 {
        for q in QUERIES.iter().skip(usize::from(round == 0)) {
            let t = Instant::now();
            let sel = select(&files, &query(q), sizer);
            warm.push(t.elapsed());
            assert!(sel.size <= 4000);
        }
    }
    warm.sort();
    let pct = |p: f64| warm[((warm.len() - 1) as f64 * p).round() as usize];
    println!(
        "{} files, {chunks} chunks; first query {:.1} ms ({} passages); {} warm queries: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        files.len(),
        cold.as_secs_f64() * 1e3,
        first.passages.len(),
        warm.len(),
        pct(0.5).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        warm.last().map_or(0.0, |d| d.as_secs_f64() * 1e3),
    );
    Ok(())
}
