//! Plain text and reStructuredText atomizer (placeholder: blank-line blocks).

use cleave_core::{AtomTree, ContentKind, atomize_blocks};

/// Atomizes plain text, or reStructuredText when `rst` is set.
pub(crate) fn atomize(text: &str, rst: bool) -> AtomTree {
    atomize_blocks(text, if rst { "rst" } else { "text" }, ContentKind::Prose)
}
