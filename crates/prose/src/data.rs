//! JSON, YAML and TOML atomizer (placeholder: blank-line blocks).

use cleave_core::{AtomTree, atomize_blocks};

use crate::Format;

/// Atomizes a data file.
pub(crate) fn atomize(format: Format, text: &str) -> AtomTree {
    atomize_blocks(text, format.name(), format.content())
}
