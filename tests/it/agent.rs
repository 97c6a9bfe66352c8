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
fn select_and_outline_say_why_they_show_nothing() {
    let dir = fixture("mixed");
    let dir = dir.to_str().expect("the fixture folder's path is UTF-8");
    // Chunks match, but none fits the budget with its tag.
    let (text, code) =
        stdout(&["select", dir, "-q", "install on linux with cargo", "--budget", "60"]);
    assert_eq!(code, 0);
    assert!(text.contains("chunks match the query, but none fits --budget 60"), "{text}");
    // An empty question is a usage error, as the MCP tool refuses it.
    assert_eq!(stdout(&["select", dir, "-q", "  "]).1, 2);
    // An outline budget too small for anything is an error, not an empty answer.
    let (text, code) = stdout(&["outline", dir, "--budget", "40"]);
    assert_eq!((text.as_str(), code), ("", 2));
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

/// Runs cleave with `args`: stdout, stderr and the exit code.
fn any(args: &[&str]) -> (Vec<u8>, String, i32) {
    let out = cleave().args(args).output().expect("run cleave");
    (out.stdout, String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code().unwrap_or(-1))
}

/// Copies a fixture folder into a fresh temporary folder (an index is written into it).
fn copy_fixture(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let copy = |from: &std::path::Path, to: &std::path::Path| {
        fn rec(from: &std::path::Path, to: &std::path::Path) {
            std::fs::create_dir_all(to).unwrap();
            for entry in std::fs::read_dir(from).unwrap() {
                let entry = entry.unwrap();
                let target = to.join(entry.file_name());
                if entry.file_type().unwrap().is_dir() {
                    rec(&entry.path(), &target);
                } else {
                    std::fs::copy(entry.path(), target).unwrap();
                }
            }
        }
        rec(from, to);
    };
    copy(&fixture(name), tmp.path());
    tmp
}

#[test]
fn an_index_serves_outline_select_and_read_as_chunking_would() {
    let tmp = copy_fixture("mixed");
    let dir = tmp.path().to_str().unwrap();
    let outputs = |args: &[&str]| -> Vec<(String, String)> {
        let mut out = Vec::new();
        for extra in [&["--no-index"][..], &[][..]] {
            let mut all: Vec<&str> = args.to_vec();
            all.extend_from_slice(extra);
            let o = cleave().args(&all).output().unwrap();
            assert_eq!(o.status.code(), Some(0), "{all:?}");
            out.push((String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap()));
        }
        out
    };
    let (_, err, code) = any(&["index", dir]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("chunked"), "{err}");
    assert!(tmp.path().join(".cleave-index/CLEAVE-CACHE").is_file());
    for args in [
        &["select", dir, "-q", "how does login check the password", "--budget", "2000"][..],
        &["select", dir, "-q", "install on linux with cargo", "--format", "json"][..],
        &["outline", dir, "--format", "json"][..],
    ] {
        let runs = outputs(args);
        assert_eq!(runs[0].0, runs[1].0, "{args:?}: the index gives what chunking gives");
        assert!(!runs[1].1.contains("chunking on the fly"), "{}", runs[1].1);
    }
    // An edit is seen: the stale index is said and not used.
    std::fs::write(
        tmp.path().join("src/auth.py"),
        "def login(user):\n    return user.password_ok\n",
    )
    .unwrap();
    let runs = outputs(&["select", dir, "-q", "login password", "--budget", "1600"]);
    assert_eq!(runs[0].0, runs[1].0);
    assert!(runs[1].1.contains("is stale (1 files changed"), "{}", runs[1].1);
    assert!(runs[1].0.contains("password_ok"), "{}", runs[1].0);
    // A re-index chunks the changed file only.
    let (_, err, code) = any(&["index", dir]);
    assert_eq!(code, 0);
    assert!(err.contains(" 1 chunked"), "{err}");
    let runs = outputs(&["select", dir, "-q", "login password", "--budget", "1600"]);
    assert_eq!(runs[0].0, runs[1].0);
    assert!(!runs[1].1.contains("chunking on the fly"), "{}", runs[1].1);
    // Other chunking options are another index; the index folder is never chunked.
    let runs = outputs(&["select", dir, "-q", "login", "--chunk-budget", "400"]);
    assert!(runs[1].1.contains("no index of this path for these chunking options"));
    let (out, _, _) = any(&["chunk", dir, "--hidden"]);
    assert!(!String::from_utf8(out).unwrap().contains(".cleave-index"));
    // An index that holds the input is refused.
    let (_, err, code) = any(&["index", &format!("{dir}/src"), "--index", dir]);
    assert_eq!(code, 2, "{err}");
}

/// A small package: one public class that other files use, private helpers, tests, and
/// images; written to a temporary folder.
fn package() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let write = |rel: &str, text: &str| {
        let path = tmp.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    let mut client = String::from("class Client:\n    \"\"\"Sends requests.\"\"\"\n\n");
    for i in 0..30 {
        client
            .push_str(&format!("    def _step_{i}(self, value):\n        return value + {i}\n\n"));
    }
    client.push_str("\ndef _private_helper(value):\n    return value\n");
    write("pkg/client.py", &client);
    for i in 0..6 {
        write(
            &format!("pkg/use_{i}.py"),
            &format!("from .client import Client\n\n\ndef _run_{i}():\n    return Client()\n"),
        );
        write(
            &format!("tests/test_{i}.py"),
            &format!("def test_case_{i}():\n    assert Client() is not None\n"),
        );
    }
    for name in ["a.png", "b.png", "c.png"] {
        write(&format!("docs/img/{name}"), "\u{0}\u{1}PNG");
    }
    write("docs/guide.md", "# Guide\n\nUse the client.\n");
    tmp
}

#[test]
fn a_budgeted_outline_keeps_the_public_entries_other_files_use() {
    let tmp = package();
    let dir = tmp.path().to_str().expect("UTF-8 path");
    let (all, code) = stdout(&["outline", dir]);
    assert_eq!(code, 0);
    assert!(all.contains("def _step_29") && all.contains("def test_case_5"), "{all}");
    // A folder's files come together under one heading; skipped files of one folder and one
    // reason share a line.
    assert_eq!(all.matches("\npkg/\n").count(), 1, "{all}");
    assert!(all.contains("a.png, b.png, c.png · skipped:"), "{all}");
    for budget in [500, 700, 1000, 1500] {
        let (text, code) = stdout(&["outline", dir, "--budget", &budget.to_string()]);
        assert_eq!(code, 0);
        assert!(text.chars().count() <= budget, "{budget}: {}\n{text}", text.chars().count());
        // The class every other file names is kept before anything else, and the note says
        // what went.
        assert!(text.contains("class Client  L1-"), "{budget}:\n{text}");
        assert!(text.contains("entries left out"), "{text}");

        // The package's own functions go after the tests' functions do.
        if text.contains("def test_case_") {
            assert!((0..6).all(|i| text.contains(&format!("def _run_{i} "))), "{text}");
        }
        // A method is shown only under its class.
        if text.contains("def _step_") {
            let class = text.find("class Client").expect("class");
            assert!(text.find("def _step_").expect("method") > class, "{text}");
        }
        assert_eq!(text.matches("\npkg/\n").count(), usize::from(text.contains("\npkg/\n")));
    }
    // At the smallest budget the tests' files are the ones not listed.
    let (small, _) = stdout(&["outline", dir, "--budget", "500"]);
    assert!(small.contains("files not listed") && !small.contains("test_0.py"), "{small}");
}

#[test]
fn a_small_budget_still_lists_what_fits_and_more_budget_never_shows_less() {
    let tmp = package();
    let dir = tmp.path().to_str().expect("UTF-8 path");
    let mut last = 0;
    for budget in (100..=900).step_by(20) {
        let (text, code) = stdout(&["outline", dir, "--budget", &budget.to_string()]);
        assert_eq!(code, 0);
        assert!(text.chars().count() <= budget, "{budget}: {}\n{text}", text.chars().count());
        // Files and entries, not a note alone.
        let listed = text.lines().filter(|l| l.contains(" · ") || l.contains("  @")).count();
        assert!(listed > 0, "{budget}: nothing listed\n{text}");
        assert!(listed >= last, "{budget}: {listed} lines after {last}\n{text}");
        last = listed;
    }
}
