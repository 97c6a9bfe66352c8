//! The f-ligatures pdf_oxide reads as a lone `f`. A font whose encoding names its ligature
//! glyphs the way OpenType names them (`f_i`, `f_f_l`: Linux Libertine, and most fonts
//! converted from OpenType for LaTeX) has them read by pdf_oxide 0.3.78 as their first letter,
//! so `file` reads `fle` and `defined` `defned`. Its text cannot tell that `f` from a plain
//! one, but the glyph's width can: the font's `/Widths` give each ligature's, and a line's
//! other letters give how much the line was stretched (pdfTeX's font expansion scales a line's
//! glyphs by a few per cent). A glyph whose width is a ligature's, and clearly no other
//! candidate's, is read as that ligature's Unicode character (`ﬁ`), which the view folds to
//! its letters.

use std::collections::HashMap;

use pdf_oxide::PdfDocument;
use pdf_oxide::layout::TextChar;
use pdf_oxide::object::Object;

use super::object::{base_name, resolve};

/// What the widths of one font (by its `/BaseFont`) say: each f-ligature's width and the
/// plain `f`'s, and each letter's, in thousandths of an em.
#[derive(Debug, Default)]
pub(super) struct FontWidths {
    /// The f-ligatures the encoding names with underscores, each as its Unicode character.
    ligatures: Vec<(char, f32)>,
    /// The letters' widths (the plain `f` among them).
    letters: HashMap<char, f32>,
}

/// The fonts looked at so far, by `/BaseFont` (a font used on many pages is read once). One
/// font may be embedded as several simple fonts, each with its own encoding of 256 of its
/// glyphs (pdfTeX puts Libertine's ligatures in a second one): their widths are merged.
#[derive(Debug, Default)]
pub(super) struct Fonts {
    known: HashMap<String, FontWidths>,
}

/// Glyph names of the f-ligatures and their Unicode characters.
const LIGATURES: [(&str, char); 5] = [
    ("f_f", '\u{fb00}'),
    ("f_i", '\u{fb01}'),
    ("f_l", '\u{fb02}'),
    ("f_f_i", '\u{fb03}'),
    ("f_f_l", '\u{fb04}'),
];

/// How far a glyph's width may lie from a ligature's, as a share of it, after the line's
/// stretch is taken out (a tenth of the smallest difference between two candidates in
/// Libertine, `f_l` 540 and `f_i` 560).
const TOLERANCE: f32 = 0.012;

/// How many resource dictionaries up the page tree a page's `/Resources` is looked for.
const MAX_PARENTS: usize = 32;

/// The widest a plain `f` is, in ems: a glyph read as `f` that is narrower is no ligature,
/// so most pages are never looked at.
const PLAIN_F_EM: f32 = 0.42;

impl Fonts {
    /// The `f` glyphs of `chars` that are f-ligatures, each as (its index, the ligature).
    pub(super) fn ligatures(
        &mut self,
        doc: &PdfDocument,
        page: usize,
        chars: &[TextChar],
    ) -> Vec<(usize, char)> {
        let wide = |c: &TextChar| c.char == 'f' && c.advance_width > PLAIN_F_EM * c.font_size;
        if !chars.iter().any(wide) {
            return Vec::new();
        }
        if chars.iter().any(|c| wide(c) && !self.known.contains_key(base_name(&c.font_name))) {
            self.read_page(doc, page);
            // A font the page's resources do not hold (one of a form XObject's) is not looked
            // for again.
            for c in chars.iter().filter(|c| wide(c)) {
                self.known.entry(base_name(&c.font_name).to_owned()).or_default();
            }
        }
        let mut out = Vec::new();
        for (i, c) in chars.iter().enumerate().filter(|(_, c)| wide(c)) {
            let Some(font) = self.known.get(base_name(&c.font_name)) else { continue };
            let Some(stretch) = stretch(chars, i, font) else { continue };
            let width = 1000.0 * c.advance_width / (c.font_size * stretch);
            if let Some(ligature) = font.nearest(width) {
                out.push((i, ligature));
            }
        }
        out
    }

    /// Reads the fonts of the page's resources that are not known yet.
    fn read_page(&mut self, doc: &PdfDocument, page: usize) {
        let resolve = |object: &Object| resolve(doc, object);
        let Ok(mut node) = doc.get_page(page) else { return };
        let mut resources = None;
        for _ in 0..MAX_PARENTS {
            let Some(dict) = node.as_dict() else { break };
            if let Some(found) = dict.get("Resources").and_then(resolve) {
                resources = Some(found);
                break;
            }
            let Some(parent) = dict.get("Parent").and_then(resolve) else { break };
            node = parent;
        }
        let Some(fonts) =
            resources.as_ref().and_then(|r| r.as_dict()?.get("Font")).and_then(resolve)
        else {
            return;
        };
        // In the order of their resource names, so that which of two embeddings of one font
        // gives a letter's width is the same on every run.
        let mut named: Vec<(&String, &Object)> = fonts.as_dict().into_iter().flatten().collect();
        named.sort_by(|a, b| a.0.cmp(b.0));
        let mut seen = HashMap::new();
        for (_, font) in named {
            let Some(font) = resolve(font) else { continue };
            let Some(dict) = font.as_dict() else { continue };
            let Some(name) = dict.get("BaseFont").and_then(Object::as_name) else { continue };
            let name = base_name(name);
            if self.known.contains_key(name) {
                continue;
            }
            let widths: &mut FontWidths = seen.entry(name.to_owned()).or_default();
            if let Some(more) = font_widths(dict, &resolve) {
                for (ligature, w) in more.ligatures {
                    if widths.ligatures.iter().all(|(l, _)| *l != ligature) {
                        widths.ligatures.push((ligature, w));
                    }
                }
                for (letter, w) in more.letters {
                    widths.letters.entry(letter).or_insert(w);
                }
            }
        }
        self.known.extend(seen);
    }
}

impl FontWidths {
    /// The ligature `width` is, when it is within [`TOLERANCE`] of exactly one ligature and
    /// of no plain `f` (never, for a font that names no ligature with underscores).
    fn nearest(&self, width: f32) -> Option<char> {
        let near = |w: f32| (width - w).abs() <= TOLERANCE * w;
        if self.letters.get(&'f').is_some_and(|&w| near(w)) {
            return None;
        }
        let mut found = self.ligatures.iter().filter(|(_, w)| near(*w));
        let (ligature, _) = found.next()?;
        found.next().is_none().then_some(*ligature)
    }
}

/// The f-ligature and letter widths of a simple font with `/Differences` and `/Widths`.
fn font_widths(
    font: &HashMap<String, Object>,
    resolve: &impl Fn(&Object) -> Option<Object>,
) -> Option<FontWidths> {
    let encoding = font.get("Encoding").and_then(resolve)?;
    let differences = encoding.as_dict()?.get("Differences").and_then(resolve)?;
    let first = font.get("FirstChar").and_then(Object::as_integer)?;
    let widths = font.get("Widths").and_then(resolve)?;
    let widths = widths.as_array()?;
    let width_of = |code: i64| {
        let at = usize::try_from(code.checked_sub(first)?).ok()?;
        let w = match resolve(widths.get(at)?)? {
            Object::Integer(i) => i as f32,
            Object::Real(r) => r as f32,
            _ => return None,
        };
        (w > 0.0).then_some(w)
    };
    let mut named = Vec::new();
    let mut code = 0i64;
    for entry in differences.as_array()? {
        match entry {
            Object::Integer(i) => code = *i,
            Object::Name(name) => {
                named.push((code, name.as_str()));
                code = code.saturating_add(1);
            }
            _ => {}
        }
    }
    let mut out = FontWidths::default();
    // Letters the differences do not name keep their codes of the base encodings (Standard,
    // WinAnsi and MacRoman agree on the ASCII letters), unless the differences name that code.
    for c in ('a'..='z').chain('A'..='Z') {
        let code = i64::from(u32::from(c));
        if named.iter().all(|&(named, _)| named != code)
            && let Some(w) = width_of(code)
        {
            out.letters.insert(c, w);
        }
    }
    for (code, name) in named {
        let Some(w) = width_of(code) else { continue };
        if let Some(&(_, ligature)) = LIGATURES.iter().find(|(n, _)| *n == name) {
            out.ligatures.push((ligature, w));
        } else if let [c] = name.as_bytes()
            && c.is_ascii_alphabetic()
        {
            out.letters.insert(char::from(*c), w);
        }
    }
    Some(out)
}

/// How much the line of glyph `at` is stretched: the median, over the letters of its font
/// and size on its line (`f` aside), of their width over the font's. `None` when the line has
/// no such letter.
fn stretch(chars: &[TextChar], at: usize, font: &FontWidths) -> Option<f32> {
    let glyph = &chars[at];
    let same_line = |c: &TextChar| {
        c.font_name == glyph.font_name
            && (c.font_size - glyph.font_size).abs() < 0.01
            && (c.origin_y - glyph.origin_y).abs() < 0.1 * glyph.font_size
    };
    // The glyphs of a line lie next to each other in the content stream: look at most this
    // far on each side.
    const REACH: usize = 200;
    let from = at.saturating_sub(REACH);
    let to = (at + REACH).min(chars.len());
    let mut ratios: Vec<f32> = chars[from..to]
        .iter()
        .filter(|c| c.char != 'f' && same_line(c) && c.font_size > 0.0)
        .filter_map(|c| {
            let w = font.letters.get(&c.char)?;
            Some(1000.0 * c.advance_width / (c.font_size * w))
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f32::total_cmp);
    Some(ratios[ratios.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux Libertine's widths (LinLibertine in isomath.pdf).
    fn libertine() -> FontWidths {
        FontWidths {
            ligatures: vec![('\u{fb00}', 582.0), ('\u{fb01}', 560.0), ('\u{fb02}', 540.0)],
            letters: [('f', 310.0), ('e', 429.0), ('n', 530.0)].into_iter().collect(),
        }
    }

    fn glyph(c: char, width: f32, x: f32) -> TextChar {
        TextChar {
            char: c,
            font_name: "MDGLWF+LinLibertine".to_owned(),
            font_size: 10.0,
            advance_width: width * 10.0 / 1000.0,
            origin_x: x,
            origin_y: 700.0,
            ..TextChar::default()
        }
    }

    #[test]
    fn a_glyph_as_wide_as_one_ligature_is_that_ligature() {
        let font = libertine();
        assert_eq!(font.nearest(560.0), Some('\u{fb01}'));
        assert_eq!(font.nearest(541.0), Some('\u{fb02}'));
        assert_eq!(font.nearest(585.0), Some('\u{fb00}'));
        // A plain f, and a width between two ligatures, are left as they are.
        assert_eq!(font.nearest(310.0), None);
        assert_eq!(font.nearest(550.0), None);
        assert_eq!(font.nearest(700.0), None);
    }

    #[test]
    fn a_stretched_line_is_measured_by_its_other_letters() {
        let font = libertine();
        // `defned` on a line stretched 2 %: the `f` glyph is 560 * 1.02 = 571 wide, nearer
        // f_f (582, 1.9 % off) than f_i unstretched; the line's e and n say 1.02.
        let line: Vec<TextChar> =
            [('d', 0.0), ('e', 429.0), ('f', 560.0), ('n', 530.0), ('e', 429.0)]
                .iter()
                .enumerate()
                .map(|(i, &(c, w))| glyph(c, w * 1.02, 10.0 * i as f32))
                .collect();
        let s = stretch(&line, 2, &font).expect("letters to measure by");
        assert!((s - 1.02).abs() < 1e-3, "{s}");
        assert_eq!(font.nearest(1000.0 * line[2].advance_width / (10.0 * s)), Some('\u{fb01}'));
        // A line with no letter of known width is not guessed at.
        assert_eq!(stretch(&line[2..3], 0, &font), None);
    }

    #[test]
    fn a_font_s_ligatures_and_letters_are_read_from_its_differences() {
        let name = |n: &str| Object::Name(n.to_owned());
        let font = |names: Vec<Object>| -> HashMap<String, Object> {
            let mut encoding = HashMap::new();
            encoding.insert("Differences".to_owned(), Object::Array(names));
            let mut font = HashMap::new();
            font.insert("Encoding".to_owned(), Object::Dictionary(encoding));
            font.insert("FirstChar".to_owned(), Object::Integer(100));
            font.insert(
                "Widths".to_owned(),
                Object::Array([429, 310, 500, 560, 540].map(Object::Integer).to_vec()),
            );
            font
        };
        let resolve = |o: &Object| Some(o.clone());
        let libertine =
            font(vec![Object::Integer(101), name("f"), name("g"), name("f_i"), name("f_l")]);
        let widths = font_widths(&libertine, &resolve).expect("a font with ligatures");
        assert_eq!(widths.ligatures, [('\u{fb01}', 560.0), ('\u{fb02}', 540.0)]);
        assert_eq!(widths.letters.get(&'f'), Some(&310.0));
        // `d` at 100 by the base encoding; 101, `e` there, is named `f` by the differences.
        assert_eq!(widths.letters.get(&'d'), Some(&429.0));
        assert_eq!(widths.letters.get(&'e'), None);
        // `fi` is a name pdf_oxide reads right: no ligature to mend.
        let plain = font(vec![Object::Integer(101), name("f"), name("g"), name("fi")]);
        let widths = font_widths(&plain, &resolve).expect("a simple font");
        assert!(widths.ligatures.is_empty());
        assert_eq!(widths.nearest(500.0), None);
    }
}
