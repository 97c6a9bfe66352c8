//! `Chunker`: the engine's settings and a pool of threads, and the calls that chunk a text,
//! a file, a batch and a tree.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use cleave_engine::{
    Context, FileResult, Settings, Skip, WalkOptions, chunk_file, chunk_text, read_path, walk,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyBytes, PyString, PyTuple};
use rayon::prelude::*;

use crate::agent;
use crate::chunk::PyChunk;
use crate::error;
use crate::language;
use crate::result::{Prepared, PyFileResult};
use crate::sizer::{Choice, PySizer};
use crate::tree::ChunkTree;

/// Chunks texts, files, batches and trees with one set of options.
///
/// `budget` bounds every chunk, header included, in `unit`: `"chars"` (code points, as
/// Python's `len`), `"tokens"` (tokens of `tokenizer`: `"o200k"` or `"cl100k"`, built in;
/// the path of a Hugging Face `tokenizer.json`; or a callable `count(text) -> int`),
/// `"bytes"` (UTF-8) or `"estimate"` (one token per four bytes). `overlap` repeats that many
/// units of a chunk's end at the start of the next; `headers=False` leaves out the context
/// headers. Files larger than `max_file_size` bytes are skipped unread. `threads` sizes the
/// pool used by `chunk_many` and `chunk_tree` (default: one per core).
#[pyclass(module = "cleave._cleave", name = "Chunker", frozen)]
pub struct Chunker {
    settings: Arc<Settings>,
    args: Args,
    threads: usize,
    pool: OnceLock<Result<Arc<rayon::ThreadPool>, String>>,
    /// A callable tokenizer, whose errors are raised once a call has chunked.
    py_sizer: Option<Arc<PySizer>>,
    /// Parsers reused by `chunk_text` and `chunk_file` from call to call; a call that finds it
    /// taken (another Python thread is chunking) makes its own.
    ctx: Mutex<Context>,
}

/// The constructor's arguments, kept for `repr` and pickling.
struct Args {
    budget: usize,
    unit: String,
    /// As given (`None` for the default, o200k).
    tokenizer: Option<Py<PyAny>>,
    overlap: usize,
    headers: bool,
    max_file_size: u64,
    threads: Option<usize>,
}

/// One item of `chunk_many`: a path to read, or a text or bytes already in memory.
enum Item {
    Path { rel: String, path: PathBuf },
    Text { rel: String, text: PyBackedStr },
    Bytes { rel: String, bytes: PyBackedBytes },
}

/// A path as records name it: as given, `/` separators.
fn rel_of(path: &Path) -> Option<String> {
    let s = path.to_str()?;
    Some(if std::path::MAIN_SEPARATOR == '/' { s.to_owned() } else { s.replace('\\', "/") })
}

impl Chunker {
    /// The first error of a callable tokenizer since the last check: a call that chunked with
    /// a failing tokenizer raises it rather than return chunks measured by a stand-in.
    fn sizer_error(&self) -> PyResult<()> {
        match self.py_sizer.as_ref().and_then(|s| s.take_error()) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    fn pool(&self) -> PyResult<Arc<rayon::ThreadPool>> {
        let pool = self.pool.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(self.threads)
                .thread_name(|i| format!("cleave-{i}"))
                .build()
                .map(Arc::new)
                .map_err(|err| err.to_string())
        });
        pool.clone().map_err(|err| PyRuntimeError::new_err(format!("cannot start threads: {err}")))
    }

    /// Runs `f` with the shared parse context, or a fresh one when another thread has it.
    fn with_context<T>(&self, f: impl FnOnce(&mut Context) -> T) -> T {
        match self.ctx.try_lock() {
            Ok(mut ctx) => f(&mut ctx),
            Err(_) => f(&mut Context::new()),
        }
    }

    fn chunk_item(&self, item: &Item, ctx: &mut Context) -> FileResult {
        let settings = &*self.settings;
        match item {
            Item::Text { rel, text } => chunk_text(rel, text, settings, ctx),
            Item::Bytes { rel, bytes } => chunk_file(rel, bytes.to_vec(), settings, ctx),
            Item::Path { rel, path } => match read_path(path, settings.max_file_size) {
                Ok(bytes) => chunk_file(rel, bytes, settings, ctx),
                Err(reason) => FileResult::skipped(rel, 0, reason),
            },
        }
    }
}

fn extract_item(item: &Bound<'_, PyAny>) -> PyResult<Item> {
    if let Ok(pair) = item.cast::<PyTuple>() {
        if pair.len() != 2 {
            return Err(PyTypeError::new_err(
                "chunk_many items are paths or (path, text) pairs; got a tuple of another length",
            ));
        }
        let path: PathBuf = pair.get_item(0)?.extract()?;
        let rel = rel_of(&path)
            .ok_or_else(|| PyValueError::new_err(format!("path {path:?} is not UTF-8")))?;
        let content = pair.get_item(1)?;
        if content.is_instance_of::<PyString>() {
            return Ok(Item::Text { rel, text: content.extract()? });
        }
        if content.is_instance_of::<PyBytes>() {
            return Ok(Item::Bytes { rel, bytes: content.extract()? });
        }
        return Err(PyTypeError::new_err(format!(
            "{rel}: the text of a (path, text) pair must be str or bytes"
        )));
    }
    let path: PathBuf = item.extract().map_err(|_| {
        PyTypeError::new_err(
            "chunk_many items are paths (str or os.PathLike) or (path, text) pairs",
        )
    })?;
    // A name that is not UTF-8 cannot be named losslessly in records: the item is kept (and
    // skipped with its reason) under a lossy name, so results stay one per item.
    let rel = rel_of(&path).unwrap_or_else(|| path.to_string_lossy().into_owned());
    Ok(Item::Path { rel, path })
}

#[pymethods]
impl Chunker {
    #[new]
    #[pyo3(signature = (
        budget = 2000,
        unit = "chars",
        tokenizer = None,
        overlap = 0,
        headers = true,
        max_file_size = cleave_engine::DEFAULT_MAX_FILE_SIZE,
        threads = None,
    ))]
    // One argument per keyword of the Python constructor.
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        budget: usize,
        unit: &str,
        tokenizer: Option<&Bound<'_, PyAny>>,
        overlap: usize,
        headers: bool,
        max_file_size: u64,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let (config, py_sizer) = Choice::from_arg(py, tokenizer)?.config(budget, unit)?;
        let config = config
            .with_overlap(overlap)
            .map_err(|err| PyValueError::new_err(err.to_string()))?
            .with_headers(headers);
        if threads == Some(0) {
            return Err(PyValueError::new_err("threads must be at least 1"));
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let args = Args {
            budget,
            unit: unit.to_owned(),
            tokenizer: tokenizer.map(|t| t.clone().unbind()),
            overlap,
            headers,
            max_file_size,
            threads,
        };
        Ok(Self {
            settings: Arc::new(Settings::new(config).with_max_file_size(max_file_size)),
            args,
            threads: threads.unwrap_or(cores),
            pool: OnceLock::new(),
            py_sizer,
            ctx: Mutex::new(Context::new()),
        })
    }

    #[getter]
    fn budget(&self) -> usize {
        self.args.budget
    }

    #[getter]
    fn unit(&self) -> &str {
        &self.args.unit
    }

    #[getter]
    fn overlap(&self) -> usize {
        self.args.overlap
    }

    #[getter]
    fn headers(&self) -> bool {
        self.args.headers
    }

    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }

    /// Chunks a text. `path` names it in records and picks its language by extension (as the
    /// CLI does); `language` picks the language by name instead (see `cleave.LANGUAGES`).
    /// Returns the chunks; an empty text has none. The text is chunked as given, so offsets
    /// always index it: a document format the CLI decodes first (`.html`, like `.pdf` or
    /// `.docx`) is decoded only from its bytes (`chunk_file`, `chunk_many` with paths or bytes),
    /// while an HTML string given here is chunked as HTML source.
    #[pyo3(signature = (text, path = None, language = None))]
    fn chunk_text(
        &self,
        py: Python<'_>,
        text: &str,
        path: Option<PathBuf>,
        language: Option<&str>,
    ) -> PyResult<Vec<Py<PyChunk>>> {
        let path = match &path {
            Some(p) => Some(
                rel_of(p)
                    .ok_or_else(|| PyValueError::new_err(format!("path {p:?} is not UTF-8")))?,
            ),
            None => None,
        };
        let rel = language::name_for(path.as_deref(), language)?;
        let prepared = py.detach(|| {
            Prepared::new(self.with_context(|ctx| chunk_text(&rel, text, &self.settings, ctx)))
        });
        self.sizer_error()?;
        prepared.into_chunks(py)
    }

    /// Reads and chunks one file. Records name it by `path` as given. A file that cannot be
    /// read raises `CleaveError`; one that is not text (binary, not UTF-8, over the size
    /// limit) gives a result with outcome `"skipped"` and the reason.
    fn chunk_file(&self, py: Python<'_>, path: PathBuf) -> PyResult<Py<PyFileResult>> {
        let rel = rel_of(&path).unwrap_or_else(|| path.to_string_lossy().into_owned());
        // The metadata is looked up first only to raise the operating system's error
        // (errno, FileNotFoundError's message); the read itself checks the file again.
        if let Err(err) = std::fs::metadata(&path) {
            return Err(error::from_io(py, &rel, &err));
        }
        let max = self.settings.max_file_size;
        let prepared = py.detach(|| {
            let result = match read_path(&path, max) {
                Ok(bytes) => self.with_context(|ctx| chunk_file(&rel, bytes, &self.settings, ctx)),
                Err(reason) => FileResult::skipped(&rel, 0, reason),
            };
            Prepared::new(result)
        });
        self.sizer_error()?;
        if prepared.is_error() || prepared.reason() == Some(&Skip::NotRegular("folder").to_string())
        {
            let reason = prepared.reason().unwrap_or("unreadable").to_owned();
            return Err(error::from_reason(py, prepared.path(), &reason));
        }
        prepared.into_py(py)
    }

    /// Chunks many files or texts in parallel, with the interpreter released. `items` is an
    /// iterable of paths (read from disk) and `(path, text)` pairs (`text` a str, or bytes
    /// decoded as files are). Returns one `FileResult` per item, in input order; an item
    /// that cannot be read or is not text is a result with outcome `"skipped"`, never an
    /// exception.
    fn chunk_many(
        &self,
        py: Python<'_>,
        items: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Py<PyFileResult>>> {
        let items: Vec<Item> =
            items.try_iter()?.map(|item| extract_item(&item?)).collect::<PyResult<_>>()?;
        let pool = self.pool()?;
        let prepared: Vec<Prepared> = py.detach(|| {
            pool.install(|| {
                items
                    .par_iter()
                    .map_init(Context::new, |ctx, item| Prepared::new(self.chunk_item(item, ctx)))
                    .collect()
            })
        });
        self.sizer_error()?;
        prepared.into_iter().map(|p| p.into_py(py)).collect()
    }

    /// Walks `root` (ignore files honoured unless `no_ignore`, hidden entries left out unless
    /// `hidden`, links followed only with `follow` and only inside the root) and returns an
    /// iterator over one `FileResult` per entry, in path order, as each is ready: files are
    /// chunked on the pool in the background while the caller consumes the results. Skipped
    /// entries (ignored, hidden, binary, unreadable) are results too. Records name files
    /// relative to `root`. A root that cannot be walked raises `CleaveError`.
    #[pyo3(signature = (root, hidden = false, no_ignore = false, follow = false))]
    fn chunk_tree(
        &self,
        py: Python<'_>,
        root: PathBuf,
        hidden: bool,
        no_ignore: bool,
        follow: bool,
    ) -> PyResult<ChunkTree> {
        let options =
            WalkOptions { hidden, no_ignore, follow, exclude: Vec::new(), threads: self.threads };
        let walked = py.detach(|| walk(&root, &options));
        let walked = walked.map_err(|err| error::from_io(py, &root.to_string_lossy(), &err))?;
        ChunkTree::start(
            self.pool()?,
            Arc::clone(&self.settings),
            walked.entries,
            self.py_sizer.clone(),
        )
    }

    /// The outline of every file under `path` (a file or a folder): one dict per chunked file,
    /// `{"path", "language", "entries"}`, each entry a symbol (code) or a section (documents)
    /// with its depth, label, qualified name, lines, byte range and the ids of the chunks that
    /// hold it — what `cleave outline --format json` gives, at this chunker's budget.
    #[pyo3(signature = (path, hidden = false, no_ignore = false, follow = false))]
    fn outline<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        hidden: bool,
        no_ignore: bool,
        follow: bool,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let settings = (*self.settings).clone().with_outline(true);
        let walk = agent::Walk { hidden, no_ignore, follow, threads: self.threads };
        let files = agent::collect(py, &path, &settings, &walk)?;
        self.sizer_error()?;
        agent::outlines(py, &files)
    }

    /// Selects what `query` needs from the chunks of `path` (a file or a folder): chunks
    /// ranked by BM25F over body, header, symbols and section path with priors for the kind of
    /// question (`kind`: `"concept"`, `"algorithm"` or `"code"`, guessed when `None`), chosen
    /// whole until the rendered selection would pass `budget` units (this chunker's unit), and
    /// put back in reading order — what `cleave select` does (at most `max_segments` passages;
    /// a single file of at most `passthrough` units comes back whole when it fits). The chunks
    /// are this chunker's, so its budget must be below `budget`. Returns a dict: `passages` (`{"chunk", "title",
    /// "tag", "score"}`), `text` (the passages as an agent reads them, each under a
    /// `=== title [source:…] ===` line), `query_type`, `strategy`, `candidates`, `left_out`,
    /// `size`.
    #[pyo3(signature = (
        path, query, budget, keywords = None, kind = None, max_segments = 20, passthrough = 12_000,
        hidden = false, no_ignore = false, follow = false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn select<'py>(
        &self,
        py: Python<'py>,
        path: PathBuf,
        query: String,
        budget: usize,
        keywords: Option<Vec<String>>,
        kind: Option<String>,
        max_segments: usize,
        passthrough: usize,
        hidden: bool,
        no_ignore: bool,
        follow: bool,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        if self.args.budget >= budget {
            return Err(PyValueError::new_err(format!(
                "the selection budget ({budget}) must be larger than the chunker's ({}): a chunk and its tag line must fit it",
                self.args.budget
            )));
        }
        let walk = agent::Walk { hidden, no_ignore, follow, threads: self.threads };
        let files = agent::collect(py, &path, &self.settings, &walk)?;
        let ask = agent::Ask {
            query,
            budget,
            keywords: keywords.unwrap_or_default(),
            kind,
            max_segments,
            passthrough,
        };
        let out = agent::selection(py, &files, &self.settings, ask)?;
        self.sizer_error()?;
        Ok(out)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let a = &self.args;
        let tokenizer = match &a.tokenizer {
            Some(t) => t.bind(py).repr()?.to_string(),
            None => "None".to_owned(),
        };
        Ok(format!(
            "Chunker(budget={}, unit={:?}, tokenizer={tokenizer}, overlap={}, headers={}, max_file_size={}, threads={})",
            a.budget,
            a.unit,
            a.overlap,
            if a.headers { "True" } else { "False" },
            a.max_file_size,
            a.threads.map_or_else(|| "None".to_owned(), |t| t.to_string())
        ))
    }

    /// Pickling (Ray actors, multiprocessing): the constructor's arguments.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let a = &slf.get().args;
        let args = (
            a.budget,
            a.unit.as_str(),
            a.tokenizer.as_ref().map(|t| t.clone_ref(py)),
            a.overlap,
            a.headers,
            a.max_file_size,
            a.threads,
        )
            .into_pyobject(py)?;
        Ok((py.get_type::<Chunker>().into_any(), args))
    }
}
