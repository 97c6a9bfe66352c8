//! Fixture tests: caret assertions in every file of `fixtures/code/<language>/`, and snapshots
//! of the chunks over fixtures × budgets × units, each run through the invariant checker.

use std::path::{Path, PathBuf};

use cleave_code::{ParseContext, atomize_code, language_for_file};
use cleave_core::{
    Atom, AtomKind, AtomTree, ChunkConfig, Source, Tokenizer, Unit, assert_invariants, pack,
};

fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/code")
}

/// Every fixture, sorted, as (path relative to `fixtures/code`, text).
fn fixtures() -> Vec<(String, String)> {
    let root = fixture_root();
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let rel = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&file).unwrap()));
        }
    }
    out.sort();
    assert!(out.len() >= 7, "expected fixtures for every language");
    out
}

/// The atoms holding byte `at`, outermost first (the root left out).
fn chain(root: &Atom, at: usize) -> Vec<&Atom> {
    let mut out = Vec::new();
    let mut atom = root;
    while let Some(child) = atom.children.iter().find(|c| c.range.start <= at && at < c.range.end) {
        out.push(child);
        atom = child;
    }
    out
}

/// One caret assertion: `// ^ symbol Token::fmt`, `# ^ scope class Flask > def root`,
/// `// ^ gap`, about the nearest line above that is not an assertion.
struct Caret {
    line: usize,
    target: usize,
    what: String,
    arg: String,
}

fn carets(text: &str, comment: &str, comment_end: &str) -> Vec<Caret> {
    let prefix = format!("{comment} ^ ");
    let mut out = Vec::new();
    let mut target = None;
    let mut at = 0;
    for (idx, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix(&prefix) {
            let rest = rest.strip_suffix(comment_end).unwrap_or(rest).trim_end();
            let (what, arg) = rest.split_once(' ').unwrap_or((rest, ""));
            let target =
                target.unwrap_or_else(|| panic!("line {}: caret with no line above", idx + 1));
            out.push(Caret {
                line: idx + 1,
                target,
                what: what.to_owned(),
                arg: arg.trim().to_owned(),
            });
        } else if !trimmed.is_empty() {
            target = Some(at + (line.len() - line.trim_start().len()));
        }
        at += line.len();
    }
    out
}

fn check_carets(
    path: &str,
    text: &str,
    tree: &AtomTree,
    comment: &str,
    comment_end: &str,
) -> Vec<String> {
    let mut errors = Vec::new();
    for caret in carets(text, comment, comment_end) {
        let atoms = chain(&tree.root, caret.target);
        let names: Vec<&str> = atoms.iter().filter_map(|a| a.name()).collect();
        let symbol = names.join(tree.separator);
        let scope: Vec<&str> =
            atoms.iter().filter(|a| a.is_scope).filter_map(|a| a.label_text()).collect();
        let scope = scope.join(" > ");
        let ok = match caret.what.as_str() {
            "symbol" => symbol == caret.arg,
            "scope" => scope == caret.arg,
            "gap" => !atoms.iter().any(|a| a.kind == AtomKind::Symbol),
            other => panic!("{path}:{}: unknown caret `{other}`", caret.line),
        };
        if !ok {
            errors.push(format!(
                "{path}:{}: expected {} {:?}, found symbol {symbol:?} in scope {scope:?}",
                caret.line, caret.what, caret.arg
            ));
        }
    }
    errors
}

#[test]
fn caret_assertions_hold() {
    let mut errors = Vec::new();
    let mut ctx = ParseContext::new();
    let mut n_carets = 0;
    for (path, text) in fixtures() {
        let language =
            language_for_file(&path, &text).unwrap_or_else(|| panic!("{path}: no language"));
        let tree = atomize_code(language, &text, &mut ctx);
        tree.root.validate(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        n_carets += carets(&text, language.comment, language.comment_end).len();
        errors.extend(check_carets(&path, &text, &tree, language.comment, language.comment_end));
    }
    assert!(n_carets > 50, "only {n_carets} caret assertions");
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// What a snapshot records of a chunk: enough to review cuts and headers.
#[derive(serde::Serialize)]
struct Summary {
    lines: String,
    tokens: usize,
    scope: Vec<String>,
    symbols: Vec<String>,
    header: Vec<String>,
    first: String,
}

#[test]
fn snapshots_over_budgets_and_units() {
    let mut ctx = ParseContext::new();
    let units = [Unit::Chars, Unit::Tokens(Tokenizer::O200k)];
    for (path, text) in fixtures() {
        let language = language_for_file(&path, &text).unwrap();
        let tree = atomize_code(language, &text, &mut ctx);
        let source = Source::new(&path, &text);
        for unit in units {
            let budgets: &[usize] =
                if unit == Unit::Chars { &[160, 400, 1200] } else { &[48, 120, 300] };
            for &budget in budgets {
                let config = ChunkConfig::new(budget, unit).unwrap();
                let chunks = pack(&source, &tree, &config);
                assert_invariants(&source, &tree, &chunks, &config);
                // The checker also asserts that a chunk inside a scope names it, unless the
                // whole unit it holds leaves no room for the scope line (integrity over header).
                let summary: Vec<Summary> = chunks
                    .iter()
                    .map(|c| Summary {
                        lines: format!("{}-{}", c.line_start, c.line_end),
                        tokens: c.tokens,
                        scope: c.scope.clone(),
                        symbols: c.symbols.clone(),
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

#[test]
fn headers_off_gives_no_headers() {
    let mut ctx = ParseContext::new();
    for (path, text) in fixtures() {
        let language = language_for_file(&path, &text).unwrap();
        let tree = atomize_code(language, &text, &mut ctx);
        let source = Source::new(&path, &text);
        let config = ChunkConfig::new(300, Unit::Chars).unwrap().with_headers(false);
        let chunks = pack(&source, &tree, &config);
        assert_invariants(&source, &tree, &chunks, &config);
        assert!(chunks.iter().all(|c| c.header.is_empty()));
    }
}
