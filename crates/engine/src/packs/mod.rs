//! Packs: whole per-file chunks of many files gathered into files for sub-agents, ordered by
//! imports, each opening with a frame that says where it is.
//!
//! Built from a run's [`FileResult`]s only (DESIGN: new output kinds come from the per-file
//! records): the chunks are the ones `cleave chunk` writes at the member budget
//! ([`member_budget`]), never cut again. [`pack`] builds the import graph (`graph.rs`),
//! orders the files (import cycles as one group, dependencies before their users, directory
//! order where nothing else decides), bin-packs the chunks (`bins.rs`: fewest packs within a
//! small slack, no crumb, most related files together; packs in import order), then renders
//! each pack (frame, then each member's header and body) and measures it whole with the run's
//! sizer: a pack is never over the budget. Directory order (the baseline) cuts the path order
//! by dynamic programming instead (`plan.rs`).
//!
//! Every byte of every file is in exactly one member body, in order: members are the file's
//! chunks, which tile it; inside a pack they are in file order, and the packs are ordered so
//! that a file's chunks come in order across them.

mod bins;
mod graph;
mod plan;

use std::collections::{BTreeMap, BTreeSet};

use cleave_core::{Chunk, ChunkConfig, ConfigError, Cuts};

pub use graph::ImportGraph;

use crate::file::FileResult;
use plan::{Item, Relations};

/// How files are ordered before they are cut into packs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PackOrder {
    /// Bin-packed by the import graph: related files together, packs in import order
    /// (cycles together, dependencies before users, else path order).
    #[default]
    Imports,
    /// Path order cut by dynamic programming: plain directory-order packing, the baseline
    /// import locality is measured against.
    Directory,
}

/// The room kept in every pack for its frame, and the most a frame takes: a twentieth of the
/// budget (an eighth of a small one, up to 120 units), at most 400 units.
pub fn frame_reserve(budget: usize) -> usize {
    (budget / 20).max((budget / 8).min(120)).min(400)
}

/// The budget the members are chunked at, so that any one chunk and a frame fit a pack.
pub fn member_budget(budget: usize) -> usize {
    budget - frame_reserve(budget)
}

/// The configuration the members of packs of `config` are chunked at: the same sizer and
/// options at [`member_budget`], cut with [`Cuts::Fill`]: a file too large for one chunk
/// becomes parts that fill their packs and one small part that can share a pack with
/// related files, where balanced parts (two of six tenths for a file of 1.2 budgets) could
/// share a pack with nothing but small files. Only the cut points change, not the number of
/// chunks; every chunk keeps every invariant of `cleave chunk`'s.
pub fn member_config(config: &ChunkConfig) -> Result<ChunkConfig, ConfigError> {
    Ok(config.clone().with_budget(member_budget(config.budget()))?.with_cuts(Cuts::Fill))
}

/// One pack.
#[derive(Debug, Clone)]
pub struct Pack {
    /// The chunks it holds, in order.
    pub members: Vec<Member>,
    /// The frame it opens with (possibly empty when the members leave it no room).
    pub frame: String,
    /// The pack as written: frame, then each member's header and body.
    pub text: String,
    /// Size of `text` in the run's unit, measured whole.
    pub size: usize,
    /// Packs that define what this one imports, with the imported files.
    pub needs: Vec<PackLink>,
    /// Packs that import what this one defines.
    pub used_by: Vec<usize>,
}

/// A member: one per-file chunk inside a pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Index of its file in the results given to [`pack`].
    pub file: usize,
    /// Index of the chunk in that file's chunks.
    pub chunk: usize,
    /// Byte offset of the member's header in the pack's text.
    pub header_start: usize,
    /// Byte offset of the member's body in the pack's text (its length is the chunk's).
    pub body_start: usize,
}

/// A pack another pack depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackLink {
    /// Index of the pack.
    pub pack: usize,
    /// The imported files it holds (paths).
    pub files: Vec<String>,
}

/// What a packing achieved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackStats {
    /// Files with chunks.
    pub files: usize,
    /// Chunks packed.
    pub members: usize,
    /// Packs written.
    pub packs: usize,
    /// Packs whose members take under 5 % of the budget.
    pub crumbs: usize,
    /// Total size of the members (headers and bodies) in the run's unit.
    pub content: usize,
    /// A bound on the fewest packs: `content` over the budget, rounded up.
    pub lower_bound: usize,
    /// The bin-packing lower bound L2 (Martello–Toth) for the members as they are (whole
    /// chunks, each with its separator) in packs of the budget: no packing of these members
    /// has fewer packs, whatever the order and with no frame at all.
    pub l2_bound: usize,
    /// The same bound for packs of the room the packer fills (the budget less half the
    /// frame's reserve): the fewest packs the packer can reach.
    pub l2_room: usize,
    /// Resolved import references, and those that named nothing of the run.
    pub resolved: usize,
    /// See `resolved`.
    pub unresolved: usize,
    /// Weight of the import edges between two different files (an import is 1).
    pub edges: f64,
    /// Share of that weight whose two files share a pack.
    pub locality: f64,
    /// Files in the largest import cycle.
    pub largest_cycle: usize,
}

/// The packs of a run.
#[derive(Debug, Clone)]
pub struct Packing {
    /// The packs, in order.
    pub packs: Vec<Pack>,
    /// The import graph they were ordered by.
    pub graph: ImportGraph,
    /// What the packing achieved.
    pub stats: PackStats,
}

/// Packs the chunks of `files` (one run's results in path order, chunked at
/// [`member_config`]) into packs of at most `config.budget()` units.
pub fn pack(files: &[FileResult], config: &ChunkConfig, mode: PackOrder) -> Packing {
    let budget = config.budget();
    let sizer = config.sizer();
    let graph = ImportGraph::build(files);
    let include: Vec<bool> = files.iter().map(|f| !f.chunks.is_empty()).collect();
    let (order, largest_cycle) = match mode {
        PackOrder::Imports => {
            let paths: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
            graph.order(&include, &paths)
        }
        PackOrder::Directory => ((0..files.len()).filter(|&i| include[i]).collect(), 1),
    };
    let newline = sizer.size("\n");
    let size_of = |c: &Chunk| c.tokens + if c.text.ends_with('\n') { 0 } else { newline };
    let room = budget - frame_reserve(budget) / 2;
    let crumb = budget.div_ceil(20);
    let mut pos_of = vec![usize::MAX; files.len()];
    for (pos, &f) in order.iter().enumerate() {
        pos_of[f] = pos;
    }
    let mut refs = Vec::new();
    let mut sizes = Vec::new();
    for &f in &order {
        for (c, chunk) in files[f].chunks.iter().enumerate() {
            refs.push((f, c));
            sizes.push(size_of(chunk));
        }
    }
    let mut groups: Vec<Vec<(usize, usize)>> = match mode {
        PackOrder::Imports => {
            let adj = relations(files, &graph, &pos_of, order.len());
            let pieces: Vec<bins::Piece> = refs
                .iter()
                .zip(&sizes)
                .map(|(&(f, chunk), &size)| bins::Piece { file: pos_of[f], chunk, size })
                .collect();
            // Plain directory-order packing seeds one try.
            let paths: Vec<usize> = (0..files.len()).filter(|&f| include[f]).collect();
            let mut first = vec![0usize; files.len()];
            let mut at = 0;
            for &f in &order {
                first[f] = at;
                at += files[f].chunks.len();
            }
            let mut path_pos = vec![usize::MAX; files.len()];
            for (k, &f) in paths.iter().enumerate() {
                path_pos[f] = k;
            }
            let path_sizes: Vec<usize> =
                paths.iter().flat_map(|&f| files[f].chunks.iter().map(&size_of)).collect();
            let mut path_refs = Vec::new();
            for &f in &paths {
                for c in 0..files[f].chunks.len() {
                    path_refs.push(first[f] + c);
                }
            }
            let seed: Vec<Vec<usize>> =
                directory_cut(files, &graph, &paths, &path_pos, &path_sizes, room, crumb)
                    .into_iter()
                    .map(|bin| bin.into_iter().map(|x| path_refs[x]).collect())
                    .collect();
            let problem = bins::Problem { pieces: &pieces, adj: &adj, room, crumb, seed: &seed };
            bins::pack(&problem)
                .into_iter()
                .map(|bin| bin.into_iter().map(|x| refs[x]).collect())
                .collect()
        }
        PackOrder::Directory => directory_cut(files, &graph, &order, &pos_of, &sizes, room, crumb)
            .into_iter()
            .map(|bin| bin.into_iter().map(|x| refs[x]).collect())
            .collect(),
    };
    // Sizes above are exact for an additive unit; a BPE merges tokens across members, so
    // each pack is measured whole, and one over the budget gives its last members to a new
    // pack right after it.
    if !sizer.is_additive() {
        let mut k = 0;
        while k < groups.len() {
            let mut end = groups[k].len();
            while end > 1 && members_size(files, &groups[k][..end], config) > budget {
                end -= 1;
            }
            if end < groups[k].len() {
                let rest = groups[k].split_off(end);
                groups.insert(k + 1, rest);
            }
            k += 1;
        }
    }
    let mut packs: Vec<Pack> = groups
        .iter()
        .map(|g| Pack {
            members: g
                .iter()
                .map(|&(file, chunk)| Member { file, chunk, header_start: 0, body_start: 0 })
                .collect(),
            frame: String::new(),
            text: String::new(),
            size: 0,
            needs: Vec::new(),
            used_by: Vec::new(),
        })
        .collect();
    link(files, &graph, &mut packs);
    let count = packs.len();
    for (k, p) in packs.iter_mut().enumerate() {
        render(files, p, k, count, config);
    }
    let mut stats = stats(files, &graph, &packs, budget, largest_cycle);
    stats.l2_bound = bins::lower_bound_l2(&sizes, budget);
    stats.l2_room = bins::lower_bound_l2(&sizes, room);
    Packing { packs, graph, stats }
}

/// The optimal cutting of `order` (files with chunks) into packs of consecutive members
/// (`plan.rs`); returns each pack's members as indices into the chunks of `order` in turn.
fn directory_cut(
    files: &[FileResult],
    graph: &ImportGraph,
    order: &[usize],
    pos_of: &[usize],
    sizes: &[usize],
    room: usize,
    crumb: usize,
) -> Vec<Vec<usize>> {
    let mut adj: Vec<Vec<(usize, u64)>> = vec![Vec::new(); order.len()];
    for (u, out) in graph.out.iter().enumerate() {
        for &(v, w) in out {
            if pos_of[u] != usize::MAX && pos_of[v] != usize::MAX && u != v {
                adj[pos_of[u]].push((pos_of[v], u64::from(w)));
                adj[pos_of[v]].push((pos_of[u], u64::from(w)));
            }
        }
    }
    let mut items = Vec::new();
    for (pos, &f) in order.iter().enumerate() {
        let same_dir = pos > 0 && dir_of(&files[order[pos - 1]].rel) == dir_of(&files[f].rel);
        for _ in &files[f].chunks {
            items.push(Item {
                file_pos: pos,
                size: sizes[items.len()],
                same_dir_as_prev_file: same_dir,
            });
        }
    }
    let starts = plan::plan(&items, &Relations::new(adj), room, crumb);
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| (s..starts.get(k + 1).copied().unwrap_or(items.len())).collect())
        .collect()
}

/// Weight of two consecutive files of one folder (in path order) for the packer; an import
/// weighs [`IMPORT`] times its graph weight, so folders only break ties between imports.
const SAME_FOLDER: u64 = 1;
/// See [`SAME_FOLDER`].
const IMPORT: u64 = 16;

/// The packer's relations between files, by position in the pack order: import edges both
/// ways, and consecutive files of one folder (in path order) as a tie-break.
fn relations(
    files: &[FileResult],
    graph: &ImportGraph,
    pos_of: &[usize],
    n: usize,
) -> Vec<Vec<(usize, u64)>> {
    let mut edges: Vec<(usize, usize, u64)> = Vec::new();
    for (u, out) in graph.out.iter().enumerate() {
        for &(v, w) in out {
            let (a, b) = (pos_of[u], pos_of[v]);
            if a != usize::MAX && b != usize::MAX && a != b {
                edges.push((a, b, u64::from(w) * IMPORT));
                edges.push((b, a, u64::from(w) * IMPORT));
            }
        }
    }
    let mut prev: Option<usize> = None;
    for (f, file) in files.iter().enumerate() {
        if pos_of[f] == usize::MAX {
            continue;
        }
        if let Some(p) = prev
            && dir_of(&files[p].rel) == dir_of(&file.rel)
        {
            edges.push((pos_of[p], pos_of[f], SAME_FOLDER));
            edges.push((pos_of[f], pos_of[p], SAME_FOLDER));
        }
        prev = Some(f);
    }
    edges.sort_unstable();
    let mut adj: Vec<Vec<(usize, u64)>> = vec![Vec::new(); n];
    for (a, b, w) in edges {
        match adj[a].last_mut() {
            Some((c, s)) if *c == b => *s += w,
            _ => adj[a].push((b, w)),
        }
    }
    adj
}

fn dir_of(path: &str) -> &str {
    path.rfind('/').map_or("", |at| &path[..at])
}

fn members_text(files: &[FileResult], refs: &[(usize, usize)]) -> String {
    let mut text = String::new();
    for (k, &(f, c)) in refs.iter().enumerate() {
        let chunk = &files[f].chunks[c];
        text.push_str(&chunk.header);
        text.push_str(&chunk.text);
        if k + 1 < refs.len() && !chunk.text.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

fn members_size(files: &[FileResult], refs: &[(usize, usize)], config: &ChunkConfig) -> usize {
    config.sizer().size(&members_text(files, refs))
}

/// For each file, the packs that hold its chunks (ascending).
fn packs_of_files(files: &[FileResult], packs: &[Pack]) -> Vec<Vec<usize>> {
    let mut of = vec![Vec::new(); files.len()];
    for (k, p) in packs.iter().enumerate() {
        for m in &p.members {
            if of[m.file].last() != Some(&k) {
                of[m.file].push(k);
            }
        }
    }
    of
}

/// Fills `needs` and `used_by`: a file this pack imports that has no chunk here is defined by
/// the first pack that holds its chunks.
fn link(files: &[FileResult], graph: &ImportGraph, packs: &mut [Pack]) {
    let of = packs_of_files(files, packs);
    let mut used_by: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); packs.len()];
    for (k, p) in packs.iter_mut().enumerate() {
        let mut needs: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for m in &p.members {
            if !seen.insert(m.file) {
                continue;
            }
            for &(v, _) in &graph.out[m.file] {
                let Some(&q) = of[v].first() else { continue };
                if of[v].contains(&k) {
                    continue;
                }
                needs.entry(q).or_default().insert(v);
                used_by[q].insert(k);
            }
        }
        p.needs = needs
            .into_iter()
            .map(|(pack, fs)| PackLink {
                pack,
                files: fs.into_iter().map(|f| files[f].rel.clone()).collect(),
            })
            .collect();
    }
    for (p, users) in packs.iter_mut().zip(used_by) {
        p.used_by = users.into_iter().collect();
    }
}

/// The frame's lists, each shown up to a number of items.
struct FrameParts {
    title: String,
    covers: Vec<String>,
    defines: Vec<String>,
    needs: Vec<String>,
    used_by: Vec<String>,
}

impl FrameParts {
    fn of(files: &[FileResult], pack: &Pack, k: usize, count: usize) -> Self {
        let chunk = |m: &Member| -> &Chunk { &files[m.file].chunks[m.chunk] };
        // Files by folder, in pack order, with the chunks of a file this pack holds only some of.
        let mut dirs: Vec<(String, Vec<String>)> = Vec::new();
        let mut n_files = 0;
        let mut at = 0;
        while at < pack.members.len() {
            let file = pack.members[at].file;
            let mut end = at;
            while end < pack.members.len() && pack.members[end].file == file {
                end += 1;
            }
            n_files += 1;
            let rel = &files[file].rel;
            let (dir, name) = rel.rsplit_once('/').map_or(("", rel.as_str()), |(d, n)| (d, n));
            let total = files[file].chunks.len();
            let name = if end - at == total {
                name.to_owned()
            } else if end - at == 1 {
                format!("{name} (chunk {} of {total})", pack.members[at].chunk + 1)
            } else {
                let first = pack.members[at].chunk + 1;
                format!("{name} (chunks {first}-{} of {total})", first + end - at - 1)
            };
            let dir = if dir.is_empty() { "./".to_owned() } else { format!("{dir}/") };
            // A folder once, where it first appears: a pack's files come in import order and
            // may alternate between folders.
            match dirs.iter_mut().find(|(d, _)| *d == dir) {
                Some((_, names)) => names.push(name),
                None => dirs.push((dir, vec![name])),
            }
            at = end;
        }
        let covers =
            dirs.into_iter().map(|(d, names)| format!("{d} {}", names.join(", "))).collect();
        // Top-level names first: fewest separators, then pack order.
        let mut symbols: Vec<(usize, usize, &str)> = Vec::new();
        let mut seen = BTreeSet::new();
        for m in &pack.members {
            for s in &chunk(m).symbols {
                let last = s.rsplit([':', '.']).next().unwrap_or(s);
                if last.starts_with('_') || !seen.insert(s.as_str()) {
                    continue;
                }
                let depth = s.matches("::").count() + s.matches('.').count();
                symbols.push((depth, symbols.len(), s));
            }
        }
        symbols.sort_unstable();
        let defines = symbols.into_iter().map(|(_, _, s)| s.to_owned()).collect();
        let needs = pack
            .needs
            .iter()
            .map(|l| format!("pack {} ({})", l.pack + 1, l.files.join(", ")))
            .collect();
        let used_by = pack.used_by.iter().map(|u| format!("pack {}", u + 1)).collect();
        let title = format!(
            "[cleave pack {} of {count}: {n_files} file{}, {} chunk{}]",
            k + 1,
            if n_files == 1 { "" } else { "s" },
            pack.members.len(),
            if pack.members.len() == 1 { "" } else { "s" },
        );
        Self { title, covers, defines, needs, used_by }
    }

    /// The frame with each list (covers, defines, needs, used by) cut to `most` items
    /// (`None`: title only).
    fn render(&self, most: Option<[usize; 4]>) -> String {
        let mut out = self.title.clone();
        out.push('\n');
        let Some(most) = most else {
            out.push('\n');
            return out;
        };
        let mut list = |label: &str, items: &[String], sep: &str, most: usize| {
            if items.is_empty() {
                return;
            }
            out.push_str(label);
            if most == 0 {
                out.push_str(&format!("{} (not listed)", items.len()));
            } else {
                out.push_str(&items[..items.len().min(most)].join(sep));
                if items.len() > most {
                    out.push_str(&format!("{sep}… +{} more", items.len() - most));
                }
            }
            out.push('\n');
        };
        list("covers: ", &self.covers, "; ", most[0]);
        list("defines: ", &self.defines, ", ", most[1]);
        list("needs: ", &self.needs, ", ", most[2]);
        list("used by: ", &self.used_by, ", ", most[3]);
        out.push('\n');
        out
    }
}

/// Renders a pack: the fullest frame within the reserve that fits beside the members, then
/// the members.
fn render(files: &[FileResult], pack: &mut Pack, k: usize, count: usize, config: &ChunkConfig) {
    let refs: Vec<(usize, usize)> = pack.members.iter().map(|m| (m.file, m.chunk)).collect();
    let members = members_text(files, &refs);
    let sizer = config.sizer();
    let additive = sizer.is_additive();
    let members_size = if additive { sizer.size(&members) } else { 0 };
    let parts = FrameParts::of(files, pack, k, count);
    let mut chosen = None;
    // Short: at most the reserve, whatever room the members leave. Symbols give way first,
    // then the packs that use this one, then the folders and the packs it needs.
    let reserve = frame_reserve(config.budget());
    const ALL: usize = usize::MAX;
    let levels = [
        [ALL, ALL, ALL, ALL],
        [24, 24, 24, 24],
        [12, 12, 12, 12],
        [8, 6, 8, 6],
        [6, 3, 6, 3],
        [4, 2, 4, 2],
        [3, 1, 3, 1],
        [2, 0, 2, 0],
        [1, 0, 1, 0],
        [0, 0, 0, 0],
    ];
    for most in levels.into_iter().map(Some).chain([None]) {
        let frame = parts.render(most);
        if sizer.size(&frame) > reserve && most.is_some() {
            continue;
        }
        let size = if additive {
            sizer.size(&frame) + members_size
        } else {
            sizer.size(&format!("{frame}{members}"))
        };
        if size <= config.budget() {
            chosen = Some((frame, size));
            break;
        }
    }
    let (frame, size) = chosen.unwrap_or_else(|| (String::new(), sizer.size(&members)));
    let mut at = frame.len();
    for (m, &(f, c)) in pack.members.iter_mut().zip(&refs) {
        let chunk = &files[f].chunks[c];
        m.header_start = at;
        m.body_start = at + chunk.header.len();
        at = m.body_start + chunk.text.len();
        if !chunk.text.ends_with('\n') {
            at += 1;
        }
    }
    pack.text = frame.clone() + &members;
    pack.frame = frame;
    pack.size = size;
}

fn stats(
    files: &[FileResult],
    graph: &ImportGraph,
    packs: &[Pack],
    budget: usize,
    largest_cycle: usize,
) -> PackStats {
    let of = packs_of_files(files, packs);
    let (mut edges, mut local) = (0u64, 0u64);
    for (u, out) in graph.out.iter().enumerate() {
        for &(v, w) in out {
            if u == v || of[u].is_empty() || of[v].is_empty() {
                continue;
            }
            edges += u64::from(w);
            if of[u].iter().any(|p| of[v].contains(p)) {
                local += u64::from(w);
            }
        }
    }
    let content: usize =
        packs.iter().flat_map(|p| &p.members).map(|m| files[m.file].chunks[m.chunk].tokens).sum();
    let crumb = budget.div_ceil(20);
    let crumbs = packs
        .iter()
        .filter(|p| {
            p.members.iter().map(|m| files[m.file].chunks[m.chunk].tokens).sum::<usize>() < crumb
        })
        .count();
    PackStats {
        files: of.iter().filter(|p| !p.is_empty()).count(),
        members: packs.iter().map(|p| p.members.len()).sum(),
        packs: packs.len(),
        crumbs,
        content,
        lower_bound: content.div_ceil(budget),
        l2_bound: 0,
        l2_room: 0,
        resolved: graph.resolved,
        unresolved: graph.unresolved,
        edges: edges as f64 / f64::from(graph::WHOLE),
        locality: if edges == 0 { 0.0 } else { local as f64 / edges as f64 },
        largest_cycle,
    }
}

#[cfg(test)]
mod tests {
    use cleave_core::{Tokenizer, Unit};

    use super::*;
    use crate::file::Settings;
    use crate::tree::chunk_bytes;

    fn run(sources: &[(&str, String)], budget: usize, unit: Unit) -> (Vec<FileResult>, Packing) {
        let config = ChunkConfig::new(budget, unit).expect("config");
        run_with(sources, &config, member_config(&config).expect("member config"))
    }

    /// Chunks `sources` at `member` and packs them under `config`.
    fn run_with(
        sources: &[(&str, String)],
        config: &ChunkConfig,
        member: ChunkConfig,
    ) -> (Vec<FileResult>, Packing) {
        let settings = Settings::new(member);
        let files: Vec<FileResult> = sources
            .iter()
            .map(|(rel, text)| chunk_bytes(rel, text.clone().into_bytes(), &settings))
            .collect();
        let packing = pack(&files, config, PackOrder::Imports);
        (files, packing)
    }

    fn module(name: &str, import: &str, n: usize) -> String {
        let body: String = (0..n)
            .map(|i| {
                format!("def {name}_{i}(x):\n    \"\"\"Adds {i}.\"\"\"\n    return x + {i}\n\n\n")
            })
            .collect();
        format!("{import}\n\n\n{body}")
    }

    fn sources() -> Vec<(&'static str, String)> {
        vec![
            ("pkg/__init__.py", "from .core import run\n".to_owned()),
            ("pkg/core.py", module("core", "from pkg.util import helper", 40)),
            ("pkg/mid.py", module("mid", "import os", 25)),
            ("pkg/util.py", module("util", "from pkg import core", 3)),
            ("README.md", "# Title\n\nSome words about the package.\n".to_owned()),
        ]
    }

    #[test]
    fn packs_give_every_file_back_and_stay_within_budget() {
        for (budget, unit) in
            [(600, Unit::Chars), (1500, Unit::Chars), (400, Unit::Tokens(Tokenizer::O200k))]
        {
            let (files, packing) = run(&sources(), budget, unit);
            let mut rebuilt = vec![String::new(); files.len()];
            for p in &packing.packs {
                assert!(p.size <= budget, "{} > {budget}", p.size);
                assert_eq!(p.size, unit.sizer().size(&p.text));
                assert!(p.text.starts_with(&p.frame));
                for m in &p.members {
                    let chunk = &files[m.file].chunks[m.chunk];
                    assert_eq!(rebuilt[m.file].len(), chunk.byte_start, "in order, no gap");
                    assert_eq!(&p.text[m.header_start..m.body_start], chunk.header);
                    let body = &p.text[m.body_start..m.body_start + chunk.text.len()];
                    assert_eq!(body, chunk.text);
                    rebuilt[m.file].push_str(body);
                }
            }
            for ((_, text), got) in sources().iter().zip(&rebuilt) {
                assert_eq!(text, got);
            }
            assert_eq!(packing.stats.members, files.iter().map(|f| f.chunks.len()).sum::<usize>());
            assert!(packing.stats.packs >= packing.stats.lower_bound);
        }
    }

    /// Four modules of about 1.25 member budgets: balanced members are two parts of about
    /// 0.63 each, no two of which share a pack (8 packs); members cut to fill (the packs'
    /// own) are a full part and a small one each, the small ones sharing packs.
    #[test]
    fn members_cut_to_fill_take_fewer_packs() {
        let sources: Vec<(&str, String)> = ["a", "b", "c", "d"]
            .iter()
            .zip(["pkg/a.py", "pkg/b.py", "pkg/c.py", "pkg/d.py"])
            .map(|(name, rel)| (rel, module(name, "import os", 35)))
            .collect();
        let config = ChunkConfig::new(1500, Unit::Chars).expect("config");
        let balanced = ChunkConfig::new(member_budget(1500), Unit::Chars).expect("balanced");
        let (even_files, even) = run_with(&sources, &config, balanced);
        let (files, fill) = run_with(&sources, &config, member_config(&config).expect("fill"));
        for f in even_files.iter().chain(&files) {
            assert_eq!(f.chunks.len(), 2, "{}", f.rel);
        }
        for p in &fill.packs {
            assert!(p.size <= 1500, "{}", p.size);
        }
        assert_eq!(even.stats.packs, 8);
        assert!(fill.stats.packs <= 6, "{} packs", fill.stats.packs);
        assert!(fill.stats.l2_bound < even.stats.l2_bound);
        // Each file's chunks in order across the packs, every byte once.
        let mut rebuilt = vec![String::new(); files.len()];
        for p in &fill.packs {
            for m in &p.members {
                rebuilt[m.file].push_str(&files[m.file].chunks[m.chunk].text);
            }
        }
        for ((_, text), got) in sources.iter().zip(&rebuilt) {
            assert_eq!(text, got);
        }
    }

    #[test]
    fn the_cycle_comes_first_and_dependencies_before_users() {
        let (files, packing) = run(&sources(), 100_000, Unit::Chars);
        // Everything fits one pack; the order inside it is the import order.
        assert_eq!(packing.packs.len(), 1);
        let order: Vec<&str> =
            packing.packs[0].members.iter().map(|m| files[m.file].rel.as_str()).collect();
        // core ↔ util is a cycle (one group, path order), `__init__` imports core; mid and
        // the README stand alone, in path order.
        assert_eq!(
            order,
            ["pkg/core.py", "pkg/util.py", "pkg/__init__.py", "pkg/mid.py", "README.md"]
        );
        assert_eq!(packing.stats.largest_cycle, 2);
        assert_eq!(packing.stats.locality, 1.0);
        let frame = &packing.packs[0].frame;
        assert!(frame.starts_with("[cleave pack 1 of 1: 5 files, 5 chunks]\n"), "{frame}");
        assert!(frame.contains("defines: core_0"), "{frame}");
    }
}
