//! Finding the files to chunk: `ignore`'s walker, sorted by relative path.

use std::path::{Path, PathBuf};

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

/// Walks `root` (a file or a folder), honouring ignore files unless `no_ignore`, skipping
/// hidden entries unless `hidden`. The result is sorted, so it does not depend on the order
/// in which the file system lists entries.
pub fn walk(root: &Path, hidden: bool, no_ignore: bool) -> Result<Walked> {
    let meta =
        std::fs::metadata(root).with_context(|| format!("{}: cannot read", root.display()))?;
    let mut walked = Walked::default();
    if meta.is_file() {
        let rel = root.file_name().map_or_else(|| root.to_string_lossy(), |n| n.to_string_lossy());
        walked.files.push(Input { rel: rel.into_owned(), abs: root.to_owned(), size: meta.len() });
        return Ok(walked);
    }
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .standard_filters(!no_ignore)
        .hidden(!hidden)
        .require_git(false)
        .follow_links(false)
        // Never descend into version-control internals, even with --hidden.
        .filter_entry(|e| e.file_name() != ".git");
    for entry in builder.build() {
        match entry {
            Ok(entry) => {
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let size = entry.metadata().map_or(0, |m| m.len());
                let abs = entry.into_path();
                let rel = relative(root, &abs);
                walked.files.push(Input { rel, abs, size });
            }
            Err(err) => {
                let path = match &err {
                    ignore::Error::WithPath { path, .. } => relative(root, path),
                    _ => String::new(),
                };
                walked.errors.push((path, err.to_string()));
            }
        }
    }
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
