//! EPUB → a Markdown text view (rbook): the spine's documents in reading order, each through
//! the HTML path, with a location per chapter named by its table-of-contents title (or its
//! place in the spine); a chapter whose text does not open with its ToC title gets that title
//! as a heading of its ToC depth, so the table of contents is the section path.

use std::io::Cursor;

use rbook::Epub;

use super::html::to_markdown;
use super::{Document, PageLabel};

/// Decodes an EPUB file.
pub fn decode(bytes: Vec<u8>) -> Result<Document, String> {
    // A zip bomb is refused before rbook inflates anything.
    super::ooxml::check_expansion(&bytes, super::ooxml::MAX_EXPANDED)?;
    let epub = Epub::read(Cursor::new(bytes)).map_err(|e| format!("not a readable EPUB: {e}"))?;
    // The table of contents, flattened in order: (resource, depth, title); a section with no
    // document of its own ("Part Two") has no resource.
    let mut toc: Vec<(Option<String>, usize, String)> = Vec::new();
    if let Some(root) = epub.toc().contents() {
        for entry in root.flatten() {
            let key = entry.resource().and_then(|r| r.key().value().map(str::to_owned));
            let title = entry.label().split_whitespace().collect::<Vec<_>>().join(" ");
            toc.push((key, entry.depth().max(1), title));
        }
    }
    let mut written = vec![false; toc.len()];
    let mut out = String::new();
    let mut locations = Vec::new();
    let mut notes = Vec::new();
    for (n, item) in epub.spine().iter().enumerate() {
        let Some(entry) = item.manifest_entry() else { continue };
        let key = entry.resource().key().value().map(str::to_owned);
        // One chapter that cannot be read or converted costs that chapter, not the book.
        let md = match entry.read_str().map_err(|e| e.to_string()).and_then(|x| to_markdown(&x)) {
            Ok(md) => md,
            Err(reason) => {
                let name = key.as_deref().unwrap_or("a spine item");
                notes.push(format!("chapter {} ({name}) left out: {reason}", n + 1));
                continue;
            }
        };
        if md.trim().is_empty() {
            continue;
        }
        let at = toc.iter().position(|(k, _, t)| k.is_some() && *k == key && !t.is_empty());
        let chapter = at.map_or_else(|| (n + 1).to_string(), |i| toc[i].2.clone());
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        locations.push((out.len(), PageLabel::Chapter { chapter }));
        let Some(at) = at else {
            out.push_str(&md);
            continue;
        };
        // The sections above the chapter that have no document of their own are written as
        // headings once, before their first chapter, so the section path is the ToC's.
        let depth = toc[at].1;
        let mut above = Vec::new();
        let mut want = depth;
        for i in (0..at).rev() {
            if want <= 1 {
                break;
            }
            if toc[i].1 == want - 1 {
                want -= 1;
                if toc[i].0.is_none() && !written[i] {
                    above.push(i);
                }
            }
        }
        for &i in above.iter().rev() {
            written[i] = true;
            push_heading(&mut out, toc[i].1, &toc[i].2);
        }
        written[at] = true;
        if !opens_with(&md, &toc[at].2) {
            push_heading(&mut out, depth, &toc[at].2);
        }
        out.push_str(&nest_headings(&md, depth - 1));
    }
    if out.trim().is_empty() && !notes.is_empty() {
        return Err(notes.join("; "));
    }
    Ok(Document { text: out, locations, notes })
}

fn push_heading(out: &mut String, depth: usize, title: &str) {
    out.push_str(&"#".repeat(depth.clamp(1, 6)));
    out.push(' ');
    out.push_str(title);
    out.push_str("\n\n");
}

/// The chapter's headings moved `by` levels down (at most to level 6), so that a chapter at
/// depth 2 of the ToC opening with an `h1` reads as a section of its part; lines in code
/// fences are left alone.
fn nest_headings(md: &str, by: usize) -> String {
    if by == 0 {
        return md.to_owned();
    }
    let mut out = String::with_capacity(md.len() + 64);
    let mut fence: Option<&str> = None;
    for line in md.split_inclusive('\n') {
        let body = line.trim_start();
        if let Some(f) = fence {
            if body.starts_with(f) {
                fence = None;
            }
        } else if body.starts_with("```") || body.starts_with("~~~") {
            fence = Some(&body[..3]);
        } else if line.starts_with('#') {
            let level = line.bytes().take_while(|&b| b == b'#').count();
            if (1..=6).contains(&level) && line[level..].starts_with([' ', '\n']) {
                out.push_str(&"#".repeat((level + by).min(6)));
                out.push_str(&line[level..]);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

/// Whether the chapter's first heading reads as `title` (letters and digits compared).
fn opens_with(md: &str, title: &str) -> bool {
    let letters = |s: &str| -> String {
        s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
    };
    md.lines()
        .find(|l| l.starts_with('#'))
        .is_some_and(|l| letters(l.trim_start_matches('#')) == letters(title))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chapter_opening_with_its_title_gets_no_second_one() {
        assert!(opens_with("# 1. Down the Rabbit-Hole\n\ntext\n", "1 Down the rabbit hole"));
        assert!(!opens_with("text\n\n# Other\n", "Intro"));
    }

    #[test]
    fn headings_nest_under_the_chapter_depth_but_not_in_fences() {
        let md = "# Title\n\ntext\n\n```\n# comment\n```\n\n## Sub\n";
        assert_eq!(nest_headings(md, 1), "## Title\n\ntext\n\n```\n# comment\n```\n\n### Sub\n");
    }

    #[test]
    fn an_archive_that_expands_past_the_limit_is_refused_before_it_is_read() {
        use std::io::Write;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        zip.start_file("OEBPS/big.xhtml", options).expect("starts");
        zip.write_all(&vec![b'a'; 1 << 20]).expect("writes");
        let bytes = zip.finish().expect("finishes").into_inner();
        assert!(bytes.len() < 1 << 16, "a bomb in miniature: {} bytes", bytes.len());
        let err = super::super::ooxml::check_expansion(&bytes, 1 << 19).unwrap_err();
        assert!(err.contains("expands past"), "{err}");
        assert!(super::super::ooxml::check_expansion(&bytes, 2 << 20).is_ok());
    }

    /// A two-chapter EPUB 3 whose chapters are `first` and `second` (XHTML bodies).
    fn two_chapters(first: &str, second: &str) -> Vec<u8> {
        use std::io::Write;
        let page = |body: &str| {
            format!(
                "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">\
                 <head><title>t</title></head><body>{body}</body></html>"
            )
        };
        let files = [
            (
                "META-INF/container.xml",
                "<?xml version=\"1.0\"?><container version=\"1.0\" \
                 xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\"><rootfiles>\
                 <rootfile full-path=\"OEBPS/content.opf\" \
                 media-type=\"application/oebps-package+xml\"/></rootfiles></container>"
                    .to_owned(),
            ),
            (
                "OEBPS/content.opf",
                "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" \
                 version=\"3.0\" unique-identifier=\"id\"><metadata \
                 xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"id\">x\
                 </dc:identifier><dc:title>Two</dc:title><dc:language>en</dc:language>\
                 </metadata><manifest>\
                 <item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" \
                 properties=\"nav\"/>\
                 <item id=\"c1\" href=\"c1.xhtml\" media-type=\"application/xhtml+xml\"/>\
                 <item id=\"c2\" href=\"c2.xhtml\" media-type=\"application/xhtml+xml\"/>\
                 </manifest><spine><itemref idref=\"c1\"/><itemref idref=\"c2\"/></spine>\
                 </package>"
                    .to_owned(),
            ),
            (
                "OEBPS/nav.xhtml",
                page(
                    "<nav xmlns:epub=\"http://www.idpf.org/2007/ops\" epub:type=\"toc\"><ol>\
                      <li><a href=\"c1.xhtml\">One</a></li><li><a href=\"c2.xhtml\">Two</a>\
                      </li></ol></nav>",
                ),
            ),
            ("OEBPS/c1.xhtml", page(first)),
            ("OEBPS/c2.xhtml", page(second)),
        ];
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("mimetype", stored).expect("starts");
        zip.write_all(b"application/epub+zip").expect("writes");
        for (name, body) in files {
            zip.start_file(name, stored).expect("starts");
            zip.write_all(body.as_bytes()).expect("writes");
        }
        zip.finish().expect("finishes").into_inner()
    }

    #[test]
    fn a_chapter_that_cannot_be_converted_costs_that_chapter_not_the_book() {
        let deep = format!("{}too deep{}", "<div>".repeat(1_100), "</div>".repeat(1_100));
        let run = move || {
            let book = two_chapters(&deep, "<h1>Two</h1><p>secondmark</p>");
            let doc = decode(book).expect("the book is read");
            assert!(
                doc.text.contains("secondmark") && !doc.text.contains("too deep"),
                "{}",
                doc.text
            );
            assert_eq!(doc.notes.len(), 1, "{:?}", doc.notes);
            assert!(doc.notes[0].starts_with("chapter 1 ("), "{:?}", doc.notes);
            assert!(doc.notes[0].contains("too deep to convert"), "{:?}", doc.notes);
            // Every chapter lost: the book has no text view, and the reason says why.
            let err = decode(two_chapters(&deep, &deep)).err().expect("nothing to read");
            assert!(err.contains("chapter 2 (") && err.contains("too deep"), "{err}");
            // A sound book has no notes.
            let sound = decode(two_chapters("<p>a</p>", "<p>b</p>")).expect("read");
            assert!(sound.notes.is_empty(), "{:?}", sound.notes);
        };
        // On a thread with a worker's stack, as the engine runs decoders.
        let worker = std::thread::Builder::new()
            .stack_size(crate::WORKER_STACK_BYTES)
            .spawn(run)
            .expect("a thread");
        worker.join().expect("the test passes");
    }

    #[test]
    fn not_an_epub_says_why() {
        assert!(decode(b"PK\x03\x04 not really".to_vec()).is_err());
    }
}
