//! Nesting blocks into sections by heading level, for every format with headings.

use cleave_core::{Atom, AtomKind, AtomLabel, Boundary};

/// A section being built: its level, title and children so far (the heading first).
struct OpenSection {
    level: u8,
    title: String,
    children: Vec<Atom>,
}

/// Nests consecutive top-level atoms into sections. A heading comes with its level (1 is the
/// highest) and title; its section runs up to the next heading of the same or a higher level.
///
/// Sections are scopes labelled with their title, so a chunk starting inside one carries the
/// breadcrumb `Guide > Install > Linux`. The first block after a heading sticks to it: cutting
/// there costs as much as cutting between words.
pub(crate) fn sectionize(top: Vec<(Atom, Option<(u8, String)>)>) -> Vec<Atom> {
    let mut out = Vec::new();
    let mut stack: Vec<OpenSection> = Vec::new();
    for (atom, heading) in top {
        if let Some((level, title)) = heading {
            while stack.last().is_some_and(|s| s.level >= level) {
                close_section(&mut stack, &mut out);
            }
            stack.push(OpenSection { level, title, children: vec![atom] });
            continue;
        }
        match stack.last_mut() {
            Some(open) if open.children.len() == 1 => {
                open.children.push(atom.with_boundary(Boundary::Word));
            }
            Some(open) => open.children.push(atom.with_boundary(Boundary::Paragraph)),
            None => out.push(atom.with_boundary(Boundary::Paragraph)),
        }
    }
    while !stack.is_empty() {
        close_section(&mut stack, &mut out);
    }
    out
}

fn close_section(stack: &mut Vec<OpenSection>, out: &mut Vec<Atom>) {
    let Some(open) = stack.pop() else { return };
    let start = open.children.first().map_or(0, |a| a.range.start);
    let end = open.children.last().map_or(start, |a| a.range.end);
    let children = if open.children.len() > 1 { open.children } else { Vec::new() };
    let section = Atom::new(AtomKind::Section, start..end)
        .with_scope(true)
        .with_boundary(Boundary::Section)
        .with_label(AtomLabel {
            label: open.title.clone(),
            name: Some(open.title),
            signature: None,
        })
        .with_children(children);
    match stack.last_mut() {
        Some(parent) => parent.children.push(section),
        None => out.push(section),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nests_by_level() {
        let atom = |r: std::ops::Range<usize>| Atom::new(AtomKind::Block, r);
        let top = vec![
            (atom(0..2), Some((1, "A".to_owned()))),
            (atom(2..4), None),
            (atom(4..6), Some((2, "B".to_owned()))),
            (atom(6..8), Some((1, "C".to_owned()))),
        ];
        let out = sectionize(top);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].range, 0..6);
        assert_eq!(out[0].children[2].label_text(), Some("B"));
        assert_eq!(out[1].label_text(), Some("C"));
    }
}
