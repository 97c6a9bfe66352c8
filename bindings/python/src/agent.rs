//! The agent face in Python: `Chunker.outline` and `Chunker.select`, built from the per-file
//! results the engine gives `chunk_tree` (the same records, never a second chunking path), as
//! `cleave outline` and `cleave select` are.

use std::collections::HashMap;
use std::path::Path;

use cleave_engine::{
    FileResult, Query, QueryType, Settings, WalkOptions, chunk_path, render_passages, select,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::chunk::{PyChunk, char_offsets, to_py};
use crate::error;

/// What the walk may see, as `chunk_tree` takes it.
pub struct Walk {
    pub hidden: bool,
    pub no_ignore: bool,
    pub follow: bool,
    pub threads: usize,
}

/// The results of every file under `path` (a file or a folder), in path order, chunked with
/// `settings` on `walk.threads` threads with the interpreter detached.
pub fn collect(
    py: Python<'_>,
    path: &Path,
    settings: &Settings,
    walk: &Walk,
) -> PyResult<Vec<FileResult>> {
    let options = WalkOptions {
        hidden: walk.hidden,
        no_ignore: walk.no_ignore,
        follow: walk.follow,
        exclude: Vec::new(),
        threads: walk.threads,
    };
    let res = py.detach(|| chunk_path(path, &options, settings, walk.threads));
    let (files, _errors) = res.map_err(|err| error::from_io(py, &path.to_string_lossy(), &err))?;
    Ok(files)
}

/// One dict per chunked file: `{"path", "language", "entries": [...]}`, the entries as
/// `cleave outline --format json` gives them.
pub fn outlines<'py>(py: Python<'py>, files: &[FileResult]) -> PyResult<Vec<Bound<'py, PyAny>>> {
    files
        .iter()
        .filter_map(|f| f.outline.as_ref().map(|entries| (f, entries)))
        .map(|(f, entries)| {
            let file = PyDict::new(py);
            file.set_item("path", &f.rel)?;
            file.set_item("language", f.language.as_deref())?;
            file.set_item("entries", to_py(py, entries)?)?;
            Ok(file.into_any())
        })
        .collect()
}

/// What `select` was asked.
pub struct Ask {
    pub query: String,
    pub budget: usize,
    pub keywords: Vec<String>,
    pub kind: Option<String>,
    pub max_segments: usize,
    pub passthrough: usize,
}

/// The selection for `ask` over `files`, as a dict: `passages` (each `{"chunk", "title",
/// "tag", "score"}` with `chunk` a `Chunk`), `text` (what an agent reads), `query_type`,
/// `strategy`, `candidates`, `left_out` and `size`.
pub fn selection<'py>(
    py: Python<'py>,
    files: &[FileResult],
    settings: &Settings,
    ask: Ask,
) -> PyResult<Bound<'py, PyDict>> {
    let kind = match ask.kind.as_deref() {
        None => QueryType::guess(&ask.query),
        Some("concept") => QueryType::Concept,
        Some("algorithm") => QueryType::Algorithm,
        Some("code") => QueryType::Code,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "kind must be 'concept', 'algorithm' or 'code', not {other:?}"
            )));
        }
    };
    let query = Query {
        text: ask.query,
        keywords: ask.keywords,
        kind,
        max_segments: ask.max_segments,
        budget: ask.budget,
        passthrough: ask.passthrough,
    };
    let sizer = settings.config.sizer();
    let chosen = py.detach(|| select(files, &query, sizer));
    // Character offsets of every chunk, by id, from its file's chunks.
    let mut offsets: HashMap<&str, (usize, usize)> = HashMap::new();
    for file in files {
        for (chunk, at) in file.chunks.iter().zip(char_offsets(&file.chunks)) {
            offsets.insert(chunk.id.as_str(), at);
        }
    }
    let passages = chosen
        .passages
        .iter()
        .map(|p| {
            let (start, end) = offsets.get(p.chunk.id.as_str()).copied().unwrap_or((0, 0));
            let item = PyDict::new(py);
            item.set_item("chunk", Py::new(py, PyChunk::new(p.chunk.clone(), start, end))?)?;
            item.set_item("title", &p.title)?;
            item.set_item("tag", &p.tag)?;
            item.set_item("score", p.score)?;
            Ok(item)
        })
        .collect::<PyResult<Vec<_>>>()?;
    let out = PyDict::new(py);
    out.set_item("passages", passages)?;
    out.set_item("text", render_passages(&chosen.passages))?;
    out.set_item("query_type", to_py(py, &chosen.query_type)?)?;
    out.set_item("strategy", &chosen.strategy)?;
    out.set_item("candidates", chosen.candidates)?;
    out.set_item("left_out", chosen.left_out)?;
    out.set_item("size", chosen.size)?;
    Ok(out)
}
