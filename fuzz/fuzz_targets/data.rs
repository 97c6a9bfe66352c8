//! JSON, YAML and TOML: `atomize_prose` → `pack` → the shared checker → `classify`.
//!
//! Input: the option bytes, one byte choosing the format (modulo 3: JSON, YAML, TOML), then
//! the document.

#![no_main]

use cleave_prose::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cleave_fuzz::prose::run_one_of(&[Format::Json, Format::Yaml, Format::Toml], data)
});
