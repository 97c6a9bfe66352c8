//! A small sentence segmenter that knows abbreviations ("Dr.", "e.g.", "Fig.") and initials.
//!
//! UAX#29 sentence breaks cut after every "Dr." and "e.g."; a full segmenter (sentencex) knows
//! more languages but costs a dependency for little gain in chunking, where a missed boundary
//! only makes a sentence longer and a false one only offers the packer a weaker cut.

use std::ops::Range;

/// Whether `c` ends a sentence.
fn is_terminal(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？')
}

/// Whether `c` closes a quotation or bracket that may follow a sentence end.
fn is_closer(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '”' | '’' | '»' | '*' | '_' | '`')
}

/// Whether `c` is a full-width terminal that needs no space after it.
fn is_wide_terminal(c: char) -> bool {
    matches!(c, '。' | '！' | '？')
}

/// Byte offsets where sentences after the first start, inside `range` of `text`.
///
/// A sentence keeps the whitespace after it, so each offset is the first char of a sentence.
/// Offsets inside `opaque` ranges (math, code spans) are never returned, and text inside them
/// is never read as punctuation.
pub(crate) fn sentence_starts(
    text: &str,
    range: Range<usize>,
    opaque: &[Range<usize>],
) -> Vec<usize> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let slice = &text[range.clone()];
    let mut opaque_idx = 0;
    let mut iter = slice.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let at = range.start + i;
        while opaque_idx < opaque.len() && opaque[opaque_idx].end <= at {
            opaque_idx += 1;
        }
        if opaque.get(opaque_idx).is_some_and(|o| o.start <= at) || !is_terminal(c) {
            continue;
        }
        // Take the rest of the terminal run and any closers: `?!`, `."`, `.)`.
        let mut end = at + c.len_utf8();
        while let Some(&(j, d)) = iter.peek() {
            if is_terminal(d) || is_closer(d) {
                end = range.start + j + d.len_utf8();
                iter.next();
            } else {
                break;
            }
        }
        let wide = is_wide_terminal(c);
        // Skip the whitespace after it; Latin sentences need some.
        let mut next = end;
        while next < range.end {
            let d = text[next..].chars().next().unwrap_or(' ');
            if !d.is_whitespace() {
                break;
            }
            next += d.len_utf8();
        }
        if next >= range.end || (next == end && !wide) {
            continue;
        }
        if opaque.iter().any(|o| o.start < next && next < o.end) {
            continue;
        }
        let following = text[next..].chars().next().unwrap_or(' ');
        if following.is_lowercase() {
            continue;
        }
        if c == '.' && !ends_sentence_after_dot(text, range.start, at, bytes) {
            continue;
        }
        out.push(next);
        // Resume after the whitespace.
        while iter.peek().is_some_and(|&(j, _)| range.start + j < next) {
            iter.next();
        }
    }
    out
}

/// Whether the dot at `dot` ends a sentence, judging by the word before it.
fn ends_sentence_after_dot(text: &str, floor: usize, dot: usize, bytes: &[u8]) -> bool {
    let mut start = dot;
    while start > floor {
        let prev = text[..start].chars().next_back().unwrap_or(' ');
        if prev.is_whitespace() || matches!(prev, '(' | '[' | '"' | '“' | '\'' | '*' | '_') {
            break;
        }
        start -= prev.len_utf8();
    }
    let word = &text[start..dot];
    if word.is_empty() {
        return true;
    }
    let lower = word.to_lowercase();
    if crate::words::contains(crate::words::SENTENCE_ABBREVIATIONS, &lower) {
        return false;
    }
    let mut chars = word.chars();
    // Initials: "J. R. R. Tolkien".
    if let (Some(first), None) = (chars.next(), chars.next())
        && first.is_uppercase()
    {
        return false;
    }
    // Dotted abbreviations: "U.S.", "Ph.D.".
    if word.contains('.') && word.chars().all(|c| c.is_alphabetic() || c == '.') {
        return false;
    }
    // An enumerator at the start of a line: "1. First step".
    if word.bytes().all(|b| b.is_ascii_digit()) {
        let line_start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        if text[line_start..start].trim().is_empty() {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        let starts = sentence_starts(text, 0..text.len(), &[]);
        let mut out = Vec::new();
        let mut at = 0;
        for s in starts {
            out.push(&text[at..s]);
            at = s;
        }
        out.push(&text[at..]);
        out
    }

    #[test]
    fn knows_abbreviations_and_initials() {
        assert_eq!(
            split("Dr. Smith met J. R. Doe, e.g. at noon. It rained! Did it? Yes."),
            vec!["Dr. Smith met J. R. Doe, e.g. at noon. ", "It rained! ", "Did it? ", "Yes."]
        );
    }

    #[test]
    fn keeps_quotes_and_numbers() {
        assert_eq!(
            split("He said \"stop.\" Then 3.14 is pi.\n1. Not a break"),
            vec!["He said \"stop.\" ", "Then 3.14 is pi.\n", "1. Not a break"]
        );
        assert_eq!(split("lower case. after dot"), vec!["lower case. after dot"]);
    }

    #[test]
    fn respects_opaque_ranges() {
        let text = "See $a. B$ here. Next.";
        let starts = sentence_starts(text, 0..text.len(), std::slice::from_ref(&(4..10)));
        assert_eq!(starts, vec![17]);
    }

    #[test]
    fn splits_wide_terminals() {
        assert_eq!(split("你好。再见。"), vec!["你好。", "再见。"]);
    }
}
