//! Chunk and document classification on chunked documents of every prose format.

use std::path::Path;

use cleave_code::ParseContext;
use cleave_core::{
    AtomTree, Chunk, ChunkConfig, ContentKind, Source, Unit, assert_invariants, atomize_blocks,
    pack,
};
use cleave_prose::{DocumentClass, Format, atomize_prose, classify};

/// Chunks `text` (LaTeX through its atomizer, other formats through blank-line blocks so the
/// test does not depend on their atomizers), checks the invariants, and classifies.
fn classified(format: Format, text: &str, budget: usize) -> (Vec<Chunk>, Option<DocumentClass>) {
    let tree: AtomTree = match format {
        Format::Latex => atomize_prose(format, text, &mut ParseContext::new()),
        _ => atomize_blocks(text, format.name(), format.content()),
    };
    let path = format!("doc.{}", format.name());
    let source = Source::new(&path, text);
    let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
    let mut chunks = pack(&source, &tree, &config);
    assert_invariants(&source, &tree, &chunks, &config);
    let class = classify(format, &mut chunks);
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
    assert_eq!(classify(Format::Markdown, &mut []), None);
}
