//! Shared by the examples and the corpus test: the files under some paths.

use std::path::PathBuf;

/// Every file under `roots` (a root that is a file is itself), sorted by path; unreadable
/// folders are passed over.
pub fn files_under(roots: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut stack: Vec<PathBuf> = roots.into_iter().collect();
    let mut files = Vec::new();
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            let Ok(entries) = std::fs::read_dir(&path) else { continue };
            stack.extend(entries.flatten().map(|e| e.path()));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}
