//! Member runs: a section that is one large top-level item (a generated class of thousands
//! of methods) is parsed in runs of its members, each with the item's head and tail, so that
//! tree-sitter's memory follows the run, not the item; the atoms are those of a whole parse.

use std::ops::Range;

use cleave_core::{Atom, AtomKind};
use tree_sitter::Tree;

use crate::builder::Builder;
use crate::config::LanguageConfig;
use crate::context::{self, ParseContext};
use crate::registry::Language;

/// How a section that holds one large top-level item (a class, a module) is parsed in runs of
/// its members: the item's head `section.start..members.start` and tail
/// `members.end..section.end` go with every run.
pub(crate) struct MemberRuns {
    /// The item's members: from the line after its head to its tail.
    pub(crate) members: Range<usize>,
    /// Where each run starts; the first at `members.start`.
    pub(crate) starts: Vec<usize>,
}

impl MemberRuns {
    /// Where run `k` ends.
    pub(crate) fn end(&self, k: usize) -> usize {
        self.starts.get(k + 1).copied().unwrap_or(self.members.end)
    }

    /// Parses run `k` of `section` with the item's head and tail.
    pub(crate) fn parse(
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
        ctx.parse_ranges(language, text, &context::ts_ranges(text, &parts))
    }
}

/// Runs of about `run_bytes` over the members of the one top-level item of `section`, cut as
/// `section_starts` cuts between top-level items, one indentation level in: at a run of
/// blank lines after a member's last line (a closing bracket at the members' indentation, or
/// a deeper line that is no comment) and before a line at the members' indentation that
/// starts no closing bracket. `None` when the section is not one item whose head ends a line
/// with `{` or `:` and whose members are all indented, or when no cut is found.
pub(crate) fn member_runs(
    bytes: &[u8],
    section: Range<usize>,
    run_bytes: usize,
) -> Option<MemberRuns> {
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
    // The members' indentation: that of the first line with code other than a comment (a
    // Python block takes the indentation of its first statement; a comment above it may stand
    // at another).
    let mut first = None;
    let mut at = members_start;
    while at < section.end {
        let line = at..line_end(at);
        at = line.end;
        let Some(i) = line.clone().find(|&i| !bytes[i].is_ascii_whitespace()) else { continue };
        let rest = &bytes[i..line.end];
        if !(rest.starts_with(b"#")
            || rest.starts_with(b"//")
            || rest.starts_with(b"/*")
            || rest.starts_with(b"*"))
        {
            first = Some(i);
            break;
        }
    }
    let first = first?;
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
        // A line left of the members' indentation (other than the tail's closing bracket):
        // the item is not laid out as runs assume, so it is parsed whole.
        if !text[0].is_ascii_whitespace() || !text.starts_with(indent) {
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

/// What building one section gives: its atoms, the imports so far and its top-level import
/// atoms.
pub(crate) type Built = (Vec<Atom>, Vec<String>, Vec<Range<usize>>);

/// Builds the atoms of a section of one large top-level item in runs of its members (see [`member_runs`]):
/// each run is parsed with the item's head and tail, so that tree-sitter's memory follows the
/// run, not the item. The first run gives the section's atoms; the members of the others
/// replace what it left of the item's children past its own members. `None` when a run
/// parses with an error or the trees are not shaped as expected: the caller then parses the
/// section whole, as before.
pub(crate) fn atomize_runs(
    language: &'static Language,
    config: &'static LanguageConfig,
    text: &str,
    section: Range<usize>,
    runs: &MemberRuns,
    imports: Vec<String>,
    ctx: &mut ParseContext,
) -> Option<Built> {
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
    let mut builder = Builder::new(text, language, config, root, ctx, 0);
    builder.imports = imports;
    let mut atoms = builder.root(root, section.clone(), ctx);
    let (imports, top_imports) = (builder.imports, builder.top_imports);
    drop(tree);
    let item = atoms.iter_mut().find(|a| {
        a.kind == AtomKind::Symbol
            && a.range.start <= lo
            && a.range.end >= starts[1]
            && !a.children.is_empty()
    })?;
    // The members are the children of the item proper, when the item's doc comment was
    // detached from it (`Atom::proper`), else the item's own.
    let detached = item.proper().is_some();
    let holder = if detached { &mut item.children[1] } else { &mut *item };
    // The first run's members end where the second run starts (and so does the item, when
    // its body ends with its last member).
    let keep = holder.children.iter().take_while(|c| c.range.end <= starts[1]).count();
    let next = holder.children.get(keep).map_or(holder.range.end, |c| c.range.start);
    if next != starts[1] {
        return None;
    }
    let mut item_end = holder.range.end;
    let mut children: Vec<Atom> = holder.children.drain(..keep).collect();
    let mut tail = None;
    for k in 1..starts.len() {
        let tree = parse(k, ctx)?;
        let root = tree.root_node();
        let mut builder = Builder::new(text, language, config, root, ctx, 0);
        let last = k + 1 == starts.len();
        // The members of this run without the white space after them: in a body that ends
        // with its last member (Python's), the body node ends there.
        let run_lo = (starts[k]..run_end(k)).find(|&i| !bytes[i].is_ascii_whitespace())?;
        let run_hi = (run_lo..run_end(k)).rev().find(|&i| !bytes[i].is_ascii_whitespace())? + 1;
        if last && item_end < members.end {
            // The first run's item ended with that run; the whole item ends with the last's.
            let end = builder.item_end(root, run_lo..run_hi, section.end)?;
            tail = Some(builder.root_tail(end..section.end));
            item_end = end;
        }
        let within = starts[k]..if last { item_end } else { run_end(k) };
        children.extend(builder.continued_members(root, run_lo..run_hi, within, ctx)?);
    }
    let holder = if detached { &mut item.children[1] } else { &mut *item };
    holder.children = children;
    if let Some(tail) = tail {
        holder.range.end = item_end;
        item.range.end = item_end;
        let item_start = item.range.start;
        atoms.retain(|a| a.range.start <= item_start || a.range.start >= item_end);
        atoms.extend(tail);
    }
    Some((atoms, imports, top_imports))
}
