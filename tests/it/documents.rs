//! Documents (DOCX, PPTX, XLSX, PDF, EPUB, HTML): decoded into a Markdown text view whose
//! records name their page, slide, sheet or chapter; the invariants hold over the text view,
//! which `cleave verify` re-derives.

use std::fs;

use cleave_engine::Chunk;
use serde_json::Value;

use crate::support::{by_path, cleave, fixture, parse_jsonl, run};

/// The decoded formats the fixtures hold, by extension.
const DECODED: &[&str] = &[".docx", ".pptx", ".xlsx", ".pdf", ".epub", ".html"];

#[test]
fn office_documents_are_chunked_with_their_pages() {
    let dir = fixture("documents");
    let (out, err, code) = run(&[dir.to_str().unwrap(), "--budget", "200", "-q"]);
    assert_eq!(code, 0, "{err}");
    let files = by_path(parse_jsonl(&out));
    let tags = |path: &str| -> Vec<String> {
        files[path].iter().map(|c| c.provenance.as_ref().expect("provenance").tag.clone()).collect()
    };
    for (path, language) in [("report.docx", "docx"), ("deck.pptx", "pptx"), ("book.xlsx", "xlsx")]
    {
        assert!(files[path].iter().all(|c| c.language == language), "{path}");
    }
    let report = tags("report.docx");
    assert!(
        report[0].starts_with("[source:report.docx | p.1 | ¶1 | §Quarterly Report"),
        "{report:?}"
    );
    assert!(
        report.iter().any(|t| t.contains("p.2") && t.contains("§Quarterly Report > Results")),
        "{report:?}"
    );
    let text: String = files["report.docx"].iter().map(|c| c.text.as_str()).collect();
    assert!(text.contains("## Method\n"), "{text}");
    assert!(text.contains("- First step\n"), "{text}");
    assert!(text.contains("| South \\| East | 95 | 70 |"), "{text}");
    assert!(text.contains("Revenue grew & costs fell."), "entities survive: {text}");
    let deck = tags("deck.pptx");
    assert!(deck.iter().any(|t| t.contains("slide 3")), "{deck:?}");
    let deck_text: String = files["deck.pptx"].iter().map(|c| c.text.as_str()).collect();
    assert!(deck_text.contains("# Slide 2: How it works"), "{deck_text}");
    assert!(deck_text.contains("**Notes:**\n\nMention the machine."), "{deck_text}");
    let book = tags("book.xlsx");
    assert!(book.iter().any(|t| t.contains("sheet Notes & more")), "{book:?}");
    // verify re-derives the text views.
    let tmp = tempfile::tempdir().unwrap();
    let jsonl = tmp.path().join("docs.jsonl");
    fs::write(&jsonl, &out).unwrap();
    let res = cleave()
        .args([
            "verify",
            jsonl.to_str().unwrap(),
            "--root",
            dir.to_str().unwrap(),
            "--budget",
            "200",
        ])
        .output()
        .unwrap();
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stdout));
}

#[test]
fn broken_documents_are_skipped_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let good = fs::read(fixture("documents/report.docx")).unwrap();
    fs::write(tmp.path().join("truncated.docx"), &good[..good.len() / 2]).unwrap();
    fs::write(tmp.path().join("not-a-zip.pptx"), "hello, I am text").unwrap();
    fs::write(tmp.path().join("a.txt"), "still chunked\n").unwrap();
    let rep = tmp.path().join("r.json");
    let (out, err, code) =
        run(&[tmp.path().to_str().unwrap(), "--report", rep.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(by_path(parse_jsonl(&out)).len(), 1);
    let report: Value = serde_json::from_slice(&fs::read(&rep).unwrap()).unwrap();
    for name in ["truncated.docx", "not-a-zip.pptx"] {
        let entry = report["files"].as_array().unwrap().iter().find(|f| f["path"] == name).unwrap();
        assert_eq!(entry["outcome"], "skipped", "{entry}");
        assert!(entry["reason"].as_str().unwrap().contains("cannot be read"), "{entry}");
    }
}

#[test]
fn extract_prints_the_text_view_the_records_index() {
    for name in ["report.docx", "paper.pdf", "book.epub", "page.html"] {
        let file = fixture(&format!("documents/{name}"));
        let out = cleave().arg("extract").arg(&file).output().unwrap();
        assert!(out.status.success(), "{name}");
        let view = String::from_utf8(out.stdout).unwrap();
        let (records, _, _) = run(&[file.to_str().unwrap(), "--budget", "300", "-q"]);
        let records = parse_jsonl(&records);
        assert!(!records.is_empty(), "{name}");
        for c in records {
            assert_eq!(&view[c.byte_start..c.byte_end], c.text, "{name}");
        }
    }
}

#[test]
fn an_out_folder_holds_each_decoded_text_view() {
    let dir = fixture("documents");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let (_, err, code) =
        run(&[dir.to_str().unwrap(), "--out", out.to_str().unwrap(), "--budget", "300", "-q"]);
    assert_eq!(code, 0, "{err}");
    let manifest: Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let decoded: Vec<&Value> = manifest["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| DECODED.iter().any(|e| c["path"].as_str().unwrap().ends_with(e)))
        .collect();
    for ext in DECODED {
        assert!(decoded.iter().any(|c| c["path"].as_str().unwrap().ends_with(ext)), "{ext}");
    }
    for c in decoded {
        let view = fs::read_to_string(out.join(c["view"].as_str().expect("a view"))).unwrap();
        let body = fs::read_to_string(out.join(c["file"].as_str().unwrap())).unwrap();
        let (start, end) =
            (c["byte_start"].as_u64().unwrap() as usize, c["byte_end"].as_u64().unwrap() as usize);
        assert!(body.ends_with(&view[start..end]), "{c}");
    }
    // verify reads the folder: its records from the manifest and chunk files, and the views.
    let verify = || {
        let res = cleave()
            .args(["verify", out.to_str().unwrap(), "--root", dir.to_str().unwrap()])
            .args(["--budget", "300"])
            .output()
            .unwrap();
        (res.status.code(), String::from_utf8_lossy(&res.stdout).into_owned())
    };
    assert_eq!(verify(), (Some(0), String::new()));
    let chunks = manifest["chunks"].as_array().unwrap();
    let entry = |ext: &str| {
        chunks.iter().find(|c| c["path"].as_str().unwrap().ends_with(ext)).expect(ext).clone()
    };
    let (pptx, docx, html, epub) = (entry(".pptx"), entry(".docx"), entry(".html"), entry(".epub"));
    let view = out.join(pptx["view"].as_str().unwrap());
    fs::write(&view, fs::read_to_string(&view).unwrap() + "more").unwrap();
    let body = out.join(docx["file"].as_str().unwrap());
    let mut text = fs::read_to_string(&body).unwrap();
    let at = text.rfind('e').expect("an e in the body");
    text.replace_range(at..at + 1, "E");
    fs::write(&body, text).unwrap();
    fs::remove_file(out.join(html["file"].as_str().unwrap())).unwrap();
    // A link to the same bytes outside the folder is not read through.
    #[cfg(unix)]
    {
        let inside = out.join(epub["file"].as_str().unwrap());
        let outside = tmp.path().join("outside");
        fs::rename(&inside, &outside).unwrap();
        std::os::unix::fs::symlink(&outside, &inside).unwrap();
    }
    // A decoded file whose entries name no view is not let through unchecked.
    let original = fs::read(out.join("manifest.json")).unwrap();
    let mut edited = manifest.clone();
    for c in edited["chunks"].as_array_mut().unwrap() {
        if c["path"].as_str().unwrap().ends_with(".xlsx") {
            c.as_object_mut().unwrap().remove("view");
        }
    }
    fs::write(out.join("manifest.json"), serde_json::to_vec(&edited).unwrap()).unwrap();
    let (code, problems) = verify();
    assert_eq!(code, Some(1), "{problems}");
    for (what, said) in [
        (&pptx, "is not the file's"),
        (&docx, "body differs from the file slice"),
        (&html, "chunk file missing"),
        (&entry(".xlsx"), "names no text view"),
    ] {
        let named = problems.lines().any(|l| {
            l.contains(said)
                && (l.contains(what["path"].as_str().unwrap())
                    || l.contains(what["file"].as_str().unwrap()))
        });
        assert!(named, "{said}: {problems}");
    }
    #[cfg(unix)]
    assert!(
        problems.contains(&format!("{}: chunk file missing", epub["file"].as_str().unwrap())),
        "{problems}"
    );
    fs::write(out.join("manifest.json"), original).unwrap();
    // The folder is cleave's own, views included: a second run replaces it.
    let (_, err, code) = run(&[dir.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0, "{err}");
}

/// The records of one fixture document at a budget.
fn records(name: &str, budget: usize, unit: &str) -> Vec<Chunk> {
    let file = fixture(&format!("documents/{name}"));
    let budget = budget.to_string();
    let (out, err, code) =
        run(&[file.to_str().unwrap(), "--budget", &budget, "--unit", unit, "-q"]);
    assert_eq!(code, 0, "{name}: {err}");
    parse_jsonl(&out)
}

fn tags(chunks: &[Chunk]) -> Vec<String> {
    chunks.iter().map(|c| c.provenance.as_ref().expect("provenance").tag.clone()).collect()
}

/// The page, slide or chapter a record names, as its tag shows it (`p.3`, `ch. One`).
fn label_of(c: &Chunk) -> String {
    let page = c.provenance.as_ref().and_then(|p| p.page.as_ref());
    page.map(ToString::to_string).unwrap_or_else(|| panic!("{}: no page", c.text))
}

fn page_of(c: &Chunk) -> u32 {
    let label = label_of(c);
    label.strip_prefix("p.").and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{label}"))
}

#[test]
fn pdf_pages_bookmarks_ligatures_and_hyphens() {
    let chunks = records("paper.pdf", 200, "chars");
    assert!(chunks.iter().all(|c| c.language == "pdf"));
    let tags = tags(&chunks);
    assert!(tags[0].starts_with("[source:paper.pdf | p.1 | ¶1 | §Cleave Test Paper"), "{tags:?}");
    assert!(
        tags.iter()
            .any(|t| t.contains("p.4")
                && t.contains("§Cleave Test Paper > 2 Two Columns > 2.1 Results")),
        "{tags:?}"
    );
    let text: String = chunks.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(text.matches('\u{c}').count(), 3, "four pages, three form feeds: {text}");
    assert!(text.contains("# Cleave Test Paper\n"), "{text}");
    assert!(text.contains("## 1 Introduction\n"), "{text}");
    // The paragraph's words in order, whether its lines are kept (a page read by rows of
    // glyphs) or joined.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("We find the efficient path through long documents without"), "{text}");
    assert!(text.contains("co-author-"), "{text}");
    assert!(!text.contains('\u{fb01}') && !text.contains('\u{fb03}'), "{text}");
    // The two-column page: every sentence of each column is there.
    for i in 1..8 {
        assert!(text.contains(&format!("Left column sentence {i} about sorting.")), "{text}");
        assert!(text.contains(&format!("Right column sentence {i} about parsing.")), "{text}");
    }
}

/// Every chunk's text lies on the pages its record names: its first byte on the named page
/// (the page a chunk starts on is the one before as many form feeds), its last visible one on
/// the named last page, and each page's marker
/// word, wherever a chunk holds it, on the page it was written on, at many budgets and units.
#[test]
fn every_chunk_lies_on_the_pages_its_record_names() {
    let view = String::from_utf8(
        cleave().arg("extract").arg(fixture("documents/paper.pdf")).output().unwrap().stdout,
    )
    .unwrap();
    let markers = ["pageonemark", "pagetwomark", "pagethreemark", "pagefourmark"];
    for unit in ["chars", "tokens", "bytes"] {
        for budget in [32, 40, 64, 100, 150, 240, 400, 1000, 4000] {
            let chunks = records("paper.pdf", budget, unit);
            let mut seen = 0;
            for c in &chunks {
                let page = page_of(c);
                let feeds = view[..c.byte_start].matches('\u{c}').count() as u32;
                assert_eq!(page, feeds + 1, "{unit} {budget}: {c:?}");
                // The last page is the one its last visible character is on.
                let last = c.text.trim_end().len();
                let feeds_in = c.text[..last].matches('\u{c}').count() as u32;
                let page_end = c.provenance.as_ref().and_then(|p| p.page_end.clone());
                assert_eq!(
                    page_end,
                    Some(cleave_engine::PageLabel::Page(page + feeds_in)),
                    "{unit} {budget}: {c:?}"
                );
                if feeds_in > 0 {
                    let tag = &c.provenance.as_ref().unwrap().tag;
                    assert!(tag.contains(&format!("pp.{page}-{}", page + feeds_in)), "{tag}");
                }
                for (piece_idx, piece) in c.text.split('\u{c}').enumerate() {
                    for (m, marker) in markers.iter().enumerate() {
                        if piece.contains(marker) {
                            seen += 1;
                            assert_eq!(
                                page as usize + piece_idx,
                                m + 1,
                                "{unit} {budget}: {marker} in {c:?}"
                            );
                        }
                    }
                }
            }
            assert!(seen >= markers.len(), "{unit} {budget}: every marker is in some chunk");
        }
    }
    // The same for the chapters of a book.
    for budget in [40, 100, 300, 2000] {
        for c in records("book.epub", budget, "chars") {
            let label = label_of(&c);
            let chapter = label.strip_prefix("ch. ").unwrap_or_else(|| panic!("{label}"));
            for (marker, name) in
                [("chapteronemark", "Chapter One"), ("chaptertwomark", "Chapter Two")]
            {
                if c.text.contains(marker) && !c.text.contains("chapterthreemark") {
                    let first = c.text.find(marker).unwrap();
                    let before_next = ["## Chapter Two", "## Part Two Notes"]
                        .iter()
                        .all(|h| c.text.find(h).is_none_or(|at| at > first));
                    if before_next {
                        assert_eq!(chapter, name, "{budget}: {c:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn epub_chapters_follow_the_spine_and_the_table_of_contents() {
    let chunks = records("book.epub", 120, "chars");
    assert!(chunks.iter().all(|c| c.language == "epub"));
    let tags = tags(&chunks);
    assert!(
        tags[0].starts_with("[source:book.epub | ch. Chapter One | ¶1 | §Chapter One"),
        "{tags:?}"
    );
    assert!(
        tags.iter().any(|t| t.contains("ch. Chapter Two") && t.contains("§Part Two > Chapter Two")),
        "{tags:?}"
    );
    assert!(
        tags.iter()
            .any(|t| t.contains("ch. Part Two Notes") && t.contains("§Part Two > Part Two Notes")),
        "{tags:?}"
    );
    let text: String = chunks.iter().map(|c| c.text.as_str()).collect();
    let one = text.find("chapteronemark").unwrap();
    let two = text.find("chaptertwomark").unwrap();
    let three = text.find("chapterthreemark").unwrap();
    assert!(one < two && two < three, "spine order: {text}");
    assert!(text.contains("```\nlet x = 1;\nlet y = 2;\n```"), "{text}");
    assert!(text.contains("| spine | reading order |"), "{text}");
    assert!(!text.contains("var gone"), "scripts are dropped: {text}");
}

#[test]
fn a_reference_page_has_its_entries_as_sections() {
    // Sphinx's markup: a function with two signatures, a class with two methods, and, in a
    // subsection, an entry that prose follows.
    let chunks = records("reference.html", 160, "chars");
    let tags = tags(&chunks);
    let tag_of = |mark: &str| -> String {
        let at = chunks.iter().position(|c| c.text.contains(mark));
        tags[at.unwrap_or_else(|| panic!("{mark}: {tags:?}"))].clone()
    };
    assert!(
        tag_of("pushmark")
            .contains("§ringbuf — fixed-size queues > class ringbuf.Ring > push(item)"),
        "{tags:?}"
    );
    assert!(tag_of("Return a new ring").contains("> ringbuf.make(capacity)"), "{tags:?}");
    // Prose after a list of entries would fall under its last entry: that list stays text.
    assert!(tag_of("notesmark").contains("§ringbuf — fixed-size queues > Notes |"), "{tags:?}");
    assert!(!tags.iter().any(|t| t.contains("> ringbuf.DEFAULT")), "{tags:?}");
    let text: String = chunks.iter().map(|c| c.text.as_str()).collect();
    assert!(text.contains("\n## *class* ringbuf.Ring\n"), "{text}");
    assert!(text.contains("\n### push(*item*)\n"), "{text}");
    // The second signature is a line under the first, the field list stays a list of text.
    assert!(text.contains("\nringbuf.make(*capacity*, *items*)\n"), "{text}");
    assert!(text.contains("\nParameters\n"), "{text}");
}

#[test]
fn html_is_read_as_markdown_with_its_headings_as_sections() {
    let chunks = records("page.html", 120, "chars");
    assert!(chunks.iter().all(|c| c.language == "html"));
    let tags = tags(&chunks);
    assert!(tags.iter().any(|t| t.contains("§Install guide > From source")), "{tags:?}");
    assert!(tags.iter().any(|t| t.contains("§Install guide > Options > Defaults")), "{tags:?}");
    let text: String = chunks.iter().map(|c| c.text.as_str()).collect();
    assert!(text.starts_with("# Install guide\n"), "{text}");
    assert!(
        text.contains("```\ngit clone https://example.invalid/cleave\ncargo build --release\n```"),
        "{text}"
    );
    assert!(text.contains("| --budget | size of a chunk |"), "{text}");
    assert!(text.contains("- Budget in tokens"), "{text}");
    assert!(text.contains("`cargo` & nothing else"), "{text}");
    for gone in ["window.tracking", "font-family", "Home"] {
        assert!(!text.contains(gone), "{gone}: {text}");
    }
}

/// A template or a fragment of a web project is source, not a page: chunked byte for byte with
/// tree-sitter-html, its landmarks as scopes and its script parsed as JavaScript.
#[test]
fn html_templates_and_fragments_are_chunked_as_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let template = "{% extends \"base.html\" %}\n{% block content %}\n<main id=\"content\">\n\
                    <section class=\"results\">\n  <h2>{{ title }}</h2>\n"
        .to_owned()
        + &"  <p>One of the results of the search, with its summary and a link.</p>\n".repeat(8)
        + "</section>\n</main>\n<script>\nfunction track(id) {\n  return id;\n}\n</script>\n\
           {% endblock %}\n";
    fs::write(dir.path().join("results.html"), &template).expect("write");
    fs::write(dir.path().join("card.html"), "<div class=\"card\">\n  <slot></slot>\n</div>\n")
        .expect("write");
    let (out, err, code) =
        run(&[dir.path().to_str().unwrap(), "--budget", "300", "--unit", "chars", "-q"]);
    assert_eq!(code, 0, "{err}");
    let chunks = parse_jsonl(&out);
    let by = by_path(chunks);
    for (path, text) in [("results.html", template.as_str()), ("card.html", "<div")] {
        let parts = &by[path];
        assert!(
            parts
                .iter()
                .all(|c| c.language == "html" && c.kind == cleave_engine::ContentKind::Code),
            "{path}"
        );
        let whole: String = parts.iter().map(|c| c.text.as_str()).collect();
        assert!(whole.starts_with(text), "{path}: not its own bytes: {whole}");
    }
    let scopes: Vec<String> = by["results.html"].iter().map(|c| c.scope.join(" > ")).collect();
    assert!(
        scopes.iter().any(|s| s == "<main id=\"content\"> > <section class=\"results\">"),
        "{scopes:?}"
    );
}

/// A PDF whose decoder panics leaves nothing behind for the next PDF on the same thread:
/// pdf_oxide 0.3.78 keeps its object-loading depth in thread-locals that the panic did not
/// reset, and the next PDF on that worker lost its text ("none of its pages could be read").
#[test]
fn a_decoder_panic_does_not_reach_the_next_file_on_its_thread() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let input = tmp.path().join("in");
    fs::create_dir(&input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    for (from, to) in
        [("broken-documents/decoder-panic.pdf", "a.pdf"), ("documents/paper.pdf", "b.pdf")]
    {
        fs::copy(fixture(from), input.join(to)).unwrap_or_else(|e| panic!("{from}: {e}"));
    }
    let dir = input.to_str().expect("a UTF-8 temporary path");
    let (out, err, code) = run(&[dir, "--threads", "1", "-q"]);
    assert_eq!(code, 0, "{err}");
    let after = by_path(parse_jsonl(&out)).remove("b.pdf").expect("b.pdf chunked");
    let alone = input.join("b.pdf");
    let alone = alone.to_str().expect("a UTF-8 temporary path");
    let (out, err, code) = run(&[alone, "--threads", "1", "-q"]);
    assert_eq!(code, 0, "{err}");
    let alone = by_path(parse_jsonl(&out)).remove("b.pdf").expect("b.pdf chunked alone");
    let bodies = |chunks: &[Chunk]| chunks.iter().map(|c| c.text.clone()).collect::<Vec<_>>();
    assert_eq!(bodies(&after), bodies(&alone));
}

/// A PDF whose outline loops (found by the documents fuzz target: the fixture paper with an
/// outline item's `/Next` pointed back) is read without its bookmarks: pdf_oxide's own walk
/// collected items until 13 GB of memory were gone.
#[test]
fn a_looping_outline_is_left_out_and_the_pages_read() {
    let path = fixture("broken-documents/outline-loop.pdf");
    let out = cleave().arg("extract").arg(&path).output().expect("run cleave");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let view = String::from_utf8(out.stdout).expect("the text view of outline-loop.pdf is UTF-8");
    assert!(view.contains("pageonemark") && view.contains("pagetwomark"), "{view}");
    // No bookmarks as headings: the bookmarks nest the sections under the title (`## 1
    // Introduction`); without them the headings are told by size, the title's used once.
    assert!(!view.contains("## 1 Introduction"), "no bookmarks as headings:\n{view}");
    assert!(view.contains("\n# 1 Introduction\n"), "headings by size:\n{view}");
    // A tree of named destinations whose node names itself twice as its kids: pdf_oxide
    // searched it 2^32 times for the bookmark that names its destination (written by hand,
    // found in review).
    let path = fixture("broken-documents/names-loop.pdf");
    let out = cleave().arg("extract").arg(&path).output().expect("run cleave");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let view = String::from_utf8(out.stdout).expect("the text view of names-loop.pdf is UTF-8");
    assert_eq!(view.trim(), "hello named tree");
}

/// Truncated, corrupt, encrypted and image-only PDFs end with a reason, the run goes on, and
/// `verify` accepts a file that was skipped for a reason it re-derives.
#[test]
fn broken_pdfs_end_with_a_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    fs::create_dir(&input).unwrap();
    let good = fs::read(fixture("documents/paper.pdf")).unwrap();
    fs::write(input.join("truncated.pdf"), &good[..good.len() / 3]).unwrap();
    fs::write(input.join("garbage.pdf"), b"%PDF-1.7\n1 0 obj << /Type /Catalog").unwrap();
    fs::write(input.join("text.pdf"), "not a PDF at all\n").unwrap();
    for name in ["encrypted.pdf", "image-only.pdf", "decoder-panic.pdf"] {
        fs::copy(fixture(&format!("broken-documents/{name}")), input.join(name)).unwrap();
    }
    fs::write(input.join("a.txt"), "still chunked\n").unwrap();
    let rep = tmp.path().join("r.json");
    let dir = input.to_str().unwrap();
    let (out, err, code) = run(&[dir, "--report", rep.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0, "a document that cannot be read is no read error: {err}");
    assert!(!err.contains("panicked"), "a decoder's panic is a reason, not a message: {err}");
    let files = by_path(parse_jsonl(&out));
    assert!(files.contains_key("a.txt"));
    let report: Value = serde_json::from_slice(&fs::read(&rep).unwrap()).unwrap();
    let entry = |name: &str| -> Value {
        report["files"].as_array().unwrap().iter().find(|f| f["path"] == name).unwrap().clone()
    };
    for (name, reason) in [
        ("garbage.pdf", "pdf that cannot be read"),
        ("text.pdf", "no %PDF- header"),
        ("encrypted.pdf", "encrypted"),
        ("image-only.pdf", "pdf without text"),
        // Found by the documents fuzz target: pdf_oxide 0.3.78 slices a string inside a
        // character on this file. The panic is the skip's reason, with the place it
        // happened, and is not printed besides.
        ("decoder-panic.pdf", "its decoder failed: start byte index"),
    ] {
        let e = entry(name);
        assert_eq!(e["outcome"], "skipped", "{e}");
        assert!(e["reason"].as_str().unwrap().contains(reason), "{e}");
    }
    // A truncated PDF is read as far as its pages can be, or skipped saying why.
    let e = entry("truncated.pdf");
    match e["outcome"].as_str().unwrap() {
        "skipped" => {
            assert!(e["reason"].as_str().unwrap().contains("pdf that cannot be read"), "{e}")
        }
        _ => assert!(files.contains_key("truncated.pdf"), "{e}"),
    }
    let jsonl = tmp.path().join("out.jsonl");
    fs::write(&jsonl, &out).unwrap();
    let res = cleave().args(["verify", jsonl.to_str().unwrap(), "--root", dir]).output().unwrap();
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stdout));
}
