//! The exception a failing file raises, carrying the file's path.

use pyo3::create_exception;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

create_exception!(
    cleave,
    CleaveError,
    PyOSError,
    "A file or folder cleave could not read. `path` (and `filename`) name it; `errno` is set \
     when the operating system gave one."
);

/// A `CleaveError` for `path` from an operating-system error: `errno`, `strerror` and
/// `filename` are set as for any `OSError`, so `str(err)` reads `[Errno 2] …: 'path'`.
pub fn from_io(py: Python<'_>, path: &str, err: &std::io::Error) -> PyErr {
    let err = match err.raw_os_error() {
        Some(code) => {
            CleaveError::new_err((code, strip_os_error(&err.to_string()), path.to_owned()))
        }
        None => CleaveError::new_err(format!("{path}: {err}")),
    };
    with_path(py, err, path)
}

/// A `CleaveError` for `path` with a reason of cleave's own (a skip reason, a walk error).
pub fn from_reason(py: Python<'_>, path: &str, reason: &str) -> PyErr {
    with_path(py, CleaveError::new_err(format!("{path}: {reason}")), path)
}

fn with_path(py: Python<'_>, err: PyErr, path: &str) -> PyErr {
    // Setting an attribute on a fresh exception object cannot fail short of memory; if it
    // does, the error still says the path in its message.
    let value = err.value(py);
    let _ = value.setattr("path", path);
    let _ = value.setattr("filename", path);
    err
}

/// `No such file or directory (os error 2)` → `No such file or directory`: the errno is
/// already in the exception.
fn strip_os_error(message: &str) -> String {
    match message.rfind(" (os error ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}
