//! Chunk records: the output contract of DESIGN.md.

use serde::{Deserialize, Serialize};

use crate::atom::{Atom, AtomKind, AtomTree, ContentKind, PageLabel};
use crate::text::{Source, count_chars};

/// One chunk: a whole unit of a source with the header that says where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Stable content id: a hash of path and body (suffixed when a body repeats in a file).
    pub id: String,
    /// Path relative to the walked root, `/` separators.
    pub path: String,
    /// Language name: `rust`, `markdown`, `text`, …
    pub language: String,
    /// Code, prose or data.
    pub kind: ContentKind,
    /// Start of the body in the file, in bytes.
    pub byte_start: usize,
    /// End of the body in the file (exclusive), in bytes.
    pub byte_end: usize,
    /// First line of the body, 1-based.
    pub line_start: usize,
    /// Last line of the body, 1-based, inclusive.
    pub line_end: usize,
    /// Size of header + body in the run's unit.
    pub tokens: usize,
    /// Qualified names of the symbols wholly inside the body.
    pub symbols: Vec<String>,
    /// Enclosing scopes at the body's start, outermost first.
    pub scope: Vec<String>,
    /// Set when the chunk is one part of an atom too large for the budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<Part>,
    /// Where a document chunk comes from; set for prose.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What a document chunk is about; set by classifiers (prose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub classification: Option<Classification>,
    /// The injected context header (empty with headers off).
    pub header: String,
    /// The exact body: `file[byte_start..byte_end]`.
    pub text: String,
}

impl Chunk {
    /// Header and body as handed to a model.
    pub fn rendered(&self) -> String {
        let mut s = String::with_capacity(self.header.len() + self.text.len());
        s.push_str(&self.header);
        s.push_str(&self.text);
        s
    }
}

/// Which part of an oversize atom a chunk is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// 1-based index among the chunks that overlap the atom.
    pub index: usize,
    /// How many chunks overlap the atom.
    pub count: usize,
    /// The atom's label.
    pub of: String,
    /// Whether the atom was a protected region (math, fence, table) too large to keep whole.
    pub protected: bool,
}

/// Provenance of a document chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// Section path at the body's start, outermost first (headings, `\section`s).
    pub section: Vec<String>,
    /// 1-based ordinal of the blank-line block (¶) the body starts in.
    pub paragraph: usize,
    /// Offset of the body's start in chars.
    pub char_offset: usize,
    /// Page (slide, sheet, chapter) of the body's start, for decoded documents. A page
    /// serialises as a bare number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<PageLabel>,
    /// Page (slide, sheet, chapter) of the body's last visible character: the same as `page`
    /// for a body on one page, a later one for a body that runs over a page break. Present
    /// whenever `page` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_end: Option<PageLabel>,
    /// The rendered tag: `[source:FILE | p.N | ¶N | §A > B | @offset]`.
    pub tag: String,
}

/// What a chunk holds, for filtering and retrieval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    /// Content type: `theory`, `definition`, `proof`, `algorithm`, `calculation`, `code`,
    /// `table`, `mixed`, `narrative`, …
    pub content_type: String,
    /// Whether the body holds math.
    pub has_math: bool,
    /// Whether the body holds code.
    pub has_code: bool,
    /// Whether the body holds a table.
    pub has_table: bool,
    /// A few keywords of the body.
    pub keywords: Vec<String>,
}

/// Renders a provenance tag: `[source:FILE | p.N | ¶N | §A > B | @offset]` (a slide reads
/// `slide N`, a sheet `sheet NAME`, a chapter `ch. NAME`). `pages` are the first and last page
/// of the body: a body over a page break reads `pp.3-4` (`slides 2-3`, or `first – last` for
/// names).
pub fn provenance_tag(
    path: &str,
    pages: Option<(&PageLabel, &PageLabel)>,
    paragraph: usize,
    section: &[String],
    char_offset: usize,
) -> String {
    let mut tag = format!("[source:{path}");
    if let Some((first, last)) = pages {
        tag.push_str(" | ");
        tag.push_str(&page_span(first, last));
    }
    tag.push_str(&format!(" | ¶{paragraph}"));
    if !section.is_empty() {
        tag.push_str(&format!(" | §{}", section.join(" > ")));
    }
    tag.push_str(&format!(" | @{char_offset}]"));
    tag
}

/// How a passage from page `first` to page `last` reads: `p.3` on one page, `pp.3-4` over a
/// page break, `slides 2-3`, and `first – last` for named labels (sheets, chapters).
pub fn page_span(first: &PageLabel, last: &PageLabel) -> String {
    match (first, last) {
        _ if first == last => first.to_string(),
        (PageLabel::Page(a), PageLabel::Page(b)) => format!("pp.{a}-{b}"),
        (PageLabel::Slide { slide: a }, PageLabel::Slide { slide: b }) => format!("slides {a}-{b}"),
        _ => format!("{first} – {last}"),
    }
}

/// Fills the provenance of the chunks of one prose source, in order, from its atom tree: the
/// section path from the section atoms around each body's start, the paragraph and the page
/// from the tree's [`Locations`](crate::Locations), the offset in chars. Chunks of code and
/// data get none.
///
/// This is the location half of annotation, run after [`pack`](crate::pack) on the same
/// source and tree; the prose crate's `annotate` calls it before it classifies.
pub fn locate(tree: &AtomTree, source: &Source<'_>, chunks: &mut [Chunk]) {
    if tree.content != ContentKind::Prose {
        return;
    }
    let text = source.text();
    // The packer chunks a tree that does not tile the source as one flat block, which has no
    // sections; provenance follows what the packer saw.
    let tiles = tree.root.range == (0..text.len()) && tree.root.validate(text).is_ok();
    let blank_line_blocks;
    let paragraphs: &[usize] = if tree.locations.paragraphs.is_empty() {
        blank_line_blocks = block_starts(text);
        &blank_line_blocks
    } else {
        &tree.locations.paragraphs
    };
    // (byte, chars before it): chunks come in order, so chars are counted once over the file.
    let mut chars_at = (0usize, 0usize);
    for chunk in chunks.iter_mut() {
        let start = chunk.byte_start.min(text.len());
        if start >= chars_at.0 {
            chars_at.1 += count_chars(&text.as_bytes()[chars_at.0..start]);
        } else {
            chars_at.1 = source.char_offset(start);
        }
        chars_at.0 = start;
        let section = if tiles { section_path(&tree.root, start) } else { Vec::new() };
        let paragraph = paragraphs.partition_point(|&b| b <= start).max(1);
        let pages = tree.locations.pages_of(text, start..chunk.byte_end);
        let tag = provenance_tag(source.path(), pages, paragraph, &section, chars_at.1);
        let (page, page_end) = pages.map(|(a, b)| (a.clone(), b.clone())).unzip();
        chunk.provenance =
            Some(Provenance { section, paragraph, char_offset: chars_at.1, page, page_end, tag });
    }
}

/// Labels of the section atoms holding byte `at`, outermost first.
fn section_path(root: &Atom, at: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut atom = root;
    loop {
        if atom.kind == AtomKind::Section
            && let Some(label) = atom.label_text()
        {
            out.push(label.to_owned());
        }
        // Children tile their parent: the one holding `at` is the last that starts at or before it.
        let idx = atom.children.partition_point(|c| c.range.start <= at);
        match idx.checked_sub(1).map(|i| &atom.children[i]) {
            Some(child) if at < child.range.end => atom = child,
            _ => return out,
        }
    }
}

/// Byte offsets where blank-line-separated blocks start.
fn block_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut prev_blank = true;
    let mut at = 0;
    for line in crate::text::lines_inclusive(text) {
        let blank = line.trim().is_empty();
        if !blank && prev_blank {
            out.push(at);
        }
        prev_blank = blank;
        at += line.len();
    }
    out
}

/// The stable id of a body: 16 hex digits of xxh3 over path and body.
pub fn chunk_id(path: &str, body: &str) -> String {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(path.as_bytes());
    h.update(&[0]);
    h.update(body.as_bytes());
    format!("{:016x}", h.digest())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_path_sensitive() {
        assert_eq!(chunk_id("a.rs", "fn x() {}"), chunk_id("a.rs", "fn x() {}"));
        assert_ne!(chunk_id("a.rs", "fn x() {}"), chunk_id("b.rs", "fn x() {}"));
        assert_eq!(chunk_id("a.rs", "").len(), 16);
    }

    #[test]
    fn tags_read_well() {
        let tag = provenance_tag("guide.md", None, 3, &["Guide".into(), "Install".into()], 120);
        assert_eq!(tag, "[source:guide.md | ¶3 | §Guide > Install | @120]");
        let page = PageLabel::Page(2);
        assert_eq!(
            provenance_tag("a.pdf", Some((&page, &page)), 1, &[], 0),
            "[source:a.pdf | p.2 | ¶1 | @0]"
        );
        assert_eq!(
            provenance_tag("a.pdf", Some((&page, &PageLabel::Page(3))), 1, &[], 0),
            "[source:a.pdf | pp.2-3 | ¶1 | @0]"
        );
        let slide = PageLabel::Slide { slide: 4 };
        assert_eq!(
            provenance_tag("a.pptx", Some((&slide, &slide)), 1, &[], 0),
            "[source:a.pptx | slide 4 | ¶1 | @0]"
        );
        assert_eq!(
            provenance_tag("a.pptx", Some((&slide, &PageLabel::Slide { slide: 6 })), 1, &[], 0),
            "[source:a.pptx | slides 4-6 | ¶1 | @0]"
        );
        let (a, b) = (
            PageLabel::Chapter { chapter: "A".into() },
            PageLabel::Chapter { chapter: "B".into() },
        );
        assert_eq!(
            provenance_tag("a.epub", Some((&a, &b)), 1, &[], 0),
            "[source:a.epub | ch. A – ch. B | ¶1 | @0]"
        );
    }

    #[test]
    fn pages_serialise_as_numbers_and_other_labels_as_objects() {
        let json = |p: &PageLabel| serde_json::to_string(p).unwrap();
        assert_eq!(json(&PageLabel::Page(3)), "3");
        assert_eq!(json(&PageLabel::Sheet { sheet: "Totals".into() }), r#"{"sheet":"Totals"}"#);
        for label in [
            PageLabel::Page(3),
            PageLabel::Slide { slide: 2 },
            PageLabel::Sheet { sheet: "Totals".into() },
            PageLabel::Chapter { chapter: "Intro".into() },
        ] {
            let back: PageLabel = serde_json::from_str(&json(&label)).unwrap();
            assert_eq!(back, label);
        }
    }

    #[test]
    fn locate_names_sections_paragraphs_and_pages() {
        use crate::atom::{AtomLabel, Locations};
        let text = "# A\n\nfirst\n\n# B\n\nsecond\n";
        let section = |range: std::ops::Range<usize>, title: &str| {
            Atom::new(AtomKind::Section, range)
                .with_label(AtomLabel { label: title.into(), ..AtomLabel::default() })
        };
        let root = Atom::new(AtomKind::Block, 0..text.len())
            .with_children(vec![section(0..12, "A"), section(12..text.len(), "B")]);
        let mut tree = AtomTree::new("markdown", ContentKind::Prose, root);
        tree.locations =
            Locations { pages: vec![(12, PageLabel::Page(2))], ..Locations::default() };
        let source = Source::new("doc.md", text);
        let mut chunks: Vec<Chunk> =
            [0..12, 12..text.len()].into_iter().map(|r| test_chunk(text, r)).collect();
        locate(&tree, &source, &mut chunks);
        let p: Vec<&Provenance> = chunks.iter().map(|c| c.provenance.as_ref().unwrap()).collect();
        assert_eq!(p[0].tag, "[source:doc.md | ¶1 | §A | @0]");
        assert_eq!(p[1].tag, "[source:doc.md | p.2 | ¶3 | §B | @12]");
        assert_eq!((p[1].paragraph, p[1].char_offset), (3, 12));
        assert_eq!(p[1].page_end, Some(PageLabel::Page(2)));
        // A body over a page break names both pages; whitespace after the break does not.
        tree.locations.pages = vec![(0, PageLabel::Page(1)), (10, PageLabel::Page(2))];
        let mut whole = vec![test_chunk(text, 0..text.len()), test_chunk(text, 0..12)];
        locate(&tree, &source, &mut whole);
        let p = whole[0].provenance.as_ref().unwrap();
        assert_eq!(
            (p.page.clone(), p.page_end.clone()),
            (Some(PageLabel::Page(1)), Some(PageLabel::Page(2)))
        );
        assert_eq!(p.tag, "[source:doc.md | pp.1-2 | ¶1 | §A | @0]");
        let p = whole[1].provenance.as_ref().unwrap();
        assert_eq!(p.page_end, Some(PageLabel::Page(1)), "{:?}", &text[0..12]);
        tree.content = ContentKind::Code;
        chunks.iter_mut().for_each(|c| c.provenance = None);
        locate(&tree, &source, &mut chunks);
        assert!(chunks.iter().all(|c| c.provenance.is_none()), "code is not located");
    }

    fn test_chunk(text: &str, range: std::ops::Range<usize>) -> Chunk {
        Chunk {
            id: chunk_id("doc.md", &text[range.clone()]),
            path: "doc.md".into(),
            language: "markdown".into(),
            kind: ContentKind::Prose,
            byte_start: range.start,
            byte_end: range.end,
            line_start: 1,
            line_end: 1,
            tokens: range.len(),
            symbols: Vec::new(),
            scope: Vec::new(),
            part: None,
            provenance: None,
            classification: None,
            header: String::new(),
            text: text[range].to_owned(),
        }
    }
}
