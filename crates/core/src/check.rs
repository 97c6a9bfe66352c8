//! The one invariant checker behind unit, snapshot and property tests and the fuzzers.
//!
//! It checks DESIGN.md's invariants on the chunks of one file, in their order of precedence:
//! lossless tiling (or covering, with overlap), the budget including the header, the integrity
//! of atoms that fit the budget on their own, and a header that names the chunk's scope where
//! the unit it holds leaves room for it; then ordered ranges, right line numbers, unique ids.

use crate::atom::{Atom, AtomTree};
use crate::chunk::{Chunk, chunk_id};
use crate::config::ChunkConfig;
use crate::text::Source;

/// Checks every invariant that needs no atom tree; returns one message per violation.
pub fn check_chunks(source: &Source<'_>, chunks: &[Chunk], config: &ChunkConfig) -> Vec<String> {
    let mut errors = Vec::new();
    let text = source.text();
    let sizer = config.sizer();
    let overlap = config.overlap() > 0;
    if text.is_empty() {
        if !chunks.is_empty() {
            errors.push(format!("empty source gave {} chunks", chunks.len()));
        }
        return errors;
    }
    if chunks.is_empty() {
        errors.push("non-empty source gave no chunks".to_owned());
        return errors;
    }
    let mut ids = std::collections::HashSet::new();
    // How often each body's hash came before: the n-th chunk with the same path and body is
    // `hash-n`, as the packer names it.
    let mut bodies: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, c) in chunks.iter().enumerate() {
        let at = format!("chunk {i} [{}..{})", c.byte_start, c.byte_end);
        if c.path != source.path() {
            errors.push(format!("{at}: path {:?} is not {:?}", c.path, source.path()));
        }
        if c.byte_start >= c.byte_end || c.byte_end > text.len() {
            errors.push(format!("{at}: empty or out of range (len {})", text.len()));
            continue;
        }
        match text.get(c.byte_start..c.byte_end) {
            Some(body) if body == c.text => {}
            Some(_) => errors.push(format!("{at}: body differs from the file slice")),
            None => errors.push(format!("{at}: range not on char boundaries")),
        }
        // Lossless: the bodies tile the file (or cover it, with overlap).
        if i == 0 {
            if c.byte_start != 0 {
                errors.push(format!("{at}: first chunk does not start at 0"));
            }
        } else {
            let prev = &chunks[i - 1];
            if overlap {
                if c.byte_start > prev.byte_end {
                    errors.push(format!(
                        "{at}: gap after previous chunk ending at {}",
                        prev.byte_end
                    ));
                }
                if c.byte_start <= prev.byte_start || c.byte_end <= prev.byte_end {
                    errors.push(format!("{at}: not after the previous chunk"));
                }
            } else if c.byte_start != prev.byte_end {
                errors.push(format!(
                    "{at}: does not start where the previous chunk ends ({})",
                    prev.byte_end
                ));
            }
        }
        // Budget, header included, measured exactly.
        let size = sizer.size(&c.rendered());
        if size > config.budget() {
            errors.push(format!("{at}: size {size} over budget {}", config.budget()));
        }
        if size != c.tokens {
            errors.push(format!("{at}: records size {} but measures {size}", c.tokens));
        }
        if !config.headers() && !c.header.is_empty() {
            errors.push(format!("{at}: header present with headers off"));
        }
        let lines = source.line_range(c.byte_start, c.byte_end);
        if (c.line_start, c.line_end) != lines {
            errors.push(format!(
                "{at}: lines {}-{} should be {}-{}",
                c.line_start, c.line_end, lines.0, lines.1
            ));
        }
        if !ids.insert(c.id.as_str()) {
            errors.push(format!("{at}: id {} is not unique", c.id));
        }
        if let Some(body) = text.get(c.byte_start..c.byte_end) {
            let hash = chunk_id(source.path(), body);
            let n = bodies.entry(hash.clone()).or_insert(0);
            *n += 1;
            let want = if *n > 1 { format!("{hash}-{n}") } else { hash };
            if c.id != want {
                errors.push(format!(
                    "{at}: id {} is not {want}, the hash of its path and body",
                    c.id
                ));
            }
        }
    }
    if let Some(last) = chunks.last()
        && last.byte_end != text.len()
    {
        errors.push(format!("last chunk ends at {}, file at {}", last.byte_end, text.len()));
    }
    errors
}

/// Checks every invariant: [`check_chunks`] plus the atom tree's tiling, the integrity of
/// symbols, sections and protected regions that fit the budget, and that a chunk starting
/// inside a scope names it in its header.
pub fn check_invariants(
    source: &Source<'_>,
    tree: &AtomTree,
    chunks: &[Chunk],
    config: &ChunkConfig,
) -> Vec<String> {
    let mut errors = check_chunks(source, chunks, config);
    if let Err(e) = tree.root.validate(source.text()) {
        errors.push(format!("atom tree: {e}"));
        return errors;
    }
    if chunks.is_empty() {
        return errors;
    }
    let sizer = config.sizer();
    // Integrity over header: an atom "fits" if its own text fits the room; the packer shortens
    // or drops a chunk's header, down to nothing, rather than cut a symbol, section or
    // protected region that fits (the record's `scope` still locates the chunk).
    let room = config.budget() - config.overlap();
    let mut stack: Vec<&Atom> = vec![&tree.root];
    while let Some(atom) = stack.pop() {
        stack.extend(&atom.children);
        if !atom.is_integral() || atom.is_empty() {
            continue;
        }
        // The chunk with the greatest start at or before the atom holds it, if any does.
        let idx = chunks.partition_point(|c| c.byte_start <= atom.range.start);
        let whole = idx > 0 && chunks[idx - 1].byte_end >= atom.range.end;
        if whole {
            continue;
        }
        let text = &source.text()[atom.range.clone()];
        if sizer.size(text) <= room {
            errors.push(format!(
                "{:?} atom {:?} ({}) fits the budget but is split",
                atom.kind,
                atom.range,
                atom.label_text().unwrap_or("unlabelled")
            ));
        }
    }
    // Located: a chunk that starts inside a scope names it, whenever the shortest line that
    // does fits the header's share of the budget and, with the chunk's body, the room: only a
    // whole unit that fills the chunk may push its scope line out (integrity over header).
    if config.headers() {
        for c in chunks {
            let Some(last) = c.scope.last() else { continue };
            // The label as a header writes it: white space folded, comment delimiters broken.
            let last = crate::header::header_text(&tree.comment, last);
            if last.is_empty() {
                continue;
            }
            let line = crate::header::scope_line(&tree.comment, &last);
            let named =
                c.header.contains(&format!("in {last}")) || c.header.contains(&format!("> {last}"));
            if named || sizer.size(&line) > config.header_cap() {
                continue;
            }
            // Sizes apart, as the packer reserves them: a sizer that is not additive can
            // measure the joined text shorter than its parts.
            if sizer.size(&line) + sizer.size(&c.text) <= room {
                errors.push(format!(
                    "chunk {:?}: header {:?} does not name its scope {last:?}",
                    c.byte_start..c.byte_end,
                    c.header
                ));
            }
        }
    }
    errors
}

/// Panics with every violation listed, if there is any.
pub fn assert_invariants(
    source: &Source<'_>,
    tree: &AtomTree,
    chunks: &[Chunk],
    config: &ChunkConfig,
) {
    let errors = check_invariants(source, tree, chunks, config);
    assert!(
        errors.is_empty(),
        "{} invariant violations in {} ({} chunks, budget {} {}):\n{}",
        errors.len(),
        source.path(),
        chunks.len(),
        config.budget(),
        config.unit_name(),
        errors.join("\n")
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ContentKind, Unit, atomize_blocks, pack};

    #[test]
    fn ids_are_checked_against_the_hash_of_path_and_body() {
        // Two equal paragraphs: the second's id is `hash-2`.
        let text = "same words here\n\nsame words here\n\nother words\n";
        let tree = atomize_blocks(text, "text", ContentKind::Prose);
        let source = Source::new("notes.txt", text);
        let config = ChunkConfig::new(16, Unit::Chars).expect("config");
        let mut chunks = pack(&source, &tree, &config);
        assert!(check_chunks(&source, &chunks, &config).is_empty());
        assert!(chunks.iter().any(|c| c.id.ends_with("-2")), "{chunks:?}");
        chunks[0].id = "0000000000000000".to_owned();
        let errors = check_chunks(&source, &chunks, &config);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("the hash of its path and body"), "{errors:?}");
    }
}
