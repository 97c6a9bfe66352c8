//! Command-line arguments.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use cleave_engine::{ChunkConfig, Tokenizer, Unit, WalkOptions};

/// cleave: cut repositories and documents into chunks an LLM can use on their own.
#[derive(Debug, Parser)]
#[command(name = "cleave", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Chunk a file or a folder; JSON Lines on stdout unless --out or --output say otherwise.
    Chunk(ChunkArgs),
    /// Gather whole chunks of many files into packs for sub-agents: ordered by imports (import
    /// cycles together), each pack within the budget and opening with a frame that says what
    /// it covers, defines and needs; a folder of pack files and a manifest with --out, else
    /// one JSON record per pack on stdout.
    Pack(PackArgs),
    /// Chunk a file or a folder into an index that `outline`, `select` and `read` use while it
    /// is current: records, outlines and term statistics, kept per file by content, so that a
    /// re-run after edits reads and chunks only the changed files.
    Index(IndexArgs),
    /// Print the outline of a file or a folder: each file's symbols or numbered sections with
    /// their lines and the ids of the chunks that hold them, grouped by folder.
    Outline(OutlineArgs),
    /// Choose the chunks a question needs, whole, within a total budget, in reading order,
    /// each tagged with where it comes from.
    Select(SelectArgs),
    /// Print chosen chunks by id (as listed by `outline` or `select`) within a budget.
    Read(ReadArgs),
    /// Serve read-only outline, select, read and segment tools over MCP on stdin/stdout, for
    /// the files under the given roots.
    Mcp(McpArgs),
    /// Print the atom tree of one file, as the chunker sees it.
    DumpAtoms(DumpArgs),
    /// Print the text view of one file that records' byte ranges index: the file itself for
    /// text, the decoded Markdown for a document (DOCX, PPTX, XLSX), UTF-8 for UTF-16.
    Extract(DumpArgs),
    /// Check JSON Lines written by `cleave chunk` against the files they came from: every
    /// body is the file's slice, bodies tile each file, every chunk is within the budget.
    Verify(VerifyArgs),
}

/// Arguments of `cleave verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The JSON Lines file (`-` for stdin), or a folder written by `cleave chunk --out` or
    /// `cleave pack --out`.
    pub jsonl: PathBuf,
    /// The PATH given to `cleave chunk` or `cleave pack` (a file or the walked folder).
    #[arg(long)]
    pub root: PathBuf,
    /// Budget, unit, tokenizer, overlap and headers, as given to `cleave chunk`.
    #[command(flatten)]
    pub size: SizeArgs,
    /// Which files the run walked, as given to `cleave chunk`.
    #[command(flatten)]
    pub walk: WalkArgs,
    /// Accept JSON Lines without any record (a root with nothing to chunk).
    #[arg(long)]
    pub allow_empty: bool,
}

/// Budget units on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UnitArg {
    /// Unicode scalar values (Python's `len`).
    Chars,
    /// BPE tokens (see --tokenizer).
    Tokens,
    /// UTF-8 bytes.
    Bytes,
    /// A cheap token estimate (bytes / 4).
    Estimate,
}

/// Where text that needs several chunks is cut, on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CutsArg {
    /// Chunks as even in size as the boundaries allow.
    Balanced,
    /// Every chunk but the last as full as the boundaries allow (as `cleave pack` cuts its
    /// members).
    Fill,
}

impl From<CutsArg> for cleave_engine::Cuts {
    fn from(cuts: CutsArg) -> Self {
        match cuts {
            CutsArg::Balanced => Self::Balanced,
            CutsArg::Fill => Self::Fill,
        }
    }
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// One JSON record per chunk per line.
    Jsonl,
    /// One JSON document with every file's outcome and every chunk.
    Json,
}

/// Tokenizers on the command line: a built-in BPE, or a Hugging Face `tokenizer.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenizerArg {
    /// OpenAI o200k_base.
    O200k,
    /// OpenAI cl100k_base.
    Cl100k,
    /// A Hugging Face tokenizer file.
    File(PathBuf),
}

/// `o200k`, `cl100k`, or a path to a `tokenizer.json`.
fn parse_tokenizer(value: &str) -> Result<TokenizerArg, String> {
    match value {
        "o200k" => Ok(TokenizerArg::O200k),
        "cl100k" => Ok(TokenizerArg::Cl100k),
        path if path.ends_with(".json") || std::path::Path::new(path).is_file() => {
            Ok(TokenizerArg::File(PathBuf::from(path)))
        }
        other => Err(format!("{other:?}: give o200k, cl100k or the path of a tokenizer.json")),
    }
}

/// Arguments of `cleave chunk`.
#[derive(Debug, clap::Args)]
pub struct ChunkArgs {
    /// A file or a folder to chunk.
    pub path: PathBuf,
    /// Budget, unit, tokenizer, overlap, headers.
    #[command(flatten)]
    pub size: SizeArgs,
    /// Where text that needs several chunks is cut.
    #[arg(long, value_enum, default_value_t = CutsArg::Balanced)]
    pub cuts: CutsArg,
    /// Output format on stdout (or in --output).
    #[arg(long, value_enum, default_value_t = FormatArg::Jsonl)]
    pub format: FormatArg,
    /// Write one file per chunk and a manifest.json into this folder instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// With --out: replace a non-empty folder that is not an earlier cleave output.
    #[arg(long)]
    pub force: bool,
    /// Write the records to this file instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Worker threads (default: one per core; at most four per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Write the full per-file report (JSON) here.
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Keep per-file results in this folder and reuse them: a re-run chunks only the files
    /// (or options, or cleave build) that changed. Never walked as input.
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Which files to walk.
    #[command(flatten)]
    pub walk: WalkArgs,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// How `cleave pack` orders files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PackOrderArg {
    /// By imports: cycles together, dependencies before their users, else path order.
    Imports,
    /// Path order only (the baseline for import locality).
    Directory,
}

/// Arguments of `cleave pack`.
#[derive(Debug, clap::Args)]
pub struct PackArgs {
    /// A file or a folder to pack.
    pub path: PathBuf,
    /// Most units of one pack: frame, member headers and bodies. Members are chunked at this
    /// less the frame's reserve (a twentieth, at least an eighth up to 120, at most 400).
    #[arg(long, default_value_t = 8000)]
    pub budget: usize,
    /// What the budget counts.
    #[arg(long, value_enum, default_value_t = UnitArg::Chars)]
    pub unit: UnitArg,
    /// The BPE vocabulary for --unit tokens.
    #[arg(long, default_value = "o200k", value_parser = parse_tokenizer)]
    pub tokenizer: TokenizerArg,
    /// How files are ordered before they are cut into packs.
    #[arg(long, value_enum, default_value_t = PackOrderArg::Imports)]
    pub order: PackOrderArg,
    /// Write `packs/NNNN.txt` and a manifest.json into this folder instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// With --out: replace a non-empty folder that is not an earlier cleave output.
    #[arg(long)]
    pub force: bool,
    /// Also pack in directory order and report its import locality beside this run's.
    #[arg(long)]
    pub baseline: bool,
    /// Worker threads that chunk (default: one per core; at most four per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Which files to walk.
    #[command(flatten)]
    pub walk: WalkArgs,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Arguments of `cleave outline`.
#[derive(Debug, clap::Args)]
pub struct OutlineArgs {
    /// A file or a folder.
    pub path: PathBuf,
    /// Most units of text output: the least important entries (private, nested, in tests,
    /// named in no other file) and files are left out first, and counted.
    #[arg(long)]
    pub budget: Option<usize>,
    /// Text for people and agents, or JSON for programs (always whole).
    #[arg(long, value_enum, default_value_t = OutlineFormat::Text)]
    pub format: OutlineFormat,
    /// How the files are chunked.
    #[command(flatten)]
    pub chunking: ChunkingArgs,
}

/// How `outline`, `select` and `read` chunk: the chunk ids they show belong to these values.
#[derive(Debug, clap::Args)]
pub struct ChunkingArgs {
    /// The budget of each chunk (as `cleave chunk --budget`): chunk ids belong to it.
    #[arg(long, default_value_t = 1000)]
    pub chunk_budget: usize,
    /// What the budgets count.
    #[arg(long, value_enum, default_value_t = UnitArg::Chars)]
    pub unit: UnitArg,
    /// The BPE vocabulary for --unit tokens.
    #[arg(long, default_value = "o200k", value_parser = parse_tokenizer)]
    pub tokenizer: TokenizerArg,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The index folder (default: .cleave-index in the folder, or beside the file): written by
    /// `cleave index`, used by the others while it is current for these chunking options.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Chunk on the fly even where an index exists.
    #[arg(long, conflicts_with = "index")]
    pub no_index: bool,
    /// Which files to walk.
    #[command(flatten)]
    pub walk: WalkArgs,
}

/// Arguments of `cleave index`.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// A file or a folder.
    pub path: PathBuf,
    /// How the files are chunked; --index names the index folder.
    #[command(flatten)]
    pub chunking: ChunkingArgs,
}

/// Arguments of `cleave select`.
#[derive(Debug, clap::Args)]
pub struct SelectArgs {
    /// A file or a folder.
    pub path: PathBuf,
    /// The question.
    #[arg(long, short = 'q')]
    pub query: String,
    /// Most units of the whole selection, tags and headers included.
    #[arg(long, default_value_t = 4000)]
    pub budget: usize,
    /// The kind of question (guessed from its words when not given).
    #[arg(long, value_enum)]
    pub query_type: Option<QueryTypeArg>,
    /// Terms that weigh more than the question's own words (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub keywords: Vec<String>,
    /// Most passages.
    #[arg(long, default_value_t = 20)]
    pub max_segments: usize,
    /// A single file whose text takes at most this many units is returned whole if it fits.
    #[arg(long, default_value_t = 12_000)]
    pub passthrough: usize,
    /// Text for agents, or JSON for programs.
    #[arg(long, value_enum, default_value_t = OutlineFormat::Text)]
    pub format: OutlineFormat,
    /// How the files are chunked.
    #[command(flatten)]
    pub chunking: ChunkingArgs,
}

/// Arguments of `cleave read`.
#[derive(Debug, clap::Args)]
pub struct ReadArgs {
    /// A file or a folder.
    pub path: PathBuf,
    /// Chunk ids or unique prefixes of them (comma-separated), read in the order given.
    #[arg(long, value_delimiter = ',', required = true)]
    pub ids: Vec<String>,
    /// Most units of the output, tags and headers included.
    #[arg(long, default_value_t = 8000)]
    pub budget: usize,
    /// Text for agents, or JSON for programs.
    #[arg(long, value_enum, default_value_t = OutlineFormat::Text)]
    pub format: OutlineFormat,
    /// How the files are chunked.
    #[command(flatten)]
    pub chunking: ChunkingArgs,
}

/// Kinds of question on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueryTypeArg {
    /// What something is or why: overview sections first.
    Concept,
    /// How something is computed: algorithms, proofs, formulas first.
    Algorithm,
    /// How to implement or change something: code first.
    Code,
}

/// Outline formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutlineFormat {
    /// Indented text.
    Text,
    /// One JSON document.
    Json,
}

/// Arguments of `cleave mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// A folder the tools may read (repeatable); tool paths are relative to one of them.
    #[arg(long = "root", required = true)]
    pub roots: Vec<PathBuf>,
    /// Worker threads that chunk (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Skip files larger than this many bytes (they are not read).
    #[arg(long, default_value_t = cleave_engine::DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,
}

/// Arguments of `cleave dump-atoms`.
#[derive(Debug, clap::Args)]
pub struct DumpArgs {
    /// The file to atomize.
    pub file: PathBuf,
}

/// Which files a walk takes: shared by `cleave chunk` and `cleave verify`.
#[derive(Debug, clap::Args)]
pub struct WalkArgs {
    /// Also chunk hidden files and folders.
    #[arg(long)]
    pub hidden: bool,
    /// Do not honour .gitignore, .ignore and similar files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Follow symbolic links whose target lies inside the walked root (others are skipped).
    #[arg(long)]
    pub follow: bool,
    /// Skip files larger than this many bytes (they are not read).
    #[arg(long, default_value_t = cleave_engine::DEFAULT_MAX_FILE_SIZE)]
    pub max_file_size: u64,
}

/// How chunks are sized: shared by `cleave chunk` and `cleave verify`.
#[derive(Debug, clap::Args)]
pub struct SizeArgs {
    /// Most units a chunk may have, header included.
    #[arg(long, default_value_t = 2000)]
    pub budget: usize,
    /// What the budget counts.
    #[arg(long, value_enum, default_value_t = UnitArg::Chars)]
    pub unit: UnitArg,
    /// The BPE vocabulary for --unit tokens.
    #[arg(long, default_value = "o200k", value_parser = parse_tokenizer)]
    pub tokenizer: TokenizerArg,
    /// Units of the previous chunk repeated at the start of each chunk (from a line, sentence
    /// or word start; never from inside a fence, formula or table).
    #[arg(long, default_value_t = 0)]
    pub overlap: usize,
    /// Do not inject context headers.
    #[arg(long)]
    pub no_headers: bool,
}

/// A validated configuration of `budget` units of `unit`, counted by `tokenizer` for tokens.
pub fn config(budget: usize, unit: UnitArg, tokenizer: &TokenizerArg) -> Result<ChunkConfig> {
    let bpe = match tokenizer {
        TokenizerArg::O200k => Tokenizer::O200k,
        TokenizerArg::Cl100k => Tokenizer::Cl100k,
        TokenizerArg::File(path) => {
            if unit != UnitArg::Tokens {
                anyhow::bail!("--tokenizer {} counts tokens: add --unit tokens", path.display());
            }
            #[cfg(feature = "hf-tokenizers")]
            {
                let sizer = cleave_engine::HfTokenizer::from_file(path)?;
                return Ok(ChunkConfig::from_sizer(budget, std::sync::Arc::new(sizer))?);
            }
            #[cfg(not(feature = "hf-tokenizers"))]
            anyhow::bail!("this cleave was built without the hf-tokenizers feature");
        }
    };
    let unit = match unit {
        UnitArg::Chars => Unit::Chars,
        UnitArg::Bytes => Unit::Bytes,
        UnitArg::Estimate => Unit::Estimate,
        UnitArg::Tokens => Unit::Tokens(bpe),
    };
    Ok(ChunkConfig::new(budget, unit)?)
}

impl SizeArgs {
    /// The validated configuration these values describe.
    pub fn config(&self) -> Result<ChunkConfig> {
        Ok(config(self.budget, self.unit, &self.tokenizer)?
            .with_overlap(self.overlap)?
            .with_headers(!self.no_headers))
    }
}

impl WalkArgs {
    /// The walk these values describe, on `threads` threads, leaving `exclude` out.
    pub fn options(&self, threads: usize, exclude: Vec<PathBuf>) -> WalkOptions {
        WalkOptions {
            hidden: self.hidden,
            no_ignore: self.no_ignore,
            follow: self.follow,
            exclude,
            threads,
        }
    }
}
