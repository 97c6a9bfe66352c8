//! DOCX → a Markdown text view: headings (by style or outline level) as `#` lines, list items
//! as `- `, tables as pipe tables, paragraphs separated by blank lines; pages from the page
//! breaks Word wrote (explicit and last-rendered), so each passage names its page.

use std::collections::HashMap;

use quick_xml::events::Event;

use super::ooxml::{Archive, attr, cell, reference, text};
use super::{Document, PageLabel};

/// Decodes a DOCX file.
pub fn decode(bytes: Vec<u8>) -> Result<Document, String> {
    let mut archive = Archive::new(bytes)?;
    let styles = archive.part("word/styles.xml")?.map(|s| paragraph_styles(&s)).unwrap_or_default();
    let body = archive.required("word/document.xml")?;
    let mut doc = convert(&body, &styles);
    // Footnotes and endnotes, after the body (Word prints them at the foot of their page or
    // at the end; the view has no place for a note beside its mark): nothing left out.
    for part in ["word/footnotes.xml", "word/endnotes.xml"] {
        if let Some(xml) = archive.part(part)? {
            let notes = convert(&xml, &styles);
            doc.text.push_str(&notes.text);
        }
    }
    Ok(doc)
}

/// What a paragraph style makes of its paragraphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// A heading of this level (1–9).
    Heading(usize),
    /// A list item.
    List,
}

/// The paragraph styles that are headings or lists, by style id (names are what Word and
/// LibreOffice write whatever the interface language: `heading 1`, `List Bullet`).
fn paragraph_styles(xml: &str) -> HashMap<String, Style> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = HashMap::new();
    let mut current: Option<String> = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.local_name().into_inner() == "style" => {
                current = attr(&e, "styleId");
            }
            Ok(Event::Empty(e)) => {
                let Some(id) = &current else { continue };
                match e.local_name().into_inner() {
                    "name" => {
                        let name = attr(&e, "val").unwrap_or_default().to_lowercase();
                        let style = if name == "title" {
                            Some(Style::Heading(1))
                        } else if name.starts_with("list") {
                            Some(Style::List)
                        } else {
                            name.strip_prefix("heading ")
                                .and_then(|n| n.trim().parse().ok())
                                .map(Style::Heading)
                        };
                        if let Some(style) = style {
                            out.insert(id.clone(), style);
                        }
                    }
                    "outlineLvl" => {
                        if let Some(n) = attr(&e, "val").and_then(|v| v.parse::<usize>().ok())
                            && n < 9
                        {
                            out.entry(id.clone()).or_insert(Style::Heading(n + 1));
                        }
                    }
                    _ => {}
                }
            }
            Ok(Event::End(e)) if e.local_name().into_inner() == "style" => current = None,
            Ok(Event::Eof) | Err(_) => return out,
            _ => {}
        }
    }
}

/// One paragraph being read.
#[derive(Default)]
struct Para {
    text: String,
    heading: Option<usize>,
    list: Option<usize>,
}

fn convert(xml: &str, styles: &HashMap<String, Style>) -> Document {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = String::new();
    let mut locations = vec![(0, PageLabel::Page(1))];
    let mut page = 1u32;
    // Paragraphs open: a text box's paragraphs sit inside a run of the paragraph that
    // anchors it, and are written before it ends.
    let mut paras: Vec<Para> = Vec::new();
    // Inside `mc:Fallback`: Word writes a text box twice, as DrawingML in `mc:Choice` and as
    // VML in `mc:Fallback`; the choice is read, the fallback passed over.
    let mut fallback = 0usize;
    // Tables: rows of cells; nested tables are flattened into their cell's text.
    let mut table_depth = 0usize;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cell_text: Option<String> = None;
    let mut in_text = false;
    loop {
        let event = match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(e) => e,
        };
        match &event {
            Event::Start(e) if e.local_name().into_inner() == "Fallback" => {
                fallback += 1;
                continue;
            }
            Event::End(e) if fallback > 0 && e.local_name().into_inner() == "Fallback" => {
                fallback -= 1;
                continue;
            }
            _ if fallback > 0 => continue,
            _ => {}
        }
        let para = paras.last_mut();
        match event {
            Event::Start(e) | Event::Empty(e)
                if matches!(e.local_name().into_inner(), "lastRenderedPageBreak") =>
            {
                // Word's last layout broke the page here.
                page += 1;
                let _ = e;
                locations.push((out.len(), PageLabel::Page(page)));
            }
            Event::Start(e) => match e.local_name().into_inner() {
                "p" => paras.push(Para::default()),
                "tbl" => {
                    table_depth += 1;
                    if table_depth == 1 {
                        rows.clear();
                    }
                }
                "tr" if table_depth == 1 => rows.push(Vec::new()),
                "tc" if table_depth == 1 => cell_text = Some(String::new()),
                "t" => in_text = true,
                _ => {}
            },
            Event::Empty(e) => match e.local_name().into_inner() {
                "pStyle" => {
                    if let (Some(p), Some(v)) = (para, attr(&e, "val")) {
                        match styles.get(&v) {
                            Some(Style::Heading(level)) => p.heading = Some(*level),
                            Some(Style::List) => {
                                p.list.get_or_insert(0);
                            }
                            None => {}
                        }
                    }
                }
                "outlineLvl" => {
                    if let (Some(p), Some(n)) =
                        (para, attr(&e, "val").and_then(|v| v.parse::<usize>().ok()))
                        && n < 9
                    {
                        p.heading = Some(n + 1);
                    }
                }
                "ilvl" => {
                    if let Some(p) = para {
                        p.list = Some(attr(&e, "val").and_then(|v| v.parse().ok()).unwrap_or(0));
                    }
                }
                "numId" => {
                    if let Some(p) = para {
                        p.list.get_or_insert(0);
                    }
                }
                "tab" => {
                    if let Some(p) = para {
                        p.text.push('\t');
                    }
                }
                "br" => {
                    if attr(&e, "type").as_deref() == Some("page") {
                        page += 1;
                        locations.push((out.len(), PageLabel::Page(page)));
                    } else if let Some(p) = para {
                        p.text.push(' ');
                    }
                }
                _ => {}
            },
            Event::Text(t) if in_text => {
                if let Some(p) = para {
                    p.text.push_str(&text(&t));
                }
            }
            Event::GeneralRef(r) if in_text => {
                if let Some(p) = para {
                    p.text.push_str(&reference(&r));
                }
            }
            Event::End(e) => match e.local_name().into_inner() {
                "t" => in_text = false,
                "p" => {
                    let Some(p) = paras.pop() else { continue };
                    if let Some(c) = cell_text.as_mut() {
                        if !c.is_empty() && !p.text.trim().is_empty() {
                            c.push(' ');
                        }
                        c.push_str(p.text.trim());
                    } else {
                        push_paragraph(&mut out, &p);
                    }
                }
                "tc" if table_depth == 1 => {
                    if let (Some(c), Some(row)) = (cell_text.take(), rows.last_mut()) {
                        row.push(cell(&c));
                    }
                }
                "tbl" => {
                    table_depth = table_depth.saturating_sub(1);
                    if table_depth == 0 {
                        push_table(&mut out, &rows);
                        rows.clear();
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    // A page break after the last text names no page.
    locations.retain(|(at, _)| *at < out.len() || *at == 0);
    Document { text: out, locations, notes: Vec::new() }
}

fn push_paragraph(out: &mut String, p: &Para) {
    let text = p.text.trim();
    if text.is_empty() {
        return;
    }
    if let Some(level) = p.heading {
        out.push_str(&"#".repeat(level.clamp(1, 6)));
        out.push(' ');
        out.push_str(&cell(text).replace("\\|", "|"));
    } else if let Some(level) = p.list {
        out.push_str(&"  ".repeat(level.min(8)));
        out.push_str("- ");
        out.push_str(text);
    } else {
        out.push_str(&super::escape_block_start(text));
    }
    out.push_str("\n\n");
}

/// A pipe table, its first row as the header.
pub fn push_table(out: &mut String, rows: &[Vec<String>]) {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    if width == 0 {
        return;
    }
    for (i, row) in rows.iter().enumerate() {
        out.push('|');
        for c in 0..width {
            out.push(' ');
            out.push_str(row.get(c).map_or("", String::as_str));
            out.push_str(" |");
        }
        out.push('\n');
        if i == 0 {
            out.push('|');
            out.push_str(&" --- |".repeat(width));
            out.push('\n');
        }
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_box_is_read_once_and_its_paragraph_keeps_its_text() {
        // Word 2010+: the box as DrawingML in mc:Choice and again as VML in mc:Fallback,
        // inside a run of the paragraph that anchors it.
        let xml = r#"<w:document xmlns:w="w" xmlns:mc="mc"><w:body>
            <w:p><w:r><w:t>Before the box.</w:t></w:r></w:p>
            <w:p><w:r><w:t>Anchor </w:t></w:r><w:r><mc:AlternateContent>
              <mc:Choice><w:drawing><w:txbxContent><w:p><w:r><w:t>Inside.</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice>
              <mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Inside.</w:t></w:r></w:p></w:txbxContent></w:pict></mc:Fallback>
            </mc:AlternateContent></w:r><w:r><w:t>text.</w:t></w:r></w:p>
            <w:p><w:r><w:t># not a heading</w:t></w:r></w:p>
        </w:body></w:document>"#;
        let doc = convert(xml, &HashMap::new());
        assert_eq!(doc.text, "Before the box.\n\nInside.\n\nAnchor text.\n\n\\# not a heading\n\n");
    }
}
