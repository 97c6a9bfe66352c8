//! `ParseContext`: the per-thread parser and query cursor (tags' split between a compiled
//! `LanguageConfig`, shared, and the parsing state, one per worker thread), and the
//! tree-sitter ranges of parts of a text that partial parses take.

use std::ops::Range;

use std::ops::ControlFlow;

use tree_sitter::{ParseOptions, ParseState, Parser, QueryCursor, Tree};

use crate::registry::Language;

/// Per-thread parsing state (parser and query cursor), built once per worker thread.
pub struct ParseContext {
    parser: Parser,
    pub(crate) cursor: QueryCursor,
    /// Name of the language the parser is set to.
    current: Option<&'static str>,
    /// Bytes of the current file that fell back to line packing.
    pub(crate) fallback_bytes: usize,
    /// Parses of the current file stopped at their [step budget](parse_step_budget).
    pub(crate) stopped_parses: usize,
    /// Progress checks the current file's parses may still take, all together.
    checks_left: u64,
    /// Whether the last stopped parse ran out of the file's budget rather than its own.
    pub(crate) stopped_by_file: bool,
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
        Self {
            parser: Parser::new(),
            cursor: QueryCursor::new(),
            current: None,
            fallback_bytes: 0,
            stopped_parses: 0,
            checks_left: u64::MAX,
            stopped_by_file: false,
        }
    }

    /// Starts a file of `bytes` bytes: its counts are zero, and its parses together may take
    /// [`FILE_BUDGETS`] times the step budget of one parse of the whole file.
    pub(crate) fn start_file(&mut self, bytes: usize) {
        self.fallback_bytes = 0;
        self.stopped_parses = 0;
        self.checks_left = parse_step_budget(bytes).saturating_mul(FILE_BUDGETS);
        self.stopped_by_file = false;
    }

    fn set_language(&mut self, language: &'static Language) -> bool {
        if self.current == Some(language.name) {
            return true;
        }
        let Some(grammar) = language.tree_sitter_language() else { return false };
        let ok = self.parser.set_language(&grammar).is_ok();
        self.current = ok.then_some(language.name);
        ok
    }

    /// Parses `text` whole.
    pub(crate) fn parse(&mut self, language: &'static Language, text: &str) -> Option<Tree> {
        self.reparse(language, text, None)
    }

    /// Parses `text` whole, reusing the subtrees of `old`, an earlier parse of a part of the
    /// same text (see [`parse_ranges_reusing`](Self::parse_ranges_reusing)).
    pub(crate) fn reparse(
        &mut self,
        language: &'static Language,
        text: &str,
        old: Option<&Tree>,
    ) -> Option<Tree> {
        if !self.set_language(language) {
            return None;
        }
        self.parser.reset();
        self.run(text, old, text.len())
    }

    /// Parses only `ranges` of `text`; node offsets stay those of the whole text.
    pub(crate) fn parse_ranges(
        &mut self,
        language: &'static Language,
        text: &str,
        ranges: &[tree_sitter::Range],
    ) -> Option<Tree> {
        self.parse_ranges_reusing(language, text, ranges, None)
    }

    /// [`parse_ranges`](Self::parse_ranges), reusing the subtrees of `old`: an earlier parse
    /// of the same, unedited text over other included ranges. tree-sitter reuses a node of it
    /// only where the included ranges of both parses agree over the node and the bytes its
    /// lexer looked ahead at, so the tree is the one a fresh parse gives, built for less.
    pub(crate) fn parse_ranges_reusing(
        &mut self,
        language: &'static Language,
        text: &str,
        ranges: &[tree_sitter::Range],
        old: Option<&Tree>,
    ) -> Option<Tree> {
        if !self.set_language(language) {
            return None;
        }
        // A part of a file whose grammar starts outside code (PHP's HTML) is parsed after the
        // file's first opening tag, as the whole parse reads it.
        let with_prelude = prelude_range(language, text, ranges).map(|p| {
            let mut all = Vec::with_capacity(ranges.len() + 1);
            all.push(p);
            all.extend_from_slice(ranges);
            all
        });
        let ranges = with_prelude.as_deref().unwrap_or(ranges);
        if self.parser.set_included_ranges(ranges).is_err() {
            return None;
        }
        self.parser.reset();
        let bytes = ranges.iter().map(|r| r.end_byte - r.start_byte).sum();
        let tree = self.run(text, old, bytes);
        // An empty list means the whole document again; it cannot fail.
        let _ = self.parser.set_included_ranges(&[]);
        tree
    }
}

/// How many progress checks a parse of `bytes` bytes may take before it is stopped: 64 plus
/// one per 4 bytes. tree-sitter checks progress every 100 parse operations, so this is 6,400
/// operations plus 25 per byte. Counted in operations, not time, so that where a parse stops
/// is the same on every machine and at any thread count. On the 18 bench corpora (16,395
/// parses, `bench/runs/2026-11-28-parse-budget.txt`) the most any parse took is 0.036 checks
/// per byte, seven times below the bound; error recovery that does not end (tree-sitter-kotlin-ng
/// on a 2,186-byte range of a fuzzed file: 484,424 checks, 113 s) passes it within 0.2 s.
/// How many step budgets of a parse of the whole file all parses of one file may take
/// together (sections, retries, recoveries and injected regions). On the bench corpora the most
/// any file took is 0.145 of one; a file whose every parse runs to its own budget stops within
/// a bounded number of operations per byte all the same.
const FILE_BUDGETS: u64 = 2;

pub(crate) fn parse_step_budget(bytes: usize) -> u64 {
    64 + bytes as u64 / 4
}

impl ParseContext {
    /// Parses `text` (within the included ranges set, `bytes` bytes of it), stopping when
    /// the parse passes its [step budget](parse_step_budget): then `None`, and the stop is
    /// counted in [`stopped_parses`](Self::stopped_parses).
    fn run(&mut self, text: &str, old: Option<&Tree>, bytes: usize) -> Option<Tree> {
        let own = parse_step_budget(bytes);
        let budget = own.min(self.checks_left);
        let mut checks = 0u64;
        let mut progress = |_: &ParseState| {
            checks += 1;
            if checks > budget { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        };
        let source = text.as_bytes();
        let tree = self.parser.parse_with_options(
            &mut |at, _| source.get(at..).unwrap_or_default(),
            old,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        self.checks_left -= checks.min(budget);
        if tree.is_none() {
            // A stopped parse is kept for resumption; the next one must start afresh.
            self.parser.reset();
            self.stopped_parses += 1;
            self.stopped_by_file = budget < own;
        }
        tree
    }
}

/// The range of `language`'s prelude (the first `<?php` of the file and the white space byte
/// after it) when it ends before the first of `ranges`.
fn prelude_range(
    language: &Language,
    text: &str,
    ranges: &[tree_sitter::Range],
) -> Option<tree_sitter::Range> {
    let prelude = language.prelude?;
    let first = ranges.first()?;
    let start = text.get(..first.start_byte)?.find(prelude)?;
    let mut end = start + prelude.len();
    if text.as_bytes().get(end).is_some_and(u8::is_ascii_whitespace) {
        end += 1;
    }
    (end <= first.start_byte).then(|| ts_range(text, start..end))
}

/// The tree-sitter ranges of ascending, disjoint `ranges`, rows counted in one pass.
pub(crate) fn ts_ranges(text: &str, ranges: &[Range<usize>]) -> Vec<tree_sitter::Range> {
    let bytes = text.as_bytes();
    let (mut at, mut row, mut line_start) = (0, 0, 0);
    let mut point = |to: usize| {
        for i in memchr::memchr_iter(b'\n', &bytes[at..to]) {
            row += 1;
            line_start = at + i + 1;
        }
        at = to;
        tree_sitter::Point { row, column: to - line_start }
    };
    ranges
        .iter()
        .map(|r| {
            let start_point = point(r.start);
            let end_point = point(r.end);
            tree_sitter::Range { start_byte: r.start, end_byte: r.end, start_point, end_point }
        })
        .collect()
}

/// The tree-sitter range of `range`, with rows and columns counted in `text`.
pub(crate) fn ts_range(text: &str, range: Range<usize>) -> tree_sitter::Range {
    let point = |at: usize| {
        let before = &text.as_bytes()[..at];
        let row = before.iter().filter(|&&b| b == b'\n').count();
        let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        tree_sitter::Point { row, column }
    };
    tree_sitter::Range {
        start_byte: range.start,
        end_byte: range.end,
        start_point: point(range.start),
        end_point: point(range.end),
    }
}
