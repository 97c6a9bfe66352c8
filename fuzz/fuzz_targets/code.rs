//! Source code in every registered language: `atomize_code` → `pack` → the shared checker.
//!
//! Input: the option bytes, one byte choosing the language (low bits) and the section length
//! (high bits), then the source text.

#![no_main]

use cleave_code::{ParseContext, SECTION_BYTES, atomize_code_in_sections, languages};
use cleave_fuzz::{Options, check, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let Some((&pick, rest)) = rest.split_first() else { return };
    let Some(text) = text(rest) else { return };
    // Languages whose structure is found (a grammar or a scanner): the others are blank-line
    // blocks, the text target's work.
    let langs: Vec<_> = languages().iter().filter(|l| l.has_structure()).collect();
    let language = langs[usize::from(pick) % langs.len()];
    // Files over 256 KiB are parsed in sections, and generated items in runs of members; fuzz
    // inputs are a few KiB, so half of them use short sections to reach that code, whose atoms
    // must be those of a whole parse.
    let section_bytes = match pick >> 4 {
        0..8 => SECTION_BYTES,
        n => 32 << (n - 8),
    };
    let mut ctx = ParseContext::new();
    let tree = atomize_code_in_sections(language, text, &mut ctx, section_bytes);
    let ext = language.extensions.first().copied().unwrap_or("txt");
    let path = format!("src/fuzz.{ext}");
    let source = cleave_core::Source::new(&path, text);
    let chunks = cleave_core::pack(&source, &tree, &opts.config);
    check(&path, text, &tree, &chunks, &opts.config);
});
