//! Prints the chunks of a file: `cargo run -p cleave-code --example chunks -- FILE [BUDGET]`.

use cleave_core::{ChunkConfig, Source, Unit, pack};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: chunks FILE [BUDGET]");
    let budget: usize = args.next().map_or(2000, |b| b.parse().expect("a number"));
    let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    let language = cleave_code::language_for_file(&path, &text).expect("a known extension");
    let tree = cleave_code::atomize_code(language, &text, &mut cleave_code::ParseContext::new());
    let source = Source::new(&path, &text);
    let config = ChunkConfig::new(budget, Unit::Chars).expect("a valid budget");
    for c in pack(&source, &tree, &config) {
        let first = c.text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        println!(
            "{:>5} (header {:>3}) lines {:>5}-{:<5} {:?} | {}",
            c.tokens,
            c.header.chars().count(),
            c.line_start,
            c.line_end,
            c.scope,
            first.chars().take(60).collect::<String>()
        );
    }
}
