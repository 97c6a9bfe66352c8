//! LaTeX atomizer: the preamble, the sectioning hierarchy, environments, math and sentences.
//!
//! A small scanner of our own ([`scan`]) finds comments, `\verb`, verbatim-like environments,
//! math, `\begin`/`\end` pairs, sectioning commands and blank lines; this module turns what it
//! found into an atom tree:
//!
//! - the preamble (up to `\begin{document}`) is one scope atom, `preamble`;
//! - `\part` … `\subparagraph` open [`AtomKind::Section`] scopes labelled with their title, so
//!   headers read `Methods > Estimation`;
//! - blank lines and block-level environments (theorems, proofs, figures, tables, algorithms,
//!   listings, lists) cut the body into blocks; display math stays inside the paragraph whose
//!   sentence it belongs to;
//! - paragraphs are cut into sentences, and sentences into text, inline math and display math,
//!   so an oversize paragraph splits between sentences and never inside a formula;
//! - environments and math are protected: they stay whole while they fit, and when they do not
//!   their parts carry `\begin{name}` in the header.
//!
//! Keep-together rules are part of the tree: a theorem and the proof after it form one group,
//! the heading sticks to its first block, and display formulas joined by short connecting
//! sentences are separated by weak boundaries only.

mod envs;
mod rows;
mod scan;

use std::ops::Range;

use cleave_core::{
    Atom, AtomKind, AtomLabel, AtomTree, Boundary, CommentStyle, ContentKind, Diagnostic, Region,
    Severity, atomize_blocks, blocks, tile,
};

use envs::{EnvClass, env_class};
use scan::{Node, NodeKind, Scan, blank_run};

/// Longest label or signature kept in headers, in chars.
const MAX_LABEL: usize = 100;
/// A paragraph this short (in bytes) next to a display formula reads as a connecting sentence.
const SHORT_CONNECTOR: usize = 240;

/// Atomizes LaTeX source.
pub(crate) fn atomize(text: &str) -> AtomTree {
    let scan = scan::scan(text);
    let builder =
        Builder { text, b: text.as_bytes(), nodes: &scan.nodes, theorems: &scan.theorems };
    let root = builder.root(&scan);
    let Scan { mut diagnostics, .. } = scan;
    let root = match root.validate(text) {
        Ok(()) => root,
        Err(e) => {
            // A bug guard: the builder tiles by construction, but nothing may ever be lost.
            diagnostics.push(Diagnostic::new(
                Severity::Fallback,
                format!("LaTeX atom tree was invalid ({e}): fell back to blank-line blocks"),
            ));
            atomize_blocks(text, "latex", ContentKind::Prose).root
        }
    };
    let mut tree = AtomTree::new("latex", ContentKind::Prose, root);
    tree.comment = CommentStyle::line("%");
    tree.diagnostics = diagnostics;
    tree
}

/// A block of a body with what the keep-together rules need to know about it.
struct Block {
    atom: Atom,
    /// The class of an environment standing alone (display math counts as `Math`).
    class: Option<EnvClass>,
}

struct Builder<'a> {
    text: &'a str,
    b: &'a [u8],
    nodes: &'a [Node],
    theorems: &'a [String],
}

impl Builder<'_> {
    fn root(&self, scan: &Scan) -> Atom {
        let n = self.text.len();
        let mut children = Vec::new();
        let mut body_start = 0;
        if let Some(begin) = &scan.doc_begin {
            body_start = line_start(self.b, begin.start);
            if body_start > 0 {
                let items = self.within(&scan.roots, &(0..body_start));
                children.push(self.preamble(0..body_start, &items));
            }
        }
        let body_end =
            scan.doc_end.as_ref().map_or(n, |end| line_start(self.b, end.start).max(body_start));
        let items = self.within(&scan.roots, &(body_start..body_end));
        children.extend(self.flow(body_start..body_end, &items));
        if body_end < n {
            let tail = group(self.plain_blocks(body_end..n), body_end..n, Boundary::Section);
            children.push(tail);
        }
        let mut root = Atom::new(AtomKind::Block, 0..n);
        if children.len() > 1 || children.first().is_some_and(|c| c.range != root.range) {
            root = root.with_children(children);
        } else if let Some(only) = children.pop() {
            root = Atom { boundary: Boundary::Section, ..only };
        }
        root
    }

    /// The preamble: a scope atom of blocks (environments in it, such as `filecontents`, are
    /// protected like anywhere else; sectioning commands in macro definitions mean nothing).
    fn preamble(&self, range: Range<usize>, items: &[usize]) -> Atom {
        let label = AtomLabel { label: "preamble".to_owned(), ..AtomLabel::default() };
        let mut atom = group(self.blocks(range.clone(), items), range, Boundary::Section);
        atom.kind = AtomKind::Block;
        atom.with_label(label).with_scope(true)
    }

    /// Blank-line blocks of lines (core's generic atomizer), flattened when there is one.
    fn plain_blocks(&self, range: Range<usize>) -> Vec<Atom> {
        let mut out = blocks(self.text, range);
        if out.len() == 1 {
            let only = out.pop().expect("one block");
            return if only.children.is_empty() { vec![only] } else { only.children };
        }
        out
    }

    /// The nodes of `items` that lie wholly inside `range`.
    fn within(&self, items: &[usize], range: &Range<usize>) -> Vec<usize> {
        items
            .iter()
            .copied()
            .filter(|&i| {
                let r = &self.nodes[i].range;
                range.start <= r.start && r.end <= range.end
            })
            .collect()
    }

    // ---- sections ----------------------------------------------------------------------

    /// A body: sections at the outermost level present, and the blocks before them.
    fn flow(&self, range: Range<usize>, items: &[usize]) -> Vec<Atom> {
        if range.is_empty() {
            return Vec::new();
        }
        let level = items
            .iter()
            .filter_map(|&i| match self.nodes[i].kind {
                NodeKind::Section { level, .. } => Some(level),
                _ => None,
            })
            .min();
        let Some(level) = level else {
            return self.blocks(range, items);
        };
        let mut heads: Vec<(usize, usize)> = Vec::new();
        for &i in items {
            if matches!(self.nodes[i].kind, NodeKind::Section { level: l, .. } if l == level) {
                let start = block_start(self.b, self.nodes[i].range.start, range.start);
                if heads.last().is_none_or(|&(_, s)| start > s) {
                    heads.push((i, start));
                }
            }
        }
        let mut out = Vec::new();
        let first = heads[0].1;
        if first > range.start {
            let pre = range.start..first;
            out.extend(self.blocks(pre.clone(), &self.within(items, &pre)));
        }
        for (k, &(head, start)) in heads.iter().enumerate() {
            let end = heads.get(k + 1).map_or(range.end, |h| h.1);
            let sec = start..end;
            out.push(self.section(head, sec.clone(), &self.within(items, &sec)));
        }
        out
    }

    /// One section: its heading line, then its body.
    fn section(&self, head: usize, range: Range<usize>, items: &[usize]) -> Atom {
        let node = &self.nodes[head];
        let title = match &node.kind {
            NodeKind::Section { title, .. } => clean_title(&self.text[title.clone()]),
            _ => String::new(),
        };
        let title = if title.is_empty() { "(untitled)".to_owned() } else { title };
        // The heading takes the rest of its line when that holds only a label or a comment,
        // and the blank lines after it.
        let mut heading_end = node.range.end;
        let eol = line_end_incl(self.b, heading_end);
        let rest = self.text[heading_end..eol].trim_start();
        if rest.is_empty() || rest.starts_with('%') || rest.starts_with("\\label") {
            let other = items.iter().any(|&i| {
                i != head
                    && self.nodes[i].is_region()
                    && (heading_end..eol).contains(&self.nodes[i].range.start)
            });
            if !other {
                heading_end = eol;
            }
        }
        if heading_end > 0
            && self.b[heading_end - 1] == b'\n'
            && let Some(end) = blank_run(self.b, heading_end)
        {
            heading_end = end;
        }
        heading_end = heading_end.min(range.end);
        let label = AtomLabel { label: title, ..AtomLabel::default() };
        let atom = Atom::new(AtomKind::Section, range.clone())
            .with_scope(true)
            .with_boundary(Boundary::Section)
            .with_label(label);
        let body_range = heading_end..range.end;
        let mut body = self.flow(body_range.clone(), &self.within(items, &body_range));
        if body.is_empty() {
            return atom;
        }
        // The heading sticks to its first block.
        body[0].boundary = Boundary::Line;
        let mut children = vec![Atom::new(AtomKind::Block, range.start..heading_end)];
        children.extend(body);
        atom.with_children(children)
    }

    // ---- blocks ------------------------------------------------------------------------

    /// Blocks of a body without sections: cut at blank lines and around block-level
    /// environments, then grouped by the keep-together rules.
    fn blocks(&self, range: Range<usize>, items: &[usize]) -> Vec<Atom> {
        if range.is_empty() {
            return Vec::new();
        }
        let mut cuts: Vec<(usize, Boundary)> = Vec::new();
        for &i in items {
            let node = &self.nodes[i];
            match &node.kind {
                NodeKind::Blank => cuts.push((node.range.end, Boundary::Paragraph)),
                NodeKind::Env { name, .. } | NodeKind::Verbatim(name)
                    if env_class(name, self.theorems).is_block() =>
                {
                    let start = block_start(self.b, node.range.start, range.start);
                    if start != line_start(self.b, node.range.start).max(range.start) {
                        continue;
                    }
                    // Comment lines right above an environment describe it: they lead its block.
                    let start = comment_lead(self.b, start, range.start);
                    // A block inside a running sentence ("… for example, as" + a quote) stays
                    // in its paragraph: no cut before it, and none after it when the sentence
                    // goes on in lower case.
                    let before = self.text[range.start..start].trim_end();
                    let mid_sentence =
                        before.chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == ',');
                    if !mid_sentence || before.lines().last().is_some_and(is_command_line) {
                        cuts.push((start, Boundary::Line));
                    }
                    let eol = line_end_incl(self.b, node.range.end).min(range.end);
                    let rest = self.text[node.range.end..eol].trim_start();
                    let after =
                        if rest.is_empty() || rest.starts_with('%') { eol } else { node.range.end };
                    let goes_on =
                        self.text[after..range.end].trim_start().starts_with(char::is_lowercase);
                    if !goes_on {
                        cuts.push((after, Boundary::Line));
                    }
                }
                _ => {}
            }
        }
        cuts.retain(|&(at, _)| range.start < at && at < range.end);
        cuts.sort_by_key(|&(at, b)| (at, std::cmp::Reverse(b)));
        cuts.dedup_by_key(|c| c.0);
        // Segments with the boundary before each; one holding only white space joins the one
        // before it (the first joins the one after it).
        let mut segs: Vec<(Range<usize>, Boundary)> = Vec::new();
        let mut at = range.start;
        let mut before = Boundary::Paragraph;
        for &(cut, boundary) in
            cuts.iter().chain(std::iter::once(&(range.end, Boundary::Paragraph)))
        {
            let seg = at..cut;
            let blank = self.text[seg.clone()].trim().is_empty();
            match segs.last_mut() {
                Some(last) if blank => last.0.end = seg.end,
                _ => segs.push((seg, before)),
            }
            at = cut;
            before = boundary;
        }
        if segs.len() > 1 && self.text[segs[0].0.clone()].trim().is_empty() {
            let first = segs.remove(0);
            segs[0].0.start = first.0.start;
            segs[0].1 = first.1;
        }
        let mut out: Vec<Block> = Vec::with_capacity(segs.len());
        for (seg, before) in segs {
            let mut block = self.segment(seg.clone(), &self.within(items, &seg));
            block.atom.boundary = before;
            out.push(block);
        }
        self.keep_together(out)
    }

    /// One block: an environment or display standing alone, or a paragraph.
    fn segment(&self, range: Range<usize>, items: &[usize]) -> Block {
        let regions: Vec<usize> =
            items.iter().copied().filter(|&i| self.nodes[i].is_region()).collect();
        if let [only] = regions[..] {
            let node = &self.nodes[only];
            let alone = only_comments(&self.text[range.start..node.range.start])
                && self.text[node.range.end..range.end].trim().is_empty();
            if alone {
                match &node.kind {
                    NodeKind::Env { name, .. } | NodeKind::Verbatim(name) => {
                        let class = env_class(name, self.theorems);
                        // Comment lines leading the environment go with it while both fit;
                        // the environment alone stays whole when only it fits.
                        let start = block_start(self.b, node.range.start, range.start);
                        if self.text[range.start..start].trim().is_empty() {
                            return Block { atom: self.env_atom(only, range), class: Some(class) };
                        }
                        let env = self.env_atom(only, start..range.end);
                        let children = vec![
                            Atom::new(AtomKind::Block, range.start..start),
                            env.with_boundary(Boundary::Word),
                        ];
                        let atom = Atom::new(AtomKind::Block, range).with_children(children);
                        return Block { atom, class: Some(class) };
                    }
                    NodeKind::Math { display: true } => {
                        let atom = display_math(range);
                        return Block { atom, class: Some(EnvClass::Math) };
                    }
                    _ => {}
                }
            }
        }
        Block { atom: self.paragraph(range, &regions), class: None }
    }

    /// Applies the keep-together rules to a body's blocks.
    fn keep_together(&self, blocks: Vec<Block>) -> Vec<Atom> {
        let is_display = |b: &Block| b.class == Some(EnvClass::Math);
        let is_short = |b: &Block| b.class.is_none() && b.atom.len() <= SHORT_CONNECTOR;
        let mut blocks = blocks;
        // A chain of display formulas joined by short connecting sentences: weak boundaries.
        for i in 1..blocks.len() {
            let (prev, cur) = (&blocks[i - 1], &blocks[i]);
            let leads_in = prev.class.is_none() && {
                let t = self.text[prev.atom.range.clone()].trim_end();
                !t.ends_with('.') && !t.ends_with('}')
            };
            // A definition, theorem or algorithm and the paragraph that introduces it
            // ("… is defined as follows:", "Algorithm~\ref{alg:sgd} states the method.").
            let introduced = matches!(
                cur.class,
                Some(EnvClass::Definition | EnvClass::Theorem | EnvClass::Algorithm)
            ) && prev.class.is_none()
                && (leads_in || {
                    let t = &self.text[prev.atom.range.clone()];
                    cur.class == Some(EnvClass::Algorithm)
                        && (t.contains("\\ref{alg") || t.contains("Algorithm~\\ref"))
                });
            let soft = (is_display(cur) && (is_display(prev) || is_short(prev) || leads_in))
                || (is_display(prev) && (is_short(cur) || self.starts_lowercase(&cur.atom)))
                || introduced;
            if soft {
                blocks[i].atom.boundary = blocks[i].atom.boundary.min(Boundary::Line);
            }
        }
        // A theorem and the proof right after it form one group.
        let mut out: Vec<Atom> = Vec::with_capacity(blocks.len());
        let mut it = blocks.into_iter().peekable();
        while let Some(block) = it.next() {
            let statement = matches!(block.class, Some(EnvClass::Theorem | EnvClass::Definition));
            if statement && it.peek().is_some_and(|b| b.class == Some(EnvClass::Proof)) {
                let proof = it.next().expect("peeked").atom;
                let range = block.atom.range.start..proof.range.end;
                let boundary = block.atom.boundary;
                let children = vec![block.atom, proof.with_boundary(Boundary::Line)];
                out.push(
                    Atom::new(AtomKind::Block, range)
                        .with_boundary(boundary)
                        .with_children(children),
                );
            } else {
                out.push(block.atom);
            }
        }
        out
    }

    fn starts_lowercase(&self, atom: &Atom) -> bool {
        self.text[atom.range.clone()].trim_start().chars().next().is_some_and(char::is_lowercase)
    }

    // ---- environments --------------------------------------------------------------------

    /// An environment (or verbatim-like environment) whose atom covers `outer`.
    fn env_atom(&self, idx: usize, outer: Range<usize>) -> Atom {
        let node = &self.nodes[idx];
        let (name, inner, container) = match &node.kind {
            NodeKind::Env { name, inner, container } => {
                (name.as_str(), Some(inner.clone()), *container)
            }
            NodeKind::Verbatim(name) => (name.as_str(), None, false),
            _ => ("", None, false),
        };
        let class = if container { EnvClass::Container } else { env_class(name, self.theorems) };
        let eol = line_end_incl(self.b, node.range.start).min(node.range.end);
        let signature = shorten(self.text[node.range.start..eol].trim());
        let label =
            AtomLabel { label: name.to_owned(), name: None, signature: Some(signature.clone()) };
        let kind = if class.is_protected() { AtomKind::Protected } else { AtomKind::Block };
        let mut atom = Atom::new(kind, outer.clone())
            .with_protected(class.is_protected())
            .with_boundary(Boundary::Paragraph)
            .with_label(label);
        atom.region = class.region(name);
        if class.is_line_based_env(name) || inner.is_none() {
            // Rows or lines; regions nested inside (a picture in a long table, math in a cell)
            // stay protected when the environment must be split at its lines.
            let regions: Vec<usize> =
                node.children.iter().copied().filter(|&i| self.nodes[i].is_region()).collect();
            // Tables and alignments are cut between rows, never mid-row, where they must be.
            let by_rows = inner.is_some() && matches!(class, EnvClass::Table | EnvClass::Math);
            // Blank lines inside (between BibTeX entries, code paragraphs, groups of table
            // rows) are the best places to cut.
            let parts = blocks(self.text, outer.clone());
            if parts.len() > 1 || by_rows {
                let mut inside = 0;
                let mut children = Vec::with_capacity(parts.len());
                for (k, part) in parts.into_iter().enumerate() {
                    let boundary = if children.is_empty() { Boundary::Line } else { part.boundary };
                    let rows = if by_rows {
                        rows::table_rows(self.text, part.range.clone(), k == 0)
                    } else {
                        vec![part.range.clone()]
                    };
                    if k == 0 && class == EnvClass::Table {
                        atom.label.as_mut().expect("labelled").signature =
                            Some(self.table_signature(&rows, &signature));
                    }
                    let single = rows.len() == 1;
                    let mut cells = Vec::with_capacity(rows.len());
                    for (r, row) in rows.into_iter().enumerate() {
                        let items = self.within(&regions, &row);
                        inside += items.len();
                        let b = if r == 0 { Boundary::Line } else { Boundary::Sentence };
                        let cell = if !items.is_empty() {
                            self.inline(row, &items, Boundary::Paragraph)
                        } else if single {
                            part.clone()
                        } else {
                            Atom::new(AtomKind::Block, row)
                        };
                        cells.push(cell.with_boundary(b));
                    }
                    let part = if single {
                        cells.pop().expect("one row")
                    } else {
                        Atom::new(AtomKind::Block, part.range.clone()).with_children(cells)
                    };
                    children.push(part.with_boundary(boundary));
                }
                if inside == regions.len() {
                    if children.len() > 1 {
                        return atom.with_children(children);
                    }
                    let only = children.pop().expect("one part");
                    if !only.children.is_empty() {
                        return atom.with_children(only.children);
                    }
                    if regions.is_empty() {
                        return atom;
                    }
                }
            }
            if regions.is_empty() {
                return atom;
            }
            let inside = self.inline(outer.clone(), &regions, Boundary::Paragraph);
            return atom.with_children(inside.children);
        }
        let Some(inner) = inner else { return atom };
        // Begin line, body, end line.
        let open_end = line_end_incl(self.b, inner.start).max(inner.start);
        let close_start = block_start(self.b, inner.end, inner.start);
        if open_end >= close_start || open_end <= outer.start || close_start >= outer.end {
            return atom;
        }
        let middle = open_end..close_start;
        let items = self.within(&node.children, &middle);
        let mut body = if class == EnvClass::List {
            self.list_items(middle, &items)
        } else if class == EnvClass::Algorithm
            && !name.starts_with("algorithm*")
            && name != "algorithm"
        {
            self.steps(middle.clone(), &items).unwrap_or_else(|| self.flow(middle, &items))
        } else {
            self.flow(middle, &items)
        };
        if body.is_empty() {
            return atom;
        }
        body[0].boundary = Boundary::Line;
        let mut children = vec![Atom::new(AtomKind::Block, outer.start..open_end)];
        children.extend(body);
        children
            .push(Atom::new(AtomKind::Block, close_start..outer.end).with_boundary(Boundary::Line));
        atom.with_children(children)
    }

    /// The steps of an algorithm body (`\State`, `\If`, …), each a block cut from the next
    /// rather than inside it; `None` when a region nested in the body crosses a step.
    fn steps(&self, range: Range<usize>, items: &[usize]) -> Option<Vec<Atom>> {
        let steps = rows::algorithm_steps(self.text, range);
        if steps.len() < 2 {
            return None;
        }
        let mut inside = 0;
        let mut out = Vec::with_capacity(steps.len());
        for step in steps {
            let within = self.within(items, &step);
            inside += within.len();
            let atom = if within.is_empty() {
                Atom::new(AtomKind::Block, step)
            } else {
                self.inline(step, &within, Boundary::Paragraph)
            };
            out.push(atom.with_boundary(Boundary::Sentence));
        }
        (inside == items.len()).then_some(out)
    }

    /// The signature a table's parts repeat: its begin line, and its header row when a rule
    /// sets it off (`Value & Mnemonic \\ \hline`), one header line per source line.
    fn table_signature(&self, rows: &[Range<usize>], begin: &str) -> String {
        let Some(first) = rows.first().filter(|_| rows.len() > 2) else {
            return begin.to_owned();
        };
        let text = &self.text[first.clone()];
        let ruled = text.lines().skip(1).any(|l| {
            let l = l.trim();
            l.starts_with("\\hline") || l.starts_with("\\midrule") || l.ends_with("\\hline")
        });
        if !ruled || text.chars().count() > 3 * MAX_LABEL {
            return begin.to_owned();
        }
        text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
    }

    /// The items of a list, each a group of its blocks.
    fn list_items(&self, range: Range<usize>, items: &[usize]) -> Vec<Atom> {
        let mut starts: Vec<usize> = Vec::new();
        for &i in items {
            if self.nodes[i].kind == NodeKind::Item {
                let start = block_start(self.b, self.nodes[i].range.start, range.start);
                if starts.last().is_none_or(|&s| start > s) {
                    starts.push(start);
                }
            }
        }
        if starts.is_empty() {
            return self.flow(range, items);
        }
        let mut out = Vec::new();
        if starts[0] > range.start {
            let pre = range.start..starts[0];
            out.extend(self.flow(pre.clone(), &self.within(items, &pre)));
        }
        for (k, &start) in starts.iter().enumerate() {
            let r = start..starts.get(k + 1).copied().unwrap_or(range.end);
            let atoms = self.flow(r.clone(), &self.within(items, &r));
            out.push(group(atoms, r, Boundary::Paragraph));
        }
        out
    }

    // ---- paragraphs and sentences ------------------------------------------------------

    /// A paragraph: its sentences, each made of text, inline math and displays.
    fn paragraph(&self, range: Range<usize>, regions: &[usize]) -> Atom {
        let sentences = self.sentences(&range, regions);
        if sentences.len() <= 1 {
            return self.inline(range, regions, Boundary::Paragraph);
        }
        let children = sentences
            .into_iter()
            .map(|r| {
                let inside = self.within(regions, &r);
                self.inline(r, &inside, Boundary::Sentence)
            })
            .collect();
        Atom::new(AtomKind::Block, range).with_boundary(Boundary::Paragraph).with_children(children)
    }

    /// Sentence ranges of a paragraph: a sentence ends at `.`, `?` or `!` outside braces and
    /// math, followed by white space and a capital (or a command, math, a digit), unless the
    /// word before is an abbreviation; or after display math that ends with a period, when a
    /// capital follows.
    fn sentences(&self, range: &Range<usize>, regions: &[usize]) -> Vec<Range<usize>> {
        let b = self.b;
        let mut starts = vec![range.start];
        let mut depth = 0usize;
        let mut ri = 0;
        let mut j = range.start;
        while j < range.end {
            while ri < regions.len() && self.nodes[regions[ri]].range.start < j {
                ri += 1;
            }
            if ri < regions.len() && self.nodes[regions[ri]].range.start == j {
                let node = &self.nodes[regions[ri]];
                j = node.range.end;
                ri += 1;
                if depth == 0
                    && self.ends_with_period(node)
                    && let Some(next) = self.next_sentence(j, range.end)
                {
                    starts.push(next);
                    j = next;
                }
                continue;
            }
            match b[j] {
                b'\\' => {
                    j += 1;
                    if j < range.end && b[j].is_ascii_alphabetic() {
                        while j < range.end && b[j].is_ascii_alphabetic() {
                            j += 1;
                        }
                    } else if j < range.end && b[j] != b'\n' {
                        j += 1;
                    }
                    continue;
                }
                b'%' => {
                    j = line_end_incl(b, j).min(range.end);
                    continue;
                }
                b'{' => depth += 1,
                b'}' => depth = depth.saturating_sub(1),
                b'.' | b'?' | b'!' if depth == 0 && !(b[j] == b'.' && self.is_abbreviation(j)) => {
                    let mut k = j + 1;
                    while k < range.end && matches!(b[k], b')' | b'\'' | b'"') {
                        k += 1;
                    }
                    if k < range.end
                        && b[k].is_ascii_whitespace()
                        && let Some(next) = self.next_sentence(k, range.end)
                    {
                        starts.push(next);
                        j = next;
                        continue;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        starts.dedup();
        let mut out = Vec::with_capacity(starts.len());
        for (i, &s) in starts.iter().enumerate() {
            let e = starts.get(i + 1).copied().unwrap_or(range.end);
            if s < e {
                out.push(s..e);
            }
        }
        out
    }

    /// Where the next sentence starts after white space at `at`, if what follows can start
    /// one.
    fn next_sentence(&self, at: usize, end: usize) -> Option<usize> {
        let mut m = at;
        while m < end && self.b[m].is_ascii_whitespace() {
            m += 1;
        }
        if m >= end || m == at {
            return None;
        }
        let c = self.text[m..].chars().next()?;
        let starts = c.is_uppercase() || matches!(c, '\\' | '$' | '`' | '(') || c.is_ascii_digit();
        starts.then_some(m)
    }

    /// Whether the period at `at` ends an abbreviation (`e.g.`, `Fig.`, an initial).
    fn is_abbreviation(&self, at: usize) -> bool {
        let b = self.b;
        let mut s = at;
        while s > 0 && b[s - 1].is_ascii_alphabetic() {
            s -= 1;
        }
        let word = &self.text[s..at];
        if word.len() == 1 || (s > 0 && b[s - 1] == b'.') {
            return true;
        }
        crate::words::contains(crate::words::LATEX_ABBREVIATIONS, word)
    }

    /// Whether display math ends with a period (the sentence ends inside it).
    fn ends_with_period(&self, node: &Node) -> bool {
        let body = match &node.kind {
            NodeKind::Math { display: true } => &self.text[node.range.clone()],
            NodeKind::Env { name, inner, .. }
                if env_class(name, self.theorems) == EnvClass::Math =>
            {
                &self.text[inner.clone()]
            }
            _ => return false,
        };
        let mut t = body.trim_end().trim_end_matches("$$").trim_end_matches("\\]").trim_end();
        loop {
            let before = t;
            for tail in ["\\nonumber", "\\notag", "\\qedhere"] {
                t = t.strip_suffix(tail).unwrap_or(t).trim_end();
            }
            if t.ends_with('}')
                && let Some(p) = t.rfind("\\label{")
                && !t[p..].contains('\n')
            {
                t = t[..p].trim_end();
            }
            if t == before {
                break;
            }
        }
        t.ends_with('.')
    }

    /// A sentence (or whole paragraph): text with inline math, displays and environments as
    /// protected children.
    fn inline(&self, range: Range<usize>, regions: &[usize], boundary: Boundary) -> Atom {
        let mut atoms = Vec::with_capacity(regions.len());
        for &i in regions {
            let node = &self.nodes[i];
            let r = node.range.clone();
            let after_word = r.start > 0 && is_word_byte(self.b[r.start - 1]);
            let atom = match &node.kind {
                NodeKind::Math { display: true } => display_math(r).with_boundary(Boundary::Line),
                NodeKind::Math { display: false } | NodeKind::Verb => {
                    let b = if after_word { Boundary::Char } else { Boundary::Word };
                    let region =
                        if node.kind == NodeKind::Verb { Region::Code } else { Region::Math };
                    Atom::new(AtomKind::Protected, r).with_boundary(b).with_region(region)
                }
                NodeKind::Env { .. } | NodeKind::Verbatim(_) => {
                    self.env_atom(i, r).with_boundary(Boundary::Line)
                }
                NodeKind::Caption => Atom::new(AtomKind::Protected, r)
                    .with_boundary(Boundary::Line)
                    .with_label(AtomLabel { label: "caption".into(), ..AtomLabel::default() }),
                _ => continue,
            };
            atoms.push(atom);
        }
        let mut kids = tile(self.text, range.clone(), atoms, Boundary::Word);
        for kid in kids.iter_mut().skip(1) {
            let start = kid.range.start;
            if kid.kind == AtomKind::Gap
                && is_word_byte(self.b[start])
                && is_word_byte(self.b[start - 1])
            {
                kid.boundary = Boundary::Char;
            }
        }
        if kids.len() == 1 {
            let mut only = kids.pop().expect("one child");
            if only.kind == AtomKind::Gap {
                only.kind = AtomKind::Block;
            }
            only.boundary = boundary;
            return only;
        }
        Atom::new(AtomKind::Block, range).with_boundary(boundary).with_children(kids)
    }
}

/// A protected display-math atom.
fn display_math(range: Range<usize>) -> Atom {
    let label = AtomLabel { label: "display math".to_owned(), ..AtomLabel::default() };
    Atom::new(AtomKind::Protected, range).with_label(label).with_region(Region::Math)
}

/// One atom for `range` from `atoms` that tile it: the atom itself when there is one.
fn group(mut atoms: Vec<Atom>, range: Range<usize>, boundary: Boundary) -> Atom {
    if atoms.len() == 1 && atoms[0].range == range {
        let only = atoms.pop().expect("one atom");
        return Atom { boundary, ..only };
    }
    Atom::new(AtomKind::Block, range).with_boundary(boundary).with_children(atoms)
}

/// Whether `s` holds only white space and comment lines.
fn only_comments(s: &str) -> bool {
    s.lines().all(|l| {
        let t = l.trim_start();
        t.is_empty() || t.starts_with('%')
    })
}

/// The start of the comment lines right above line start `at` (no blank line between, never
/// before `floor`), or `at` when the line above is not a comment.
fn comment_lead(b: &[u8], at: usize, floor: usize) -> usize {
    let mut start = at;
    while start > floor && b[start - 1] == b'\n' {
        let above = line_start(b, start - 1).max(floor);
        let line = &b[above..start - 1];
        let first = line.iter().position(|c| !matches!(c, b' ' | b'\t' | b'\r'));
        if above < floor
            || first.is_none_or(|p| line[p] != b'%')
            || above != line_start(b, start - 1)
        {
            break;
        }
        start = above;
    }
    start
}

/// Whether a line holds only commands (`\clearpage`, `\label{x}`, `\centering`), no prose.
fn is_command_line(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('\\') && !t.contains(' ') || t.starts_with('%')
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c >= 0x80
}

/// Start of the line holding `at`.
fn line_start(b: &[u8], at: usize) -> usize {
    b[..at].iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1)
}

/// End of the line holding `at`, after its newline.
fn line_end_incl(b: &[u8], at: usize) -> usize {
    b[at..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| at + p + 1)
}

/// Where a block starting with the command at `at` begins: the start of its line if only
/// spaces precede the command there (never before `floor`), else `at`.
fn block_start(b: &[u8], at: usize, floor: usize) -> usize {
    let ls = line_start(b, at).max(floor);
    if b[ls..at].iter().all(|&c| c == b' ' || c == b'\t') { ls } else { at }
}

/// A sectioning title as it reads in a breadcrumb: commands dropped (their arguments kept),
/// labels, footnotes and citations dropped, white space folded.
fn clean_title(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let rest = &raw[i + 1..];
                let name_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
                if name_len == 0 {
                    // A control symbol: `\\` reads as a space, `\&` as `&`.
                    if let Some((_, s)) = chars.next() {
                        out.push(if s == '\\' { ' ' } else { s });
                    }
                    continue;
                }
                let name = &rest[..name_len];
                for _ in 0..name_len {
                    chars.next();
                }
                if crate::words::contains(crate::words::TITLE_DROPPED, name) {
                    // Skip the optional and braced arguments.
                    while let Some(&(_, n)) = chars.peek() {
                        if n != '{' && n != '[' {
                            break;
                        }
                        let close = if n == '{' { '}' } else { ']' };
                        let mut depth = 0;
                        for (_, x) in chars.by_ref() {
                            if x == n {
                                depth += 1;
                            } else if x == close {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                        }
                    }
                }
                out.push(' ');
            }
            '{' | '}' => {}
            '~' => out.push(' '),
            '%' => {
                for (_, x) in chars.by_ref() {
                    if x == '\n' {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    shorten(&out.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Folds white space and cuts to [`MAX_LABEL`] chars.
fn shorten(s: &str) -> String {
    let folded = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= MAX_LABEL {
        return folded;
    }
    let mut out: String = folded.chars().take(MAX_LABEL - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_read_as_breadcrumbs() {
        assert_eq!(clean_title("Main \\emph{results}\\label{sec:main}"), "Main results");
        assert_eq!(clean_title("The $L^2$ case~\\cite{x}"), "The $L^2$ case");
        assert_eq!(clean_title("A \\& B\\\\ C"), "A & B C");
    }

    #[test]
    fn block_start_needs_only_spaces_before() {
        let b = b"ab\n  \\begin{x}";
        assert_eq!(block_start(b, 5, 0), 3);
        assert_eq!(block_start(b"a \\x", 2, 0), 2);
    }
}
