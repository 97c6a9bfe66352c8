//! The LaTeX atomizer through the packer and the shared invariant checker: fixtures, small
//! cases with their outline, property tests on random LaTeX, and a corpus measurement gated by
//! `CLEAVE_SLOW_TESTS`.

use std::path::Path;

use cleave_core::{
    Atom, AtomKind, AtomTree, Chunk, ChunkConfig, Severity, Source, Unit, check_invariants, pack,
};
use cleave_prose::Format;
use proptest::prelude::*;

fn atomize(text: &str) -> AtomTree {
    crate::common::atomize(Format::Latex, text)
}

/// Chunks LaTeX and checks every invariant.
fn chunk(path: &str, text: &str, budget: usize, unit: Unit) -> (AtomTree, Vec<Chunk>) {
    crate::common::chunk(Format::Latex, path, text, budget, unit)
}

fn fixture(name: &str) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/latex");
    let text = std::fs::read_to_string(root.join(name)).unwrap();
    (format!("fixtures/latex/{name}"), text)
}

/// An indented outline of the tree: kind, label, protection and the first words of each atom.
fn outline(tree: &AtomTree, text: &str) -> String {
    fn walk(atom: &Atom, text: &str, depth: usize, out: &mut String) {
        let kind = match atom.kind {
            AtomKind::Symbol => "symbol",
            AtomKind::Section => "section",
            AtomKind::Block => "block",
            AtomKind::Gap => "gap",
            AtomKind::Protected => "protected",
        };
        let body: String =
            text[atom.range.clone()].split_whitespace().collect::<Vec<_>>().join(" ");
        let body: String = body.chars().take(24).collect::<String>().trim_end().to_owned();
        let label = atom.label_text().map(|l| format!(" [{l}]")).unwrap_or_default();
        let line = format!("{}{kind}{label} {:?}: {body}", "  ".repeat(depth), atom.boundary);
        out.push_str(line.trim_end());
        out.push('\n');
        for child in &atom.children {
            walk(child, text, depth + 1, out);
        }
    }
    let mut out = String::new();
    walk(&tree.root, text, 0, &mut out);
    out
}

/// Labels of the section atoms, in pre-order.
fn section_labels(atom: &Atom, out: &mut Vec<String>) {
    if atom.kind == AtomKind::Section {
        out.push(atom.label_text().unwrap_or_default().to_owned());
    }
    for child in &atom.children {
        section_labels(child, out);
    }
}

/// Whether the chunk starts inside a word: a word char on both sides of its start.
fn starts_mid_word(text: &str, chunk: &Chunk) -> bool {
    let before = text[..chunk.byte_start].chars().next_back();
    let first = chunk.text.chars().next();
    matches!((before, first), (Some(a), Some(b)) if a.is_alphanumeric() && b.is_alphanumeric())
}

#[test]
fn small_paper_outline() {
    let text = "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n\
\\section{Intro}\n\nWe study $x$. It is small.\n\n\\begin{theorem}\nIt holds.\n\\end{theorem}\n\
\\begin{proof}\nTrivial.\n\\end{proof}\n\n\\subsection{More}\nText with\n\\[ a = b. \\]\nThen more.\n\
\\end{document}\n";
    let tree = atomize(text);
    tree.root.validate(text).unwrap();
    assert!(tree.diagnostics.is_empty(), "{:?}", tree.diagnostics);
    let got = outline(&tree, text);
    let want = "\
block Line: \\documentclass{article}
  block [preamble] Section: \\documentclass{article}
  block Paragraph: \\begin{document}
  section [Intro] Section: \\section{Intro} We study
    block Line: \\section{Intro}
    block Line: We study $x$. It is smal
      block Sentence: We study $x$.
        gap Word: We study
        protected Word: $x$
        gap Word: .
      block Sentence: It is small.
    block Paragraph: \\begin{theorem} It holds
      protected [theorem] Paragraph: \\begin{theorem} It holds
        block Line: \\begin{theorem}
        block Line: It holds.
        block Line: \\end{theorem}
      protected [proof] Line: \\begin{proof} Trivial. \\
        block Line: \\begin{proof}
        block Line: Trivial.
        block Line: \\end{proof}
    section [More] Section: \\subsection{More} Text w
      block Line: \\subsection{More}
      block Line: Text with \\[ a = b. \\] T
        block Sentence: Text with \\[ a = b. \\]
          gap Word: Text with
          protected [display math] Line: \\[ a = b. \\]
          gap Word:
        block Sentence: Then more.
  block Section: \\end{document}
";
    assert_eq!(got, want, "outline:\n{got}");
}

/// Labels of the scope atoms holding byte `at` that start strictly before it: the chain a
/// chunk starting at `at` must carry.
fn expected_scope(atom: &Atom, at: usize, out: &mut Vec<String>) {
    if atom.is_scope && atom.range.start < at && at < atom.range.end {
        out.extend(atom.label_text().map(str::to_owned));
    }
    if let Some(child) = atom.children.iter().find(|c| c.range.start <= at && at < c.range.end) {
        expected_scope(child, at, out);
    }
}

#[test]
fn paper_fixture_at_several_budgets() {
    let (path, text) = fixture("paper_with_proofs.tex");
    let budgets = [
        (400, Unit::Chars),
        (1000, Unit::Chars),
        (4000, Unit::Chars),
        (300, Unit::Tokens(cleave_core::Tokenizer::O200k)),
    ];
    for (budget, unit) in budgets {
        let (tree, chunks) = chunk(&path, &text, budget, unit);
        assert!(tree.diagnostics.is_empty(), "{:?}", tree.diagnostics);
        for c in &chunks {
            assert!(
                !starts_mid_word(&text, c),
                "budget {budget}: chunk starts mid-word: {:?}",
                c.text
            );
            let mut scope = Vec::new();
            expected_scope(&tree.root, c.byte_start, &mut scope);
            assert_eq!(c.scope, scope, "budget {budget}: scope of chunk at {}", c.byte_start);
            // The breadcrumb is in the header whenever its shortest line (`% in Proofs`) fits
            // the header's share of the budget: the packer never gives it up.
            if let Some(last) = scope.last()
                && unit.sizer().size(&format!("% in {last}\n")) <= budget / 4
            {
                assert!(
                    c.header.contains(&format!("> {last}"))
                        || c.header.contains(&format!("in {last}")),
                    "budget {budget}: header {:?} lacks breadcrumb {scope:?}",
                    c.header
                );
            }
            let prov = c.provenance.as_ref().expect("prose chunks carry provenance");
            assert!(prov.tag.starts_with(&format!("[source:{path} | ¶")), "{}", prov.tag);
        }
    }
}

#[test]
fn paper_keeps_what_belongs_together() {
    let (path, text) = fixture("paper_with_proofs.tex");
    let holding = |chunks: &[Chunk], needle: &str| -> usize {
        let at = text.find(needle).unwrap();
        chunks.iter().position(|c| c.byte_start <= at && at < c.byte_end).unwrap()
    };
    // At 4000 chars the main theorem and its proof share a chunk.
    let (_, chunks) = chunk(&path, &text, 4000, Unit::Chars);
    assert_eq!(
        holding(&chunks, "\\begin{theorem}[Convergence]"),
        holding(&chunks, "This completes the proof.")
    );
    // At 1000 chars the algorithm stays whole with its caption, and the lemma with its proof.
    let (_, chunks) = chunk(&path, &text, 1000, Unit::Chars);
    assert_eq!(holding(&chunks, "\\begin{algorithm}"), holding(&chunks, "\\caption{Adaptive SGD}"));
    assert_eq!(holding(&chunks, "\\begin{algorithm}"), holding(&chunks, "\\end{algorithm}"));
    assert_eq!(holding(&chunks, "\\begin{lemma}"), holding(&chunks, "which proves the claim"));
    let results = holding(&chunks, "\\begin{table}");
    assert_eq!(results, holding(&chunks, "\\bottomrule"));
    let c = &chunks[holding(&chunks, "\\subsection{Main result}") + 1];
    assert!(c.header.contains("in Analysis > Main result"), "{:?}", c.header);
    assert_eq!(c.provenance.as_ref().unwrap().section, ["Analysis", "Main result"]);
}

#[test]
fn oversize_environment_parts_say_so() {
    let (path, text) = fixture("paper_with_proofs.tex");
    let (_, chunks) = chunk(&path, &text, 400, Unit::Chars);
    let parts: Vec<&Chunk> =
        chunks.iter().filter(|c| c.part.as_ref().is_some_and(|p| p.of == "proof")).collect();
    assert!(parts.len() >= 2, "the main proof is split at 400 chars");
    assert!(parts.iter().all(|c| c.part.as_ref().unwrap().protected));
    let later = parts.iter().find(|c| c.part.as_ref().unwrap().index > 1).unwrap();
    assert!(later.header.contains("\\begin{proof}"), "{:?}", later.header);
    assert!(later.header.contains("(part "), "{:?}", later.header);
}

#[test]
fn preamble_is_its_own_scope() {
    let (path, text) = fixture("paper_with_proofs.tex");
    let tree = atomize(&text);
    let first = &tree.root.children[0];
    assert_eq!(first.label_text(), Some("preamble"));
    assert_eq!(&text[first.range.clone()], &text[..text.find("\\begin{document}").unwrap()]);
    let (_, chunks) = chunk(&path, &text, 400, Unit::Chars);
    let inside = chunks.iter().find(|c| c.byte_start > 0 && c.byte_end <= first.range.end).unwrap();
    assert_eq!(inside.scope, ["preamble"]);
    let mut labels = Vec::new();
    section_labels(&tree.root, &mut labels);
    assert_eq!(
        labels,
        [
            "Introduction",
            "Preliminaries",
            "Method",
            "Analysis",
            "A descent lemma",
            "Main result",
            "Experiments",
            "Conclusion"
        ]
    );
}

#[test]
fn unterminated_regions_are_bounded() {
    let (path, text) = fixture("broken/unterminated.tex");
    let tree = atomize(&text);
    let degraded = tree.diagnostics.iter().filter(|d| d.severity == Severity::Degraded).count();
    assert!(degraded >= 5, "{:#?}", tree.diagnostics);
    let mut labels = Vec::new();
    section_labels(&tree.root, &mut labels);
    assert_eq!(labels, ["Costs", "After the proof", "Verbatim"]);
    // The closed inline math after the broken proof is still protected.
    let at = text.find("$x^2$").unwrap();
    let mut atom = &tree.root;
    while let Some(child) = atom.children.iter().find(|c| c.range.start <= at && at < c.range.end) {
        atom = child;
    }
    assert!(atom.protected && &text[atom.range.clone()] == "$x^2$");
    for budget in [60, 200, 1000] {
        chunk(&path, &text, budget, Unit::Chars);
    }
}

#[test]
fn sentences_split_an_oversize_paragraph() {
    let sentence = "The estimator $\\hat\\theta_n$ is consistent under mild conditions. ";
    let text = format!("\\section{{Long}}\n{}\n", sentence.repeat(30));
    let (_, chunks) = chunk("long.tex", &text, 300, Unit::Chars);
    assert!(chunks.len() > 3);
    for c in &chunks[1..] {
        assert!(c.text.starts_with("The estimator"), "{:?}", c.text);
        assert_eq!(c.scope, ["Long"]);
    }
}

#[test]
fn comments_verb_and_escapes_hide_markup() {
    let text = "\\section{A}\nPrice: 5\\$ and % $ \\begin{proof} \\section{Not}\n\
\\verb|$x| then $y$ done.\n\\begin{verbatim}\n\\section{Also not} $\n\\end{verbatim}\n";
    let tree = atomize(text);
    assert!(tree.diagnostics.is_empty(), "{:?}", tree.diagnostics);
    let mut labels = Vec::new();
    section_labels(&tree.root, &mut labels);
    assert_eq!(labels, ["A"]);
    chunk("hide.tex", text, 40, Unit::Chars);
}

/// Package documentation declares short verbatim delimiters (`\MakeShortVerb{\|}`, and the
/// `l3doc` class makes `|` one): a `$` between them is not math, and `\section` is not a
/// heading.
#[test]
fn short_verbatim_delimiters_hide_markup() {
    let body = "\\section{A}\nThe |math_toggle| token, often |$|), % $\n\
and |\\section{Not}| here; |$$| too.\n\n\\begin{itemize}\n\\item[3] math shift (|$|)\n\\end{itemize}\n";
    for preamble in
        ["\\documentclass{ltxdoc}\n\\MakeShortVerb{\\|}\n", "\\documentclass[a4paper]{l3doc}\n"]
    {
        let text = format!("{preamble}\\begin{{document}}\n{body}\\end{{document}}\n");
        let tree = atomize(&text);
        assert!(tree.diagnostics.is_empty(), "{preamble}: {:?}", tree.diagnostics);
        let mut labels = Vec::new();
        section_labels(&tree.root, &mut labels);
        assert_eq!(labels, ["A"], "{preamble}");
        chunk("doc.tex", &text, 60, Unit::Chars);
    }
    // `\DeleteShortVerb` ends one: `|` is an ordinary character again.
    let text = "\\MakeShortVerb{\\|}\n|$| \\DeleteShortVerb{\\|}\n$|x|$ and $y$.\n";
    let tree = atomize(text);
    assert!(tree.diagnostics.is_empty(), "{:?}", tree.diagnostics);
}

#[test]
fn declared_theorems_group_with_their_proof() {
    let text = "\\newtheorem{prop2}{Proposition}\n\\begin{document}\n\
\\begin{prop2}\nA claim.\n\\end{prop2}\n\n\\begin{proof}\nEasy.\n\\end{proof}\n\\end{document}\n";
    let tree = atomize(text);
    let group = tree
        .root
        .children
        .iter()
        .find(|a| a.children.len() == 2 && a.children[0].label_text() == Some("prop2"))
        .expect("theorem and proof grouped");
    assert_eq!(group.children[1].label_text(), Some("proof"));
    chunk("thm.tex", text, 60, Unit::Chars);
}

/// A comment right above an environment describes it: the two are not cut apart while they
/// fit together, and the environment alone stays whole when only it fits.
#[test]
fn comment_above_an_environment_stays_with_it() {
    let filler = "Plain words fill this paragraph to make it long enough. ".repeat(6);
    let text = format!(
        "\\section{{Poster}}\n{filler}\n\n% Footer of the poster\n%% (two lines)\n\
\\begin{{posterbox}}[title=Footer]\n{filler}\n\\end{{posterbox}}\n\n{filler}\n"
    );
    // The box fits with a full header, the comment and the box only with a shorter one.
    let at = text.find("\\begin{posterbox}").unwrap();
    let env_len = text[at..].find("\\end{posterbox}").unwrap() + "\\end{posterbox}\n".len();
    let (_, chunks) = chunk("poster.tex", &text, env_len + 30, Unit::Chars);
    let holder = chunks.iter().find(|c| c.byte_start <= at && at < c.byte_end).unwrap();
    assert!(holder.byte_end >= at + env_len, "the box stays whole: {:?}", holder.text);
    // With room for both, the comment leads the box.
    let (_, chunks) = chunk("poster.tex", &text, env_len + 120, Unit::Chars);
    let holder = chunks.iter().find(|c| c.byte_start <= at && at < c.byte_end).unwrap();
    assert!(holder.text.trim_start().starts_with("% Footer of the poster"), "{:?}", holder.text);
}

/// A verbatim-like environment larger than the budget is cut at its blank lines (between
/// BibTeX entries here), not inside an entry.
#[test]
fn oversize_verbatim_splits_at_blank_lines() {
    let entry = |k: usize| {
        format!(
            "@article{{key{k},\n  author = {{One, A. and Two, B.}},\n  title = {{A title of \
some length, number {k}}},\n  journal = {{Journal}},\n  year = {{20{k:02}}},\n}}\n"
        )
    };
    let entries: Vec<String> = (0..12).map(entry).collect();
    let text = format!(
        "\\begin{{filecontents}}{{refs.bib}}\n{}\\end{{filecontents}}\n",
        entries.join("\n")
    );
    for budget in [300, 600, 1000] {
        let (_, chunks) = chunk("bib.tex", &text, budget, Unit::Chars);
        assert!(chunks.len() > 1);
        for c in &chunks[1..] {
            assert!(
                c.text.starts_with("@article") || c.text.starts_with("\\end"),
                "budget {budget}: chunk starts inside an entry: {:?}",
                c.text
            );
        }
    }
}

/// Small budgets, where the header cap binds, still keep every invariant but integrity.
#[test]
fn small_budgets_keep_lossless_and_budget() {
    let (path, text) = fixture("broken/unterminated.tex");
    let tree = atomize(&text);
    let source = Source::new(&path, &text);
    for budget in [40, 64, 100, 161] {
        let config = ChunkConfig::new(budget, Unit::Bytes).unwrap();
        let chunks = pack(&source, &tree, &config);
        let errors = cleave_core::check_chunks(&source, &chunks, &config);
        assert!(errors.is_empty(), "{errors:?}");
    }
}

/// FIXME(core): today's wrong output. The chunk inside `Step.` loses its scope line to the
/// header cap (40 bytes), so the checker thinks the section would have fit with a 13-byte
/// header, while the packer reserved `% in Title (part 999/999)` (39 bytes) and opened it.
/// Either the checker should use the header the packer reserved, or the packer should not
/// reserve part numbers that the cap will drop.
#[test]
fn checker_and_packer_disagree_under_the_header_cap() {
    let text = concat!(
        "\\begin{document}\n\n\\section{Title}\n\\paragraph{Step.}\\) \n\\end{verbatim}",
        "\\end{verbatim}\\begin{document}\n\\[ x^2 {\\\\\\begin{proof}\n\\begin{verbatim}",
        "\\verb|a$b| \\end{equation}\n\n"
    );
    let tree = atomize(text);
    let source = Source::new("random.tex", text);
    let config = ChunkConfig::new(161, Unit::Bytes).unwrap();
    let chunks = pack(&source, &tree, &config);
    let errors = check_invariants(&source, &tree, &chunks, &config);
    // A core change under way (the checker measuring an atom's own text, the packer dropping
    // the header instead) makes this clean; either way, nothing else may be reported.
    let known = ["Section atom 34..167 (Step.) fits the budget but is split"];
    assert!(errors.is_empty() || errors == known, "{errors:?}");
    assert!(cleave_core::check_chunks(&source, &chunks, &config).is_empty());
}

/// Every invariant of the shared checker on random LaTeX, with integrity judged against the
/// largest header the packer may have reserved for the atom (its path, the scope chain of its
/// ancestors with a part number, and their longest signature).
///
/// FIXME(core): the committed `check_invariants` judges "fits" with the largest header the
/// chunks actually carry. The packer reserves the header of the scope an atom starts in, which
/// can be larger (a container's signature, or a scope line the header cap later drops), so the
/// shared checker reports atoms that never fitted as split; see
/// `checker_and_packer_disagree_under_the_header_cap`. A core change under way measures the
/// atom's own text instead; once it lands this helper can call `check_invariants` alone.
fn random_check(text: &str, budget: usize, unit: Unit) -> Vec<String> {
    let tree = atomize(text);
    let source = Source::new("random.tex", text);
    let config = ChunkConfig::new(budget, unit).unwrap();
    let chunks = pack(&source, &tree, &config);
    let mut errors = cleave_core::check_chunks(&source, &chunks, &config);
    if let Err(e) = tree.root.validate(text) {
        errors.push(e);
    }
    let sizer = unit.sizer();
    fn walk<'a>(atom: &'a Atom, up: &mut Vec<&'a Atom>, out: &mut Vec<(&'a Atom, Vec<&'a Atom>)>) {
        out.push((atom, up.clone()));
        up.push(atom);
        for child in &atom.children {
            walk(child, up, out);
        }
        up.pop();
    }
    let mut all = Vec::new();
    walk(&tree.root, &mut Vec::new(), &mut all);
    for (atom, ancestors) in all {
        if !atom.is_integral() || atom.is_empty() {
            continue;
        }
        let whole =
            chunks.iter().any(|c| c.byte_start <= atom.range.start && atom.range.end <= c.byte_end);
        if whole {
            continue;
        }
        let chain: Vec<&str> =
            ancestors.iter().filter(|a| a.is_scope).filter_map(|a| a.label_text()).collect();
        let signature = ancestors
            .iter()
            .filter_map(|a| a.label.as_deref().and_then(|l| l.signature.as_deref()))
            .map(|s| sizer.size(&format!("% {s}\n")))
            .max()
            .unwrap_or(0);
        // With no scope chain the header names the innermost labelled atom instead.
        let label = ancestors
            .iter()
            .filter_map(|a| a.label_text())
            .map(|l| sizer.size(&format!("% {l} (part 999/999)\n")))
            .max()
            .unwrap_or(0);
        let scope_line = sizer.size(&format!("% in {} (part 999/999)\n", chain.join(" > ")));
        let header = sizer.size("% random.tex\n") + scope_line.max(label);
        if sizer.size(&text[atom.range.clone()]) + header + signature <= budget {
            errors.push(format!(
                "{:?} atom {:?} fits the budget but is split",
                atom.kind, atom.range
            ));
        }
    }
    errors
}

/// Fragments of LaTeX, well-formed or not, for property tests.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[A-Za-z]{1,9}( [a-zé]{1,8}){0,10}[.?!,]? ",
        2 => Just("\n\n".to_owned()),
        2 => Just("\n".to_owned()),
        2 => "\\$[a-z+^_ ]{0,16}\\$",
        1 => Just("$".to_owned()),
        1 => Just("$$".to_owned()),
        1 => Just("\\[ x^2 ".to_owned()),
        1 => Just("\\] ".to_owned()),
        1 => Just("\\( a ".to_owned()),
        1 => Just("\\) ".to_owned()),
        1 => Just("\n\\section{Title}\n".to_owned()),
        1 => Just("\\subsection*{Sub $x$}\n".to_owned()),
        1 => Just("\\paragraph{Step.}".to_owned()),
        1 => Just("\\begin{proof}\n".to_owned()),
        1 => Just("\\end{proof}\n".to_owned()),
        1 => Just("\\begin{equation}".to_owned()),
        1 => Just("\\end{equation}".to_owned()),
        1 => Just("\\begin{theorem}[Main]\n".to_owned()),
        1 => Just("\\end{theorem}\n".to_owned()),
        1 => Just("\\begin{verbatim}".to_owned()),
        1 => Just("\\end{verbatim}".to_owned()),
        1 => Just("\\begin{itemize}\n".to_owned()),
        1 => Just("\\item ".to_owned()),
        1 => Just("\\end{itemize}\n".to_owned()),
        1 => Just("% comment $ \\begin{x}\n".to_owned()),
        1 => Just("\\verb|a$b| ".to_owned()),
        1 => Just("{".to_owned()),
        1 => Just("}".to_owned()),
        1 => Just("\\begin{document}\n".to_owned()),
        1 => Just("\\end{document}\n".to_owned()),
        1 => Just("日本語の文。".to_owned()),
        1 => Just("\\\\".to_owned()),
        1 => Just("\\".to_owned()),
    ]
}

/// `text` without its closed verbatim environments, where anything may stand.
fn without_verbatim(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("\\begin{verbatim}") {
        out.push_str(&rest[..start]);
        match rest[start..].find("\\end{verbatim}") {
            Some(end) => rest = &rest[start + end..],
            None => {
                rest = &rest[start..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..80).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_latex_keeps_every_invariant(text in document(), budget in 40usize..1200) {
        let errors = random_check(&text, budget, Unit::Chars);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    #[test]
    fn random_latex_in_bytes_keeps_every_invariant(text in document(), budget in 64usize..800) {
        let errors = random_check(&text, budget, Unit::Bytes);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    /// Protection ends at a sane bound: math never holds a blank line or a heading, and no
    /// protected region but a verbatim one holds a `\section` at a line start.
    #[test]
    fn protection_never_swallows_the_document(text in document()) {
        let tree = atomize(&text);
        let mut stack = vec![&tree.root];
        while let Some(atom) = stack.pop() {
            stack.extend(atom.children.iter());
            if !atom.protected {
                continue;
            }
            let body = &text[atom.range.clone()];
            let trimmed = body.trim_start();
            if trimmed.starts_with('$') || trimmed.starts_with("\\[") || trimmed.starts_with("\\(") {
                let inner = trimmed.trim_end();
                prop_assert!(!inner.contains("\n\n"), "math holds a blank line: {body:?}");
                prop_assert!(!inner.contains("\\section"), "math holds a heading: {body:?}");
            }
            let visible = without_verbatim(body);
            prop_assert!(!visible.contains("\n\\section{"), "{body:?} swallows a section");
        }
    }
}

// ---- corpus measurement ------------------------------------------------------------------

/// A region an independent, simpler scan finds: math or a `\begin`…`\end` environment.
struct Region {
    range: std::ops::Range<usize>,
    kind: &'static str,
    /// A verbatim-like body, where blank lines do not end a paragraph of the text around.
    opaque: bool,
}

/// Math and environments found without the atomizer: comments masked, verbatim-like bodies
/// skipped, `\begin`/`\end` paired by name, `$`, `$$` and `\[ \]` paired inside paragraphs.
fn independent_regions(text: &str) -> Vec<Region> {
    let b = text.as_bytes();
    let mut masked = b.to_vec();
    // `|…|` is verbatim after `\MakeShortVerb{\|}` (or fancyvrb's `\DefineShortVerb`), and
    // everywhere in an `l3doc` document.
    let short_verb_from = ["\\MakeShortVerb{\\|}", "\\DefineShortVerb{\\|}", "{l3doc}"]
        .iter()
        .filter_map(|d| text.find(d))
        .min();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'|' if short_verb_from.is_some_and(|from| i > from) => {
                match b[i + 1..].iter().position(|&x| x == b'|' || x == b'\n') {
                    Some(p) if b[i + 1 + p] == b'|' => {
                        masked[i..i + 2 + p].fill(b' ');
                        i += 2 + p;
                    }
                    _ => i += 1,
                }
            }
            // `\verb|…|` (and `\verb*`) on one line: its body is text, not markup.
            b'\\'
                if text[i..].starts_with("\\verb")
                    && !b.get(i + 5).is_some_and(u8::is_ascii_alphabetic) =>
            {
                let k = if b.get(i + 5) == Some(&b'*') { i + 6 } else { i + 5 };
                let delim = b.get(k).copied().filter(|d| !d.is_ascii_whitespace() && d.is_ascii());
                let close = delim.and_then(|d| {
                    b[k + 1..]
                        .iter()
                        .position(|&x| x == d || x == b'\n')
                        .filter(|&p| b[k + 1 + p] == d)
                });
                match close {
                    Some(p) => {
                        masked[k..k + 2 + p].fill(b' ');
                        i = k + 2 + p;
                    }
                    None => i += 2,
                }
            }
            b'\\' => i += 2,
            b'%' => {
                while i < b.len() && b[i] != b'\n' {
                    masked[i] = b' ';
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    let m = &masked[..];
    let mut out = Vec::new();
    let mut stack: Vec<(String, usize)> = Vec::new();
    let mut math: Option<(usize, &'static str)> = None;
    // Environments opened inside the current math (`$\begin{pmatrix}…\end{pmatrix}$`).
    let mut in_math: Vec<String> = Vec::new();
    let mut i = 0;
    while i < m.len() {
        if m[i] == b'\n'
            && m[i + 1..].iter().take_while(|&&c| c != b'\n').all(|c| c.is_ascii_whitespace())
        {
            math = None;
            in_math.clear();
        }
        if m[i] == b'\\' {
            let rest = &text[i..];
            let env = |prefix: &str| {
                rest.strip_prefix(prefix)
                    .and_then(|r| r.find('}').filter(|&e| e < 40).map(|e| r[..e].to_owned()))
            };
            if let Some(name) = env("\\begin{") {
                let verbatim = ["verbatim", "lstlisting", "minted", "Verbatim", "comment"];
                // Package documentation declares its own (`latexcode`, `dtxverblisting`).
                let lower = name.to_ascii_lowercase();
                let declared = lower.ends_with("code") || lower.contains("verb");
                if verbatim.contains(&name.as_str()) || declared || lower.contains("listing") {
                    let closer = format!("\\end{{{name}}}");
                    if let Some(e) = rest.find(&closer) {
                        out.push(Region {
                            range: i..i + e + closer.len(),
                            kind: "environment",
                            opaque: true,
                        });
                        i += e + closer.len();
                        continue;
                    }
                }
                if math.is_none() {
                    stack.push((name, i));
                } else {
                    in_math.push(name);
                }
            } else if let Some(name) = env("\\end{") {
                // An `\end` that closes nothing opened inside the math ends an environment
                // around it: the math was never closed there (TeX would stop with an error).
                if math.is_some() {
                    if in_math.last() == Some(&name) {
                        in_math.pop();
                    } else {
                        math = None;
                        in_math.clear();
                    }
                }
                if math.is_none()
                    && let Some(p) = stack.iter().rposition(|(n, _)| *n == name)
                {
                    let (_, start) = stack[p].clone();
                    stack.truncate(p);
                    if name != "document" {
                        out.push(Region {
                            range: start..i + 6 + name.len(),
                            kind: "environment",
                            opaque: false,
                        });
                    }
                }
            } else if m.get(i + 1) == Some(&b'[') && math.is_none() {
                math = Some((i, "\\]"));
            } else if m.get(i + 1) == Some(&b']') && math.is_some_and(|(_, c)| c == "\\]") {
                out.push(Region {
                    range: math.unwrap().0..i + 2,
                    kind: "display math",
                    opaque: false,
                });
                math = None;
                in_math.clear();
            }
            i += 2;
            continue;
        }
        if m[i] == b'$' {
            let display = m.get(i + 1) == Some(&b'$');
            let token = if display { "$$" } else { "$" };
            match math {
                Some((start, closer)) if closer == token => {
                    let kind = if display { "display math" } else { "inline math" };
                    out.push(Region { range: start..i + token.len(), kind, opaque: false });
                    math = None;
                    in_math.clear();
                }
                None => math = Some((i, token)),
                _ => {}
            }
            i += token.len();
            continue;
        }
        i += 1;
    }
    out
}

#[derive(Default)]
struct Tally {
    files: usize,
    bytes: usize,
    chunks: usize,
    violations: usize,
    fits: std::collections::BTreeMap<&'static str, (usize, usize)>,
    starts: usize,
    mid_word: usize,
    mid_sentence: usize,
    below_heading: usize,
    with_breadcrumb: usize,
    /// Chunks without a breadcrumb whose body leaves no room for even `% in <section>`.
    no_room: usize,
}

/// The sectioning commands, outermost first.
const HEADINGS: [&str; 9] = [
    "\\part",
    "\\chapter",
    "\\addchap",
    "\\section",
    "\\addsec",
    "\\subsection",
    "\\subsubsection",
    "\\paragraph",
    "\\subparagraph",
];

fn tally_file(path: &str, text: &str, budget: usize, t: &mut Tally) {
    let tree = atomize(text);
    let source = Source::new(path, text);
    let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
    let mut chunks = pack(&source, &tree, &config);
    // Provenance (the section path the breadcrumb tally reads) is annotation's.
    cleave_prose::annotate(&tree, &source, &mut chunks);
    let errors = check_invariants(&source, &tree, &chunks, &config);
    if !errors.is_empty() {
        eprintln!("{path} @{budget}: {}", errors[..errors.len().min(3)].join("; "));
    }
    t.files += 1;
    t.bytes += text.len();
    t.chunks += chunks.len();
    t.violations += errors.len();
    let chars = |s: &str| s.chars().count();
    let max_header = chunks.iter().map(|c| chars(&c.header)).max().unwrap_or(0);
    let regions = independent_regions(text);
    for r in &regions {
        if max_header + chars(&text[r.range.clone()]) + 16 > budget {
            continue;
        }
        let whole =
            chunks.iter().any(|c| c.byte_start <= r.range.start && r.range.end <= c.byte_end);
        if !whole && std::env::var_os("CLEAVE_VERBOSE").is_some() {
            let s: String = text[r.range.clone()].chars().take(80).collect();
            eprintln!("  split {} in {path} @{budget}: {s:?}", r.kind);
        }
        let e = t.fits.entry(r.kind).or_default();
        e.0 += 1;
        e.1 += usize::from(whole);
    }
    for c in &chunks[1..] {
        t.starts += 1;
        if starts_mid_word(text, c) {
            t.mid_word += 1;
        }
        // What precedes the chunk, without trailing comments: a comment is not prose.
        let before = without_trailing_comments(&text[..c.byte_start]);
        let blank_between = has_blank_line(&text[before.len()..c.byte_start]);
        let prev = before.chars().next_back();
        // Headings and items start something new; so does text after a line of commands
        // (`\clearpage`) or a heading line.
        let new_unit = HEADINGS
            .iter()
            .chain(&["%", "\\item", "\\bibitem"])
            .any(|h| c.text.trim_start().starts_with(h));
        let prev_line = before.lines().last().unwrap_or("").trim();
        let after_commands = prev_line.starts_with('\\') && !prev_line.contains(' ')
            || HEADINGS.iter().any(|h| prev_line.starts_with(h));
        let continues =
            prev.is_some_and(|p| p.is_alphanumeric() || p == ',') && !new_unit && !after_commands;
        if continues && !blank_between {
            // Exempt: the paragraph holding the start is larger than the budget.
            let (para_start, para_end) = paragraph_around(text, c.byte_start, &regions);
            if chars(&text[para_start..para_end]) + max_header <= budget {
                t.mid_sentence += 1;
                if std::env::var_os("CLEAVE_VERBOSE").is_some() {
                    let s: String = c.text.chars().take(60).collect();
                    let p: String = before
                        .chars()
                        .rev()
                        .take(40)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    eprintln!("  mid-sentence in {path} @{budget}: {p:?} | {s:?}");
                }
            }
        }
    }
    for c in &chunks {
        let below = c.provenance.as_ref().is_some_and(|p| !p.section.is_empty());
        let starts_heading = HEADINGS.iter().any(|h| c.text.trim_start().starts_with(h));
        if below && !starts_heading {
            t.below_heading += 1;
            if !c.scope.is_empty() && c.header.contains("% in ") {
                t.with_breadcrumb += 1;
            } else if let Some(section) = c.scope.last()
                && c.text.chars().count() + format!("% in {section}\n").chars().count() > budget
            {
                t.no_room += 1;
            } else if std::env::var_os("CLEAVE_VERBOSE").is_some() {
                let s: String = c.text.chars().take(60).collect();
                eprintln!("  no breadcrumb in {path} @{budget}: {:?} {s:?}", c.header);
            }
        }
    }
}

/// `text` without its trailing white space and comments (whole comment lines and a `%…` at
/// the end of the last line).
fn without_trailing_comments(text: &str) -> &str {
    let mut t = text.trim_end();
    loop {
        let line_start = t.rfind('\n').map_or(0, |p| p + 1);
        let line = &t[line_start..];
        let b = line.as_bytes();
        let mut k = 0;
        let mut comment = None;
        while k < b.len() {
            match b[k] {
                b'\\' => k += 2,
                b'%' => {
                    comment = Some(k);
                    break;
                }
                _ => k += 1,
            }
        }
        match comment {
            Some(k) => t = t[..line_start + k].trim_end(),
            None => return t,
        }
    }
}

/// Whether `between` (from the end of some text to a chunk start) holds a whole blank line.
fn has_blank_line(between: &str) -> bool {
    between.split_inclusive('\n').skip(1).any(|l| l.ends_with('\n') && l.trim().is_empty())
}

/// The paragraph holding byte `at`: between the blank lines (white space only) around it.
/// Blank lines inside a verbatim-like region do not end a paragraph of the text around it;
/// inside such a region, paragraphs are its blank-line blocks.
fn paragraph_around(text: &str, at: usize, regions: &[Region]) -> (usize, usize) {
    let inside = regions.iter().find(|r| r.opaque && r.range.start < at && at < r.range.end);
    let (lo, hi) = inside.map_or((0, text.len()), |r| (r.range.start, r.range.end));
    let opaque = |p: usize| {
        inside.is_none() && regions.iter().any(|r| r.opaque && r.range.start < p && p < r.range.end)
    };
    let blank = |line: &str| line.trim().is_empty();
    // Walk lines back from the line holding `at`.
    let mut start = text[..at].rfind('\n').map_or(0, |p| p + 1).max(lo);
    while start > lo {
        let prev = text[..start - 1].rfind('\n').map_or(0, |p| p + 1).max(lo);
        if blank(&text[prev..start]) && !opaque(prev) {
            break;
        }
        start = prev;
    }
    let mut end = at;
    while end < hi {
        let next = text[end..].find('\n').map_or(text.len(), |p| end + p + 1).min(hi);
        if end > at && blank(&text[end..next]) && !opaque(end) {
            break;
        }
        end = next;
    }
    (start, end)
}

fn tex_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            tex_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "tex") {
            out.push(p);
        }
    }
}

/// Quality bars on real LaTeX. Set `CLEAVE_SLOW_TESTS=1` and point `CLEAVE_LATEX_CORPUS` at a
/// folder of `.tex` files (for example the sources in Debian's `texlive-publishers-doc`,
/// `texlive-science-doc` and `texlive-latex-base-doc`); without it the fixtures are measured.
#[test]
fn corpus_quality() {
    if std::env::var_os("CLEAVE_SLOW_TESTS").is_none() {
        return;
    }
    let dir = std::env::var_os("CLEAVE_LATEX_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/latex"));
    let mut files = Vec::new();
    tex_files(&dir, &mut files);
    for budget in [1000, 4000] {
        let mut t = Tally::default();
        let started = std::time::Instant::now();
        let mut skipped = 0;
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                skipped += 1;
                continue;
            };
            // Paths as the CLI writes them: relative to the walked root.
            let rel = f.strip_prefix(&dir).unwrap_or(f);
            tally_file(&rel.to_string_lossy(), &text, budget, &mut t);
        }
        let pct = |a: usize, b: usize| if b == 0 { 100.0 } else { 100.0 * a as f64 / b as f64 };
        eprintln!(
            "budget {budget} chars: {} files ({skipped} not UTF-8), {:.1} MB, {} chunks, {:.1?}",
            t.files,
            t.bytes as f64 / 1e6,
            t.chunks,
            started.elapsed()
        );
        for (kind, (n, whole)) in &t.fits {
            eprintln!("  {kind}: {whole}/{n} that fit stay whole ({:.2} %)", pct(*whole, *n));
        }
        eprintln!(
            "  starts: {} mid-word ({:.2} %), {} mid-sentence in a paragraph that fits ({:.2} %)",
            t.mid_word,
            pct(t.mid_word, t.starts),
            t.mid_sentence,
            pct(t.mid_sentence, t.starts)
        );
        eprintln!(
            "  breadcrumbs: {}/{} chunks below a heading ({:.2} %; {} of the others leave no room for one); invariant violations: {}",
            t.with_breadcrumb,
            t.below_heading,
            pct(t.with_breadcrumb, t.below_heading),
            t.no_room,
            t.violations
        );
        assert_eq!(t.violations, 0, "within budget, exact coverage, integrity");
    }
}

/// Environments carry the region their class names; inline math and `\verb` too.
#[test]
fn environments_carry_their_region() {
    let text = "\\begin{document}\nLet $x$ be \\verb|y|.\n\n\\begin{lemma}\nA.\n\\end{lemma}\n\\begin{proof}\nB.\n\\end{proof}\n\n\\begin{abstract}\nC.\n\\end{abstract}\n\\end{document}\n";
    let tree = atomize(text);
    fn marked(atom: &Atom, text: &str, out: &mut Vec<(String, cleave_core::Region)>) {
        if let Some(region) = atom.region {
            let first = text[atom.range.clone()].trim().lines().next().unwrap_or("").to_owned();
            out.push((first, region));
        }
        atom.children.iter().for_each(|c| marked(c, text, out));
    }
    let mut regions = Vec::new();
    marked(&tree.root, text, &mut regions);
    use cleave_core::Region::{Abstract, Code, Math, Proof, Theorem};
    let expected = [
        ("$x$", Math),
        ("\\verb|y|", Code),
        ("\\begin{lemma}", Theorem),
        ("\\begin{proof}", Proof),
        ("\\begin{abstract}", Abstract),
    ];
    let expected: Vec<(String, cleave_core::Region)> =
        expected.iter().map(|(s, r)| ((*s).to_owned(), *r)).collect();
    assert_eq!(regions, expected);
    assert!(tree.locations.regions.is_empty(), "LaTeX atoms are their regions");
}

/// An oversize table is cut between rows, never mid-row, and every part repeats its column
/// spec and header row; an alignment with `cases` in a row keeps the row whole; an oversize
/// algorithm is cut between steps.
#[test]
fn oversize_tables_alignments_and_algorithms_split_between_rows() {
    let rows: String = (0..80)
        .map(|i| {
            format!("0x{i:02x} & OP{i} & {i} & pushes the {i}th value\n  onto the stack \\\\\n")
        })
        .collect();
    let table = format!(
        "\\section{{Opcodes}}\n\n\\begin{{tabular}}{{llll}}\nValue & Mnemonic & $\\delta$ & Description \\\\\n\\hline\n{rows}\\end{{tabular}}\n"
    );
    let (_, chunks) = chunk("ops.tex", &table, 1000, Unit::Chars);
    assert!(chunks.len() > 3);
    for c in &chunks[1..] {
        let before = table[..c.byte_start].trim_end();
        assert!(
            before.ends_with("\\\\")
                || before.ends_with("\\hline")
                || before.ends_with("{Opcodes}"),
            "cut mid-row before {:?}",
            c.text
        );
        if c.byte_start > table.find("0x01").unwrap() {
            assert!(c.header.contains("Value & Mnemonic"), "{:?}", c.header);
        }
    }
    let eqs: String = (0..12)
        .map(|i| format!("g_{i} & \\equiv & \\begin{{cases}}\n{i} & \\text{{if}} x \\\\\n1 & \\text{{otherwise}}\n\\end{{cases}} \\\\\n"))
        .collect();
    let align = format!("\\begin{{eqnarray}}\n{eqs}\\end{{eqnarray}}\n");
    let (_, chunks) = chunk("eq.tex", &align, 300, Unit::Chars);
    for c in &chunks[1..] {
        assert!(align[..c.byte_start].trim_end().ends_with("\\\\"), "mid-row: {:?}", c.text);
    }
    let steps: String = (0..30)
        .map(|i| format!("\\State $x_{{{i}}} \\gets x_{{{i}}} + g$\n  \\Comment{{step {i}}}\n"))
        .collect();
    let alg = format!("\\begin{{algorithmic}}\n\\Require $x_0$\n{steps}\\end{{algorithmic}}\n");
    let (_, chunks) = chunk("alg.tex", &alg, 300, Unit::Chars);
    assert!(chunks.len() > 2);
    for c in &chunks[1..] {
        let first = c.text.trim_start();
        assert!(first.starts_with("\\State") || first.starts_with("\\end"), "mid-step: {first:?}");
    }
}

/// A definition or algorithm stays with the paragraph that introduces it when both fit.
#[test]
fn a_definition_stays_with_the_paragraph_that_introduces_it() {
    let after = "The rest of the analysis follows from this one property and the bounds of the next section, applied step by step. ".repeat(3);
    let before = "Gradient methods converge at rates that depend on the curvature of the objective, and the analysis below needs one notion of it. ";
    let text = format!(
        "\\section{{Setting}}\n\n{before}\n\nWe use the following notion of smoothness, standard in the literature:\n\n\\begin{{definition}}[Smoothness]\nA function $f$ is $L$-smooth if its gradient is $L$-Lipschitz.\n\\end{{definition}}\n\n{after}\n"
    );
    for budget in [340, 400, 460] {
        let (_, chunks) = chunk("s.tex", &text, budget, Unit::Chars);
        let intro = text.find("We use the following").unwrap();
        let def = text.find("\\begin{definition}").unwrap();
        let holder = chunks.iter().find(|c| c.byte_start <= intro && intro < c.byte_end).unwrap();
        assert!(
            holder.byte_end > def,
            "budget {budget}: cut before the definition: {:?}",
            holder.text
        );
    }
}

/// An oversize figure is split, but its caption stays whole while it fits.
#[test]
fn an_oversize_figure_keeps_its_caption_whole() {
    let picture: String = (0..40).map(|i| format!("\\draw ({i},0) -- ({i},{i});\n")).collect();
    let caption = "\\caption{Convergence of the method on the benchmark. The step size decays as $1/\\sqrt{t}$. Each curve is an average over five seeds. The shaded band is one standard deviation. The dashed line is the bound of Theorem 2.}";
    let text = format!(
        "\\begin{{figure}}[t]\n\\centering\n\\begin{{tikzpicture}}\n{picture}\\end{{tikzpicture}}\n{caption}\n\\label{{fig:conv}}\n\\end{{figure}}\n"
    );
    for budget in [300, 340, 400, 500] {
        let (_, chunks) = chunk("fig.tex", &text, budget, Unit::Chars);
        assert!(chunks.len() > 2);
        let start = text.find("\\caption").unwrap();
        let end = start + caption.len();
        assert!(
            chunks.iter().any(|c| c.byte_start <= start && end <= c.byte_end),
            "budget {budget}: caption split"
        );
    }
}
