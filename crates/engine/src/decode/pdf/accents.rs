//! Accents a TeX PDF sets as glyphs of their own (`art´ıculo`), composed with their letters.

/// Composes an accent that a TeX PDF sets as a glyph of its own with its letter, into the
/// precomposed letter that search expects (pdftotext shows the same letter, decomposed):
/// `art´ıculo` → `artículo`, `spa˜nol` → `español`, `u ˜(x)` → `ũ(x)`. The accent is a
/// spacing character (´ ˆ ˜ …), a combining mark after a space, or a combining mark after a
/// letter that NFC cannot compose (the dotless `ı` of `ı\u{301}`). Its letter is, in this
/// order: a dotless ı or ȷ just before it (with or without a space: the dotless letters exist
/// to carry accents), the letter just after it (TeX's `\accent` sets the accent before its
/// letter), the letter just before a cedilla or ogonek (which `\ooalign` sets after it), or
/// a one-letter word just before a free-standing accent that a bracket or punctuation follows
/// (math: `u ˆ(t)`). A pair is composed only into a real precomposed letter (`ˆx` has none
/// and stays as it is); no character is dropped otherwise. The ASCII `^`, `~` and backtick
/// are never accents here: in code and TeX quotes they are themselves.
pub(super) fn compose_accents(text: &str) -> String {
    if !text.chars().any(|c| spacing_accent(c).is_some() || is_mark(c)) {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if is_mark(c) && out.last().is_some_and(|l| l.is_alphabetic()) {
            // A mark on its letter: composed where NFC would, and on a dotless letter too.
            let last = out.len() - 1;
            match compose(out[last], c) {
                Some(composed) => out[last] = composed,
                None => out.push(c),
            }
            continue;
        }
        // A free-standing accent: a spacing character, or a mark whose carrier is a space
        // (the space is part of the accent then, and goes with it).
        let (mark, carrier) = match spacing_accent(c) {
            Some(mark) => (mark, 0),
            None if is_mark(c) && out.last() == Some(&' ') => (c, 1),
            None => {
                out.push(c);
                continue;
            }
        };
        let before = out.len() - carrier;
        let prev = before.checked_sub(1).map(|k| out[k]);
        let prev_spaced = (prev == Some(' ')).then(|| before.checked_sub(2).map(|k| out[k]));
        let next = chars.get(i).copied();
        // 1. A dotless ı or ȷ just before, or one space before.
        let dotless = |l: Option<char>| l.is_some_and(|l| matches!(l, '\u{131}' | '\u{237}'));
        if dotless(prev) || prev_spaced.is_some_and(dotless) {
            let at = if dotless(prev) { before - 1 } else { before - 2 };
            if let Some(composed) = compose(out[at], mark) {
                out.truncate(at);
                out.push(composed);
                continue;
            }
        }
        // 2. The letter just after.
        if let Some(letter) = next.filter(|l| l.is_alphabetic())
            && let Some(composed) = compose(letter, mark)
        {
            out.push(composed);
            i += 1;
            continue;
        }
        // 3. A cedilla or an ogonek may also follow its letter (`c¸ais`: no a with a cedilla).
        if matches!(mark, '\u{327}' | '\u{328}')
            && let Some(letter) = prev.filter(|l| l.is_alphabetic())
            && let Some(composed) = compose(letter, mark)
        {
            out.truncate(before - 1);
            out.push(composed);
            continue;
        }
        // 4. A free-standing accent between a one-letter word and a bracket or punctuation:
        //    that letter's (math: `u ˜(x)`). Not before a space: in code a spacing tilde is an
        //    operator (lstbayes examples.pdf: `sigmasq y ˜ inv gamma`).
        if next.is_some_and(|n| !n.is_alphanumeric() && !n.is_whitespace())
            && let Some(Some(letter)) = prev_spaced
            && letter.is_alphabetic()
            && (before < 3 || !out[before - 3].is_alphanumeric())
            && let Some(composed) = compose(letter, mark)
        {
            out.truncate(before - 2);
            out.push(composed);
            continue;
        }
        out.push(c);
    }
    out.into_iter().collect()
}

/// The combining mark of a spacing accent (U+00B4 ´ is U+0301 set on a space, and so on).
pub(super) fn spacing_accent(c: char) -> Option<char> {
    Some(match c {
        '\u{b4}' | '\u{2ca}' => '\u{301}',
        '\u{2cb}' => '\u{300}',
        '\u{2c6}' => '\u{302}',
        '\u{2dc}' => '\u{303}',
        '\u{af}' | '\u{2c9}' => '\u{304}',
        '\u{2d8}' => '\u{306}',
        '\u{2d9}' => '\u{307}',
        '\u{a8}' => '\u{308}',
        '\u{2da}' => '\u{30a}',
        '\u{2dd}' => '\u{30b}',
        '\u{2c7}' => '\u{30c}',
        '\u{b8}' => '\u{327}',
        '\u{2db}' => '\u{328}',
        _ => return None,
    })
}

/// A combining diacritical mark (U+0300–U+036F).
fn is_mark(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// The precomposed letter of a letter and a mark, if Unicode has one; a dotless ı or ȷ takes
/// the accent as i or j (`ı´` is í).
fn compose(letter: char, mark: char) -> Option<char> {
    let base = match letter {
        '\u{131}' => 'i',
        '\u{237}' => 'j',
        c => c,
    };
    unicode_normalization::char::compose(base, mark).filter(|c| c.is_alphabetic())
}
