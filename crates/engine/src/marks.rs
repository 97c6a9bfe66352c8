//! What marks a file or folder as cleave's own: output folders (a manifest cleave wrote), caches
//! (their tag file), earlier outputs written as files, and the temporaries of runs. Walks
//! leave them out, wherever they lie; outputs may replace only them.

use std::ffi::OsStr;
use std::path::{Component, Path};

/// The file that marks a folder as a cleave cache, and its content.
pub(crate) const CACHE_TAG_FILE: &str = "CLEAVE-CACHE";
pub(crate) const CACHE_TAG: &str = "cleave cache v1\n";

/// Whether `dir` is a cleave cache (its tag file says so).
pub fn is_cache_dir(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(CACHE_TAG_FILE)).is_ok_and(|t| t == CACHE_TAG)
}

/// The tag that opens every manifest and report cleave writes: how it knows them again.
pub const GENERATOR: &str = "{\"generator\": \"cleave\"";

/// Whether `dir` holds a `manifest.json` that cleave wrote (an `--out` folder).
pub fn is_manifest_dir(dir: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; GENERATOR.len()];
    std::fs::File::open(dir.join("manifest.json"))
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == GENERATOR.as_bytes())
}

/// Whether `dir` is a cleave output folder or a cleave cache: never walked as input, wherever
/// it lies.
pub fn is_cleave_output_dir(dir: &Path) -> bool {
    is_manifest_dir(dir) || is_cache_dir(dir)
}

/// Whether a file under `root` is an earlier cleave output for it: a report or a JSON document
/// of chunks (by their opening), or JSON Lines whose first record is a chunk of a file under
/// `root` whose text is that file's slice. Such files are never walked as input, and only
/// they may be replaced by an output under the root.
pub fn is_cleave_output_file(path: &Path, root: &Path) -> bool {
    use std::io::{BufRead, Read};
    let mut head = Vec::with_capacity(32);
    let Ok(file) = std::fs::File::open(path) else { return false };
    if (&file).take(32).read_to_end(&mut head).is_err() {
        return false;
    }
    if head.starts_with(GENERATOR.as_bytes()) || head.starts_with(b"{\"chunks\": [") {
        return true;
    }
    if !head.starts_with(b"{\"id\":\"") {
        return false;
    }
    let Ok(file) = std::fs::File::open(path) else { return false };
    let mut first = String::new();
    if std::io::BufReader::new(file.take(64 << 20)).read_line(&mut first).is_err() {
        return false;
    }
    let Ok(chunk) = serde_json::from_str::<cleave_core::Chunk>(&first) else { return false };
    // The record's own file, read and decoded as cleave reads it: its slice must be the body.
    let rel = Path::new(&chunk.path);
    if rel.is_absolute() || rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return false;
    }
    let target = if root.is_dir() { root.join(rel) } else { root.to_owned() };
    let Ok(bytes) = std::fs::read(target) else { return false };
    let Ok(view) = crate::decode::decode(&chunk.path, bytes) else { return false };
    view.text.get(chunk.byte_start..chunk.byte_end) == Some(chunk.text.as_str())
}

/// Whether `name` is a temporary or set-aside folder or file of a cleave run.
pub fn is_cleave_temp(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with('.') && (name.contains(".cleave-tmp-") || name.contains(".cleave-old-"))
}
