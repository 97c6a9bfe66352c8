//! Which members share a pack: bin packing with affinity, then an order by relationships.
//!
//! The members (per-file chunks, never cut again) are packed into as few packs as possible,
//! each at most `room`, and among packings of that count the one that keeps the most related
//! files together. Several candidate packings are built and the best is kept, by (packs,
//! crumbs, related weight kept together):
//!
//! - files clustered by their relations (imports, and consecutive files of one folder as a
//!   tie-break) within a size cap (the room, a half, a quarter, an eighth, a sixteenth of
//!   it), agglomeratively: the two clusters with the most weight between them per unit of
//!   joint size first; the clusters then packed best-fit decreasing, each into the open pack
//!   it is most related to where it fits, else the tightest one that fits, else a new pack;
//! - best-fit decreasing over the single members (no cluster), with and without the most
//!   related pack first: the count reference;
//! - the directory-order packing (`Problem::seed`) as it is.
//!
//! Every candidate is then improved: a file moves to the pack it is most related to when it
//! fits there, or swaps with a file of that pack when the two gain more than they lose, or
//! takes the place of a file of that pack that moves on to the pack it fits best (its most
//! related one with room, else the tightest) when the first gains more than the second loses
//! (never leaving a crumb behind); packs are dissolved, least filled first, when all their members
//! fit elsewhere (fewer packs); a crumb takes a member of another pack. The winner keeps the
//! most related weight among the tries within [`SLACK_PERCENT`] of the fewest packs any try
//! found (measured on the bench corpora: at 2 % Rust kept fewer import edges together than
//! directory-order packing, at 3 % more on every corpus). Everything is sorted with explicit
//! ties: the result is one deterministic function of the input, O(n log n) for the sorting
//! and best-fit steps (the clustering's heap, the best-fit set), local steps bounded by the
//! relations of each file.
//!
//! A file of several chunks keeps its chunks in order across packs: a pack holds consecutive
//! chunks of such files: at most one file's leading chunks (a head) and one file's closing
//! chunks (a tail), the tail's file first in the order; or heads only, or tails only (the
//! small parts of several files together: such a pack has no pack before it, or none after
//! it, along the chunks of a file); or one file's middle chunks alone.
//! Along "chunk i before chunk i + 1" a pack's head is the next pack's tail, so the tails'
//! positions rise along any path: no cycle, and the packs are ordered along those chains by
//! Kahn's algorithm, by each pack's first member in the import order otherwise. Such a file
//! takes part in the relations through its first and last chunks.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// One member as the packer sees it. Pieces come grouped by file, files in pack order
/// (`file` is that position), a file's chunks in order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece {
    pub file: usize,
    pub chunk: usize,
    pub size: usize,
}

/// The problem: pieces, file relations (symmetric, per file position), the room of a pack and
/// the size under which a pack is a crumb.
pub(crate) struct Problem<'a> {
    pub pieces: &'a [Piece],
    pub adj: &'a [Vec<(usize, u64)>],
    pub room: usize,
    pub crumb: usize,
    /// A packing to start one try from (plain directory-order packing): packs of pieces.
    pub seed: &'a [Vec<usize>],
}

/// The lower bound L2 of Martello and Toth for packing `sizes` into bins of `cap`: for every
/// threshold k up to half the bin, the items over `cap - k` and those over half the bin each
/// need a bin of their own, and the items of at least k that are at most half a bin need
/// what the second kind leaves free, the rest in whole bins. Items over `cap` count one bin
/// each. O(n log n).
pub(crate) fn lower_bound_l2(sizes: &[usize], cap: usize) -> usize {
    if cap == 0 {
        return sizes.len();
    }
    let oversize = sizes.iter().filter(|&&s| s > cap).count();
    let mut s: Vec<usize> = sizes.iter().copied().filter(|&s| s <= cap && s > 0).collect();
    s.sort_unstable();
    let mut prefix = vec![0usize; s.len() + 1];
    for (i, &x) in s.iter().enumerate() {
        prefix[i + 1] = prefix[i] + x;
    }
    // Index of the first item > x.
    let above = |x: usize| s.partition_point(|&y| y <= x);
    let half = above(cap / 2); // items at index >= half are over half the bin (2s > cap)
    let mut ks: Vec<usize> = s[..half].to_vec();
    ks.push(0);
    ks.dedup();
    let mut best = 0;
    for k in ks {
        // J1: s > cap - k; J2: cap/2 < s <= cap - k; J3: k <= s <= cap/2.
        let j1_from = above(cap - k).max(half);
        let (n1, n2) = (s.len() - j1_from, j1_from - half);
        let sum2 = prefix[j1_from] - prefix[half];
        let j3_from = s.partition_point(|&y| y < k);
        let sum3 = prefix[half] - prefix[j3_from.min(half)];
        let free2 = n2 * cap - sum2;
        let extra = sum3.saturating_sub(free2).div_ceil(cap);
        best = best.max(n1 + n2 + extra);
    }
    best + oversize
}

#[derive(Debug, Clone, Default)]
struct Bin {
    pieces: Vec<usize>,
    fill: usize,
    /// The file of several chunks this pack holds chunks of, with its lowest and highest chunk.
    multi: Vec<(usize, usize, usize)>,
    live: bool,
}

struct State<'a> {
    p: &'a Problem<'a>,
    bins: Vec<Bin>,
    of: Vec<usize>,
    free: BTreeSet<(usize, usize)>,
    /// Per file: whether it has several chunks, and the piece that carries its relations.
    multi: Vec<bool>,
    /// Per file: its number of chunks.
    count: Vec<usize>,
    anchor: Vec<usize>,
    /// Whether a piece goes to the pack it is most related to before the tightest one.
    related_first: bool,
}

const NONE: usize = usize::MAX;

/// A pack's place in the order: its first member's file position and piece.
type Key = Option<(usize, usize)>;

fn add_range(list: &mut Vec<(usize, usize, usize)>, piece: Piece) {
    match list.iter_mut().find(|(f, _, _)| *f == piece.file) {
        Some((_, lo, hi)) => {
            *lo = (*lo).min(piece.chunk);
            *hi = (*hi).max(piece.chunk);
        }
        None => list.push((piece.file, piece.chunk, piece.chunk)),
    }
}

impl<'a> State<'a> {
    fn new(p: &'a Problem<'a>) -> Self {
        let files = p.pieces.iter().map(|x| x.file + 1).max().unwrap_or(0);
        let mut count = vec![0usize; files];
        let mut anchor = vec![NONE; files];
        for x in p.pieces {
            count[x.file] += 1;
        }
        // A file's first or last chunk, the smaller (the last on a tie): those can share a
        // pack with another file of several chunks.
        for (i, x) in p.pieces.iter().enumerate() {
            let a = anchor[x.file];
            let end = x.chunk == 0 || x.chunk + 1 == count[x.file];
            if end && (a == NONE || x.size <= p.pieces[a].size) {
                anchor[x.file] = i;
            }
        }
        Self {
            p,
            bins: Vec::new(),
            of: vec![NONE; p.pieces.len()],
            free: BTreeSet::new(),
            multi: count.iter().map(|&c| c > 1).collect(),
            count,
            anchor,
            related_first: true,
        }
    }

    fn free_of(&self, b: usize) -> usize {
        self.p.room.saturating_sub(self.bins[b].fill)
    }

    /// Whether bin `b` can take pieces of `size` in all, of which `multi_pieces` belong to files
    /// of several chunks.
    fn can_take(&self, b: usize, size: usize, multi_pieces: &[usize]) -> bool {
        let bin = &self.bins[b];
        if !bin.live || bin.fill + size > self.p.room {
            return false;
        }
        if multi_pieces.is_empty() {
            return true;
        }
        let mut list = bin.multi.clone();
        for &x in multi_pieces {
            let x = self.p.pieces[x];
            match list.iter_mut().find(|(f, _, _)| *f == x.file) {
                Some((_, lo, hi)) => {
                    if x.chunk + 1 == *lo {
                        *lo = x.chunk;
                    } else if x.chunk == *hi + 1 {
                        *hi = x.chunk;
                    } else {
                        return false;
                    }
                }
                None => list.push((x.file, x.chunk, x.chunk)),
            }
        }
        self.orderable(&list)
    }

    /// Whether a pack holding these chunk ranges of files of several chunks keeps the packs
    /// orderable: at most one file's leading chunks (a head) and one file's closing chunks (a
    /// tail), the tail's file before the head's in the order; or any number of heads and no
    /// tail; or any number of tails and no head; or one file's middle chunks alone. Whole
    /// files do not count. Along the "chunk before next chunk" relation a pack of heads only
    /// has no pack before it and a pack of tails only none after it, so neither lies on a
    /// cycle; through the others a pack's head is the next pack's tail, so the tails'
    /// positions rise along any path: no cycle.
    fn orderable(&self, list: &[(usize, usize, usize)]) -> bool {
        let (mut heads, mut tails, mut middle) = (Vec::new(), Vec::new(), 0);
        for &(f, lo, hi) in list {
            let last = self.count[f] - 1;
            match (lo == 0, hi == last) {
                (true, true) => {}
                (false, true) => tails.push(f),
                (true, false) => heads.push(f),
                (false, false) => middle += 1,
            }
        }
        match (heads.as_slice(), tails.as_slice()) {
            _ if middle > 0 => middle == 1 && heads.is_empty() && tails.is_empty(),
            ([h], [t]) => t < h,
            (_, []) | ([], _) => true,
            _ => false,
        }
    }

    fn new_bin(&mut self) -> usize {
        self.bins.push(Bin { live: true, ..Bin::default() });
        let b = self.bins.len() - 1;
        self.free.insert((self.p.room, b));
        b
    }

    fn put(&mut self, x: usize, b: usize) {
        let old = (self.free_of(b), b);
        self.free.remove(&old);
        let piece = self.p.pieces[x];
        let bin = &mut self.bins[b];
        bin.live = true;
        bin.pieces.push(x);
        bin.fill += piece.size;
        if self.multi[piece.file] {
            add_range(&mut bin.multi, piece);
        }
        self.of[x] = b;
        self.free.insert((self.free_of(b), b));
    }

    fn take(&mut self, x: usize) {
        let b = self.of[x];
        self.free.remove(&(self.free_of(b), b));
        let pieces = &self.p.pieces;
        let bin = &mut self.bins[b];
        bin.pieces.retain(|&y| y != x);
        bin.fill -= pieces[x].size;
        bin.multi.clear();
        for &y in &bin.pieces {
            let piece = pieces[y];
            if self.multi[piece.file] {
                add_range(&mut bin.multi, piece);
            }
        }
        self.of[x] = NONE;
        if bin.pieces.is_empty() {
            bin.live = false;
        } else {
            self.free.insert((self.free_of(b), b));
        }
    }

    /// The piece of `set` that belongs to a file of several chunks, if any.
    fn multi_pieces(&self, set: &[usize]) -> Vec<usize> {
        set.iter().copied().filter(|&x| self.multi[self.p.pieces[x].file]).collect()
    }

    /// Whether piece `x` is its file's first or last chunk (those carry the file's relations).
    fn is_end(&self, x: usize) -> bool {
        let piece = self.p.pieces[x];
        piece.chunk == 0 || piece.chunk + 1 == self.count[piece.file]
    }

    /// The bins holding chunks of file `g` (placed ones), ascending.
    fn bins_of(&self, g: usize) -> Vec<usize> {
        let a = self.anchor[g];
        if !self.multi[g] {
            return if self.of[a] == NONE { Vec::new() } else { vec![self.of[a]] };
        }
        let first = a - self.p.pieces[a].chunk;
        let mut out: Vec<usize> =
            (first..first + self.count[g]).map(|y| self.of[y]).filter(|&b| b != NONE).collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Weight from the pieces of `set` to each bin their related files are in (sorted by bin).
    fn affinity(&self, set: &[usize]) -> Vec<(usize, u64)> {
        let mut w: Vec<(usize, u64)> = Vec::new();
        for &x in set {
            let f = self.p.pieces[x].file;
            if !self.is_end(x) {
                continue;
            }
            for &(g, weight) in &self.p.adj[f] {
                for b in self.bins_of(g) {
                    w.push((b, weight));
                }
            }
        }
        w.sort_unstable();
        let mut out: Vec<(usize, u64)> = Vec::with_capacity(w.len());
        for (b, weight) in w {
            match out.last_mut() {
                Some((c, s)) if *c == b => *s += weight,
                _ => out.push((b, weight)),
            }
        }
        out
    }

    /// The bin for `set` (of `size` in all): the most related one it fits, then the tightest
    /// one it fits; never `not`.
    fn choose(&self, set: &[usize], size: usize, not: usize) -> Option<usize> {
        let mp = self.multi_pieces(set);
        let aff = if self.related_first { self.affinity(set) } else { Vec::new() };
        let related = aff
            .into_iter()
            .filter(|&(b, _)| b != not && self.can_take(b, size, &mp))
            .max_by(|a, b| {
                a.1.cmp(&b.1)
                    .then(self.bins[a.0].fill.cmp(&self.bins[b.0].fill))
                    .then(b.0.cmp(&a.0))
            });
        if let Some((b, _)) = related {
            return Some(b);
        }
        self.free
            .range((size, 0)..)
            .map(|&(_, b)| b)
            .find(|&b| b != not && self.can_take(b, size, &mp))
    }

    /// Places `set` in the chosen bin or a new one.
    fn place(&mut self, set: &[usize], size: usize) {
        let b = if size > self.p.room { None } else { self.choose(set, size, NONE) };
        let b = b.unwrap_or_else(|| self.new_bin());
        for &x in set {
            self.put(x, b);
        }
    }

    fn live_bins(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.bins.len()).filter(|&b| self.bins[b].live)
    }

    /// Weight between the single files of pieces `x` and `y`.
    fn weight(&self, x: usize, y: usize) -> u64 {
        let (f, g) = (self.p.pieces[x].file, self.p.pieces[y].file);
        let adj = &self.p.adj[f];
        adj.binary_search_by_key(&g, |&(h, _)| h).map_or(0, |k| adj[k].1)
    }

    /// Whether a bin's fill going from `before` to `after` leaves a new crumb.
    fn crumbles(&self, before: usize, after: usize) -> bool {
        after != 0 && after < self.p.crumb && before >= self.p.crumb
    }

    /// Moves single-chunk files to the bin they are most related to: where they fit, or in
    /// exchange for a single-chunk file of that bin when the two gain more than they lose.
    fn local_moves(&mut self) {
        for _ in 0..6 {
            let mut moved = false;
            for x in 0..self.p.pieces.len() {
                let f = self.p.pieces[x].file;
                if self.multi[f] || self.anchor[f] != x {
                    continue;
                }
                let (a, size) = (self.of[x], self.p.pieces[x].size);
                let aff = self.affinity(&[x]);
                let here = aff.iter().find(|&&(b, _)| b == a).map_or(0, |&(_, w)| w);
                let fill_a = self.bins[a].fill;
                let best = aff
                    .iter()
                    .filter(|&&(b, w)| b != a && w > here && self.can_take(b, size, &[]))
                    .max_by(|p, q| p.1.cmp(&q.1).then(q.0.cmp(&p.0)));
                if let Some(&(b, _)) = best
                    && !self.crumbles(fill_a, fill_a - size)
                {
                    self.take(x);
                    self.put(x, b);
                    moved = true;
                    continue;
                }
                // A swap with the most related bins it does not fit.
                let mut targets: Vec<(u64, usize)> = aff
                    .iter()
                    .filter(|&&(b, w)| b != a && w > here)
                    .map(|&(b, w)| (w, b))
                    .collect();
                targets.sort_unstable_by(|p, q| q.cmp(p));
                let mut swap: Option<(u64, usize)> = None;
                for &(w, b) in targets.iter().take(2) {
                    let fill_b = self.bins[b].fill;
                    for &y in &self.bins[b].pieces {
                        let py = self.p.pieces[y];
                        if self.multi[py.file] || self.anchor[py.file] != y {
                            continue;
                        }
                        let (na, nb) = (fill_a - size + py.size, fill_b - py.size + size);
                        if na > self.p.room
                            || nb > self.p.room
                            || self.crumbles(fill_a, na)
                            || self.crumbles(fill_b, nb)
                        {
                            continue;
                        }
                        let ay = self.affinity(&[y]);
                        let at =
                            |b: usize| ay.iter().find(|&&(c, _)| c == b).map_or(0, |&(_, w)| w);
                        let xy = self.weight(x, y);
                        let gain = (w + at(a)) as i128 - (here + at(b)) as i128 - 2 * xy as i128;
                        if gain > 0 && swap.is_none_or(|(g, _)| gain as u64 > g) {
                            swap = Some((gain as u64, y));
                        }
                    }
                    if swap.is_some() {
                        let (_, y) = swap.unwrap_or((0, NONE));
                        self.take(x);
                        self.take(y);
                        self.put(x, b);
                        self.put(y, a);
                        moved = true;
                        break;
                    }
                }
                if self.of[x] == a && self.eject(x, a, here, &targets) {
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
    }

    /// Moves `x` (in bin `a`, with `here` weight to it) into one of its most related bins
    /// `targets` it does not fit, making room by sending a single-chunk file of that bin to
    /// the bin it fits best elsewhere, when `x` gains more than that file loses.
    fn eject(&mut self, x: usize, a: usize, here: u64, targets: &[(u64, usize)]) -> bool {
        let size = self.p.pieces[x].size;
        let fill_a = self.bins[a].fill;
        if self.crumbles(fill_a, fill_a - size) {
            return false;
        }
        let mut best: Option<(u64, usize, usize, usize)> = None;
        for &(w, b) in targets.iter().take(4) {
            let fill_b = self.bins[b].fill;
            for &y in &self.bins[b].pieces {
                let py = self.p.pieces[y];
                if y == x || self.multi[py.file] || self.anchor[py.file] != y {
                    continue;
                }
                let nb = fill_b - py.size + size;
                if nb > self.p.room || self.crumbles(fill_b, nb) {
                    continue;
                }
                let ay = self.affinity(&[y]);
                let at = |c: usize| ay.iter().find(|&&(d, _)| d == c).map_or(0, |&(_, w)| w);
                // Where y goes: its most related bin with room (not a, not b), else the
                // tightest with room.
                let fits = |c: usize| {
                    c != a
                        && c != b
                        && self.bins[c].live
                        && self.bins[c].fill + py.size <= self.p.room
                };
                let to = ay
                    .iter()
                    .filter(|&&(c, _)| fits(c))
                    .max_by(|p, q| p.1.cmp(&q.1).then(q.0.cmp(&p.0)))
                    .map(|&(c, _)| c)
                    .or_else(|| {
                        self.free.range((py.size, 0)..).map(|&(_, c)| c).find(|&c| fits(c))
                    });
                let Some(c) = to else { continue };
                let xy = self.weight(x, y);
                let gain = (w + at(c)) as i128 - (here + at(b)) as i128 - xy as i128;
                if gain > 0 && best.is_none_or(|(g, ..)| gain as u64 > g) {
                    best = Some((gain as u64, y, b, c));
                }
            }
        }
        let Some((_, y, b, c)) = best else { return false };
        self.take(y);
        self.put(y, c);
        self.take(x);
        self.put(x, b);
        true
    }

    /// Tries to move every piece of bin `b` elsewhere; undoes it if one fits nowhere.
    fn dissolve(&mut self, b: usize) -> bool {
        let mut set = self.bins[b].pieces.clone();
        set.sort_by_key(|&x| (Reverse(self.p.pieces[x].size), x));
        let mut done = Vec::new();
        for &x in &set {
            let size = self.p.pieces[x].size;
            self.take_keep(x, b);
            match self.choose(&[x], size, b) {
                Some(c) => {
                    self.put(x, c);
                    done.push(x);
                }
                None => {
                    // Undo: back into b, which still has the room.
                    self.put(x, b);
                    for &y in done.iter().rev() {
                        self.take(y);
                        self.put(y, b);
                    }
                    return false;
                }
            }
        }
        self.bins[b].live = false;
        self.free.remove(&(self.free_of(b), b));
        true
    }

    /// `take`, but the bin stays live while it is being emptied.
    fn take_keep(&mut self, x: usize, b: usize) {
        self.take(x);
        if !self.bins[b].live {
            self.bins[b].live = true;
            self.free.insert((self.free_of(b), b));
        }
    }

    /// Dissolves the least filled bins while all their pieces fit elsewhere.
    fn merge_underfull(&mut self) {
        let mut bins: Vec<usize> = self.live_bins().collect();
        bins.sort_by_key(|&b| (self.bins[b].fill, b));
        for b in bins {
            if self.bins[b].live {
                self.dissolve(b);
            }
        }
    }

    /// A crumb takes a single-chunk file from another bin that stays no crumb, the most
    /// related one first.
    fn fix_crumbs(&mut self) {
        let crumbs: Vec<usize> =
            self.live_bins().filter(|&b| self.bins[b].fill < self.p.crumb).collect();
        for k in crumbs {
            if !self.bins[k].live || self.dissolve(k) {
                continue;
            }
            let fill = self.bins[k].fill;
            let mut best: Option<(u64, usize, usize)> = None;
            for x in 0..self.p.pieces.len() {
                let piece = self.p.pieces[x];
                let b = self.of[x];
                if b == k || self.multi[piece.file] {
                    continue;
                }
                let after = self.bins[b].fill - piece.size;
                if fill + piece.size > self.p.room
                    || fill + piece.size < self.p.crumb
                    || (after < self.p.crumb && after != 0)
                    || !self.can_take(k, piece.size, &[])
                {
                    continue;
                }
                let w = self.p.adj[piece.file]
                    .iter()
                    .filter(|&&(g, _)| self.of[self.anchor[g]] == k)
                    .map(|&(_, w)| w)
                    .sum::<u64>();
                if best.is_none_or(|(bw, bs, _)| (w, Reverse(piece.size)) > (bw, Reverse(bs))) {
                    best = Some((w, piece.size, x));
                }
            }
            if let Some((_, _, x)) = best {
                self.take(x);
                self.put(x, k);
            }
        }
    }

    fn score(&self) -> (usize, usize, Reverse<u64>) {
        let live: Vec<usize> = self.live_bins().collect();
        let crumbs = live.iter().filter(|&&b| self.bins[b].fill < self.p.crumb).count();
        let mut kept = 0u64;
        let bins_of: Vec<Vec<usize>> = (0..self.p.adj.len()).map(|f| self.bins_of(f)).collect();
        for (f, adj) in self.p.adj.iter().enumerate() {
            for &(g, w) in adj {
                if g > f && bins_of[f].iter().any(|b| bins_of[g].binary_search(b).is_ok()) {
                    kept += w;
                }
            }
        }
        (live.len(), crumbs, Reverse(kept))
    }

    /// The live bins in pack order, each with its pieces in order.
    fn ordered(&self) -> Vec<Vec<usize>> {
        let live: Vec<usize> = self.live_bins().collect();
        let mut index = vec![NONE; self.bins.len()];
        for (k, &b) in live.iter().enumerate() {
            index[b] = k;
        }
        let mut bins: Vec<Vec<usize>> = live
            .iter()
            .map(|&b| {
                let mut v = self.bins[b].pieces.clone();
                v.sort_by_key(|&x| (self.p.pieces[x].file, self.p.pieces[x].chunk));
                v
            })
            .collect();
        let key = |k: usize| bins[k].first().map(|&x| (self.p.pieces[x].file, x));
        let keys: Vec<_> = (0..bins.len()).map(key).collect();
        // Chain edges: the bin of a chunk before the bin of the next chunk of its file.
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); bins.len()];
        let mut indeg = vec![0usize; bins.len()];
        for i in 1..self.p.pieces.len() {
            let (a, b) = (self.p.pieces[i - 1], self.p.pieces[i]);
            if a.file != b.file {
                continue;
            }
            let (ba, bb) = (index[self.of[i - 1]], index[self.of[i]]);
            if ba != bb && !next[ba].contains(&bb) {
                next[ba].push(bb);
                indeg[bb] += 1;
            }
        }
        let mut heap: BinaryHeap<Reverse<(Key, usize)>> =
            (0..bins.len()).filter(|&k| indeg[k] == 0).map(|k| Reverse((keys[k], k))).collect();
        let mut order = Vec::with_capacity(bins.len());
        let mut seen = vec![false; bins.len()];
        while let Some(Reverse((_, k))) = heap.pop() {
            order.push(k);
            seen[k] = true;
            for &m in &next[k] {
                indeg[m] -= 1;
                if indeg[m] == 0 {
                    heap.push(Reverse((keys[m], m)));
                }
            }
        }
        // The chains are disjoint paths, so nothing is left; kept total for safety.
        order.extend((0..bins.len()).filter(|&k| !seen[k]));
        order.into_iter().map(|k| std::mem::take(&mut bins[k])).collect()
    }
}

/// Files clustered by their relations within `cap`: each cluster a set of pieces (a file's
/// anchor stands for it; its other chunks are clusters of their own). Agglomerative: the two
/// clusters with the most relation weight between them per unit of their joint size merge
/// first, while the merged cluster fits `cap` and holds chunks of at most one file of several
/// chunks; the weights between clusters are the sums of their files' relations.
fn clusters(st: &State<'_>, cap: usize) -> Vec<Vec<usize>> {
    let p = st.p;
    let n = p.pieces.len();
    let mut size: Vec<usize> = p.pieces.iter().map(|x| x.size).collect();
    // Per cluster: the file whose leading chunks (head) and closing chunks (tail) it holds.
    let mut ends: Vec<(Option<usize>, Option<usize>)> = p
        .pieces
        .iter()
        .map(|x| match st.multi[x.file] {
            false => (None, None),
            true if x.chunk == 0 => (Some(x.file), None),
            true if x.chunk + 1 == st.count[x.file] => (None, Some(x.file)),
            true => (Some(NONE), Some(NONE)),
        })
        .collect();
    let joinable = |a: (Option<usize>, Option<usize>), b: (Option<usize>, Option<usize>)| {
        if a.0 == Some(NONE) || b.0 == Some(NONE) {
            return a == (None, None) || b == (None, None);
        }
        let head = match (a.0, b.0) {
            (Some(_), Some(_)) => return false,
            (h, g) => h.or(g),
        };
        let tail = match (a.1, b.1) {
            (Some(_), Some(_)) => return false,
            (t, u) => t.or(u),
        };
        head.zip(tail).is_none_or(|(h, t)| t < h)
    };
    let mut members: Vec<Vec<usize>> = (0..n).map(|x| vec![x]).collect();
    let mut adj: Vec<BTreeMap<usize, u64>> = vec![BTreeMap::new(); n];
    if cap > 0 {
        for (f, list) in p.adj.iter().enumerate() {
            for &(g, w) in list {
                let (a, b) = (st.anchor[f], st.anchor[g]);
                if a != b {
                    *adj[a].entry(b).or_default() += w;
                }
            }
        }
    }
    let mut version = vec![0u32; n];
    let mut alive = vec![true; n];
    type Entry = (u128, Reverse<usize>, Reverse<usize>, Reverse<usize>, u32, u32);
    let key = |w: u64, joint: usize| (u128::from(w) << 32) / joint.max(1) as u128;
    let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
    for a in 0..n {
        for (&b, &w) in &adj[a] {
            if a < b {
                let joint = size[a] + size[b];
                heap.push((key(w, joint), Reverse(joint), Reverse(a), Reverse(b), 0, 0));
            }
        }
    }
    while let Some((_, _, Reverse(a), Reverse(b), va, vb)) = heap.pop() {
        if !alive[a] || !alive[b] || version[a] != va || version[b] != vb {
            continue;
        }
        if size[a] + size[b] > cap || !joinable(ends[a], ends[b]) {
            continue;
        }
        let (keep, gone) = if adj[a].len() >= adj[b].len() { (a, b) } else { (b, a) };
        alive[gone] = false;
        let moved = std::mem::take(&mut adj[gone]);
        for (c, w) in moved {
            adj[c].remove(&gone);
            if c == keep {
                continue;
            }
            *adj[keep].entry(c).or_default() += w;
            *adj[c].entry(keep).or_default() += w;
        }
        adj[keep].remove(&gone);
        size[keep] += size[gone];
        let (x, y) = (ends[keep], ends[gone]);
        ends[keep] = if x.0 == Some(NONE) || y.0 == Some(NONE) {
            (Some(NONE), Some(NONE))
        } else {
            (x.0.or(y.0), x.1.or(y.1))
        };
        let gone_members = std::mem::take(&mut members[gone]);
        members[keep].extend(gone_members);
        version[keep] += 1;
        for (&c, &w) in &adj[keep] {
            let joint = size[keep] + size[c];
            if joint > cap || !joinable(ends[keep], ends[c]) {
                continue;
            }
            let (x, y) = if keep < c { (keep, c) } else { (c, keep) };
            heap.push((
                key(w, joint),
                Reverse(joint),
                Reverse(x),
                Reverse(y),
                version[x],
                version[y],
            ));
        }
    }
    members
        .into_iter()
        .filter(|m| !m.is_empty())
        .map(|mut m| {
            m.sort_unstable();
            m
        })
        .collect()
}

/// A try started from the seed packing: its packs as they are (a piece that does not fit
/// its seed pack's last state opens the next), then improved like the others.
fn seeded<'a>(p: &'a Problem<'a>) -> State<'a> {
    let mut st = State::new(p);
    for bin in p.seed {
        let mut b = st.new_bin();
        for &x in bin {
            let piece = p.pieces[x];
            let mp: &[usize] = if st.multi[piece.file] { &[x] } else { &[] };
            if !st.bins[b].pieces.is_empty() && !st.can_take(b, piece.size, mp) {
                b = st.new_bin();
            }
            st.put(x, b);
        }
    }
    improve(&mut st);
    st
}

fn improve(st: &mut State<'_>) {
    st.related_first = true;
    st.local_moves();
    st.merge_underfull();
    st.fix_crumbs();
    st.local_moves();
}

fn solve<'a>(p: &'a Problem<'a>, cap: usize, related_first: bool) -> State<'a> {
    let mut st = State::new(p);
    st.related_first = related_first;
    let mut units: Vec<(usize, Vec<usize>)> = clusters(&st, cap)
        .into_iter()
        .map(|g| (g.iter().map(|&x| p.pieces[x].size).sum(), g))
        .collect();
    units.sort_by(|a, b| b.0.cmp(&a.0).then(a.1[0].cmp(&b.1[0])));
    for (size, set) in &units {
        st.place(set, *size);
    }
    improve(&mut st);
    st
}

/// How many more packs (in percent of the fewest any try found) a packing may have when it
/// keeps more related files together.
const SLACK_PERCENT: usize = 3;

/// The packs: per pack, the indices of its pieces in order; packs in order.
pub(crate) fn pack(p: &Problem<'_>) -> Vec<Vec<usize>> {
    if p.pieces.is_empty() {
        return Vec::new();
    }
    let tries = [
        (p.room, true),
        (p.room / 2, true),
        (p.room / 4, true),
        (p.room / 8, true),
        (p.room / 16, true),
        (0, true),
        (0, false),
    ];
    let mut solved: Vec<State<'_>> =
        tries.into_iter().map(|(cap, related_first)| solve(p, cap, related_first)).collect();
    if !p.seed.is_empty() {
        solved.push(seeded(p));
    }
    let scores: Vec<_> = solved.iter().map(State::score).collect();
    let fewest = scores.iter().map(|s| s.0).min().unwrap_or(0);
    let allowed = fewest + fewest * SLACK_PERCENT / 100;
    // The most related weight kept within the allowed count, then fewer packs, then fewer
    // crumbs, then the first try.
    let best = (0..solved.len())
        .filter(|&k| scores[k].0 <= allowed)
        .min_by_key(|&k| (scores[k].2, scores[k].0, scores[k].1, k))
        .map(|k| solved[k].ordered());
    best.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(sizes: &[usize]) -> Vec<Piece> {
        sizes.iter().enumerate().map(|(i, &size)| Piece { file: i, chunk: 0, size }).collect()
    }

    #[test]
    fn l2_counts_the_items_over_half_a_bin() {
        assert_eq!(lower_bound_l2(&[60, 60, 60], 100), 3);
        assert_eq!(lower_bound_l2(&[50, 50, 50, 50], 100), 2);
        // 3 items over half, 6 of 30: 3 * 40 free, 180 - 120 = 60 more: one bin.
        assert_eq!(lower_bound_l2(&[60, 60, 60, 30, 30, 30, 30, 30, 30], 100), 4);
        // k = 45: the 55s alone (no 45 fits beside them), the 45s two to a bin.
        assert_eq!(lower_bound_l2(&[56, 56, 45, 45, 45, 45], 100), 4);
        assert_eq!(lower_bound_l2(&[150, 10], 100), 2);
        assert_eq!(lower_bound_l2(&[], 100), 0);
    }

    #[test]
    fn the_optimum_on_a_small_instance() {
        // In path order a cutting needs 3 packs ([60], [50, 40], [30, 20]); 2 is the optimum.
        let it = pieces(&[60, 50, 40, 30, 20]);
        let adj = vec![Vec::new(); 5];
        let p = Problem { pieces: &it, adj: &adj, room: 100, crumb: 5, seed: &[] };
        let packs = pack(&p);
        assert_eq!(packs.len(), 2);
        assert_eq!(lower_bound_l2(&[60, 50, 40, 30, 20], 100), 2);
        let mut all: Vec<usize> = packs.concat();
        all.sort_unstable();
        assert_eq!(all, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn related_files_share_a_pack_when_they_fit() {
        // 0 and 3 import each other; 1 and 2 fill the rest. Any two fit one pack.
        let it = pieces(&[50, 45, 45, 40]);
        let mut adj = vec![Vec::new(); 4];
        adj[0].push((3, 2000));
        adj[3].push((0, 2000));
        let p = Problem { pieces: &it, adj: &adj, room: 100, crumb: 5, seed: &[] };
        let packs = pack(&p);
        assert_eq!(packs.len(), 2);
        assert!(packs.contains(&vec![0, 3]), "{packs:?}");
    }

    #[test]
    fn a_file_takes_the_place_of_an_unrelated_one() {
        // Packs [0, 1] (98), [2, 3] (95), [4] (50); 0 imports 2. Neither fits beside the
        // other's pack and a swap of 0 and 3 overfills the first; 3 moves to the third pack
        // and 0 takes its place.
        let it = pieces(&[40, 58, 50, 45, 50]);
        let mut adj = vec![Vec::new(); 5];
        adj[0].push((2, 1000));
        adj[2].push((0, 1000));
        let p = Problem { pieces: &it, adj: &adj, room: 100, crumb: 5, seed: &[] };
        let mut st = State::new(&p);
        for bin in [&[0, 1][..], &[2, 3], &[4]] {
            let b = st.new_bin();
            for &x in bin {
                st.put(x, b);
            }
        }
        st.local_moves();
        assert_eq!(st.of[0], st.of[2]);
        assert_eq!(st.of[3], st.of[4]);
        assert_eq!(st.live_bins().count(), 3);
    }

    #[test]
    fn chunks_of_a_file_stay_in_order() {
        // File 0 has three chunks, file 1 two; small files 2..6 fill the gaps.
        let mut it = vec![
            Piece { file: 0, chunk: 0, size: 60 },
            Piece { file: 0, chunk: 1, size: 55 },
            Piece { file: 0, chunk: 2, size: 30 },
            Piece { file: 1, chunk: 0, size: 70 },
            Piece { file: 1, chunk: 1, size: 35 },
        ];
        for f in 2..7 {
            it.push(Piece { file: f, chunk: 0, size: 10 + f });
        }
        let adj = vec![Vec::new(); 7];
        let p = Problem { pieces: &it, adj: &adj, room: 100, crumb: 5, seed: &[] };
        let packs = pack(&p);
        let mut last = [None; 7];
        for bin in &packs {
            for &x in bin {
                let piece = it[x];
                assert!(last[piece.file].is_none_or(|c| c + 1 == piece.chunk), "{packs:?}");
                last[piece.file] = Some(piece.chunk);
            }
        }
        let sizes: Vec<usize> = it.iter().map(|x| x.size).collect();
        assert_eq!(packs.len(), lower_bound_l2(&sizes, 100));
    }

    /// Files cut into a full part and a small one (as `Cuts::Fill` cuts them): the small
    /// closing parts of several files share one pack, and so do small leading parts; each
    /// file's chunks stay in order.
    #[test]
    fn small_parts_of_several_files_share_a_pack() {
        for small_first in [false, true] {
            let mut it = Vec::new();
            for f in 0..3 {
                let (a, b) = if small_first { (25, 95) } else { (95, 25) };
                it.push(Piece { file: f, chunk: 0, size: a });
                it.push(Piece { file: f, chunk: 1, size: b });
            }
            let adj = vec![Vec::new(); 3];
            let p = Problem { pieces: &it, adj: &adj, room: 100, crumb: 5, seed: &[] };
            let packs = pack(&p);
            assert_eq!(packs.len(), 4, "{packs:?}");
            let sizes: Vec<usize> = it.iter().map(|x| x.size).collect();
            assert_eq!(packs.len(), lower_bound_l2(&sizes, 100));
            let mut last = [None; 3];
            for bin in &packs {
                for &x in bin {
                    let piece = it[x];
                    assert!(last[piece.file].is_none_or(|c| c + 1 == piece.chunk), "{packs:?}");
                    last[piece.file] = Some(piece.chunk);
                }
            }
        }
    }
}
