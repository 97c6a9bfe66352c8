//! How an entry of a run ends: chunked, fallen back to a coarser atomizer, or skipped with a
//! reason.

use std::fmt;
use std::fs::Metadata;

use serde::{Serialize, Serializer};

/// Why a file or another entry of a tree was not chunked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skip {
    /// No bytes.
    Empty,
    /// A NUL byte in the first 8000 bytes.
    Binary,
    /// Not valid UTF-8.
    NotUtf8 {
        /// Offset of the first invalid byte.
        offset: usize,
    },
    /// UTF-16 with a byte-order mark that does not decode.
    BadUtf16 {
        /// Offset of the first bad code unit.
        offset: usize,
    },
    /// Text that looks like UTF-16 but has no byte-order mark.
    Utf16NoBom,
    /// Larger than the run's limit; not read.
    TooLarge {
        /// Size in bytes.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Could not be opened or read.
    Unreadable(String),
    /// A symbolic link, not followed.
    Symlink,
    /// A symbolic link whose target lies outside the walked root.
    LinkOutsideRoot,
    /// A symbolic link whose target does not exist.
    BrokenLink,
    /// A symbolic link in a loop: back to a folder on its own path (whose files are walked
    /// anyway), or through other links to itself.
    LinkLoop,
    /// Not a regular file: a FIFO, a socket, a device.
    NotRegular(&'static str),
    /// The entry changed between the walk and the read (replaced by a link or another file).
    Changed,
    /// Left out by an ignore file (`.gitignore`, `.ignore`, …), here or above the root.
    Ignored,
    /// A hidden file or folder.
    Hidden,
    /// A version-control folder.
    VersionControl,
    /// An output of this cleave run, or a temporary folder of an earlier one.
    Output,
    /// A name that is not valid UTF-8: records could not name it losslessly.
    NonUtf8Name,
    /// A document (DOCX, …) that could not be decoded: corrupt, truncated, encrypted.
    BadDocument(&'static str, String),
    /// A document with no text to chunk (images only, an empty deck).
    NoText(&'static str),
}

impl Skip {
    /// A short, stable name for the summary's counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Skip::Empty => "empty",
            Skip::Binary => "binary",
            Skip::NotUtf8 { .. } | Skip::BadUtf16 { .. } | Skip::Utf16NoBom => "not-utf8",
            Skip::TooLarge { .. } => "too-large",
            Skip::Unreadable(_) => "unreadable",
            Skip::Symlink | Skip::LinkOutsideRoot | Skip::BrokenLink | Skip::LinkLoop => "symlink",
            Skip::NotRegular(_) => "not-regular",
            Skip::Changed => "changed",
            Skip::Ignored => "ignored",
            Skip::Hidden => "hidden",
            Skip::VersionControl => "vcs",
            Skip::Output => "output",
            Skip::NonUtf8Name => "bad-name",
            Skip::BadDocument(..) => "bad-document",
            Skip::NoText(_) => "no-text",
        }
    }

    /// Whether the skip means something went wrong (the exit code says so).
    pub fn is_error(&self) -> bool {
        matches!(self, Skip::Unreadable(_) | Skip::Changed)
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::Empty => f.write_str("empty"),
            Skip::Binary => f.write_str("binary (NUL byte)"),
            Skip::NotUtf8 { offset } => write!(f, "not UTF-8 (invalid byte at offset {offset})"),
            Skip::BadUtf16 { offset } => {
                write!(f, "not UTF-8: UTF-16 with a bad code unit at offset {offset}")
            }
            Skip::Utf16NoBom => {
                f.write_str("not UTF-8: looks like UTF-16 without a byte-order mark")
            }
            Skip::TooLarge { size, limit } => {
                write!(f, "over the size limit ({size} bytes > {limit})")
            }
            Skip::Unreadable(err) => write!(f, "unreadable: {err}"),
            Skip::Symlink => {
                f.write_str("symlink (not followed; --follow follows links inside the root)")
            }
            Skip::LinkOutsideRoot => f.write_str("symlink to a target outside the walked root"),
            Skip::BrokenLink => f.write_str("symlink to nothing (its target does not exist)"),
            Skip::LinkLoop => f.write_str(
                "symlink in a loop (back to a folder on its own path, or through links to itself)",
            ),
            Skip::NotRegular(what) => write!(f, "not a regular file ({what})"),
            Skip::Changed => f.write_str("changed between the walk and the read"),
            Skip::Ignored => f.write_str("ignored by an ignore file"),
            Skip::Hidden => f.write_str("hidden (--hidden includes it)"),
            Skip::VersionControl => f.write_str("version-control folder"),
            Skip::Output => f.write_str("output of cleave"),
            Skip::NonUtf8Name => f.write_str("file name is not UTF-8"),
            Skip::BadDocument(format, reason) => {
                write!(f, "{format} that cannot be read: {reason}")
            }
            Skip::NoText(format) => write!(f, "{format} without text (images only, or empty)"),
        }
    }
}

impl Serialize for Skip {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// How a file ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// Chunked by its own atomizer.
    Chunked,
    /// Chunked, but by a coarser atomizer than its own.
    Fallback {
        /// Why.
        reason: String,
    },
    /// Not chunked.
    Skipped {
        /// Why.
        reason: Skip,
    },
}

impl Skip {
    /// `NotRegular` for metadata that is not a regular file (a folder, FIFO, socket, device).
    pub fn not_regular(meta: &Metadata) -> Option<Skip> {
        let t = meta.file_type();
        if t.is_file() {
            return None;
        }
        if t.is_dir() {
            return Some(Skip::NotRegular("folder"));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            for (is, what) in [
                (t.is_fifo(), "FIFO"),
                (t.is_socket(), "socket"),
                (t.is_char_device(), "character device"),
                (t.is_block_device(), "block device"),
            ] {
                if is {
                    return Some(Skip::NotRegular(what));
                }
            }
        }
        Some(Skip::NotRegular("special file"))
    }
}
