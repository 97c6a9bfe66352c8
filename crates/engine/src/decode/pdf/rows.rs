//! Pages read a row of glyphs at a time.
//!
//! pdf_oxide's text assembly puts a page's text in an order of its own making, and on a page
//! of one column that order is often not the page's: it reads some tables of contents as if
//! set in two columns (holtxdoc's first page: the entries with their dot leaders, then the page
//! numbers glued into runs such as `223` and `889999` after the abstract, with `doc` of
//! `2.7.1 Package doc` among them), sets the raised and lowered letters of TeX's logos on lines
//! of their own (`LT X` / `A E`) and moves a title's first word away from the rest. The glyphs
//! still say where each letter is. A page of one column is read from them: a row per line of
//! text, top to bottom and left to right, a space where a space glyph or a word gap stands, a
//! blank line where rows lie further apart than a paragraph's lines. Raised and lowered letters
//! (a logo's `A`, a subscript, the `nd` of `2nd`) join the line they belong to; an accent set
//! above a letter does not.
//!
//! Only where it is safe; otherwise the page keeps the extractor's reading (and the word-gap
//! and shifted-letter repairs of it):
//! - never on a page set in columns (a band of its width that its rows' words all but never
//!   cross, with a fifth of its letters or more on each side): reading its rows across would
//!   interleave the columns;
//! - never on a page where text is drawn over text (a label over a title): its rows would
//!   interleave the two letter by letter;
//! - only when the rows hold exactly the characters of the extractor's text, white space and
//!   the line-end hyphens the extractor joined aside: nothing is lost, added or read twice (a
//!   glyph set at an angle, which the rows leave out, keeps the page as read).

use super::gaps::{Glyph, MAX_TEXT};

/// How far raised or lowered letters may lie from the line they belong to, in ems of the
/// larger font of the two: raised and lowered letters of TeX's logos
/// sit 0.17-0.22 em off, lines of text at least 1 em apart.
const ROW_EM: f32 = 0.3;

/// How far apart two glyphs' baselines may be on one line of text, in ems of the larger font
/// (a line's glyphs may sit a fraction of a point apart).
const LINE_EM: f32 = 0.1;

/// A line of short runs whose font is smaller than this share of a line's font may be its
/// script: raised or lowered by up to [`SCRIPT_EM`].
const SCRIPT_SIZE: f32 = 0.9;

/// How far a superscript or subscript in a smaller font may lie from its line, in ems of the
/// line's font: TeX raises superscripts 0.36-0.45 em (`2nd`, footnote marks).
const SCRIPT_EM: f32 = 0.5;

/// The most pairs of neighbouring letters on a page's rows that may cover each other (a kerned
/// pair, a glyph drawn twice for a bold effect) before the page counts as text drawn over text.
const MAX_OVERPRINTS: usize = 2;

/// The longest run of glyphs (letters less than a word gap apart) of a line that is no line
/// of words of its own but raised or lowered letters of another: a logo's `A`, a subscript.
const SHORT_RUN: usize = 3;

/// Glyphs of one row closer than this (in ems of the page's usual font) are one run of words
/// when looking for a gutter: words sit a third of an em apart and leader dots half an em,
/// LaTeX's columns at least an em.
const GUTTER_EM: f32 = 0.8;

/// The narrowest band, in ems, that can be a gutter between columns.
const GUTTER_WIDTH_EM: f32 = 0.5;

/// The share of the rows with text that may cross a gutter (a heading or a figure across the
/// columns).
const GUTTER_ROWS: f32 = 0.2;

/// The least share of the page's letters on each side of a gutter that makes it part columns.
const COLUMN_LETTERS: f32 = 0.2;

/// The most bins of the width looked at (1 pt each): a page wider than this is looked at in
/// coarser bins.
const MAX_BINS: usize = 4096;

/// The least gap between two glyphs of a row that parts two words, in ems of the larger font.
/// Lower than the word-gap repair's 0.2 em, which only adds spaces the text lacks and so may
/// miss one: here the rows are the text, and a justified line's spaces shrink to 0.2 em of its
/// smaller font (memman: 1.87 pt between roman at 8.97 pt and typewriter at 9.59 pt), while
/// the letters of a word sit within a tenth of an em of each other.
const WORD_GAP_EM: f32 = 0.15;

/// A gap between two rows, in multiples of the page's usual distance between rows, that ends a
/// paragraph (a blank line in the text).
const PARAGRAPH_PITCH: f32 = 1.6;

/// The page read by rows of its glyphs, when it is one column of text and the rows hold
/// exactly the characters of the extractor's `text`; `None` otherwise.
pub(super) fn read(text: &str, glyphs: &[Glyph]) -> Option<String> {
    if text.len() > MAX_TEXT {
        return None;
    }
    let rows = rows(glyphs);
    if two_columns(&rows) || overprinted(&rows) {
        return None;
    }
    let out = render(&rows);
    same_letters(&out, text).then_some(out)
}

/// Whether the rows hold the characters of the extractor's text, white space aside, but for
/// the hyphens at line ends that the extractor joined away itself (`for-` / `mat` read as
/// `format`; the view's own line-end joining decides on them again).
fn same_letters(rows: &str, text: &str) -> bool {
    let (ours, theirs) = (letters(rows), letters(text));
    let hyphens = |v: &[char]| v.iter().filter(|&&c| c == '-').count();
    let joined = rows.lines().filter(|line| line.trim_end().ends_with('-')).count();
    let extra = hyphens(&ours).checked_sub(hyphens(&theirs));
    extra.is_some_and(|n| n <= joined)
        && ours.iter().filter(|&&c| c != '-').eq(theirs.iter().filter(|&&c| c != '-'))
}

/// The characters of `text` other than white space, sorted.
fn letters(text: &str) -> Vec<char> {
    let mut out: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    out.sort_unstable();
    out
}

/// The page's glyphs as rows, top to bottom, each left to right. Glyphs whose baselines lie
/// within [`LINE_EM`] of each other are one line; a line of short runs only (a raised `A` of a
/// logo, a subscript or two) joins the nearest line of words within [`ROW_EM`] of the larger
/// font of the two (the raised `A` is set in a smaller font than its line). Two lines of words
/// never join: a title in a large font and a line of small print beside it stay apart.
fn rows(glyphs: &[Glyph]) -> Vec<Vec<Glyph>> {
    let mut order: Vec<&Glyph> = glyphs.iter().collect();
    // Top first (PDF space grows upwards); the sort is stable, so glyphs on one baseline keep
    // the content stream's order until they are sorted by x.
    order.sort_by(|a, b| b.base.total_cmp(&a.base));
    let mut lines: Vec<Vec<Glyph>> = Vec::new();
    let mut prev: Option<&Glyph> = None;
    for g in order {
        let same = prev.is_some_and(|p| p.base - g.base <= LINE_EM * g.size.max(p.size).max(1.0));
        match lines.last_mut() {
            Some(line) if same => line.push(*g),
            _ => lines.push(vec![*g]),
        }
        prev = Some(g);
    }
    for line in &mut lines {
        line.sort_by(|a, b| a.left.total_cmp(&b.left));
    }
    let facts: Vec<(f32, f32, bool)> =
        lines.iter().map(|l| (baseline(l), largest(l), longest_run(l) > SHORT_RUN)).collect();
    // Where each line of short runs goes: the nearest line of words in reach, above or below,
    // unless its glyphs sit over that line's (an accent set above a letter, a wide hat over a
    // formula: a mark of its own, not letters of the line).
    let mut host: Vec<Option<usize>> = vec![None; lines.len()];
    for (i, &(base, size, words)) in facts.iter().enumerate() {
        if words {
            continue;
        }
        let reach = |j: usize| {
            let (other, other_size, other_words) = facts[j];
            let apart = (other - base).abs();
            // A script in a smaller font than its line sits further off it.
            let em = if size < SCRIPT_SIZE * other_size { SCRIPT_EM } else { ROW_EM };
            (other_words && apart <= em * size.max(other_size).max(1.0)).then_some((apart, j))
        };
        let above = i.checked_sub(1).and_then(reach);
        let below = (i + 1 < lines.len()).then(|| reach(i + 1)).flatten();
        let nearest = match (above, below) {
            (Some(a), Some(b)) => Some(if b.0 < a.0 { b.1 } else { a.1 }),
            (a, b) => a.or(b).map(|(_, j)| j),
        };
        host[i] = nearest.filter(|&j| !sits_over(&lines[i], &lines[j]));
    }
    let mut out: Vec<Vec<Glyph>> = vec![Vec::new(); lines.len()];
    for (i, line) in lines.into_iter().enumerate() {
        out[host[i].unwrap_or(i)].extend(line);
    }
    out.retain(|row| !row.is_empty());
    for row in &mut out {
        row.sort_by(|a, b| a.left.total_cmp(&b.left));
    }
    out
}

/// Whether a mark of `marks` (a glyph that is no letter or digit, see [`is_mark`]) covers more than half of a
/// glyph of `line` (or of itself) across the page: an accent above its letter; a letter kerned
/// into its neighbours (the `A` of LaTeX) is no mark. Both are sorted by their left edge.
fn sits_over(marks: &[Glyph], line: &[Glyph]) -> bool {
    let widest = line.iter().map(|g| g.right - g.left).fold(0.0, f32::max);
    marks.iter().filter(|m| !m.c.is_whitespace() && is_mark(m.c)).any(|m| {
        let from = line.partition_point(|g| g.left < m.left - widest);
        line[from..].iter().take_while(|g| g.left < m.right).any(|g| covers(m, g))
    })
}

/// Whether a char is a mark rather than a letter or digit: the spacing accents of TeX's fonts
/// are symbols (`´`, `¨`) or modifier letters (`ˇ`, `ˆ`, U+02B0-02FF).
fn is_mark(c: char) -> bool {
    !c.is_alphanumeric() || ('\u{2b0}'..='\u{2ff}').contains(&c)
}

/// Whether two glyphs overlap across the page by more than half the narrower one's width.
fn covers(a: &Glyph, b: &Glyph) -> bool {
    let overlap = a.right.min(b.right) - a.left.max(b.left);
    let narrower = (a.right - a.left).min(b.right - b.left);
    !b.c.is_whitespace() && narrower > 0.0 && overlap > 0.5 * narrower
}

/// Whether text is drawn over other text on some row: more than [`MAX_OVERPRINTS`] pairs of
/// neighbouring letters or digits on one line that cover each other (a label set over a title), which a
/// reading by rows would interleave letter by letter.
fn overprinted(rows: &[Vec<Glyph>]) -> bool {
    let pairs = rows
        .iter()
        .flat_map(|row| row.windows(2))
        .filter(|w| {
            let (a, b) = (&w[0], &w[1]);
            !is_mark(a.c)
                && !is_mark(b.c)
                && (a.base - b.base).abs() <= LINE_EM * a.size.max(b.size).max(1.0)
                && covers(a, b)
        })
        .count();
    pairs > MAX_OVERPRINTS
}

/// The largest font of a line.
fn largest(line: &[Glyph]) -> f32 {
    line.iter().map(|g| g.size).fold(0.0, f32::max)
}

/// The most glyphs of a line (sorted by x) in one run: glyphs less than a word gap apart.
fn longest_run(line: &[Glyph]) -> usize {
    let mut longest = 0;
    let mut run = 0;
    let mut prev: Option<&Glyph> = None;
    for g in line.iter().filter(|g| !g.c.is_whitespace()) {
        let joined =
            prev.is_some_and(|p| g.left - p.right < WORD_GAP_EM * g.size.max(p.size).max(1.0));
        run = if joined { run + 1 } else { 1 };
        longest = longest.max(run);
        prev = Some(g);
    }
    longest
}

/// Whether the page is set in columns: some band of its width that its rows' words all but
/// never cross (a gutter), with a good share of the page's letters on each side of it. A table
/// of contents has no such band (each leader runs on to its number), or only numbers beyond it.
fn two_columns(rows: &[Vec<Glyph>]) -> bool {
    let inked = rows.iter().flatten().filter(|g| !g.c.is_whitespace());
    let (Some(left), Some(right)) = (
        inked.clone().map(|g| g.left).min_by(f32::total_cmp),
        inked.clone().map(|g| g.right).max_by(f32::total_cmp),
    ) else {
        return false;
    };
    let mut sizes: Vec<f32> = inked.clone().map(|g| g.size.max(1.0)).collect();
    sizes.sort_by(f32::total_cmp);
    let em = sizes[sizes.len() / 2];
    // How many rows cover each point of the width (1 pt bins) with their words: runs of
    // glyphs less than a gutter apart.
    let bins = ((right - left).ceil() as usize).clamp(1, MAX_BINS);
    let scale = bins as f32 / (right - left).max(1.0);
    let bin = |x: f32| (((x - left) * scale) as usize).min(bins - 1);
    // Each span adds one from its first bin and takes it back after its last: the running
    // sum is the cover, built in time linear in the spans and the bins.
    let mut steps = vec![0isize; bins + 1];
    let mut with_text = 0usize;
    for row in rows {
        let mut spans: Vec<(f32, f32)> = Vec::new();
        for g in row.iter().filter(|g| !g.c.is_whitespace()) {
            match spans.last_mut() {
                Some(span) if g.left - span.1 < GUTTER_EM * em => span.1 = span.1.max(g.right),
                _ => spans.push((g.left, g.right)),
            }
        }
        with_text += usize::from(!spans.is_empty());
        for (a, b) in spans {
            steps[bin(a)] += 1;
            steps[bin(b) + 1] -= 1;
        }
    }
    let cover: Vec<usize> = steps[..bins]
        .iter()
        .scan(0isize, |sum, step| {
            *sum += step;
            Some(usize::try_from(*sum).unwrap_or(0))
        })
        .collect();
    let sparse = (with_text as f32 * GUTTER_ROWS).floor() as usize;
    let mut letters: Vec<f32> = inked.filter(|g| g.c.is_alphabetic()).map(|g| g.left).collect();
    letters.sort_by(f32::total_cmp);
    let least = COLUMN_LETTERS * letters.len() as f32;
    let mut at = 0;
    while at < bins {
        if cover[at] > sparse {
            at += 1;
            continue;
        }
        let start = at;
        while at < bins && cover[at] <= sparse {
            at += 1;
        }
        let (from, to) = (left + start as f32 / scale, left + at as f32 / scale);
        if to - from >= GUTTER_WIDTH_EM * em {
            let before = letters.partition_point(|&x| x < from) as f32;
            let after = (letters.len() - letters.partition_point(|&x| x < to)) as f32;
            if before >= least && after >= least {
                return true;
            }
        }
    }
    false
}

/// The rows as text: a line per row, its glyphs parted by a space where a space glyph or a
/// word gap stands between them, and a blank line where the rows are further apart than a
/// paragraph's lines.
fn render(rows: &[Vec<Glyph>]) -> String {
    let bases: Vec<f32> = rows.iter().map(|row| baseline(row)).collect();
    let mut pitches: Vec<f32> = bases.windows(2).map(|w| w[0] - w[1]).collect();
    pitches.sort_by(f32::total_cmp);
    // The lower median: a page of few rows has more paragraph gaps among its pitches.
    let pitch = pitches.get(pitches.len().saturating_sub(1) / 2).copied().unwrap_or(0.0);
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            if pitch > 0.0 && bases[i - 1] - bases[i] > PARAGRAPH_PITCH * pitch {
                out.push('\n');
            }
        }
        let mut prev: Option<&Glyph> = None;
        let mut space = false;
        // Whether the word so far is all raised or lowered glyphs: a footnote mark before the
        // text it marks (`¹Only`) is a word of its own, a logo's `A` or the `nd` of `2nd` is not.
        let mut all_script = false;
        for g in row {
            if g.c.is_whitespace() || g.c.is_control() {
                space = prev.is_some();
                continue;
            }
            let script = (g.base - bases[i]).abs() > LINE_EM * g.size.max(1.0);
            if let Some(p) = prev
                && (space
                    || g.left - p.right >= WORD_GAP_EM * g.size.max(p.size).max(1.0)
                    || (all_script && !script))
            {
                out.push(' ');
                all_script = script;
            } else if prev.is_none() {
                all_script = script;
            } else {
                all_script &= script;
            }
            out.push(g.c);
            prev = Some(g);
            space = false;
        }
    }
    out.push('\n');
    out
}

/// A row's baseline: that of most of its glyphs (the median), not of a raised letter.
fn baseline(row: &[Glyph]) -> f32 {
    let mut bases: Vec<f32> = row.iter().map(|g| g.base).collect();
    bases.sort_by(f32::total_cmp);
    bases[bases.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: f32 = 10.0;

    /// Glyphs of one row at 10 pt starting at `x`: words 0.33 em apart, letters touching and
    /// 5 pt wide; `^x` is `x` raised 0.2 em, `_x` lowered 0.2 em.
    fn row(x: f32, words: &[&str], base: f32) -> Vec<Glyph> {
        let mut x = x;
        let mut out = Vec::new();
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                x += 0.33 * SIZE;
            }
            let mut shift = 0.0;
            for c in w.chars() {
                match c {
                    '^' => shift = 0.2 * SIZE,
                    '_' => shift = -0.2 * SIZE,
                    c => {
                        out.push(Glyph {
                            c,
                            left: x,
                            right: x + 5.0,
                            base: base + shift,
                            size: SIZE,
                        });
                        x += 5.0;
                        shift = 0.0;
                    }
                }
            }
        }
        out
    }

    /// A table of contents entry: its title, a leader of dots to x = 400 and its page number.
    fn entry(title: &str, page: &str, base: f32) -> Vec<Glyph> {
        let mut out = row(50.0, &[title], base);
        let mut x = out.last().map_or(50.0, |g| g.right) + 5.0;
        while x < 390.0 {
            out.push(Glyph { c: '.', left: x, right: x + 2.0, base, size: SIZE });
            x += 6.0;
        }
        out.extend(row(400.0, &[page], base));
        out
    }

    /// An entry as an extractor that lost its page number reads it.
    fn without_number(entry: &[Glyph]) -> String {
        render(&rows(&entry[..entry.len() - 1])).trim_end().to_owned()
    }

    #[test]
    fn a_contents_page_gets_its_page_numbers_back_on_their_lines() {
        let entries = [
            entry("Introduction", "2", 688.0),
            entry("Usage", "3", 676.0),
            entry("L^AT_EX-macros", "5", 664.0),
            entry("History", "8", 652.0),
        ];
        let glyphs = [row(50.0, &["Contents"], 700.0), entries.concat()].concat();
        // The extractor's reading: the numbers glued in a run of their own, the logo's raised
        // and lowered letters apart.
        let leaders: Vec<String> = entries.iter().map(|e| without_number(e)).collect();
        let text =
            format!("Contents\n{}\n\n2358\nA E\n", leaders.join("\n")).replace("LATEX", "LTX");
        let out = read(&text, &glyphs).expect("read by rows");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], "Contents");
        assert!(lines[1].starts_with("Introduction . . .") && lines[1].ends_with(". 2"));
        assert!(lines[3].starts_with("LATEX-macros . ") && lines[3].ends_with(". 5"));
        assert!(lines[4].starts_with("History . ") && lines[4].ends_with(". 8"));
        assert_eq!(letters(&out), letters(&text));
    }

    #[test]
    fn a_page_is_read_by_rows_only_when_they_hold_its_characters() {
        let glyphs =
            [row(50.0, &["A", "short", "line"], 700.0), row(50.0, &["and", "more-"], 688.0)]
                .concat();
        assert_eq!(
            read("A short line and more", &glyphs).as_deref(),
            Some("A short line\nand more-\n")
        );
        // The extractor joined the line-end hyphen away: still the same characters.
        assert!(read("A short line and more", &glyphs).is_some());
        assert!(read("A short line andmore-", &glyphs).is_some());
        // A character the glyphs do not have, or one they have and the text lacks: left as read.
        assert_eq!(read("A short line and more!", &glyphs), None);
        assert_eq!(read("A short line and mor", &glyphs), None);
        // A hyphen the text lacks that does not end a row is a character lost.
        let inner = row(50.0, &["well-known", "words"], 700.0);
        assert_eq!(read("wellknown words", &inner), None);
    }

    #[test]
    fn two_columns_are_never_read_across() {
        let mut glyphs = Vec::new();
        let mut left = String::new();
        let mut right = String::new();
        for i in 0..12 {
            let base = 700.0 - 12.0 * i as f32;
            glyphs.extend(row(50.0, &["left", "column", "words"], base));
            glyphs.extend(row(320.0, &["right", "column", "words"], base));
            left.push_str("left column words\n");
            right.push_str("right column words\n");
        }
        // A few rows across the gutter (a heading over both columns) do not make it one column.
        for i in 0..3 {
            glyphs.extend(row(
                50.0,
                &["a", "heading", "across", "the", "page", "and", "its", "columns"],
                500.0 - 12.0 * i as f32,
            ));
            left.push_str("a heading across the page and its columns\n");
        }
        let text = format!("{left}{right}");
        assert!(two_columns(&rows(&glyphs)));
        assert_eq!(read(&text, &glyphs), None);
        // A table of contents has its numbers beyond a gap, but no letters there.
        let contents =
            [entry("One", "2", 688.0), entry("Two", "3", 676.0), entry("Six", "4", 664.0)];
        assert!(!two_columns(&rows(&contents.concat())));
    }

    #[test]
    fn text_drawn_over_text_is_never_interleaved() {
        // A label set over a title on the same baseline, as beamer's image placeholder is.
        let title = row(50.0, &["Beamer", "using", "the", "theme"], 700.0);
        let label = row(72.0, &["Image"], 700.0);
        let glyphs = [title, label].concat();
        assert!(overprinted(&rows(&glyphs)));
        assert_eq!(read("Beamer using the theme Image", &glyphs), None);
    }

    #[test]
    fn rows_part_paragraphs_and_keep_raised_letters_in_their_words() {
        let glyphs = [
            row(50.0, &["First", "line"], 700.0),
            row(50.0, &["T_EX", "line"], 688.0),
            row(50.0, &["After", "a", "gap"], 650.0),
        ]
        .concat();
        assert_eq!(render(&rows(&glyphs)), "First line\nTEX line\n\nAfter a gap\n");
        // lineno.pdf: the raised A of LaTeX in a 7.97 pt font 2.72 pt above its 11.96 pt line,
        // which starts with a line number in a 5.98 pt font.
        let small = |c, left, base, size| Glyph { c, left, right: left + 5.0, base, size };
        let glyphs = [
            small('A', 228.67, 336.51, 7.97),
            small('2', 86.57, 333.79, 5.98),
            small('L', 223.5, 333.79, 11.96),
            small('T', 233.0, 333.79, 11.96),
            small('E', 238.5, 331.2, 11.96),
            small('X', 244.0, 333.79, 11.96),
        ];
        let words = row(255.0, &["commands"], 333.79);
        assert_eq!(render(&rows(&[&glyphs[..], &words].concat())), "2 LATEX commands\n");
        // An accent above its letter stays apart; a footnote mark before its text is a word.
        let accent = Glyph { c: 'ˇ', left: 50.5, right: 54.5, base: 703.0, size: SIZE };
        let mark = Glyph { c: '1', left: 40.0, right: 43.0, base: 604.0, size: 7.0 };
        let glyphs = [
            vec![accent],
            row(50.0, &["cases", "here"], 700.0),
            vec![mark],
            row(43.5, &["Only"], 600.0),
        ]
        .concat();
        assert_eq!(render(&rows(&glyphs)), "ˇ\ncases here\n\n1 Only\n");
        // Lines of words never join, however close: a title and small print beside it.
        let title = row(50.0, &["Large", "title"], 700.0);
        let small_print = row(60.0, &["Issue", "eighteen"], 697.0);
        assert_eq!(render(&rows(&[title, small_print].concat())), "Large title\nIssue eighteen\n");
    }
}
