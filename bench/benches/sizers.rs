//! Each sizer on real text (the Rust corpus when built, synthetic Rust otherwise), at sizes a
//! packer measures: a statement, a function, a chunk at the 8000-char budget, a large file.

use cleave_bench::code_sample;
use cleave_core::{ChunkSizer, Tokenizer, Unit};
use divan::counter::BytesCount;
use divan::{AllocProfiler, Bencher};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

const SIZES: [usize; 4] = [256, 2_048, 8_192, 65_536];

fn text(size: usize) -> String {
    let (files, _) = code_sample("rust", 4 * 65_536);
    let all = files.concat();
    let mut end = size.min(all.len());
    while !all.is_char_boundary(end) {
        end -= 1;
    }
    all[..end].to_owned()
}

fn run(bencher: Bencher, unit: Unit, size: usize) {
    let text = text(size);
    let sizer: &dyn ChunkSizer = unit.sizer();
    sizer.size("warm up: load the tables");
    bencher.counter(BytesCount::new(text.len())).bench(|| sizer.size(divan::black_box(&text)));
}

#[divan::bench(args = SIZES)]
fn bytes(bencher: Bencher, size: usize) {
    run(bencher, Unit::Bytes, size);
}

#[divan::bench(args = SIZES)]
fn chars(bencher: Bencher, size: usize) {
    run(bencher, Unit::Chars, size);
}

#[divan::bench(args = SIZES)]
fn estimate(bencher: Bencher, size: usize) {
    run(bencher, Unit::Estimate, size);
}

#[divan::bench(args = SIZES)]
fn o200k(bencher: Bencher, size: usize) {
    run(bencher, Unit::Tokens(Tokenizer::O200k), size);
}

#[divan::bench(args = SIZES)]
fn cl100k(bencher: Bencher, size: usize) {
    run(bencher, Unit::Tokens(Tokenizer::Cl100k), size);
}

/// text-splitter's tiktoken-rs o200k counter on the same text, for comparison.
#[divan::bench(args = SIZES)]
fn tiktoken_o200k(bencher: Bencher, size: usize) {
    let text = text(size);
    let bpe = tiktoken_rs::o200k_base().unwrap();
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| bpe.encode_ordinary(divan::black_box(&text)).len());
}
