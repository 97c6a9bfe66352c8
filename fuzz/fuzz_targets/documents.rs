//! Documents through the engine's decoders: bytes named as a PDF, EPUB, HTML page, Word
//! document, slide deck or workbook → `decode` (its decoder under `catch_unwind`) → the text
//! view and its page map → `chunk_decoded` → every invariant that needs no tree over the
//! text view, and the pages: the map's offsets ascend from 0 on character boundaries of the
//! view, and every chunk names the page its body starts on and the page it ends on.
//!
//! Input: the option bytes, one byte choosing the format, then the file's raw bytes. A file
//! the decoder refuses (corrupt, encrypted, no text) has no records; a hang, an abort (stack
//! overflow, out of memory) or a panic outside the decoder is a finding.

#![no_main]

use cleave_core::PageLabel;
use cleave_engine::{Context, Settings, chunk_decoded, decode};
use cleave_fuzz::{Options, check_records};
use libfuzzer_sys::fuzz_target;

/// One file name per decoder (fuzz/seeds.sh seeds each from fixtures/documents in this order).
const PATHS: &[&str] = &[
    "docs/paper.pdf",
    "docs/book.epub",
    "docs/page.html",
    "docs/report.docx",
    "docs/deck.pptx",
    "docs/book.xlsx",
];

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let Some((&pick, rest)) = rest.split_first() else { return };
    let path = PATHS[usize::from(pick) % PATHS.len()];
    let Ok(decoded) = decode(path, rest.to_vec()) else { return };
    let text = &decoded.text;
    let mut last = None;
    for (k, (at, _)) in decoded.pages.iter().enumerate() {
        assert!(k > 0 || *at == 0, "the first page starts at {at}, not 0");
        assert!(*at <= text.len() && text.is_char_boundary(*at), "page offset {at} off the view");
        assert!(last.is_none_or(|l| l <= *at), "page offsets go back: {last:?} then {at}");
        last = Some(*at);
    }
    let settings = Settings::new(opts.config.clone());
    let result = chunk_decoded(path, &decoded, &settings, &mut Context::new());
    // The index in the page map of the page a byte lies on: the last that starts at or
    // before it.
    let page_of = |byte: usize| decoded.pages.partition_point(|(at, _)| *at <= byte).max(1) - 1;
    for chunk in &result.chunks {
        if decoded.pages.is_empty() {
            continue;
        }
        let provenance = chunk.provenance.as_ref().expect("a document chunk has provenance");
        let (Some(first), Some(end)) = (&provenance.page, &provenance.page_end) else {
            panic!("chunk {} of a paged document names no page", chunk.id);
        };
        // The body may open with white space that the page before ends with, and end with
        // white space of the next: the pages it names lie within those of its bytes, in
        // order. Labels may repeat (two chapters of one title), so any matching entry counts.
        let start = page_of(chunk.byte_start);
        let last = page_of(chunk.byte_end.saturating_sub(1).max(chunk.byte_start));
        let find = |label: &PageLabel, from: usize| {
            (from..=last).find(|&k| decoded.pages[k].1 == *label)
        };
        let named = find(first, start).and_then(|f| find(end, f));
        assert!(
            named.is_some(),
            "chunk {} at {}..{} names pages {first:?}..{end:?}, its bytes lie on {:?}..{:?}",
            chunk.id,
            chunk.byte_start,
            chunk.byte_end,
            decoded.pages[start].1,
            decoded.pages[last].1,
        );
    }
    check_records(path, text, &result.chunks, &opts.config);
});
