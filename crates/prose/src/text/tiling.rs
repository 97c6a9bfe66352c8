//! Laying atoms over a range so that they tile it, for atomizers whose parsers report the
//! "core" of each block (without indentation, markers or trailing blank lines).

use std::ops::Range;

use cleave_core::{Atom, AtomKind};

/// Widens `atom` to `range` (which contains its own), keeping its children tiling: the first
/// child takes the new head, the last child the new tail.
pub(crate) fn widen(atom: &mut Atom, range: Range<usize>) {
    debug_assert!(range.start <= atom.range.start && atom.range.end <= range.end);
    if let Some(first) = atom.children.first_mut() {
        let r = range.start..first.range.end;
        widen(first, r);
    }
    if let Some(last) = atom.children.last_mut() {
        let r = last.range.start..range.end;
        widen(last, r);
    }
    atom.range = range;
}

/// Lays `atoms` (in order) over `range`: the first starts at `range.start`, each reaches to the
/// next one's start, the last ends at `range.end`. So text between blocks (blank lines,
/// markers) sticks to the block before it, and a chunk starts where a block starts.
///
/// An atom that is empty, starts before the previous one ends or lies outside `range` is
/// dropped: its bytes stay inside a neighbour, so nothing is lost. When `snap` is set, an
/// atom that follows only spaces on its line starts at that line's start, so indentation
/// travels with the block it indents.
pub(crate) fn spread(text: &str, range: Range<usize>, atoms: Vec<Atom>, snap: bool) -> Vec<Atom> {
    let items = atoms.into_iter().map(|a| (a, ())).collect();
    spread_with(text, range, items, snap).into_iter().map(|(a, ())| a).collect()
}

/// [`spread`] for atoms that carry a value along.
pub(crate) fn spread_with<T>(
    text: &str,
    range: Range<usize>,
    atoms: Vec<(Atom, T)>,
    snap: bool,
) -> Vec<(Atom, T)> {
    let mut out: Vec<(Atom, T)> = Vec::with_capacity(atoms.len());
    let mut prev_end = range.start;
    for (mut atom, value) in atoms {
        if atom.range.is_empty() || atom.range.start < prev_end || atom.range.end > range.end {
            continue;
        }
        let core_end = atom.range.end;
        if !out.is_empty() && snap {
            let start = line_start_before(text, atom.range.start, prev_end);
            if start < atom.range.start {
                let end = atom.range.end;
                widen(&mut atom, start..end);
            }
        }
        if let Some((last, _)) = out.last_mut() {
            let r = last.range.start..atom.range.start;
            widen(last, r);
        }
        prev_end = core_end;
        out.push((atom, value));
    }
    if let Some((first, _)) = out.first_mut() {
        let r = range.start..first.range.end;
        widen(first, r);
    }
    if let Some((last, _)) = out.last_mut() {
        let r = last.range.start..range.end;
        widen(last, r);
    }
    out
}

/// One atom over `range` of `kind` from children laid over it: none makes a leaf, one is
/// widened and stands for the whole, more become the children.
pub(crate) fn wrap(text: &str, kind: AtomKind, range: Range<usize>, children: Vec<Atom>) -> Atom {
    let mut children = spread(text, range.clone(), children, true);
    match children.len() {
        0 => Atom::new(kind, range),
        1 => {
            let mut only = children.pop().expect("one child");
            widen(&mut only, range);
            only
        }
        _ => Atom::new(kind, range).with_children(children),
    }
}

/// The start of the line holding `at` when only spaces and tabs precede `at` on it and that
/// start is not before `floor`; else `at`.
fn line_start_before(text: &str, at: usize, floor: usize) -> usize {
    let bytes = text.as_bytes();
    let mut i = at;
    while i > floor && matches!(bytes[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    if i == 0 || bytes[i - 1] == b'\n' { i } else { at }
}

/// Line ranges of `range`, each with its newline.
pub(crate) fn lines(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    cleave_core::line_ranges(text, range)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_tiles_and_snaps_indentation() {
        let text = "- a\n\n  b\n\n";
        let atoms = vec![Atom::new(AtomKind::Block, 2..3), Atom::new(AtomKind::Block, 7..8)];
        let out = spread(text, 0..text.len(), atoms, true);
        let ranges: Vec<_> = out.iter().map(|a| a.range.clone()).collect();
        assert_eq!(ranges, vec![0..5, 5..text.len()]);
    }

    #[test]
    fn widen_keeps_children_tiling() {
        let text = "0123456789";
        let mut atom = Atom::new(AtomKind::Block, 2..8).with_children(vec![
            Atom::new(AtomKind::Block, 2..5),
            Atom::new(AtomKind::Block, 5..8),
        ]);
        widen(&mut atom, 0..10);
        atom.validate(text).unwrap();
        assert_eq!(atom.children[0].range, 0..5);
        assert_eq!(atom.children[1].range, 5..10);
    }
}
