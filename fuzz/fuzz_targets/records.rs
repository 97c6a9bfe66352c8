//! Chunk records: every chunk of a packed document, written as one JSON Lines record and read
//! back, is the same record; the records read back keep the invariants.
//!
//! Input: the option bytes, one byte choosing the format (Markdown, LaTeX, text, JSON), then
//! the document. Real chunks carry what a record holds: headers with scope lines, symbols,
//! parts, provenance and classification, over arbitrary text (control chars, quotes,
//! backslashes, every plane of Unicode).
//!
//! The record writer lives in the CLI binary while this target is written, so it round-trips
//! the records through `serde_json`, the format the writer promises to match byte for byte.

#![no_main]

use cleave_code::ParseContext;
use cleave_core::Chunk;
use cleave_fuzz::{Options, check_records, text};
use cleave_prose::{Format, atomize_prose, classify};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let Some((&pick, rest)) = rest.split_first() else { return };
    let Some(text) = text(rest) else { return };
    let formats = [Format::Markdown, Format::Latex, Format::Text, Format::Json];
    let format = formats[usize::from(pick) % formats.len()];
    let path = "docs/fuzz \"records\"\\\u{7}.md";
    let source = cleave_core::Source::new(path, text);
    let tree = atomize_prose(format, text, &mut ParseContext::new());
    let mut chunks = cleave_core::pack(&source, &tree, &opts.config);
    classify(format, &mut chunks);
    let mut read = Vec::with_capacity(chunks.len());
    for chunk in &chunks {
        let line = write(chunk);
        assert!(!line.contains(&b'\n'), "a JSON Lines record holds a raw line break");
        let back: Chunk = match serde_json::from_slice(&line) {
            Ok(back) => back,
            Err(e) => panic!("record does not read back: {e}\n{}", String::from_utf8_lossy(&line)),
        };
        assert_eq!(&back, chunk, "record read back differs");
        read.push(back);
    }
    check_records(path, text, &read, &opts.config);
});

/// One record as the JSON Lines output writes it.
fn write(chunk: &Chunk) -> Vec<u8> {
    match serde_json::to_vec(chunk) {
        Ok(line) => line,
        Err(e) => panic!("record does not serialize: {e}"),
    }
}
