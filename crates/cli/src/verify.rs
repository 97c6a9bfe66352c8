//! `cleave verify`: the shared invariant checker over JSON Lines and the files on disk.
//!
//! It walks the root as `cleave chunk` did (same options), re-derives each file's text view
//! with the engine's own read and decode, and checks: every record's path names a file of
//! that walk (never `..`, an absolute path, or anything outside the root, which is not read),
//! every file with text has records, and each file's records pass `check_chunks` (slices,
//! tiling, budget, lines, ids).
//!
//! Given a folder written by `cleave chunk --out`, it reads the same records from its manifest
//! and chunk files (header and body of each), and checks as well that the text view written
//! beside a decoded file's chunks is the one it re-derives.
//!
//! Given a folder written by `cleave pack --out`, it checks the packs instead: every pack file
//! the manifest lists is within the budget (measured whole), every member's body in its pack
//! file is its file's slice, and the member bodies of each file, in pack order, tile it: every
//! byte of every input file in exactly one member body, in order.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use cleave_engine::{Chunk, Skip, Source, check_chunks, decode, read_input, walk};

use crate::args::VerifyArgs;
use crate::term;

/// Whether `chunk` and `pack` skip a file read as this (empty, too large, binary, not text, a
/// document that cannot be read or holds no text): such a file has no records, and that is
/// right. Both checks, of JSON Lines and chunk folders and of pack folders, ask this one.
fn skipped_by_chunk(skip: &Skip) -> bool {
    matches!(
        skip,
        Skip::Empty
            | Skip::TooLarge { .. }
            | Skip::Binary
            | Skip::NotUtf8 { .. }
            | Skip::BadUtf16 { .. }
            | Skip::Utf16NoBom
            | Skip::BadDocument(..)
            | Skip::NoText(_)
    )
}

/// Reads the records, groups them by path, and checks each file's chunks; prints one line per
/// violation and a summary. Exit code 1 when anything is wrong.
pub fn run(args: &VerifyArgs) -> Result<ExitCode> {
    let folder = args.jsonl.is_dir();
    let (records, views) = if folder {
        let manifest_path = args.jsonl.join("manifest.json");
        let bytes = std::fs::read(&manifest_path)
            .with_context(|| format!("{}: cannot read", manifest_path.display()))?;
        let manifest: serde_json::Value = serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not JSON", manifest_path.display()))?;
        if manifest.get("packs").is_some() {
            return run_packs(args);
        }
        folder_records(&args.jsonl, manifest).with_context(|| {
            format!("{}: not a chunk folder's manifest", manifest_path.display())
        })?
    } else {
        (jsonl_records(args)?, BTreeMap::new())
    };
    let config = args.size.config()?;
    let mut problems = Vec::new();
    let mut files: BTreeMap<String, Vec<Chunk>> = BTreeMap::new();
    let mut last_path = String::new();
    for record in records {
        let chunk = match record {
            Ok(chunk) => chunk,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        if chunk.path != last_path {
            if chunk.path < last_path || files.contains_key(&chunk.path) {
                problems.push(format!("{}: records out of path order", chunk.path));
            }
            last_path.clone_from(&chunk.path);
        }
        files.entry(chunk.path.clone()).or_default().push(chunk);
    }
    if files.is_empty() && !args.allow_empty {
        problems.push("no records at all (--allow-empty accepts that)".to_owned());
    }

    // The JSON Lines file or the output folder itself is no input, wherever it lies.
    let exclude = std::fs::canonicalize(&args.jsonl).into_iter().collect();
    let walked = walk(&args.root, &args.walk.options(1, exclude))
        .with_context(|| format!("{}", args.root.display()))?;
    let (mut n_chunks, mut n_bytes, mut crumbs) = (0usize, 0usize, 0usize);
    for input in walked.entries.iter().filter(|i| i.skip.is_none()) {
        let chunks = files.remove(&input.rel);
        let (verbatim, text) =
            match read_input(input, args.walk.max_file_size).and_then(|b| decode(&input.rel, b)) {
                Ok(decoded) => (decoded.is_verbatim(), decoded.text),
                Err(skip) if chunks.is_none() && skipped_by_chunk(&skip) => continue,
                Err(skip) => {
                    problems.push(format!("{}: cannot check: {skip}", input.rel));
                    continue;
                }
            };
        let Some(chunks) = chunks else {
            problems.push(format!(
                "{}: no records for a file of {} bytes of text",
                input.rel,
                text.len()
            ));
            continue;
        };
        match views.get(&input.rel) {
            Some(view) if read_inside(&args.jsonl, view).as_deref() != Some(text.as_bytes()) => {
                problems.push(format!("{}: its text view {view} is not the file's", input.rel));
            }
            None if folder && !verbatim => problems.push(format!(
                "{}: decoded, but the manifest names no text view for it",
                input.rel
            )),
            _ => {}
        }
        let source = Source::new(&input.rel, &text);
        problems.extend(
            check_chunks(&source, &chunks, &config)
                .into_iter()
                .map(|e| format!("{}: {e}", input.rel)),
        );
        n_chunks += chunks.len();
        n_bytes += text.len();
        crumbs += chunks.iter().filter(|c| c.tokens * 20 < config.budget()).count();
    }
    for path in files.keys() {
        problems.push(format!(
            "{path}: not a file of the walk under {} (not read)",
            args.root.display()
        ));
    }
    let mut out = String::new();
    for p in &problems {
        out.push_str(p);
        out.push('\n');
    }
    term::stdout(out.as_bytes())?;
    term::note(format_args!(
        "cleave verify: {} files, {n_chunks} chunks, {n_bytes} bytes: {} violations; {:.2} % of chunks under 5 % of the budget",
        walked.entries.iter().filter(|i| i.skip.is_none()).count(),
        problems.len(),
        if n_chunks == 0 { 0.0 } else { crumbs as f64 * 100.0 / n_chunks as f64 }
    ));
    Ok(if problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// A record, or what is wrong with the entry that should have been one.
type Record = Result<Chunk, String>;

/// The records of a JSON Lines file (or stdin), in order.
fn jsonl_records(args: &VerifyArgs) -> Result<Vec<Record>> {
    let reader: Box<dyn BufRead> = if args.jsonl == Path::new("-") {
        Box::new(BufReader::new(std::io::stdin()))
    } else {
        let file = std::fs::File::open(&args.jsonl)
            .with_context(|| format!("{}: cannot open", args.jsonl.display()))?;
        Box::new(BufReader::new(file))
    };
    let mut records = Vec::new();
    for (n, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{}: cannot read", args.jsonl.display()))?;
        let chunk: Chunk = serde_json::from_str(&line).with_context(|| {
            let hint = if n == 0 && line.trim_start().starts_with("{\"chunks\"") {
                " (verify reads JSON Lines, one record a line, or an --out folder; this looks \
                 like the one JSON document of --format json)"
            } else {
                ""
            };
            format!("line {}: not a chunk record{hint}", n + 1)
        })?;
        records.push(Ok(chunk));
    }
    Ok(records)
}

/// The records of a folder written by `cleave chunk --out`: each manifest entry with its
/// chunk file's text as header and body (the body is the file's last `byte_end - byte_start`
/// bytes; a format without comments keeps its header in the entry), and the text view file
/// of each decoded input.
fn folder_records(
    dir: &Path,
    mut manifest: serde_json::Value,
) -> Result<(Vec<Record>, BTreeMap<String, String>)> {
    let entries = match manifest.get_mut("chunks").map(serde_json::Value::take) {
        Some(serde_json::Value::Array(entries)) => entries,
        _ => anyhow::bail!("it lists no chunks"),
    };
    let mut records = Vec::with_capacity(entries.len());
    let mut views = BTreeMap::new();
    for mut entry in entries {
        let field = |entry: &serde_json::Value, name: &str| {
            entry.get(name).and_then(serde_json::Value::as_str).map(str::to_owned)
        };
        let (Some(file), Some(path)) = (field(&entry, "file"), field(&entry, "path")) else {
            records.push(Err("a manifest entry names no chunk file or path".to_owned()));
            continue;
        };
        if let Some(view) = field(&entry, "view") {
            match views.get(&path) {
                Some(named) if *named != view => records.push(Err(format!(
                    "{path}: its entries name two text views, {named} and {view}"
                ))),
                _ => {
                    views.insert(path.clone(), view);
                }
            }
        }
        let Some(bytes) = read_inside(dir, &file) else {
            records
                .push(Err(format!("{file}: chunk file missing, unreadable or outside the folder")));
            continue;
        };
        let range = |name: &str| entry.get(name).and_then(serde_json::Value::as_u64);
        let body_len = match (range("byte_start"), range("byte_end")) {
            (Some(start), Some(end)) if end >= start => (end - start) as usize,
            _ => {
                records.push(Err(format!("{file}: no byte range")));
                continue;
            }
        };
        let listed_header = field(&entry, "header");
        let cut = if listed_header.is_some() { 0 } else { bytes.len().saturating_sub(body_len) };
        let (Ok(header), Ok(text)) =
            (std::str::from_utf8(&bytes[..cut]), std::str::from_utf8(&bytes[cut..]))
        else {
            records.push(Err(format!("{file}: not UTF-8 where its header and body meet")));
            continue;
        };
        let header = listed_header.unwrap_or_else(|| header.to_owned());
        if let Some(fields) = entry.as_object_mut() {
            fields.insert("header".to_owned(), header.into());
            fields.insert("text".to_owned(), text.into());
        }
        records.push(
            serde_json::from_value::<Chunk>(entry)
                .map_err(|e| format!("{file}: its manifest entry is no chunk record: {e}")),
        );
    }
    Ok((records, views))
}

/// The bytes of the file `rel` names inside the folder `dir`: never a path that leaves it,
/// by `..`, an absolute path or a link.
fn read_inside(dir: &Path, rel: &str) -> Option<Vec<u8>> {
    let plain = Path::new(rel).components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain {
        return None;
    }
    let (dir, file) =
        (std::fs::canonicalize(dir).ok()?, std::fs::canonicalize(dir.join(rel)).ok()?);
    if !file.starts_with(&dir) {
        return None;
    }
    std::fs::read(file).ok()
}

/// The text view of every walked file, or the reason it has none, in path order.
type Texts = Vec<(String, Result<String, Skip>)>;

fn texts(args: &VerifyArgs, exclude: Vec<std::path::PathBuf>) -> Result<Texts> {
    let walked = walk(&args.root, &args.walk.options(1, exclude))
        .with_context(|| format!("{}", args.root.display()))?;
    Ok(walked
        .entries
        .iter()
        .filter(|i| i.skip.is_none())
        .map(|input| {
            let text = read_input(input, args.walk.max_file_size)
                .and_then(|b| decode(&input.rel, b))
                .map(|d| d.text);
            (input.rel.clone(), text)
        })
        .collect())
}

#[derive(serde::Deserialize)]
struct PackManifest {
    packs: Vec<ListedPack>,
}

#[derive(serde::Deserialize)]
struct ListedPack {
    file: String,
    members: Vec<ListedMember>,
}

#[derive(serde::Deserialize)]
struct ListedMember {
    id: String,
    path: String,
    byte_start: usize,
    byte_end: usize,
    body_start: usize,
}

/// `cleave verify DIR`: the checks of the module doc over a pack folder.
fn run_packs(args: &VerifyArgs) -> Result<ExitCode> {
    let config = args.size.config()?;
    let dir = &args.jsonl;
    let manifest_path = dir.join("manifest.json");
    let bytes = std::fs::read(&manifest_path)
        .with_context(|| format!("{}: cannot read", manifest_path.display()))?;
    let manifest: PackManifest = serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: not a pack manifest", manifest_path.display()))?;
    let mut problems = Vec::new();
    // Per input path: (byte_start, byte_end, pack file, body offset), in pack order.
    let mut members: BTreeMap<String, Vec<(usize, usize, usize, usize)>> = BTreeMap::new();
    let mut packs = Vec::with_capacity(manifest.packs.len());
    let mut ids = std::collections::HashSet::new();
    let mut over = 0;
    for (k, p) in manifest.packs.iter().enumerate() {
        let text = read_inside(dir, &p.file).and_then(|b| String::from_utf8(b).ok());
        let Some(text) = text else {
            problems
                .push(format!("{}: pack file missing, unreadable or outside the folder", p.file));
            packs.push(String::new());
            continue;
        };
        let size = config.sizer().size(&text);
        if size > config.budget() {
            over += 1;
            problems.push(format!(
                "{}: {size} units, over the budget of {}",
                p.file,
                config.budget()
            ));
        }
        for m in &p.members {
            if !ids.insert(m.id.as_str()) {
                problems.push(format!("{}: member id {} repeats", p.file, m.id));
            }
            members.entry(m.path.clone()).or_default().push((
                m.byte_start,
                m.byte_end,
                k,
                m.body_start,
            ));
        }
        packs.push(text);
    }
    let exclude = std::fs::canonicalize(dir).into_iter().collect();
    let texts = texts(args, exclude)?;
    let n_files = texts.len();
    let (mut n_bytes, mut n_members) = (0usize, 0usize);
    for (rel, text) in texts {
        let listed = members.remove(&rel);
        let text = match text {
            Ok(text) => text,
            Err(skip) if listed.is_none() && skipped_by_chunk(&skip) => continue,
            Err(skip) => {
                problems.push(format!("{rel}: cannot check: {skip}"));
                continue;
            }
        };
        let Some(listed) = listed else {
            problems.push(format!("{rel}: in no pack ({} bytes of text)", text.len()));
            continue;
        };
        n_members += listed.len();
        n_bytes += text.len();
        let mut at = 0;
        for (start, end, k, body) in listed {
            if start != at {
                problems.push(format!(
                    "{rel}: member {start}..{end} does not start where the one before ended ({at})"
                ));
            }
            let want = text.get(start..end);
            let got = packs[k].get(body..body + end.saturating_sub(start));
            if want.is_none() || want != got {
                problems.push(format!(
                    "{rel}: member {start}..{end} in {} is not the file's slice",
                    manifest.packs[k].file
                ));
            }
            at = end.max(at);
        }
        if at != text.len() {
            problems.push(format!("{rel}: members end at byte {at} of {}", text.len()));
        }
    }
    for path in members.keys() {
        problems.push(format!(
            "{path}: not a file of the walk under {} (not read)",
            args.root.display()
        ));
    }
    let mut out = String::new();
    for p in &problems {
        out.push_str(p);
        out.push('\n');
    }
    term::stdout(out.as_bytes())?;
    term::note(format_args!(
        "cleave verify: {n_files} files, {n_members} members in {} packs ({over} over the budget), {n_bytes} bytes: {} violations",
        manifest.packs.len(),
        problems.len(),
    ));
    Ok(if problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
