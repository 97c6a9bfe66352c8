//! `Chunker.chunk_tree`'s iterator: a tree chunked on the pool by a background thread, its
//! results handed over through a bounded channel as they are ready, in path order.

use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};

use cleave_engine::{Input, Settings, chunk_entries};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::result::{Prepared, PyFileResult};
use crate::sizer::PySizer;

/// Results waiting to be taken. The engine bounds what is in flight on the pool by bytes; this
/// bounds what waits for a slow consumer, so a Python loop that stops reading holds at most
/// this many files' chunks.
const WAITING: usize = 64;

/// An iterator over the `FileResult`s of a tree, in path order, as they are ready. The walk
/// is done when it is made (`total` entries); chunking runs in the background and stops when
/// the iterator is dropped.
#[pyclass(module = "cleave._cleave", name = "ChunkTree", frozen)]
pub struct ChunkTree {
    results: Mutex<Receiver<Prepared>>,
    total: usize,
    /// A callable tokenizer, whose first error ends the iteration.
    py_sizer: Option<Arc<PySizer>>,
}

impl ChunkTree {
    pub fn start(
        pool: Arc<rayon::ThreadPool>,
        settings: Arc<Settings>,
        entries: Vec<Input>,
        py_sizer: Option<Arc<PySizer>>,
    ) -> PyResult<Self> {
        let (tx, rx) = sync_channel(WAITING);
        let total = entries.len();
        // `chunk_entries` must not run on one of the pool's threads, and the caller's thread
        // holds the interpreter: a thread of its own feeds the channel. When the iterator is
        // dropped, sending fails, `chunk_entries` stops at that error and the thread ends.
        std::thread::Builder::new()
            .name("cleave-tree".into())
            .spawn(move || {
                let _stopped_early =
                    chunk_entries(&pool, &entries, &settings, Prepared::new, |p| {
                        // Only the fact that the receiver is gone matters, not the result it missed.
                        tx.send(p).map_err(|_| ())
                    });
            })
            .map_err(|err| PyRuntimeError::new_err(format!("cannot start a thread: {err}")))?;
        Ok(Self { results: Mutex::new(rx), total, py_sizer })
    }
}

#[pymethods]
impl ChunkTree {
    /// How many entries the walk found (each gives one result).
    #[getter]
    fn total(&self) -> usize {
        self.total
    }

    fn __length_hint__(&self) -> usize {
        self.total
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyFileResult>>> {
        // Waiting for the next file happens with the interpreter released, so other Python
        // threads run meanwhile (and a callable sizer on the pool can take it).
        let next = py.detach(|| {
            let results = self.results.lock().unwrap_or_else(PoisonError::into_inner);
            results.recv().ok()
        });
        if let Some(err) = self.py_sizer.as_ref().and_then(|s| s.take_error()) {
            return Err(err);
        }
        next.map(|p| p.into_py(py)).transpose()
    }
}
