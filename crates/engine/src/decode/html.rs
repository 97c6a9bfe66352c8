//! HTML → a Markdown text view with htmd: headings as `#` lines (so the prose atomizer makes
//! sections of them), `<pre>` as fenced code, tables as pipe tables, lists as lists; scripts,
//! styles, navigation and other non-content elements are left out. EPUB chapters (XHTML)
//! come through here too.
//!
//! Converting rather than chunking the source: a reader (or an LLM) asked about a page wants
//! its text, not its markup, and the headings htmd writes are the sections the Markdown
//! atomizer already knows. Only pages are converted ([`is_page`]): a template or a fragment
//! of a web project is code, chunked byte-exact as HTML source (the `html` language row).

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use htmd::Node;
use markup5ever_rcdom::NodeData;

use super::{Document, PageLabel};

/// Elements whose content is no reading matter.
const SKIPPED: &[&str] =
    &["script", "style", "nav", "noscript", "template", "head", "svg", "iframe", "object"];

/// Markers of a template language (Django/Jinja `{% %}` and `{{ }}`, ERB/JSP/ASP `<% %>`,
/// PHP): a file holding one is a template, source of a web project, not a page to read.
const TEMPLATE_MARKERS: &[&[u8]] = &[b"{%", b"{{", b"<%", b"<?php"];

/// Whether an `.html` file is a page to read, decoded to its text: it opens with a doctype or
/// an `<html>` tag (after a byte-order mark, white space, comments and an XML declaration) and
/// holds no template markup. Anything else (a template, a partial, a fragment) is chunked as
/// HTML source, byte for byte: when in doubt, source, since it loses nothing.
pub fn is_page(bytes: &[u8]) -> bool {
    let mut rest = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    loop {
        rest = rest.trim_ascii_start();
        match skip_to(rest, b"<!--", b"-->").or_else(|| skip_to(rest, b"<?xml", b"?>")) {
            Some(after) => rest = after,
            None => break,
        }
    }
    let head = &rest[..rest.len().min(16)];
    let opens_page = head.len() >= 5
        && (head.to_ascii_lowercase().starts_with(b"<!doctype html")
            || head[..5].eq_ignore_ascii_case(b"<html"));
    opens_page && !TEMPLATE_MARKERS.iter().any(|m| bytes.windows(m.len()).any(|w| w == *m))
}

/// What follows `open … close` at the start of `rest` (nothing when `close` never comes), or
/// `None` when `rest` does not start with `open`.
fn skip_to<'a>(rest: &'a [u8], open: &[u8], close: &[u8]) -> Option<&'a [u8]> {
    let r = rest.strip_prefix(open)?;
    Some(match r.windows(close.len()).position(|w| w == close) {
        Some(at) => &r[at + close.len()..],
        None => &r[r.len()..],
    })
}

/// Decodes an HTML file (UTF-8; another encoding's bytes are replaced, not guessed at).
pub fn decode(bytes: Vec<u8>) -> Result<Document, String> {
    let html = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    let text = to_markdown(&html)?;
    Ok(Document { text, locations: Vec::<(usize, PageLabel)>::new(), notes: Vec::new() })
}

/// Element nesting past which a page is not converted. htmd walks the element tree
/// recursively, about 1.4 KiB of stack per level in a release build: 1,500 nested `<div>`s
/// overflowed a default 2 MiB thread, aborting the whole run, and 100,000 took 45 s before
/// they did; a decoder thread has 16 MiB. Real pages nest a few dozen deep: the deepest of the
/// 1,162 pages of the bench corpus html nests 19, of the select corpus's 6 HTML documents 19.
/// The count follows html5ever, which nests `<span/>` (XHTML's anchors in an EPUB) as an open
/// element, so the limit leaves room for a few hundred of those in one paragraph.
const MAX_DEPTH: usize = 1_000;

/// HTML (or XHTML) as Markdown ending in a newline: the shared step of HTML and EPUB.
pub fn to_markdown(html: &str) -> Result<String, String> {
    if let Some(depth) = cleave_code::markup_nesting_deeper_than(html, MAX_DEPTH, false) {
        return Err(format!(
            "elements nest {depth} deep, past {MAX_DEPTH}: too deep to convert safely"
        ));
    }
    let converter = htmd::HtmlToMarkdown::builder()
        .options(htmd::options::Options {
            bullet_list_marker: htmd::options::BulletListMarker::Dash,
            ul_bullet_spacing: 1,
            ol_number_spacing: 1,
            ..Default::default()
        })
        .skip_tags(SKIPPED.to_vec())
        .add_handler(vec!["pre"], pre_as_fence)
        .add_handler(vec!["a"], leave_out(is_permalink))
        .add_handler(NAVIGABLE.to_vec(), leave_out(is_navigation));
    let converter = entries_as_headings(converter).build();
    let mut md = converter.convert(html).map_err(|e| format!("not readable HTML: {e}"))?;
    // The view is chunked as Markdown: a stray form feed or NUL would only confuse it.
    md.retain(|c| c == '\n' || c == '\t' || !c.is_control());
    if !md.is_empty() && !md.ends_with('\n') {
        md.push('\n');
    }
    Ok(md)
}

/// The classes documentation generators give a heading's permalink (`¶`, `#`): Sphinx and
/// MkDocs, Jupyter, Docusaurus, VitePress, AnchorJS. Kept, it would end every section title.
const PERMALINK_CLASSES: &[&str] =
    &["headerlink", "anchor-link", "hash-link", "header-anchor", "anchorjs-link"];

/// Elements that hold a page's navigation when their `role` says so (Sphinx's `related` bar and
/// sidebar are `<div role="navigation">`); `<nav>` itself is in [`SKIPPED`].
const NAVIGABLE: &[&str] = &["div", "section", "aside", "ul", "ol", "form"];

/// The value of an element's attribute.
fn attribute<'a>(attrs: &'a [html5ever::Attribute], name: &str) -> Option<&'a str> {
    attrs.iter().find(|a| &*a.name.local == name).map(|a| &*a.value)
}

/// The classes of an element (its `class` attribute, split at white space).
fn classes(attrs: &[html5ever::Attribute]) -> impl Iterator<Item = &str> {
    attribute(attrs, "class").unwrap_or_default().split_ascii_whitespace()
}

fn has_class(attrs: &[html5ever::Attribute], class: &str) -> bool {
    classes(attrs).any(|c| c == class)
}

/// A heading's permalink anchor (`<a class="headerlink">¶</a>`).
fn is_permalink(element: &htmd::Element) -> bool {
    classes(element.attrs).any(|c| PERMALINK_CLASSES.contains(&c))
}

/// An element whose `role` is navigation or search, left out as `<nav>` is.
fn is_navigation(element: &htmd::Element) -> bool {
    matches!(attribute(element.attrs, "role"), Some("navigation" | "search"))
}

/// Leaves out an element that `drop` picks; converts any other as usual.
fn leave_out(
    drop: fn(&htmd::Element) -> bool,
) -> impl Fn(
    &dyn htmd::element_handler::Handlers,
    htmd::Element,
) -> Option<htmd::element_handler::HandlerResult> {
    move |handlers, element| {
        if drop(&element) { Some(String::new().into()) } else { handlers.fallback(element) }
    }
}

/// Where the walk stands, for [`entries_as_headings`]: the level of the last real heading, the
/// entries whose description is being walked, whether the definition list being walked has
/// its entries as headings, whether an entry's heading was just written (its further
/// signatures are lines under it, not headings of their own), and, per node seen, whether only
/// entries and new sections follow it (see [`only_entries_follow`]).
#[derive(Default)]
struct EntryWalk {
    level: AtomicU8,
    open: AtomicUsize,
    convert: AtomicBool,
    signatures: AtomicBool,
    follows: Mutex<HashMap<usize, bool>>,
}

/// Documentation generators write an API reference as definition lists: Sphinx makes each
/// function, class, method, option or glossary term a `<dt>` with an `id` (its anchor) or the
/// class `sig`, and its description the `<dd>` after it. Converted as they are, a reference page
/// is one section of loose paragraphs (functools.html: 38 chunks, every one "in functools"),
/// and a description that does not repeat its function's name cannot be found by it. As
/// headings, one level below the section they sit in (a class's methods one further), each
/// entry is a section named by its signature. A `<dt>` without an anchor (a field list's
/// "Parameters", a plain definition list) stays as it was, and so does a list that prose
/// follows before the next section: Markdown cannot close a section, so that prose would fall
/// under the last entry's heading.
fn entries_as_headings(builder: htmd::HtmlToMarkdownBuilder) -> htmd::HtmlToMarkdownBuilder {
    let walk = Arc::new(EntryWalk::default());
    let at_heading = Arc::clone(&walk);
    let at_section = Arc::clone(&walk);
    let at_list = Arc::clone(&walk);
    let at_term = Arc::clone(&walk);
    let at_description = walk;
    builder
        .add_handler(
            vec!["h1", "h2", "h3", "h4", "h5", "h6"],
            move |handlers: &dyn htmd::element_handler::Handlers, element: htmd::Element| {
                let level = element.tag.as_bytes()[1].saturating_sub(b'0');
                at_heading.level.store(level, Ordering::Relaxed);
                at_heading.signatures.store(false, Ordering::Relaxed);
                handlers.fallback(element)
            },
        )
        .add_handler(
            vec!["section", "div"],
            move |handlers: &dyn htmd::element_handler::Handlers, element: htmd::Element| {
                // When a section ends, the level is its parent's again: entries after a
                // subsection are the parent's, one level below its heading.
                if !is_sectioning(element.tag, element.attrs) {
                    return handlers.fallback(element);
                }
                let outer = at_section.level.load(Ordering::Relaxed);
                let converted = handlers.fallback(element);
                at_section.level.store(outer, Ordering::Relaxed);
                converted
            },
        )
        .add_handler(
            vec!["dl"],
            move |handlers: &dyn htmd::element_handler::Handlers, element: htmd::Element| {
                let walk = &at_list;
                let convert = only_entries_follow(element.node, walk);
                let outer = walk.convert.swap(convert, Ordering::Relaxed);
                let converted = handlers.fallback(element);
                walk.convert.store(outer, Ordering::Relaxed);
                converted
            },
        )
        .add_handler(
            vec!["dt"],
            move |handlers: &dyn htmd::element_handler::Handlers, element: htmd::Element| {
                let walk = &at_term;
                if !walk.convert.load(Ordering::Relaxed)
                    || !is_entry(element.attrs)
                    || walk.signatures.load(Ordering::Relaxed)
                {
                    return handlers.fallback(element);
                }
                let inner = handlers.walk_children(element.node).content;
                let title = inner.split_whitespace().collect::<Vec<_>>().join(" ");
                if title.is_empty() {
                    return handlers.fallback(element);
                }
                let level = usize::from(walk.level.load(Ordering::Relaxed))
                    + 1
                    + walk.open.load(Ordering::Relaxed);
                walk.signatures.store(true, Ordering::Relaxed);
                Some(format!("\n\n{} {title}\n\n", "#".repeat(level.min(6))).into())
            },
        )
        .add_handler(
            vec!["dd"],
            move |handlers: &dyn htmd::element_handler::Handlers, element: htmd::Element| {
                let walk = &at_description;
                if !walk.signatures.swap(false, Ordering::Relaxed) {
                    return handlers.fallback(element);
                }
                walk.open.fetch_add(1, Ordering::Relaxed);
                let described = handlers.fallback(element);
                walk.open.fetch_sub(1, Ordering::Relaxed);
                walk.signatures.store(false, Ordering::Relaxed);
                described
            },
        )
}

/// A definition term that names an entry of a reference: it has an anchor, or Sphinx's
/// signature class (a second signature of one entry has only the class).
fn is_entry(attrs: &[html5ever::Attribute]) -> bool {
    attribute(attrs, "id").is_some_and(|id| !id.is_empty()) || has_class(attrs, "sig")
}

/// Whether, from `node` to the end of the section it sits in, only further entries, new
/// sections and headings, and elements without text follow: then the entries of a list at
/// `node` can be headings without taking in prose that is not theirs. Climbs the ancestors up
/// to a section (`<section>`, Sphinx's older `<div class="section">`, the body); each level's
/// answer is computed once for all its children, so a page of thousands of entries is one pass.
fn only_entries_follow(node: &Rc<Node>, walk: &EntryWalk) -> bool {
    let Ok(mut follows) = walk.follows.lock() else { return false };
    let mut node = Rc::clone(node);
    loop {
        let Some(parent) = parent_of(&node) else { return true };
        let key = Rc::as_ptr(&node) as usize;
        if !follows.contains_key(&key) {
            // Backwards over the children: each learns whether what follows it is fine.
            let mut fine = true;
            for child in parent.children.borrow().iter().rev() {
                follows.insert(Rc::as_ptr(child) as usize, fine);
                fine = match sibling_kind(child) {
                    Sibling::EndsSection => true,
                    Sibling::Entries => fine,
                    Sibling::Prose => false,
                };
            }
        }
        if !follows.get(&key).copied().unwrap_or(false) {
            return false;
        }
        if is_section(&parent) {
            return true;
        }
        node = parent;
    }
}

/// What a node following a list of entries is to it.
enum Sibling {
    /// A heading or a section: what follows it is its own.
    EndsSection,
    /// More entries (a list of them, a term with an anchor, a description), or nothing to read.
    Entries,
    /// Text that would fall under the last entry's heading.
    Prose,
}

fn sibling_kind(node: &Rc<Node>) -> Sibling {
    match &node.data {
        NodeData::Element { name, attrs, .. } => match &*name.local {
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Sibling::EndsSection,
            tag if is_sectioning(tag, &attrs.borrow()) => Sibling::EndsSection,
            "dd" => Sibling::Entries,
            "dt" if is_entry(&attrs.borrow()) => Sibling::Entries,
            "dl" if first_term_is_entry(node) => Sibling::Entries,
            _ if has_text(node) => Sibling::Prose,
            _ => Sibling::Entries,
        },
        NodeData::Text { .. } if has_text(node) => Sibling::Prose,
        _ => Sibling::Entries,
    }
}

fn is_section(node: &Rc<Node>) -> bool {
    match &node.data {
        NodeData::Element { name, attrs, .. } => {
            matches!(&*name.local, "article" | "main" | "body" | "html")
                || is_sectioning(&name.local, &attrs.borrow())
        }
        _ => true,
    }
}

/// A section of the page: `<section>`, or Sphinx's older `<div class="section">`.
fn is_sectioning(tag: &str, attrs: &[html5ever::Attribute]) -> bool {
    tag == "section" || tag == "div" && has_class(attrs, "section")
}

/// Whether a definition list's first term names an entry.
fn first_term_is_entry(list: &Rc<Node>) -> bool {
    list.children.borrow().iter().find_map(|child| match &child.data {
        NodeData::Element { name, attrs, .. } if &*name.local == "dt" => {
            Some(is_entry(&attrs.borrow()))
        }
        _ => None,
    }) == Some(true)
}

/// Whether any text that is not white space lies under `node` (iteratively: pages nest up to
/// [`MAX_DEPTH`], and a decoder thread's stack is not spent on this).
fn has_text(node: &Rc<Node>) -> bool {
    let mut stack = vec![Rc::clone(node)];
    while let Some(next) = stack.pop() {
        match &next.data {
            NodeData::Text { contents } if !contents.borrow().trim().is_empty() => return true,
            NodeData::Element { .. } | NodeData::Document => {
                stack.extend(next.children.borrow().iter().cloned());
            }
            _ => {}
        }
    }
    false
}

/// A node's parent, if it has one (rcdom keeps it as a weak handle in a cell).
fn parent_of(node: &Rc<Node>) -> Option<Rc<Node>> {
    let weak = node.parent.take();
    let parent = weak.as_ref().and_then(std::rc::Weak::upgrade);
    node.parent.set(weak);
    parent
}

/// A `<pre>` is a fenced block whether or not a `<code>` sits in it (htmd fences only
/// `<pre><code>`; a bare `<pre>`, common in EPUB, would become loose lines).
fn pre_as_fence(
    handlers: &dyn htmd::element_handler::Handlers,
    element: htmd::Element,
) -> Option<htmd::element_handler::HandlerResult> {
    let inner = handlers.walk_children(element.node).content;
    let body = inner.trim_matches('\n');
    if body.starts_with("```") || body.starts_with("~~~") || body.trim().is_empty() {
        return Some(format!("\n\n{body}\n\n").into());
    }
    // A fence longer than any backtick run inside.
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    Some(format!("\n\n{fence}\n{body}\n{fence}\n\n").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_nested_past_the_limit_are_refused_and_up_to_it_converted() {
        let page = |depth: usize| {
            format!(
                "<!DOCTYPE html><html><body>{}deep text{}</body></html>",
                "<div>".repeat(depth),
                "</div>".repeat(depth)
            )
        };
        // On a thread with a worker's stack, as the engine runs decoders; html and body
        // count two levels.
        let run = move || {
            let md = to_markdown(&page(MAX_DEPTH - 2)).expect("converted");
            assert!(md.contains("deep text"), "{md}");
            let err = to_markdown(&page(MAX_DEPTH - 1)).expect_err("refused");
            assert!(err.starts_with("elements nest 1001 deep"), "{err}");
            // A hundred thousand deep is refused in one pass, not converted.
            assert!(to_markdown(&page(100_000)).is_err());
        };
        let worker = std::thread::Builder::new()
            .stack_size(crate::WORKER_STACK_BYTES)
            .spawn(run)
            .expect("a thread");
        worker.join().expect("no stack overflow");
    }

    #[test]
    fn permalinks_and_navigation_roles_are_left_out() {
        let html = r##"<html><body>
            <div class="related" role="navigation"><ul><li><a href="index.html">index</a></li></ul></div>
            <h1>Sorting<a class="headerlink" href="#sorting" title="Link to this heading">¶</a></h1>
            <p>See <a href="sort.html">sorted</a> and <a class="reference" href="x">key functions</a>.</p>
            <div class="sphinxsidebar" role="search"><form><input name="q"></form></div>
            <ul class="toc"><li>kept</li></ul>
            </body></html>"##;
        let md = to_markdown(html).expect("converted");
        assert!(md.contains("# Sorting\n"), "{md}");
        assert!(!md.contains('¶') && !md.contains("index"), "{md}");
        assert!(md.contains("[sorted](sort.html)") && md.contains("[key functions](x)"), "{md}");
        assert!(md.contains("- kept"), "{md}");
    }

    #[test]
    fn reference_entries_are_headings_below_their_section() {
        // Sphinx's markup for a module page: a function with two signatures and a field list,
        // a class with a method, a subsection; then a list that prose follows, and a plain
        // definition list.
        let html = r##"<html><body>
            <section><h2>Caching<a class="headerlink" href="#caching">¶</a></h2>
            <p>Intro.</p>
            <span class="target" id="index-0"></span>
            <dl class="py function">
            <dt class="sig sig-object py" id="functools.lru_cache">@functools.<span class="sig-name descname">lru_cache</span>(<em>user_function</em>)</dt>
            <dt class="sig sig-object py">@functools.<span class="sig-name descname">lru_cache</span>(<em>maxsize=128</em>)</dt>
            <dd><p>Memoizes.</p>
              <dl class="field-list simple"><dt class="field-odd">Parameters</dt><dd><p>typed</p></dd></dl>
            </dd></dl>
            <dl class="py class">
            <dt class="sig sig-object py" id="m.Matcher"><em class="property">class </em>m.Matcher</dt>
            <dd><p>Matches.</p>
              <dl class="py method"><dt class="sig sig-object py" id="m.Matcher.ratio">ratio()</dt>
              <dd><p>Twice the matches over the total.</p></dd></dl>
            </dd></dl>
            <section><h3>Options</h3>
            <dl class="std option"><dt class="sig sig-object std" id="opt-v">-v</dt><dd>verbose</dd></dl>
            </section>
            <dl class="py function"><dt class="sig sig-object py" id="later">later()</dt><dd>After.</dd></dl>
            </section>
            <section><h2>Followed by prose</h2>
            <dl class="py function"><dt class="sig sig-object py" id="x">x()</dt><dd>Does x.</dd></dl>
            <p>Not about x.</p></section>
            <section><h2>Plain</h2><dl><dt>term</dt><dd>a plain definition</dd></dl></section>
            </body></html>"##;
        let md = to_markdown(html).expect("converted");
        let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(
            headings,
            [
                "## Caching",
                "### @functools.lru\\_cache(*user\\_function*)",
                "### *class* m.Matcher",
                "#### ratio()",
                "### Options",
                "#### -v",
                // After the subsection, an entry of Caching again, not of Options.
                "### later()",
                "## Followed by prose",
                "## Plain",
            ],
            "{md}"
        );
        // The second signature, the field list, the entry that prose follows and the plain
        // term stay lines of text.
        assert!(md.contains("\n@functools.lru\\_cache(*maxsize=128*)\n"), "{md}");
        assert!(md.contains("\nParameters\n") && md.contains("\nx()\n"), "{md}");
        assert!(md.contains("\nterm\n"), "{md}");
    }

    #[test]
    fn pages_are_decoded_templates_and_fragments_are_source() {
        let page: &[u8] = b"<!DOCTYPE html>\n<html><body><h1>Guide</h1></body></html>\n";
        assert!(is_page(page));
        assert!(is_page(b"\xEF\xBB\xBF  <!-- generated -->\n<!doctype HTML><p>x</p>"));
        assert!(is_page(b"<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"));
        assert!(is_page(b"<HTML lang=en><body>old</body></HTML>"));
        // Templates, even of whole pages, and fragments are a web project's source.
        assert!(!is_page(
            b"{% extends \"base.html\" %}\n{% block content %}<p>x</p>{% endblock %}"
        ));
        assert!(!is_page(b"{% load static %}<!DOCTYPE html>\n<html></html>"));
        assert!(!is_page(b"<!DOCTYPE html>\n<html><title>{{ .Title }}</title></html>"));
        assert!(!is_page(b"<!DOCTYPE html>\n<html><% if user %><p>hi</p><% end %></html>"));
        assert!(!is_page(b"<div class=\"card\">\n  <slot></slot>\n</div>\n"));
        assert!(!is_page(b"<!-- unterminated"));
        assert!(!is_page(b""));
    }

    #[test]
    fn headings_code_tables_and_no_scripts() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
            <nav><a href="/">Home</a></nav>
            <h1>Guide</h1><p>Intro &amp; more.</p><script>alert(1)</script>
            <h2>Install</h2><pre><code>cargo build
  --release</code></pre>
            <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
            </body></html>"#;
        let md = to_markdown(html).expect("converted");
        assert!(md.starts_with("# Guide\n"), "{md}");
        assert!(md.contains("Intro & more."), "{md}");
        assert!(md.contains("## Install\n"), "{md}");
        assert!(md.contains("```\ncargo build\n  --release\n```"), "{md}");
        assert!(md.contains("| a | b |"), "{md}");
        let bare = to_markdown("<p>a</p><pre>let x = 1;\nlet y = 2;</pre>").expect("converted");
        assert!(bare.contains("```\nlet x = 1;\nlet y = 2;\n```"), "{bare}");
        for gone in ["alert", "Home", "p{}"] {
            assert!(!md.contains(gone), "{gone}: {md}");
        }
    }
}
