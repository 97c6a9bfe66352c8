//! Chunk records as JSON, byte for byte what `serde_json` writes for [`Chunk`], with the long
//! strings (body, header) escaped eight bytes at a time. Escaping the body was ≈ 2 % of a run's
//! instructions through `serde_json`, which looks up every byte in a table; code has runs of
//! tens of bytes between the newlines and quotes that need escaping.
//!
//! Small nested records (part, provenance, classification) and the content kind still go
//! through `serde_json`. The tests check the whole record against `serde_json::to_vec`.

use cleave_core::Chunk;

/// Appends `chunk` as one JSON object, fields in declaration order, optional fields left out
/// when unset (as the `Serialize` derive does).
pub fn write_chunk(out: &mut Vec<u8>, chunk: &Chunk) -> serde_json::Result<()> {
    out.extend_from_slice(b"{\"id\":");
    write_str(out, &chunk.id);
    out.extend_from_slice(b",\"path\":");
    write_str(out, &chunk.path);
    out.extend_from_slice(b",\"language\":");
    write_str(out, &chunk.language);
    out.extend_from_slice(b",\"kind\":");
    serde_json::to_writer(&mut *out, &chunk.kind)?;
    for (key, value) in [
        (&b",\"byte_start\":"[..], chunk.byte_start),
        (b",\"byte_end\":", chunk.byte_end),
        (b",\"line_start\":", chunk.line_start),
        (b",\"line_end\":", chunk.line_end),
        (b",\"tokens\":", chunk.tokens),
    ] {
        out.extend_from_slice(key);
        write_usize(out, value);
    }
    out.extend_from_slice(b",\"symbols\":");
    write_strs(out, &chunk.symbols);
    out.extend_from_slice(b",\"scope\":");
    write_strs(out, &chunk.scope);
    if let Some(part) = &chunk.part {
        out.extend_from_slice(b",\"part\":");
        serde_json::to_writer(&mut *out, part)?;
    }
    if let Some(provenance) = &chunk.provenance {
        out.extend_from_slice(b",\"provenance\":");
        serde_json::to_writer(&mut *out, provenance)?;
    }
    if let Some(classification) = &chunk.classification {
        out.extend_from_slice(b",\"classification\":");
        serde_json::to_writer(&mut *out, classification)?;
    }
    out.extend_from_slice(b",\"header\":");
    write_str(out, &chunk.header);
    out.extend_from_slice(b",\"text\":");
    write_str(out, &chunk.text);
    out.push(b'}');
    Ok(())
}

fn write_usize(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

fn write_strs(out: &mut Vec<u8>, items: &[String]) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, item);
    }
    out.push(b']');
}

/// Appends `s` as a JSON string: `"` and `\` escaped, control chars as `\n`, `\t`, … or
/// `\u00XX`, everything else (non-ASCII included) as is.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut at = 0;
    while let Some(i) = next_escape(bytes, at) {
        out.extend_from_slice(&bytes[start..i]);
        let byte = bytes[i];
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let (hi, lo) = (HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]);
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', hi, lo]);
            }
        }
        start = i + 1;
        at = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The first byte at or after `from` that JSON must escape: below 0x20, `"` or `\`.
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    // Eight bytes at a time. Each test below sets the high bit of the bytes that are such a
    // byte, and maybe of some bytes above the first one (a borrow runs upwards only from a
    // byte that is one), so the lowest set bit always marks the first such byte.
    while let Some(word) = bytes.get(at..at + 8) {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS;
        let quote = has_zero(x ^ (ONES * u64::from(b'"')));
        let backslash = has_zero(x ^ (ONES * u64::from(b'\\')));
        let found = control | quote | backslash;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes[at..].iter().position(|&b| b < 0x20 || b == b'"' || b == b'\\').map(|i| at + i)
}

fn has_zero(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

#[cfg(test)]
mod tests {
    use cleave_core::{Chunk, Classification, ContentKind, Part, Provenance};

    use super::*;

    fn serde(s: &str) -> Vec<u8> {
        serde_json::to_vec(s).expect("a string serializes")
    }

    #[test]
    fn strings_escape_as_serde_json_does() {
        // Every ASCII byte and some non-ASCII, at every offset into the eight-byte words.
        let all: String = (0u8..128).map(char::from).collect();
        let tail = "é☃𝄞\u{7f}\u{2028}\"\\";
        for lead in 0..17 {
            for s in [format!("{}{all}{tail}", "x".repeat(lead)), "a".repeat(lead)] {
                let mut out = Vec::new();
                write_str(&mut out, &s);
                assert_eq!(out, serde(&s), "{s:?}");
            }
        }
        for c in (0u32..0x3000).filter_map(char::from_u32) {
            for lead in [0, 7, 8, 9] {
                let s = format!("{}{c}abcdefghij", "y".repeat(lead));
                let mut out = Vec::new();
                write_str(&mut out, &s);
                assert_eq!(out, serde(&s), "{s:?}");
            }
        }
    }

    fn chunk() -> Chunk {
        Chunk {
            id: "0123456789abcdef".into(),
            path: "src/a \"b\".rs".into(),
            language: "rust".into(),
            kind: ContentKind::Code,
            byte_start: 0,
            byte_end: 18_446_744,
            line_start: 1,
            line_end: usize::MAX,
            tokens: 1999,
            symbols: vec!["a::b".into(), "c\td".into()],
            scope: vec![],
            part: None,
            provenance: None,
            classification: None,
            header: "// src/a.rs\n// in impl A\n".into(),
            text: "fn main() {\n\tprintln!(\"hi\\n\");\r\n}\u{1}\n".into(),
        }
    }

    #[test]
    fn records_match_serde_json() {
        let mut c = chunk();
        let check = |c: &Chunk| {
            let mut out = Vec::new();
            write_chunk(&mut out, c).expect("writes");
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&serde_json::to_vec(c).expect("serializes"))
            );
        };
        check(&c);
        c.part = Some(Part { index: 2, count: 3, of: "fn main".into(), protected: false });
        c.scope = vec!["impl A".into()];
        check(&c);
        c.kind = ContentKind::Prose;
        c.provenance = Some(Provenance {
            section: vec!["Guide".into()],
            paragraph: 3,
            char_offset: 120,
            page: Some(cleave_core::PageLabel::Page(2)),
            page_end: Some(cleave_core::PageLabel::Page(3)),
            tag: "[source:a.pdf | pp.2-3 | ¶3 | @120]".into(),
        });
        c.classification = Some(Classification {
            content_type: "theory".into(),
            has_math: true,
            has_code: false,
            has_table: false,
            keywords: vec!["x".into()],
        });
        check(&c);
        c.part = None;
        c.symbols.clear();
        c.header.clear();
        c.text.clear();
        check(&c);
    }
}
