//! The MCP server: four read-only tools on rmcp's router. Each call runs on tokio's blocking
//! pool (it walks, reads and chunks), and every failure — a path outside the roots, a bad
//! argument, even a panic — comes back as a tool error result with a message, so that the
//! client's model sees why and the server keeps answering.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{Json, ServerHandler, tool, tool_handler, tool_router};
use serde::Serialize;

use crate::tools::{
    OutlineParams, OutlineResult, ReadParams, ReadResult, SegmentParams, SegmentResult,
    SelectParams, SelectResult, State,
};

/// The server: shared state and the tool router.
#[derive(Clone)]
pub struct CleaveServer {
    state: Arc<State>,
    tool_router: ToolRouter<Self>,
}

/// Runs `work` on the blocking pool; a panic becomes an error message, not a dead server.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let joined = tokio::task::spawn_blocking(move || catch_unwind(AssertUnwindSafe(work))).await;
    match joined {
        Ok(Ok(res)) => res,
        Ok(Err(_)) => {
            Err("internal error: cleave panicked on this call (a bug: please report it)".into())
        }
        Err(e) => Err(format!("internal error: the call did not finish ({e})")),
    }
}

/// A result whose text content is what an agent reads (`text`) and whose structured content
/// is the whole answer.
fn text_and_structured(text: String, value: &impl Serialize) -> Result<CallToolResult, String> {
    let value = serde_json::to_value(value).map_err(|e| format!("internal error: {e}"))?;
    let mut res = CallToolResult::success(vec![ContentBlock::text(text)]);
    res.structured_content = Some(value);
    Ok(res)
}

#[tool_router]
impl CleaveServer {
    /// A server on `state`.
    pub fn new(state: State) -> Self {
        Self { state: Arc::new(state), tool_router: Self::tool_router() }
    }

    /// The outline of a file or folder: per file its language or document type, and its
    /// symbols (code) or numbered sections (documents) with lines and the ids of the chunks
    /// that hold them. Read it first; then `select` or `read`.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    async fn outline(
        &self,
        Parameters(p): Parameters<OutlineParams>,
    ) -> Result<Json<OutlineResult>, String> {
        let state = self.state.clone();
        blocking(move || state.outline(&p)).await.map(Json)
    }

    /// The passages a question needs from a file or folder: chunks ranked (BM25F over body,
    /// header, symbols and section path, with priors for the kind of question), chosen whole
    /// within the total budget, in reading order, each under a provenance tag. The text
    /// content is the rendered passages.
    #[tool(
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<SelectResult>()
    )]
    async fn select(
        &self,
        Parameters(p): Parameters<SelectParams>,
    ) -> Result<CallToolResult, String> {
        let state = self.state.clone();
        let res = blocking(move || state.select(&p)).await?;
        // An empty text content reads as a broken tool to a model: say what happened instead.
        let text = if res.passages.is_empty() && res.left_out > 0 {
            format!(
                "({} chunks match the query, but none fits the budget with its tag: give a \
                 larger budget, or a smaller chunk_budget)\n",
                res.left_out
            )
        } else if res.passages.is_empty() {
            "(no chunk matches the query: try other words, keywords, or a wider path)\n".to_owned()
        } else {
            res.text.clone()
        };
        text_and_structured(text, &res)
    }

    /// Chunks by id (from `outline`, `select` or `segment`), in the order given, within a
    /// budget; says which ids were not found or did not fit. Use the same path (or one above
    /// it), chunk_budget and unit the ids were listed with (`select` reports its chunk_budget).
    #[tool(
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<ReadResult>()
    )]
    async fn read(&self, Parameters(p): Parameters<ReadParams>) -> Result<CallToolResult, String> {
        let state = self.state.clone();
        let res = blocking(move || state.read(&p)).await?;
        let mut text = res.text.clone();
        for (what, ids) in [("not found", &res.not_found), ("did not fit", &res.did_not_fit)] {
            if !ids.is_empty() {
                text.push_str(&format!("({what}: {})\n", ids.join(", ")));
            }
        }
        text_and_structured(text, &res)
    }

    /// The chunk records of a file or folder, as `cleave chunk --format jsonl` writes them
    /// (id, path, lines, header, text, symbols, scope, provenance…), a page at a time: pass
    /// `next_cursor` back as `cursor` for the next page.
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    async fn segment(
        &self,
        Parameters(p): Parameters<SegmentParams>,
    ) -> Result<Json<SegmentResult>, String> {
        let state = self.state.clone();
        blocking(move || state.segment(&p)).await.map(Json)
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "cleave",
    instructions = "cleave chunks the files under this server's roots into whole units (functions, classes, sections) with their provenance. Start with `outline` on \".\" or a folder, then `select` passages for a question within a budget, or `read` chunks by id; `segment` pages through the raw chunk records. Paths are relative to a root; nothing outside the roots is read, and nothing is ever written."
)]
impl ServerHandler for CleaveServer {}
