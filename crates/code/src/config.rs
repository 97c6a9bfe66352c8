//! Compiled language configurations: a grammar and its `atoms.scm` query, with capture indices
//! resolved once against the closed vocabulary of `grammars/README.md`.

use std::fmt;

use tree_sitter::Query;

use crate::capture::{CAPTURE_NAMES, Role, role_of};
use crate::pattern::{self, Step, split};

/// Why a language's queries could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    language: String,
    message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "grammars/{}/atoms.scm: {}", self.language, self.message)
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    pub(crate) fn new(language: &str, message: String) -> Self {
        Self { language: language.to_owned(), message }
    }
}

/// A language's compiled query and capture roles: built once, shared by every thread.
#[derive(Debug)]
pub struct LanguageConfig {
    /// The patterns that are not plain, compiled; `None` when every pattern is plain.
    pub(crate) query: Option<Query>,
    /// Pattern index in `atoms.scm` of each pattern of `query`.
    pub(crate) query_patterns: Vec<usize>,
    /// Role of each capture index of `query`.
    pub(crate) roles: Vec<Role>,
    /// The plain patterns, matched without tree-sitter: (pattern index, root step).
    pub(crate) plain: Vec<(usize, Step)>,
    /// Indices into `plain` for each `Start::Run`, in pattern order.
    pub(crate) plain_order: Vec<u16>,
    /// What the patterns say about a node, by kind id: the query is run only at nodes that
    /// the first node of some pattern can match. `None` when a pattern may start at any node
    /// (`(_)`, `_`).
    pub(crate) root_kinds: Option<Vec<Start>>,
}

/// Which patterns can start at a node of some kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Start {
    /// None: the query has nothing to say about the node itself.
    Never,
    /// Some, and the query must run to tell.
    Query,
    /// Exactly one, a bare `(kind) @capture` with a main capture that needs no parts: it
    /// matches every such node, so the query need not run.
    Direct { pattern: usize, role: Role },
    /// The plain patterns `plain_order[from..to]`, then the query when `query`.
    Run { from: u16, to: u16, query: bool },
}

impl LanguageConfig {
    /// Compiles `source` (an `atoms.scm`, inherits already resolved) for `grammar`.
    ///
    /// Fails when the query does not compile, or when it uses a capture name outside the
    /// vocabulary; the message then lists the valid names.
    pub fn new(
        language: &str,
        grammar: tree_sitter::Language,
        source: &str,
    ) -> Result<Self, LoadError> {
        let err = |message: String| LoadError { language: language.to_owned(), message };
        // Plain patterns are matched in Rust and blanked out of the compiled source (spaces,
        // newlines kept, so that error positions stay right).
        let ranges = split(source);
        let mut plain = Vec::new();
        let mut compiled = String::from(source);
        let mut query_patterns = Vec::new();
        if let Some(ranges) = &ranges {
            let kinds = pattern::Kinds::new(&grammar);
            for (i, range) in ranges.iter().enumerate() {
                match pattern::parse(&source[range.clone()], &grammar, &kinds)
                    .and_then(|mut s| is_plain_item(&mut s).then_some(s))
                {
                    Some(step) => {
                        plain.push((i, step));
                        let blank: String = source[range.clone()]
                            .chars()
                            .map(|c| if c == '\n' { '\n' } else { ' ' })
                            .collect();
                        compiled.replace_range(range.clone(), &blank);
                    }
                    None => query_patterns.push(i),
                }
            }
        }
        let query = if plain.is_empty() || !query_patterns.is_empty() {
            let source = if plain.is_empty() { source } else { compiled.as_str() };
            Some(Query::new(&grammar, source).map_err(|e| {
                err(format!(
                    "line {}, column {}: {:?} error: {}",
                    e.row + 1,
                    e.column + 1,
                    e.kind,
                    e.message
                ))
            })?)
        } else {
            None
        };
        if plain.is_empty() {
            query_patterns = (0..query.as_ref().map_or(0, Query::pattern_count)).collect();
        }
        let names = query.as_ref().map_or(&[][..], |q| q.capture_names());
        let mut roles = Vec::with_capacity(names.len());
        for name in names {
            match role_of(name) {
                Some(role) => roles.push(role),
                None => {
                    return Err(err(format!(
                        "unknown capture @{name}; valid captures: {}",
                        CAPTURE_NAMES
                            .iter()
                            .map(|n| format!("@{n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
        }
        let mut config =
            Self { query, query_patterns, roles, plain, plain_order: Vec::new(), root_kinds: None };
        config.root_kinds = config.root_kinds(&grammar, source, ranges.as_deref());
        if config.root_kinds.is_none() && !config.plain.is_empty() {
            // Some pattern may start anywhere: compile them all, as written.
            let all = Self::from_query(&grammar, source).map_err(err)?;
            return Ok(all);
        }
        Ok(config)
    }

    fn from_query(grammar: &tree_sitter::Language, source: &str) -> Result<Self, String> {
        let query = Query::new(grammar, source).map_err(|e| e.message)?;
        let roles = query.capture_names().iter().filter_map(|n| role_of(n)).collect();
        let query_patterns = (0..query.pattern_count()).collect();
        Ok(Self {
            query: Some(query),
            query_patterns,
            roles,
            plain: Vec::new(),
            plain_order: Vec::new(),
            root_kinds: None,
        })
    }

    /// Which patterns can start at a node of this kind.
    pub(crate) fn start(&self, kind_id: u16) -> Start {
        self.root_kinds
            .as_ref()
            .map_or(Start::Query, |k| k.get(usize::from(kind_id)).copied().unwrap_or(Start::Query))
    }
}

impl LanguageConfig {
    /// What each node kind may start: the plain patterns by their root step, the compiled
    /// ones by the first `(kind` or `"token"` of their text, or of each branch of a leading
    /// `[…]` alternation. `None` when some pattern may start anywhere (a wildcard, or text
    /// this reader does not know).
    fn root_kinds(
        &mut self,
        grammar: &tree_sitter::Language,
        source: &str,
        ranges: Option<&[std::ops::Range<usize>]>,
    ) -> Option<Vec<Start>> {
        // Compiled patterns: (kind, is named, pattern, the main role when bare).
        let mut roots: Vec<(String, bool, usize, Option<Role>)> = Vec::new();
        if let Some(query) = &self.query {
            for i in 0..query.pattern_count() {
                let start = query.start_byte_for_pattern(i);
                let text = source.get(start..)?;
                let mut names = Vec::new();
                pattern_roots(text, &mut names)?;
                let end = match (ranges, self.plain.is_empty()) {
                    (Some(r), false) => r[self.query_patterns[i]].end,
                    _ => query.end_byte_for_pattern(i),
                };
                let whole = source.get(start..end);
                let bare = whole.and_then(|t| bare_capture(t, query, &self.roles));
                let bare = bare.filter(|_| names.len() == 1);
                let pattern = self.query_patterns[i];
                roots.extend(names.into_iter().map(|(name, named)| (name, named, pattern, bare)));
            }
        }
        let count = grammar.node_kind_count();
        let mut kinds = vec![Start::Never; count];
        let mut order = Vec::new();
        for (id, slot) in kinds.iter_mut().enumerate() {
            let id = u16::try_from(id).ok()?;
            let Some(kind) = grammar.node_kind_for_id(id) else { continue };
            let named = grammar.node_kind_is_named(id);
            // (pattern, plain index or none, bare role)
            let mut here: Vec<(usize, Option<usize>, Option<Role>)> = roots
                .iter()
                .filter(|(n, is_named, ..)| n == kind && *is_named == named)
                .map(|&(_, _, pattern, bare)| (pattern, None, bare))
                .collect();
            for (p, (pattern, step)) in self.plain.iter().enumerate() {
                if step.root_ids().contains(&id) {
                    here.push((*pattern, Some(p), step.bare_role()));
                }
            }
            here.sort_unstable_by_key(|h| h.0);
            *slot = match here.as_slice() {
                [] => Start::Never,
                [(pattern, _, Some(role))] => Start::Direct { pattern: *pattern, role: *role },
                all if all.iter().all(|h| h.1.is_none()) => Start::Query,
                all => {
                    let from = u16::try_from(order.len()).ok()?;
                    for h in all {
                        if let Some(p) = h.1 {
                            order.push(u16::try_from(p).ok()?);
                        }
                    }
                    let to = u16::try_from(order.len()).ok()?;
                    Start::Run { from, to, query: all.iter().any(|h| h.1.is_none()) }
                }
            };
        }
        self.plain_order = order;
        Some(kinds)
    }
}

/// Whether a parsed pattern can be matched in Rust: its main capture is on the root, its
/// other captures are parts, and a wrapper's item sits in a field (so that it is unique).
fn is_plain_item(step: &mut Step) -> bool {
    step.make_plain_root()
}

/// The role of a pattern that is a bare `(kind) @capture` (a comment, an attribute, an
/// import, an item without parts); `None` for any other shape.
fn bare_capture(text: &str, query: &Query, roles: &[Role]) -> Option<Role> {
    let rest = skip_space(text).strip_prefix('(')?.trim_start();
    let end = rest.find(|c: char| c.is_whitespace() || c == ')')?;
    let rest = rest[end..].trim_start().strip_prefix(')')?.trim_start();
    let after = rest.strip_prefix('@')?;
    let len = after.find(|c: char| c.is_whitespace() || c == ';').unwrap_or(after.len());
    let capture = &after[..len];
    if !skip_space(&after[len..]).is_empty() {
        return None;
    }
    let index = query.capture_names().iter().position(|n| *n == capture)?;
    match roles[index] {
        role @ (Role::Atom(_) | Role::Comment | Role::Attach | Role::Import) => Some(role),
        _ => None,
    }
}

/// Adds the root node kinds of the pattern at the start of `text` to `out`, as
/// (kind, is named); `None` for a wildcard or an unknown shape.
fn pattern_roots(text: &str, out: &mut Vec<(String, bool)>) -> Option<()> {
    let text = text.trim_start();
    if let Some(rest) = text.strip_prefix('[') {
        // An alternation: each branch is a node or a token, up to the closing bracket.
        let mut rest = rest;
        loop {
            rest = skip_space(rest);
            if rest.starts_with(']') {
                return Some(());
            }
            let len = one_root(rest, out)?;
            rest = skip_node(&rest[len..], usize::from(rest.starts_with('(')))?;
        }
    }
    one_root(text, out).map(|_| ())
}

/// Reads one `(kind` or `"token"`; returns the bytes read.
fn one_root(text: &str, out: &mut Vec<(String, bool)>) -> Option<usize> {
    if let Some(rest) = text.strip_prefix('(') {
        let rest = rest.trim_start();
        let end = rest.find(|c: char| c.is_whitespace() || c == ')' || c == '@')?;
        let name = &rest[..end];
        if name.is_empty() || name == "_" || name.starts_with(['"', '#', '(', '[']) {
            return None;
        }
        out.push((name.to_owned(), true));
        Some(1)
    } else if let Some(rest) = text.strip_prefix('"') {
        let end = rest.find('"')?;
        if rest[..end].contains('\\') {
            return None;
        }
        out.push((rest[..end].to_owned(), false));
        Some(end + 2)
    } else {
        None
    }
}

/// Skips whitespace and `;` comments.
fn skip_space(mut text: &str) -> &str {
    loop {
        text = text.trim_start();
        match text.strip_prefix(';') {
            Some(rest) => text = rest.find('\n').map_or("", |i| &rest[i..]),
            None => return text,
        }
    }
}

/// Skips the rest of one alternation branch whose root was just read (`depth` is 1 inside a
/// node, 0 after a token): up to the next branch, or the closing `]`.
fn skip_node(text: &str, depth: usize) -> Option<&str> {
    let next_branch = |rest: &str| rest.find(['(', '"', ']', '[']);
    if depth == 0 {
        return next_branch(text).map(|j| &text[j..]);
    }
    let end = crate::pattern::close_groups(text.as_bytes(), 0, depth)?;
    let rest = &text[end..];
    next_branch(rest).map(|j| &rest[j..])
}

/// Resolves `; inherits: a, b` lines: the inherited queries come after the file's own
/// patterns, so the more specific patterns of the inheriting language win.
pub(crate) fn resolve_inherits(
    source: &str,
    lookup: &dyn Fn(&str) -> Option<&'static str>,
) -> String {
    let mut out = String::from(source);
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("; inherits:") else { continue };
        for base in rest.split(',').map(str::trim).filter(|b| !b.is_empty()) {
            if let Some(text) = lookup(base) {
                out.push('\n');
                out.push_str(&resolve_inherits(text, lookup));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_predicate_of_the_built_in_languages_compiles() {
        // `#match?` regexes compile on first use; each built-in one must compile, or its step
        // would silently match nothing.
        let mut checked = 0;
        for language in crate::registry::languages() {
            let Ok(config) = language.config() else { continue };
            for (_, step) in &config.plain {
                assert_eq!(step.broken_predicates(), Vec::<String>::new(), "{}", language.name);
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked} plain patterns");
    }

    #[test]
    fn an_invalid_predicate_leaves_its_pattern_to_tree_sitter() {
        let grammar: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
        let source = "((identifier) @name (#match? @name \"(\") @atom.function";
        // Not a plain pattern: tree-sitter compiles it and reports the regex.
        assert!(LanguageConfig::new("rust", grammar, source).is_err());
    }

    #[test]
    fn unknown_capture_names_the_valid_ones() {
        let grammar: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
        let err = LanguageConfig::new("rust", grammar, "(function_item) @atom.fun").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown capture @atom.fun"), "{msg}");
        assert!(msg.contains("@atom.function"), "{msg}");
    }

    #[test]
    fn patterns_start_at_known_kinds() {
        let grammar: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
        let source = "; c\n(line_comment) @comment\n[(struct_item) \"fn\" @keyword\n  ; x\n  (enum_item name: (_) @name)] @atom.type\n(source_file (function_item) @atom.function)";
        let config = LanguageConfig::new("rust", grammar.clone(), source).unwrap();
        let starts: Vec<&str> = (0..grammar.node_kind_count())
            .filter_map(|id| u16::try_from(id).ok())
            .filter(|&id| config.start(id) != Start::Never)
            .filter_map(|id| grammar.node_kind_for_id(id))
            .collect();
        for kind in ["line_comment", "struct_item", "fn", "enum_item", "source_file"] {
            assert!(starts.contains(&kind), "{kind}: {starts:?}");
        }
        assert!(!starts.contains(&"function_item"), "{starts:?}");
        let id = |kind: &str| grammar.id_for_node_kind(kind, true);
        assert_eq!(
            config.start(id("line_comment")),
            Start::Direct { pattern: 0, role: Role::Comment }
        );
        assert_eq!(config.start(id("struct_item")), Start::Query);
        let wild = LanguageConfig::new("rust", grammar, "(_ (line_comment) @comment)").unwrap();
        assert!(wild.root_kinds.is_none());
    }

    fn parse(grammar: &tree_sitter::Language, text: &str) -> tree_sitter::Tree {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(grammar).expect("a compiled-in grammar");
        parser.parse(text, None).expect("no timeout is set")
    }

    /// A pattern whose main capture sits down a chain of single child steps is plain: it
    /// matches without the query, once per descendant, like tree-sitter's matches.
    #[test]
    fn chained_patterns_are_plain() {
        let grammar: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        let source =
            "(class_definition body: (block (function_definition name: (_) @name) @atom.method))";
        let config = LanguageConfig::new("python", grammar.clone(), source).unwrap();
        let id = grammar.id_for_node_kind("class_definition", true);
        assert_eq!(config.start(id), Start::Run { from: 0, to: 1, query: false });
        let text = "class A:\n    def f(self): pass\n    x = 1\n    def g(self): pass\n";
        let tree = parse(&grammar, text);
        let class = tree.root_node().child(0).unwrap();
        let (_, step) = &config.plain[0];
        let mut names = Vec::new();
        let mut cursor = class.walk();
        let mut caps = crate::pattern::Captures::new(text.as_bytes());
        step.each_child_match(class, &mut cursor, &mut caps, |c| {
            let name = c.iter().find(|(role, _)| *role == Role::Name).unwrap().1;
            names.push(&text[name.byte_range()]);
        });
        assert_eq!(names, ["f", "g"]);
    }

    /// `#match?` predicates are plain: a node is captured only if its text matches, so the
    /// first match is the first whose captures pass, as with tree-sitter.
    #[test]
    fn match_predicates_are_plain() {
        let grammar: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
        let source = r#"(source_file
            (macro_invocation (token_tree) @body (#match? @body "\\b(fn|struct)\\b")) @expand)"#;
        let config = LanguageConfig::new("rust", grammar.clone(), source).unwrap();
        assert!(config.query.is_none(), "compiled");
        let text = "a! {\n    x, fnord\n}\nb! {\n    fn f() {}\n}\nc! { struct S; }\n";
        let tree = parse(&grammar, text);
        let root = tree.root_node();
        let (_, step) = &config.plain[0];
        let mut names = Vec::new();
        let mut cursor = root.walk();
        let mut caps = crate::pattern::Captures::new(text.as_bytes());
        step.each_child_match(root, &mut cursor, &mut caps, |c| {
            let node = c.iter().find(|(role, _)| *role == Role::Expand).unwrap().1;
            names.push(&text[node.start_byte()..node.start_byte() + 2]);
        });
        assert_eq!(names, ["b!", "c!"]);
        caps.clear();
        assert!(step.matches(root, &mut cursor, &mut caps));
        assert_eq!(caps.caps[0].1.start_byte(), text.find("b!").unwrap(), "the first that passes");
        // A predicate on a capture the pattern lacks is tree-sitter's error to report.
        let bad =
            "(source_file (macro_invocation (token_tree) @body (#match? @name \"x\")) @expand)";
        assert!(LanguageConfig::new("rust", grammar, bad).is_err());
    }

    #[test]
    fn inherited_patterns_come_last() {
        let lookup = |name: &str| (name == "base").then_some("(base)");
        let out = resolve_inherits("; inherits: base\n(own)", &lookup);
        assert!(out.find("(own)").unwrap() < out.find("(base)").unwrap());
    }
}
