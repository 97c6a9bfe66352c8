//! Snapshots of the CLI's chunks for the mixed fixture folder, per file × unit × budget, named
//! `{stem}_{unit}_{budget}`; every run also goes through the invariant checker.

use cleave_engine::{Chunk, ChunkConfig};

use crate::support::{by_path, check_all, fixture, parse_jsonl, run, unit};

/// One line per chunk: lines, size, scope, part, and the first line of the body.
fn outline(chunks: &[Chunk]) -> Vec<String> {
    chunks
        .iter()
        .map(|c| {
            let first = c.text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
            let first: String = first.chars().take(60).collect();
            let part = c
                .part
                .as_ref()
                .map(|p| format!(" part {}/{} of {}", p.index, p.count, p.of))
                .unwrap_or_default();
            format!(
                "{}-{} {}u scope=[{}]{part} header_lines={} | {first}",
                c.line_start,
                c.line_end,
                c.tokens,
                c.scope.join(" > "),
                c.header.lines().count()
            )
        })
        .collect()
}

#[test]
fn mixed_fixtures_snapshot() {
    let dir = fixture("mixed");
    for unit_name in ["chars", "tokens"] {
        for budget in [120usize, 400, 2000] {
            let budget_s = budget.to_string();
            let (out, err, code) =
                run(&[dir.to_str().unwrap(), "--budget", &budget_s, "--unit", unit_name, "-q"]);
            assert_eq!(code, 0, "{err}");
            let chunks = parse_jsonl(&out);
            let config = ChunkConfig::new(budget, unit(unit_name)).unwrap();
            let errors = check_all(&dir, chunks.clone(), &config);
            assert!(errors.is_empty(), "{}", errors.join("\n"));
            for (path, chunks) in by_path(chunks) {
                let stem = path.replace(['/', '.'], "_");
                insta::assert_yaml_snapshot!(
                    format!("{stem}_{unit_name}_{budget}"),
                    outline(&chunks)
                );
            }
        }
    }
}
