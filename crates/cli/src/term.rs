//! Messages for people, on stderr, and writing to stdout: never a panic on a closed pipe or a
//! full disk (`eprintln!` and `println!` panic on both).

use std::fmt::Display;
use std::io::{self, Write};

/// Prints `cleave: {msg}` on stderr; a stderr that cannot be written to is not an error.
pub fn warn(msg: impl Display) {
    let _ = writeln!(io::stderr().lock(), "cleave: {msg}");
}

/// Prints a line on stderr as is.
pub fn note(line: impl Display) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Writes `bytes` to stdout and flushes; the error names stdout.
pub fn stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush()).map_err(|err| StdoutError(err).into())
}

/// A failed write to stdout, kept typed so that `main` can tell a closed pipe (the reader had
/// enough: exit 0) from a full disk (exit 2).
#[derive(Debug)]
pub struct StdoutError(pub io::Error);

impl Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stdout: cannot write: {}", self.0)
    }
}

impl std::error::Error for StdoutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// Whether an error chain ends in a closed pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || e.downcast_ref::<StdoutError>()
                .is_some_and(|e| e.0.kind() == io::ErrorKind::BrokenPipe)
    })
}
