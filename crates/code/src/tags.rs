//! How deep a markup file's elements nest, for grammars whose external scanner keeps the stack
//! of open elements (tree-sitter-html, and tree-sitter-svelte-ng after it): the scanner writes
//! the whole stack out and reads it back at every token, so a parse takes time proportional
//! to the number of tokens times the nesting depth. 20,000 nested `<div>`s (200 KB) take
//! 3.5 s to parse and 100,000 (1.1 MB) take 52 s, where a flat page of that size takes a
//! tenth of a second. The step budget of a parse does not see it: the operations are few,
//! each one is slow. Such a file is not parsed.
//!
//! The depth is estimated in a single pass, with no allocation per tag, so as never to fall
//! short of what either parser builds (tree-sitter's scanner for a file read as source,
//! html5ever under htmd for a page converted to Markdown): a start tag pushes its name, void
//! elements (`<br>`, `<img>`) push nothing, and so does a self-closing tag (`<x/>`) when the
//! caller's parser honours it (tree-sitter does, html5ever does not on HTML elements); an
//! element that cannot hold the one that opens (an `<li>` an `<li>`, a `<td>` a `<tr>`, a
//! `<p>` a `<div>`) is closed first, while it is on top, as tree-sitter's scanner does; an
//! end tag pops back to the nearest open element of its name unless an element that bounds
//! its scope (`<table>`, `<td>`, `<object>`, `<template>` …) lies between, where html5ever
//! ignores it; the text of `<script>` and `<style>` is skipped to its end tag, comments to
//! their end (`<!-->` is an empty one), doctypes, processing instructions and CDATA to the
//! first `>`; a quote opens a quoted value only right after `=`.

use crate::registry::Language;

/// Nesting beyond which a file is not parsed. Real markup nests a few dozen deep at most: the
/// deepest of the 169 HTML files the bench corpus chunks as source nests 15, of the 384 Vue
/// files 16, of the 394 Svelte files 6. At this depth a file of nothing but nested tags parses
/// in well under a second per megabyte.
pub(crate) const MAX_TAG_DEPTH: usize = 512;

/// How deep `text` nests past [`MAX_TAG_DEPTH`] when `language`'s grammar keeps a stack of
/// open elements (its row's `tag_stack`): then it is not parsed. `None` for every other
/// language, and for text that stays within the limit.
pub(crate) fn too_deep_to_parse(language: &Language, text: &str) -> Option<usize> {
    if language.tag_stack { deeper_than(text, MAX_TAG_DEPTH, true) } else { None }
}

/// Elements with no content and no end tag.
const VOID: &[&[u8]] = &[
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"param",
    b"source", b"track", b"wbr",
];

/// Elements whose text is raw up to their end tag, in both parsers.
const RAW_TEXT: &[&[u8]] = &[b"script", b"style"];

/// Elements between which and an open element of its name html5ever ignores an end tag.
const SCOPE_BOUNDARIES: &[&[u8]] =
    &[b"applet", b"caption", b"html", b"table", b"td", b"th", b"marquee", b"object", b"template"];

/// Blocks a `<p>` cannot hold: opening one closes an open `<p>` on top.
const BLOCKS: &[&[u8]] = &[
    b"address",
    b"article",
    b"aside",
    b"blockquote",
    b"details",
    b"div",
    b"dl",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"header",
    b"hgroup",
    b"hr",
    b"main",
    b"menu",
    b"nav",
    b"ol",
    b"p",
    b"pre",
    b"section",
    b"table",
    b"ul",
];

/// Whether an open `parent` cannot hold a `child` that opens, so that the child's start tag
/// closes it (tree-sitter-html's `can_contain`, for the elements whose end tag may be left
/// out).
fn cannot_hold(parent: &[u8], child: &[u8]) -> bool {
    match parent {
        b"li" => child == b"li",
        b"dt" | b"dd" => matches!(child, b"dt" | b"dd"),
        b"p" => BLOCKS.contains(&child),
        b"colgroup" => child != b"col",
        b"rb" | b"rt" | b"rp" => matches!(child, b"rb" | b"rt" | b"rp"),
        b"optgroup" => child == b"optgroup",
        b"option" => matches!(child, b"option" | b"optgroup"),
        b"tr" => child == b"tr",
        b"td" | b"th" => matches!(child, b"td" | b"th" | b"tr"),
        _ => false,
    }
}

/// Longest tag name kept for matching; longer names are compared by this prefix.
const NAME_BYTES: usize = 32;

/// The depth at which `text`'s elements first nest deeper than `limit`, or `None` when they
/// never do; `self_closing` says whether `<x/>` closes itself for the parser that will read
/// `text`. One pass over `text`, at most `limit` steps per tag.
pub fn deeper_than(text: &str, limit: usize, self_closing: bool) -> Option<usize> {
    let bytes = text.as_bytes();
    // Open elements, each its name's (lower-cased, cut) bytes and length.
    let mut stack: Vec<([u8; NAME_BYTES], usize)> = Vec::new();
    let mut at = 0;
    while let Some(lt) = memchr::memchr(b'<', &bytes[at..]) {
        at += lt;
        let rest = &bytes[at..];
        if rest.starts_with(b"<!-->") || rest.starts_with(b"<!--->") {
            at += if rest[4] == b'>' { 5 } else { 6 };
            continue;
        }
        if rest.starts_with(b"<!--") {
            at = skip_past(bytes, at + 4, b"-->");
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"<?") {
            at = skip_past(bytes, at + 2, b">");
            continue;
        }
        let closing = rest.get(1) == Some(&b'/');
        let name_start = at + 1 + usize::from(closing);
        let (name, len) = tag_name(bytes, name_start);
        if len == 0 {
            at += 1;
            continue;
        }
        let (end, closes_itself) = tag_end(bytes, name_start + len);
        at = end;
        let key = &name[..len.min(NAME_BYTES)];
        if closing {
            for k in (0..stack.len()).rev() {
                let open = &stack[k].0[..stack[k].1];
                if open == key {
                    stack.truncate(k);
                    break;
                }
                if SCOPE_BOUNDARIES.contains(&open) {
                    break;
                }
            }
            continue;
        }
        if (self_closing && closes_itself) || VOID.contains(&key) {
            continue;
        }
        while let Some((open, l)) = stack.last() {
            if !cannot_hold(&open[..*l], key) {
                break;
            }
            stack.pop();
        }
        if RAW_TEXT.contains(&key) {
            at = raw_text_end(bytes, at, key);
            continue;
        }
        stack.push((name, len.min(NAME_BYTES)));
        if stack.len() > limit {
            return Some(stack.len());
        }
    }
    None
}

/// The offset just past the first `end` at or after `from`, or the end of `bytes`.
fn skip_past(bytes: &[u8], from: usize, end: &[u8]) -> usize {
    let from = from.min(bytes.len());
    memchr::memmem::find(&bytes[from..], end).map_or(bytes.len(), |i| from + i + end.len())
}

/// The lower-cased name of the tag whose name starts at `at` (ASCII letters first, then
/// letters, digits, `-`, `_`, `:` and `.`), cut to `NAME_BYTES`, and its full length.
fn tag_name(bytes: &[u8], at: usize) -> ([u8; NAME_BYTES], usize) {
    let mut name = [0u8; NAME_BYTES];
    if !bytes.get(at).is_some_and(u8::is_ascii_alphabetic) {
        return (name, 0);
    }
    let len = bytes[at..]
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
        .count();
    for (slot, b) in name.iter_mut().zip(&bytes[at..at + len]) {
        *slot = b.to_ascii_lowercase();
    }
    (name, len)
}

/// Where the tag whose attributes start at `at` ends (past its `>`), and whether it closes
/// itself (`/>` after white space, a quote or the name: `<a href=/>` is a value `/`). A quote
/// opens a quoted value only right after `=` (and white space); elsewhere it is a character.
fn tag_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut at = start;
    let mut quote = None;
    let mut after_equals = false;
    while let Some(&b) = bytes.get(at) {
        match quote {
            Some(q) => {
                if b == q {
                    quote = None;
                }
            }
            None => match b {
                b'"' | b'\'' if after_equals => quote = Some(b),
                b'>' => {
                    let slash = at > start && bytes[at - 1] == b'/';
                    let before = if at >= start + 2 { bytes[at - 2] } else { b' ' };
                    let closes = slash
                        && (at - 1 == start
                            || before.is_ascii_whitespace()
                            || matches!(before, b'"' | b'\''));
                    return (at + 1, closes);
                }
                _ => {}
            },
        }
        if quote.is_none() {
            if b == b'=' {
                after_equals = true;
            } else if !b.is_ascii_whitespace() {
                after_equals = false;
            }
        }
        at += 1;
    }
    (bytes.len(), false)
}

/// The offset of the end tag `</name` of a raw text element whose content starts at `at`
/// (matched without regard to case), or the end of `bytes`.
fn raw_text_end(bytes: &[u8], mut at: usize, name: &[u8]) -> usize {
    while let Some(i) = memchr::memmem::find(&bytes[at..], b"</") {
        let start = at + i + 2;
        let candidate = bytes.get(start..start + name.len());
        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name)) {
            return at + i;
        }
        at = start;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(text: &str) -> usize {
        (0..64).find(|&limit| deeper_than(text, limit, true).is_none()).unwrap_or(64)
    }

    #[test]
    fn nesting_is_counted_as_the_parsers_keep_open_elements() {
        assert_eq!(depth("<html><body><div><p>x</p></div></body></html>"), 4);
        // Void and self-closing elements push nothing.
        assert_eq!(depth("<div><br><img src=x><input/><x-icon /><a href='y'/></div>"), 1);
        // Optional end tags: sibling items, paragraphs and cells close the one before.
        assert_eq!(depth("<ul><li>a<li>b<li>c</ul>"), 2);
        assert_eq!(depth("<p>a<p>b<div>c</div>"), 1);
        assert_eq!(depth("<table><tr><td>a<td>b<tr><td>c</table>"), 3);
        // An end tag pops back to its element, closing what was left open inside.
        assert_eq!(depth("<div><span><b>x</div><div>y</div>"), 3);
        // A stray end tag changes nothing.
        assert_eq!(depth("</div><div></section>x</div>"), 1);
        // Raw text, comments, doctypes and quoted `>` are skipped.
        assert_eq!(depth("<script>if (a<b) { '<div><div>' }</SCRIPT><div></div>"), 1);
        assert_eq!(depth("<!DOCTYPE html><!-- <div><div> --><div a='>' b=\"<div>\"></div>"), 1);
        assert_eq!(depth("<div>a < b and 1<2</div>"), 1);
        // Case does not matter.
        assert_eq!(depth("<DIV><div></Div></DIV>"), 2);
    }

    /// Inputs on which an estimate once fell short of the parsers (review of 2026-11-28).
    #[test]
    fn nesting_that_the_parsers_build_is_never_missed() {
        let n = 1_000;
        let deep = |unit: &str, self_closing: bool| {
            deeper_than(&unit.repeat(n), MAX_TAG_DEPTH, self_closing).is_some()
        };
        // A new item closes an open item only on top: nested lists, tables, definitions.
        assert!(deep("<ul><li>", true));
        assert!(deep("<table><tr><td>", true));
        assert!(deep("<dl><dd>", true));
        // `/` as an unquoted value is no self-closing; html5ever nests `<div/>`.
        assert!(deep("<div x=/>", true));
        assert!(deep("<div/>", false));
        // An empty comment, a bogus CDATA and a stray quote hide nothing after them.
        assert!(deeper_than(&format!("<!-->{}", "<div>".repeat(n)), MAX_TAG_DEPTH, true).is_some());
        assert!(
            deeper_than(&format!("<![CDATA[x>{}", "<div>".repeat(n)), MAX_TAG_DEPTH, true)
                .is_some()
        );
        assert!(deep("<div a=b\">", true));
        // An end tag across a scope boundary is ignored, as html5ever does.
        assert!(deep("<div><marquee></div>", true));
        // Title and textarea are not raw text to tree-sitter-html.
        assert!(
            deeper_than(&format!("<title>{}", "<div>".repeat(n)), MAX_TAG_DEPTH, true).is_some()
        );
    }

    #[test]
    fn deep_nesting_is_found_in_one_linear_pass() {
        let text = "<div>".repeat(100_000);
        assert_eq!(deeper_than(&text, MAX_TAG_DEPTH, true), Some(MAX_TAG_DEPTH + 1));
        // Deep, then closed, then deep again: never past the limit at once.
        let wave = format!("{}{}", "<div>".repeat(400), "</div>".repeat(400)).repeat(100);
        assert_eq!(deeper_than(&wave, MAX_TAG_DEPTH, true), None);
        // End tags that match nothing search at most the limit each.
        let strays = format!("{}{}", "<div>".repeat(500), "</span>".repeat(100_000));
        assert_eq!(deeper_than(&strays, MAX_TAG_DEPTH, true), None);
    }

    #[test]
    fn unterminated_constructs_end_the_scan() {
        for text in ["<!-- open", "<div a='open", "<script>open", "<![CDATA[", "<", "</", "<?x"] {
            assert!(deeper_than(text, 0, true).unwrap_or(0) <= 1, "{text}");
        }
    }
}
