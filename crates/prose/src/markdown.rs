//! Markdown atomizer (placeholder: blank-line blocks).

use cleave_code::ParseContext;
use cleave_core::{AtomTree, ContentKind, atomize_blocks};

/// Atomizes Markdown.
pub(crate) fn atomize(text: &str, _code: &mut ParseContext) -> AtomTree {
    atomize_blocks(text, "markdown", ContentKind::Prose)
}
