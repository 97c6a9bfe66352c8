//! The word lists of classification and of the atomizers, as sorted tables: a lookup is a
//! binary search, and a test checks that every table is sorted and holds no word twice.
//!
//! Byte order, as `str`'s `Ord`: capitals sort before small letters, `\` before letters.

use std::cmp::Ordering;

/// Whether `word` is in `table` (a sorted table of this module).
pub(crate) fn contains(table: &[&str], word: &str) -> bool {
    table.binary_search_by(|probe| compare(probe, word)).is_ok()
}

/// `str`'s order, by an inline loop over the bytes: the words compared are short and every
/// word of every chunk is looked up in several tables, and a call to `memcmp` per probe made
/// the lookups cost more than the linear scans (which compare lengths first) they replaced.
fn compare(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Words of implementation guides: installing, running, step-by-step instructions addressed
/// to the reader.
pub(crate) const GUIDE: &[&str] = &[
    "build",
    "click",
    "command",
    "configure",
    "create",
    "deploy",
    "download",
    "example",
    "first",
    "install",
    "installation",
    "installing",
    "next",
    "open",
    "run",
    "running",
    "setup",
    "step",
    "steps",
    "terminal",
    "then",
    "tutorial",
    "usage",
    "you",
    "your",
];

/// Words of API references.
pub(crate) const API: &[&str] = &[
    "api",
    "argument",
    "arguments",
    "attribute",
    "callback",
    "class",
    "configuration",
    "default",
    "endpoint",
    "enum",
    "field",
    "function",
    "interface",
    "method",
    "module",
    "option",
    "options",
    "parameter",
    "parameters",
    "property",
    "request",
    "response",
    "return",
    "returns",
    "struct",
    "type",
    "value",
    "values",
];

/// Words of research papers. Not `we` and `our`: tutorials, algorithm notes, blog posts and
/// letters say them as often as papers do.
pub(crate) const PAPER: &[&str] = &[
    "analysis",
    "baseline",
    "baselines",
    "contribution",
    "contributions",
    "evaluation",
    "experimental",
    "experiments",
    "hypothesis",
    "lemma",
    "literature",
    "paper",
    "proof",
    "propose",
    "proposed",
    "prove",
    "related",
    "results",
    "study",
    "theorem",
];

/// Words of algorithm-focused texts.
pub(crate) const ALGORITHM: &[&str] = &[
    "algorithm",
    "algorithms",
    "array",
    "complexity",
    "dynamic",
    "edges",
    "graph",
    "greedy",
    "input",
    "iteration",
    "iterations",
    "loop",
    "optimal",
    "output",
    "procedure",
    "pseudocode",
    "recursion",
    "recursive",
    "runtime",
    "search",
    "shortest",
    "sort",
    "sorted",
    "step",
    "traversal",
    "vertex",
    "vertices",
];

/// Words of four letters or more that are never keywords (and a few LaTeX command names that
/// survive as words in math).
pub(crate) const STOP: &[&str] = &[
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
    "emph",
    "even",
    "every",
    "following",
    "follows",
    "frac",
    "from",
    "further",
    "given",
    "have",
    "having",
    "hence",
    "here",
    "however",
    "into",
    "itself",
    "just",
    "left",
    "less",
    "let",
    "like",
    "made",
    "make",
    "many",
    "mathbb",
    "mathrm",
    "more",
    "most",
    "much",
    "must",
    "need",
    "note",
    "only",
    "other",
    "otherwise",
    "ours",
    "over",
    "quad",
    "right",
    "same",
    "shall",
    "should",
    "show",
    "shows",
    "since",
    "some",
    "such",
    "text",
    "textbf",
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
    "used",
    "uses",
    "using",
    "very",
    "well",
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
];

/// LaTeX commands whose braced argument is a key, a path or a reference, not prose: their
/// arguments give no keywords.
pub(crate) const SKIP_ARGS: &[&str] = &[
    "Cref",
    "autoref",
    "begin",
    "bibliography",
    "bibliographystyle",
    "cite",
    "citep",
    "citet",
    "cref",
    "documentclass",
    "end",
    "eqref",
    "href",
    "include",
    "includegraphics",
    "input",
    "label",
    "pageref",
    "ref",
    "url",
    "usepackage",
];

/// Line starts of a LaTeX preamble.
pub(crate) const PREAMBLE: &[&str] = &[
    "\\DeclareMathOperator",
    "\\RequirePackage",
    "\\def\\",
    "\\documentclass",
    "\\newcommand",
    "\\newtheorem",
    "\\renewcommand",
    "\\usepackage",
];

/// Line starts of pseudo-code (algorithmic, algorithm2e, plain `Input:` lines).
pub(crate) const PSEUDO: &[&str] = &[
    "Input:",
    "Output:",
    "\\Ensure",
    "\\For",
    "\\ForAll",
    "\\If",
    "\\KwIn",
    "\\KwOut",
    "\\Repeat",
    "\\Require",
    "\\Return",
    "\\State",
    "\\While",
];

/// Line starts of shell prompts and package-manager commands.
pub(crate) const PROMPTS: &[&str] =
    &["# apt", "$ ", "apt-get ", "brew ", "cargo ", "docker ", "git clone", "npm ", "pip "];

/// Section titles of research papers (matched as parts of a lower-cased title).
pub(crate) const PAPER_HEADINGS: &[&str] = &[
    "abstract",
    "acknowledg",
    "conclusion",
    "discussion",
    "evaluation",
    "experiment",
    "introduction",
    "methodology",
    "references",
    "related work",
    "results",
    "statement of need",
];

/// reStructuredText directives that document one item of an interface (Sphinx's Python
/// domain and Django's own), as written after `.. ` and before `::`, without a `py:` prefix.
pub(crate) const API_DIRECTIVES: &[&str] = &[
    "attribute",
    "class",
    "classmethod",
    "data",
    "decorator",
    "django-admin",
    "django-admin-option",
    "envvar",
    "exception",
    "function",
    "method",
    "module",
    "option",
    "setting",
    "staticmethod",
    "templatefilter",
    "templatetag",
];

/// LaTeX commands and environments of package manuals that name a command, an argument or an
/// option being documented (`ltxdoc`, `ltxdockit` and their kin).
pub(crate) const API_COMMANDS: &[&str] = &[
    "\\DescribeEnv",
    "\\DescribeMacro",
    "\\begin{environment}",
    "\\begin{macro}",
    "\\cmditem",
    "\\cmd{",
    "\\csitem",
    "\\cs{",
    "\\marg{",
    "\\meta{",
    "\\oarg{",
    "\\optitem",
];

/// Section titles of implementation guides.
pub(crate) const GUIDE_HEADINGS: &[&str] =
    &["getting started", "install", "quick start", "quickstart", "setup", "tutorial", "usage"];

/// Section titles of technical documentation.
pub(crate) const TECH_HEADINGS: &[&str] =
    &["api", "architecture", "configuration", "options", "parameters", "reference"];

/// Words that end with a dot without ending a sentence (plain text, Markdown), lowercase,
/// without the dot.
pub(crate) const SENTENCE_ABBREVIATIONS: &[&str] = &[
    "al", "approx", "apr", "assn", "aug", "ave", "bros", "capt", "cf", "ch", "co", "col", "corp",
    "dec", "dept", "dr", "e.g", "eq", "eqs", "esp", "est", "etc", "feb", "fig", "figs", "gen",
    "gov", "i.e", "inc", "jan", "jr", "jul", "jun", "lt", "ltd", "mar", "mr", "mrs", "ms", "mt",
    "no", "nos", "nov", "oct", "op", "p", "pp", "prof", "ref", "refs", "rep", "rev", "sec", "sect",
    "sen", "sep", "sept", "sgt", "sr", "st", "viz", "vol", "vols", "vs",
];

/// Words before a dot that ends no sentence in LaTeX, as written (`Fig.`, `Thm.`, `et al.`).
pub(crate) const LATEX_ABBREVIATIONS: &[&str] = &[
    "Alg", "App", "Ch", "Chap", "Cor", "Def", "Defn", "Dr", "Eq", "Eqn", "Eqs", "Ex", "Exp", "Fig",
    "Figs", "Jr", "Lem", "Mr", "Mrs", "Ms", "No", "Prof", "Prop", "Ref", "Refs", "Rem", "Sec",
    "Secs", "Sect", "St", "Tab", "Thm", "Vol", "al", "approx", "cf", "cit", "ed", "eds", "eq",
    "eqs", "et", "fig", "figs", "ibid", "op", "pp", "resp", "viz", "vs",
];

/// LaTeX commands dropped with their arguments from sectioning titles.
pub(crate) const TITLE_DROPPED: &[&str] =
    &["cite", "footnote", "index", "label", "protect", "ref", "thanks"];

/// reStructuredText directives whose body is code, math or a table: protected like a literal
/// block.
pub(crate) const PROTECTED_DIRECTIVES: &[&str] = &[
    "code",
    "code-block",
    "csv-table",
    "doctest",
    "highlight",
    "list-table",
    "literalinclude",
    "math",
    "parsed-literal",
    "productionlist",
    "sourcecode",
    "table",
    "testcode",
    "testoutput",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_without_duplicates() {
        let tables: &[(&str, &[&str])] = &[
            ("GUIDE", GUIDE),
            ("API", API),
            ("PAPER", PAPER),
            ("ALGORITHM", ALGORITHM),
            ("STOP", STOP),
            ("SKIP_ARGS", SKIP_ARGS),
            ("PREAMBLE", PREAMBLE),
            ("PSEUDO", PSEUDO),
            ("PROMPTS", PROMPTS),
            ("PAPER_HEADINGS", PAPER_HEADINGS),
            ("GUIDE_HEADINGS", GUIDE_HEADINGS),
            ("TECH_HEADINGS", TECH_HEADINGS),
            ("API_DIRECTIVES", API_DIRECTIVES),
            ("API_COMMANDS", API_COMMANDS),
            ("SENTENCE_ABBREVIATIONS", SENTENCE_ABBREVIATIONS),
            ("LATEX_ABBREVIATIONS", LATEX_ABBREVIATIONS),
            ("TITLE_DROPPED", TITLE_DROPPED),
            ("PROTECTED_DIRECTIVES", PROTECTED_DIRECTIVES),
        ];
        for (name, table) in tables {
            for pair in table.windows(2) {
                assert!(pair[0] < pair[1], "{name}: {:?} must come after {:?}", pair[1], pair[0]);
            }
        }
    }

    #[test]
    fn compare_is_the_order_of_str() {
        let words = ["", "a", "ab", "abc", "b", "B", "\\If", "Input:", "ü", "z"];
        for a in words {
            for b in words {
                assert_eq!(compare(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn lookups_find_every_word_and_nothing_else() {
        assert!(GUIDE.iter().all(|w| contains(GUIDE, w)));
        assert!(contains(SKIP_ARGS, "Cref") && contains(SKIP_ARGS, "cref"));
        assert!(!contains(STOP, "gradient"));
    }
}
