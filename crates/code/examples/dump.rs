//! Prints the atom tree of a file: `cargo run -p cleave-code --example dump -- FILE`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: dump FILE");
    let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    let language = cleave_code::language_for_file(&path, &text).expect("a known extension");
    if std::env::var_os("CLEAVE_SEXP").is_some() {
        let mut parser = tree_sitter::Parser::new();
        let grammar = language.tree_sitter_language().expect("a grammar in this build");
        parser.set_language(&grammar).expect("a compatible grammar");
        let syntax = parser.parse(&text, None).expect("a syntax tree");
        println!("{}", syntax.root_node().to_sexp());
    }
    let tree = cleave_code::atomize_code(language, &text, &mut cleave_code::ParseContext::new());
    print!("{}", cleave_code::dump_atoms(&tree, &text));
}
