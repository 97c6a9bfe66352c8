//! A TOML scanner: statements (key/value pairs and table headers) found line by line, with
//! multi-line strings, arrays and inline tables followed to their end; tables nested under the
//! table whose path their header extends.

use std::ops::Range;

use cleave_core::{Atom, AtomKind, AtomLabel, Boundary};

use super::key_atom;
use crate::text::tiling::spread;

/// One statement: its range (with comments right above it) and what it is.
struct Statement {
    range: Range<usize>,
    kind: StatementKind,
}

enum StatementKind {
    /// `key = value`.
    Pair(String),
    /// `[a.b]` (`array` false) or `[[a.b]]` (true).
    Header { path: Vec<String>, array: bool },
}

/// A table being built.
struct OpenTable {
    path: Vec<String>,
    label: String,
    name: String,
    children: Vec<Atom>,
}

/// The root atom of a TOML text.
pub(super) fn atomize(text: &str) -> Atom {
    let statements = statements(text);
    let mut top: Vec<Atom> = Vec::new();
    let mut stack: Vec<OpenTable> = Vec::new();
    let mut array_counts: std::collections::HashMap<Vec<String>, usize> = Default::default();
    for st in statements {
        match st.kind {
            StatementKind::Pair(key) => {
                let atom = key_atom(st.range, &key);
                match stack.last_mut() {
                    Some(table) if table.children.len() == 1 => {
                        table.children.push(atom.with_boundary(Boundary::Word));
                    }
                    Some(table) => table.children.push(atom.with_boundary(Boundary::Member)),
                    None => top.push(atom.with_boundary(Boundary::Item)),
                }
            }
            StatementKind::Header { path, array } => {
                while let Some(open) = stack.last() {
                    let extends = open.path.len() < path.len() && path.starts_with(&open.path);
                    if extends {
                        break;
                    }
                    close(text, &mut stack, &mut top);
                }
                let parent_len = stack.last().map_or(0, |t| t.path.len());
                let name = path[parent_len..].join(".");
                let label = if array {
                    let n = array_counts.entry(path.clone()).or_insert(0);
                    *n += 1;
                    format!("{name}[{}]", *n - 1)
                } else {
                    name.clone()
                };
                let header = Atom::new(AtomKind::Block, st.range);
                stack.push(OpenTable { path, label, name, children: vec![header] });
            }
        }
    }
    while !stack.is_empty() {
        close(text, &mut stack, &mut top);
    }
    let root = Atom::new(AtomKind::Block, 0..text.len());
    let children = spread(text, 0..text.len(), top, true);
    if children.len() > 1 { root.with_children(children) } else { root }
}

fn close(text: &str, stack: &mut Vec<OpenTable>, top: &mut Vec<Atom>) {
    let Some(table) = stack.pop() else { return };
    let start = table.children.first().map_or(0, |a| a.range.start);
    let end = table.children.last().map_or(start, |a| a.range.end);
    let range = start..end;
    let children = spread(text, range.clone(), table.children, true);
    let mut atom = Atom::new(AtomKind::Symbol, range).with_scope(true).with_label(AtomLabel {
        label: table.label,
        name: Some(table.name),
        signature: None,
    });
    if children.len() > 1 {
        atom = atom.with_children(children);
    }
    match stack.last_mut() {
        Some(parent) => parent.children.push(atom.with_boundary(Boundary::Member)),
        None => top.push(atom.with_boundary(Boundary::Item)),
    }
}

/// The statements of a TOML text, in order.
fn statements(text: &str) -> Vec<Statement> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    // Start of the comment lines right above the next statement.
    let mut comments: Option<usize> = None;
    while at < text.len() {
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let line = text[at..line_end].trim();
        if line.is_empty() {
            comments = None;
            at = line_end;
            continue;
        }
        if line.starts_with('#') {
            comments.get_or_insert(at);
            at = line_end;
            continue;
        }
        let start = comments.take().unwrap_or(at);
        let content = at + (text[at..line_end].len() - text[at..line_end].trim_start().len());
        let end = statement_end(bytes, content);
        let first_line = text[content..line_end].trim_end();
        let kind = if first_line.starts_with('[') {
            let array = first_line.starts_with("[[");
            let inner = first_line.trim_start_matches('[');
            let inner = inner.split(']').next().unwrap_or("");
            StatementKind::Header { path: key_path(inner), array }
        } else {
            let key = first_line.split('=').next().unwrap_or("").trim();
            StatementKind::Pair(key_path(key).join("."))
        };
        out.push(Statement { range: start..end, kind });
        at = end;
    }
    out
}

/// `a . "b.c" . d` → `["a", "b.c", "d"]`.
fn key_path(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut part = String::new();
    let mut quote: Option<char> = None;
    for c in key.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '.') => out.push(std::mem::take(&mut part).trim().to_owned()),
            _ => part.push(c),
        }
    }
    out.push(part.trim().to_owned());
    out
}

/// The end (after its last newline) of the statement starting at `i`: strings, arrays and
/// inline tables are followed across lines.
fn statement_end(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'\n' if depth == 0 => return i + 1,
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            q @ (b'"' | b'\'') => {
                let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
                if triple {
                    i += 3;
                    while i < b.len()
                        && !(b[i] == q && b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q))
                    {
                        i += if b[i] == b'\\' && q == b'"' { 2 } else { 1 };
                    }
                    i += 3;
                    // A closing run may hold up to two more quotes: `""""`.
                    while i < b.len() && b[i] == q {
                        i += 1;
                    }
                    continue;
                }
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    i += if b[i] == b'\\' && q == b'"' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_nest_and_pairs_follow_values() {
        let text = "name = \"x\"\n\n# The server.\n[server]\nhost = \"a\"\nports = [\n  80,\n  443,\n]\n\n[server.tls]\ncert = \"\"\"\nmulti\n\"\"\"\n\n[[bin]]\nname = \"a\"\n\n[[bin]]\nname = \"b\"\n";
        let root = atomize(text);
        root.validate(text).unwrap();
        let labels: Vec<_> = root.children.iter().filter_map(|a| a.label_text()).collect();
        assert_eq!(labels, vec!["name", "server", "bin[0]", "bin[1]"]);
        let server = &root.children[1];
        assert!(text[server.range.clone()].starts_with("# The server.\n[server]"));
        let inner: Vec<_> = server.children.iter().filter_map(|a| a.label_text()).collect();
        assert_eq!(inner, vec!["host", "ports", "tls"]);
        let ports = &server.children[2];
        assert_eq!(&text[ports.range.clone()], "ports = [\n  80,\n  443,\n]\n\n");
    }
}
