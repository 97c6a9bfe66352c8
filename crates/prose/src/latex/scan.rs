//! The LaTeX scanner: one pass over the bytes that finds what the atomizer needs, and a matcher
//! that pairs `\begin` with `\end`.
//!
//! The scanner knows comments, `\verb`, verbatim-like environments (whose bodies it skips),
//! math (`$ $$ \( \) \[ \]`), `\begin`/`\end`, sectioning commands, `\item` and blank lines. It
//! never looks for a closer past a sane bound: math stops at a blank line (TeX refuses a
//! paragraph break in math too) or a size limit, and an environment that never ends is dropped
//! rather than allowed to swallow the rest of the document. Every such fallback becomes a
//! diagnostic.
//!
//! Only ASCII bytes are significant, so the scanner walks bytes: a UTF-8 continuation byte never
//! equals an ASCII one, and every range it reports starts and ends on an ASCII byte or the end
//! of the text.

use std::ops::Range;

use cleave_core::{Diagnostic, Severity};

use super::envs::{EnvClass, env_class, is_verbatim};

/// Longest inline math (`$…$`, `\(…\)`) the scanner looks through for its closer, in bytes.
const MAX_INLINE_MATH: usize = 8 * 1024;
/// Longest display math (`$$…$$`, `\[…\]`) the scanner looks through, in bytes.
const MAX_DISPLAY_MATH: usize = 32 * 1024;
/// Longest sectioning title, in bytes.
const MAX_TITLE: usize = 2 * 1024;
/// Longest environment name.
const MAX_ENV_NAME: usize = 64;
/// Longest caption, in bytes.
const MAX_CAPTION: usize = 8 * 1024;

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TokenKind {
    /// `\begin{name}`.
    Begin(String),
    /// `\end{name}`.
    End(String),
    /// Terminated math; `display` for `$$…$$` and `\[…\]`.
    Math { display: bool },
    /// A whole verbatim-like environment, `\begin` to `\end`.
    Verbatim(String),
    /// `\verb|…|`.
    Verb,
    /// A run of blank lines.
    Blank,
    /// A sectioning command with its title argument: level 0 (`\part`) to 6 (`\subparagraph`).
    Section { level: u8, title: Range<usize> },
    /// `\item`.
    Item,
    /// `\caption{…}` with its argument: kept whole in a figure or table that is split.
    Caption,
}

/// One token and its byte range.
#[derive(Debug, Clone)]
pub(super) struct Token {
    pub kind: TokenKind,
    pub range: Range<usize>,
}

/// What the matcher found: regions that nest, and markers that fall inside them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum NodeKind {
    /// A matched environment; `inner` lies between `\begin{…}` and `\end{…}`. One that holds a
    /// sectioning command is a `container`: it is opened into sections, never protected.
    Env { name: String, inner: Range<usize>, container: bool },
    /// Math, inline or display.
    Math { display: bool },
    /// A verbatim-like environment (opaque).
    Verbatim(String),
    /// `\verb`.
    Verb,
    /// A run of blank lines (marker).
    Blank,
    /// A sectioning command (marker).
    Section { level: u8, title: Range<usize> },
    /// `\item` (marker).
    Item,
    /// `\caption{…}`, argument included.
    Caption,
}

/// A node of the region forest: its children are the regions and markers it contains.
#[derive(Debug, Clone)]
pub(super) struct Node {
    pub kind: NodeKind,
    pub range: Range<usize>,
    pub children: Vec<usize>,
}

impl Node {
    /// Whether the node is a region that becomes an atom (not a marker).
    pub fn is_region(&self) -> bool {
        !matches!(self.kind, NodeKind::Blank | NodeKind::Section { .. } | NodeKind::Item)
    }
}

/// The scanned document.
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Regions and markers; children point into this list.
    pub nodes: Vec<Node>,
    /// Top-level nodes in order.
    pub roots: Vec<usize>,
    /// `\begin{document}` and `\end{document}`, when present.
    pub doc_begin: Option<Range<usize>>,
    pub doc_end: Option<Range<usize>>,
    /// Names declared with `\newtheorem` and friends.
    pub theorems: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Scans `text` into a region forest.
pub(super) fn scan(text: &str) -> Scan {
    let mut lexer = Lexer {
        text,
        b: text.as_bytes(),
        tokens: Vec::new(),
        diagnostics: Vec::new(),
        short_verbs: ShortVerbs::find(text),
    };
    lexer.run();
    let theorems = declared_theorems(text);
    let Lexer { tokens, diagnostics, .. } = lexer;
    let mut scan = Scan { theorems, diagnostics, ..Scan::default() };
    let flat = scan.pair(text, tokens);
    scan.nest(flat);
    scan
}

/// 1-based line of byte `at`, for diagnostics.
pub(super) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&c| c == b'\n').count() + 1
}

/// The end of the run of blank lines starting at line start `at`, if the line at `at` is blank.
/// A last line of only spaces counts as blank.
pub(super) fn blank_run(b: &[u8], at: usize) -> Option<usize> {
    let mut j = at;
    let mut end = None;
    while j < b.len() {
        let mut k = j;
        while k < b.len() && matches!(b[k], b' ' | b'\t' | b'\r') {
            k += 1;
        }
        if k < b.len() && b[k] == b'\n' {
            j = k + 1;
            end = Some(j);
        } else {
            if k == b.len() && k > j {
                end = Some(k);
            }
            break;
        }
    }
    end
}

struct Lexer<'a> {
    text: &'a str,
    b: &'a [u8],
    tokens: Vec<Token>,
    diagnostics: Vec<Diagnostic>,
    short_verbs: ShortVerbs,
}

/// Short verbatim delimiters (`\MakeShortVerb{\|}` makes `|…|` mean `\verb|…|`), with where
/// each is turned on and off. The `l3doc` class makes `|` one from the start.
#[derive(Debug, Default)]
struct ShortVerbs {
    /// `(position, delimiter, on)`, in text order.
    events: Vec<(usize, u8, bool)>,
    /// Delimiters that are ever on (a bit per ASCII byte), for a quick test.
    ever: u128,
}

impl ShortVerbs {
    fn find(text: &str) -> Self {
        let mut out = Self::default();
        let b = text.as_bytes();
        if let Some(at) = text.find("\\documentclass")
            && text[at..].lines().next().is_some_and(|l| l.contains("{l3doc}"))
        {
            out.events.push((at, b'|', true));
        }
        for (name, on) in [
            ("\\MakeShortVerb", true),
            ("\\DefineShortVerb", true),
            ("\\DeleteShortVerb", false),
            ("\\UndefineShortVerb", false),
        ] {
            for (at, _) in text.match_indices(name) {
                // `\MakeShortVerb*{\|}`, `\MakeShortVerb {\|}` or `\MakeShortVerb\|`.
                let mut j = at + name.len();
                j += usize::from(b.get(j) == Some(&b'*'));
                while b.get(j) == Some(&b' ') {
                    j += 1;
                }
                j += usize::from(b.get(j) == Some(&b'{'));
                if b.get(j) == Some(&b'\\')
                    && let Some(&d) = b.get(j + 1)
                    && d.is_ascii_punctuation()
                    && d != b'%'
                    && d != b'\\'
                {
                    out.events.push((at, d, on));
                }
            }
        }
        out.events.sort_unstable();
        for &(_, d, on) in &out.events {
            if on {
                out.ever |= 1 << d;
            }
        }
        out
    }

    /// Whether `d` is a short verbatim delimiter at `at`.
    fn active(&self, d: u8, at: usize) -> bool {
        if d >= 128 || self.ever & (1 << d) == 0 {
            return false;
        }
        let last = self.events.iter().take_while(|e| e.0 < at).filter(|e| e.1 == d).last();
        last.is_some_and(|e| e.2)
    }
}

impl Lexer<'_> {
    fn push(&mut self, kind: TokenKind, range: Range<usize>) {
        self.tokens.push(Token { kind, range });
    }

    fn degraded(&mut self, at: usize, what: String) {
        let line = line_of(self.text, at);
        self.diagnostics.push(Diagnostic::new(Severity::Degraded, format!("line {line}: {what}")));
    }

    fn run(&mut self) {
        let b = self.b;
        let n = b.len();
        let mut i = 0;
        if let Some(end) = blank_run(b, 0) {
            self.push(TokenKind::Blank, 0..end);
            i = end;
        }
        while i < n {
            match b[i] {
                b'\n' => {
                    i += 1;
                    if let Some(end) = blank_run(b, i) {
                        self.push(TokenKind::Blank, i..end);
                        i = end;
                    }
                }
                d if d.is_ascii_punctuation() && self.short_verbs.active(d, i) => {
                    i = self.short_verb(i);
                }
                b'%' => i = line_end(b, i),
                b'$' => i = self.dollar(i),
                b'\\' => i = self.command(i),
                _ => i += 1,
            }
        }
    }

    /// A short verbatim delimiter at `i`: verbatim up to the same delimiter on its line, or a
    /// lone character.
    fn short_verb(&mut self, i: usize) -> usize {
        let d = self.b[i];
        match self.b[i + 1..].iter().position(|&x| x == d || x == b'\n') {
            Some(p) if self.b[i + 1 + p] == d => {
                self.push(TokenKind::Verb, i..i + 2 + p);
                i + 2 + p
            }
            _ => i + 1,
        }
    }

    /// `$` or `$$` at `i`: math up to its closer, or a lone dollar.
    fn dollar(&mut self, i: usize) -> usize {
        let display = self.b.get(i + 1) == Some(&b'$');
        let (open, closer, max) =
            if display { (2, "$$", MAX_DISPLAY_MATH) } else { (1, "$", MAX_INLINE_MATH) };
        match math_end(self.b, i + open, closer, max) {
            Some(end) => {
                self.push(TokenKind::Math { display }, i..end);
                end
            }
            None => {
                self.degraded(
                    i,
                    format!("`{closer}` is never closed in its paragraph: read as text"),
                );
                i + open
            }
        }
    }

    /// A control sequence at `i`.
    fn command(&mut self, i: usize) -> usize {
        let b = self.b;
        let Some(&c) = b.get(i + 1) else { return i + 1 };
        if c == b'(' || c == b'[' {
            let (closer, max) =
                if c == b'(' { ("\\)", MAX_INLINE_MATH) } else { ("\\]", MAX_DISPLAY_MATH) };
            return match math_end(b, i + 2, closer, max) {
                Some(end) => {
                    self.push(TokenKind::Math { display: c == b'[' }, i..end);
                    end
                }
                None => {
                    let open = if c == b'(' { "\\(" } else { "\\[" };
                    self.degraded(
                        i,
                        format!("`{open}` is never closed in its paragraph: read as text"),
                    );
                    i + 2
                }
            };
        }
        if !c.is_ascii_alphabetic() {
            // A control symbol (`\%`, `\$`, `\\`): skip both bytes, but never a newline, which
            // may start a blank line.
            return if c == b'\n' { i + 1 } else { i + 2 };
        }
        let mut j = i + 1;
        while j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'@') {
            j += 1;
        }
        let name = &self.text[i + 1..j];
        let star = b.get(j) == Some(&b'*');
        match name {
            "begin" | "end" => self.environment(i, j, name == "begin"),
            "verb" => {
                let k = if star { j + 1 } else { j };
                match b.get(k) {
                    Some(&d)
                        if !d.is_ascii_alphabetic() && !d.is_ascii_whitespace() && d.is_ascii() =>
                    {
                        let close = b[k + 1..].iter().position(|&x| x == d || x == b'\n');
                        match close {
                            Some(p) if b[k + 1 + p] == d => {
                                self.push(TokenKind::Verb, i..k + 2 + p);
                                k + 2 + p
                            }
                            _ => k,
                        }
                    }
                    _ => k,
                }
            }
            "item" | "bibitem" => {
                self.push(TokenKind::Item, i..j);
                j
            }
            "caption" => self.caption(i, if star { j + 1 } else { j }),
            _ => match section_level(name) {
                Some(level) => self.section(i, if star { j + 1 } else { j }, level),
                None => j,
            },
        }
    }

    /// `\begin` or `\end` at `i`, name ending at `j`.
    fn environment(&mut self, i: usize, j: usize, begin: bool) -> usize {
        let b = self.b;
        let k = skip_spaces(b, j);
        if b.get(k) != Some(&b'{') {
            return j;
        }
        let Some(close) = b[k + 1..].iter().take(MAX_ENV_NAME + 1).position(|&x| x == b'}') else {
            return j;
        };
        let name = &self.text[k + 1..k + 1 + close];
        if name.is_empty()
            || name.bytes().any(|x| x.is_ascii_whitespace() || x == b'{' || x == b'\\')
        {
            return j;
        }
        let end = k + 2 + close;
        if !begin {
            self.push(TokenKind::End(name.to_owned()), i..end);
            return end;
        }
        if is_verbatim(name) {
            let closer = format!("\\end{{{name}}}");
            if let Some(p) = self.text[end..].find(&closer) {
                let stop = end + p + closer.len();
                self.push(TokenKind::Verbatim(name.to_owned()), i..stop);
                return stop;
            }
            self.degraded(
                i,
                format!("`\\begin{{{name}}}` has no `{closer}`: its body is read as LaTeX"),
            );
            return end;
        }
        self.push(TokenKind::Begin(name.to_owned()), i..end);
        end
    }

    /// `\caption` at `i` whose name (and star) ends at `j`: with its optional short caption
    /// and its argument, when they close within a paragraph.
    fn caption(&mut self, i: usize, j: usize) -> usize {
        let b = self.b;
        let mut k = skip_spaces(b, j);
        if b.get(k) == Some(&b'[') {
            match group_end(b, k, b'[', b']', MAX_CAPTION) {
                Some(e) => k = skip_spaces(b, e),
                None => return j,
            }
        }
        if b.get(k) != Some(&b'{') {
            return j;
        }
        match group_end(b, k, b'{', b'}', MAX_CAPTION) {
            Some(e) => {
                self.push(TokenKind::Caption, i..e);
                e
            }
            None => j,
        }
    }

    /// A sectioning command at `i` whose name (and star) ends at `j`.
    fn section(&mut self, i: usize, j: usize, level: u8) -> usize {
        let b = self.b;
        let mut k = skip_spaces(b, j);
        if b.get(k) == Some(&b'[') {
            match group_end(b, k, b'[', b']', MAX_TITLE) {
                Some(e) => k = skip_spaces(b, e),
                None => return j,
            }
        }
        if b.get(k) != Some(&b'{') {
            return j;
        }
        match group_end(b, k, b'{', b'}', MAX_TITLE) {
            Some(e) => {
                self.push(TokenKind::Section { level, title: k + 1..e - 1 }, i..e);
                e
            }
            None => j,
        }
    }
}

/// The level of a sectioning command, `\part` (0) to `\subparagraph` (6).
fn section_level(name: &str) -> Option<u8> {
    Some(match name {
        "part" => 0,
        "chapter" | "addchap" => 1,
        "section" | "addsec" => 2,
        "subsection" => 3,
        "subsubsection" => 4,
        "paragraph" => 5,
        "subparagraph" => 6,
        _ => return None,
    })
}

/// Index of the `\n` ending the line at `i`, or the end of the text.
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |p| i + p)
}

/// Skips spaces and tabs, and one newline that does not start a blank line.
fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    let mut newline = false;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' if !newline => {
                newline = true;
                i += 1;
            }
            _ => break,
        }
    }
    i
}

/// The end (after the closer) of a balanced group opening at `i`, within `max` bytes and one
/// paragraph. Escapes and comments are skipped.
fn group_end(b: &[u8], i: usize, open: u8, close: u8, max: usize) -> Option<usize> {
    let limit = (i + max).min(b.len());
    let mut depth = 0usize;
    let mut j = i;
    while j < limit {
        let c = b[j];
        if c == b'\\' {
            j += if b.get(j + 1) == Some(&b'\n') { 1 } else { 2 };
            continue;
        }
        if c == b'%' {
            j = line_end(b, j);
            continue;
        }
        if c == b'\n' && blank_run(b, j + 1).is_some() {
            return None;
        }
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(j + 1);
            }
        }
        j += 1;
    }
    None
}

/// The end (after the closer) of math whose body starts at `i`, or `None` if a blank line, the
/// end of the text or `max` bytes come first. Escapes, comments and `$` inside braces (as in
/// `\text{… $x$ …}`) are skipped.
fn math_end(b: &[u8], i: usize, closer: &str, max: usize) -> Option<usize> {
    let closer = closer.as_bytes();
    let limit = (i + max).min(b.len());
    let mut depth = 0usize;
    let mut j = i;
    while j < limit {
        let c = b[j];
        match c {
            b'\\' => {
                if closer[0] == b'\\' && b.get(j + 1) == Some(&closer[1]) {
                    return Some(j + 2);
                }
                // A sectioning command cannot sit in math: the math was never closed.
                let name_len = b[j + 1..].iter().take_while(|c| c.is_ascii_alphabetic()).count();
                if name_len > 0 {
                    let name = std::str::from_utf8(&b[j + 1..j + 1 + name_len]).unwrap_or("");
                    if section_level(name).is_some() {
                        return None;
                    }
                    j += 1 + name_len;
                    continue;
                }
                j += if b.get(j + 1) == Some(&b'\n') { 1 } else { 2 };
                continue;
            }
            b'%' => {
                j = line_end(b, j);
                continue;
            }
            b'\n' if blank_run(b, j + 1).is_some() => return None,
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'$' if depth == 0 && closer[0] == b'$' => {
                if closer.len() == 1 {
                    return (j > i).then_some(j + 1);
                }
                if b.get(j + 1) == Some(&b'$') {
                    return Some(j + 2);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// Environment names declared with `\newtheorem`, `\newtheorem*`, `\declaretheorem`,
/// `\spnewtheorem` and `\newmdtheoremenv`.
fn declared_theorems(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cmd in ["\\newtheorem", "\\declaretheorem", "\\spnewtheorem", "\\newmdtheoremenv"] {
        for (at, _) in text.match_indices(cmd) {
            let b = text.as_bytes();
            let mut k = at + cmd.len();
            if b.get(k).is_some_and(u8::is_ascii_alphabetic) {
                continue;
            }
            if b.get(k) == Some(&b'*') {
                k += 1;
            }
            k = skip_spaces(b, k);
            if b.get(k) == Some(&b'[') {
                match group_end(b, k, b'[', b']', 512) {
                    Some(e) => k = skip_spaces(b, e),
                    None => continue,
                }
            }
            if b.get(k) != Some(&b'{') {
                continue;
            }
            let Some(e) = group_end(b, k, b'{', b'}', MAX_ENV_NAME) else { continue };
            let name = text[k + 1..e - 1].trim();
            if !name.is_empty() && !out.iter().any(|n| n == name) {
                out.push(name.to_owned());
            }
        }
    }
    out
}

impl Scan {
    /// Pairs `\begin` with `\end` and turns tokens into a flat list of nodes.
    fn pair(&mut self, text: &str, tokens: Vec<Token>) -> Vec<Node> {
        let mut out: Vec<Node> = Vec::with_capacity(tokens.len());
        // Open environments: name, the range of their `\begin`, whether they hold a heading.
        let mut stack: Vec<(String, Range<usize>, bool)> = Vec::new();
        let node = |kind, range: Range<usize>| Node { kind, range, children: Vec::new() };
        // The first `\begin{document}` and the last `\end{document}` after it bound the body;
        // others are examples inside documentation and mean nothing.
        let is_doc = |t: &Token, begin: bool| match &t.kind {
            TokenKind::Begin(n) => begin && n == "document",
            TokenKind::End(n) => !begin && n == "document",
            _ => false,
        };
        let first_begin = tokens.iter().position(|t| is_doc(t, true));
        let last_end = first_begin
            .and_then(|f| tokens.iter().rposition(|t| is_doc(t, false)).filter(|&e| e > f));
        for (idx, tok) in tokens.into_iter().enumerate() {
            match tok.kind {
                TokenKind::Begin(name) if name == "document" => {
                    if Some(idx) == first_begin {
                        self.unterminated(text, &mut stack, 0);
                        self.doc_begin = Some(tok.range);
                    }
                }
                TokenKind::End(name) if name == "document" => {
                    if Some(idx) == last_end {
                        self.unterminated(text, &mut stack, 0);
                        self.doc_end = Some(tok.range);
                    }
                }
                TokenKind::Begin(name) => stack.push((name, tok.range, false)),
                TokenKind::End(name) => match stack.iter().rposition(|(n, _, _)| *n == name) {
                    Some(pos) => {
                        self.unterminated(text, &mut stack, pos + 1);
                        let (name, begin, container) =
                            stack.pop().expect("position is on the stack");
                        let inner = begin.end..tok.range.start;
                        let kind = NodeKind::Env { name, inner, container };
                        out.push(node(kind, begin.start..tok.range.end));
                    }
                    None => {
                        let line = line_of(text, tok.range.start);
                        self.diagnostics.push(Diagnostic::new(
                            Severity::Note,
                            format!("line {line}: `\\end{{{name}}}` closes no environment"),
                        ));
                    }
                },
                TokenKind::Blank => {
                    // Math environments cannot hold a paragraph break.
                    if let Some(pos) =
                        stack.iter().position(|(n, _, _)| env_class(n, &[]) == EnvClass::Math)
                    {
                        self.unterminated(text, &mut stack, pos);
                    }
                    out.push(node(NodeKind::Blank, tok.range));
                }
                TokenKind::Section { level, title } => {
                    // An environment that holds a heading becomes a container, opened into
                    // sections; one never closed is dropped at the end, so it swallows nothing.
                    if level <= 4 {
                        for open in &mut stack {
                            open.2 = true;
                        }
                    }
                    out.push(node(NodeKind::Section { level, title }, tok.range));
                }
                TokenKind::Math { display } => {
                    out.push(node(NodeKind::Math { display }, tok.range))
                }
                TokenKind::Verbatim(name) => out.push(node(NodeKind::Verbatim(name), tok.range)),
                TokenKind::Verb => out.push(node(NodeKind::Verb, tok.range)),
                TokenKind::Item => out.push(node(NodeKind::Item, tok.range)),
                TokenKind::Caption => out.push(node(NodeKind::Caption, tok.range)),
            }
        }
        self.unterminated(text, &mut stack, 0);
        out
    }

    /// Drops the environments open above stack position `keep`, with a diagnostic each.
    fn unterminated(
        &mut self,
        text: &str,
        stack: &mut Vec<(String, Range<usize>, bool)>,
        keep: usize,
    ) {
        while stack.len() > keep {
            let (name, begin, _) = stack.pop().expect("stack is longer than keep");
            let line = line_of(text, begin.start);
            self.diagnostics.push(Diagnostic::new(
                Severity::Degraded,
                format!(
                    "line {line}: `\\begin{{{name}}}` is never closed: its body is not protected"
                ),
            ));
        }
    }

    /// Nests the flat nodes by containment into `self.nodes` and `self.roots`.
    fn nest(&mut self, mut flat: Vec<Node>) {
        // Regions before markers at the same start, outer before inner.
        flat.sort_by_key(|n| (n.range.start, std::cmp::Reverse(n.range.end), !n.is_region()));
        let mut open: Vec<usize> = Vec::new();
        for node in flat {
            while let Some(&top) = open.last() {
                if self.nodes[top].range.end <= node.range.start
                    && !self.nodes[top].range.is_empty()
                    || node.range.end > self.nodes[top].range.end
                {
                    open.pop();
                } else {
                    break;
                }
            }
            let idx = self.nodes.len();
            let region = node.is_region() || matches!(node.kind, NodeKind::Section { .. });
            self.nodes.push(node);
            match open.last() {
                Some(&parent) => self.nodes[parent].children.push(idx),
                None => self.roots.push(idx),
            }
            if region {
                open.push(idx);
            }
        }
    }
}
