//! cleave-bench: the pieces the benchmark harness and the divan micro-benchmarks share.
//!
//! A corpus is a folder of source files; [`collect`] lists the ones cleave would parse, in
//! sorted order, with their language. [`grammar`] maps a cleave language name to its
//! tree-sitter grammar, so the parse-only baseline and text-splitter use exactly the grammars
//! cleave uses. [`read_all`] loads a corpus into memory for the in-process modes.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The tree-sitter grammar of a cleave language name (`rust`, `tsx`, …).
///
/// Kept here rather than taken from `cleave-code` so that the baseline does not depend on how
/// cleave wires its registry; the names are the records' `language` field.
pub fn grammar(language: &str) -> Option<tree_sitter::Language> {
    Some(match language {
        "rust" => tree_sitter_rust::LANGUAGE.into(),
        "python" => tree_sitter_python::LANGUAGE.into(),
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        "javascript" => tree_sitter_javascript::LANGUAGE.into(),
        "go" => tree_sitter_go::LANGUAGE.into(),
        "html" => tree_sitter_html::LANGUAGE.into(),
        "java" => tree_sitter_java::LANGUAGE.into(),
        "bash" => tree_sitter_bash::LANGUAGE.into(),
        "c" => tree_sitter_c::LANGUAGE.into(),
        "cpp" => tree_sitter_cpp::LANGUAGE.into(),
        "csharp" => tree_sitter_c_sharp::LANGUAGE.into(),
        "css" => tree_sitter_css::LANGUAGE.into(),
        "kotlin" => tree_sitter_kotlin_ng::LANGUAGE.into(),
        "php" => tree_sitter_php::LANGUAGE_PHP.into(),
        "ruby" => tree_sitter_ruby::LANGUAGE.into(),
        "scala" => tree_sitter_scala::LANGUAGE.into(),
        "svelte" => tree_sitter_svelte_ng::LANGUAGE.into(),
        "swift" => tree_sitter_swift::LANGUAGE.into(),
        // Vue has no grammar of its own: cleave parses `.vue` with HTML's and hands the
        // `<script>` and `<style>` bodies to the TypeScript/JavaScript and CSS grammars.
        "vue" => tree_sitter_html::LANGUAGE.into(),
        _ => return None,
    })
}

/// The parse-only floor of a single-file component (Vue, Svelte): the host parse, then each
/// `<script>` and `<style>` body parsed on its own with the grammar its `lang` attribute names
/// (else JavaScript and CSS), as cleave's injections parse them; a language without a grammar
/// here (`lang="scss"`) is not parsed, as cleave leaves it a plain scope. Components' elements
/// are looked for at the top of the document, a page's (HTML) at any depth. Returns whether any
/// of the trees holds an error.
pub fn parse_with_injections(
    parser: &mut tree_sitter::Parser,
    language: &str,
    text: &str,
) -> Option<bool> {
    parser.set_language(&grammar(language)?).ok()?;
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    let mut errors = root.has_error();
    let mut bodies = Vec::new();
    // Components keep their scripts and styles at the top; a page (HTML) anywhere in it, found
    // from where their start tags are in the text (a walk of the whole tree would cost more
    // than a floor may).
    let is_element = |n: &tree_sitter::Node| matches!(n.kind(), "script_element" | "style_element");
    let mut elements = Vec::new();
    if language == "html" {
        let lower = text.to_ascii_lowercase();
        let starts = lower.match_indices("<script").chain(lower.match_indices("<style"));
        for (at, _) in starts {
            let mut node = root.descendant_for_byte_range(at, at + 1);
            while let Some(n) = node.filter(|n| !is_element(n)) {
                node = n.parent();
            }
            elements.extend(node);
        }
        elements.sort_by_key(|e| e.start_byte());
        elements.dedup();
    } else {
        let mut cursor = root.walk();
        elements.extend(root.named_children(&mut cursor).filter(is_element));
    }
    for element in elements {
        let default = match element.kind() {
            "script_element" => "javascript",
            _ => "css",
        };
        let mut inner = element.walk();
        let (mut lang, mut body) = (default, None);
        for child in element.named_children(&mut inner) {
            match child.kind() {
                "start_tag" => {
                    let tag = &text[child.byte_range()];
                    if let Some(value) = lang_attribute(tag) {
                        lang = cleave_code::language_by_name(value)
                            .or_else(|| cleave_code::language_for_path(&format!("x.{value}")))
                            .map_or("", |l| l.name);
                    }
                }
                "raw_text" => body = Some(child.byte_range()),
                _ => {}
            }
        }
        if let Some(body) = body {
            bodies.push((lang, body));
        }
    }
    drop(tree);
    for (lang, body) in bodies {
        let Some(g) = grammar(lang) else { continue };
        parser.set_language(&g).ok()?;
        errors |= parser.parse(&text[body], None)?.root_node().has_error();
    }
    Some(errors)
}

/// The value of a start tag's `lang` attribute (`<script setup lang="ts">` → `ts`).
fn lang_attribute(tag: &str) -> Option<&str> {
    let at = tag.find("lang")?;
    let rest = tag[at + 4..].trim_start().strip_prefix('=')?.trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let end = rest.find(|c: char| c == '"' || c == '\'' || c == '>' || c.is_whitespace())?;
    Some(&rest[..end]).filter(|v| !v.is_empty())
}

/// One file of a corpus.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    /// Path on disk.
    pub path: PathBuf,
    /// Path relative to the corpus root, `/` separators (what cleave writes in `path`).
    pub rel: String,
    /// cleave's language for it.
    pub language: &'static cleave_code::Language,
}

/// The files under `root` that cleave parses as code, sorted by path.
///
/// The walk uses no ignore files and skips nothing but hidden entries: corpora are built by
/// `corpus.sh` and hold only sources. The run script checks that cleave saw as many files.
pub fn collect(root: &Path) -> Result<Vec<CorpusFile>> {
    let mut files = Vec::new();
    let walk = ignore::WalkBuilder::new(root).standard_filters(false).hidden(true).build();
    for entry in walk {
        let entry = entry.with_context(|| format!("walking {}", root.display()))?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.into_path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        if let Some(language) = cleave_code::language_for_path(&rel)
            && grammar(language.name).is_some()
        {
            files.push(CorpusFile { path, rel, language });
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(files)
}

/// A corpus file loaded into memory. Files that are not UTF-8 are skipped, as cleave reports
/// them rather than parsing them.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The file.
    pub file: CorpusFile,
    /// Its text.
    pub text: String,
}

/// Reads every file (sequentially: reading is ≈ 1 % of the cost, see DEPS.md).
pub fn read_all(files: &[CorpusFile]) -> Result<Vec<Loaded>> {
    let mut out = Vec::with_capacity(files.len());
    for file in files {
        let bytes = std::fs::read(&file.path).with_context(|| format!("reading {}", file.rel))?;
        if let Ok(text) = String::from_utf8(bytes) {
            out.push(Loaded { file: file.clone(), text });
        }
    }
    Ok(out)
}

/// A small sample of a corpus for one language, `max_bytes` at most, taken from files in
/// sorted order: what the micro-benchmarks feed the atomizers when a corpus is present.
pub fn sample(root: &Path, language: &str, max_bytes: usize) -> Option<Vec<String>> {
    let files = collect(root).ok()?;
    let mut out = Vec::new();
    let mut total = 0;
    for f in files.iter().filter(|f| f.language.name == language) {
        let Ok(text) = std::fs::read_to_string(&f.path) else { continue };
        if total + text.len() > max_bytes {
            if out.is_empty() {
                continue;
            }
            break;
        }
        total += text.len();
        out.push(text);
    }
    (!out.is_empty()).then_some(out)
}

/// Where `corpus.sh` puts the corpora: `bench/corpus`, or `$CLEAVE_BENCH_CORPUS` when set (a
/// snapshot build of the benchmarks reads the corpora of the working tree that way).
pub fn corpus_dir(language: &str) -> PathBuf {
    let root = std::env::var_os("CLEAVE_BENCH_CORPUS")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"), PathBuf::from);
    root.join(language)
}

/// About `bytes` of real code in `language` for the micro-benchmarks: the corpus's first files
/// (sorted) joined into one text when the corpus is there, a synthetic Rust-like text
/// otherwise. The second value says which.
pub fn code_sample(language: &str, bytes: usize) -> (Vec<String>, &'static str) {
    let dir = corpus_dir(match language {
        "javascript" | "tsx" => "typescript",
        l => l,
    });
    match sample(&dir, language, bytes) {
        Some(files) => (files, "corpus"),
        None => (vec![synthetic_code(bytes)], "synthetic"),
    }
}

/// Rust-like code of about `bytes` bytes: modules of impls, functions, doc comments and
/// statements, in a fixed pattern (no randomness: the same text every run).
pub fn synthetic_code(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 512);
    let mut item = 0usize;
    while s.len() < bytes {
        item += 1;
        s.push_str(&format!("/// Handles request kind {item}.\n///\n/// Returns the number of bytes written.\n"));
        s.push_str(&format!("pub struct Handler{item} {{\n    count: usize,\n    name: String,\n}}\n\n"));
        s.push_str(&format!("impl Handler{item} {{\n"));
        for m in 0..(item % 5 + 2) {
            s.push_str(&format!("    /// Step {m} of handler {item}.\n"));
            s.push_str(&format!("    pub fn step_{m}(&mut self, input: &[u8]) -> Result<usize, Error> {{\n"));
            for st in 0..(item * 7 + m) % 23 + 3 {
                s.push_str(&format!(
                    "        let value_{st} = input.iter().skip({st}).map(|b| *b as usize * {m}).sum::<usize>();\n"
                ));
                if st % 6 == 5 {
                    s.push_str(&format!("        if value_{st} > self.count {{\n            self.count += value_{st};\n        }}\n\n"));
                }
            }
            s.push_str("        Ok(self.count)\n    }\n\n");
        }
        s.push_str("}\n\n");
    }
    s
}

/// Markdown of about `bytes` bytes: nested sections, paragraphs, lists, fenced code, math and
/// tables.
pub fn synthetic_markdown(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 512);
    let mut sec = 0usize;
    while s.len() < bytes {
        sec += 1;
        s.push_str(&format!("# Part {sec}\n\nThis part explains feature {sec} in some detail. It has several sentences. Each of them is plain prose, as in a guide.\n\n"));
        for sub in 0..3 {
            s.push_str(&format!("## Section {sec}.{sub}\n\n"));
            s.push_str("The configuration is read once at start-up; after that, nothing can fail. Dr. Smith wrote the first draft in 2019, and the second one a year later.\n\n");
            s.push_str("- first item with `inline code`\n- second item, a little longer than the first\n  - nested item\n- third item\n\n");
            s.push_str("```rust\nfn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n```\n\n");
            s.push_str("$$V(\\phi) = -\\mu^2|\\phi|^2 + \\lambda|\\phi|^4$$\n\n");
            s.push_str("| name | value |\n| --- | --- |\n| alpha | 1 |\n| beta | 2 |\n\n");
        }
    }
    s
}

/// LaTeX of about `bytes` bytes: sections, environments, math and comments.
pub fn synthetic_latex(bytes: usize) -> String {
    let mut s = String::from("\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n\n");
    let mut sec = 0usize;
    while s.len() < bytes {
        sec += 1;
        s.push_str(&format!("\\section{{Result {sec}}}\n\nWe prove the bound for case {sec}. % a comment\nThe argument follows the usual lines.\n\n"));
        s.push_str("\\begin{theorem}\nFor every $n \\ge 1$ we have\n\\begin{equation}\n  \\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}.\n\\end{equation}\n\\end{theorem}\n\n");
        s.push_str("\\begin{proof}\nBy induction on $n$. The case $n = 1$ is clear; assume it for $n$ and add $n + 1$ to both sides.\n\\end{proof}\n\n");
        s.push_str("\\subsection{Remarks}\n\nThe constant is sharp: see \\cite{knuth} and \\[ a^2 + b^2 = c^2. \\]\n\n");
    }
    s.push_str("\\end{document}\n");
    s
}

/// Plain text of about `bytes` bytes: paragraphs of sentences separated by blank lines.
pub fn synthetic_text(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 512);
    let mut p = 0usize;
    while s.len() < bytes {
        p += 1;
        for k in 0..(p % 7 + 2) {
            s.push_str(&format!("Sentence {k} of paragraph {p} says something about the weather and the sea. "));
            if k % 3 == 2 {
                s.push('\n');
            }
        }
        s.push_str("\n\n");
    }
    s
}
