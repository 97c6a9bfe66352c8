//! Findings of the fuzz targets over this crate, each reproducer committed under
//! `fuzz/regressions/<target>/` (with the log of the run that found it) and read back here as
//! the target decodes it.

use cleave_code::{ParseContext, SECTION_BYTES, atomize_code_in_sections, language_by_name};
use cleave_core::{AtomTree, ChunkConfig, Source, Unit, assert_invariants, pack};

/// Asserts that `text` atomizes in sections of `section_bytes` as in one whole parse (atoms,
/// header context and diagnostics), and that both trees chunk within the invariants.
fn assert_sections_match_whole(lang: &str, path: &str, text: &str, section_bytes: usize) {
    let language = language_by_name(lang).expect("a language with a grammar");
    let mut ctx = ParseContext::new();
    let whole = atomize_code_in_sections(language, text, &mut ctx, SECTION_BYTES);
    let sections = atomize_code_in_sections(language, text, &mut ctx, section_bytes);
    let dump = |tree: &AtomTree| cleave_code::dump_atoms(tree, text);
    assert!(
        whole.root == sections.root && whole.context == sections.context,
        "{lang} in {section_bytes}-byte sections differs from the whole parse\n\
         whole:\n{}\nsections:\n{}",
        dump(&whole),
        dump(&sections),
    );
    assert_eq!(format!("{:?}", whole.diagnostics), format!("{:?}", sections.diagnostics));
    for tree in [&whole, &sections] {
        tree.root.validate(text).expect("a valid tree");
        let source = Source::new(path, text);
        let config = ChunkConfig::new(300, Unit::Chars).expect("config");
        assert_invariants(&source, tree, &pack(&source, tree, &config), &config);
    }
}

/// The bytes of the reproducer `name` that the fuzz target `target` found, as committed under
/// `fuzz/regressions/`.
fn reproducer(target: &str, name: &str) -> Vec<u8> {
    let path = format!("{}/../../fuzz/regressions/{target}/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("the committed reproducer {path}: {e}"))
}

/// The `code_sections` target's first finding (issue 13): a JavaScript file that fails to
/// parse near its end, where the whole parse's root is an ERROR node (858 of 858 bytes under
/// error nodes) and `const BASE` is no top-level constant, while the first 128-byte section,
/// which ends before the error, parsed cleanly into a `program` and kept `symbol [const BASE]`.
/// Tree-sitter's error recovery is not local: a failing section now sends the whole file
/// (when it fits one piece) to one parse, not only the rest from the section before.
/// See: issue 13.
#[test]
fn fuzz_code_sections_an_error_near_the_end_reshapes_the_whole_parse() {
    let data = reproducer("code_sections", "crash-7c310d8de451e3b102fc36b721d7772cb0a063c4");
    // 4 option bytes (00 e1 00 80), one byte for language and section length (0x42), the text.
    let (pick, rest) = (data[4], &data[5..]);
    let text = std::str::from_utf8(rest).expect("UTF-8 text");
    // JavaScript: the target picks among the languages with a grammar in its build, and the
    // list has grown since; the log names the language it picked.
    let section_bytes = 32 << (pick >> 5);
    assert_eq!(section_bytes, 128);
    assert_sections_match_whole("javascript", "src/fuzz.js", text, section_bytes);
    // Every section length the target can pick.
    for shift in 0..8 {
        assert_sections_match_whole("javascript", "src/fuzz.js", text, 32 << shift);
    }
}

/// The same finding in miniature: three sections, the first two clean on their own, an
/// unclosed class at the end that makes the whole parse one ERROR node.
/// See: issue 13.
#[test]
fn a_clean_section_is_not_trusted_when_a_later_one_fails() {
    let text = "const BASE = \"x\";\n\nfunction a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nclass C {\n  get h() {\n    return { a: b C {\n  t = 1;\n\n  constructor(x) {\n    this.x < x;\n y\n};\n";
    assert_eq!(cleave_code::section_starts(text.as_bytes(), 1).len(), 3);
    assert_sections_match_whole("javascript", "src/a.js", text, 1);
}

/// The `code` target's first timeout (issue 16): a 2,570-byte Kotlin file on which
/// tree-sitter-kotlin-ng's error recovery ran for 117 s (48 million parse operations on one
/// 2,186-byte range, most of them in its external scanner's lexing). A parse now stops at a
/// step budget counted in operations (so where it stops is the same on every machine), and
/// the range it was parsing falls back to blank-line blocks with the reason in the file's
/// diagnostics. Before the budget this test ran for two minutes.
/// See: issue 16.
#[test]
fn fuzz_code_a_kotlin_parse_that_would_not_end_stops_at_its_step_budget() {
    let data = reproducer("code", "timeout-4ad96c0173adbfd27dfd453062ff139490db8055");
    // 4 option bytes (00 e1 00 80: chars, budget 120, headers, no overlap), one byte for
    // language and section length (0x09: Kotlin in the registry of the run, whole file), the
    // text.
    assert_eq!(data[..5], [0x00, 0xe1, 0x00, 0x80, 0x09]);
    let text = std::str::from_utf8(&data[5..]).expect("UTF-8 text");
    let language = language_by_name("kotlin").expect("Kotlin has a grammar");
    let mut ctx = ParseContext::new();
    let tree = atomize_code_in_sections(language, text, &mut ctx, SECTION_BYTES);
    let diagnostics = format!("{:?}", tree.diagnostics);
    assert!(diagnostics.contains("1 partial parse(s) stopped at the step budget"), "{diagnostics}");
    tree.root.validate(text).expect("a valid tree");
    let source = Source::new("src/fuzz.kt", text);
    let config = ChunkConfig::new(120, Unit::Chars).expect("config");
    assert_invariants(&source, &tree, &pack(&source, &tree, &config), &config);
    // The same context chunks the next file with a fresh budget: a clean Kotlin file parses
    // whole, with no parse stopped.
    let clean = "class A {\n    fun f(): Int = 1\n}\n";
    let tree = atomize_code_in_sections(language, clean, &mut ctx, SECTION_BYTES);
    assert!(tree.diagnostics.is_empty(), "{:?}", tree.diagnostics);
}
