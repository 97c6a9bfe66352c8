//! cleave-code: tree-sitter syntax trees turned into cleave atom trees with context headers.
//!
//! A language is data: a folder `grammars/<name>/` with an `atoms.scm` query whose captures
//! come from a closed vocabulary ([`CAPTURE_NAMES`], documented in `grammars/README.md`), and
//! one row of the sorted registry below. [`atomize_code`] parses a file once, runs the query
//! once, and walks the syntax tree once: items become symbol atoms (labelled, scopes, with their
//! doc comments and attributes), bodies open into members or statements, and the text between
//! them becomes gaps. Imports become the header context. Regions under parse errors fall back
//! to blank-line blocks of lines, and the share of the file in error is reported.
//!
//! ```
//! use cleave_code::{ParseContext, atomize_code, language_by_name};
//!
//! let rust = language_by_name("rust").unwrap();
//! let text = "use std::fmt;\n\n/// A token.\nstruct Token;\n\nimpl fmt::Display for Token {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"tok\")\n    }\n}\n";
//! let tree = atomize_code(rust, text, &mut ParseContext::new());
//! let labels: Vec<_> = tree.root.children.iter().filter_map(|a| a.label_text()).collect();
//! assert_eq!(labels, ["struct Token", "impl fmt::Display for Token"]);
//! ```

#![deny(missing_docs)]

mod config;
mod pattern;
mod pieces;
mod walk;

use std::ops::Range;
use std::sync::OnceLock;

use cleave_core::{Atom, AtomKind, AtomTree, CommentStyle, ContentKind, Diagnostic, Severity};
use tree_sitter::{Parser, QueryCursor, Tree};
use tree_sitter_language::LanguageFn;

pub use config::{CAPTURE_NAMES, ItemKind, LanguageConfig, LoadError};
use pieces::Lexis;
pub use pieces::PIECE_BYTES;

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
    queries: &'static str,
    /// Its strings and comments, as the cuts of minified code need them.
    lexis: Lexis,
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

fn query_source(name: &str) -> Option<&'static str> {
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

/// Per-thread parsing state (parser and query cursor), built once per worker thread.
pub struct ParseContext {
    parser: Parser,
    cursor: QueryCursor,
    /// Name of the language the parser is set to.
    current: Option<&'static str>,
    /// Bytes of the current file that fell back to line packing.
    fallback_bytes: usize,
}

impl std::fmt::Debug for ParseContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParseContext").field("current", &self.current).finish_non_exhaustive()
    }
}

impl Default for ParseContext {
    fn default() -> Self {
        Self::new()
    }
}

impl ParseContext {
    /// A fresh context.
    pub fn new() -> Self {
        Self { parser: Parser::new(), cursor: QueryCursor::new(), current: None, fallback_bytes: 0 }
    }

    fn set_language(&mut self, language: &'static Language) -> bool {
        if self.current == Some(language.name) {
            return true;
        }
        let ok = self.parser.set_language(&language.tree_sitter_language()).is_ok();
        self.current = ok.then_some(language.name);
        ok
    }

    /// Parses `text` whole.
    fn parse(&mut self, language: &'static Language, text: &str) -> Option<Tree> {
        if !self.set_language(language) {
            return None;
        }
        self.parser.reset();
        self.parser.parse(text, None)
    }

    /// Parses only `ranges` of `text`; node offsets stay those of the whole text.
    fn parse_ranges(
        &mut self,
        language: &'static Language,
        text: &str,
        ranges: &[tree_sitter::Range],
    ) -> Option<Tree> {
        if !self.set_language(language) || self.parser.set_included_ranges(ranges).is_err() {
            return None;
        }
        self.parser.reset();
        let tree = self.parser.parse(text, None);
        // An empty list means the whole document again; it cannot fail.
        let _ = self.parser.set_included_ranges(&[]);
        tree
    }
}

/// Files longer than this are parsed in sections of about this length, cut between top-level
/// items. tree-sitter's memory while parsing grows with the file (about 60 bytes per byte of a
/// generated 1.7 MB Rust file, most of it held only during the parse), so a repository's largest
/// files set the peak memory of a whole run; sections bound it. The atoms are the same.
pub const SECTION_BYTES: usize = 256 << 10;

/// Atomizes source code. Never fails: parse errors degrade locally and are reported as
/// diagnostics in the tree.
pub fn atomize_code(language: &Language, text: &str, ctx: &mut ParseContext) -> AtomTree {
    atomize_code_in_sections(language, text, ctx, SECTION_BYTES)
}

/// [`atomize_code`], parsing files longer than `section_bytes` in sections of about that
/// length. The atoms do not depend on it: a section ends only where a top-level item ends
/// (a blank line after a line that closes a bracket or is indented, before a line that starts
/// in the first column), and a section whose parse holds an error is not trusted as one: the
/// rest of the file is then parsed in one piece.
pub fn atomize_code_in_sections(
    language: &Language,
    text: &str,
    ctx: &mut ParseContext,
    section_bytes: usize,
) -> AtomTree {
    atomize_code_in_pieces(language, text, ctx, section_bytes, section_bytes.max(PIECE_BYTES))
}

/// [`atomize_code_in_sections`], parsing a section that stays longer than `piece_bytes` (no
/// blank line between its items, no member runs: minified or generated code) in pieces of at
/// most that length, cut at statement or line ends (see `pieces.rs`), and saying so in a
/// diagnostic. For tests, which need a small bound.
#[doc(hidden)]
pub fn atomize_code_in_pieces(
    language: &Language,
    text: &str,
    ctx: &mut ParseContext,
    section_bytes: usize,
    piece_bytes: usize,
) -> AtomTree {
    if let Some(view) = lone_cr_as_lf(text) {
        // Classic Mac line ends: no grammar reads a lone CR as a newline (Python's statements
        // all run into one line). The view has the same length, so its atoms index `text`.
        let mut tree = atomize_code_in_pieces(language, &view, ctx, section_bytes, piece_bytes);
        tree.diagnostics.push(Diagnostic::new(
            Severity::Note,
            "lone CR line ends (classic Mac) were read as newlines",
        ));
        return tree;
    }
    let root_atom = || Atom::new(AtomKind::Block, 0..text.len());
    let fallback = |message: String| {
        let mut tree = cleave_core::atomize_blocks(text, language.name, ContentKind::Code);
        tree.comment = CommentStyle::line(language.comment);
        tree.separator = language.separator;
        tree.diagnostics.push(Diagnostic::new(Severity::Fallback, message));
        tree
    };
    let Some(language) = language_by_name(language.name) else {
        return fallback(format!("{} is not a registered language", language.name));
    };
    let config = match language.config() {
        Ok(config) => config,
        Err(e) => return fallback(e.to_string()),
    };
    let mut tree = AtomTree::new(language.name, ContentKind::Code, root_atom());
    tree.comment = CommentStyle::line(language.comment);
    tree.separator = language.separator;
    if text.is_empty() {
        return tree;
    }
    ctx.fallback_bytes = 0;
    let mut cuts = section_starts(text.as_bytes(), section_bytes);
    let mut children: Vec<Atom> = Vec::new();
    let mut imports = Vec::new();
    let mut errors = 0;
    // Where the last section ended with an import atom: the whole parse merges it with
    // imports that follow across blank lines, and so does the next section.
    let mut import_end: Option<usize> = None;
    // What was built before each section, to go back to when a section's parse holds an
    // error: (atoms, end of the last atom, imports, error bytes, import end, fallback bytes).
    let mut saved = Vec::new();
    let mut trusted = cuts.len() > 1;
    // Sections parsed in pieces: (bytes, pieces).
    let mut pieced = (0, 0);
    let mut k = 0;
    while k < cuts.len() {
        saved.truncate(k);
        let last_end = children.last().map(|a| a.range.end);
        saved.push((
            children.len(),
            last_end,
            imports.clone(),
            errors,
            import_end,
            ctx.fallback_bytes,
        ));
        let start = cuts[k];
        let last = k + 1 == cuts.len();
        let end = if last { text.len() } else { cuts[k + 1] };
        // One large item (a class of thousands of methods): parsed in runs of its members.
        let nested = if end - start > section_bytes {
            member_runs(text.as_bytes(), start..end, section_bytes).and_then(|runs| {
                walk_runs(language, config, text, start..end, &runs, imports.clone(), ctx)
            })
        } else {
            None
        };
        if let Some((atoms, walked_imports, top_imports)) = nested {
            add_section(&mut children, atoms, import_end, &top_imports, text);
            import_end = top_imports.last().map(|r| r.end);
            imports = walked_imports;
            k += 1;
            continue;
        }
        if end - start > piece_bytes {
            // Minified or generated code: pieces, each walked as a section of its own. Their
            // parse errors are expected where a cut falls inside a bracket, and stay local.
            let ranges = pieces::pieces(text, start..end, piece_bytes, language.lexis);
            pieced = (pieced.0 + (end - start), pieced.1 + ranges.len());
            for (range, ts) in ranges.iter().zip(walk::ts_ranges(text, &ranges)) {
                let Some(syntax) = ctx.parse_ranges(language, text, &[ts]) else {
                    ctx.fallback_bytes += range.len();
                    let lines = cleave_core::blocks(text, range.clone());
                    children.push(Atom::new(AtomKind::Block, range.clone()).with_children(lines));
                    import_end = None;
                    continue;
                };
                let root = syntax.root_node();
                let mut walker = walk::Walker::new(text, language, config, root, ctx, 0);
                walker.imports = std::mem::take(&mut imports);
                let atoms = walker.root(root, range.clone(), ctx);
                add_section(&mut children, atoms, import_end, &walker.top_imports, text);
                import_end = walker.top_imports.last().map(|r| r.end);
                imports = walker.imports;
                errors += walk::error_bytes(root);
            }
            k += 1;
            continue;
        }
        let syntax = if start == 0 && last {
            ctx.parse(language, text)
        } else {
            ctx.parse_ranges(language, text, &[walk::ts_range(text, start..end)])
        };
        let Some(syntax) = syntax else {
            return fallback(format!("the {} parser gave up on this file", language.name));
        };
        let root = syntax.root_node();
        if trusted && root.has_error() {
            // A real error, or a cut that was no boundary between items (before or after
            // this section): the rest, from the section before, is parsed in one piece.
            let back = k.saturating_sub(1);
            saved.truncate(back + 1);
            let (len, last_end);
            (len, last_end, imports, errors, import_end, ctx.fallback_bytes) =
                saved.pop().expect("a state was saved before every section");
            children.truncate(len);
            if let (Some(atom), Some(end)) = (children.last_mut(), last_end) {
                atom.range.end = end;
            }
            cuts.truncate(back + 1);
            trusted = false;
            k = back;
            continue;
        }
        let mut walker = walk::Walker::new(text, language, config, root, ctx, 0);
        walker.imports = std::mem::take(&mut imports);
        let atoms = walker.root(root, start..end, ctx);
        add_section(&mut children, atoms, import_end, &walker.top_imports, text);
        import_end = walker.top_imports.last().map(|r| r.end);
        imports = walker.imports;
        errors += walk::error_bytes(root);
        k += 1;
    }
    tree.context = context_lines(&imports);
    tree.root = root_atom().with_children(children);
    if pieced.1 > 0 {
        tree.diagnostics.push(Diagnostic::new(
            Severity::Degraded,
            format!(
                "looks minified or generated: {} bytes with no blank line between top-level \
                 items were parsed in {} pieces of at most {piece_bytes} bytes, cut at \
                 statement or line ends; an item that spans pieces is cut into its parts",
                pieced.0, pieced.1,
            ),
        ));
    }
    if errors > 0 || ctx.fallback_bytes > 0 {
        let share = |n: usize| n as f64 * 100.0 / text.len() as f64;
        tree.diagnostics.push(Diagnostic::new(
            Severity::Degraded,
            format!(
                "parse errors: {:.1}% of the file ({errors} of {} bytes) under error nodes, \
                 {:.1}% ({} bytes) fell back to line packing",
                share(errors),
                text.len(),
                share(ctx.fallback_bytes),
                ctx.fallback_bytes,
            ),
        ));
    }
    tree
}

/// `text` with every CR that no LF follows replaced by an LF; `None` when it has none. CRLF
/// is left alone: grammars read it as a line end already.
fn lone_cr_as_lf(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let is_lone = |i: usize| bytes.get(i + 1) != Some(&b'\n');
    let first = memchr::memchr_iter(b'\r', bytes).find(|&i| is_lone(i))?;
    let mut view = bytes.to_vec();
    for i in memchr::memchr_iter(b'\r', &bytes[first..]).map(|i| first + i) {
        if is_lone(i) {
            view[i] = b'\n';
        }
    }
    // One ASCII byte for another: still UTF-8.
    String::from_utf8(view).ok()
}

/// How a section that holds one large top-level item (a class, a module) is parsed in runs of
/// its members: the item's head `section.start..members.start` and tail
/// `members.end..section.end` go with every run.
struct MemberRuns {
    members: Range<usize>,
    starts: Vec<usize>,
}

impl MemberRuns {
    /// Where run `k` ends.
    fn end(&self, k: usize) -> usize {
        self.starts.get(k + 1).copied().unwrap_or(self.members.end)
    }

    /// Parses run `k` of `section` with the item's head and tail.
    fn parse(
        &self,
        k: usize,
        language: &'static Language,
        text: &str,
        section: &Range<usize>,
        ctx: &mut ParseContext,
    ) -> Option<Tree> {
        let parts = [
            section.start..self.members.start,
            self.starts[k]..self.end(k),
            self.members.end..section.end,
        ];
        let parts: Vec<Range<usize>> = parts.into_iter().filter(|r| !r.is_empty()).collect();
        ctx.parse_ranges(language, text, &walk::ts_ranges(text, &parts))
    }
}

/// How many member runs the sections of `text` past `section_bytes` are parsed in (0 when
/// none is one large item). For tests and reports.
#[doc(hidden)]
pub fn member_run_count(text: &str, section_bytes: usize) -> usize {
    let cuts = section_starts(text.as_bytes(), section_bytes);
    let mut count = 0;
    for (k, &start) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).copied().unwrap_or(text.len());
        if end - start > section_bytes
            && let Some(runs) = member_runs(text.as_bytes(), start..end, section_bytes)
        {
            count += runs.starts.len();
        }
    }
    count
}

/// Runs of about `run_bytes` over the members of the one top-level item of `section`, cut as
/// [`section_starts`] cuts between top-level items, one indentation level in: at a run of
/// blank lines after a member's last line (a closing bracket at the members' indentation, or
/// a deeper line that is no comment) and before a line at the members' indentation that
/// starts no closing bracket. `None` when the section is not one item whose head ends a line
/// with `{` or `:` and whose members are all indented, or when no cut is found.
fn member_runs(bytes: &[u8], section: Range<usize>, run_bytes: usize) -> Option<MemberRuns> {
    let run_bytes = run_bytes.max(1);
    let line_end = |from: usize| {
        bytes[from..section.end]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(section.end, |i| from + i + 1)
    };
    let blank = |line: Range<usize>| bytes[line].iter().all(u8::is_ascii_whitespace);
    // The head: up to the first line in the first column that opens a body.
    let mut at = section.start;
    let opener = loop {
        if at >= section.end {
            return None;
        }
        let line = at..line_end(at);
        at = line.end;
        let code = bytes[line.clone()].trim_ascii_end();
        if code
            .first()
            .is_some_and(|c| !c.is_ascii_whitespace() && !matches!(c, b'/' | b'*' | b'#' | b'@'))
            && let Some(&last) = code.last()
            && matches!(last, b'{' | b':')
        {
            break last;
        }
    };
    let members_start = at;
    // The members' indentation: that of the first line with code.
    let first = (members_start..section.end).find(|&i| !bytes[i].is_ascii_whitespace())?;
    let indent_start = bytes[..first].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let indent = &bytes[indent_start..first];
    if indent.is_empty() || indent_start < members_start {
        return None;
    }
    // The tail: from the last line that starts with `}` in the first column (a body opened
    // by `:` ends with the section).
    let mut members_end = section.end;
    if opener == b'{' {
        let mut last_close = None;
        let mut at = members_start;
        while at < section.end {
            if bytes[at] == b'}' {
                last_close = Some(at);
            }
            at = line_end(at);
        }
        members_end = last_close?;
    }
    // Every member line is indented (or blank): one item, nothing else at the top level.
    // A member's last line: not a comment's, and not ending in a separator that may be no
    // part of the member (`make_test!(…);` in a Rust body), which would join the blank lines.
    let ends_member = |line: &[u8]| {
        let code = line.trim_ascii();
        if code.ends_with(b"*/") || code.ends_with(b";") || code.ends_with(b",") {
            return false;
        }
        if !line.starts_with(indent) {
            return false;
        }
        match (line.get(indent.len()), code.first()) {
            (Some(b'}' | b')'), _) => true,
            (Some(b' ' | b'\t'), Some(c)) => !matches!(c, b'*' | b'/' | b'#'),
            _ => false,
        }
    };
    let mut starts = vec![members_start];
    let mut from = members_start + run_bytes;
    let mut code: Option<Range<usize>> = None;
    let mut blanks: Option<usize> = None;
    let mut at = members_start;
    while at < members_end {
        let line = at..line_end(at).min(members_end);
        at = line.end;
        if blank(line.clone()) {
            blanks.get_or_insert(line.start);
            continue;
        }
        let text = &bytes[line.clone()];
        if !text[0].is_ascii_whitespace() {
            return None;
        }
        let next = text.get(indent.len());
        if let (Some(cut), Some(prev)) = (blanks, &code)
            && cut >= from
            && text.starts_with(indent)
            && next.is_some_and(|c| !c.is_ascii_whitespace() && !matches!(c, b'}' | b')' | b']'))
            && ends_member(&bytes[prev.clone()])
            && members_end - cut >= run_bytes / 2
        {
            starts.push(cut);
            from = cut + run_bytes;
        }
        code = Some(line);
        blanks = None;
    }
    (starts.len() > 1).then_some(MemberRuns { members: members_start..members_end, starts })
}

/// Appends a section's atoms. Imports merged across blank lines in a whole parse are merged
/// across sections too: the last section ended with imports at `import_end`, and this one
/// starts with more.
fn add_section(
    children: &mut Vec<Atom>,
    mut atoms: Vec<Atom>,
    import_end: Option<usize>,
    top_imports: &[Range<usize>],
    text: &str,
) {
    if let (Some(prev), Some(first)) = (import_end, top_imports.first())
        && children.last().is_some_and(|a| a.range.end == prev)
        && text.as_bytes()[prev..first.start].iter().all(u8::is_ascii_whitespace)
    {
        children.last_mut().expect("checked").range.end = first.end;
        atoms.retain(|a| a.range.end > first.end);
    }
    children.extend(atoms);
}

/// What walking one section gives: its atoms, the imports so far and its top-level import
/// atoms.
type Walked = (Vec<Atom>, Vec<String>, Vec<Range<usize>>);

/// Walks a section of one large top-level item in runs of its members (see [`member_runs`]):
/// each run is parsed with the item's head and tail, so that tree-sitter's memory follows the
/// run, not the item. The first run gives the section's atoms; the members of the others
/// replace what it left of the item's children past its own members. `None` when a run
/// parses with an error or the trees are not shaped as expected: the caller then parses the
/// section whole, as before.
fn walk_runs(
    language: &'static Language,
    config: &'static LanguageConfig,
    text: &str,
    section: Range<usize>,
    runs: &MemberRuns,
    imports: Vec<String>,
    ctx: &mut ParseContext,
) -> Option<Walked> {
    let bytes = text.as_bytes();
    let MemberRuns { members, starts } = runs;
    // Where the first member starts: the item's atom starts before.
    let lo = (members.start..members.end).find(|&i| !bytes[i].is_ascii_whitespace())?;
    let run_end = |k: usize| runs.end(k);
    let parse = |k: usize, ctx: &mut ParseContext| {
        runs.parse(k, language, text, &section, ctx).filter(|tree| !tree.root_node().has_error())
    };
    let tree = parse(0, ctx)?;
    let root = tree.root_node();
    let mut walker = walk::Walker::new(text, language, config, root, ctx, 0);
    walker.imports = imports;
    let mut atoms = walker.root(root, section.clone(), ctx);
    let (imports, top_imports) = (walker.imports, walker.top_imports);
    drop(tree);
    let item = atoms.iter_mut().find(|a| {
        a.kind == AtomKind::Symbol
            && a.range.start <= lo
            && a.range.end >= starts[1]
            && !a.children.is_empty()
    })?;
    // The first run's members end where the second run starts (and so does the item, when
    // its body ends with its last member).
    let keep = item.children.iter().take_while(|c| c.range.end <= starts[1]).count();
    let next = item.children.get(keep).map_or(item.range.end, |c| c.range.start);
    if next != starts[1] {
        return None;
    }
    let mut item_end = item.range.end;
    let mut children: Vec<Atom> = item.children.drain(..keep).collect();
    let mut tail = None;
    for k in 1..starts.len() {
        let tree = parse(k, ctx)?;
        let root = tree.root_node();
        let mut walker = walk::Walker::new(text, language, config, root, ctx, 0);
        let last = k + 1 == starts.len();
        // The members of this run without the white space after them: in a body that ends
        // with its last member (Python's), the body node ends there.
        let run_lo = (starts[k]..run_end(k)).find(|&i| !bytes[i].is_ascii_whitespace())?;
        let run_hi = (run_lo..run_end(k)).rev().find(|&i| !bytes[i].is_ascii_whitespace())? + 1;
        if last && item_end < members.end {
            // The first run's item ended with that run; the whole item ends with the last's.
            let end = walker.item_end(root, run_lo..run_hi, section.end)?;
            tail = Some(walker.root_tail(end..section.end));
            item_end = end;
        }
        let within = starts[k]..if last { item_end } else { run_end(k) };
        children.extend(walker.continued_members(root, run_lo..run_hi, within, ctx)?);
    }
    item.children = children;
    if let Some(tail) = tail {
        item.range.end = item_end;
        let item_start = item.range.start;
        atoms.retain(|a| a.range.start <= item_start || a.range.start >= item_end);
        atoms.extend(tail);
    }
    Some((atoms, imports, top_imports))
}

/// Parses `text` as [`atomize_code`] does (whole, or in [`section_starts`] sections past
/// [`SECTION_BYTES`]) and builds nothing: the parse-only baseline the benchmarks compare
/// cleave with. Returns whether any parse held an error; `None` when the parser gave up.
pub fn parse_only(language: &Language, text: &str, ctx: &mut ParseContext) -> Option<bool> {
    let language = language_by_name(language.name)?;
    let piece_bytes = SECTION_BYTES.max(PIECE_BYTES);
    let starts = section_starts(text.as_bytes(), SECTION_BYTES);
    let mut errors = false;
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        if end - start > SECTION_BYTES
            && let Some(runs) = member_runs(text.as_bytes(), start..end, SECTION_BYTES)
        {
            // In runs of the item's members, as atomize_code parses it when no run fails.
            for run in 0..runs.starts.len() {
                let tree = runs.parse(run, language, text, &(start..end), ctx)?;
                errors |= tree.root_node().has_error();
            }
            continue;
        }
        if end - start > piece_bytes {
            // In pieces, as atomize_code parses minified or generated code.
            let ranges = pieces::pieces(text, start..end, piece_bytes, language.lexis);
            for ts in walk::ts_ranges(text, &ranges) {
                errors |= ctx.parse_ranges(language, text, &[ts])?.root_node().has_error();
            }
            continue;
        }
        let tree = if starts.len() == 1 {
            ctx.parse(language, text)?
        } else {
            ctx.parse_ranges(language, text, &[walk::ts_range(text, start..end)])?
        };
        errors |= tree.root_node().has_error();
    }
    Some(errors)
}

/// Where the sections of a file start: 0, then the first candidate cut at least
/// `section_bytes` after the previous one, as long as the last section keeps half that length.
/// A candidate is the start of a run of blank lines that follows a line starting with `}`,
/// `)` or indentation, not in or closing a comment (the end of an item or of an indented
/// body), and precedes a line starting in the first column with anything but a closing
/// bracket (the next item, its doc comment or attributes). The blank lines go to the section
/// after, where they are the same gap as in the whole file.
pub fn section_starts(bytes: &[u8], section_bytes: usize) -> Vec<usize> {
    let mut starts = vec![0];
    let section_bytes = section_bytes.max(1);
    if bytes.len() <= section_bytes {
        return starts;
    }
    let line_end = |from: usize| {
        bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| from + i + 1)
    };
    // A closing bracket, or an indented line that is no comment: ` */` or `  text */` ends a
    // doc comment that belongs to the item after the blank lines.
    let ends_item = |line: &[u8]| {
        let code = line.trim_ascii();
        match (line[0], code.first()) {
            _ if code.ends_with(b"*/") => false,
            (b'}' | b')', _) => true,
            (b' ' | b'\t', Some(c)) => !matches!(c, b'*' | b'/' | b'#'),
            _ => false,
        }
    };
    let mut from = section_bytes;
    // The last line with code, and where the blank lines after it start.
    let mut code: Option<Range<usize>> = None;
    let mut blanks: Option<usize> = None;
    let mut at = bytes[..from].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    while at < bytes.len() {
        let line = at..line_end(at);
        at = line.end;
        if bytes[line.clone()].iter().all(u8::is_ascii_whitespace) {
            blanks.get_or_insert(line.start);
            continue;
        }
        let first = bytes[line.start];
        if let (Some(cut), Some(prev)) = (blanks, &code)
            && cut >= from
            && ends_item(&bytes[prev.clone()])
            && !first.is_ascii_whitespace()
            && !matches!(first, b'}' | b')' | b']')
        {
            if bytes.len() - cut < section_bytes / 2 {
                break;
            }
            starts.push(cut);
            from = cut + section_bytes;
        }
        code = Some(line);
        blanks = None;
    }
    starts
}

/// An outline of an atom tree, one atom a line: kind, boundary, lines, label and the start of
/// its text. Behind `cleave dump-atoms FILE`, and handy in tests.
pub fn dump_atoms(tree: &AtomTree, text: &str) -> String {
    fn walk(atom: &Atom, text: &str, depth: usize, out: &mut String) {
        let line = |at: usize| text.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let end = if atom.range.is_empty() { atom.range.end } else { atom.range.end - 1 };
        let first = text[atom.range.clone()].lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let first: String = first.trim().chars().take(48).collect();
        let kind = format!("{:?}", atom.kind).to_lowercase();
        let label = atom.label_text().map(|l| format!(" [{l}]")).unwrap_or_default();
        let scope = if atom.is_scope { " scope" } else { "" };
        out.push_str(&format!(
            "{:indent$}{kind} {:?} {}-{}{label}{scope} | {first}\n",
            "",
            atom.boundary,
            line(atom.range.start),
            line(end),
            indent = depth * 2
        ));
        for child in &atom.children {
            walk(child, text, depth + 1, out);
        }
    }
    let mut out = String::new();
    walk(&tree.root, text, 0, &mut out);
    for ctx in &tree.context {
        out.push_str(&format!("context: {ctx}\n"));
    }
    for d in &tree.diagnostics {
        out.push_str(&format!("{:?}: {}\n", d.severity, d.message));
    }
    out
}

/// Widest context line: imports are a small share of the header, whatever the budget.
const CONTEXT_WIDTH: usize = 80;

/// The imports as one compact header line: keywords and punctuation dropped, module paths
/// kept, cut with an ellipsis at [`CONTEXT_WIDTH`].
fn context_lines(imports: &[String]) -> Vec<String> {
    let mut line = String::new();
    let mut package = None;
    for import in imports {
        let import = import.trim_end_matches(';').trim();
        if let Some(name) = import.strip_prefix("package ") {
            package = Some(name.trim().to_owned());
            continue;
        }
        let mut rest = import;
        for keyword in
            ["pub(crate) ", "pub ", "use ", "extern crate ", "import ", "type ", "static "]
        {
            rest = rest.strip_prefix(keyword).unwrap_or(rest);
        }
        let rest = rest.trim_start_matches('(').trim_end_matches(')').trim();
        let rest = rest.replace(['"', '\''], "");
        if rest.is_empty() {
            continue;
        }
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(&rest);
        if line.len() > CONTEXT_WIDTH {
            break;
        }
    }
    let mut out = match package {
        Some(package) if line.is_empty() => format!("package {package}"),
        Some(package) => format!("package {package}; imports: {line}"),
        None if line.is_empty() => return Vec::new(),
        None => format!("imports: {line}"),
    };
    if out.len() > CONTEXT_WIDTH {
        let cut = cleave_core::floor_char_boundary(&out, CONTEXT_WIDTH - 1);
        out.truncate(cut);
        out.push('…');
    }
    vec![out]
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

    #[test]
    fn imports_become_one_compact_line() {
        let imports: Vec<String> = (0..30).map(|i| format!("import mod{i}")).collect();
        let lines = context_lines(&imports);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("imports: mod0, mod1, mod2"));
        assert!(lines[0].ends_with('…') && lines[0].chars().count() <= CONTEXT_WIDTH);
        let go =
            context_lines(&["package server".into(), "import ( \"fmt\" \"net/http\" )".into()]);
        assert_eq!(go, ["package server; imports: fmt net/http"]);
        let rust =
            context_lines(&["use std::fmt;".into(), "pub use crate::ast::{Expr, Stmt};".into()]);
        assert_eq!(rust, ["imports: std::fmt, crate::ast::{Expr, Stmt}"]);
    }
}

#[cfg(test)]
mod plain_patterns {
    use tree_sitter::{Query, QueryCursor, StreamingIterator};

    use crate::{config, languages, query_source};

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
                            let wrapped = |caps: &[(config::Role, tree_sitter::Node<'_>)]| {
                                caps.iter().find(|c| c.0 == config::Role::Wrapped).map(|c| c.1.id())
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
                                        (config::role_of(name).expect("known capture"), c.node)
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
