//! What DOCX, PPTX and XLSX share: a zip archive of XML parts, read with bounds (a part larger
//! than the limit, or an archive that expands past it, is refused rather than read), and a
//! few helpers over quick-xml events.

use std::io::{Cursor, Read};

use quick_xml::events::{BytesStart, Event};

/// Most bytes one document may expand to: a zip bomb is refused, not inflated.
pub const MAX_EXPANDED: u64 = 256 << 20;

/// An opened Office archive.
pub struct Archive {
    zip: zip::ZipArchive<Cursor<Vec<u8>>>,
    expanded: u64,
}

impl Archive {
    /// Opens `bytes` as a zip archive.
    pub fn new(bytes: Vec<u8>) -> Result<Self, String> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| format!("not a valid zip archive: {e}"))?;
        Ok(Self { zip, expanded: 0 })
    }

    /// The text of part `name`, if the archive has it.
    pub fn part(&mut self, name: &str) -> Result<Option<String>, String> {
        let mut file = match self.zip.by_name(name) {
            Ok(file) => file,
            Err(zip::result::ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(format!("{name}: {e}")),
        };
        if file.encrypted() {
            return Err("encrypted".to_owned());
        }
        let room = MAX_EXPANDED.saturating_sub(self.expanded);
        let mut bytes = Vec::new();
        (&mut file).take(room + 1).read_to_end(&mut bytes).map_err(|e| format!("{name}: {e}"))?;
        self.expanded += bytes.len() as u64;
        if bytes.len() as u64 > room {
            return Err(format!("expands past {} MiB", MAX_EXPANDED >> 20));
        }
        String::from_utf8(bytes).map(Some).map_err(|_| format!("{name}: not UTF-8 XML"))
    }

    /// Part `name`, which the format requires.
    pub fn required(&mut self, name: &str) -> Result<String, String> {
        self.part(name)?.ok_or_else(|| format!("no {name} in the archive"))
    }
}

/// Checks that a zip archive read by another reader (an EPUB, through rbook) expands to at most
/// `limit` bytes, by inflating every entry once through a bounded reader: the sizes an archive
/// declares can lie, what comes out of the decompressor cannot.
#[cfg(feature = "epub")]
pub fn check_expansion(bytes: &[u8], limit: u64) -> Result<(), String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("not a valid zip archive: {e}"))?;
    let mut expanded = 0u64;
    for i in 0..zip.len() {
        let file = zip.by_index(i).map_err(|e| format!("entry {i}: {e}"))?;
        if file.encrypted() {
            return Err("encrypted".to_owned());
        }
        let room = limit.saturating_sub(expanded);
        let read = std::io::copy(&mut file.take(room + 1), &mut std::io::sink())
            .map_err(|e| format!("entry {i}: {e}"))?;
        expanded += read;
        if read > room {
            return Err(format!("expands past {} MiB", limit >> 20));
        }
    }
    Ok(())
}

/// The value of attribute `key` of an element: `key` is either a qualified name (`r:id`) or
/// a local name matched whatever its prefix (`val` for `w:val`).
pub fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    let qualified = key.contains(':');
    e.attributes()
        .flatten()
        .find(|a| {
            if qualified {
                a.key.into_inner() == key
            } else {
                a.key.local_name().into_inner() == key
            }
        })
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok().map(|v| v.into_owned())
        })
}

/// Relationship targets of a `.rels` part: id → target.
pub fn relationships(xml: &str) -> Vec<(String, String)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e))
                if e.local_name().into_inner() == "Relationship" =>
            {
                if let (Some(id), Some(target)) = (attr(&e, "Id"), attr(&e, "Target")) {
                    out.push((id, target));
                }
            }
            Ok(Event::Eof) | Err(_) => return out,
            _ => {}
        }
    }
}

/// `target` of a relationship, resolved against the folder of the part that names it.
pub fn resolve(base_dir: &str, target: &str) -> String {
    if let Some(abs) = target.strip_prefix('/') {
        return abs.to_owned();
    }
    let mut parts: Vec<&str> = base_dir.split('/').filter(|p| !p.is_empty()).collect();
    for piece in target.split('/') {
        match piece {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// The text of a text event (quick-xml hands entity references over as their own events).
pub fn text(t: &quick_xml::events::BytesText<'_>) -> String {
    t.xml_content(quick_xml::XmlVersion::Implicit1_0).into_owned()
}

/// What an entity or character reference stands for; an unknown one stays as written, so
/// that nothing silently disappears.
pub fn reference(r: &quick_xml::events::BytesRef<'_>) -> String {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return c.to_string();
    }
    let name = r.xml_content(quick_xml::XmlVersion::Implicit1_0).into_owned();
    quick_xml::escape::resolve_predefined_entity(&name)
        .map_or_else(|| format!("&{name};"), str::to_owned)
}

/// Text as one Markdown line: white space folded, pipes escaped where it sits in a table.
pub fn cell(s: &str) -> String {
    let folded: Vec<&str> = s.split_whitespace().collect();
    folded.join(" ").replace('|', "\\|")
}
