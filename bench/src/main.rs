//! The benchmark harness: the baselines `bench/run.sh` times against cleave end to end.
//!
//! ```text
//! cleave-bench parse    --threads 2 CORPUS                           # tree-sitter parse only
//! cleave-bench splitter --threads 2 --budget 2000 --unit chars CORPUS  # text-splitter CodeSplitter
//! cleave-bench pipeline --threads 2 --budget 2000 --unit chars CORPUS  # cleave in process, per phase
//! cleave-bench query [--max-start-depth D] CORPUS                    # parse vs query pass vs walk
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
    Query,
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
    max_start_depth: Option<u32>,
}

fn parse_args() -> Result<Args> {
    let mut it = std::env::args().skip(1);
    let mode = match it.next().as_deref() {
        Some("parse") => Mode::Parse,
        Some("splitter") => Mode::Splitter,
        Some("pipeline") => Mode::Pipeline,
        Some("query") => Mode::Query,
        other => bail!(
            "usage: cleave-bench parse|splitter|pipeline|query [--threads N] [--budget N] [--unit chars|tokens] CORPUS (got {other:?})"
        ),
    };
    let mut args = Args {
        mode,
        threads: 2,
        budget: 2000,
        unit: BenchUnit::Chars,
        root: PathBuf::new(),
        max_start_depth: None,
    };
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--threads" => args.threads = value()?.parse()?,
            "--budget" => args.budget = value()?.parse()?,
            "--max-start-depth" => args.max_start_depth = Some(value()?.parse()?),
            "--unit" => {
                args.unit = match value()?.as_str() {
                    "chars" => BenchUnit::Chars,
                    "tokens" | "o200k" | "tokens:o200k" => BenchUnit::Tokens,
                    u => bail!("unknown unit {u} (chars or tokens)"),
                }
            }
            _ if args.root.as_os_str().is_empty() && !arg.starts_with('-') => {
                args.root = arg.into()
            }
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

/// The baseline: read and parse every file with tree-sitter, nothing else, as cleave parses
/// it (`cleave_code::parse_only`: files over 256 KiB in the same sections; Vue and Svelte
/// components and HTML with their `<script>` and `<style>` bodies parsed too, see
/// `parse_with_injections`). One parser per worker thread, as cleave keeps one
/// `ParseContext` per thread.
fn run_parse(files: &[CorpusFile]) -> Tally {
    files
        .par_iter()
        .map_init(
            || (cleave_code::ParseContext::new(), tree_sitter::Parser::new()),
            |(ctx, parser), file| {
                let Some(text) = read(file) else { return Tally::default() };
                let errors = match file.language.name {
                    "vue" | "svelte" | "html" => {
                        cleave_bench::parse_with_injections(parser, file.language.name, &text)
                    }
                    _ => cleave_code::parse_only(file.language, &text, ctx),
                }
                .unwrap_or(true);
                Tally { files: 1, bytes: text.len() as u64, chunks: 0, errors: u64::from(errors) }
            },
        )
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
            let splitter =
                text_splitter::CodeSplitter::new(grammar(f.language.name).unwrap(), config)
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
fn run_pipeline(
    files: &[CorpusFile],
    budget: usize,
    unit: BenchUnit,
    phases: &Phases,
) -> Result<Tally> {
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

/// The atoms query of a language as cleave builds it: `grammars/<lang>/atoms.scm`, with the
/// files named by `; inherits:` lines first.
fn atoms_query(language: &str) -> Result<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../grammars");
    let text = std::fs::read_to_string(dir.join(language).join("atoms.scm"))
        .with_context(|| format!("no grammars/{language}/atoms.scm"))?;
    let mut out = String::new();
    for line in text.lines() {
        if let Some(parents) = line.trim().strip_prefix("; inherits:") {
            for parent in parents.split(',') {
                out += &atoms_query(parent.trim())?;
            }
        }
    }
    Ok(out + &text)
}

/// Where the atomizer's time above parsing goes, one thread: each file is parsed once, then
/// parsing again, the atoms query over the whole tree (optionally with a start depth limit),
/// and a plain cursor walk over every node are each timed over all trees, best of 5
/// (`QUERY_REPS`; 1 under callgrind).
fn run_query(files: &[CorpusFile], max_start_depth: Option<u32>) -> Result<String> {
    use tree_sitter::StreamingIterator;
    let loaded = cleave_bench::read_all(files)?;
    let mut parser = tree_sitter::Parser::new();
    let mut queries = HashMap::new();
    let mut trees = Vec::new();
    for f in &loaded {
        let name = f.file.language.name;
        let grammar = grammar(name).unwrap();
        if !queries.contains_key(name) {
            let query = tree_sitter::Query::new(&grammar, &atoms_query(name)?)
                .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            queries.insert(name, query);
        }
        parser.set_language(&grammar)?;
        trees.push(parser.parse(&f.text, None).context("parse")?);
    }
    let bytes: usize = loaded.iter().map(|f| f.text.len()).sum();
    let best = |f: &mut dyn FnMut() -> usize| {
        let mut best = f64::MAX;
        let mut n = 0;
        let reps: usize =
            std::env::var("QUERY_REPS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
        for _ in 0..reps {
            let t = Instant::now();
            n = f();
            best = best.min(t.elapsed().as_secs_f64());
        }
        (best, n)
    };
    let (parse, _) = best(&mut || {
        let mut n = 0;
        for f in &loaded {
            parser.set_language(&grammar(f.file.language.name).unwrap()).unwrap();
            n += parser.parse(&f.text, None).map_or(0, |t| t.root_node().child_count() as usize);
        }
        n
    });
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut query_pass = |depth: Option<u32>| {
        best(&mut || {
            let mut n = 0;
            for (f, tree) in loaded.iter().zip(&trees) {
                cursor.set_max_start_depth(depth);
                let query = &queries[f.file.language.name];
                let mut it = cursor.matches(query, tree.root_node(), f.text.as_bytes());
                while let Some(m) = it.next() {
                    n += m.captures().len();
                }
            }
            n
        })
    };
    let (full, captures_full) = query_pass(None);
    let (limited, captures_limited) = query_pass(max_start_depth);
    let (walk, nodes) = best(&mut || {
        let mut n = 0;
        for tree in &trees {
            let mut c = tree.walk();
            'walk: loop {
                n += 1;
                if c.goto_first_child() || c.goto_next_sibling() {
                    continue;
                }
                loop {
                    if !c.goto_parent() {
                        break 'walk;
                    }
                    if c.goto_next_sibling() {
                        break;
                    }
                }
            }
        }
        n
    });
    let ns = |s: f64| s * 1e9 / bytes as f64;
    Ok(format!(
        "files={} bytes={bytes} nodes={nodes} parse_ns_per_byte={:.1} query_ns_per_byte={:.1} \
         query_depth{}_ns_per_byte={:.1} walk_ns_per_byte={:.1} captures={captures_full} \
         captures_depth_limited={captures_limited}",
        loaded.len(),
        ns(parse),
        ns(full),
        max_start_depth.map_or("-".into(), |d| d.to_string()),
        ns(limited),
        ns(walk)
    ))
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let start = Instant::now();
    rayon::ThreadPoolBuilder::new().num_threads(args.threads).build_global()?;
    let files = collect(&args.root)?;
    if args.mode == Mode::Query {
        println!("{}", run_query(&files, args.max_start_depth)?);
        return Ok(());
    }
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
        (Mode::Query, _) => unreachable!("handled above"),
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
