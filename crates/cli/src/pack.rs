//! `cleave pack`: the run's per-file chunks (at the member budget) gathered into packs by the
//! engine's `pack`, written as `packs/NNNN.txt` with a `manifest.json` into a folder built
//! aside and swapped into place, or as one JSON record per pack on stdout.
//!
//! The output is checked against the input before anything is created (`guard`), exactly as
//! for `cleave chunk --out`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use cleave_engine::{
    Chunk, Cuts, FileEntry, FileResult, Outcome, Pack, PackOrder, PackStats, Packing, Part,
    Settings, Summary, chunk_entries, member_budget, member_config, pack, walk,
};
use serde::Serialize;

use crate::args::{PackArgs, PackOrderArg, config};
use crate::atomic::{StagedDir, ensure_dir_target, remove_temporaries_on_signal};
use crate::guard::{self, GENERATOR, Output, Root};
use crate::printer::{Stream, write_new};
use crate::term;

pub fn run(args: &PackArgs) -> Result<ExitCode> {
    remove_temporaries_on_signal();
    let started = Instant::now();
    let pack_config = config(args.budget, args.unit, &args.tokenizer)?;
    let member_config = member_config(&pack_config)
        .with_context(|| format!("--budget {}: too small for a pack with a frame", args.budget))?;
    let settings = Settings::new(member_config).with_max_file_size(args.walk.max_file_size);
    let threads = crate::chunk::threads(args.threads);

    let root = Root::new(&args.path)?;
    let out_dir = args.out.as_deref().map(Output::dir).transpose()?;
    guard::check(&root, &[], out_dir.as_ref(), args.force)?;
    if let Some(dir) = &out_dir {
        ensure_dir_target(&dir.resolved)?;
    }
    let exclude = out_dir.iter().map(|o| o.resolved.clone()).collect();
    let walked = walk(&args.path, &args.walk.options(threads, exclude))
        .with_context(|| format!("{}", args.path.display()))?;
    let pool = cleave_engine::worker_pool(threads).context("cannot start worker threads")?;
    let mut results = Vec::with_capacity(walked.entries.len());
    let mut summary = Summary { threads, ..Summary::default() };
    let res: Result<(), std::convert::Infallible> = chunk_entries(
        &pool,
        &walked.entries,
        &settings,
        |r| r,
        |r| {
            if let Outcome::Skipped { reason } = &r.outcome
                && reason.is_error()
            {
                term::warn(format_args!("{}: {reason}", r.rel));
            }
            summary.add(&FileEntry::of(&r));
            results.push(r);
            Ok(())
        },
    );
    if let Err(never) = res {
        match never {}
    }
    let order = match args.order {
        PackOrderArg::Imports => PackOrder::Imports,
        PackOrderArg::Directory => PackOrder::Directory,
    };
    let packing = pool.install(|| pack(&results, &pack_config, order));
    let baseline = args
        .baseline
        .then(|| pool.install(|| pack(&results, &pack_config, PackOrder::Directory)).stats);
    summary.seconds = (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
    let run = PackRun {
        budget: args.budget,
        member_budget: member_budget(args.budget),
        member_cuts: match settings.config.cuts() {
            Cuts::Balanced => "balanced",
            Cuts::Fill => "fill",
        },
        unit: pack_config.unit_name(),
        order: match order {
            PackOrder::Imports => "imports",
            PackOrder::Directory => "directory",
        },
        root: args.path.to_string_lossy().into_owned(),
    };
    let files: Vec<FileEntry> = results.iter().map(FileEntry::of).collect();
    match &out_dir {
        Some(dir) => {
            write_folder(&dir.resolved, &run, &packing, baseline.as_ref(), &files, &results)?
        }
        None => write_jsonl(&packing, &results)?,
    }
    if !args.quiet {
        term::note(summary.line());
        term::note(stats_line(&packing.stats, baseline.as_ref()));
    }
    Ok(if summary.errors > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The pack line printed on stderr.
fn stats_line(stats: &PackStats, baseline: Option<&PackStats>) -> String {
    let over = if stats.lower_bound == 0 {
        0.0
    } else {
        (stats.packs as f64 / stats.lower_bound as f64 - 1.0) * 100.0
    };
    let mut line = format!(
        "cleave pack: {} chunks of {} files → {} packs (lower bound {}, +{over:.1} %; bin-packing bound {}), {} crumbs; import locality {:.1} % of {:.0} resolved edges",
        stats.members,
        stats.files,
        stats.packs,
        stats.lower_bound,
        stats.l2_bound,
        stats.crumbs,
        stats.locality * 100.0,
        stats.edges,
    );
    if let Some(base) = baseline {
        line.push_str(&format!(
            " (directory order: {} packs, {:.1} %)",
            base.packs,
            base.locality * 100.0
        ));
    }
    line
}

/// What a pack run was asked to do, as its manifest records it.
#[derive(Debug, Serialize)]
struct PackRun {
    budget: usize,
    /// The budget the members were chunked at, with `cuts` (as by `cleave chunk --budget
    /// MEMBER_BUDGET --cuts fill`).
    member_budget: usize,
    /// Where the members' files were cut: `fill`.
    member_cuts: &'static str,
    unit: String,
    order: &'static str,
    root: String,
}

/// One member in the manifest: the chunk record without its text, and where its header and
/// body are in the pack file (byte offsets).
#[derive(Debug, Serialize)]
struct ManifestMember<'a> {
    id: &'a str,
    path: &'a str,
    language: &'a str,
    byte_start: usize,
    byte_end: usize,
    line_start: usize,
    line_end: usize,
    tokens: usize,
    symbols: &'a [String],
    scope: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    part: Option<&'a Part>,
    header_start: usize,
    body_start: usize,
    body_end: usize,
}

#[derive(Debug, Serialize)]
struct ManifestLink<'a> {
    pack: usize,
    files: &'a [String],
}

/// One pack in the manifest (or, with its text, one JSON Lines record).
#[derive(Debug, Serialize)]
struct ManifestPack<'a> {
    pack: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    size: usize,
    frame: &'a str,
    members: Vec<ManifestMember<'a>>,
    needs: Vec<ManifestLink<'a>>,
    used_by: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct ManifestStats {
    files: usize,
    members: usize,
    packs: usize,
    lower_bound: usize,
    lower_bound_l2: usize,
    lower_bound_l2_room: usize,
    crumbs: usize,
    content: usize,
    resolved_imports: usize,
    unresolved_imports: usize,
    import_edges: f64,
    import_locality: f64,
    largest_cycle: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    directory_order: Option<Baseline>,
}

#[derive(Debug, Serialize)]
struct Baseline {
    packs: usize,
    crumbs: usize,
    import_locality: f64,
}

impl ManifestStats {
    fn of(s: &PackStats, baseline: Option<&PackStats>) -> Self {
        Self {
            files: s.files,
            members: s.members,
            packs: s.packs,
            lower_bound: s.lower_bound,
            lower_bound_l2: s.l2_bound,
            lower_bound_l2_room: s.l2_room,
            crumbs: s.crumbs,
            content: s.content,
            resolved_imports: s.resolved,
            unresolved_imports: s.unresolved,
            import_edges: s.edges,
            import_locality: round(s.locality),
            largest_cycle: s.largest_cycle,
            directory_order: baseline.map(|b| Baseline {
                packs: b.packs,
                crumbs: b.crumbs,
                import_locality: round(b.locality),
            }),
        }
    }
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn pack_file(k: usize) -> String {
    format!("packs/{:04}.txt", k + 1)
}

fn manifest_pack<'a>(
    k: usize,
    p: &'a Pack,
    results: &'a [FileResult],
    file: Option<String>,
    text: bool,
) -> ManifestPack<'a> {
    let members = p
        .members
        .iter()
        .map(|m| {
            let c: &Chunk = &results[m.file].chunks[m.chunk];
            ManifestMember {
                id: &c.id,
                path: &c.path,
                language: &c.language,
                byte_start: c.byte_start,
                byte_end: c.byte_end,
                line_start: c.line_start,
                line_end: c.line_end,
                tokens: c.tokens,
                symbols: &c.symbols,
                scope: &c.scope,
                part: c.part.as_ref(),
                header_start: m.header_start,
                body_start: m.body_start,
                body_end: m.body_start + c.text.len(),
            }
        })
        .collect();
    ManifestPack {
        pack: k + 1,
        file,
        size: p.size,
        frame: &p.frame,
        members,
        needs: p.needs.iter().map(|l| ManifestLink { pack: l.pack + 1, files: &l.files }).collect(),
        used_by: p.used_by.iter().map(|u| u + 1).collect(),
        text: text.then_some(p.text.as_str()),
    }
}

fn write_jsonl(packing: &Packing, results: &[FileResult]) -> Result<()> {
    let mut out = Stream::new(None)?;
    for (k, p) in packing.packs.iter().enumerate() {
        let mut line = serde_json::to_vec(&manifest_pack(k, p, results, None, true))?;
        line.push(b'\n');
        out.write_all(&line)?;
    }
    out.finish()
}

fn write_folder(
    target: &std::path::Path,
    run: &PackRun,
    packing: &Packing,
    baseline: Option<&PackStats>,
    files: &[FileEntry],
    results: &[FileResult],
) -> Result<()> {
    let staged = StagedDir::create(target)?;
    let mut packs = Vec::with_capacity(packing.packs.len());
    for (k, p) in packing.packs.iter().enumerate() {
        let file = pack_file(k);
        write_new(&staged.path().join(&file), p.text.as_bytes())?;
        packs.push(manifest_pack(k, p, results, Some(file), false));
    }
    #[derive(Serialize)]
    struct Rest<'a> {
        run: &'a PackRun,
        stats: ManifestStats,
        files: &'a [FileEntry],
        packs: Vec<ManifestPack<'a>>,
    }
    let rest = Rest { run, stats: ManifestStats::of(&packing.stats, baseline), files, packs };
    let body = serde_json::to_vec_pretty(&rest)?;
    // The generator tag first, so that a later run knows the folder as its own output.
    let mut manifest = Vec::with_capacity(body.len() + GENERATOR.len() + 1);
    manifest.extend_from_slice(GENERATOR.as_bytes());
    manifest.push(b',');
    manifest.extend_from_slice(&body[1..]);
    write_new(&staged.path().join("manifest.json"), &manifest)?;
    staged.commit()
}
