//! The tools' arguments and answers, with their JSON schemas, and the work behind each tool.
//! Every answer is built from the engine's per-file results (through the cache): outlines from
//! `FileResult::outline`, selections from `select`, readings from `read_ids`, segments from the
//! chunk records `cleave chunk` writes.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use cleave_engine::{
    ChunkSizer, FileResult, LEFT_OUT_FIRST, Outcome, OutlineEntry, Passage, Query, QueryType, Skip,
    Tokenizer, Unit, first_ranked, largest_fitting, passed_over, ranked_entries, read_ids,
    render_passages, select,
};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

use crate::cache::{Cache, Key};
use crate::roots::{Roots, Target};

/// The chunk budget when a call gives none: `cleave outline`'s and `cleave select`'s default.
pub const DEFAULT_CHUNK_BUDGET: usize = 1000;
/// The most units an outline answer takes when a call gives no budget.
pub const DEFAULT_OUTLINE_BUDGET: usize = 16_000;
/// `cleave select`'s default total budget.
pub const DEFAULT_SELECT_BUDGET: usize = 4000;
/// `cleave read`'s default budget.
pub const DEFAULT_READ_BUDGET: usize = 8000;
/// Records per `segment` page when a call gives no limit.
pub const DEFAULT_SEGMENT_LIMIT: usize = 20;
/// The most records per `segment` page.
pub const MAX_SEGMENT_LIMIT: usize = 200;
/// A `segment` page stops before its records' JSON passes this many bytes (one record at least).
pub const MAX_SEGMENT_BYTES: usize = 256 * 1024;
/// The most skipped files a `segment` answer lists.
const MAX_SKIPPED: usize = 100;

/// What budgets count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UnitParam {
    /// Unicode characters (the default).
    #[default]
    Chars,
    /// UTF-8 bytes.
    Bytes,
    /// BPE tokens of `tokenizer` (o200k unless given).
    Tokens,
    /// A cheap token estimate: one per four bytes.
    Estimate,
}

/// The BPE vocabulary of `unit: "tokens"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TokenizerParam {
    /// OpenAI's o200k_base (GPT-4o and later), the default.
    #[default]
    O200k,
    /// OpenAI's cl100k_base (GPT-4, GPT-3.5).
    Cl100k,
}

/// Kinds of question, which decide `select`'s structural priors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QueryTypeParam {
    /// What something is or why: overview sections first.
    Concept,
    /// How something is computed: algorithms, proofs, formulas first.
    Algorithm,
    /// How to implement or change something: code first.
    Code,
}

/// Arguments of `outline`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineParams {
    /// A file or folder: relative to a root (the first root under which it exists; "." is the
    /// first root) or absolute inside one.
    pub path: String,
    /// Most units of the answer (default 16000): the least important entries are left out
    /// first (nested, private, in tests, named in no other file, short), then files are paged
    /// (see `next_cursor`).
    pub budget: Option<usize>,
    /// Where to go on: the `next_cursor` of the previous answer.
    pub cursor: Option<String>,
    /// Budget of each chunk (default 1000): chunk ids belong to it.
    pub chunk_budget: Option<usize>,
    /// What budgets count (default chars).
    pub unit: Option<UnitParam>,
    /// The BPE vocabulary for unit "tokens" (default o200k).
    pub tokenizer: Option<TokenizerParam>,
}

/// Arguments of `select`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SelectParams {
    /// A file or folder: relative to a root or absolute inside one.
    pub path: String,
    /// The question, in words.
    pub query: String,
    /// Most units of the whole rendered selection, tags and headers included (default 4000).
    pub budget: Option<usize>,
    /// The kind of question (guessed from its words when not given).
    pub query_type: Option<QueryTypeParam>,
    /// Terms that weigh more than the question's own words.
    pub keywords: Option<Vec<String>>,
    /// Most passages (default 20).
    pub max_segments: Option<usize>,
    /// A single file whose text takes at most this many units is returned whole when it fits
    /// (default 12000).
    pub passthrough: Option<usize>,
    /// Budget of each chunk (default 1000, and at most two thirds of `budget`).
    pub chunk_budget: Option<usize>,
    /// What budgets count (default chars).
    pub unit: Option<UnitParam>,
    /// The BPE vocabulary for unit "tokens" (default o200k).
    pub tokenizer: Option<TokenizerParam>,
}

/// Arguments of `read`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadParams {
    /// The file or folder the ids were listed for: relative to a root or absolute inside one.
    pub path: String,
    /// Chunk ids or unique prefixes of at least 4 characters, read in the order given.
    pub ids: Vec<String>,
    /// Most units of the rendered passages, tags and headers included (default 8000).
    pub budget: Option<usize>,
    /// Budget of each chunk: the one the ids were listed with (default 1000; `select`
    /// reports the one it used).
    pub chunk_budget: Option<usize>,
    /// What budgets count (default chars).
    pub unit: Option<UnitParam>,
    /// The BPE vocabulary for unit "tokens" (default o200k).
    pub tokenizer: Option<TokenizerParam>,
}

/// Arguments of `segment`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SegmentParams {
    /// A file or folder: relative to a root or absolute inside one.
    pub path: String,
    /// Budget of each chunk (default 1000).
    pub chunk_budget: Option<usize>,
    /// What budgets count (default chars).
    pub unit: Option<UnitParam>,
    /// The BPE vocabulary for unit "tokens" (default o200k).
    pub tokenizer: Option<TokenizerParam>,
    /// Where to go on: the `next_cursor` of the previous answer.
    pub cursor: Option<String>,
    /// Most records in this answer (default 20, at most 200).
    pub limit: Option<usize>,
}

/// An outline: per file, its symbols or numbered sections with lines and chunk ids.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OutlineResult {
    /// The root the paths are relative to.
    pub root: String,
    /// The path asked about, relative to the root ("" for the root).
    pub path: String,
    /// The files of this page, in path order.
    pub files: Vec<FileOutline>,
    /// Files under the path, on every page.
    pub total_files: usize,
    /// Entries of this page's files left out to fit the budget.
    pub left_out_entries: usize,
    /// What was left out or paged, when anything was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Pass it as `cursor` for the next files; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One file of an outline.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileOutline {
    /// Relative to the root, `/` separators.
    pub path: String,
    /// `chunked`, `fallback` (a coarser atomizer was used) or `skipped`.
    pub outcome: String,
    /// Why it fell back or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Language or format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Document type of prose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_type: Option<String>,
    /// Confidence of the document type, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_type_confidence: Option<f64>,
    /// Size of its text in bytes.
    pub bytes: u64,
    /// Ids of its chunks, in order.
    pub chunks: Vec<String>,
    /// Symbols or sections in reading order (those kept within the budget).
    pub entries: Vec<Entry>,
}

/// A symbol or section of a file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Entry {
    /// Nesting: 0 for top-level items and sections.
    pub depth: usize,
    /// `symbol` or `section`.
    pub kind: String,
    /// How it reads: `class Flask`, `fn login`, `Install`.
    pub label: String,
    /// Qualified name: `Flask.route`, `Guide > Install`.
    pub name: String,
    /// Sections: the numbered path, `1.2.1` (a document's own numbers where it numbers its
    /// sections; then none for a title it left unnumbered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    /// Symbols: first line of the signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// First line, 1-based.
    pub line_start: usize,
    /// Last line, 1-based, inclusive.
    pub line_end: usize,
    /// Decoded documents: the pages (slides, sheets, chapters) it spans, as a provenance tag
    /// reads them: `p.3`, `pp.3-7`, `slides 2-3`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    /// Ids of the chunks that hold some of it.
    pub chunks: Vec<String>,
}

impl From<&OutlineEntry> for Entry {
    fn from(e: &OutlineEntry) -> Self {
        // Spelled out field by field, so that a field the engine adds is a compile error here
        // rather than silently missing from the MCP answer.
        let OutlineEntry {
            depth,
            kind,
            label,
            name,
            number,
            signature,
            byte_start: _,
            byte_end: _,
            line_start,
            line_end,
            page: _,
            page_end: _,
            chunks,
        } = e;
        Self {
            depth: *depth,
            kind: (*kind).to_owned(),
            label: label.clone(),
            name: name.clone(),
            number: number.clone(),
            signature: signature.clone(),
            line_start: *line_start,
            line_end: *line_end,
            pages: e.pages(),
            chunks: chunks.clone(),
        }
    }
}

impl FileOutline {
    fn of(file: &FileResult) -> Self {
        let (outcome, reason) = match &file.outcome {
            Outcome::Chunked => ("chunked", None),
            Outcome::Fallback { reason } => ("fallback", Some(reason.clone())),
            Outcome::Skipped { reason } => ("skipped", Some(reason.to_string())),
        };
        Self {
            path: file.rel.clone(),
            outcome: outcome.to_owned(),
            reason,
            language: file.language.clone(),
            doc_type: file.doc_class.as_ref().map(|c| c.0.clone()),
            // Two decimals, as an f64: an f32 goes out as 0.30000001192092896, longer than
            // what the budget measured.
            doc_type_confidence: file
                .doc_class
                .as_ref()
                .map(|c| (f64::from(c.1) * 100.0).round() / 100.0),
            bytes: file.bytes,
            chunks: file.chunks.iter().map(|c| c.id.clone()).collect(),
            entries: file.outline.iter().flatten().map(Entry::from).collect(),
        }
    }
}

/// One passage of a selection or a reading.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PassageInfo {
    /// The chunk's id (for `read`).
    pub id: String,
    /// Its file, relative to the root.
    pub path: String,
    /// First line, 1-based.
    pub line_start: usize,
    /// Last line, 1-based, inclusive.
    pub line_end: usize,
    /// Its innermost section or symbol, or its path.
    pub title: String,
    /// The provenance tag that heads it in `text`.
    pub tag: String,
    /// Its ranking score (0 when passed through whole or read by id).
    pub score: f64,
}

impl From<&Passage> for PassageInfo {
    fn from(p: &Passage) -> Self {
        Self {
            id: p.chunk.id.clone(),
            path: p.chunk.path.clone(),
            line_start: p.chunk.line_start,
            line_end: p.chunk.line_end,
            title: p.title.clone(),
            tag: p.tag.clone(),
            score: p.score,
        }
    }
}

/// A selection: the passages a question needs, whole, within the budget, in reading order.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SelectResult {
    /// The root the paths are relative to.
    pub root: String,
    /// The path asked about, relative to the root.
    pub path: String,
    /// The rendered passages, each under a line with its title and provenance tag: what an
    /// agent reads (also the answer's text content).
    pub text: String,
    /// The passages in reading order.
    pub passages: Vec<PassageInfo>,
    /// The kind of question the priors assumed.
    pub query_type: String,
    /// How the selection was made, with the document types seen.
    pub strategy: String,
    /// Chunks ranked.
    pub candidates: usize,
    /// Chunks that matched but did not fit the budget or the passage limit.
    pub left_out: usize,
    /// Size of `text` in `unit`.
    pub size: usize,
    /// The budget `size` is within.
    pub budget: usize,
    /// The chunk budget the passages were cut with (at most two thirds of `budget`): pass it
    /// to `read` with these ids.
    pub chunk_budget: usize,
    /// What `size` and `budget` count.
    pub unit: String,
}

/// Chunks read by id.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadResult {
    /// The root the paths are relative to.
    pub root: String,
    /// The path asked about, relative to the root.
    pub path: String,
    /// The rendered passages with their tags (also the answer's text content).
    pub text: String,
    /// The passages, in the order asked for.
    pub passages: Vec<PassageInfo>,
    /// Ids that name no chunk under the path, or more than one.
    pub not_found: Vec<String>,
    /// Ids whose chunk did not fit the budget after the ones before them.
    pub did_not_fit: Vec<String>,
    /// Size of `text` in `unit`.
    pub size: usize,
    /// The budget `size` is within.
    pub budget: usize,
    /// What `size` and `budget` count.
    pub unit: String,
}

/// A page of chunk records.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SegmentResult {
    /// The root the paths are relative to.
    pub root: String,
    /// The path asked about, relative to the root.
    pub path: String,
    /// Chunk records, the JSON `cleave chunk --format jsonl` writes, one per chunk.
    #[schemars(schema_with = "records_schema")]
    pub records: Vec<serde_json::Value>,
    /// Index of this page's first record among all the path's chunks.
    pub offset: usize,
    /// Chunks under the path, on every page.
    pub total: usize,
    /// Files under the path.
    pub files: usize,
    /// Files not chunked, with the reason (first page only).
    pub skipped: Vec<SkippedFile>,
    /// Why the page is shorter than asked, or what was left out of `skipped`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Pass it as `cursor` for the next records; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A file that was not chunked.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SkippedFile {
    /// Relative to the root.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// The schema of a chunk record: the output contract of DESIGN.md. Written by hand because the
/// record is the engine's own serialisation of `Chunk`; a test checks that every field a real
/// record has is described here.
fn records_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "stable content id (hash of path and body)"},
                "path": {"type": "string", "description": "relative to the root, / separators"},
                "language": {"type": "string"},
                "kind": {"type": "string", "description": "code, prose or data"},
                "byte_start": {"type": "integer"},
                "byte_end": {"type": "integer", "description": "exclusive"},
                "line_start": {"type": "integer", "description": "1-based"},
                "line_end": {"type": "integer", "description": "1-based, inclusive"},
                "tokens": {"type": "integer", "description": "size of header + body in the unit"},
                "symbols": {"type": "array", "items": {"type": "string"}},
                "scope": {"type": "array", "items": {"type": "string"}},
                "part": {"type": "object", "description": "k of n, for a part of an atom too large for the budget"},
                "provenance": {"type": "object", "description": "documents: section path, paragraph, offset, page, tag"},
                "classification": {"type": "object", "description": "content type, has_math / has_code / has_table, keywords"},
                "header": {"type": "string", "description": "the injected context header"},
                "text": {"type": "string", "description": "the exact body"}
            },
            "required": ["id", "path", "language", "kind", "byte_start", "byte_end", "line_start",
                         "line_end", "tokens", "symbols", "scope", "header", "text"]
        }
    })
}

/// The roots and the cache: what every call works on.
pub struct State {
    /// Where tools may read.
    pub roots: Roots,
    /// The engine's results kept between calls.
    pub cache: Cache,
}

/// The unit a call's `unit` and `tokenizer` name.
fn unit_of(unit: Option<UnitParam>, tokenizer: Option<TokenizerParam>) -> Unit {
    match unit.unwrap_or_default() {
        UnitParam::Chars => Unit::Chars,
        UnitParam::Bytes => Unit::Bytes,
        UnitParam::Estimate => Unit::Estimate,
        UnitParam::Tokens => Unit::Tokens(match tokenizer.unwrap_or_default() {
            TokenizerParam::O200k => Tokenizer::O200k,
            TokenizerParam::Cl100k => Tokenizer::Cl100k,
        }),
    }
}

/// A page position tied to what it pages over: a cursor from before a change is refused
/// rather than silently skipping or repeating items.
fn cursor(offset: usize, fingerprint: u64) -> String {
    format!("{offset}-{fingerprint:016x}")
}

fn parse_cursor(cursor: Option<&str>, fingerprint: u64) -> Result<usize, String> {
    let Some(cursor) = cursor else { return Ok(0) };
    let (offset, print) = cursor
        .split_once('-')
        .and_then(|(o, p)| Some((o.parse::<usize>().ok()?, u64::from_str_radix(p, 16).ok()?)))
        .ok_or_else(|| format!("cursor {cursor:?} is not one this server gave"))?;
    if print != fingerprint {
        return Err(format!(
            "cursor {cursor:?} belongs to an earlier state of these files (they changed, or the \
             options differ): start again without a cursor"
        ));
    }
    Ok(offset)
}

fn fingerprint<'a>(items: impl Iterator<Item = &'a str>) -> u64 {
    let mut h = DefaultHasher::new();
    for item in items {
        item.hash(&mut h);
    }
    h.finish()
}

fn json_size(value: &impl Serialize, sizer: &dyn ChunkSizer) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |s| sizer.size(&s))
}

impl State {
    /// The target of a tool's `path`, and its root for the answer. A path the root's walk
    /// passes over (hidden, ignored, version control, cleave's outputs, or under such a
    /// folder) is refused, as the walk of a folder leaves it out: naming it gives nothing more.
    fn locate(&self, path: &str) -> Result<(Target, String), String> {
        let target = self.roots.resolve(path)?;
        let base = self.roots.get(target.root);
        let options = self.cache.walk_options();
        if let Some(reason) = passed_over(base, Path::new(&target.rel), &options) {
            let what = match reason {
                Skip::Hidden => "hidden".to_owned(),
                Skip::Ignored => "ignored (by .gitignore or a similar file)".to_owned(),
                Skip::VersionControl => "version-control data".to_owned(),
                Skip::Output => "an output of cleave".to_owned(),
                other => format!("passed over by the walk ({other})"),
            };
            let named =
                if target.rel == path { String::new() } else { format!(" ({})", target.rel) };
            return Err(format!(
                "path {path:?}{named} is {what}: the server leaves hidden, ignored and \
                 version-control files out"
            ));
        }
        Ok((target, base.display().to_string()))
    }

    fn key(&self, target: &Target, chunk_budget: usize, unit: Unit) -> Key {
        Key { root: target.root, chunk_budget, unit }
    }

    /// The `outline` tool.
    pub fn outline(&self, p: &OutlineParams) -> Result<OutlineResult, String> {
        let (target, root) = self.locate(&p.path)?;
        let unit = unit_of(p.unit, p.tokenizer);
        let budget = p.budget.unwrap_or(DEFAULT_OUTLINE_BUDGET);
        let key = self.key(&target, p.chunk_budget.unwrap_or(DEFAULT_CHUNK_BUDGET), unit);
        let base = self.roots.get(target.root);
        let (res, _) = self.cache.with_files(key, base, &target, |files| {
            let print = fingerprint(files.iter().map(|f| f.rel.as_str()));
            let offset = parse_cursor(p.cursor.as_deref(), print)?;
            let rest = files.get(offset..).unwrap_or_default();
            let page: Vec<FileOutline> = rest.iter().map(FileOutline::of).collect();
            let ranked = || {
                let input: Vec<_> = rest.iter().map(FileResult::rank_file).collect();
                ranked_entries(&input)
            };
            let head = OutlineResult {
                root,
                path: target.rel.clone(),
                files: Vec::new(),
                total_files: files.len(),
                left_out_entries: 0,
                note: None,
                next_cursor: None,
            };
            fit_outline(head, page, ranked, offset, budget, unit.sizer(), print)
        })?;
        res
    }

    /// The `select` tool.
    pub fn select(&self, p: &SelectParams) -> Result<SelectResult, String> {
        let (target, root) = self.locate(&p.path)?;
        if p.query.trim().is_empty() {
            return Err("query is empty: ask a question".to_owned());
        }
        let unit = unit_of(p.unit, p.tokenizer);
        let budget = p.budget.unwrap_or(DEFAULT_SELECT_BUDGET);
        // As `cleave select`: a chunk and its tag line must fit the budget with room to spare.
        let chunk_budget = p.chunk_budget.unwrap_or(DEFAULT_CHUNK_BUDGET).min(budget * 2 / 3);
        let keywords = p.keywords.clone().unwrap_or_default();
        let query = Query {
            kind: match p.query_type {
                Some(QueryTypeParam::Concept) => QueryType::Concept,
                Some(QueryTypeParam::Algorithm) => QueryType::Algorithm,
                Some(QueryTypeParam::Code) => QueryType::Code,
                None => QueryType::guess(&p.query),
            },
            text: p.query.clone(),
            keywords,
            max_segments: p.max_segments.unwrap_or(20).max(1),
            budget,
            passthrough: p.passthrough.unwrap_or(12_000),
        };
        let key = self.key(&target, chunk_budget, unit);
        let base = self.roots.get(target.root);
        let (selection, _) = self
            .cache
            .with_files(key, base, &target, |files| select(files, &query, unit.sizer()))
            .map_err(|e| format!("{e} (chunk budget {chunk_budget}, from budget {budget})"))?;
        let query_type = serde_json::to_value(selection.query_type)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(SelectResult {
            root,
            path: target.rel,
            text: render_passages(&selection.passages),
            passages: selection.passages.iter().map(PassageInfo::from).collect(),
            query_type,
            strategy: selection.strategy,
            candidates: selection.candidates,
            left_out: selection.left_out,
            size: selection.size,
            budget,
            chunk_budget,
            unit: unit.to_string(),
        })
    }

    /// The `read` tool.
    pub fn read(&self, p: &ReadParams) -> Result<ReadResult, String> {
        let (target, root) = self.locate(&p.path)?;
        if p.ids.is_empty() {
            return Err("ids is empty: give chunk ids from outline, select or segment".to_owned());
        }
        if let Some(id) = p.ids.iter().find(|id| id.chars().count() < 4) {
            return Err(format!("id {id:?}: give at least 4 characters"));
        }
        let unit = unit_of(p.unit, p.tokenizer);
        let budget = p.budget.unwrap_or(DEFAULT_READ_BUDGET);
        let key = self.key(&target, p.chunk_budget.unwrap_or(DEFAULT_CHUNK_BUDGET), unit);
        let base = self.roots.get(target.root);
        let (reading, _) = self.cache.with_files(key, base, &target, |files| {
            read_ids(files, &p.ids, budget, unit.sizer())
        })?;
        Ok(ReadResult {
            root,
            path: target.rel,
            text: render_passages(&reading.passages),
            passages: reading.passages.iter().map(PassageInfo::from).collect(),
            not_found: reading.not_found,
            did_not_fit: reading.did_not_fit,
            size: reading.size,
            budget,
            unit: unit.to_string(),
        })
    }

    /// The `segment` tool.
    pub fn segment(&self, p: &SegmentParams) -> Result<SegmentResult, String> {
        let (target, root) = self.locate(&p.path)?;
        let unit = unit_of(p.unit, p.tokenizer);
        let limit = p.limit.unwrap_or(DEFAULT_SEGMENT_LIMIT);
        if limit == 0 || limit > MAX_SEGMENT_LIMIT {
            return Err(format!("limit {limit}: give 1 to {MAX_SEGMENT_LIMIT}"));
        }
        let key = self.key(&target, p.chunk_budget.unwrap_or(DEFAULT_CHUNK_BUDGET), unit);
        let base = self.roots.get(target.root);
        let (res, _) = self.cache.with_files(key, base, &target, |files| {
            let chunks: Vec<_> = files.iter().flat_map(|f| &f.chunks).collect();
            let print = fingerprint(chunks.iter().map(|c| c.id.as_str()));
            let offset = parse_cursor(p.cursor.as_deref(), print)?;
            let mut records = Vec::new();
            let mut bytes = 0;
            let mut note = None;
            for chunk in chunks.iter().skip(offset).take(limit) {
                let record = serde_json::to_value(chunk).map_err(|e| e.to_string())?;
                let size = record.to_string().len();
                if !records.is_empty() && bytes + size > MAX_SEGMENT_BYTES {
                    note = Some(format!(
                        "page cut at {} records: their JSON reached {MAX_SEGMENT_BYTES} bytes; \
                         next_cursor goes on",
                        records.len()
                    ));
                    break;
                }
                bytes += size;
                records.push(record);
            }
            let end = offset + records.len();
            let mut skipped = Vec::new();
            if offset == 0 {
                let all = files.iter().filter_map(|f| match &f.outcome {
                    Outcome::Skipped { reason } => {
                        Some(SkippedFile { path: f.rel.clone(), reason: reason.to_string() })
                    }
                    _ => None,
                });
                skipped.extend(all);
                if skipped.len() > MAX_SKIPPED {
                    let n = skipped.len() - MAX_SKIPPED;
                    skipped.truncate(MAX_SKIPPED);
                    let more = format!("{n} more skipped files not listed");
                    note = Some(note.map_or(more.clone(), |n| format!("{n}; {more}")));
                }
            }
            Ok(SegmentResult {
                root,
                path: target.rel.clone(),
                records,
                offset,
                total: chunks.len(),
                files: files.len(),
                skipped,
                note,
                next_cursor: (end < chunks.len()).then(|| cursor(end, print)),
            })
        })?;
        res
    }
}

/// The outline `head` plus as much of `page` (files from `offset` on) as fits `budget`: every
/// file with the most important entries that fit (`ranked`: positions in `page`, most
/// important first, each after the entries enclosing it), else files alone, paged.
fn fit_outline(
    head: OutlineResult,
    page: Vec<FileOutline>,
    ranked: impl FnOnce() -> Vec<(usize, usize)>,
    offset: usize,
    budget: usize,
    sizer: &dyn ChunkSizer,
    print: u64,
) -> Result<OutlineResult, String> {
    let total_entries: usize = page.iter().map(|f| f.entries.len()).sum();
    let with_first = |files: &[FileOutline], ranked: &[(usize, usize)], k: usize| {
        let entries: Vec<usize> = files.iter().map(|f| f.entries.len()).collect();
        let keep = first_ranked(&entries, ranked, k, |f| f < files.len());
        files
            .iter()
            .zip(keep)
            .map(|(f, keep)| {
                let mut f = f.clone();
                let mut kept = keep.into_iter();
                f.entries.retain(|_| kept.next().unwrap_or(false));
                f
            })
            .collect::<Vec<FileOutline>>()
    };
    // Files alone, counted one by one: past the first that would overflow the budget no
    // entries can fit, so the rest wait for the next page.
    let mut fits = page.len();
    let mut used = json_size(&head, sizer);
    for (i, file) in with_first(&page, &[], 0).iter().enumerate() {
        used = used.saturating_add(json_size(file, sizer) + 1);
        if used > budget {
            fits = i;
            break;
        }
    }
    if fits == page.len() {
        // Ranked only now: a page of files alone needs no ranking.
        let ranked = ranked();
        let answer = |k: usize| {
            let files = with_first(&page, &ranked, k);
            let kept: usize = files.iter().map(|f| f.entries.len()).sum();
            let mut out = OutlineResult { files, ..clone_head(&head) };
            if kept < total_entries {
                out.left_out_entries = total_entries - kept;
                out.note = Some(format!(
                    "{} of {total_entries} entries left out, the least important first \
                     ({LEFT_OUT_FIRST}): a larger budget, or a narrower path, shows them",
                    total_entries - kept
                ));
            }
            out
        };
        if json_size(&answer(0), sizer) <= budget {
            // Every k tried is measured; only a k that fits is returned.
            let k = largest_fitting(ranked.len(), |k| json_size(&answer(k), sizer) <= budget);
            return Ok(answer(k));
        }
        fits = page.len().saturating_sub(1);
    }
    // Files alone do not all fit: as many as do, and a cursor for the rest. Sizes measured one
    // file at a time can miss by the separators, so the whole page is measured again.
    let mut files = with_first(&page[..fits], &[], 0);
    loop {
        let n = files.len();
        if n == 0 {
            return Err(format!(
                "budget {budget} is too small for the outline of even one file: give a larger \
                 budget"
            ));
        }
        let out = OutlineResult {
            left_out_entries: total_entries,
            note: Some(format!(
                "files {}–{} of {}, without their entries (the budget does not hold more); \
                 next_cursor goes on, and an outline of a single folder or file shows entries",
                offset + 1,
                offset + n,
                head.total_files
            )),
            next_cursor: Some(cursor(offset + n, print)),
            files: std::mem::take(&mut files),
            ..clone_head(&head)
        };
        if json_size(&out, sizer) <= budget {
            return Ok(out);
        }
        files = out.files;
        files.pop();
    }
}

fn clone_head(head: &OutlineResult) -> OutlineResult {
    OutlineResult {
        root: head.root.clone(),
        path: head.path.clone(),
        files: Vec::new(),
        total_files: head.total_files,
        left_out_entries: 0,
        note: None,
        next_cursor: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(root: &Path) -> State {
        State {
            roots: Roots::new(&[root.to_owned()]).expect("roots"),
            cache: Cache::new(1, 1 << 20).expect("cache"),
        }
    }

    /// `select` arguments with every option left to its default.
    fn select_params(path: &str, query: &str) -> SelectParams {
        SelectParams {
            path: path.into(),
            query: query.into(),
            budget: None,
            query_type: None,
            keywords: None,
            max_segments: None,
            passthrough: None,
            chunk_budget: None,
            unit: None,
            tokenizer: None,
        }
    }

    fn tree() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path();
        std::fs::create_dir(root.join("docs")).expect("mkdir");
        let mut guide = String::from("# Guide\n\nIntro.\n\n");
        for i in 0..12 {
            guide.push_str(&format!("## Part {i}\n\nText of part {i}, $x^{i}$.\n\n"));
            let zebra = if i == 7 { ", where the zebra lives" } else { "" };
            guide.push_str(&format!("### Detail {i}\n\nMore about {i}{zebra}.\n\n"));
        }
        std::fs::write(root.join("docs/guide.md"), guide).expect("write");
        for i in 0..30 {
            let code = format!("class C{i}:\n    def run(self):\n        return {i}\n");
            std::fs::write(root.join(format!("m{i:02}.py")), code).expect("write");
        }
        std::fs::write(root.join("empty.txt"), "").expect("write");
        tmp
    }

    fn outline_params(path: &str, budget: usize, cursor: Option<String>) -> OutlineParams {
        OutlineParams {
            path: path.into(),
            budget: Some(budget),
            cursor,
            chunk_budget: None,
            unit: None,
            tokenizer: None,
        }
    }

    #[test]
    fn records_are_the_cli_json_and_the_schema_names_every_field() {
        let tmp = tree();
        let st = state(tmp.path());
        let p = |cursor| SegmentParams {
            path: ".".into(),
            chunk_budget: Some(200),
            unit: None,
            tokenizer: None,
            cursor,
            limit: Some(MAX_SEGMENT_LIMIT),
        };
        let page = st.segment(&p(None)).expect("segment");
        assert!(page.records.len() > 30 && page.next_cursor.is_none(), "{}", page.records.len());
        assert_eq!(page.skipped.len(), 1, "the empty file is listed as skipped");
        let schema = rmcp::handler::server::tool::schema_for_output::<SegmentResult>();
        let items = &schema["properties"]["records"]["items"];
        let props = items["properties"].as_object().expect("record properties");
        let required: Vec<&str> = items["required"]
            .as_array()
            .expect("required")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        for rec in &page.records {
            let rec = rec.as_object().expect("a record is an object");
            for key in rec.keys() {
                assert!(props.contains_key(key), "field {key} is missing from the schema");
                seen.insert(key.clone());
            }
            for key in &required {
                assert!(rec.contains_key(*key), "required field {key} missing");
            }
        }
        assert!(seen.contains("provenance") && seen.contains("classification"), "{seen:?}");
        // Each record is byte for byte what `cleave chunk` writes for it.
        let st2 = state(tmp.path());
        let files = st2
            .cache
            .with_files(
                Key { root: 0, chunk_budget: 200, unit: Unit::Chars },
                st2.roots.get(0),
                &st2.roots.resolve(".").expect("root"),
                |files| files.iter().flat_map(|f| f.chunks.clone()).collect::<Vec<_>>(),
            )
            .expect("files")
            .0;
        for (rec, chunk) in page.records.iter().zip(&files) {
            let mut line = Vec::new();
            cleave_engine::write_chunk(&mut line, chunk).expect("record");
            let written: serde_json::Value = serde_json::from_slice(&line).expect("json");
            assert_eq!(rec, &written);
        }
        // Pages of 7 give the same records, each once.
        let (mut cursor, mut ids) = (None, Vec::new());
        loop {
            let mut q = p(cursor.take());
            q.limit = Some(7);
            let page = st.segment(&q).expect("page");
            ids.extend(page.records.iter().map(|r| r["id"].clone()));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let all: Vec<_> = files.iter().map(|c| serde_json::Value::from(c.id.clone())).collect();
        assert_eq!(ids, all);
    }

    #[test]
    fn outlines_fit_their_budget_and_page_through_every_file() {
        let tmp = tree();
        let st = state(tmp.path());
        let whole = st.outline(&outline_params(".", 1 << 30, None)).expect("whole");
        assert_eq!(whole.total_files, 32);
        assert!(whole.note.is_none() && whole.next_cursor.is_none());
        let guide = whole.files.iter().find(|f| f.path == "docs/guide.md").expect("guide");
        assert!(guide.entries.iter().any(|e| e.number.as_deref() == Some("1.12.1")));

        // The least important entries go first: here the deepest sections, and a kept section
        // always comes with the section that holds it.
        let size = |o: &OutlineResult| serde_json::to_string(o).expect("json").chars().count();
        let one = st.outline(&outline_params("docs/guide.md", 2500, None)).expect("one file");
        assert!(size(&one) <= 2500, "{}", size(&one));
        assert!(one.left_out_entries > 0 && one.note.is_some());
        let kept = &one.files[0].entries;
        let all = &guide.entries;
        assert_eq!(kept.len() + one.left_out_entries, all.len());
        let shallow = all.iter().filter(|e| e.depth < 2).count();
        assert!(kept.iter().filter(|e| e.depth < 2).count() == shallow, "{kept:?}");
        for e in kept.iter().filter(|e| e.depth == 2) {
            let parent = e.name.rsplit_once(" > ").map(|(p, _)| p).expect("nested");
            assert!(kept.iter().any(|p| p.name == parent), "{} without its section", e.name);
        }

        // Files alone, paged: every file once, every page within the budget.
        let (mut cursor, mut seen) = (None, Vec::new());
        loop {
            let page = st.outline(&outline_params(".", 1500, cursor.take())).expect("page");
            assert!(size(&page) <= 1500, "{}", size(&page));
            seen.extend(page.files.iter().map(|f| f.path.clone()));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let all: Vec<String> = whole.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(seen, all);

        // A cursor from before a change is refused, as is a budget that holds no file.
        let page = st.outline(&outline_params(".", 1500, None)).expect("page");
        std::fs::write(tmp.path().join("new.py"), "x = 1\n").expect("write");
        let err = st.outline(&outline_params(".", 1500, page.next_cursor)).expect_err("stale");
        assert!(err.contains("earlier state"), "{err}");
        let err = st.outline(&outline_params(".", 150, None)).expect_err("tiny");
        assert!(err.contains("too small"), "{err}");
    }

    #[test]
    fn select_and_read_stay_within_their_budgets() {
        let tmp = tree();
        let st = state(tmp.path());
        let p =
            SelectParams { budget: Some(300), ..select_params(".", "where does the zebra live") };
        let sel = st.select(&p).expect("select");
        assert!(!sel.passages.is_empty() && sel.size <= 300 && sel.text.chars().count() <= 300);
        assert!(sel.text.contains("More about 7, where the zebra lives."), "{}", sel.text);
        let ids: Vec<String> = sel.passages.iter().map(|p| p.id.clone()).collect();
        let r = ReadParams {
            path: "docs".into(),
            ids: ids.clone(),
            budget: Some(300),
            chunk_budget: Some(200),
            unit: None,
            tokenizer: None,
        };
        let got = st.read(&r).expect("read");
        assert_eq!(got.passages.iter().map(|p| p.id.clone()).collect::<Vec<_>>(), ids);
        let err = st.read(&ReadParams { ids: vec!["abc".into()], ..r }).expect_err("short id");
        assert!(err.contains("4 characters"), "{err}");
    }

    #[test]
    fn hidden_ignored_and_version_control_paths_are_refused() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path();
        std::fs::create_dir_all(root.join(".git")).expect("mkdir");
        std::fs::create_dir_all(root.join("target")).expect("mkdir");
        std::fs::write(root.join(".gitignore"), "target\n").expect("write");
        std::fs::write(root.join(".env"), "API_KEY=supersecret\n").expect("write");
        std::fs::write(root.join(".git/config"), "[remote]\ntoken = hunter2\n").expect("write");
        std::fs::write(root.join("target/out.txt"), "ignored output\n").expect("write");
        std::fs::write(root.join("app.py"), "def main():\n    pass\n").expect("write");
        // A cleave cache, known by its tag file.
        std::fs::create_dir_all(root.join("cache")).expect("mkdir");
        std::fs::write(root.join("cache/CLEAVE-CACHE"), "cleave cache v1\n").expect("write");
        std::fs::write(root.join("cache/notes.md"), "# Cached\n").expect("write");
        let st = state(root);
        let select = |path: &str| select_params(path, "api key token");
        let segment = |path: &str| SegmentParams {
            path: path.into(),
            chunk_budget: None,
            unit: None,
            tokenizer: None,
            cursor: None,
            limit: None,
        };
        let read = |path: &str| ReadParams {
            path: path.into(),
            ids: vec!["abcd".into()],
            budget: None,
            chunk_budget: None,
            unit: None,
            tokenizer: None,
        };

        let err = st.select(&select(".env")).expect_err(".env");
        assert_eq!(
            err,
            "path \".env\" is hidden: the server leaves hidden, ignored and version-control files out"
        );
        let err = st.segment(&segment(".git/config")).expect_err(".git/config");
        assert!(err.contains("version-control data") && !err.contains("hunter2"), "{err}");
        let err = st.outline(&outline_params(".git", 16_000, None)).expect_err(".git");
        assert!(err.contains("version-control data"), "{err}");
        let err = st.segment(&segment("target/out.txt")).expect_err("ignored file");
        assert!(err.contains("is ignored"), "{err}");
        let err = st.outline(&outline_params("target", 16_000, None)).expect_err("ignored folder");
        assert!(err.contains("is ignored"), "{err}");
        let err = st.segment(&segment("cache/notes.md")).expect_err("cache");
        assert!(err.contains("is an output of cleave"), "{err}");
        let err = st.read(&read("./.env")).expect_err("read .env");
        assert!(err.contains("(.env) is hidden"), "{err}");
        let abs = root.join(".env").to_string_lossy().into_owned();
        assert!(st.select(&select(&abs)).expect_err("absolute").contains("is hidden"));

        // A normal file, and the root, still answer; the root's walk leaves the rest out.
        let page = st.segment(&segment("app.py")).expect("normal file");
        assert_eq!(page.records.len(), 1);
        assert!(page.records[0]["text"].as_str().is_some_and(|t| t.contains("def main")));
        let whole = st.outline(&outline_params(".", 16_000, None)).expect("root");
        let paths: Vec<&str> = whole.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["app.py"]);
        assert!(st.outline(&outline_params("", 16_000, None)).is_ok());
        let sel = st.select(&select(".")).expect("root select");
        assert!(!sel.text.contains("supersecret") && !sel.text.contains("hunter2"), "{}", sel.text);
        #[cfg(unix)]
        {
            // A visible link to a hidden file is refused by what it leads to.
            std::os::unix::fs::symlink(root.join(".env"), root.join("env.txt")).expect("link");
            let err = st.select(&select("env.txt")).expect_err("link to .env");
            assert!(err.contains("\"env.txt\" (.env) is hidden"), "{err}");
        }
    }
}
