//! The decode stage: a file's bytes become the text view that is chunked, or a reason to skip.
//!
//! UTF-8 passes through untouched (a byte-order mark included), so byte ranges index the file.
//! UTF-16 with a byte-order mark is decoded into a UTF-8 text view; records then index that
//! view, and `cleave verify` re-derives it with the same function. Binary formats (PDF,
//! DOCX, …) will become formats here too, each with a location map (pages, slides, sheets).

use crate::outcome::Skip;

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
}

/// A file's text view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text that is chunked; byte ranges of records index it.
    pub text: String,
    /// What it was decoded from.
    pub encoding: Encoding,
}

impl Decoded {
    /// Whether the text view is the file's own bytes.
    pub fn is_verbatim(&self) -> bool {
        self.encoding == Encoding::Utf8
    }
}

/// Decodes a file's bytes into its text view, or says why it is not text.
pub fn decode(bytes: Vec<u8>) -> Result<Decoded, Skip> {
    if bytes.is_empty() {
        return Err(Skip::Empty);
    }
    if let Some(decoded) = utf16_with_bom(&bytes) {
        return decoded;
    }
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF)];
    if sniff.contains(&0) {
        return Err(if looks_like_utf16(sniff) { Skip::Utf16NoBom } else { Skip::Binary });
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Decoded { text, encoding: Encoding::Utf8 }),
        Err(err) => Err(Skip::NotUtf8 { offset: err.utf8_error().valid_up_to() }),
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
    Some(Ok(Decoded { text, encoding }))
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
    fn utf8_passes_through_with_its_bom() {
        let d = decode(b"\xEF\xBB\xBFhello\n".to_vec()).expect("text");
        assert_eq!(d.text, "\u{feff}hello\n");
        assert!(d.is_verbatim());
    }

    #[test]
    fn utf16_with_a_bom_is_decoded() {
        for le in [true, false] {
            let d = decode(utf16("fn main() {}\n// é 𝄞\n", le)).expect("decoded");
            assert_eq!(d.text, "fn main() {}\n// é 𝄞\n");
            assert!(!d.is_verbatim());
        }
    }

    #[test]
    fn broken_utf16_and_utf16_without_bom_say_so() {
        let mut odd = utf16("abc", true);
        odd.push(b'x');
        assert!(matches!(decode(odd), Err(Skip::BadUtf16 { .. })));
        let lone = vec![0xFF, 0xFE, 0x00, 0xD8, b'a', 0];
        assert!(matches!(decode(lone), Err(Skip::BadUtf16 { offset: 2 })));
        let no_bom: Vec<u8> = "hello world\n".bytes().flat_map(|b| [b, 0]).collect();
        assert_eq!(decode(no_bom), Err(Skip::Utf16NoBom));
        assert_eq!(decode(b"GIF89a\0\0\x01".to_vec()), Err(Skip::Binary));
        assert_eq!(decode(vec![b'a', 0xC3]), Err(Skip::NotUtf8 { offset: 1 }));
        assert_eq!(decode(Vec::new()), Err(Skip::Empty));
    }
}
