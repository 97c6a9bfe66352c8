//! Context headers: path, scope chain, signature and part, written as comments of the chunk's
//! language and kept within a share of the budget.

use std::fmt::Write as _;

use crate::atom::CommentStyle;
use crate::sizer::ChunkSizer;

/// What a header says.
pub(crate) struct HeaderFacts<'a> {
    /// The file's path; empty to leave the path line out.
    pub path: &'a str,
    pub scope: &'a [&'a str],
    /// The innermost opened atom's signature (or label), when the chunk starts inside it.
    pub signature: Option<&'a str>,
    /// `(k, n, label)`: part k of n of the innermost opened atom.
    pub part: Option<(usize, usize, &'a str)>,
    pub context: &'a [String],
    /// Most the context lines may add to the header: a small share of the budget, so small
    /// budgets keep their room for code.
    pub context_share: usize,
}

/// Renders a header of at most `cap` units. What does not fit is left out, least important
/// first: context lines, then the signature, then the part number, then outer scopes
/// (`in … > B > C`, then `in C`), then the path (the record keeps it), then the scope itself;
/// a path that alone is too long is shortened from the left. The packer never gives a chunk
/// inside a scope less room than `in C` takes.
pub(crate) fn render(
    facts: &HeaderFacts<'_>,
    style: &CommentStyle,
    sizer: &dyn ChunkSizer,
    cap: usize,
) -> String {
    if cap == 0 {
        return String::new();
    }
    let fits = |s: &str| !sizer.exceeds(s, cap);
    let lines = ScopeLines::new(facts);

    // Path and the longest scope line that fits with it: the header proper. Candidates are
    // written one at a time into the header and the first that fits stays: most headers fit
    // whole, so usually one candidate is ever written.
    let mut header = String::with_capacity(facts.path.len() + 128);
    if !facts.path.is_empty() {
        push_line(&mut header, style, facts.path);
    }
    let path_len = header.len();
    let full = if lines.count() == 0 {
        fits(&header)
    } else {
        (0..lines.count()).any(|i| {
            header.truncate(path_len);
            lines.write(i, style, &mut header);
            fits(&header)
        })
    };
    if !full {
        // Short of room: the scope alone, else the path alone (shortened if it must be).
        let mut alone = String::new();
        for i in 0..lines.count() {
            alone.clear();
            lines.write(i, style, &mut alone);
            if fits(&alone) {
                return alone;
            }
        }
        return shortened_path(facts.path, style, &fits);
    }

    if let Some(sig) = facts.signature {
        // A signature keeps its lines (a table's header and delimiter rows, a long parameter
        // list), each as a comment line.
        let before = header.len();
        push_signature(&mut header, style, sig);
        if !fits(&header) {
            header.truncate(before);
        }
    }

    add_context(&mut header, facts.context, facts.context_share, style, sizer, cap);
    header
}

/// Appends a signature's lines to a header, each as a comment line.
pub(crate) fn push_signature(out: &mut String, style: &CommentStyle, sig: &str) {
    for l in sig.lines().map(str::trim).filter(|l| !l.is_empty()) {
        push_line(out, style, l);
    }
}

/// The scope lines a header may carry, most complete first: the whole chain, then without its
/// outer scopes (`in … > B > C`), then the innermost scope without the mark of the elided ones
/// (four chars less); all of it first with the part number, then without it, since the part
/// matters less than the scope it is part of. Without a scope, a part is told by its label.
struct ScopeLines<'f> {
    facts: &'f HeaderFacts<'f>,
    /// Candidates per pass (with the part number, then without it).
    per_pass: usize,
    passes: usize,
}

impl<'f> ScopeLines<'f> {
    fn new(facts: &'f HeaderFacts<'f>) -> Self {
        let depth = facts.scope.len();
        let per_pass = match depth {
            0 => usize::from(facts.part.is_some()),
            1 => 1,
            _ => depth + 1,
        };
        let passes = if facts.part.is_some() && depth > 0 { 2 } else { 1 };
        Self { facts, per_pass, passes }
    }

    fn count(&self) -> usize {
        self.per_pass * self.passes
    }

    /// Appends candidate `i` (< [`Self::count`]) to `out` as a comment line.
    fn write(&self, i: usize, style: &CommentStyle, out: &mut String) {
        let scope = self.facts.scope;
        let with_part = i < self.per_pass && self.facts.part.is_some();
        let i = i % self.per_pass;
        let mut text = String::with_capacity(64);
        if scope.is_empty() {
            text.push_str(self.facts.part.map_or("", |(_, _, label)| label));
        } else if i == scope.len() {
            text.push_str("in ");
            text.push_str(scope[scope.len() - 1]);
        } else {
            text.push_str("in ");
            if i > 0 {
                text.push_str("… > ");
            }
            for (j, s) in scope[i..].iter().enumerate() {
                if j > 0 {
                    text.push_str(" > ");
                }
                text.push_str(s);
            }
        }
        if let (true, Some((k, n, _))) = (with_part, self.facts.part) {
            // Writing to a String cannot fail.
            let _ = write!(text, " (part {k}/{n})");
        }
        push_line(out, style, &text);
    }
}

/// Appends context lines (imports) to a rendered header: at most `share` units of them, and
/// only the room left under `cap`. Rendering with the context is rendering without it, then
/// this.
pub(crate) fn add_context(
    header: &mut String,
    context: &[String],
    share: usize,
    style: &CommentStyle,
    sizer: &dyn ChunkSizer,
    cap: usize,
) {
    if context.is_empty() {
        return;
    }
    let context_cap = cap.min(sizer.size(header) + share);
    for ctx in context {
        let before = header.len();
        push_line(header, style, ctx);
        if sizer.size(header) > context_cap {
            header.truncate(before);
            break;
        }
    }
}

/// The shortest line that names a scope: `// in fn login`.
pub(crate) fn scope_line(style: &CommentStyle, label: &str) -> String {
    line(style, &format!("in {label}"))
}

/// One header line: `s` with its white space folded, as a comment.
fn line(style: &CommentStyle, s: &str) -> String {
    let mut out = String::with_capacity(style.prefix.len() + s.len() + style.suffix.len() + 1);
    push_line(&mut out, style, s);
    out
}

/// Appends [`line`]`(s)` to `out`.
fn push_line(out: &mut String, style: &CommentStyle, s: &str) {
    out.push_str(&style.prefix);
    let start = out.len();
    push_folded(out, s);
    neutralise(out, start, style);
    out.push_str(&style.suffix);
    out.push('\n');
}

/// Appends `s` with every run of white space folded into one space. Every line break Unicode
/// knows (`\n`, `\r`, vertical tab, form feed, NEL, U+2028, U+2029) is white space, so a path
/// or label holding one never starts a new, uncommented line.
fn push_folded(out: &mut String, s: &str) {
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
}

/// How `s` reads inside a header line of `style`: white space folded, comment delimiters
/// broken. The checker looks for a chunk's scope in its header in this form.
pub(crate) fn header_text(style: &CommentStyle, s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_folded(&mut out, s);
    neutralise(&mut out, 0, style);
    out
}

/// Makes `out[start..]`, the text of one header line, unable to end its comment early.
///
/// A block comment (`<!-- … -->`, `/* … */`) ends at its closing token, and in languages whose
/// block comments nest (Rust, Swift, Kotlin, Scala) an opening token inside would leave it
/// open: both are broken with a space after their first char (`a --> b.md` reads
/// `a - -> b.md`), which never makes a new one since the tokens hold no space. HTML also ends a
/// comment at `--!>`. A line comment ends at a line break, which [`push_folded`] already
/// removed, but in C and C++ (and Makefiles) a backslash at the end of the line splices the
/// next line into the comment, and that next line is the body's first: trailing backslashes
/// are dropped. The record keeps the exact path and labels; the header only has to read well.
fn neutralise(out: &mut String, start: usize, style: &CommentStyle) {
    if style.suffix.is_empty() {
        while out.len() > start && (out.ends_with('\\') || out.ends_with(' ')) {
            out.pop();
        }
        return;
    }
    let close = style.suffix.trim();
    let open = style.prefix.trim();
    let html = (close == "-->").then_some("--!>");
    for token in [close, open].into_iter().chain(html) {
        // A token of one char cannot be broken by a space, and one holding white space could
        // be rebuilt by it: neither is a comment delimiter of any language we write.
        if token.chars().nth(1).is_none() || token.contains(char::is_whitespace) {
            continue;
        }
        let first_len = token.chars().next().map_or(0, char::len_utf8);
        let mut from = start;
        while let Some(i) = out[from..].find(token) {
            let at = from + i + first_len;
            out.insert(at, ' ');
            from = at + 1;
        }
    }
}

/// The path line, or its end (`…/auth.rs`) if the whole path does not fit; empty if nothing
/// fits.
fn shortened_path(path: &str, style: &CommentStyle, fits: &dyn Fn(&str) -> bool) -> String {
    if path.is_empty() {
        return String::new();
    }
    let whole = line(style, path);
    if fits(&whole) {
        return whole;
    }
    let chars: Vec<char> = path.chars().collect();
    let mut keep = chars.len();
    while keep > 1 {
        keep /= 2;
        let tail: String = chars[chars.len() - keep..].iter().collect();
        let h = line(style, &format!("…{tail}"));
        if fits(&h) {
            return h;
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::sizer::Chars;

    fn facts<'a>(scope: &'a [&'a str], sig: Option<&'a str>) -> HeaderFacts<'a> {
        HeaderFacts {
            path: "src/auth.rs",
            scope,
            signature: sig,
            part: None,
            context: &[],
            context_share: 0,
        }
    }

    #[test]
    fn context_lines_take_their_share_of_the_room_left() {
        let style = CommentStyle::line("//");
        let context =
            ["imports: std::io, std::fmt".to_owned(), "imports: crate::db::Pool".to_owned()];
        let mut f = facts(&["impl Pool"], None);
        f.context = &context;
        let bare = "// src/auth.rs\n// in impl Pool\n";
        let one = format!("{bare}// {}\n", context[0]);
        let two = format!("{one}// {}\n", context[1]);
        f.context_share = 1000;
        assert_eq!(render(&f, &style, &Chars, 1000), two);
        assert_eq!(render(&f, &style, &Chars, two.chars().count() - 1), one, "the cap bounds it");
        f.context_share = two.chars().count() - bare.chars().count() - 1;
        assert_eq!(render(&f, &style, &Chars, 1000), one, "and so does the share");
        f.context_share = 0;
        assert_eq!(render(&f, &style, &Chars, 1000), bare);
    }

    #[test]
    fn renders_path_scope_and_signature() {
        let style = CommentStyle::line("//");
        let mut f = facts(&["impl AuthService", "fn login"], Some("pub fn login(\n  &self)"));
        f.part = Some((2, 5, "fn login"));
        let h = render(&f, &style, &Chars, 1000);
        assert_eq!(
            h,
            "// src/auth.rs\n// in impl AuthService > fn login (part 2/5)\n// pub fn login(\n// &self)\n"
        );
    }

    #[test]
    fn shortens_to_the_cap() {
        let style = CommentStyle::line("#");
        let f = facts(&["class A", "class B", "def c"], Some("def c(self, x, y, z)"));
        let full = render(&f, &style, &Chars, 1000);
        for cap in 0..full.len() + 2 {
            let h = render(&f, &style, &Chars, cap);
            assert!(h.chars().count() <= cap, "cap {cap}: {h:?}");
        }
    }

    #[test]
    fn block_comments_wrap_each_line() {
        let style = CommentStyle::block("<!--", "-->");
        let h = render(&facts(&["Guide", "Install"], None), &style, &Chars, 1000);
        assert_eq!(h, "<!-- src/auth.rs -->\n<!-- in Guide > Install -->\n");
    }

    /// See: issue 13, "a Markdown file named `a --> b.md` ends the header comment early".
    #[test]
    fn delimiters_inside_names_do_not_end_the_comment() {
        let html = CommentStyle::block("<!--", "-->");
        let mut f = facts(&["# Guide --> x", "## <!-- y --!> z"], None);
        f.path = "a --> b.md";
        assert_eq!(
            render(&f, &html, &Chars, 1000),
            "<!-- a - -> b.md -->\n<!-- in # Guide - -> x > ## < !-- y - -!> z -->\n"
        );
        let c = CommentStyle::block("/*", "*/");
        f.path = "src/*/x.c";
        f.scope = &["fn f /* a */", "*/*/"];
        assert_eq!(
            render(&f, &c, &Chars, 1000),
            "/* src/ * /x.c */\n/* in fn f / * a * / > * / * / */\n"
        );
        let slash = CommentStyle::line("//");
        f.path = "dir\\\nnext line\r\u{2028}more\\";
        f.scope = &["#define X(a) \\"];
        f.signature = Some("#define X(a) \\\r\n  do { \\");
        assert_eq!(
            render(&f, &slash, &Chars, 1000),
            "// dir\\ next line more\n// in #define X(a)\n// #define X(a)\n// do {\n",
            "line breaks fold into spaces and a line never ends in a backslash"
        );
    }

    /// Text full of comment delimiters, line breaks of every kind and backslashes.
    fn hostile() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            3 => "[a-z]{1,5}",
            1 => Just(" ".to_owned()),
            1 => "(-->|--!>|<!--|/\\*|\\*/|\\(\\*|\\*\\)|\\{-|-\\}|--|-|\\*|/|<|>|!)",
            1 => "[\n\r\u{b}\u{c}\u{85}\u{2028}\u{2029}\t]",
            1 => Just("\\".to_owned()),
            1 => "[é☃…]",
        ];
        prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
    }

    fn style() -> impl Strategy<Value = CommentStyle> {
        prop_oneof![
            Just(CommentStyle::block("<!--", "-->")),
            Just(CommentStyle::block("/*", "*/")),
            Just(CommentStyle::block("(*", "*)")),
            Just(CommentStyle::block("{-", "-}")),
            Just(CommentStyle::line("//")),
            Just(CommentStyle::line("#")),
            Just(CommentStyle::line("%")),
            Just(CommentStyle::line("--")),
            Just(CommentStyle::line("..")),
        ]
    }

    proptest::proptest! {
        /// Whatever the path, labels, signature and context hold, every header line is one
        /// comment: it starts with the prefix, holds no line break, and (for block comments)
        /// holds the closing token only at its end and no opening token after its start.
        #[test]
        fn every_header_line_is_one_comment(
            style in style(),
            path in hostile(),
            scope in prop::collection::vec(hostile(), 0..4),
            signature in prop::option::of(hostile()),
            part in any::<bool>(),
            context in prop::collection::vec(hostile(), 0..3),
            cap in 0usize..400,
        ) {
            let scope: Vec<&str> = scope.iter().map(String::as_str).collect();
            let facts = HeaderFacts {
                path: &path,
                scope: &scope,
                signature: signature.as_deref(),
                part: part.then_some((2, 3, scope.last().copied().unwrap_or("x"))),
                context: &context,
                context_share: cap,
            };
            let header = render(&facts, &style, &Chars, cap);
            proptest::prop_assert!(header.is_empty() || header.ends_with('\n'));
            let (open, close) = (style.prefix.trim(), style.suffix.trim());
            for l in header.split_terminator('\n') {
                proptest::prop_assert!(l.starts_with(&style.prefix), "{l:?}");
                proptest::prop_assert!(l.ends_with(&style.suffix), "{l:?}");
                let breaks = ['\r', '\u{b}', '\u{c}', '\u{85}', '\u{2028}', '\u{2029}'];
                proptest::prop_assert!(!l.contains(breaks), "{l:?}");
                if close.is_empty() {
                    proptest::prop_assert!(!l.ends_with('\\'), "{l:?}");
                    continue;
                }
                let inner = &l[open.len()..l.len() - close.len()];
                proptest::prop_assert!(!inner.contains(close), "{l:?}");
                proptest::prop_assert!(!inner.contains(open), "{l:?}");
                if close == "-->" {
                    proptest::prop_assert!(!inner.contains("--!>"), "{l:?}");
                }
            }
        }
    }

    #[test]
    fn short_of_room_the_scope_outlives_the_path() {
        let style = CommentStyle::line("#");
        let f = facts(&["class Outer", "def method"], None);
        assert_eq!(
            render(&f, &style, &Chars, 60),
            "# src/auth.rs\n# in class Outer > def method\n"
        );
        assert_eq!(render(&f, &style, &Chars, 40), "# src/auth.rs\n# in … > def method\n");
        assert_eq!(
            render(&f, &style, &Chars, 30),
            "# src/auth.rs\n# in def method\n",
            "outer scopes go before the path"
        );
        assert_eq!(render(&f, &style, &Chars, 29), "# in … > def method\n");
        assert_eq!(render(&f, &style, &Chars, 16), "# in def method\n", "then the ellipsis");
        let mut with_part = facts(&["class Outer", "def method"], None);
        with_part.part = Some((2, 3, "def method"));
        assert_eq!(
            render(&with_part, &style, &Chars, 41),
            "# src/auth.rs\n# in def method (part 2/3)\n"
        );
        assert_eq!(
            render(&with_part, &style, &Chars, 31),
            "# src/auth.rs\n# in def method\n",
            "the part goes first"
        );
        assert_eq!(render(&with_part, &style, &Chars, 29), "# in def method (part 2/3)\n");
        assert_eq!(render(&with_part, &style, &Chars, 26), "# in … > def method\n");
        assert_eq!(render(&f, &style, &Chars, 14), "# src/auth.rs\n");
        assert_eq!(render(&f, &style, &Chars, 10), "# …th.rs\n", "halving keeps the end");
        assert_eq!(render(&f, &style, &Chars, 3), "");
    }
}
