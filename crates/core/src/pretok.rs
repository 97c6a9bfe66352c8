//! The OpenAI pre-tokenizers (`o200k_base`, `cl100k_base`) on ASCII text, without a regex.
//!
//! bpe-openai splits text with a regex (three patterns, the look-ahead of `\s+(?!\S)` emulated);
//! on source code that search costs about as much as parsing. On ASCII the patterns reduce to a
//! few character classes, so a hand-written scanner gives the same pre-tokens several times
//! faster. Anything else (a byte of 0x80 or above) goes to bpe-openai's own splitter; the tests
//! compare the two on random text and on every fixture.
//!
//! The patterns, in priority order (leftmost-first), with `L` letters, `N` digits, `\s` white
//! space (`o200k` first; `cl100k` differs where noted):
//!
//! 1. `[^\r\n L N]? [A-Z]* [a-z]+ ('s|'t|'re|'ve|'m|'ll|'d)?` (case-insensitive suffix);
//!    `cl100k`: the suffix alone first, then `[^\r\n L N]? L+`.
//! 2. `[^\r\n L N]? [A-Z]+ [a-z]* (suffix)?`
//! 3. `N{1,3}`
//! 4. ` ?[^\s L N]+ [\r\n/]*` (`cl100k`: `[\r\n]*`)
//! 5. `\s*[\r\n]+`, then `\s+$`, then `\s+(?!\S)`, then `\s+`.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    /// `\r` or `\n`.
    Newline,
    /// Other ASCII white space: space, tab, vertical tab, form feed.
    Space,
    /// Anything else: punctuation, symbols, control characters.
    Other,
}

fn class(b: u8) -> Class {
    match b {
        b'A'..=b'Z' => Class::Upper,
        b'a'..=b'z' => Class::Lower,
        b'0'..=b'9' => Class::Digit,
        b'\r' | b'\n' => Class::Newline,
        b' ' | b'\t' | 0x0B | 0x0C => Class::Space,
        _ => Class::Other,
    }
}

fn is_letter(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

fn is_space(b: u8) -> bool {
    matches!(class(b), Class::Newline | Class::Space)
}

/// End of a contraction suffix (`'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d`, any case) at `at`.
fn suffix(t: &[u8], at: usize) -> Option<usize> {
    if t.get(at) != Some(&b'\'') {
        return None;
    }
    let lower = |i: usize| t.get(at + i).map(u8::to_ascii_lowercase);
    match lower(1)? {
        b's' | b't' | b'm' | b'd' => Some(at + 2),
        b'r' | b'v' if lower(2) == Some(b'e') => Some(at + 3),
        b'l' if lower(2) == Some(b'l') => Some(at + 3),
        _ => None,
    }
}

/// The end of the pre-token starting at `p` (< `t.len()`); `t` is ASCII.
fn piece_end(t: &[u8], p: usize, o200k: bool) -> usize {
    let n = t.len();
    let c = class(t[p]);
    if !o200k && let Some(end) = suffix(t, p) {
        return end;
    }
    // Letters, after at most one character that is neither a line break, a letter nor a digit.
    let q = if matches!(c, Class::Space | Class::Other) { p + 1 } else { p };
    if q < n && is_letter(t[q]) {
        let mut e = q;
        if o200k {
            // `[A-Z]*[a-z]+` or else `[A-Z]+[a-z]*`: either way the upper run, then the lower.
            while e < n && class(t[e]) == Class::Upper {
                e += 1;
            }
            while e < n && class(t[e]) == Class::Lower {
                e += 1;
            }
            return suffix(t, e).unwrap_or(e);
        }
        while e < n && is_letter(t[e]) {
            e += 1;
        }
        return e;
    }
    if c == Class::Digit {
        let mut e = p + 1;
        while e < n && e < p + 3 && class(t[e]) == Class::Digit {
            e += 1;
        }
        return e;
    }
    // Punctuation, after at most one space, then line breaks (and `/` for o200k).
    let q = if t[p] == b' ' && p + 1 < n && class(t[p + 1]) == Class::Other { p + 1 } else { p };
    if class(t[q]) == Class::Other {
        let mut e = q + 1;
        while e < n && class(t[e]) == Class::Other {
            e += 1;
        }
        while e < n && (class(t[e]) == Class::Newline || (o200k && t[e] == b'/')) {
            e += 1;
        }
        return e;
    }
    // White space: up to its last line break; else all of it at the end of the text; else all
    // but its last character; else the one character.
    let mut w = p;
    let mut last_break = None;
    while w < n && is_space(t[w]) {
        if class(t[w]) == Class::Newline {
            last_break = Some(w);
        }
        w += 1;
    }
    match last_break {
        Some(b) => b + 1,
        None if w == n => n,
        None if w - p >= 2 => w - 1,
        None => w,
    }
}

/// Calls `f` with each pre-token of ASCII `text`.
pub(crate) fn ascii_pieces(text: &str, o200k: bool) -> impl Iterator<Item = &str> {
    debug_assert!(text.is_ascii());
    let t = text.as_bytes();
    let mut p = 0;
    std::iter::from_fn(move || {
        (p < t.len()).then(|| {
            let e = piece_end(t, p, o200k);
            let piece = &text[p..e];
            p = e;
            piece
        })
    })
}

#[cfg(test)]
fn ours(text: &str, o200k: bool) -> Vec<&str> {
    ascii_pieces(text, o200k).collect()
}

#[cfg(test)]
fn theirs(text: &str, o200k: bool) -> Vec<&str> {
    let t = if o200k { bpe_openai::o200k_base() } else { bpe_openai::cl100k_base() };
    t.split(text).collect()
}

/// Compares this scanner with bpe-openai's regex on `text`, for both vocabularies.
#[cfg(test)]
pub(crate) fn same_as_bpe_openai(text: &str) -> Result<(), String> {
    for o200k in [true, false] {
        let (a, b) = (ours(text, o200k), theirs(text, o200k));
        if a != b {
            return Err(format!("o200k={o200k} {text:?}:\n ours   {a:?}\n theirs {b:?}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_match_the_regex() {
        let texts = [
            "fn main() {\n    let x = 1;\n\n    println!(\"{x}\");\n}\n// done\n\n\n/// doc\n",
            "def f(x):\n  \n    return x  \n\n\nclass A:\n\tpass\r\n\r\n  # comment\n",
            "HTTPServer fooBar ABc AB1 don't WE'LL it'S 'tis 're x'd 'll\n",
            "1234567 3.14159 a1b2 _under (paren ((nested }\n/ }\n//x ;\n  /x\n",
            "  x   y\t\tz \x0b\x0c w  \n  \n\t\n   ",
            "\x00\x01\x7f\x1c\x1f a\x1fb",
            "   ",
            " ",
            "\n",
            "a",
            "''s 's 'S 'RE 'Ve",
        ];
        for text in texts {
            same_as_bpe_openai(text).unwrap();
        }
    }

    /// Every ASCII file under `CLEAVE_PRETOK_CORPUS` (a slow check, run by hand on the bench
    /// corpora): the same pre-tokens as bpe-openai.
    #[test]
    fn pieces_match_the_regex_on_a_corpus() {
        let Some(root) = std::env::var_os("CLEAVE_PRETOK_CORPUS") else { return };
        let mut dirs = vec![std::path::PathBuf::from(root)];
        let (mut files, mut bytes) = (0, 0);
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path)
                    && text.is_ascii()
                {
                    same_as_bpe_openai(&text)
                        .map_err(|e| format!("{}: {e}", path.display()))
                        .unwrap();
                    files += 1;
                    bytes += text.len();
                }
            }
        }
        eprintln!("pre-tokens identical on {files} ASCII files, {bytes} bytes");
    }
}
