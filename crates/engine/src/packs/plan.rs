//! Where packs are cut: an optimal segmentation of the ordered member sequence by dynamic
//! programming, as the core packer segments a file's atoms.
//!
//! Members are whole per-file chunks in pack order; a pack is a run of consecutive members
//! whose sizes (plus a newline where a body does not end in one) and the frame's reserve fit
//! the budget. Of all cuttings, the packer takes the one with, in order: the fewest packs; the
//! fewest crumbs (packs whose members take under 5 % of the budget); the most related
//! neighbours in one pack (import edges between two files of the pack, consecutive chunks of
//! one file, consecutive files of one folder); the least squared slack (balanced packs). Ties
//! left after that go to the cutting whose last pack starts latest, so the result is one
//! deterministic function of the sequence.

use std::cmp::Ordering;

/// One member as the planner sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item {
    /// The member's file, by its position in the pack order of files (files are contiguous).
    pub file_pos: usize,
    /// Its size, separator included.
    pub size: usize,
    /// Whether the file sits in the same folder as the file before it in the order.
    pub same_dir_as_prev_file: bool,
}

/// Weight of two consecutive chunks of one file in one pack (an import is `graph::WHOLE`).
const SAME_FILE: u64 = 1000;
/// Weight of two consecutive files of one folder in one pack.
const SAME_DIR: u64 = 100;

/// Related files, by position in the pack order: per position, (position, weight) sorted by
/// position, with prefix sums of the weights.
pub(crate) struct Relations {
    adj: Vec<Vec<(usize, u64)>>,
    prefix: Vec<Vec<u64>>,
}

impl Relations {
    /// From undirected weighted edges between file positions.
    pub fn new(mut adj: Vec<Vec<(usize, u64)>>) -> Self {
        let prefix = adj
            .iter_mut()
            .map(|a| {
                a.sort_unstable();
                let mut sum = 0;
                std::iter::once(0)
                    .chain(a.iter().map(|&(_, w)| {
                        sum += w;
                        sum
                    }))
                    .collect()
            })
            .collect();
        Self { adj, prefix }
    }

    /// Total weight between the file at `pos` and the files at positions in `lo..=hi`.
    fn between(&self, pos: usize, lo: usize, hi: usize) -> u64 {
        let (adj, prefix) = (&self.adj[pos], &self.prefix[pos]);
        let a = adj.partition_point(|&(p, _)| p < lo);
        let b = adj.partition_point(|&(p, _)| p <= hi);
        prefix[b] - prefix[a]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cost {
    packs: u32,
    crumbs: u32,
    related: u64,
    slack: u64,
}

impl Ord for Cost {
    fn cmp(&self, other: &Self) -> Ordering {
        self.packs
            .cmp(&other.packs)
            .then(self.crumbs.cmp(&other.crumbs))
            .then(other.related.cmp(&self.related))
            .then(self.slack.cmp(&other.slack))
    }
}

impl PartialOrd for Cost {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The optimal cutting of `items` into packs of at most `room` (the budget less the frame's
/// reserve); a crumb is a pack whose members take under `crumb` units. Returns the start of
/// every pack. An item larger than `room` gets a pack of its own.
pub(crate) fn plan(items: &[Item], relations: &Relations, room: usize, crumb: usize) -> Vec<usize> {
    let n = items.len();
    if n == 0 {
        return Vec::new();
    }
    let mut best: Vec<Option<Cost>> = vec![None; n + 1];
    let mut back = vec![0usize; n + 1];
    best[0] = Some(Cost { packs: 0, crumbs: 0, related: 0, slack: 0 });
    for j in 1..=n {
        let last_pos = items[j - 1].file_pos;
        let (mut size, mut related) = (0usize, 0u64);
        for i in (0..j).rev() {
            size += items[i].size;
            if size > room && i + 1 < j {
                break;
            }
            if i + 1 < j {
                let (here, next) = (items[i], items[i + 1]);
                related += if here.file_pos == next.file_pos {
                    SAME_FILE
                } else {
                    let dir = if next.same_dir_as_prev_file { SAME_DIR } else { 0 };
                    dir + relations.between(here.file_pos, here.file_pos + 1, last_pos)
                };
            }
            let Some(prev) = best[i] else { continue };
            let slack = room.saturating_sub(size) as u64;
            let cost = Cost {
                packs: prev.packs + 1,
                crumbs: prev.crumbs + u32::from(size < crumb),
                related: prev.related + related,
                slack: prev.slack + slack * slack,
            };
            if best[j].is_none_or(|b| cost < b) {
                best[j] = Some(cost);
                back[j] = i;
            }
        }
    }
    let mut starts = Vec::new();
    let mut j = n;
    while j > 0 {
        j = back[j];
        starts.push(j);
    }
    starts.reverse();
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(sizes: &[usize]) -> Vec<Item> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| Item { file_pos: i, size, same_dir_as_prev_file: false })
            .collect()
    }

    fn none(n: usize) -> Relations {
        Relations::new(vec![Vec::new(); n])
    }

    #[test]
    fn fewest_packs_then_no_crumb() {
        // First-fit would give [60, 30], [5]: a trailing crumb.
        let it = items(&[60, 30, 5]);
        assert_eq!(plan(&it, &none(3), 94, 10), [0, 1]);
        // Everything fits in one.
        assert_eq!(plan(&it, &none(3), 95, 10), [0]);
    }

    #[test]
    fn related_files_share_a_pack() {
        // Two packs are needed either way; file 1 imports file 2, so they stay together.
        let it = items(&[40, 30, 30, 45]);
        let mut adj = vec![Vec::new(); 4];
        adj[1].push((2, 1000));
        adj[2].push((1, 1000));
        assert_eq!(plan(&it, &Relations::new(adj), 100, 1), [0, 3]);
        // Without the edge, balance decides: [40, 30], [30, 45].
        assert_eq!(plan(&it, &none(4), 100, 1), [0, 2]);
    }

    #[test]
    fn an_oversize_item_gets_its_own_pack() {
        let it = items(&[10, 500, 10]);
        assert_eq!(plan(&it, &none(3), 100, 1), [0, 1, 2]);
    }
}
