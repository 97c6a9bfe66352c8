//! The packer: turns an atom tree into chunks that tile the source and fit the budget.
//!
//! It works in three steps.
//!
//! 1. **Flatten.** Walk the tree from the root and keep every atom that fits the budget (with
//!    the header of the scope it starts in) as one *piece*; open the atoms that do not fit and
//!    walk their children; split leaves that do not fit at lines (a line after a sentence's
//!    end or a blank line parts as sentences do), then words, then chars. The pieces tile the
//!    source, and every piece fits on its own.
//! 2. **Segment.** Group consecutive pieces into chunks by dynamic programming over the piece
//!    boundaries: fewest chunks first, then cuts at the strongest boundaries, then balanced
//!    sizes ([`Cuts::Balanced`]) or full chunks and the rest in one ([`Cuts::Fill`]), with a
//!    penalty on crumbs. Then a cut may move back to a stronger boundary, within the unit the
//!    chunk after it starts in, when only that chunk's signature line was in the way: its
//!    header keeps the path and the scope line, and the number of chunks stays.
//! 3. **Verify.** Render every header and measure every chunk exactly. Sizes come from one
//!    prefix table per file ([`RangeSizes`]: a BPE count splits exactly at clean line starts),
//!    so no text is tokenized twice; a piece's size is exact, but a chunk's pieces can still
//!    merge across their seams, and a header may come out longer than reserved. A chunk over
//!    the budget is cut shorter, or its single piece is opened further, until all fit.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;

use crate::atom::{Atom, AtomKind, AtomTree, Boundary};
use crate::chunk::{Chunk, Part, chunk_id};
use crate::config::{ChunkConfig, Cuts};
use crate::header::{self, HeaderFacts};
use crate::ranges::RangeSizes;
use crate::sizer::ChunkSizer;
use crate::text::{Source, line_ends};

/// What each chunk costs the segmentation: it dominates the other terms, so the packer first
/// keeps the number of chunks low, then picks good cut points among equally short answers.
const CHUNK_COST: u64 = 10_000;
/// What a chunk's header giving up its signature line costs the segmentation: less than the
/// gain of cutting between statement blocks rather than after a block's first line (1,200 -
/// 300), more than that of a paragraph over a statement boundary (600 - 300).
const SIGNATURE_COST: u64 = 400;
/// Extra cost of a chunk filled below 5 % of its room.
const CRUMB_COST: u64 = 6_000;
/// Most the balance term can add to one chunk (an empty chunk).
const BALANCE_COST: f64 = 1_000.0;
/// With [`Cuts::Fill`], what an empty chunk costs (see [`full_cost`]): filling a nearly full
/// chunk a tenth more is worth about 400, a cut at a paragraph (300) rather than between
/// items, not one inside a statement list (600).
const FILL_COST: f64 = 2_000.0;
/// Widest look-back of the segmentation, in pieces.
const MAX_WINDOW: usize = 2_048;
/// Verify-and-repair rounds before the last resort (headerless, exact greedy split).
const MAX_ROUNDS: usize = 24;
/// Part numbers reserved in headers while packing: up to `99/99`, or wider for an atom large
/// enough to fill more chunks (see [`widest_part`]). An atom cut into more parts than reserved
/// gets a longer header than reserved; exact verification then repairs its chunks.
const RESERVED_PART: usize = 99;

/// Chunks `source` along `tree` under `config`. Never fails, never panics on a valid tree:
/// the bodies tile the source, and every header + body is within the budget.
///
/// An invalid tree (children that do not tile their parent) is replaced by a flat one, so
/// even then nothing is lost; [`Atom::validate`] tells atomizers what is wrong.
pub fn pack(source: &Source<'_>, tree: &AtomTree, config: &ChunkConfig) -> Vec<Chunk> {
    if source.is_empty() {
        return Vec::new();
    }
    let fallback;
    let root = if tree.root.range == (0..source.len()) && tree.root.validate(source.text()).is_ok()
    {
        &tree.root
    } else {
        fallback = Atom::new(AtomKind::Block, 0..source.len());
        &fallback
    };
    let mut packer = Packer::new(source, tree, config);
    packer.flatten_root(root);
    let spans = packer.segment_all();
    let spans = packer.verify(spans);
    let spans = packer.apply_overlap(spans, root);
    packer.records(root, spans)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Grain {
    Atom,
    Lines,
    Words,
    Chars,
}

#[derive(Debug, Clone)]
struct Piece<'t> {
    range: Range<usize>,
    /// Exact size of the piece's text alone.
    size: usize,
    /// Strength of the boundary before this piece.
    boundary: Boundary,
    grain: Grain,
    /// The atom this piece is, for `Grain::Atom`.
    atom: Option<&'t Atom>,
    /// Interned stack of opened atoms around the piece (ones starting with it included).
    stack: u32,
    /// Interned scope: the opened atoms that start strictly before the piece.
    scope: u32,
    /// Most units the header of a chunk starting here may take: the configured share, or
    /// less for an integral atom that fits the budget only with a shorter header (nothing cut
    /// in half comes first).
    cap: usize,
}

/// The packer's small keyed caches: keys are ids and short id lists, hashed often, so a fast
/// fixed hash rather than SipHash (no key comes from input an attacker could shape).
type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// A chunk under construction: pieces `pieces`, body `range` (widened by overlap at the end).
#[derive(Debug, Clone)]
struct Span {
    pieces: Range<usize>,
    range: Range<usize>,
    header: String,
    size: usize,
    /// A header cap below its first piece's, for a chunk whose cut was moved back at the cost
    /// of its signature line (see `move_cuts_back`).
    cap: Option<usize>,
}

struct Packer<'s, 't> {
    source: &'s Source<'s>,
    tree: &'t AtomTree,
    config: &'t ChunkConfig,
    sizer: &'t dyn ChunkSizer,
    additive: bool,
    /// Room for header + body: the budget less the overlap.
    room: usize,
    pieces: Vec<Piece<'t>>,
    /// Atoms opened because they did not fit, by index.
    opened: Vec<&'t Atom>,
    opened_index: Map<*const Atom, u32>,
    stacks: Vec<Vec<u32>>,
    stack_index: Map<Vec<u32>, u32>,
    scopes: Vec<Vec<u32>>,
    scope_index: Map<Vec<u32>, u32>,
    /// Reserved header size per scope and header cap, filled lazily.
    reserved: Map<(u32, usize), usize>,
    /// [`Self::header_tail`] per scope, filled lazily.
    tails: Map<u32, (String, usize)>,
    /// [`Self::located_header`] per scope, filled lazily.
    located: Map<u32, usize>,
    /// The size of each labelled atom's signature lines alone, filled lazily.
    signature_sizes: RefCell<Map<*const Atom, usize>>,
    /// The configured header cap.
    full_cap: usize,
    /// Exact sizes of ranges of the source.
    ranges: RangeSizes<'s, 't>,
}

impl<'s, 't> Packer<'s, 't> {
    fn new(source: &'s Source<'s>, tree: &'t AtomTree, config: &'t ChunkConfig) -> Self {
        let sizer = config.sizer();
        let mut packer = Self {
            source,
            tree,
            config,
            sizer,
            additive: sizer.is_additive(),
            room: config.budget() - config.overlap(),
            pieces: Vec::new(),
            opened: Vec::new(),
            opened_index: Map::default(),
            stacks: Vec::new(),
            stack_index: Map::default(),
            scopes: Vec::new(),
            scope_index: Map::default(),
            reserved: Map::default(),
            tails: Map::default(),
            located: Map::default(),
            signature_sizes: RefCell::default(),
            full_cap: config.header_cap(),
            ranges: RangeSizes::new(source.text(), source.line_starts(), sizer),
        };
        packer.intern_stack(Vec::new());
        packer.intern_scope(Vec::new());
        packer
    }

    fn text(&self, range: Range<usize>) -> &'s str {
        &self.source.text()[range]
    }

    fn intern_stack(&mut self, stack: Vec<u32>) -> u32 {
        if let Some(&id) = self.stack_index.get(&stack) {
            return id;
        }
        let id = self.stacks.len() as u32;
        self.stacks.push(stack.clone());
        self.stack_index.insert(stack, id);
        id
    }

    fn intern_scope(&mut self, scope: Vec<u32>) -> u32 {
        if let Some(&id) = self.scope_index.get(&scope) {
            return id;
        }
        let id = self.scopes.len() as u32;
        self.scopes.push(scope.clone());
        self.scope_index.insert(scope, id);
        id
    }

    fn open(&mut self, atom: &'t Atom) -> u32 {
        let key = atom as *const Atom;
        if let Some(&id) = self.opened_index.get(&key) {
            return id;
        }
        let id = self.opened.len() as u32;
        self.opened.push(atom);
        self.opened_index.insert(key, id);
        id
    }

    /// The scope of a piece starting at `start` inside `stack`.
    fn scope_at(&mut self, stack: &[u32], start: usize) -> u32 {
        let scope: Vec<u32> = stack
            .iter()
            .copied()
            .filter(|&o| self.opened[o as usize].range.start < start)
            .collect();
        self.intern_scope(scope)
    }

    // ---- sizes -------------------------------------------------------------------------

    fn size(&self, range: Range<usize>) -> usize {
        self.ranges.size(range)
    }

    // ---- headers -----------------------------------------------------------------------

    /// The innermost opened atom of a scope that has a label: its signature and part number go
    /// into the header.
    fn innermost_labelled(&self, scope: u32) -> Option<&'t Atom> {
        self.scopes[scope as usize]
            .iter()
            .rev()
            .map(|&o| self.opened[o as usize])
            .find(|a| a.label.is_some())
    }

    /// The header of a chunk starting in `scope`, at most `cap` units, without context lines
    /// (`verify` adds them where the body leaves room).
    fn render_header(&self, scope: u32, part: Option<(usize, usize)>, cap: usize) -> String {
        self.render_header_with(scope, part, cap, true)
    }

    /// [`Self::render_header`], with or without the innermost scope's signature line.
    fn render_header_with(
        &self,
        scope: u32,
        part: Option<(usize, usize)>,
        cap: usize,
        with_signature: bool,
    ) -> String {
        if !self.config.headers() || cap == 0 {
            return String::new();
        }
        let chain: Vec<&str> = self.scopes[scope as usize]
            .iter()
            .map(|&o| self.opened[o as usize])
            .filter(|a| a.is_scope)
            .filter_map(Atom::label_text)
            .collect();
        let inner = self.innermost_labelled(scope);
        let label = inner.and_then(|a| a.label.as_deref());
        let signature = label
            .and_then(|l| l.signature.as_deref())
            .filter(|_| with_signature)
            .filter(|sig| inner.is_some_and(|atom| self.signature_size(atom, sig) <= cap));
        let part = match (part, label) {
            (Some((k, n)), Some(l)) => Some((k, n, l.label.as_str())),
            _ => None,
        };
        let facts = HeaderFacts {
            path: self.source.path(),
            scope: &chain,
            signature,
            part,
            context: &[],
            context_share: self.context_share(),
        };
        header::render(&facts, &self.tree.comment, self.sizer, cap)
    }

    /// The size of `atom`'s signature lines alone, counted once per atom. A signature that
    /// alone outgrows a header's cap is left out of it without counting the header with it:
    /// a table's head row of kilobytes, repeated in the header of each of its parts, was
    /// counted again for every candidate header of every part. (Leaving it out is what counting
    /// the header with it would decide wherever a text's size never falls when more is put
    /// before it: bytes, chars, the estimate, and the OpenAI vocabularies, whose pre-tokenizers
    /// split where a header's last line break meets a signature's comment marker, or merge
    /// them into a piece no shorter in tokens; for another tokenizer it is assumed.)
    fn signature_size(&self, atom: &Atom, sig: &str) -> usize {
        let key = atom as *const Atom;
        if let Some(&size) = self.signature_sizes.borrow().get(&key) {
            return size;
        }
        let mut lines = String::with_capacity(sig.len() + 64);
        header::push_signature(&mut lines, &self.tree.comment, sig);
        let size = self.sizer.size(&lines);
        self.signature_sizes.borrow_mut().insert(key, size);
        size
    }

    /// Most units context lines may add to a header: about 4 % of the budget, a sixth of the
    /// header's share.
    fn context_share(&self) -> usize {
        self.full_cap / 6
    }

    /// The header size reserved while packing a chunk that starts in `scope`: the header
    /// without context lines (they only fill the room a chunk leaves), the largest over part
    /// numbers `k/n` of every width up to [`widest_part`] (`9/99`, `99/99`, `9/999`, …). (A
    /// shorter part number can leave room for the signature line, or the path, that a longer
    /// one crowds out, so the widest part is not always the largest header.)
    fn reserved_header(&mut self, scope: u32, cap: usize) -> usize {
        if let Some(&size) = self.reserved.get(&(scope, cap)) {
            return size;
        }
        let size = if let Some(atom) = self.innermost_labelled(scope) {
            let widest = widest_part(self.size(atom.range.clone()), self.room);
            let nines = std::iter::successors(Some(9usize), |&n| {
                (n < widest).then(|| n.saturating_mul(10).saturating_add(9))
            });
            let parts: Vec<(usize, usize)> = nines
                .clone()
                .flat_map(|n| nines.clone().take_while(move |&k| k <= n).map(move |k| (k, n)))
                .chain([(1, 1), (1, 10)])
                .collect();
            parts
                .into_iter()
                .map(|part| self.sizer.size(&self.render_header(scope, Some(part), cap)))
                .max()
                .unwrap_or(0)
        } else {
            self.sizer.size(&self.render_header(scope, None, cap))
        };
        self.reserved.insert((scope, cap), size);
        size
    }

    /// The header reserved for a chunk starting in `scope` without its signature line: the
    /// path and the scope line with the widest part number, what locates the chunk.
    fn located_header(&mut self, scope: u32) -> usize {
        if let Some(&size) = self.located.get(&scope) {
            return size;
        }
        let size = match self.innermost_labelled(scope) {
            Some(atom) => {
                let widest = widest_part(self.size(atom.range.clone()), self.room);
                let header =
                    self.render_header_with(scope, Some((widest, widest)), self.full_cap, false);
                self.sizer.size(&header)
            }
            None => self.reserved_header(scope, self.full_cap),
        };
        self.located.insert(scope, size);
        size
    }

    /// The last line of a header in `scope` (with its newline) and its size: the header that
    /// [`Self::reserved_header`] reserves for, whose last line all part numbers share but for
    /// the signature line a wider one may crowd out. Empty with headers off.
    fn header_tail(&mut self, scope: u32) -> (String, usize) {
        if let Some(tail) = self.tails.get(&scope) {
            return tail.clone();
        }
        let part = self.innermost_labelled(scope).map(|_| (1, 1));
        let header = self.render_header(scope, part, self.full_cap);
        let body = header.strip_suffix('\n').unwrap_or(&header);
        let tail = header[body.rfind('\n').map_or(0, |i| i + 1)..].to_owned();
        let size = self.sizer.size(&tail);
        self.tails.insert(scope, (tail.clone(), size));
        (tail, size)
    }

    // ---- flatten -----------------------------------------------------------------------

    fn flatten_root(&mut self, root: &'t Atom) {
        let mut stack = Vec::new();
        self.emit(root, Boundary::Section, &mut stack);
    }

    /// Emits the pieces of `atom`: the atom itself if it fits, else the pieces of its children.
    fn emit(&mut self, atom: &'t Atom, boundary: Boundary, stack: &mut Vec<u32>) {
        let stack_id = self.intern_stack(stack.clone());
        let scope = self.scope_at(stack, atom.range.start);
        self.emit_in(atom, boundary, stack, stack_id, scope);
    }

    /// [`Self::emit`] with the interned stack and the atom's scope already known: siblings
    /// share them, so a parent computes them once for all its children but the first.
    fn emit_in(
        &mut self,
        atom: &'t Atom,
        boundary: Boundary,
        stack: &mut Vec<u32>,
        stack_id: u32,
        scope: u32,
    ) {
        let size = self.size(atom.range.clone());
        let room = self.room.saturating_sub(self.reserved_header(scope, self.full_cap));
        // Integrity over header: a symbol, section or protected region that fits the budget
        // only with a shorter header gets exactly the room its text leaves, down to no header
        // at all (the record's scope still locates it); other atoms are opened instead, which
        // keeps the header.
        let fit = if size <= room {
            Some((size, self.full_cap))
        } else if atom.is_integral() && size <= self.room {
            Some((size, self.full_cap.min(self.room - size)))
        } else {
            None
        };
        if let Some((size, cap)) = fit {
            self.pieces.push(Piece {
                range: atom.range.clone(),
                size,
                boundary,
                grain: Grain::Atom,
                atom: Some(atom),
                stack: stack_id,
                scope,
                cap,
            });
            return;
        }
        let opened = self.open(atom);
        stack.push(opened);
        if atom.children.is_empty() {
            self.split(atom.range.clone(), boundary, Grain::Lines, stack);
        } else {
            let inner_stack = self.intern_stack(stack.clone());
            // Every child but the first starts after every atom on the stack.
            let inner_scope = self.intern_scope(stack.clone());
            for (i, child) in atom.children.iter().enumerate() {
                if i == 0 {
                    self.emit(child, boundary, stack);
                } else {
                    self.emit_in(child, child.boundary, stack, inner_stack, inner_scope);
                }
            }
        }
        stack.pop();
    }

    /// Splits text that does not fit into pieces of `grain`, going finer where a piece still
    /// does not fit.
    fn split(&mut self, range: Range<usize>, boundary: Boundary, grain: Grain, stack: &[u32]) {
        let stack_id = self.intern_stack(stack.to_vec());
        let text = self.source.text();
        let parts: Vec<Range<usize>> = match grain {
            Grain::Atom | Grain::Lines => line_ranges(text, range.clone()),
            Grain::Words => split_words(text, range.clone()),
            Grain::Chars => Vec::new(),
        };
        if grain == Grain::Chars {
            self.split_chars(range, boundary, stack);
            return;
        }
        let (grain, inner) = match grain {
            Grain::Atom | Grain::Lines => (Grain::Lines, Boundary::Line),
            _ => (Grain::Words, Boundary::Word),
        };
        // Words are grouped into runs of up to a sixteenth of the budget: cutting between words
        // needs no finer choice, and it keeps the segmentation's work linear.
        let group = if grain == Grain::Words { self.room / 16 } else { 0 };
        let mut run: Option<Piece<'t>> = None;
        // Parts after the first start after every atom on the stack.
        let inner_scope = self.intern_scope(stack.to_vec());
        for (i, part) in parts.iter().cloned().enumerate() {
            let b = match i.checked_sub(1).map(|p| parts[p].clone()) {
                None => boundary,
                Some(prev) if grain == Grain::Lines => {
                    line_boundary(&text[prev], &text[part.clone()])
                }
                Some(_) => inner,
            };
            let scope = if i == 0 { self.scope_at(stack, part.start) } else { inner_scope };
            let room = self.room.saturating_sub(self.reserved_header(scope, self.full_cap));
            let size = self.size(part.clone());
            if size > room {
                if let Some(r) = run.take() {
                    self.pieces.push(r);
                }
                let finer = if grain == Grain::Lines { Grain::Words } else { Grain::Chars };
                self.split(part, b, finer, stack);
                continue;
            }
            if let Some(r) = run.as_mut() {
                let merged =
                    if self.additive { r.size + size } else { self.size(r.range.start..part.end) };
                if merged <= group {
                    r.range.end = part.end;
                    r.size = merged;
                    continue;
                }
                let done = run.take();
                self.pieces.extend(done);
            }
            run = Some(Piece {
                range: part,
                size,
                boundary: b,
                grain,
                atom: None,
                stack: stack_id,
                scope,
                cap: self.full_cap,
            });
        }
        if let Some(r) = run {
            self.pieces.push(r);
        }
    }

    /// Splits a word too long for the budget into the longest runs of chars that fit, measured
    /// exactly (never inside a UTF-8 sequence).
    fn split_chars(&mut self, range: Range<usize>, boundary: Boundary, stack: &[u32]) {
        let stack_id = self.intern_stack(stack.to_vec());
        let text = self.source.text();
        let mut start = range.start;
        let mut first = true;
        while start < range.end {
            let scope = self.scope_at(stack, start);
            let room = self.room.saturating_sub(self.reserved_header(scope, self.full_cap));
            // A char piece fills a chunk and so starts one: under a BPE, measure it after the
            // header's last line, whose last pre-token can take in the piece's first chars
            // (`-->\n/`). Measured alone, such a chunk came out a token over and its repair
            // left a one-char crumb.
            let (tail, tail_size) = self.header_tail(scope);
            let fit = |r: Range<usize>| {
                if self.additive || tail.is_empty() {
                    self.ranges.size(r)
                } else {
                    self.ranges.size_after(&tail, r).saturating_sub(tail_size)
                }
            };
            let mut end = longest_fit(text, start, range.end, room, fit);
            if end < range.end {
                // Minified code, a long path: cut where a token ends, not inside a name.
                end = token_cut(text, start, end)
                    .filter(|&cut| fit(start..cut) <= room)
                    .unwrap_or(end);
            }
            let size = self.size(start..end);
            let b = if first { boundary } else { Boundary::Char };
            self.pieces.push(Piece {
                range: start..end,
                size,
                boundary: b,
                grain: Grain::Chars,
                atom: None,
                stack: stack_id,
                scope,
                cap: self.full_cap,
            });
            first = false;
            start = end;
        }
    }

    // ---- segment -----------------------------------------------------------------------

    fn segment_all(&mut self) -> Vec<Span> {
        let mut starts = self.segment(0..self.pieces.len(), 0);
        let caps = self.move_cuts_back(&mut starts);
        let mut spans = self.spans_from(&starts, self.pieces.len());
        for (span, cap) in spans.iter_mut().zip(caps) {
            span.cap = cap;
        }
        spans
    }

    /// What a chunk's shape costs the segmentation: its fill against its room.
    fn shape_cost(&self, fill: usize, chunk_room: usize) -> u64 {
        match self.config.cuts() {
            Cuts::Balanced => fill_cost(fill, chunk_room),
            Cuts::Fill => full_cost(fill, chunk_room),
        }
    }

    /// Moves cuts back to stronger boundaries where the chunk after a cut can take the pieces
    /// before it only with its header short of the signature line (the path and the scope line
    /// kept): a statement block of a function too large for one chunk stays whole instead of
    /// being cut after its first line because the repeated signature left it no room. The
    /// segmentation proper reserves the whole header, so this changes where chunks are cut,
    /// never how many there are; a move costs [`SIGNATURE_COST`], and is made only when the
    /// stronger cut and the shapes gain more.
    /// Returns, per chunk, the header cap a moved cut gave it.
    fn move_cuts_back(&mut self, starts: &mut [usize]) -> Vec<Option<usize>> {
        let mut caps = vec![None; starts.len()];
        if !self.config.headers() {
            return caps;
        }
        let end = self.pieces.len();
        for idx in 1..starts.len() {
            let (a, cut) = (starts[idx - 1], starts[idx]);
            let b_end = starts.get(idx + 1).copied().unwrap_or(end);
            let fill_a: usize = self.pieces[a..cut].iter().map(|p| p.size).sum();
            let fill_b: usize = self.pieces[cut..b_end].iter().map(|p| p.size).sum();
            let head_a = self.reserved_header(self.pieces[a].scope, self.pieces[a].cap);
            let head_b = self.reserved_header(self.pieces[cut].scope, self.pieces[cut].cap);
            let penalty_now = self.pieces[cut].boundary.cut_penalty();
            let cost_now = penalty_now
                + self.shape_cost(fill_a, self.room.saturating_sub(head_a))
                + self.shape_cost(fill_b, self.room.saturating_sub(head_b));
            // The cut moves within the unit the chunk after it starts in (up to its first
            // line, its doc comment), never back into a unit it does not start in.
            let unit = self.innermost_labelled(self.pieces[cut].scope).map(|u| u.range.start);
            let mut best = (cost_now, cut, None);
            let mut moved = 0;
            for c in (a + 1..cut).rev() {
                let within = match unit {
                    Some(start) => self.pieces[c].range.start >= start,
                    None => self.innermost_labelled(self.pieces[c].scope).is_none(),
                };
                if !within {
                    break;
                }
                moved += self.pieces[c].size;
                let fill = fill_b + moved;
                let (scope, cap, penalty) = {
                    let piece = &self.pieces[c];
                    (piece.scope, piece.cap, piece.boundary.cut_penalty())
                };
                let full = self.reserved_header(scope, cap);
                let located = self.located_header(scope).min(full);
                if fill + located > self.room {
                    break;
                }
                // Only to a stronger boundary: a header is not shortened for balance.
                if penalty >= penalty_now {
                    continue;
                }
                let (room_b, header_cost, cap) = if fill + full <= self.room {
                    (self.room - full, 0, None)
                } else {
                    (self.room - located, SIGNATURE_COST, Some(cap.min(self.room - fill)))
                };
                let cost = penalty
                    + header_cost
                    + self.shape_cost(fill_a - moved, self.room.saturating_sub(head_a))
                    + self.shape_cost(fill, room_b);
                if cost < best.0 {
                    best = (cost, c, cap);
                }
            }
            starts[idx] = best.1;
            caps[idx] = best.2;
        }
        caps
    }

    fn spans_from(&self, starts: &[usize], end: usize) -> Vec<Span> {
        let mut spans = Vec::with_capacity(starts.len());
        for (i, &s) in starts.iter().enumerate() {
            let e = starts.get(i + 1).copied().unwrap_or(end);
            let range = self.pieces[s].range.start..self.pieces[e - 1].range.end;
            spans.push(Span { pieces: s..e, range, header: String::new(), size: 0, cap: None });
        }
        spans
    }

    /// Optimal segmentation of `pieces[range]` into chunks of at most `room - shrink` units,
    /// header included. Returns the index of each chunk's first piece.
    fn segment(&mut self, range: Range<usize>, shrink: usize) -> Vec<usize> {
        let base = range.start;
        let m = range.len();
        if m == 0 {
            return Vec::new();
        }
        let headers: Vec<usize> = (base..range.end)
            .map(|i| {
                let (scope, cap) = (self.pieces[i].scope, self.pieces[i].cap);
                self.reserved_header(scope, cap)
            })
            .collect();

        let room = self.room.saturating_sub(shrink);
        let mut best = vec![u64::MAX; m + 1];
        let mut prev = vec![0usize; m + 1];
        best[0] = 0;
        for j in 1..=m {
            let cut =
                if base + j < range.end { self.pieces[base + j].boundary.cut_penalty() } else { 0 };
            let mut fill = 0usize;
            for i in (j.saturating_sub(MAX_WINDOW)..j).rev() {
                fill += self.pieces[base + i].size;
                if fill > room && i + 1 < j {
                    break;
                }
                let chunk_room = room.saturating_sub(headers[i]);
                // A single piece always forms a chunk: it was made to fit alone.
                if fill > chunk_room && i + 1 < j {
                    continue;
                }
                if best[i] == u64::MAX {
                    continue;
                }
                let cost = best[i] + CHUNK_COST + cut + self.shape_cost(fill, chunk_room);
                if cost < best[j] {
                    best[j] = cost;
                    prev[j] = i;
                }
            }
        }
        let mut starts = Vec::new();
        let mut j = m;
        while j > 0 {
            let i = prev[j];
            starts.push(base + i);
            j = i;
        }
        starts.reverse();
        starts
    }

    // ---- verify ------------------------------------------------------------------------

    /// Part `(k, n)` of the innermost labelled opened atom around each span's start.
    fn parts(&self, spans: &[Span]) -> Vec<Option<(usize, usize)>> {
        spans
            .iter()
            .enumerate()
            .map(|(idx, span)| {
                let scope = self.pieces[span.pieces.start].scope;
                let atom = self.innermost_labelled(scope)?;
                let (first, last) = overlapping(spans, &atom.range);
                Some((idx - first + 1, last - first))
            })
            .collect()
    }

    /// Renders headers, measures every chunk exactly, and repairs chunks over the budget.
    fn verify(&mut self, mut spans: Vec<Span>) -> Vec<Span> {
        let budget = self.room;
        for _ in 0..MAX_ROUNDS {
            let parts = self.parts(&spans);
            let mut over = Vec::new();
            for (idx, span) in spans.iter_mut().enumerate() {
                (span.header, span.size) = self.header_for(span, parts[idx]);
                if span.size > budget {
                    over.push(idx);
                }
            }
            if over.is_empty() {
                return spans;
            }
            // Repair from the back so that earlier indices stay valid.
            for &idx in over.iter().rev() {
                let excess = spans[idx].size - budget;
                let repaired = self.repair(&spans[idx], excess);
                let shift = repaired.iter().map(|s| s.pieces.len()).sum::<usize>() as isize
                    - spans[idx].pieces.len() as isize;
                if shift != 0 {
                    for later in &mut spans[idx + 1..] {
                        later.pieces.start = (later.pieces.start as isize + shift) as usize;
                        later.pieces.end = (later.pieces.end as isize + shift) as usize;
                    }
                }
                spans.splice(idx..idx + 1, repaired);
            }
        }
        self.last_resort(spans)
    }

    /// A span's header and exact size. Context lines fill the room the body leaves, if any;
    /// the exact measure decides.
    fn header_for(&self, span: &Span, part: Option<(usize, usize)>) -> (String, usize) {
        let first = &self.pieces[span.pieces.start];
        let (scope, cap) = (first.scope, span.cap.map_or(first.cap, |c| c.min(first.cap)));
        let bare = self.render_header(scope, part, cap);
        if self.config.headers() && !self.tree.context.is_empty() {
            let body: usize = self.pieces[span.pieces.clone()].iter().map(|p| p.size).sum();
            let room = self.room.saturating_sub(body);
            if room > self.sizer.size(&bare) {
                // The bare header fits under `cap.min(room)`, so rendering with the context
                // under it is the bare header with context lines appended.
                let mut wider = bare.clone();
                let share = self.context_share();
                let (context, style) = (&self.tree.context, &self.tree.comment);
                header::add_context(&mut wider, context, share, style, self.sizer, cap.min(room));
                if wider.len() > bare.len() {
                    let size = self.measure_chunk(&wider, span.range.clone(), &span.pieces);
                    if size <= self.room {
                        return (wider, size);
                    }
                }
            }
        }
        let size = self.measure_chunk(&bare, span.range.clone(), &span.pieces);
        (bare, size)
    }

    fn measure_chunk(&self, header: &str, range: Range<usize>, pieces: &Range<usize>) -> usize {
        let whole = !pieces.is_empty()
            && range
                == (self.pieces[pieces.start].range.start..self.pieces[pieces.end - 1].range.end);
        if self.additive && whole {
            self.sizer.size(header)
                + self.pieces[pieces.clone()].iter().map(|p| p.size).sum::<usize>()
        } else {
            self.ranges.size_after(header, range)
        }
    }

    /// Repairs one chunk `excess` units over the budget: a chunk of several pieces is cut
    /// before the pieces that make up the excess; a single piece is opened or split finer.
    fn repair(&mut self, span: &Span, excess: usize) -> Vec<Span> {
        let pieces = span.pieces.clone();
        if pieces.len() > 1 {
            let mut dropped = 0;
            let mut cut = pieces.end - 1;
            while cut > pieces.start + 1 {
                dropped += self.pieces[cut].size;
                if dropped >= excess {
                    break;
                }
                cut -= 1;
            }
            // Prefer the strongest boundary among the cuts that drop enough.
            let mut best = cut;
            for c in pieces.start + 1..=cut {
                if self.pieces[c].boundary > self.pieces[best].boundary {
                    best = c;
                }
            }
            return self.spans_from(&[pieces.start, best], pieces.end);
        }
        let piece = self.pieces[pieces.start].clone();
        // An integral atom first gives up header room, down to none (a BPE may count the seam
        // between header and body differently than the parts).
        if let (Grain::Atom, Some(atom)) = (piece.grain, piece.atom)
            && atom.is_integral()
            && piece.cap > 0
        {
            self.pieces[pieces.start].cap = piece.cap.saturating_sub(excess.max(1));
            return vec![span.clone()];
        }
        let before = self.pieces.len();
        let tail: Vec<Piece<'t>> = self.pieces.drain(pieces.start + 1..).collect();
        self.pieces.truncate(pieces.start);
        let mut stack = self.stacks[piece.stack as usize].clone();
        match (piece.grain, piece.atom) {
            (Grain::Atom, Some(atom)) if !atom.children.is_empty() => {
                let opened = self.open(atom);
                stack.push(opened);
                for (i, child) in atom.children.iter().enumerate() {
                    let b = if i == 0 { piece.boundary } else { child.boundary };
                    self.emit(child, b, &mut stack);
                }
            }
            (Grain::Atom, Some(atom)) => {
                let opened = self.open(atom);
                stack.push(opened);
                self.split(piece.range.clone(), piece.boundary, Grain::Lines, &stack);
            }
            (Grain::Atom | Grain::Lines, _) => {
                self.split(piece.range.clone(), piece.boundary, Grain::Words, &stack);
            }
            (Grain::Words | Grain::Chars, _) => {
                self.split_chars_shrunk(piece.range.clone(), piece.boundary, &stack, excess);
            }
        }
        let new_end = self.pieces.len();
        self.pieces.extend(tail);
        debug_assert!(self.pieces.len() + 1 >= before);
        // Char pieces were cut `excess` shorter because the header came out longer than the
        // reservation: the segmentation must not join them back into the same chunk.
        let shrink = if matches!(piece.grain, Grain::Words | Grain::Chars) { excess } else { 0 };
        let starts = self.segment(pieces.start..new_end, shrink);
        self.spans_from(&starts, new_end)
    }

    /// Char split with a room shrunk by `excess`, for a char-level piece whose header or seams
    /// came out larger than reserved.
    fn split_chars_shrunk(
        &mut self,
        range: Range<usize>,
        boundary: Boundary,
        stack: &[u32],
        excess: usize,
    ) {
        let saved = self.room;
        self.room = self.room.saturating_sub(excess).max(self.sizer.max_char_size() * 2);
        self.split_chars(range, boundary, stack);
        self.room = saved;
    }

    /// After `MAX_ROUNDS` of repair: any chunk still over the budget loses its header and is
    /// split greedily by exact measure. Unreachable in practice; it guards the promise.
    fn last_resort(&mut self, spans: Vec<Span>) -> Vec<Span> {
        let mut out = Vec::with_capacity(spans.len());
        for span in spans {
            let size = self.measure_chunk(&span.header, span.range.clone(), &span.pieces);
            if size <= self.room {
                out.push(Span { size, ..span });
                continue;
            }
            let mut start = span.range.start;
            while start < span.range.end {
                let end = longest_fit(self.source.text(), start, span.range.end, self.room, |r| {
                    self.ranges.size(r)
                });
                let size = self.size(start..end);
                out.push(Span {
                    pieces: span.pieces.clone(),
                    range: start..end,
                    header: String::new(),
                    size,
                    cap: None,
                });
                start = end;
            }
        }
        out
    }

    // ---- overlap -----------------------------------------------------------------------

    /// Widens each chunk backwards over up to `overlap` units of the previous chunk. The
    /// repeated prefix starts at a line or sentence start where one gives at least half the
    /// overlap a word start would, else at a word start (unwrapped prose has no line start
    /// near), and never inside a protected region the chunk does not itself start in (a
    /// stray closing fence or half a formula would open the chunk).
    fn apply_overlap(&self, mut spans: Vec<Span>, root: &Atom) -> Vec<Span> {
        let overlap = self.config.overlap();
        if overlap == 0 {
            return spans;
        }
        let budget = self.config.budget();
        let mut protected = Vec::new();
        protected_ranges(root, &mut protected);
        let text = self.source.text();
        let bytes = text.as_bytes();
        for idx in 1..spans.len() {
            let floor = spans[idx - 1].range.start;
            let start = spans[idx].range.start;
            let end = spans[idx].range.end;
            // The protected region the chunk starts inside, if any: candidates in it are fine.
            let own = enclosing(&protected, start);
            // Walk back over char boundaries; sizes only grow going back, so the walk ends at
            // the first candidate over the overlap. Candidates: (start, starts a sentence).
            let mut candidates: Vec<(usize, bool)> = Vec::new();
            let mut p = start;
            while p > floor + 1 {
                p -= 1;
                while p > floor && !text.is_char_boundary(p) {
                    p -= 1;
                }
                if p <= floor {
                    break;
                }
                let prev = bytes[p - 1];
                let line_start = prev == b'\n';
                let word_start = prev.is_ascii_whitespace() && !bytes[p].is_ascii_whitespace();
                if !word_start && !line_start {
                    continue;
                }
                if let Some(r) = enclosing(&protected, p)
                    && Some(r) != own
                {
                    continue;
                }
                if self.size(p..start) > overlap {
                    break;
                }
                candidates.push((p, line_start || ends_sentence(&text[floor..p])));
            }
            // The farthest sentence start, unless a word start repeats more than twice as much.
            let farthest = candidates.last().map_or(start, |c| c.0);
            let preferred = candidates
                .iter()
                .rposition(|c| c.1)
                .filter(|&i| 2 * (start - candidates[i].0) >= start - farthest)
                .unwrap_or(candidates.len().saturating_sub(1));
            // The exact measure decides; nearer candidates are the fallback (a BPE can count
            // the seam between header and body differently).
            for &(p, _) in candidates[..candidates.len().min(preferred + 1)].iter().rev() {
                let total = self.measure_chunk(&spans[idx].header, p..end, &(0..0));
                if total <= budget {
                    spans[idx].range = p..end;
                    spans[idx].size = total;
                    break;
                }
            }
        }
        spans
    }

    // ---- records -----------------------------------------------------------------------

    fn records(&self, root: &'t Atom, spans: Vec<Span>) -> Vec<Chunk> {
        let path = self.source.path();
        let symbols = collect_symbols(root, self.tree.separator);
        let parts = self.parts(&spans);
        let ranges: Vec<Range<usize>> = spans.iter().map(|s| s.range.clone()).collect();
        let mut labelled: Vec<&Atom> =
            self.opened.iter().copied().filter(|a| a.label.is_some()).collect();
        labelled.sort_by_key(|a| (a.range.start, std::cmp::Reverse(a.range.end)));
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut out = Vec::with_capacity(spans.len());
        for (idx, span) in spans.into_iter().enumerate() {
            let range = span.range.clone();
            let body = self.text(range.clone());
            let (line_start, line_end) = self.source.line_range(range.start, range.end);
            let scope_id =
                if span.pieces.is_empty() { 0 } else { self.pieces[span.pieces.start].scope };
            let scope: Vec<String> = self.scopes[scope_id as usize]
                .iter()
                .map(|&o| self.opened[o as usize])
                .filter(|a| a.is_scope)
                .filter_map(|a| a.label_text().map(str::to_owned))
                .collect();
            let first = symbols.partition_point(|s| s.range.start < range.start);
            let syms: Vec<String> = symbols[first..]
                .iter()
                .take_while(|s| s.range.start < range.end)
                .filter(|s| s.range.end <= range.end)
                .map(|s| s.name.clone())
                .collect();
            let part = self.part_record(parts[idx], scope_id, &range, &ranges, &labelled);
            let mut id = chunk_id(path, body);
            let n = seen.entry(id.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                id = format!("{id}-{n}");
            }
            out.push(Chunk {
                id,
                path: path.to_owned(),
                language: self.tree.language.clone(),
                kind: self.tree.content,
                byte_start: range.start,
                byte_end: range.end,
                line_start,
                line_end,
                tokens: span.size,
                symbols: syms,
                scope,
                part,
                // Provenance and classification are annotation, filled after packing from the
                // tree's regions and locations (`chunk::locate`, the prose crate's `annotate`).
                provenance: None,
                classification: None,
                header: span.header,
                text: body.to_owned(),
            });
        }
        out
    }

    fn part_record(
        &self,
        part: Option<(usize, usize)>,
        scope: u32,
        range: &Range<usize>,
        ranges: &[Range<usize>],
        labelled: &[&Atom],
    ) -> Option<Part> {
        if let (Some((k, n)), Some(atom)) = (part, self.innermost_labelled(scope)) {
            return Some(Part {
                index: k,
                count: n,
                of: atom.label_text().unwrap_or_default().to_owned(),
                protected: atom.protected,
            });
        }
        // The first part of an opened atom starts outside it: find the outermost labelled opened
        // atom that starts in this chunk and ends after it (the list is sorted by start, longest
        // first).
        let from = labelled.partition_point(|a| a.range.start < range.start);
        let atom = labelled[from..]
            .iter()
            .take_while(|a| a.range.start < range.end)
            .find(|a| a.range.end > range.end)?;
        let first = ranges.partition_point(|r| r.end <= atom.range.start);
        let end = ranges.partition_point(|r| r.start < atom.range.end);
        Some(Part {
            index: 1,
            count: end - first,
            of: atom.label_text().unwrap_or_default().to_owned(),
            protected: atom.protected,
        })
    }
}

/// The widest part number to reserve in the headers of an opened atom of `size` units, chunks
/// having `room`: all nines, at least [`RESERVED_PART`], and at least the number of chunks the
/// atom fills at half the room. Without it, every chunk from the hundredth part of a large atom
/// on came out a few units over the budget, and the repair cut each into a full chunk and a
/// crumb (a 10 MB one-line paragraph inside a section gave twice the chunks, half of them
/// crumbs, after 24 rounds of repair).
fn widest_part(size: usize, room: usize) -> usize {
    let parts = (size / (room / 2).max(1)).saturating_add(1);
    let mut widest = RESERVED_PART;
    while widest < parts {
        widest = widest.saturating_mul(10).saturating_add(9);
    }
    widest
}

/// Balance and crumb terms of one chunk's cost: squared slack, and a penalty below 5 %.
fn fill_cost(fill: usize, room: usize) -> u64 {
    if room == 0 {
        return 0;
    }
    let slack = room.saturating_sub(fill) as f64 / room as f64;
    let mut cost = (slack * slack * BALANCE_COST) as u64;
    if fill * 20 < room {
        cost += CRUMB_COST;
    }
    cost
}

/// [`Cuts::Fill`]'s terms of one chunk's cost: `FILL_COST` times one less the square of its
/// fill, and the crumb penalty. The square rewards full chunks most: among cuts of equal count
/// and boundaries, the sum is least when every chunk is as full as it can be but one, which
/// takes the rest (`[1.0, 1.0, 0.3]` costs less than `[1.0, 0.8, 0.5]`), wherever in the text
/// the boundaries make that possible.
fn full_cost(fill: usize, room: usize) -> u64 {
    if room == 0 {
        return 0;
    }
    let f = fill.min(room) as f64 / room as f64;
    let mut cost = ((1.0 - f * f) * FILL_COST) as u64;
    if fill * 20 < room {
        cost += CRUMB_COST;
    }
    cost
}

/// The outermost protected atoms under `atom`, in order.
fn protected_ranges(atom: &Atom, out: &mut Vec<Range<usize>>) {
    if atom.protected {
        out.push(atom.range.clone());
        return;
    }
    for child in &atom.children {
        protected_ranges(child, out);
    }
}

/// The range of `ranges` (sorted, disjoint) that holds `pos` strictly inside, if any.
fn enclosing(ranges: &[Range<usize>], pos: usize) -> Option<&Range<usize>> {
    let i = ranges.partition_point(|r| r.start < pos);
    i.checked_sub(1).map(|i| &ranges[i]).filter(|r| pos < r.end)
}

/// Whether `text` ends a sentence: a `.`, `!` or `?` (closing quotes or brackets after it
/// allowed), then white space.
fn ends_sentence(text: &str) -> bool {
    let t = text.trim_end();
    if t.len() == text.len() {
        return false;
    }
    let t = t.trim_end_matches(['"', '\'', ')', ']', '\u{201d}', '\u{2019}']);
    t.ends_with(['.', '!', '?'])
}

/// Indices `(first, end)` of the spans overlapping `range`.
fn overlapping(spans: &[Span], range: &Range<usize>) -> (usize, usize) {
    let first = spans.partition_point(|s| s.range.end <= range.start);
    let end = spans.partition_point(|s| s.range.start < range.end);
    (first, end.max(first + 1))
}

/// Lines of `range` in `text`, each with its line break (`\n`, `\r\n` or a lone `\r`).
pub fn line_ranges(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    for end in line_ends(&text.as_bytes()[range.clone()]) {
        out.push(start..range.start + end);
        start = range.start + end;
    }
    if start < range.end {
        out.push(start..range.end);
    }
    out
}

/// How strongly two lines of one leaf too large for a chunk (a long comment, docstring or
/// literal) are apart: as sentences after a line that is blank once comment marks are set
/// aside (` *`, `//`, `#`) or that ends a sentence, else as lines; always as lines before a line
/// that closes something (`*/`, `}`, `\]`, `\end`, a fence), which stays with what it closes.
/// The packer then cuts a long comment between its paragraphs or sentences where the budget
/// lets it, not in mid-sentence. (Not as paragraphs: a paragraph's cut costs so little that the
/// packer would rather make one more chunk than cut elsewhere.)
fn line_boundary(prev: &str, next: &str) -> Boundary {
    let next = next.trim_start();
    let closes =
        ["*/", "}", ")", "]", "\\]", "\\)", "\\end", "$$", "```", "~~~", "-->", "\"\"\"", "'''"];
    if closes.iter().any(|c| next.starts_with(c)) {
        return Boundary::Line;
    }
    let prev = prev.trim();
    if prev.trim_start_matches(['/', '*', '#', '-', ';', '!']).trim().is_empty() {
        return Boundary::Sentence;
    }
    let end = prev.trim_end_matches("*/").trim_end();
    let end = end.trim_end_matches(['"', '\'', ')', ']', '*', '_', '`']);
    if end.ends_with(['.', '!', '?']) && !end.ends_with("..") {
        Boundary::Sentence
    } else {
        Boundary::Line
    }
}

/// Where to cut a run of text without white space (minified code, a long URL) that must be
/// cut before `end`: the last place in the second half of `start..end` after a `;` or `}` (a
/// statement or rule ends), else after a `,`, else between a name's char (alphanumeric or
/// `_`) and another char. `None` when there is none of these: the cut stays where the budget
/// puts it.
fn token_cut(text: &str, start: usize, end: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut cuts = (start + (end - start) / 2).max(start + 1)..end;
    let after = |ends: &[u8]| cuts.clone().rev().find(|&p| ends.contains(&bytes[p - 1]));
    let name = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    after(b";}").or_else(|| after(b",")).or_else(|| {
        cuts.rfind(|&p| text.is_char_boundary(p) && name(bytes[p - 1]) != name(bytes[p]))
    })
}

/// Words of `range`, each with the whitespace after it.
fn split_words(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    let mut in_space = false;
    for (i, c) in text[range.clone()].char_indices() {
        let at = range.start + i;
        let space = c.is_whitespace();
        if in_space && !space && at > start {
            out.push(start..at);
            start = at;
        }
        in_space = space;
    }
    if start < range.end {
        out.push(start..range.end);
    }
    out
}

/// The end of the longest text from `start` (at most `end`) of at most `room` units, at a char
/// boundary; at least one char. `size` measures a range of `text`.
///
/// Gallops from `room` bytes (every unit here is at least a byte... or one char) doubling the
/// probe until it no longer fits, then bisects: the work per call is proportional to the piece
/// it returns, not to the rest of the text. The packer measures through its prefix table, so
/// a probe costs two short partial segments, not a run over the whole prefix.
fn longest_fit(
    text: &str,
    start: usize,
    end: usize,
    room: usize,
    size: impl Fn(Range<usize>) -> usize,
) -> usize {
    use crate::atom::{ceil_char_boundary, floor_char_boundary};
    let first = start + text[start..end].chars().next().map_or(0, char::len_utf8);
    if first >= end {
        return end;
    }
    let fits = |cut: usize| size(start..cut) <= room;
    // Gallop: `lo` fits, `hi` does not (or is the end).
    let mut lo = first;
    let mut probe = room.max(1);
    let mut hi = loop {
        let cut = ceil_char_boundary(text, start.saturating_add(probe)).min(end);
        if cut <= lo {
            // `lo < end` holds here, so doubling reaches a cut past it.
            probe = probe.saturating_mul(2);
            continue;
        }
        if !fits(cut) {
            break cut;
        }
        lo = cut;
        if cut == end {
            return end;
        }
        probe = probe.saturating_mul(2);
    };
    // Bisect between a fitting and a non-fitting cut.
    while hi > lo {
        let mid = ceil_char_boundary(text, lo + (hi - lo).div_ceil(2));
        if mid >= hi {
            break;
        }
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // Token counts are not strictly monotone in the prefix: step back until it fits.
    let mut cut = lo;
    while cut > first && !fits(cut) {
        cut = floor_char_boundary(text, cut - 1);
    }
    cut.max(first)
}

/// A named atom with its qualified name.
struct Symbol {
    range: Range<usize>,
    name: String,
}

/// Every named atom in pre-order (sorted by start), with names qualified by named ancestors.
fn collect_symbols(root: &Atom, separator: &str) -> Vec<Symbol> {
    fn walk(atom: &Atom, prefix: &mut Vec<String>, separator: &str, out: &mut Vec<Symbol>) {
        let named = atom.name().map(str::to_owned);
        if let Some(name) = &named {
            let mut q = prefix.join(separator);
            if !q.is_empty() {
                q.push_str(separator);
            }
            q.push_str(name);
            out.push(Symbol { range: atom.range.clone(), name: q });
            prefix.push(name.clone());
        }
        for child in &atom.children {
            walk(child, prefix, separator, out);
        }
        if named.is_some() {
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), separator, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_their_trailing_space() {
        let text = "ab  cd\tef";
        let words: Vec<&str> =
            split_words(text, 0..text.len()).into_iter().map(|r| &text[r]).collect();
        assert_eq!(words, vec!["ab  ", "cd\t", "ef"]);
    }

    #[test]
    fn lines_of_a_long_comment_part_best_after_a_sentence_or_a_blank_line() {
        use Boundary::{Line, Sentence};
        let cases = [
            (" * so that it stays whole.\n", " * The next paragraph\n", Sentence),
            (
                " * if the list is modified at any time after the\n",
                " * iterator is created\n",
                Line,
            ),
            (" *\n", " * <p>Iterators are fail-fast.\n", Sentence),
            ("/// Spawns a task on the runtime.\n", "/// It runs until done.\n", Sentence),
            ("# see the manual (section 3).\n", "# More text\n", Sentence),
            ("    etc..\n", "    more\n", Line),
            // What closes a comment, a block or a formula stays with it.
            (" * the last sentence.\n", " */\n", Line),
            ("\\norm{x}^2.\n", "\\]\n", Line),
            ("    return x.\n", "}\n", Line),
        ];
        for (prev, next, want) in cases {
            assert_eq!(line_boundary(prev, next), want, "{prev:?} | {next:?}");
        }
    }

    #[test]
    fn lines_keep_their_newline() {
        let text = "a\nb\n\nc";
        let lines: Vec<&str> =
            line_ranges(text, 0..text.len()).into_iter().map(|r| &text[r]).collect();
        assert_eq!(lines, vec!["a\n", "b\n", "\n", "c"]);
        let text = "x\ra\rb\r\n\rc\r";
        let lines: Vec<&str> =
            line_ranges(text, 2..text.len()).into_iter().map(|r| &text[r]).collect();
        assert_eq!(lines, vec!["a\r", "b\r\n", "\r", "c\r"], "lone \\r and \\r\\n end lines too");
    }

    #[test]
    fn longest_fit_respects_chars() {
        let text = "é☃é☃é☃";
        let sizer = |r: Range<usize>| text[r].len();
        let end = longest_fit(text, 0, text.len(), 4, sizer);
        assert_eq!(&text[..end], "é");
        let end = longest_fit(text, 0, text.len(), 1, sizer);
        assert_eq!(&text[..end], "é", "at least one char");
    }

    #[test]
    fn runs_without_white_space_are_cut_where_tokens_end() {
        let css = ".a{color:red;margin:0}.b{padding:var(--bulma-primary-base)}";
        // After a `;`, `}` or `,` in the second half of what fits.
        assert_eq!(token_cut(css, 0, 30).map(|c| &css[..c]), Some(".a{color:red;margin:0}"));
        // Else between a name and punctuation, never inside a name.
        let path = "aaaaaaaaaa/bbbbbbbbbbbbbbbbbbbbbbbbbb";
        assert_eq!(token_cut(path, 0, 20), Some(11));
        assert_eq!(token_cut("abcdefghij", 0, 8), None, "nothing to cut at: the budget decides");
        // A cut in the first half would leave a short piece: the budget decides there too.
        assert_eq!(token_cut("x;yyyyyyyyyyyy", 0, 12), None);
    }

    /// A minified stylesheet on one line: every chunk starts at a token's start.
    #[test]
    fn minified_code_is_not_cut_inside_names() {
        use crate::{ContentKind, Unit, atomize_blocks, check_invariants};
        let text: String = (0..400)
            .map(|i| format!("--bulma-color-{i}:hsla(var(--bulma-primary-h),var(--s-{i}),1);"))
            .collect();
        let tree = atomize_blocks(&text, "css", ContentKind::Code);
        let source = Source::new("bulma.min.css", &text);
        let config = ChunkConfig::new(300, Unit::Chars).unwrap();
        let chunks = pack(&source, &tree, &config);
        let violations = check_invariants(&source, &tree, &chunks, &config);
        assert!(violations.is_empty(), "{violations:?}");
        assert!(chunks.len() > 40);
        for c in &chunks[1..] {
            assert_eq!(&text[c.byte_start - 1..c.byte_start], ";", "{:?}", c.text);
        }
    }

    #[test]
    fn large_atoms_reserve_wide_part_numbers() {
        assert_eq!(widest_part(0, 100), 99);
        assert_eq!(widest_part(4_900, 100), 99);
        assert_eq!(widest_part(5_000, 100), 999);
        assert_eq!(widest_part(3_400_000, 2_000), 9_999);
        assert_eq!(widest_part(usize::MAX, 1), usize::MAX, "saturates, never loops forever");
    }

    /// Unwrapped prose (no line start near a seam) still overlaps, from a word or sentence
    /// start; a chunk never starts its overlap inside a protected region it does not start in.
    #[test]
    fn overlap_starts_at_words_and_sentences_outside_protected_regions() {
        use crate::atom::AtomKind;
        use crate::{ContentKind, Unit, atomize_blocks, check_invariants};
        let para: String = (0..40)
            .map(|i| format!("Sentence number {i} says a little more about the topic. "))
            .collect();
        let text = format!("{para}\n");
        let tree = atomize_blocks(&text, "text", ContentKind::Prose);
        let source = Source::new("doc.txt", &text);
        let config = ChunkConfig::new(512, Unit::Chars).unwrap().with_overlap(50).unwrap();
        let chunks = pack(&source, &tree, &config);
        assert!(check_invariants(&source, &tree, &chunks, &config).is_empty());
        assert!(chunks.len() > 3);
        for pair in chunks.windows(2) {
            let repeated = pair[0].byte_end - pair[1].byte_start;
            assert!(repeated > 20, "overlap of {repeated} bytes: {:?}", pair[1].text);
            let before = text.as_bytes()[pair[1].byte_start - 1];
            assert!(before == b' ', "overlap starts mid-word: {:?}", pair[1].text);
        }
        // A fence followed by prose: the chunk after it must not start inside it.
        let fence = format!("```\n{}```\n", "let x = 1;\n".repeat(20));
        let prose: String =
            (0..30).map(|i| format!("Word{i} and more words follow here. ")).collect();
        let text = format!("{fence}{prose}\n");
        let fence_end = fence.len();
        let mut tree = atomize_blocks(&text, "markdown", ContentKind::Prose);
        let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(vec![
            Atom::new(AtomKind::Protected, 0..fence_end),
            Atom::new(AtomKind::Block, fence_end..text.len()).with_boundary(Boundary::Paragraph),
        ]);
        tree.root = root;
        let source = Source::new("doc.md", &text);
        let config = ChunkConfig::new(400, Unit::Chars).unwrap().with_overlap(80).unwrap();
        let chunks = pack(&source, &tree, &config);
        assert!(check_invariants(&source, &tree, &chunks, &config).is_empty());
        for c in &chunks[1..] {
            assert!(
                c.byte_start == 0 || c.byte_start >= fence_end,
                "starts in the fence: {:?}",
                c.text
            );
        }
    }

    /// Blocks of 4 to 16 words between blank lines, `n` of them.
    fn blocks_text(n: usize) -> String {
        (0..n)
            .map(|i| {
                let words = 4 + (i * 7) % 13;
                let body: String = (0..words).map(|w| format!("w{i}x{w} ")).collect();
                format!("{}\n\n", body.trim_end())
            })
            .collect()
    }

    fn pack_with(text: &str, budget: usize, unit: crate::Unit, cuts: Cuts) -> Vec<Chunk> {
        use crate::{ContentKind, atomize_blocks, check_invariants};
        let tree = atomize_blocks(text, "text", ContentKind::Prose);
        let source = Source::new("notes.txt", text);
        let config = ChunkConfig::new(budget, unit).unwrap().with_cuts(cuts);
        let chunks = pack(&source, &tree, &config);
        let errors = check_invariants(&source, &tree, &chunks, &config);
        assert!(errors.is_empty(), "{cuts:?} {unit}: {}", errors.join("\n"));
        chunks
    }

    /// `Cuts::Fill` gives as many chunks as `Cuts::Balanced` and keeps every invariant; all
    /// its chunks but one are nearly full (a block is at most a quarter of the budget), and
    /// that one is smaller than any balanced chunk, but not a crumb.
    #[test]
    fn fill_cuts_fill_all_chunks_but_one_and_keep_every_invariant() {
        use crate::{Tokenizer, Unit};
        for n in [20, 33, 61, 97] {
            let text = blocks_text(n);
            for (unit, budget) in [(Unit::Chars, 600), (Unit::Tokens(Tokenizer::O200k), 500)] {
                let balanced = pack_with(&text, budget, unit, Cuts::Balanced);
                let fill = pack_with(&text, budget, unit, Cuts::Fill);
                let at = format!("{n} blocks, {unit} {budget}");
                assert!(balanced.len() > 1, "{at}: one chunk");
                assert_eq!(fill.len(), balanced.len(), "{at}: same count");
                let sizes: Vec<usize> = fill.iter().map(|c| c.tokens).collect();
                let short = sizes.iter().filter(|&&s| s * 10 < budget * 7).count();
                assert!(short <= 1, "{at}: {sizes:?}");
                let smallest = *sizes.iter().min().unwrap();
                let even = balanced.iter().map(|c| c.tokens).min().unwrap();
                assert!(smallest < even, "{at}: {sizes:?}, balanced smallest {even}");
                assert!(smallest * 20 >= budget, "{at}: a crumb in {sizes:?}");
            }
        }
    }

    /// An atom too large for the budget (an impl of 60 statements) under `Cuts::Fill`: its
    /// parts fill their chunks but one, each names its part and scope, every invariant holds.
    /// A Rust file holding one item labelled `label` (with `signature`) that spans all of
    /// `text`, its children given, with `//` comments.
    fn one_item_tree(
        text: &str,
        label: &str,
        name: &str,
        signature: &str,
        children: Vec<Atom>,
    ) -> AtomTree {
        use crate::atom::AtomLabel;
        use crate::{CommentStyle, ContentKind};
        let item = Atom::new(AtomKind::Symbol, 0..text.len())
            .with_scope(true)
            .with_label(AtomLabel {
                label: label.into(),
                name: Some(name.into()),
                signature: Some(signature.into()),
            })
            .with_children(children);
        let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(vec![item]);
        let mut tree = AtomTree::new("rust", ContentKind::Code, root);
        tree.comment = CommentStyle::line("//");
        tree
    }

    #[test]
    fn fill_cuts_of_an_opened_atom_keep_parts_and_headers() {
        use crate::{Unit, check_invariants};
        let mut text = String::from("impl Foo {\n");
        let open_len = text.len();
        let mut children = vec![Atom::gap(0..open_len)];
        for i in 0..60 {
            let start = text.len();
            text.push_str(&format!("    let x{i} = compute({i}, {});\n", i * 37 % 101));
            children.push(
                Atom::new(AtomKind::Block, start..text.len()).with_boundary(Boundary::Statement),
            );
        }
        let close = text.len();
        text.push_str("}\n");
        children.push(Atom::gap(close..text.len()));
        let tree = one_item_tree(&text, "impl Foo", "Foo", "impl Foo", children);
        let source = Source::new("src/foo.rs", &text);
        for budget in [400, 700, 1000] {
            let balanced = ChunkConfig::new(budget, Unit::Chars).unwrap();
            let fill = balanced.clone().with_cuts(Cuts::Fill);
            let even = pack(&source, &tree, &balanced);
            let chunks = pack(&source, &tree, &fill);
            assert!(check_invariants(&source, &tree, &chunks, &fill).is_empty());
            let n = chunks.len();
            assert_eq!(n, even.len(), "budget {budget}");
            for (k, c) in chunks.iter().enumerate() {
                let part = c.part.as_ref().map(|p| (p.index, p.count));
                assert_eq!(part, Some((k + 1, n)), "budget {budget}");
                if k > 0 {
                    assert!(c.header.contains(&format!("(part {}/{n})", k + 1)), "{}", c.header);
                }
            }
            // A statement line is 30 to 32 chars; headers differ by a few.
            let sizes: Vec<usize> = chunks.iter().map(|c| c.tokens).collect();
            let short = sizes.iter().filter(|&&s| s + 48 <= budget).count();
            assert!(short <= 1, "budget {budget}: {sizes:?}");
            let smallest = *sizes.iter().min().unwrap();
            assert!(smallest < even.iter().map(|c| c.tokens).min().unwrap(), "budget {budget}");
        }
    }

    #[test]
    fn a_block_stays_whole_when_only_the_signature_line_crowds_it_out() {
        use crate::{Unit, check_invariants};
        let signature =
            "fn f(a: Aaaaaaa, b: Bbbbbbb, c: Ccccccc, d: Ddddddd, e: Eeeeeee) -> Result<Vec<u8>>";
        let mut text = format!("{signature} {{\n");
        let mut children = vec![Atom::gap(0..text.len())];
        for i in 0..20 {
            let start = text.len();
            text.push_str(&format!("    let x{i:02} = compute({i:02});\n"));
            children.push(
                Atom::new(AtomKind::Block, start..text.len()).with_boundary(Boundary::Statement),
            );
        }
        let blank = text.len();
        text.push('\n');
        children.push(Atom::gap(blank..text.len()).with_boundary(Boundary::Line));
        // A block of 52 lines after a blank line: with the path and the scope line it fits a
        // chunk, with the signature line too it does not.
        let block = text.len();
        text.push_str("    if cond {\n");
        let mut lines = vec![Atom::gap(block..text.len())];
        for i in 0..52 {
            let start = text.len();
            text.push_str(&format!("        step({i:02});\n"));
            lines.push(Atom::new(AtomKind::Block, start..text.len()).with_boundary(Boundary::Line));
        }
        let close = text.len();
        text.push_str("    }\n");
        lines.push(Atom::gap(close..text.len()).with_boundary(Boundary::Line));
        children.push(
            Atom::new(AtomKind::Block, block..text.len())
                .with_boundary(Boundary::Paragraph)
                .with_children(lines),
        );
        let end = text.len();
        text.push_str("}\n");
        children.push(Atom::gap(end..text.len()).with_boundary(Boundary::Line));
        let tree = one_item_tree(&text, "fn f", "f", signature, children);
        let source = Source::new("src/f.rs", &text);
        let config = ChunkConfig::new(1000, Unit::Chars).expect("a valid budget");
        let chunks = pack(&source, &tree, &config);
        assert!(check_invariants(&source, &tree, &chunks, &config).is_empty());
        assert_eq!(chunks.len(), 2, "{chunks:#?}");
        assert_eq!(chunks[1].byte_start, block, "cut before the block, not inside it");
        assert!(chunks[1].header.contains("in fn f (part 2/2)"), "{}", chunks[1].header);
        assert!(!chunks[1].header.contains("Ccccccc"), "{}", chunks[1].header);
    }

    #[test]
    fn crumbs_cost_more_than_balance() {
        assert!(fill_cost(1, 100) > fill_cost(50, 100));
        assert_eq!(fill_cost(100, 100), 0);
        assert!(full_cost(1, 100) > full_cost(50, 100), "a crumb costs most");
        assert_eq!(full_cost(100, 100), 0);
        // One full chunk and one of a third cost less than two of two thirds.
        assert!(full_cost(100, 100) + full_cost(34, 100) < 2 * full_cost(67, 100));
    }
}
