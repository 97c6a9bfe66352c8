//! The benchmark harness: the baselines `bench/run.sh` times against cleave end to end.
//!
//! ```text
//! cleave-bench parse    --threads 2 CORPUS                           # tree-sitter parse only
//! cleave-bench splitter --threads 2 --budget 2000 --unit chars CORPUS  # text-splitter CodeSplitter
//! cleave-bench pipeline --threads 2 --budget 2000 --unit chars CORPUS  # cleave in process, per phase
//! ```
//!
//! Each mode reads the same files (those cleave parses as code, see `collect`) with the same
//! number of rayon threads, and prints one line of `key=value` facts on stdout: files, bytes,
//! chunks, wall seconds inside the process. `run.sh` times the whole process from outside
//! (start to exit, peak RSS) so that every contender pays for its own start-up.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use cleave_bench::{CorpusFile, collect, grammar};
use rayon::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Parse,
    Splitter,
    Pipeline,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BenchUnit {
    Chars,
    Tokens,
}

#[derive(Debug)]
struct Args {
    mode: Mode,
    threads: usize,
    budget: usize,
    unit: BenchUnit,
    root: PathBuf,
}

fn parse_args() -> Result<Args> {
    let mut it = std::env::args().skip(1);
    let mode = match it.next().as_deref() {
        Some("parse") => Mode::Parse,
        Some("splitter") => Mode::Splitter,
        Some("pipeline") => Mode::Pipeline,
        other => bail!("usage: cleave-bench parse|splitter|pipeline [--threads N] [--budget N] [--unit chars|tokens] CORPUS (got {other:?})"),
    };
    let mut args = Args { mode, threads: 2, budget: 2000, unit: BenchUnit::Chars, root: PathBuf::new() };
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--threads" => args.threads = value()?.parse()?,
            "--budget" => args.budget = value()?.parse()?,
            "--unit" => {
                args.unit = match value()?.as_str() {
                    "chars" => BenchUnit::Chars,
                    "tokens" | "o200k" | "tokens:o200k" => BenchUnit::Tokens,
                    u => bail!("unknown unit {u} (chars or tokens)"),
                }
            }
            _ if args.root.as_os_str().is_empty() && !arg.starts_with('-') => args.root = arg.into(),
            _ => bail!("unexpected argument {arg}"),
        }
    }
    if args.root.as_os_str().is_empty() {
        bail!("no corpus given");
    }
    Ok(args)
}

/// What one mode did, summed over files.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    files: u64,
    bytes: u64,
    chunks: u64,
    /// Files with ERROR or MISSING nodes (parse mode).
    errors: u64,
}

impl std::ops::Add for Tally {
    type Output = Tally;
    fn add(self, o: Tally) -> Tally {
        Tally {
            files: self.files + o.files,
            bytes: self.bytes + o.bytes,
            chunks: self.chunks + o.chunks,
            errors: self.errors + o.errors,
        }
    }
}

fn read(file: &CorpusFile) -> Option<String> {
    std::fs::read(&file.path).ok().and_then(|b| String::from_utf8(b).ok())
}

/// The baseline: read and parse every file with tree-sitter, nothing else. One parser per
/// worker thread, as cleave keeps one `ParseContext` per thread.
fn run_parse(files: &[CorpusFile]) -> Tally {
    let grammars: HashMap<&str, tree_sitter::Language> =
        files.iter().map(|f| (f.language.name, grammar(f.language.name).unwrap())).collect();
    files
        .par_iter()
        .map_init(tree_sitter::Parser::new, |parser, file| {
            let Some(text) = read(file) else { return Tally::default() };
            parser.set_language(&grammars[file.language.name]).expect("grammar ABI");
            let tree = parser.parse(&text, None);
            let errors = tree.as_ref().is_none_or(|t| t.root_node().has_error());
            Tally { files: 1, bytes: text.len() as u64, chunks: 0, errors: u64::from(errors) }
        })
        .reduce(Tally::default, |a, b| a + b)
}

/// text-splitter's `CodeSplitter` with the same grammars and budget; chunks are produced and
/// counted, not written (which only flatters it).
fn run_splitter<S>(files: &[CorpusFile], budget: usize, sizer: S) -> Result<Tally>
where
    S: text_splitter::ChunkSizer + Clone + Send + Sync,
{
    let mut splitters = HashMap::new();
    for f in files {
        if !splitters.contains_key(f.language.name) {
            let config = text_splitter::ChunkConfig::new(budget).with_sizer(sizer.clone());
            let splitter = text_splitter::CodeSplitter::new(grammar(f.language.name).unwrap(), config)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            splitters.insert(f.language.name, splitter);
        }
    }
    Ok(files
        .par_iter()
        .map(|file| {
            let Some(text) = read(file) else { return Tally::default() };
            let splitter = &splitters[file.language.name];
            let chunks = splitter.chunks(&text).count() as u64;
            Tally { files: 1, bytes: text.len() as u64, chunks, errors: 0 }
        })
        .reduce(Tally::default, |a, b| a + b))
}

/// Nanoseconds spent in each phase of the in-process pipeline, summed over threads.
#[derive(Default)]
struct Phases {
    read: AtomicU64,
    atomize: AtomicU64,
    pack: AtomicU64,
    serialize: AtomicU64,
}

impl Phases {
    fn add(counter: &AtomicU64, since: Instant) -> Instant {
        let now = Instant::now();
        counter.fetch_add((now - since).as_nanos() as u64, Ordering::Relaxed);
        now
    }
}

/// cleave's library pipeline in process: read, atomize, pack, serialize to JSON Lines in a
/// buffer that is thrown away. The CLI adds the walk, the ordered writer and the report.
fn run_pipeline(files: &[CorpusFile], budget: usize, unit: BenchUnit, phases: &Phases) -> Result<Tally> {
    let unit = match unit {
        BenchUnit::Chars => cleave_core::Unit::Chars,
        BenchUnit::Tokens => cleave_core::Unit::Tokens(cleave_core::Tokenizer::O200k),
    };
    let config = cleave_core::ChunkConfig::new(budget, unit)?;
    Ok(files
        .par_iter()
        .map_init(
            || (cleave_code::ParseContext::new(), Vec::<u8>::new()),
            |(ctx, out), file| {
                let t = Instant::now();
                let Some(text) = read(file) else { return Tally::default() };
                let t = Phases::add(&phases.read, t);
                let tree = cleave_code::atomize_code(file.language, &text, ctx);
                let t = Phases::add(&phases.atomize, t);
                let source = cleave_core::Source::new(&file.rel, &text);
                let chunks = cleave_core::pack(&source, &tree, &config);
                let t = Phases::add(&phases.pack, t);
                out.clear();
                for chunk in &chunks {
                    serde_json::to_writer(&mut *out, chunk).expect("serialize");
                    out.push(b'\n');
                }
                Phases::add(&phases.serialize, t);
                Tally { files: 1, bytes: text.len() as u64, chunks: chunks.len() as u64, errors: 0 }
            },
        )
        .reduce(Tally::default, |a, b| a + b))
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let start = Instant::now();
    rayon::ThreadPoolBuilder::new().num_threads(args.threads).build_global()?;
    let files = collect(&args.root)?;
    let phases = Phases::default();
    let tally = match (args.mode, args.unit) {
        (Mode::Parse, _) => run_parse(&files),
        (Mode::Splitter, BenchUnit::Chars) => {
            run_splitter(&files, args.budget, text_splitter::Characters)?
        }
        (Mode::Splitter, BenchUnit::Tokens) => {
            run_splitter(&files, args.budget, tiktoken_rs::o200k_base()?)?
        }
        (Mode::Pipeline, unit) => run_pipeline(&files, args.budget, unit, &phases)?,
    };
    let secs = start.elapsed().as_secs_f64();
    let mut line = format!(
        "files={} bytes={} chunks={} errors={} secs={secs:.3} mb_s={:.2}",
        tally.files,
        tally.bytes,
        tally.chunks,
        tally.errors,
        tally.bytes as f64 / 1e6 / secs
    );
    if args.mode == Mode::Pipeline {
        let s = |c: &AtomicU64| Duration::from_nanos(c.load(Ordering::Relaxed)).as_secs_f64();
        line += &format!(
            " cpu_read={:.3} cpu_atomize={:.3} cpu_pack={:.3} cpu_serialize={:.3}",
            s(&phases.read),
            s(&phases.atomize),
            s(&phases.pack),
            s(&phases.serialize)
        );
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{line}")?;
    Ok(())
}
