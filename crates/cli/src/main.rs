//! `cleave`: a thin face on `cleave-engine`: arguments, output modes, progress, `verify`.
//!
//! The engine walks, reads, chunks and annotates; this binary decides where records go and
//! makes sure that no output ever destroys an input (`guard`), that outputs appear whole or
//! not at all (`atomic`), and that a closed pipe or a full disk ends the run with the right
//! exit code instead of a panic (`term`). Exit codes: 0 every file read; 1 some file could not
//! be read (or `verify` found violations); 2 bad arguments or an unusable output.

mod agent;
mod args;
mod atomic;
mod chunk;
mod guard;
mod index;
mod mcp;
mod outline;
mod pack;
mod printer;
mod term;
mod verify;

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;
use cleave_engine::{decode, dump_atoms, read_path};

use crate::args::{Cli, Command, DumpArgs};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match cli.command {
        Command::Chunk(args) => chunk::run(&args),
        Command::Pack(args) => pack::run(&args),
        Command::Index(args) => index::run(&args),
        Command::Outline(args) => outline::run(&args),
        Command::Select(args) => agent::run_select(&args),
        Command::Read(args) => agent::run_read(&args),
        Command::Mcp(args) => mcp::run(&args),
        Command::DumpAtoms(args) => run_dump(&args, false),
        Command::Extract(args) => run_dump(&args, true),
        Command::Verify(args) => verify::run(&args),
    };
    if atomic::wait_if_interrupted() {
        return ExitCode::from(130);
    }
    match res {
        Ok(code) => code,
        // A closed pipe (`cleave chunk . | head`) is how the reader says it has enough.
        Err(err) if term::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            term::warn(format_args!("{err:#}"));
            ExitCode::from(2)
        }
    }
}

/// `cleave dump-atoms FILE`, or with `extract` `cleave extract FILE`: the text view itself.
fn run_dump(args: &DumpArgs, extract: bool) -> Result<ExitCode> {
    let path = &args.file;
    let bytes = read_path(path, u64::MAX)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let rel = path.to_string_lossy().replace('\\', "/");
    let decoded = decode(&rel, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let out = if extract { decoded.text } else { dump_atoms(&rel, &decoded) };
    term::stdout(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
