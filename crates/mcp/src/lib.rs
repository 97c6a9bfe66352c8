//! cleave-mcp: `cleave mcp`, a stdio MCP server on the engine (rmcp).
//!
//! Four read-only tools — `outline`, `select`, `read`, `segment` — answer from the engine's
//! per-file results, the same records `cleave chunk` writes: this crate never chunks a second
//! way. Every `path` a tool is given is resolved by the file system and must lie inside one of
//! the roots the server was started with; the server reads nothing else and writes nothing.
//! Results are kept in memory per (root, chunk budget, unit) and only files whose size or
//! modification stamp changed are chunked again.
//!
//! rmcp's API has moved often, so it is used here and nowhere else. Stdout is the transport:
//! nothing in this crate writes to it, or to stderr.

#![deny(missing_docs)]

mod cache;
mod roots;
mod server;
mod tools;

use std::io;
use std::path::PathBuf;

use rmcp::ServiceExt;

pub use server::CleaveServer;

/// How the server chunks.
#[derive(Debug, Clone)]
pub struct Options {
    /// Threads that chunk (at least one).
    pub threads: usize,
    /// Files above this size are skipped without being read.
    pub max_file_size: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            max_file_size: cleave_engine::DEFAULT_MAX_FILE_SIZE,
        }
    }
}

impl CleaveServer {
    /// A server that may read under `roots` (each a folder; canonicalised now).
    pub fn with_roots(roots: &[PathBuf], options: &Options) -> io::Result<Self> {
        let roots = roots::Roots::new(roots)?;
        let cache = cache::Cache::new(options.threads, options.max_file_size)?;
        Ok(Self::new(tools::State { roots, cache }))
    }
}

/// Serves the tools on stdin/stdout until the client closes stdin.
pub fn serve_stdio(roots: &[PathBuf], options: &Options) -> io::Result<()> {
    serve(CleaveServer::with_roots(roots, options)?)
}

/// Serves `server`'s tools on stdin/stdout until the client closes stdin.
pub fn serve(server: CleaveServer) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let res = rt.block_on(async move {
        let service = server.serve(rmcp::transport::stdio()).await.map_err(io::Error::other)?;
        service.waiting().await.map_err(io::Error::other)?;
        Ok(())
    });
    // A read of stdin that is still pending cannot be cancelled: leave it behind rather than
    // wait for input that may never come.
    rt.shutdown_background();
    res
}
