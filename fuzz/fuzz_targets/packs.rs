//! Packs for sub-agents over a few small files that import and link each other: the engine's
//! `chunk_text` at the member configuration → `pack` in both orders → the pack contract.
//!
//! The import readers (`imports.rs`: code statements, document links, declared namespaces)
//! and the graph that resolves them (`packs/graph.rs`) take whatever text a repository holds,
//! so they get their own target: every file's text is fuzz input, and each file opens with an
//! import or link line naming another file of the set in its own language's words, so that
//! resolution, cycles and clustering are reached and not only the readers.
//!
//! Input: the option bytes (overlap is dropped: a pack member is never repeated), one byte
//! choosing the order and the thread of names, then up to eight files, each a byte choosing
//! its path, a byte choosing the file it names, a length byte and that many bytes of text.
//!
//! Checked: no panic; every pack within the budget, measured whole, and its recorded size
//! exact; the frame first; every member's body its chunk's text at `body_start`; every
//! chunked file given back whole, byte for byte, by its members in pack order; the same
//! packing on a second run.

#![no_main]

use cleave_engine::{Context, PackOrder, Settings, chunk_text, member_config, pack};
use cleave_fuzz::Options;
use libfuzzer_sys::fuzz_target;

/// Paths of the languages and documents with import or link rules, in folders that the
/// resolvers treat differently (beside, parent, SwiftPM module, Go package, PSR-4 tail).
const PATHS: [&str; 24] = [
    "src/lib.rs",
    "src/a/mod.rs",
    "pkg/app.py",
    "pkg/util/__init__.py",
    "web/index.ts",
    "web/lib/util.js",
    "cmd/main.go",
    "internal/store/store.go",
    "com/x/App.java",
    "lib/z.c",
    "lib/z.h",
    "src/w.cpp",
    "App/Service.cs",
    "app/Main.kt",
    "core/Data.scala",
    "Sources/Core/Core.swift",
    "lib/tool.rb",
    "src/Http/Client.php",
    "bin/run.sh",
    "docs/guide.md",
    "docs/ref/api.md",
    "docs/index.rst",
    "paper/main.tex",
    "paper/intro.tex",
];

/// A line that names `to` from `from` in `from`'s language.
fn import_line(from: &str, to: &str) -> String {
    let stem = to.rsplit('/').next().unwrap_or(to).split('.').next().unwrap_or(to);
    let dir = to.rsplit_once('/').map_or("", |(d, _)| d);
    let dotted = dir.replace('/', ".");
    match from.rsplit('.').next().unwrap_or("") {
        "rs" => format!("use crate::{stem};\nmod {stem};\n"),
        "py" => format!("from {dotted} import {stem}\nimport {dotted}.{stem}\n"),
        "ts" | "js" => format!("import {{ x }} from '../{to}';\nimport y from \"./{stem}\";\n"),
        "go" => format!("package main\n\nimport (\n\t\"example.com/m/{dir}\"\n)\n"),
        "java" | "kt" | "scala" => format!("package {dotted};\nimport {dotted}.{stem};\n"),
        "c" | "h" | "cpp" => format!("#include \"{to}\"\n#include <{stem}.h>\n"),
        "cs" => format!("namespace {dotted};\nusing {dotted};\nusing static {dotted}.{stem};\n"),
        "swift" => format!("import {stem}\n@testable import Core\n"),
        "rb" => format!("require_relative '{stem}'\nrequire '{to}'\n"),
        "php" => format!("<?php\nnamespace App\\{stem};\nuse App\\{stem}\\{{A, B as C}};\n"),
        "sh" => format!("source \"$(dirname \"$0\")/{to}\"\n. ./{stem}.sh\n"),
        "md" => format!("See [{stem}](../{to}#top) and [x]: {to}\n\n"),
        "rst" => format!(":doc:`{stem}`\n\n.. include:: {to}\n\n"),
        "tex" => format!("\\input{{{stem}}}\n% \\include{{{to}}}\n"),
        _ => String::new(),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let Ok(config) = opts.config.with_overlap(0) else { return };
    let Ok(members) = member_config(&config) else { return };
    let Some((&mode, mut rest)) = rest.split_first() else { return };
    let order = if mode & 1 == 0 { PackOrder::Imports } else { PackOrder::Directory };

    // Up to eight files, each path once, in path order as a run gives them.
    let mut files: Vec<(String, String)> = Vec::new();
    while files.len() < 8 {
        let [path, names, len, tail @ ..] = rest else { break };
        let n = usize::from(*len).min(tail.len());
        let (body, next) = tail.split_at(n);
        rest = next;
        let path = PATHS[usize::from(*path) % PATHS.len()];
        if files.iter().any(|(p, _)| p == path) {
            continue;
        }
        let named = PATHS[usize::from(*names) % PATHS.len()];
        let mut text = import_line(path, named);
        text.push_str(&String::from_utf8_lossy(body));
        files.push((path.to_owned(), text));
    }
    if files.is_empty() {
        return;
    }
    files.sort();

    let settings = Settings::new(members);
    let mut ctx = Context::new();
    let results: Vec<_> =
        files.iter().map(|(path, text)| chunk_text(path, text, &settings, &mut ctx)).collect();
    let packing = pack(&results, &config, order);

    let sizer = config.sizer();
    let mut rebuilt = vec![String::new(); results.len()];
    for (k, p) in packing.packs.iter().enumerate() {
        let size = sizer.size(&p.text);
        assert!(size <= config.budget(), "pack {k}: {size} > {}", config.budget());
        assert_eq!(p.size, size, "pack {k}: recorded size");
        assert!(p.text.starts_with(&p.frame), "pack {k}: the frame comes first");
        for m in &p.members {
            let chunk = &results[m.file].chunks[m.chunk];
            let body = p.text.get(m.body_start..m.body_start + chunk.text.len());
            assert_eq!(body, Some(chunk.text.as_str()), "pack {k}: member body");
            assert!(m.header_start <= m.body_start, "pack {k}: header before body");
            let whole = &mut rebuilt[m.file];
            assert_eq!(whole.len(), chunk.byte_start, "{}: members out of order", chunk.path);
            whole.push_str(&chunk.text);
        }
    }
    // A file with no chunks (a NUL byte makes it binary, and it is skipped) is in no pack.
    for (((path, text), got), res) in files.iter().zip(&rebuilt).zip(&results) {
        if !res.chunks.is_empty() {
            assert_eq!(got, text, "{path}: not given back whole by its members");
        }
    }

    // Determinism: the same input packs the same way.
    let again = pack(&results, &config, order);
    let texts =
        |p: &cleave_engine::Packing| p.packs.iter().map(|p| p.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&packing), texts(&again), "a second run packs differently");
});
