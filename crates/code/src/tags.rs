//! How deep a markup file's elements nest, for grammars whose external scanner keeps the stack
//! of open elements (tree-sitter-html, and tree-sitter-svelte-ng after it): the scanner writes
//! the whole stack out and reads it back at every token, so a parse takes time proportional
//! to the number of tokens times the nesting depth. 20,000 nested `<div>`s (200 KB) take
//! 3.5 s to parse and 100,000 (1.1 MB) take 52 s, where a flat page of that size takes a
//! tenth of a second. The step budget of a parse does not see it: the operations are few,
//! each one is slow. Such a file is not parsed.
//!
//! The depth is estimated the way a browser builds its stack of open elements, in a single
//! pass, with no allocation per tag: a start tag pushes its name, an end tag pops back to the
//! nearest open element of its name (and is ignored when there is none), void elements
//! (`<br>`, `<img>`) and self-closing tags (`<x/>`) push nothing, an element whose end tag
//! may be left out (`<li>`, `<p>`, `<td>` …) first closes an open one of its own name among
//! the top few, the text of `<script>`, `<style>`, `<textarea>` and `<title>` is skipped to
//! its end tag, and comments, doctypes, processing instructions and CDATA are skipped whole.

/// Nesting beyond which a file is not parsed. Real markup nests a few dozen deep at most: the
/// deepest of the 169 HTML files the bench corpus chunks as source nests 15, of the 384 Vue
/// files 16, of the 394 Svelte files 6. At this depth a file of nothing but nested tags parses
/// in well under a second per megabyte.
pub(crate) const MAX_TAG_DEPTH: usize = 512;

/// Elements with no content and no end tag.
const VOID: &[&[u8]] = &[
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"param",
    b"source", b"track", b"wbr",
];

/// Elements whose end tag may be left out: opening one closes an open one of the same name
/// near the top of the stack.
const OPTIONAL_END: &[&[u8]] = &[
    b"li",
    b"p",
    b"dt",
    b"dd",
    b"tr",
    b"td",
    b"th",
    b"option",
    b"optgroup",
    b"thead",
    b"tbody",
    b"tfoot",
    b"colgroup",
    b"rb",
    b"rt",
    b"rp",
];

/// Elements whose content is raw text up to their end tag.
const RAW_TEXT: &[&[u8]] = &[b"script", b"style", b"textarea", b"title"];

/// How many entries below the top an optional end tag looks for its own name.
const IMPLIED_REACH: usize = 3;

/// Longest tag name kept for matching; longer names are compared by this prefix.
const NAME_BYTES: usize = 32;

/// The depth at which `text`'s elements first nest deeper than `limit`, or `None` when they
/// never do. One pass over `text`, at most `limit` steps per tag.
pub fn deeper_than(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    // Open elements, each its name's (lower-cased, cut) bytes and length.
    let mut stack: Vec<([u8; NAME_BYTES], usize)> = Vec::new();
    let mut at = 0;
    while let Some(lt) = memchr::memchr(b'<', &bytes[at..]) {
        at += lt;
        let rest = &bytes[at..];
        if rest.starts_with(b"<!--") {
            at = skip_past(bytes, at + 4, b"-->");
            continue;
        }
        if rest.starts_with(b"<![CDATA[") {
            at = skip_past(bytes, at + 9, b"]]>");
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
        let (end, self_closing) = tag_end(bytes, name_start + len);
        at = end;
        let key = &name[..len.min(NAME_BYTES)];
        if closing {
            if let Some(k) = stack.iter().rposition(|(n, l)| &n[..*l] == key) {
                stack.truncate(k);
            }
            continue;
        }
        if self_closing || VOID.contains(&key) {
            continue;
        }
        if OPTIONAL_END.contains(&key) {
            let floor = stack.len().saturating_sub(IMPLIED_REACH);
            if let Some(k) = stack[floor..].iter().rposition(|(n, l)| &n[..*l] == key) {
                stack.truncate(floor + k);
            }
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

/// Where the tag whose attributes start at `at` ends (past its `>`, quoted values skipped),
/// and whether it closes itself (`/>`).
fn tag_end(bytes: &[u8], mut at: usize) -> (usize, bool) {
    let mut quote = None;
    while let Some(&b) = bytes.get(at) {
        match (quote, b) {
            (Some(q), b) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'>') => return (at + 1, at > 0 && bytes[at - 1] == b'/'),
            (None, _) => {}
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
        (0..64).find(|&limit| deeper_than(text, limit).is_none()).unwrap_or(64)
    }

    #[test]
    fn nesting_is_counted_as_a_browser_keeps_open_elements() {
        assert_eq!(depth("<html><body><div><p>x</p></div></body></html>"), 4);
        // Void and self-closing elements push nothing.
        assert_eq!(depth("<div><br><img src=x><input/><x-icon /></div>"), 1);
        // Optional end tags: sibling items, paragraphs and cells close the one before.
        assert_eq!(depth("<ul><li>a<li>b<li>c</ul>"), 2);
        assert_eq!(depth("<p>a<p>b<p>c"), 1);
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

    #[test]
    fn deep_nesting_is_found_in_one_linear_pass() {
        let text = "<div>".repeat(100_000);
        assert_eq!(deeper_than(&text, MAX_TAG_DEPTH), Some(MAX_TAG_DEPTH + 1));
        // Deep, then closed, then deep again: never past the limit at once.
        let wave = format!("{}{}", "<div>".repeat(400), "</div>".repeat(400)).repeat(100);
        assert_eq!(deeper_than(&wave, MAX_TAG_DEPTH), None);
        // End tags that match nothing search at most the limit each.
        let strays = format!("{}{}", "<div>".repeat(500), "</span>".repeat(100_000));
        assert_eq!(deeper_than(&strays, MAX_TAG_DEPTH), None);
    }

    #[test]
    fn unterminated_constructs_end_the_scan() {
        for text in ["<!-- open", "<div a='open", "<script>open", "<![CDATA[", "<", "</", "<?x"] {
            assert!(deeper_than(text, 0).unwrap_or(0) <= 1, "{text}");
        }
    }
}
