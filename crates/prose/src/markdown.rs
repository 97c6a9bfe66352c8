//! Markdown atomizer: a section tree by heading level over blocks read with pulldown-cmark.
//!
//! A section is its heading plus everything up to the next heading of the same or a higher
//! level; its label is the heading text, so chunks inside it carry `Guide > Install > Linux`.
//! Blocks are paragraphs (made of sentences), lists (made of items), block quotes, tables,
//! fenced and indented code, HTML blocks and front matter. Code fences, tables and math are
//! protected: kept whole while they fit. An oversize table opens into rows and repeats its
//! header row in every part's header; an oversize fence in a language cleave knows opens into
//! the code atomizer's atoms; other oversize protected regions split at their own lines.
//!
//! Unterminated regions never swallow the document: a fence or HTML block left open at the top
//! level is kept as plain text for its first line and the rest is read again as Markdown, with
//! a diagnostic; unterminated math is text already (pulldown-cmark's rule).

use std::ops::Range;

use cleave_code::{ParseContext, atomize_code, language_by_name, language_for_path};
use cleave_core::{
    Atom, AtomKind, AtomLabel, AtomTree, Boundary, CommentStyle, ContentKind, Diagnostic, Region,
    Severity, blocks,
};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::text::sections::sectionize;
use crate::text::sentences::sentence_starts;
use crate::text::tiling::{lines, spread_with, wrap};

/// Deepest block nesting read as structure; deeper blocks become blank-line blocks, so
/// pathological input cannot exhaust the stack here or in the packer.
const MAX_DEPTH: usize = 48;
/// Smallest fence body worth handing to the code atomizer: smaller fences split well enough at
/// lines should they ever be opened.
const MIN_CODE_OPEN: usize = 256;

/// Atomizes Markdown.
pub(crate) fn atomize(text: &str, code: &mut ParseContext) -> AtomTree {
    let mut diagnostics = Vec::new();
    let nodes = parse(text, &mut diagnostics);
    let mut builder = Builder { text, code, diagnostics, regions: Vec::new() };
    let top: Vec<(Atom, Option<(u8, String)>)> = nodes
        .into_iter()
        .map(|node| {
            let heading = match &node.kind {
                Kind::Heading { level, title } => Some((*level, heading_label(text, &node, title))),
                _ => None,
            };
            (builder.atom(node, 0), heading)
        })
        .collect();
    let top = spread_with(text, 0..text.len(), top, true);
    let children = sectionize(top);
    let mut root = Atom::new(AtomKind::Block, 0..text.len()).with_children(children);
    glue_titles(text, &mut root);
    let mut tree = AtomTree::new("markdown", ContentKind::Prose, root);
    tree.comment = CommentStyle::block("<!--", "-->");
    tree.separator = " > ";
    tree.diagnostics = builder.diagnostics;
    builder.regions.sort_by_key(|(r, _)| (r.start, r.end));
    tree.locations.regions = builder.regions;
    tree
}

/// Glues a paragraph that is only a title (`**Algorithm 1.**`, `**Theorem 2**`, `*Proof:*`)
/// to the block it titles: the boundary after it becomes a line's, so the two stay together
/// where the budget allows.
fn glue_titles(text: &str, atom: &mut Atom) {
    for i in 1..atom.children.len() {
        if is_title(&text[atom.children[i - 1].range.clone()]) {
            let next = &mut atom.children[i];
            next.boundary = next.boundary.min(Boundary::Line);
        }
    }
    for child in &mut atom.children {
        glue_titles(text, child);
    }
}

/// Whether a paragraph is only an emphasised title of at most 80 chars.
fn is_title(paragraph: &str) -> bool {
    let t = paragraph.trim();
    if t.contains('\n') || t.chars().count() > 80 {
        return false;
    }
    let t = t.strip_suffix([':', '.']).unwrap_or(t);
    ["**", "__", "*", "_"].iter().any(|m| {
        t.len() > 2 * m.len()
            && t.starts_with(m)
            && t.ends_with(m)
            && !t[m.len()..t.len() - m.len()].contains(m)
    })
}

// ---- parsing: events → block nodes ----------------------------------------------------------

#[derive(Debug)]
enum Kind {
    /// Item, block quote, footnote definition, the document: blocks inside blocks.
    Container,
    List,
    Paragraph,
    Heading {
        level: u8,
        title: String,
    },
    Fence {
        info: String,
        closed: bool,
    },
    Indented,
    Html,
    Table,
    FrontMatter,
    /// A block with nothing to open: a thematic break, an unterminated fence's first line.
    Leaf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SpanKind {
    Math,
    DisplayMath,
    Code,
}

/// An inline region a paragraph must not be cut inside.
#[derive(Debug, Clone)]
struct Span {
    range: Range<usize>,
    kind: SpanKind,
}

#[derive(Debug)]
struct Node {
    kind: Kind,
    range: Range<usize>,
    children: Vec<Node>,
    spans: Vec<Span>,
    /// For containers: whether the last child is a paragraph of loose inline content (tight
    /// list items have no paragraph events) that inline events still extend.
    implicit_open: bool,
}

impl Node {
    fn new(kind: Kind, range: Range<usize>) -> Self {
        Self { kind, range, children: Vec::new(), spans: Vec::new(), implicit_open: false }
    }
}

fn options(front_matter: bool) -> Options {
    let mut opts = Options::ENABLE_TABLES
        | Options::ENABLE_MATH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    if front_matter {
        opts |= Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
            | Options::ENABLE_PLUSES_DELIMITED_METADATA_BLOCKS;
    }
    opts
}

/// The top-level block nodes of `text`.
fn parse(text: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut start = 0;
    while start < text.len() {
        match parse_from(text, start, &mut nodes, diagnostics) {
            Some(resume) if resume > start => start = resume,
            _ => break,
        }
    }
    nodes
}

/// Parses `text[start..]` into `nodes`. Returns where to parse again when a top-level region
/// was left unterminated (its first line is then a leaf node).
fn parse_from(
    text: &str,
    start: usize,
    nodes: &mut Vec<Node>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let mut stack = vec![Node::new(Kind::Container, start..text.len())];
    // Nesting depth inside a block whose inner events are not read (code, HTML, tables).
    let mut skip = 0usize;
    // Blocks opened below the deepest node kept (`MAX_DEPTH`: its atom is plain blocks of its
    // range, whatever it holds), not pushed: their End events close nothing.
    let mut flat = 0usize;
    let mut resume = None;
    let parser = Parser::new_ext(&text[start..], options(start == 0));
    for (event, r) in parser.into_offset_iter() {
        let r = r.start + start..r.end + start;
        if skip > 0 {
            match event {
                Event::Start(_) => skip += 1,
                Event::End(_) => {
                    skip -= 1;
                    if skip == 0 {
                        resume = close(text, &mut stack, diagnostics);
                    }
                }
                _ => {}
            }
            if resume.is_some() {
                break;
            }
            continue;
        }
        match event {
            Event::Start(tag) => {
                let kind = match tag {
                    Tag::Emphasis
                    | Tag::Strong
                    | Tag::Strikethrough
                    | Tag::Superscript
                    | Tag::Subscript
                    | Tag::Link { .. }
                    | Tag::Image { .. } => {
                        inline(&mut stack, r, None);
                        continue;
                    }
                    Tag::Paragraph => Kind::Paragraph,
                    Tag::Heading { level, .. } => {
                        Kind::Heading { level: level as u8, title: String::new() }
                    }
                    Tag::CodeBlock(CodeBlockKind::Fenced(info)) => {
                        skip = 1;
                        Kind::Fence { info: info.to_string(), closed: false }
                    }
                    Tag::CodeBlock(CodeBlockKind::Indented) => {
                        skip = 1;
                        Kind::Indented
                    }
                    Tag::HtmlBlock => {
                        skip = 1;
                        Kind::Html
                    }
                    Tag::Table(_) => {
                        skip = 1;
                        Kind::Table
                    }
                    Tag::MetadataBlock(_) => {
                        skip = 1;
                        Kind::FrontMatter
                    }
                    Tag::List(_) => Kind::List,
                    _ => Kind::Container,
                };
                // The root is stack[0] and a node at stack[i] becomes an atom at depth i - 1:
                // past MAX_DEPTH + 1 an atom is its range's plain blocks, so a node pushed
                // deeper would change nothing but could nest 100,000 deep (`>>>>…`), and
                // dropping such a tree overflows the stack.
                if stack.len() > MAX_DEPTH + 2 {
                    skip = 0;
                    flat += 1;
                    continue;
                }
                if let Some(top) = stack.last_mut() {
                    top.implicit_open = false;
                }
                stack.push(Node::new(kind, r));
            }
            Event::End(
                TagEnd::Emphasis
                | TagEnd::Strong
                | TagEnd::Strikethrough
                | TagEnd::Superscript
                | TagEnd::Subscript
                | TagEnd::Link
                | TagEnd::Image,
            ) => {}
            Event::End(_) if flat > 0 => flat -= 1,
            Event::End(_) => {
                if stack.len() > 1 {
                    resume = close(text, &mut stack, diagnostics);
                }
            }
            Event::Rule => {
                if let Some(top) = stack.last_mut() {
                    top.implicit_open = false;
                    top.children.push(Node::new(Kind::Leaf, r));
                }
            }
            Event::Text(t) => {
                if let Some(Node { kind: Kind::Heading { title, .. }, .. }) = stack.last_mut() {
                    title.push_str(&t);
                }
                inline(&mut stack, r, None);
            }
            Event::Code(t) => {
                if let Some(Node { kind: Kind::Heading { title, .. }, .. }) = stack.last_mut() {
                    title.push_str(&t);
                }
                inline(&mut stack, r, Some(SpanKind::Code));
            }
            // pulldown-cmark reads "$12, and "$5" as math; like Pandoc, a closing dollar
            // followed by a digit is a price, not math.
            Event::InlineMath(_) if text.as_bytes().get(r.end).is_some_and(u8::is_ascii_digit) => {
                inline(&mut stack, r, None);
            }
            Event::InlineMath(t) => {
                if let Some(Node { kind: Kind::Heading { title, .. }, .. }) = stack.last_mut() {
                    title.push('$');
                    title.push_str(&t);
                    title.push('$');
                }
                inline(&mut stack, r, Some(SpanKind::Math));
            }
            Event::DisplayMath(_) => inline(&mut stack, r, Some(SpanKind::DisplayMath)),
            Event::SoftBreak | Event::HardBreak => {
                if let Some(Node { kind: Kind::Heading { title, .. }, .. }) = stack.last_mut() {
                    title.push(' ');
                }
                inline(&mut stack, r, None);
            }
            Event::Html(_)
            | Event::InlineHtml(_)
            | Event::FootnoteReference(_)
            | Event::TaskListMarker(_) => inline(&mut stack, r, None),
        }
        if resume.is_some() {
            break;
        }
    }
    // Close whatever the parser left open (it balances its events, so only the root remains).
    while stack.len() > 1 {
        let node = stack.pop().expect("non-empty stack");
        if let Some(parent) = stack.last_mut() {
            parent.children.push(node);
        }
    }
    nodes.append(&mut stack.pop().map(|root| root.children).unwrap_or_default());
    resume
}

/// Records inline content at `r`: in a paragraph or heading it extends nothing (their ranges
/// are known) but may add a span; directly in a container it opens or extends a paragraph.
fn inline(stack: &mut [Node], r: Range<usize>, span: Option<SpanKind>) {
    let Some(top) = stack.last_mut() else { return };
    let span = span.map(|kind| Span { range: r.clone(), kind });
    match top.kind {
        // A heading's spans are kept for the location map; its atom is a leaf.
        Kind::Paragraph | Kind::Heading { .. } => top.spans.extend(span),
        Kind::Container => {
            if top.implicit_open
                && let Some(para) = top.children.last_mut()
            {
                para.range.end = para.range.end.max(r.end);
                para.spans.extend(span);
            } else {
                let mut para = Node::new(Kind::Paragraph, r);
                para.spans.extend(span);
                top.children.push(para);
                top.implicit_open = true;
            }
        }
        _ => {}
    }
}

/// Pops the innermost node into its parent. A fence or HTML block left unterminated at the
/// top level becomes a leaf of its first line; the returned offset is where to read again.
fn close(text: &str, stack: &mut Vec<Node>, diagnostics: &mut Vec<Diagnostic>) -> Option<usize> {
    let mut node = stack.pop()?;
    let raw = &text[node.range.clone()];
    let mut unterminated = None;
    match &mut node.kind {
        Kind::Fence { closed, .. } => {
            *closed = fence_closed(raw);
            if !*closed {
                unterminated = Some("code fence");
            }
        }
        Kind::Html if html_unterminated(raw) => unterminated = Some("HTML block"),
        _ => {}
    }
    let top_level = stack.len() == 1;
    let parent = stack.last_mut()?;
    parent.implicit_open = false;
    if let Some(what) = unterminated {
        let line = text[..node.range.start].bytes().filter(|&b| b == b'\n').count() + 1;
        let first_line_end = text[node.range.clone()]
            .find('\n')
            .map_or(node.range.end, |i| node.range.start + i + 1);
        if top_level && first_line_end < node.range.end {
            diagnostics.push(Diagnostic::new(
                Severity::Degraded,
                format!("unterminated {what} at line {line}: its opening line is kept as text and the rest is read as Markdown"),
            ));
            parent.children.push(Node::new(Kind::Leaf, node.range.start..first_line_end));
            return Some(first_line_end);
        }
        diagnostics.push(Diagnostic::new(
            Severity::Degraded,
            format!("unterminated {what} at line {line}: it ends with its container and is not protected"),
        ));
    }
    parent.children.push(node);
    None
}

/// Whether a fenced code block's source ends with a closing fence.
fn fence_closed(raw: &str) -> bool {
    let strip = |l: &str| l.trim_start_matches([' ', '\t', '>']).trim_end().to_owned();
    let mut it = raw.trim_end().lines();
    let Some(first) = it.next().map(strip) else { return false };
    let Some(fence) = first.chars().next().filter(|c| matches!(c, '`' | '~')) else {
        return true;
    };
    let width = first.chars().take_while(|&c| c == fence).count();
    let Some(last) = it.last().map(strip) else { return false };
    last.chars().count() >= width && last.chars().all(|c| c == fence)
}

/// Whether an HTML block of a kind that ends only at a marker (comment, `<pre>`, `<script>`,
/// `<style>`, `<textarea>`, processing instruction, CDATA) lacks that marker.
fn html_unterminated(raw: &str) -> bool {
    let head: String = raw.trim_start().chars().take(12).collect::<String>().to_ascii_lowercase();
    if head.starts_with("<!--") {
        return !raw.contains("-->");
    }
    if head.starts_with("<![cdata[") {
        return !raw.contains("]]>");
    }
    if head.starts_with("<?") {
        return !raw.contains("?>");
    }
    for tag in ["script", "pre", "style", "textarea"] {
        if head.strip_prefix('<').is_some_and(|h| {
            h.starts_with(tag)
                && h[tag.len()..].starts_with(|c: char| c == '>' || c.is_whitespace())
        }) {
            return !raw.to_ascii_lowercase().contains(&format!("</{tag}>"));
        }
    }
    false
}

/// The label of a heading: its text, or its source line when the text is empty.
fn heading_label(text: &str, node: &Node, title: &str) -> String {
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if !title.is_empty() {
        return title;
    }
    let raw = text[node.range.clone()].lines().next().unwrap_or("");
    let raw = raw.trim().trim_matches(['#', '=', '-', ' ']).trim();
    if raw.is_empty() { "(untitled)".to_owned() } else { raw.to_owned() }
}

// ---- building: nodes → atoms ----------------------------------------------------------------

struct Builder<'a, 'c> {
    text: &'a str,
    code: &'c mut ParseContext,
    diagnostics: Vec<Diagnostic>,
    /// Every region with its exact range (the atoms get wider), for the tree's location map.
    regions: Vec<(Range<usize>, Region)>,
}

impl Builder<'_, '_> {
    fn atom(&mut self, node: Node, depth: usize) -> Atom {
        let text = self.text;
        let range = node.range.clone();
        if depth > MAX_DEPTH {
            return Atom::new(AtomKind::Block, range.clone())
                .with_children(plain_blocks(text, range));
        }
        match node.kind {
            Kind::Paragraph => self.paragraph(range, node.spans),
            Kind::Heading { .. } => {
                self.record(&node.spans);
                Atom::new(AtomKind::Block, range)
            }
            Kind::Leaf => Atom::new(AtomKind::Block, range),
            Kind::Container | Kind::List => {
                let children: Vec<Atom> = node
                    .children
                    .into_iter()
                    .map(|n| self.atom(n, depth + 1).with_boundary(Boundary::Paragraph))
                    .collect();
                wrap(text, AtomKind::Block, range, children)
            }
            Kind::Fence { info, closed } => self.fence(range, &info, closed),
            Kind::Indented => {
                self.regions.push((range.clone(), Region::Code));
                Atom::new(AtomKind::Protected, range)
                    .with_label(label("code block", None))
                    .with_region(Region::Code)
            }
            Kind::Html => {
                Atom::new(AtomKind::Block, range.clone()).with_children(plain_blocks(text, range))
            }
            Kind::Table => {
                self.regions.push((range.clone(), Region::Table));
                table(text, range)
            }
            Kind::FrontMatter => {
                Atom::new(AtomKind::Block, range).with_label(label("front matter", None))
            }
        }
    }

    /// Records inline spans as regions of the location map.
    fn record(&mut self, spans: &[Span]) {
        self.regions.extend(spans.iter().map(|s| {
            let region = if s.kind == SpanKind::Code { Region::Code } else { Region::Math };
            (s.range.clone(), region)
        }));
    }

    /// A paragraph: sentences, each made of text runs and the inline spans it must not cut.
    fn paragraph(&mut self, range: Range<usize>, mut spans: Vec<Span>) -> Atom {
        let text = self.text;
        spans.retain(|s| range.start <= s.range.start && s.range.end <= range.end);
        let bracket = bracket_math(text, range.clone(), &spans);
        spans.extend(bracket);
        spans.sort_by_key(|s| s.range.start);
        self.record(&spans);
        let opaque: Vec<Range<usize>> = spans.iter().map(|s| s.range.clone()).collect();
        let starts = sentence_starts(text, range.clone(), &opaque);
        if starts.is_empty() {
            return wrap(text, AtomKind::Block, range.clone(), glue(text, range, &spans));
        }
        let mut sentences = Vec::with_capacity(starts.len() + 1);
        let mut at = range.start;
        for end in starts.into_iter().chain([range.end]) {
            let inner: Vec<Span> = spans
                .iter()
                .filter(|s| at <= s.range.start && s.range.end <= end)
                .cloned()
                .collect();
            let sentence = wrap(text, AtomKind::Block, at..end, glue(text, at..end, &inner));
            sentences.push(sentence.with_boundary(Boundary::Sentence));
            at = end;
        }
        Atom::new(AtomKind::Block, range).with_children(sentences)
    }

    /// A fenced code block: protected; opened by the code atomizer when its language is known.
    fn fence(&mut self, range: Range<usize>, info: &str, closed: bool) -> Atom {
        let text = self.text;
        if !closed {
            return Atom::new(AtomKind::Block, range);
        }
        let lang = fence_language(info);
        let name =
            if lang.is_empty() { "code block".to_owned() } else { format!("{lang} code block") };
        let ls = lines(text, range.clone());
        let signature = text[ls[0].clone()].trim().to_owned();
        self.regions.push((range.clone(), Region::Code));
        let atom = Atom::new(AtomKind::Protected, range.clone())
            .with_label(label(&name, Some(signature)))
            .with_region(Region::Code);
        if ls.len() < 3 {
            return atom;
        }
        let body = ls[0].end..ls[ls.len() - 1].start;
        let Some(language) = (!lang.is_empty())
            .then(|| language_by_name(lang).or_else(|| language_for_path(&format!("x.{lang}"))))
            .flatten()
            // A language without a grammar or a scanner in this build would only give blocks
            // of lines.
            .filter(|l| l.has_structure())
        else {
            return atom;
        };
        if body.len() < MIN_CODE_OPEN {
            return atom;
        }
        let tree = atomize_code(language, &text[body.clone()], self.code);
        if tree.root.range != (0..body.len()) || tree.root.validate(&text[body.clone()]).is_err() {
            return atom;
        }
        self.diagnostics.extend(tree.diagnostics);
        let inner =
            if tree.root.children.is_empty() { vec![tree.root] } else { tree.root.children };
        let mut children = vec![Atom::new(AtomKind::Block, ls[0].clone())];
        children.extend(inner.into_iter().enumerate().map(|(i, a)| {
            let a = shift(a, body.start);
            if i == 0 { a.with_boundary(Boundary::Word) } else { a }
        }));
        children.push(
            Atom::new(AtomKind::Block, ls[ls.len() - 1].clone()).with_boundary(Boundary::Line),
        );
        atom.with_children(children)
    }
}

/// The first word of a fence's info string: `rust` in "```rust,ignore", `r` in "```{r}".
fn fence_language(info: &str) -> &str {
    let info = info.trim().trim_start_matches(['{', '.']);
    let end = info
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '+' | '-' | '_' | '#')))
        .unwrap_or(info.len());
    &info[..end]
}

/// Moves an atom tree read from a slice to where the slice starts.
fn shift(mut atom: Atom, by: usize) -> Atom {
    atom.range = atom.range.start + by..atom.range.end + by;
    atom.children = atom.children.into_iter().map(|c| shift(c, by)).collect();
    atom
}

fn label(text: &str, signature: Option<String>) -> AtomLabel {
    AtomLabel { label: text.to_owned(), name: None, signature }
}

/// A table: protected, its rows as children, its header and delimiter rows as the signature
/// every part of an opened table repeats.
fn table(text: &str, range: Range<usize>) -> Atom {
    let ls = lines(text, range.clone());
    let atom = Atom::new(AtomKind::Protected, range).with_region(Region::Table);
    if ls.len() < 3 {
        return atom.with_label(label("table", None));
    }
    let signature = format!("{}\n{}", text[ls[0].clone()].trim(), text[ls[1].clone()].trim());
    let mut rows = vec![Atom::new(AtomKind::Block, ls[0].start..ls[1].end)];
    // The first row sticks to the header rows: no part ends with the header alone.
    rows.extend(ls[2..].iter().enumerate().map(|(i, r)| {
        let boundary = if i == 0 { Boundary::Word } else { Boundary::Line };
        Atom::new(AtomKind::Block, r.clone()).with_boundary(boundary)
    }));
    atom.with_label(label("table", Some(signature))).with_children(rows)
}

/// Blank-line blocks of a range, as children (none when there is only one).
fn plain_blocks(text: &str, range: Range<usize>) -> Vec<Atom> {
    let children = blocks(text, range);
    if children.len() > 1 { children } else { Vec::new() }
}

/// `\[ … \]` display math inside a paragraph (pulldown-cmark reads it as escaped brackets).
fn bracket_math(text: &str, range: Range<usize>, spans: &[Span]) -> Vec<Span> {
    let mut out = Vec::new();
    let mut at = range.start;
    while let Some(open) = text[at..range.end].find("\\[").map(|i| at + i) {
        let Some(close) = text[open + 2..range.end].find("\\]").map(|i| open + 2 + i + 2) else {
            break;
        };
        let clash = spans.iter().any(|s| s.range.start < close && open < s.range.end);
        if !clash {
            out.push(Span { range: open..close, kind: SpanKind::DisplayMath });
        }
        at = close;
    }
    out
}

/// Children of a sentence holding inline spans: text runs, and each span glued to the word it
/// touches ("($x$),") with the whitespace after it, so no cut falls inside a span or mid-word.
/// Math makes a protected atom; a code span a plain one. No spans: no children.
fn glue(text: &str, range: Range<usize>, spans: &[Span]) -> Vec<Atom> {
    let mut out = Vec::new();
    let mut at = range.start;
    let char_at = |i: usize| text[i..].chars().next().unwrap_or(' ');
    let mut i = 0;
    while i < spans.len() {
        let span = &spans[i];
        i += 1;
        if span.range.start < at || span.range.end > range.end {
            continue;
        }
        let mut start = span.range.start;
        while start > at {
            let c = text[..start].chars().next_back().unwrap_or(' ');
            if c.is_whitespace() {
                break;
            }
            start -= c.len_utf8();
        }
        let mut end = span.range.end;
        let mut kind = span.kind;
        loop {
            while end < range.end && !char_at(end).is_whitespace() {
                end += char_at(end).len_utf8();
            }
            let mut grew = false;
            while i < spans.len() && spans[i].range.start < end {
                if spans[i].range.end > end {
                    end = spans[i].range.end.min(range.end);
                    grew = true;
                }
                kind = stronger(kind, spans[i].kind);
                i += 1;
            }
            if !grew {
                break;
            }
        }
        while end < range.end && char_at(end).is_whitespace() {
            end += char_at(end).len_utf8();
        }
        if start > at {
            out.push(Atom::new(AtomKind::Block, at..start).with_boundary(Boundary::Word));
        }
        // The atom is the span glued to its word, wider than the span: it carries no region,
        // the span's exact range is in the tree's location map.
        let atom = match kind {
            SpanKind::Code => Atom::new(AtomKind::Block, start..end),
            SpanKind::Math => {
                Atom::new(AtomKind::Protected, start..end).with_label(label("math", None))
            }
            SpanKind::DisplayMath => {
                Atom::new(AtomKind::Protected, start..end).with_label(label("display math", None))
            }
        };
        out.push(atom.with_boundary(Boundary::Word));
        at = end;
    }
    if !out.is_empty() && at < range.end {
        out.push(Atom::new(AtomKind::Block, at..range.end).with_boundary(Boundary::Word));
    }
    out
}

/// Math outranks code when spans glue together.
fn stronger(a: SpanKind, b: SpanKind) -> SpanKind {
    match (a, b) {
        (SpanKind::DisplayMath, _) | (_, SpanKind::DisplayMath) => SpanKind::DisplayMath,
        (SpanKind::Math, _) | (_, SpanKind::Math) => SpanKind::Math,
        _ => SpanKind::Code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_know_when_they_close() {
        assert!(fence_closed("```rust\nfn x() {}\n```"));
        assert!(fence_closed("````\n```\n````\n"));
        assert!(!fence_closed("```rust\nfn x() {}\n"));
        assert!(!fence_closed("````\ncode\n```\n"));
        assert!(fence_closed("> ```\n> a\n> ```"));
    }

    #[test]
    fn fence_languages() {
        assert_eq!(fence_language("rust,ignore"), "rust");
        assert_eq!(fence_language("{r} echo=FALSE"), "r");
        assert_eq!(fence_language(" python title=\"x.py\""), "python");
        assert_eq!(fence_language(""), "");
    }

    #[test]
    fn html_blocks_that_never_end() {
        assert!(html_unterminated("<!-- open\nstill open\n"));
        assert!(!html_unterminated("<!-- a -->\n"));
        assert!(html_unterminated("<pre>\ncode\n"));
        assert!(!html_unterminated("<div>\nx\n"));
    }
}
