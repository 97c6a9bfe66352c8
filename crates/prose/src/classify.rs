//! Chunk and document classification (placeholder: none).

use cleave_core::Chunk;

use crate::{DocumentClass, Format};

/// Classifies chunks and the document.
pub(crate) fn classify(_format: Format, _chunks: &mut [Chunk]) -> Option<DocumentClass> {
    None
}
