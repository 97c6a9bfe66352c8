//! Chunk records through the engine: a file's bytes → `decode` → `chunk_decoded` (detect,
//! atomize, pack, annotate) → every chunk written by the engine's record writer, which must
//! be byte for byte what `serde_json` writes (its promise), hold no raw line break (one JSON
//! Lines record a line), and read back as the same chunk; the chunks keep every invariant
//! that needs no tree (`check_chunks`) over the decoded text view.
//!
//! Input: the option bytes, one byte choosing the file name (and so the detected format:
//! Markdown, LaTeX, text, RST, JSON, YAML, TOML, code in each language, no extension), then
//! the file's raw bytes: not UTF-8, UTF-16 with a byte-order mark and binary are the
//! decoder's business, and a file it refuses has no records.

#![no_main]

use cleave_core::Chunk;
use cleave_engine::{Context, Settings, chunk_decoded, decode, write_chunk, write_str};
use cleave_fuzz::{Options, check_records};
use libfuzzer_sys::fuzz_target;

/// File names, one per format the engine detects; quotes, a backslash and a control char in
/// the folder name test the escaping of `path` in every record.
const PATHS: &[&str] = &[
    "docs/\"q\"\\\u{7}/guide.md",
    "paper/main.tex",
    "notes.txt",
    "docs/index.rst",
    "package.json",
    ".github/ci.yaml",
    "Cargo.toml",
    "src/lib.rs",
    "app/main.py",
    "web/api.js",
    "web/shapes.ts",
    "web/Button.tsx",
    "cmd/server.go",
    "src/Cache.java",
    "README",
    "bin/run-me",
    "docs/report.docx",
    "docs/deck.pptx",
    "docs/book.xlsx",
    // Second-wave languages: other header comment syntaxes (`/* */`, `<!-- -->`, `--`) and
    // injected regions (a Vue or Svelte component's script and style, PHP's HTML).
    "web/App.vue",
    "web/Counter.svelte",
    "site/index.html",
    "web/cart.php",
    "style/site.css",
    "db/schema.sql",
    "src/list.c",
    "scripts/deploy.sh",
];

fuzz_target!(|data: &[u8]| {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let Some((&pick, rest)) = rest.split_first() else { return };
    let path = PATHS[usize::from(pick) % PATHS.len()];
    let Ok(decoded) = decode(path, rest.to_vec()) else { return };
    let settings = Settings::new(opts.config.clone());
    let result = chunk_decoded(path, &decoded, &settings, &mut Context::new());
    let mut read = Vec::with_capacity(result.chunks.len());
    for chunk in &result.chunks {
        let mut line = Vec::new();
        if let Err(e) = write_chunk(&mut line, chunk) {
            panic!("record does not serialize: {e}");
        }
        match serde_json::to_vec(chunk) {
            Ok(expected) => assert!(
                line == expected,
                "the record writer differs from serde_json:\n{}\n{}",
                String::from_utf8_lossy(&line),
                String::from_utf8_lossy(&expected)
            ),
            Err(e) => panic!("serde_json does not serialize the chunk: {e}"),
        }
        assert!(!line.contains(&b'\n'), "a JSON Lines record holds a raw line break");
        let back: Chunk = match serde_json::from_slice(&line) {
            Ok(back) => back,
            Err(e) => panic!("record does not read back: {e}\n{}", String::from_utf8_lossy(&line)),
        };
        assert_eq!(&back, chunk, "record read back differs");
        read.push(back);
    }
    // The string escaper on its own, over the whole text view: every byte pattern a body can
    // hold, whatever the chunker made of it.
    let mut escaped = Vec::new();
    write_str(&mut escaped, &decoded.text);
    match serde_json::to_vec(&decoded.text) {
        Ok(expected) => assert!(escaped == expected, "write_str differs from serde_json"),
        Err(e) => panic!("serde_json does not serialize the text: {e}"),
    }
    check_records(path, &decoded.text, &read, &opts.config);
});
