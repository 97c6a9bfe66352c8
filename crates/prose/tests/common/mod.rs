//! Shared by the prose test binaries: atomize a text and chunk it through the invariant checker,
//! then annotate the chunks as the pipeline does.

use cleave_code::ParseContext;
use cleave_core::{AtomTree, Chunk, ChunkConfig, Source, Unit, check_invariants, pack};
use cleave_prose::{Format, annotate, atomize_prose};

/// The atom tree of `text` in `format`.
pub fn atomize(format: Format, text: &str) -> AtomTree {
    atomize_prose(format, text, &mut ParseContext::new())
}

/// Chunks `text`, checks every invariant and annotates the chunks (provenance,
/// classification); returns the tree and the chunks.
pub fn chunk(
    format: Format,
    path: &str,
    text: &str,
    budget: usize,
    unit: Unit,
) -> (AtomTree, Vec<Chunk>) {
    let tree = atomize(format, text);
    tree.root.validate(text).unwrap();
    let source = Source::new(path, text);
    let config = ChunkConfig::new(budget, unit).unwrap();
    let mut chunks = pack(&source, &tree, &config);
    let errors = check_invariants(&source, &tree, &chunks, &config);
    assert!(errors.is_empty(), "{path} at {budget} {unit}:\n{}", errors.join("\n"));
    annotate(&tree, &source, &mut chunks);
    (tree, chunks)
}
