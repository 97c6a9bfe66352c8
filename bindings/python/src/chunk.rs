//! One chunk record as a Python object, with character offsets beside the byte offsets.

use cleave_engine::{Chunk, write_chunk};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A chunk: a whole unit of a file (a function, a class, a section) with the header that says
/// where it comes from. Every field of the JSON record is an attribute; `char_start` and
/// `char_end` index the file's text in code points, so `text[c.char_start:c.char_end] ==
/// c.text` in Python.
#[pyclass(module = "cleave._cleave", name = "Chunk", frozen, eq)]
#[derive(Debug, Clone, PartialEq)]
pub struct PyChunk {
    chunk: Chunk,
    char_start: usize,
    char_end: usize,
}

impl PyChunk {
    pub fn new(chunk: Chunk, char_start: usize, char_end: usize) -> Self {
        Self { chunk, char_start, char_end }
    }

    pub fn chunk(&self) -> &Chunk {
        &self.chunk
    }

    fn record(&self) -> PyResult<Vec<u8>> {
        let mut out = Vec::with_capacity(self.chunk.text.len() + self.chunk.header.len() + 256);
        write_chunk(&mut out, &self.chunk)
            .map_err(|err| PyValueError::new_err(format!("cannot write the record: {err}")))?;
        Ok(out)
    }
}

/// Character offsets (start, end) of each chunk in its file, from the chunks alone.
///
/// Bodies cover their file in order (invariant 1: they tile it, or overlap by a little with
/// `overlap`), so every chunk's start lies inside an earlier chunk's body, usually the one
/// just before; counting that body's chars up to it gives the offset without the file's text.
/// Should a start not be found in any earlier body (which the invariant rules out), the bytes
/// between are counted as one char each rather than failing.
pub fn char_offsets(chunks: &[Chunk]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(chunks.len());
    for (idx, chunk) in chunks.iter().enumerate() {
        let start = locate(chunks, &out, idx, chunk.byte_start);
        out.push((start, start + count_chars(&chunk.text)));
    }
    out
}

/// The char offset of byte `at`, from the chunks before `idx` and their offsets.
fn locate(chunks: &[Chunk], offsets: &[(usize, usize)], idx: usize, at: usize) -> usize {
    if idx == 0 {
        return at.min(chunks.first().map_or(0, |c| c.byte_start));
    }
    for prev in (0..idx).rev() {
        let c = &chunks[prev];
        if c.byte_start <= at
            && at <= c.byte_end
            && let Some(head) = c.text.get(..at - c.byte_start)
        {
            return offsets[prev].0 + count_chars(head);
        }
    }
    let (prev_end_byte, prev_end_char) = (chunks[idx - 1].byte_end, offsets[idx - 1].1);
    prev_end_char + at.saturating_sub(prev_end_byte)
}

/// Code points in `s`: bytes that do not continue a UTF-8 sequence.
fn count_chars(s: &str) -> usize {
    s.as_bytes().iter().filter(|&&b| (b as i8) >= -0x40).count()
}

fn json_loads<'py>(py: Python<'py>, json: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (PyBytes::new(py, json),))
}

pub fn to_py<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_vec(value)
        .map_err(|err| PyValueError::new_err(format!("cannot serialise: {err}")))?;
    json_loads(py, &json)
}

#[pymethods]
impl PyChunk {
    /// Stable content id: a hash of path and body.
    #[getter]
    fn id(&self) -> &str {
        &self.chunk.id
    }

    /// Path relative to the walked root, `/` separators.
    #[getter]
    fn path(&self) -> &str {
        &self.chunk.path
    }

    /// Language or format: `rust`, `python`, `markdown`, `text`, …
    #[getter]
    fn language(&self) -> &str {
        &self.chunk.language
    }

    /// `code`, `prose` or `data`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.chunk.kind {
            cleave_engine::ContentKind::Code => "code",
            cleave_engine::ContentKind::Prose => "prose",
            cleave_engine::ContentKind::Data => "data",
        }
    }

    #[getter]
    fn byte_start(&self) -> usize {
        self.chunk.byte_start
    }

    #[getter]
    fn byte_end(&self) -> usize {
        self.chunk.byte_end
    }

    #[getter]
    fn char_start(&self) -> usize {
        self.char_start
    }

    #[getter]
    fn char_end(&self) -> usize {
        self.char_end
    }

    #[getter]
    fn line_start(&self) -> usize {
        self.chunk.line_start
    }

    #[getter]
    fn line_end(&self) -> usize {
        self.chunk.line_end
    }

    /// Size of header + body in the chunker's unit.
    #[getter]
    fn tokens(&self) -> usize {
        self.chunk.tokens
    }

    #[getter]
    fn symbols(&self) -> Vec<String> {
        self.chunk.symbols.clone()
    }

    #[getter]
    fn scope(&self) -> Vec<String> {
        self.chunk.scope.clone()
    }

    /// `{"index", "count", "of", "protected"}` when the chunk is a part of a larger atom.
    #[getter]
    fn part<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.chunk.part.as_ref().map(|p| to_py(py, p)).transpose()
    }

    /// For documents: `{"section", "paragraph", "char_offset", "page"?, "page_end"?, "tag"}`.
    #[getter]
    fn provenance<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.chunk.provenance.as_ref().map(|p| to_py(py, p)).transpose()
    }

    /// For documents: content type, has_math / has_code / has_table, keywords.
    #[getter]
    fn classification<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.chunk.classification.as_ref().map(|c| to_py(py, c)).transpose()
    }

    #[getter]
    fn header(&self) -> &str {
        &self.chunk.header
    }

    #[getter]
    fn text(&self) -> &str {
        &self.chunk.text
    }

    /// Header and body, as handed to a model.
    #[getter]
    fn rendered(&self) -> String {
        self.chunk.rendered()
    }

    /// The JSON record, byte for byte the line `cleave chunk --format jsonl` prints.
    fn to_json(&self) -> PyResult<String> {
        // The record is built from `String`s and numbers only, so it is UTF-8.
        String::from_utf8(self.record()?)
            .map_err(|err| PyValueError::new_err(format!("record is not UTF-8: {err}")))
    }

    /// The JSON record as a dict (keys in record order); with `char_offsets=True` it also
    /// holds `char_start` and `char_end`.
    #[pyo3(signature = (char_offsets = false))]
    fn to_dict<'py>(&self, py: Python<'py>, char_offsets: bool) -> PyResult<Bound<'py, PyAny>> {
        let dict = json_loads(py, &self.record()?)?;
        if char_offsets {
            dict.set_item("char_start", self.char_start)?;
            dict.set_item("char_end", self.char_end)?;
        }
        Ok(dict)
    }

    fn __len__(&self) -> usize {
        self.chunk.text.chars().count()
    }

    fn __repr__(&self) -> String {
        format!(
            "Chunk(path={:?}, lines={}-{}, tokens={}, scope={:?}, symbols={})",
            self.chunk.path,
            self.chunk.line_start,
            self.chunk.line_end,
            self.chunk.tokens,
            self.chunk.scope,
            self.chunk.symbols.len()
        )
    }

    fn __str__(&self) -> String {
        self.chunk.rendered()
    }

    /// Pickling: the record (serde's form, which round-trips every field) and the offsets.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let this = slf.get();
        let state = serde_json::to_vec(&this.chunk)
            .map_err(|err| PyValueError::new_err(format!("cannot pickle chunk: {err}")))?;
        let rebuild = py.get_type::<PyChunk>().getattr("_from_state")?;
        let args = PyTuple::new(
            py,
            [
                PyBytes::new(py, &state).into_any(),
                this.char_start.into_pyobject(py)?.into_any(),
                this.char_end.into_pyobject(py)?.into_any(),
            ],
        )?;
        Ok((rebuild, args))
    }

    #[staticmethod]
    fn _from_state(state: &[u8], char_start: usize, char_end: usize) -> PyResult<Self> {
        let chunk = serde_json::from_slice(state)
            .map_err(|err| PyValueError::new_err(format!("not a pickled chunk: {err}")))?;
        Ok(Self { chunk, char_start, char_end })
    }

    /// A chunk from its JSON record (a line of `cleave chunk --format jsonl`); character
    /// offsets cannot be known from a record alone and are given, or left at 0.
    #[staticmethod]
    #[pyo3(signature = (record, char_start = 0, char_end = 0))]
    fn from_json(record: &str, char_start: usize, char_end: usize) -> PyResult<Self> {
        Self::_from_state(record.as_bytes(), char_start, char_end)
    }
}
