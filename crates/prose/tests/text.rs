//! Plain text and reStructuredText atomizers: fixtures × budgets × units through the invariant
//! checker, sentence cuts, RST titles as sections, and property tests on random text.

use cleave_core::{Atom, AtomKind, ChunkConfig, Source, Tokenizer, Unit, check_invariants, pack};
use cleave_prose::{Format, annotate};
use proptest::prelude::*;

const NOTES: &str = include_str!("../../../fixtures/text/notes.txt");
const GUIDE: &str = include_str!("../../../fixtures/text/guide.rst");

mod common;

use common::{atomize, chunk};

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

/// Quality bars on real reStructuredText (set `CLEAVE_SLOW_TESTS=1`; `CLEAVE_RST_CORPUS` names a
/// folder of `.txt`/`.rst` files, by default Django's docs from its sdist).
#[test]
fn rst_corpus_quality_bars() {
    if std::env::var_os("CLEAVE_SLOW_TESTS").is_none() {
        return;
    }
    let root = std::env::var("CLEAVE_RST_CORPUS")
        .unwrap_or_else(|_| "/tmp/prose-corpus/django-5.2.19/docs".into());
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(&root)];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "txt" || e == "rst") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no reStructuredText under {root}");
    for budget in [1000, 4000] {
        let started = std::time::Instant::now();
        let (mut bytes, mut n_chunks, mut within, mut mid_word, mut violations) = (0, 0, 0, 0, 0);
        let (mut below, mut crumbs, mut fit, mut whole) = (0, 0, 0, 0);
        for file in &files {
            let Ok(text) = std::fs::read_to_string(file) else { continue };
            let path = file.display().to_string();
            let tree = atomize(Format::Rst, &text);
            let source = Source::new(&path, &text);
            let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
            let mut chunks = pack(&source, &tree, &config);
            violations += check_invariants(&source, &tree, &chunks, &config).len();
            annotate(&tree, &source, &mut chunks);
            bytes += text.len();
            n_chunks += chunks.len();
            for c in &chunks {
                within += usize::from(c.tokens <= budget);
                mid_word += usize::from(starts_mid_word(&text, c.byte_start));
                let sections = &c.provenance.as_ref().unwrap().section;
                let at_heading = tree.root.children.iter().any(|a| a.range.start == c.byte_start);
                if !sections.is_empty() && !at_heading {
                    below += 1;
                    crumbs += usize::from(!c.scope.is_empty());
                }
            }
            let max_header = chunks.iter().map(|c| c.header.chars().count()).max().unwrap_or(0);
            let room = budget.saturating_sub(max_header + 16);
            let mut stack = vec![&tree.root];
            while let Some(atom) = stack.pop() {
                stack.extend(atom.children.iter());
                if atom.protected && text[atom.range.clone()].chars().count() <= room {
                    fit += 1;
                    let idx = chunks.partition_point(|c| c.byte_start <= atom.range.start);
                    whole += usize::from(idx > 0 && chunks[idx - 1].byte_end >= atom.range.end);
                }
            }
        }
        println!(
            "rst budget {budget} chars: {} files, {} KB, {n_chunks} chunks in {:.1?}; within budget {within}/{n_chunks}; violations {violations}; mid-word starts {mid_word}; scope on {crumbs}/{below} chunks inside a section; protected regions whole when fitting {whole}/{fit}",
            files.len(),
            bytes / 1024,
            started.elapsed()
        );
        assert_eq!(violations, 0);
        assert_eq!(within, n_chunks);
    }
}
