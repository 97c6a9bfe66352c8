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
    // The roots are checked before the server says it serves them.
    let server =
        cleave_mcp::CleaveServer::with_roots(&args.roots, &options).context("cleave mcp")?;
    let roots: Vec<String> = args.roots.iter().map(|r| r.display().to_string()).collect();
    term::note(format_args!("cleave mcp: serving {} on stdio", roots.join(", ")));
    cleave_mcp::serve(server).context("cleave mcp")?;
    Ok(ExitCode::SUCCESS)
}
