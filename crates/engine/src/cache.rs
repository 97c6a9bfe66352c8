//! A persistent cache of per-file results, so that a re-run after a small change chunks only
//! what changed.
//!
//! An entry is keyed by a 128-bit hash of the build (every source and query file of cleave and
//! the lock file: `CLEAVE_SOURCE_ID`), the settings, the path and the file's bytes; it holds
//! the file's outcome, notes and its chunk records as JSON Lines, with a checksum that is
//! verified on every load. A stat table per walked root remembers each file's size, modified
//! time and inode with its key, so that an unchanged file is not even read. Everything is
//! written aside and renamed into place; a folder that is not a cleave cache is refused, and an
//! entry that fails its checksum is chunked again, never trusted.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use cleave_core::Chunk;
use serde::{Deserialize, Serialize};

use crate::decode::Encoding;
use crate::file::{FileResult, Settings};
use crate::marks::{CACHE_TAG as TAG, CACHE_TAG_FILE as TAG_FILE};
use crate::outcome::Outcome;
use crate::outline::OutlineEntry;
use crate::record::write_chunk;
use crate::walk::Input;

/// What identifies the build whose outputs the cache may hold.
pub const SOURCE_ID: &str = env!("CLEAVE_SOURCE_ID");

/// A cache folder opened for one run over one root.
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    fingerprint: String,
    stats_path: PathBuf,
    index_path: PathBuf,
    old: HashMap<String, Stat>,
    new: Mutex<HashMap<String, Stat>>,
}

/// What the stat table remembers of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Stat {
    size: u64,
    mtime_ns: i128,
    ino: u64,
    key: String,
}

/// What the stat table compares of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStat {
    size: u64,
    mtime_ns: i128,
    ino: u64,
}

/// One cached file: its result without the chunks, and the chunks as JSON Lines.
#[derive(Debug, Clone)]
pub struct CachedFile {
    /// The result, chunks left empty.
    pub result: FileResult,
    /// The chunk records, one JSON object per line, as `write_chunk` writes them.
    pub records: Vec<u8>,
}

impl CachedFile {
    /// The result with its chunks parsed back.
    pub fn into_result(self) -> io::Result<FileResult> {
        let mut result = self.result;
        for line in self.records.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let chunk: Chunk = serde_json::from_slice(line).map_err(io::Error::other)?;
            result.chunks.push(chunk);
        }
        Ok(result)
    }
}

/// The head line of an entry.
#[derive(Serialize, Deserialize)]
struct Head {
    rel: String,
    language: Option<String>,
    bytes: u64,
    encoding: Option<Encoding>,
    fallback: Option<String>,
    diagnostics: Vec<String>,
    doc_class: Option<(String, f32)>,
    outline: Option<Vec<OutlineEntry>>,
    #[serde(default)]
    imports: Vec<String>,
    checksum: String,
}

impl Cache {
    /// Opens (or creates) the cache folder `dir` for a run over `root` with `settings`.
    /// Refuses a folder that exists, is not empty and is not a cleave cache.
    pub fn open(dir: &Path, root: &Path, settings: &Settings) -> io::Result<Self> {
        if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
            return Err(io::Error::other(format!("{}: exists and is not a folder", dir.display())));
        }
        let tag = dir.join(TAG_FILE);
        match fs::read_to_string(&tag) {
            Ok(text) if text == TAG => {}
            Ok(_) => {
                return Err(io::Error::other(format!(
                    "{}: a cache of another format",
                    dir.display()
                )));
            }
            Err(_) => {
                if fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
                    return Err(io::Error::other(format!(
                        "{}: not empty and not a cleave cache: refusing to write into it",
                        dir.display()
                    )));
                }
                fs::create_dir_all(dir)?;
                write_atomic(&tag, TAG.as_bytes())?;
            }
        }
        fs::create_dir_all(dir.join("objects"))?;
        fs::create_dir_all(dir.join("stats"))?;
        let mut cache = Self::at(dir, root, settings);
        // A stat table that does not parse is ignored: every file is then read and hashed.
        cache.old = fs::read(&cache.stats_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        Ok(cache)
    }

    /// The cache folder `dir`, known to be a cleave cache, opened to read entries only: nothing
    /// is created and the stat table is not loaded (what a term index needs of it is in the
    /// index). A selection opens it on every query.
    pub(crate) fn open_to_read(dir: &Path, root: &Path, settings: &Settings) -> Self {
        Self::at(dir, root, settings)
    }

    fn at(dir: &Path, root: &Path, settings: &Settings) -> Self {
        let config = &settings.config;
        let fingerprint = format!(
            "{SOURCE_ID}|{}|{}|{}|{}|{:?}|{}|{}",
            config.budget(),
            config.unit_name(),
            config.overlap(),
            config.headers(),
            config.cuts(),
            settings.max_file_size,
            settings.outline
        );
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
        let stats_id =
            xxhash_rust::xxh3::xxh3_64(format!("{fingerprint}|{}", root.display()).as_bytes());
        Self {
            dir: dir.to_owned(),
            fingerprint,
            stats_path: dir.join("stats").join(format!("{stats_id:016x}.json")),
            index_path: dir.join("stats").join(format!("{stats_id:016x}.index")),
            old: HashMap::new(),
            new: Mutex::new(HashMap::new()),
        }
    }

    /// The key of a file's bytes under this run's settings.
    pub fn key(&self, rel: &str, bytes: &[u8]) -> String {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(self.fingerprint.as_bytes());
        h.update(&[0]);
        h.update(rel.as_bytes());
        h.update(&[0]);
        h.update(bytes);
        format!("{:032x}", h.digest128())
    }

    /// What the stat table compares of a walked file: size, modified time and inode of the
    /// file read (a followed link's target, not the link). Take it *before* reading the file:
    /// an edit between the stat and the read then shows as a change on the next run.
    pub fn stat(&self, input: &Input) -> Option<FileStat> {
        stat_of(input).map(|(size, mtime_ns, ino)| FileStat { size, mtime_ns, ino })
    }

    /// The key the stat table remembers for an unchanged walked file, if any.
    pub fn key_by_stat(&self, input: &Input, stat: &FileStat) -> Option<String> {
        let old = self.old.get(&input.rel)?;
        (old.size == stat.size && old.mtime_ns == stat.mtime_ns && old.ino == stat.ino)
            .then(|| old.key.clone())
    }

    /// Remembers `key` for a walked file, with the stat taken before it was read.
    pub fn remember(&self, input: &Input, stat: &FileStat, key: &str) {
        let stat =
            Stat { size: stat.size, mtime_ns: stat.mtime_ns, ino: stat.ino, key: key.to_owned() };
        self.new.lock().unwrap_or_else(PoisonError::into_inner).insert(input.rel.clone(), stat);
    }

    fn object(&self, key: &str) -> PathBuf {
        self.dir.join("objects").join(&key[..2]).join(key)
    }

    /// The key this run remembered for a walked file, if it did.
    pub(crate) fn remembered(&self, rel: &str) -> Option<String> {
        self.new.lock().unwrap_or_else(PoisonError::into_inner).get(rel).map(|s| s.key.clone())
    }

    /// What identifies the build and the settings of this cache's entries.
    pub(crate) fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// Where the term index of this root and these settings lives (see `crate::index`).
    pub(crate) fn index_path(&self) -> &Path {
        &self.index_path
    }

    /// A file's term statistics stored beside its entry, if they are there and whole.
    pub(crate) fn load_terms(&self, key: &str) -> Option<Vec<u8>> {
        let mut path = self.object(key);
        path.set_extension("terms");
        let bytes = fs::read(path).ok()?;
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        let sum = u64::from_le_bytes(sum.try_into().ok()?);
        (sum == xxhash_rust::xxh3::xxh3_64(body)).then(|| body.to_vec())
    }

    /// Stores a file's term statistics beside its entry, with a checksum.
    pub(crate) fn store_terms(&self, key: &str, body: &[u8]) -> io::Result<()> {
        let mut path = self.object(key);
        path.set_extension("terms");
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut bytes = body.to_vec();
        bytes.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(body).to_le_bytes());
        write_atomic(&path, &bytes)
    }

    /// The chunk records of the entry under `key` as JSON Lines, if its checksum holds: for a
    /// reader that parses only the records it needs.
    pub(crate) fn load_records(&self, key: &str) -> Option<Vec<u8>> {
        let bytes = fs::read(self.object(key)).ok()?;
        let at = bytes.iter().position(|&b| b == b'\n')?;
        #[derive(Deserialize)]
        struct Sum {
            checksum: String,
        }
        let head: Sum = serde_json::from_slice(&bytes[..at]).ok()?;
        let records = &bytes[at + 1..];
        (head.checksum == format!("{:016x}", xxhash_rust::xxh3::xxh3_64(records)))
            .then(|| records.to_vec())
    }

    /// The entry under `key`, if there is one whose checksum holds.
    pub fn load(&self, key: &str) -> Option<CachedFile> {
        let bytes = fs::read(self.object(key)).ok()?;
        let at = bytes.iter().position(|&b| b == b'\n')?;
        let head: Head = serde_json::from_slice(&bytes[..at]).ok()?;
        let records = bytes[at + 1..].to_vec();
        if head.checksum != format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&records)) {
            return None;
        }
        let outcome = match head.fallback {
            Some(reason) => Outcome::Fallback { reason },
            None => Outcome::Chunked,
        };
        let result = FileResult {
            rel: head.rel,
            outcome,
            language: head.language,
            bytes: head.bytes,
            encoding: head.encoding,
            chunks: Vec::new(),
            diagnostics: head.diagnostics,
            doc_class: head.doc_class,
            outline: head.outline,
            imports: head.imports,
            terms: std::sync::OnceLock::new(),
        };
        Some(CachedFile { result, records })
    }

    /// Stores a chunked file's result under `key` (skipped files are not stored: they cost
    /// nothing to find again). Returns the records as JSON Lines.
    pub fn store(&self, key: &str, result: &FileResult) -> io::Result<Vec<u8>> {
        let mut records = Vec::new();
        for chunk in &result.chunks {
            write_chunk(&mut records, chunk)?;
            records.push(b'\n');
        }
        let fallback = match &result.outcome {
            Outcome::Chunked => None,
            Outcome::Fallback { reason } => Some(reason.clone()),
            Outcome::Skipped { .. } => return Ok(records),
        };
        let head = Head {
            rel: result.rel.clone(),
            language: result.language.clone(),
            bytes: result.bytes,
            encoding: result.encoding,
            fallback,
            diagnostics: result.diagnostics.clone(),
            doc_class: result.doc_class.clone(),
            outline: result.outline.clone(),
            imports: result.imports.clone(),
            checksum: format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&records)),
        };
        let mut bytes = serde_json::to_vec(&head)?;
        bytes.push(b'\n');
        bytes.extend_from_slice(&records);
        let path = self.object(key);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        write_atomic(&path, &bytes)?;
        Ok(records)
    }

    /// Writes this run's stat table.
    pub fn finish(self) -> io::Result<()> {
        let new = self.new.into_inner().unwrap_or_else(PoisonError::into_inner);
        write_atomic(&self.stats_path, &serde_json::to_vec(&new)?)
    }
}

fn stat_of(input: &Input) -> Option<(u64, i128, u64)> {
    // The file that is read: through a followed link (or the file the user named), its target.
    let meta =
        if input.follow { fs::metadata(&input.abs) } else { fs::symlink_metadata(&input.abs) }
            .ok()?;
    let mtime = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let ino = 0;
    Some((meta.len(), i128::try_from(mtime).ok()?, ino))
}

/// Writes `bytes` beside `path` and renames it into place.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.cleave-tmp-{}", std::process::id()));
    let mut file = fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    drop(file);
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}
