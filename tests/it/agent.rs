//! The agent face on the CLI: `outline` → `select` → `read`, every output within its budget
//! and every passage tagged with where it comes from.

use serde_json::Value;

use crate::support::{cleave, fixture, unit};

fn stdout(args: &[&str]) -> (String, i32) {
    let out = cleave().args(args).output().expect("run cleave");
    (String::from_utf8(out.stdout).expect("UTF-8"), out.status.code().unwrap_or(-1))
}

#[test]
fn select_stays_within_its_budget_in_every_unit() {
    let dir = fixture("mixed");
    let dir = dir.to_str().unwrap();
    for unit_name in ["chars", "tokens"] {
        for budget in [150, 400, 1000, 3000] {
            let b = budget.to_string();
            let (text, code) = stdout(&[
                "select",
                dir,
                "-q",
                "how does login check the password",
                "--budget",
                &b,
                "--unit",
                unit_name,
            ]);
            assert_eq!(code, 0);
            let size = unit(unit_name).sizer().size(&text);
            assert!(size <= budget, "{unit_name} {budget}: {size}\n{text}");
        }
    }
}

#[test]
fn select_finds_the_passage_and_tags_it() {
    let dir = fixture("mixed");
    let (text, code) =
        stdout(&["select", dir.to_str().unwrap(), "-q", "login password hash", "--budget", "1200"]);
    assert_eq!(code, 0);
    assert!(text.contains("def login"), "{text}");
    assert!(text.contains("[source:src/auth.py | L"), "code passages carry a line tag: {text}");
    let (json, _) = stdout(&[
        "select",
        dir.to_str().unwrap(),
        "-q",
        "install on linux with cargo",
        "--budget",
        "800",
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    let passages = doc["passages"].as_array().unwrap();
    assert!(!passages.is_empty());
    let first = &passages[0];
    assert_eq!(first["chunk"]["path"], "docs/guide.md");
    assert!(first["tag"].as_str().unwrap().starts_with("[source:docs/guide.md | ¶"), "{first}");
    // Passages come in reading order.
    let keys: Vec<(String, u64)> = passages
        .iter()
        .map(|p| {
            (
                p["chunk"]["path"].as_str().unwrap().to_owned(),
                p["chunk"]["byte_start"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn a_small_file_passes_through_whole() {
    let file = fixture("mixed/src/auth.py");
    let (text, code) =
        stdout(&["select", file.to_str().unwrap(), "-q", "anything at all", "--budget", "4000"]);
    assert_eq!(code, 0);
    let body = std::fs::read_to_string(&file).unwrap();
    let passed: String = text
        .lines()
        .filter(|l| !l.starts_with("=== ") && !l.starts_with("# "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(passed, body, "{text}");
}

#[test]
fn read_returns_chunks_by_id_and_names_the_rest() {
    let dir = fixture("mixed");
    let dir = dir.to_str().unwrap();
    let (json, _) = stdout(&["outline", dir, "--format", "json"]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    let ids: Vec<String> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["chunks"].as_array().unwrap().iter().map(|id| id.as_str().unwrap()[..10].to_owned())
        })
        .collect();
    assert!(ids.len() >= 3);
    let want = format!("{},{}", ids[1], ids[0]);
    let (text, code) = stdout(&["read", dir, "--ids", &want, "--budget", "20000"]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("=== ")).count(), 2, "{text}");
    let (text, code) = stdout(&["read", dir, "--ids", "ffffffffff", "--budget", "2000"]);
    assert_eq!(code, 1);
    assert!(text.contains("(not found: ffffffffff)"), "{text}");
    let (text, _) = stdout(&["read", dir, "--ids", &ids.join(","), "--budget", "300"]);
    assert!(text.contains("did not fit"), "{text}");
    assert!(text.chars().count() <= 300 + 200, "the list of what did not fit follows the passages");
}
