//! Sizers brought from Python: a Hugging Face `tokenizer.json`, or a callable counting tokens.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use cleave_engine::{ChunkConfig, ChunkSizer, HfTokenizer, Tokenizer, Unit};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::error;

/// What `tokenizer=` gave: a built-in vocabulary, a `tokenizer.json`, or a callable.
pub enum Choice {
    Builtin(Tokenizer),
    File(Arc<HfTokenizer>),
    Callable(Arc<PySizer>),
}

impl Choice {
    /// Reads `tokenizer=`: `"o200k"`/`"cl100k"` (or None), a path to a Hugging Face
    /// `tokenizer.json`, or a callable `count(text) -> int`.
    pub fn from_arg(py: Python<'_>, tokenizer: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let Some(tokenizer) = tokenizer else { return Ok(Choice::Builtin(Tokenizer::O200k)) };
        if let Ok(name) = tokenizer.cast::<PyString>()
            && let Ok(builtin) = name.to_str()?.parse::<Tokenizer>()
        {
            return Ok(Choice::Builtin(builtin));
        }
        if let Ok(path) = tokenizer.extract::<PathBuf>() {
            let shown = path.to_string_lossy().into_owned();
            // A missing or unreadable file is an OSError with its path, as for any file;
            // one that is there but is no tokenizer is a ValueError.
            if let Err(err) = std::fs::metadata(&path) {
                // A bare word that names no file was meant as a vocabulary name.
                if !shown.contains(std::path::MAIN_SEPARATOR) && !shown.ends_with(".json") {
                    return Err(PyValueError::new_err(format!(
                        "unknown tokenizer {shown:?}: expected \"o200k\", \"cl100k\", the path of a tokenizer.json, or a callable"
                    )));
                }
                return Err(error::from_io(py, &shown, &err));
            }
            let loaded = py.detach(|| HfTokenizer::from_file(&path));
            return loaded
                .map(|hf| Choice::File(Arc::new(hf)))
                .map_err(|err| PyValueError::new_err(err.to_string()));
        }
        if tokenizer.is_callable() {
            let name = match tokenizer.getattr("__qualname__") {
                Ok(name) => format!("py:{name}"),
                Err(_) => format!("py:{}", tokenizer.repr()?),
            };
            return Ok(Choice::Callable(Arc::new(PySizer::new(tokenizer.clone().unbind(), name))));
        }
        Err(PyTypeError::new_err(
            "tokenizer must be \"o200k\", \"cl100k\", the path of a tokenizer.json, or a callable counting tokens",
        ))
    }

    /// The configuration of `budget` in `unit` counted by this choice.
    pub fn config(
        self,
        budget: usize,
        unit: &str,
    ) -> PyResult<(ChunkConfig, Option<Arc<PySizer>>)> {
        let custom = |sizer: Arc<dyn ChunkSizer>| {
            if unit != "tokens" {
                return Err(PyValueError::new_err(format!(
                    "a tokenizer file or callable counts tokens: pass unit=\"tokens\" (not {unit:?})"
                )));
            }
            ChunkConfig::from_sizer(budget, sizer)
                .map_err(|err| PyValueError::new_err(err.to_string()))
        };
        let unit = match (unit, self) {
            (_, Choice::File(hf)) => return Ok((custom(hf)?, None)),
            (_, Choice::Callable(py)) => {
                let config = custom(py.clone())?;
                return Ok((config, Some(py)));
            }
            ("chars", _) => Unit::Chars,
            ("bytes", _) => Unit::Bytes,
            ("estimate", _) => Unit::Estimate,
            ("tokens", Choice::Builtin(bpe)) => Unit::Tokens(bpe),
            (other, _) => {
                return Err(PyValueError::new_err(format!(
                    "unknown unit {other:?}: expected \"chars\", \"tokens\", \"bytes\" or \"estimate\""
                )));
            }
        };
        let config =
            ChunkConfig::new(budget, unit).map_err(|err| PyValueError::new_err(err.to_string()))?;
        Ok((config, None))
    }
}

/// A Python callable `count(text) -> int` as a sizer.
///
/// Each measurement takes the interpreter (the workers of `chunk_many` and `chunk_tree` run
/// detached from it, so they wait their turn rather than deadlock; the calling thread has
/// released it). A sizer cannot fail mid-packing, so a callable that raises, or returns
/// something that is not a non-negative int, is measured as the text's UTF-8 length for the
/// rest of the packing (a size no byte-level tokenizer exceeds) and its first error is raised
/// once the call that chunked returns.
pub struct PySizer {
    count: Py<PyAny>,
    name: String,
    error: Mutex<Option<PyErr>>,
}

impl PySizer {
    pub fn new(count: Py<PyAny>, name: String) -> Self {
        Self { count, name, error: Mutex::new(None) }
    }

    /// The first error the callable raised since the last call, if any.
    pub fn take_error(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl ChunkSizer for PySizer {
    fn size(&self, text: &str) -> usize {
        Python::attach(|py| {
            let counted = self.count.call1(py, (text,)).and_then(|n| n.extract::<usize>(py));
            counted.unwrap_or_else(|err| {
                self.error.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(err);
                text.len()
            })
        })
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}
