//! PPTX → a Markdown text view: a `# Slide N: title` section per slide in presentation order,
//! its text frames as paragraphs, its tables as pipe tables, its speaker notes marked as such;
//! the slide number is each passage's location.

use quick_xml::events::Event;

use super::docx::push_table;
use super::ooxml::{Archive, attr, cell, reference, relationships, resolve, text};
use super::{Document, PageLabel};

/// Decodes a PPTX file.
pub fn decode(bytes: Vec<u8>) -> Result<Document, String> {
    let mut archive = Archive::new(bytes)?;
    let presentation = archive.required("ppt/presentation.xml")?;
    let rels = relationships(&archive.part("ppt/_rels/presentation.xml.rels")?.unwrap_or_default());
    let mut out = String::new();
    let mut locations = Vec::new();
    for (n, rid) in slide_ids(&presentation).iter().enumerate() {
        let Some((_, target)) = rels.iter().find(|(id, _)| id == rid) else { continue };
        let path = resolve("ppt", target);
        let Some(xml) = archive.part(&path)? else { continue };
        let slide = read_shapes(&xml);
        let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
        locations.push((out.len(), PageLabel::Slide { slide: number }));
        out.push_str(&format!("# Slide {number}"));
        if let Some(title) = &slide.title {
            out.push_str(": ");
            out.push_str(&cell(title).replace("\\|", "|"));
        }
        out.push_str("\n\n");
        for block in &slide.blocks {
            match block {
                Block::Text(t) => {
                    out.push_str(t);
                    out.push_str("\n\n");
                }
                Block::Table(rows) => push_table(&mut out, rows),
            }
        }
        // Speaker notes: the slide's relationship to its notes part.
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", &path));
        let slide_rels = archive.part(&format!("{dir}/_rels/{file}.rels"))?.unwrap_or_default();
        for (_, target) in
            relationships(&slide_rels).iter().filter(|(_, t)| t.contains("notesSlide"))
        {
            let Some(notes) = archive.part(&resolve(dir, target))? else { continue };
            let notes = read_shapes(&notes);
            let body: Vec<&str> = notes
                .blocks
                .iter()
                .filter_map(|b| if let Block::Text(t) = b { Some(t.as_str()) } else { None })
                // The notes page repeats the slide number as a text frame of its own.
                .filter(|t| t.trim() != number.to_string())
                .collect();
            if !body.is_empty() {
                out.push_str("**Notes:**\n\n");
                for t in body {
                    out.push_str(t);
                    out.push_str("\n\n");
                }
            }
        }
    }
    Ok(Document { text: out, locations, notes: Vec::new() })
}

/// The relationship ids of the slides, in presentation order.
fn slide_ids(xml: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().into_inner() == "sldId" => {
                if let Some(id) = attr(&e, "r:id") {
                    out.push(id);
                }
            }
            Ok(Event::Eof) | Err(_) => return out,
            _ => {}
        }
    }
}

enum Block {
    Text(String),
    Table(Vec<Vec<String>>),
}

struct Slide {
    title: Option<String>,
    blocks: Vec<Block>,
}

/// The text of a slide's shapes: the title placeholder apart, each shape's paragraphs joined
/// by line breaks, tables as rows of cells.
fn read_shapes(xml: &str) -> Slide {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut slide = Slide { title: None, blocks: Vec::new() };
    let mut shape: Option<(bool, Vec<String>)> = None; // (is title, paragraphs)
    let mut para = String::new();
    let mut in_text = false;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut table = 0usize;
    let mut cell_text: Option<String> = None;
    loop {
        let event = match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(e) => e,
        };
        match event {
            Event::Start(e) => match e.local_name().into_inner() {
                "sp" => shape = Some((false, Vec::new())),
                "tbl" => {
                    table += 1;
                    rows.clear();
                }
                "tr" if table > 0 => rows.push(Vec::new()),
                "tc" if table > 0 => cell_text = Some(String::new()),
                "t" => in_text = true,
                "p" => para.clear(),
                _ => {}
            },
            Event::Empty(e) => match e.local_name().into_inner() {
                "ph" => {
                    let kind = attr(&e, "type").unwrap_or_default();
                    if let Some(s) = shape.as_mut() {
                        s.0 = kind == "title" || kind == "ctrTitle";
                    }
                }
                "br" => para.push(' '),
                _ => {}
            },
            Event::Text(t) if in_text => para.push_str(&text(&t)),
            Event::GeneralRef(r) if in_text => para.push_str(&reference(&r)),
            Event::End(e) => match e.local_name().into_inner() {
                "t" => in_text = false,
                "p" => {
                    let p = para.trim().to_owned();
                    if p.is_empty() {
                        continue;
                    }
                    if let Some(c) = cell_text.as_mut() {
                        if !c.is_empty() {
                            c.push(' ');
                        }
                        c.push_str(&p);
                    } else if let Some(s) = shape.as_mut() {
                        s.1.push(p);
                    }
                }
                "tc" if table > 0 => {
                    if let (Some(c), Some(row)) = (cell_text.take(), rows.last_mut()) {
                        row.push(cell(&c));
                    }
                }
                "tbl" => {
                    table = table.saturating_sub(1);
                    if table == 0 {
                        slide.blocks.push(Block::Table(std::mem::take(&mut rows)));
                    }
                }
                "sp" => {
                    if let Some((is_title, paras)) = shape.take()
                        && !paras.is_empty()
                    {
                        if is_title && slide.title.is_none() {
                            slide.title = Some(paras.join(" "));
                        } else {
                            slide.blocks.push(Block::Text(paras.join("\n")));
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    slide
}
