//! XLSX → a Markdown text view: a `# Sheet: name` section per worksheet in workbook order,
//! its rows as a pipe table (cells placed by their references, shared strings resolved, the
//! cached values of formulas); the sheet name is each passage's location.

use quick_xml::events::Event;

use super::docx::push_table;
use super::ooxml::{Archive, attr, cell, reference, relationships, resolve, text};
use super::{Document, PageLabel};

/// Most columns a row keeps: a stray cell at column XFD must not make every row 16k wide.
/// The cells past it are counted and the file falls back with a note saying so.
const MAX_COLUMNS: usize = 256;

/// Decodes an XLSX file.
pub fn decode(bytes: Vec<u8>) -> Result<Document, String> {
    let mut archive = Archive::new(bytes)?;
    let workbook = archive.required("xl/workbook.xml")?;
    let rels = relationships(&archive.part("xl/_rels/workbook.xml.rels")?.unwrap_or_default());
    let shared =
        archive.part("xl/sharedStrings.xml")?.map(|s| shared_strings(&s)).unwrap_or_default();
    let mut out = String::new();
    let mut locations = Vec::new();
    let mut notes = Vec::new();
    for (name, rid) in sheets(&workbook) {
        let Some((_, target)) = rels.iter().find(|(id, _)| *id == rid) else { continue };
        let Some(xml) = archive.part(&resolve("xl", target))? else { continue };
        let (rows, past) = read_rows(&xml, &shared);
        if past > 0 {
            notes.push(format!(
                "sheet {name}: {past} cell{} past column {MAX_COLUMNS} (IV) left out",
                if past == 1 { "" } else { "s" }
            ));
        }
        locations.push((out.len(), PageLabel::Sheet { sheet: name.clone() }));
        out.push_str(&format!("# Sheet: {}\n\n", cell(&name).replace("\\|", "|")));
        if rows.is_empty() {
            out.push_str("(empty sheet)\n\n");
        } else {
            push_table(&mut out, &rows);
        }
    }
    Ok(Document { text: out, locations, notes })
}

/// (name, relationship id) of every sheet, in workbook order.
fn sheets(xml: &str) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().into_inner() == "sheet" => {
                let rid = attr(&e, "r:id");
                if let (Some(name), Some(rid)) = (attr(&e, "name"), rid) {
                    out.push((name, rid));
                }
            }
            Ok(Event::Eof) | Err(_) => return out,
            _ => {}
        }
    }
}

/// The shared string table: each `si`'s text runs joined.
fn shared_strings(xml: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut in_text = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => match e.local_name().into_inner() {
                "si" => current = Some(String::new()),
                "t" => in_text = true,
                _ => {}
            },
            Ok(Event::Text(t)) if in_text => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&text(&t));
                }
            }
            Ok(Event::GeneralRef(r)) if in_text => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&reference(&r));
                }
            }
            Ok(Event::End(e)) => match e.local_name().into_inner() {
                "t" => in_text = false,
                "si" => out.push(current.take().unwrap_or_default()),
                _ => {}
            },
            Ok(Event::Eof) | Err(_) => return out,
            _ => {}
        }
    }
}

/// Column index of a cell reference (`C7` → 2).
fn column(reference: &str) -> Option<usize> {
    let letters: String = reference.chars().take_while(char::is_ascii_alphabetic).collect();
    if letters.is_empty() {
        return None;
    }
    let mut n = 0usize;
    for c in letters.chars() {
        n = n.checked_mul(26)?.checked_add(usize::from(c.to_ascii_uppercase() as u8 - b'A') + 1)?;
    }
    Some(n - 1)
}

/// The rows of a sheet, and how many cells with a value lie past [`MAX_COLUMNS`].
fn read_rows(xml: &str, shared: &[String]) -> (Vec<Vec<String>>, usize) {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cell_ref: (Option<usize>, String) = (None, String::new()); // (column, type)
    let mut value = String::new();
    let mut formula = String::new();
    let mut in_value = false;
    let mut in_formula = false;
    let mut past = 0;
    loop {
        let event = match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(e) => e,
        };
        match event {
            Event::Start(e) => match e.local_name().into_inner() {
                "row" => rows.push(Vec::new()),
                "c" => {
                    cell_ref =
                        (attr(&e, "r").and_then(|r| column(&r)), attr(&e, "t").unwrap_or_default());
                    value.clear();
                    formula.clear();
                }
                "v" | "t" => in_value = true,
                "f" => in_formula = true,
                _ => {}
            },
            Event::Text(t) if in_value => value.push_str(&text(&t)),
            Event::GeneralRef(r) if in_value => value.push_str(&reference(&r)),
            Event::Text(t) if in_formula => formula.push_str(&text(&t)),
            Event::GeneralRef(r) if in_formula => formula.push_str(&reference(&r)),
            Event::End(e) => match e.local_name().into_inner() {
                "v" | "t" => in_value = false,
                "f" => in_formula = false,
                "c" => {
                    let shown = if cell_ref.1 == "s" {
                        value
                            .trim()
                            .parse::<usize>()
                            .ok()
                            .and_then(|i| shared.get(i))
                            .cloned()
                            .unwrap_or_default()
                    } else if value.is_empty() && !formula.is_empty() {
                        // A formula never computed (written by a library, not Excel): its text.
                        format!("={formula}")
                    } else {
                        value.clone()
                    };
                    let Some(row) = rows.last_mut() else { continue };
                    let col = cell_ref.0.unwrap_or(row.len());
                    if col < MAX_COLUMNS {
                        if row.len() <= col {
                            row.resize(col + 1, String::new());
                        }
                        row[col] = cell(&shown);
                    } else if !shown.trim().is_empty() {
                        past += 1;
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    // Rows without any value say nothing.
    rows.retain(|r| r.iter().any(|c| !c.is_empty()));
    (rows, past)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_past_the_last_kept_column_are_counted_not_lost_silently() {
        let xml = r#"<worksheet><sheetData><row r="1">
            <c r="A1" t="inlineStr"><is><t>first</t></is></c>
            <c r="IV1"><v>256</v></c><c r="IW1"><v>257</v></c><c r="XFD1"><v>last</v></c>
            <c r="XFC1"/></row></sheetData></worksheet>"#;
        let (rows, past) = read_rows(xml, &[]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].len(), MAX_COLUMNS);
        assert_eq!((rows[0][0].as_str(), rows[0][255].as_str()), ("first", "256"));
        assert_eq!(past, 2);
    }
}
