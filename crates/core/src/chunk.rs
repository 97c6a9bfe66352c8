//! Chunk records: the output contract of DESIGN.md.

use serde::{Deserialize, Serialize};

use crate::atom::ContentKind;

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
    /// Page of the body's start, for paged documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// The rendered tag: `[source:FILE | ¶N | §Section | @offset]`.
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

/// Renders a provenance tag: `[source:FILE | p.N | ¶N | §A > B | @offset]`.
pub fn provenance_tag(
    path: &str,
    page: Option<u32>,
    paragraph: usize,
    section: &[String],
    char_offset: usize,
) -> String {
    let mut tag = format!("[source:{path}");
    if let Some(page) = page {
        tag.push_str(&format!(" | p.{page}"));
    }
    tag.push_str(&format!(" | ¶{paragraph}"));
    if !section.is_empty() {
        tag.push_str(&format!(" | §{}", section.join(" > ")));
    }
    tag.push_str(&format!(" | @{char_offset}]"));
    tag
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
        assert_eq!(provenance_tag("a.pdf", Some(2), 1, &[], 0), "[source:a.pdf | p.2 | ¶1 | @0]");
    }
}
