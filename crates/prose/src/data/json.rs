//! A JSON scanner that reports where members and elements start and end. It accepts JSONC and
//! JSON5 habits (comments, trailing commas, bare keys) since such files are common in repos.

use std::ops::Range;

use cleave_core::{Atom, AtomKind, Boundary};

use super::{MAX_DEPTH, glue_first, index_atom, key_atom};
use crate::text::tiling::spread;

/// Arrays longer than this are one leaf: the packer splits them at lines should they not fit.
const MAX_ELEMENTS: usize = 10_000;

/// The root atom of a JSON text, or why the text does not scan.
pub(super) fn atomize(text: &str) -> Result<Atom, String> {
    let scanner = Scanner { text, bytes: text.as_bytes() };
    let start = scanner.skip_ws(0)?;
    let root = Atom::new(AtomKind::Block, 0..text.len());
    if start == text.len() {
        return Ok(root);
    }
    let (end, children) = scanner.value(start, 0)?;
    let rest = scanner.skip_ws(end)?;
    if rest != text.len() {
        return Err(format!("invalid JSON: content after the value at byte {rest}"));
    }
    let children: Vec<Atom> = children
        .into_iter()
        .enumerate()
        .map(|(i, a)| if i == 0 { a } else { a.with_boundary(Boundary::Item) })
        .collect();
    let children = spread(text, 0..text.len(), children, true);
    Ok(if children.len() > 1 { root.with_children(children) } else { root })
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
}

impl Scanner<'_> {
    fn err<T>(&self, what: &str, at: usize) -> Result<T, String> {
        let line =
            self.bytes[..at.min(self.bytes.len())].iter().filter(|&&b| b == b'\n').count() + 1;
        Err(format!("invalid JSON: {what} at line {line}"))
    }

    /// Skips whitespace, a byte-order mark and comments.
    fn skip_ws(&self, mut i: usize) -> Result<usize, String> {
        let b = self.bytes;
        if i == 0 && self.text.starts_with('\u{feff}') {
            i = 3;
        }
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    i = memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p + 1);
                }
                b'/' if b.get(i + 1) == Some(&b'*') => match self.text[i + 2..].find("*/") {
                    Some(p) => i = i + 2 + p + 2,
                    None => return self.err("unterminated comment", i),
                },
                _ => break,
            }
        }
        Ok(i)
    }

    fn string_end(&self, i: usize) -> Result<usize, String> {
        let b = self.bytes;
        let quote = b[i];
        let mut j = i + 1;
        while j < b.len() {
            match b[j] {
                b'\\' => j += 2,
                c if c == quote => return Ok(j + 1),
                b'\n' => return self.err("newline in string", j),
                _ => j += 1,
            }
        }
        self.err("unterminated string", i)
    }

    /// A scalar: number, literal or bare word, up to a delimiter.
    fn scalar_end(&self, i: usize) -> Result<usize, String> {
        let b = self.bytes;
        let mut j = i;
        while j < b.len()
            && !matches!(b[j], b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r' | b'/')
        {
            j += 1;
        }
        if j == i {
            return self.err("unexpected character", i);
        }
        Ok(j)
    }

    /// Scans a value at `i`; returns its end and, for containers, its entries.
    fn value(&self, i: usize, depth: usize) -> Result<(usize, Vec<Atom>), String> {
        match self.bytes.get(i) {
            Some(b'{' | b'[') if depth >= MAX_DEPTH => Ok((self.skip_container(i)?, Vec::new())),
            Some(b'{') => self.object(i, depth),
            Some(b'[') => self.array(i, depth),
            Some(b'"' | b'\'') => Ok((self.string_end(i)?, Vec::new())),
            Some(_) => Ok((self.scalar_end(i)?, Vec::new())),
            None => self.err("missing value", i),
        }
    }

    /// The end of a container too deep to read as structure.
    fn skip_container(&self, i: usize) -> Result<usize, String> {
        let b = self.bytes;
        let mut depth = 0usize;
        let mut j = i;
        while j < b.len() {
            match b[j] {
                b'"' | b'\'' => {
                    j = self.string_end(j)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(j + 1);
                    }
                }
                _ => {}
            }
            j += 1;
        }
        self.err("unterminated container", i)
    }

    /// An entry whose value spans `value`: the entry's own head and tail around the value's
    /// entries, laid over `range`.
    fn entry(&self, atom: Atom, value: Range<usize>, inner: Vec<Atom>) -> Atom {
        if inner.is_empty() {
            return atom;
        }
        let range = atom.range.clone();
        let mut children = vec![Atom::new(AtomKind::Block, range.start..value.start + 1)];
        children.extend(glue_first(inner));
        children.push(
            Atom::new(AtomKind::Block, value.end - 1..range.end).with_boundary(Boundary::Line),
        );
        let children = spread(self.text, range, children, true);
        atom.with_children(children)
    }

    fn object(&self, i: usize, depth: usize) -> Result<(usize, Vec<Atom>), String> {
        let b = self.bytes;
        let mut members = Vec::new();
        let mut j = self.skip_ws(i + 1)?;
        loop {
            match b.get(j) {
                Some(b'}') => return Ok((j + 1, members)),
                None => return self.err("unterminated object", i),
                _ => {}
            }
            let key_start = j;
            let key_end = match b[j] {
                b'"' | b'\'' => self.string_end(j)?,
                _ => self.scalar_end(j)?,
            };
            let key = self.text[key_start..key_end].trim_matches(['"', '\'']);
            j = self.skip_ws(key_end)?;
            if b.get(j) != Some(&b':') {
                return self.err("expected ':'", j);
            }
            let value_start = self.skip_ws(j + 1)?;
            let (value_end, inner) = self.value(value_start, depth + 1)?;
            let mut end = value_end;
            j = self.skip_ws(value_end)?;
            if b.get(j) == Some(&b',') {
                end = j + 1;
                j = self.skip_ws(j + 1)?;
            } else if b.get(j) != Some(&b'}') {
                return self.err("expected ',' or '}'", j);
            }
            let atom = key_atom(key_start..end, key).with_boundary(Boundary::Member);
            members.push(self.entry(atom, value_start..value_end, inner));
        }
    }

    fn array(&self, i: usize, depth: usize) -> Result<(usize, Vec<Atom>), String> {
        let b = self.bytes;
        let mut elements = Vec::new();
        let mut j = self.skip_ws(i + 1)?;
        loop {
            match b.get(j) {
                Some(b']') => {
                    if elements.len() > MAX_ELEMENTS {
                        elements.clear();
                    }
                    return Ok((j + 1, elements));
                }
                None => return self.err("unterminated array", i),
                _ => {}
            }
            let value_start = j;
            let (value_end, inner) = self.value(j, depth + 1)?;
            let mut end = value_end;
            j = self.skip_ws(value_end)?;
            if b.get(j) == Some(&b',') {
                end = j + 1;
                j = self.skip_ws(j + 1)?;
            } else if b.get(j) != Some(&b']') {
                return self.err("expected ',' or ']'", j);
            }
            let atom = if inner.is_empty() {
                Atom::new(AtomKind::Block, value_start..end)
            } else {
                index_atom(value_start..end, elements.len())
            };
            let atom = atom.with_boundary(Boundary::Member);
            elements.push(self.entry(atom, value_start..value_end, inner));
        }
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_nest_and_tile() {
        let text = "{\n  \"a\": 1,\n  \"b\": {\"c\": [1, 2], \"d\": {\"e\": null}},\n  // note\n  f: 'x',\n}\n";
        let root = atomize(text).unwrap();
        root.validate(text).unwrap();
        let names: Vec<_> = root.children.iter().filter_map(|a| a.name()).collect();
        assert_eq!(names, vec!["a", "b", "f"]);
        let b = &root.children[1];
        let inner: Vec<_> = b.children.iter().filter_map(|a| a.name()).collect();
        assert_eq!(inner, vec!["c", "d"]);
    }

    #[test]
    fn invalid_json_is_refused() {
        assert!(atomize("{\"a\": }").is_err());
        assert!(atomize("{\"a\": 1").is_err());
        assert!(atomize("[1, 2] x").is_err());
        assert!(atomize("   ").is_ok());
    }
}
