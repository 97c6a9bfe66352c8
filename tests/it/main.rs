//! End-to-end tests: the `cleave` binary on the fixtures, every record checked by the shared
//! invariant checker.

mod agent;
mod cli;
mod documents;
mod packs;
mod review;
mod safety;
mod snapshots;
mod support;
mod tidy;
