//! The packer over arbitrary atom trees: random text, a random tree of nested tiling ranges
//! on char boundaries (kinds, protected and scope flags, labels, signatures, boundaries),
//! random header settings → `pack` → the shared checker, and the same chunks on a second run.
//!
//! Input: the option bytes, then bytes read through `arbitrary::Unstructured`: a fragment
//! count and the fragments of the text, then the tree settings, then the tree, depth first.
//! Whatever the bytes, the tree is valid: the packer's promise is for any valid tree, so an
//! invalid one would only test the checker.

#![no_main]

use arbitrary::{Result, Unstructured};
use cleave_core::{
    Atom, AtomKind, AtomLabel, AtomTree, Boundary, CommentStyle, ContentKind, floor_char_boundary,
};
use cleave_fuzz::{Options, check};
use libfuzzer_sys::fuzz_target;

/// Texts stay a few KiB: the packer's cost grows with the atoms, not the bytes, and small
/// inputs keep the executions per second up.
const MAX_TEXT: usize = 8 << 10;
/// Deeper trees add nothing the first levels do not, and bound the recursion.
const MAX_DEPTH: usize = 10;

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let mut u = Unstructured::new(rest);
    let Ok(text) = text(&mut u) else { return };
    let Ok(tree) = tree(&text, &mut u) else { return };
    let twice = u.arbitrary::<u8>().is_ok_and(|b| b < 32);
    let path = "src/fuzz/packer.rs";
    let source = cleave_core::Source::new(path, &text);
    let chunks = cleave_core::pack(&source, &tree, &opts.config);
    check(path, &text, &tree, &chunks, &opts.config);
    // Determinism (invariant 4) on one input in eight: packing twice must give the same
    // chunks and ids.
    if twice {
        assert_eq!(
            chunks,
            cleave_core::pack(&source, &tree, &opts.config),
            "packing twice differs"
        );
    }
});

/// A text made of fragments like those of code and prose: words, spaces, line breaks, blank
/// lines, multi-byte chars, punctuation, long unbroken runs, and raw arbitrary strings.
fn text(u: &mut Unstructured<'_>) -> Result<String> {
    let n = u.arbitrary::<u8>()?;
    let mut text = String::new();
    for _ in 0..n {
        if text.len() >= MAX_TEXT {
            break;
        }
        match u.int_in_range(0u8..=11)? {
            0..=3 => {
                let len = u.int_in_range(1..=12)?;
                for _ in 0..len {
                    text.push(char::from(b'a' + u.int_in_range(0u8..=25)?));
                }
            }
            4 => text.push(' '),
            5 => text.push('\n'),
            6 => text.push_str("\n\n"),
            7 => text.push_str(u.choose(&["\t", "    ", "\r\n", " \n", "\n  \n"])?),
            8 => text.push_str(u.choose(&["é", "☃", "𝄞", "ü", "中文", "\u{200b}", "e\u{301}"])?),
            9 => text.push_str(u.choose(&["{", "}", "(", ");", ",", ".", "=", "$$", "\\", "//"])?),
            10 => {
                let len = u.int_in_range(40..=400)?;
                let c = char::from(b'A' + u.int_in_range(0u8..=25)?);
                text.extend(std::iter::repeat_n(c, len));
            }
            _ => {
                let s: &str = u.arbitrary()?;
                text.push_str(s);
            }
        }
    }
    Ok(text)
}

fn tree(text: &str, u: &mut Unstructured<'_>) -> Result<AtomTree> {
    let language = *u.choose(&["rust", "python", "markdown", "latex", "text", "json"])?;
    let content = *u.choose(&[ContentKind::Code, ContentKind::Prose, ContentKind::Data])?;
    let root = atom(text, 0..text.len(), 0, u)?;
    let mut tree = AtomTree::new(language, content, root);
    tree.comment = match u.int_in_range(0u8..=3)? {
        0 => CommentStyle::line("//"),
        1 => CommentStyle::line("#"),
        2 => CommentStyle::line("%"),
        _ => CommentStyle::block("<!--", "-->"),
    };
    tree.separator = *u.choose(&["::", "."])?;
    let n_context = u.int_in_range(0u8..=3)?;
    for _ in 0..n_context {
        let line = if u.arbitrary()? {
            "use std::io; use crate::db::Pool;".to_owned()
        } else {
            u.arbitrary::<String>()?
        };
        tree.context.push(line);
    }
    Ok(tree)
}

/// One atom over `range` and, maybe, children that tile it, cut at char boundaries.
fn atom(
    text: &str,
    range: std::ops::Range<usize>,
    depth: usize,
    u: &mut Unstructured<'_>,
) -> Result<Atom> {
    let kind = *u.choose(&[
        AtomKind::Symbol,
        AtomKind::Section,
        AtomKind::Block,
        AtomKind::Gap,
        AtomKind::Protected,
    ])?;
    let boundary = *u.choose(&[
        Boundary::Char,
        Boundary::Word,
        Boundary::Line,
        Boundary::Sentence,
        Boundary::Statement,
        Boundary::Paragraph,
        Boundary::Member,
        Boundary::Item,
        Boundary::Section,
    ])?;
    // `Atom::new` protects `Protected` atoms; any other kind may be protected too (a fence
    // that is also a block), as atomizers do.
    let protected = kind == AtomKind::Protected || u.ratio(1u8, 8)?;
    let mut it = Atom::new(kind, range.clone())
        .with_boundary(boundary)
        .with_protected(protected)
        .with_scope(u.arbitrary()?);
    if u.ratio(3u8, 4)? {
        it = it.with_label(label(u)?);
    }
    if depth >= MAX_DEPTH || range.len() < 2 || u.ratio(1u8, 4)? {
        return Ok(it);
    }
    let n_cuts = u.int_in_range(0u8..=7)?;
    let mut cuts = Vec::with_capacity(usize::from(n_cuts));
    for _ in 0..n_cuts {
        let c = u.int_in_range(range.start + 1..=range.end - 1)?;
        let c = floor_char_boundary(text, c);
        if c > range.start && c < range.end {
            cuts.push(c);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    if cuts.is_empty() {
        return Ok(it);
    }
    let mut children = Vec::with_capacity(cuts.len() + 1);
    let mut at = range.start;
    for c in cuts.into_iter().chain(std::iter::once(range.end)) {
        children.push(atom(text, at..c, depth + 1, u)?);
        at = c;
    }
    Ok(it.with_children(children))
}

/// Labels as atomizers write them (`fn login`, `## Install`), or arbitrary strings: a LaTeX
/// title or a heading can hold almost anything, line breaks included.
fn label(u: &mut Unstructured<'_>) -> Result<AtomLabel> {
    let label = if u.arbitrary()? {
        let name = *u.choose(&["login", "AuthService", "Install", "x", "a_very_long_name_here"])?;
        let prefix = *u.choose(&["fn ", "impl ", "class ", "## ", "\\section ", ""])?;
        format!("{prefix}{name}")
    } else {
        u.arbitrary::<String>()?
    };
    let name = if u.arbitrary()? { Some(u.arbitrary::<String>()?) } else { None };
    let signature = match u.int_in_range(0u8..=3)? {
        0 => Some(format!("pub fn {label}(&self, user: &str) -> Result<Session>")),
        1 => Some(u.arbitrary::<String>()?),
        _ => None,
    };
    Ok(AtomLabel { label, name, signature })
}
