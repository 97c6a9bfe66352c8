//! Chunk and document classification: heuristic, fast and explainable.
//!
//! Each chunk is measured once: the share of its bytes in math, code and tables, in
//! theorem-like statements, definitions, proofs and algorithms (LaTeX environments, or
//! paragraphs that open with `Theorem`, `Proof.` … in other formats), plus counts of marker
//! words. Its content type is the share that best clears its threshold; with none, two large
//! shares of math, code and tables make it `mixed`, else it is `preamble`, `references`,
//! `theory` (prose with some math) or `narrative`.
//!
//! The document's type is scored from the sums over its chunks: a research paper has
//! statements and proofs, math, an abstract, citations and paper headings; an
//! algorithm-focused text has algorithms and pseudo-code; an implementation guide has code,
//! install/run vocabulary and shell prompts; a technical doc has API vocabulary, tables and
//! some code. `general` scores a constant. The confidence is the winner's share of the
//! squared scores, capped at 0.6 when nothing stood out.

use std::collections::HashMap;

use cleave_core::{Chunk, Classification};

use crate::latex::{self, EnvClass};
use crate::{DocumentClass, Format};

/// Keywords reported per chunk.
const KEYWORDS: usize = 5;

/// What one chunk (or, summed, a document) shows.
#[derive(Debug, Default, Clone)]
struct Signals {
    /// Non-whitespace bytes.
    bytes: usize,
    math: usize,
    code: usize,
    table: usize,
    theorem: usize,
    definition: usize,
    proof: usize,
    algorithm: usize,
    /// Preamble lines (`\usepackage`, `\newcommand`, …).
    preamble: usize,
    /// Bibliography entries (`\bibitem`, `@article{`).
    bib: usize,
    /// Citations (`\cite…{`, `[12]`).
    citations: usize,
    /// Pseudo-code markers (`\State`, `\If`, `Input:`).
    pseudo: usize,
    /// Lines that are shell prompts or package-manager commands.
    prompts: usize,
    words: usize,
    guide_words: usize,
    api_words: usize,
    paper_words: usize,
    algo_words: usize,
    has_abstract: bool,
}

impl Signals {
    fn add(&mut self, o: &Signals) {
        self.bytes += o.bytes;
        self.math += o.math;
        self.code += o.code;
        self.table += o.table;
        self.theorem += o.theorem;
        self.definition += o.definition;
        self.proof += o.proof;
        self.algorithm += o.algorithm;
        self.preamble += o.preamble;
        self.bib += o.bib;
        self.citations += o.citations;
        self.pseudo += o.pseudo;
        self.prompts += o.prompts;
        self.words += o.words;
        self.guide_words += o.guide_words;
        self.api_words += o.api_words;
        self.paper_words += o.paper_words;
        self.algo_words += o.algo_words;
        self.has_abstract |= o.has_abstract;
    }

    /// The share of the chunk's bytes in `part`, at most 1.
    fn share(&self, part: usize) -> f32 {
        (part as f32 / self.bytes.max(1) as f32).min(1.0)
    }

    /// Occurrences per thousand words.
    fn rate(&self, count: usize) -> f32 {
        count as f32 * 1000.0 / self.words.max(1) as f32
    }
}

/// Classifies chunks and the document.
pub(crate) fn classify(format: Format, chunks: &mut [Chunk]) -> Option<DocumentClass> {
    if chunks.is_empty() {
        return None;
    }
    let data = matches!(format, Format::Json | Format::Yaml | Format::Toml);
    let mut doc = Signals::default();
    let mut headings: Vec<String> = Vec::new();
    for chunk in chunks.iter_mut() {
        let (signals, keywords) = measure(format, &chunk.text, &chunk.header);
        let content_type = if data { "data" } else { content_type(&signals) };
        chunk.classification = Some(Classification {
            content_type: content_type.to_owned(),
            has_math: signals.math > 0,
            has_code: signals.code > 0,
            has_table: signals.table > 0,
            keywords,
        });
        doc.add(&signals);
        if let Some(p) = &chunk.provenance {
            for s in &p.section {
                let s = s.to_lowercase();
                if !headings.contains(&s) {
                    headings.push(s);
                }
            }
        }
    }
    if data {
        return Some(DocumentClass { doc_type: "technical doc".to_owned(), confidence: 0.5 });
    }
    Some(document_class(&doc, &headings))
}

/// The content type of one chunk.
fn content_type(s: &Signals) -> &'static str {
    let (math, code, table) = (s.share(s.math), s.share(s.code), s.share(s.table));
    if [math, code, table].iter().filter(|&&x| x >= 0.25).count() >= 2 {
        return "mixed";
    }
    let algorithm = s.share(s.algorithm).max(if s.pseudo >= 3 { 0.5 } else { 0.0 });
    // (type, share, threshold): the winner clears its threshold by the widest margin.
    let candidates = [
        ("proof", s.share(s.proof), 0.35),
        ("definition", s.share(s.definition), 0.3),
        ("theory", s.share(s.theorem), 0.3),
        ("algorithm", algorithm, 0.3),
        ("code", code, 0.5),
        ("table", table, 0.5),
        ("calculation", math, 0.4),
    ];
    let best = candidates
        .iter()
        .filter(|(_, share, threshold)| share >= threshold)
        .max_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)));
    if let Some((name, _, _)) = best {
        return name;
    }
    if s.preamble >= 3 {
        "preamble"
    } else if s.bib >= 2 {
        "references"
    } else if math >= 0.08 || s.theorem + s.definition + s.proof > 0 {
        "theory"
    } else {
        "narrative"
    }
}

/// The document type from summed signals and the section titles met.
fn document_class(s: &Signals, headings: &[String]) -> DocumentClass {
    let named = |words: &[&str]| {
        headings.iter().filter(|h| words.iter().any(|w| h.contains(w))).count().min(4) as f32
    };
    let paper_headings = named(&[
        "introduction",
        "related work",
        "conclusion",
        "experiment",
        "evaluation",
        "results",
        "abstract",
        "references",
        "methodology",
        "discussion",
    ]);
    let guide_headings = named(&[
        "install",
        "getting started",
        "quick start",
        "quickstart",
        "tutorial",
        "usage",
        "setup",
    ]);
    let tech_headings =
        named(&["api", "reference", "options", "parameters", "configuration", "architecture"]);
    let statements = s.share(s.theorem + s.definition + s.proof);
    let cited = s.bib > 0 || s.citations >= 3;
    let paper = 3.0 * statements
        + 2.0 * s.share(s.math)
        + if s.has_abstract { 1.5 } else { 0.0 }
        + if cited { 1.5 } else { 0.0 }
        + (s.rate(s.citations) / 5.0).min(2.0)
        + 0.5 * paper_headings
        + (s.rate(s.paper_words) / 10.0).min(1.5);
    let algorithm = 4.0 * s.share(s.algorithm)
        + (s.pseudo as f32 / 5.0).min(3.0)
        + (s.rate(s.algo_words) / 8.0).min(2.0);
    let guide = 2.5 * s.share(s.code)
        + (s.rate(s.guide_words) / 6.0).min(3.0)
        + (s.prompts as f32 / 2.0).min(2.0)
        + 0.5 * guide_headings;
    let technical = 1.2 * s.share(s.code)
        + (s.rate(s.api_words) / 8.0).min(3.0)
        + 1.5 * s.share(s.table)
        + 0.4 * tech_headings;
    let scores = [
        ("research paper", paper),
        ("algorithm-focused", algorithm),
        ("implementation guide", guide),
        ("technical doc", technical),
        ("general", 1.0),
    ];
    let (name, best) =
        scores.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).expect("five scores");
    let total: f32 = scores.iter().map(|(_, x)| x * x).sum();
    let mut confidence = best * best / total.max(f32::MIN_POSITIVE);
    if name == "general" {
        confidence = confidence.min(0.6);
    }
    DocumentClass { doc_type: name.to_owned(), confidence: (confidence * 100.0).round() / 100.0 }
}

// ---- measuring ---------------------------------------------------------------------------

/// Measures one chunk: its signals and its keywords.
fn measure(format: Format, text: &str, header: &str) -> (Signals, Vec<String>) {
    let mut s = Signals {
        bytes: text.bytes().filter(|b| !b.is_ascii_whitespace()).count(),
        ..Signals::default()
    };
    match format {
        Format::Latex => latex_spans(text, header, &mut s),
        Format::Markdown => markdown_spans(text, &mut s),
        Format::Rst => rst_spans(text, &mut s),
        Format::Text => text_spans(text, &mut s),
        Format::Json | Format::Yaml | Format::Toml => {}
    }
    if format != Format::Latex {
        statement_paragraphs(text, &mut s);
    }
    lines(text, &mut s);
    let keywords = words(text, format == Format::Latex, &mut s);
    (s, keywords)
}

fn add_class(s: &mut Signals, class: EnvClass, len: usize) {
    match class {
        EnvClass::Math => s.math += len,
        EnvClass::Code => s.code += len,
        EnvClass::Table => s.table += len,
        EnvClass::Theorem => s.theorem += len,
        EnvClass::Definition => s.definition += len,
        EnvClass::Proof => s.proof += len,
        EnvClass::Algorithm => s.algorithm += len,
        EnvClass::Figure | EnvClass::List | EnvClass::Container | EnvClass::Other => {}
    }
}

/// LaTeX: the scanner's spans, and the environment the chunk is a part of (its header repeats
/// `\begin{name}`).
fn latex_spans(text: &str, header: &str, s: &mut Signals) {
    for (class, range) in latex::spans(text) {
        add_class(s, class, nonblank(&text[range]));
    }
    for line in header.lines() {
        if let Some(at) = line.find("\\begin{") {
            let rest = &line[at + 7..];
            if let Some(end) = rest.find('}') {
                add_class(s, latex::env_class(&rest[..end], &[]), s.bytes);
            }
        }
    }
    s.has_abstract |= text.contains("\\begin{abstract}");
}

/// Markdown: fences, `$$` blocks, inline `$…$`, pipe tables.
fn markdown_spans(text: &str, s: &mut Signals) {
    let mut fence: Option<&str> = None;
    let mut math_block = false;
    for line in text.lines() {
        let t = line.trim_start();
        let len = nonblank(line);
        if let Some(open) = fence {
            s.code += len;
            if t.starts_with(open) {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = Some(&t[..3]);
            s.code += len;
            continue;
        }
        if let Some(rest) = t.strip_prefix("$$") {
            s.math += len;
            math_block = !(math_block || rest.trim_end().ends_with("$$"));
            continue;
        }
        if math_block {
            s.math += len;
            continue;
        }
        if t.starts_with('|') && t.matches('|').count() >= 2 {
            s.table += len;
            continue;
        }
        if line.starts_with("    ") || line.starts_with('\t') {
            s.code += len;
            continue;
        }
        s.math += inline_dollar_math(line);
        s.code += inline_backticks(line);
        let lower = t.to_ascii_lowercase();
        s.has_abstract |=
            lower.starts_with('#') && lower.trim_start_matches('#').trim() == "abstract";
    }
}

/// reStructuredText: math and code directives, `::` literal blocks, grid and list tables.
fn rst_spans(text: &str, s: &mut Signals) {
    #[derive(PartialEq)]
    enum Block {
        None,
        Math,
        Code,
        Table,
    }
    let mut block = Block::None;
    for line in text.lines() {
        let t = line.trim_start();
        let len = nonblank(line);
        let indented = line.starts_with(' ') || line.starts_with('\t');
        if block != Block::None && (indented || t.is_empty()) {
            match block {
                Block::Math => s.math += len,
                Block::Code => s.code += len,
                Block::Table => s.table += len,
                Block::None => {}
            }
            continue;
        }
        block = Block::None;
        if t.starts_with(".. math::") {
            block = Block::Math;
        } else if t.starts_with(".. code") || t.starts_with(".. sourcecode") || t.ends_with("::") {
            block = Block::Code;
        } else if t.starts_with(".. list-table::") || t.starts_with(".. csv-table::") {
            block = Block::Table;
        }
        let grid =
            t.starts_with("+-") || t.starts_with("+=") || t.starts_with('|') && t.ends_with('|');
        let simple = t.starts_with("===") && t.contains(" =");
        if grid || simple {
            s.table += len;
        }
        if let Some(at) = line.find(":math:`") {
            s.math += line[at..].find("` ").map_or(line.len() - at, |e| e + 1);
        }
        s.code += inline_backticks(line) / 2;
    }
}

/// Plain text: code-like lines and tables of pipes or tabs.
fn text_spans(text: &str, s: &mut Signals) {
    for line in text.lines() {
        let t = line.trim();
        let len = nonblank(line);
        let code = t.ends_with(';')
            || t.ends_with('{')
            || t == "}"
            || t.starts_with(">>> ")
            || t.starts_with("$ ")
            || t.starts_with("#include")
            || t.starts_with("def ")
            || t.starts_with("fn ")
            || t.starts_with("import ");
        if code {
            s.code += len;
        } else if t.matches('|').count() >= 2 || t.matches('\t').count() >= 2 {
            s.table += len;
        }
    }
}

/// Paragraphs that open with `Theorem 2.`, `**Lemma**`, `Proof.`, `Definition`, `Algorithm 1`.
fn statement_paragraphs(text: &str, s: &mut Signals) {
    for para in text.split("\n\n") {
        let t = para.trim_start().trim_start_matches(['#', '*', '_', ' ', '>']);
        let word: String = t.chars().take_while(|c| c.is_alphabetic()).collect();
        let follows = t[word.len()..].chars().next();
        if follows.is_some_and(char::is_alphabetic) {
            continue;
        }
        let len = nonblank(para);
        match word.as_str() {
            "Proof" => s.proof += len,
            "Definition" => s.definition += len,
            "Theorem" | "Lemma" | "Proposition" | "Corollary" | "Claim" => s.theorem += len,
            "Algorithm" if follows.is_some_and(|c| c == ' ' || c == ':') => s.algorithm += len,
            _ => {}
        }
    }
}

/// Line markers: preamble lines, bibliography entries, pseudo-code, prompts.
fn lines(text: &str, s: &mut Signals) {
    const PREAMBLE: &[&str] = &[
        "\\usepackage",
        "\\documentclass",
        "\\newcommand",
        "\\renewcommand",
        "\\DeclareMathOperator",
        "\\newtheorem",
        "\\def\\",
        "\\RequirePackage",
    ];
    const PSEUDO: &[&str] = &[
        "\\State",
        "\\If",
        "\\For",
        "\\While",
        "\\Return",
        "\\Require",
        "\\Ensure",
        "\\KwIn",
        "\\KwOut",
        "\\ForAll",
        "\\Repeat",
        "Input:",
        "Output:",
    ];
    const PROMPTS: &[&str] =
        &["$ ", "# apt", "npm ", "pip ", "cargo ", "apt-get ", "brew ", "git clone", "docker "];
    for line in text.lines() {
        let t = line.trim_start();
        if PREAMBLE.iter().any(|p| t.starts_with(p)) {
            s.preamble += 1;
        }
        if t.starts_with("\\bibitem") || t.starts_with('@') && t.contains('{') {
            s.bib += 1;
        }
        if PSEUDO.iter().any(|p| t.starts_with(p)) {
            s.pseudo += 1;
        }
        if PROMPTS.iter().any(|p| t.starts_with(p)) {
            s.prompts += 1;
        }
    }
    s.citations += text.matches("\\cite").count();
    // Numeric citations: `[12]`, `[3, 4]`.
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(p) = text[i..].find('[') {
        let start = i + p + 1;
        let len = b[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit() || matches!(c, b',' | b' ' | b'-'))
            .count();
        if len > 0 && b.get(start + len) == Some(&b']') && b[start].is_ascii_digit() {
            s.citations += 1;
        }
        i = start;
    }
}

/// Counts vocabulary and returns the chunk's keywords: its most frequent content words (four
/// letters or more, not stop words, not LaTeX command names or their key arguments).
fn words(text: &str, latex: bool, s: &mut Signals) -> Vec<String> {
    const SKIP_ARGS: &[&str] = &[
        "label",
        "ref",
        "eqref",
        "cref",
        "Cref",
        "cite",
        "citep",
        "citet",
        "begin",
        "end",
        "usepackage",
        "includegraphics",
        "documentclass",
        "input",
        "include",
        "url",
        "href",
        "bibliographystyle",
        "bibliography",
        "pageref",
        "autoref",
    ];
    let mut counts: HashMap<String, (usize, usize)> = HashMap::new();
    let mut chars = text.char_indices().peekable();
    let mut skip_group = false;
    let mut order = 0;
    while let Some((i, c)) = chars.next() {
        if latex && c == '\\' {
            let name: String =
                text[i + 1..].chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            for _ in 0..name.chars().count() {
                chars.next();
            }
            skip_group = SKIP_ARGS.contains(&name.as_str());
            continue;
        }
        if latex && c == '%' {
            for (_, x) in chars.by_ref() {
                if x == '\n' {
                    break;
                }
            }
            continue;
        }
        if skip_group && c == '{' {
            let mut depth = 1;
            for (_, x) in chars.by_ref() {
                match x {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            skip_group = false;
            continue;
        }
        if !c.is_alphabetic() {
            if !c.is_whitespace() && c != '*' && c != '[' {
                skip_group = false;
            }
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, d)) = chars.peek() {
            if d.is_alphabetic() || (d == '-' && text[j + 1..].starts_with(char::is_alphabetic)) {
                end = j + d.len_utf8();
                chars.next();
            } else {
                break;
            }
        }
        skip_group = false;
        let word = text[i..end].to_lowercase();
        s.words += 1;
        tally_vocabulary(&word, s);
        if word.chars().count() >= 4 && !is_stop_word(&word) {
            let e = counts.entry(word).or_insert((0, order));
            e.0 += 1;
            order += 1;
        }
    }
    let mut ranked: Vec<(String, (usize, usize))> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
    ranked.into_iter().take(KEYWORDS).map(|(w, _)| w).collect()
}

fn tally_vocabulary(word: &str, s: &mut Signals) {
    const GUIDE: &[&str] = &[
        "install",
        "installation",
        "installing",
        "run",
        "running",
        "click",
        "configure",
        "setup",
        "step",
        "steps",
        "tutorial",
        "download",
        "command",
        "terminal",
        "usage",
        "build",
        "deploy",
        "example",
        "first",
        "then",
        "next",
        "open",
        "create",
    ];
    const API: &[&str] = &[
        "parameter",
        "parameters",
        "argument",
        "arguments",
        "returns",
        "return",
        "function",
        "method",
        "class",
        "option",
        "options",
        "default",
        "type",
        "field",
        "endpoint",
        "api",
        "module",
        "interface",
        "property",
        "attribute",
        "struct",
        "enum",
        "callback",
        "request",
        "response",
        "configuration",
        "value",
        "values",
    ];
    const PAPER: &[&str] = &[
        "propose",
        "proposed",
        "paper",
        "results",
        "experiments",
        "experimental",
        "evaluation",
        "baseline",
        "baselines",
        "related",
        "contribution",
        "contributions",
        "theorem",
        "lemma",
        "prove",
        "proof",
        "analysis",
        "study",
        "we",
        "our",
        "literature",
        "hypothesis",
    ];
    const ALGORITHM: &[&str] = &[
        "algorithm",
        "algorithms",
        "complexity",
        "pseudocode",
        "iteration",
        "iterations",
        "loop",
        "recursion",
        "recursive",
        "input",
        "output",
        "runtime",
        "procedure",
        "step",
        "optimal",
        "greedy",
        "dynamic",
        "graph",
        "sort",
        "search",
    ];
    if GUIDE.contains(&word) {
        s.guide_words += 1;
    }
    if API.contains(&word) {
        s.api_words += 1;
    }
    if PAPER.contains(&word) {
        s.paper_words += 1;
    }
    if ALGORITHM.contains(&word) {
        s.algo_words += 1;
    }
}

fn is_stop_word(word: &str) -> bool {
    const STOP: &[&str] = &[
        "about",
        "above",
        "after",
        "again",
        "also",
        "although",
        "among",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "cannot",
        "could",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "either",
        "else",
        "even",
        "every",
        "from",
        "further",
        "have",
        "having",
        "here",
        "hence",
        "however",
        "into",
        "itself",
        "just",
        "less",
        "like",
        "many",
        "more",
        "most",
        "much",
        "must",
        "need",
        "only",
        "other",
        "otherwise",
        "over",
        "same",
        "should",
        "since",
        "some",
        "such",
        "than",
        "that",
        "their",
        "them",
        "then",
        "there",
        "therefore",
        "these",
        "they",
        "this",
        "those",
        "through",
        "thus",
        "under",
        "until",
        "upon",
        "very",
        "were",
        "what",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "will",
        "with",
        "within",
        "without",
        "would",
        "your",
        "yours",
        "ours",
        "shall",
        "well",
        "used",
        "using",
        "uses",
        "make",
        "made",
        "follows",
        "following",
        "given",
        "show",
        "shows",
        "note",
        "let",
        "left",
        "right",
        "frac",
        "mathbb",
        "mathrm",
        "text",
        "textbf",
        "emph",
        "quad",
    ];
    STOP.contains(&word)
}

/// Bytes of inline `$…$` math on a line: a `$` followed by a non-space opens, a `$` after a
/// non-space closes (so `$5 and $6` is not math).
fn inline_dollar_math(line: &str) -> usize {
    let b = line.as_bytes();
    let mut total = 0;
    let mut open: Option<usize> = None;
    for i in 0..b.len() {
        if b[i] != b'$' || (i > 0 && b[i - 1] == b'\\') {
            continue;
        }
        match open {
            None if b
                .get(i + 1)
                .is_some_and(|c| !c.is_ascii_whitespace() && !c.is_ascii_digit()) =>
            {
                open = Some(i);
            }
            Some(start) if i > start + 1 && !b[i - 1].is_ascii_whitespace() => {
                total += i + 1 - start;
                open = None;
            }
            _ => {}
        }
    }
    total
}

/// Bytes of inline code spans between backticks on a line.
fn inline_backticks(line: &str) -> usize {
    let mut total = 0;
    let mut parts = line.split('`');
    parts.next();
    while let (Some(code), Some(_)) = (parts.next(), parts.next()) {
        total += code.len() + 2;
    }
    total
}

fn nonblank(s: &str) -> usize {
    s.bytes().filter(|b| !b.is_ascii_whitespace()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_that_are_money_are_not_math() {
        assert_eq!(inline_dollar_math("costs $5 and $6 today"), 0);
        assert_eq!(inline_dollar_math("let $x^2$ be"), 5);
    }

    #[test]
    fn keywords_skip_commands_and_labels() {
        let mut s = Signals::default();
        let k = words(
            "\\begin{theorem}\\label{thm:convergence} Convergence of gradient descent: gradient \
             norms shrink.\\end{theorem}",
            true,
            &mut s,
        );
        assert_eq!(k, ["gradient", "convergence", "descent", "norms", "shrink"]);
    }

    #[test]
    fn content_types_follow_shares() {
        let s = Signals { bytes: 100, proof: 80, math: 30, ..Signals::default() };
        assert_eq!(content_type(&s), "proof");
        let s = Signals { bytes: 100, code: 40, math: 40, ..Signals::default() };
        assert_eq!(content_type(&s), "mixed");
        let s = Signals { bytes: 100, math: 10, ..Signals::default() };
        assert_eq!(content_type(&s), "theory");
        let s = Signals { bytes: 100, ..Signals::default() };
        assert_eq!(content_type(&s), "narrative");
    }
}
