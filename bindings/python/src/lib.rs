//! cleave-python: the `cleave._cleave` extension module, the Python face of the engine.
//!
//! Every answer is built from the engine's per-file results and chunk records: a [`Chunker`]
//! holds the engine's settings and a pool of threads, a [`chunk::PyChunk`] wraps one record
//! (with character offsets beside the byte offsets, since Python slices strings by code
//! point), a [`result::PyFileResult`] one file's outcome. Work on files and texts runs with
//! the interpreter detached, so other Python threads go on while cleave chunks.
//!
//! The pure-Python package `cleave` (python/cleave) re-exports these types with type hints
//! and holds the LangChain and LlamaIndex adapters.

mod agent;
mod chunk;
mod chunker;
mod error;
mod files;
mod language;
mod result;
mod sizer;
mod tree;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _cleave(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<chunker::Chunker>()?;
    m.add_class::<chunk::PyChunk>()?;
    m.add_class::<result::PyFileResult>()?;
    m.add_class::<tree::ChunkTree>()?;
    m.add_function(wrap_pyfunction!(files::walk, m)?)?;
    m.add("CleaveError", m.py().get_type::<error::CleaveError>())?;
    m.add("DEFAULT_MAX_FILE_SIZE", cleave_engine::DEFAULT_MAX_FILE_SIZE)?;
    m.add("LANGUAGES", language::names())?;
    Ok(())
}
