//! Letters a typesetter raised or lowered inside a word, put back into it.
//!
//! TeX's logos set a letter off the baseline between two others: the A of LaTeX is raised a
//! third of an ex, the E of TeX (and of LuaTeX, XeTeX, BibTeX) lowered half an ex, each kerned
//! into its neighbours. pdf_oxide 0.3.78 assembles a line from glyphs that share a baseline,
//! so the shifted letter leaves its word: `LT X News`, with the E on a line of its own below
//! (`E E E` for three logos) or glued to the end of another line (`release ofE`), and the
//! raised A on the line above or inside a neighbour (`LTA EX`). The glyphs still say where
//! each letter sits: this module finds the words that hold such a letter, finds each of them
//! in the page's text by its other letters, writes it whole there, and takes the stray copies
//! of the letters it moved out of the places the extractor left them.
//!
//! Only where it is safe:
//! - a shifted glyph is one set 0.1-0.3 em off a line's baseline, tight between two glyphs
//!   of that line (at most 0.15 em from each, as kerning sets them) and not part of a word of
//!   its own line; a superscript before a space or an operator, a limit above a sum, a
//!   fraction's numerator or a neighbouring line are none;
//! - a word is looked for by its other letters in their order, with at most two stray shifted
//!   letters between them and its own shifted letters right after it (`LT XE`, `REVT X E`),
//!   parted from the text around it (no letter or digit glued before or after); longer words
//!   first, so `LaTeX,` is not taken for `LaTeX`; a word the text holds more often than the
//!   glyphs show is left alone; two shifted glyphs stacked at one place (`ds²ᵣ`) drop it;
//! - the page keeps every letter it had: each letter written into a word is taken out of a
//!   place where the extractor left a stray one (a line of lone shifted letters, lone ones at
//!   a line's end, one glued to the end of a line after a lower-case letter or punctuation),
//!   and when the strays cannot all be found, or a word took more letters than it gives back,
//!   the page is left as the extractor read it.

use std::collections::BTreeMap;

use super::gaps::{Glyph, MAX_TEXT, WORD_GAP_EM};

/// How far off its line's baseline a shifted glyph sits, in ems of the line's font: TeX
/// raises the A of LaTeX 0.17-0.22 em and lowers the E of TeX 0.21 em, a subscript sits
/// 0.15-0.25 em low; a glyph 0.4 em off is a line of its own set close (a row of marks in a
/// table) or an exponent.
const SHIFT_MIN_EM: f32 = 0.1;
const SHIFT_MAX_EM: f32 = 0.3;
/// The widest gap between a shifted glyph and each of its neighbours on the line, in ems
/// (kerning brings them closer, often overlapping).
const TIGHT_EM: f32 = 0.15;
/// Glyphs whose baselines are this close (in ems) are on one row.
const ROW_EM: f32 = 0.02;
/// The most shifted glyphs and distinct words handled on a page: a logo-heavy page has a few
/// dozen; the rest of a page of scattered glyphs is left alone.
const MAX_SHIFTED: usize = 1024;
const MAX_WORDS: usize = 128;
/// The most rows on each side of a glyph's own that are looked at for its line: a page of
/// glyphs each on a baseline of its own (a plot's labels) would otherwise cost the square of
/// its glyphs.
const NEAR_ROWS: usize = 8;

/// A word that holds shifted letters, as the glyphs show it.
struct Word {
    letters: Vec<char>,
    /// Whether each letter sits on the line (`true`) or is shifted off it.
    on_line: Vec<bool>,
    /// How often the page's glyphs hold it.
    count: usize,
}

impl Word {
    /// Its letters on the line (`true`) or shifted off it (`false`), in order.
    fn letters_where(&self, on_line: bool) -> impl Iterator<Item = char> + '_ {
        self.letters
            .iter()
            .zip(&self.on_line)
            .filter(move |(_, on)| **on == on_line)
            .map(|(c, _)| *c)
    }
}

/// Whether the byte range `start..end` overlaps none of `spans`.
fn clear_of(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    spans.iter().all(|&(s, e)| end <= s || start >= e)
}

/// The page's text with the words that hold raised or lowered letters written whole and the
/// stray copies of those letters taken out; `None` when nothing changes.
pub(super) fn restore(text: &str, glyphs: &[Glyph]) -> Option<String> {
    if text.len() > MAX_TEXT || glyphs.len() > MAX_TEXT {
        return None;
    }
    let words = shifted_words(glyphs);
    if words.is_empty() {
        return None;
    }
    let strays: Vec<char> = {
        let mut s: Vec<char> = words.iter().flat_map(|w| w.letters_where(false)).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    // The text without white space, and the byte offset in the text of each of its chars.
    let (compact, origin): (Vec<char>, Vec<usize>) =
        text.char_indices().filter(|(_, c)| !c.is_whitespace()).map(|(at, c)| (c, at)).unzip();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // Letters written into words minus letters taken out of the text, per letter.
    let mut moved: BTreeMap<char, i64> = BTreeMap::new();
    for word in &words {
        let found = find_all(text, &compact, &origin, word, &strays, &taken);
        if found.is_empty() || found.len() > word.count {
            continue;
        }
        for (start, end) in found {
            for c in text[start..end].chars().filter(|c| !c.is_whitespace()) {
                *moved.entry(c).or_default() -= 1;
            }
            for &c in &word.letters {
                *moved.entry(c).or_default() += 1;
            }
            taken.push((start, end));
            edits.push((start, end, word.letters.iter().collect()));
        }
    }
    if edits.is_empty() || moved.values().any(|&n| n < 0) {
        return None;
    }
    taken.sort_unstable();
    let cuts = stray_cuts(text, &taken, &mut moved)?;
    edits.extend(cuts.into_iter().map(|(s, e)| (s, e, String::new())));
    edits.sort_unstable_by_key(|e| e.0);
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (start, end, with) in edits {
        out.push_str(&text[from..start]);
        out.push_str(&with);
        from = end;
    }
    out.push_str(&text[from..]);
    (out != text).then_some(out)
}

/// The words of the page's glyphs that hold a shifted glyph, longest first.
fn shifted_words(glyphs: &[Glyph]) -> Vec<Word> {
    let usable = |g: &Glyph| {
        g.base.is_finite() && g.left.is_finite() && g.right.is_finite() && g.size.is_finite()
    };
    let mut order: Vec<usize> = (0..glyphs.len()).filter(|&i| usable(&glyphs[i])).collect();
    order.sort_by(|&a, &b| {
        glyphs[a].base.total_cmp(&glyphs[b].base).then(glyphs[a].left.total_cmp(&glyphs[b].left))
    });
    // Rows: glyphs on one baseline, left to right.
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut bases: Vec<f32> = Vec::new();
    for i in order {
        let g = &glyphs[i];
        match (rows.last_mut(), bases.last()) {
            (Some(row), Some(&base)) if (g.base - base).abs() <= ROW_EM * g.size.max(1.0) => {
                row.push(i);
            }
            _ => {
                rows.push(vec![i]);
                bases.push(g.base);
            }
        }
    }
    for row in &mut rows {
        row.sort_by(|&a, &b| glyphs[a].left.total_cmp(&glyphs[b].left));
    }
    let is_space = |i: usize| glyphs[i].c.is_whitespace() || glyphs[i].c.is_control();
    // Shifted glyphs: (host row, position in it of the glyph before, glyph).
    let mut shifted: Vec<(usize, usize, usize)> = Vec::new();
    let mut is_shifted = vec![false; glyphs.len()];
    for (r, row) in rows.iter().enumerate() {
        for (k, &i) in row.iter().enumerate() {
            let g = &glyphs[i];
            if is_space(i) || shifted.len() >= MAX_SHIFTED {
                continue;
            }
            // Part of a word of its own row: a letter of a line, not a shifted one.
            let near = |j: usize| {
                let o = &glyphs[j];
                !is_space(j) && (o.left - g.right).max(g.left - o.right) < TIGHT_EM * g.size
            };
            if k.checked_sub(1).is_some_and(|p| near(row[p]))
                || row.get(k + 1).is_some_and(|&n| near(n))
            {
                continue;
            }
            let reach = 2.0 * SHIFT_MAX_EM * g.size.max(1.0);
            let mut best: Option<(f32, usize, usize)> = None;
            for h in near_rows(&bases, r, g.base, reach) {
                if h == r {
                    continue;
                }
                let host = &rows[h];
                let at = host.partition_point(|&j| glyphs[j].left <= g.left);
                let (Some(p), Some(&n)) = (at.checked_sub(1), host.get(at)) else { continue };
                let (pi, ni) = (host[p], n);
                if is_space(pi) || is_space(ni) {
                    continue;
                }
                let (pg, ng) = (&glyphs[pi], &glyphs[ni]);
                let em = pg.size.max(ng.size).max(1.0);
                let shift = (g.base - bases[h]).abs();
                let tight =
                    g.left - pg.right <= TIGHT_EM * em && ng.left - g.right <= TIGHT_EM * em;
                // The line leaves no more room for it than its width and two tight gaps.
                let room = ng.left - pg.right <= (g.right - g.left) + 2.0 * TIGHT_EM * em;
                if (SHIFT_MIN_EM * em..=SHIFT_MAX_EM * em).contains(&shift)
                    && tight
                    && room
                    && best.is_none_or(|(s, _, _)| shift < s)
                {
                    best = Some((shift, h, p));
                }
            }
            if let Some((_, h, p)) = best {
                shifted.push((h, p, i));
                is_shifted[i] = true;
            }
        }
    }
    shifted.sort_by(|a, b| {
        (a.0, a.1).cmp(&(b.0, b.1)).then(glyphs[a.2].left.total_cmp(&glyphs[b.2].left))
    });
    let mut words: BTreeMap<(Vec<char>, Vec<bool>), usize> = BTreeMap::new();
    let mut s = 0;
    while s < shifted.len() {
        let h = shifted[s].0;
        let row = &rows[h];
        // The host row with its shifted glyphs after the glyph before each.
        let mut merged: Vec<(usize, bool)> = Vec::with_capacity(row.len() + 4);
        for (k, &i) in row.iter().enumerate() {
            merged.push((i, true));
            while s < shifted.len() && shifted[s].0 == h && shifted[s].1 == k {
                merged.push((shifted[s].2, false));
                s += 1;
            }
        }
        while s < shifted.len() && shifted[s].0 == h {
            s += 1;
        }
        // Its words: runs between space glyphs and word gaps.
        let mut word: (Vec<char>, Vec<bool>) = (Vec::new(), Vec::new());
        // A word is dropped when its letters are not in one order: a shifted glyph that is
        // itself a letter of a line, or two shifted glyphs stacked (a sub- and a superscript
        // at one place, `ds²ᵣ`, which no order reads right).
        let mut sound = true;
        let mut right = f32::NEG_INFINITY;
        let mut shifted_right = f32::NEG_INFINITY;
        let mut flush = |word: &mut (Vec<char>, Vec<bool>), sound: &mut bool| {
            let w = std::mem::take(word);
            if *sound
                && w.1.contains(&false)
                && w.1.first() == Some(&true)
                && w.1.last() == Some(&true)
            {
                *words.entry(w).or_default() += 1;
            }
            *sound = true;
        };
        for (i, on_line) in merged {
            let g = &glyphs[i];
            if is_space(i) {
                flush(&mut word, &mut sound);
                right = f32::NEG_INFINITY;
                shifted_right = f32::NEG_INFINITY;
                continue;
            }
            if g.left - right >= WORD_GAP_EM * g.size.max(1.0) {
                flush(&mut word, &mut sound);
                shifted_right = f32::NEG_INFINITY;
            }
            if on_line && is_shifted[i] {
                sound = false;
            }
            if !on_line {
                if g.left < shifted_right {
                    sound = false;
                }
                shifted_right = g.right;
            }
            word.0.push(g.c);
            word.1.push(on_line);
            right = right.max(g.right);
        }
        flush(&mut word, &mut sound);
    }
    let mut out: Vec<Word> = words
        .into_iter()
        .map(|((letters, on_line), count)| Word { letters, on_line, count })
        .collect();
    out.sort_by(|a, b| b.letters.len().cmp(&a.letters.len()).then(a.letters.cmp(&b.letters)));
    out.truncate(MAX_WORDS);
    out
}

/// The rows whose baselines are within `reach` of `base`, at most [`NEAR_ROWS`] on each side
/// of row `r` (the row at `base`; `bases` ascending).
fn near_rows(bases: &[f32], r: usize, base: f32, reach: f32) -> std::ops::Range<usize> {
    let lo = bases.partition_point(|&b| b < base - reach).max(r.saturating_sub(NEAR_ROWS));
    let hi = bases.partition_point(|&b| b <= base + reach).min(r + 1 + NEAR_ROWS);
    lo..hi.max(lo)
}

/// Where the text holds `word`: its letters on the line in order, at most two stray shifted
/// letters among them, parted from the text around it, outside the places already `taken`.
/// Byte ranges of the text, in order, none overlapping.
fn find_all(
    text: &str,
    compact: &[char],
    origin: &[usize],
    word: &Word,
    strays: &[char],
    taken: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let on_line: Vec<char> = word.letters_where(true).collect();
    let Some(&first) = on_line.first() else { return Vec::new() };
    let off_line: Vec<char> = word.letters_where(false).collect();
    let allowed = 2 * off_line.len();
    let mut found = Vec::new();
    let mut i = 0;
    while i < compact.len() {
        if compact[i] != first {
            i += 1;
            continue;
        }
        let mut j = i;
        let mut extras: Vec<char> = Vec::new();
        let mut ok = true;
        for &c in &on_line {
            loop {
                match compact.get(j) {
                    Some(&x) if x == c => {
                        j += 1;
                        break;
                    }
                    Some(x) if extras.len() < allowed && j > i && strays.contains(x) => {
                        extras.push(*x);
                        j += 1;
                    }
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                break;
            }
        }
        if ok {
            // The word's shifted letters not met inside it may follow it at once, glued or
            // after a space (`LT XE`, `REVT X E 4`): they are its own.
            let mut missing = off_line.clone();
            for x in &extras {
                if let Some(k) = missing.iter().position(|m| m == x) {
                    missing.swap_remove(k);
                }
            }
            while let Some(k) = compact.get(j).and_then(|x| missing.iter().position(|m| m == x)) {
                missing.swap_remove(k);
                j += 1;
            }
            let start = origin[i];
            let last = origin[j - 1];
            let end = last + text[last..].chars().next().map_or(1, char::len_utf8);
            let parted = !text[..start].chars().next_back().is_some_and(char::is_alphanumeric)
                && !text[end..].chars().next().is_some_and(char::is_alphanumeric);
            let lines = text[start..end].matches('\n').count();
            if parted && lines <= 1 && clear_of(taken, start, end) {
                found.push((start, end));
                if found.len() > word.count {
                    // More than the glyphs show: the caller leaves the word alone.
                    break;
                }
                i = j;
                continue;
            }
        }
        i += 1;
    }
    found
}

/// Byte ranges to cut from the text outside `taken` that remove the stray letters `moved`
/// counts (each count down to zero): lines of lone shifted letters first, then a lone one at a
/// line's end, then one glued to a line's end after a lower-case letter or a punctuation mark. `None` when they
/// cannot all be found.
fn stray_cuts(
    text: &str,
    taken: &[(usize, usize)],
    moved: &mut BTreeMap<char, i64>,
) -> Option<Vec<(usize, usize)>> {
    let want = |moved: &BTreeMap<char, i64>, c: char| moved.get(&c).is_some_and(|&n| n > 0);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let lines: Vec<(usize, &str)> = {
        let mut at = 0;
        text.split_inclusive('\n')
            .map(|l| {
                let s = at;
                at += l.len();
                (s, l)
            })
            .collect()
    };
    // A line of lone letters, each one the words took: the whole line goes.
    for &(at, line) in &lines {
        let body = line.trim_end_matches('\n');
        let tokens: Vec<&str> = body.split_whitespace().collect();
        if tokens.is_empty() || !clear_of(taken, at, at + line.len()) {
            continue;
        }
        let mut need: BTreeMap<char, i64> = BTreeMap::new();
        let lone = tokens.iter().all(|t| {
            let mut cs = t.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => {
                    *need.entry(c).or_default() += 1;
                    true
                }
                _ => false,
            }
        });
        if lone && need.iter().all(|(c, n)| moved.get(c).is_some_and(|m| m >= n)) {
            for (c, n) in need {
                *moved.entry(c).or_default() -= n;
            }
            cuts.push((at, at + line.len()));
        }
    }
    // Lone letters at a line's end (`commands . . . E`, `in the A E`), then one glued to a
    // line's end after a lower-case letter or a punctuation mark (`release ofE`, `news.E`).
    // Each line is cut from its end, so `ends` holds where each line's text now ends.
    let mut ends: Vec<usize> = lines.iter().map(|&(at, line)| at + line.trim_end().len()).collect();
    for glued in [false, true] {
        for (&(at, _), end) in lines.iter().zip(ends.iter_mut()) {
            loop {
                let body = &text[at..*end];
                let Some(c) = body.chars().next_back() else { break };
                let start = *end - c.len_utf8();
                let before = text[at..start].chars().next_back();
                let fits = if glued {
                    before.is_some_and(|b| b.is_lowercase() || b.is_ascii_punctuation())
                        && c.is_uppercase()
                } else {
                    before.is_some_and(char::is_whitespace)
                };
                if !want(moved, c)
                    || !fits
                    || !clear_of(taken, start, *end)
                    || !clear_of(&cuts, start, *end)
                {
                    break;
                }
                // A lone letter takes the space before it along.
                let from = if glued { start } else { at + text[at..start].trim_end().len() };
                cuts.push((from, *end));
                *moved.entry(c).or_default() -= 1;
                *end = from;
                if glued {
                    break;
                }
            }
        }
    }
    if moved.values().any(|&n| n != 0) {
        return None;
    }
    cuts.sort_unstable();
    Some(cuts)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{glyph_line, letters};
    use super::*;

    const SIZE: f32 = 10.0;

    /// Glyphs of one line at 10 pt from x = 0 (see `glyph_line`); raised and lowered letters
    /// kerned 1.5 pt into their neighbours as TeX's logos are.
    fn line(words: &[&str], base: f32) -> Vec<Glyph> {
        glyph_line(0.0, words, base, -1.5)
    }

    #[test]
    fn a_logo_whose_letters_left_its_line_is_written_whole() {
        let glyphs =
            [line(&["L^AT_EX", "News,", "and", "the", "L^AT_EX", "software"], 700.0)].concat();
        // The extractor's reading: the lowered E's on a line of their own, one raised A inside
        // the second logo, the other at the start of the next line.
        let text = "LT X News, and the L\nA AT X software\nE E\nNext line.\n";
        let out = restore(text, &glyphs).expect("mended");
        assert_eq!(out, "LATEX News, and the LATEX software\nNext line.\n");
        assert_eq!(letters(&out), letters(text));
        // A title whose shifted letters came out after their neighbours.
        let glyphs = line(&["L^AT_EX", "News"], 700.0);
        assert_eq!(restore("LTA EX News\n", &glyphs).as_deref(), Some("LATEX News\n"));
    }

    #[test]
    fn stray_letters_are_taken_from_line_ends() {
        let glyphs =
            [line(&["release", "of"], 700.0), line(&["T_EX", "and", "Lua", "T_EX", "here"], 688.0)]
                .concat();
        // One E glued to the end of the line above, one set apart at the end of its own.
        let text = "release ofE\nT X and Lua T X here E\n";
        let out = restore(text, &glyphs).expect("mended");
        assert_eq!(out, "release of\nTEX and Lua TEX here\n");
    }

    #[test]
    fn a_page_keeps_its_letters_or_is_left_alone() {
        let glyphs = line(&["L^AT_EX", "News"], 700.0);
        // No stray A or E to take out: writing the word whole would add letters.
        assert_eq!(restore("LT X News\n", &glyphs), None);
        // The text holds the word more often than the glyphs show it: which one is not known.
        assert_eq!(restore("LT X News LT X\nA E\n", &glyphs), None);
        // Glued to a neighbour: not this word.
        assert_eq!(restore("XLT X News\nA E\n", &glyphs), None);
    }

    #[test]
    fn superscripts_and_stacked_scripts_are_not_shifted_letters() {
        // A footnote mark before a space, and an exponent before an operator 0.3 em away.
        let mut glyphs = line(&["word"], 700.0);
        glyphs.push(Glyph { c: '1', left: 20.0, right: 23.0, base: 703.0, size: 7.0 });
        glyphs.extend(line(&["next"], 700.0).into_iter().map(|g| Glyph {
            left: g.left + 26.3,
            right: g.right + 26.3,
            ..g
        }));
        assert_eq!(restore("word next\n1\n", &glyphs), None);
        // ds with 2 above and r below at one place: no order reads it right.
        let mut glyphs = line(&["ds", "="], 700.0);
        glyphs.push(Glyph { c: '2', left: 10.0, right: 13.0, base: 702.5, size: 7.0 });
        glyphs.push(Glyph { c: 'r', left: 10.0, right: 13.0, base: 698.0, size: 7.0 });
        glyphs.push(Glyph { c: ')', left: 12.5, right: 15.0, base: 700.0, size: 10.0 });
        assert_eq!(restore("ds ) =\n2\nr\n", &glyphs), None);
        // A mark of a table row set 0.42 em below a line of text: not the line's.
        let mut glyphs = line(&["is", "negative"], 700.0);
        glyphs.push(Glyph { c: '√', left: 18.0, right: 24.0, base: 695.8, size: SIZE });
        assert_eq!(restore("is negative √\n", &glyphs), None);
        // A neighbouring line is no shifted letter of this one.
        let glyphs = [line(&["first", "line"], 700.0), line(&["second", "line"], 688.0)].concat();
        assert_eq!(restore("first line\nsecond line\n", &glyphs), None);
    }

    #[test]
    fn a_glyph_looks_at_a_bounded_number_of_rows() {
        // Baselines a hundredth of a point apart (a plot's labels, each glyph on its own):
        // thousands of rows within reach, of which the nearest few on each side are seen.
        let bases: Vec<f32> = (0..40_000).map(|i| i as f32 * 0.01).collect();
        let rows = near_rows(&bases, 20_000, 200.0, 6.0);
        assert_eq!(rows, 20_000 - NEAR_ROWS..20_001 + NEAR_ROWS);
        // Few rows: all within reach, none beyond it.
        let bases = [100.0, 697.0, 700.0, 702.0, 720.0];
        assert_eq!(near_rows(&bases, 2, 700.0, 6.0), 1..4);
        assert_eq!(near_rows(&bases, 0, 100.0, 6.0), 0..1);
        // And a page of such glyphs is read through.
        let glyphs: Vec<Glyph> = (0..40_000)
            .map(|i| {
                let x = (i % 7) as f32 * 4.0;
                Glyph { c: 'x', left: x, right: x + 5.0, base: i as f32 * 0.01, size: SIZE }
            })
            .collect();
        assert_eq!(restore(&"x".repeat(40_000), &glyphs), None);
    }

    #[test]
    fn letters_are_kept_whatever_the_glyphs_and_text() {
        let mut next = crate::decode::pdf::tests::random(0x9e37_79b9_7f4a_7c15);
        let pool = ["L^AT_EX", "T_EX", "Lua", "LuaT_EX", "H_2O", "of", "é^ł_年", "A", "E"];
        let mut mended = 0;
        for _ in 0..3000 {
            let mut glyphs = Vec::new();
            let mut lines = Vec::new();
            let mut strays = Vec::new();
            for l in 0..1 + next(3) {
                let words: Vec<&str> =
                    (0..1 + next(4)).map(|_| pool[next(pool.len() as u64) as usize]).collect();
                glyphs.extend(line(&words, 700.0 - 12.0 * l as f32));
                // The extractor's reading: shifted letters left out, or kept in place, or
                // put after their neighbour; the ones left out go somewhere else.
                let mut text = String::new();
                for (i, w) in words.iter().enumerate() {
                    if i > 0 {
                        text.push(' ');
                    }
                    let mut chars = w.chars();
                    while let Some(c) = chars.next() {
                        if c == '^' || c == '_' {
                            let s = chars.next().unwrap_or(' ');
                            match next(3) {
                                0 => strays.push(s),
                                1 => text.push(s),
                                _ => {
                                    text.push(' ');
                                    strays.push(s);
                                }
                            }
                        } else {
                            text.push(c);
                        }
                    }
                }
                lines.push(text);
            }
            for s in strays {
                match next(3) {
                    0 => lines.push(s.to_string()),
                    1 => {
                        if let Some(l) = lines.first_mut() {
                            l.push(s);
                        }
                    }
                    _ => {
                        if let Some(l) = lines.last_mut() {
                            l.push(' ');
                            l.push(s);
                        }
                    }
                }
            }
            let text = lines.join("\n") + "\n";
            if let Some(out) = restore(&text, &glyphs) {
                mended += 1;
                assert_eq!(letters(&out), letters(&text), "{text:?} -> {out:?}");
            }
        }
        assert!(mended > 300, "the generator should make repairs, made {mended}");
    }
}
