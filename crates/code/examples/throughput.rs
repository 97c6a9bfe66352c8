//! Parse-only against atomize throughput over a folder, one thread:
//! `cargo run --release -p cleave-code --example throughput -- DIR`.

use std::time::Instant;

mod common;

fn main() {
    let root = std::env::args().nth(1).expect("usage: throughput DIR");
    let files: Vec<_> = common::files_under([std::path::PathBuf::from(root)])
        .into_iter()
        .filter_map(|path| {
            let language = cleave_code::language_for_path(&path.to_string_lossy())
                .filter(|l| l.has_grammar())?;
            Some((language, std::fs::read_to_string(&path).ok()?))
        })
        .collect();
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
    let mb = bytes as f64 / 1e6;
    let started = Instant::now();
    let mut parser = tree_sitter::Parser::new();
    for (language, text) in &files {
        let grammar = language.tree_sitter_language().expect("a grammar in this build");
        parser.set_language(&grammar).expect("a compatible grammar");
        std::hint::black_box(parser.parse(text, None));
    }
    let parse = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let mut ctx = cleave_code::ParseContext::new();
    let mut atoms = 0;
    for (language, text) in &files {
        atoms += cleave_code::atomize_code(language, text, &mut ctx).root.count();
    }
    let atomize = started.elapsed().as_secs_f64();
    println!(
        "{} files, {mb:.1} MB: parse only {:.1} MB/s, atomize {:.1} MB/s ({:.0}% of parse-only), {atoms} atoms",
        files.len(),
        mb / parse,
        mb / atomize,
        parse / atomize * 100.0
    );
}
