//! The prose atomizers' integration tests, one binary: Markdown, LaTeX, text and RST, data
//! formats, classification, and snapshots of every prose fixture over budgets and units.

mod classify;
mod common;
mod data;
mod latex;
mod markdown;
mod snapshots;
mod text;
