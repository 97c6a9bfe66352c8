//! Headings told by font size, for a PDF without bookmarks: a line or two set larger than the
//! body text, or set bold in its size, alone in its block, becomes a heading; the larger its
//! size, the higher its level, and bold lines in the body's size come below every size.
//!
//! The body size is the one most letters of the document are set in, code aside. A block is a
//! run of glyphs of one size, in the order the page draws them, on one line or on lines that
//! follow each other (a line that turns from bold to regular or back starts a block): a
//! heading is a block of at most [`MAX_LINES`] lines, so a paragraph set large (an abstract, a
//! pull quote) is not one. A title found on more than [`MAX_PAGES`] pages is a running head,
//! and a class of headings that would give more than [`MAX_PER_PAGE`] a page (a table or a
//! slide set large) gives none. The titles then go through the same matching as bookmarks
//! ([`super::mark_headings`]): a title that is not a whole line (or two) of the page's text is
//! left out, so a large or bold word inside a line never makes a heading.

use std::collections::HashMap;

use super::gaps::{Glyph, WORD_GAP_EM};

/// The least ratio of a heading's size to the body's: LaTeX's `\large` over 11 pt text is
/// 1.09 (a subsection), Word's Heading 3 over Normal 1.17. Sizes within this of the body (a
/// rounding, a different font's metrics) are body text.
const MIN_RATIO: f32 = 1.08;

/// The most lines a heading takes.
const MAX_LINES: usize = 2;

/// The longest title, in chars.
const MAX_CHARS: usize = 150;

/// A title on more pages than this is a running head, not a heading.
const MAX_PAGES: usize = 2;

/// The most headings of one size a page holds on average over the document.
const MAX_PER_PAGE: usize = 4;

/// The deepest level sizes give: deeper differences in size are rarely levels.
const MAX_DEPTH: usize = 4;

/// How far the next line of a block may lie below the last one, in ems of its size.
const MAX_LEADING_EM: f32 = 2.5;

/// How far two glyphs' baselines may be apart and still be on one line, in ems.
const SAME_LINE_EM: f32 = 0.3;

/// The class of lines set bold in the body's size: below every size.
const BOLD: u32 = 0;

/// A glyph's style, as the headings by size read it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Style {
    /// Set in a typewriter font.
    pub mono: bool,
    /// Set in a bold font.
    pub bold: bool,
}

/// A block of one size: its size in half points, its lines, and its text.
struct Block {
    key: u32,
    lines: usize,
    text: String,
    letters: usize,
    /// Its letters and digits in a monospaced font: a heading may name a command
    /// (`Definition of \pdfstringdef`), a line mostly of code is none.
    code: usize,
    /// Its letters in a bold font.
    bold: usize,
    /// Whether its first glyph is bold.
    starts_bold: bool,
    last: Glyph,
}

/// A document's font sizes and the blocks that may be headings, page by page.
#[derive(Default)]
pub(super) struct Sizes {
    /// Letters (not in a monospaced font) per size in half points: a document sets its text
    /// in a few sizes, so a short list, searched from the last size used.
    letters: Vec<(u32, usize)>,
    last: usize,
    /// Per page, the blocks short enough to be headings: (size in half points, whether it is
    /// bold, title).
    pages: Vec<Vec<(u32, bool, String)>>,
}

impl Sizes {
    /// Adds the next page, from its glyphs in the order the page draws them (none for a page
    /// that could not be read), each with its style: code is neither the body (a package's
    /// documentation holds more code than prose) nor a heading.
    pub(super) fn add_page(&mut self, glyphs: &[Glyph], styles: &[Style]) {
        let mut blocks = Vec::new();
        let mut open: Option<Block> = None;
        for (i, g) in glyphs.iter().enumerate() {
            if !(g.size.is_finite() && g.size > 0.0) {
                continue;
            }
            let Style { mono, bold } = styles.get(i).copied().unwrap_or_default();
            if g.c.is_whitespace() {
                if let Some(b) = open.as_mut()
                    && !b.text.ends_with(' ')
                {
                    b.text.push(' ');
                }
                continue;
            }
            let key = (g.size * 2.0).round() as u32;
            // Letters only: a listing's line numbers are no body text.
            if g.c.is_alphabetic() && !mono {
                self.count(key);
            }
            if let Some(b) = open.as_mut().filter(|b| b.key == key) {
                let em = g.size;
                let same_line = (g.base - b.last.base).abs() <= SAME_LINE_EM * em;
                let below = b.last.base - g.base;
                if same_line {
                    if g.left - b.last.right > WORD_GAP_EM * em && !b.text.ends_with(' ') {
                        b.text.push(' ');
                    }
                } else if below > SAME_LINE_EM * em
                    && below <= MAX_LEADING_EM * em
                    && bold == b.starts_bold
                {
                    // The next line, unless it changes from bold to regular or back: a bold
                    // heading in the body's size is a block of its own, apart from the
                    // paragraph under it.
                    b.lines += 1;
                    if !b.text.ends_with(' ') {
                        b.text.push(' ');
                    }
                } else {
                    blocks.extend(open.take());
                }
            } else {
                blocks.extend(open.take());
            }
            let b = open.get_or_insert_with(|| Block {
                key,
                lines: 1,
                text: String::new(),
                letters: 0,
                code: 0,
                bold: 0,
                starts_bold: bold,
                last: *g,
            });
            b.text.push(g.c);
            b.letters += usize::from(g.c.is_alphabetic());
            b.code += usize::from(mono && g.c.is_alphanumeric());
            b.bold += usize::from(bold && g.c.is_alphabetic());
            b.last = *g;
        }
        blocks.extend(open);
        let titles = blocks
            .into_iter()
            .filter(|b| {
                b.code * 2 <= b.letters
                    && b.lines <= MAX_LINES
                    && b.letters >= 2
                    && b.text.len() <= MAX_CHARS * 4
            })
            .map(|b| (b.key, b.bold * 10 >= b.letters * 9, b.text.trim().to_owned()))
            .filter(|(_, _, t)| {
                t.chars().count() <= MAX_CHARS && !is_contents_line(t) && !is_list_item(t)
            })
            .collect();
        self.pages.push(titles);
    }

    /// Counts a letter of size `key`.
    fn count(&mut self, key: u32) {
        if self.letters.get(self.last).is_none_or(|(k, _)| *k != key) {
            self.last = match self.letters.iter().position(|(k, _)| *k == key) {
                Some(i) => i,
                None => {
                    self.letters.push((key, 0));
                    self.letters.len() - 1
                }
            };
        }
        self.letters[self.last].1 += 1;
    }

    /// The headings by page, each as (its level, 1 for the largest size, and its title), in the
    /// order the page draws them; none when the document has no body size or no larger one.
    pub(super) fn headings(&self) -> Vec<Vec<(usize, String)>> {
        let n_pages = self.pages.len();
        let mut out = vec![Vec::new(); n_pages];
        // The body: the size most letters are set in (the smaller on a tie).
        let Some(body) = self
            .letters
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|&(key, _)| key)
        else {
            return out;
        };
        // A title's class: its size when it is larger than the body's, [`BOLD`] when it is set
        // bold in the body's size (a rounding below it included).
        let class = |key: u32, bold: bool| {
            let (key_f, body_f) = (key as f32, body as f32);
            if key_f >= body_f * MIN_RATIO {
                Some(key)
            } else if bold && key_f * MIN_RATIO >= body_f {
                Some(BOLD)
            } else {
                None
            }
        };
        let mut pages_of: HashMap<String, usize> = HashMap::new();
        for page in &self.pages {
            let mut seen: Vec<String> = page
                .iter()
                .filter(|(key, bold, _)| class(*key, *bold).is_some())
                .map(|(_, _, t)| running_key(t))
                .collect();
            seen.sort_unstable();
            seen.dedup();
            for letters in seen {
                *pages_of.entry(letters).or_default() += 1;
            }
        }
        let title_class = |key: u32, bold: bool, title: &str| {
            class(key, bold)
                .filter(|_| pages_of.get(&running_key(title)).is_some_and(|&n| n <= MAX_PAGES))
        };
        let mut per_size: HashMap<u32, usize> = HashMap::new();
        for (key, bold, title) in self.pages.iter().flatten() {
            if let Some(class) = title_class(*key, *bold, title) {
                *per_size.entry(class).or_default() += 1;
            }
        }
        per_size.retain(|_, n| *n <= MAX_PER_PAGE * n_pages.max(1));
        // A size's level: one below each larger size that heads two or more parts (bold lines
        // in the body's size below them all). A size used once (a title, a cover's lines)
        // takes no level from those below it.
        let depth = |key: u32| {
            let above = per_size.iter().filter(|&(&k, &n)| k > key && n >= 2).count();
            (above + 1).min(MAX_DEPTH)
        };
        for (page, titles) in self.pages.iter().enumerate() {
            for (key, bold, title) in titles {
                if let Some(class) = title_class(*key, *bold, title)
                    && per_size.contains_key(&class)
                {
                    out[page].push((depth(class), title.clone()));
                }
            }
        }
        out
    }
}

/// Whether a line reads as an entry of a table of contents: a title and a page number, after
/// a section number (`2 Guidelines for Authors 6`) or dot leaders (`Diagnosis.......13`).
fn is_contents_line(title: &str) -> bool {
    let numeral =
        |t: &str| t.bytes().any(|b| b.is_ascii_digit()) && !t.chars().any(char::is_alphabetic);
    let page_number = title.trim_end().bytes().next_back().is_some_and(|b| b.is_ascii_digit());
    let leaders = ["...", ". . .", "…", "·"].iter().any(|l| title.contains(l));
    if !page_number || leaders {
        return page_number;
    }
    let mut words = title.split_whitespace();
    let (Some(first), Some(last)) = (words.next(), words.next_back()) else { return false };
    words.next().is_some() && numeral(first) && last.bytes().all(|b| b.is_ascii_digit())
}

/// A title as running heads are told apart: its letters, lower-cased, without its digits (a
/// running head often carries the page number: `Projections of Education Statistics 31`).
fn running_key(title: &str) -> String {
    title.chars().filter(|c| c.is_alphabetic()).flat_map(char::to_lowercase).collect()
}

/// Whether a line starts with a bullet: a slide's points are set larger than its notes, and
/// are items of a list, not headings.
fn is_list_item(title: &str) -> bool {
    title.starts_with([
        '•', '◦', '▪', '▫', '‣', '⁃', '∙', '·', '●', '○', '■', '□', '➢', '►', '–', '-', '*',
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The glyphs of `lines`, each (its text, its size, its baseline), set from x = 72 with
    /// letters half an em wide and words a third of an em apart.
    fn page(lines: &[(&str, f32, f32)]) -> Vec<Glyph> {
        let mut out = Vec::new();
        for &(text, size, base) in lines {
            let mut x = 72.0;
            for c in text.chars() {
                if c == ' ' {
                    x += size / 3.0;
                    continue;
                }
                out.push(Glyph { c, left: x, right: x + size / 2.0, base, size });
                x += size / 2.0;
            }
        }
        out
    }

    const BODY: &str = "body text set in the size most of the letters of the document are in";

    #[test]
    fn larger_lines_are_headings_by_level_and_paragraphs_are_not() {
        let mut sizes = Sizes::default();
        sizes.add_page(
            &page(&[
                ("A Study of Things", 17.0, 700.0),
                ("1 Introduction", 12.0, 650.0),
                (BODY, 10.0, 630.0),
                (BODY, 10.0, 618.0),
                ("1.1 Scope", 11.0, 590.0),
                (BODY, 10.0, 570.0),
                // An abstract set large: three lines, a paragraph.
                ("a paragraph set larger", 12.0, 540.0),
                ("than the body over", 12.0, 526.0),
                ("three lines", 12.0, 512.0),
            ]),
            &[],
        );
        sizes.add_page(
            &page(&[
                ("2 Method, over", 12.0, 700.0),
                ("two lines", 12.0, 686.0),
                (BODY, 10.0, 660.0),
                (BODY, 10.0, 648.0),
            ]),
            &[],
        );
        let got = sizes.headings();
        assert_eq!(
            got,
            [
                // The title, used once, takes no level from the sections below it.
                vec![
                    (1, "A Study of Things".to_owned()),
                    (1, "1 Introduction".to_owned()),
                    (2, "1.1 Scope".to_owned())
                ],
                vec![(1, "2 Method, over two lines".to_owned())],
            ]
        );
    }

    #[test]
    fn bold_lines_in_the_body_size_are_the_deepest_headings() {
        let lines = [
            ("1 Method", 12.0, 700.0),
            (BODY, 10.0, 680.0),
            ("1.1 Data and its sources", 10.0, 660.0),
            (BODY, 10.0, 648.0),
            (BODY, 10.0, 636.0),
            ("2 Results", 12.0, 610.0),
            (BODY, 10.0, 590.0),
        ];
        let glyphs = page(&lines);
        // "1.1 Data and its sources" is bold, and so is one word of the last body line.
        let bold_from = glyphs.iter().position(|g| g.base == 660.0).expect("bold line");
        let bold_to = glyphs.iter().position(|g| g.base == 648.0).expect("body");
        let styles: Vec<Style> = (0..glyphs.len())
            .map(|i| Style {
                mono: false,
                bold: (bold_from..bold_to).contains(&i) || i + 3 >= glyphs.len(),
            })
            .collect();
        let mut sizes = Sizes::default();
        sizes.add_page(&glyphs, &styles);
        assert_eq!(
            sizes.headings(),
            [vec![
                (1, "1 Method".to_owned()),
                (2, "1.1 Data and its sources".to_owned()),
                (1, "2 Results".to_owned())
            ]]
        );
    }

    #[test]
    fn running_heads_figures_and_large_tables_make_no_headings() {
        let mut sizes = Sizes::default();
        for n in 0..4 {
            let number = format!("{}", n + 1);
            // Cells of a table set large: six one-line blocks a page, each its own.
            let cells: Vec<String> = (0..6).map(|i| format!("cell {i} of {number}")).collect();
            // The running head carries the page's number.
            let head = format!("Journal of Things {number}");
            let mut lines = vec![(head.as_str(), 14.0, 760.0), (number.as_str(), 14.0, 40.0)];
            lines.extend((0..10).map(|i| (BODY, 10.0, 700.0 - 12.0 * i as f32)));
            lines.extend(
                cells.iter().zip(0..).map(|(c, i)| (c.as_str(), 11.0, 500.0 - 40.0 * i as f32)),
            );
            sizes.add_page(&page(&lines), &[]);
        }
        assert!(sizes.headings().iter().all(Vec::is_empty), "{:?}", sizes.headings());
        // Code set larger than the prose, a table of contents' entries and a bullet point: no
        // headings. The code is not the body either, though most letters are in it.
        let mut sizes = Sizes::default();
        let glyphs = page(&[
            ("Contents", 14.0, 760.0),
            ("1 Introduction 4", 12.0, 740.0),
            ("2 Usage 9", 12.0, 726.0),
            (BODY, 10.0, 716.0),
            ("Diagnosis.......13", 12.0, 704.0),
            (BODY, 10.0, 700.0),
            ("• A point of a slide", 12.0, 690.0),
            ("\\def\\macro{expansion}", 11.0, 680.0),
            ("\\def\\other{expansion and more}", 9.0, 660.0),
            ("\\def\\other{expansion and more}", 9.0, 650.0),
        ]);
        let code_from = glyphs.iter().position(|g| g.c == '\\').expect("code");
        let styles: Vec<Style> =
            (0..glyphs.len()).map(|i| Style { mono: i >= code_from, bold: false }).collect();
        sizes.add_page(&glyphs, &styles);
        assert_eq!(sizes.headings(), [vec![(1, "Contents".to_owned())]]);
        // A document all of one size has no headings, and one without glyphs none either.
        let mut flat = Sizes::default();
        flat.add_page(&page(&[(BODY, 10.0, 700.0), ("Short line", 10.0, 680.0)]), &[]);
        flat.add_page(&[], &[]);
        assert_eq!(flat.headings(), [vec![], vec![]]);
        assert_eq!(Sizes::default().headings(), Vec::<Vec<(usize, String)>>::new());
    }
}
