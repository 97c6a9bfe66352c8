//! House rules that no compiler checks: crates depend one way, modules import each other
//! without circles, every module says what it is for.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::support::root;

/// The layers, lowest first: a crate may depend on the crates before it. Faces (the CLI and
/// any later one) sit on the engine alone.
const LAYERS: &[&str] = &["core", "code", "prose", "engine"];
/// Faces and the faces they host besides the engine (the CLI runs `cleave mcp`).
const FACES: &[(&str, &[&str])] = &[("cli", &["mcp"]), ("mcp", &[]), ("python", &[])];

/// Every crate of the workspace: `crates/*` and the bindings (`bindings/python`).
fn crates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ["crates", "bindings"]
        .iter()
        .filter_map(|d| fs::read_dir(root().join(d)).ok())
        .flat_map(|d| d.flatten().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").exists())
        .collect();
    out.sort();
    out
}

fn cleave_deps(manifest: &str) -> BTreeSet<String> {
    // Only [dependencies] and target-specific dependencies: tests may use anything.
    let mut deps = BTreeSet::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]"
                || line.ends_with(".dependencies]") && !line.contains("dev-");
            continue;
        }
        if in_deps && let Some(name) = line.strip_prefix("cleave-") {
            let name = name.split(['.', ' ', '=']).next().unwrap_or("");
            deps.insert(name.to_owned());
        }
    }
    deps
}

#[test]
fn crates_depend_one_way_and_faces_only_on_the_engine() {
    for dir in crates() {
        let name = dir.file_name().expect("name").to_string_lossy().into_owned();
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("manifest");
        let deps = cleave_deps(&manifest);
        // A face sits on the engine, and on the faces it hosts.
        let allowed: BTreeSet<String> = if let Some((_, hosts)) = FACES.iter().find(|f| f.0 == name)
        {
            std::iter::once("engine").chain(hosts.iter().copied()).map(str::to_owned).collect()
        } else {
            let at = LAYERS.iter().position(|l| *l == name).unwrap_or_else(|| {
                panic!("crates/{name} is in no layer: add it to LAYERS or FACES")
            });
            LAYERS[..at].iter().map(|s| (*s).to_owned()).collect()
        };
        let extra: Vec<&String> = deps.difference(&allowed).collect();
        assert!(extra.is_empty(), "crates/{name} depends on {extra:?}, above or beside it");
    }
}

/// The source of a module file without its test modules (tests may reach anywhere).
fn without_tests(text: &str) -> &str {
    ["#[cfg(test)]\nmod tests", "#[cfg(all(test"]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
        .map_or(text, |at| &text[..at])
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`latex/scan.rs` → `latex`; `lib.rs` → none).
fn top_module(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next()?.as_os_str().to_string_lossy().into_owned();
    let name = first.trim_end_matches(".rs").to_owned();
    (name != "lib" && name != "main").then_some(name)
}

#[test]
fn modules_import_each_other_without_circles() {
    for dir in crates() {
        let src = dir.join("src");
        let mut files = Vec::new();
        rs_files(&src, &mut files);
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in &files {
            let Some(from) = top_module(&src, file) else { continue };
            let text = fs::read_to_string(file).expect("source");
            // Comments and doc links name modules without importing them.
            let code: String = without_tests(&text)
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect();
            let targets = edges.entry(from.clone()).or_default();
            for (at, _) in code.match_indices("crate::") {
                let name: String = code[at + 7..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty()
                    && name != from
                    && name.chars().next().is_some_and(char::is_lowercase)
                {
                    targets.insert(name);
                }
            }
        }
        if let Some(cycle) = find_cycle(&edges) {
            panic!(
                "{}: modules import each other in a circle: {}",
                dir.display(),
                cycle.join(" → ")
            );
        }
    }
}

fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|n| visit(n, edges, &mut Vec::new(), &mut done))
}

#[test]
fn every_module_opens_with_a_doc_comment() {
    let mut missing = Vec::new();
    for dir in crates() {
        let mut files = Vec::new();
        rs_files(&dir.join("src"), &mut files);
        for file in files {
            let text = fs::read_to_string(&file).expect("source");
            if !text.trim_start().starts_with("//!") {
                missing.push(file.strip_prefix(root()).unwrap_or(&file).display().to_string());
            }
        }
    }
    assert!(missing.is_empty(), "modules without a //! doc comment: {missing:?}");
}
