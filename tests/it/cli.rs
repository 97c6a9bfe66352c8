//! The command line, end to end.

use cleave_engine::{Chunk, ChunkConfig};
use serde_json::Value;

use crate::support::{by_path, check_all, cleave, fixture, parse_jsonl, root, run, unit};

#[test]
fn fixtures_keep_every_invariant_at_every_budget_and_unit() {
    let dir = fixture("");
    for unit_name in ["chars", "tokens", "bytes"] {
        for budget in [64usize, 200, 1000, 4000] {
            let budget_s = budget.to_string();
            let (out, err, code) =
                run(&[dir.to_str().unwrap(), "--budget", &budget_s, "--unit", unit_name, "-q"]);
            assert_eq!(code, 0, "{unit_name} {budget}: {err}");
            let chunks = parse_jsonl(&out);
            assert!(!chunks.is_empty());
            let config = ChunkConfig::new(budget, unit(unit_name)).unwrap();
            let errors = check_all(&dir, chunks, &config);
            assert!(errors.is_empty(), "{unit_name} {budget}:\n{}", errors.join("\n"));
        }
    }
}

#[test]
fn overlap_and_no_headers_keep_their_invariants() {
    let dir = fixture("mixed");
    let (out, err, code) =
        run(&[dir.to_str().unwrap(), "--budget", "120", "--overlap", "30", "-q"]);
    assert_eq!(code, 0, "{err}");
    let config = ChunkConfig::new(120, unit("chars")).unwrap().with_overlap(30).unwrap();
    let chunks = parse_jsonl(&out);
    let overlapping = chunks
        .windows(2)
        .filter(|w| w[0].path == w[1].path && w[1].byte_start < w[0].byte_end)
        .count();
    assert!(overlapping > 0, "some chunks repeat the end of the previous one");
    let errors = check_all(&dir, chunks, &config);
    assert!(errors.is_empty(), "{}", errors.join("\n"));

    let (out, _, code) = run(&[dir.to_str().unwrap(), "--budget", "120", "--no-headers", "-q"]);
    assert_eq!(code, 0);
    let chunks = parse_jsonl(&out);
    assert!(chunks.iter().all(|c| c.header.is_empty()));
    let config = ChunkConfig::new(120, unit("chars")).unwrap().with_headers(false);
    let errors = check_all(&dir, chunks, &config);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let dir = fixture("");
    for unit_name in ["chars", "tokens"] {
        let outs: Vec<Vec<u8>> = ["1", "2", "5"]
            .iter()
            .map(|t| {
                run(&[
                    dir.to_str().unwrap(),
                    "--budget",
                    "300",
                    "--unit",
                    unit_name,
                    "--threads",
                    t,
                    "-q",
                ])
                .0
            })
            .collect();
        assert!(!outs[0].is_empty());
        assert!(
            outs[0] == outs[1] && outs[1] == outs[2],
            "{unit_name}: output differs by thread count"
        );
    }
}

#[test]
fn every_file_ends_chunked_fallen_back_or_skipped_with_a_reason() {
    let dir = fixture("broken");
    let tmp = tempfile::tempdir().unwrap();
    let report = tmp.path().join("report.json");
    let (out, err, code) =
        run(&[dir.to_str().unwrap(), "--budget", "200", "--report", report.to_str().unwrap()]);
    assert_eq!(code, 0, "skipped inputs are not errors: {err}");
    assert!(err.contains("skipped"), "summary on stderr: {err}");
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let files = report["files"].as_array().unwrap();
    let outcome = |name: &str| -> (String, String) {
        let f = files
            .iter()
            .find(|f| f["path"] == name)
            .unwrap_or_else(|| panic!("{name} missing from report"));
        (f["outcome"].as_str().unwrap().to_owned(), f["reason"].as_str().unwrap_or("").to_owned())
    };
    assert_eq!(outcome("image.gif"), ("skipped".into(), "binary (NUL byte)".into()));
    assert_eq!(outcome("empty.txt"), ("skipped".into(), "empty".into()));
    let (o, reason) = outcome("latin1.txt");
    assert_eq!(o, "skipped");
    assert!(reason.starts_with("not UTF-8"), "{reason}");
    for name in
        ["deep_nesting.js", "long_line.min.js", "unterminated_fence.md", "unterminated_math.tex"]
    {
        let (o, _) = outcome(name);
        assert!(o == "chunked" || o == "fallback", "{name}: {o}");
    }
    assert_eq!(report["summary"]["files"], files.len());
    // What was chunked is whole and within budget.
    let config = ChunkConfig::new(200, unit("chars")).unwrap();
    let chunks = parse_jsonl(&out);
    let paths: Vec<String> = by_path(chunks.clone()).into_keys().collect();
    assert_eq!(
        paths,
        ["deep_nesting.js", "long_line.min.js", "unterminated_fence.md", "unterminated_math.tex"]
    );
    let errors = check_all(&dir, chunks, &config);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[cfg(target_os = "linux")]
#[test]
fn an_unreadable_file_makes_the_exit_code_non_zero() {
    // /proc/self/mem is a regular file that cannot be read from offset 0.
    let (_, err, code) = run(&["/proc/self/mem"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("mem: unreadable"), "{err}");
}

#[test]
fn usage_errors_exit_with_two() {
    let (_, err, code) = run(&[".", "--budget", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("budget of 0 chars is too small"), "{err}");
    let (_, err, code) = run(&[".", "--budget", "100", "--overlap", "50"]);
    assert_eq!(code, 2);
    assert!(err.contains("overlap"), "{err}");
    let (_, _, code) = run(&["/no/such/path"]);
    assert_eq!(code, 2);
}

#[test]
fn ignore_files_and_hidden_files_are_honoured() {
    let dir = fixture("mixed");
    let paths = |args: &[&str]| -> Vec<String> {
        let mut all = vec![dir.to_str().unwrap(), "-q"];
        all.extend_from_slice(args);
        by_path(parse_jsonl(&run(&all).0)).into_keys().collect()
    };
    let default = paths(&[]);
    assert!(default.contains(&"src/lib.rs".to_owned()));
    assert!(!default.iter().any(|p| p.starts_with("target/")), "{default:?}");
    assert!(!default.contains(&".hidden.txt".to_owned()));
    let all = paths(&["--no-ignore", "--hidden"]);
    assert!(all.contains(&"target/ignored.txt".to_owned()), "{all:?}");
    assert!(all.contains(&".hidden.txt".to_owned()));
}

#[test]
fn languages_are_detected_by_extension_and_shebang() {
    let dir = fixture("mixed");
    let chunks = parse_jsonl(&run(&[dir.to_str().unwrap(), "-q"]).0);
    let lang = |p: &str| chunks.iter().find(|c| c.path == p).map(|c| c.language.clone()).unwrap();
    assert_eq!(lang("src/lib.rs"), "rust");
    assert_eq!(lang("src/auth.py"), "python");
    assert_eq!(lang("docs/guide.md"), "markdown");
    assert_eq!(lang("run-me"), "python");
    assert_eq!(lang("notes.txt"), "text");
}

#[test]
fn json_document_holds_the_same_chunks_as_jsonl() {
    let dir = fixture("mixed");
    let jsonl = parse_jsonl(&run(&[dir.to_str().unwrap(), "--budget", "300", "-q"]).0);
    let (out, _, code) = run(&[dir.to_str().unwrap(), "--budget", "300", "--format", "json", "-q"]);
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_slice(&out).unwrap();
    let chunks: Vec<Chunk> = serde_json::from_value(doc["chunks"].clone()).unwrap();
    assert_eq!(chunks, jsonl);
    assert_eq!(doc["run"]["budget"], 300);
    // Every entry has an outcome: the files chunked, and the hidden and ignored entries of the
    // fixture skipped with their reason.
    let files = doc["files"].as_array().unwrap();
    assert!(files.iter().all(|f| f["outcome"] == "chunked"
        || f["outcome"] == "skipped" && f["reason"].as_str().is_some_and(|r| !r.is_empty())));
    let chunked = files.iter().filter(|f| f["outcome"] == "chunked").count();
    assert_eq!(chunked, by_path(jsonl).len());
}

#[test]
fn out_folder_holds_chunk_files_whose_ranges_reproduce_every_byte() {
    let dir = fixture("mixed");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("chunks-out");
    let (_, err, code) =
        run(&[dir.to_str().unwrap(), "--budget", "250", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["generator"], "cleave");
    let mut rebuilt: std::collections::BTreeMap<String, Vec<u8>> = Default::default();
    for c in manifest["chunks"].as_array().unwrap() {
        let file = std::fs::read(out.join(c["file"].as_str().unwrap())).unwrap();
        let (start, end) =
            (c["byte_start"].as_u64().unwrap() as usize, c["byte_end"].as_u64().unwrap() as usize);
        assert!(file.len() >= end - start);
        let body = &file[file.len() - (end - start)..];
        let acc = rebuilt.entry(c["path"].as_str().unwrap().to_owned()).or_default();
        assert_eq!(acc.len(), start, "{c}: chunks tile the file in order");
        acc.extend_from_slice(body);
        assert!(c["tokens"].as_u64().unwrap() <= 250);
    }
    let files = manifest["files"].as_array().unwrap();
    assert_eq!(files.iter().filter(|f| f["outcome"] != "skipped").count(), rebuilt.len());
    for (path, bytes) in rebuilt {
        assert_eq!(bytes, std::fs::read(dir.join(&path)).unwrap(), "{path} rebuilt byte for byte");
    }
    // Running again replaces an earlier output; a foreign folder is refused without --force.
    let (_, _, code) = run(&[dir.to_str().unwrap(), "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0);
    let foreign = tmp.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("precious.txt"), "keep me").unwrap();
    let (_, err, code) = run(&[dir.to_str().unwrap(), "--out", foreign.to_str().unwrap(), "-q"]);
    assert_eq!(code, 2);
    assert!(err.contains("--force"), "{err}");
    assert!(foreign.join("precious.txt").exists());
    let (_, _, code) =
        run(&[dir.to_str().unwrap(), "--out", foreign.to_str().unwrap(), "--force", "-q"]);
    assert_eq!(code, 0);
    assert!(foreign.join("manifest.json").exists() && !foreign.join("precious.txt").exists());
}

#[test]
fn a_closed_pipe_exits_quietly() {
    let bin = assert_cmd::cargo::cargo_bin("cleave");
    let script = format!(
        "'{}' chunk '{}' --budget 64 | head -c 10 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
        bin.display(),
        root().display()
    );
    let out = std::process::Command::new("bash").arg("-c").arg(script).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("Broken pipe"));
}

#[test]
fn dump_atoms_prints_the_tree() {
    let out = cleave().arg("dump-atoms").arg(fixture("mixed/notes.txt")).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# "), "{text}");
    assert!(text.contains("0..") && text.contains("Block"), "{text}");
}

#[test]
fn outline_lists_symbols_and_numbered_sections_with_their_chunks() {
    let dir = fixture("mixed");
    let out = cleave().args(["outline", dir.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("docs/\n  guide.md · markdown"), "{text}");
    assert!(text.contains("      1.1 Install  L5-25  @"), "{text}");
    assert!(text.contains("      def login  L23-31  @"), "{text}");
    assert!(!text.contains(".hidden.txt"), "walked-over entries are left out: {text}");
    // The ids are those of `cleave chunk` with the same budget (outline's default is 1000).
    let chunks = parse_jsonl(&run(&[dir.to_str().unwrap(), "--budget", "1000", "-q"]).0);
    let json =
        cleave().args(["outline", dir.to_str().unwrap(), "--format", "json"]).output().unwrap();
    let doc: Value = serde_json::from_slice(&json.stdout).unwrap();
    for file in doc["files"].as_array().unwrap() {
        for entry in file["entries"].as_array().unwrap() {
            for id in entry["chunks"].as_array().unwrap() {
                let c = chunks.iter().find(|c| c.id == id.as_str().unwrap()).expect("a chunk id");
                assert!(c.byte_start < entry["byte_end"].as_u64().unwrap() as usize);
                assert!(c.byte_end > entry["byte_start"].as_u64().unwrap() as usize);
            }
        }
    }
    // A budget keeps the outline within it and says what it left out.
    let small =
        cleave().args(["outline", dir.to_str().unwrap(), "--budget", "400"]).output().unwrap();
    let small = String::from_utf8(small.stdout).unwrap();
    assert!(small.chars().count() <= 400, "{small}");
    assert!(small.contains("entries left out"), "{small}");
}

#[test]
fn a_hugging_face_tokenizer_file_sizes_the_chunks() {
    let tokenizer = root().join("crates/core/tests/fixtures/wordlevel-tokenizer.json");
    let dir = fixture("mixed");
    let (out, err, code) = run(&[
        dir.to_str().unwrap(),
        "--unit",
        "tokens",
        "--tokenizer",
        tokenizer.to_str().unwrap(),
        "--budget",
        "120",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let chunks = parse_jsonl(&out);
    assert!(chunks.len() > 3);
    assert!(chunks.iter().all(|c| c.tokens <= 120));
    // verify measures every chunk again with the same tokenizer file.
    let tmp = tempfile::tempdir().unwrap();
    let jsonl = tmp.path().join("c.jsonl");
    std::fs::write(&jsonl, &out).unwrap();
    let res = cleave()
        .args(["verify", jsonl.to_str().unwrap(), "--root", dir.to_str().unwrap()])
        .args(["--unit", "tokens", "--tokenizer", tokenizer.to_str().unwrap(), "--budget", "120"])
        .output()
        .unwrap();
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stdout));
    // Without --unit tokens the file is refused: it counts tokens.
    let (_, err, code) = run(&[dir.to_str().unwrap(), "--tokenizer", tokenizer.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("--unit tokens"), "{err}");
}

/// A format without comments gets no header inside its chunk files: a JSON chunk file is the
/// body alone (a whole JSON value parses as JSON), the manifest entry and the JSON Lines record
/// keep the header, and `cleave verify` passes on the records. Files of languages with
/// comments still carry their header. See: issue 16 ("Formats without comments (JSON) get no
/// header inside chunk files").
#[test]
fn json_chunk_files_carry_no_header() {
    let dir = fixture("data");
    let tmp = tempfile::tempdir().unwrap();
    let mut whole_json = 0;
    for budget in ["2000", "200"] {
        let out = tmp.path().join(format!("out-{budget}"));
        let (_, err, code) =
            run(&[dir.to_str().unwrap(), "--budget", budget, "--out", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let manifest: Value =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        let (mut json_files, mut others) = (0, 0);
        for c in manifest["chunks"].as_array().unwrap() {
            let file = std::fs::read_to_string(out.join(c["file"].as_str().unwrap())).unwrap();
            let source = std::fs::read_to_string(dir.join(c["path"].as_str().unwrap())).unwrap();
            let (start, end) = (
                c["byte_start"].as_u64().unwrap() as usize,
                c["byte_end"].as_u64().unwrap() as usize,
            );
            let body = &source[start..end];
            if c["language"] == "json" {
                json_files += 1;
                assert_eq!(file, body, "{c}: a JSON chunk file is its body alone");
                let header = c["header"].as_str();
                assert!(header.is_none_or(|h| h.starts_with("// ")), "{c}");
                assert!(budget == "200" || header.is_some(), "{c}: the entry keeps the header");
                if start == 0 && end == source.len() {
                    serde_json::from_str::<Value>(&file).expect("a whole JSON file parses");
                }
            } else {
                others += 1;
                // At 200 chars a unit that fills the chunk leaves its header out.
                assert!(file.ends_with(body), "{c}: header + body");
                assert!(budget == "200" || file.len() > body.len(), "{c}: header + body");
                assert!(c.get("header").is_none(), "{c}: the file holds the header");
            }
        }
        assert!(
            json_files > 0 && others > 0,
            "{budget}: {json_files} JSON chunks, {others} others"
        );
        whole_json += usize::from(budget == "2000" && json_files == 1);
    }
    assert_eq!(whole_json, 1, "package.json is one chunk at 2000 chars, and parses");
    // The records keep every header, and verify passes on them.
    let (out, err, code) = run(&[dir.to_str().unwrap(), "--budget", "200", "-q"]);
    assert_eq!(code, 0, "{err}");
    let chunks = parse_jsonl(&out);
    let json: Vec<_> = chunks.iter().filter(|c| c.language == "json").collect();
    assert!(json.iter().all(|c| c.header.is_empty() || c.header.starts_with("// ")));
    assert!(json.iter().any(|c| c.header.starts_with("// ")));
    let jsonl = tmp.path().join("c.jsonl");
    std::fs::write(&jsonl, &out).unwrap();
    let res = cleave()
        .args(["verify", jsonl.to_str().unwrap(), "--root", dir.to_str().unwrap()])
        .args(["--budget", "200"])
        .output()
        .unwrap();
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stdout));
}
