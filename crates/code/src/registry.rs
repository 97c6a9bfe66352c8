//! The language registry: one sorted row per language (name, grammar, extensions, comment
//! token, symbol separator, query file, lexical facts), and the lookups by name, path and
//! shebang. A language's compiled configuration is built on first use and shared.

use std::sync::OnceLock;

use tree_sitter_language::LanguageFn;

use crate::config::{self, LanguageConfig, LoadError};
use crate::pieces::{self, Lexis};

/// A language cleave parses: one row of the registry.
pub struct Language {
    /// Name as it appears in records: `rust`, `python`, `typescript`, `tsx`, …
    pub name: &'static str,
    /// File extensions without the dot.
    pub extensions: &'static [&'static str],
    /// Line comment token used for headers.
    pub comment: &'static str,
    /// Separator of qualified symbol names: `::` in Rust, `.` elsewhere.
    pub separator: &'static str,
    grammar: LanguageFn,
    /// The language's `atoms.scm`, before `; inherits:` lines are resolved.
    pub(crate) queries: &'static str,
    /// Its strings and comments, as the cuts of minified code need them.
    pub(crate) lexis: Lexis,
    config: OnceLock<Result<LanguageConfig, LoadError>>,
}

macro_rules! grammar_file {
    ($lang:literal) => {
        include_str!(concat!("../../../grammars/", $lang, "/atoms.scm"))
    };
}

/// One registry row.
const fn row(
    name: &'static str,
    grammar: LanguageFn,
    extensions: &'static [&'static str],
    comment: &'static str,
    separator: &'static str,
    queries: &'static str,
    lexis: Lexis,
) -> Language {
    Language {
        name,
        extensions,
        comment,
        separator,
        grammar,
        queries,
        lexis,
        config: OnceLock::new(),
    }
}

/// The registry, sorted by name (a test checks it).
static LANGUAGES: [Language; 7] = [
    row("go", tree_sitter_go::LANGUAGE, &["go"], "//", ".", grammar_file!("go"), pieces::C_LIKE),
    row(
        "java",
        tree_sitter_java::LANGUAGE,
        &["java"],
        "//",
        ".",
        grammar_file!("java"),
        pieces::C_LIKE,
    ),
    row(
        "javascript",
        tree_sitter_javascript::LANGUAGE,
        &["js", "mjs", "cjs", "jsx"],
        "//",
        ".",
        grammar_file!("javascript"),
        pieces::ECMA,
    ),
    row(
        "python",
        tree_sitter_python::LANGUAGE,
        &["py", "pyi"],
        "#",
        ".",
        grammar_file!("python"),
        pieces::PYTHON,
    ),
    row(
        "rust",
        tree_sitter_rust::LANGUAGE,
        &["rs"],
        "//",
        "::",
        grammar_file!("rust"),
        pieces::C_LIKE,
    ),
    row(
        "tsx",
        tree_sitter_typescript::LANGUAGE_TSX,
        &["tsx"],
        "//",
        ".",
        grammar_file!("tsx"),
        pieces::ECMA,
    ),
    row(
        "typescript",
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        &["ts", "mts", "cts"],
        "//",
        ".",
        grammar_file!("typescript"),
        pieces::ECMA,
    ),
];

/// Query files that languages inherit but that are no language of their own.
static SHARED_QUERIES: &[(&str, &str)] = &[("ecma", grammar_file!("ecma"))];

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
            .finish_non_exhaustive()
    }
}

impl Language {
    /// The tree-sitter grammar.
    pub fn tree_sitter_language(&self) -> tree_sitter::Language {
        self.grammar.into()
    }

    /// The compiled query configuration, built on first use and shared by all threads.
    pub fn config(&self) -> Result<&LanguageConfig, &LoadError> {
        self.config
            .get_or_init(|| {
                let source = config::resolve_inherits(self.queries, &query_source);
                LanguageConfig::new(self.name, self.tree_sitter_language(), &source)
            })
            .as_ref()
    }
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

/// The language of a script, by its shebang line (`#!/usr/bin/env python3`).
pub fn language_for_shebang(first_line: &str) -> Option<&'static Language> {
    let line = first_line.strip_prefix("#!")?;
    let prog = line.split_whitespace().find(|w| !w.ends_with("/env") && !w.starts_with('-'))?;
    let prog = prog.rsplit('/').next()?;
    let name = match prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.') {
        "python" => "python",
        "node" | "nodejs" => "javascript",
        "deno" | "ts-node" | "tsx" => "typescript",
        _ => return None,
    };
    language_by_name(name)
}

/// The language with this name (also used for Markdown fence info strings).
pub fn language_by_name(name: &str) -> Option<&'static Language> {
    LANGUAGES.iter().find(|l| l.name.eq_ignore_ascii_case(name))
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
        let errors: Vec<String> =
            languages().iter().filter_map(|l| l.config().err()).map(ToString::to_string).collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        for language in languages() {
            let config = language.config().expect("loads");
            assert!(config.root_kinds.is_some(), "{}: patterns start anywhere", language.name);
        }
    }

    /// Optional child steps (`body: (_)? @body`) are plain too: these languages compile no
    /// tree-sitter query at all, which costs tens of millions of instructions per process.
    #[test]
    fn most_languages_need_no_compiled_query() {
        for name in ["java", "javascript", "python", "rust", "typescript", "tsx"] {
            let config = language_by_name(name).unwrap().config().unwrap();
            assert!(config.query.is_none(), "{name} compiles a query");
        }
    }

    #[test]
    fn paths_and_shebangs_find_languages() {
        assert_eq!(language_for_path("src/lib.rs").unwrap().name, "rust");
        assert_eq!(language_for_path("a.b/c.TSX").unwrap().name, "tsx");
        assert!(language_for_path("Makefile").is_none());
        assert!(language_for_path("dir.rs/Makefile").is_none());
        assert_eq!(language_for_shebang("#!/usr/bin/env python3").unwrap().name, "python");
        assert_eq!(language_for_shebang("#!/usr/bin/node").unwrap().name, "javascript");
        assert!(language_for_shebang("#!/bin/sh").is_none());
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
            let grammar = language.tree_sitter_language();
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
