//! Plain text and reStructuredText atomizer: paragraphs, then sentences, then words.
//!
//! Paragraphs are blank-line blocks made of sentences (the packer splits a sentence that does
//! not fit at lines, then words). In reStructuredText, underlined (and over- and underlined)
//! titles are headings whose levels follow the order in which their adornment styles first
//! appear, as docutils reads them; literal blocks (after `::`), code and math directives and
//! tables are protected, and the other directives keep their body's paragraphs.

pub(crate) mod sections;
pub(crate) mod sentences;
pub(crate) mod tiling;

use std::ops::Range;

use cleave_core::{
    Atom, AtomKind, AtomLabel, AtomTree, Boundary, CommentStyle, ContentKind, Region,
};

use sections::sectionize;
use sentences::sentence_starts;
use tiling::{lines, spread_with, wrap};

/// What a protected directive holds: math, a table, or (all the others) code.
fn directive_region(name: &str) -> Region {
    match name {
        "math" => Region::Math,
        "csv-table" | "list-table" | "table" => Region::Table,
        _ => Region::Code,
    }
}

/// Atomizes plain text, or reStructuredText when `rst` is set.
pub(crate) fn atomize(text: &str, rst: bool) -> AtomTree {
    let language = if rst { "rst" } else { "text" };
    let mut regions = Vec::new();
    let top = if rst { rst_blocks(text, &mut regions) } else { text_blocks(text) };
    let top = spread_with(text, 0..text.len(), top, true);
    let children = sectionize(top);
    let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(children);
    let mut tree = AtomTree::new(language, ContentKind::Prose, root);
    // `..` starts a comment in reStructuredText; plain text has no comments, and `#` reads as
    // a note to any reader.
    tree.comment = if rst { CommentStyle::line("..") } else { CommentStyle::line("#") };
    tree.separator = " > ";
    regions.sort_by_key(|(r, _)| (r.start, r.end));
    tree.locations.regions = regions;
    tree
}

/// The lines of a text: `(range, trimmed content)`.
fn line_table(text: &str) -> Vec<(Range<usize>, &str)> {
    lines(text, 0..text.len()).into_iter().map(|r| (r.clone(), text[r].trim_end())).collect()
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Plain text: blank-line paragraphs.
fn text_blocks(text: &str) -> Vec<(Atom, Option<(u8, String)>)> {
    let ls = line_table(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < ls.len() {
        if is_blank(ls[i].1) {
            i += 1;
            continue;
        }
        let start = i;
        while i < ls.len() && !is_blank(ls[i].1) {
            i += 1;
        }
        out.push((paragraph(text, ls[start].0.start..ls[i - 1].0.end, &[]), None));
    }
    out
}

/// A paragraph made of its sentences.
pub(crate) fn paragraph(text: &str, range: Range<usize>, opaque: &[Range<usize>]) -> Atom {
    let starts = sentence_starts(text, range.clone(), opaque);
    if starts.is_empty() {
        return Atom::new(AtomKind::Block, range);
    }
    let mut sentences = Vec::with_capacity(starts.len() + 1);
    let mut at = range.start;
    for end in starts.into_iter().chain([range.end]) {
        sentences.push(Atom::new(AtomKind::Block, at..end).with_boundary(Boundary::Sentence));
        at = end;
    }
    Atom::new(AtomKind::Block, range).with_children(sentences)
}

/// The adornment char of a title over- or underline: one punctuation char repeated.
fn adornment(line: &str) -> Option<char> {
    let mut chars = line.chars();
    let c = chars.next()?;
    if !c.is_ascii_punctuation() || line.len() < 2 || !chars.all(|d| d == c) {
        return None;
    }
    Some(c)
}

/// How a title is adorned: its char, and whether it has an overline.
type Style = (char, bool);

/// Scans reStructuredText into top-level blocks, and its regions (code, math, tables) with
/// their exact extents into `regions`.
///
/// The regions go to the tree's location map rather than only onto atoms for two reasons:
/// the tiling widens a top-level block over the blank lines after it, and a literal block or a
/// code directive nested in another directive's body is a region without an atom of its own
/// (the body is kept as paragraphs, so that packing does not change).
fn rst_blocks(
    text: &str,
    regions: &mut Vec<(Range<usize>, Region)>,
) -> Vec<(Atom, Option<(u8, String)>)> {
    let ls = line_table(text);
    let mut styles: Vec<Style> = Vec::new();
    let mut out = Vec::new();
    let mut i = 0;
    let mut after_literal_marker = false;
    while i < ls.len() {
        let line = ls[i].1;
        if is_blank(line) {
            i += 1;
            continue;
        }
        let prev_blank = i == 0 || is_blank(ls[i - 1].1) || out_ends_title(&out, ls[i].0.start);
        // Titles: overline + text + underline, or text + underline.
        if prev_blank && let Some((n, style, title)) = title_at(&ls, i) {
            let level = match styles.iter().position(|s| *s == style) {
                Some(p) => p + 1,
                None => {
                    styles.push(style);
                    styles.len()
                }
            };
            let range = ls[i].0.start..ls[i + n - 1].0.end;
            out.push((Atom::new(AtomKind::Block, range), Some((level.min(255) as u8, title))));
            i += n;
            after_literal_marker = false;
            continue;
        }
        let base = indent(line);
        // A literal block: indented lines after a paragraph ending with `::`.
        if after_literal_marker && base > 0 {
            let end = indented_end(&ls, i, 0);
            let range = ls[i].0.start..ls[end - 1].0.end;
            regions.push((range.clone(), Region::Code));
            let atom = protected(range, "literal block", None).with_region(Region::Code);
            out.push((atom, None));
            i = end;
            after_literal_marker = false;
            continue;
        }
        after_literal_marker = false;
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("..")
            && (rest.is_empty() || rest.starts_with(' '))
        {
            let end = indented_end(&ls, i + 1, base + 1);
            let range = ls[i].0.start..ls[end - 1].0.end;
            let name = rest.trim().split("::").next().unwrap_or("").trim();
            let is_directive = rest.contains("::");
            let protects = crate::words::contains(crate::words::PROTECTED_DIRECTIVES, name);
            let atom = if is_directive && protects {
                regions.push((range.clone(), directive_region(name)));
                protected(range, &format!("{name} directive"), Some(trimmed.to_owned()))
                    .with_region(directive_region(name))
            } else if end > i + 1 {
                nested_regions(&ls, i + 1, end, regions);
                let mut children = vec![Atom::new(AtomKind::Block, ls[i].0.clone())];
                children.extend(sub_paragraphs(text, &ls, i + 1, end));
                wrap(text, AtomKind::Block, range, children)
            } else {
                Atom::new(AtomKind::Block, range)
            };
            out.push((atom, None));
            i = end;
            continue;
        }
        if trimmed.starts_with("+-") || trimmed.starts_with("+=") {
            let mut end = i;
            while end < ls.len() && !is_blank(ls[end].1) {
                end += 1;
            }
            let atom = table(&ls, i, end);
            regions.push((atom.range.clone(), Region::Table));
            out.push((atom, None));
            i = end;
            continue;
        }
        if is_simple_table_border(trimmed) {
            let end = simple_table_end(&ls, i);
            let atom = table(&ls, i, end);
            regions.push((atom.range.clone(), Region::Table));
            out.push((atom, None));
            i = end;
            continue;
        }
        // A paragraph: up to a blank line or a change of indentation back out.
        let start = i;
        i += 1;
        while i < ls.len() && !is_blank(ls[i].1) {
            i += 1;
        }
        let range = ls[start].0.start..ls[i - 1].0.end;
        after_literal_marker = ls[i - 1].1.ends_with("::");
        let opaque = backtick_spans(text, range.clone());
        out.push((paragraph(text, range, &opaque), None));
    }
    out
}

/// Whether the last block pushed is a title ending right before `at` (a title needs no blank
/// line after it).
fn out_ends_title(out: &[(Atom, Option<(u8, String)>)], at: usize) -> bool {
    out.last().is_some_and(|(a, h)| h.is_some() && a.range.end == at)
}

/// A title starting at line `i`: its line count, style and text.
fn title_at(ls: &[(Range<usize>, &str)], i: usize) -> Option<(usize, Style, String)> {
    let line = ls[i].1;
    if let Some(c) = adornment(line)
        && let (Some(text), Some(under)) = (ls.get(i + 1), ls.get(i + 2))
        && !is_blank(text.1)
        && adornment(under.1) == Some(c)
        && under.1.len() >= text.1.trim().chars().count()
    {
        return Some((3, (c, true), text.1.trim().to_owned()));
    }
    if indent(line) > 0 || adornment(line).is_some() {
        return None;
    }
    let under = ls.get(i + 1)?;
    let c = adornment(under.1)?;
    let width = line.chars().count();
    if under.1.len() < width.min(4) {
        return None;
    }
    Some((2, (c, false), line.trim().to_owned()))
}

/// The end (exclusive line index) of the block of lines from `i` that are blank or indented by
/// at least `min_indent`; trailing blank lines are left out.
fn indented_end(ls: &[(Range<usize>, &str)], i: usize, min_indent: usize) -> usize {
    let mut end = i;
    let mut last_text = i;
    while end < ls.len() {
        let line = ls[end].1;
        if !is_blank(line) {
            if indent(line) < min_indent.max(1) {
                break;
            }
            last_text = end + 1;
        }
        end += 1;
    }
    last_text.max(i.min(ls.len()))
}

/// Regions inside a directive's body, lines `from..to`: literal blocks after a line ending with
/// `::`, protected directives (a `code-block` in a `note`) and tables.
fn nested_regions(
    ls: &[(Range<usize>, &str)],
    from: usize,
    to: usize,
    regions: &mut Vec<(Range<usize>, Region)>,
) {
    let mut i = from;
    while i < to {
        let line = ls[i].1;
        if is_blank(line) {
            i += 1;
            continue;
        }
        let base = indent(line);
        let trimmed = line.trim_start();
        let directive = trimmed
            .strip_prefix(".. ")
            .and_then(|rest| rest.split_once("::"))
            .map(|(name, _)| name.trim())
            .filter(|name| crate::words::contains(crate::words::PROTECTED_DIRECTIVES, name));
        if let Some(name) = directive {
            let end = indented_end(ls, i + 1, base + 1).min(to);
            regions.push((ls[i].0.start..ls[end.max(i + 1) - 1].0.end, directive_region(name)));
            i = end.max(i + 1);
            continue;
        }
        if trimmed.starts_with("+-") || trimmed.starts_with("+=") || is_simple_table_border(trimmed)
        {
            let end = if is_simple_table_border(trimmed) {
                simple_table_end(ls, i).min(to)
            } else {
                (i..to).find(|&j| is_blank(ls[j].1)).unwrap_or(to)
            };
            let end = end.max(i + 1);
            regions.push((ls[i].0.start..ls[end - 1].0.end, Region::Table));
            i = end;
            continue;
        }
        if line.ends_with("::") {
            let first = (i + 1..to).find(|&j| !is_blank(ls[j].1));
            if let Some(first) = first.filter(|&j| indent(ls[j].1) > base) {
                let end = indented_end(ls, first, base + 1).min(to);
                regions.push((ls[first].0.start..ls[end - 1].0.end, Region::Code));
                i = end;
                continue;
            }
        }
        i += 1;
    }
}

/// Blank-line paragraphs of lines `from..to`.
fn sub_paragraphs(text: &str, ls: &[(Range<usize>, &str)], from: usize, to: usize) -> Vec<Atom> {
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        if is_blank(ls[i].1) {
            i += 1;
            continue;
        }
        let start = i;
        while i < to && !is_blank(ls[i].1) {
            i += 1;
        }
        let range = ls[start].0.start..ls[i - 1].0.end;
        out.push(paragraph(text, range, &[]).with_boundary(Boundary::Paragraph));
    }
    out
}

fn protected(range: Range<usize>, name: &str, signature: Option<String>) -> Atom {
    Atom::new(AtomKind::Protected, range).with_label(AtomLabel {
        label: name.to_owned(),
        name: None,
        signature,
    })
}

/// Whether a line is a simple-table border: `===  ===  ===`.
fn is_simple_table_border(line: &str) -> bool {
    let line = line.trim_end();
    line.starts_with('=') && line.contains(' ') && line.chars().all(|c| c == '=' || c == ' ')
}

/// The end of a simple table starting at border line `i`: after its third border, or at the
/// first blank line after its second.
fn simple_table_end(ls: &[(Range<usize>, &str)], i: usize) -> usize {
    let mut borders = 0;
    let mut end = i;
    while end < ls.len() {
        let line = ls[end].1.trim();
        if is_simple_table_border(line) || adornment(line) == Some('=') {
            borders += 1;
            end += 1;
            if borders == 3 {
                break;
            }
            continue;
        }
        if is_blank(line) && borders >= 2 {
            break;
        }
        end += 1;
    }
    end
}

/// A table over lines `from..to`: protected, its lines as rows, its first lines up to the
/// header border as the signature repeated when it is opened.
fn table(ls: &[(Range<usize>, &str)], from: usize, to: usize) -> Atom {
    let range = ls[from].0.start..ls[to - 1].0.end;
    // The header ends at the first `=` border after the top line, if any.
    let head_end = (from + 1..to)
        .find(|&j| {
            let l = ls[j].1.trim();
            l.starts_with("+=") || is_simple_table_border(l) || adornment(l) == Some('=')
        })
        .map_or(from + 1, |j| j + 1);
    let signature: Vec<&str> = ls[from..head_end].iter().map(|(_, l)| l.trim()).collect();
    let mut rows = vec![Atom::new(AtomKind::Block, ls[from].0.start..ls[head_end - 1].0.end)];
    rows.extend(ls[head_end..to].iter().enumerate().map(|(i, (r, _))| {
        let boundary = if i == 0 { Boundary::Word } else { Boundary::Line };
        Atom::new(AtomKind::Block, r.clone()).with_boundary(boundary)
    }));
    let atom = protected(range, "table", Some(signature.join("\n"))).with_region(Region::Table);
    if rows.len() > 1 { atom.with_children(rows) } else { atom }
}

/// Inline literals and roles (``` ``x`` ```, `` :math:`x` ``) in a paragraph, which the sentence
/// segmenter must not read.
fn backtick_spans(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = range.start;
    while i < range.end {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let double = i + 1 < range.end && bytes[i + 1] == b'`';
        let close = if double { "``" } else { "`" };
        let open_len = close.len();
        match text[i + open_len..range.end].find(close) {
            Some(j) => {
                let end = i + open_len + j + open_len;
                out.push(i..end);
                i = end;
            }
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rst_titles_nest_by_first_appearance() {
        let text = "=====\nTitle\n=====\n\nIntro.\n\nPart\n----\n\nBody.\n\nSub\n~~~\n\nMore.\n\nOther\n-----\n\nEnd.\n";
        let tree = atomize(text, true);
        tree.root.validate(text).unwrap();
        let top = &tree.root.children;
        assert_eq!(top.len(), 1);
        assert_eq!(top[0].label_text(), Some("Title"));
        let parts: Vec<_> = top[0].children.iter().filter_map(Atom::label_text).collect();
        assert_eq!(parts, vec!["Part", "Other"]);
    }

    #[test]
    fn literal_blocks_and_code_directives_are_protected() {
        let text = "Example::\n\n    x = 1\n    y = 2\n\n.. code-block:: python\n\n   def f():\n       pass\n\nAfter.\n";
        let tree = atomize(text, true);
        tree.root.validate(text).unwrap();
        let labels: Vec<_> = tree
            .root
            .children
            .iter()
            .filter(|a| a.protected)
            .filter_map(Atom::label_text)
            .collect();
        assert_eq!(labels, vec!["literal block", "code-block directive"]);
    }

    #[test]
    fn regions_include_literal_blocks_nested_in_directives() {
        let text = ".. function:: f(x)\n\n   Returns x::\n\n      >>> f(1)\n      1\n\n   .. code-block:: python\n\n      f(2)\n\n.. note::\n\n   Not code.\n\n.. math::\n\n   e^x\n";
        let tree = atomize(text, true);
        let regions: Vec<(&str, Region)> =
            tree.locations.regions.iter().map(|(r, k)| (&text[r.clone()], *k)).collect();
        assert_eq!(
            regions,
            vec![
                ("      >>> f(1)\n      1\n", Region::Code),
                ("   .. code-block:: python\n\n      f(2)\n", Region::Code),
                (".. math::\n\n   e^x\n", Region::Math),
            ]
        );
    }

    #[test]
    fn plain_text_paragraphs_hold_sentences() {
        let text = "Dr. Who arrived. He left.\n\nSecond paragraph.\n";
        let tree = atomize(text, false);
        tree.root.validate(text).unwrap();
        assert_eq!(tree.root.children.len(), 2);
        assert_eq!(tree.root.children[0].children.len(), 2);
    }
}
