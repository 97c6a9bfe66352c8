//! LaTeX atomizer (placeholder: blank-line blocks).

use cleave_core::{AtomTree, CommentStyle, ContentKind, atomize_blocks};

/// Atomizes LaTeX source.
pub(crate) fn atomize(text: &str) -> AtomTree {
    let mut tree = atomize_blocks(text, "latex", ContentKind::Prose);
    tree.comment = CommentStyle::line("%");
    tree
}
