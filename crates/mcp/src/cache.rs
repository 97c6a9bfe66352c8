//! The engine's results kept in memory between calls, so that an agent's outline → select →
//! read over a large root chunks it once.
//!
//! One entry per (root, chunk budget, unit): the root's files chunked so far, sorted by path,
//! each with the size and modification stamp it had when it was read. A call walks only the
//! path it asks about, stats what it finds, re-chunks the files whose stamp changed (or that
//! are new, or failed last time), drops the ones that are gone, and hands the engine the
//! contiguous run of files under that path. Paths are always relative to the root, whatever
//! path was asked about, so that a chunk has the same id in every tool's answer.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Instant, SystemTime};

use cleave_engine::{
    ChunkConfig, FileResult, Input, Settings, Skip, Unit, WalkOptions, chunk_entries, walk_entries,
};

use crate::roots::Target;

/// What a set of chunks depends on besides the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// Index of the root.
    pub root: usize,
    /// Budget of each chunk.
    pub chunk_budget: usize,
    /// What the budget counts.
    pub unit: Unit,
}

/// How many (root, budget, unit) entries stay in memory; the least recently used goes first.
const MAX_ENTRIES: usize = 6;

/// A file's identity and version as `stat` sees it: a change to any part re-chunks it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    inode: (u64, u64, i64, i64),
}

impl Stamp {
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        Some(Self {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            inode: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
            },
        })
    }
}

#[derive(Default)]
struct Entry {
    /// Sorted by `rel`.
    files: Vec<FileResult>,
    /// One per file; `None` when it could not be taken (such a file is always re-chunked).
    stamps: Vec<Option<Stamp>>,
    used: Option<Instant>,
}

/// Counts of one refresh, for notes and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refresh {
    /// Files under the path.
    pub files: usize,
    /// Of them, chunked by this call.
    pub chunked: usize,
}

/// The cache, shared by every call of a server.
pub struct Cache {
    entries: Mutex<HashMap<Key, Arc<Mutex<Entry>>>>,
    pool: rayon::ThreadPool,
    threads: usize,
    max_file_size: u64,
}

impl Cache {
    /// An empty cache that chunks on `threads` threads and skips files over `max_file_size`.
    pub fn new(threads: usize, max_file_size: u64) -> std::io::Result<Self> {
        let threads = threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .stack_size(cleave_engine::WORKER_STACK_BYTES)
            .thread_name(|i| format!("cleave-mcp-{i}"))
            .build()
            .map_err(std::io::Error::other)?;
        Ok(Self { entries: Mutex::new(HashMap::new()), pool, threads, max_file_size })
    }

    /// Brings the files under `target` up to date and calls `f` with them, in path order
    /// (skipped files included, with their reason). Must not run on an async worker: it walks,
    /// reads and chunks.
    pub fn with_files<R>(
        &self,
        key: Key,
        root: &Path,
        target: &Target,
        f: impl FnOnce(&[FileResult]) -> R,
    ) -> Result<(R, Refresh), String> {
        let config = ChunkConfig::new(key.chunk_budget, key.unit).map_err(|e| e.to_string())?;
        let settings =
            Settings::new(config).with_outline(true).with_max_file_size(self.max_file_size);
        let inputs = self.walk(root, target)?;
        let slot = self.slot(key);
        let mut entry = slot.lock().unwrap_or_else(PoisonError::into_inner);
        // A panic while the entry's vectors are taken apart would leave them out of step: the
        // entry is then emptied, and the next call chunks the root afresh.
        let res = catch_unwind(AssertUnwindSafe(|| {
            let (range, refresh) = self.refresh(&mut entry, target, inputs, &settings);
            (f(&entry.files[range]), refresh)
        }));
        match res {
            Ok(out) => Ok(out),
            Err(_) => {
                *entry = Entry::default();
                Err("internal error: cleave panicked on this path (a bug: please report it)"
                    .to_owned())
            }
        }
    }

    /// The entry for `key`, made when missing; the least recently used entry goes when there
    /// are too many.
    fn slot(&self, key: Key) -> Arc<Mutex<Entry>> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if !entries.contains_key(&key) && entries.len() >= MAX_ENTRIES {
            let oldest = entries
                .iter()
                .min_by_key(|(_, e)| e.try_lock().ok().and_then(|e| e.used))
                .map(|(k, _)| *k);
            if let Some(oldest) = oldest {
                entries.remove(&oldest);
            }
        }
        entries.entry(key).or_default().clone()
    }

    /// How the server walks: as `cleave outline` and `cleave select` do by default (hidden,
    /// ignored and version-control files and cleave's outputs left out, links not followed).
    /// A tool's path is refused when this walk of its root passes over it.
    pub fn walk_options(&self) -> WalkOptions {
        WalkOptions { threads: self.threads, ..WalkOptions::default() }
    }

    /// The walk of `target`, each entry named relative to the root.
    fn walk(&self, root: &Path, target: &Target) -> Result<Vec<Input>, String> {
        let options = self.walk_options();
        // What `cleave outline` and `cleave select` leave out: entries passed over on purpose,
        // not files that failed.
        let mut inputs: Vec<Input> =
            walk_entries(&target.abs, &options).map_err(|e| format!("{}: {e}", target.rel))?;
        for input in &mut inputs {
            if !target.is_dir {
                // The walk names a single file by its file name and follows it as the user's
                // own path; here it is a canonical path inside the root, read as a walked file
                // would be: no link followed, and the open handle checked to lie in the root.
                input.rel.clone_from(&target.rel);
                input.follow = false;
                input.root = Some(Arc::from(root));
            } else if !target.rel.is_empty() {
                input.rel = format!("{}/{}", target.rel, input.rel);
            }
        }
        Ok(inputs)
    }

    /// Re-chunks what changed under `target`; returns the range of the entry's files under it.
    fn refresh(
        &self,
        entry: &mut Entry,
        target: &Target,
        inputs: Vec<Input>,
        settings: &Settings,
    ) -> (std::ops::Range<usize>, Refresh) {
        entry.used = Some(Instant::now());
        let old = under(&entry.files, target);
        let start = old.start;
        let mut previous: HashMap<String, (Option<Stamp>, FileResult)> = HashMap::new();
        let stamps: Vec<Option<Stamp>> = entry.stamps.drain(old.clone()).collect();
        for (file, stamp) in entry.files.drain(old).zip(stamps) {
            previous.insert(file.rel.clone(), (stamp, file));
        }
        // Stamps are taken before reading: a file that changes while it is read gets a new
        // stamp, so the next call reads it again.
        let stamps: Vec<Option<Stamp>> = inputs.iter().map(|i| Stamp::of(&i.abs)).collect();
        let mut kept: Vec<Option<FileResult>> = Vec::with_capacity(inputs.len());
        let mut to_chunk = Vec::new();
        for (input, stamp) in inputs.iter().zip(&stamps) {
            match previous.remove(&input.rel) {
                Some((Some(old), file)) if stamp.as_ref() == Some(&old) && !file.is_error() => {
                    kept.push(Some(file));
                }
                _ => {
                    kept.push(None);
                    to_chunk.push(input.clone());
                }
            }
        }
        let mut fresh = Vec::with_capacity(to_chunk.len());
        let res: Result<(), std::convert::Infallible> = chunk_entries(
            &self.pool,
            &to_chunk,
            settings,
            |r| r,
            |r| {
                fresh.push(r);
                Ok(())
            },
        );
        if let Err(never) = res {
            match never {}
        }
        let refresh = Refresh { files: inputs.len(), chunked: fresh.len() };
        let mut fresh = fresh.into_iter();
        let files: Vec<FileResult> = kept
            .into_iter()
            .zip(&inputs)
            .map(|(file, input)| {
                file.or_else(|| fresh.next()).unwrap_or_else(|| {
                    // Unreachable: the engine answers once per entry. A skip keeps the entry
                    // listed rather than losing it.
                    FileResult::skipped(&input.rel, input.size, Skip::Changed)
                })
            })
            .collect();
        let n = files.len();
        entry.files.splice(start..start, files);
        entry.stamps.splice(start..start, stamps);
        (start..start + n, refresh)
    }
}

/// The range of `files` (sorted by path) under `target`: the file itself, or everything in
/// the folder. Paths with a common prefix are contiguous in sorted order.
fn under(files: &[FileResult], target: &Target) -> std::ops::Range<usize> {
    if target.rel.is_empty() {
        return 0..files.len();
    }
    if !target.is_dir {
        let start = files.partition_point(|f| f.rel.as_str() < target.rel.as_str());
        let hit = files.get(start).is_some_and(|f| f.rel == target.rel);
        return start..start + usize::from(hit);
    }
    let prefix = format!("{}/", target.rel);
    let start = files.partition_point(|f| f.rel.as_str() < prefix.as_str());
    let len = files[start..].iter().take_while(|f| f.rel.starts_with(&prefix)).count();
    start..start + len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roots::Roots;

    fn key(root: usize) -> Key {
        Key { root, chunk_budget: 400, unit: Unit::Chars }
    }

    fn paths(files: &[FileResult]) -> Vec<String> {
        files.iter().map(|f| f.rel.clone()).collect()
    }

    #[test]
    fn only_changed_files_are_chunked_again() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path();
        std::fs::create_dir(root.join("docs")).expect("mkdir");
        std::fs::write(root.join("docs/a.md"), "# A\n\nAlpha.\n").expect("write");
        std::fs::write(root.join("docs/b.md"), "# B\n\nBeta.\n").expect("write");
        std::fs::write(root.join("main.py"), "def main():\n    pass\n").expect("write");
        let roots = Roots::new(&[root.to_owned()]).expect("roots");
        let cache = Cache::new(1, 1 << 20).expect("cache");
        let all = roots.resolve(".").expect("root");
        let docs = roots.resolve("docs").expect("docs");
        let one = roots.resolve("docs/b.md").expect("file");
        let base = roots.get(0);

        let (names, r) = cache.with_files(key(0), base, &all, paths).expect("first");
        assert_eq!(names, ["docs/a.md", "docs/b.md", "main.py"]);
        assert_eq!(r, Refresh { files: 3, chunked: 3 });
        let (names, r) = cache.with_files(key(0), base, &docs, paths).expect("again");
        assert_eq!(names, ["docs/a.md", "docs/b.md"]);
        assert_eq!(r, Refresh { files: 2, chunked: 0 });

        // A single file is named from the root, so its chunk ids are the ones the folder gave.
        let ids = |files: &[FileResult]| -> Vec<String> {
            files.iter().flat_map(|f| &f.chunks).map(|c| c.id.clone()).collect()
        };
        let (from_root, _) = cache.with_files(key(0), base, &all, ids).expect("ids");
        let (from_file, r) = cache.with_files(key(0), base, &one, ids).expect("ids");
        assert_eq!(r.chunked, 0);
        assert!(!from_file.is_empty() && from_file.iter().all(|id| from_root.contains(id)));

        std::fs::write(root.join("docs/b.md"), "# B\n\nBeta, changed at last.\n").expect("write");
        std::fs::remove_file(root.join("docs/a.md")).expect("rm");
        std::fs::write(root.join("docs/c.md"), "# C\n").expect("write");
        let (names, r) = cache.with_files(key(0), base, &all, paths).expect("after edits");
        assert_eq!(names, ["docs/b.md", "docs/c.md", "main.py"]);
        assert_eq!(r, Refresh { files: 3, chunked: 2 });
        let (text, _) = cache
            .with_files(key(0), base, &one, |f| f[0].chunks[0].text.clone())
            .expect("changed file");
        assert!(text.contains("changed at last"));

        // Another chunk budget is another entry.
        let other = Key { chunk_budget: 500, ..key(0) };
        let (_, r) = cache.with_files(other, base, &all, paths).expect("other budget");
        assert_eq!(r.chunked, 3);
        let zero = Key { chunk_budget: 0, ..key(0) };
        assert!(cache.with_files(zero, base, &all, paths).is_err());
    }
}
