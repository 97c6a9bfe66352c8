//! A line-based YAML scanner: block mappings and sequences by indentation, documents by `---`.
//!
//! Flow collections and multi-line scalars belong to the entry whose line opens them; block
//! scalars (`|`, `>`) are leaves, so text inside them is never read as keys.

use std::ops::Range;

use cleave_core::{Atom, AtomKind, Boundary};

use super::{MAX_DEPTH, index_atom, key_atom};
use crate::text::tiling::{lines, spread};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Blank,
    Comment,
    /// `---` or `...` at the start of a line.
    Document,
    /// `key:`; the flag says whether a block scalar (`|`, `>`) follows.
    Key(String, bool),
    /// `- …`; the flag says whether a block scalar follows.
    Item(bool),
    Other,
}

struct Line {
    range: Range<usize>,
    indent: usize,
    kind: Kind,
}

/// The root atom of a YAML text.
pub(super) fn atomize(text: &str) -> Atom {
    let ls: Vec<Line> = lines(text, 0..text.len()).into_iter().map(|r| classify(text, r)).collect();
    let root = Atom::new(AtomKind::Block, 0..text.len());
    // Documents, split at `---` lines.
    let mut docs: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    for (i, l) in ls.iter().enumerate() {
        if l.kind == Kind::Document && i > start {
            docs.push(start..i);
            start = i;
        }
    }
    docs.push(start..ls.len());
    let scanner = Scanner { text, ls: &ls };
    let children: Vec<Atom> = if docs.len() == 1 {
        scanner.entries(0..ls.len(), 0, Boundary::Item)
    } else {
        docs.into_iter()
            .filter(|d| !d.is_empty())
            .map(|d| {
                let range = ls[d.start].range.start..ls[d.end - 1].range.end;
                let inner = scanner.entries(d, 0, Boundary::Item);
                let inner = spread(text, range.clone(), inner, true);
                let doc = Atom::new(AtomKind::Block, range).with_boundary(Boundary::Section);
                if inner.len() > 1 { doc.with_children(inner) } else { doc }
            })
            .collect()
    };
    let children = spread(text, 0..text.len(), children, true);
    if children.len() > 1 { root.with_children(children) } else { root }
}

fn classify(text: &str, range: Range<usize>) -> Line {
    let line = text[range.clone()].trim_end_matches(['\n', '\r']);
    let content = line.trim_start_matches(' ');
    let indent = line.len() - content.len();
    let kind = if content.trim().is_empty() {
        Kind::Blank
    } else if content.starts_with('#') {
        Kind::Comment
    } else if indent == 0
        && (content.starts_with("---") || content.starts_with("..."))
        && content[3..].chars().next().is_none_or(char::is_whitespace)
    {
        Kind::Document
    } else if content == "-" || content.starts_with("- ") {
        Kind::Item(block_scalar(&content[1..]))
    } else if let Some((key, rest)) = split_key(content) {
        Kind::Key(key, block_scalar(rest))
    } else {
        Kind::Other
    };
    Line { range, indent, kind }
}

/// Whether the value text after a key or dash opens a block scalar.
fn block_scalar(rest: &str) -> bool {
    let rest = rest.trim();
    let rest = rest.split(" #").next().unwrap_or("").trim();
    rest.starts_with('|') || rest.starts_with('>')
}

/// `key: rest` → the key (unquoted) and the rest of the line.
fn split_key(content: &str) -> Option<(String, &str)> {
    let first = content.chars().next()?;
    if let Some(quote) = Some(first).filter(|c| matches!(c, '"' | '\'')) {
        let close = content[1..].find(quote)? + 1;
        let rest = content[close + 1..].strip_prefix(':')?;
        if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            return None;
        }
        return Some((content[1..close].to_owned(), rest));
    }
    if matches!(first, '[' | '{' | '&' | '*' | '!' | '|' | '>' | '%' | '@' | '`' | '?' | '-') {
        return None;
    }
    let bytes = content.as_bytes();
    let colon = (0..bytes.len()).find(|&i| {
        bytes[i] == b':' && (i + 1 == bytes.len() || matches!(bytes[i + 1], b' ' | b'\t'))
    })?;
    let key = content[..colon].trim_end();
    if key.is_empty() || key.contains(" #") {
        return None;
    }
    Some((key.to_owned(), &content[colon + 1..]))
}

struct Scanner<'a> {
    text: &'a str,
    ls: &'a [Line],
}

impl Scanner<'_> {
    fn significant(&self, i: usize) -> bool {
        !matches!(self.ls[i].kind, Kind::Blank | Kind::Comment)
    }

    /// The entries of lines `block`, all at the indentation of its first key or item.
    fn entries(&self, block: Range<usize>, depth: usize, boundary: Boundary) -> Vec<Atom> {
        let ls = self.ls;
        let Some(first) =
            block.clone().find(|&i| matches!(ls[i].kind, Kind::Key(..) | Kind::Item(_)))
        else {
            return Vec::new();
        };
        let base = ls[first].indent;
        let mut out = Vec::new();
        let mut i = first;
        let mut items = 0;
        while i < block.end {
            let is_entry =
                ls[i].indent == base && matches!(ls[i].kind, Kind::Key(..) | Kind::Item(_));
            if !is_entry {
                i += 1;
                continue;
            }
            let compact_seq = matches!(&ls[i].kind, Kind::Key(..));
            let mut end = i + 1;
            let mut last = i;
            while end < block.end {
                let l = &ls[end];
                if self.significant(end) {
                    let inside = l.indent > base
                        || (compact_seq && l.indent == base && matches!(l.kind, Kind::Item(_)));
                    if !inside || l.kind == Kind::Document {
                        break;
                    }
                    last = end;
                }
                end += 1;
            }
            // Comments right above an entry belong to it.
            let mut head = i;
            while head > block.start && ls[head - 1].kind == Kind::Comment {
                head -= 1;
            }
            if let Some(prev) = out.last() {
                let prev: &Atom = prev;
                while head < i && ls[head].range.start < prev.range.end {
                    head += 1;
                }
            }
            let range = ls[head].range.start..ls[last].range.end;
            let mut atom = match &ls[i].kind {
                Kind::Key(key, _) => key_atom(range.clone(), key),
                _ => {
                    items += 1;
                    index_atom(range.clone(), items - 1)
                }
            };
            let scalar = matches!(ls[i].kind, Kind::Key(_, true) | Kind::Item(true));
            if !scalar && last > i && depth < MAX_DEPTH {
                let inner = self.entries(i + 1..last + 1, depth + 1, Boundary::Member);
                if !inner.is_empty() {
                    let mut children =
                        vec![Atom::new(AtomKind::Block, ls[head].range.start..ls[i].range.end)];
                    children.extend(super::glue_first(inner));
                    let children = spread(self.text, range, children, true);
                    if children.len() > 1 {
                        atom = atom.with_children(children);
                    }
                }
            }
            out.push(atom.with_boundary(boundary));
            i = last + 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_nest_by_indentation() {
        let text = "# CI\nname: build\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    steps:\n    - uses: actions/checkout@v4\n    - run: |\n        cargo test\n        key: not a key\n";
        let root = atomize(text);
        root.validate(text).unwrap();
        let names: Vec<_> = root.children.iter().filter_map(|a| a.name()).collect();
        assert_eq!(names, vec!["name", "on", "jobs"]);
        assert!(text[root.children[0].range.clone()].starts_with("# CI\n"));
        let jobs = &root.children[2];
        let test = jobs.children.iter().find(|a| a.name() == Some("test")).unwrap();
        let steps = test.children.iter().find(|a| a.name() == Some("steps")).unwrap();
        let items: Vec<_> = steps.children.iter().filter_map(|a| a.label_text()).collect();
        assert_eq!(items, vec!["[0]", "[1]"]);
    }

    #[test]
    fn documents_split_at_markers() {
        let text = "a: 1\n---\nb: 2\n---\nc: 3\n";
        let root = atomize(text);
        root.validate(text).unwrap();
        assert_eq!(root.children.len(), 3);
    }
}
