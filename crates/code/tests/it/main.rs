//! The code atomizer's integration tests, one binary: behaviour on small inputs (`atoms`),
//! caret fixtures and snapshots (`fixtures`), and quality bars on real corpora (`corpus`, slow).

mod atoms;
mod corpus;
mod fixtures;
