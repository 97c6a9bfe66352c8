//! Each atomizer on about 256 KB of its language: code from the corpora of `corpus.sh` (run it
//! first; synthetic Rust-like code stands in otherwise), prose from synthetic documents. Each
//! code language also has `parse_only`, tree-sitter alone on the same files: the floor the
//! atomizer stands on.

use cleave_bench::{
    code_sample, grammar, parse_with_injections, synthetic_latex, synthetic_markdown,
    synthetic_text,
};
use cleave_code::{ParseContext, atomize_code, language_by_name};
use cleave_prose::{Format, atomize_prose};
use divan::counter::BytesCount;
use divan::{AllocProfiler, Bencher};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

const SIZE: usize = 256 * 1024;
/// The first wave of languages, then the second (issue 16).
#[rustfmt::skip]
const LANGUAGES: [&str; 17] = [
    "rust", "python", "typescript", "go", "java",
    "c", "cpp", "bash", "csharp", "ruby", "php", "kotlin", "scala", "swift", "css", "vue", "svelte",
];

fn main() {
    for lang in LANGUAGES {
        let (files, from) = code_sample(lang, SIZE);
        let n: usize = files.iter().map(String::len).sum();
        eprintln!("atomizers: {lang}: {} files, {n} bytes ({from})", files.len());
    }
    divan::main();
}

fn bytes(files: &[String]) -> usize {
    files.iter().map(String::len).sum()
}

#[divan::bench(args = LANGUAGES)]
fn atomize(bencher: Bencher, lang: &str) {
    let (files, _) = code_sample(lang, SIZE);
    let language = language_by_name(lang).unwrap();
    let mut ctx = ParseContext::new();
    bencher.counter(BytesCount::new(bytes(&files))).bench_local(|| {
        for text in &files {
            divan::black_box(atomize_code(language, text, &mut ctx));
        }
    });
}

#[divan::bench(args = LANGUAGES)]
fn parse_only(bencher: Bencher, lang: &str) {
    let (files, _) = code_sample(lang, SIZE);
    let mut parser = tree_sitter::Parser::new();
    if matches!(lang, "vue" | "svelte") {
        // The host parse and the `<script>`/`<style>` bodies, as cleave's injections parse.
        bencher.counter(BytesCount::new(bytes(&files))).bench_local(|| {
            for text in &files {
                divan::black_box(parse_with_injections(&mut parser, lang, text));
            }
        });
        return;
    }
    parser.set_language(&grammar(lang).unwrap()).unwrap();
    bencher.counter(BytesCount::new(bytes(&files))).bench_local(|| {
        for text in &files {
            divan::black_box(parser.parse(text, None));
        }
    });
}

fn prose(bencher: Bencher, format: Format, text: String) {
    let mut ctx = ParseContext::new();
    bencher
        .counter(BytesCount::new(text.len()))
        .bench_local(|| atomize_prose(format, divan::black_box(&text), &mut ctx));
}

#[divan::bench]
fn markdown(bencher: Bencher) {
    prose(bencher, Format::Markdown, synthetic_markdown(SIZE));
}

#[divan::bench]
fn latex(bencher: Bencher) {
    prose(bencher, Format::Latex, synthetic_latex(SIZE));
}

#[divan::bench]
fn text(bencher: Bencher) {
    prose(bencher, Format::Text, synthetic_text(SIZE));
}
