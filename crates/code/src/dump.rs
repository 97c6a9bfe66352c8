//! `dump_atoms`: an outline of an atom tree, for `cleave dump-atoms` and for tests.

use cleave_core::{Atom, AtomTree};

/// An outline of an atom tree, one atom a line: kind, boundary, lines, label and the start of
/// its text. Behind `cleave dump-atoms FILE`, and handy in tests.
pub fn dump_atoms(tree: &AtomTree, text: &str) -> String {
    fn walk(atom: &Atom, text: &str, depth: usize, out: &mut String) {
        let line = |at: usize| text.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let end = if atom.range.is_empty() { atom.range.end } else { atom.range.end - 1 };
        let first = text[atom.range.clone()].lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let first: String = first.trim().chars().take(48).collect();
        let kind = format!("{:?}", atom.kind).to_lowercase();
        let label = atom.label_text().map(|l| format!(" [{l}]")).unwrap_or_default();
        let scope = if atom.is_scope { " scope" } else { "" };
        out.push_str(&format!(
            "{:indent$}{kind} {:?} {}-{}{label}{scope} | {first}\n",
            "",
            atom.boundary,
            line(atom.range.start),
            line(end),
            indent = depth * 2
        ));
        for child in &atom.children {
            walk(child, text, depth + 1, out);
        }
    }
    let mut out = String::new();
    walk(&tree.root, text, 0, &mut out);
    for ctx in &tree.context {
        out.push_str(&format!("context: {ctx}\n"));
    }
    for d in &tree.diagnostics {
        out.push_str(&format!("{:?}: {}\n", d.severity, d.message));
    }
    out
}
