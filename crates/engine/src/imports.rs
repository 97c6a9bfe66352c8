//! What a file imports, as the code atomizer found it: the top-level import statements
//! (`AtomTree::imports`) and Rust's `mod x;` declarations, kept verbatim on the `FileResult`,
//! and read here into module references that packs resolve to files of the run.
//!
//! The reading is lexical and forgiving: a statement it cannot read gives no reference, never
//! an error. Only what can name a file of the same run is kept: Rust paths, Python modules
//! (absolute and relative), relative TS/JS specifiers, Go import paths, Java classes and
//! packages.

use cleave_core::{AtomKind, AtomTree};

/// The verbatim import statements of a file: each range of `tree.imports` (consecutive
/// statements may share one) and each top-level Rust `mod x;`, in file order.
pub(crate) fn statements(tree: &AtomTree, text: &str) -> Vec<String> {
    let mut out: Vec<(usize, String)> = tree
        .imports
        .iter()
        .filter_map(|r| text.get(r.clone()).map(|s| (r.start, s.to_owned())))
        .collect();
    if tree.language == "rust" {
        let mut stack = vec![&tree.root];
        while let Some(atom) = stack.pop() {
            for child in &atom.children {
                match child.kind {
                    AtomKind::Symbol => {
                        let Some(label) = child.label_text() else { continue };
                        let Some(body) = text.get(child.range.clone()) else { continue };
                        if label.starts_with("mod ") && body.trim_end().ends_with(';') {
                            out.push((child.range.start, body.to_owned()));
                        }
                    }
                    // Items grouped into blocks are still top-level; symbols are not entered.
                    AtomKind::Block | AtomKind::Gap => stack.push(child),
                    AtomKind::Section | AtomKind::Protected => {}
                }
            }
        }
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, s)| s).collect()
}

/// One module reference of an import statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Import {
    /// Rust `use a::b::c` (segments as written, `crate`, `self`, `super` included) or
    /// `extern crate a`.
    RustUse(Vec<String>),
    /// Rust `mod name;`: the child module's file, or the file its `#[path = "…"]` names
    /// (relative to the declaring file's folder).
    RustMod {
        /// The module's name.
        name: String,
        /// The `#[path]` attribute's value.
        path: Option<String>,
    },
    /// Python `import a.b` (`level` 0, no names) or `from ..a import b, c` (`level` 2).
    Python {
        /// Leading dots of a relative import.
        level: usize,
        /// The dotted module, split.
        module: Vec<String>,
        /// Names imported from it (`from m import x, y`), which may be submodules.
        names: Vec<String>,
    },
    /// A TS/JS module specifier (`'./a'`, `'../lib/b.js'`, `'react'`).
    Ecma(String),
    /// A Go import path.
    Go(String),
    /// A Java import: the dotted name split, whether it ends in `.*`.
    Java {
        /// `java.util.List` → `["java", "util", "List"]`.
        path: Vec<String>,
        /// `import a.b.*;`
        wildcard: bool,
    },
}

/// The module references of `statements` (see [`statements`]) of a file in `language`.
pub fn parse(language: &str, statements: &[String]) -> Vec<Import> {
    let mut out = Vec::new();
    for s in statements {
        match language {
            "rust" => rust(s, &mut out),
            "python" => python(s, &mut out),
            "typescript" | "tsx" | "javascript" => ecma(s, &mut out),
            "go" => go(s, &mut out),
            "java" => java(s, &mut out),
            _ => {}
        }
    }
    out
}

/// `text` without `//` line comments and `/* */` block comments (strings are not special:
/// import statements hold no `//` outside their module strings, which are read first).
fn strip_c_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |nl| &rest[l + nl..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                rest = rest[b + 2..].find("*/").map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

fn rust(text: &str, out: &mut Vec<Import>) {
    for item in rust_items(text) {
        match item {
            RustItem::Use { paths, .. } => {
                out.extend(
                    paths
                        .into_iter()
                        .map(|(p, _)| p)
                        .filter(|p| !p.is_empty())
                        .map(Import::RustUse),
                );
            }
            RustItem::Mod { name, path } => out.push(Import::RustMod { name, path }),
        }
    }
}

/// One Rust item of an import statement.
enum RustItem {
    /// `use` (or `extern crate`): the paths with the name each is bound to when renamed
    /// (`as`), and whether the item is visible outside its module (`pub`, `pub(crate)`…).
    Use { paths: Vec<(Vec<String>, Option<String>)>, public: bool },
    /// `mod name;` with its `#[path]`.
    Mod { name: String, path: Option<String> },
}

fn rust_items(text: &str) -> Vec<RustItem> {
    let code = strip_c_comments(text);
    let mut out = Vec::new();
    for stmt in code.split(';') {
        // Attributes (`#[cfg(test)]`, `#[path = "…"]`) and visibility before the keyword.
        let mut s = stmt.trim();
        let mut path_attr = None;
        while s.starts_with("#[") {
            let rest = skip_bracketed(s, '[', ']');
            let attr = s[2..s.len() - rest.len()].trim_end_matches(']').trim();
            if let Some(value) = attr.strip_prefix("path").map(str::trim_start)
                && let Some(value) = value.strip_prefix('=')
            {
                path_attr = Some(value.trim().trim_matches('"').to_owned());
            }
            s = rest.trim_start();
        }
        let mut public = false;
        if let Some(rest) = s.strip_prefix("pub") {
            public = true;
            s = rest.trim_start();
            if s.starts_with('(') {
                s = skip_bracketed(s, '(', ')').trim_start();
            }
        }
        if let Some(tree) = s.strip_prefix("use ") {
            let mut paths = Vec::new();
            use_tree(tree.trim().trim_start_matches("::"), &mut Vec::new(), &mut paths);
            out.push(RustItem::Use { paths, public });
        } else if let Some(rest) = s.strip_prefix("extern crate ") {
            let mut words = rest.split_whitespace();
            let name = words.next().unwrap_or("");
            let alias = (words.next() == Some("as")).then(|| words.next()).flatten();
            if is_ident(name) {
                let paths = vec![(vec![name.to_owned()], alias.map(str::to_owned))];
                out.push(RustItem::Use { paths, public });
            }
        } else if let Some(name) = s.strip_prefix("mod ") {
            let name = name.trim();
            if is_ident(name) {
                out.push(RustItem::Mod { name: name.to_owned(), path: path_attr });
            }
        }
    }
    out
}

/// The names a Rust module re-exports (`pub use a::b::C`, `pub use a::b::{C as D}`), each with
/// the path it names, from the module's import statements. Globs (`pub use a::*`) name nothing.
pub fn rust_reexports(statements: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for s in statements {
        if !s.contains("pub") {
            continue;
        }
        for item in rust_items(s) {
            let RustItem::Use { paths, public: true } = item else { continue };
            for (path, alias) in paths {
                let name = alias.or_else(|| path.last().cloned());
                match name {
                    Some(name)
                        if name != "_" && name != "self" && name != "*" && !path.is_empty() =>
                    {
                        out.push((name, path));
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// `s` after the balanced bracket group it starts with.
fn skip_bracketed(s: &str, open: char, close: char) -> &str {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return &s[i + 1..];
            }
        }
    }
    ""
}

fn is_ident(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Expands a use tree (`a::{b, c::{d as e, self}, *}`) into paths under `prefix`, each with
/// the name it is bound to when renamed (`d as e`: `e`). `a::{self}` and `a::*` give `a`; a
/// glob's path is marked by a `*` alias.
fn use_tree(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let tree = tree.trim();
    let depth = prefix.len();
    let mut rest = tree;
    loop {
        let (seg, after) = match rest.find("::") {
            Some(at) if !rest[..at].contains('{') => (&rest[..at], Some(&rest[at + 2..])),
            _ => (rest, None),
        };
        let seg = seg.trim();
        if let Some(group) = seg.strip_prefix('{') {
            let inner = group.strip_suffix('}').unwrap_or(group);
            for item in split_top(inner) {
                use_tree(item, prefix, out);
            }
            break;
        }
        match after {
            Some(after) => {
                prefix.push(seg.to_owned());
                rest = after;
            }
            None => {
                let mut words = seg.split(" as ");
                let name = words.next().unwrap_or(seg).trim();
                let alias = words.next().map(|a| a.trim().to_owned());
                if name == "*" {
                    out.push((prefix.clone(), Some("*".to_owned())));
                } else if name == "self" || name.is_empty() {
                    out.push((prefix.clone(), alias));
                } else if is_ident(name) {
                    let mut path = prefix.clone();
                    path.push(name.to_owned());
                    out.push((path, alias));
                }
                break;
            }
        }
    }
    prefix.truncate(depth);
}

/// Splits at commas outside braces.
fn split_top(s: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0usize, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect()
}

fn python(text: &str, out: &mut Vec<Import>) {
    // Logical lines: comments dropped, parenthesised and backslash continuations joined.
    let mut logical = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let cont = line.trim_end().ends_with('\\');
        current.push_str(line.trim_end().trim_end_matches('\\'));
        current.push(' ');
        depth += line.matches('(').count() as i32 - line.matches(')').count() as i32;
        if depth <= 0 && !cont {
            logical.push(std::mem::take(&mut current));
            depth = 0;
        }
    }
    logical.push(current);
    for line in logical {
        for stmt in line.split(';') {
            let s = stmt.trim();
            if let Some(rest) = s.strip_prefix("import ") {
                for item in rest.split(',') {
                    let module = item.split(" as ").next().unwrap_or("").trim();
                    if !module.is_empty() {
                        out.push(Import::Python {
                            level: 0,
                            module: module.split('.').map(str::to_owned).collect(),
                            names: Vec::new(),
                        });
                    }
                }
            } else if let Some(rest) = s.strip_prefix("from ") {
                let Some((module, names)) = rest.split_once(" import") else { continue };
                let module = module.trim();
                let level = module.len() - module.trim_start_matches('.').len();
                let module = module.trim_start_matches('.');
                let names = names
                    .replace(['(', ')'], " ")
                    .split(',')
                    .map(|n| n.split(" as ").next().unwrap_or("").trim().to_owned())
                    .filter(|n| !n.is_empty() && n != "*")
                    .collect();
                out.push(Import::Python {
                    level,
                    module: module
                        .split('.')
                        .filter(|m| !m.is_empty())
                        .map(str::to_owned)
                        .collect(),
                    names,
                });
            }
        }
    }
}

/// String literals of `text` (`'…'`, `"…"`, `` `…` ``) with the word before each.
fn literals(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if q == b'"' || q == b'\'' || q == b'`' {
            let Some(len) = text[i + 1..].find(char::from(q)) else { break };
            let before = text[..i].trim_end();
            let word_start = before
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '('))
                .map_or(0, |p| p + 1);
            out.push((&before[word_start..], &text[i + 1..i + 1 + len]));
            i += len + 2;
        } else {
            i += 1;
        }
    }
    out
}

fn ecma(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    for (before, spec) in literals(&code) {
        if matches!(before, "from" | "import" | "require(" | "import(") && !spec.is_empty() {
            out.push(Import::Ecma(spec.to_owned()));
        }
    }
}

fn go(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    if !code.trim_start().starts_with("import") {
        return;
    }
    for (_, path) in literals(&code) {
        if !path.is_empty() && path != "C" {
            out.push(Import::Go(path.to_owned()));
        }
    }
}

fn java(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    for stmt in code.split(';') {
        let s = stmt.trim();
        let Some(rest) = s.strip_prefix("import ") else { continue };
        let rest = rest.trim_start().strip_prefix("static ").unwrap_or(rest).trim();
        let (name, wildcard) = match rest.strip_suffix(".*") {
            Some(name) => (name, true),
            None => (rest, false),
        };
        let path: Vec<String> = name.split('.').map(|p| p.trim().to_owned()).collect();
        if path.iter().all(|p| is_ident(p)) {
            out.push(Import::Java { path, wildcard });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn rust_use_trees_expand_into_paths() {
        let got = parse(
            "rust",
            &strs(&[
                "/// doc\n#[cfg(test)]\npub(crate) use crate::a::{b, c::{d as e, self}, *};",
                "use super::super::x;\nuse ::std::fmt;",
                "extern crate alloc;",
                "#[path = \"x.rs\"]\npub mod child;",
            ]),
        );
        let paths = |p: &[&str]| Import::RustUse(strs(p));
        assert_eq!(
            got,
            vec![
                paths(&["crate", "a", "b"]),
                paths(&["crate", "a", "c", "d"]),
                paths(&["crate", "a", "c"]),
                paths(&["crate", "a"]),
                paths(&["super", "super", "x"]),
                paths(&["std", "fmt"]),
                paths(&["alloc"]),
                Import::RustMod { name: "child".into(), path: Some("x.rs".into()) },
            ]
        );
    }

    #[test]
    fn rust_reexports_by_their_visible_names() {
        let got = rust_reexports(&strs(&[
            "pub use self::a::{B, c::D as E, f::*};\nuse crate::private::G;",
            "pub(crate) use core::ptr;\npub extern crate alloc as alloc_crate;",
        ]));
        let names: Vec<(&str, Vec<&str>)> =
            got.iter().map(|(n, p)| (n.as_str(), p.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            names,
            [
                ("B", vec!["self", "a", "B"]),
                ("E", vec!["self", "a", "c", "D"]),
                ("ptr", vec!["core", "ptr"]),
                ("alloc_crate", vec!["alloc"]),
            ]
        );
    }

    #[test]
    fn python_imports_absolute_and_relative() {
        let got = parse(
            "python",
            &strs(&[
                "import os.path as p, sys  # comment\nfrom ..models import (\n    Base,\n    Field as F,\n)\nfrom . import views",
            ]),
        );
        assert_eq!(
            got,
            vec![
                Import::Python { level: 0, module: strs(&["os", "path"]), names: vec![] },
                Import::Python { level: 0, module: strs(&["sys"]), names: vec![] },
                Import::Python {
                    level: 2,
                    module: strs(&["models"]),
                    names: strs(&["Base", "Field"])
                },
                Import::Python { level: 1, module: vec![], names: strs(&["views"]) },
            ]
        );
    }

    #[test]
    fn ecma_go_and_java_module_names() {
        let ts = parse(
            "typescript",
            &strs(&[
                "import { a } from './a';\nimport type B from \"../b/index.js\"\nimport './side'",
            ]),
        );
        assert_eq!(
            ts,
            vec![
                Import::Ecma("./a".into()),
                Import::Ecma("../b/index.js".into()),
                Import::Ecma("./side".into())
            ]
        );
        let go = parse(
            "go",
            &strs(&["package main", "import (\n\t\"fmt\"\n\tx \"example.com/m/x\" // why\n)"]),
        );
        assert_eq!(go, vec![Import::Go("fmt".into()), Import::Go("example.com/m/x".into())]);
        let java = parse(
            "java",
            &strs(&[
                "package a.b;",
                "import java.util.List;\nimport static a.c.D.f;\nimport a.e.*;",
            ]),
        );
        assert_eq!(
            java,
            vec![
                Import::Java { path: strs(&["java", "util", "List"]), wildcard: false },
                Import::Java { path: strs(&["a", "c", "D", "f"]), wildcard: false },
                Import::Java { path: strs(&["a", "e"]), wildcard: true },
            ]
        );
    }
}
