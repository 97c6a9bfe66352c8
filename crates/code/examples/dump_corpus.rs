//! Atomizes every source file under the given folders and prints one line per file: its path
//! and a hash of its atom tree (`Debug`). Two builds that print the same lines give the same atom trees;
//! handy to check that a change of the atomizer's machinery changes no output.
//!
//! ```text
//! cargo run --release -p cleave-code --example dump_corpus -- DIR… > hashes.txt
//! ```

mod common;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;

use cleave_code::{ParseContext, atomize_code, language_for_path};

fn main() {
    let files = common::files_under(std::env::args().skip(1).map(PathBuf::from));
    let mut ctx = ParseContext::new();
    for path in files {
        let name = path.to_string_lossy();
        let Some(language) = language_for_path(&name) else { continue };
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let tree = atomize_code(language, &text, &mut ctx);
        let mut hasher = DefaultHasher::new();
        format!("{tree:?}").hash(&mut hasher);
        println!("{name} {:016x}", hasher.finish());
    }
}
