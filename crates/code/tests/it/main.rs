//! The code atomizer's integration tests, one binary: behaviour on small inputs (`atoms`),
//! caret fixtures and snapshots (`fixtures`), the README's languages table (`readme`), and quality
//! bars on real corpora (`corpus`, slow).

mod atoms;
mod corpus;
mod fixtures;
mod readme;
