//! Source text with a line index: byte offsets ↔ 1-based line numbers.
//!
//! A line ends at `\n`, at `\r\n` (one break, not two) or at a lone `\r` (classic Mac OS
//! files): the three conventions an editor shows as a new line. Everything in the crate that
//! counts or splits lines goes through [`line_ends`], so line numbers, line pieces and blank-line
//! blocks agree.

/// A file's text together with the byte offset of every line start.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    path: &'a str,
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    /// Indexes `text`, which lives at `path` (relative, `/` separators).
    pub fn new(path: &'a str, text: &'a str) -> Self {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(line_ends(text.as_bytes()));
        Self { path, text, line_starts }
    }

    /// The path the source was read from.
    pub fn path(&self) -> &'a str {
        self.path
    }

    /// The whole text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The 1-based line holding byte `offset` (an offset at the end of the text belongs to the
    /// last line).
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// The 1-based inclusive line range of the non-empty byte range `start..end`.
    pub fn line_range(&self, start: usize, end: usize) -> (usize, usize) {
        let last = if end > start { end - 1 } else { start };
        (self.line_of(start), self.line_of(last))
    }

    /// Byte offsets at which lines start, the first being 0.
    pub fn line_starts(&self) -> &[usize] {
        &self.line_starts
    }

    /// The number of Unicode scalar values before byte `offset`.
    pub fn char_offset(&self, offset: usize) -> usize {
        count_chars(&self.text.as_bytes()[..offset])
    }
}

/// The offset just after each line break in `bytes`: after `\n`, and after `\r` unless `\n`
/// follows it (`\r\n` is one break). A `\r` at the very end of `bytes` counts as a break: a
/// slice that ends between `\r` and `\n` ends its last line there either way.
pub(crate) fn line_ends(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr2_iter(b'\n', b'\r', bytes)
        .filter(move |&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
        .map(|i| i + 1)
}

/// The lines of `text`, each with its line break (see [`line_ends`]); the last may have none.
pub(crate) fn lines_inclusive(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut start = 0;
    line_ends(text.as_bytes()).chain(std::iter::once(text.len())).filter_map(move |end| {
        // Line breaks are ASCII, so every end is a char boundary.
        let line = text.get(start..end).filter(|l| !l.is_empty());
        start = end;
        line
    })
}

/// Counts Unicode scalar values in UTF-8 bytes: every byte that is not a continuation byte.
pub(crate) fn count_chars(bytes: &[u8]) -> usize {
    // Eight bytes at a time: a continuation byte is `0b10xx_xxxx`, high bit set and the next
    // bit clear.
    let mut words = bytes.chunks_exact(8);
    let mut continuations = 0;
    for word in &mut words {
        let x = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        continuations += (x & !(x << 1) & 0x8080_8080_8080_8080).count_ones() as usize;
    }
    let tail = words.remainder();
    continuations += tail.iter().filter(|&&b| b & 0xC0 == 0x80).count();
    bytes.len() - continuations
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_based_and_inclusive() {
        let src = Source::new("a.txt", "ab\ncd\n\nef");
        assert_eq!(src.line_of(0), 1);
        assert_eq!(src.line_of(2), 1, "the newline belongs to its line");
        assert_eq!(src.line_of(3), 2);
        assert_eq!(src.line_of(6), 3);
        assert_eq!(src.line_of(7), 4);
        assert_eq!(src.line_of(9), 4, "end of text is on the last line");
        assert_eq!(src.line_range(0, 3), (1, 1));
        assert_eq!(src.line_range(0, 4), (1, 2));
    }

    /// See: issue 13, "lone-CR files (classic Mac) report line 1 for every chunk".
    #[test]
    fn cr_lf_and_lone_cr_each_end_one_line() {
        let src = Source::new("a.txt", "a\rb\r\nc\nd\r\re");
        assert_eq!(src.line_starts(), &[0, 2, 5, 7, 9, 10]);
        assert_eq!(src.line_of(1), 1, "the \\r belongs to its line");
        assert_eq!(src.line_of(3), 2);
        assert_eq!(src.line_of(4), 2, "\\r\\n is one break");
        assert_eq!(src.line_of(5), 3);
        assert_eq!(src.line_of(9), 5, "a blank line between two lone \\r");
        assert_eq!(src.line_of(10), 6);
        let lines: Vec<&str> = lines_inclusive(src.text()).collect();
        assert_eq!(lines, vec!["a\r", "b\r\n", "c\n", "d\r", "\r", "e"]);
        assert_eq!(lines_inclusive("x\r").collect::<Vec<_>>(), vec!["x\r"]);
        assert_eq!(lines_inclusive("").count(), 0);
        assert_eq!(line_ends(b"a\r").collect::<Vec<_>>(), vec![2], "a slice may end in \\r");
    }

    #[test]
    fn chars_count_scalar_values() {
        assert_eq!(count_chars("héllo ☃ 𝄞".as_bytes()), 9);
        let src = Source::new("x", "é☃x");
        assert_eq!(src.char_offset(5), 2);
        let text = "ascii then é, ☃ and 𝄞 across eight-byte words: ÄÖÜ ß 文字 🎉 done";
        for a in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            for b in (a..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                assert_eq!(count_chars(&text.as_bytes()[a..b]), text[a..b].chars().count());
            }
        }
    }
}
