//! A file's outline: its symbols (code) or its section tree (documents), each with its lines
//! and the chunks that hold it. Built from the atom tree the file was chunked along and the
//! chunks it gave, so an outline always agrees with the records.

use cleave_core::{Atom, AtomKind, AtomTree, Chunk, PageLabel, Source};
use serde::{Deserialize, Serialize};

/// One named atom of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutlineEntry {
    /// Nesting among the file's entries: 0 for top-level items and sections.
    pub depth: usize,
    /// `symbol` or `section`.
    pub kind: String,
    /// How the atom reads: `class Flask`, `fn login`, `Install`.
    pub label: String,
    /// Qualified name (`Flask.route`, `Guide > Install`).
    pub name: String,
    /// For sections: the numbered path, `3.2.1`; in a document that numbers its sections
    /// itself, its own number, and none for a title it left unnumbered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    /// First line of the item's signature, for symbols that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Byte range in the file's text.
    pub byte_start: usize,
    /// End of the byte range (exclusive).
    pub byte_end: usize,
    /// First line, 1-based.
    pub line_start: usize,
    /// Last line, 1-based, inclusive.
    pub line_end: usize,
    /// Page (slide, sheet, chapter) of its start, for decoded documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<PageLabel>,
    /// Page (slide, sheet, chapter) of its last visible character; present whenever `page`
    /// is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_end: Option<PageLabel>,
    /// Ids of the chunks that hold some of it, in order.
    pub chunks: Vec<String>,
}

impl OutlineEntry {
    /// Where it lies in a decoded document, as a provenance tag reads it: `p.3`, `pp.3-7`,
    /// `slides 2-3`; `None` for text without pages.
    pub fn pages(&self) -> Option<String> {
        let (first, last) = self.page.as_ref().zip(self.page_end.as_ref())?;
        Some(cleave_core::page_span(first, last))
    }
}

/// The number a section title starts with, and the rest of it: `2 Contents`, `4.1 Setup`,
/// `4.1. Setup`, `A.2 Proofs`, `IV. Results`. A letter (appendix) or a Roman numeral counts
/// only with a dot (`A Tour` and `I Wish` are words), a number has at most three digits a
/// part (`1234 Main St` is an address), and a title that is a number alone has none.
pub fn title_number(title: &str) -> Option<(&str, &str)> {
    let (first, rest) = title.split_once(' ')?;
    if rest.trim().is_empty() {
        return None;
    }
    let stripped = first.strip_suffix('.');
    let dotted = stripped.is_some() || first.contains('.');
    let mut parts = stripped.unwrap_or(first).split('.');
    let head = parts.next()?;
    let digits = |p: &str| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    let letter = head.len() == 1 && head.bytes().all(|b| b.is_ascii_uppercase());
    let roman = !head.is_empty() && head.bytes().all(|b| b"IVXLC".contains(&b));
    ((digits(head) || (dotted && (letter || roman))) && parts.all(digits))
        .then(|| (first, rest.trim_start()))
}

/// The outline of a file chunked along `tree` into `chunks`, entries in reading order.
pub fn outline(tree: &AtomTree, source: &Source<'_>, chunks: &[Chunk]) -> Vec<OutlineEntry> {
    let mut out = Vec::new();
    let mut walk =
        Walk { tree, source, chunks, names: Vec::new(), numbers: vec![0], out: &mut out };
    walk.atom(&tree.root, 0);
    own_numbers(&mut out);
    out
}

/// A document that numbers its sections itself (at least two and half of its section titles
/// start with a number of their own, [`title_number`]) keeps its numbers: each section's
/// number is its title's, and a title it left unnumbered (`Références` after its section 8)
/// has none, rather than cleave's counting beside it (`10 Références`, or `2` for
/// `1 Introduction` after an unnumbered title page).
fn own_numbers(entries: &mut [OutlineEntry]) {
    let (mut own, mut all) = (0, 0);
    for e in entries.iter().filter(|e| e.number.is_some()) {
        all += 1;
        own += usize::from(title_number(&e.label).is_some());
    }
    if own < 2 || 2 * own < all {
        return;
    }
    for e in entries.iter_mut().filter(|e| e.number.is_some()) {
        e.number = title_number(&e.label).map(|(n, _)| n.trim_end_matches('.').to_owned());
    }
}

struct Walk<'a, 'o> {
    tree: &'a AtomTree,
    source: &'a Source<'a>,
    chunks: &'a [Chunk],
    /// Qualified-name parts of the enclosing entries.
    names: Vec<String>,
    /// Section counters per depth (the last is the next number at the current depth).
    numbers: Vec<usize>,
    out: &'o mut Vec<OutlineEntry>,
}

impl Walk<'_, '_> {
    fn atom(&mut self, atom: &Atom, depth: usize) {
        let Some(name) = atom.name().map(str::to_owned) else {
            for child in &atom.children {
                self.atom(child, depth);
            }
            return;
        };
        let is_section = atom.kind == AtomKind::Section;
        let number = is_section.then(|| {
            if let Some(n) = self.numbers.last_mut() {
                *n += 1;
            }
            let parts: Vec<String> = self.numbers.iter().map(usize::to_string).collect();
            parts.join(".")
        });
        let label = atom.label_text().unwrap_or(&name).to_owned();
        let signature = atom
            .label
            .as_deref()
            .and_then(|l| l.signature.as_deref())
            .and_then(|s| s.lines().map(str::trim).find(|l| !l.is_empty()))
            .map(str::to_owned);
        let separator = if is_section { " > " } else { self.tree.separator };
        let mut qualified = self.names.join(separator);
        if !qualified.is_empty() {
            qualified.push_str(separator);
        }
        qualified.push_str(&name);
        let range = atom.range.clone();
        let (line_start, line_end) = self.source.line_range(range.start, range.end);
        let pages = self.tree.locations.pages_of(self.source.text(), range.clone());
        let (page, page_end) = pages.map(|(a, b)| (a.clone(), b.clone())).unzip();
        let first = self.chunks.partition_point(|c| c.byte_end <= range.start);
        let chunks = self.chunks[first..]
            .iter()
            .take_while(|c| c.byte_start < range.end)
            .map(|c| c.id.clone())
            .collect();
        self.out.push(OutlineEntry {
            depth,
            kind: if is_section { "section" } else { "symbol" }.to_owned(),
            label,
            name: qualified,
            number,
            signature,
            byte_start: range.start,
            byte_end: range.end,
            line_start,
            line_end,
            page,
            page_end,
            chunks,
        });
        self.names.push(name);
        if is_section {
            self.numbers.push(0);
        }
        for child in &atom.children {
            self.atom(child, depth + 1);
        }
        if is_section {
            self.numbers.pop();
        }
        self.names.pop();
    }
}

#[cfg(test)]
mod tests {
    use crate::{Settings, chunk_bytes};
    use cleave_core::{ChunkConfig, Unit};

    fn outline_of(path: &str, text: &str) -> Vec<super::OutlineEntry> {
        let settings =
            Settings::new(ChunkConfig::new(400, Unit::Chars).expect("config")).with_outline(true);
        chunk_bytes(path, text.as_bytes().to_vec(), &settings).outline.expect("an outline")
    }

    #[test]
    fn sections_are_numbered_and_nested() {
        let text =
            "# Guide\n\nIntro.\n\n## Install\n\nText.\n\n### Linux\n\nMore.\n\n## Use\n\nEnd.\n";
        let entries = outline_of("guide.md", text);
        let got: Vec<(usize, Option<&str>, &str, usize)> = entries
            .iter()
            .map(|e| (e.depth, e.number.as_deref(), e.name.as_str(), e.line_start))
            .collect();
        assert_eq!(
            got,
            [
                (0, Some("1"), "Guide", 1),
                (1, Some("1.1"), "Guide > Install", 5),
                (2, Some("1.1.1"), "Guide > Install > Linux", 9),
                (1, Some("1.2"), "Guide > Use", 13),
            ]
        );
        assert!(entries.iter().all(|e| !e.chunks.is_empty()));
    }

    #[test]
    fn entries_of_a_decoded_document_name_their_pages() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/documents/report.docx");
        let bytes = std::fs::read(path).expect("the DOCX fixture");
        let settings =
            Settings::new(ChunkConfig::new(400, Unit::Chars).expect("config")).with_outline(true);
        let entries = chunk_bytes("report.docx", bytes, &settings).outline.expect("an outline");
        let got: Vec<(&str, Option<String>)> =
            entries.iter().map(|e| (e.label.as_str(), e.pages())).collect();
        // The report's page break falls inside "Method": the section runs over both pages,
        // "Results" lies on the second alone.
        assert_eq!(
            got,
            [
                ("Quarterly Report", Some("pp.1-2".to_owned())),
                ("Method", Some("pp.1-2".to_owned())),
                ("Results", Some("p.2".to_owned())),
            ]
        );
        let json = serde_json::to_value(&entries[2]).expect("json");
        assert_eq!((&json["page"], &json["page_end"]), (&2.into(), &2.into()));
        // Text has no pages, and its entries carry none.
        let plain = outline_of("guide.md", "# Guide\n\nText.\n");
        assert!(plain.iter().all(|e| e.page.is_none() && e.pages().is_none()));
        assert!(serde_json::to_value(&plain[0]).expect("json").get("page").is_none());
    }

    #[test]
    fn symbols_carry_qualified_names_signatures_and_chunks() {
        let text = "class Flask:\n    def route(self, rule):\n        return rule\n\n\ndef main():\n    pass\n";
        let entries = outline_of("app.py", text);
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Flask", "Flask.route", "main"]);
        assert_eq!(entries[1].depth, 1);
        assert_eq!(entries[1].signature.as_deref(), Some("def route(self, rule):"));
        assert_eq!((entries[2].line_start, entries[2].line_end), (6, 7));
    }

    #[test]
    fn titles_with_numbers_of_their_own_are_told_from_words() {
        for title in ["2 Contents", "4.1 Save catcodes", "4.1. Setup", "A.2 Proofs", "IV. Results"]
        {
            assert!(super::title_number(title).is_some(), "{title}");
        }
        for title in ["Contents", "A Tour of cleave", "I Wish", "2", "3D models", "1234 Main St"] {
            assert!(super::title_number(title).is_none(), "{title}");
        }
        assert_eq!(super::title_number("4.1.  Setup"), Some(("4.1.", "Setup")));
    }

    #[test]
    fn a_document_that_numbers_its_sections_keeps_its_own_numbers() {
        let numbers = |text: &str| -> Vec<Option<String>> {
            outline_of("paper.md", text).into_iter().map(|e| e.number).collect()
        };
        let own = "# Résumé\n\nA.\n\n# 1 Introduction\n\nB.\n\n## 1.1 Scope\n\nC.\n\n\
                   # 8 Conclusion\n\nD.\n\n# Références\n\nE.\n";
        let own_numbers: Vec<Option<&str>> = vec![None, Some("1"), Some("1.1"), Some("8"), None];
        assert_eq!(numbers(own).iter().map(Option::as_deref).collect::<Vec<_>>(), own_numbers);
        // Unnumbered titles, among them one that merely starts with a number, are counted.
        let counted = "# Install\n\nA.\n\n# 3 ways to chunk\n\nB.\n\n# FAQ\n\nC.\n";
        let counted_numbers: Vec<Option<&str>> = vec![Some("1"), Some("2"), Some("3")];
        assert_eq!(
            numbers(counted).iter().map(Option::as_deref).collect::<Vec<_>>(),
            counted_numbers
        );
    }
}
