//! The decode stage: a file's bytes become the text view that is chunked, or a reason to skip.
//!
//! UTF-8 passes through untouched (a byte-order mark included), so byte ranges index the file.
//! UTF-16 with a byte-order mark is decoded into a UTF-8 text view. Office documents (DOCX,
//! PPTX, XLSX) are decoded into a Markdown text view with a location map (pages, slides,
//! sheets) by the decoder of their row in [`DOCUMENTS`], and so are PDF (pages), EPUB
//! (chapters) and HTML when their cargo feature is on. Records then index the text view, and
//! `cleave verify` re-derives it with the same function.

mod docx;
#[cfg(feature = "epub")]
mod epub;
#[cfg(feature = "html")]
mod html;
mod ooxml;
#[cfg(feature = "pdf")]
mod pdf;
mod pptx;
mod xlsx;

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, catch_unwind};
use std::sync::Once;

pub use cleave_core::PageLabel;

use crate::outcome::Skip;

/// A document decoded to Markdown, with where its pages (slides, sheets) start in it.
pub struct Document {
    /// The Markdown text view.
    pub text: String,
    /// Byte offsets in `text` where each page, slide or sheet starts, in order.
    pub locations: Vec<(usize, PageLabel)>,
    /// What of the document could not be read (a broken page, a chapter too deep to
    /// convert), one line each: the rest is read, and the file is reported as fallen back.
    pub notes: Vec<String>,
}

/// Decoders of document formats, by extension (sorted; a test checks it): the extension, the
/// encoding it is recorded as, which files of that extension are documents (the others are
/// read as text, by their name), and the decoder.
type Decoder = fn(Vec<u8>) -> Result<Document, String>;
type Accepts = fn(&[u8]) -> bool;
const DOCUMENTS: &[(&str, Encoding, Accepts, Decoder)] = &[
    ("docx", Encoding::Docx, every_file, docx::decode),
    #[cfg(feature = "epub")]
    ("epub", Encoding::Epub, every_file, epub::decode),
    #[cfg(feature = "html")]
    ("htm", Encoding::Html, html::is_page, html::decode),
    #[cfg(feature = "html")]
    ("html", Encoding::Html, html::is_page, html::decode),
    #[cfg(feature = "pdf")]
    ("pdf", Encoding::Pdf, every_file, pdf::decode),
    ("pptx", Encoding::Pptx, every_file, pptx::decode),
    ("xlsx", Encoding::Xlsx, every_file, xlsx::decode),
];

fn every_file(_: &[u8]) -> bool {
    true
}

/// Binary document formats whose decoder this build left out, with the cargo feature that
/// brings it: such a file is skipped with a reason naming the feature, not called binary.
/// (HTML is text: without its feature it is chunked as its own source.)
const LEFT_OUT: &[(&str, &str)] = &[
    #[cfg(not(feature = "epub"))]
    ("epub", "epub"),
    #[cfg(not(feature = "pdf"))]
    ("pdf", "pdf"),
];

/// How many leading bytes are searched for a NUL to call a file binary (git's rule).
const BINARY_SNIFF: usize = 8000;

/// The encoding a text view was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Encoding {
    /// UTF-8: the text view is the file.
    #[serde(rename = "utf-8")]
    Utf8,
    /// UTF-16, little-endian, with a byte-order mark (dropped from the view).
    #[serde(rename = "utf-16le")]
    Utf16Le,
    /// UTF-16, big-endian, with a byte-order mark (dropped from the view).
    #[serde(rename = "utf-16be")]
    Utf16Be,
    /// A Word document, read as Markdown.
    #[serde(rename = "docx")]
    Docx,
    /// A PowerPoint deck, read as Markdown, a section per slide.
    #[serde(rename = "pptx")]
    Pptx,
    /// An Excel workbook, read as Markdown, a table per sheet.
    #[serde(rename = "xlsx")]
    Xlsx,
    /// A PDF, its pages' text joined with form feeds, bookmarks as headings.
    #[serde(rename = "pdf")]
    Pdf,
    /// An EPUB book, read as Markdown in spine order, a location per chapter.
    #[serde(rename = "epub")]
    Epub,
    /// An HTML page, read as Markdown.
    #[serde(rename = "html")]
    Html,
}

impl Encoding {
    /// Whether the text view is Markdown made from a document, not the file's own text.
    pub fn is_document(self) -> bool {
        self.document_name().is_some()
    }

    /// The document format's name, for records (`docx`, …).
    pub fn document_name(self) -> Option<&'static str> {
        match self {
            Encoding::Utf8 | Encoding::Utf16Le | Encoding::Utf16Be => None,
            Encoding::Docx => Some("docx"),
            Encoding::Pptx => Some("pptx"),
            Encoding::Xlsx => Some("xlsx"),
            Encoding::Pdf => Some("pdf"),
            Encoding::Epub => Some("epub"),
            Encoding::Html => Some("html"),
        }
    }
}

/// A file's text view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text that is chunked; byte ranges of records index it.
    pub text: String,
    /// What it was decoded from.
    pub encoding: Encoding,
    /// For a document: where its pages, slides or sheets start in `text`.
    pub pages: Vec<(usize, PageLabel)>,
    /// For a document: what of it could not be read (see [`Document::notes`]).
    pub notes: Vec<String>,
}

impl Decoded {
    /// Whether the text view is the file's own bytes.
    pub fn is_verbatim(&self) -> bool {
        self.encoding == Encoding::Utf8
    }
}

/// Decodes the bytes of the file `rel` into its text view, or says why it has none.
pub fn decode(rel: &str, bytes: Vec<u8>) -> Result<Decoded, Skip> {
    if bytes.is_empty() {
        return Err(Skip::Empty);
    }
    let ext = rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    if let Some((name, encoding, _, decoder)) =
        DOCUMENTS.iter().find(|(e, _, accepts, _)| *e == ext && accepts(&bytes))
    {
        // A decoder is code reading untrusted archives: a panic in it is a skip, not a crash.
        return match guarded(|| decoder(bytes)) {
            Ok(Ok(doc)) if doc.text.trim().is_empty() => Err(Skip::NoText(name)),
            Ok(Ok(doc)) => Ok(Decoded {
                text: doc.text,
                encoding: *encoding,
                pages: doc.locations,
                notes: doc.notes,
            }),
            Ok(Err(reason)) => Err(Skip::BadDocument(name, reason)),
            Err(panic) => Err(Skip::BadDocument(name, format!("its decoder failed: {panic}"))),
        };
    }
    if let Some((name, feature)) = LEFT_OUT.iter().find(|(e, _)| *e == ext) {
        return Err(Skip::BadDocument(
            name,
            format!("this cleave was built without its `{feature}` feature"),
        ));
    }
    if let Some(decoded) = utf16_with_bom(&bytes) {
        return decoded;
    }
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF)];
    if sniff.contains(&0) {
        return Err(if looks_like_utf16(sniff) { Skip::Utf16NoBom } else { Skip::Binary });
    }
    match String::from_utf8(bytes) {
        Ok(text) => {
            Ok(Decoded { text, encoding: Encoding::Utf8, pages: Vec::new(), notes: Vec::new() })
        }
        Err(err) => Err(Skip::NotUtf8 { offset: err.utf8_error().valid_up_to() }),
    }
}

thread_local! {
    /// Whether this thread is a decoder thread of [`guarded`], and the panic it met.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `decode` on a thread of its own and turns a panic in it into `Err` with the panic's
/// message and place.
///
/// A thread of its own, because a decoder that panics may leave its thread-local state
/// behind: pdf_oxide 0.3.78 counts its object-loading depth and the objects being resolved in
/// thread-locals that an unwinding panic does not reset, so on the thread of a PDF that
/// panicked every later PDF read "circular references" and lost pages or all its text. The
/// thread costs tens of microseconds against the milliseconds of any document.
///
/// The panic is expected (a third-party decoder meeting a corrupt file), handled, and
/// reported in the skip reason, so it is not printed as well: a panic hook, installed once,
/// keeps the panics of decoder threads to itself and passes every other panic on to the hook
/// that was there before it (the default one, a host application's, or libFuzzer's, which
/// counts every panic it sees as a crash).
fn guarded<T: Send>(decode: impl FnOnce() -> T + Send) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            // `try_with`: a panic while a thread's locals are being torn down must not panic
            // again in here (that would abort the process).
            if GUARDED.try_with(Cell::get).unwrap_or(false) {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".to_owned());
                // One line of it: the message may quote the file's bytes.
                let message = one_line(&message, 160);
                let place = info.location().map_or_else(String::new, |at| {
                    format!(" at {}:{}", crate_relative(at.file()), at.line())
                });
                let _ = PANIC.try_with(|p| *p.borrow_mut() = Some(format!("{message}{place}")));
            } else {
                previous(info);
            }
        }));
    });
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("cleave-decode".to_owned())
            .stack_size(crate::pipeline::WORKER_STACK_BYTES)
            .spawn_scoped(scope, || {
                GUARDED.with(|g| g.set(true));
                catch_unwind(AssertUnwindSafe(decode)).map_err(|_| {
                    PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "a panic".to_owned())
                })
            });
        match thread {
            Ok(thread) => thread.join().unwrap_or_else(|_| Err("a panic".to_owned())),
            Err(e) => Err(format!("no thread to decode it on: {e}")),
        }
    })
}

/// A line of a decoded document as the Markdown view must hold it: one that would read as a
/// heading or open a code fence (`# not a heading`, a line of backticks) gets a backslash
/// before it, after its indent, so a `#` in a PDF line or a Word paragraph is text, not a
/// section.
pub(crate) fn escape_block_start(line: &str) -> std::borrow::Cow<'_, str> {
    let body = line.trim_start_matches([' ', '\t']);
    if body.starts_with('#') || body.starts_with("```") || body.starts_with("~~~") {
        let indent = &line[..line.len() - body.len()];
        format!("{indent}\\{body}").into()
    } else {
        line.into()
    }
}

/// The first line of `text`, cut to at most `max` bytes on a character boundary.
fn one_line(text: &str, max: usize) -> &str {
    let line = text.lines().next().unwrap_or_default();
    let mut end = line.len().min(max);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// A source path below cargo's registry as `crate-version/src/file.rs`, so that a skip reason
/// names the crate that panicked, not this machine's home folder.
fn crate_relative(file: &str) -> &str {
    match file.find("/registry/src/") {
        Some(at) => {
            let rest = &file[at + "/registry/src/".len()..];
            rest.split_once('/').map_or(rest, |(_, in_crate)| in_crate)
        }
        None => file,
    }
}

fn utf16_with_bom(bytes: &[u8]) -> Option<Result<Decoded, Skip>> {
    let (encoding, le) = match bytes {
        [0xFF, 0xFE, ..] => (Encoding::Utf16Le, true),
        [0xFE, 0xFF, ..] => (Encoding::Utf16Be, false),
        _ => return None,
    };
    let body = &bytes[2..];
    if !body.len().is_multiple_of(2) {
        return Some(Err(Skip::BadUtf16 { offset: bytes.len() - 1 }));
    }
    let units = body.chunks_exact(2).map(|p| {
        let pair = [p[0], p[1]];
        if le { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) }
    });
    let mut text = String::with_capacity(body.len());
    for (i, c) in char::decode_utf16(units).enumerate() {
        match c {
            Ok(c) => text.push(c),
            Err(_) => return Some(Err(Skip::BadUtf16 { offset: 2 + 2 * i })),
        }
    }
    if text.is_empty() {
        return Some(Err(Skip::Empty));
    }
    Some(Ok(Decoded { text, encoding, pages: Vec::new(), notes: Vec::new() }))
}

/// Text in UTF-16 without a byte-order mark: most of the even or the odd bytes are NUL and
/// the others are mostly printable ASCII.
fn looks_like_utf16(sniff: &[u8]) -> bool {
    let pairs = sniff.len() / 2;
    if pairs < 2 {
        return false;
    }
    let nul_at = |parity: usize| sniff.iter().skip(parity).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (nul_at(0), nul_at(1));
    let (nuls, other) = if odd >= even { (odd, 0) } else { (even, 1) };
    let printable = sniff
        .iter()
        .skip(other)
        .step_by(2)
        .filter(|&&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b))
        .count();
    nuls * 10 >= pairs * 9 && printable * 10 >= pairs * 9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(text: &str, le: bool) -> Vec<u8> {
        let mut out = if le { vec![0xFF, 0xFE] } else { vec![0xFE, 0xFF] };
        for u in text.encode_utf16() {
            out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        out
    }

    #[test]
    fn a_guarded_panic_is_an_error_with_its_message_and_place() {
        let err = guarded(|| -> u8 { panic!("bad {} at {}", "xref", 7) }).unwrap_err();
        assert!(err.starts_with("bad xref at 7 at "), "{err}");
        assert!(err.contains("decode.rs:"), "{err}");
        let err = guarded(|| -> u8 { panic!("line one\nline two") }).unwrap_err();
        assert!(err.starts_with("line one at "), "{err}");
        assert_eq!(guarded(|| 5), Ok(5));
        assert!(!GUARDED.with(Cell::get), "the caller's thread is not a decoder thread");
    }

    #[test]
    fn thread_local_state_a_panic_leaves_behind_does_not_reach_the_next_decode() {
        thread_local! {
            static DEPTH: Cell<u32> = const { Cell::new(0) };
        }
        // As pdf_oxide's object loader: a depth counted up, and down only on the way out.
        let load = |fail: bool| {
            DEPTH.with(|d| d.set(d.get() + 1));
            assert!(!fail, "corrupt object");
            let depth = DEPTH.with(Cell::get);
            DEPTH.with(|d| d.set(d.get() - 1));
            depth
        };
        assert!(guarded(|| load(true)).is_err());
        assert_eq!(guarded(|| load(false)), Ok(1));
    }

    #[test]
    fn registry_paths_name_the_crate() {
        let file = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pdf_oxide-0.3.78/src/document.rs";
        assert_eq!(crate_relative(file), "pdf_oxide-0.3.78/src/document.rs");
        assert_eq!(crate_relative("crates/engine/src/decode.rs"), "crates/engine/src/decode.rs");
        assert_eq!(one_line("abc\ndef", 2), "ab");
        assert_eq!(one_line("é", 1), "");
    }

    #[test]
    fn documents_are_sorted_by_extension() {
        assert!(DOCUMENTS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[cfg(not(feature = "pdf"))]
    #[test]
    fn a_pdf_without_the_feature_is_skipped_naming_it() {
        let res = decode("paper.pdf", b"%PDF-1.7\n".to_vec());
        assert!(
            matches!(&res, Err(Skip::BadDocument("pdf", why)) if why.contains("`pdf` feature")),
            "{res:?}"
        );
    }

    #[cfg(feature = "pdf")]
    #[test]
    fn a_pdf_is_decoded_with_a_page_per_page() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/documents/paper.pdf"
        ))
        .expect("fixture");
        let d = decode("paper.pdf", bytes).expect("decoded");
        assert_eq!(d.encoding, Encoding::Pdf);
        assert_eq!(d.pages.len(), 4);
        for (n, (at, label)) in d.pages.iter().enumerate() {
            assert_eq!(*label, PageLabel::Page(n as u32 + 1));
            assert!(
                n == 0 || d.text[..*at].ends_with('\u{c}'),
                "page {n} starts after a form feed"
            );
        }
    }

    #[test]
    fn utf8_passes_through_with_its_bom() {
        let d = decode("a.txt", b"\xEF\xBB\xBFhello\n".to_vec()).expect("text");
        assert_eq!(d.text, "\u{feff}hello\n");
        assert!(d.is_verbatim());
    }

    #[test]
    fn utf16_with_a_bom_is_decoded() {
        for le in [true, false] {
            let d = decode("a.txt", utf16("fn main() {}\n// é 𝄞\n", le)).expect("decoded");
            assert_eq!(d.text, "fn main() {}\n// é 𝄞\n");
            assert!(!d.is_verbatim());
        }
    }

    #[test]
    fn broken_utf16_and_utf16_without_bom_say_so() {
        let mut odd = utf16("abc", true);
        odd.push(b'x');
        assert!(matches!(decode("a.txt", odd), Err(Skip::BadUtf16 { .. })));
        let lone = vec![0xFF, 0xFE, 0x00, 0xD8, b'a', 0];
        assert!(matches!(decode("a.txt", lone), Err(Skip::BadUtf16 { offset: 2 })));
        let no_bom: Vec<u8> = "hello world\n".bytes().flat_map(|b| [b, 0]).collect();
        assert_eq!(decode("a.txt", no_bom), Err(Skip::Utf16NoBom));
        assert_eq!(decode("a.txt", b"GIF89a\0\0\x01".to_vec()), Err(Skip::Binary));
        assert_eq!(decode("a.txt", vec![b'a', 0xC3]), Err(Skip::NotUtf8 { offset: 1 }));
        assert_eq!(decode("a.txt", Vec::new()), Err(Skip::Empty));
    }
}
