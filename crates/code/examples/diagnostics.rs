//! Lists the files of a folder whose atomizing reported diagnostics:
//! `cargo run -p cleave-code --example diagnostics -- DIR`.

mod common;

fn main() {
    let root = std::env::args().nth(1).expect("usage: diagnostics DIR");
    let mut ctx = cleave_code::ParseContext::new();
    for path in common::files_under([std::path::PathBuf::from(root)]) {
        let name = path.to_string_lossy().into_owned();
        let Some(language) = cleave_code::language_for_path(&name) else { continue };
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let tree = cleave_code::atomize_code(language, &text, &mut ctx);
        for d in &tree.diagnostics {
            println!("{name}: {:?}: {}", d.severity, d.message);
        }
    }
}
