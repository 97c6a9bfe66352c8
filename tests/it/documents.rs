//! Office documents: decoded into a Markdown text view whose records name their page, slide
//! or sheet; the invariants hold over the text view, which `cleave verify` re-derives.

use std::fs;

use serde_json::Value;

use crate::support::{by_path, cleave, fixture, parse_jsonl, run};

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
    let file = fixture("documents/report.docx");
    let out = cleave().arg("extract").arg(&file).output().unwrap();
    assert!(out.status.success());
    let view = String::from_utf8(out.stdout).unwrap();
    let (records, _, _) = run(&[file.to_str().unwrap(), "--budget", "300", "-q"]);
    for c in parse_jsonl(&records) {
        assert_eq!(&view[c.byte_start..c.byte_end], c.text);
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
    let decoded = manifest["chunks"].as_array().unwrap().iter().filter(|c| {
        [".docx", ".pptx", ".xlsx"].iter().any(|e| c["path"].as_str().unwrap().ends_with(e))
    });
    for c in decoded {
        let view = fs::read_to_string(out.join(c["view"].as_str().expect("a view"))).unwrap();
        let body = fs::read_to_string(out.join(c["file"].as_str().unwrap())).unwrap();
        let (start, end) =
            (c["byte_start"].as_u64().unwrap() as usize, c["byte_end"].as_u64().unwrap() as usize);
        assert!(body.ends_with(&view[start..end]), "{c}");
    }
    // The folder is cleave's own, views included: a second run replaces it.
    let (_, err, code) = run(&[dir.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0, "{err}");
}
