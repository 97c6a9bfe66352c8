//! Per file: atoms, symbol atoms, and a hash of the chunk ranges at 2000 chars; to measure how
//! far a deliberate change of the atomizer moves the output.
//!
//! ```text
//! cargo run --release -p cleave-code --example count_corpus -- DIR… > counts.txt
//! ```

mod common;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;

use cleave_code::{ParseContext, atomize_code, language_for_path};
use cleave_core::{Atom, AtomKind, ChunkConfig, Source, Unit, pack};

fn count(atom: &Atom, atoms: &mut usize, symbols: &mut usize) {
    *atoms += 1;
    if atom.kind == AtomKind::Symbol {
        *symbols += 1;
    }
    for child in &atom.children {
        count(child, atoms, symbols);
    }
}

fn main() {
    let files = common::files_under(std::env::args().skip(1).map(PathBuf::from));
    let mut ctx = ParseContext::new();
    let config = ChunkConfig::new(2000, Unit::Chars).expect("a valid budget");
    for path in files {
        let name = path.to_string_lossy();
        let Some(language) = language_for_path(&name) else { continue };
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let tree = atomize_code(language, &text, &mut ctx);
        let (mut atoms, mut symbols) = (0, 0);
        count(&tree.root, &mut atoms, &mut symbols);
        let source = Source::new(&name, &text);
        let mut hasher = DefaultHasher::new();
        let mut chunks = 0;
        for c in pack(&source, &tree, &config) {
            (c.line_start, c.line_end, &c.header, &c.text).hash(&mut hasher);
            chunks += 1;
        }
        println!("{name} {atoms} {symbols} {chunks} {:016x}", hasher.finish());
    }
}
