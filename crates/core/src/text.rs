//! Source text with a line index: byte offsets ↔ 1-based line numbers.

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
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
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
