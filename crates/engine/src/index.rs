//! A persistent index of a root, for the agent face: the cache (`crate::cache`: each file's
//! records, outline and notes, keyed by its bytes) plus one term index per root and settings,
//! so that a selection ranks every chunk without reading a record and loads only the few it
//! renders.
//!
//! `index_root` chunks through the cache and keeps each file's term statistics beside its entry
//! (`<key>.terms`): a re-index after an edit reads and chunks the changed files only, and takes
//! the others' statistics as stored. The term index then holds, for every walked file, its path,
//! the size, modified time and inode it had, its key and chunk count, and for every chunk its
//! weighted length and priors, with the postings of every term, in one checksummed file.
//!
//! A selection opens it only if it is current: the walk of the root must find the same files
//! with the same stats, in the same order; anything else (an edit, a new or removed file,
//! another build or other settings, a broken file) is reported, never trusted.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use cleave_core::{Chunk, ChunkSizer};
use serde::{Deserialize, Serialize};

use crate::cache::{Cache, FileStat, write_atomic};
use crate::file::{Context, FileResult, Settings};
use crate::outcome::Outcome;
use crate::pipeline::run_ordered;
use crate::select::{Passage, Query, Ranked, Selection, Traits, choose, score, select, strategy};
use crate::terms::ChunkTerms;
use crate::tree::{Produced, chunk_input_cached, plan, walk_entries};
use crate::walk::{Input, WalkOptions};

const MAGIC: &[u8; 8] = b"CLEAVEIX";
/// Bumped whenever the terms a chunk is indexed by change (tokenizer, stemmer, fields), so
/// that an index written by an older build is rebuilt, never trusted.
const VERSION: u32 = 2;

/// What `index_root` did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexReport {
    /// Files walked (read or skipped).
    pub files: usize,
    /// Chunks indexed.
    pub chunks: usize,
    /// Files whose stored term statistics were taken as they were (unchanged since the last run).
    pub reused: usize,
    /// Files whose records came from the cache but whose statistics were computed again.
    pub loaded: usize,
    /// Files read and chunked in this run.
    pub chunked: usize,
    /// Files skipped (binary, too large, unreadable), with no chunks.
    pub skipped: usize,
    /// Files that could not be read: the index holds them as skipped.
    pub errors: usize,
    /// Bytes of the term index written.
    pub index_bytes: u64,
}

/// One walked file as the index remembers it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct IndexedFile {
    rel: String,
    stat: Option<FileStat>,
    key: Option<String>,
    chunks: u32,
    doc_class: Option<(String, f32)>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    fingerprint: String,
    total_len: f64,
    files: Vec<IndexedFile>,
}

/// A file's term statistics as stored beside its cache entry.
struct FileTerms {
    doc_class: Option<(String, f32)>,
    chunks: Vec<(ChunkTerms, Traits)>,
}

impl FileTerms {
    fn of(result: &FileResult) -> Self {
        Self {
            doc_class: result.doc_class.clone(),
            chunks: result.chunks.iter().map(|c| (ChunkTerms::of(c), Traits::of(c))).collect(),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let class = serde_json::to_vec(&self.doc_class).unwrap_or_else(|_| b"null".to_vec());
        put_u32(&mut out, class.len());
        out.extend_from_slice(&class);
        put_u32(&mut out, self.chunks.len());
        for (terms, traits) in &self.chunks {
            out.extend_from_slice(&terms.len().to_le_bytes());
            out.push(traits.bits());
            let pairs: Vec<(u64, f32)> = terms.pairs().collect();
            put_u32(&mut out, pairs.len());
            for (h, tf) in pairs {
                out.extend_from_slice(&h.to_le_bytes());
                out.extend_from_slice(&tf.to_le_bytes());
            }
        }
        out
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let mut r = Reader { bytes, at: 0 };
        let class_len = r.u32()? as usize;
        let doc_class = serde_json::from_slice(r.take(class_len)?).ok()?;
        let n = r.u32()? as usize;
        let mut chunks = Vec::with_capacity(n.min(bytes.len()));
        for _ in 0..n {
            let len = r.f32()?;
            let traits = Traits::from_bits(r.take(1)?[0]);
            let m = r.u32()? as usize;
            let mut hashes = Vec::with_capacity(m.min(bytes.len()));
            let mut tfs = Vec::with_capacity(m.min(bytes.len()));
            for _ in 0..m {
                hashes.push(r.u64()?);
                tfs.push(r.f32()?);
            }
            chunks.push((ChunkTerms::from_parts(hashes, tfs, len)?, traits));
        }
        (r.at == bytes.len()).then_some(Self { doc_class, chunks })
    }
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// Little-endian fields read in order from a byte slice; `None` past its end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn f32(&mut self) -> Option<f32> {
        Some(f32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// Chunks every file under `path` through the cache in `dir` (created if missing; refused if
/// it is something else) and writes the term index of the root. `settings` are taken with
/// outlines on: an index serves `outline` as well as `select` and `read`.
pub fn index_root(
    path: &Path,
    options: &WalkOptions,
    settings: &Settings,
    threads: usize,
    dir: &Path,
) -> io::Result<IndexReport> {
    let settings = settings.clone().with_outline(true);
    let cache = Cache::open(dir, path, &settings)?;
    let entries = walk_entries(path, options)?;
    let pool = crate::pipeline::worker_pool(threads).map_err(io::Error::other)?;
    let mut report = IndexReport::default();
    let mut files: Vec<(IndexedFile, FileTerms)> = Vec::with_capacity(entries.len());
    let res: Result<(), std::convert::Infallible> = run_ordered(
        &pool,
        &entries,
        plan(&pool, &entries),
        Context::new,
        |ctx, input| index_one(input, &settings, ctx, &cache),
        |(file, terms, how)| {
            report.files += 1;
            report.chunks += terms.chunks.len();
            match how {
                How::Reused => report.reused += 1,
                How::Loaded => report.loaded += 1,
                How::Chunked => report.chunked += 1,
                How::Skipped { error } => {
                    report.skipped += 1;
                    report.errors += usize::from(error);
                }
            }
            files.push((file, terms));
            Ok(())
        },
    );
    if let Err(never) = res {
        match never {}
    }
    let bytes = encode_index(cache.fingerprint(), &files);
    report.index_bytes = bytes.len() as u64;
    write_atomic(cache.index_path(), &bytes)?;
    cache.finish()?;
    Ok(report)
}

enum How {
    Reused,
    Loaded,
    Chunked,
    Skipped { error: bool },
}

fn index_one(
    input: &Input,
    settings: &Settings,
    ctx: &mut Context,
    cache: &Cache,
) -> (IndexedFile, FileTerms, How) {
    // The stat is taken before anything is read: an edit after it shows on the next run.
    let stat = if input.skip.is_some() { None } else { cache.stat(input) };
    let file = |key: Option<String>, terms: &FileTerms| IndexedFile {
        rel: input.rel.clone(),
        stat,
        key,
        chunks: u32::try_from(terms.chunks.len()).unwrap_or(u32::MAX),
        doc_class: terms.doc_class.clone(),
    };
    if let Some(stat) = &stat
        && let Some(key) = cache.key_by_stat(input, stat)
        && let Some(terms) = cache.load_terms(&key).and_then(|b| FileTerms::decode(&b))
    {
        cache.remember(input, stat, &key);
        return (file(Some(key), &terms), terms, How::Reused);
    }
    let (result, how) = match chunk_input_cached(input, settings, ctx, cache) {
        Produced::Cached(cached) => match cached.into_result() {
            Ok(result) => (result, How::Loaded),
            Err(_) => {
                let result = crate::tree::chunk_input(input, settings, ctx);
                (result, How::Chunked)
            }
        },
        Produced::Fresh(result) => (result, How::Chunked),
    };
    if let Outcome::Skipped { reason } = &result.outcome {
        let terms = FileTerms { doc_class: None, chunks: Vec::new() };
        return (file(None, &terms), terms, How::Skipped { error: reason.is_error() });
    }
    let terms = FileTerms::of(&result);
    let key = cache.remembered(&input.rel);
    if let Some(key) = &key {
        // A failed store only costs the next run time.
        let _ = cache.store_terms(key, &terms.encode());
    }
    (file(key, &terms), terms, how)
}

/// The term index: a head, the metadata as JSON, per chunk its weighted length and priors,
/// the term table (hash, first posting, count) sorted by hash, the postings (chunk, weighted
/// frequency) in chunk order per term, and a checksum of all of it.
fn encode_index(fingerprint: &str, files: &[(IndexedFile, FileTerms)]) -> Vec<u8> {
    let chunks: Vec<&(ChunkTerms, Traits)> = files.iter().flat_map(|f| &f.1.chunks).collect();
    let total_len = chunks.iter().map(|c| f64::from(c.0.len())).sum();
    let meta = Meta {
        fingerprint: fingerprint.to_owned(),
        total_len,
        files: files.iter().map(|f| f.0.clone()).collect(),
    };
    let mut postings: Vec<(u64, u32, f32)> = Vec::new();
    for (i, (terms, _)) in chunks.iter().enumerate() {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        postings.extend(terms.pairs().map(|(h, tf)| (h, i, tf)));
    }
    postings.sort_unstable_by_key(|p| (p.0, p.1));
    let mut out = Vec::with_capacity(64 + postings.len() * 8);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    let meta = serde_json::to_vec(&meta).unwrap_or_default();
    out.extend_from_slice(&(meta.len() as u64).to_le_bytes());
    out.extend_from_slice(&meta);
    put_u32(&mut out, chunks.len());
    for (terms, _) in &chunks {
        out.extend_from_slice(&terms.len().to_le_bytes());
    }
    out.extend(chunks.iter().map(|c| c.1.bits()));
    let mut table: Vec<(u64, u32, u32)> = Vec::new();
    for (at, p) in postings.iter().enumerate() {
        match table.last_mut() {
            Some(t) if t.0 == p.0 => t.2 += 1,
            _ => table.push((p.0, at as u32, 1)),
        }
    }
    put_u32(&mut out, table.len());
    for (h, start, count) in &table {
        out.extend_from_slice(&h.to_le_bytes());
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
    }
    put_u32(&mut out, postings.len());
    for (_, chunk, tf) in &postings {
        out.extend_from_slice(&chunk.to_le_bytes());
        out.extend_from_slice(&tf.to_le_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Why an index was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// No term index for this root and these settings (never indexed, or indexed with other
    /// settings or another build of cleave).
    Missing,
    /// The files changed since the index was written: how many differ.
    Stale {
        /// Files edited, added or removed.
        changed: usize,
    },
    /// The index file does not read back (truncated, damaged, another format).
    Broken,
}

/// An open, current term index of a root, with its cache.
pub struct TermIndex {
    cache: Cache,
    bytes: Vec<u8>,
    meta: Meta,
    /// First chunk of each file, and the total at the end.
    starts: Vec<usize>,
    lens_at: usize,
    traits_at: usize,
    table_at: usize,
    terms: usize,
    postings_at: usize,
}

impl std::fmt::Debug for TermIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TermIndex").field("files", &self.meta.files.len()).finish()
    }
}

impl TermIndex {
    /// Opens the index in `dir` of the root `path` under `settings` (outlines on, as
    /// `index_root` wrote it) if it is there, whole and current: the walk of `path` with
    /// `options` must find exactly the files it holds, unchanged.
    pub fn open(
        dir: &Path,
        path: &Path,
        options: &WalkOptions,
        settings: &Settings,
    ) -> io::Result<Result<Self, IndexState>> {
        Ok(Self::open_with(dir, path, options, settings, |_| ())?.map(|(index, ())| index))
    }

    /// [`TermIndex::open`], running `work` on the index while another thread walks the root
    /// to prove it current: the walk and the work overlap, and the work's result is handed
    /// back only when the walk finds the index current (else it is dropped, and the state
    /// says why). What a selection costs is then the longer of the two, not their sum.
    pub fn open_with<R: Send>(
        dir: &Path,
        path: &Path,
        options: &WalkOptions,
        settings: &Settings,
        work: impl FnOnce(&Self) -> R + Send,
    ) -> io::Result<Result<(Self, R), IndexState>> {
        if !crate::marks::is_cache_dir(dir) {
            return Ok(Err(IndexState::Missing));
        }
        let settings = settings.clone().with_outline(true);
        let cache = Cache::open_to_read(dir, path, &settings);
        let bytes = match std::fs::read(cache.index_path()) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Err(IndexState::Missing)),
            Err(e) => return Err(e),
        };
        let Some(index) = Self::parse(cache, bytes) else {
            return Ok(Err(IndexState::Broken));
        };
        let (changed, out) = std::thread::scope(|scope| {
            let check = scope.spawn(|| index.changed(path, options));
            let out = work(&index);
            let changed = check.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (changed, out)
        });
        Ok(match changed? {
            0 => Ok((index, out)),
            changed => Err(IndexState::Stale { changed }),
        })
    }

    /// How many files differ between the walk of `path` and the index: edited or added, then
    /// removed. (The walk's order is the index's: path order, so the same files are the same
    /// chunk numbering.)
    fn changed(&self, path: &Path, options: &WalkOptions) -> io::Result<usize> {
        let entries = walk_entries(path, options)?;
        let known: HashMap<&str, &IndexedFile> =
            self.meta.files.iter().map(|f| (f.rel.as_str(), f)).collect();
        let mut changed = 0;
        let mut seen = 0;
        for input in &entries {
            let same = known.get(input.rel.as_str()).is_some_and(|file| {
                seen += 1;
                match &input.skip {
                    Some(_) => file.stat.is_none(),
                    None => self.cache.stat(input).is_some_and(|s| Some(s) == file.stat),
                }
            });
            changed += usize::from(!same);
        }
        Ok(changed + self.meta.files.len() - seen)
    }

    fn parse(cache: Cache, bytes: Vec<u8>) -> Option<Self> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if u64::from_le_bytes(sum.try_into().ok()?) != xxhash_rust::xxh3::xxh3_64(body) {
            return None;
        }
        let mut r = Reader { bytes: body, at: 0 };
        if r.take(8)? != MAGIC || r.u32()? != VERSION {
            return None;
        }
        let meta_len = usize::try_from(r.u64()?).ok()?;
        let meta: Meta = serde_json::from_slice(r.take(meta_len)?).ok()?;
        if meta.fingerprint != cache.fingerprint() {
            return None;
        }
        let n = r.u32()? as usize;
        let lens_at = r.at;
        r.take(n.checked_mul(4)?)?;
        let traits_at = r.at;
        r.take(n)?;
        let terms = r.u32()? as usize;
        let table_at = r.at;
        r.take(terms.checked_mul(16)?)?;
        let postings = r.u32()? as usize;
        let postings_at = r.at;
        r.take(postings.checked_mul(8)?)?;
        if r.at != body.len() {
            return None;
        }
        let mut starts = Vec::with_capacity(meta.files.len() + 1);
        let mut total = 0usize;
        for f in &meta.files {
            starts.push(total);
            total += f.chunks as usize;
        }
        starts.push(total);
        if total != n {
            return None;
        }
        let index =
            Self { cache, bytes, meta, starts, lens_at, traits_at, table_at, terms, postings_at };
        // Every term's postings must lie in the postings: checked once here, trusted by the
        // lookups (which skip a posting that names no chunk).
        let table_in_range = (0..terms).all(|t| {
            let at = table_at + t * 16;
            let (start, count) = (index.u32_at(at + 8) as usize, index.u32_at(at + 12) as usize);
            start.checked_add(count).is_some_and(|end| end <= postings)
        });
        table_in_range.then_some(index)
    }

    fn u32_at(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap_or_default())
    }

    fn f32_at(&self, at: usize) -> f32 {
        f32::from_le_bytes(self.bytes[at..at + 4].try_into().unwrap_or_default())
    }

    fn u64_at(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.bytes[at..at + 8].try_into().unwrap_or_default())
    }

    /// How many files and chunks the index holds.
    pub fn size(&self) -> (usize, usize) {
        (self.meta.files.len(), self.starts.last().copied().unwrap_or(0))
    }

    /// The records of file `f`, from the cache.
    fn records(&self, f: usize) -> Option<FileResult> {
        let key = self.meta.files.get(f)?.key.as_deref()?;
        let result = self.cache.load(key)?.into_result().ok()?;
        (result.chunks.len() == self.meta.files[f].chunks as usize).then_some(result)
    }

    /// Every indexed file's result, from the cache, in path order; `None` if one no longer
    /// loads (the caller then chunks again).
    pub fn results(&self) -> Option<Vec<FileResult>> {
        let mut out = Vec::with_capacity(self.meta.files.len());
        for (f, file) in self.meta.files.iter().enumerate() {
            if file.key.is_none() && file.chunks == 0 {
                continue;
            }
            out.push(self.records(f)?);
        }
        Some(out)
    }

    /// [`select`] over the indexed root, ranking from the index and loading only the records
    /// of the chunks it measures; the same selection as over the files in memory. `None` if a
    /// record no longer loads (the caller then chunks again).
    pub fn select(&self, query: &Query, sizer: &dyn ChunkSizer) -> Option<Selection> {
        let with_chunks: Vec<usize> =
            (0..self.meta.files.len()).filter(|&f| self.meta.files[f].chunks > 0).collect();
        if let [f] = with_chunks[..] {
            // One file: the passthrough rule needs all of it.
            return Some(select(&[self.records(f)?], query, sizer));
        }
        let strategy = strategy(self.meta.files.iter().map(|f| f.doc_class.as_ref()), query.kind);
        let scores = score(self, query);
        // Per file read: its records as JSON Lines and where each line starts; a chunk's record
        // is parsed only when the selection measures it.
        let mut loaded: HashMap<usize, (Vec<u8>, Vec<usize>)> = HashMap::new();
        let chosen = choose(&scores, query, sizer, |i| {
            let f = self.starts.partition_point(|&s| s <= i) - 1;
            let (records, starts) = match loaded.entry(f) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let key = self.meta.files[f].key.as_deref()?;
                    let records = self.cache.load_records(key)?;
                    let mut starts = vec![0];
                    starts.extend(memchr::memchr_iter(b'\n', &records).map(|at| at + 1));
                    e.insert((records, starts))
                }
            };
            let j = i - self.starts[f];
            let line = records.get(*starts.get(j)?..starts.get(j + 1)?.saturating_sub(1))?;
            serde_json::from_slice::<Chunk>(line).ok()
        })?;
        let (passages, left_out, size): (Vec<Passage>, usize, usize) = chosen;
        Some(Selection {
            passages,
            query_type: query.kind,
            strategy,
            candidates: self.starts.last().copied().unwrap_or(0),
            left_out,
            size,
        })
    }
}

impl Ranked for TermIndex {
    fn len(&self) -> usize {
        self.starts.last().copied().unwrap_or(0)
    }

    fn total_len(&self) -> f64 {
        self.meta.total_len
    }

    fn chunk_len(&self, i: usize) -> f32 {
        self.f32_at(self.lens_at + i * 4)
    }

    fn postings(&self, hash: u64, f: &mut dyn FnMut(usize, f32)) {
        let (mut lo, mut hi) = (0, self.terms);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let at = self.table_at + mid * 16;
            match self.u64_at(at).cmp(&hash) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let start = self.u32_at(at + 8) as usize;
                    let count = self.u32_at(at + 12) as usize;
                    let chunks = self.len();
                    for p in start..start + count {
                        let at = self.postings_at + p * 8;
                        let chunk = self.u32_at(at) as usize;
                        if chunk < chunks {
                            f(chunk, self.f32_at(at + 4));
                        }
                    }
                    return;
                }
            }
        }
    }

    fn traits(&self, i: usize) -> Traits {
        Traits::from_bits(self.bytes[self.traits_at + i])
    }
}

#[cfg(test)]
mod tests {
    use cleave_core::{ChunkConfig, Unit};

    use super::*;
    use crate::select::QueryType;
    use crate::tree::chunk_path;

    fn tree(dir: &Path) {
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let mut guide =
            String::from("# Guide\n\n## Introduction\n\nThis guide explains the parser.\n\n");
        for i in 0..30 {
            guide.push_str(&format!(
                "## Step {i}\n\nThe tokenizer splits words; step {i} feeds the parser a budget of {i} tokens.\n\n"
            ));
        }
        write("docs/guide.md", &guide);
        let mut code = String::new();
        for i in 0..40 {
            code.push_str(&format!(
                "/// Parses item {i} of the budget.\npub fn parse_item_{i}(budget: usize) -> usize {{\n    budget * {i} + 1\n}}\n\n"
            ));
        }
        write("src/parse.rs", &code);
        write("src/lib.rs", "//! The crate.\npub mod parse;\n");
        write(
            "tools/run.py",
            "def tokenizer(text):\n    \"\"\"Split text into tokens.\"\"\"\n    return text.split()\n",
        );
        write("data/blob.bin", "\0\0\0binary\0");
    }

    fn settings() -> Settings {
        Settings::new(ChunkConfig::new(300, Unit::Chars).unwrap())
    }

    fn query(text: &str, budget: usize) -> Query {
        Query {
            text: text.to_owned(),
            keywords: Vec::new(),
            kind: QueryType::guess(text),
            max_segments: 20,
            budget,
            passthrough: 12_000,
        }
    }

    fn as_json(s: &Selection) -> String {
        serde_json::to_string(s).unwrap()
    }

    #[test]
    fn an_index_selects_what_the_files_in_memory_select() {
        let root = tempfile::tempdir().unwrap();
        tree(root.path());
        let dir = tempfile::tempdir().unwrap();
        let index_dir = dir.path().join("index");
        let options = WalkOptions::default();
        let report = index_root(root.path(), &options, &settings(), 2, &index_dir).unwrap();
        assert_eq!((report.files, report.chunked, report.skipped, report.reused), (5, 4, 1, 0));
        let index =
            TermIndex::open(&index_dir, root.path(), &options, &settings()).unwrap().unwrap();
        let (files, _) =
            chunk_path(root.path(), &options, &settings().with_outline(true), 1).unwrap();
        assert_eq!(index.size().1, files.iter().map(|f| f.chunks.len()).sum::<usize>());
        let settings = settings();
        let sizer = settings.config.sizer();
        for (text, budget) in [
            ("how does the tokenizer split words", 600),
            ("parse_item_7 budget", 400),
            ("what is the introduction of the guide", 2000),
            ("nothing matches zyzzyva", 500),
        ] {
            let q = query(text, budget);
            let from_index = index.select(&q, sizer).unwrap();
            let in_memory = select(&files, &q, sizer);
            assert_eq!(as_json(&from_index), as_json(&in_memory), "{text}");
            assert!(from_index.size <= budget);
        }
        let results = index.results().unwrap();
        assert_eq!(results.len(), 4);
        assert!(
            results
                .iter()
                .zip(files.iter().filter(|f| !f.chunks.is_empty()))
                .all(|(a, b)| { a.rel == b.rel && a.chunks == b.chunks && a.outline.is_some() })
        );
    }

    #[test]
    fn an_edit_makes_the_index_stale_and_a_reindex_reads_only_it() {
        let root = tempfile::tempdir().unwrap();
        tree(root.path());
        let dir = tempfile::tempdir().unwrap();
        let index_dir = dir.path().join("index");
        let options = WalkOptions::default();
        index_root(root.path(), &options, &settings(), 1, &index_dir).unwrap();
        // Touching with new content: size and modified time change.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(root.path().join("tools/run.py"), "def other():\n    return 2\n").unwrap();
        let state = TermIndex::open(&index_dir, root.path(), &options, &settings()).unwrap();
        assert_eq!(state.unwrap_err(), IndexState::Stale { changed: 1 });
        // Work done on a stale index while the walk checks it is never handed back.
        let q = query("run", 4000);
        let state = TermIndex::open_with(&index_dir, root.path(), &options, &settings(), |i| {
            i.select(&q, Unit::Chars.sizer())
        })
        .unwrap();
        assert_eq!(state.err(), Some(IndexState::Stale { changed: 1 }));
        std::fs::write(root.path().join("tools/new.py"), "X = 1\n").unwrap();
        let state = TermIndex::open(&index_dir, root.path(), &options, &settings()).unwrap();
        assert!(matches!(state.unwrap_err(), IndexState::Stale { changed } if changed >= 2));
        let report = index_root(root.path(), &options, &settings(), 1, &index_dir).unwrap();
        assert_eq!((report.files, report.reused, report.chunked, report.skipped), (6, 3, 2, 1));
        let (_, selection) =
            TermIndex::open_with(&index_dir, root.path(), &options, &settings(), |i| {
                i.select(&q, Unit::Chars.sizer())
            })
            .unwrap()
            .expect("current after the re-index");
        assert!(selection.is_some_and(|s| !s.passages.is_empty()));
        // Other settings are another index.
        let other = Settings::new(ChunkConfig::new(500, Unit::Chars).unwrap());
        let state = TermIndex::open(&index_dir, root.path(), &options, &other).unwrap();
        assert_eq!(state.unwrap_err(), IndexState::Missing);
    }

    #[test]
    fn a_damaged_index_is_never_trusted() {
        let root = tempfile::tempdir().unwrap();
        tree(root.path());
        let dir = tempfile::tempdir().unwrap();
        let index_dir = dir.path().join("index");
        let options = WalkOptions::default();
        index_root(root.path(), &options, &settings(), 1, &index_dir).unwrap();
        let cache = Cache::open(&index_dir, root.path(), &settings().with_outline(true)).unwrap();
        let path = cache.index_path().to_owned();
        let good = std::fs::read(&path).unwrap();
        for cut in [0, 8, good.len() / 2, good.len() - 1] {
            std::fs::write(&path, &good[..cut]).unwrap();
            let state = TermIndex::open(&index_dir, root.path(), &options, &settings()).unwrap();
            assert_eq!(state.unwrap_err(), IndexState::Broken, "cut at {cut}");
        }
        let mut flipped = good.clone();
        flipped[good.len() / 3] ^= 0x40;
        std::fs::write(&path, &flipped).unwrap();
        let state = TermIndex::open(&index_dir, root.path(), &options, &settings()).unwrap();
        assert_eq!(state.unwrap_err(), IndexState::Broken);
        // A term file that does not decode is computed again, not trusted.
        std::fs::write(&path, &good).unwrap();
        let objects = index_dir.join("objects");
        for entry in walkdir(&objects) {
            if entry.extension().is_some_and(|e| e == "terms") {
                std::fs::write(&entry, b"garbage").unwrap();
            }
        }
        let report = index_root(root.path(), &options, &settings(), 1, &index_dir).unwrap();
        assert_eq!((report.reused, report.loaded), (0, 4));
        // A folder that is not a cleave cache is no index.
        let state = TermIndex::open(root.path(), root.path(), &options, &settings()).unwrap();
        assert_eq!(state.unwrap_err(), IndexState::Missing);
    }

    fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { out.extend(walkdir(&path)) } else { out.push(path) }
        }
        out
    }
}
