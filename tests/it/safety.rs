//! Issue 13, "Safe by construction": every defect found by trying cleave as a hostile user
//! would, rebuilt at run time and asserted. No large file is committed.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{by_path, cleave, parse_jsonl, run};

/// A small project: two code files, a document and a data file.
fn project() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("proj");
    fs::create_dir_all(root.join("src")).expect("mkdir");
    fs::write(
        root.join("src/main.py"),
        "def main():\n    return 1\n\n\ndef other():\n    return 2\n",
    )
    .expect("write");
    fs::write(root.join("src/lib.rs"), "/// Doc.\npub fn f() -> u8 {\n    1\n}\n").expect("write");
    fs::write(root.join("README.md"), "# Title\n\nSome text.\n").expect("write");
    (tmp, root)
}

/// Every file under `dir` with its bytes, for before/after comparisons.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if e.file_type().expect("type").is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

fn report(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).expect("report")).expect("report is JSON")
}

fn entry<'a>(report: &'a Value, path: &str) -> &'a Value {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("{path} missing from {report}"))
}

fn temporaries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .expect("read_dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".cleave-"))
        .collect()
}

#[test]
fn o_naming_the_input_file_is_refused_and_the_input_kept() {
    let (_tmp, root) = project();
    let input = root.join("src/main.py");
    let before = fs::read(&input).expect("read");
    let (_, err, code) = run(&[s(&input), "-o", s(&input)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is the input"), "{err}");
    assert_eq!(fs::read(&input).expect("read"), before);
    // A file under the walked root is an input too, for -o and for --report.
    for flag in ["-o", "--report"] {
        let (_, err, code) = run(&[s(&root), flag, s(&input)]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(err.contains("it is an input"), "{err}");
        assert_eq!(fs::read(&input).expect("read"), before);
    }
}

#[test]
fn outputs_under_the_root_are_allowed_and_never_chunked_again() {
    let (_tmp, root) = project();
    let jsonl = root.join("chunks.jsonl");
    let rep = root.join("report.json");
    let mut counts = Vec::new();
    for i in 0..3 {
        let (_, err, code) = run(&[s(&root), "-o", s(&jsonl), "--report", s(&rep), "-q"]);
        assert_eq!(code, 0, "{err}");
        counts.push(parse_jsonl(&fs::read(&jsonl).expect("output")).len());
        if i > 0 {
            // From the second run on, the outputs exist when the walk starts.
            for name in ["chunks.jsonl", "report.json"] {
                assert_eq!(entry(&report(&rep), name)["reason"], "output of cleave");
            }
        }
    }
    assert!(counts.windows(2).all(|w| w[0] == w[1]), "{counts:?}");
    let out = root.join("out");
    let mut files = Vec::new();
    for _ in 0..3 {
        let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
        assert_eq!(code, 0, "{err}");
        let manifest: Value =
            serde_json::from_slice(&fs::read(out.join("manifest.json")).expect("manifest"))
                .expect("JSON");
        files.push(manifest["chunks"].as_array().expect("chunks").len());
    }
    assert!(files.windows(2).all(|w| w[0] == w[1]), "{files:?}");
    assert!(temporaries(&root).is_empty(), "{:?}", temporaries(&root));
}

#[test]
fn out_that_is_or_holds_the_input_is_refused_even_with_force() {
    let (tmp, root) = project();
    let before = snapshot(tmp.path());
    for target in [root.clone(), tmp.path().to_owned(), root.join("..")] {
        for force in [false, true] {
            let mut args = vec![s(&root), "--out", s(&target), "-q"];
            if force {
                args.push("--force");
            }
            let (_, err, code) = run(&args);
            assert_eq!(code, 2, "{target:?} force {force}: {err}");
            assert!(err.contains("would delete the input"), "{err}");
            assert_eq!(snapshot(tmp.path()), before, "nothing changed");
        }
    }
    // `--out .` and `--out ..` from inside the input.
    for (cwd, target) in [(root.clone(), "."), (root.join("src"), "..")] {
        let out = cleave()
            .current_dir(&cwd)
            .args(["chunk", s(&root), "--out", target, "--force", "-q"])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(snapshot(tmp.path()), before);
    }
}

#[test]
fn a_folder_under_the_root_that_is_not_an_output_is_never_replaced() {
    let (_tmp, root) = project();
    let before = snapshot(&root);
    let (_, err, code) = run(&[s(&root), "--out", s(&root.join("src")), "--force", "-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("its files are inputs"), "{err}");
    assert_eq!(snapshot(&root), before);
}

#[test]
fn out_dot_inside_an_earlier_output_replaces_it_whole() {
    let (tmp, root) = project();
    let out = tmp.path().join("out");
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
    assert_eq!(code, 0, "{err}");
    fs::write(root.join("src/new.py"), "def new():\n    pass\n").expect("write");
    let res = cleave()
        .current_dir(&out)
        .args(["chunk", s(&root), "--out", ".", "-q"])
        .output()
        .expect("run");
    assert_eq!(res.status.code(), Some(0), "{}", String::from_utf8_lossy(&res.stderr));
    let manifest = fs::read_to_string(out.join("manifest.json")).expect("manifest");
    assert!(manifest.contains("src/new.py"), "the new output is in place");
    assert!(snapshot(&root).len() == 4, "the input is untouched");
    assert!(temporaries(tmp.path()).is_empty(), "{:?}", temporaries(tmp.path()));
}

#[test]
fn chunk_file_names_never_collide() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("in");
    let deep = "d".repeat(100);
    for (i, rel) in
        ["a b.py", "a_b.py", "a?b.py", &format!("x/{deep}/same.py"), &format!("y/{deep}/same.py")]
            .iter()
            .enumerate()
    {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(&path, format!("def f{i}():\n    return {i}\n")).expect("write");
    }
    let out = tmp.path().join("out");
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
    assert_eq!(code, 0, "{err}");
    let manifest: Value =
        serde_json::from_slice(&fs::read(out.join("manifest.json")).expect("manifest"))
            .expect("JSON");
    let chunks = manifest["chunks"].as_array().expect("chunks");
    assert_eq!(chunks.len(), 5);
    let mut names = std::collections::BTreeSet::new();
    for c in chunks {
        let file = c["file"].as_str().expect("file");
        assert!(names.insert(file.to_owned()), "{file} used twice");
        let body = fs::read_to_string(out.join(file)).expect("chunk file");
        let src = fs::read_to_string(root.join(c["path"].as_str().expect("path"))).expect("source");
        assert!(body.ends_with(&src), "{file} holds its own file's text");
    }
}

#[test]
fn stale_temporaries_of_dead_runs_are_removed() {
    let (tmp, root) = project();
    let out = tmp.path().join("out");
    // Process ids above the kernel's maximum belong to no process.
    let stale = tmp.path().join(".out.cleave-tmp-4999999");
    fs::create_dir_all(stale.join("chunks")).expect("mkdir");
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(!stale.exists());
    assert!(temporaries(tmp.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_leaves_a_whole_output_and_no_temporaries() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("in");
    for i in 0..1500 {
        let dir = root.join(format!("pkg{}", i % 30));
        fs::create_dir_all(&dir).expect("mkdir");
        let body: String =
            (0..40).map(|j| format!("def f{j}(x):\n    return x + {j}\n\n")).collect();
        fs::write(dir.join(format!("m{i}.py")), body).expect("write");
    }
    let out = tmp.path().join("out");
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
    assert_eq!(code, 0, "{err}");
    let old = fs::read(out.join("manifest.json")).expect("manifest");
    for delay_ms in [50u64, 300] {
        let bin = assert_cmd::cargo::cargo_bin("cleave");
        let mut child = Command::new(bin)
            .args(["chunk", s(&root), "--out", s(&out), "--budget", "300", "-q"])
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
        let status = child.wait().expect("wait");
        assert!(status.code() == Some(130) || status.success(), "{status:?}");
        assert!(temporaries(tmp.path()).is_empty(), "{:?}", temporaries(tmp.path()));
        let now = fs::read(out.join("manifest.json")).expect("a whole output is in place");
        assert!(now == old || serde_json::from_slice::<Value>(&now).is_ok());
    }
}

#[test]
fn o_into_a_full_device_fails_with_two_and_names_it() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let (_tmp, root) = project();
    let (_, err, code) = run(&[s(&root), "-o", "/dev/full", "-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/dev/full"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_closed_or_full_stderr_or_stdout_never_panics() {
    let (_tmp, root) = project();
    let bin = assert_cmd::cargo::cargo_bin("cleave");
    let b = bin.display();
    let r = root.display();
    for script in [
        format!("'{b}' chunk '{r}' 2>/dev/full >/dev/null; echo $?"),
        format!(
            "'{b}' chunk '{r}' --threads 3 2>&1 >/dev/null | head -c 0; echo ${{PIPESTATUS[0]}}"
        ),
        format!(
            "'{b}' dump-atoms '{r}/src/main.py' | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}"
        ),
        format!(
            "'{b}' chunk '{r}' -o '{r}/../x.jsonl' -q; '{b}' verify '{r}/../x.jsonl' --root '{r}' 2>/dev/null | head -c 0; echo ${{PIPESTATUS[0]}}"
        ),
    ] {
        let out = Command::new("bash").arg("-c").arg(&script).output().expect("bash");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let code: i32 = stdout.trim().lines().last().unwrap_or("").parse().unwrap_or(-1);
        assert_eq!(code, 0, "{script}: {stdout} {}", String::from_utf8_lossy(&out.stderr));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{script}");
    }
    let (_, err, code) = run(&[s(&root), "-o", "/dev/full", "-q"]);
    assert_eq!(code, 2, "{err}");
}

#[cfg(unix)]
#[test]
fn links_fifos_and_ignored_files_each_get_an_outcome() {
    let tmp = tempfile::tempdir().expect("temp dir");
    fs::write(tmp.path().join(".gitignore"), "proj/secret.txt\n").expect("write");
    let root = tmp.path().join("proj");
    fs::create_dir(&root).expect("mkdir");
    fs::write(root.join("a.txt"), "hello\n").expect("write");
    fs::write(root.join("secret.txt"), "ignored above the root\n").expect("write");
    fs::write(tmp.path().join("outside.txt"), "OUTSIDE CONTENT\n").expect("write");
    std::os::unix::fs::symlink(tmp.path().join("outside.txt"), root.join("link.txt"))
        .expect("link");
    std::os::unix::fs::symlink(root.join("a.txt"), root.join("inside.txt")).expect("link");
    std::os::unix::fs::symlink("/no/such/file", root.join("dangling.txt")).expect("link");
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.txt")).expect("link");
    let fifo = root.join("pipe.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let rep = tmp.path().join("report.json");
    for follow in [false, true] {
        let mut args = vec![s(&root), "--report", s(&rep), "-q"];
        if follow {
            args.push("--follow");
        }
        let (out, err, code) = run(&args);
        assert_eq!(code, 0, "{err}");
        let text = String::from_utf8_lossy(&out);
        assert!(!text.contains("OUTSIDE CONTENT"), "nothing outside the root is read");
        let report = report(&rep);
        let reason = |p: &str| entry(&report, p)["reason"].as_str().unwrap_or("").to_owned();
        assert!(reason("pipe.txt").starts_with("not a regular file (FIFO)"), "{report}");
        assert_eq!(reason("secret.txt"), "ignored by an ignore file");
        assert_eq!(entry(&report, "a.txt")["outcome"], "chunked");
        if follow {
            assert!(reason("link.txt").contains("outside the walked root"), "{report}");
            assert!(reason("zero.txt").contains("outside the walked root"), "{report}");
            assert_eq!(entry(&report, "inside.txt")["outcome"], "chunked");
            assert!(reason("dangling.txt").starts_with("symlink to nothing"), "{report}");
        } else {
            for p in ["link.txt", "inside.txt", "dangling.txt", "zero.txt"] {
                assert!(reason(p).starts_with("symlink"), "{p}: {report}");
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn a_path_that_is_no_file_or_folder_exits_with_two() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fifo = tmp.path().join("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    for path in ["/dev/null", s(&fifo)] {
        let (_, err, code) = run(&[path]);
        assert_eq!(code, 2, "{path}: {err}");
        assert!(err.contains("not a file or a folder"), "{err}");
    }
}

#[test]
fn threads_are_clamped_with_a_note() {
    let (_tmp, root) = project();
    let (out, err, code) = run(&[s(&root), "--threads", "100000"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("--threads 100000 is more than"), "{err}");
    assert_eq!(by_path(parse_jsonl(&out)).len(), 3);
}

#[test]
fn files_over_the_limit_are_skipped_without_being_read() {
    let (_tmp, root) = project();
    // A sparse file of 1 GiB: reading it would take a gigabyte of memory.
    let big = fs::File::create(root.join("big.txt")).expect("create");
    big.set_len(1 << 30).expect("set_len");
    let rep = root.join("report.json");
    let started = std::time::Instant::now();
    let (_, err, code) = run(&[s(&root), "--report", s(&rep), "-q"]);
    assert_eq!(code, 0, "{err}");
    let e = entry(&report(&rep), "big.txt").clone();
    assert!(e["reason"].as_str().unwrap_or("").starts_with("over the size limit"), "{e}");
    assert!(started.elapsed().as_secs() < 30);
}

#[cfg(target_os = "linux")]
#[test]
fn non_utf8_names_are_skipped_and_never_share_a_path() {
    use std::os::unix::ffi::OsStrExt;
    let (_tmp, root) = project();
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.py");
    fs::write(root.join(name), "def bad():\n    pass\n").expect("write");
    fs::write(root.join("bad\u{fffd}.py"), "def good():\n    pass\n").expect("write");
    let rep = root.join("report.json");
    let (out, err, code) = run(&[s(&root), "--report", s(&rep), "-q"]);
    assert_eq!(code, 0, "{err}");
    let chunks = by_path(parse_jsonl(&out));
    assert!(chunks["bad\u{fffd}.py"].iter().all(|c| c.text.contains("good")));
    let report = report(&rep);
    let bad: Vec<&Value> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter(|f| f["reason"] == "file name is not UTF-8")
        .collect();
    assert_eq!(bad.len(), 1, "{report}");
}

#[test]
fn verify_checks_completeness_and_confinement() {
    let (tmp, root) = project();
    let jsonl = tmp.path().join("c.jsonl");
    let (_, err, code) = run(&[s(&root), "-o", s(&jsonl), "-q"]);
    assert_eq!(code, 0, "{err}");
    let verify = |file: &Path| {
        let out = cleave().args(["verify", s(file), "--root", s(&root)]).output().expect("verify");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    assert_eq!(verify(&jsonl).0, Some(0));
    let text = fs::read_to_string(&jsonl).expect("read");
    // Every record of one file missing.
    let without: String = text
        .lines()
        .filter(|l| !l.contains("\"path\":\"src/lib.rs\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let edited = tmp.path().join("edited.jsonl");
    fs::write(&edited, without).expect("write");
    let (code, out) = verify(&edited);
    assert_eq!(code, Some(1));
    assert!(out.contains("src/lib.rs: no records"), "{out}");
    // An empty input.
    fs::write(&edited, "").expect("write");
    let (code, out) = verify(&edited);
    assert_eq!(code, Some(1));
    assert!(out.contains("no records at all"), "{out}");
    // A path that escapes the root is reported and not read.
    fs::write(tmp.path().join("secret.md"), "# secret\n").expect("write");
    let escaping = text.replacen("\"path\":\"README.md\"", "\"path\":\"../secret.md\"", 1);
    fs::write(&edited, escaping).expect("write");
    let (code, out) = verify(&edited);
    assert_eq!(code, Some(1));
    assert!(out.contains("../secret.md: not a file of the walk"), "{out}");
}

#[test]
fn utf16_files_are_decoded_and_verified() {
    let (tmp, root) = project();
    let mut bytes = vec![0xFF, 0xFE];
    for u in "def hello():\n    return 'é'\n".encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    fs::write(root.join("wide.py"), &bytes).expect("write");
    let jsonl = tmp.path().join("c.jsonl");
    let rep = tmp.path().join("r.json");
    let (_, err, code) = run(&[s(&root), "-o", s(&jsonl), "--report", s(&rep), "-q"]);
    assert_eq!(code, 0, "{err}");
    let chunks = by_path(parse_jsonl(&fs::read(&jsonl).expect("read")));
    let text: String = chunks["wide.py"].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(text, "def hello():\n    return 'é'\n");
    assert_eq!(entry(&report(&rep), "wide.py")["encoding"], "utf-16le");
    let out = cleave().args(["verify", s(&jsonl), "--root", s(&root)]).output().expect("verify");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_cache_reuses_what_did_not_change_and_never_trusts_a_broken_entry() {
    let (tmp, root) = project();
    let cache = root.join(".cache-dir");
    let fresh = |args: &[&str]| {
        let mut all = vec![s(&root), "-q"];
        all.extend_from_slice(args);
        let (out, err, code) = run(&all);
        assert_eq!(code, 0, "{err}");
        out
    };
    let plain = fresh(&[]);
    let cold = fresh(&["--cache", s(&cache)]);
    let warm = fresh(&["--cache", s(&cache)]);
    assert_eq!(cold, plain, "a cold cache changes nothing");
    assert_eq!(warm, plain, "a warm cache changes nothing");
    // An edited file is chunked again.
    fs::write(root.join("src/main.py"), "def main():\n    return 3\n").expect("write");
    assert_eq!(fresh(&["--cache", s(&cache)]), fresh(&[]));
    // A damaged entry is chunked again, not trusted.
    let mut objects = Vec::new();
    let mut stack = vec![cache.join("objects")];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read_dir").flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                objects.push(e.path());
            }
        }
    }
    assert!(!objects.is_empty());
    for o in &objects {
        let mut bytes = fs::read(o).expect("read");
        let last = bytes.len() - 3;
        bytes[last] ^= 0x20;
        fs::write(o, bytes).expect("write");
    }
    assert_eq!(fresh(&["--cache", s(&cache)]), fresh(&[]));
    // The cache is never walked as input, and a foreign folder is refused.
    let rep = tmp.path().join("r.json");
    fresh(&["--cache", s(&cache), "--hidden", "--report", s(&rep)]);
    assert_eq!(entry(&report(&rep), ".cache-dir")["reason"], "output of cleave");
    let foreign = tmp.path().join("foreign");
    fs::create_dir(&foreign).expect("mkdir");
    fs::write(foreign.join("keep.txt"), "mine").expect("write");
    let (_, err, code) = run(&[s(&root), "--cache", s(&foreign), "-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a cleave cache"), "{err}");
    assert_eq!(fs::read_to_string(foreign.join("keep.txt")).expect("read"), "mine");
    let (_, err, code) = run(&[s(&root), "--cache", s(tmp.path()), "-q"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn an_earlier_output_with_files_a_person_added_is_not_replaced() {
    let (tmp, root) = project();
    let out = tmp.path().join("out");
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
    assert_eq!(code, 0, "{err}");
    fs::write(out.join("my-notes.md"), "written by hand").expect("write");
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("my-notes.md"), "{err}");
    assert!(out.join("my-notes.md").exists());
    fs::remove_file(out.join("my-notes.md")).expect("rm");
    fs::write(out.join("chunks/extra.py"), "print(1)").expect("write");
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.join("chunks/extra.py").exists());
    // Outside the root, --force says the person agrees.
    let (_, err, code) = run(&[s(&root), "--out", s(&out), "--force", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.join("chunks/extra.py").exists());
}
