//! Plain text and reStructuredText atomizers: fixtures × budgets × units through the invariant
//! checker, sentence cuts, RST titles as sections, and property tests on random text.

use cleave_code::ParseContext;
use cleave_core::{
    Atom, AtomKind, AtomTree, Chunk, ChunkConfig, Source, Tokenizer, Unit, check_invariants, pack,
};
use cleave_prose::{Format, atomize_prose};
use proptest::prelude::*;

const NOTES: &str = include_str!("../../../fixtures/text/notes.txt");
const GUIDE: &str = include_str!("../../../fixtures/text/guide.rst");

fn atomize(format: Format, text: &str) -> AtomTree {
    atomize_prose(format, text, &mut ParseContext::new())
}

fn chunk(
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
    let chunks = pack(&source, &tree, &config);
    let errors = check_invariants(&source, &tree, &chunks, &config);
    assert!(errors.is_empty(), "{path} at {budget} {unit}:\n{}", errors.join("\n"));
    (tree, chunks)
}

fn starts_mid_word(text: &str, at: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at..].chars().next();
    matches!((before, after), (Some(b), Some(a)) if b.is_alphanumeric() && a.is_alphanumeric())
}

fn sections<'a>(atom: &'a Atom, out: &mut Vec<&'a str>) {
    if atom.kind == AtomKind::Section {
        out.extend(atom.label_text());
    }
    for c in &atom.children {
        sections(c, out);
    }
}

#[test]
fn fixtures_hold_every_invariant() {
    for (format, path, text) in
        [(Format::Text, "notes.txt", NOTES), (Format::Rst, "guide.rst", GUIDE)]
    {
        for unit in [Unit::Chars, Unit::Bytes, Unit::Tokens(Tokenizer::O200k)] {
            for budget in [40, 100, 200, 400, 1000, 4000] {
                let (_, chunks) = chunk(format, path, text, budget, unit);
                for c in &chunks {
                    assert!(
                        !starts_mid_word(text, c.byte_start),
                        "{path} {budget} {unit}: starts mid-word: {:?}",
                        c.text
                    );
                    assert!(c.provenance.as_ref().is_some_and(|p| p.tag.starts_with("[source:")));
                }
            }
        }
    }
}

#[test]
fn plain_text_cuts_between_sentences() {
    let (_, chunks) = chunk(Format::Text, "notes.txt", NOTES, 140, Unit::Chars);
    let starts: Vec<&str> =
        chunks.iter().map(|c| c.text.split_whitespace().next().unwrap_or("")).collect();
    // "Dr." and "e.g." are not sentence ends, so no chunk starts right after them.
    assert!(!starts.contains(&"Smith"), "{starts:?}");
    assert!(!starts.contains(&"whether"), "{starts:?}");
    let second = chunks.iter().find(|c| c.text.contains("Mr. Chen")).unwrap();
    assert!(
        second.text.starts_with("She asked")
            || second.text.starts_with("Mr. Chen")
            || second.text.starts_with("Dr."),
        "{:?}",
        second.text
    );
}

#[test]
fn rst_titles_are_sections_with_breadcrumbs() {
    let tree = atomize(Format::Rst, GUIDE);
    let mut names = Vec::new();
    sections(&tree.root, &mut names);
    assert_eq!(names, vec!["User Guide", "Installation", "Linux", "Windows", "First steps"]);
    let (_, chunks) = chunk(Format::Rst, "guide.rst", GUIDE, 300, Unit::Chars);
    let linux = chunks.iter().find(|c| c.text.contains("libpq-dev")).unwrap();
    let prov = linux.provenance.as_ref().unwrap();
    assert_eq!(prov.section, vec!["User Guide", "Installation", "Linux"]);
    assert!(prov.tag.contains("§User Guide > Installation > Linux"));
    assert!(linux.header.starts_with(".. guide.rst\n"), "{}", linux.header);
}

#[test]
fn rst_literal_blocks_directives_and_tables_are_protected() {
    let tree = atomize(Format::Rst, GUIDE);
    let mut protected = Vec::new();
    let mut stack = vec![&tree.root];
    while let Some(atom) = stack.pop() {
        stack.extend(atom.children.iter().rev());
        if atom.protected {
            protected.push((atom.label_text().unwrap_or(""), GUIDE[atom.range.clone()].trim_end()));
        }
    }
    let labels: Vec<&str> = protected.iter().map(|p| p.0).collect();
    assert_eq!(labels, vec!["literal block", "code-block directive", "table", "table"]);
    assert_eq!(protected[0].1, "    python -m pip install tidewater");
    assert!(
        protected[2].1.ends_with(
            "status     s        Show queue sizes\n=========  =======  ================="
        )
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_text_holds_every_invariant(
        words in prop::collection::vec(prop_oneof![
            6 => "[A-Za-z]{1,9}",
            2 => Just("Dr.".to_owned()),
            2 => Just("e.g.".to_owned()),
            3 => "[a-z]{1,6}[.!?]",
            1 => Just("\n".to_owned()),
            1 => Just("\n\n".to_owned()),
            1 => "[=\\-~]{3,12}",
            1 => Just("::".to_owned()),
            1 => Just(".. code-block:: python\n".to_owned()),
            1 => "[é☃中文]{1,3}",
        ], 0..120),
        budget in 16usize..500,
        rst in any::<bool>(),
    ) {
        let text = words.join(" ");
        let format = if rst { Format::Rst } else { Format::Text };
        let tree = atomize(format, &text);
        prop_assert!(tree.root.validate(&text).is_ok());
        let source = Source::new("random.txt", &text);
        let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
        let chunks = pack(&source, &tree, &config);
        let errors = check_invariants(&source, &tree, &chunks, &config);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    }
}
