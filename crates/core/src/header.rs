//! Context headers: path, scope chain, signature and part, written as comments of the chunk's
//! language and kept within a share of the budget.

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
}

/// Renders a header of at most `cap` units; facts that do not fit are shortened or left out,
/// least important first (context, signature, then the outer scopes, then the path).
pub(crate) fn render(
    facts: &HeaderFacts<'_>,
    style: &CommentStyle,
    sizer: &dyn ChunkSizer,
    cap: usize,
) -> String {
    let line = |s: &str| format!("{}{}{}\n", style.prefix, one_line(s), style.suffix);
    let fits = |s: &str| sizer.size(s) <= cap;

    let part = facts.part.map(|(k, n, _)| format!(" (part {k}/{n})")).unwrap_or_default();
    let mut scope_line = String::new();
    if !facts.scope.is_empty() {
        scope_line = line(&format!("in {}{part}", facts.scope.join(" > ")));
    } else if let Some((k, n, label)) = facts.part {
        scope_line = line(&format!("{label} (part {k}/{n})"));
    }

    let mut header = if facts.path.is_empty() { String::new() } else { line(facts.path) };
    if !fits(&header) {
        // Keep the end of the path: the file name says most.
        let chars: Vec<char> = facts.path.chars().collect();
        let mut keep = chars.len();
        while keep > 0 {
            keep /= 2;
            let tail: String = chars[chars.len() - keep..].iter().collect();
            header = line(&format!("…{tail}"));
            if fits(&header) {
                break;
            }
        }
        if !fits(&header) {
            return String::new();
        }
        return header;
    }

    if !scope_line.is_empty() {
        let mut with_scope = format!("{header}{scope_line}");
        let mut skip = 1;
        while !fits(&with_scope) && skip < facts.scope.len() {
            let rest = facts.scope[skip..].join(" > ");
            with_scope = format!("{header}{}", line(&format!("in … > {rest}{part}")));
            skip += 1;
        }
        if !fits(&with_scope) {
            return header;
        }
        header = with_scope;
    }

    if let Some(sig) = facts.signature {
        // A signature keeps its lines (a table's header and delimiter rows, a long parameter
        // list), each as a comment line.
        let sig_lines: String =
            sig.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| line(l)).collect();
        let with_sig = format!("{header}{sig_lines}");
        if !sig_lines.is_empty() && fits(&with_sig) {
            header = with_sig;
        }
    }

    // Context lines (imports) get at most a sixth of the header's share of the budget (about
    // 4 % of the budget), so small budgets keep their room for code.
    let context_cap = cap.min(sizer.size(&header) + cap / 6);
    for ctx in facts.context {
        let with_ctx = format!("{header}{}", line(ctx));
        if sizer.size(&with_ctx) > context_cap {
            break;
        }
        header = with_ctx;
    }
    header
}

/// Folds whitespace runs (newlines included) into single spaces.
fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizer::Chars;

    fn facts<'a>(scope: &'a [&'a str], sig: Option<&'a str>) -> HeaderFacts<'a> {
        HeaderFacts { path: "src/auth.rs", scope, signature: sig, part: None, context: &[] }
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
}
