//! JSON, YAML and TOML atomizers: fixtures × budgets × units through the invariant checker,
//! key paths as scopes, and property tests on random (valid and broken) data files.

use cleave_core::{
    Atom, AtomTree, ChunkConfig, ContentKind, Severity, Source, Tokenizer, Unit, check_invariants,
    pack,
};
use cleave_prose::Format;
use proptest::prelude::*;

const PACKAGE: &str = include_str!("../../../../fixtures/data/package.json");
const CI: &str = include_str!("../../../../fixtures/data/ci.yaml");
const CARGO: &str = include_str!("../../../../fixtures/data/Cargo.toml");

use crate::common::{atomize, chunk};

/// The atom reached by following child labels from the root.
fn at_path<'a>(tree: &'a AtomTree, path: &[&str]) -> &'a Atom {
    let mut atom = &tree.root;
    for label in path {
        atom = atom
            .children
            .iter()
            .find(|c| c.label_text() == Some(label))
            .unwrap_or_else(|| panic!("no {label} under {:?}", atom.label_text()));
    }
    atom
}

const FIXTURES: [(Format, &str, &str); 3] = [
    (Format::Json, "package.json", PACKAGE),
    (Format::Yaml, "ci.yaml", CI),
    (Format::Toml, "Cargo.toml", CARGO),
];

#[test]
fn fixtures_hold_every_invariant() {
    for (format, path, text) in FIXTURES {
        let tree = atomize(format, text);
        assert!(tree.diagnostics.is_empty(), "{path}: {:?}", tree.diagnostics);
        assert_eq!(tree.content, ContentKind::Data);
        for unit in [Unit::Chars, Unit::Bytes, Unit::Tokens(Tokenizer::O200k)] {
            for budget in [64, 150, 300, 1000, 4000] {
                let (_, chunks) = chunk(format, path, text, budget, unit);
                assert!(
                    chunks.iter().all(|c| c.provenance.is_none()),
                    "data chunks carry no prose provenance"
                );
                // No chunk ends on a lone head whose entries start the next chunk (below 300 chars,
                // saving a chunk may outweigh the cost of that cut).
                for c in chunks.iter().filter(|_| budget >= 300) {
                    let end = c.text.trim_end();
                    let lone = end.ends_with(':') || end.ends_with('{') || end.ends_with('[');
                    assert!(!lone, "{path} {budget} {unit}: ends on a head: {:?}", c.text);
                }
            }
        }
    }
}

#[test]
fn json_keys_are_scoped_symbols() {
    let tree = atomize(Format::Json, PACKAGE);
    let scripts = at_path(&tree, &["scripts"]);
    assert!(scripts.is_scope);
    assert_eq!(scripts.name(), Some("scripts"));
    let build = at_path(&tree, &["scripts", "build"]);
    assert!(
        PACKAGE[build.range.clone()]
            .trim_start()
            .starts_with("\"build\": \"tsc -b && vite build\",")
    );
    let ws = at_path(&tree, &["workspaces", "[1]", "path"]);
    assert!(PACKAGE[ws.range.clone()].trim_start().starts_with("\"path\": \"packages/ui\""));
    assert_eq!(tree.comment.prefix, "// ");
    assert_eq!(tree.separator, ".");
}

#[test]
fn json_chunks_name_their_key_path() {
    let (_, chunks) = chunk(Format::Json, "package.json", PACKAGE, 200, Unit::Chars);
    let dev = chunks.iter().find(|c| c.text.contains("\"vitest\"")).unwrap();
    assert_eq!(dev.scope, vec!["devDependencies"]);
    assert!(dev.header.contains("// in devDependencies"), "{}", dev.header);
    let all: Vec<&String> = chunks.iter().flat_map(|c| c.symbols.iter()).collect();
    assert!(all.iter().any(|s| *s == "scripts.build"), "{all:?}");
}

/// The range of the `jobs > test > steps` entry whose text holds `needle`.
fn tree_step_with(tree: &cleave_core::AtomTree, needle: &str) -> std::ops::Range<usize> {
    (0..10)
        .map(|i| at_path(tree, &["jobs", "test", "steps", &format!("[{i}]")]).range.clone())
        .find(|r| CI[r.clone()].contains(needle))
        .expect("a step holds the needle")
}

#[test]
fn yaml_key_paths_follow_indentation() {
    let tree = atomize(Format::Yaml, CI);
    let run = at_path(&tree, &["jobs", "test", "steps", "[3]"]);
    assert!(CI[run.range.clone()].contains("cargo test --doc"));
    // The comment above a step belongs to it.
    let cache = at_path(&tree, &["jobs", "test", "steps", "[2]"]);
    assert!(CI[cache.range.clone()].trim_start().starts_with("# Cache the target"));
    // At 400 chars the step fits only with a shortened header: it stays whole, and the record
    // keeps its scope.
    let (_, chunks) = chunk(Format::Yaml, "ci.yaml", CI, 400, Unit::Chars);
    let step = chunks.iter().find(|c| c.text.contains("DATABASE_URL")).unwrap();
    let step_atom = tree_step_with(&tree, "DATABASE_URL");
    assert!(
        step.byte_start <= step_atom.start && step_atom.end <= step.byte_end,
        "the step is whole"
    );
    assert!(step.scope.starts_with(&["jobs".to_owned(), "test".to_owned()]), "{:?}", step.scope);
    // With room to spare the header carries the breadcrumb.
    let (_, chunks) = chunk(Format::Yaml, "ci.yaml", CI, 800, Unit::Chars);
    for c in chunks.iter().filter(|c| !c.scope.is_empty()) {
        let crumb = format!("# ci.yaml\n# in {}", c.scope.join(" > "));
        assert!(c.header.starts_with(&crumb), "{}", c.header);
    }
}

#[test]
fn toml_tables_nest_under_their_parents() {
    let tree = atomize(Format::Toml, CARGO);
    let labels: Vec<_> = tree.root.children.iter().filter_map(Atom::label_text).collect();
    assert_eq!(
        labels,
        vec![
            "package",
            "features",
            "dependencies",
            "dev-dependencies",
            "profile.release",
            "bin[0]",
            "bin[1]",
            "package.metadata.docs.rs"
        ]
    );
    let sqlx = at_path(&tree, &["dependencies", "sqlx"]);
    assert!(CARGO[sqlx.range.clone()].trim_end().ends_with("] }"));
    let tracing = at_path(&tree, &["dependencies", "tracing"]);
    assert_eq!(tracing.name(), Some("tracing"));
    at_path(&tree, &["profile.release", "package.*"]);
}

#[test]
fn broken_json_falls_back_with_a_reason() {
    let text = "{\n  \"a\": 1,\n  \"b\": [1, 2\n}\n";
    let tree = atomize(Format::Json, text);
    assert!(
        tree.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Degraded && d.message.contains("invalid JSON"))
    );
    chunk(Format::Json, "broken.json", text, 64, Unit::Chars);
}

fn json_value(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        "-?[0-9]{1,6}".prop_map(|s| s),
        "[a-z é☃\"\\\\]{0,12}"
            .prop_map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))),
    ];
    leaf.prop_recursive(depth, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(("[a-z]{1,6}", inner), 0..6).prop_map(|v| {
                let members: Vec<String> =
                    v.into_iter().map(|(k, v)| format!("\n  \"{k}\": {v}")).collect();
                format!("{{{}\n}}", members.join(","))
            }),
        ]
    })
    .boxed()
}

fn yamlish() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        3 => "( {0,6})[a-z]{1,8}: [a-z0-9 ]{0,12}\n",
        2 => "( {0,6})- [a-z0-9: ]{0,12}\n",
        1 => "( {0,6})[a-z]{1,8}: \\|\n",
        1 => "( {0,6})# [a-z ]{0,12}\n",
        1 => Just("---\n".to_owned()),
        1 => Just("\n".to_owned()),
        1 => "[a-z\"'{}\\[\\]:, ]{0,16}\n",
    ];
    prop::collection::vec(line, 0..40).prop_map(|v| v.concat())
}

fn tomlish() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        3 => "[a-z]{1,8} = [a-z0-9\"]{0,10}\n",
        1 => "\\[[a-z]{1,5}(\\.[a-z]{1,5}){0,2}\\]\n",
        1 => "\\[\\[[a-z]{1,5}\\]\\]\n",
        1 => "[a-z]{1,6} = \\[\n",
        1 => Just("\"\"\"\n".to_owned()),
        1 => Just("]\n".to_owned()),
        1 => "# [a-z ]{0,12}\n",
        1 => Just("\n".to_owned()),
    ];
    prop::collection::vec(line, 0..40).prop_map(|v| v.concat())
}

fn check_all(format: Format, text: &str, budget: usize) -> Result<(), TestCaseError> {
    let tree = atomize(format, text);
    prop_assert!(tree.root.validate(text).is_ok(), "{:?}", tree.root.validate(text));
    let source = Source::new("random", text);
    let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
    let chunks = pack(&source, &tree, &config);
    let errors = check_invariants(&source, &tree, &chunks, &config);
    prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_json_scans_and_holds_invariants(value in json_value(4), budget in 16usize..400) {
        let tree = atomize(Format::Json, &value);
        prop_assert!(tree.diagnostics.is_empty(), "valid JSON refused: {:?} {value}", tree.diagnostics);
        check_all(Format::Json, &value, budget)?;
    }

    #[test]
    fn broken_json_never_loses_bytes(value in json_value(3), cut in 0usize..200, budget in 16usize..400) {
        let mut end = cut.min(value.len());
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        check_all(Format::Json, &value[..end], budget)?;
    }

    #[test]
    fn random_yaml_holds_invariants(text in yamlish(), budget in 16usize..400) {
        check_all(Format::Yaml, &text, budget)?;
    }

    #[test]
    fn random_toml_holds_invariants(text in tomlish(), budget in 16usize..400) {
        check_all(Format::Toml, &text, budget)?;
    }
}
