//! The packer on synthetic atom trees: a flat tree (blank-line blocks of lines, what the text
//! fallback gives) and a nested one (blocks grouped into labelled symbol scopes, the shape code
//! atomizers give), at both benchmark budgets, in chars and in o200k tokens.

use cleave_bench::synthetic_code;
use cleave_core::{Atom, AtomKind, AtomLabel, AtomTree, Boundary, ChunkConfig, ContentKind, Source, Tokenizer, Unit, atomize_blocks, blocks, pack};
use divan::counter::BytesCount;
use divan::{AllocProfiler, Bencher};

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

const SIZE: usize = 256 * 1024;

fn main() {
    divan::main();
}

fn flat(text: &str) -> AtomTree {
    atomize_blocks(text, "rust", ContentKind::Code)
}

/// Groups every four blank-line blocks into a symbol that opens a scope.
fn nested(text: &str) -> AtomTree {
    let mut items = Vec::new();
    for (i, group) in blocks(text, 0..text.len()).chunks(4).enumerate() {
        let range = group[0].range.start..group[group.len() - 1].range.end;
        let label = AtomLabel {
            label: format!("impl Handler{i}"),
            name: Some(format!("Handler{i}")),
            signature: Some(format!("impl Handler{i} {{")),
        };
        let children = group.iter().cloned().map(|b| b.with_boundary(Boundary::Member)).collect();
        items.push(
            Atom::new(AtomKind::Symbol, range)
                .with_boundary(Boundary::Item)
                .with_scope(true)
                .with_label(label)
                .with_children(children),
        );
    }
    let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(items);
    root.validate(text).expect("the nested tree tiles the text");
    let mut tree = AtomTree::new("rust", ContentKind::Code, root);
    tree.separator = "::";
    tree
}

fn unit(name: &str) -> Unit {
    match name {
        "chars" => Unit::Chars,
        "o200k" => Unit::Tokens(Tokenizer::O200k),
        _ => unreachable!(),
    }
}

fn run(bencher: Bencher, tree_of: fn(&str) -> AtomTree, budget: usize, unit_name: &str) {
    let text = synthetic_code(SIZE);
    let tree = tree_of(&text);
    let config = ChunkConfig::new(budget, unit(unit_name)).unwrap();
    let source = Source::new("src/handlers.rs", &text);
    // Load the BPE tables outside the measurement.
    let _ = pack(&source, &tree, &config);
    bencher.counter(BytesCount::new(text.len())).bench(|| pack(&source, &tree, &config));
}

#[divan::bench(args = [2000, 8000])]
fn flat_chars(bencher: Bencher, budget: usize) {
    run(bencher, flat, budget, "chars");
}

#[divan::bench(args = [2000, 8000])]
fn nested_chars(bencher: Bencher, budget: usize) {
    run(bencher, nested, budget, "chars");
}

#[divan::bench(args = [2000, 8000])]
fn flat_o200k(bencher: Bencher, budget: usize) {
    run(bencher, flat, budget, "o200k");
}

#[divan::bench(args = [2000, 8000])]
fn nested_o200k(bencher: Bencher, budget: usize) {
    run(bencher, nested, budget, "o200k");
}
