//! The atom builder (the walk over a syntax tree, not the CLI's walk over folders): one query pass over the syntax tree, then one walk that turns items
//! into symbol atoms, bodies into members or statements, and the text between them into gaps.

use std::ops::Range;

use cleave_core::{Atom, AtomKind, AtomLabel, Boundary};
use tree_sitter::{Node, StreamingIterator, Tree, TreeCursor};

use crate::capture::{InjectName, ItemKind, Role};
use crate::config::{LanguageConfig, Start};
use crate::context::ParseContext;
use crate::context::ts_range;
use crate::idmap::IdMap;
use crate::registry::Language;
use crate::scan::fold;

/// Nodes smaller than this stay leaves: the packer splits them at lines if it must.
const OPEN_MIN: usize = 256;
/// Deepest nesting of generic (non-item) nodes turned into atoms.
const MAX_DEPTH: usize = 96;
/// Deepest nesting of macro bodies parsed as items.
const MAX_EXPAND: usize = 3;
/// Longest label and signature kept, in bytes.
const MAX_LABEL: usize = 96;
const MAX_SIGNATURE: usize = 150;
/// Most import text kept for headers, in bytes, and the width of one context line.
const MAX_CONTEXT: usize = 320;
const CONTEXT_LINE: usize = 100;

/// What a matched item pattern says about one node.
#[derive(Clone, Copy)]
struct ItemMatch<'t> {
    pattern: usize,
    kind: ItemKind,
    name: Option<Node<'t>>,
    keyword: Option<Node<'t>>,
    qualifier: Option<Node<'t>>,
    body: Option<Node<'t>>,
    /// For an injection, the node that names its language (`lang="ts"`).
    language: Option<Node<'t>>,
}

/// Roles of nodes that are not items.
#[derive(Clone, Copy)]
enum Mark<'t> {
    Comment,
    Attach,
    Import,
    Expand { body: Node<'t> },
    Wrapper { inner: Node<'t>, keyword: Option<Node<'t>>, ambiguous: bool },
}

/// How strongly the entries of one container are separated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Level {
    Item,
    Member,
    Statement,
}

impl Level {
    fn boundary(self, blank_before: bool) -> Boundary {
        match (self, blank_before) {
            (Level::Item, true) => Boundary::Item,
            (Level::Item, false) | (Level::Member, true) => Boundary::Member,
            (Level::Member, false) | (Level::Statement, true) => Boundary::Paragraph,
            (Level::Statement, false) => Boundary::Statement,
        }
    }
}

/// Entries of one container while they are collected.
struct Acc {
    out: Vec<Atom>,
    is_import: Vec<bool>,
    /// A run of leading comments and attributes waiting for the item below it.
    lead: Option<Range<usize>>,
    /// Where the attributes that end the lead start (after its last comment), if it ends with
    /// attributes: they stay with the item when its doc comment is detached.
    attach: Option<usize>,
    prev_end: usize,
}

impl Acc {
    fn push(&mut self, atom: Atom) {
        self.prev_end = atom.range.end;
        self.out.push(atom);
        self.is_import.push(false);
    }
}

pub(crate) struct Builder<'a, 't> {
    text: &'a str,
    bytes: &'a [u8],
    language: &'static Language,
    config: &'static LanguageConfig,
    items: IdMap<ItemMatch<'t>>,
    /// Start bytes of all item nodes, sorted: small nodes holding items are opened anyway,
    /// so that every item is a symbol.
    item_starts: Vec<usize>,
    marks: IdMap<Mark<'t>>,
    /// Import statements seen at the top level, whitespace folded.
    pub(crate) imports: Vec<String>,
    /// The top-level import atoms (consecutive imports merged), in order.
    pub(crate) top_imports: Vec<Range<usize>>,
    expand_depth: usize,
    /// The children of every node the pre-pass entered, `kids[start..end]` by node id: the
    /// entries walk reads them here instead of stepping a tree cursor through them again
    /// (each step costs hundreds of instructions).
    kids: Vec<Node<'t>>,
    children: IdMap<(u32, u32)>,
}

impl<'a, 't> Builder<'a, 't> {
    /// Runs the query once over `root` and indexes the matches by node.
    pub(crate) fn new(
        text: &'a str,
        language: &'static Language,
        config: &'static LanguageConfig,
        root: Node<'t>,
        ctx: &mut ParseContext,
        expand_depth: usize,
    ) -> Self {
        let mut builder = Self {
            text,
            bytes: text.as_bytes(),
            language,
            config,
            items: IdMap::default(),
            item_starts: Vec::new(),
            marks: IdMap::default(),
            imports: Vec::new(),
            top_imports: Vec::new(),
            expand_depth,
            kids: Vec::new(),
            children: IdMap::default(),
        };
        // The query runs only at the nodes a pattern can start at, each time with a start
        // depth of zero: the same matches as one pass over the whole tree, without the cursor
        // stepping through every expression with its in-progress states.
        ctx.cursor.set_max_start_depth(Some(0));
        let mut plain_cursor = root.walk();
        let mut caps = crate::pattern::Captures::new(builder.bytes);
        // Depth first, in document order: (next, end) in `kids` of each entered node.
        let mut frames: Vec<(usize, usize)> = Vec::new();
        let mut node = root;
        loop {
            let mut wrapper = false;
            match config.start(node.kind_id()) {
                Start::Never => {}
                Start::Direct { pattern, role } => builder.record_bare(node, pattern, role),
                Start::Query => wrapper = builder.run_query(node, ctx),
                Start::Run { from, to, query } => {
                    caps.clear();
                    for &p in &config.plain_order[usize::from(from)..usize::from(to)] {
                        let (pattern, step) = &config.plain[usize::from(p)];
                        // An item already matched by an earlier pattern (a method, by its
                        // parent's pattern) keeps that match: a later item pattern at the
                        // node could not replace it.
                        if step.root_item()
                            && builder.items.get(&node.id()).is_some_and(|m| m.pattern < *pattern)
                        {
                            continue;
                        }
                        if step.anchored() {
                            step.each_child_match(node, &mut plain_cursor, &mut caps, |c| {
                                wrapper |= builder.record_captures(*pattern, c);
                            });
                            continue;
                        }
                        if step.fans_out() {
                            step.each_fan_match(node, &mut plain_cursor, &mut caps, |c| {
                                wrapper |= builder.record_captures(*pattern, c);
                            });
                            continue;
                        }
                        caps.caps.clear();
                        if step.matches(node, &mut plain_cursor, &mut caps) {
                            wrapper |= builder.record_captures(*pattern, &caps.caps);
                        }
                    }
                    if query {
                        wrapper |= builder.run_query(node, ctx);
                    }
                }
            }
            // Below a node on one line, items change no cut (a line is never cut while it
            // fits) and the node is never opened for its size: only a wrapper's item
            // (`export function f() {}`) and error regions are looked for there. The root is
            // always entered: a file (or a section) on one line still has its items.
            let one_line = node.start_position().row == node.end_position().row;
            let descend = !one_line || wrapper || node.has_error() || node.id() == root.id();
            if descend && node.child_count() > 0 {
                frames.push(builder.load_children(node, &caps, &mut plain_cursor));
            }
            let next = loop {
                let Some(top) = frames.last_mut() else { break None };
                if top.0 < top.1 {
                    top.0 += 1;
                    break Some(builder.kids[top.0 - 1]);
                }
                frames.pop();
            };
            match next {
                Some(n) => node = n,
                None => break,
            }
        }
        builder.item_starts.sort_unstable();
        builder.item_starts.dedup();
        builder
    }

    /// Stores the children of `node`, taken from the patterns' scratch stack when a pattern
    /// loaded them (at this node or, since the last start node, above it), else read with
    /// `cursor`: their range in `kids`.
    fn load_children(
        &mut self,
        node: Node<'t>,
        caps: &crate::pattern::Captures<'t, '_>,
        cursor: &mut TreeCursor<'t>,
    ) -> (usize, usize) {
        let start = self.kids.len();
        if let Some(loaded) = caps.loaded_kids(node) {
            self.kids.extend(loaded);
        } else {
            crate::pattern::push_children(node, cursor, &mut self.kids);
        }
        let end = self.kids.len();
        if let (Ok(s), Ok(e)) = (u32::try_from(start), u32::try_from(end)) {
            self.children.insert(node.id(), (s, e));
        }
        (start, end)
    }

    /// The children of `node`: as the pre-pass stored them, or read now.
    fn children_of(&self, node: Node<'t>) -> Vec<Node<'t>> {
        if let Some(&(s, e)) = self.children.get(&node.id()) {
            return self.kids[s as usize..e as usize].to_vec();
        }
        let mut cursor = node.walk();
        node.children(&mut cursor).collect()
    }

    /// Indexes the match of a bare `(kind) @capture` pattern, without running the query.
    fn record_bare(&mut self, node: Node<'t>, pattern: usize, role: Role) {
        if let Role::Atom(kind) = role {
            let item = ItemMatch {
                pattern,
                kind,
                name: None,
                keyword: None,
                qualifier: None,
                body: None,
                language: None,
            };
            self.record_item(node, item);
        } else {
            self.record_mark(node, role);
        }
    }

    /// Indexes an item; where several patterns match one node, the first pattern wins.
    fn record_item(&mut self, node: Node<'t>, item: ItemMatch<'t>) {
        self.item_starts.push(node.start_byte());
        self.items
            .entry(node.id())
            .and_modify(|old| {
                if item.pattern < old.pattern {
                    *old = item;
                }
            })
            .or_insert(item);
    }

    /// Indexes a comment, attachment or import mark; other roles need their own captures.
    fn record_mark(&mut self, node: Node<'t>, role: Role) {
        let mark = match role {
            Role::Comment => Mark::Comment,
            Role::Attach => Mark::Attach,
            Role::Import => Mark::Import,
            _ => return,
        };
        self.marks.insert(node.id(), mark);
    }

    /// Runs the query at `node` and indexes its matches; whether one made the node a wrapper.
    fn run_query(&mut self, node: Node<'t>, ctx: &mut ParseContext) -> bool {
        let Some(query) = &self.config.query else { return false };
        let mut wrapper = false;
        let mut matches = ctx.cursor.matches(query, node, self.bytes);
        while let Some(m) = matches.next() {
            wrapper |= self.record(m);
        }
        wrapper
    }

    /// Indexes the captures of a plain pattern's match; whether it made the node a wrapper.
    fn record_captures(&mut self, pattern: usize, caps: &[(Role, Node<'t>)]) -> bool {
        let captures = caps.iter().copied();
        self.record_parts(pattern, captures)
    }

    /// Indexes one match by node; whether it made the node a wrapper.
    fn record(&mut self, m: &tree_sitter::QueryMatch<'_, 't>) -> bool {
        let config = self.config;
        let pattern = config.query_patterns[m.pattern_index];
        let captures = m.captures().iter().map(|c| (config.roles[c.index as usize], c.node));
        self.record_parts(pattern, captures)
    }

    /// Indexes one match, given as (role, node) captures, by node.
    fn record_parts(
        &mut self,
        pattern: usize,
        captures: impl Iterator<Item = (Role, Node<'t>)>,
    ) -> bool {
        let mut main: Option<(Role, Node<'t>)> = None;
        let (mut name, mut keyword, mut qualifier, mut body, mut wrapped, mut language) =
            (None, None, None, None, None, None);
        for (role, node) in captures {
            match role {
                Role::Name => name = Some(node),
                Role::Keyword => keyword = Some(node),
                Role::Qualifier => qualifier = Some(node),
                Role::Body => body = Some(node),
                Role::Wrapped => wrapped = Some(node),
                Role::Language => language = Some(node),
                _ => main = Some((role, node)),
            }
        }
        let Some((role, node)) = main else { return false };
        match role {
            Role::Atom(kind) => {
                let item = ItemMatch { pattern, kind, name, keyword, qualifier, body, language };
                self.record_item(node, item);
            }
            Role::Comment | Role::Attach | Role::Import => self.record_mark(node, role),
            Role::Expand => {
                if let Some(body) = body {
                    self.item_starts.push(node.start_byte());
                    self.marks.insert(node.id(), Mark::Expand { body });
                }
            }
            Role::Wrapper => {
                let Some(inner) = wrapped else { return false };
                self.marks
                    .entry(node.id())
                    .and_modify(|old| {
                        if let Mark::Wrapper { inner: i, ambiguous, .. } = old
                            && i.id() != inner.id()
                        {
                            *ambiguous = true;
                        }
                    })
                    .or_insert(Mark::Wrapper { inner, keyword, ambiguous: false });
                return true;
            }
            _ => {}
        }
        false
    }

    /// Whether an item starts strictly inside `range` (after its first byte).
    fn holds_item(&self, range: Range<usize>) -> bool {
        let i = self.item_starts.partition_point(|&s| s <= range.start);
        self.item_starts.get(i).is_some_and(|&s| s < range.end)
    }

    /// Whether a node is worth opening into children: large and on several lines, or
    /// holding items.
    fn worth_opening(&self, node: Node<'t>, range: &Range<usize>, depth: usize) -> bool {
        if depth >= MAX_DEPTH {
            return false;
        }
        let multiline = node.start_position().row != node.end_position().row;
        (multiline && range.len() >= OPEN_MIN) || self.holds_item(node.byte_range())
    }

    fn slice(&self, range: Range<usize>) -> &'a str {
        &self.text[range]
    }

    // ---- entries -----------------------------------------------------------------------

    /// The children of an atom covering `within`, built from the children of `parent`: items,
    /// statements and imports as entries, everything else as gaps.
    fn entries(
        &mut self,
        parent: Node<'t>,
        within: Range<usize>,
        level: Level,
        depth: usize,
        ctx: &mut ParseContext,
    ) -> Vec<Atom> {
        let mut acc = Acc {
            out: Vec::new(),
            is_import: Vec::new(),
            lead: None,
            attach: None,
            prev_end: within.start,
        };
        self.visit(parent, &within, level, depth, ctx, &mut acc);
        self.fill(within, acc.out, level)
    }

    /// Adds the entries among the children of `parent` to `acc`. A multi-line child that
    /// starts in the middle of a line (`if x {` … `}`) is no entry of its own: its children
    /// join the list, so that cuts fall at line starts.
    fn visit(
        &mut self,
        parent: Node<'t>,
        within: &Range<usize>,
        level: Level,
        depth: usize,
        ctx: &mut ParseContext,
        acc: &mut Acc,
    ) {
        let kids = self.children_of(parent);
        // The index of the next named child, moved forward only: each child is looked at once
        // (looking ahead afresh from every child was quadratic in a node of many unnamed
        // children: an ERROR node of 40,000 parentheses took 6 s).
        let mut next_named = 0;
        for (idx, &node) in kids.iter().enumerate() {
            let (s, e) = (node.start_byte(), self.content_end(node));
            if s < acc.prev_end || e > within.end || s >= e {
                continue;
            }
            if next_named <= idx {
                next_named = idx + 1;
                while kids.get(next_named).is_some_and(|k| !k.is_named()) {
                    next_named += 1;
                }
            }
            // Separators after an entry are taken in, up to the next named node.
            let ceil =
                kids.get(next_named).map_or(within.end, |k| k.start_byte().clamp(e, within.end));
            let mark = self.marks.get(&node.id()).copied();
            let item = self.items.get(&node.id()).copied();
            match (item, mark) {
                (None, Some(Mark::Comment | Mark::Attach)) => {
                    let comment = matches!(mark, Some(Mark::Comment));
                    if comment
                        && acc.lead.is_none()
                        && let Some(last) = acc.out.last_mut()
                        && last.range.end > 0
                        && self.bytes[last.range.end - 1] != b'\n'
                        && !self.bytes[last.range.end..s].contains(&b'\n')
                    {
                        // A trailing comment stays on its line.
                        let end = self.expand_end(e, ceil);
                        extend(last, end);
                        acc.prev_end = end;
                    } else {
                        let (lead, attach) = match acc.lead.take() {
                            Some(l) if !has_blank_line(&self.bytes[l.end..s]) => {
                                (l.start..e, acc.attach)
                            }
                            _ => (s..e, None),
                        };
                        acc.lead = Some(lead);
                        acc.attach = if comment { None } else { attach.or(Some(s)) };
                    }
                }
                (None, Some(Mark::Import)) => {
                    let start = self.lead_start(&mut acc.lead, s, acc.prev_end);
                    let end = self.expand_end(e, ceil);
                    if depth == 0 {
                        self.add_import(s..e);
                    }
                    let merge = acc.is_import.last() == Some(&true)
                        && acc.out.last().is_some_and(|l| {
                            self.bytes[l.range.end..start].iter().all(u8::is_ascii_whitespace)
                        });
                    if merge {
                        let last = acc.out.last_mut().expect("checked");
                        last.range.end = end;
                        if depth == 0
                            && let Some(top) = self.top_imports.last_mut()
                        {
                            top.end = end;
                        }
                    } else {
                        let boundary =
                            self.boundary_before(acc.prev_end, start, level, acc.out.is_empty());
                        acc.out.push(Atom::gap(start..end).with_boundary(boundary));
                        acc.is_import.push(true);
                        if depth == 0 {
                            self.top_imports.push(start..end);
                        }
                    }
                    acc.prev_end = end;
                }
                (None, None) if node.is_named() && !node.is_error() => {
                    let start = self.lead_start_peek(&acc.lead, s, acc.prev_end);
                    if !self.at_line_start(start) {
                        // Mid-line: open it in place if it spans lines, else leave it to a gap.
                        let multiline = node.start_position().row != node.end_position().row;
                        if multiline && depth < MAX_DEPTH {
                            self.visit(node, within, level, depth + 1, ctx, acc);
                        }
                        continue;
                    }
                    let start = self.lead_start(&mut acc.lead, s, acc.prev_end);
                    let end = self.expand_end(e, ceil);
                    let boundary =
                        self.boundary_before(acc.prev_end, start, level, acc.out.is_empty());
                    let atom = self.block(node, start..end, depth, ctx);
                    acc.push(atom.with_boundary(boundary));
                }
                (_, _) if node.is_named() || item.is_some() => {
                    // The item proper starts at its attributes, or at the node: a leading doc
                    // comment is detached from it when the two do not fit together.
                    let attach = acc.lead.as_ref().and(acc.attach.take());
                    let start = self.lead_start(&mut acc.lead, s, acc.prev_end);
                    let core = self.expand_start(attach.unwrap_or(s), start).max(start);
                    let end = self.expand_end(e, ceil);
                    let boundary =
                        self.boundary_before(acc.prev_end, start, level, acc.out.is_empty());
                    let range = start..end;
                    let atom = if node.is_error() {
                        self.error_region(node, range, depth, ctx)
                    } else if let Some(item) = item {
                        self.symbol(node, item, None, range, core, depth, ctx)
                    } else {
                        match mark {
                            Some(Mark::Wrapper { inner, keyword, ambiguous: false })
                                if self.items.contains_key(&inner.id()) =>
                            {
                                let item = self.items[&inner.id()];
                                self.symbol(inner, item, keyword, range, core, depth, ctx)
                            }
                            Some(Mark::Expand { body }) => {
                                self.expand(node, body, range, depth, ctx)
                            }
                            _ => self.block(node, range, depth, ctx),
                        }
                    };
                    acc.push(atom.with_boundary(boundary));
                }
                _ => {}
            }
        }
    }

    /// Where a node's text ends, without the blank lines and indentation that some grammars
    /// take into a node (tree-sitter-scala's indented blocks end where the next item starts):
    /// an entry ends on its own last line, so the next one starts at a line start.
    fn content_end(&self, node: Node<'t>) -> usize {
        let (s, e) = (node.start_byte(), node.end_byte());
        let mut i = e;
        while i > s && self.bytes[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        // A single line end (a line comment's own newline) is the node's; a blank line or
        // the next line's indentation is not.
        let tail = &self.bytes[i..e];
        let newlines = tail.iter().filter(|&&b| b == b'\n').count();
        let indented = tail.last().is_some_and(|&b| b == b' ' || b == b'\t');
        if i > s && (newlines >= 2 || newlines == 1 && indented) { i } else { e }
    }

    fn at_line_start(&self, pos: usize) -> bool {
        pos == 0 || self.bytes[pos - 1] == b'\n'
    }

    /// [`Self::lead_start`] without taking the lead.
    fn lead_start_peek(&self, lead: &Option<Range<usize>>, s: usize, floor: usize) -> usize {
        let mut lead = lead.clone();
        self.lead_start(&mut lead, s, floor)
    }

    /// Where an entry starting at `s` starts once its leading comments and attributes and its
    /// indentation are taken in.
    /// A doc comment (`/** … */`, `/// …`) belongs to the item below it even across blank
    /// lines, as javadoc, rustdoc and JSDoc read it, unless it opens the file (a file header).
    fn lead_start(&self, lead: &mut Option<Range<usize>>, s: usize, floor: usize) -> usize {
        let start = match lead.take() {
            Some(l)
                if l.start >= floor
                    && (!has_blank_line(&self.bytes[l.end..s])
                        || (l.start > 0 && is_doc_comment(&self.bytes[l.start..l.end]))) =>
            {
                l.start
            }
            _ => s,
        };
        self.expand_start(start, floor)
    }

    /// Back to the start of the line when only indentation precedes `pos`.
    fn expand_start(&self, pos: usize, floor: usize) -> usize {
        let mut i = pos;
        while i > floor && matches!(self.bytes[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        if i == 0 || self.bytes[i - 1] == b'\n' { i } else { pos }
    }

    /// On to the end of the line (newline included) when only separators follow `pos`.
    fn expand_end(&self, pos: usize, ceil: usize) -> usize {
        let mut i = pos;
        while i < ceil && matches!(self.bytes[i], b' ' | b'\t' | b',' | b';' | b'\r') {
            i += 1;
        }
        if i < ceil && self.bytes[i] == b'\n' {
            i + 1
        } else if i == ceil && ceil == self.bytes.len() {
            ceil
        } else {
            pos
        }
    }

    /// The boundary before an entry at `start`; the first entry of a body sticks to the
    /// item's head.
    fn boundary_before(
        &self,
        prev_end: usize,
        start: usize,
        level: Level,
        first: bool,
    ) -> Boundary {
        let at_line_start = start == 0 || self.bytes[start - 1] == b'\n';
        if !at_line_start {
            return Boundary::Word;
        }
        if first && level != Level::Item {
            return Boundary::Line;
        }
        // The newline that ends the previous entry counts: "}\n\nfn" has a blank line.
        let before = &self.bytes[prev_end.saturating_sub(1).min(start)..start];
        let blank = has_blank_line(before);
        let content =
            self.bytes[prev_end.min(start)..start].iter().any(|b| !b.is_ascii_whitespace());
        level.boundary(blank || content)
    }

    /// Fills the holes between entries with gaps: blank lines stick to what precedes them;
    /// free comments and other text start a new group.
    fn fill(&self, within: Range<usize>, entries: Vec<Atom>, level: Level) -> Vec<Atom> {
        let mut out = Vec::with_capacity(entries.len() * 2 + 1);
        let mut at = within.start;
        for entry in entries {
            if entry.range.start > at {
                self.hole(at..entry.range.start, level, false, &mut out);
            }
            at = entry.range.end;
            out.push(entry);
        }
        if at < within.end {
            self.hole(at..within.end, level, true, &mut out);
        }
        out
    }

    fn hole(&self, range: Range<usize>, level: Level, tail: bool, out: &mut Vec<Atom>) {
        // Leading whitespace-only lines.
        let mut blank_end = range.start;
        let mut i = range.start;
        while i < range.end {
            match self.bytes[i] {
                b'\n' => {
                    blank_end = i + 1;
                    i += 1;
                }
                b' ' | b'\t' | b'\r' => i += 1,
                _ => break,
            }
        }
        if i == range.end {
            blank_end = range.end;
        }
        if blank_end > range.start {
            out.push(Atom::gap(range.start..blank_end).with_boundary(Boundary::Line));
        }
        if blank_end < range.end {
            let closing = matches!(self.bytes[i], b'}' | b')' | b']');
            let boundary = if !self.at_line_start(blank_end) {
                Boundary::Word
            } else if closing || tail && level != Level::Item {
                Boundary::Line
            } else {
                let before = &self.bytes[range.start.saturating_sub(1)..blank_end];
                level.boundary(has_blank_line(before))
            };
            out.push(Atom::gap(blank_end..range.end).with_boundary(boundary));
        }
    }

    // ---- atoms -------------------------------------------------------------------------

    /// A symbol atom for an item: labelled, a scope, its body opened into members or
    /// statements. When leading comments precede the item proper at `core` (its attributes or
    /// its first line), they are detached: the symbol holds the comments and the item proper
    /// as two children, and the item proper stays whole while it fits the budget, so a doc
    /// comment too long to share a chunk with its item is cut from it, never the item.
    #[allow(clippy::too_many_arguments)]
    fn symbol(
        &mut self,
        node: Node<'t>,
        item: ItemMatch<'t>,
        outer_keyword: Option<Node<'t>>,
        range: Range<usize>,
        core: usize,
        depth: usize,
        ctx: &mut ParseContext,
    ) -> Atom {
        let label = self.label(node, &item, outer_keyword);
        let level = if item.kind.has_statements() { Level::Statement } else { Level::Member };
        let detached = core > range.start && core < range.end && self.at_line_start(core);
        let within = if detached { core..range.end } else { range.clone() };
        let injected = match item.kind {
            ItemKind::Inject(default) => self.inject(&item, default, &within, ctx),
            _ => None,
        };
        let children = match item.body {
            _ if injected.is_some() => injected.unwrap_or_default(),
            _ if !self.worth_opening(node, &range, depth) => Vec::new(),
            Some(body) if body.start_byte() >= within.start && body.end_byte() <= within.end => {
                self.entries(body, within.clone(), level, depth + 1, ctx)
            }
            _ => self.entries(node, within.clone(), Level::Statement, depth + 1, ctx),
        };
        let children = match children.len() {
            1 => children.into_iter().next().expect("one child").children,
            _ => children,
        };
        let children = if detached {
            vec![
                Atom::gap(range.start..core),
                Atom::item_proper(within, children).with_boundary(Boundary::Line),
            ]
        } else {
            children
        };
        Atom::new(AtomKind::Symbol, range)
            .with_scope(true)
            .with_label(label)
            .with_children(children)
    }

    /// An injected region (`<script lang="ts">` in Vue): the body parsed on its own with the
    /// language the pattern names, or the one its `@language` node names by registry name or
    /// extension; that parse's atoms tile the body, between the region's head and tail.
    /// `None` (the region is then a plain item) when the language is unknown or not in this
    /// build, or injections nest too deep.
    fn inject(
        &mut self,
        item: &ItemMatch<'t>,
        default: InjectName,
        within: &Range<usize>,
        ctx: &mut ParseContext,
    ) -> Option<Vec<Atom>> {
        let body = item.body?;
        let (s, e) = (body.start_byte(), body.end_byte());
        if self.expand_depth >= MAX_EXPAND || s >= e || s < within.start || e > within.end {
            return None;
        }
        let language = match item.language {
            Some(node) => injected_language(self.slice(node.byte_range()))?,
            None => crate::registry::language_by_name(default.as_str())?,
        };
        let config = language.config().ok()?;
        // A region in a markup language (`<script lang="html">`) is bounded as a file is.
        if self
            .text
            .get(s..e)
            .is_none_or(|body| crate::tags::too_deep_to_parse(language, body).is_some())
        {
            return None;
        }
        let tree = ctx.parse_ranges(language, self.text, &[ts_range(self.text, s..e)])?;
        let root = tree.root_node();
        let mut builder =
            Builder::new(self.text, language, config, root, ctx, self.expand_depth + 1);
        let inner = builder.root(root, s..e, ctx);
        for import in builder.imports {
            if self.imports.iter().map(String::len).sum::<usize>() < MAX_CONTEXT {
                self.imports.push(import);
            }
        }
        let mut all = Vec::with_capacity(inner.len() + 2);
        all.push(Atom::gap(within.start..s));
        all.extend(inner);
        all.push(Atom::gap(e..within.end).with_boundary(Boundary::Line));
        all.retain(|a| !a.range.is_empty());
        Some(all)
    }

    /// A block for a statement or other node: opened into its own children when large.
    fn block(
        &mut self,
        node: Node<'t>,
        range: Range<usize>,
        depth: usize,
        ctx: &mut ParseContext,
    ) -> Atom {
        let atom = Atom::new(AtomKind::Block, range.clone());
        if !self.worth_opening(node, &range, depth) {
            return atom;
        }
        let mut children = self.entries(node, range, Level::Statement, depth + 1, ctx);
        match children.len() {
            // A wrapper (`expression_statement` around a call): its child covers it all.
            1 => children.pop().expect("one child"),
            0 => atom,
            _ => atom.with_children(children),
        }
    }

    /// A region under a parse error: the items tree-sitter still recognised in it are atoms,
    /// the rest falls back to blank-line blocks of lines.
    fn error_region(
        &mut self,
        node: Node<'t>,
        range: Range<usize>,
        depth: usize,
        ctx: &mut ParseContext,
    ) -> Atom {
        if depth >= MAX_DEPTH || !self.holds_item(range.start.saturating_sub(1)..range.end) {
            return self.recover(range, ctx);
        }
        let children = self.entries(node, range.clone(), Level::Item, depth + 1, ctx);
        let out = self.recover_gaps(children, ctx);
        Atom::new(AtomKind::Block, range).with_children(out)
    }

    /// The text an error region swallowed between the items tree-sitter still recognised in
    /// it (kotlin-ng gives up on the rest of a file after one stray bracket) is parsed again
    /// where it is large or holds a blank line, as [`Self::recover`] does, so that the items after a bad line are
    /// atoms again.
    fn recover_gaps(&mut self, children: Vec<Atom>, ctx: &mut ParseContext) -> Vec<Atom> {
        let mut out = Vec::with_capacity(children.len());
        for child in children {
            let bytes = &self.bytes[child.range.clone()];
            if child.kind == AtomKind::Gap && (bytes.len() >= OPEN_MIN || has_blank_line(bytes)) {
                out.push(self.recover(child.range.clone(), ctx).with_boundary(child.boundary));
            } else {
                out.push(child);
            }
        }
        out
    }

    /// An error region with no items in it: tree-sitter may have swallowed good code after the
    /// bad line. Parse the region again from each of its next few blank-line blocks on; the
    /// first parse that finds items keeps them, and only the text before it falls back.
    fn recover(&mut self, range: Range<usize>, ctx: &mut ParseContext) -> Atom {
        if self.expand_depth >= MAX_EXPAND {
            return self.fallback(range, ctx);
        }
        let blocks = cleave_core::blocks(self.text, range.clone());
        for block in blocks.iter().skip(1).take(3) {
            let start = block.range.start;
            let parsed = ctx.parse_ranges(
                self.language,
                self.text,
                &[ts_range(self.text, start..range.end)],
            );
            let Some(tree) = parsed else { break };
            let children = expand_tree(
                self.text,
                self.language,
                self.config,
                &tree,
                start..range.end,
                self.expand_depth + 1,
                0.5,
                ctx,
            );
            if let Some(children) = children {
                let mut all = Vec::with_capacity(children.len() + 1);
                all.push(self.fallback(range.start..start, ctx));
                all.extend(children);
                return Atom::new(AtomKind::Block, range).with_children(all);
            }
        }
        self.fallback(range, ctx)
    }

    /// A region under a parse error: blank-line blocks of lines, as plain text.
    fn fallback(&self, range: Range<usize>, ctx: &mut ParseContext) -> Atom {
        ctx.fallback_bytes += range.len();
        self.lines(range)
    }

    /// Blank-line blocks of lines over `range`.
    fn lines(&self, range: Range<usize>) -> Atom {
        let mut blocks = cleave_core::blocks(self.text, range.clone());
        let children =
            if blocks.len() == 1 { std::mem::take(&mut blocks[0].children) } else { blocks };
        Atom::new(AtomKind::Block, range).with_children(children)
    }

    /// A macro invocation whose body holds items: the body is parsed as source on its own.
    fn expand(
        &mut self,
        node: Node<'t>,
        body: Node<'t>,
        range: Range<usize>,
        depth: usize,
        ctx: &mut ParseContext,
    ) -> Atom {
        let (s, e) = (body.start_byte(), body.end_byte());
        let multiline = body.start_position().row != body.end_position().row;
        if self.expand_depth >= MAX_EXPAND || e - s < 3 || !multiline {
            return self.block(node, range, depth, ctx);
        }
        let inner = s + 1..e - 1;
        let start_point = tree_sitter::Point {
            row: body.start_position().row,
            column: body.start_position().column + 1,
        };
        let end_point = tree_sitter::Point {
            row: body.end_position().row,
            column: body.end_position().column.saturating_sub(1),
        };
        let range_ts = tree_sitter::Range {
            start_byte: inner.start,
            end_byte: inner.end,
            start_point,
            end_point,
        };
        let parsed = ctx.parse_ranges(self.language, self.text, &[range_ts]);
        let Some(tree) = parsed else { return self.block(node, range, depth, ctx) };
        match expand_tree(
            self.text,
            self.language,
            self.config,
            &tree,
            inner.clone(),
            self.expand_depth + 1,
            0.1,
            ctx,
        ) {
            Some(children) => {
                let mut all = Vec::with_capacity(children.len() + 2);
                all.push(Atom::gap(range.start..inner.start));
                all.extend(children);
                all.push(Atom::gap(inner.end..range.end).with_boundary(Boundary::Line));
                all.retain(|a| !a.range.is_empty());
                Atom::new(AtomKind::Block, range).with_children(all)
            }
            None => self.block(node, range, depth, ctx),
        }
    }

    // ---- labels ------------------------------------------------------------------------

    fn label(
        &self,
        node: Node<'t>,
        item: &ItemMatch<'t>,
        outer_keyword: Option<Node<'t>>,
    ) -> AtomLabel {
        let name = item.name.map(|n| clean_name(self.slice(n.byte_range())));
        let name = match (name, item.qualifier) {
            (Some(name), Some(q)) => {
                let q = clean_name(self.slice(q.byte_range()));
                Some(format!("{q}{}{name}", self.language.separator))
            }
            (name, _) => name,
        };
        let head_end = item.body.map_or_else(
            || self.line_end(node.start_byte()).min(node.end_byte()),
            |b| b.start_byte().max(node.start_byte()),
        );
        let label_start = item
            .keyword
            .or(outer_keyword)
            .or(item.name)
            .map_or(node.start_byte(), |k| k.start_byte());
        let label_end = item.name.map_or(head_end, |n| n.end_byte());
        let label = if label_start < label_end {
            fold(self.slice(label_start..label_end), MAX_LABEL)
        } else {
            name.clone().unwrap_or_default()
        };
        // A container's scope line already names it: its signature (bases, bounds) gets less
        // room in every header than a function's parameters.
        let max = if item.kind.has_statements() { MAX_SIGNATURE } else { MAX_SIGNATURE * 2 / 3 };
        let signature = self.signature(node.start_byte(), head_end, max);
        AtomLabel { label, name, signature: Some(signature).filter(|s| !s.is_empty()) }
    }

    /// The item's head, without the annotation lines above it or the comment lines between
    /// it and its body (Python's `def f():` then `# …` lines before the first statement), on
    /// one line.
    fn signature(&self, start: usize, end: usize, max: usize) -> String {
        let mut head = self.slice(start..end.max(start));
        while head.starts_with('@') || head.starts_with("#[") {
            match head.split_once('\n') {
                Some((_, rest)) if !rest.trim().is_empty() => head = rest,
                _ => break,
            }
        }
        let mut head = head.trim_end();
        while let Some((before, last)) = head.rsplit_once('\n')
            && self.is_comment_line(last)
        {
            head = before.trim_end();
        }
        let head = head.trim_end_matches('{').trim_end();
        fold(head, max)
    }

    /// Whether `line` holds only a comment: it starts with the language's line comment token
    /// or is a line of a block comment (`/* …`, ` * …`).
    fn is_comment_line(&self, line: &str) -> bool {
        let line = line.trim_start();
        line.starts_with(self.language.comment)
            || line.starts_with("/*")
            || (line.starts_with('*') && self.language.comment == "//")
    }

    fn line_end(&self, pos: usize) -> usize {
        self.bytes[pos..].iter().position(|&b| b == b'\n').map_or(self.bytes.len(), |i| pos + i)
    }

    fn add_import(&mut self, range: Range<usize>) {
        let used: usize = self.imports.iter().map(String::len).sum();
        if used >= MAX_CONTEXT {
            return;
        }
        self.imports.push(fold(self.slice(range), CONTEXT_LINE));
    }

    /// The whole tree under `root`, tiling `range`.
    pub(crate) fn root(
        &mut self,
        root: Node<'t>,
        range: Range<usize>,
        ctx: &mut ParseContext,
    ) -> Vec<Atom> {
        let children = self.entries(root, range, Level::Item, 0, ctx);
        // A file whose root is itself an error region: the same recovery as one below it.
        if root.is_error() { self.recover_gaps(children, ctx) } else { children }
    }

    /// For a run of members parsed between its top-level item's head and tail (see
    /// `atomize_code_in_sections`): the entries of the members within `within`, as the whole
    /// parse gives them when a member list goes on across `within.start`. `members` spans the
    /// whole member list (every run's); the item must be a top-level item whose body holds it.
    /// `None` when the tree is not shaped so.
    pub(crate) fn continued_members(
        &mut self,
        root: Node<'t>,
        members: Range<usize>,
        within: Range<usize>,
        ctx: &mut ParseContext,
    ) -> Option<Vec<Atom>> {
        let (body, item, _) = self.body_around(root, members)?;
        let level = if item.kind.has_statements() { Level::Statement } else { Level::Member };
        let mut acc = Acc {
            out: Vec::new(),
            is_import: Vec::new(),
            lead: None,
            attach: None,
            prev_end: within.start,
        };
        self.visit(body, &within, level, 1, ctx, &mut acc);
        // The first entry follows the last member of the run before, not the body's start.
        if let Some(first) = acc.out.first_mut() {
            first.boundary = self.boundary_before(within.start, first.range.start, level, false);
        }
        Some(self.fill(within, acc.out, level))
    }

    /// The body node that holds `members` and the match of its item, a child of the root
    /// (or of a wrapper that is one).
    /// Where the item around `members` ends as an entry of the root: its node's end and the
    /// rest of that line, up to `ceil`.
    pub(crate) fn item_end(
        &self,
        root: Node<'t>,
        members: Range<usize>,
        ceil: usize,
    ) -> Option<usize> {
        let (_, _, node) = self.body_around(root, members)?;
        Some(self.expand_end(node.end_byte(), ceil))
    }

    /// Gap atoms for text after the last entry of the root, as `fill` makes them.
    pub(crate) fn root_tail(&self, range: Range<usize>) -> Vec<Atom> {
        let mut out = Vec::new();
        if !range.is_empty() {
            self.hole(range, Level::Item, true, &mut out);
        }
        out
    }

    fn body_around(
        &self,
        root: Node<'t>,
        members: Range<usize>,
    ) -> Option<(Node<'t>, ItemMatch<'t>, Node<'t>)> {
        let mut node = root.descendant_for_byte_range(members.start, members.end)?;
        loop {
            if let Some(item) = self.items.get(&node.id())
                && let Some(body) = item.body
                && body.start_byte() <= members.start
                && body.end_byte() >= members.end
            {
                let parent = node.parent()?;
                if parent.id() == root.id() {
                    return Some((body, *item, node));
                }
                let wrapped = self.marks.contains_key(&parent.id())
                    && parent.parent().is_some_and(|p| p.id() == root.id());
                return wrapped.then_some((body, *item, parent));
            }
            node = node.parent()?;
        }
    }
}

/// The language an injection's `@language` node names: its value (after `=`, without quotes:
/// `lang="ts"` → `ts`) as a registry name or a file extension.
fn injected_language(text: &str) -> Option<&'static Language> {
    let value = text.rsplit('=').next().unwrap_or(text);
    let value = value.trim().trim_matches(['"', '\'', '`']).trim();
    if value.is_empty() || value.contains(['/', '\\']) {
        return None;
    }
    crate::registry::language_by_name(value)
        .or_else(|| crate::registry::language_for_path(&format!("x.{value}")))
}

/// Atomizes the items of a macro body parsed on its own; `None` when it holds no items or
/// parses badly, so the caller keeps the body as a plain block.
#[allow(clippy::too_many_arguments)] // reason: the builder's state, passed to a fresh builder
fn expand_tree(
    text: &str,
    language: &'static Language,
    config: &'static LanguageConfig,
    tree: &Tree,
    inner: Range<usize>,
    expand_depth: usize,
    max_error_share: f64,
    ctx: &mut ParseContext,
) -> Option<Vec<Atom>> {
    let root = tree.root_node();
    if root.has_error() && error_bytes(root) as f64 > inner.len() as f64 * max_error_share {
        return None;
    }
    let mut builder = Builder::new(text, language, config, root, ctx, expand_depth);
    if builder.items.is_empty() {
        return None;
    }
    let children = builder.entries(root, inner, Level::Member, 1, ctx);
    (!children.is_empty()).then_some(children)
}

/// Bytes under outermost ERROR nodes (MISSING nodes are empty). Iterative: error trees can be
/// deep.
pub(crate) fn error_bytes(root: Node<'_>) -> usize {
    if !root.has_error() {
        return 0;
    }
    let mut total = 0;
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let descend = if node.is_error() {
            total += node.end_byte() - node.start_byte();
            false
        } else {
            node.has_error()
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return total;
            }
        }
    }
}

/// Grows an atom to `end`, giving an opened atom a trailing gap for the new bytes.
fn extend(atom: &mut Atom, end: usize) {
    if end <= atom.range.end {
        return;
    }
    if !atom.children.is_empty() {
        atom.children.push(Atom::gap(atom.range.end..end).with_boundary(Boundary::Line));
    }
    atom.range.end = end;
}

/// Whether a comment is an outer doc comment: `/**` (not `/**/`) or `///` (not `////`).
fn is_doc_comment(comment: &[u8]) -> bool {
    (comment.starts_with(b"/**") && !comment.starts_with(b"/**/"))
        || (comment.starts_with(b"///") && !comment.starts_with(b"////"))
}

fn has_blank_line(bytes: &[u8]) -> bool {
    let mut newlines = 0;
    for &b in bytes {
        match b {
            b'\n' => {
                newlines += 1;
                if newlines >= 2 {
                    return true;
                }
            }
            b' ' | b'\t' | b'\r' => {}
            _ => newlines = 0,
        }
    }
    false
}

/// A name without generics, pointers or quotes: `Wrapper<T>` → `Wrapper`, `*Server` → `Server`,
/// and C++'s `Cache<V>::put` → `Cache::put`: a `<…>` group is dropped and the name goes on
/// only where `::` follows it; elsewhere the name ends at the group, as it always did.
fn clean_name(text: &str) -> String {
    let text = text.trim().trim_start_matches(['*', '&']);
    let end = text.find(['[', '(', '\n']).unwrap_or(text.len());
    let text = &text[..end];
    let mut name = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        name.push_str(&rest[..open]);
        let mut depth = 0usize;
        let close = rest[open..].char_indices().find_map(|(i, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(open + i)
        });
        match close.map(|c| &rest[c + 1..]) {
            Some(after) if after.starts_with("::") => rest = after,
            _ => {
                rest = "";
                break;
            }
        }
    }
    name.push_str(rest);
    let name = name.trim().trim_matches(['"', '\'', '`']);
    fold(name, MAX_LABEL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_generics_and_pointers() {
        assert_eq!(clean_name("Wrapper<T>"), "Wrapper");
        assert_eq!(clean_name("*Server"), "Server");
        assert_eq!(clean_name("List[T]"), "List");
        assert_eq!(clean_name("\"my-module\""), "my-module");
        assert_eq!(clean_name("Cache<std::map<K, V>>::put"), "Cache::put");
        assert_eq!(clean_name("operator<"), "operator");
        assert_eq!(clean_name("operator->"), "operator->");
        assert_eq!(clean_name("dyn Erased<'a> + 'a"), "dyn Erased");
    }

    #[test]
    fn fold_caps_at_char_boundaries() {
        assert_eq!(fold("a\n   b\tc", 10), "a b c");
        let long = "é".repeat(100);
        let folded = fold(&long, 11);
        assert!(folded.ends_with('…'));
        assert!(folded.len() <= 14);
    }

    #[test]
    fn blank_lines_are_found() {
        assert!(has_blank_line(b"x\n\ny"));
        assert!(has_blank_line(b"x\n  \t\ny"));
        assert!(!has_blank_line(b"x\n// c\ny"));
    }
}
