//! Chunk quality, cleave vs text-splitter, measured the same way on the same files.
//!
//!     quality [--lang rust,python,go,java,typescript,markdown] [--cap-mb 8]
//!             [--prose /tmp/prose-corpus] [--out bench/runs/DATE-quality.txt]
//!
//! For each corpus (code: `bench/corpus/<lang>/`; Markdown: every `.md`/`.mdx` under the prose
//! folder), files in sorted path order up to the cap, each file is chunked by
//!
//! - **cleave**: `atomize_code` / `atomize_prose`, then `pack` with `ChunkConfig::new(budget,
//!   Unit::Chars)` (headers on; the header counts inside the budget);
//! - **text-splitter** 0.33.1: `CodeSplitter` with the same tree-sitter grammar, or
//!   `MarkdownSplitter`, `ChunkConfig::new(budget)` in chars, `with_trim(false)`; byte ranges
//!   from `chunk_indices`. It has no header: its whole chunk is its body.
//!
//! and measured with the same code:
//!
//! - `in budget`: % of chunks whose rendered size (cleave: header + body) is ≤ the budget;
//! - `once`: % of file bytes covered by exactly one chunk body (bodies tile the file);
//! - `units` / `whole`: the units of cleave's atom tree (code: `AtomKind::Symbol` atoms, whose
//!   range includes leading doc comments and attributes; Markdown: `AtomKind::Section` atoms)
//!   whose extent is between budget/4 and budget chars, and the % of them lying wholly inside
//!   one chunk — one list for both tools;
//! - `raw` / `raw%`: the same for code symbols counted raw, without the doc comments the code
//!   builder detaches from them (`Atom::proper`): the item alone must stay whole;
//! - `crumbs`: % of chunks under 5 % of the budget (rendered size);
//! - `/100KB`: chunks per 100,000 bytes; `×fixed`: chunk count over the count of plain fixed
//!   windows of the budget (per file ⌈chars / budget⌉);
//! - `midword`: % of chunks (not at offset 0) starting between two word chars;
//! - Markdown only: fenced code blocks, tables and `$$…$$` display math blocks that fit the
//!   budget (a line scanner finds them; pulldown-cmark is not a dependency of the bench), and
//!   the % of them that stay whole in one chunk.

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use cleave_core::{Atom, AtomKind, Unit};
use rayon::prelude::*;

const CODE_BUDGETS: [usize; 2] = [2000, 8000];
const PROSE_BUDGETS: [usize; 2] = [1000, 4000];
const CODE_LANGS: [&str; 5] = ["rust", "python", "go", "java", "typescript"];

/// One file to chunk.
struct Doc {
    rel: String,
    text: String,
    /// Code language, or `None` for Markdown.
    language: Option<&'static cleave_code::Language>,
}

/// Counters for one tool at one budget; summed over files.
#[derive(Default, Clone)]
struct Stats {
    files: u64,
    bytes: u64,
    chunks: u64,
    in_budget: u64,
    covered_once: u64,
    units: u64,
    units_whole: u64,
    /// Code symbols counted raw, without the doc comments detached from them: (units, whole).
    raw: (u64, u64),
    crumbs: u64,
    fixed: u64,
    midword: u64,
    /// fences, tables, math: (fitting, whole).
    blocks: [(u64, u64); 3],
    max_size: u64,
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.files += o.files;
        self.bytes += o.bytes;
        self.chunks += o.chunks;
        self.in_budget += o.in_budget;
        self.covered_once += o.covered_once;
        self.units += o.units;
        self.units_whole += o.units_whole;
        self.raw.0 += o.raw.0;
        self.raw.1 += o.raw.1;
        self.crumbs += o.crumbs;
        self.fixed += o.fixed;
        self.midword += o.midword;
        for i in 0..3 {
            self.blocks[i].0 += o.blocks[i].0;
            self.blocks[i].1 += o.blocks[i].1;
        }
        self.max_size = self.max_size.max(o.max_size);
    }
}

/// A chunk as both tools are measured: its body's byte range and its rendered size in chars.
struct Piece {
    range: Range<usize>,
    size: usize,
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Measures one tool's chunks of one file against the shared unit and block lists.
fn measure(
    text: &str,
    pieces: &[Piece],
    budget: usize,
    units: &[Range<usize>],
    raw: &[Range<usize>],
    blocks: &[Vec<Range<usize>>; 3],
) -> Stats {
    let mut s = Stats { files: 1, bytes: text.len() as u64, ..Stats::default() };
    s.chunks = pieces.len() as u64;
    s.fixed = chars(text).div_ceil(budget) as u64;
    let crumb = budget * 5 / 100;
    let mut diff = vec![0i32; text.len() + 1];
    for p in pieces {
        s.in_budget += u64::from(p.size <= budget);
        s.crumbs += u64::from(p.size < crumb);
        s.max_size = s.max_size.max(p.size as u64);
        diff[p.range.start] += 1;
        diff[p.range.end] -= 1;
        if p.range.start > 0 {
            let before = text[..p.range.start].chars().next_back();
            let after = text[p.range.start..].chars().next();
            if before.is_some_and(is_word) && after.is_some_and(is_word) {
                s.midword += 1;
            }
        }
    }
    let mut depth = 0;
    for d in &diff[..text.len()] {
        depth += d;
        s.covered_once += u64::from(depth == 1);
    }
    let mut sorted: Vec<Range<usize>> = pieces.iter().map(|p| p.range.clone()).collect();
    sorted.sort_by_key(|r| (r.start, r.end));
    let whole = |r: &Range<usize>| {
        let i = sorted.partition_point(|c| c.start <= r.start);
        // Without overlap, the chunk that starts last at or before r.start is the only
        // candidate; look one further back in case a tool overlaps.
        (i.saturating_sub(2)..i).any(|j| sorted[j].start <= r.start && r.end <= sorted[j].end)
    };
    for u in units {
        s.units += 1;
        s.units_whole += u64::from(whole(u));
    }
    for u in raw {
        s.raw.0 += 1;
        s.raw.1 += u64::from(whole(u));
    }
    for (k, list) in blocks.iter().enumerate() {
        for b in list {
            s.blocks[k].0 += 1;
            s.blocks[k].1 += u64::from(whole(b));
        }
    }
    s
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Atoms of `kind` in the tree whose extent is within [budget/4, budget] chars.
fn collect_units(
    atom: &Atom,
    kind: AtomKind,
    text: &str,
    budget: usize,
    out: &mut Vec<Range<usize>>,
) {
    if atom.kind == kind {
        let n = chars(&text[atom.range.clone()]);
        if n >= budget / 4 && n <= budget {
            out.push(atom.range.clone());
        }
    }
    for c in &atom.children {
        collect_units(c, kind, text, budget, out);
    }
}

/// Symbols counted raw: the item proper of a symbol whose doc comment the code builder
/// detached (`Atom::proper`), else the symbol, within [budget/4, budget] chars.
fn collect_raw(atom: &Atom, text: &str, budget: usize, out: &mut Vec<Range<usize>>) {
    if atom.kind == AtomKind::Symbol {
        let range = atom.proper().map_or(atom.range.clone(), |p| p.range.clone());
        let n = chars(&text[range.clone()]);
        if n >= budget / 4 && n <= budget {
            out.push(range);
        }
    }
    for c in &atom.children {
        collect_raw(c, text, budget, out);
    }
}

/// Fenced code blocks, tables and `$$` display math of a Markdown text, by lines. Each range
/// runs from the first line's start to the last line's end, line terminator excluded.
fn markdown_blocks(text: &str) -> [Vec<Range<usize>>; 3] {
    let mut lines = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        lines.push((start, start + body.len(), body));
        start += line.len();
    }
    let mut out: [Vec<Range<usize>>; 3] = Default::default();
    let mut i = 0;
    while i < lines.len() {
        let (s, _, l) = lines[i];
        let t = l.trim_start();
        // A fence: ``` or ~~~ (three or more), closed by a line of at least as many.
        let fence = ['`', '~'].into_iter().find_map(|c| {
            let n = t.chars().take_while(|&x| x == c).count();
            (n >= 3 && !(c == '`' && t[n..].contains('`'))).then_some((c, n))
        });
        if let Some((c, n)) = fence {
            let mut j = i + 1;
            while j < lines.len() {
                let u = lines[j].2.trim();
                let m = u.chars().take_while(|&x| x == c).count();
                if m >= n && m == u.len() {
                    break;
                }
                j += 1;
            }
            if j < lines.len() {
                out[0].push(s..lines[j].1);
            } // unterminated: runs to the end; not counted
            i = j + 1;
            continue;
        }
        // Display math: a line starting with $$, closed on the same line or a later one.
        if let Some(rest) = t.strip_prefix("$$") {
            if rest.contains("$$") {
                out[2].push(s..lines[i].1);
                i += 1;
                continue;
            }
            let mut j = i + 1;
            while j < lines.len() && !lines[j].2.contains("$$") {
                j += 1;
            }
            if j < lines.len() {
                out[2].push(s..lines[j].1);
            }
            i = j + 1;
            continue;
        }
        // A table: a line with a pipe, then a delimiter row, then lines with pipes.
        if t.contains('|') && i + 1 < lines.len() && is_delimiter_row(lines[i + 1].2) {
            let mut j = i + 2;
            while j < lines.len() && lines[j].2.contains('|') && !lines[j].2.trim().is_empty() {
                j += 1;
            }
            out[1].push(s..lines[j - 1].1);
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    if !line.contains('-') {
        return false;
    }
    t.split('|').all(|cell| {
        let c = cell.trim();
        let c = c.strip_prefix(':').unwrap_or(c);
        let c = c.strip_suffix(':').unwrap_or(c);
        !c.is_empty() && c.chars().all(|x| x == '-')
    })
}

/// Files in sorted path order until `cap` bytes.
fn load(lang: &str, prose_root: &Path, cap: u64) -> Result<(PathBuf, Vec<Doc>)> {
    let mut docs = Vec::new();
    let mut total = 0u64;
    if lang == "markdown" {
        let mut paths = Vec::new();
        let walk =
            ignore::WalkBuilder::new(prose_root).standard_filters(false).hidden(true).build();
        for entry in walk {
            let entry = entry?;
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let path = entry.into_path();
            let rel =
                path.strip_prefix(prose_root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if cleave_prose::format_for_path(&rel) == Some(cleave_prose::Format::Markdown) {
                paths.push((rel, path));
            }
        }
        paths.sort();
        for (rel, path) in paths {
            if total >= cap {
                break;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            total += text.len() as u64;
            docs.push(Doc { rel, text, language: None });
        }
        return Ok((prose_root.to_path_buf(), docs));
    }
    let root = cleave_bench::corpus_dir(lang);
    if !root.is_dir() {
        bail!("no corpus at {} (run bench/corpus.sh)", root.display());
    }
    for f in cleave_bench::collect(&root)? {
        if total >= cap {
            break;
        }
        let bytes = std::fs::read(&f.path).with_context(|| format!("reading {}", f.rel))?;
        let Ok(text) = String::from_utf8(bytes) else { continue };
        total += text.len() as u64;
        docs.push(Doc { rel: f.rel, text, language: Some(f.language) });
    }
    Ok((root, docs))
}

enum Splitter {
    Code(Vec<(&'static str, text_splitter::CodeSplitter<text_splitter::Characters>)>),
    Markdown(text_splitter::MarkdownSplitter<text_splitter::Characters>),
}

impl Splitter {
    fn new(docs: &[Doc], budget: usize) -> Result<Self> {
        let config = || text_splitter::ChunkConfig::new(budget).with_trim(false);
        if docs.iter().all(|d| d.language.is_none()) {
            return Ok(Splitter::Markdown(text_splitter::MarkdownSplitter::new(config())));
        }
        let mut v = Vec::new();
        for d in docs {
            let name = d.language.unwrap().name;
            if !v.iter().any(|(n, _)| *n == name) {
                let grammar = cleave_bench::grammar(name).unwrap();
                let s = text_splitter::CodeSplitter::new(grammar, config())
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                v.push((name, s));
            }
        }
        Ok(Splitter::Code(v))
    }

    fn pieces(&self, doc: &Doc) -> Vec<Piece> {
        let to_piece =
            |(off, s): (usize, &str)| Piece { range: off..off + s.len(), size: chars(s) };
        match self {
            Splitter::Markdown(m) => m.chunk_indices(&doc.text).map(to_piece).collect(),
            Splitter::Code(v) => {
                let name = doc.language.unwrap().name;
                let s = &v.iter().find(|(n, _)| *n == name).unwrap().1;
                s.chunk_indices(&doc.text).map(to_piece).collect()
            }
        }
    }
}

/// Stats per budget: [cleave, text-splitter].
fn run(docs: &[Doc], budgets: &[usize]) -> Result<Vec<[Stats; 2]>> {
    let configs: Vec<_> = budgets
        .iter()
        .map(|&b| cleave_core::ChunkConfig::new(b, Unit::Chars))
        .collect::<Result<_, _>>()?;
    let splitters: Vec<Splitter> =
        budgets.iter().map(|&b| Splitter::new(docs, b)).collect::<Result<_>>()?;
    let per_file: Vec<Vec<[Stats; 2]>> = docs
        .par_iter()
        .map_init(cleave_code::ParseContext::new, |ctx, doc| {
            let text = doc.text.as_str();
            let (tree, kind) = match doc.language {
                Some(l) => (cleave_code::atomize_code(l, text, ctx), AtomKind::Symbol),
                None => (
                    cleave_prose::atomize_prose(cleave_prose::Format::Markdown, text, ctx),
                    AtomKind::Section,
                ),
            };
            let blocks =
                if doc.language.is_none() { markdown_blocks(text) } else { Default::default() };
            let source = cleave_core::Source::new(&doc.rel, text);
            budgets
                .iter()
                .enumerate()
                .map(|(i, &budget)| {
                    let mut units = Vec::new();
                    collect_units(&tree.root, kind, text, budget, &mut units);
                    let mut raw = Vec::new();
                    if doc.language.is_some() {
                        collect_raw(&tree.root, text, budget, &mut raw);
                    }
                    let fit: [Vec<Range<usize>>; 3] = std::array::from_fn(|k| {
                        blocks[k]
                            .iter()
                            .filter(|r| chars(&text[(*r).clone()]) <= budget)
                            .cloned()
                            .collect()
                    });
                    let chunks = cleave_core::pack(&source, &tree, &configs[i]);
                    let ours: Vec<Piece> = chunks
                        .iter()
                        .map(|c| Piece {
                            range: c.byte_start..c.byte_end,
                            size: chars(&c.header) + chars(&c.text),
                        })
                        .collect();
                    let theirs = splitters[i].pieces(doc);
                    [
                        measure(text, &ours, budget, &units, &raw, &fit),
                        measure(text, &theirs, budget, &units, &raw, &fit),
                    ]
                })
                .collect()
        })
        .collect();
    let mut out = vec![[Stats::default(), Stats::default()]; budgets.len()];
    for f in &per_file {
        for (o, s) in out.iter_mut().zip(f) {
            o[0].add(&s[0]);
            o[1].add(&s[1]);
        }
    }
    Ok(out)
}

fn pct(a: u64, b: u64) -> String {
    if b == 0 { "n/a".into() } else { format!("{:.2}", 100.0 * a as f64 / b as f64) }
}

fn today() -> String {
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = (secs / 86400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn main() -> Result<()> {
    let mut langs: Vec<String> =
        CODE_LANGS.iter().map(|s| s.to_string()).chain(["markdown".into()]).collect();
    let mut cap_mb = 8.0f64;
    let mut prose = PathBuf::from("/tmp/prose-corpus");
    let mut out_path = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--lang" => langs = val()?.split(',').map(str::to_string).collect(),
            "--cap-mb" => cap_mb = val()?.parse()?,
            "--prose" => prose = PathBuf::from(val()?),
            "--out" => out_path = Some(PathBuf::from(val()?)),
            "-h" | "--help" => {
                println!(
                    "quality [--lang rust,python,go,java,typescript,markdown] [--cap-mb 8] [--prose DIR] [--out FILE]"
                );
                return Ok(());
            }
            _ => bail!("unknown argument {a}"),
        }
    }
    let cap = (cap_mb * 1e6) as u64;
    let command: Vec<String> = std::env::args().collect();
    let started = std::time::Instant::now();

    let mut report = String::new();
    let mut corpora = String::new();
    let head = format!(
        "{:>10} {:>5} {:>5} {:>6} {:>13} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7} {:>6} {:>7} {:>7} {:>13} {:>13} {:>13}",
        "corpus",
        "files",
        "MB",
        "budget",
        "tool",
        "chunks",
        "inbdg%",
        "once%",
        "units",
        "whole%",
        "raw",
        "raw%",
        "crumb%",
        "/100KB",
        "×fixed",
        "midwd%",
        "maxsize",
        "fences whole%",
        "tables whole%",
        "math whole%"
    );
    report += &head;
    report.push('\n');
    for lang in &langs {
        let (root, docs) = load(lang, &prose, cap)?;
        if docs.is_empty() {
            bail!("no files for {lang} under {}", root.display());
        }
        let budgets: &[usize] = if lang == "markdown" { &PROSE_BUDGETS } else { &CODE_BUDGETS };
        let t = std::time::Instant::now();
        let stats = run(&docs, budgets)?;
        let bytes: u64 = docs.iter().map(|d| d.text.len() as u64).sum();
        writeln!(
            corpora,
            "  {lang}: {} ({} files, {:.2} MB, sorted by path, first files up to {cap_mb} MB; {:.1} s)",
            root.display(),
            docs.len(),
            bytes as f64 / 1e6,
            t.elapsed().as_secs_f64()
        )?;
        for (bi, &budget) in budgets.iter().enumerate() {
            for (ti, tool) in ["cleave", "text-splitter"].iter().enumerate() {
                let s = &stats[bi][ti];
                let blk = |k: usize| {
                    if lang == "markdown" {
                        format!("{:>6} {:>6}", s.blocks[k].0, pct(s.blocks[k].1, s.blocks[k].0))
                    } else {
                        format!("{:>6} {:>6}", "", "")
                    }
                };
                writeln!(
                    report,
                    "{:>10} {:>5} {:>5.1} {:>6} {:>13} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>7.1} {:>6.2} {:>7} {:>7} {:>13} {:>13} {:>13}",
                    lang,
                    s.files,
                    s.bytes as f64 / 1e6,
                    budget,
                    tool,
                    s.chunks,
                    pct(s.in_budget, s.chunks),
                    pct(s.covered_once, s.bytes),
                    s.units,
                    pct(s.units_whole, s.units),
                    s.raw.0,
                    pct(s.raw.1, s.raw.0),
                    pct(s.crumbs, s.chunks),
                    s.chunks as f64 * 1e5 / s.bytes as f64,
                    s.chunks as f64 / s.fixed as f64,
                    pct(s.midword, s.chunks),
                    s.max_size,
                    blk(0),
                    blk(1),
                    blk(2),
                )?;
            }
        }
        eprintln!("{lang} done in {:.1} s", t.elapsed().as_secs_f64());
    }

    // A snapshot build (exported tree, no .git) says what it measured in QUALITY_COMMIT.
    let commit = std::env::var("QUALITY_COMMIT")
        .ok()
        .or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "--short", "HEAD"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .ok()
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        })
        .unwrap_or_default();
    let mut full = String::new();
    writeln!(
        full,
        "# chunk quality: cleave vs text-splitter 0.33.1, {} (cleave {commit})",
        today()
    )?;
    writeln!(full, "command: {}", command.join(" "))?;
    writeln!(
        full,
        "budgets: code 2000, 8000 chars; Markdown 1000, 4000 chars (unit: Unicode scalar values)"
    )?;
    writeln!(
        full,
        "cleave: atomize + pack, ChunkConfig::new(budget, Unit::Chars), headers on (header counts in the budget)"
    )?;
    writeln!(
        full,
        "text-splitter: CodeSplitter (same grammar) / MarkdownSplitter, ChunkConfig::new(budget).with_trim(false), chunk_indices"
    )?;
    writeln!(full, "corpora:\n{corpora}")?;
    full += &report;
    full += "\ninbdg%: chunks with rendered size (cleave: header + body) <= budget. once%: file bytes covered by\n\
exactly one body. units: cleave's Symbol atoms (code; extent incl. doc comments/attributes) or Section atoms\n\
(Markdown) of budget/4..=budget chars, one list for both tools; whole%: of those, wholly inside one chunk.\n\
crumb%: chunks < 5 % of the budget. /100KB: chunks per 100,000 bytes; ×fixed: chunks / sum of ceil(chars/budget).\n\
midwd%: chunks starting between two word chars. maxsize: largest rendered chunk (chars). fences/tables/math:\n\
count of blocks (line scanner) that fit the budget and % of them wholly inside one chunk.\n";
    writeln!(full, "elapsed: {:.1} s", started.elapsed().as_secs_f64())?;
    print!("{full}");
    let out_path = out_path.unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("runs").join(format!("{}-quality.txt", today()))
    });
    std::fs::write(&out_path, &full).with_context(|| format!("writing {}", out_path.display()))?;
    eprintln!("wrote {}", out_path.display());
    Ok(())
}
