//! Finding the files to chunk: `ignore`'s walker, sorted by relative path.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, Result};

/// A file to chunk.
#[derive(Debug, Clone)]
pub struct Input {
    /// Path relative to the walked root, `/` separators (the file name for a single file).
    pub rel: String,
    /// Path to open.
    pub abs: PathBuf,
    /// Size in bytes when walked (0 if unknown).
    pub size: u64,
}

/// What the walk found: files to chunk, and entries it could not read.
#[derive(Debug, Default)]
pub struct Walked {
    /// Files, sorted by `rel`.
    pub files: Vec<Input>,
    /// Entries the walker could not read, with the reason.
    pub errors: Vec<(String, String)>,
}

/// Walks `root` (a file or a folder) on `threads` threads, honouring ignore files unless
/// `no_ignore`, skipping hidden entries unless `hidden`. The result is sorted, so it does not
/// depend on the order in which the file system lists entries or the threads find them.
pub fn walk(root: &Path, hidden: bool, no_ignore: bool, threads: usize) -> Result<Walked> {
    let meta =
        std::fs::metadata(root).with_context(|| format!("{}: cannot read", root.display()))?;
    if meta.is_file() {
        let rel = root.file_name().map_or_else(|| root.to_string_lossy(), |n| n.to_string_lossy());
        let file = Input { rel: rel.into_owned(), abs: root.to_owned(), size: meta.len() };
        return Ok(Walked { files: vec![file], errors: Vec::new() });
    }
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .standard_filters(!no_ignore)
        .hidden(!hidden)
        .require_git(false)
        .follow_links(false)
        .threads(threads)
        // Never descend into version-control internals, even with --hidden.
        .filter_entry(|e| e.file_name() != ".git");
    let found = Mutex::new(Walked::default());
    builder.build_parallel().run(|| {
        Box::new(|entry| {
            let mut found = found.lock().unwrap_or_else(PoisonError::into_inner);
            match entry {
                Ok(entry) => {
                    if entry.file_type().is_some_and(|t| t.is_file()) {
                        let size = entry.metadata().map_or(0, |m| m.len());
                        let abs = entry.into_path();
                        let rel = relative(root, &abs);
                        found.files.push(Input { rel, abs, size });
                    }
                }
                Err(err) => {
                    let path = match &err {
                        ignore::Error::WithPath { path, .. } => relative(root, path),
                        _ => String::new(),
                    };
                    found.errors.push((path, err.to_string()));
                }
            }
            ignore::WalkState::Continue
        })
    });
    let mut walked = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    walked.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    walked.errors.sort();
    Ok(walked)
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> =
        rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.join("/")
}
