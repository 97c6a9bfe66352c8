//! `cleave pack`: packs lossless over the set, each within its budget, the same at any thread
//! count, import cycles packed together, no tiny trailing pack; `cleave verify` on pack folders.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::{cleave, fixture, unit};

/// Runs `cleave pack PATH --out OUT` with `extra` arguments; returns stderr and the exit code.
fn pack(path: &Path, out: &Path, extra: &[&str]) -> (String, i32) {
    let res = cleave()
        .arg("pack")
        .arg(path)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("run cleave pack");
    (String::from_utf8_lossy(&res.stderr).into_owned(), res.status.code().unwrap_or(-1))
}

/// Runs `cleave verify OUT --root ROOT` with `extra` arguments.
fn verify(out: &Path, root: &Path, extra: &[&str]) -> std::process::Output {
    cleave()
        .arg("verify")
        .arg(out)
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .expect("run cleave verify")
}

/// The text view of an input file, which records' byte ranges index: the file itself, or the
/// decoded text of a document (an `.html` page), as `cleave extract` prints it.
fn text_view(path: &Path) -> String {
    let res = cleave().arg("extract").arg(path).output().expect("run cleave extract");
    assert!(res.status.success(), "cleave extract {}", path.display());
    String::from_utf8(res.stdout).expect("a UTF-8 text view")
}

fn manifest(out: &Path) -> Value {
    let text = fs::read_to_string(out.join("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest parses")
}

fn packs(m: &Value) -> &Vec<Value> {
    m["packs"].as_array().expect("packs")
}

/// Which packs (1-based) hold members of `path`.
fn packs_of(m: &Value, path: &str) -> Vec<u64> {
    packs(m)
        .iter()
        .filter(|p| p["members"].as_array().expect("members").iter().any(|x| x["path"] == path))
        .map(|p| p["pack"].as_u64().expect("pack number"))
        .collect()
}

/// Checks, independently of `cleave verify`: every pack file within the budget, every member
/// body its file's slice, and each file's bodies in pack order giving the file back.
fn check_packs(root: &Path, out: &Path, budget: usize, unit_name: &str) {
    let m = manifest(out);
    let sizer = unit(unit_name).sizer();
    let mut rebuilt: BTreeMap<String, String> = BTreeMap::new();
    for p in packs(&m) {
        let file = p["file"].as_str().expect("file");
        let text = fs::read_to_string(out.join(file)).expect("pack file");
        let size = sizer.size(&text);
        assert!(size <= budget, "{file}: {size} > {budget}");
        assert_eq!(p["size"].as_u64(), Some(size as u64), "{file}: recorded size");
        assert!(text.starts_with(p["frame"].as_str().expect("frame")));
        for member in p["members"].as_array().expect("members") {
            let (start, end) = (
                member["body_start"].as_u64().unwrap() as usize,
                member["body_end"].as_u64().unwrap() as usize,
            );
            let body = &text[start..end];
            let path = member["path"].as_str().expect("path");
            let (from, to) = (
                member["byte_start"].as_u64().unwrap() as usize,
                member["byte_end"].as_u64().unwrap() as usize,
            );
            let whole = rebuilt.entry(path.to_owned()).or_default();
            assert_eq!(whole.len(), from, "{path}: members out of order or with a gap");
            assert_eq!(to - from, body.len());
            whole.push_str(body);
        }
    }
    for (path, text) in &rebuilt {
        assert_eq!(&text_view(&root.join(path)), text, "{path}: not given back whole");
    }
    let files: Vec<&Value> = m["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter(|f| f["outcome"] != "skipped")
        .collect();
    assert_eq!(files.len(), rebuilt.len(), "every chunked file is in some pack");
}

#[test]
fn packs_are_lossless_and_within_budget_and_verify_agrees() {
    let dir = tempfile::tempdir().expect("temp");
    for root in [fixture("code"), fixture("mixed")] {
        for (budget, unit_name) in [(2000, "chars"), (8000, "chars"), (1000, "tokens")] {
            let out = dir.path().join(format!("out-{budget}-{unit_name}"));
            let b = budget.to_string();
            let (err, code) = pack(&root, &out, &["--budget", &b, "--unit", unit_name]);
            assert_eq!(code, 0, "{err}");
            check_packs(&root, &out, budget, unit_name);
            let res = verify(&out, &root, &["--budget", &b, "--unit", unit_name]);
            assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stdout));
        }
    }
}

#[test]
fn verify_accepts_packs_of_a_root_whose_unreadable_documents_were_skipped() {
    // An image-only and an encrypted PDF are skipped by `pack` as by `chunk`: no member, and
    // that is right (verify called it a violation for packs, not for chunk output).
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("in");
    fs::create_dir(&root).expect("mkdir");
    fs::write(root.join("a.py"), "x = 1\n").expect("write");
    for name in ["image-only.pdf", "encrypted.pdf"] {
        fs::copy(fixture("broken-documents").join(name), root.join(name)).expect("copy");
    }
    let out = dir.path().join("packs");
    assert_eq!(pack(&root, &out, &["--budget", "8000"]).1, 0);
    let res = verify(&out, &root, &["--budget", "8000"]);
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stdout));
}

#[test]
fn verify_finds_a_changed_pack_and_a_lower_budget() {
    let dir = tempfile::tempdir().expect("temp");
    let (root, out) = (fixture("code"), dir.path().join("out"));
    assert_eq!(pack(&root, &out, &["--budget", "3000"]).1, 0);
    let at_budget = |budget: &str| verify(&out, &root, &["--budget", budget]);
    assert!(at_budget("3000").status.success());
    // A budget below the largest pack: that pack is over it.
    let res = at_budget("600");
    assert_eq!(res.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&res.stdout).contains("over the budget"));
    // One byte of one body changed: that member is no longer its file's slice.
    let m = manifest(&out);
    let first = &packs(&m)[0];
    let file = out.join(first["file"].as_str().unwrap());
    let at = first["members"][0]["body_start"].as_u64().unwrap() as usize;
    let mut bytes = fs::read(&file).unwrap();
    bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
    fs::write(&file, bytes).unwrap();
    let res = at_budget("3000");
    assert_eq!(res.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&res.stdout).contains("is not the file's slice"));
}

#[test]
fn packs_are_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().expect("temp");
    let root = fixture("mixed");
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("t{threads}"));
        assert_eq!(pack(&root, &out, &["--budget", "1500", "--threads", threads]).1, 0);
        let mut files = BTreeMap::new();
        for e in fs::read_dir(out.join("packs")).unwrap().flatten() {
            files.insert(e.file_name(), fs::read(e.path()).unwrap());
        }
        outputs.push((fs::read(out.join("manifest.json")).unwrap(), files));
    }
    assert!(outputs[0] == outputs[1], "pack output differs between 1 and 2 threads");
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn filler(name: &str, lines: usize) -> String {
    (0..lines).map(|i| format!("def {name}_{i}(x):\n    return x + {i}\n\n\n")).collect()
}

#[test]
fn an_import_cycle_is_packed_together() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("src");
    // a and z import each other; in path order 40 modules stand between them, two to a pack
    // with no room for a or z beside them: a and z together cost no extra pack (at 14 lines a
    // module would take over half a pack, and a and z beside two of them the fewest packs).
    let body = "\n\n".to_owned() + &filler("helper", 8);
    write(&root, "app/a.py", &format!("from app.z import Z\n\n\nclass A:\n    pass\n{body}"));
    for k in 0..40 {
        write(&root, &format!("app/f{k:02}.py"), &filler(&format!("f{k:02}"), 12));
    }
    write(&root, "app/z.py", &format!("from app.a import A\n\n\nclass Z(A):\n    pass\n{body}"));
    let out = dir.path().join("out");
    for order in ["imports", "directory"] {
        let (err, code) = pack(&root, &out, &["--budget", "1000", "--order", order, "--force"]);
        assert_eq!(code, 0, "{err}");
        check_packs(&root, &out, 1000, "chars");
        let m = manifest(&out);
        let (a, z) = (packs_of(&m, "app/a.py"), packs_of(&m, "app/z.py"));
        if order == "imports" {
            assert_eq!(a, z, "a cycle is one group, in one pack");
            assert_eq!(m["stats"]["largest_cycle"], 2);
            assert_eq!(m["stats"]["import_locality"], 1.0);
        } else {
            assert_ne!(a, z, "path order puts the large modules between them");
        }
    }
}

#[test]
fn frames_name_the_packs_that_define_what_a_pack_imports() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("src");
    write(&root, "lib/base.py", &format!("class Base:\n    pass\n\n\n{}", filler("base", 80)));
    write(&root, "lib/user.py", &format!("from lib.base import Base\n\n\n{}", filler("user", 80)));
    let out = dir.path().join("out");
    assert_eq!(pack(&root, &out, &["--budget", "4000"]).1, 0);
    let m = manifest(&out);
    let (base, user) = (packs_of(&m, "lib/base.py"), packs_of(&m, "lib/user.py"));
    assert!(base.iter().all(|b| user.iter().all(|u| b < u)), "dependencies come first");
    let first_user = user[0] as usize;
    let p = &packs(&m)[first_user - 1];
    assert_eq!(p["needs"][0]["pack"], base[0]);
    assert_eq!(p["needs"][0]["files"][0], "lib/base.py");
    let frame = p["frame"].as_str().unwrap();
    assert!(frame.starts_with(&format!("[cleave pack {first_user} of ")), "{frame}");
    assert!(frame.contains(&format!("needs: pack {} (lib/base.py)", base[0])), "{frame}");
    let base_frame = packs(&m)[base[0] as usize - 1]["frame"].as_str().unwrap();
    assert!(base_frame.contains("defines: Base"), "{base_frame}");
    assert!(base_frame.contains(&format!("used by: pack {first_user}")), "{base_frame}");
}

#[test]
fn a_tiny_file_is_not_left_as_a_trailing_crumb() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("src");
    // a and b fill one pack; c alone after them would be a crumb of a pack.
    write(&root, "a.txt", &"alpha words here\n".repeat(31));
    write(&root, "b.txt", &"beta words here.\n".repeat(23));
    // 8 units of header and 40 of body: under 5 % of the budget, and a + b + c is over the
    // room a pack leaves beside its frame (975).
    write(
        &root,
        "c.txt",
        &format!("{}\n", "gamma ".repeat(7).trim_end().chars().take(39).collect::<String>()),
    );
    let out = dir.path().join("out");
    assert_eq!(pack(&root, &out, &["--budget", "1000"]).1, 0);
    check_packs(&root, &out, 1000, "chars");
    let m = manifest(&out);
    assert_eq!(packs(&m).len(), 2);
    assert_eq!(m["stats"]["crumbs"], 0);
    assert_eq!(packs_of(&m, "c.txt"), packs_of(&m, "b.txt"));
    assert_ne!(packs_of(&m, "a.txt"), packs_of(&m, "b.txt"));
}

#[test]
fn packs_as_json_lines_on_stdout() {
    let root = fixture("code");
    let res = cleave()
        .args(["pack", root.to_str().unwrap(), "--budget", "4000", "-q"])
        .output()
        .expect("run");
    assert!(res.status.success());
    let text = String::from_utf8(res.stdout).expect("UTF-8");
    let records: Vec<Value> =
        text.lines().map(|l| serde_json::from_str(l).expect("record")).collect();
    assert!(!records.is_empty());
    for (k, r) in records.iter().enumerate() {
        assert_eq!(r["pack"], k + 1);
        let body = r["text"].as_str().unwrap();
        assert!(body.chars().count() <= 4000);
        assert!(body.starts_with(r["frame"].as_str().unwrap()));
        for member in r["members"].as_array().unwrap() {
            let path = root.join(member["path"].as_str().unwrap());
            let file = text_view(&path);
            let (s, e) = (
                member["byte_start"].as_u64().unwrap() as usize,
                member["byte_end"].as_u64().unwrap() as usize,
            );
            let (bs, be) = (
                member["body_start"].as_u64().unwrap() as usize,
                member["body_end"].as_u64().unwrap() as usize,
            );
            assert_eq!(&body[bs..be], &file[s..e]);
        }
    }
}

#[test]
fn pack_output_is_guarded_like_chunk_output() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("src");
    write(&root, "a.py", "x = 1\n");
    // Into the input itself: refused, nothing written.
    let (err, code) = pack(&root, &root, &[]);
    assert_eq!(code, 2, "{err}");
    // A folder of someone's files: refused without --force.
    let other = dir.path().join("other");
    write(&other, "keep.txt", "mine\n");
    let (err, code) = pack(&root, &other, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(other.join("keep.txt").exists());
    // An earlier pack output is replaced without --force.
    let out = dir.path().join("out");
    assert_eq!(pack(&root, &out, &[]).1, 0);
    assert_eq!(pack(&root, &out, &["--budget", "3000"]).1, 0);
    assert!(out.join("packs/0001.txt").exists());
}

#[test]
fn packs_are_as_few_as_the_bin_packing_bound_when_path_order_needs_more() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("src");
    // Members of 528, 478, 388, 298 and 148 chars (header included) and a room of 940 beside
    // the frame: {a, c} and {b, d, e} fit, but in path order a and b fit no pack together
    // and the cutting needs three.
    for (name, size) in [("a", 520), ("b", 470), ("c", 380), ("d", 290), ("e", 140)] {
        let line: String = "word ".repeat(200).chars().take(size - 1).collect();
        write(&root, &format!("{name}.txt"), &format!("{line}\n"));
    }
    let out = dir.path().join("out");
    assert_eq!(pack(&root, &out, &["--budget", "1000", "--baseline"]).1, 0);
    check_packs(&root, &out, 1000, "chars");
    let m = manifest(&out);
    assert_eq!(packs(&m).len(), 2);
    assert_eq!(m["stats"]["lower_bound_l2"], 2);
    assert_eq!(m["stats"]["lower_bound_l2_room"], 2);
    assert_eq!(m["stats"]["directory_order"]["packs"], 3);
    assert_eq!(packs_of(&m, "a.txt"), packs_of(&m, "c.txt"));
    assert_eq!(packs_of(&m, "b.txt"), packs_of(&m, "e.txt"));
}

#[test]
fn a_file_and_its_import_share_a_pack_when_they_fit() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("src");
    // app/main.py imports lib/zed.py; in path order the other modules stand between them and
    // fill packs of their own.
    write(&root, "app/main.py", &format!("from lib.zed import run\n\n\n{}", filler("main", 6)));
    for k in 0..6 {
        write(&root, &format!("app/mod{k}.py"), &filler(&format!("m{k}"), 14));
    }
    write(&root, "lib/zed.py", &format!("def run():\n    pass\n\n\n{}", filler("zed", 6)));
    let out = dir.path().join("out");
    assert_eq!(pack(&root, &out, &["--budget", "1000", "--baseline"]).1, 0);
    check_packs(&root, &out, 1000, "chars");
    let m = manifest(&out);
    assert_eq!(packs_of(&m, "app/main.py"), packs_of(&m, "lib/zed.py"));
    assert_eq!(m["stats"]["import_locality"], 1.0);
    assert_eq!(m["stats"]["directory_order"]["import_locality"], 0.0);
    assert!(packs(&m).len() as u64 <= m["stats"]["directory_order"]["packs"].as_u64().unwrap());
}

/// Members are the records `cleave chunk --budget MEMBER_BUDGET --cuts fill` writes (the
/// manifest says which), the same ids; a file of several chunks has as many as
/// `cleave chunk` gives it by default, but cut so that all of them but one are full.
#[test]
fn members_are_the_records_of_chunk_with_fill_cuts() {
    let dir = tempfile::tempdir().expect("temp");
    let root = fixture("code");
    let out = dir.path().join("out");
    let (err, code) = pack(&root, &out, &["--budget", "1000", "--unit", "chars"]);
    assert_eq!(code, 0, "{err}");
    let m = manifest(&out);
    assert_eq!(m["run"]["member_cuts"], "fill");
    let member_budget = m["run"]["member_budget"].as_u64().expect("member budget").to_string();
    let records = |cuts: &str| -> Vec<Value> {
        let (stdout, err, code) = crate::support::run(&[
            root.to_str().unwrap(),
            "--budget",
            &member_budget,
            "--cuts",
            cuts,
        ]);
        assert_eq!(code, 0, "{err}");
        let text = String::from_utf8(stdout).expect("UTF-8");
        text.lines().map(|l| serde_json::from_str(l).expect("record")).collect()
    };
    let fill = records("fill");
    let mut ids: Vec<&str> = fill.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let mut members: Vec<&str> = packs(&m)
        .iter()
        .flat_map(|p| p["members"].as_array().unwrap())
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    members.sort_unstable();
    assert_eq!(ids, members);
    // Same count per file as balanced cuts, and some file is cut elsewhere.
    let balanced = records("balanced");
    let per_file = |rs: &[Value]| -> BTreeMap<String, usize> {
        let mut n = BTreeMap::new();
        for r in rs {
            *n.entry(r["path"].as_str().unwrap().to_owned()).or_default() += 1;
        }
        n
    };
    assert_eq!(per_file(&fill), per_file(&balanced));
    let cuts = |rs: &[Value]| -> Vec<(String, u64)> {
        rs.iter()
            .map(|r| (r["path"].as_str().unwrap().to_owned(), r["byte_end"].as_u64().unwrap()))
            .collect()
    };
    assert_ne!(cuts(&fill), cuts(&balanced), "no file cut differently");
}

fn c_filler(name: &str, functions: usize) -> String {
    (0..functions)
        .map(|i| format!("int {name}_{i}(int x)\n{{\n    return x + {i};\n}}\n\n"))
        .collect()
}

#[test]
fn a_c_file_and_its_local_header_share_a_pack() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("src");
    // app.c includes z.h; in path order 30 files stand between them, two to a pack with no
    // room beside them. The include puts the header next to the file that includes it.
    write(
        &root,
        "lib/app.c",
        &format!("#include <stdio.h>\n#include \"z.h\"\n\n{}", c_filler("app", 6)),
    );
    for k in 0..30 {
        write(&root, &format!("lib/m{k:02}.c"), &c_filler(&format!("m{k:02}"), 9));
    }
    write(
        &root,
        "lib/z.h",
        "#ifndef Z_H\n#define Z_H\n\nint z(int x);\nint zz(int x);\n\n#endif\n",
    );
    let out = dir.path().join("out");
    for order in ["imports", "directory"] {
        let (err, code) = pack(&root, &out, &["--budget", "1000", "--order", order, "--force"]);
        assert_eq!(code, 0, "{err}");
        check_packs(&root, &out, 1000, "chars");
        let m = manifest(&out);
        let (c, h) = (packs_of(&m, "lib/app.c"), packs_of(&m, "lib/z.h"));
        // `<stdio.h>` is not in the run: one import resolves.
        assert_eq!(m["stats"]["resolved_imports"], 1);
        if order == "imports" {
            assert_eq!(c, h, "the header packs with the file that includes it");
            assert_eq!(m["stats"]["import_locality"], 1.0);
        } else {
            assert_ne!(c, h, "path order puts the other files between them");
            assert_eq!(m["stats"]["import_locality"], 0.0);
        }
    }
}

#[test]
fn linked_markdown_pages_share_a_pack() {
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path().join("docs");
    let sections = |title: &str, n: usize| -> String {
        (0..n)
            .map(|i| {
                format!("## {title} {i}\n\nSome words about {title} number {i}, in a line.\n\n")
            })
            .collect()
    };
    // guide/intro.md and reference/setup.md link each other (besides an anchor of the page
    // and a web address, which name no file); in path order the manual's pages come between.
    write(
        &root,
        "guide/intro.md",
        &format!(
            "# Intro\n\nStart with [setup](../reference/setup.md#install), see [above](#intro) \
             or [the site](https://example.com/setup.md).\n\n{}",
            sections("intro", 3)
        ),
    );
    for k in 0..20 {
        write(
            &root,
            &format!("manual/p{k:02}.md"),
            &format!("# Page {k}\n\n{}", sections("api", 6)),
        );
    }
    write(
        &root,
        "reference/setup.md",
        &format!("# Setup\n\nBack to [the intro](../guide/intro.md).\n\n{}", sections("step", 2)),
    );
    let out = dir.path().join("out");
    for order in ["imports", "directory"] {
        let (err, code) = pack(&root, &out, &["--budget", "1000", "--order", order, "--force"]);
        assert_eq!(code, 0, "{err}");
        check_packs(&root, &out, 1000, "chars");
        let m = manifest(&out);
        let (intro, setup) = (packs_of(&m, "guide/intro.md"), packs_of(&m, "reference/setup.md"));
        assert_eq!(m["stats"]["resolved_imports"], 2);
        if order == "imports" {
            assert_eq!(intro, setup, "a page and the page it links share a pack");
            assert_eq!(m["stats"]["largest_cycle"], 2, "linked both ways: one group");
        } else {
            assert_ne!(intro, setup, "path order puts the manual between them");
        }
    }
}
