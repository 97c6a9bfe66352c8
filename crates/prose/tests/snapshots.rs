//! Snapshots of the chunks of every prose and data fixture over budgets × units, each run
//! through the invariant checker first: `fixtures/{markdown,latex,text,data}/`, broken ones
//! included.

use std::path::{Path, PathBuf};

use cleave_code::ParseContext;
use cleave_core::{ChunkConfig, Source, Tokenizer, Unit, assert_invariants, pack};
use cleave_prose::{atomize_prose, format_for_path};

fn fixtures() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> =
        ["markdown", "latex", "text", "data"].iter().map(|d| root.join(d)).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(&root)
                .expect("under fixtures")
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&path).expect("UTF-8 fixture")));
        }
    }
    out.sort();
    assert!(out.len() >= 10, "expected the prose and data fixtures, found {}", out.len());
    out
}

/// What a snapshot records of a chunk: enough to review cuts, headers and sections.
#[derive(serde::Serialize)]
struct Summary {
    lines: String,
    tokens: usize,
    scope: Vec<String>,
    symbols: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<String>,
    header: Vec<String>,
    first: String,
}

#[test]
fn snapshots_over_budgets_and_units() {
    let mut ctx = ParseContext::new();
    for (path, text) in fixtures() {
        let format = format_for_path(&path).unwrap_or_else(|| panic!("{path}: no format"));
        let tree = atomize_prose(format, &text, &mut ctx);
        tree.root.validate(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let source = Source::new(&path, &text);
        for unit in [Unit::Chars, Unit::Tokens(Tokenizer::O200k)] {
            let budgets: &[usize] =
                if unit == Unit::Chars { &[200, 600, 2000] } else { &[60, 160, 500] };
            for &budget in budgets {
                let config = ChunkConfig::new(budget, unit).expect("valid budget");
                let chunks = pack(&source, &tree, &config);
                // The invariants first: a snapshot of broken chunks would only record the bug.
                assert_invariants(&source, &tree, &chunks, &config);
                let summary: Vec<Summary> = chunks
                    .iter()
                    .map(|c| Summary {
                        lines: format!("{}-{}", c.line_start, c.line_end),
                        tokens: c.tokens,
                        scope: c.scope.clone(),
                        symbols: c.symbols.clone(),
                        part: c
                            .part
                            .as_ref()
                            .map(|p| format!("{}/{} of {}", p.index, p.count, p.of)),
                        header: c.header.lines().map(str::to_owned).collect(),
                        first: c
                            .text
                            .lines()
                            .find(|l| !l.trim().is_empty())
                            .unwrap_or("")
                            .trim()
                            .to_owned(),
                    })
                    .collect();
                let stem = path.replace(['/', '.'], "_");
                let unit_name = if unit == Unit::Chars { "chars" } else { "o200k" };
                insta::assert_yaml_snapshot!(format!("{stem}_{unit_name}_{budget}"), summary);
            }
        }
    }
}
