//! Pages whose dot leaders lost their page numbers, read again a row of glyphs at a time.
//!
//! pdf_oxide reads some tables of contents as if they were set in columns: the entries with
//! their dot leaders first, then the page numbers, glued into runs of digits further down the
//! page, and with them whatever else its column cut took along (holtxdoc's first page reads
//! `2.7.1 Package` with no leader, `doc . . . . 66` among the numbers, `22`, `223`, `456`,
//! `889999` after the abstract, and the title's first word apart from the rest). The glyphs
//! still say which number ends which entry: it sits on the entry's baseline. Such a page is
//! read again from its glyphs, a row per baseline, top to bottom and left to right, as a
//! single-column page is read.
//!
//! Only where it is safe:
//! - only on a page with at least [`MIN_ORPHANS`] lines that end in a dot leader with nothing
//!   after it, and only when reading by rows leaves at most half as many;
//! - never on a page set in columns (a band of its width that its rows' words all but never
//!   cross, with a fifth of its letters or more on each side): reading its rows across would
//!   interleave the columns;
//! - only when the rows hold exactly the characters of the extractor's text (white space
//!   aside): nothing is lost, added or read twice (a glyph set at an angle, which the rows
//!   leave out, keeps the page as read).
//!
//! Letters raised or lowered inside a word (TeX's logos) lie within a row's reach of its
//! baseline and so come back into their words here; a page read by rows needs neither the
//! word-gap nor the shifted-letter repair.

use super::gaps::{Glyph, MAX_TEXT};

/// The fewest lines ending in a dot leader with no page number after it that make a page
/// worth reading again: one or two are a leader the author left open.
const MIN_ORPHANS: usize = 3;

/// The fewest dots that make a line's end a leader (an ellipsis has three).
const MIN_LEADER_DOTS: usize = 5;

/// How far a baseline may lie below the one above it and still be on its row, in ems of the
/// larger font of the two: raised and lowered letters of TeX's logos
/// sit 0.17-0.22 em off, lines of text at least 1 em apart.
const ROW_EM: f32 = 0.3;

/// Baselines closer than this (points) are one baseline.
const SAME_BASE: f32 = 0.01;

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

/// The page read again by rows, when its text lost the page numbers of its dot leaders and the
/// rows give them back; `None` otherwise.
pub(super) fn reread(text: &str, glyphs: &[Glyph]) -> Option<String> {
    if text.len() > MAX_TEXT {
        return None;
    }
    let before = orphans(text);
    if before < MIN_ORPHANS {
        return None;
    }
    let rows = rows(glyphs);
    if two_columns(&rows) {
        return None;
    }
    let out = render(&rows);
    if orphans(&out) * 2 > before || !same_letters(&out, text) {
        return None;
    }
    Some(out)
}

/// How many lines of `text` end in a dot leader with nothing after it.
fn orphans(text: &str) -> usize {
    text.lines()
        .filter(|line| {
            let mut dots = 0;
            for c in line.trim_end().chars().rev() {
                match c {
                    '.' => dots += 1,
                    ' ' => {}
                    _ => break,
                }
            }
            dots >= MIN_LEADER_DOTS
        })
        .count()
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

/// The page's glyphs as rows, top to bottom, each left to right. Glyphs on one baseline are
/// one group; a group joins the row of the group above it when their baselines are within
/// [`ROW_EM`] of the larger font of the two groups (a raised `A` of a logo is set in a smaller
/// font than the line it belongs to, and a line number in the margin in a smaller one still).
fn rows(glyphs: &[Glyph]) -> Vec<Vec<Glyph>> {
    let mut order: Vec<&Glyph> = glyphs.iter().collect();
    // Top first (PDF space grows upwards); the sort is stable, so glyphs on one baseline keep
    // the content stream's order until they are sorted by x.
    order.sort_by(|a, b| b.base.total_cmp(&a.base));
    // Groups of one baseline: (first glyph in `order`, baseline, largest font).
    let mut groups: Vec<(usize, f32, f32)> = Vec::new();
    for (i, g) in order.iter().enumerate() {
        match groups.last_mut() {
            Some((_, base, size)) if *base - g.base <= SAME_BASE => *size = size.max(g.size),
            _ => groups.push((i, g.base, g.size)),
        }
    }
    let mut out: Vec<Vec<Glyph>> = Vec::new();
    for (k, &(start, base, size)) in groups.iter().enumerate() {
        let end = groups.get(k + 1).map_or(order.len(), |g| g.0);
        let glyphs = order[start..end].iter().map(|g| **g);
        let joins = k > 0 && {
            let (_, above, above_size) = groups[k - 1];
            above - base <= ROW_EM * size.max(above_size).max(1.0)
        };
        match out.last_mut() {
            Some(row) if joins => row.extend(glyphs),
            _ => out.push(glyphs.collect()),
        }
    }
    for row in &mut out {
        row.sort_by(|a, b| a.left.total_cmp(&b.left));
    }
    out
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
        for g in row {
            if g.c.is_whitespace() || g.c.is_control() {
                space = prev.is_some();
                continue;
            }
            if let Some(p) = prev
                && (space || g.left - p.right >= WORD_GAP_EM * g.size.max(p.size).max(1.0))
            {
                out.push(' ');
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
        let out = reread(&text, &glyphs).expect("read again");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[0], "Contents");
        assert!(lines[1].starts_with("Introduction . . .") && lines[1].ends_with(". 2"));
        assert!(lines[3].starts_with("LATEX-macros . ") && lines[3].ends_with(". 5"));
        assert!(lines[4].starts_with("History . ") && lines[4].ends_with(". 8"));
        assert_eq!(letters(&out), letters(&text));
    }

    #[test]
    fn a_page_is_left_as_read_unless_the_rows_mend_it_losslessly() {
        let entries =
            [entry("One", "2", 688.0), entry("Two", "3", 676.0), entry("Six", "4", 664.0)];
        let glyphs = entries.concat();
        let open: Vec<String> = entries.iter().map(|e| without_number(e)).collect();
        let orphaned = format!("{}\n234\n", open.join("\n"));
        assert!(reread(&orphaned, &glyphs).is_some());
        // Numbers already in place: nothing to mend.
        assert_eq!(reread(&render(&rows(&glyphs)), &glyphs), None);
        // Two leaders without their numbers are too few.
        let two = format!("{}\n{}\n{} 4\n23\n", open[0], open[1], open[2]);
        assert_eq!(reread(&two, &glyphs), None);
        // The text holds a character the glyphs do not, or lacks one: left as read.
        assert_eq!(reread(&format!("{orphaned}x\n"), &glyphs), None);
        assert_eq!(reread(&orphaned.replace("234", "23"), &glyphs), None);
        // Leaders the glyphs leave open too (a form to fill in) are not mended.
        let form: Vec<Glyph> = entries.iter().flat_map(|e| e[..e.len() - 1].to_vec()).collect();
        assert_eq!(reread(&format!("{}\n", open.join("\n")), &form), None);
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
        // Three leaders without their numbers, so that only the columns stop it.
        let mut open = String::new();
        for i in 0..3 {
            let e = entry("Entry", "9", 500.0 - 12.0 * i as f32);
            open.push_str(&without_number(&e));
            open.push('\n');
            glyphs.extend(e);
        }
        let text = format!("{left}{right}{open}999\n");
        assert!(two_columns(&rows(&glyphs)));
        assert_eq!(reread(&text, &glyphs), None);
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
        assert_eq!(render(&rows(&glyphs)), "2 LATEX\n");
    }
}
