//! Lists the files of a folder whose atomizing reported diagnostics:
//! `cargo run -p cleave-code --example diagnostics -- DIR`.

fn main() {
    let root = std::env::args().nth(1).expect("usage: diagnostics DIR");
    let mut ctx = cleave_code::ParseContext::new();
    let mut stack = vec![std::path::PathBuf::from(root)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.to_string_lossy().into_owned();
            let Some(language) = cleave_code::language_for_path(&name) else { continue };
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let tree = cleave_code::atomize_code(language, &text, &mut ctx);
            for d in &tree.diagnostics {
                println!("{name}: {:?}: {}", d.severity, d.message);
            }
        }
    }
}
