//! One file's outcome as a Python object: chunked, fallen back, or skipped with a reason.

use cleave_engine::{Chunk, FileEntry, FileResult, Outcome};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::chunk::{PyChunk, char_offsets};

/// A file's result with everything but the Python objects made: built on the worker thread
/// that chunked the file, so that the thread holding the interpreter only wraps it.
#[derive(Debug)]
pub struct Prepared {
    fields: Fields,
    chunks: Vec<(Chunk, usize, usize)>,
}

/// The plain fields of a result: what pickles as is.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Fields {
    path: String,
    outcome: String,
    reason: Option<String>,
    skip_kind: Option<String>,
    is_error: bool,
    language: Option<String>,
    bytes: u64,
    /// What the text view was decoded from (`utf-16le`, `docx`, …) when it is not the file's
    /// own UTF-8.
    encoding: Option<String>,
    /// The per-file entry of `cleave chunk --report`, as JSON.
    entry: String,
}

impl Prepared {
    pub fn new(result: FileResult) -> Self {
        // A report entry is plain strings and numbers: serialising it cannot fail, and an
        // empty object would only hide the entry, not the chunks.
        let entry = serde_json::to_string(&FileEntry::of(&result)).unwrap_or_else(|_| "{}".into());
        let (outcome, reason, skip_kind) = match &result.outcome {
            Outcome::Chunked => ("chunked", None, None),
            Outcome::Fallback { reason } => ("fallback", Some(reason.clone()), None),
            Outcome::Skipped { reason } => {
                ("skipped", Some(reason.to_string()), Some(reason.kind().to_owned()))
            }
        };
        let offsets = char_offsets(&result.chunks);
        let is_error = result.is_error();
        // The encoding's record name, as the report spells it.
        let encoding = result.encoding.and_then(|e| match serde_json::to_value(e) {
            Ok(serde_json::Value::String(name)) => Some(name),
            _ => None,
        });
        let chunks = result.chunks.into_iter().zip(offsets).map(|(c, (s, e))| (c, s, e)).collect();
        Self {
            fields: Fields {
                path: result.rel,
                outcome: outcome.to_owned(),
                reason,
                skip_kind,
                is_error,
                language: result.language,
                bytes: result.bytes,
                encoding,
                entry,
            },
            chunks,
        }
    }

    /// Whether the file could not be read (as opposed to skipped on purpose).
    pub fn is_error(&self) -> bool {
        self.fields.is_error
    }

    pub fn path(&self) -> &str {
        &self.fields.path
    }

    pub fn reason(&self) -> Option<&str> {
        self.fields.reason.as_deref()
    }

    /// The Python object.
    pub fn into_py(self, py: Python<'_>) -> PyResult<Py<PyFileResult>> {
        let chunks = self
            .chunks
            .into_iter()
            .map(|(c, s, e)| Py::new(py, PyChunk::new(c, s, e)))
            .collect::<PyResult<Vec<_>>>()?;
        Py::new(py, PyFileResult { fields: self.fields, chunks })
    }

    /// The chunks alone, as Python objects.
    pub fn into_chunks(self, py: Python<'_>) -> PyResult<Vec<Py<PyChunk>>> {
        self.chunks.into_iter().map(|(c, s, e)| Py::new(py, PyChunk::new(c, s, e))).collect()
    }
}

/// What became of one file: `outcome` is `"chunked"`, `"fallback"` (chunked by a coarser
/// atomizer than its own, `reason` says why) or `"skipped"` (`reason` and `skip_kind` say
/// why: `binary`, `not-utf8`, `too-large`, `unreadable`, `ignored`, …). Iterating over it, or
/// `len()`, goes over its chunks.
#[pyclass(module = "cleave._cleave", name = "FileResult", frozen)]
#[derive(Debug)]
pub struct PyFileResult {
    fields: Fields,
    chunks: Vec<Py<PyChunk>>,
}

#[pymethods]
impl PyFileResult {
    /// The file's path (relative to the walked root in `chunk_tree`; as given elsewhere).
    #[getter]
    fn path(&self) -> &str {
        &self.fields.path
    }

    #[getter]
    fn outcome(&self) -> &str {
        &self.fields.outcome
    }

    /// Why the file fell back or was skipped; `None` when chunked.
    #[getter]
    fn reason(&self) -> Option<&str> {
        self.fields.reason.as_deref()
    }

    /// A short stable name of a skip's reason (`binary`, `ignored`, …); `None` unless skipped.
    #[getter]
    fn skip_kind(&self) -> Option<&str> {
        self.fields.skip_kind.as_deref()
    }

    /// Whether the file could not be read (the CLI's exit code would say so).
    #[getter]
    fn is_error(&self) -> bool {
        self.fields.is_error
    }

    #[getter]
    fn language(&self) -> Option<&str> {
        self.fields.language.as_deref()
    }

    /// Size in bytes of the text that was chunked.
    #[getter]
    fn bytes(&self) -> u64 {
        self.fields.bytes
    }

    /// What the chunked text was decoded from when it is not the file's own UTF-8:
    /// `utf-16le`, `utf-16be`, `docx`, `pptx`, `xlsx`; offsets then index that text view.
    #[getter]
    fn encoding(&self) -> Option<&str> {
        self.fields.encoding.as_deref()
    }

    #[getter]
    fn chunks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.chunks.iter().map(|c| c.clone_ref(py)))
    }

    /// The file's entry in `cleave chunk --report` (path, outcome, reason, language, bytes,
    /// encoding, number of chunks, diagnostics, document type), as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (self.fields.entry.as_str(),))
    }

    fn __len__(&self) -> usize {
        self.chunks.len()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.chunks(py)?.try_iter().map(Bound::into_any)
    }

    fn __repr__(&self) -> String {
        match &self.fields.reason {
            Some(reason) => format!(
                "FileResult(path={:?}, outcome={:?}, reason={:?}, chunks={})",
                self.fields.path,
                self.fields.outcome,
                reason,
                self.chunks.len()
            ),
            None => format!(
                "FileResult(path={:?}, outcome={:?}, language={:?}, chunks={})",
                self.fields.path,
                self.fields.outcome,
                self.fields.language.as_deref().unwrap_or(""),
                self.chunks.len()
            ),
        }
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let this = slf.get();
        let state = serde_json::to_vec(&this.fields)
            .map_err(|err| PyValueError::new_err(format!("cannot pickle result: {err}")))?;
        let rebuild = py.get_type::<PyFileResult>().getattr("_from_state")?;
        let chunks = this.chunks(py)?;
        let args = PyTuple::new(py, [PyBytes::new(py, &state).into_any(), chunks.into_any()])?;
        Ok((rebuild, args))
    }

    #[staticmethod]
    fn _from_state(state: &[u8], chunks: Vec<Py<PyChunk>>) -> PyResult<Self> {
        let fields = serde_json::from_slice(state)
            .map_err(|err| PyValueError::new_err(format!("not a pickled result: {err}")))?;
        Ok(Self { fields, chunks })
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> bool {
        let Ok(other) = other.cast::<PyFileResult>() else { return false };
        let other = other.get();
        self.fields == other.fields
            && self.chunks.len() == other.chunks.len()
            && self
                .chunks
                .iter()
                .zip(&other.chunks)
                .all(|(a, b)| a.bind(py).get() == b.bind(py).get())
    }
}
