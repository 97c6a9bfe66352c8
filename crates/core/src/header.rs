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
    let fits = |s: &str| sizer.size(s) <= cap;
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
        for l in sig.lines().map(str::trim).filter(|l| !l.is_empty()) {
            push_line(&mut header, style, l);
        }
        if !fits(&header) {
            header.truncate(before);
        }
    }

    add_context(&mut header, facts.context, facts.context_share, style, sizer, cap);
    header
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
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.push_str(&style.suffix);
    out.push('\n');
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
