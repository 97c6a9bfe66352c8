//! Word gaps that pdf_oxide's text assembly drops.
//!
//! A PDF has no spaces of its own where a typesetter places each word with a move of the text
//! position instead of a space glyph (TeX's tables of contents: `List of Figures`). pdf_oxide
//! keeps such a gap as a space on most lines but loses it on some (every line of afthesis's
//! table of contents reads `ListofFigures`, `Thisistheﬁrstchaptertitle`), and a glued word is
//! a word search never finds. The glyphs still say where the gaps are: this module finds each
//! line of glyphs in the page's text and puts back the spaces of the line's gaps that the
//! text glued.
//!
//! Only where it is safe:
//! - a line is found by its glyphs, letter for letter and only once on the page, a token (the
//!   glyphs between two space glyphs) at a time: the text's reading order need not follow the
//!   glyphs' order, and a line read in parts (a table of contents' page numbers elsewhere) is
//!   still found; a token found nowhere or twice is left as the text has it;
//! - only on a line the text glued more than it spaced: on a line whose words are parted by
//!   space glyphs or by gaps the text kept, a gap the text glued is a glyph the extractor could
//!   not map (a lost `ﬁ` leaves `de|ned` a gap of its width apart), not a word space;
//! - never between two one-glyph pieces: letter-spaced words (`a l p h a` in a listing), dot
//!   leaders and spaced-out math stay together.
//!
//! Only spaces are added, never a letter moved or dropped, so the view keeps every glyph the
//! extractor read.

/// A glyph as the gap check needs it: its char, its left and right edge and its baseline on
/// the page (points), and its font size.
#[derive(Debug, Clone, Copy)]
pub(super) struct Glyph {
    pub c: char,
    pub left: f32,
    pub right: f32,
    pub base: f32,
    pub size: f32,
}

/// The least gap between two glyphs of one line that parts two words, in ems of the larger
/// font: TeX's interword space is a third of an em and shrinks to about 0.22; letters of a word
/// sit within a tenth of an em of each other (kerning, italic correction).
pub(super) const WORD_GAP_EM: f32 = 0.2;

/// How far two glyphs' baselines may be apart and still be on one line, in ems.
const SAME_LINE_EM: f32 = 0.3;

/// The fewest chars a token (a run of glyphs between space glyphs) must have to be looked for
/// in the text: a shorter one may be found in the wrong place.
const MIN_TOKEN: usize = 6;

/// The most tokens of a page looked for in its text, and the longest page text searched: each
/// search reads the page's text once, so these bound the work on a pathological page (a data
/// dump of one page, a page of glyphs set one by one) to well under a second. A real page has
/// a few kilobytes of text and at most a few hundred tokens with a gap.
const MAX_SEARCHES: usize = 512;
pub(super) const MAX_TEXT: usize = 256 * 1024;

/// The page's text with the word spaces put back that the glyphs show and the text glued;
/// `None` when there are none.
pub(super) fn restore(text: &str, glyphs: &[Glyph]) -> Option<String> {
    if text.len() > MAX_TEXT {
        return None;
    }
    // The text without white space, and where each of its bytes came from.
    let mut compact = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (at, c) in text.char_indices() {
        if !c.is_whitespace() {
            compact.push(c);
            origin.extend((0..c.len_utf8()).map(|_| at));
        }
    }
    let mut spaces = Vec::new();
    let mut searches = MAX_SEARCHES;
    for line in lines(glyphs) {
        line.put_back(text, &compact, &origin, &mut searches, &mut spaces);
    }
    if spaces.is_empty() {
        return None;
    }
    spaces.sort_unstable();
    spaces.dedup();
    let mut out = String::with_capacity(text.len() + spaces.len());
    let mut from = 0;
    for at in spaces {
        out.push_str(&text[from..at]);
        out.push(' ');
        from = at;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// One line of glyphs: its letters without white space, its pieces (runs of glyphs between
/// gaps and space glyphs) and its gaps.
#[derive(Default)]
struct Line {
    letters: String,
    /// Where each token (a run of glyphs between space glyphs) starts in `letters`.
    tokens: Vec<usize>,
    /// Chars of each piece.
    pieces: Vec<usize>,
    gaps: Vec<Gap>,
    /// Letter pairs that a space glyph parts.
    by_spaces: usize,
}

/// A gap between two glyphs of a line with no space glyph in it.
struct Gap {
    /// Byte offset in the line's letters of the glyph after it.
    at: usize,
    /// Whether it parts two letters or digits.
    letters: bool,
    /// The piece it starts.
    piece: usize,
}

/// The page's glyphs as lines: a glyph is on the line of the glyph before it when their
/// baselines are close and it does not start left of it.
fn lines(glyphs: &[Glyph]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut line = Line::default();
    let mut prev: Option<&Glyph> = None;
    let mut last: Option<&Glyph> = None;
    let mut space = false;
    for g in glyphs {
        let same_line = prev.is_some_and(|p| {
            let em = g.size.max(p.size).max(1.0);
            (g.base - p.base).abs() <= SAME_LINE_EM * em && g.left >= p.left
        });
        if !same_line {
            out.push(std::mem::take(&mut line));
            last = None;
            space = false;
        }
        prev = Some(g);
        if g.c.is_whitespace() || g.c.is_control() {
            space = true;
            continue;
        }
        match last {
            None => {
                line.pieces.push(0);
                line.tokens.push(0);
            }
            Some(p) => {
                let letters = p.c.is_alphanumeric() && g.c.is_alphanumeric();
                if space {
                    line.by_spaces += usize::from(letters);
                    line.pieces.push(0);
                    line.tokens.push(line.letters.len());
                } else if g.left - p.right >= WORD_GAP_EM * g.size.max(p.size).max(1.0) {
                    line.pieces.push(0);
                    let piece = line.pieces.len() - 1;
                    line.gaps.push(Gap { at: line.letters.len(), letters, piece });
                }
            }
        }
        line.letters.push(g.c);
        if let Some(n) = line.pieces.last_mut() {
            *n += 1;
        }
        space = false;
        last = Some(g);
    }
    out.push(line);
    out
}

impl Line {
    /// Adds to `spaces` the text offsets where this line's glued gaps go. Each token of the
    /// line is looked for in the text (a line may be read in parts, its page number elsewhere);
    /// the gaps of the tokens found once are put back when the text glued more of the line's
    /// letter pairs than it parted (by a space glyph, or a space at a gap).
    fn put_back(
        &self,
        text: &str,
        compact: &str,
        origin: &[usize],
        searches: &mut usize,
        spaces: &mut Vec<usize>,
    ) {
        let mut found = Vec::new();
        let (mut kept, mut glued) = (self.by_spaces, 0);
        // The gaps are in line order: each token takes the run of them before its end.
        let mut rest = self.gaps.as_slice();
        for (i, &start) in self.tokens.iter().enumerate() {
            let end = self.tokens.get(i + 1).copied().unwrap_or(self.letters.len());
            let (mine, after) = rest.split_at(rest.partition_point(|g| g.at < end));
            rest = after;
            let token = &self.letters[start..end];
            if mine.is_empty() || token.chars().count() < MIN_TOKEN || *searches == 0 {
                continue;
            }
            *searches -= 1;
            let Some(at) = compact.find(token) else { continue };
            let first = token.chars().next().map_or(1, char::len_utf8);
            if compact[at + first..].contains(token) {
                continue;
            }
            for gap in mine {
                // Where the text has the glyph after the gap, and whether a space precedes it.
                let pos = origin[at + gap.at - start];
                let spaced = text[..pos].chars().next_back().is_some_and(char::is_whitespace);
                if gap.letters {
                    if spaced { kept += 1 } else { glued += 1 }
                }
                let one_glyph_each = self.pieces[gap.piece - 1] == 1 && self.pieces[gap.piece] == 1;
                if !spaced && !one_glyph_each {
                    found.push(pos);
                }
            }
        }
        if glued > kept {
            spaces.extend(found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Glyphs of one line at 10 pt from `words`: letters touch, words are `gap` ems apart;
    /// a `|` in a word is a space glyph.
    fn line(words: &[&str], gap: f32, base: f32) -> Vec<Glyph> {
        let mut x = 0.0;
        let mut out = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                x += gap * 10.0;
            }
            for c in w.chars() {
                let c = if c == '|' { ' ' } else { c };
                out.push(Glyph { c, left: x, right: x + 5.0, base, size: 10.0 });
                x += 5.0;
            }
        }
        out
    }

    #[test]
    fn a_word_the_glyphs_show_glued_gets_its_spaces_back() {
        let glyphs = [
            line(&["List", "of", "Figures"], 0.33, 700.0),
            line(&["I.", "This", "is"], 0.33, 680.0),
        ]
        .concat();
        let text = "ListofFigures ........\n\nI. Thisis\n";
        assert_eq!(
            restore(text, &glyphs).as_deref(),
            Some("List of Figures ........\n\nI. This is\n")
        );
    }

    #[test]
    fn words_already_spaced_and_tight_letters_are_left_alone() {
        let glyphs = line(&["List", "of", "Figures"], 0.1, 700.0);
        assert_eq!(restore("ListofFigures", &glyphs), None);
        let glyphs = line(&["List", "of"], 0.33, 700.0);
        assert_eq!(restore("List of", &glyphs), None);
        // Another line's glyphs: a baseline 5 pt lower is not the same line.
        let mut glyphs = line(&["List"], 0.0, 700.0);
        glyphs.extend(line(&["of"], 0.0, 695.0).into_iter().map(|g| Glyph {
            left: g.left + 30.0,
            right: g.right + 30.0,
            ..g
        }));
        assert_eq!(restore("Listof", &glyphs), None);
    }

    #[test]
    fn letter_spacing_and_leaders_stay_together() {
        let glyphs =
            line(&["a", "l", "p", "h", "a", "=", "4", "required", "packages"], 0.33, 700.0);
        assert_eq!(
            restore("alpha=4requiredpackages", &glyphs).as_deref(),
            Some("alpha=4 required packages")
        );
        // Gaps only before punctuation: no letters are glued, nothing to put back.
        let glyphs = line(&["Vita", ".", ".", "."], 0.5, 700.0);
        assert_eq!(restore("Vita...", &glyphs), None);
    }

    #[test]
    fn a_line_that_parts_its_words_by_space_glyphs_keeps_its_gaps_closed() {
        // `redefined` with the `fi` glyph lost: a gap of its width, on a line whose words
        // space glyphs part.
        let glyphs = line(&["it|is|re", "ned|here"], 0.55, 700.0);
        assert_eq!(restore("it is rened here", &glyphs), None);
        // A line parted by gaps, with a space glyph before its leaders and page number.
        let glyphs = line(&["List", "of", "Figures|.", ".", ".|v"], 0.33, 700.0);
        assert_eq!(restore("ListofFigures ...v", &glyphs).as_deref(), Some("List of Figures ...v"));
    }

    #[test]
    fn a_line_the_text_mostly_spaced_keeps_its_one_glued_gap() {
        // No space glyphs; the extractor spaced the gaps but one, the width of a lost `ﬁ`.
        let glyphs = line(&["uses", "the", "command", "de", "ned", "in"], 0.4, 700.0);
        assert_eq!(restore("uses the command dened in", &glyphs), None);
    }

    #[test]
    fn lines_are_found_in_any_order_and_only_once() {
        let glyphs =
            [line(&["First", "line"], 0.33, 700.0), line(&["Second", "line"], 0.33, 680.0)]
                .concat();
        assert_eq!(
            restore("Secondline\nFirstline\n", &glyphs).as_deref(),
            Some("Second line\nFirst line\n")
        );
        // Found twice: which one the glyphs are is not known.
        let glyphs = line(&["Table", "Six"], 0.33, 700.0);
        assert_eq!(restore("TableSix and TableSix", &glyphs), None);
        // Found nowhere (the text reads it otherwise).
        assert_eq!(restore("Table 6", &glyphs), None);
    }

    #[test]
    fn a_page_searches_a_bounded_number_of_tokens() {
        // 600 glued lines: the first 512 are looked for and mended, the rest left as they are.
        let mut glyphs = Vec::new();
        let mut text = String::new();
        for i in 0..600 {
            let (a, b) = (format!("w{i:03}a"), format!("w{i:03}b"));
            glyphs.extend(line(&[a.as_str(), b.as_str()], 0.33, 10_000.0 - 20.0 * i as f32));
            text.push_str(&format!("{a}{b}\n"));
        }
        let out = restore(&text, &glyphs).expect("mended");
        assert!(out.contains("w000a w000b\n") && out.contains("w511a w511b\n"));
        assert!(out.contains("w512aw512b\n") && out.contains("w599aw599b\n"));
        let big = "x".repeat(MAX_TEXT + 1);
        assert_eq!(restore(&big, &glyphs), None);
    }

    #[test]
    fn only_spaces_are_added_whatever_the_glyphs_and_text() {
        // A small generator (no dependency): lines of words over multi-byte letters, gaps and
        // space glyphs at random, the text with the lines in another order and spaces kept,
        // dropped or doubled at random.
        let mut next = crate::decode::pdf::tests::random(0x2545_f491_4f6c_dd1d);
        let alphabet = ['a', 'b', 'é', 'ﬁ', '年', '.', '1', 'Z'];
        let mut repaired = 0;
        for _ in 0..2000 {
            let mut glyphs = Vec::new();
            let mut texts = Vec::new();
            for l in 0..1 + next(4) {
                let mut x = 0.0;
                let mut text = String::new();
                for w in 0..1 + next(5) {
                    if w > 0 {
                        let space = next(3) == 0;
                        let gap = [0.0, 0.1, 0.3, 0.6][next(4) as usize];
                        if space {
                            glyphs.push(Glyph {
                                c: ' ',
                                left: x,
                                right: x + 3.0,
                                base: l as f32 * 20.0,
                                size: 10.0,
                            });
                            x += 3.0;
                        }
                        x += gap * 10.0;
                        text.push_str(["", " ", "  "][next(3) as usize]);
                    }
                    for _ in 0..1 + next(6) {
                        let c = alphabet[next(alphabet.len() as u64) as usize];
                        glyphs.push(Glyph {
                            c,
                            left: x,
                            right: x + 5.0,
                            base: l as f32 * 20.0,
                            size: 10.0,
                        });
                        x += 5.0;
                        text.push(c);
                    }
                }
                texts.push(text);
            }
            if next(2) == 0 {
                texts.reverse();
            }
            let text = texts.join("\n");
            if let Some(out) = restore(&text, &glyphs) {
                repaired += 1;
                let squeeze =
                    |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
                assert_eq!(squeeze(&out), squeeze(&text), "{text:?} -> {out:?}");
                assert!(out.len() > text.len());
                // Deleting the added spaces gives the text back: every other char is in place.
                let (mut a, mut b) = (out.chars().peekable(), text.chars());
                for c in b.by_ref() {
                    while a.peek() == Some(&' ') && c != ' ' {
                        a.next();
                    }
                    assert_eq!(a.next(), Some(c), "{text:?} -> {out:?}");
                }
            }
        }
        assert!(repaired > 100, "the generator should make repairs, made {repaired}");
    }
}
