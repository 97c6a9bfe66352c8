//! Chunk and document classification on chunked documents of every prose format.

use std::path::Path;

use cleave_code::ParseContext;
use cleave_core::{
    AtomTree, Chunk, ChunkConfig, ContentKind, Source, Unit, assert_invariants, atomize_blocks,
    pack,
};
use cleave_prose::{DocumentClass, Format, annotate, atomize_prose};

/// Chunks `text` through its format's atomizer (classification reads the regions the
/// atomizers mark), checks the invariants, and annotates.
fn classified(format: Format, text: &str, budget: usize) -> (Vec<Chunk>, Option<DocumentClass>) {
    let tree: AtomTree = atomize_prose(format, text, &mut ParseContext::new());
    let path = format!("doc.{}", format.name());
    let source = Source::new(&path, text);
    let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
    let mut chunks = pack(&source, &tree, &config);
    assert_invariants(&source, &tree, &chunks, &config);
    let class = annotate(&tree, &source, &mut chunks);
    for c in &chunks {
        let k = c.classification.as_ref().expect("every chunk is classified");
        assert!(!k.content_type.is_empty());
        assert!(k.keywords.len() <= 5);
    }
    (chunks, class)
}

fn content_of<'a>(chunks: &'a [Chunk], needle: &str) -> &'a cleave_core::Classification {
    let c = chunks.iter().find(|c| c.text.contains(needle)).unwrap_or_else(|| panic!("{needle}"));
    c.classification.as_ref().unwrap()
}

#[test]
fn paper_is_a_research_paper() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/latex/paper_with_proofs.tex");
    let text = std::fs::read_to_string(path).unwrap();
    let (chunks, class) = classified(Format::Latex, &text, 1000);
    let class = class.unwrap();
    assert_eq!(class.doc_type, "research paper");
    assert!(class.confidence >= 0.6, "{class:?}");
    assert_eq!(content_of(&chunks, "\\begin{algorithmic}").content_type, "algorithm");
    assert_eq!(content_of(&chunks, "\\toprule").content_type, "table");
    assert!(content_of(&chunks, "\\toprule").has_table);
    assert_eq!(content_of(&chunks, "\\usepackage{listings}").content_type, "preamble");
    let lemma = content_of(&chunks, "\\begin{lemma}");
    assert!(["theory", "proof"].contains(&lemma.content_type.as_str()), "{lemma:?}");
    assert!(lemma.has_math);
    let listing = content_of(&chunks, "def adasgd");
    assert!(listing.has_code);
    assert!(content_of(&chunks, "\\bibitem{duchi2011}").keywords.iter().all(|k| k != "bibitem"));
    let intro = content_of(&chunks, "Empirical risk minimization");
    assert!(intro.has_math && !intro.has_code, "{intro:?}");
}

#[test]
fn split_proof_parts_are_proofs() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/latex/paper_with_proofs.tex");
    let text = std::fs::read_to_string(path).unwrap();
    let (chunks, _) = classified(Format::Latex, &text, 400);
    let parts: Vec<&Chunk> =
        chunks.iter().filter(|c| c.part.as_ref().is_some_and(|p| p.of == "proof")).collect();
    assert!(!parts.is_empty());
    for c in parts {
        let k = c.classification.as_ref().unwrap();
        assert!(["proof", "calculation"].contains(&k.content_type.as_str()), "{k:?}\n{}", c.text);
    }
}

#[test]
fn algorithm_notes_are_algorithm_focused() {
    let mut text = String::from("\\documentclass{article}\n\\begin{document}\n");
    for (i, name) in ["Insertion sort", "Merge sort", "Binary search"].iter().enumerate() {
        text.push_str(&format!(
            "\\section{{{name}}}\n\nThe algorithm below runs in $O(n \\log n)$ time; its loop \
             keeps an invariant on the input.\n\n\\begin{{algorithm}}\n\\caption{{{name}}}\n\
             \\begin{{algorithmic}}\n\\Require array $A$ of length $n$\n\\For{{$i = 1$ to $n$}}\n\
             \\State $j \\gets i$\n\\While{{$j > 0$}}\n\\State swap\n\\EndWhile\n\\EndFor\n\
             \\State \\Return $A$\n\\end{{algorithmic}}\n\\end{{algorithm}}\n\nStep {i} of the \
             procedure is optimal for the recursion.\n\n"
        ));
    }
    text.push_str("\\end{document}\n");
    let (chunks, class) = classified(Format::Latex, &text, 1000);
    assert_eq!(class.unwrap().doc_type, "algorithm-focused");
    assert_eq!(content_of(&chunks, "\\caption{Merge sort}").content_type, "algorithm");
}

#[test]
fn install_guide_is_an_implementation_guide() {
    let text = "# Getting started\n\nFirst install the tool, then run it on your project.\n\n\
## Install\n\nRun the following command in a terminal:\n\n```sh\n$ cargo install cleave\n$ cleave --version\n```\n\n\
## Usage\n\nNext, create a config file and run the build step:\n\n```sh\n$ cleave chunk src --budget 1000\n```\n\n\
Then open the output and click through the chunks.\n";
    let (chunks, class) = classified(Format::Markdown, text, 200);
    let class = class.unwrap();
    assert_eq!(class.doc_type, "implementation guide", "{class:?}");
    let fence = content_of(&chunks, "cargo install cleave");
    assert!(fence.has_code);
}

#[test]
fn api_reference_is_a_technical_doc() {
    let text = "API reference\n\nThe function `chunk` takes three parameters and returns a list.\n\n\
| parameter | type | default |\n|---|---|---|\n| budget | int | 1000 |\n| unit | enum | chars |\n| overlap | int | 0 |\n\n\
Each option has a default value. The method `pack` returns chunks; the field `header` holds the \
context. The module exposes one class per format, and every argument is validated. The return \
value of the callback is a response object with one property per field.\n";
    let (chunks, class) = classified(Format::Markdown, text, 300);
    assert_eq!(class.unwrap().doc_type, "technical doc");
    let table = content_of(&chunks, "| budget |");
    assert!(table.has_table);
}

#[test]
fn a_story_is_general_with_modest_confidence() {
    let text = "The harbour was quiet in the early morning. Fishing boats rocked against the pier.\n\n\
An old sailor mended his nets while gulls circled above the water, calling to each other.\n";
    let (chunks, class) = classified(Format::Text, text, 200);
    let class = class.unwrap();
    assert_eq!(class.doc_type, "general");
    assert!(class.confidence <= 0.6);
    let k = chunks[0].classification.as_ref().unwrap();
    assert_eq!(k.content_type, "narrative");
    assert!(!k.has_math && !k.has_code && !k.has_table);
    assert!(k.keywords.contains(&"harbour".to_owned()), "{:?}", k.keywords);
}

#[test]
fn rst_math_and_code_directives_count() {
    let text = "Energy\n======\n\n.. math::\n\n   E = mc^2 + \\frac{p^2}{2m} + V(x) + \\int f\n\n\
Install with::\n\n   pip install energy\n   energy --run\n";
    let (chunks, _) = classified(Format::Rst, text, 1000);
    let k = chunks[0].classification.as_ref().unwrap();
    assert!(k.has_math && k.has_code, "{k:?}");
}

#[test]
fn data_files_are_data() {
    let text = "{\n  \"name\": \"cleave\",\n  \"version\": \"0.0.0\"\n}\n";
    let (chunks, class) = classified(Format::Json, text, 200);
    assert_eq!(chunks[0].classification.as_ref().unwrap().content_type, "data");
    assert!(class.is_some());
    assert_eq!(chunks.iter().map(|c| c.text.as_str()).collect::<String>(), text);
    assert_eq!(ContentKind::Data, Format::Json.content());
}

#[test]
fn no_chunks_no_class() {
    let tree = atomize_blocks("", "markdown", ContentKind::Prose);
    assert_eq!(annotate(&tree, &Source::new("empty.md", ""), &mut []), None);
}

#[test]
fn prices_are_not_math_and_formulas_are() {
    let (chunks, _) = classified(Format::Markdown, "It costs $5 and $6 today.\n", 200);
    assert!(!chunks[0].classification.as_ref().unwrap().has_math);
    let (chunks, _) = classified(Format::Markdown, "Let $x^2$ be the square.\n", 200);
    assert!(chunks[0].classification.as_ref().unwrap().has_math);
}

/// A part of a split proof is a proof because the tree says it lies in one, not because its
/// header repeats `\begin{proof}`: without headers it is still one.
#[test]
fn split_proof_parts_are_proofs_without_headers() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/latex/paper_with_proofs.tex");
    let text = std::fs::read_to_string(path).unwrap();
    let tree = atomize_prose(Format::Latex, &text, &mut ParseContext::new());
    let source = Source::new("paper.tex", &text);
    let config = ChunkConfig::new(400, Unit::Chars).unwrap().with_headers(false);
    let mut chunks = pack(&source, &tree, &config);
    annotate(&tree, &source, &mut chunks);
    let parts: Vec<&Chunk> =
        chunks.iter().filter(|c| c.part.as_ref().is_some_and(|p| p.of == "proof")).collect();
    assert!(!parts.is_empty());
    for c in parts {
        assert!(c.header.is_empty());
        let k = c.classification.as_ref().unwrap();
        assert!(["proof", "calculation"].contains(&k.content_type.as_str()), "{k:?}\n{}", c.text);
    }
}

#[test]
fn indented_list_lines_are_not_code() {
    let text = "Notes on the release:\n\n* The parser now reads nested lists, so that\n    a continuation line indented by four spaces stays text.\n    * And a nested item, indented the same way, is text too.\n";
    let (chunks, _) = classified(Format::Markdown, text, 1000);
    let k = chunks[0].classification.as_ref().unwrap();
    assert!(!k.has_code && k.content_type == "narrative", "{k:?}");
}

#[test]
fn every_part_of_a_split_fence_is_code() {
    let mut text = String::from("Setup:\n\n```text\n");
    for i in 0..60 {
        text.push_str(&format!("line {i} of a long listing that goes on and on\n"));
    }
    text.push_str("```\n\nThat was all.\n");
    let (chunks, _) = classified(Format::Markdown, &text, 300);
    let inside: Vec<&Chunk> =
        chunks.iter().filter(|c| c.text.contains("of a long listing")).collect();
    assert!(inside.len() > 3);
    for c in inside {
        let k = c.classification.as_ref().unwrap();
        assert!(k.has_code && k.content_type == "code", "{k:?}\n{}", c.text);
    }
}

#[test]
fn rst_literal_blocks_after_trailing_spaces_are_code() {
    let text =
        "The following example prints the version. ::  \n\n    $ tool --version\n    tool 1.0\n";
    let (chunks, _) = classified(Format::Rst, text, 1000);
    let k = chunks[0].classification.as_ref().unwrap();
    assert!(k.has_code, "{k:?}");
}

#[test]
fn code_is_neither_located_nor_classified() {
    let text = "fn main() {}\n";
    let tree = atomize_blocks(text, "rust", ContentKind::Code);
    let source = Source::new("main.rs", text);
    let config = ChunkConfig::new(100, Unit::Chars).unwrap();
    let mut chunks = pack(&source, &tree, &config);
    assert_eq!(annotate(&tree, &source, &mut chunks), None);
    assert!(chunks.iter().all(|c| c.provenance.is_none() && c.classification.is_none()));
}
