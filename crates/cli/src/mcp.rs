//! `cleave mcp`: the MCP server of `cleave-mcp` on stdin/stdout. Stdout belongs to the
//! protocol, so this prints nothing there; the one line of news goes to stderr, which MCP
//! clients keep as the server's log.

use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::args::McpArgs;
use crate::term;

pub fn run(args: &McpArgs) -> Result<ExitCode> {
    let options = cleave_mcp::Options {
        threads: crate::chunk::threads(args.threads),
        max_file_size: args.max_file_size,
    };
    let roots: Vec<String> = args.roots.iter().map(|r| r.display().to_string()).collect();
    term::note(format_args!("cleave mcp: serving {} on stdio", roots.join(", ")));
    cleave_mcp::serve_stdio(&args.roots, &options).context("cleave mcp")?;
    Ok(ExitCode::SUCCESS)
}
