//! The code atomizer's integration tests, one binary: behaviour on small inputs (`atoms`),
//! caret fixtures and snapshots (`fixtures`), fuzz findings (`fuzz_regressions`), the README's
//! languages table (`readme`), and quality bars on real corpora (`corpus`, slow).

mod atoms;
mod corpus;
mod fixtures;
mod fuzz_regressions;
mod readme;
