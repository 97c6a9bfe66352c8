//! What a file imports, as the code atomizer found it: the top-level import statements
//! (`AtomTree::imports`) and Rust's `mod x;` declarations, kept verbatim on the `FileResult`,
//! and read here into module references that packs resolve to files of the run.
//!
//! The reading is lexical and forgiving: a statement it cannot read gives no reference, never
//! an error. Only what can name a file of the same run is kept: Rust paths, Python modules
//! (absolute and relative), relative TS/JS specifiers, Go import paths, Java classes and
//! packages, C/C++ includes, C# namespaces and types, Kotlin and Scala names and packages, PHP
//! namespaced names and the literal paths of `require`/`include`, Ruby's `require` and
//! `require_relative`, shell `source`, Swift modules, and the links of Markdown,
//! reStructuredText and LaTeX documents ([`links`]).

use cleave_core::{AtomKind, AtomTree};

/// The verbatim import statements of a file: each range of `tree.imports` (consecutive
/// statements may share one) and each top-level Rust `mod x;`, in file order. C and C++ files
/// give every `#include` line instead: most of them sit inside an include guard or another
/// `#if`, where the tree has no top-level import.
pub(crate) fn statements(tree: &AtomTree, text: &str) -> Vec<String> {
    if matches!(tree.language.as_str(), "c" | "cpp") {
        return text
            .lines()
            .filter(|l| {
                l.trim_start()
                    .strip_prefix('#')
                    .is_some_and(|r| r.trim_start().starts_with("include"))
            })
            .map(str::to_owned)
            .collect();
    }
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
    /// A name in a namespace or package that files declare (C# `using`, Kotlin and Scala
    /// `import`, PHP `use`), resolved through the declarations of the run's files, not their
    /// paths: `using A.B;` (`wildcard`: the namespace's files), `import a.b.C` (a top-level
    /// name of package `a.b`, or a member of one).
    Declared {
        /// `a.b.C` or `A\B\C`, split.
        path: Vec<String>,
        /// The whole namespace or package (`using A.B;`, `import a.b.*`, `import a.b._`).
        wildcard: bool,
    },
    /// A file named by its path, as written (C/C++ `#include`, Ruby `require`, PHP
    /// `require`/`include` of a literal path, shell `source`, LaTeX `\input`).
    Path {
        /// The path, with the extension the language adds (`require 'a/b'`: `a/b.rb`).
        path: String,
        /// Where the path is looked for.
        base: PathBase,
    },
    /// A link of a document to another file (`[x](../guide/setup.md#install)`, RST
    /// `:doc:`): relative to the document's folder, or to the root when it starts with `/`;
    /// a link to a folder or without an extension names its `index.md`, `README.md` or `.md`.
    Link(String),
    /// A Swift module (`import Foo`): the Swift files of `Sources/Foo/` (or `Tests/Foo/`),
    /// as SwiftPM lays modules out. Files of one module see each other without imports.
    Module(String),
}

/// Where an [`Import::Path`] is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathBase {
    /// The importing file's folder only (`require_relative`, PHP `__DIR__ . '/x.php'`).
    Here,
    /// The importing file's folder, then the file of the run whose path ends with it (C's
    /// `#include "x.h"`, where an include path may name any folder).
    HereThenSuffix,
    /// Only the file of the run whose path ends with it (`#include <x.h>`, Ruby `require`,
    /// which searches the load path).
    Suffix,
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
            "c" | "cpp" => c_include(s, &mut out),
            "csharp" => csharp(s, &mut out),
            "kotlin" => kotlin(s, &mut out),
            "scala" => scala(s, &mut out),
            "swift" => swift(s, &mut out),
            "ruby" => ruby(s, &mut out),
            "php" => php(s, &mut out),
            "bash" => shell(s, &mut out),
            _ => {}
        }
    }
    out
}

/// The links of a document in `language` (`markdown`, `rst`, `latex`) to other files, read
/// from its text: Markdown inline links and images' neighbours `[x](target)`, autolinks
/// aside, and reference definitions `[x]: target`; reStructuredText `:doc:` roles and
/// `.. include::` / `.. literalinclude::`; LaTeX `\input`, `\include`, `\subfile`. URLs
/// with a scheme (`https:`, `mailto:`) and pure anchors (`#section`) name no file and are
/// dropped. Other languages give nothing.
pub fn links(language: &str, text: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let mut push = |target: &str| {
        let target = target.trim().trim_start_matches('<').trim_end_matches('>');
        let target = target.split(['#', '?']).next().unwrap_or("").trim();
        let scheme = target.find(':').is_some_and(|at| {
            at > 1 && target[..at].chars().all(|c| c.is_ascii_alphanumeric() || c == '+')
        });
        if !target.is_empty() && !scheme && !target.starts_with("//") {
            out.push(Import::Link(target.to_owned()));
        }
    };
    match language {
        "markdown" => {
            // `](target "title")`: the target runs to the first space or closing parenthesis.
            // A target holding the next `](` is no link's: read again from each `](`, a long
            // line of them without an end was quadratic. `end` is the first end at or after
            // the last target's start, found once per stretch.
            let mut next = text.find("](");
            let mut end = 0;
            while let Some(open) = next {
                let start = open + 2;
                next = text[start..].find("](").map(|n| start + n);
                if end < start {
                    end = text[start..].find([')', ' ', '\n']).map_or(text.len(), |e| start + e);
                }
                if next.is_none_or(|n| n > end) {
                    push(&text[start..end]);
                }
            }
            for line in text.lines() {
                let l = line.trim_start();
                if l.starts_with('[')
                    && let Some(close) = l.find("]:")
                    && !l[1..close].contains(']')
                {
                    push(l[close + 2..].split_whitespace().next().unwrap_or(""));
                }
            }
        }
        "rst" => {
            for line in text.lines() {
                let l = line.trim_start();
                for directive in [".. include::", ".. literalinclude::"] {
                    if let Some(path) = l.strip_prefix(directive) {
                        push(path);
                    }
                }
            }
            let mut rest = text;
            while let Some(at) = rest.find(":doc:`") {
                rest = &rest[at + 6..];
                let Some(end) = rest.find('`') else { break };
                let role = &rest[..end];
                // `:doc:`text <path>`` or `:doc:`path``.
                let target = match (role.rfind('<'), role.ends_with('>')) {
                    (Some(open), true) => &role[open + 1..role.len() - 1],
                    _ => role,
                };
                push(&format!("{target}.rst"));
                rest = &rest[end..];
            }
        }
        "latex" => {
            for command in ["\\input{", "\\include{", "\\subfile{"] {
                let mut rest = text;
                // Whether the line holds a `%` before the command, carried along as the search
                // moves on (looking back to the line's start at each command was quadratic on
                // a long line): up to `seen`, the text has been looked at.
                let (mut seen, mut commented) = (0, false);
                while let Some(at) = rest.find(command) {
                    let command_start = text.len() - rest.len() + at;
                    let read = &text[seen..command_start];
                    commented = match read.rfind('\n') {
                        Some(nl) => read[nl + 1..].contains('%'),
                        None => commented || read.contains('%'),
                    };
                    seen = command_start;
                    rest = &rest[at + command.len()..];
                    let Some(end) = rest.find('}') else { break };
                    // A commented-out `% \input{x}` names nothing.
                    if !commented {
                        let name = rest[..end].trim();
                        let has_ext = name.rsplit('/').next().is_some_and(|n| n.contains('.'));
                        if has_ext { push(name) } else { push(&format!("{name}.tex")) }
                    }
                    rest = &rest[end..];
                }
            }
        }
        _ => {}
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

/// The most parts a dotted name of an import or a package may have: a deeper one names no
/// file, and resolving it costs the square of its depth.
const MAX_PARTS: usize = 64;

/// The most distinct packages or namespaces a file declares that are kept: each is paired
/// with every top-level name of the file, and a generated file of thousands of namespace
/// blocks made that product hundreds of millions of keys.
const MAX_PACKAGES: usize = 32;

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
                .char_indices()
                .rfind(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '('))
                .map_or(0, |(p, c)| p + c.len_utf8());
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

/// C and C++: `#include "a/b.h"` (the including file's folder, then any folder of the run)
/// and `#include <a/b.h>` (only a file of the run whose path ends with it: a system header
/// names nothing, unless the run holds it, as glibc's own `stdlib/stdlib.h`).
fn c_include(text: &str, out: &mut Vec<Import>) {
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix('#') else { continue };
        let Some(rest) = rest.trim_start().strip_prefix("include") else { continue };
        let rest = rest.strip_prefix("_next").unwrap_or(rest).trim_start();
        let (close, base) = match rest.chars().next() {
            Some('"') => ('"', PathBase::HereThenSuffix),
            Some('<') => ('>', PathBase::Suffix),
            _ => continue,
        };
        let Some(end) = rest[1..].find(close) else { continue };
        let path = rest[1..1 + end].trim();
        if !path.is_empty() {
            out.push(Import::Path { path: path.to_owned(), base });
        }
    }
}

/// A dotted (or `\`-separated) name split, or nothing if a part is not an identifier or it has
/// more than [`MAX_PARTS`] parts.
fn dotted(name: &str, sep: char) -> Option<Vec<String>> {
    if name.split(sep).nth(MAX_PARTS).is_some() {
        return None;
    }
    let path: Vec<String> =
        name.split(sep).map(|p| p.trim().trim_matches('`').to_owned()).collect();
    path.iter().all(|p| is_ident(p)).then_some(path)
}

/// C#: `using A.B;` (the namespace), `using static A.B.C;` and `using X = A.B.C;` (a type,
/// or a namespace), `global using …`. `namespace A.B;` declares, it imports nothing.
fn csharp(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    for stmt in code.split(';') {
        let s = stmt.trim();
        let s = s.strip_prefix("global ").map_or(s, str::trim_start);
        let Some(rest) = s.strip_prefix("using ") else { continue };
        let rest = rest.trim();
        let (name, wildcard) = if let Some(ty) = rest.strip_prefix("static ") {
            (ty.trim(), false)
        } else if let Some((_, target)) = rest.split_once('=') {
            (target.trim(), false)
        } else {
            (rest, true)
        };
        // Generic arguments of an alias (`using L = System.Collections.Generic.List<int>`).
        let name = name.split('<').next().unwrap_or(name).trim();
        if let Some(path) = dotted(name, '.') {
            out.push(Import::Declared { path, wildcard });
        }
    }
}

/// Kotlin: `import a.b.C`, `import a.b.C as D`, `import a.b.*`. `package a.b` declares.
fn kotlin(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    for line in code.lines().flat_map(|l| l.split(';')) {
        let Some(rest) = line.trim().strip_prefix("import ") else { continue };
        let name = rest.split(" as ").next().unwrap_or(rest).trim();
        let (name, wildcard) = match name.strip_suffix(".*") {
            Some(name) => (name, true),
            None => (name, false),
        };
        if let Some(path) = dotted(name, '.') {
            out.push(Import::Declared { path, wildcard });
        }
    }
}

/// Scala 2 and 3: `import a.b.C`, `import a.b._` / `a.b.*` / `a.b.given` (the package's
/// members), `import a.b.{C, D => E, _}`, `import a.b.C as D`, several importers after one
/// `import` separated by commas. `package a.b` declares.
fn scala(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    let mut statements = Vec::new();
    let mut current = String::new();
    // An import's selector braces may span lines (counted line by line: counted again over
    // the whole statement at each line, 300,000 selectors took over 30 s).
    let mut depth = 0i32;
    for line in code.lines() {
        let l = line.trim();
        if depth == 0 {
            if !current.is_empty() {
                statements.push(std::mem::take(&mut current));
            }
            let Some(rest) = l.strip_prefix("import ") else { continue };
            current.push_str(rest);
        } else {
            current.push(' ');
            current.push_str(l);
        }
        depth += l.matches('{').count() as i32 - l.matches('}').count() as i32;
    }
    statements.push(current);
    for stmt in statements {
        for importer in split_top(&stmt) {
            let importer = importer.trim_end_matches(';').trim();
            let (prefix, selectors) = match importer.find('{') {
                Some(open) => {
                    let inner = importer[open + 1..].trim_end().trim_end_matches('}');
                    (importer[..open].trim_end_matches('.'), Some(inner))
                }
                None => (importer, None),
            };
            let Some(selectors) = selectors else {
                let name = prefix.split(" as ").next().unwrap_or(prefix).trim();
                let (name, last) = match name.rsplit_once('.') {
                    Some((pkg, last)) => (pkg, last.trim()),
                    None => continue,
                };
                if matches!(last, "_" | "*" | "given") {
                    if let Some(path) = dotted(name, '.') {
                        out.push(Import::Declared { path, wildcard: true });
                    }
                } else if let Some(mut path) = dotted(name, '.') {
                    path.push(last.to_owned());
                    if path.iter().all(|p| is_ident(p)) {
                        out.push(Import::Declared { path, wildcard: false });
                    }
                }
                continue;
            };
            let Some(base) = dotted(prefix, '.') else { continue };
            for sel in selectors.split(',') {
                let name = sel.split("=>").next().unwrap_or(sel);
                let name = name.split(" as ").next().unwrap_or(name).trim();
                if matches!(name, "_" | "*" | "given") || name.starts_with("given ") {
                    out.push(Import::Declared { path: base.clone(), wildcard: true });
                } else if is_ident(name) {
                    let mut path = base.clone();
                    path.push(name.to_owned());
                    out.push(Import::Declared { path, wildcard: false });
                }
            }
        }
    }
}

/// Swift: `import Foo`, `@testable import Foo`, `import struct Foo.Bar`: the module `Foo`.
fn swift(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    for line in code.lines().flat_map(|l| l.split(';')) {
        let words: Vec<&str> = line.split_whitespace().filter(|w| !w.starts_with('@')).collect();
        let Some(at) = words.iter().position(|w| *w == "import") else { continue };
        let mut rest = &words[at + 1..];
        if rest.len() > 1
            && matches!(
                rest[0],
                "typealias" | "struct" | "class" | "enum" | "protocol" | "let" | "var" | "func"
            )
        {
            rest = &rest[1..];
        }
        let Some(module) = rest.first().and_then(|m| m.split('.').next()) else { continue };
        if is_ident(module) {
            out.push(Import::Module(module.to_owned()));
        }
    }
}

/// Ruby: `require_relative 'x'` (beside the file), `require 'a/b'` and `load 'a/b.rb'` (the
/// load path: a file of the run whose path ends with `a/b.rb`). Only literal strings.
fn ruby(text: &str, out: &mut Vec<Import>) {
    for line in text.lines() {
        let l = line.trim_start();
        let (rest, base) = if let Some(rest) = l.strip_prefix("require_relative") {
            (rest, PathBase::Here)
        } else if let Some(rest) = l.strip_prefix("require").or_else(|| l.strip_prefix("load")) {
            (rest, PathBase::Suffix)
        } else {
            continue;
        };
        if !rest.starts_with([' ', '(', '\'', '"']) {
            continue;
        }
        let rest = rest.trim_start().trim_start_matches('(').trim_start();
        let Some(q @ ('\'' | '"')) = rest.chars().next() else { continue };
        let Some(end) = rest[1..].find(q) else { continue };
        let path = &rest[1..1 + end];
        if path.is_empty() || path.contains("#{") {
            continue;
        }
        let path = if path.ends_with(".rb") { path.to_owned() } else { format!("{path}.rb") };
        out.push(Import::Path { path, base });
    }
}

/// PHP: `use A\B\C;`, `use A\B\{C, D as E};`, `use function A\b;` (a namespaced name), and
/// `require`/`include` (`_once`) of a literal path: `__DIR__ . '/x.php'` or
/// `dirname(__FILE__) . '/x.php'` beside the file, `'x.php'` beside it or anywhere in the run.
fn php(text: &str, out: &mut Vec<Import>) {
    let code = strip_c_comments(text);
    for stmt in code.split(';') {
        let s = stmt.trim();
        if let Some(rest) = s.strip_prefix("use ") {
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix("function ")
                .or_else(|| rest.strip_prefix("const "))
                .unwrap_or(rest)
                .trim();
            let (prefix, names): (&str, Vec<&str>) = match rest.find('{') {
                Some(open) => {
                    let inner = rest[open + 1..].trim_end().trim_end_matches('}');
                    (&rest[..open], inner.split(',').collect())
                }
                None => ("", rest.split(',').collect()),
            };
            for name in names {
                let name = name.split(" as ").next().unwrap_or(name).trim();
                let name = name.strip_prefix("function ").unwrap_or(name).trim();
                let full = format!("{prefix}{name}");
                if let Some(path) = dotted(full.trim_start_matches('\\'), '\\') {
                    out.push(Import::Declared { path, wildcard: false });
                }
            }
            continue;
        }
        let Some(rest) = ["require_once", "include_once", "require", "include"]
            .iter()
            .find_map(|kw| s.strip_prefix(kw))
        else {
            continue;
        };
        let rest = rest.trim().trim_start_matches('(').trim_end_matches(')').trim();
        let (here, lit) = if let Some(r) = rest.strip_prefix("__DIR__") {
            (true, r.trim_start().strip_prefix('.'))
        } else if let Some(r) = rest.strip_prefix("dirname(__FILE__)") {
            (true, r.trim_start().strip_prefix('.'))
        } else {
            (false, Some(rest))
        };
        let Some(lit) = lit.map(str::trim) else { continue };
        let Some(q @ ('\'' | '"')) = lit.chars().next() else { continue };
        if !lit.ends_with(q) || lit.len() < 2 || lit[1..lit.len() - 1].contains(['$', q]) {
            continue;
        }
        let path = &lit[1..lit.len() - 1];
        let base = if here { PathBase::Here } else { PathBase::HereThenSuffix };
        let path = if here { path.trim_start_matches('/') } else { path };
        if !path.is_empty() {
            out.push(Import::Path { path: path.to_owned(), base });
        }
    }
}

/// Shell: `source lib.sh` and `. lib.sh` with a literal path, or one under the script's own
/// folder (`"$(dirname "$0")/lib.sh"`, `"${BASH_SOURCE%/*}/lib.sh"`, `$DIR/lib.sh`): the
/// script's folder, then a file of the run whose path ends with it.
fn shell(text: &str, out: &mut Vec<Import>) {
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix("source ").or_else(|| l.strip_prefix(". ")) else {
            continue;
        };
        let arg = rest.trim();
        let arg = arg.split(['#', ';', '&', '|']).next().unwrap_or("").trim();
        let arg = arg.trim_matches(|c| c == '"' || c == '\'');
        let path = if arg.starts_with('$') {
            // A variable or command substitution naming a folder, then a literal rest.
            let Some(slash) = arg
                .rfind(")/")
                .map(|at| at + 1)
                .or_else(|| arg.rfind("}/").map(|at| at + 1))
                .or_else(|| {
                    let name_end = arg[1..].find(|c: char| !(c.is_alphanumeric() || c == '_'))? + 1;
                    arg[name_end..].starts_with('/').then_some(name_end)
                })
            else {
                continue;
            };
            arg[slash + 1..].trim_matches('"')
        } else {
            arg
        };
        if path.is_empty() || path.contains(['$', '`', ' ', '*']) {
            continue;
        }
        let base = if path.starts_with('/') { PathBase::Suffix } else { PathBase::HereThenSuffix };
        out.push(Import::Path { path: path.trim_start_matches('/').to_owned(), base });
    }
}

/// What a file declares that other files import by name rather than by path: its namespaces
/// or packages (dotted with `.`), and its top-level names. Read lexically from the file's
/// text, for C#, PHP, Kotlin and Scala (Java resolves by path); other languages give `None`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Declarations {
    /// `namespace A.B`, `namespace A\B;`, `package a.b` (Scala's successive clauses joined).
    pub packages: Vec<String>,
    /// Top-level classes, objects, traits, interfaces, functions, values and type aliases.
    pub names: Vec<String>,
}

/// The [`Declarations`] of a file in `language`, or `None` for a language that imports by path.
pub fn declarations(language: &str, text: &str) -> Option<Declarations> {
    let (modifiers, kinds): (&[&str], &[&str]) = match language {
        "csharp" => (
            &[
                "public",
                "internal",
                "private",
                "protected",
                "static",
                "sealed",
                "abstract",
                "partial",
                "readonly",
                "unsafe",
                "file",
                "ref",
                "new",
            ],
            &["class", "struct", "interface", "enum", "record", "delegate"],
        ),
        "php" => (
            &["abstract", "final", "readonly"],
            &["class", "interface", "trait", "enum", "function"],
        ),
        "kotlin" => (
            &[
                "public",
                "private",
                "internal",
                "protected",
                "open",
                "abstract",
                "sealed",
                "data",
                "enum",
                "annotation",
                "inline",
                "value",
                "inner",
                "expect",
                "actual",
                "const",
                "external",
                "operator",
                "infix",
                "tailrec",
                "suspend",
                "override",
                "lateinit",
            ],
            &["class", "interface", "object", "fun", "val", "var", "typealias"],
        ),
        "scala" => (
            &[
                "sealed",
                "abstract",
                "final",
                "case",
                "implicit",
                "private",
                "protected",
                "lazy",
                "override",
                "inline",
                "opaque",
                "transparent",
                "open",
                "infix",
            ],
            &["class", "trait", "object", "enum", "type", "def", "val", "var", "given"],
        ),
        _ => return None,
    };
    let mut out = Declarations::default();
    // The names kept so far (a scan of `out.names` per name was quadratic in a generated file).
    let mut seen = std::collections::HashSet::new();
    let mut scala_package = String::new();
    let mut in_header = true;
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with("//") || l.starts_with('*') || l.starts_with("/*") {
            continue;
        }
        let top = !line.starts_with([' ', '\t']);
        let keyword =
            if language == "kotlin" || language == "scala" { "package " } else { "namespace " };
        if let Some(rest) = l.strip_prefix(keyword) {
            let rest = rest.trim();
            if let Some(object) = rest.strip_prefix("object ") {
                // A Scala package object: a name of the enclosing package, and a package.
                let name =
                    object.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
                if is_ident(name) {
                    if seen.insert(name.to_owned()) {
                        out.names.push(name.to_owned());
                    }
                    add_package(&mut out.packages, join_dotted(&scala_package, name));
                }
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '\\' | '`'))
                .collect();
            let name = name.replace('\\', ".").replace('`', "");
            if name.is_empty() {
                continue;
            }
            if language == "scala" && in_header {
                // `package cats` then `package data`: the file is in `cats.data` (and sees `cats`).
                let joined = join_dotted(&scala_package, &name);
                if joined.split('.').nth(MAX_PARTS).is_none() {
                    out.packages.retain(|p| p != &scala_package);
                    scala_package = joined;
                    add_package(&mut out.packages, scala_package.clone());
                }
            } else {
                add_package(&mut out.packages, name);
            }
            continue;
        }
        if !(l.starts_with("import ") || l.starts_with("using ") || l.starts_with('@')) {
            in_header = false;
        }
        // Top-level items, and any type of C# and PHP (which declare them in namespace blocks).
        if !top && !matches!(language, "csharp" | "php") {
            continue;
        }
        let mut words = l.split_whitespace().peekable();
        while let Some(w) = words.peek() {
            if modifiers.contains(w) || w.starts_with("private[") || w.starts_with("protected[") {
                words.next();
            } else {
                break;
            }
        }
        let Some(kind) = words.next() else { continue };
        // `fun interface X`, `enum class X`.
        let kind = if kind == "fun" && words.peek() == Some(&"interface") {
            words.next().unwrap_or(kind)
        } else {
            kind
        };
        if !kinds.contains(&kind) || (language == "php" && kind == "function" && !top) {
            continue;
        }
        // `record struct X`, `record class X`.
        while words.peek().is_some_and(|w| kinds.contains(w)) {
            words.next();
        }
        let rest: Vec<&str> = words.collect();
        let mut rest = rest.join(" ");
        // `fun <reified T : Any> List<T>.name(`, `def name[A](`: the name after the type
        // parameters and a receiver.
        if rest.starts_with('<') {
            let after = skip_bracketed(&rest, '<', '>').trim_start().to_owned();
            rest = after;
        }
        // Type arguments of a receiver (`Map<K, V>.name`) dropped, then up to the parameters.
        let mut depth = 0usize;
        let plain: String = rest
            .chars()
            .filter(|&c| {
                match c {
                    '<' => depth += 1,
                    '>' => depth = depth.saturating_sub(1),
                    _ => return depth == 0,
                }
                false
            })
            .collect();
        let head = plain.split(['(', ':', '=', '[', '{', ';', ' ']).next().unwrap_or("");
        let name = head.rsplit('.').next().unwrap_or(head).trim_matches('`');
        if is_ident(name) && seen.insert(name.to_owned()) {
            out.names.push(name.to_owned());
        }
    }
    Some(out)
}

/// Adds a package a file declares, once, unless it is deeper than [`MAX_PARTS`] or the file has
/// [`MAX_PACKAGES`] already.
fn add_package(packages: &mut Vec<String>, name: String) {
    if packages.len() < MAX_PACKAGES
        && name.split('.').nth(MAX_PARTS).is_none()
        && !packages.contains(&name)
    {
        packages.push(name);
    }
}

fn join_dotted(a: &str, b: &str) -> String {
    if a.is_empty() { b.to_owned() } else { format!("{a}.{b}") }
}

#[cfg(test)]
pub(crate) mod tests {
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

    fn declared(path: &[&str], wildcard: bool) -> Import {
        Import::Declared { path: strs(path), wildcard }
    }

    fn path(p: &str, base: PathBase) -> Import {
        Import::Path { path: p.into(), base }
    }

    #[test]
    fn c_includes_quoted_and_system() {
        let got = parse(
            "c",
            &strs(&[
                "#include \"malloc-internal.h\"",
                "#  include <sys/types.h> /* for size_t */",
                "#include_next <stdlib.h>",
                "#include MACRO_HEADER",
                "#include \"../include/libc-lock.h\"",
            ]),
        );
        assert_eq!(
            got,
            vec![
                path("malloc-internal.h", PathBase::HereThenSuffix),
                path("sys/types.h", PathBase::Suffix),
                path("stdlib.h", PathBase::Suffix),
                path("../include/libc-lock.h", PathBase::HereThenSuffix),
            ]
        );
    }

    #[test]
    fn c_statements_take_includes_inside_guards() {
        let text = "#ifndef A_H\n#define A_H\n#include \"b.h\"\n#ifdef X\n# include <c.h>\n#endif\nint f(void);\n#endif\n";
        let tree = cleave_core::AtomTree::new(
            "c",
            cleave_core::ContentKind::Code,
            cleave_core::Atom::gap(0..text.len()),
        );
        assert_eq!(statements(&tree, text), ["#include \"b.h\"", "# include <c.h>"]);
    }

    #[test]
    fn csharp_usings_name_namespaces_and_types() {
        let got = parse(
            "csharp",
            &strs(&[
                "using System;\nusing static Python.Runtime.Runtime; // statics\nglobal using Python.Runtime.Native;",
                "using Dict = System.Collections.Generic.Dictionary<string, int>;",
                "namespace Python.Runtime;",
            ]),
        );
        assert_eq!(
            got,
            vec![
                declared(&["System"], true),
                declared(&["Python", "Runtime", "Runtime"], false),
                declared(&["Python", "Runtime", "Native"], true),
                declared(&["System", "Collections", "Generic", "Dictionary"], false),
            ]
        );
    }

    #[test]
    fn kotlin_and_scala_imports() {
        let kt = parse(
            "kotlin",
            &strs(&[
                "package expo.modules.kotlin",
                "import android.os.Bundle\nimport expo.modules.kotlin.types.toAnyType as any\nimport expo.modules.core.*",
            ]),
        );
        assert_eq!(
            kt,
            vec![
                declared(&["android", "os", "Bundle"], false),
                declared(&["expo", "modules", "kotlin", "types", "toAnyType"], false),
                declared(&["expo", "modules", "core"], true),
            ]
        );
        let scala = parse(
            "scala",
            &strs(&[
                "package cats\npackage data",
                "import cats.syntax.all._\nimport scala.annotation.{tailrec, nowarn => nw}\nimport cats.kernel.{\n  Eq,\n  Order\n}",
                "import data.Chain, cats.arrow.*\nimport cats.Show as S",
            ]),
        );
        assert_eq!(
            scala,
            vec![
                declared(&["cats", "syntax", "all"], true),
                declared(&["scala", "annotation", "tailrec"], false),
                declared(&["scala", "annotation", "nowarn"], false),
                declared(&["cats", "kernel", "Eq"], false),
                declared(&["cats", "kernel", "Order"], false),
                declared(&["data", "Chain"], false),
                declared(&["cats", "arrow"], true),
                declared(&["cats", "Show"], false),
            ]
        );
    }

    #[test]
    fn swift_imports_name_modules() {
        let got = parse(
            "swift",
            &strs(&[
                "import Foundation\n@testable import ExpoModulesCore\nimport struct SwiftUI.Color",
            ]),
        );
        assert_eq!(
            got,
            vec![
                Import::Module("Foundation".into()),
                Import::Module("ExpoModulesCore".into()),
                Import::Module("SwiftUI".into()),
            ]
        );
    }

    #[test]
    fn ruby_php_and_shell_literal_paths() {
        let rb = parse(
            "ruby",
            &strs(&[
                "require 'net/http'\nrequire_relative \"generic\"\nrequire(\"yaml.rb\")\nrequire \"x/#{name}\"\nrequired = 1",
            ]),
        );
        assert_eq!(
            rb,
            vec![
                path("net/http.rb", PathBase::Suffix),
                path("generic.rb", PathBase::Here),
                path("yaml.rb", PathBase::Suffix),
            ]
        );
        let php = parse(
            "php",
            &strs(&[
                "namespace Symfony\\Component\\Console;",
                "use Symfony\\Component\\Console\\Command\\Command;\nuse Psr\\Log\\{LoggerInterface, NullLogger as Nothing};\nuse function Symfony\\Component\\String\\u;",
                "require_once __DIR__ . '/../Contracts/autoload.php';",
                "require __DIR__ . $classes[$cn];",
                "include 'config/defaults.php';",
            ]),
        );
        assert_eq!(
            php,
            vec![
                declared(&["Symfony", "Component", "Console", "Command", "Command"], false),
                declared(&["Psr", "Log", "LoggerInterface"], false),
                declared(&["Psr", "Log", "NullLogger"], false),
                declared(&["Symfony", "Component", "String", "u"], false),
                path("../Contracts/autoload.php", PathBase::Here),
                path("config/defaults.php", PathBase::HereThenSuffix),
            ]
        );
        let sh = parse(
            "bash",
            &strs(&[
                "source lib/common.sh\n. \"$(dirname \"${BASH_SOURCE[0]}\")/helpers.bash\"\n. \"$config\"\nsource /etc/profile # login",
            ]),
        );
        assert_eq!(
            sh,
            vec![
                path("lib/common.sh", PathBase::HereThenSuffix),
                path("helpers.bash", PathBase::HereThenSuffix),
                path("etc/profile", PathBase::Suffix),
            ]
        );
    }

    #[test]
    fn declarations_read_namespaces_packages_and_top_level_names() {
        let cs = declarations(
            "csharp",
            "using System;\n\nnamespace Python.Runtime\n{\n    internal sealed class Converter\n    {\n        public static int X;\n    }\n    public record struct Handle;\n}\n",
        );
        assert_eq!(
            cs,
            Some(Declarations {
                packages: strs(&["Python.Runtime"]),
                names: strs(&["Converter", "Handle"])
            })
        );
        let kt = declarations(
            "kotlin",
            "package expo.modules.kotlin.types\n\nimport kotlin.reflect.KType\n\ninline fun <reified T : Any> toAnyType(): AnyType = TODO()\nfun Map<String, Any>.asBundle(): Bundle = TODO()\ndata class Pair(val a: Int)\nclass Outer {\n  class Inner\n}\n",
        );
        assert_eq!(
            kt,
            Some(Declarations {
                packages: strs(&["expo.modules.kotlin.types"]),
                names: strs(&["toAnyType", "asBundle", "Pair", "Outer"])
            })
        );
        let scala = declarations(
            "scala",
            "package cats\npackage data\n\nimport cats.kernel.Eq\n\nsealed abstract class Chain[+A]\nobject Chain extends ChainInstances\nprivate[data] trait ChainInstances\npackage object syntax\n",
        );
        assert_eq!(
            scala,
            Some(Declarations {
                packages: strs(&["cats.data", "cats.data.syntax"]),
                names: strs(&["Chain", "ChainInstances", "syntax"])
            })
        );
        let php = declarations(
            "php",
            "<?php\n\nnamespace Symfony\\Component\\Console;\n\nfinal class Application implements ResetInterface\n{\n    public function run() {}\n}\nfunction helper() {}\n",
        );
        assert_eq!(
            php,
            Some(Declarations {
                packages: strs(&["Symfony.Component.Console"]),
                names: strs(&["Application", "helper"])
            })
        );
        assert_eq!(declarations("rust", "mod a;"), None);
    }

    #[test]
    fn document_links_to_other_files() {
        let md = links(
            "markdown",
            "See [setup](../guide/setup.md#install \"Setup\") and [fs](fs.html).\n\n[api]: ./api/index.md\n![logo](img/logo.png)\n[web](https://example.com/a.md) [top](#top) [mail](mailto:a@b.c)\n",
        );
        let link = |t: &str| Import::Link(t.into());
        assert_eq!(
            md,
            vec![
                link("../guide/setup.md"),
                link("fs.html"),
                link("img/logo.png"),
                link("./api/index.md")
            ]
        );
        let rst = links(
            "rst",
            "Read :doc:`the intro <intro/overview>` and :doc:`faq`.\n\n.. include:: ../shared/note.rst\n",
        );
        assert_eq!(
            rst,
            vec![link("../shared/note.rst"), link("intro/overview.rst"), link("faq.rst")]
        );
        let tex =
            links("latex", "\\input{sections/intro}\n% \\include{old}\n\\include{appendix.tex}\n");
        assert_eq!(tex, vec![link("sections/intro.tex"), link("appendix.tex")]);
        assert!(links("python", "[x](y.md)").is_empty());
    }

    /// Runs `f` and fails when it takes longer than a minute: a guard against the quadratic
    /// readings these inputs once caused (hours), with room for a loaded CI machine, not a
    /// speed measurement (linear readings take 0.5-4 s in a debug build).
    pub(crate) fn within_a_minute<T>(f: impl FnOnce() -> T) -> T {
        let started = std::time::Instant::now();
        let out = f();
        assert!(started.elapsed().as_secs() < 60, "took {:?}", started.elapsed());
        out
    }

    /// The word before a string literal, after a char of several bytes that ends no name
    /// (`from✓"x"`): the slice started inside that char and panicked.
    #[test]
    fn a_literal_after_a_multibyte_char_reads_without_panic() {
        assert!(parse("typescript", &strs(&["import x from\u{2713}'y'"])).is_empty());
        assert_eq!(parse("javascript", &strs(&["import\u{2713}'y'"])), []);
        assert_eq!(parse("javascript", &strs(&["\u{2713}import'y'"])), [Import::Ecma("y".into())]);
        assert!(parse("go", &strs(&["import (\n\u{1F600}\"fmt\"\n)"])).len() <= 1);
    }

    /// A 2 MB line of `](` with no `)`, space or line end: each `](` scanned the rest of the
    /// text for its destination's end, quadratic (over 30 s in a debug build).
    #[test]
    fn markdown_links_on_a_long_line_without_ends_take_linear_time() {
        let text = "](".repeat(1 << 20);
        within_a_minute(|| links("markdown", &text));
        // A destination still ends at the text's end.
        assert_eq!(links("markdown", "[x](a.md"), vec![Import::Link("a.md".into())]);
    }

    /// A 4 MB line of `\input{x}`: each command looked back to its line's start for a `%`,
    /// quadratic (over 30 s in a debug build).
    #[test]
    fn latex_inputs_on_a_long_line_take_linear_time() {
        let text = "\\input{x}".repeat(450_000);
        let got = within_a_minute(|| links("latex", &text));
        assert_eq!(got.len(), 450_000);
        // A `%` earlier on the line still comments out what follows it, only that.
        let got = links("latex", "\\input{a} % \\input{b}\n\\input{c}");
        assert_eq!(got, vec![Import::Link("a.tex".into()), Import::Link("c.tex".into())]);
    }

    /// A generated C# file of 200,000 classes: each name was checked against every name
    /// before it, quadratic (over 30 s in a debug build).
    #[test]
    fn declarations_of_many_names_take_linear_time() {
        let text: String = (0..200_000).map(|i| format!("class C{i} {{}}\n")).collect();
        let decl = within_a_minute(|| declarations("csharp", &text)).unwrap_or_default();
        assert_eq!(decl.names.len(), 200_000);
        assert_eq!(
            declarations("csharp", "class A {}\nclass A {}\n").unwrap_or_default().names,
            ["A"]
        );
    }

    /// A C# file that opens the same namespace twice declares it once: twice, its file took
    /// two shares of every `using` of the namespace.
    #[test]
    fn declarations_name_each_package_once() {
        let text = "namespace A\n{\n  class X {}\n}\nnamespace A\n{\n  class Y {}\n}\n";
        let decl = declarations("csharp", text).unwrap_or_default();
        assert_eq!(decl.packages, ["A"]);
    }

    /// A Scala import whose selectors span 300,000 lines: the braces were counted again over
    /// the whole statement at each line, quadratic (over 30 s in a debug build).
    #[test]
    fn scala_import_selectors_over_many_lines_take_linear_time() {
        let mut stmt = String::from("import a.{\n");
        for i in 0..300_000 {
            stmt.push_str(&format!("  B{i},\n"));
        }
        stmt.push('}');
        let got = within_a_minute(|| parse("scala", &[stmt]));
        assert_eq!(got.len(), 300_000);
    }

    /// A dotted name of 100,000 parts is no name a file declares: resolving it joined every
    /// prefix of it (quadratic), and Scala's selectors cloned it per selector.
    #[test]
    fn dotted_names_of_absurd_depth_are_no_imports() {
        let name = "a.".repeat(100_000) + "B";
        assert!(parse("kotlin", &[format!("import {name}")]).is_empty());
        assert!(parse("scala", &[format!("import {name}.{{C, D}}")]).is_empty());
        assert!(parse("csharp", &[format!("using {name};")]).is_empty());
        let decl = declarations("scala", &format!("package {name}\nclass X\n"));
        assert_eq!(decl.unwrap_or_default().packages, Vec::<String>::new());
        let many = "package a\n".repeat(100_000) + "class X\n";
        let decl = within_a_minute(|| declarations("scala", &many)).unwrap_or_default();
        assert_eq!(decl.packages, [vec!["a"; MAX_PARTS].join(".")]);
    }
}
