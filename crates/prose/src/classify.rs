//! Chunk and document classification: heuristic, fast and explainable.
//!
//! Each chunk is measured once: the share of its bytes in math, code and tables, in
//! theorem-like statements, definitions, proofs and algorithms, plus counts of marker words.
//! The shares come from the atom tree, not from scanning the chunk again: the atomizers mark
//! what they found with a [`Region`] (on the atom, or with its exact extent in the tree's
//! location map), and a chunk counts the non-blank bytes it shares with each; a chunk that
//! starts inside a region is a part of it and counts whole, with or without a header that
//! says so. What no atomizer marks is read from the chunk's text: paragraphs that open with
//! `Theorem`, `Proof.` … outside LaTeX, inline literals and roles in reStructuredText,
//! code-like lines and tables in plain text (whose atomizer knows only paragraphs), and the
//! vocabulary. The content type is the share that best clears its threshold; with none, two
//! large shares of math, code and tables make it `mixed`, else it is `preamble`,
//! `references`, `theory` (prose with some math) or `narrative`.
//!
//! The document's type is scored from the sums over its chunks: a research paper has
//! statements and proofs, math, an abstract, citations (`\cite`, `[12]`, pandoc's `[@key]`)
//! and paper headings; an algorithm-focused text has algorithms, pseudo-code and complexity
//! bounds (`O(n log n)`); an implementation guide has code, install/run vocabulary addressed
//! to the reader and shell prompts; a technical doc has the items of an interface documented
//! one by one (Sphinx directives, headings that name code, a LaTeX manual's `\cs{…}`), API
//! vocabulary, tables and some code. Vocabulary counts as a rate per thousand words above what
//! ordinary prose has of it, and over at least [`RATE_WORDS`] words; a guide's words count half
//! when it shows no code or command. `general` scores a constant, and a document of fewer than
//! [`SHORT_WORDS`] words is `general` at low confidence. The confidence is the winner's share
//! of the squared scores, capped at 0.6 when nothing stood out. `bench/classify` measures all
//! this on labelled real documents.

use std::collections::HashMap;
use std::ops::Range;

use cleave_core::{Atom, AtomKind, AtomTree, Chunk, Classification, Region};

use crate::words::{self, contains};
use crate::{DocumentClass, Format};

/// Keywords reported per chunk.
const KEYWORDS: usize = 5;

/// The fewest words over which a rate is taken.
const RATE_WORDS: usize = 300;

/// Documents of fewer words are too short to tell (a two-line note, a moved-to pointer): they
/// are `general`, at a confidence of at most [`SHORT_CONFIDENCE`].
const SHORT_WORDS: usize = 50;
const SHORT_CONFIDENCE: f32 = 0.3;

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
    /// Complexity bounds (`O(n log n)`).
    big_o: usize,
    /// Items of an interface documented one by one (directives, code headings, macros).
    api_items: usize,
    words: usize,
    guide_words: usize,
    api_words: usize,
    paper_words: usize,
    algo_words: usize,
    has_abstract: bool,
}

impl Signals {
    /// Sets the region shares from a chunk's bytes per region class.
    fn add_regions(&mut self, bytes: &[usize; REGIONS]) {
        self.math += bytes[region_index(Region::Math)];
        self.code += bytes[region_index(Region::Code)];
        self.table += bytes[region_index(Region::Table)];
        self.theorem += bytes[region_index(Region::Theorem)];
        self.definition += bytes[region_index(Region::Definition)];
        self.proof += bytes[region_index(Region::Proof)];
        self.algorithm += bytes[region_index(Region::Algorithm)];
    }

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
        self.big_o += o.big_o;
        self.api_items += o.api_items;
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

    /// Occurrences per thousand words, over at least [`RATE_WORDS`]: one word in a note of
    /// twenty is no rate of fifty per thousand.
    fn rate(&self, count: usize) -> f32 {
        count as f32 * 1000.0 / self.words.max(RATE_WORDS) as f32
    }
}

/// Classifies the chunks of one document, cut from `tree`, and the document.
pub(crate) fn classify(
    format: Format,
    tree: &AtomTree,
    text: &str,
    chunks: &mut [Chunk],
) -> Option<DocumentClass> {
    if chunks.is_empty() {
        return None;
    }
    let data = matches!(format, Format::Json | Format::Yaml | Format::Toml);
    let regions = if data { Vec::new() } else { region_bytes(tree, text, chunks) };
    let abstracts = if data { Vec::new() } else { abstract_starts(&tree.root) };
    let mut doc = Signals::default();
    let mut headings: Vec<String> = Vec::new();
    for (idx, chunk) in chunks.iter_mut().enumerate() {
        let mut signals = Signals { bytes: nonblank(&chunk.text), ..Signals::default() };
        if let Some(bytes) = regions.get(idx) {
            signals.add_regions(bytes);
        }
        let range = chunk.byte_start..chunk.byte_end;
        signals.has_abstract = abstracts.iter().any(|at| range.contains(at));
        let keywords = measure(format, &chunk.text, &mut signals);
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

// ---- regions -----------------------------------------------------------------------------

/// How many region classes a chunk counts: the index of each is [`region_index`].
const REGIONS: usize = 9;

fn region_index(region: Region) -> usize {
    match region {
        Region::Math => 0,
        Region::Code => 1,
        Region::Table => 2,
        Region::Theorem => 3,
        Region::Definition => 4,
        Region::Proof => 5,
        Region::Algorithm => 6,
        Region::Figure => 7,
        Region::Abstract => 8,
    }
}

/// Per chunk, the non-blank bytes of each region class: the exact extents in the tree's
/// location map when the atomizer recorded them, else the region atoms.
///
/// A chunk counts the bytes it shares with each region, except that a chunk which starts
/// inside a region (a later part of a split proof, fence or formula) counts as that region
/// whole: it is a part of it, as its header says when it has room for one. Math and code atoms
/// are not looked into, so a formula's `\text{…}` is not prose; other regions are, so math
/// inside a proof counts as both. Each region adds to the chunks it overlaps, found by binary
/// search (starts and ends of chunks both grow, overlap or not).
fn region_bytes(tree: &AtomTree, text: &str, chunks: &[Chunk]) -> Vec<[usize; REGIONS]> {
    struct Tally<'a> {
        text: &'a [u8],
        ranges: Vec<Range<usize>>,
        /// Non-blank bytes of each chunk.
        whole: Vec<usize>,
        out: Vec<[usize; REGIONS]>,
    }
    impl Tally<'_> {
        fn add(&mut self, r: &Range<usize>, region: Region) {
            let first = self.ranges.partition_point(|c| c.end <= r.start);
            for idx in first..self.ranges.len() {
                let c = &self.ranges[idx];
                if c.start >= r.end {
                    break;
                }
                let bytes = if r.start < c.start {
                    self.whole[idx]
                } else {
                    self.text.get(r.start..c.end.min(r.end)).map_or(0, nonblank_bytes)
                };
                self.out[idx][region_index(region)] += bytes;
            }
        }

        fn walk(&mut self, atom: &Atom) {
            if let Some(region) = atom.region {
                self.add(&atom.range, region);
                if matches!(region, Region::Math | Region::Code) {
                    return;
                }
            }
            for child in &atom.children {
                self.walk(child);
            }
        }
    }
    let mut tally = Tally {
        text: text.as_bytes(),
        ranges: chunks.iter().map(|c| c.byte_start..c.byte_end).collect(),
        whole: chunks.iter().map(|c| nonblank(&c.text)).collect(),
        out: vec![[0; REGIONS]; chunks.len()],
    };
    if tree.locations.regions.is_empty() {
        tally.walk(&tree.root);
    } else {
        for (r, region) in &tree.locations.regions {
            tally.add(r, *region);
        }
    }
    tally.out
}

/// Where abstracts start: `abstract` environments and sections titled "Abstract". A chunk
/// that holds one of these offsets holds the start of the abstract.
fn abstract_starts(root: &Atom) -> Vec<usize> {
    fn walk(atom: &Atom, out: &mut Vec<usize>) {
        let titled = atom.kind == AtomKind::Section
            && atom.label_text().is_some_and(|l| l.trim().eq_ignore_ascii_case("abstract"));
        if atom.region == Some(Region::Abstract) || titled {
            out.push(atom.range.start);
        }
        for child in &atom.children {
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    walk(root, &mut out);
    out
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
    if s.words < SHORT_WORDS {
        return DocumentClass { doc_type: "general".to_owned(), confidence: SHORT_CONFIDENCE };
    }
    let named = |words: &[&str]| {
        headings.iter().filter(|h| words.iter().any(|w| h.contains(w))).count().min(4) as f32
    };
    let paper_headings = named(words::PAPER_HEADINGS);
    let guide_headings = named(words::GUIDE_HEADINGS);
    let tech_headings = named(words::TECH_HEADINGS);
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
        + (s.rate(s.algo_words) / 8.0).min(2.0)
        + (s.rate(s.big_o) / 2.5).min(2.5);
    // A guide shows what to type: without code or commands its words count half.
    let shows = if s.share(s.code) >= 0.03 || s.prompts > 0 { 1.0 } else { 0.5 };
    let guide = 1.5 * s.share(s.code)
        + shows * ((s.rate(s.guide_words) - 10.0) / 6.0).clamp(0.0, 3.0)
        + (s.prompts as f32 / 2.0).min(2.0)
        + 0.5 * guide_headings;
    let technical = 1.2 * s.share(s.code)
        + ((s.rate(s.api_words) - 8.0) / 8.0).clamp(0.0, 3.0)
        + 1.5 * s.share(s.table)
        + 0.4 * tech_headings
        + (s.rate(s.api_items) / 3.0).min(3.0);
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

/// Measures what the tree does not say about one chunk into `s`, and returns its keywords.
fn measure(format: Format, text: &str, s: &mut Signals) -> Vec<String> {
    match format {
        Format::Rst => rst_inline(text, s),
        Format::Text => text_spans(text, s),
        Format::Markdown | Format::Latex | Format::Json | Format::Yaml | Format::Toml => {}
    }
    if format != Format::Latex {
        statement_paragraphs(text, s);
    }
    lines(format, text, s);
    words(text, format == Format::Latex, s)
}

/// reStructuredText: inline math roles and inline literals, which its atomizer leaves inside
/// paragraphs (directives, literal blocks and tables are regions of the tree).
fn rst_inline(text: &str, s: &mut Signals) {
    for line in text.lines() {
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

/// Line markers: preamble lines, bibliography entries, pseudo-code, prompts, the items of an
/// interface being documented; citations and complexity bounds.
fn lines(format: Format, text: &str, s: &mut Signals) {
    use words::{PREAMBLE, PROMPTS, PSEUDO};
    for line in text.lines() {
        let t = line.trim_start();
        if PREAMBLE.iter().any(|p| t.starts_with(p)) {
            s.preamble += 1;
        }
        // `bibliography: paper.bib` is the front matter of a Markdown paper (pandoc, JOSS).
        if t.starts_with("\\bibitem")
            || t.starts_with('@') && t.contains('{')
            || t.starts_with("bibliography:")
        {
            s.bib += 1;
        }
        if PSEUDO.iter().any(|p| t.starts_with(p)) {
            s.pseudo += 1;
        }
        if PROMPTS.iter().any(|p| t.starts_with(p)) {
            s.prompts += 1;
        }
        s.api_items += api_items(format, t);
    }
    s.citations += text.matches("\\cite").count();
    // Pandoc citations: `[@knuth84]`, `[@a; @b]`.
    s.citations += text.matches("[@").count() + text.matches("; @").count();
    let b = text.as_bytes();
    // Numeric citations: `[12]`, `[3, 4]` after a space or at a line start, not an index as in
    // `a[0]` or `\newcommand{\x}[1]`.
    let mut i = 0;
    while let Some(p) = text[i..].find('[') {
        let start = i + p + 1;
        let len = b[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit() || matches!(c, b',' | b' ' | b'-'))
            .count();
        let after_space = start < 2 || b[start - 2].is_ascii_whitespace();
        if after_space && len > 0 && b.get(start + len) == Some(&b']') && b[start].is_ascii_digit()
        {
            s.citations += 1;
        }
        i = start;
    }
    // Complexity bounds: `O(n log n)`, `$O(n)$`, `\mathcal{O}(n)`, not `FOO(` or `IO(`.
    s.big_o += text
        .match_indices("O(")
        .filter(|(at, _)| *at == 0 || !b[at - 1].is_ascii_alphanumeric())
        .count();
}

/// How many items of an interface one line documents: a reStructuredText directive such as
/// `.. function:: path(route, view)`, a Markdown heading that names code (`` ### `chalk.level` ``,
/// `## semver.valid(v)`), the commands of a LaTeX package manual (`\cs{foo}`, `\marg{arg}`).
fn api_items(format: Format, t: &str) -> usize {
    match format {
        Format::Rst => {
            let Some(name) = t.strip_prefix(".. ").and_then(|r| r.split_once("::")) else {
                return 0;
            };
            let name = name.0.trim();
            usize::from(contains(words::API_DIRECTIVES, name.strip_prefix("py:").unwrap_or(name)))
        }
        Format::Markdown => {
            let heading = t.starts_with('#') && t.trim_start_matches('#').starts_with(' ');
            usize::from(heading && (t.contains('(') || t.contains('`')))
        }
        Format::Latex if t.contains('\\') => {
            let b = t.as_bytes();
            // `\verb|\foo|`: a command named in verbatim, as manuals do and papers do not.
            let verbatim = t
                .match_indices("\\verb")
                .filter(|(at, _)| {
                    let delim = at + 5 + usize::from(b.get(at + 5) == Some(&b'*'));
                    b.get(delim).is_some_and(|d| !d.is_ascii_alphabetic())
                        && b.get(delim + 1) == Some(&b'\\')
                })
                .count();
            verbatim + words::API_COMMANDS.iter().map(|c| t.matches(c).count()).sum::<usize>()
        }
        _ => 0,
    }
}

/// Counts vocabulary and returns the chunk's keywords: its most frequent content words (four
/// letters or more, not stop words, not LaTeX command names or their key arguments).
fn words(text: &str, latex: bool, s: &mut Signals) -> Vec<String> {
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
            skip_group = contains(words::SKIP_ARGS, &name);
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
    s.guide_words += usize::from(contains(words::GUIDE, word));
    s.api_words += usize::from(contains(words::API, word));
    s.paper_words += usize::from(contains(words::PAPER, word));
    s.algo_words += usize::from(contains(words::ALGORITHM, word));
}

fn is_stop_word(word: &str) -> bool {
    contains(words::STOP, word)
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
    nonblank_bytes(s.as_bytes())
}

fn nonblank_bytes(b: &[u8]) -> usize {
    b.iter().filter(|b| !b.is_ascii_whitespace()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

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
