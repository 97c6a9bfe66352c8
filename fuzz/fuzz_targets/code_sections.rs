//! Sectioned parsing against the whole parse: `atomize_code_in_sections` with short sections
//! must give the atoms and header context of one whole parse (ARCHITECTURE.md promises it;
//! `sections_match_whole_parses` checks it on the corpus), and keep every invariant.
//!
//! Input: the option bytes, one byte choosing the language (its low five bits, modulo the
//! number of parsed languages) and the section length (its top three bits: 32 to 4096 bytes),
//! then the source text.

#![no_main]

use cleave_code::{ParseContext, SECTION_BYTES, atomize_code_in_sections, dump_atoms, languages};
use cleave_fuzz::{Options, check, text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let Some((&pick, rest)) = rest.split_first() else { return };
    let Some(text) = text(rest) else { return };
    // Languages that are parsed: the others are blank-line blocks, the text target's work.
    let langs: Vec<_> = languages().iter().filter(|l| l.has_grammar()).collect();
    // Five bits: with four, the languages after the sixteenth (swift, tsx, typescript, vue)
    // were never drawn.
    let language = langs[usize::from(pick & 0x1f) % langs.len()];
    let section_bytes = 32 << (pick >> 5);
    let mut ctx = ParseContext::new();
    let whole = atomize_code_in_sections(language, text, &mut ctx, SECTION_BYTES);
    let sections = atomize_code_in_sections(language, text, &mut ctx, section_bytes);
    // A parse stopped at its step budget (error recovery that would not end) falls back, and
    // the two paths parse different ranges, reusing different trees, so one may stop where the
    // other does not: the promise is for parses that end.
    let stopped = |tree: &cleave_core::AtomTree| {
        tree.diagnostics.iter().any(|d| d.message.contains("step budget"))
    };
    if stopped(&whole) || stopped(&sections) {
        // Still within the invariants, checked below.
    } else if whole.root != sections.root || whole.context != sections.context {
        panic!(
            "{} in {section_bytes}-byte sections differs from the whole parse\n\
             whole ({:?}):\n{}\nsections ({:?}):\n{}",
            language.name,
            whole.context,
            dump_atoms(&whole, text),
            sections.context,
            dump_atoms(&sections, text),
        );
    }
    let ext = language.extensions.first().copied().unwrap_or("txt");
    let path = format!("src/fuzz.{ext}");
    let source = cleave_core::Source::new(&path, text);
    let chunks = cleave_core::pack(&source, &sections, &opts.config);
    check(&path, text, &sections, &chunks, &opts.config);
});
