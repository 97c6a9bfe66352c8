//! `cleave outline`: what an agent reads first. Per file its language or document type, and
//! its symbols or numbered sections with lines and chunk ids; folders grouped by directory.
//! Built from the engine's per-file results, the same chunks `cleave chunk` writes.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Result;
use cleave_engine::{
    ChunkSizer, FileResult, LEFT_OUT_FIRST, Outcome, OutlineEntry, first_ranked, largest_fitting,
    ranked_entries, title_number,
};
use serde::Serialize;

use crate::args::{OutlineArgs, OutlineFormat, config};
use crate::term;

/// One file of the outline.
#[derive(Serialize)]
struct FileOutline {
    path: String,
    #[serde(flatten)]
    outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc_type_confidence: Option<f32>,
    bytes: u64,
    chunks: Vec<String>,
    entries: Vec<OutlineEntry>,
}

impl FileOutline {
    fn of(result: FileResult) -> Self {
        Self {
            chunks: result.chunks.iter().map(|c| c.id.clone()).collect(),
            path: result.rel,
            outcome: result.outcome,
            language: result.language,
            doc_type: result.doc_class.as_ref().map(|c| c.0.clone()),
            doc_type_confidence: result.doc_class.map(|c| c.1),
            bytes: result.bytes,
            entries: result.outline.unwrap_or_default(),
        }
    }
}

pub fn run(args: &OutlineArgs) -> Result<ExitCode> {
    let (results, errors) = crate::agent::results(&args.path, &args.chunking, None, true)?;
    let ranked = match (&args.format, args.budget) {
        (OutlineFormat::Text, Some(_)) => {
            let input: Vec<_> = results.iter().map(FileResult::rank_file).collect();
            ranked_entries(&input)
        }
        _ => Vec::new(),
    };
    let files: Vec<FileOutline> = results.into_iter().map(FileOutline::of).collect();
    let out = match args.format {
        OutlineFormat::Json => {
            // Serialized as it is, not through a `serde_json::Value`, which widens the f32
            // confidence to f64 digits (0.5299999713897705 for 0.53).
            #[derive(Serialize)]
            struct Outline<'a> {
                files: &'a [FileOutline],
            }
            let mut out = serde_json::to_vec(&Outline { files: &files })?;
            out.push(b'\n');
            out
        }
        OutlineFormat::Text => {
            let measure = config(
                args.budget.unwrap_or(1000).max(64),
                args.chunking.unit,
                &args.chunking.tokenizer,
            )?;
            let text = render_within(&files, &ranked, args.budget, measure.sizer());
            if let Some(budget) = args.budget
                && text.is_empty()
                && !files.is_empty()
            {
                anyhow::bail!(
                    "--budget {budget} is too small for the outline of even one file, or for \
                     the line saying what was left out: give a larger budget"
                );
            }
            text.into_bytes()
        }
    };
    term::stdout(&out)?;
    Ok(if errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The text outline within `budget`: every file with the most important entries that fit
/// (`ranked`, most important first, each after the entries enclosing it), saying what was
/// left out. While there are entries to show, files take at most three fifths of the budget,
/// the most important first (by their most important entry).
fn render_within(
    files: &[FileOutline],
    ranked: &[(usize, usize)],
    budget: Option<usize>,
    sizer: &dyn ChunkSizer,
) -> String {
    let display = display_order(files);
    let Some(budget) = budget else {
        let all: Vec<Vec<bool>> = files.iter().map(|f| vec![true; f.entries.len()]).collect();
        return render(files, &display, &all);
    };
    let by_importance = files_by_importance(files, ranked);
    let entries: Vec<usize> = files.iter().map(|f| f.entries.len()).collect();
    let fits = |text: &str, room: usize| sizer.size(text) <= room;
    let showing = |n: usize| {
        let mut on = vec![false; files.len()];
        for &f in &by_importance[..n] {
            on[f] = true;
        }
        on
    };
    // The first `n` files by importance with the first `k` ranked entries among them, and a
    // note that names what goes first (`long`) or only counts.
    let with_first = |n: usize, k: usize, long: bool| {
        let on = showing(n);
        let shown: Vec<usize> = display.iter().copied().filter(|&f| on[f]).collect();
        let keep = first_ranked(&entries, ranked, k, |f| on[f]);
        let mut text = render(files, &shown, &keep);
        let kept = k.min(ranked.iter().filter(|(f, _)| on[*f]).count());
        let (files_out, entries_out) = (files.len() - n, ranked.len() - kept);
        if files_out > 0 || entries_out > 0 {
            text.push_str(&note(files_out, files.len(), entries_out, ranked.len(), long));
        }
        text
    };
    // Each file and each entry adds a line, so the text grows with n and k; every (n, k) tried
    // is measured, and only one that fits is returned. Files take at most three fifths of the
    // budget while there are entries to show, then the entries of the files shown, then files
    // again if room is left.
    let all = files.len();
    let room = if ranked.is_empty() { budget } else { (budget / 5).saturating_mul(3) };
    let fit = |long: bool| -> Option<(usize, usize)> {
        let n = if fits(&with_first(all, 0, long), room) {
            all
        } else if fits(&with_first(0, 0, long), room) {
            largest_fitting(all, |n| fits(&with_first(n, 0, long), room))
        } else if fits(&with_first(0, 0, long), budget) {
            largest_fitting(all, |n| fits(&with_first(n, 0, long), budget))
        } else {
            return None;
        };
        let on = showing(n);
        let available = ranked.iter().filter(|(f, _)| on[*f]).count();
        let k = largest_fitting(available, |k| fits(&with_first(n, k, long), budget));
        let more = largest_fitting(all - n, |m| fits(&with_first(n + m, k, long), budget));
        Some((n + more, k))
    };
    // The long note only when it costs no file or entry the short one would show.
    match (fit(true), fit(false)) {
        (Some((n, k)), Some((short_n, short_k))) if n + k >= short_n + short_k => {
            with_first(n, k, true)
        }
        (_, Some((n, k))) => with_first(n, k, false),
        (Some((n, k)), None) => with_first(n, k, true),
        (None, None) => String::new(),
    }
}

/// The closing line of an outline that left something out: counts, and with `long` what goes
/// first and what shows the rest.
fn note(files_out: usize, files: usize, entries_out: usize, entries: usize, long: bool) -> String {
    let mut parts = Vec::new();
    if files_out > 0 {
        parts.push(format!("{files_out} of {files} files not listed"));
    }
    if entries_out > 0 {
        parts.push(format!("{entries_out} of {entries} entries left out"));
    }
    let counts = parts.join(" and ");
    if long {
        format!(
            "({counts}, the least important first ({LEFT_OUT_FIRST}); a narrower path, a larger --budget or --format json shows them)\n"
        )
    } else {
        format!("({counts})\n")
    }
}

/// Files by the rank of their most important entry; files without entries after them in
/// path order, skipped files last.
fn files_by_importance(files: &[FileOutline], ranked: &[(usize, usize)]) -> Vec<usize> {
    let mut first = vec![usize::MAX; files.len()];
    for (i, &(f, _)) in ranked.iter().enumerate() {
        first[f] = first[f].min(i);
    }
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&f| (matches!(files[f].outcome, Outcome::Skipped { .. }), first[f], f));
    order
}

/// File indices as the text shows them: grouped by folder (a folder's files together, then
/// its subfolders), by name within a folder.
fn display_order(files: &[FileOutline]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| split_path(&files[a].path).cmp(&split_path(&files[b].path)));
    order
}

fn split_path(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// The files `shown`, grouped by folder, with the entries `keep` marks. Three or more files
/// of a folder in a row skipped for one reason share a line.
fn render(files: &[FileOutline], shown: &[usize], keep: &[Vec<bool>]) -> String {
    let mut out = String::new();
    let mut folder = None;
    let mut i = 0;
    while i < shown.len() {
        let f = &files[shown[i]];
        let (dir, name) = split_path(&f.path);
        if folder != Some(dir) {
            if !dir.is_empty() {
                let _ = writeln!(out, "{dir}/");
            }
            folder = Some(dir);
        }
        let indent = if dir.is_empty() { "" } else { "  " };
        if let Outcome::Skipped { reason } = &f.outcome {
            let same = shown[i..]
                .iter()
                .map(|&j| &files[j])
                .take_while(|g| {
                    split_path(&g.path).0 == dir
                        && matches!(&g.outcome, Outcome::Skipped { reason: r } if r == reason)
                })
                .count();
            let run = if same >= 3 { same } else { 1 };
            let names: Vec<&str> =
                shown[i..i + run].iter().map(|&j| split_path(&files[j].path).1).collect();
            let _ = writeln!(out, "{indent}{} · skipped: {reason}", names.join(", "));
            i += run;
            continue;
        }
        i += 1;
        let _ = write!(out, "{indent}{name}");
        if let Outcome::Fallback { reason } = &f.outcome {
            let _ = write!(out, " · fallback: {reason}");
        }
        if let Some(lang) = &f.language {
            let _ = write!(out, " · {lang}");
        }
        if let (Some(t), Some(c)) = (&f.doc_type, f.doc_type_confidence) {
            let _ = write!(out, " · {t} ({c:.2})");
        }
        let n = f.chunks.len();
        let _ = writeln!(out, " · {n} chunk{}", if n == 1 { "" } else { "s" });
        let kept = keep.get(shown[i - 1]).map_or(&[][..], Vec::as_slice);
        for (e, _) in f.entries.iter().zip(kept).filter(|(_, k)| **k) {
            let pad = "  ".repeat(e.depth + 1);
            let label = clipped(&e.label, MAX_LABEL_CHARS);
            let title = match &e.number {
                Some(number) if !numbered(&label) => format!("{number} {label}"),
                _ => label.into_owned(),
            };
            // A decoded document is cited by page: its lines are those of its text view,
            // which the reader does not see.
            let place = e.pages().unwrap_or_else(|| {
                if e.line_start == e.line_end {
                    format!("L{}", e.line_start)
                } else {
                    format!("L{}-{}", e.line_start, e.line_end)
                }
            });
            let _ = writeln!(out, "{indent}{pad}{title}  {place}  @{}", short_ids(&e.chunks));
        }
    }
    out
}

/// Whether a section's title starts with a number of its own (`2 Contents`, `4.1 Setup`,
/// `A.2 Proofs`, `IV. Results`): the outline then shows the title alone, not the path cleave
/// counted beside it (`2 2 Contents`, or `2 1 Introduction` after an unnumbered preface).
fn numbered(title: &str) -> bool {
    title_number(title).is_some()
}

/// Chunk ids as the text shows them: 8 characters each (enough for `cleave read`), and past
/// four chunks the first two and how many more (`--format json` lists them all).
fn short_ids(ids: &[String]) -> String {
    let short = |id: &String| id[..id.len().min(8)].to_owned();
    if ids.len() <= 4 {
        return ids.iter().map(short).collect::<Vec<_>>().join(",");
    }
    format!("{},{},+{} more", short(&ids[0]), short(&ids[1]), ids.len() - 2)
}

/// Labels longer than this are cut (with `…`) in the text outline: a heading the extractor got
/// wrong can run to kilobytes. `--format json` keeps them whole.
const MAX_LABEL_CHARS: usize = 100;

fn clipped(label: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match label.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &label[..at]).into(),
        None => label.into(),
    }
}
