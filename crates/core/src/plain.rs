//! The generic text atomizer: blank-line blocks, then lines. Every text file can go through
//! it, and every other atomizer falls back to it.

use crate::atom::{Atom, AtomKind, AtomTree, Boundary, ContentKind};

/// Atomizes any text into blank-line blocks whose children are lines.
///
/// Blank lines stick to the block before them, so a chunk never starts with an empty line
/// when a block precedes it.
pub fn atomize_blocks(text: &str, language: &str, content: ContentKind) -> AtomTree {
    let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(blocks(text, 0..text.len()));
    AtomTree::new(language, content, root)
}

/// The blank-line blocks of `range`, each made of its lines.
pub fn blocks(text: &str, range: std::ops::Range<usize>) -> Vec<Atom> {
    let mut out: Vec<Atom> = Vec::new();
    let mut block_start = range.start;
    let mut lines: Vec<Atom> = Vec::new();
    let mut at = range.start;
    let mut in_blank_tail = false;
    let mut has_text = false;
    for line in crate::text::lines_inclusive(&text[range.clone()]) {
        let blank = line.trim().is_empty();
        if !blank && in_blank_tail {
            out.push(block(block_start, at, std::mem::take(&mut lines), out.is_empty()));
            has_text = false;
            block_start = at;
            in_blank_tail = false;
        }
        if blank && has_text {
            in_blank_tail = true;
        }
        has_text |= !blank;
        let boundary = if lines.is_empty() { Boundary::Paragraph } else { Boundary::Line };
        lines.push(Atom::new(AtomKind::Block, at..at + line.len()).with_boundary(boundary));
        at += line.len();
    }
    if at > block_start {
        out.push(block(block_start, at, lines, out.is_empty()));
    }
    out
}

fn block(start: usize, end: usize, lines: Vec<Atom>, first: bool) -> Atom {
    let boundary = if first { Boundary::Section } else { Boundary::Paragraph };
    let children = if lines.len() > 1 { lines } else { Vec::new() };
    Atom::new(AtomKind::Block, start..end).with_boundary(boundary).with_children(children)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_tile_and_carry_trailing_blanks() {
        let text = "\n\na\nb\n\n\nc\n  \nd";
        let tree = atomize_blocks(text, "text", ContentKind::Prose);
        tree.root.validate(text).unwrap();
        let bodies: Vec<&str> = tree.root.children.iter().map(|a| &text[a.range.clone()]).collect();
        assert_eq!(bodies, vec!["\n\na\nb\n\n\n", "c\n  \n", "d"]);
    }

    #[test]
    fn empty_text_has_no_blocks() {
        let tree = atomize_blocks("", "text", ContentKind::Prose);
        assert!(tree.root.children.is_empty());
        tree.root.validate("").unwrap();
    }
}
