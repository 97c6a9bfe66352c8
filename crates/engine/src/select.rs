//! Choosing what a question needs: chunks ranked by BM25F over their body, header, symbols and
//! section path with a code-aware tokenizer, plus structural priors for the kind of question,
//! then chosen whole under a total budget, put back in reading order, and rendered as passages
//! tagged with where they come from. Built from the per-file results: it never chunks again.

use std::collections::HashMap;
use std::fmt::Write as _;

use cleave_core::{Chunk, ChunkSizer, ContentKind};
use serde::Serialize;

use crate::file::FileResult;
use crate::terms::{ChunkTerms, term_hash, terms};

/// What kind of question a selection answers; it decides the structural priors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryType {
    /// What something is or why: overview sections first (abstract, introduction, summary…).
    Concept,
    /// How something is computed: algorithms, proofs, definitions and formulas first.
    Algorithm,
    /// How to implement or change something: code and implementation sections first.
    Code,
}

impl QueryType {
    /// The kind of question `query` most likely is.
    pub fn guess(query: &str) -> Self {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let has = |list: &[&str]| words.iter().any(|w| list.iter().any(|k| w.starts_with(k)));
        if has(&[
            "algorithm",
            "proof",
            "prove",
            "theorem",
            "lemma",
            "formula",
            "equation",
            "derive",
            "complexity",
        ]) {
            return QueryType::Algorithm;
        }
        let identifier = query
            .split_whitespace()
            .any(|w| w.contains('_') || w.contains("::") || w.contains("()") || is_camel(w));
        if identifier
            || has(&[
                "function",
                "method",
                "class",
                "implement",
                "code",
                "api",
                "call",
                "struct",
                "module",
            ])
        {
            return QueryType::Code;
        }
        QueryType::Concept
    }
}

fn is_camel(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_alphabetic)
        && word.chars().skip(1).any(char::is_uppercase)
        && word.chars().any(char::is_lowercase)
}

/// What to select.
#[derive(Debug, Clone)]
pub struct Query {
    /// The question, in words.
    pub text: String,
    /// Extra terms that must weigh more than the question's own words.
    pub keywords: Vec<String>,
    /// The kind of question (guessed from the text when not given).
    pub kind: QueryType,
    /// Most passages to return.
    pub max_segments: usize,
    /// The most units the whole rendered selection may take.
    pub budget: usize,
    /// A single file whose text takes at most this many units is returned whole when it fits.
    pub passthrough: usize,
}

/// One passage of a selection.
#[derive(Debug, Clone, Serialize)]
pub struct Passage {
    /// The chunk's record.
    pub chunk: Chunk,
    /// Its title: the innermost section or symbol it lies in, or its path.
    pub title: String,
    /// The provenance tag that heads it.
    pub tag: String,
    /// Its ranking score (0 for a file passed through whole).
    pub score: f64,
}

/// A selection: passages in reading order, what was considered, and how.
#[derive(Debug, Clone, Serialize)]
pub struct Selection {
    /// The chosen passages, in reading order.
    pub passages: Vec<Passage>,
    /// The kind of question the priors assumed.
    pub query_type: QueryType,
    /// Per file chosen from, the document type the engine saw, if any.
    pub strategy: String,
    /// Chunks ranked.
    pub candidates: usize,
    /// Chunks that scored but did not fit the budget or the segment limit.
    pub left_out: usize,
    /// Size of the rendered selection in the run's unit.
    pub size: usize,
}

/// Section titles an overview question reads first, sorted.
const OVERVIEW_SECTIONS: &[&str] = &[
    "abstract",
    "conclusion",
    "conclusions",
    "discussion",
    "introduction",
    "overview",
    "results",
    "summary",
];

/// Ranks the chunks of `files` for `query` and chooses passages within its budget, measured
/// with `sizer` on the whole rendered selection.
pub fn select(files: &[FileResult], query: &Query, sizer: &dyn ChunkSizer) -> Selection {
    let chunks: Vec<&Chunk> = files.iter().flat_map(|f| &f.chunks).collect();
    let strategy = strategy(files.iter().map(|f| f.doc_class.as_ref()), query.kind);
    // A single small file is its own best answer.
    if let [file] = files
        && !file.chunks.is_empty()
    {
        let passages: Vec<Passage> = file.chunks.iter().map(|c| passage(c, 0.0)).collect();
        let text: String = file.chunks.iter().map(|c| c.text.as_str()).collect();
        if sizer.size(&text) <= query.passthrough {
            let size = sizer.size(&render(&passages));
            if size <= query.budget {
                return Selection {
                    passages,
                    query_type: query.kind,
                    strategy,
                    candidates: chunks.len(),
                    left_out: 0,
                    size,
                };
            }
        }
    }
    {
        use rayon::prelude::*;
        files.par_iter().for_each(|f| {
            f.chunk_terms();
        });
    }
    let stats: Vec<&ChunkTerms> = files.iter().flat_map(|f| f.chunk_terms()).collect();
    let ranked = InMemory { stats: &stats, chunks: &chunks };
    let scores = score(&ranked, query);
    let chosen = choose(&scores, query, sizer, |i| Some(chunks[i].clone()));
    let (passages, left_out, size) = chosen.unwrap_or_default();
    Selection {
        passages,
        query_type: query.kind,
        strategy,
        candidates: chunks.len(),
        left_out,
        size,
    }
}

/// What ranking needs of the chunks of a root, in reading order: from the files in memory, or
/// from an index on disk (`crate::index`), which gives the same scores.
pub(crate) trait Ranked {
    /// How many chunks there are.
    fn len(&self) -> usize;
    /// The sum of the chunks' weighted lengths, added in chunk order.
    fn total_len(&self) -> f64;
    /// The weighted length of chunk `i`.
    fn chunk_len(&self, i: usize) -> f32;
    /// Calls `f(chunk, tf)` for every chunk holding the term hashed as `hash`, in chunk order.
    fn postings(&self, hash: u64, f: &mut dyn FnMut(usize, f32));
    /// What the structural priors need of chunk `i`.
    fn traits(&self, i: usize) -> Traits;
}

struct InMemory<'a> {
    stats: &'a [&'a ChunkTerms],
    chunks: &'a [&'a Chunk],
}

impl Ranked for InMemory<'_> {
    fn len(&self) -> usize {
        self.stats.len()
    }
    fn total_len(&self) -> f64 {
        self.stats.iter().map(|st| f64::from(st.len())).sum()
    }
    fn chunk_len(&self, i: usize) -> f32 {
        self.stats[i].len()
    }
    fn postings(&self, hash: u64, f: &mut dyn FnMut(usize, f32)) {
        for (i, st) in self.stats.iter().enumerate() {
            if let Some(tf) = st.tf(hash) {
                f(i, tf);
            }
        }
    }
    fn traits(&self, i: usize) -> Traits {
        Traits::of(self.chunks[i])
    }
}

/// Greedy by score: each passage is measured alone, and the whole selection exactly at the
/// end (a BPE count of joined passages can differ by a token at a seam), dropping the
/// lowest-scored passage until it fits. `chunk(i)` gives a ranked chunk's record; `None` when
/// one cannot be had (an index entry that no longer loads), and then no selection.
pub(crate) fn choose(
    scores: &[f64],
    query: &Query,
    sizer: &dyn ChunkSizer,
    mut chunk: impl FnMut(usize) -> Option<Chunk>,
) -> Option<(Vec<Passage>, usize, usize)> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut chosen: Vec<(usize, Passage)> = Vec::new();
    let mut used = 0;
    let mut left_out = 0;
    let mut misfits = 0;
    for &i in order.iter().take(MAX_CANDIDATES) {
        // Once the selection is full, the rest are left out unmeasured: rendering and
        // measuring two thousand passages dominated a warm query. So once MAX_MISFITS
        // candidates in a row did not fit the room left: what little room remains is not
        // worth loading hundreds of files' records to fill (an indexed selection on a 25 MB
        // repository read 511 files for one query that way).
        if chosen.len() >= query.max_segments || used >= query.budget || misfits >= MAX_MISFITS {
            left_out += 1;
            continue;
        }
        let candidate = Passage::new(&chunk(i)?, scores[i]);
        let size = sizer.size(&render(std::slice::from_ref(&candidate)));
        if used + size <= query.budget {
            chosen.push((i, candidate));
            used += size;
            misfits = 0;
        } else {
            left_out += 1;
            misfits += usize::from(!chosen.is_empty());
        }
    }
    left_out += order.len().saturating_sub(MAX_CANDIDATES);
    chosen.sort_unstable_by_key(|c| c.0);
    let mut passages: Vec<Passage> = chosen.into_iter().map(|c| c.1).collect();
    loop {
        let size = sizer.size(&render(&passages));
        if size <= query.budget || passages.is_empty() {
            return Some((passages, left_out, size));
        }
        let worst = (0..passages.len())
            .min_by(|&a, &b| passages[a].score.total_cmp(&passages[b].score))
            .unwrap_or(0);
        passages.remove(worst);
        left_out += 1;
    }
}

/// The most ranked chunks a selection considers: past them, scores are too low to matter.
const MAX_CANDIDATES: usize = 2000;

/// How many candidates in a row may fail to fit the room a non-empty selection has left
/// before the rest are left out unmeasured.
const MAX_MISFITS: usize = 64;

/// What the selection says it assumed: the kind of question and the document types of the
/// files it chose from.
pub(crate) fn strategy<'a>(
    classes: impl Iterator<Item = Option<&'a (String, f32)>>,
    kind: QueryType,
) -> String {
    let mut types: Vec<&str> = classes.filter_map(|c| c.map(|c| c.0.as_str())).collect();
    types.sort_unstable();
    types.dedup();
    let kind = match kind {
        QueryType::Concept => "concept",
        QueryType::Algorithm => "algorithm",
        QueryType::Code => "code",
    };
    if types.is_empty() {
        format!("{kind} question")
    } else {
        format!("{kind} question over {}", types.join(", "))
    }
}

/// The query's terms, sorted, with their weights: the question's words once, keywords twice.
fn query_terms(query: &Query) -> Vec<(String, f64)> {
    let mut weights: HashMap<String, f64> = HashMap::new();
    for t in terms(&query.text) {
        *weights.entry(t).or_insert(0.0) += 1.0;
    }
    for k in &query.keywords {
        for t in terms(k) {
            *weights.entry(t).or_insert(0.0) += 2.0;
        }
    }
    let mut out: Vec<(String, f64)> = weights.into_iter().collect();
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    out
}

/// BM25F scores of every chunk, in order, times the structural prior of the query's kind.
pub(crate) fn score(ranked: &dyn Ranked, query: &Query) -> Vec<f64> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    let n = ranked.len();
    let query_terms = query_terms(query);
    let mut scores = vec![0.0; n];
    if query_terms.is_empty() || n == 0 {
        return scores;
    }
    let avg = (ranked.total_len() / n as f64).max(1.0);
    let mut postings: Vec<(usize, f32)> = Vec::new();
    for (term, weight) in &query_terms {
        postings.clear();
        ranked.postings(term_hash(term), &mut |i, tf| postings.push((i, tf)));
        let d = postings.len() as f64;
        let idf = ((n as f64 - d + 0.5) / (d + 0.5) + 1.0).ln();
        for &(i, tf) in &postings {
            let tf = f64::from(tf);
            let len = f64::from(ranked.chunk_len(i));
            let norm = tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg));
            scores[i] += weight * idf * norm;
        }
    }
    for (i, s) in scores.iter_mut().enumerate() {
        if *s > 0.0 {
            *s *= ranked.traits(i).prior(query.kind);
        }
    }
    scores
}

/// What the structural priors need to know of a chunk, in one byte (an index keeps it beside
/// the chunk's terms).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Traits(u8);

impl Traits {
    const OVERVIEW: u8 = 1;
    const ALGORITHMIC: u8 = 2;
    const MATH: u8 = 4;
    const CODE: u8 = 8;

    pub(crate) fn of(chunk: &Chunk) -> Self {
        let class = chunk.classification.as_ref();
        let content = class.map(|c| c.content_type.as_str()).unwrap_or("");
        let overview = chunk.provenance.as_ref().is_some_and(|p| {
            p.section.iter().any(|s| {
                let s = s
                    .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
                    .to_lowercase();
                OVERVIEW_SECTIONS.binary_search(&s.as_str()).is_ok()
            })
        });
        let algorithmic =
            matches!(content, "algorithm" | "proof" | "definition" | "theory" | "calculation");
        let math = class.is_some_and(|c| c.has_math);
        let code = chunk.kind == ContentKind::Code || class.is_some_and(|c| c.has_code);
        let bit = |on: bool, b: u8| if on { b } else { 0 };
        Self(
            bit(overview, Self::OVERVIEW)
                | bit(algorithmic, Self::ALGORITHMIC)
                | bit(math, Self::MATH)
                | bit(code, Self::CODE),
        )
    }

    pub(crate) fn bits(self) -> u8 {
        self.0
    }

    pub(crate) fn from_bits(bits: u8) -> Self {
        Self(bits)
    }

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// How much a chunk's structure suits a kind of question.
    fn prior(self, kind: QueryType) -> f64 {
        match kind {
            QueryType::Concept if self.has(Self::OVERVIEW) => 1.3,
            QueryType::Algorithm if self.has(Self::ALGORITHMIC) => 1.4,
            QueryType::Algorithm if self.has(Self::MATH) => 1.2,
            QueryType::Code if self.has(Self::CODE) => 1.3,
            _ => 1.0,
        }
    }
}

fn passage(chunk: &Chunk, score: f64) -> Passage {
    Passage::new(chunk, score)
}

impl Passage {
    /// A passage of `chunk`, titled by its innermost section or symbol (or its path).
    pub fn new(chunk: &Chunk, score: f64) -> Self {
        let title = chunk
            .provenance
            .as_ref()
            .and_then(|p| p.section.last().cloned())
            .or_else(|| chunk.scope.last().cloned())
            .or_else(|| chunk.symbols.first().cloned())
            .unwrap_or_else(|| chunk.path.clone());
        Passage { tag: tag(chunk), title, chunk: chunk.clone(), score }
    }
}

/// The tag a passage carries in the text agents read: a document's provenance tag, or for code
/// `[source:PATH | L12–40 | class A > def b]`.
pub fn tag(chunk: &Chunk) -> String {
    if let Some(p) = &chunk.provenance {
        return p.tag.clone();
    }
    let mut tag = format!("[source:{} | L{}–{}", chunk.path, chunk.line_start, chunk.line_end);
    if !chunk.scope.is_empty() {
        let _ = write!(tag, " | {}", chunk.scope.join(" > "));
    }
    tag.push(']');
    tag
}

/// The text an agent reads: each passage under a line with its title and tag, then the chunk's
/// header and body.
pub fn render(passages: &[Passage]) -> String {
    let mut out = String::new();
    for p in passages {
        let _ = writeln!(out, "=== {} {} ===", p.title, p.tag);
        out.push_str(&p.chunk.header);
        out.push_str(&p.chunk.text);
        if !p.chunk.text.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Chunks read by id: what `cleave read` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Reading {
    /// The passages, in the order asked for.
    pub passages: Vec<Passage>,
    /// Ids that name no chunk, or more than one.
    pub not_found: Vec<String>,
    /// Ids whose chunk did not fit the budget after the ones before them.
    pub did_not_fit: Vec<String>,
    /// Size of the rendered passages.
    pub size: usize,
}

/// The chunks of `files` named by `ids` (full ids or unique prefixes), in the order given,
/// as long as the rendered passages stay within `budget` units of `sizer`.
pub fn read_ids(
    files: &[FileResult],
    ids: &[String],
    budget: usize,
    sizer: &dyn ChunkSizer,
) -> Reading {
    let chunks: Vec<&Chunk> = files.iter().flat_map(|f| &f.chunks).collect();
    let mut out =
        Reading { passages: Vec::new(), not_found: Vec::new(), did_not_fit: Vec::new(), size: 0 };
    for id in ids {
        let mut found = chunks.iter().filter(|c| !id.is_empty() && c.id.starts_with(id.as_str()));
        let (Some(chunk), None) = (found.next(), found.next()) else {
            out.not_found.push(id.clone());
            continue;
        };
        out.passages.push(Passage::new(chunk, 0.0));
        let size = sizer.size(&render(&out.passages));
        if size <= budget {
            out.size = size;
        } else {
            out.passages.pop();
            out.did_not_fit.push(id.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_tables_are_sorted() {
        assert!(OVERVIEW_SECTIONS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn query_types_are_guessed() {
        assert_eq!(QueryType::guess("what is the main algorithm?"), QueryType::Algorithm);
        assert_eq!(QueryType::guess("where is chunk_file called"), QueryType::Code);
        assert_eq!(QueryType::guess("why does the project exist"), QueryType::Concept);
    }
}
