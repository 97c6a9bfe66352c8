//! Markdown documents: `atomize_prose` → `pack` → the shared checker → `classify`.
//!
//! Input: the option bytes, then the document.

#![no_main]

use cleave_prose::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cleave_fuzz::prose::run(Format::Markdown, data));
