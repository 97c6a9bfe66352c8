//! `cleave.walk`: the files `cleave chunk ROOT` would read, for pipelines that read the bytes
//! themselves (Ray Data's `read_binary_files`, Spark's `binaryFile` source) and must not pick
//! up what the CLI leaves out (`.git/`, ignored and hidden files).

use std::ffi::OsString;
use std::path::PathBuf;

use cleave_engine::{WalkOptions, walk as walk_tree};
use pyo3::prelude::*;

use crate::error;

/// The absolute paths of the files under `root` that `cleave chunk ROOT` would read, in path
/// order: ignore files honoured unless `no_ignore`, hidden entries left out unless `hidden`,
/// links followed only with `follow` and only inside the root. Entries the walk skips (an
/// ignored or hidden folder, a special file) are not listed. A root that cannot be walked
/// raises `CleaveError`. Paths are `str` (a name that is not UTF-8 keeps its bytes as
/// surrogate escapes, as `os.fsdecode` gives them).
#[pyfunction]
#[pyo3(signature = (root, hidden = false, no_ignore = false, follow = false))]
pub fn walk(
    py: Python<'_>,
    root: PathBuf,
    hidden: bool,
    no_ignore: bool,
    follow: bool,
) -> PyResult<Vec<OsString>> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let options = WalkOptions { hidden, no_ignore, follow, exclude: Vec::new(), threads };
    let walked = py.detach(|| walk_tree(&root, &options));
    let walked = walked.map_err(|err| error::from_io(py, &root.to_string_lossy(), &err))?;
    Ok(walked
        .entries
        .into_iter()
        .filter(|e| e.skip.is_none())
        .map(|e| e.abs.into_os_string())
        .collect())
}
