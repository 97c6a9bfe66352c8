//! Bounded parsing of minified or generated code. A section that is still longer than
//! [`PIECE_BYTES`] after the cuts between top-level items (no blank line between its items, or
//! one huge line) is parsed in pieces of at most that length, each on its own: tree-sitter
//! holds about 85 bytes per source byte while it parses, so a 16 MB minified bundle parsed
//! whole peaks over a gigabyte. Pieces end where a cheap lexical scan (strings, comments,
//! brackets; no grammar) finds the shallowest statement end or line end in the last half of
//! the piece's room, so that most pieces are whole statements; a piece that starts or ends
//! inside a bracket parses with errors, which degrade locally as anywhere else.

use std::ops::Range;

/// Longest section parsed whole when it is no list of top-level items cut at blank lines (see
/// `section_starts`) and no item of member runs, and the longest piece of a longer one: about
/// 180 MB of tree-sitter memory. Above any such section of the bench corpora (the largest is
/// Go's generated `opGen.go`, 1.05 MB with no cut), so that their atoms stay those of a whole
/// parse.
pub const PIECE_BYTES: usize = 2 << 20;

/// What the cut scanner needs to know of a language's tokens: where strings and comments
/// start and end, so that brackets and semicolons inside them are not counted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lexis {
    /// `#` starts a line comment (Python); else `//` does.
    pub hash_comments: bool,
    /// `'` quotes one character (`'a'`, `'\n'`) and is otherwise a lifetime or label (Rust,
    /// Go, Java); else it quotes strings as `"` does.
    pub char_quote: bool,
    /// `` ` `` quotes a string that may span lines (template literals, Go raw strings).
    pub backtick: bool,
    /// `/` after an operator starts a regular expression literal (JavaScript, TypeScript).
    pub regex: bool,
    /// `"""` and `'''` quote strings that span lines (Python).
    pub triple: bool,
}

/// C, Go, Java and Rust: `//` and `/* */` comments, `'` quotes one character.
pub(crate) const C_LIKE: Lexis =
    Lexis { hash_comments: false, char_quote: true, backtick: true, regex: false, triple: false };
/// JavaScript and TypeScript: `'` quotes strings, templates span lines, regex literals.
pub(crate) const ECMA: Lexis =
    Lexis { hash_comments: false, char_quote: false, backtick: true, regex: true, triple: false };
/// PHP: `//` and `/* */` comments, `'` quotes strings.
pub(crate) const PHP: Lexis =
    Lexis { hash_comments: false, char_quote: false, backtick: true, regex: false, triple: false };
/// Shell, Ruby, Perl: `#` comments, `'` quotes strings, backticks run commands.
pub(crate) const SCRIPT: Lexis =
    Lexis { hash_comments: true, char_quote: false, backtick: true, regex: false, triple: false };
/// Python: `#` comments, triple-quoted strings.
pub(crate) const PYTHON: Lexis =
    Lexis { hash_comments: true, char_quote: false, backtick: false, regex: false, triple: true };

/// The pieces of `section`, as ranges (see [`piece_starts`]).
pub(crate) fn pieces(
    text: &str,
    section: Range<usize>,
    piece_bytes: usize,
    lexis: Lexis,
) -> Vec<Range<usize>> {
    let end = section.end;
    let starts = piece_starts(text, section, piece_bytes, lexis);
    starts.iter().enumerate().map(|(j, &s)| s..starts.get(j + 1).copied().unwrap_or(end)).collect()
}

/// Where the pieces of `section` start: its start, then one cut at most `piece_bytes` after
/// the previous one. The cut is the candidate with the lowest cost in the second half of that
/// room (the latest of equals, so that pieces stay long), where a candidate follows a `;`, a
/// `}` or a newline outside strings and comments, and costs its bracket depth (a newline
/// before an indented line counts one level deeper: it is inside a block in Python). With no
/// candidate in the room, the cut falls at its end (at a char boundary). The scan is a guess
/// about tokens, not a parse; it only chooses among cuts, which are always bounded.
pub(crate) fn piece_starts(
    text: &str,
    section: Range<usize>,
    piece_bytes: usize,
    lexis: Lexis,
) -> Vec<usize> {
    let bytes = text.as_bytes();
    let piece_bytes = piece_bytes.max(2);
    let mut starts = vec![section.start];
    let mut from = section.start;
    // The best candidate of the current room: (cost, position).
    let mut best: Option<(usize, usize)> = None;
    let mut depth = 0usize;
    // The last byte of code that was no white space, for telling a regex from a division.
    let mut prev = b';';
    let mut i = section.start;
    let end = section.end;
    while i < end {
        // Close the room when the scan passes its end.
        if i > from + piece_bytes {
            if section.end - from <= piece_bytes {
                break;
            }
            let cut = best.take().map_or_else(|| forced_cut(text, from, piece_bytes), |b| b.1);
            starts.push(cut);
            from = cut;
            // A forced cut may fall behind the scan; candidates behind it are not in the
            // new room, whose second half starts past the scan anyway.
            continue;
        }
        let b = bytes[i];
        let mut candidate = None;
        match b {
            b'\n' => {
                // A line continued by a backslash (Python, C macros) goes on past the newline.
                // Only this line's trailing blanks are skipped: the scan stays linear.
                let mut j = i;
                while j > section.start && matches!(bytes[j - 1], b' ' | b'\t' | b'\r') {
                    j -= 1;
                }
                let continued = j > section.start && bytes[j - 1] == b'\\';
                let indented = bytes.get(i + 1).is_some_and(|c| matches!(c, b' ' | b'\t'));
                if !continued {
                    candidate = Some(depth + usize::from(indented));
                }
                i += 1;
            }
            b';' => {
                candidate = Some(depth);
                prev = b;
                i += 1;
            }
            b'{' | b'(' | b'[' => {
                depth += 1;
                prev = b;
                i += 1;
            }
            b'}' | b')' | b']' => {
                depth = depth.saturating_sub(1);
                if b == b'}' {
                    candidate = Some(depth);
                }
                prev = b;
                i += 1;
            }
            b'#' if lexis.hash_comments => i = line_end(bytes, i, end),
            b'/' if !lexis.hash_comments && bytes.get(i + 1) == Some(&b'/') => {
                i = line_end(bytes, i, end);
            }
            b'/' if !lexis.hash_comments && bytes.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&bytes[i + 2..end], b"*/").map_or(end, |j| i + 2 + j + 2);
            }
            b'/' if lexis.regex && after_operator(prev) => {
                i = regex_end(bytes, i, end);
                prev = b'a';
            }
            b'"' | b'\'' if lexis.triple && bytes[i..end].starts_with(&[b; 3]) => {
                i = memchr::memmem::find(&bytes[i + 3..end], &[b; 3]).map_or(end, |j| i + 6 + j);
                prev = b'a';
            }
            b'\'' if lexis.char_quote => {
                i = char_end(bytes, i, end);
                prev = b'a';
            }
            b'"' | b'\'' => {
                i = quoted_end(bytes, i, end, b, false);
                prev = b'a';
            }
            b'`' if lexis.backtick => {
                i = quoted_end(bytes, i, end, b, true);
                prev = b'a';
            }
            b' ' | b'\t' | b'\r' => i += 1,
            _ => {
                prev = b;
                i += 1;
            }
        }
        // `i` is now just past the token; a candidate cut falls there.
        if let Some(depth) = candidate
            && i >= from + piece_bytes / 2
            && i <= from + piece_bytes
        {
            let cost = depth;
            if best.is_none_or(|(c, _)| cost <= c) {
                best = Some((cost, i));
            }
        }
    }
    // The scan ended inside the last room: what is left past it is cut at the bound.
    while section.end - from > piece_bytes {
        let cut = best.take().map_or_else(|| forced_cut(text, from, piece_bytes), |b| b.1);
        starts.push(cut);
        from = cut;
    }
    starts
}

/// A cut where no candidate is: at the bound, moved back to a char boundary (forward when
/// that would give an empty piece).
fn forced_cut(text: &str, from: usize, piece_bytes: usize) -> usize {
    let cut = cleave_core::floor_char_boundary(text, from + piece_bytes);
    if cut > from { cut } else { cleave_core::ceil_char_boundary(text, from + piece_bytes) }
}

/// Whether a `/` after `prev` starts a regular expression rather than a division.
fn after_operator(prev: u8) -> bool {
    matches!(
        prev,
        b'(' | b','
            | b'='
            | b':'
            | b'['
            | b'!'
            | b'&'
            | b'|'
            | b'?'
            | b'{'
            | b'}'
            | b';'
            | b'+'
            | b'-'
            | b'*'
            | b'%'
            | b'<'
            | b'>'
            | b'~'
            | b'^'
    )
}

/// Just past the end of the line that holds `i` (its newline not included, so that the
/// newline is still seen as a candidate).
fn line_end(bytes: &[u8], i: usize, end: usize) -> usize {
    memchr::memchr(b'\n', &bytes[i..end]).map_or(end, |j| i + j)
}

/// Just past the string that opens with the quote at `i`: its closing quote, unescaped. A
/// string that may not span lines also ends at a newline (before it): a quote misread as one
/// then spoils at most a line.
fn quoted_end(bytes: &[u8], i: usize, end: usize, quote: u8, multiline: bool) -> usize {
    let mut j = i + 1;
    while j < end {
        match bytes[j] {
            b'\\' => j += 2,
            b'\n' if !multiline => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    end
}

/// Just past a character literal at `i` (`'a'`, `'\n'`, `'\u{1F600}'`, `'é'`); just past the
/// quote when it opens none (a Rust lifetime or loop label).
fn char_end(bytes: &[u8], i: usize, end: usize) -> usize {
    let close = |from: usize, most: usize| {
        bytes[from..end.min(from + most)].iter().position(|&c| c == b'\'').map(|j| from + j + 1)
    };
    match bytes.get(i + 1) {
        Some(b'\\') => close(i + 2, 12).unwrap_or(i + 1),
        Some(&c) if c != b'\'' && c != b'\n' => {
            // One char of up to four bytes, then the closing quote.
            let len = match c {
                0xF0.. => 4,
                0xE0.. => 3,
                0xC0.. => 2,
                _ => 1,
            };
            if bytes.get(i + 1 + len) == Some(&b'\'') { i + 2 + len } else { i + 1 }
        }
        _ => i + 1,
    }
}

/// Just past a regular expression literal at `i`: its closing `/` outside a character class,
/// then its flags; it cannot span lines.
fn regex_end(bytes: &[u8], i: usize, end: usize) -> usize {
    let mut j = i + 1;
    let mut class = false;
    while j < end {
        match bytes[j] {
            b'\\' => j += 1,
            b'\n' => return j,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => {
                j += 1;
                while j < end && bytes[j].is_ascii_alphabetic() {
                    j += 1;
                }
                return j;
            }
            _ => {}
        }
        j += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, bound: usize, lexis: Lexis) -> Vec<&str> {
        let ranges = pieces(text, 0..text.len(), bound, lexis);
        assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= bound), "{ranges:?}");
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start), "{ranges:?}");
        ranges.into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn cuts_prefer_shallow_statement_ends() {
        let text = "var a={b:1};function f(){return g(1);}var c=2;";
        assert_eq!(cut(text, 40, ECMA), ["var a={b:1};function f(){return g(1);}", "var c=2;"]);
        // Not inside a string, a comment or a regex.
        let text = "x=\"a;}b;\";/* ; } */y=/;}[;]/g;z=1;";
        let cuts = cut(text, 20, ECMA);
        assert_eq!(cuts.concat(), text);
        assert!(cuts.iter().all(|p| p.ends_with(';') || p == &cuts[cuts.len() - 1]), "{cuts:?}");
        assert_eq!(cuts[0], "x=\"a;}b;\";");
    }

    #[test]
    fn lines_before_indented_lines_are_deeper() {
        let text = "a = 1\nb = 2\nif x:\n    y = 2\n    z = 3\n";
        assert_eq!(cut(text, 24, PYTHON)[0], "a = 1\nb = 2\n");
        // `#` comments hide brackets.
        let text = "a = 1\nbb = 22\nc = 3 + \\\n4\nd = 5\n";
        assert_eq!(cut(text, 24, PYTHON)[0], "a = 1\nbb = 22\n", "not after a backslash");
        let text = "a = 1\nbb = 2\nc = 3 # (\nd = 4\ne = 5\n";
        assert_eq!(cut(text, 24, PYTHON)[0], "a = 1\nbb = 2\nc = 3 # (\n");
    }

    #[test]
    fn lifetimes_are_no_strings() {
        assert_eq!(char_end(b"'a' ", 0, 4), 3);
        assert_eq!(char_end(b"'a> ", 0, 4), 1);
        assert_eq!(char_end(b"'\\n' ", 0, 5), 4);
        assert_eq!(char_end("'é' ".as_bytes(), 0, 5), 4);
        assert_eq!(char_end(b"'static", 0, 7), 1);
    }

    #[test]
    fn text_without_candidates_is_cut_at_the_bound() {
        let text = "é".repeat(50);
        let cuts = cut(&text, 15, ECMA);
        assert!(cuts.len() >= 7, "{cuts:?}");
        assert_eq!(cuts.concat(), text);
    }
}
