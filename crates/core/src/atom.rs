//! The atom tree: a source cut into nested, labelled units whose children tile their parent.

use std::ops::Range;

/// What an atom is, for the packer and for the chunk records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomKind {
    /// A named item of code: function, class, impl, struct, constant, …
    Symbol,
    /// A document section: a heading and everything up to the next heading of its level.
    Section,
    /// A structural block with no name: a statement, a paragraph, a list item, a data entry.
    Block,
    /// Text between atoms: blank lines, imports, free comments.
    Gap,
    /// A region that must not be cut while it fits: math, a code fence, a table, an environment.
    Protected,
}

/// The strength of a boundary between two siblings, weakest first.
///
/// The packer prefers to cut at strong boundaries; within one chunk count it picks the cut
/// points with the greatest strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Boundary {
    /// Between two chars inside a word.
    Char,
    /// Between two words.
    Word,
    /// Between two lines of one paragraph or statement.
    #[default]
    Line,
    /// Between two sentences.
    Sentence,
    /// Between two statements of one body.
    Statement,
    /// Between two blocks separated by a blank line (paragraphs, statement groups).
    Paragraph,
    /// Between two members of a class, impl or object.
    Member,
    /// Between two top-level items of a file.
    Item,
    /// Between two sections of a document.
    Section,
}

impl Boundary {
    /// What cutting here costs the packer; strong boundaries are free.
    pub(crate) fn cut_penalty(self) -> u64 {
        match self {
            Boundary::Char => 3_000,
            Boundary::Word => 2_000,
            Boundary::Line => 1_200,
            Boundary::Sentence => 800,
            Boundary::Statement => 600,
            Boundary::Paragraph => 300,
            Boundary::Member => 100,
            Boundary::Item | Boundary::Section => 0,
        }
    }
}

/// What an atom holds, as the atomizer that found it knows it: a fence is code, a `proof`
/// environment a proof, `$…$` math.
///
/// The atomizers set it where their parse already says so, so that annotation after packing
/// reads the tree instead of scanning chunk text a second time. It is a class, not a kind: the
/// packer ignores it (whether an atom may be split is [`Atom::protected`]), and an atom without
/// one is ordinary text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    /// Inline or display math, math environments.
    Math,
    /// Code: fences, indented and literal blocks, code spans, verbatim and listings.
    Code,
    /// A table: pipe and grid tables, `tabular`, table directives.
    Table,
    /// A theorem-like statement: theorem, lemma, corollary, proposition, declared ones.
    Theorem,
    /// A definition.
    Definition,
    /// A proof.
    Proof,
    /// An algorithm or pseudo-code.
    Algorithm,
    /// A figure or picture.
    Figure,
    /// A document's abstract.
    Abstract,
}

/// Names an atom carries: how it reads in a scope chain, the name it contributes to qualified
/// symbol names, and the signature repeated in the header of the parts of an opened atom.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AtomLabel {
    /// How the atom reads in a scope chain: `impl Display for Token`, `fn login`, `## Install`.
    pub label: String,
    /// The atom's own name in qualified symbol names (`Token`, `login`), if it is a symbol.
    pub name: Option<String>,
    /// The item's signature (`pub fn login(&self, user: &str) -> Result<Session>`), repeated in
    /// the header of every part when the atom is opened.
    pub signature: Option<String>,
}

/// One node of an atom tree.
///
/// Invariant (checked by [`Atom::validate`]): the children's ranges tile this atom's range
/// exactly, in order, and every range starts and ends on a char boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atom {
    /// Half-open byte range in the source.
    pub range: Range<usize>,
    /// What the atom is.
    pub kind: AtomKind,
    /// Whether the atom must stay whole while it fits the budget.
    pub protected: bool,
    /// Whether the atom opens a scope: chunks that start inside it name it in their header.
    pub is_scope: bool,
    /// Strength of the boundary before this atom, among its siblings.
    pub boundary: Boundary,
    /// Label, name and signature; `None` for anonymous atoms.
    pub label: Option<Box<AtomLabel>>,
    /// What the atom holds (math, code, a proof …), when its atomizer knows; `None` for text.
    pub region: Option<Region>,
    /// Children tiling `range`; empty for a leaf.
    pub children: Vec<Atom>,
}

impl Atom {
    /// A leaf of the given kind.
    pub fn new(kind: AtomKind, range: Range<usize>) -> Self {
        Self {
            range,
            kind,
            protected: kind == AtomKind::Protected,
            is_scope: false,
            boundary: Boundary::default(),
            label: None,
            region: None,
            children: Vec::new(),
        }
    }

    /// A gap leaf.
    pub fn gap(range: Range<usize>) -> Self {
        Self::new(AtomKind::Gap, range)
    }

    /// The item proper of a symbol whose leading doc comments were detached: the item
    /// (attributes, signature, body) without them, a block that stays whole while it fits.
    /// The symbol's children are then the comments (a gap) and this block; see [`Atom::proper`].
    pub fn item_proper(range: Range<usize>, children: Vec<Atom>) -> Self {
        Self::new(AtomKind::Block, range).with_protected(true).with_children(children)
    }

    /// The item proper of this symbol when its leading doc comments were detached (see
    /// [`Atom::item_proper`]); `None` for a symbol without them and for any other atom.
    pub fn proper(&self) -> Option<&Atom> {
        match self.children.as_slice() {
            [lead, core]
                if self.kind == AtomKind::Symbol
                    && lead.kind == AtomKind::Gap
                    && core.kind == AtomKind::Block
                    && core.protected =>
            {
                Some(core)
            }
            _ => None,
        }
    }

    /// Sets the boundary strength before this atom.
    pub fn with_boundary(mut self, boundary: Boundary) -> Self {
        self.boundary = boundary;
        self
    }

    /// Marks the atom as a scope.
    pub fn with_scope(mut self, is_scope: bool) -> Self {
        self.is_scope = is_scope;
        self
    }

    /// Marks the atom as protected.
    pub fn with_protected(mut self, protected: bool) -> Self {
        self.protected = protected;
        self
    }

    /// Sets the label.
    pub fn with_label(mut self, label: AtomLabel) -> Self {
        self.label = Some(Box::new(label));
        self
    }

    /// Sets the region class.
    pub fn with_region(mut self, region: Region) -> Self {
        self.region = Some(region);
        self
    }

    /// Sets the children, which must tile the range (see [`tile`] to build such a list).
    pub fn with_children(mut self, children: Vec<Atom>) -> Self {
        self.children = children;
        self
    }

    /// The label as it reads in a scope chain.
    pub fn label_text(&self) -> Option<&str> {
        self.label.as_deref().map(|l| l.label.as_str())
    }

    /// The atom's name in qualified symbol names.
    pub fn name(&self) -> Option<&str> {
        self.label.as_deref().and_then(|l| l.name.as_deref())
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.range.end - self.range.start
    }

    /// Whether the atom covers no bytes.
    pub fn is_empty(&self) -> bool {
        self.range.is_empty()
    }

    /// Whether a split of this atom (while it fits) breaks an invariant: symbols, sections and
    /// protected regions must stay whole.
    pub fn is_integral(&self) -> bool {
        self.protected || matches!(self.kind, AtomKind::Symbol | AtomKind::Section)
    }

    /// Counts this atom and all its descendants.
    pub fn count(&self) -> usize {
        1 + self.children.iter().map(Atom::count).sum::<usize>()
    }

    /// An indented outline of this atom and its descendants, one line each: range, kind,
    /// flags, boundary, label and the start of the text. What `cleave dump-atoms` prints.
    pub fn dump(&self, text: &str) -> String {
        fn walk(atom: &Atom, text: &str, depth: usize, out: &mut String) {
            use std::fmt::Write;
            let snippet: String = text
                .get(atom.range.clone())
                .unwrap_or("")
                .chars()
                .take(48)
                .map(|c| if c == '\n' { '⏎' } else { c })
                .collect();
            let _ =
                write!(out, "{:indent$}{:?} {:?}", "", atom.range, atom.kind, indent = depth * 2);
            if atom.protected {
                out.push_str(" protected");
            }
            if atom.is_scope {
                out.push_str(" scope");
            }
            if let Some(region) = atom.region {
                let _ = write!(out, " region={region:?}");
            }
            let _ = write!(out, " <{:?}>", atom.boundary);
            if let Some(label) = atom.label.as_deref() {
                let _ = write!(out, " {:?}", label.label);
                if let Some(name) = &label.name {
                    let _ = write!(out, " name={name:?}");
                }
            }
            let _ = writeln!(out, " | {snippet}");
            for child in &atom.children {
                walk(child, text, depth + 1, out);
            }
        }
        let mut out = String::new();
        walk(self, text, 0, &mut out);
        out
    }

    /// Checks the tiling invariant for this atom and its descendants against `text`.
    pub fn validate(&self, text: &str) -> Result<(), String> {
        let r = &self.range;
        if r.start > r.end || r.end > text.len() {
            return Err(format!("atom {r:?} lies outside the text (len {})", text.len()));
        }
        if !text.is_char_boundary(r.start) || !text.is_char_boundary(r.end) {
            return Err(format!("atom {r:?} does not start and end on char boundaries"));
        }
        if self.children.is_empty() {
            return Ok(());
        }
        let mut at = r.start;
        for child in &self.children {
            if child.range.start != at {
                return Err(format!("child {:?} of atom {r:?} should start at {at}", child.range));
            }
            if child.range.is_empty() {
                return Err(format!("child {:?} of atom {r:?} is empty", child.range));
            }
            child.validate(text)?;
            at = child.range.end;
        }
        if at != r.end {
            return Err(format!("children of atom {r:?} end at {at}"));
        }
        Ok(())
    }
}

/// Builds a tiling child list for `range` from atoms that may leave holes, overlap or stick out.
///
/// Atoms are taken in order of start; one that overlaps an atom already taken is dropped (its
/// bytes end up in a gap, so nothing is lost), one that sticks out of `range` is dropped, and
/// empty ones are dropped. Holes become gap atoms whose boundary is `gap_boundary`. Ranges that
/// do not fall on char boundaries are widened to the nearest ones.
pub fn tile(
    text: &str,
    range: Range<usize>,
    mut atoms: Vec<Atom>,
    gap_boundary: Boundary,
) -> Vec<Atom> {
    atoms.sort_by_key(|a| (a.range.start, std::cmp::Reverse(a.range.end)));
    let mut out = Vec::with_capacity(atoms.len() * 2 + 1);
    let mut at = range.start;
    for mut atom in atoms {
        let start = floor_char_boundary(text, atom.range.start);
        let end = ceil_char_boundary(text, atom.range.end);
        if start < at || end > range.end || start >= end {
            continue;
        }
        if start != atom.range.start || end != atom.range.end {
            atom.range = start..end;
            atom.children.clear();
        }
        if start > at {
            out.push(Atom::gap(at..start).with_boundary(gap_boundary));
        }
        at = end;
        out.push(atom);
    }
    if at < range.end {
        out.push(Atom::gap(at..range.end).with_boundary(gap_boundary));
    }
    out
}

/// The greatest char boundary at or before `i`.
pub fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    if i >= text.len() {
        return text.len();
    }
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary at or after `i`.
pub fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    if i >= text.len() {
        return text.len();
    }
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// What the atomizer of a content type produced for one source.
#[derive(Debug, Clone)]
pub struct AtomTree {
    /// The root atom, covering the whole text.
    pub root: Atom,
    /// Language name as it appears in records: `rust`, `markdown`, `text`, …
    pub language: String,
    /// Whether the source is code, prose or data.
    pub content: ContentKind,
    /// How header lines are written so that a chunk still reads as its language.
    pub comment: CommentStyle,
    /// Separator of qualified symbol names (`::` in Rust, `.` in Python).
    pub separator: &'static str,
    /// Lines worth repeating in every header (a compact import list), capped by the packer.
    pub context: Vec<String>,
    /// Byte ranges of the top-level import statements (`use`, `import`, `from … import`, Go's
    /// and Java's `package` clause), as the code atomizer found them, in order; consecutive
    /// statements may share a range. Empty for documents. Packs build the import graph from
    /// them (`cleave-engine`'s `imports`).
    pub imports: Vec<Range<usize>>,
    /// Problems met while atomizing: parse errors, unterminated regions, fallbacks.
    pub diagnostics: Vec<Diagnostic>,
    /// Where things are in the source beyond what the atoms say: paragraphs and pages.
    pub locations: Locations,
}

impl AtomTree {
    /// A tree with the given root and neutral settings: prose, `#` comments, `.` separators.
    pub fn new(language: impl Into<String>, content: ContentKind, root: Atom) -> Self {
        Self {
            root,
            language: language.into(),
            content,
            comment: CommentStyle::line("#"),
            separator: ".",
            context: Vec::new(),
            imports: Vec::new(),
            diagnostics: Vec::new(),
            locations: Locations::default(),
        }
    }
}

/// The location map of a source: what annotation needs that the atoms do not give.
///
/// Section paths come from the section atoms themselves; this holds the rest, each list sorted
/// by offset. For a file read as text `paragraphs` and `pages` are empty: paragraphs are then
/// its blank-line blocks, and it has no pages. A decoded document (PDF, DOCX, slides, sheets)
/// fills them from its layout, where a blank line is not what separates paragraphs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Locations {
    /// Byte offsets where paragraphs start; empty means the source's blank-line blocks.
    pub paragraphs: Vec<usize>,
    /// Byte offsets where pages (slides, sheets, chapters) start, with their labels. Text
    /// before the first entry has no page.
    pub pages: Vec<(usize, PageLabel)>,
    /// The exact extent of every region, for an atomizer whose atoms are wider than the regions
    /// they hold; empty when the atoms' ranges are the regions. Markdown fills it: its tiling
    /// widens a fence or a table over the text up to the next block (blank lines, a link
    /// definition), and it glues a code span or a formula to the word it touches ("(`x`),")
    /// so that no cut falls between them. When it is not empty, annotation measures regions
    /// from it alone; [`Atom::region`] still says what each atom is.
    pub regions: Vec<(Range<usize>, Region)>,
}

impl Locations {
    /// The page holding byte `at`: the last entry that starts at or before it.
    pub fn page_at(&self, at: usize) -> Option<&PageLabel> {
        let idx = self.pages.partition_point(|(start, _)| *start <= at);
        idx.checked_sub(1).map(|i| &self.pages[i].1)
    }

    /// The first and last page of `range` of `text`: the page of its start and the page of its
    /// last visible character, so that the whitespace after a page break (the form feed's line
    /// end) does not put a passage on the next page. `None` for text without pages.
    pub fn pages_of(&self, text: &str, range: Range<usize>) -> Option<(&PageLabel, &PageLabel)> {
        let start = range.start.min(text.len());
        let first = self.page_at(start)?;
        let body = &text.as_bytes()[start..range.end.clamp(start, text.len())];
        let last = body.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |i| start + i);
        Some((first, self.page_at(last).unwrap_or(first)))
    }
}

/// Where in a decoded document a passage is: a page, a slide, a sheet or a chapter.
///
/// It serialises untagged so that a page stays the bare number records have always carried
/// (`"page": 3`); the other labels are small objects (`{"slide": 2}`, `{"sheet": "Totals"}`)
/// that no page number can be mistaken for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum PageLabel {
    /// A page of a paged document (PDF, DOCX), 1-based.
    Page(u32),
    /// A slide of a presentation, 1-based.
    Slide {
        /// The slide number.
        slide: u32,
    },
    /// A sheet of a workbook, by name.
    Sheet {
        /// The sheet's name.
        sheet: String,
    },
    /// A chapter of a book (EPUB), by title or number.
    Chapter {
        /// The chapter's title or number.
        chapter: String,
    },
}

impl std::fmt::Display for PageLabel {
    /// How the label reads in a provenance tag: `p.3`, `slide 2`, `sheet Totals`, `ch. Intro`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageLabel::Page(n) => write!(f, "p.{n}"),
            PageLabel::Slide { slide } => write!(f, "slide {slide}"),
            PageLabel::Sheet { sheet } => write!(f, "sheet {sheet}"),
            PageLabel::Chapter { chapter } => write!(f, "ch. {chapter}"),
        }
    }
}

/// Code, prose or data: the `kind` field of chunk records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentKind {
    /// Source code.
    Code,
    /// Documents: Markdown, LaTeX, plain text.
    Prose,
    /// Data files: JSON, YAML, TOML, CSV.
    Data,
}

/// How a header line is wrapped so that it reads as a comment of the chunk's language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommentStyle {
    /// Text before each header line: `// `, `# `, `<!-- `, `% `.
    pub prefix: String,
    /// Text after each header line: ` -->` for HTML comments, else empty.
    pub suffix: String,
}

impl CommentStyle {
    /// Line comments starting with `token` (`//`, `#`, `--`, `%`).
    pub fn line(token: &str) -> Self {
        Self { prefix: format!("{token} "), suffix: String::new() }
    }

    /// Block comments wrapped per line (`<!--`, `-->`).
    pub fn block(open: &str, close: &str) -> Self {
        Self { prefix: format!("{open} "), suffix: format!(" {close}") }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; the output is as good as usual.
    Note,
    /// Part of the source fell back to a coarser atomizer (parse errors, unterminated regions).
    Degraded,
    /// The whole source fell back to the generic text atomizer.
    Fallback,
}

/// A problem met while atomizing a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// What happened, in a sentence.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic of the given severity.
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        Self { severity, message: message.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_fills_holes_and_drops_overlaps() {
        let text = "0123456789";
        let atoms = vec![
            Atom::new(AtomKind::Symbol, 2..4),
            Atom::new(AtomKind::Symbol, 3..6),
            Atom::new(AtomKind::Block, 7..9),
            Atom::new(AtomKind::Block, 8..12),
        ];
        let tiled = tile(text, 0..10, atoms, Boundary::Line);
        let ranges: Vec<_> = tiled.iter().map(|a| a.range.clone()).collect();
        assert_eq!(ranges, vec![0..2, 2..4, 4..7, 7..9, 9..10]);
        let root = Atom::new(AtomKind::Block, 0..10).with_children(tiled);
        root.validate(text).unwrap();
    }

    #[test]
    fn tile_snaps_to_char_boundaries() {
        let text = "aé☃b";
        let tiled =
            tile(text, 0..text.len(), vec![Atom::new(AtomKind::Block, 2..5)], Boundary::Line);
        let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(tiled);
        root.validate(text).unwrap();
    }

    #[test]
    fn validate_reports_holes() {
        let text = "abcdef";
        let root =
            Atom::new(AtomKind::Block, 0..6).with_children(vec![Atom::gap(0..2), Atom::gap(3..6)]);
        assert!(root.validate(text).is_err());
    }

    #[test]
    fn pages_are_found_by_offset() {
        let locations = Locations {
            pages: vec![(10, PageLabel::Page(1)), (50, PageLabel::Slide { slide: 2 })],
            ..Locations::default()
        };
        assert_eq!(locations.page_at(0), None);
        assert_eq!(locations.page_at(10), Some(&PageLabel::Page(1)));
        assert_eq!(locations.page_at(49), Some(&PageLabel::Page(1)));
        assert_eq!(locations.page_at(500), Some(&PageLabel::Slide { slide: 2 }));
        assert_eq!(PageLabel::Sheet { sheet: "Totals".into() }.to_string(), "sheet Totals");
    }

    #[test]
    fn boundaries_rank_weakest_first() {
        assert!(Boundary::Char < Boundary::Word);
        assert!(Boundary::Line < Boundary::Statement);
        assert!(Boundary::Member < Boundary::Item);
        assert!(Boundary::Item.cut_penalty() < Boundary::Line.cut_penalty());
    }
}
