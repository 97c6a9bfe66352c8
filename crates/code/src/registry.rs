//! The language registry: one sorted row per language (name, extensions, interpreters named
//! by shebangs, comment syntax, symbol separator, grammar and query file, lexical facts), and
//! the lookups by name, path and shebang. A language's compiled configuration is built on
//! first use and shared.
//!
//! A row without a grammar still names its files: they are chunked as text in blocks, as
//! code, with headers in their own comment syntax. A grammar behind a cargo feature that the
//! build left out says which feature would add it. A row may name a scanner instead of a
//! grammar (`with_scanner`: SQL's statements, see `scan/`): a function from text to atoms,
//! which the driver calls where it would parse.

use std::sync::OnceLock;

use cleave_core::CommentStyle;
use tree_sitter_language::LanguageFn;

use crate::config::{self, LanguageConfig, LoadError};
use crate::pieces::{self, Lexis};
use crate::scan::{self, Scanner};

/// A language cleave knows: one row of the registry.
pub struct Language {
    /// Name as it appears in records: `rust`, `python`, `typescript`, `tsx`, `cpp`, …
    pub name: &'static str,
    /// File extensions without the dot.
    pub extensions: &'static [&'static str],
    /// Programs that a shebang line names for this language (`bash`, `ruby`, `python`; a
    /// version suffix such as `python3.12` is dropped before the lookup).
    pub interpreters: &'static [&'static str],
    /// Comment token used for headers: a line comment (`//`, `#`, `--`), or the opening of a
    /// block comment (`/*`, `<!--`) when [`Language::comment_end`] is not empty.
    pub comment: &'static str,
    /// The closing of a block comment (`*/`, `-->`); empty for line comments.
    pub comment_end: &'static str,
    /// Separator of qualified symbol names: `::` in Rust, `.` elsewhere.
    pub separator: &'static str,
    /// Text that puts the grammar in code mode when a file does not start in it (`<?php`):
    /// a part of a file parsed on its own (a piece of a huge file, a macro body) is parsed
    /// after the file's first occurrence of it.
    pub prelude: Option<&'static str>,
    /// Whether files over `SECTION_BYTES` may be parsed in sections cut at blank lines
    /// between top-level items. Not where a blank line may be inside HTML (PHP), where an
    /// indented block's end depends on what follows it (Scala 3), nor where the grammar reads
    /// stray text over blank lines without an error (kotlin-ng: `r#"` … `//`, found by the
    /// sections property test): those are parsed whole up to the piece length.
    pub sectioned: bool,
    /// Whether the grammar's external scanner copies the stack of open elements at every
    /// token (tree-sitter-html, -svelte-ng): then a file whose tags nest deeper than
    /// `MAX_TAG_DEPTH` is not parsed, as its parse would take time quadratic in the depth
    /// (`tags.rs`).
    pub tag_stack: bool,
    /// Extensions of an earlier row that this language claims for files where a line starts
    /// with one of [`Language::markers`] (`.h` is C, but C++ with `class ` or `namespace `).
    pub shared_extensions: &'static [&'static str],
    /// Line starts that tell this language from the row that owns a shared extension,
    /// looked for in the first 16 KiB of a file.
    pub markers: &'static [&'static str],
    /// The cargo feature of `cleave-code` that builds this language's grammar in, if any.
    pub feature: Option<&'static str>,
    grammar: Grammar,
    /// The language's `atoms.scm`, before `; inherits:` lines are resolved.
    pub(crate) queries: &'static str,
    /// Its strings and comments, as the cuts of minified code need them.
    pub(crate) lexis: Lexis,
    config: OnceLock<Result<LanguageConfig, LoadError>>,
}

/// Whether a row's grammar is in this build.
#[derive(Clone, Copy)]
enum Grammar {
    /// Built in: files are parsed.
    Built(LanguageFn),
    /// Left out of this build by its cargo feature (named in the row).
    #[allow(dead_code)] // reason: built only where a group is off (and in a test)
    Off,
    /// No grammar: files are chunked as text.
    None,
    /// No grammar, but a scanner that finds the language's units (SQL's statements).
    Scanner(Scanner),
}

macro_rules! grammar_file {
    ($lang:literal) => {
        include_str!(concat!("../../../grammars/", $lang, "/atoms.scm"))
    };
}

/// A grammar behind a feature group: `(feature, Grammar)`, the grammar `Off` in a build
/// without the feature (its crate is then not even named).
macro_rules! grammar {
    ($feature:tt, $grammar:expr) => {{
        #[cfg(feature = $feature)]
        let grammar = Grammar::Built($grammar);
        #[cfg(not(feature = $feature))]
        let grammar = Grammar::Off;
        (Some($feature), grammar)
    }};
}

/// A row without a grammar, with `//` comments and `.` separators; the `with_*` steps below
/// change what differs.
const fn lang(name: &'static str, extensions: &'static [&'static str]) -> Language {
    Language {
        name,
        extensions,
        interpreters: &[],
        comment: "//",
        comment_end: "",
        separator: ".",
        prelude: None,
        sectioned: true,
        tag_stack: false,
        shared_extensions: &[],
        markers: &[],
        feature: None,
        grammar: Grammar::None,
        queries: "",
        lexis: pieces::C_LIKE,
        config: OnceLock::new(),
    }
}

impl Language {
    /// The grammar that parses the language: `(feature, grammar)` from `grammar!`, or
    /// `(None, Grammar::Built(…))` for the languages every build has.
    const fn with_grammar(
        mut self,
        (feature, grammar): (Option<&'static str>, Grammar),
        queries: &'static str,
        lexis: Lexis,
    ) -> Self {
        self.feature = feature;
        self.grammar = grammar;
        self.queries = queries;
        self.lexis = lexis;
        self
    }

    /// A line comment token other than `//`.
    const fn with_comment(mut self, token: &'static str) -> Self {
        self.comment = token;
        self
    }

    /// Block comments (`/*` … `*/`, `<!--` … `-->`) for headers.
    const fn with_block_comment(mut self, open: &'static str, close: &'static str) -> Self {
        self.comment = open;
        self.comment_end = close;
        self
    }

    /// A scanner instead of a grammar: files are atomized by this function (see `scan/`).
    const fn with_scanner(mut self, scanner: Scanner) -> Self {
        self.grammar = Grammar::Scanner(scanner);
        self
    }

    /// Programs a shebang line names.
    const fn with_interpreters(mut self, interpreters: &'static [&'static str]) -> Self {
        self.interpreters = interpreters;
        self
    }

    /// Extensions of an earlier row this language claims for files with a line starting with
    /// one of `markers`.
    const fn with_shared_extensions(
        mut self,
        extensions: &'static [&'static str],
        markers: &'static [&'static str],
    ) -> Self {
        self.shared_extensions = extensions;
        self.markers = markers;
        self
    }

    /// Files parsed whole up to the piece length, never in sections.
    const fn with_whole_parse(mut self) -> Self {
        self.sectioned = false;
        self
    }

    /// A grammar whose scanner keeps the stack of open elements.
    const fn with_tag_stack(mut self) -> Self {
        self.tag_stack = true;
        self
    }

    /// Text that opens code mode (`<?php`), for parses of parts of a file.
    const fn with_prelude(mut self, prelude: &'static str) -> Self {
        self.prelude = Some(prelude);
        self
    }

    /// A separator of qualified names other than `.`.
    const fn with_separator(mut self, separator: &'static str) -> Self {
        self.separator = separator;
        self
    }
}

/// A grammar every build has.
const fn always(grammar: LanguageFn) -> (Option<&'static str>, Grammar) {
    (None, Grammar::Built(grammar))
}

/// The registry, sorted by name (a test checks it). The first row that claims an extension
/// wins (`.h` is C).
static LANGUAGES: [Language; 25] = [
    lang("bash", &["sh", "bash", "zsh", "ksh"])
        .with_grammar(
            grammar!("lang-shell", tree_sitter_bash::LANGUAGE),
            grammar_file!("bash"),
            pieces::SCRIPT,
        )
        .with_comment("#")
        .with_interpreters(&["ash", "bash", "dash", "ksh", "sh", "zsh"]),
    lang("c", &["c", "h"]).with_grammar(
        grammar!("lang-c", tree_sitter_c::LANGUAGE),
        grammar_file!("c"),
        pieces::C_LIKE,
    ),
    lang("cpp", &["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "inl", "tpp"])
        .with_grammar(
            grammar!("lang-c", tree_sitter_cpp::LANGUAGE),
            grammar_file!("cpp"),
            pieces::C_LIKE,
        )
        .with_separator("::")
        .with_shared_extensions(
            &["h"],
            &[
                "class ",
                "namespace ",
                "template <",
                "template<",
                "public:",
                "private:",
                "protected:",
                "using namespace ",
                "#include <iostream>",
                "#include <string>",
                "#include <vector>",
                "#include <memory>",
            ],
        ),
    lang("csharp", &["cs", "csx"]).with_grammar(
        grammar!("lang-dotnet", tree_sitter_c_sharp::LANGUAGE),
        grammar_file!("csharp"),
        pieces::C_LIKE,
    ),
    lang("css", &["css"])
        .with_grammar(
            grammar!("lang-web", tree_sitter_css::LANGUAGE),
            grammar_file!("css"),
            pieces::PHP,
        )
        .with_block_comment("/*", "*/")
        .with_separator(" "),
    lang("go", &["go"]).with_grammar(
        always(tree_sitter_go::LANGUAGE),
        grammar_file!("go"),
        pieces::C_LIKE,
    ),
    lang("html", &["html", "htm", "xhtml"])
        .with_grammar(
            grammar!("lang-web", tree_sitter_html::LANGUAGE),
            grammar_file!("html"),
            pieces::PHP,
        )
        .with_block_comment("<!--", "-->")
        .with_whole_parse()
        .with_tag_stack(),
    lang("java", &["java"]).with_grammar(
        always(tree_sitter_java::LANGUAGE),
        grammar_file!("java"),
        pieces::C_LIKE,
    ),
    lang("javascript", &["js", "mjs", "cjs", "jsx"])
        .with_grammar(
            always(tree_sitter_javascript::LANGUAGE),
            grammar_file!("javascript"),
            pieces::ECMA,
        )
        .with_interpreters(&["node", "nodejs"]),
    lang("kotlin", &["kt", "kts"])
        .with_grammar(
            grammar!("lang-jvm", tree_sitter_kotlin_ng::LANGUAGE),
            grammar_file!("kotlin"),
            pieces::C_LIKE,
        )
        .with_whole_parse(),
    // Sass and Less: `//` comments and mixins, which tree-sitter-css reads as errors (a
    // third of a typical file): blocks for now.
    lang("less", &["less"]),
    lang("lua", &["lua"]).with_comment("--").with_interpreters(&["lua"]),
    lang("perl", &["pl", "pm"]).with_comment("#").with_interpreters(&["perl"]),
    lang("php", &["php", "phtml"])
        .with_grammar(
            grammar!("lang-php", tree_sitter_php::LANGUAGE_PHP),
            grammar_file!("php"),
            pieces::PHP,
        )
        .with_interpreters(&["php"])
        .with_prelude("<?php")
        .with_whole_parse(),
    lang("python", &["py", "pyi"])
        .with_grammar(always(tree_sitter_python::LANGUAGE), grammar_file!("python"), pieces::PYTHON)
        .with_comment("#")
        .with_interpreters(&["python"]),
    lang("ruby", &["rb", "rake", "gemspec", "ru"])
        .with_grammar(
            grammar!("lang-ruby", tree_sitter_ruby::LANGUAGE),
            grammar_file!("ruby"),
            pieces::SCRIPT,
        )
        .with_comment("#")
        .with_interpreters(&["ruby"]),
    lang("rust", &["rs"])
        .with_grammar(always(tree_sitter_rust::LANGUAGE), grammar_file!("rust"), pieces::C_LIKE)
        .with_separator("::"),
    lang("scala", &["scala", "sc"])
        .with_grammar(
            grammar!("lang-jvm", tree_sitter_scala::LANGUAGE),
            grammar_file!("scala"),
            pieces::C_LIKE,
        )
        .with_whole_parse(),
    lang("scss", &["scss", "sass"]),
    // A scanner, not tree-sitter-sequel: that crate pins `cc ~1.2` (see `scan/sql.rs`).
    lang("sql", &["sql"]).with_comment("--").with_scanner(scan::sql::atomize),
    lang("svelte", &["svelte"])
        .with_grammar(
            grammar!("lang-web", tree_sitter_svelte_ng::LANGUAGE),
            grammar_file!("svelte"),
            pieces::PHP,
        )
        .with_block_comment("<!--", "-->")
        .with_whole_parse()
        .with_tag_stack(),
    lang("swift", &["swift"]).with_grammar(
        grammar!("lang-swift", tree_sitter_swift::LANGUAGE),
        grammar_file!("swift"),
        pieces::C_LIKE,
    ),
    lang("tsx", &["tsx"]).with_grammar(
        always(tree_sitter_typescript::LANGUAGE_TSX),
        grammar_file!("tsx"),
        pieces::ECMA,
    ),
    lang("typescript", &["ts", "mts", "cts"])
        .with_grammar(
            always(tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
            grammar_file!("typescript"),
            pieces::ECMA,
        )
        .with_interpreters(&["deno", "ts-node", "tsx"]),
    lang("vue", &["vue"])
        .with_grammar(
            grammar!("lang-web", tree_sitter_html::LANGUAGE),
            grammar_file!("vue"),
            pieces::PHP,
        )
        .with_block_comment("<!--", "-->")
        .with_whole_parse()
        .with_tag_stack(),
];

/// Query files that languages inherit but that are no language of their own.
static SHARED_QUERIES: &[(&str, &str)] =
    &[("ecma", grammar_file!("ecma")), ("sfc", grammar_file!("sfc"))];

pub(crate) fn query_source(name: &str) -> Option<&'static str> {
    LANGUAGES
        .iter()
        .find(|l| l.name == name)
        .map(|l| l.queries)
        .or_else(|| SHARED_QUERIES.iter().find(|(n, _)| *n == name).map(|(_, q)| *q))
}

impl std::fmt::Debug for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Language")
            .field("name", &self.name)
            .field("extensions", &self.extensions)
            .field("comment", &self.comment)
            .field("has_grammar", &self.has_grammar())
            .finish_non_exhaustive()
    }
}

impl Language {
    /// The tree-sitter grammar, when this build has one.
    pub fn tree_sitter_language(&self) -> Option<tree_sitter::Language> {
        match self.grammar {
            Grammar::Built(grammar) => Some(grammar.into()),
            Grammar::Off | Grammar::None | Grammar::Scanner(_) => None,
        }
    }

    /// Whether files of this language are parsed by a tree-sitter grammar in this build.
    pub fn has_grammar(&self) -> bool {
        matches!(self.grammar, Grammar::Built(_))
    }

    /// Whether files of this language are atomized by a scanner of cleave's own (SQL) rather
    /// than a grammar: their structure is found all the same.
    pub fn has_scanner(&self) -> bool {
        matches!(self.grammar, Grammar::Scanner(_))
    }

    /// Whether this build finds the structure of this language's files, by a grammar or a
    /// scanner: otherwise they are blocks of lines.
    pub fn has_structure(&self) -> bool {
        self.has_grammar() || self.has_scanner()
    }

    /// The scanner that atomizes this language's files, if it has one.
    pub(crate) fn scanner(&self) -> Option<Scanner> {
        match self.grammar {
            Grammar::Scanner(scanner) => Some(scanner),
            _ => None,
        }
    }

    /// Why files of this language are not parsed in this build, when they are not: the
    /// grammar's feature was left out, or there is no grammar. The first is a fallback,
    /// the second how the language is always chunked.
    pub fn missing_grammar(&self) -> Option<(MissingGrammar, String)> {
        match (self.grammar, self.feature) {
            (Grammar::Built(_) | Grammar::Scanner(_), _) => None,
            (Grammar::Off, feature) => Some((
                MissingGrammar::FeatureOff,
                format!(
                    "{} grammar not in this build (cargo feature {} of cleave-code): chunked as text",
                    self.name,
                    feature.unwrap_or("?")
                ),
            )),
            (Grammar::None, _) => Some((
                MissingGrammar::NoGrammar,
                format!("no {} grammar in cleave yet: chunked as text in blocks", self.name),
            )),
        }
    }

    /// How headers are written so that a chunk still reads as this language.
    pub fn comment_style(&self) -> CommentStyle {
        if self.comment_end.is_empty() {
            CommentStyle::line(self.comment)
        } else {
            CommentStyle::block(self.comment, self.comment_end)
        }
    }

    /// The compiled query configuration, built on first use and shared by all threads.
    pub fn config(&self) -> Result<&LanguageConfig, &LoadError> {
        self.config
            .get_or_init(|| match self.tree_sitter_language() {
                Some(grammar) => {
                    let source = config::resolve_inherits(self.queries, &query_source);
                    check_injections(self.name, &source)?;
                    LanguageConfig::new(self.name, grammar, &source)
                }
                None => Err(LoadError::new(
                    self.name,
                    self.missing_grammar()
                        .map_or_else(|| "no tree-sitter grammar: a scanner".to_owned(), |m| m.1),
                )),
            })
            .as_ref()
    }
}

/// Why a language's files are not parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingGrammar {
    /// Its grammar's cargo feature was left out of this build.
    FeatureOff,
    /// cleave has no grammar for it.
    NoGrammar,
}

/// Every language, sorted by name.
pub fn languages() -> &'static [Language] {
    &LANGUAGES
}

/// The language of a path, by extension.
pub fn language_for_path(path: &str) -> Option<&'static Language> {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = file.rsplit_once('.')?.1;
    LANGUAGES.iter().find(|l| l.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
}

/// How much of a file is read for the markers of a shared extension.
const SNIFF_BYTES: usize = 16 << 10;

/// The language of a file, by extension and, where a later row shares the extension (`.h`),
/// by the first line of code in the file's first 16 KiB that starts with one of that row's
/// markers.
pub fn language_for_file(path: &str, text: &str) -> Option<&'static Language> {
    let owner = language_for_path(path)?;
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = file.rsplit_once('.')?.1;
    let head = &text[..cleave_core::floor_char_boundary(text, SNIFF_BYTES.min(text.len()))];
    let claims = |l: &&Language| {
        l.shared_extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))
            && code_lines(head).any(|line| l.markers.iter().any(|m| line.starts_with(m)))
    };
    Some(LANGUAGES.iter().find(claims).unwrap_or(owner))
}

/// The lines of a C-family text with its comments left out, each trimmed at the start: what
/// follows a comment that closes on the line is code, a line inside a block comment or behind
/// `//` is none. Only C and C++ share an extension today, so markers are read in their
/// comment syntax. The prose of a comment is not code: glibc's GNU-style block comments hold
/// lines such as `   class of functions`, which made C headers read as C++.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut in_block = false;
    text.lines().filter_map(move |line| {
        let mut rest = line;
        if in_block {
            let end = rest.find("*/")?;
            rest = &rest[end + 2..];
            in_block = false;
        }
        // Comments that open (and perhaps close) before the line's code starts.
        loop {
            rest = rest.trim_start();
            if rest.starts_with("//") {
                return None;
            }
            let Some(after) = rest.strip_prefix("/*") else { break };
            match after.find("*/") {
                Some(end) => rest = &after[end + 2..],
                None => {
                    in_block = true;
                    return None;
                }
            }
        }
        // A block comment opened after code on this line (`int n; /* the number`) runs on.
        let mut tail = rest;
        while let Some(open) = tail.find("/*") {
            if tail[..open].contains("//") {
                break;
            }
            match tail[open + 2..].find("*/") {
                Some(end) => tail = &tail[open + 2 + end + 2..],
                None => {
                    in_block = true;
                    break;
                }
            }
        }
        (!rest.is_empty()).then_some(rest)
    })
}

/// The language of a script, by its shebang line (`#!/usr/bin/env python3`, `#!/bin/bash`):
/// the program it names, without a version suffix, among the rows' interpreters.
pub fn language_for_shebang(first_line: &str) -> Option<&'static Language> {
    let line = first_line.strip_prefix("#!")?;
    let prog = line.split_whitespace().find(|w| !w.ends_with("/env") && !w.starts_with('-'))?;
    let prog = prog.rsplit('/').next()?;
    let prog = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    LANGUAGES.iter().find(|l| l.interpreters.contains(&prog))
}

/// The language with this name (also used for Markdown fence info strings).
pub fn language_by_name(name: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.name.eq_ignore_ascii_case(name))
}

/// Every `@inject.<language>` capture of a query source must name a row of the registry.
fn check_injections(language: &str, source: &str) -> Result<(), LoadError> {
    match crate::capture::inject_names(source).find(|n| language_by_name(n).is_none()) {
        None => Ok(()),
        Some(name) => Err(LoadError::new(
            language,
            format!("@inject.{name}: not a language of the registry (@inject.<language>)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_by_name() {
        let names: Vec<&str> = languages().iter().map(|l| l.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn every_language_loads() {
        let errors: Vec<String> = languages()
            .iter()
            .filter(|l| l.has_grammar())
            .filter_map(|l| l.config().err())
            .map(ToString::to_string)
            .collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        for language in languages().iter().filter(|l| l.has_grammar()) {
            let config = language.config().expect("loads");
            assert!(config.root_kinds.is_some(), "{}: patterns start anywhere", language.name);
        }
    }

    /// With every group on, a row behind a feature has its grammar; a row without a feature
    /// has none or is always built.
    #[cfg(feature = "languages")]
    #[test]
    fn every_group_builds_its_grammars() {
        for language in languages() {
            if language.feature.is_some() {
                assert!(language.has_grammar(), "{}", language.name);
            }
        }
    }

    #[test]
    fn extensions_and_interpreters_are_claimed_once() {
        let mut exts: Vec<String> = languages()
            .iter()
            .flat_map(|l| l.extensions.iter().map(|e| e.to_ascii_lowercase()))
            .collect();
        let n = exts.len();
        exts.sort_unstable();
        exts.dedup();
        assert_eq!(exts.len(), n, "an extension claimed twice");
        let mut progs: Vec<&str> =
            languages().iter().flat_map(|l| l.interpreters).copied().collect();
        let n = progs.len();
        progs.sort_unstable();
        progs.dedup();
        assert_eq!(progs.len(), n, "an interpreter claimed twice");
    }

    /// A grammar left out of the build: its files are code in blocks, with headers in the
    /// language's comments and a fallback that names the feature.
    #[test]
    fn a_language_without_its_feature_falls_back_naming_it() {
        static OFF: Language = lang("example", &["ex"]).with_grammar(
            (Some("lang-example"), Grammar::Off),
            "",
            pieces::C_LIKE,
        );
        let text = "int f(void) {\n  return 1;\n}\n\nint g(void);\n";
        let tree = crate::atomize_code(&OFF, text, &mut crate::ParseContext::new());
        assert_eq!(tree.language, "example");
        assert_eq!(tree.content, cleave_core::ContentKind::Code);
        assert_eq!(tree.comment, CommentStyle::line("//"));
        assert_eq!(tree.root.range, 0..text.len());
        let [d] = tree.diagnostics.as_slice() else { panic!("{:?}", tree.diagnostics) };
        assert_eq!(d.severity, cleave_core::Severity::Fallback);
        assert!(d.message.contains("cargo feature lang-example"), "{}", d.message);
        assert!(OFF.config().is_err());
    }

    /// A language cleave has no grammar for is code too, in blocks, with a note.
    #[test]
    fn a_language_without_a_grammar_is_code_in_its_comments() {
        let lua = language_by_name("lua").unwrap();
        assert!(!lua.has_grammar() && !lua.has_scanner());
        let text = "local a = 1\nlocal b = 2\n\nreturn a\n";
        let tree = crate::atomize_code(lua, text, &mut crate::ParseContext::new());
        assert_eq!(tree.content, cleave_core::ContentKind::Code);
        assert_eq!(tree.comment, CommentStyle::line("--"));
        assert_eq!(tree.root.children.len(), 2, "two blank-line blocks");
        let [d] = tree.diagnostics.as_slice() else { panic!("{:?}", tree.diagnostics) };
        assert_eq!(d.severity, cleave_core::Severity::Note);
        for (name, style) in [
            ("html", CommentStyle::block("<!--", "-->")),
            ("css", CommentStyle::block("/*", "*/")),
            ("lua", CommentStyle::line("--")),
            ("ruby", CommentStyle::line("#")),
            ("c", CommentStyle::line("//")),
        ] {
            assert_eq!(language_by_name(name).unwrap().comment_style(), style, "{name}");
        }
    }

    /// A row with a scanner is atomized by it, through the same driver: SQL's statements.
    #[test]
    fn a_scanner_row_atomizes_without_a_grammar() {
        let sql = language_by_name("sql").unwrap();
        assert!(sql.has_scanner() && !sql.has_grammar() && sql.missing_grammar().is_none());
        let text = "-- Users.\nCREATE TABLE users (id int);\n\nSELECT 1;\n";
        let tree = crate::atomize_code(sql, text, &mut crate::ParseContext::new());
        tree.root.validate(text).unwrap();
        assert_eq!(tree.language, "sql");
        assert_eq!(tree.content, cleave_core::ContentKind::Code);
        assert_eq!(tree.comment, CommentStyle::line("--"));
        assert!(tree.diagnostics.is_empty(), "{:?}", tree.diagnostics);
        let labels: Vec<_> = tree.root.children.iter().filter_map(|a| a.label_text()).collect();
        assert_eq!(labels, ["CREATE TABLE users", "SELECT"]);
        assert_eq!(tree.root.children[0].name(), Some("users"));
        assert!(sql.config().is_err());
    }

    /// Optional child steps (`body: (_)? @body`) are plain too: these languages compile no
    /// tree-sitter query at all, which costs tens of millions of instructions per process.
    #[test]
    fn most_languages_need_no_compiled_query() {
        let compiled: Vec<&str> = languages()
            .iter()
            .filter(|l| l.has_grammar())
            .filter(|l| l.config().expect("loads").query.is_some())
            .map(|l| l.name)
            .collect();
        assert_eq!(compiled, ["go"], "languages that compile a query");
    }

    /// `.h` is C, unless a line starts the C++ way.
    #[test]
    fn headers_are_cpp_by_their_lines() {
        let c = "#ifndef LIST_H\n#define LIST_H\nstruct list { int n; };\n#endif\n";
        assert_eq!(language_for_file("include/list.h", c).unwrap().name, "c");
        let cpp = "#pragma once\n\nnamespace app {\nclass Widget {\n};\n}\n";
        assert_eq!(language_for_file("include/widget.h", cpp).unwrap().name, "cpp");
        // Markers only count at a line start: a comment that names a class does not.
        let comment = "/* the class of lists */\nstruct list;\n";
        assert_eq!(language_for_file("list.h", comment).unwrap().name, "c");
        // Nor do the lines of a comment (glibc's GNU style: no `*` on continuation lines),
        // whether the comment opens on a line of its own, after code, or behind `//`.
        for c in [
            "/* Functions of this\n   class of calls.  */\nint f (void);\n",
            "int n; /* the number of\n   class members */\nint g (void);\n",
            "/* a */ /* b\n namespace of symbols */\n",
            "// namespace x\nint h (void);\n",
        ] {
            assert_eq!(language_for_file("libio/x.h", c).unwrap().name, "c", "{c:?}");
        }
        // Code after a comment that closes on its line, or after a whole comment block, counts.
        for cpp in [
            "/* widgets */ class Widget;\n",
            "/* a\n   b */\nnamespace app {}\n",
            "// a widget\n  template <typename T> struct W;\n",
        ] {
            assert_eq!(language_for_file("w.h", cpp).unwrap().name, "cpp", "{cpp:?}");
        }
        assert_eq!(language_for_file("a.c", cpp).unwrap().name, "c");
        assert!(language_for_file("Makefile", cpp).is_none());
    }

    #[test]
    fn paths_and_shebangs_find_languages() {
        assert_eq!(language_for_path("src/lib.rs").unwrap().name, "rust");
        assert_eq!(language_for_path("a.b/c.TSX").unwrap().name, "tsx");
        assert_eq!(language_for_path("include/x.h").unwrap().name, "c");
        assert_eq!(language_for_path("src/x.cc").unwrap().name, "cpp");
        assert!(language_for_path("Makefile").is_none());
        assert!(language_for_path("dir.rs/Makefile").is_none());
        for (line, name) in [
            ("#!/usr/bin/env python3", "python"),
            ("#!/usr/bin/python3.12 -u", "python"),
            ("#!/usr/bin/node", "javascript"),
            ("#!/usr/bin/env -S deno run", "typescript"),
            ("#!/bin/sh", "bash"),
            ("#!/bin/bash -e", "bash"),
            ("#!/usr/bin/env ruby", "ruby"),
            ("#!/usr/bin/env php", "php"),
            ("#!/usr/bin/perl -w", "perl"),
        ] {
            assert_eq!(language_for_shebang(line).map(|l| l.name), Some(name), "{line}");
        }
        assert!(language_for_shebang("#!/usr/bin/env awk").is_none());
        assert!(language_for_shebang("# not a shebang").is_none());
    }
    /// An injected region is parsed with the language its `lang` attribute names, by name
    /// or extension; an unknown or grammarless language leaves the region a plain scope; an
    /// `@inject.<language>` naming no row fails to load.
    #[cfg(feature = "lang-web")]
    #[test]
    fn injections_take_the_language_their_region_names() {
        let vue = language_by_name("vue").unwrap();
        let symbols = |text: &str| {
            let tree = crate::atomize_code(vue, text, &mut crate::ParseContext::new());
            tree.root.validate(text).unwrap();
            let mut out = Vec::new();
            let mut stack = vec![&tree.root];
            while let Some(atom) = stack.pop() {
                out.extend(atom.label_text().map(str::to_owned));
                stack.extend(atom.children.iter());
            }
            out.sort();
            out
        };
        let body = "\nclass Foo {\n  bar(): number {\n    return 1;\n  }\n}\n";
        for lang in ["ts", "typescript", "'ts'"] {
            let text = format!("<script lang={lang}>{body}</script>\n");
            let found = symbols(&text);
            assert!(found.contains(&"class Foo".to_owned()), "{lang}: {found:?}");
        }
        let text = format!("<script lang=\"coffee\">{body}</script>\n");
        assert_eq!(symbols(&text), [r#"<script lang="coffee">"#]);
        let text = "<style lang=\"scss\">\n$a: 1;\n.x { color: $a; }\n</style>\n";
        assert_eq!(symbols(text), [r#"<style lang="scss">"#]);
        let err = check_injections("x", "(script_element) @inject.cobol").unwrap_err();
        assert!(err.to_string().contains("inject.<language>"), "{err}");
        assert!(check_injections("x", "(script_element) @inject.typescript").is_ok());
        for language in languages() {
            let source = config::resolve_inherits(language.queries, &query_source);
            assert!(check_injections(language.name, &source).is_ok(), "{}", language.name);
        }
    }
}

#[cfg(test)]
mod plain_patterns {
    use tree_sitter::{Query, QueryCursor, StreamingIterator};

    use crate::capture::{self, Role};
    use crate::config;
    use crate::registry::{languages, query_source};

    /// Every plain pattern finds, at every node of the fixtures, the first match tree-sitter
    /// finds with that pattern compiled on its own.
    #[test]
    fn plain_patterns_match_as_tree_sitter_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/code");
        let (mut checked, mut fanned) = (0, 0);
        for language in languages() {
            let Ok(dir) = std::fs::read_dir(root.join(language.name)) else { continue };
            let source = config::resolve_inherits(language.queries, &query_source);
            let Some(grammar) = language.tree_sitter_language() else { continue };
            let ranges = crate::pattern::split(&source).expect("patterns split");
            let cfg = language.config().expect("loads");
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&grammar).expect("grammar");
            for file in dir.flatten() {
                let text = std::fs::read_to_string(file.path()).expect("fixture");
                let tree = parser.parse(&text, None).expect("parses");
                for (pattern, step) in &cfg.plain {
                    let query = Query::new(&grammar, &source[ranges[*pattern].clone()]).unwrap();
                    let mut qc = QueryCursor::new();
                    qc.set_max_start_depth(Some(0));
                    let mut tc = tree.walk();
                    let mut pc = tree.walk();
                    loop {
                        let node = tc.node();
                        let mut caps = crate::pattern::Captures::new(text.as_bytes());
                        caps.clear();
                        let mine = step
                            .matches(node, &mut pc, &mut caps)
                            .then(|| caps.caps.iter().map(|(_, n)| n.id()).collect::<Vec<_>>());
                        let mut matches = qc.matches(&query, node, text.as_bytes());
                        let theirs = matches
                            .next()
                            .map(|m| m.captures().iter().map(|c| c.node.id()).collect::<Vec<_>>());
                        let (mut mine, mut theirs) = (mine, theirs);
                        if let Some(v) = mine.as_mut() {
                            v.sort_unstable();
                        }
                        if let Some(v) = theirs.as_mut() {
                            v.sort_unstable();
                        }
                        assert_eq!(
                            mine,
                            theirs,
                            "{}: {}",
                            language.name,
                            &source[ranges[*pattern].clone()]
                        );
                        if step.fans_out() {
                            // All matches: the same wrapped nodes, in the same order.
                            let wrapped = |caps: &[(Role, tree_sitter::Node<'_>)]| {
                                caps.iter().find(|c| c.0 == Role::Wrapped).map(|c| c.1.id())
                            };
                            let mut mine = Vec::new();
                            caps.clear();
                            step.each_fan_match(node, &mut pc, &mut caps, |c| {
                                mine.extend(wrapped(c));
                            });
                            let mut theirs = Vec::new();
                            let mut matches = qc.matches(&query, node, text.as_bytes());
                            while let Some(m) = matches.next() {
                                let caps: Vec<_> = m
                                    .captures()
                                    .iter()
                                    .map(|c| {
                                        let name = query.capture_names()[c.index as usize];
                                        (capture::role_of(name).expect("known capture"), c.node)
                                    })
                                    .collect();
                                theirs.extend(wrapped(&caps));
                            }
                            theirs.dedup();
                            assert_eq!(mine, theirs, "{}: all matches", language.name);
                            fanned += usize::from(!mine.is_empty());
                        }
                        checked += 1;
                        if tc.goto_first_child() {
                            continue;
                        }
                        while !tc.goto_next_sibling() {
                            if !tc.goto_parent() {
                                break;
                            }
                        }
                        if tc.depth() == 0 {
                            break;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        assert!(fanned > 0, "no fixture node has a fanning-out wrapper");
    }
}
