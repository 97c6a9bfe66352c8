//! Pages read a row of glyphs at a time, column by column.
//!
//! pdf_oxide's text assembly puts a page's text in an order of its own making, and that order
//! is often not the page's: it reads some tables of contents as if set in two columns
//! (holtxdoc's first page: the entries with their dot leaders, then the page numbers glued
//! into runs such as `223` and `889999` after the abstract, with `doc` of `2.7.1 Package doc`
//! among them), sets the raised and lowered letters of TeX's logos on lines of their own
//! (`LT X` / `A E`), moves a title's first word away from the rest, and on pages of two
//! columns runs lines of both together. The glyphs still say where each letter is, and the
//! page is read from them: a row per line of text, top to bottom and left to right (a row of
//! Hebrew or Arabic turned to the order it is read in), a space where a space glyph (not a
//! spreadsheet's padding) or a word gap stands, a blank line where rows lie further apart than
//! a paragraph's lines. Where a gutter parts the page's rows (a band of its width that their
//! words all but never cross, with a fifth of its letters or more on each side), each stretch
//! of rows between rows that cross it is read column by column, and a column parted again
//! (a three-column index) the same way. Raised and lowered letters (a logo's `A`, a
//! subscript, the `nd` of `2nd`) join the line they stand beside; an accent set above a letter
//! does not.
//!
//! Only where it is safe; otherwise the page keeps the extractor's reading (and the word-gap
//! and shifted-letter repairs of it):
//! - never on a page where text is drawn over text (a label over a title): its rows would
//!   interleave the two letter by letter;
//! - only when the rows hold the characters of the extractor's text, white space and the
//!   line-end hyphens the extractor joined aside: nothing is lost or read twice (a glyph set
//!   at an angle, which the rows leave out, keeps the page as read). They may hold more than
//!   the text where the text left out a large part of the page's glyphs (a tagged page whose
//!   structure tree misses most of it).

use std::borrow::Cow;

use unicode_bidi::{BidiClass, Level, ParagraphBidiInfo, bidi_class};
use unicode_normalization::UnicodeNormalization;

use super::accents::spacing_accent;
use super::gaps::{Glyph, MAX_TEXT};

/// How far raised or lowered letters may lie from the line they belong to, in ems of the
/// larger font of the two: the raised and lowered letters of TeX's logos sit 0.17-0.22 em
/// off, lines of text at least 1 em apart.
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

/// How many lines on each side of a line of raised or lowered letters may be the line they
/// belong to (on a page of two columns the other column's lines fall between).
const HOST_LINES: usize = 2;

/// How far a raised or lowered letter may stand from a glyph of its line, across the page, in
/// ems of its font.
const BESIDE_EM: f32 = 0.5;

/// The widest glyph box, in ems of its line's largest font, that the search for a glyph's
/// neighbours allows for.
const WIDEST_EM: f32 = 4.0;

/// The most glyphs of a line looked at for one glyph's neighbours: a line of glyphs piled at
/// one place (a damaged file) costs no more than this per glyph.
const MAX_NEIGHBOURS: usize = 64;

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

/// How far a line of a column may reach into the gutter after it, in ems, and still be a line
/// of that column (its last word, where the right edge is ragged).
const OVERHANG_EM: f32 = 3.0;

/// The narrowest band, in ems, that can be a gutter between columns.
const GUTTER_WIDTH_EM: f32 = 0.5;

/// The share of the rows with text that may cross a gutter (a heading or a figure across the
/// columns).
const GUTTER_ROWS: f32 = 0.2;

/// The least share of the page's letters on each side of a gutter that makes it part columns.
const COLUMN_LETTERS: f32 = 0.2;

/// How many times a column may be parted again into columns (a three-column index is two).
const MAX_COLUMN_DEPTH: usize = 3;

/// The most bins of the width looked at (1 pt each): a page wider than this is looked at in
/// coarser bins.
const MAX_BINS: usize = 4096;

/// The least gap between two glyphs of a row that parts two words, in ems of the larger font.
/// Lower than the word-gap repair's 0.2 em, which only adds spaces the text lacks and so may
/// miss one: here the rows are the text, and a justified line's spaces shrink to 0.2 em of its
/// smaller font (memman: 1.87 pt between roman at 8.97 pt and typewriter at 9.59 pt), while
/// the letters of a word sit within a tenth of an em of each other.
const WORD_GAP_EM: f32 = 0.15;

/// How close two space glyphs' edges lie, in ems, when one runs on from the other (a run of
/// padding spaces).
const ABUT_EM: f32 = 0.02;

/// A gap between two rows, in multiples of the page's usual distance between rows, that ends a
/// paragraph (a blank line in the text).
const PARAGRAPH_PITCH: f32 = 1.6;

/// How many times the page's usual size two rows of one size must be set in for the gap
/// that ends a paragraph between them to grow with their size (see [`render`]): 1.4 takes
/// LaTeX's `\Large` titles and up over 10 pt text, whose lines lie more than 1.6 body lines
/// apart.
const TITLE_SIZE: f32 = 1.4;

/// The least share of the rows' characters that the extractor's text may lack for the rows to
/// be read in its place ([`Letters::More`]). The pages whose text lacks glyphs lack either a
/// few per cent (running heads and printer's marks the extractor sets aside, UTF-8 read as
/// Windows-1252 that its text mends, vertical Japanese text it reads down its lines: its
/// reading is kept) or half and more (a tagged page whose structure tree misses most of it).
const MORE_SHARE: f32 = 0.25;

/// A glyph read right where the extractor misread it: (the extractor's character, the glyph's).
pub(super) type Mend = (char, char);

/// The page read by rows of its glyphs, column by column, when no text is drawn over text and
/// the rows hold exactly the characters of the extractor's `text`, or with `more` all of them
/// and more ([`Letters::More`]); `None` otherwise. `mends` are the glyphs read right where the
/// extractor misread them, each as (the extractor's character, the glyph's): the rows hold the
/// glyph's, the text the extractor's.
pub(super) fn read(text: &str, glyphs: &[Glyph], mends: &[Mend], more: bool) -> Option<String> {
    if text.len() > MAX_TEXT {
        return None;
    }
    let rows = rows(glyphs);
    if overprinted(&rows) {
        return None;
    }
    let mut ordered = Vec::with_capacity(rows.len());
    in_columns(rows, 0, &mut ordered);
    let out = render(&ordered);
    match letters(&out, text, mends) {
        Letters::Same => Some(out),
        Letters::More if more => Some(out),
        Letters::More | Letters::Other => None,
    }
}

/// How the rows' characters compare with the extractor's text's ([`letters`]).
#[derive(Debug, PartialEq, Eq)]
enum Letters {
    /// The same characters.
    Same,
    /// All of the text's and [`MORE_SHARE`] more or beyond: the glyphs hold much text the
    /// extractor's text left out. pdf_oxide reads a tagged page through its structure tree,
    /// and where the tree misses most of the page its text is a table's numbers alone (the EU
    /// tables of the ICDAR 2013 set, written by iText), while the glyphs hold all of it.
    More,
    /// Characters the glyphs lack, or both differ.
    Other,
}

/// How the rows' characters compare with the extractor's text's: the same ([`Letters::Same`]),
/// all of them and a good many more ([`Letters::More`]), or others. White space is set aside, and
/// so are the hyphens at line ends that the extractor joined away itself (`for-` / `mat` read
/// as `format`; the view's own line-end joining decides on them again) and glyphs whose
/// character the font does not say. The extractor gives such a glyph as U+FFFD among the
/// glyphs but leaves it out of its text, which turns `wri�ng` (a `ti` ligature without a
/// name) into the word `wring`; the rows keep the mark where the glyph stands.
///
/// Characters are compared as the same glyph may be written: the extractor writes a raised or
/// lowered digit as a superscript or subscript (`H₂O`) and an accent as a combining mark,
/// composed with its letter or not (`ü`, `è`), where the glyphs are a digit and a spacing
/// accent (`u` and `¨`).
fn letters(rows: &str, text: &str, mends: &[Mend]) -> Letters {
    let mut ours = comparable(rows);
    if !mends.is_empty() {
        // Each mended glyph counts as the character the extractor gave it: the mends'
        // characters are taken out of the rows' (both sorted, so in one pass) and the
        // extractor's put in. No mend's characters are changed by `comparable`.
        let mut rights: Vec<char> = mends.iter().map(|&(_, right)| right).collect();
        rights.sort_unstable();
        let mut rights = rights.into_iter().peekable();
        let mut kept = Vec::with_capacity(ours.len());
        for c in ours {
            if rights.next_if(|&r| r < c).is_some() {
                // A mended character the rows do not hold.
                return Letters::Other;
            }
            if rights.next_if_eq(&c).is_none() {
                kept.push(c);
            }
        }
        if rights.next().is_some() {
            return Letters::Other;
        }
        kept.extend(mends.iter().map(|&(read, _)| read));
        kept.sort_unstable();
        ours = kept;
    }
    let theirs = comparable(text);
    let hyphens = |v: &[char]| v.iter().filter(|&&c| c == '-').count();
    let joined = rows.lines().filter(|line| line.trim_end().ends_with('-')).count();
    let extra = hyphens(&ours).checked_sub(hyphens(&theirs));
    let same = extra.is_some_and(|n| n <= joined)
        && ours.iter().filter(|&&c| c != '-').eq(theirs.iter().filter(|&&c| c != '-'));
    if same {
        Letters::Same
    } else if holds(&ours, &theirs)
        && (ours.len() - theirs.len()) as f32 >= MORE_SHARE * ours.len() as f32
    {
        Letters::More
    } else {
        Letters::Other
    }
}

/// Whether the sorted characters `ours` hold every one of the sorted `theirs`, as often.
fn holds(ours: &[char], theirs: &[char]) -> bool {
    let mut ours = ours.iter().peekable();
    theirs.iter().all(|c| {
        while ours.next_if(|&o| o < c).is_some() {}
        ours.next_if_eq(&c).is_some()
    })
}

/// The characters of `text` other than white space, U+FFFD and the private use area (a
/// font's own symbols, which Word's Arabic text holds two of where its glyphs hold none), as
/// the glyphs write them ([`as_written`], after canonical decomposition), sorted.
fn comparable(text: &str) -> Vec<char> {
    let mut out: Vec<char> = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .nfd()
        .map(as_written)
        .filter(|&c| c != char::REPLACEMENT_CHARACTER && !('\u{e000}'..='\u{f8ff}').contains(&c))
        .collect();
    out.sort_unstable();
    out
}

/// `c` as the glyphs write it: a superscript or subscript digit as the digit, an accent as its
/// combining mark.
fn as_written(c: char) -> char {
    match c {
        '\u{2070}' => '0',
        '\u{b9}' => '1',
        '\u{b2}' => '2',
        '\u{b3}' => '3',
        '\u{2074}'..='\u{2079}' => char::from_digit(u32::from(c) - 0x2070, 10).unwrap_or(c),
        '\u{2080}'..='\u{2089}' => char::from_digit(u32::from(c) - 0x2080, 10).unwrap_or(c),
        '`' => '\u{300}',
        '^' => '\u{302}',
        '~' => '\u{303}',
        _ => spacing_accent(c).unwrap_or(c),
    }
}

/// The page's glyphs as rows, top to bottom, each left to right. Glyphs whose baselines lie
/// within [`LINE_EM`] of each other are one line; each glyph of a line of short runs only (a
/// raised `A` of a logo, a subscript or two) joins a nearby line it stands beside, within
/// [`ROW_EM`] of the larger font of the two ([`SCRIPT_EM`] for a script in a smaller font).
/// Two lines of words never join: a title in a large font and a line of small print beside it
/// stay apart.
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
    // Each line's widest glyph, as far as a glyph's neighbours are looked for (a glyph wider
    // than [`WIDEST_EM`] is left out of the search: a damaged file's giant box).
    let widest: Vec<f32> = lines
        .iter()
        .zip(&facts)
        .map(|(l, f)| {
            let limit = WIDEST_EM * f.1.max(1.0);
            l.iter().map(|g| (g.right - g.left).min(limit)).fold(0.0, f32::max)
        })
        .collect();
    // Where each glyph of a line of short runs goes: the nearest line in reach, among the
    // [`HOST_LINES`] nearest on each side, that it stands beside (its column's line, not the
    // other column's on a baseline between) and does not sit over (an accent above a letter,
    // a wide hat over a formula: a mark of its own). That line is a line of words, or one in a
    // larger font (a formula's letters, parted by their subscripts).
    let mut dest: Vec<Vec<usize>> =
        lines.iter().enumerate().map(|(i, l)| vec![i; l.len()]).collect();
    for (i, &(base, size, words)) in facts.iter().enumerate() {
        if words {
            continue;
        }
        let near = i.saturating_sub(HOST_LINES)..(i + HOST_LINES + 1).min(lines.len());
        let candidates: Vec<(f32, usize)> = near
            .filter(|&j| j != i)
            .filter_map(|j| {
                let (other, other_size, other_words) = facts[j];
                let apart = (other - base).abs();
                // A script in a smaller font than its line sits further off it.
                let smaller = size < SCRIPT_SIZE * other_size;
                let em = if smaller { SCRIPT_EM } else { ROW_EM };
                let reach = em * size.max(other_size).max(1.0);
                ((other_words || smaller) && apart <= reach).then_some((apart, j))
            })
            .collect();
        for (k, m) in lines[i].iter().enumerate().filter(|(_, m)| !m.c.is_whitespace()) {
            if let Some(&(_, j)) = candidates
                .iter()
                .filter(|&&(_, j)| {
                    let (line, widest) = (&lines[j], widest[j]);
                    beside(m, line, widest) && !sits_over(m, line, widest)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
            {
                dest[i][k] = j;
            }
        }
    }
    let mut out: Vec<Vec<Glyph>> = vec![Vec::new(); lines.len()];
    for (line, dest) in lines.iter().zip(&dest) {
        for (g, &to) in line.iter().zip(dest) {
            out[to].push(*g);
        }
    }
    out.retain(|row| !row.is_empty());
    for row in &mut out {
        row.sort_by(|a, b| a.left.total_cmp(&b.left));
    }
    out
}

/// Whether `m` is a mark (a glyph that is no letter or digit, see [`is_mark`]) covering more
/// than half of a glyph of `line` (or of itself) across the page: an accent above its letter;
/// a letter kerned into its neighbours (the `A` of LaTeX) is no mark. `line` is sorted by
/// left edge; `widest` is its widest glyph's width.
fn sits_over(m: &Glyph, line: &[Glyph], widest: f32) -> bool {
    if !is_mark(m.c) {
        return false;
    }
    let from = line.partition_point(|g| g.left < m.left - widest);
    line[from..].iter().take(MAX_NEIGHBOURS).take_while(|g| g.left < m.right).any(|g| covers(m, g))
}

/// Whether a char is a mark rather than a letter or digit: the spacing accents of TeX's fonts
/// are symbols (`´`, `¨`) or modifier letters (`ˇ`, `ˆ`, U+02B0-02FF).
fn is_mark(c: char) -> bool {
    !c.is_alphanumeric() || ('\u{2b0}'..='\u{2ff}').contains(&c)
}

/// Whether `m` stands beside or over a glyph of `line`: less than [`BESIDE_EM`] apart across
/// the page. `line` is sorted by left edge; `widest` is its widest glyph's width.
fn beside(m: &Glyph, line: &[Glyph], widest: f32) -> bool {
    let reach = BESIDE_EM * m.size.max(1.0);
    let from = line.partition_point(|g| g.left < m.left - widest - reach);
    line[from..]
        .iter()
        .take(MAX_NEIGHBOURS)
        .take_while(|g| g.left < m.right + reach)
        .any(|g| !g.c.is_whitespace() && g.left - m.right < reach && m.left - g.right < reach)
}

/// Whether two glyphs overlap across the page by more than half the narrower one's width.
fn covers(a: &Glyph, b: &Glyph) -> bool {
    let overlap = a.right.min(b.right) - a.left.max(b.left);
    let narrower = (a.right - a.left).min(b.right - b.left);
    !b.c.is_whitespace() && narrower > 0.0 && overlap > 0.5 * narrower
}

/// Whether text is drawn over other text on some row: more than [`MAX_OVERPRINTS`] pairs of
/// neighbouring letters or digits on one line that cover each other (a label set over a
/// title), which a reading by rows would interleave letter by letter.
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

/// The rows in reading order: where a gutter parts them, each stretch of rows that none
/// crosses is read column by column (each column in its turn parted again, to
/// [`MAX_COLUMN_DEPTH`] levels), and the rows across it where they stand.
fn in_columns(rows: Vec<Vec<Glyph>>, depth: usize, out: &mut Vec<Vec<Glyph>>) {
    if depth >= MAX_COLUMN_DEPTH {
        out.extend(rows);
        return;
    }
    // Each row's runs of words, found once: for the gutter, for the rows across it, and for
    // the side of it each glyph goes to.
    let em = typical_size(&rows);
    let runs: Vec<Vec<Span>> = rows.iter().map(|row| spans(row, em)).collect();
    let Some((from, to)) = gutter(&rows, &runs, em) else {
        out.extend(rows);
        return;
    };
    let middle = (from + to) / 2.0;
    // A row crosses the gutter when a run of its words reaches past the gutter's middle and
    // either across it or more than [`OVERHANG_EM`] into it: a heading or a footer across the
    // columns. A line of the left column whose last word reaches a little way into a narrow
    // gutter (a ragged right edge, 1.5 em into a gutter of 2.8 em in i1040nr.pdf) does not,
    // and stays in its column.
    let crosses = |runs: &[Span]| {
        runs.iter().any(|r| {
            r.left < middle
                && r.right > middle
                && (r.right > to || r.right > from + OVERHANG_EM * em)
        })
    };
    let mut stretch: Vec<(Vec<Glyph>, Vec<Span>)> = Vec::new();
    let flush = |stretch: &mut Vec<(Vec<Glyph>, Vec<Span>)>, out: &mut Vec<Vec<Glyph>>| {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for (row, runs) in stretch.drain(..) {
            let (l, r) = split_row(row, &runs, middle);
            if !l.is_empty() {
                left.push(l);
            }
            if !r.is_empty() {
                right.push(r);
            }
        }
        in_columns(left, depth + 1, out);
        in_columns(right, depth + 1, out);
    };
    for (row, runs) in rows.into_iter().zip(runs) {
        if crosses(&runs) {
            flush(&mut stretch, out);
            out.push(row);
        } else {
            stretch.push((row, runs));
        }
    }
    flush(&mut stretch, out);
}

/// A row's glyphs on each side of `middle`: each run of words (`runs`, the row's [`spans`]) on
/// the side it starts on, with the space glyphs in it or after it, so a word that reaches past
/// the middle of the gutter stays in its column.
fn split_row(row: Vec<Glyph>, runs: &[Span], middle: f32) -> (Vec<Glyph>, Vec<Glyph>) {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let mut runs = runs.iter().peekable();
    // Whether the run the glyphs belong to started left of the middle.
    let mut side = None;
    for (k, g) in row.into_iter().enumerate() {
        while let Some(run) = runs.next_if(|run| run.first <= k) {
            side = Some(run.left < middle);
        }
        if side.unwrap_or(g.left < middle) {
            left.push(g);
        } else {
            right.push(g);
        }
    }
    (left, right)
}

/// A run of words of a row ([`spans`]).
struct Span {
    left: f32,
    right: f32,
    /// The row's index of its first glyph.
    first: usize,
}

/// A row's runs of words: its glyphs less than [`GUTTER_EM`] apart, white space aside.
fn spans(row: &[Glyph], em: f32) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for (k, g) in row.iter().enumerate().filter(|(_, g)| !g.c.is_whitespace()) {
        match out.last_mut() {
            Some(span) if g.left - span.right < GUTTER_EM * em => {
                span.right = span.right.max(g.right);
            }
            _ => out.push(Span { left: g.left, right: g.right, first: k }),
        }
    }
    out
}

/// The median font size of the rows' glyphs (1 if none).
fn typical_size(rows: &[Vec<Glyph>]) -> f32 {
    let mut sizes: Vec<f32> =
        rows.iter().flatten().filter(|g| !g.c.is_whitespace()).map(|g| g.size.max(1.0)).collect();
    sizes.sort_by(f32::total_cmp);
    sizes.get(sizes.len() / 2).copied().unwrap_or(1.0)
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

/// The widest gutter between columns of the rows, as its left and right edge: a band of their
/// width that their words all but never cross (at most [`GUTTER_ROWS`] of the
/// rows), with [`COLUMN_LETTERS`] of their letters or more on each side. A table of contents
/// has no such band (each leader runs on to its number), or only numbers beyond it.
fn gutter(rows: &[Vec<Glyph>], runs: &[Vec<Span>], em: f32) -> Option<(f32, f32)> {
    let inked = rows.iter().flatten().filter(|g| !g.c.is_whitespace());
    let (Some(left), Some(right)) = (
        inked.clone().map(|g| g.left).min_by(f32::total_cmp),
        inked.clone().map(|g| g.right).max_by(f32::total_cmp),
    ) else {
        return None;
    };
    // How many rows cover each point of the width (1 pt bins) with their words: runs of
    // glyphs less than a gutter apart.
    let bins = ((right - left).ceil() as usize).clamp(1, MAX_BINS);
    let scale = bins as f32 / (right - left).max(1.0);
    let bin = |x: f32| (((x - left) * scale) as usize).min(bins - 1);
    // Each span adds one from its first bin and takes it back after its last: the running
    // sum is the cover, built in time linear in the spans and the bins.
    let mut steps = vec![0isize; bins + 1];
    let mut with_text = 0usize;
    for spans in runs {
        with_text += usize::from(!spans.is_empty());
        for span in spans {
            steps[bin(span.left)] += 1;
            steps[bin(span.right) + 1] -= 1;
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
    // The widest band that parts columns: a leader's last dot and its page number can leave a
    // narrower one inside a column.
    let mut best: Option<(f32, f32)> = None;
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
            if before >= least && after >= least && best.is_none_or(|(a, b)| to - from > b - a) {
                best = Some((from, to));
            }
        }
    }
    best
}

/// The rows as text: a line per row, its glyphs parted by a space where a word gap or a space
/// glyph stands between them (not [`padding`], nor one drawn where the letter before it
/// starts), and a blank line where the rows are further apart than a paragraph's lines.
fn render(rows: &[Vec<Glyph>]) -> String {
    let bases: Vec<f32> = rows.iter().map(|row| baseline(row)).collect();
    // Rows read column by column go up the page again where a column starts.
    let mut pitches: Vec<f32> =
        bases.windows(2).map(|w| w[0] - w[1]).filter(|&d| d > 0.0).collect();
    pitches.sort_by(f32::total_cmp);
    // The lower median: a page of few rows has more paragraph gaps among its pitches.
    let pitch = pitches.get(pitches.len().saturating_sub(1) / 2).copied().unwrap_or(0.0);
    // Lines of much larger type lie further apart: the two lines of a wrapped section title
    // are a paragraph's lines in their own size, not two paragraphs (hyperref's `46 Encoding
    // definition files for encodings of PDF` / `strings`, 22 pt apart over a body's 12). So
    // between two rows of one size at least TITLE_SIZE times the page's usual size, the gap
    // that ends a paragraph grows with that size. Prose a little larger than the usual size
    // (a manual's text between smaller code lines) keeps the page's measure: its paragraphs
    // are told apart by it.
    let sizes: Vec<f32> = rows.iter().map(|row| type_size(row)).collect();
    let usual = {
        let mut sorted = sizes.clone();
        sorted.sort_by(f32::total_cmp);
        sorted.get(sorted.len().saturating_sub(1) / 2).copied().unwrap_or(0.0)
    };
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            let down = bases[i - 1] - bases[i];
            let (a, b) = (sizes[i - 1], sizes[i]);
            let larger =
                if usual > 0.0 && a.min(b) >= TITLE_SIZE * usual && a.max(b) <= 1.1 * a.min(b) {
                    a.min(b) / usual
                } else {
                    1.0
                };
            if pitch > 0.0 && (down > PARAGRAPH_PITCH * pitch * larger || down <= 0.0) {
                out.push('\n');
            }
        }
        let start = out.len();
        let mut prev: Option<&Glyph> = None;
        let mut space = false;
        // Whether the word so far is all raised or lowered glyphs: a footnote mark before the
        // text it marks (`¹Only`) is a word of its own, a logo's `A` or the `nd` of `2nd` is not.
        let mut all_script = false;
        for (k, g) in row.iter().enumerate() {
            if g.c.is_whitespace() || g.c.is_control() {
                // A space glyph that starts where the letter before it starts was drawn
                // before that letter (` nut`, the space at the `n`'s place): it parts that
                // letter from what came before, not from what follows.
                let leading =
                    prev.is_some_and(|p| (g.left - p.left).abs() <= ABUT_EM * p.size.max(1.0));
                space |= prev.is_some() && !leading && !padding(row, k);
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
        if let Cow::Owned(line) = logical(&out[start..]) {
            out.replace_range(start.., &line);
        }
    }
    out.push('\n');
    out
}

/// Whether `c` is in a block of right-to-left letters: Hebrew, Arabic, Syriac, Thaana, NKo,
/// Samaritan, Mandaic and their presentation forms, or the historic scripts of U+10800 on.
fn right_to_left_block(c: char) -> bool {
    matches!(c, '\u{590}'..='\u{8ff}' | '\u{fb1d}'..='\u{fdff}' | '\u{fe70}'..='\u{feff}')
        || ('\u{10800}'..='\u{10fff}').contains(&c)
        || ('\u{1e800}'..='\u{1efff}').contains(&c)
}

/// Whether the space glyph `row[k]` is padding, no word space: one of a run of space glyphs
/// that abut each other, drawn over the letters of the row (more than half of it over a
/// neighbouring letter). Spreadsheets pad a cell so (ca-warn-report.pdf, from Excel: its dates
/// read `0 3 / 2 5 / 2 0 16` if every space glyph parted them, where the digits touch); a word
/// space is one glyph, even where it is drawn over the end of the word before it (the tabula
/// test files from Word).
fn padding(row: &[Glyph], k: usize) -> bool {
    let g = &row[k];
    let eps = ABUT_EM * g.size.max(1.0);
    let space = |j: usize| row.get(j).is_some_and(|o: &Glyph| o.c.is_whitespace());
    let abuts = (k > 0 && space(k - 1) && (row[k - 1].right - g.left).abs() <= eps)
        || (space(k + 1) && (row[k + 1].left - g.right).abs() <= eps);
    let over = |o: Option<&Glyph>| o.is_some_and(|o| covers(g, o));
    // The nearest letters on each side, among the next few glyphs: a run of thousands of
    // padding spaces costs no more than that per space.
    let before = row[..k].iter().rev().take(MAX_NEIGHBOURS).find(|o| !o.c.is_whitespace());
    let after = row[k + 1..].iter().take(MAX_NEIGHBOURS).find(|o| !o.c.is_whitespace());
    abuts && (over(before) || over(after))
}

/// A row written left to right as it stands on the page, in the order it is read: where it
/// holds right-to-left letters (Hebrew, Arabic) its runs are turned as the Unicode
/// bidirectional algorithm lays them out, which undoes that layout (`ةغلب` on the page is
/// `بلغة`, a number or a Latin word within stays as it stands). The row reads right to left as
/// a whole when it holds at least as many right-to-left letters as left-to-right ones.
fn logical(row: &str) -> Cow<'_, str> {
    // A row with no letter of a right-to-left script's blocks is left as it is before each of
    // its characters is classed.
    if !row.chars().any(right_to_left_block) {
        return Cow::Borrowed(row);
    }
    let (mut rtl, mut ltr) = (0usize, 0usize);
    for c in row.chars() {
        match bidi_class(c) {
            BidiClass::R | BidiClass::AL => rtl += 1,
            BidiClass::L => ltr += 1,
            _ => {}
        }
    }
    if rtl == 0 {
        return Cow::Borrowed(row);
    }
    let level = if rtl >= ltr { Level::rtl() } else { Level::ltr() };
    ParagraphBidiInfo::new(row, Some(level)).reorder_line(0..row.len())
}

/// A row's baseline: that of most of its glyphs (the median), not of a raised letter.
/// The size most of a row is set in: the median of its glyphs' sizes, so that a large symbol
/// or a script does not stand for the row.
fn type_size(row: &[Glyph]) -> f32 {
    let mut sizes: Vec<f32> = row.iter().map(|g| g.size).collect();
    sizes.sort_by(f32::total_cmp);
    sizes.get(sizes.len() / 2).copied().unwrap_or(0.0)
}

fn baseline(row: &[Glyph]) -> f32 {
    let mut bases: Vec<f32> = row.iter().map(|g| g.base).collect();
    bases.sort_by(f32::total_cmp);
    bases[bases.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::super::tests::{glyph_line, letters};
    use super::*;

    const SIZE: f32 = 10.0;

    /// Glyphs of one row at 10 pt starting at `x` (see `glyph_line`), raised and lowered
    /// letters not kerned.
    fn row(x: f32, words: &[&str], base: f32) -> Vec<Glyph> {
        glyph_line(x, words, base, 0.0)
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

    /// The gutter of `rows`, their runs of words found as [`in_columns`] finds them.
    fn gutter_of(rows: &[Vec<Glyph>]) -> Option<(f32, f32)> {
        let em = typical_size(rows);
        let runs: Vec<Vec<Span>> = rows.iter().map(|row| spans(row, em)).collect();
        gutter(rows, &runs, em)
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
        let out = read(&text, &glyphs, &[], true).expect("read by rows");
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
            read("A short line and more", &glyphs, &[], true).as_deref(),
            Some("A short line\nand more-\n")
        );
        // The extractor joined the line-end hyphen away: still the same characters.
        assert!(read("A short line and more", &glyphs, &[], true).is_some());
        assert!(read("A short line andmore-", &glyphs, &[], true).is_some());
        // A character the glyphs do not have: left as read.
        assert_eq!(read("A short line and more!", &glyphs, &[], true), None);
        // One they have and the text lacks: left as read (a few such are the text's choice).
        assert_eq!(read("A short line and mor", &glyphs, &[], true), None);
        // A hyphen the text lacks that does not end a row is such a character.
        let inner = row(50.0, &["well-known", "words"], 700.0);
        assert_eq!(read("wellknown words", &inner, &[], true), None);
    }

    #[test]
    fn scripts_and_accents_are_the_same_characters_however_the_extractor_writes_them() {
        let glyphs = row(50.0, &["H2O", "and", "M\u{a8}obius", "or", "a`", "x2~"], 700.0);
        let read = |text: &str| super::read(text, &glyphs, &[], true);
        let out = Some("H2O and M\u{a8}obius or a` x2~\n".to_owned());
        assert_eq!(read("H\u{2082}O and Möbius or a\u{300} x\u{b2}\u{303}"), out);
        assert_eq!(read("H2O and Mo\u{308}bius or à x2~"), out);
        // A digit is not any digit, nor an accent any accent.
        assert_eq!(read("H\u{2083}O and Möbius or a\u{300} x2~"), None);
        assert_eq!(read("H2O and Mőbius or a\u{300} x2~"), None);
    }

    #[test]
    fn a_glyph_without_a_character_keeps_its_mark_where_the_text_dropped_it() {
        // A `ti` ligature the font names no character for: the extractor's text reads `wring`.
        let glyphs = row(50.0, &["of", "wri\u{fffd}ng", "a", "report"], 700.0);
        assert_eq!(
            read("of wring a report", &glyphs, &[], true).as_deref(),
            Some("of wri\u{fffd}ng a report\n")
        );
        // Any other character still has to be the text's.
        assert_eq!(read("of wrng a report", &glyphs, &[], true), None);
    }

    #[test]
    fn columns_are_read_one_after_the_other() {
        let mut glyphs =
            row(50.0, &["A", "title", "across", "both", "columns", "of", "the", "page"], 720.0);
        let mut text = String::from("A title across both columns of the page\n");
        let (mut left, mut right) = (String::new(), String::new());
        for i in 0..12 {
            let base = 700.0 - 12.0 * i as f32;
            glyphs.extend(row(50.0, &["left", "column", &format!("line{i}")], base));
            glyphs.extend(row(320.0, &["right", "column", &format!("line{i}")], base));
            left.push_str(&format!("left column line{i}\n"));
            right.push_str(&format!("right column line{i}\n"));
        }
        glyphs.extend(row(
            50.0,
            &["A", "footer", "across", "both", "columns", "of", "the", "page"],
            500.0,
        ));
        text.push_str(&format!("{left}{right}A footer across both columns of the page\n"));
        assert!(gutter_of(&rows(&glyphs)).is_some());
        let out = read(&text, &glyphs, &[], true).expect("read by columns");
        let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>().join(" "));
        // A table of contents has its numbers beyond a gap, but no letters there.
        let contents =
            [entry("One", "2", 688.0), entry("Two", "3", 676.0), entry("Six", "4", 664.0)];
        assert_eq!(gutter_of(&rows(&contents.concat())), None);
        // Columns within a column (a three-column index) are parted again.
        let mut index = Vec::new();
        let mut expected = Vec::new();
        for (x, name) in [(50.0, "first"), (200.0, "second"), (350.0, "third")] {
            for i in 0..10 {
                index.extend(row(x, &[name, "entry"], 700.0 - 12.0 * i as f32));
                expected.push(format!("{name} entry"));
            }
        }
        let out = render(&{
            let mut ordered = Vec::new();
            in_columns(rows(&index), 0, &mut ordered);
            ordered
        });
        let lines: Vec<&str> = out.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(lines, expected);
    }

    #[test]
    fn text_drawn_over_text_is_never_interleaved() {
        // A label set over a title on the same baseline, as beamer's image placeholder is.
        let title = row(50.0, &["Beamer", "using", "the", "theme"], 700.0);
        let label = row(72.0, &["Image"], 700.0);
        let glyphs = [title, label].concat();
        assert!(overprinted(&rows(&glyphs)));
        assert_eq!(read("Beamer using the theme Image", &glyphs, &[], true), None);
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

    #[test]
    fn a_title_wrapped_in_large_type_stays_one_paragraph() {
        // A section title at 17.28 pt on two lines 22 pt apart, over body lines 12 pt apart at
        // 10 pt: the title's lines are closer than its size makes a paragraph break, the gap
        // after it is not.
        let sized = |words: &[&str], base: f32, size: f32| -> Vec<Glyph> {
            let scale = size / SIZE;
            row(50.0, words, base)
                .into_iter()
                .map(|g| Glyph {
                    left: 50.0 + (g.left - 50.0) * scale,
                    right: 50.0 + (g.right - 50.0) * scale,
                    size,
                    ..g
                })
                .collect()
        };
        let glyphs = [
            sized(&["46", "Encoding", "files"], 700.0, 17.28),
            sized(&["strings"], 678.0, 17.28),
            row(50.0, &["This", "was"], 650.0),
            row(50.0, &["contributed", "by"], 638.0),
            row(50.0, &["Heiko", "for"], 626.0),
            row(50.0, &["the", "package."], 614.0),
            row(50.0, &["Next", "one"], 590.0),
        ]
        .concat();
        assert_eq!(
            render(&rows(&glyphs)),
            "46 Encoding files\nstrings\n\nThis was\ncontributed by\nHeiko for\nthe package.\n\n\
             Next one\n"
        );
    }

    #[test]
    fn glyphs_the_text_left_out_are_read_where_it_lacks_much_of_the_page() {
        // The extractor's text of a tagged page whose structure tree misses most of it.
        let glyphs =
            [row(50.0, &["Franprix", "28.0"], 700.0), row(50.0, &["Casino", "24.8"], 688.0)]
                .concat();
        assert_eq!(
            read("28.0 24.8", &glyphs, &[], true).as_deref(),
            Some("Franprix 28.0\nCasino 24.8\n")
        );
        assert_eq!(read("28.0 24.8", &glyphs, &[], false), None);
        // A text that lacks a few of its glyphs keeps its own reading.
        assert_eq!(read("Franprix 28.0 Casino 24.", &glyphs, &[], true), None);
    }

    #[test]
    fn a_space_glyph_over_touching_glyphs_parts_no_word() {
        // A spreadsheet cell padded with space glyphs drawn over its digits.
        // A spreadsheet cell padded with a run of space glyphs drawn over its digits.
        let mut glyphs = row(50.0, &["03/25/2016"], 700.0);
        let pads: Vec<Glyph> = (0..20)
            .map(|i| Glyph {
                c: ' ',
                left: 50.0 + 2.5 * i as f32,
                right: 52.5 + 2.5 * i as f32,
                ..glyphs[0]
            })
            .collect();
        glyphs.extend(pads);
        glyphs.sort_by(|a, b| a.left.total_cmp(&b.left));
        assert_eq!(read("03/25/2016", &glyphs, &[], false).as_deref(), Some("03/25/2016\n"));
        // A lone space glyph parts two words, in a gap or drawn over the end of the first.
        let mut spaced = row(50.0, &["out", "the"], 700.0);
        spaced.insert(3, Glyph { c: ' ', left: 63.0, right: 66.3, ..spaced[0] });
        assert_eq!(read("out the", &spaced, &[], false).as_deref(), Some("out the\n"));
        let mut tight: Vec<Glyph> = row(50.0, &["outthe"], 700.0);
        tight.insert(3, Glyph { c: ' ', left: 62.0, right: 65.0, ..tight[0] });
        assert_eq!(read("out the", &tight, &[], false).as_deref(), Some("out the\n"));
        // One drawn at the place of the letter after it (` nut`) parts nothing after it.
        let mut leading: Vec<Glyph> = row(50.0, &["a", "nut"], 700.0);
        leading.insert(2, Glyph { c: ' ', left: 58.3, right: 59.7, ..leading[0] });
        leading.sort_by(|a, b| a.left.total_cmp(&b.left));
        assert_eq!(read("a nut", &leading, &[], false).as_deref(), Some("a nut\n"));
    }

    #[test]
    fn right_to_left_rows_are_written_in_reading_order() {
        // Glyphs as they stand on the page, left to right: `R` and `بلغة` laid out right to left,
        // a number within as it stands.
        let glyphs = row(50.0, &["2015", "R", "\u{629}\u{63a}\u{644}\u{628}"], 700.0);
        let out = read("\u{628}\u{644}\u{63a}\u{629} R 2015", &glyphs, &[], false);
        assert_eq!(out.as_deref(), Some("\u{628}\u{644}\u{63a}\u{629} R 2015\n"));
        // Hebrew in a row of mostly Latin text: only its own run turns.
        let mixed = row(50.0, &["see", "\u{5da}\u{5e1}", "here"], 700.0);
        let out = read("see \u{5e1}\u{5da} here", &mixed, &[], false);
        assert_eq!(out.as_deref(), Some("see \u{5e1}\u{5da} here\n"));
    }

    #[test]
    fn private_use_characters_are_set_aside_like_unnamed_glyphs() {
        let glyphs = row(50.0, &["word", "next"], 700.0);
        assert_eq!(read("word\u{f8ff} next", &glyphs, &[], false).as_deref(), Some("word next\n"));
    }

    #[test]
    fn a_line_reaching_into_a_narrow_gutter_stays_in_its_column() {
        // Two columns 2.3 em apart; one line of the left column ends 1.5 em into the gutter,
        // past its middle (a ragged right edge), and is no heading across both.
        let mut glyphs = Vec::new();
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for i in 0..10 {
            let base = 700.0 - 12.0 * i as f32;
            let words: &[&str] = if i == 4 {
                &["aaaaaaaa", "bbbbbbbb", "ccccccccccc"]
            } else {
                &["aaaaaaaa", "bbbbbbbb", "ccccccc"]
            };
            glyphs.extend(row(50.0, words, base));
            left.push(words.join(" "));
            glyphs.extend(row(200.0, &["right", &format!("line{i}")], base));
            right.push(format!("right line{i}"));
        }
        let text = format!("{}\n{}\n", left.join("\n"), right.join("\n"));
        let out = read(&text, &glyphs, &[], false).expect("read by columns");
        // The reading goes up the page again where the right column starts: a blank line.
        assert_eq!(out, text.replacen("\nright line0", "\n\nright line0", 1));
    }
}
