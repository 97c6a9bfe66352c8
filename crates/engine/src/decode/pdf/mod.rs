//! PDF → a text view with one location per page, pages joined with a form feed. A page is read
//! from its glyphs on the page (not those a crop leaves off it) a row at a time, column by
//! column ([`rows`]); a page the rows cannot read safely (text drawn over text, characters of
//! the extractor's text the glyphs do not hold) keeps pdf_oxide's
//! reading order, with the word spaces it lost put back from the glyphs' positions ([`gaps`])
//! and the words whose letters the typesetter raised or lowered (`LaTeX`, `TeX`) written whole
//! again ([`shifted`]). Bookmarks (the outline) become Markdown headings on the page they point
//! to, or in a document without bookmarks, lines set larger than the body text ([`sizes`]);
//! ligatures are folded, accents set apart composed with their letters, and words
//! hyphenated at a line end joined where that is safe.
//!
//! Memory: the file's bytes and pdf_oxide's parsed objects are held while it runs, and pages
//! are extracted one at a time, so beyond the text view itself a worker holds one page's
//! spans and glyphs at a time, never the whole document's.

use pdf_oxide::PdfDocument;
use pdf_oxide::outline::{Destination, OutlineItem};

use super::{Document, PageLabel};
use accents::compose_accents;

mod accents;
mod gaps;
mod ligatures;
mod object;
mod rows;
mod shifted;
mod sizes;

/// Where a PDF may start: some files carry junk before `%PDF-`, readers allow 1 KiB of it.
const HEADER_WINDOW: usize = 1024;

/// Decodes a PDF file.
pub fn decode(bytes: Vec<u8>) -> Result<Document, String> {
    let head = &bytes[..bytes.len().min(HEADER_WINDOW)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err("no %PDF- header".to_owned());
    }
    let doc = PdfDocument::from_bytes(bytes).map_err(|e| format!("not a readable PDF: {e}"))?;
    // Most encrypted PDFs only restrict printing or copying and open with the empty password;
    // one that needs a real password is refused, not guessed at.
    if doc.is_encrypted() && !doc.is_authenticated() && !doc.authenticate(b"").unwrap_or(false) {
        return Err("encrypted (a password is needed)".to_owned());
    }
    let n_pages = doc.page_count().map_err(|e| format!("no page tree: {e}"))?;
    let headings = outline_by_page(&doc, n_pages);
    let mut out = String::new();
    let mut locations = Vec::with_capacity(n_pages);
    let mut failed = Vec::new();
    let mut fonts = ligatures::Fonts::default();
    // pdf_oxide's own text without its table detection (`extract_text` turns it on): the
    // rows read the page from its glyphs, and the text is their check and the reading kept
    // where they cannot. The detection copies a tagged document's structure tree for each
    // page (ca-warn-report.pdf, an Excel report of 16 pages: peak RSS 90 -> 48 MiB, CPU time
    // halved), and its rows of padded cells read worse than the text without them.
    let text_options =
        pdf_oxide::converters::ConversionOptions { extract_tables: false, ..Default::default() };
    // Each page's text, and the sizes its glyphs are set in (for headings when the document
    // has no bookmarks).
    let mut pages = Vec::with_capacity(n_pages);
    let mut sizes = sizes::Sizes::default();
    let mut font_styles = std::collections::HashMap::new();
    for page in 0..n_pages {
        let raw = match doc.extract_text_with_options(page, &text_options) {
            Ok(raw) => raw,
            Err(_) => {
                // A broken page (a truncated content stream) leaves its page empty; the
                // others are still read, and the file says which pages it lost.
                failed.push(page + 1);
                sizes.add_page(&[], &[]);
                pages.push(String::new());
                continue;
            }
        };
        let raw = match doc.extract_chars(page) {
            Ok(chars) => {
                let glyphs = glyphs(&chars);
                sizes.add_page(&glyphs, &styles(&chars, &mut font_styles));
                // Glyphs off the page's visible box: a page of a two-page spread draws both
                // halves and crops to its own (reliance.pdf, an annual report: pages 2 and 3
                // each hold the glyphs of both), where the extractor's text holds its own half
                // alone. An overfull line's last letters past the edge are in that text too,
                // so the rows first read every glyph, and only the page's own where that
                // reading does not hold the text's characters (when every glyph is off the
                // box, the box is no guide and all are read).
                let visible = doc.get_page_visible_box(page).ok();
                let on: Vec<_> = match visible {
                    Some(visible) if chars.iter().any(|c| !on_page(c, visible)) => {
                        chars.iter().filter(|c| on_page(c, visible)).cloned().collect()
                    }
                    _ => Vec::new(),
                };
                let mut read = |chars: &[pdf_oxide::layout::TextChar],
                                glyphs: &[gaps::Glyph],
                                more| {
                    match mend(chars, glyphs, &fonts.ligatures(&doc, page, chars)) {
                        Some((glyphs, mends)) => rows::read(&raw, &glyphs, &mends, more),
                        None => rows::read(&raw, glyphs, &[], more),
                    }
                };
                let read = if on.is_empty() {
                    read(&chars, &glyphs, true)
                } else {
                    read(&chars, &glyphs, false).or_else(|| read(&on, &self::glyphs(&on), true))
                };
                if let Some(read) = read {
                    read
                } else {
                    let raw = gaps::restore(&raw, &glyphs).unwrap_or(raw);
                    shifted::restore(&raw, &glyphs).unwrap_or(raw)
                }
            }
            Err(_) => {
                sizes.add_page(&[], &[]);
                raw
            }
        };
        pages.push(dehyphenate(&clean(&raw)));
    }
    // Headings from the bookmarks, or where there are none, from the sizes of the type.
    let headings = if headings.iter().all(Vec::is_empty) { sizes.headings() } else { headings };
    drop(sizes);
    for (page, mut text) in pages.into_iter().enumerate() {
        if page > 0 {
            // The form feed ends the page before; the blank line after it ends its last
            // paragraph, so no paragraph runs on across a page break.
            out.push('\u{c}');
            locations
                .push((out.len(), PageLabel::Page(u32::try_from(page + 1).unwrap_or(u32::MAX))));
            out.push_str("\n\n");
        } else {
            locations.push((0, PageLabel::Page(1)));
        }
        if failed.binary_search(&(page + 1)).is_ok() {
            continue;
        }
        mark_headings(&mut text, headings.get(page).map_or(&[][..], Vec::as_slice));
        out.push_str(&text);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    if failed.len() == n_pages && n_pages > 0 {
        return Err(format!("none of its {n_pages} pages could be read"));
    }
    // An encrypted file that opened but gave no text at all may not have been decrypted
    // right (pdf_oxide 0.3.78 reads AES-256 revision 5 files so, which poppler reads): the
    // reason says both, rather than call it a file of images.
    if doc.is_encrypted() && !out.chars().any(char::is_alphanumeric) {
        return Err(
            "encrypted, and no text came out of it: not decrypted, or images only".to_owned()
        );
    }
    let notes = if failed.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "{} of its {n_pages} pages could not be read and are empty in its text view: {}",
            failed.len(),
            page_list(&failed)
        )]
    };
    Ok(Document { text: out, locations, notes })
}

/// How far outside the page's visible box a glyph's middle may lie and still be on the page,
/// in points (a glyph set on the trim line).
const BOX_SLACK: f32 = 2.0;

/// Whether a glyph is on the page: its middle inside the visible box (the CropBox within the
/// MediaBox, as `(left, bottom, right, top)`), or at a place no box can say.
fn on_page(
    c: &pdf_oxide::layout::TextChar,
    (left, bottom, right, top): (f32, f32, f32, f32),
) -> bool {
    let x = c.bbox.x + c.bbox.width / 2.0;
    let y = c.origin_y;
    !(x.is_finite() && y.is_finite())
        || (left - BOX_SLACK..=right + BOX_SLACK).contains(&x)
            && (bottom - BOX_SLACK..=top + BOX_SLACK).contains(&y)
}

/// Each glyph's style for the headings by size: whether its font is a typewriter one (its
/// descriptor says so, or its name does: TeX's `CMTT10` and `LMMonoProp10` are not marked
/// fixed-pitch) and whether it is bold (by its weight or its name: `CMBX10`,
/// `LMRoman10-Bold`, `Arial-BoldMT`).
fn styles(
    chars: &[pdf_oxide::layout::TextChar],
    known: &mut std::collections::HashMap<String, sizes::Style>,
) -> Vec<sizes::Style> {
    let named = |name: &str| {
        let name = object::base_name(name).to_ascii_lowercase();
        let mono = ["mono", "courier", "consol", "menlo", "inconsolata", "typewriter"]
            .iter()
            .any(|n| name.contains(n))
            || ["cmtt", "sftt", "ectt", "tctt", "txtt", "lmtt", "rm-lmtt"]
                .iter()
                .any(|n| name.starts_with(n));
        let bold = ["bold", "black", "heavy", "semibold", "demi"].iter().any(|n| name.contains(n))
            || ["cmbx", "cmb10", "sfbx", "ecbx", "lmbx", "cmssbx"]
                .iter()
                .any(|n| name.starts_with(n));
        sizes::Style { mono, bold }
    };
    // A page switches fonts at every formula: each name is read once per document.
    let mut last: Option<(&str, sizes::Style)> = None;
    chars
        .iter()
        .map(|c| {
            let style = match last {
                Some((name, style)) if name == c.font_name => style,
                _ => {
                    let style = match known.get(&c.font_name) {
                        Some(&style) => style,
                        None => *known.entry(c.font_name.clone()).or_insert(named(&c.font_name)),
                    };
                    last = Some((&c.font_name, style));
                    style
                }
            };
            sizes::Style {
                mono: style.mono || c.is_monospace,
                bold: style.bold || c.font_weight.is_bold(),
            }
        })
        .collect()
}

/// A page's glyphs for the rows and the two repairs; a glyph set at an angle parts lines, as
/// a space does (its neighbours are not on one line with it).
fn glyphs(chars: &[pdf_oxide::layout::TextChar]) -> Vec<gaps::Glyph> {
    chars
        .iter()
        .map(|c| {
            let upright =
                c.rotation_degrees.abs() < 0.5 || (c.rotation_degrees - 360.0).abs() < 0.5;
            gaps::Glyph {
                c: if upright { c.char } else { ' ' },
                left: c.bbox.x,
                right: c.bbox.x + c.bbox.width,
                base: c.origin_y,
                size: c.font_size,
            }
        })
        .collect()
}

/// The page's glyphs with what pdf_oxide misread read right, and each mend as (the
/// extractor's character, the glyph's), or `None` when the page has nothing to mend: the
/// f-ligatures of `ligatures` (by the glyphs' index, see [`ligatures`]) and the angle brackets
/// of TeX's math symbol fonts.
///
/// Those fonts (Computer Modern's `CMSY`, Latin Modern's `LMMathSymbols`) name the brackets at
/// codes 104 and 105 `angbracketleft` and `angbracketright`, names pdf_oxide 0.3.78's glyph
/// list lacks: it falls back to the Symbol encoding and reads them as the Greek `η` and `ι`
/// (etoolbox's manual: `ηcontrol sequenceι` for `⟨control sequence⟩`). Those fonts have no
/// Greek letters, so an `η` or `ι` of theirs can only be a bracket.
fn mend(
    chars: &[pdf_oxide::layout::TextChar],
    glyphs: &[gaps::Glyph],
    ligatures: &[(usize, char)],
) -> Option<(Vec<gaps::Glyph>, Vec<rows::Mend>)> {
    let bracket = |c: &pdf_oxide::layout::TextChar| {
        let right = match c.char {
            'η' => '⟨',
            'ι' => '⟩',
            _ => return None,
        };
        let name = object::base_name(&c.font_name);
        ["CMSY", "LMSY", "LMMathSymbols"].iter().any(|f| name.starts_with(f)).then_some(right)
    };
    if ligatures.is_empty() && !chars.iter().any(|c| bracket(c).is_some()) {
        return None;
    }
    let mut mended = glyphs.to_vec();
    let mut mends = Vec::new();
    let mut ligatures = ligatures.iter().peekable();
    for (i, (g, c)) in mended.iter_mut().zip(chars).enumerate() {
        let ligature = ligatures.next_if(|(at, _)| *at == i).map(|&(_, l)| l);
        if let Some(right) = ligature.or_else(|| bracket(c))
            && g.c == c.char
        {
            mends.push((g.c, right));
            g.c = right;
        }
    }
    Some((mended, mends))
}

/// Page numbers as a short list: `3, 7-9, 12`, the first 20 runs and a count of the rest.
fn page_list(pages: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &p in pages {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == p => *end = p,
            _ => runs.push((p, p)),
        }
    }
    let mut out: Vec<String> = runs
        .iter()
        .take(20)
        .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
        .collect();
    if runs.len() > 20 {
        out.push(format!("and {} more", runs.len() - 20));
    }
    out.join(", ")
}

/// The outline's titles by the page (0-based) they point to, each with its depth (1-based).
fn outline_by_page(doc: &PdfDocument, n_pages: usize) -> Vec<Vec<(usize, String)>> {
    fn walk(items: &[OutlineItem], depth: usize, out: &mut Vec<Vec<(usize, String)>>) {
        for item in items {
            if let Some(Destination::PageIndex(page)) = item.dest
                && let Some(slot) = out.get_mut(page)
            {
                slot.push((depth, item.title.clone()));
            }
            // Real outlines are a few levels deep; a cyclic or absurd one stops here.
            if depth < 16 {
                walk(&item.children, depth + 1, out);
            }
        }
    }
    let mut out = vec![Vec::new(); n_pages];
    // pdf_oxide walks the outline with no guard against a loop: a `/Next` that points back
    // made it collect items until memory ran out (a 13 KB fuzzed file passed 13 GB), and a
    // `/First` that does would recurse until the stack overflowed.
    if outline_is_sound(doc)
        && names_are_sound(doc)
        && let Ok(Some(items)) = doc.get_outline()
    {
        walk(&items, 1, &mut out);
    }
    out
}

/// Whether the catalog's tree of named destinations (`/Names` → `/Dests`), which pdf_oxide
/// searches for every outline item that names its destination, is a tree: no node reached
/// twice, at most [`MAX_OUTLINE_ITEMS`] nodes and [`MAX_OUTLINE_DEPTH`] levels. pdf_oxide's
/// search bounds the depth but not the breadth: nodes whose `/Kids` name one node twice,
/// level after level, would be searched 2^32 times per item.
fn names_are_sound(doc: &PdfDocument) -> bool {
    use pdf_oxide::object::Object;
    let deref = |object: &Object| object::resolve(doc, object);
    let entry = |object: &Object, key: &str| object.as_dict()?.get(key).and_then(&deref);
    let Some(root) = doc
        .catalog()
        .ok()
        .and_then(|c| entry(&c, "Names"))
        .and_then(|names| entry(&names, "Dests"))
    else {
        return true;
    };
    let mut seen = std::collections::HashSet::new();
    let mut nodes = vec![(root, 1usize)];
    let mut count = 0usize;
    while let Some((node, depth)) = nodes.pop() {
        count += 1;
        if depth > MAX_OUTLINE_DEPTH || count > MAX_OUTLINE_ITEMS {
            return false;
        }
        let Some(kids) = entry(&node, "Kids") else { continue };
        for kid in kids.as_array().map_or(&[][..], Vec::as_slice) {
            if let Object::Reference(r) = kid
                && !seen.insert(*r)
            {
                return false;
            }
            if let Some(kid) = deref(kid) {
                nodes.push((kid, depth + 1));
            }
        }
    }
    true
}

/// Most outline items read: hyperref's 516-page manual has 1,073.
const MAX_OUTLINE_ITEMS: usize = 100_000;
/// Deepest outline nesting read (pdf_oxide reads a level per recursive call).
const MAX_OUTLINE_DEPTH: usize = 64;

/// Whether the document's outline is a tree that pdf_oxide can walk: no item reached twice,
/// at most [`MAX_OUTLINE_ITEMS`] items, at most [`MAX_OUTLINE_DEPTH`] levels. Walked as
/// pdf_oxide walks it (`/Outlines` → `/First`, then each item's `/First` and `/Next`), without
/// recursion. An outline that fails is left out: the pages are still read.
fn outline_is_sound(doc: &PdfDocument) -> bool {
    use pdf_oxide::object::{Object, ObjectRef};
    let reference = |object: &Object, key: &str| match object.as_dict()?.get(key)? {
        Object::Reference(r) => Some(*r),
        _ => None,
    };
    let Some(root) = doc.catalog().ok().and_then(|c| reference(&c, "Outlines")) else {
        return true;
    };
    let Some(first) = doc.load_object(root).ok().and_then(|o| reference(&o, "First")) else {
        return true;
    };
    let mut seen: std::collections::HashSet<ObjectRef> = std::collections::HashSet::new();
    // Sibling chains still to walk, each with its depth.
    let mut chains = vec![(first, 1usize)];
    while let Some((mut at, depth)) = chains.pop() {
        if depth > MAX_OUTLINE_DEPTH {
            return false;
        }
        loop {
            if !seen.insert(at) || seen.len() > MAX_OUTLINE_ITEMS {
                return false;
            }
            // pdf_oxide stops at an item it cannot load, as this walk does.
            let Ok(item) = doc.load_object(at) else { break };
            if let Some(child) = reference(&item, "First") {
                chains.push((child, depth + 1));
            }
            match reference(&item, "Next") {
                Some(next) => at = next,
                None => break,
            }
        }
    }
    true
}

/// Folds the Latin ligatures U+FB00–FB06 into their letters, turns a form feed (the page
/// separator of the view) or another control character into a space, and escapes a line
/// start that Markdown would read as a heading or a code fence: the view is Markdown, and a
/// `#` line of a PDF is not a heading of it.
fn clean(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        // A TeX font's ligature glyph without a name comes through as its raw OT1 code
        // (0x0B ff, 0x0C fi, 0x0D fl, 0x0E ffi, 0x0F ffl): before a lower-case letter such a
        // code is that ligature (graphfig.pdf: `my \roat` is `my float`), never a line end.
        if let Some(ligature) = ot1_ligature(c)
            && chars.peek().is_some_and(char::is_ascii_lowercase)
        {
            out.push_str(ligature);
            continue;
        }
        match c {
            '\u{fb00}' => out.push_str("ff"),
            '\u{fb01}' => out.push_str("fi"),
            '\u{fb02}' => out.push_str("fl"),
            '\u{fb03}' => out.push_str("ffi"),
            '\u{fb04}' => out.push_str("ffl"),
            // ſt: the long s is a letter of its own; st is what search finds.
            '\u{fb05}' | '\u{fb06}' => out.push_str("st"),
            '\r' => {}
            '\n' | '\t' => out.push(c),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    let out = compose_accents(&out);
    let mut escaped = String::with_capacity(out.len());
    for line in out.split_inclusive('\n') {
        escaped.push_str(&crate::decode::escape_block_start(line));
    }
    escaped
}

/// The ligature at an OT1 code point (Computer Modern's encoding, slots 0x0B-0x0F).
fn ot1_ligature(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{b}' => "ff",
        '\u{c}' => "fi",
        '\r' => "fl",
        '\u{e}' => "ffi",
        '\u{f}' => "ffl",
        _ => return None,
    })
}

/// Joins a word hyphenated at a line end: `exam-` + `ple of` → `example` + a line break
/// before `of`. Safe means: a letter before the hyphen and no hyphen or digit in the word
/// (`co-author-`, `x86-` stay), a lower-case letter after it (a line starting `The` or `2`
/// after a dash is a new sentence or a list) of the same script as the letter before the
/// hyphen (`non-` before a formula line `ϕ(x, z)` stays: a Greek or math letter does not
/// continue a Latin word), and not the last line.
fn dehyphenate(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut carry = String::new();
    for (i, line) in lines.iter().enumerate() {
        let mut line: &str = line;
        if !carry.is_empty() {
            // The joined word's tail moves up; the rest of the line stays on its own line.
            line = line.trim_start();
            let tail_end = line.find(char::is_whitespace).unwrap_or(line.len());
            out.push_str(&line[..tail_end]);
            line = line[tail_end..].trim_start();
            carry.clear();
            out.push('\n');
            if line.is_empty() {
                // The word was the whole line: nothing more on it.
                if i + 1 < lines.len() {
                    continue;
                }
                out.pop();
                break;
            }
        }
        let next = lines.get(i + 1).map(|l| l.trim_start());
        if let Some(stem) = hyphen_stem(line)
            && let Some(first) = next.and_then(|n| n.chars().next())
            && first.is_lowercase()
            && stem.chars().last().and_then(script).is_some_and(|s| script(first) == Some(s))
        {
            out.push_str(stem);
            carry.push('-');
            continue;
        }
        out.push_str(line);
        if i + 1 < lines.len() {
            out.push('\n');
        }
    }
    out
}

/// The line without its final hyphen when it ends in a hyphenated word that may be joined.
fn hyphen_stem(line: &str) -> Option<&str> {
    let stem = line.trim_end().strip_suffix('-')?;
    let word = stem.rsplit(char::is_whitespace).next().unwrap_or(stem);
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    (letters >= 2
        && word.chars().last().is_some_and(char::is_alphabetic)
        && !word.chars().any(|c| c == '-' || c.is_ascii_digit()))
    .then_some(&line[..stem.len()])
}

/// The script of a letter, for the scripts whose words are hyphenated: Latin, Greek,
/// Cyrillic. Mathematical alphanumerics (`𝑛`, U+1D400 on) and everything else have none.
fn script(c: char) -> Option<u8> {
    match c {
        'a'..='z' | 'A'..='Z' | '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}'
            if c != '×' && c != '÷' =>
        {
            Some(0)
        }
        '\u{370}'..='\u{3ff}' | '\u{1f00}'..='\u{1fff}' => Some(1),
        '\u{400}'..='\u{52f}' => Some(2),
        _ => None,
    }
}

/// Makes the line (or two lines) of the page that reads as a bookmark's title a Markdown
/// heading of the bookmark's depth; a title found nowhere on its page is left out rather
/// than invented, so the view holds only the page's own text.
fn mark_headings(text: &mut String, headings: &[(usize, String)]) {
    if headings.is_empty() {
        return;
    }
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    let mut from = 0;
    for (depth, title) in headings {
        let want = letters_of(title);
        if want.is_empty() {
            continue;
        }
        let found = (from..lines.len()).find_map(|i| {
            // The line may carry the section's number where the bookmark does not (hyperref
            // leaves it out unless asked: `Introduction` for `1 Introduction`), and a line
            // number before it (lineno's margin: `8 1 Introductions`).
            unnumbered(&lines[i]).into_iter().find_map(|line| {
                let one = letters_of(line);
                if one == want {
                    return Some((i, 1));
                }
                let two = lines.get(i + 1).map(|next| one.clone() + &letters_of(next));
                (two.as_deref() == Some(want.as_str()) && !one.is_empty()).then_some((i, 2))
            })
        });
        let Some((i, n)) = found else { continue };
        let joined: Vec<String> = lines.drain(i..i + n).collect();
        let body = joined.join(" ");
        // Only the escape `clean` put before a `#` or a fence goes: a TeX line's own
        // backslash (`\appendix`) is its text.
        let body = body.trim();
        let body = match body.strip_prefix('\\') {
            Some(rest) if rest.starts_with(['#', '`', '~']) => rest,
            _ => body,
        };
        lines.insert(i, format!("{} {body}", "#".repeat((*depth).clamp(1, 6))));
        // A heading is its own block: blank lines around it.
        if i + 1 < lines.len() && !lines[i + 1].trim().is_empty() {
            lines.insert(i + 1, String::new());
        }
        if i > 0 && !lines[i - 1].trim().is_empty() {
            lines.insert(i, String::new());
            from = i + 2;
        } else {
            from = i + 1;
        }
    }
    *text = lines.join("\n");
}

/// A line as it is, then without the number it starts with, then without a second one.
fn unnumbered(line: &str) -> Vec<&str> {
    let mut out = vec![line];
    let mut rest = line.trim_start();
    for _ in 0..2 {
        match crate::outline::title_number(rest) {
            Some((_, after)) => {
                out.push(after);
                rest = after;
            }
            None => break,
        }
    }
    out
}

/// A title reduced to its letters and digits, lower-cased, for matching a bookmark to a line.
fn letters_of(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small seeded generator for the generated tests (xorshift, no dependency): each call
    /// gives a number below `n`.
    pub(super) fn random(mut seed: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        }
    }

    /// The characters of `text` other than white space, sorted.
    pub(super) fn letters(text: &str) -> Vec<char> {
        let mut out: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        out.sort_unstable();
        out
    }

    /// Glyphs of one line at 10 pt starting at `x`: words 0.33 em apart, letters touching and
    /// 5 pt wide. In a word, `^x` is `x` raised 0.2 em and `_x` is `x` lowered 0.2 em, moved
    /// `kern` points into its neighbours on each side (TeX's logos are kerned so: -1.5).
    pub(super) fn glyph_line(x: f32, words: &[&str], base: f32, kern: f32) -> Vec<gaps::Glyph> {
        const SIZE: f32 = 10.0;
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
                        let kern = if shift != 0.0 { kern } else { 0.0 };
                        out.push(gaps::Glyph {
                            c,
                            left: x + kern,
                            right: x + kern + 5.0,
                            base: base + shift,
                            size: SIZE,
                        });
                        x += 5.0 + 2.0 * kern;
                        shift = 0.0;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn math_symbol_brackets_read_as_greek_are_mended_for_the_rows() {
        use pdf_oxide::layout::TextChar;
        let char_of = |c: char, font: &str, x: f32| TextChar {
            char: c,
            font_name: font.to_owned(),
            font_size: 10.0,
            bbox: pdf_oxide::geometry::Rect { x, y: 700.0, width: 4.0, height: 10.0 },
            origin_y: 700.0,
            ..TextChar::default()
        };
        // etoolbox.pdf: `⟨text⟩` with the brackets from Latin Modern's math symbols, and an
        // `η` of the math italic font that is a Greek letter.
        let mut chars = vec![char_of('η', "XPVMCL+LMMathSymbols10-Regular", 50.0)];
        chars.extend(
            "text"
                .chars()
                .enumerate()
                .map(|(i, c)| char_of(c, "FATUHW+CharterBT-Roman", 54.0 + 4.0 * i as f32)),
        );
        chars.push(char_of('ι', "XPVMCL+LMMathSymbols10-Regular", 70.0));
        chars.push(char_of('η', "ABCDEF+CMMI10", 80.0));
        let glyphs = glyphs(&chars);
        let (mended, mends) = mend(&chars, &glyphs, &[]).expect("brackets to mend");
        let read: String = mended.iter().map(|g| g.c).collect();
        assert_eq!(read, "⟨text⟩η");
        assert_eq!(mends, [('η', '⟨'), ('ι', '⟩')]);
        // The rows hold the brackets, checked against the extractor's Greek letters.
        assert_eq!(rows::read("ηtextι η", &mended, &mends, false).as_deref(), Some("⟨text⟩ η\n"));
        // A mend the rows do not hold, or one the text does not, is a difference.
        assert_eq!(rows::read("ηtextι η", &mended, &[('η', '⟨'), ('x', '!')], false), None);
        assert_eq!(rows::read("⟨textι η", &mended, &mends, false), None);
        // A page without them is left alone.
        assert!(mend(&chars[1..5], &glyphs[1..5], &[]).is_none());
        // An f the font's widths say is a ligature (ligatures.rs) is read as it, and counts
        // as the extractor's `f` in the rows' check.
        let word: Vec<TextChar> = "defned"
            .chars()
            .enumerate()
            .map(|(i, c)| char_of(c, "MDGLWF+LinLibertine", 50.0 + 5.0 * i as f32))
            .collect();
        let (mended, mends) =
            mend(&word, &super::glyphs(&word), &[(2, '\u{fb01}')]).expect("a ligature");
        assert_eq!(mends, [('f', '\u{fb01}')]);
        let read = rows::read("defned", &mended, &mends, false).expect("read by rows");
        assert_eq!(clean(&read), "defined\n");
    }

    #[test]
    fn lost_pages_are_listed_as_runs() {
        assert_eq!(page_list(&[2]), "2");
        assert_eq!(page_list(&[1, 2, 3, 7, 9, 10]), "1-3, 7, 9-10");
        let many: Vec<usize> = (1..=50).map(|p| p * 2).collect();
        assert!(page_list(&many).ends_with("40, and 30 more"), "{}", page_list(&many));
    }

    #[test]
    fn ligatures_fold_and_markdown_starts_are_escaped() {
        assert_eq!(clean("e\u{fb03}cient \u{fb01}nd\r\n# not\u{c}X"), "efficient find\n\\# not X");
        // Raw OT1 ligature codes before a lower-case letter; elsewhere control characters.
        assert_eq!(
            clean("my \roat, \u{c}nd, e\u{e}cient, o\u{b}er, wa\u{f}e"),
            "my float, find, efficient, offer, waffle"
        );
        assert_eq!(clean("line\r\nnext\u{c} end\u{b}"), "line\nnext  end ");
    }

    #[test]
    fn spacing_accents_compose_with_their_letters() {
        // plantilla-articulo-de-seccion.pdf (gaceta): the accent before its letter, the i
        // dotless under it.
        assert_eq!(
            clean("el art´ıculo en espa˜nol, c´omo (¿d´onde? de ´el. As´ı"),
            "el artículo en español, cómo (¿dónde? de él. Así"
        );
        // ijmsample.pdf: the same in math, and a free-standing accent after its one-letter
        // variable; the Möbius and Poincaré of its text.
        assert_eq!(clean("f (˜u(x)) and f (ˆu(t))"), "f (ũ(x)) and f (û(t))");
        assert_eq!(clean("y = u ˜(x) + z, u ˆ(t) = v ˆ(t)"), "y = ũ(x) + z, û(t) = v ˆ(t)");
        assert_eq!(clean("M¨obius and Poincar´e"), "Möbius and Poincaré");
        // Dotless letters take the accent as i or j, also as a combining mark, after them
        // or after a space; a cedilla follows its letter.
        assert_eq!(
            clean("artı\u{301}culo, artı \u{301}culo, ı´, \u{237}\u{302}"),
            "artículo, artículo, í, ĵ"
        );
        assert_eq!(clean("Fran c¸ais, gar¸con"), "Fran çais, garçon");
        // No precomposed letter, no composition, and nothing dropped: the hat over a
        // subscripted x (ijmsample: `xiˆ xjˆ = xjˆ xiˆ`), accents alone, ASCII `^ ~ \``,
        // and no accent reaches across a line end.
        for kept in [
            "xiˆ xjˆ = xjˆ xiˆ , x2iˆ = 0",
            "Let X = {x1ˆ , . . . ,xnˆ }.",
            "ˆ ˆ ˆ",
            "´ ´ 1",
            "ˆx and ˆ C1",
            "a^b ~/x `a` `e",
            "end ´\nel",
            "the xi ˆ , i = 1",
            // A spacing tilde before a space is code's operator (lstbayes examples.pdf), and a
            // free-standing hat before a word stays apart (ijmsample.pdf: `w ˆ such that`).
            "sigmasq y ˜ inv gamma ( 0 . 0 0 1 ) ;",
            "a function w ˆ such that w ˆ = w",
        ] {
            assert_eq!(clean(kept), kept);
        }
    }

    #[test]
    fn hyphenation_joins_only_where_safe() {
        assert_eq!(dehyphenate("an exam-\nple of it\nend"), "an example\nof it\nend");
        assert_eq!(dehyphenate("whole-\nline\nnext"), "wholeline\nnext");
        assert_eq!(dehyphenate("co-author-\ning x86-\nbased"), "co-author-\ning x86-\nbased");
        assert_eq!(dehyphenate("a list -\nThe end"), "a list -\nThe end");
        assert_eq!(dehyphenate("range 1-\n2"), "range 1-\n2");
        assert_eq!(dehyphenate("last-"), "last-");
        // A letter of another script after the hyphen is a formula or a stray glyph, not the
        // word's tail (ijmsample.pdf: `non-` over `ϕ(x, z) = z −`; the ε of a LaTeX 2ε logo).
        assert_eq!(dehyphenate("with the non-\nϕ(x, z) = z"), "with the non-\nϕ(x, z) = z");
        assert_eq!(dehyphenate("used reli-\nεe ably"), "used reli-\nεe ably");
        assert_eq!(dehyphenate("the macmil-\n𝑛 lan"), "the macmil-\n𝑛 lan");
        // Within one script the join stays, in Latin beyond ASCII, Greek and Cyrillic alike.
        assert_eq!(dehyphenate("flie-\nßen\nx"), "fließen\nx");
        assert_eq!(dehyphenate("πλη-\nροφορικής x"), "πληροφορικής\nx");
        assert_eq!(dehyphenate("рефе-\nренце x"), "референце\nx");
    }

    #[test]
    fn bookmarks_become_headings_on_their_line() {
        let mut text = "Some text\n2.1 Related\nWork\nBody here\n".to_owned();
        mark_headings(&mut text, &[(2, "2.1 Related Work".to_owned()), (1, "Absent".to_owned())]);
        assert_eq!(text, "Some text\n\n## 2.1 Related Work\n\nBody here\n");
        // A bookmark without the section's number meets the line with it, and past a line
        // number in the margin; the heading keeps the line's words.
        let mut text = "1 Introduction 4\n12 1 Introduction\nBody\n3 Usage of it\n".to_owned();
        mark_headings(&mut text, &[(1, "Introduction".to_owned()), (1, "Usage".to_owned())]);
        assert_eq!(text, "1 Introduction 4\n\n# 12 1 Introduction\n\nBody\n3 Usage of it\n");
        // A TeX command as a title keeps its backslash; the escape of a `#` line goes.
        let mut text = "\\appendix\nA\n\\#1 Options\n".to_owned();
        mark_headings(&mut text, &[(1, "appendix".to_owned()), (2, "1 Options".to_owned())]);
        assert_eq!(text, "# \\appendix\n\nA\n\n## #1 Options\n");
    }

    #[test]
    fn not_a_pdf_and_a_truncated_one_say_why() {
        assert!(decode(b"hello".to_vec()).is_err_and(|e| e.contains("%PDF")));
        assert!(decode(b"%PDF-1.4\n1 0 obj\n<<".to_vec()).is_err());
    }
}
