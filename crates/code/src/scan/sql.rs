//! SQL by statements: a small lexer finds where statements end (`;` outside strings,
//! comments, dollar quoting, parentheses and the `BEGIN … END` bodies of routines; the
//! delimiter a MySQL `DELIMITER //` line sets; psql's `\g` and meta-command lines; `GO` and
//! `/` batch lines), and each statement becomes one atom, with the comment lines directly
//! above it, labelled in SQL's own words: `CREATE TABLE users`, `INSERT INTO t`, `SELECT`.
//! A statement that defines something (`CREATE …`) is a symbol of that name.
//!
//! Why a scanner and not a grammar: the one maintained tree-sitter SQL grammar on crates.io
//! (tree-sitter-sequel 0.3.11, and its T-SQL fork) pins `cc ~1.2` as a build dependency,
//! which would move the whole workspace's `cc` back, and the others need tree-sitter 0.19 to
//! 0.22. SQL's dialects differ most inside statements, where a generic grammar errs; where
//! one statement ends is what a chunker needs, and that a lexer finds in linear time.
//!
//! The dialect is sniffed once per file: a `DELIMITER` line, or backticks without `$$`, is
//! MySQL (`#` comments, backslash escapes in strings, flat `/* */`); `$$` or `::` is
//! PostgreSQL (dollar quoting, nested `/* */`, no backslash escapes but in `E'…'`); else
//! strings take backslash escapes and dollar quoting is on.
//!
//! A statement longer than `OPEN_MIN` has children the packer may cut between: its lines
//! (outside quoted strings; a dollar-quoted body is code and cut at its lines), the tuples
//! of a `VALUES` list (`),(`), and in a piece still longer than `LONG_PIECE`, its values (the
//! commas at its shallowest depth). No cut falls inside a quoted string unless one string
//! alone is over the budget.

use std::ops::Range;

use cleave_core::{Atom, AtomKind, AtomLabel, Boundary, Diagnostic, Severity};

use super::fold;

/// Statements up to this length are leaves: the packer splits them at lines if it must.
const OPEN_MIN: usize = 256;
/// A piece of a statement (one line, one tuple) longer than this opens at its commas.
const LONG_PIECE: usize = 1024;
const MAX_LABEL: usize = 96;
const MAX_SIGNATURE: usize = 150;
/// Tokens and bytes read from a statement's start for its label and signature.
const HEAD_TOKENS: usize = 64;
const HEAD_BYTES: usize = 4096;

/// The lexical facts of the file's dialect.
#[derive(Debug, Clone, Copy)]
struct Dialect {
    /// `\` escapes the next char in `'…'` and `"…"` (MySQL, and files that show no dialect).
    backslash: bool,
    /// `$$ … $$` and `$tag$ … $tag$` quote strings (PostgreSQL).
    dollar: bool,
    /// `/* */` comments nest (PostgreSQL).
    nested: bool,
    /// `#` starts a line comment (MySQL).
    hash: bool,
}

fn sniff(b: &[u8]) -> Dialect {
    let delimiter_line =
        std::iter::once(0).chain(memchr::memchr_iter(b'\n', b).map(|i| i + 1)).any(|start| {
            let line = &b[start..];
            let line = &line[line.iter().take_while(|c| matches!(c, b' ' | b'\t')).count()..];
            line.len() > 10
                && line[..9].eq_ignore_ascii_case(b"delimiter")
                && matches!(line[9], b' ' | b'\t')
        });
    let dollars = memchr::memchr_iter(b'$', b)
        .any(|i| (i == 0 || !is_ident(b[i - 1])) && dollar_tag(b, i).is_ok());
    let mysql = delimiter_line || (memchr::memchr(b'`', b).is_some() && !dollars);
    let pg = !mysql && (dollars || memchr::memmem::find(b, b"::").is_some());
    Dialect { backslash: !pg, dollar: !mysql, nested: !mysql, hash: mysql }
}

/// Whether `#` at `i` starts a comment: anywhere in MySQL, at a line's first char elsewhere
/// (PostgreSQL's `#` operator never starts a line in practice; `# Copyright` headers do).
fn hash_comment(b: &[u8], i: usize, d: Dialect) -> bool {
    d.hash || b[..i].iter().rev().take_while(|&&c| c != b'\n').all(|&c| matches!(c, b' ' | b'\t'))
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// After the quoted run starting at `i` (`b[i]` is the quote): a doubled quote, and with
/// `backslash` a backslash, escape; an unterminated one runs to the end.
fn quoted_end(b: &[u8], i: usize, backslash: bool) -> usize {
    let q = b[i];
    let mut j = i + 1;
    loop {
        let found =
            if backslash { memchr::memchr2(q, b'\\', &b[j..]) } else { memchr::memchr(q, &b[j..]) };
        let Some(k) = found.map(|k| j + k) else { return b.len() };
        if b[k] == b'\\' {
            j = (k + 2).min(b.len());
        } else if b.get(k + 1) == Some(&q) {
            j = k + 2;
        } else {
            return k + 1;
        }
    }
}

/// The newline ending the line comment at `i` (not taken), or the end.
fn line_end(b: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |k| i + k)
}

/// After the block comment at `i` (`/*`), nested if the dialect nests them.
fn block_comment_end(b: &[u8], i: usize, nested: bool) -> usize {
    if !nested {
        return memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |k| i + 2 + k + 2);
    }
    let mut depth = 1;
    let mut j = i + 2;
    while let Some(k) = memchr::memchr2(b'*', b'/', &b[j..]).map(|k| j + k) {
        match (b[k], b.get(k + 1)) {
            (b'*', Some(b'/')) => {
                depth -= 1;
                j = k + 2;
                if depth == 0 {
                    return j;
                }
            }
            (b'/', Some(b'*')) => {
                depth += 1;
                j = k + 2;
            }
            _ => j = k + 1,
        }
    }
    b.len()
}

/// The length of the dollar-quote tag at `i` (`$$`, `$body$`), or where the run of
/// identifier chars after the `$` ends when it is none.
fn dollar_tag(b: &[u8], i: usize) -> Result<usize, usize> {
    let mut j = i + 1;
    if b.get(j) == Some(&b'$') {
        return Ok(2);
    }
    if !b.get(j).is_some_and(|&c| is_word_start(c)) {
        return Err(j);
    }
    while j < b.len() && is_ident(b[j]) && b[j] != b'$' {
        j += 1;
    }
    if b.get(j) == Some(&b'$') { Ok(j + 1 - i) } else { Err(j) }
}

/// After the dollar-quoted string at `i` with a tag of `len` bytes.
fn dollar_end(b: &[u8], i: usize, len: usize) -> usize {
    let tag = &b[i..i + len];
    memchr::memmem::find(&b[i + len..], tag).map_or(b.len(), |k| i + len + k + len)
}

/// What a statement is, for its atom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// An SQL statement (or a stray terminator).
    Sql,
    /// A client line: `DELIMITER //`, a psql meta-command (`\set x 1`).
    Client,
    /// A batch line (`GO`, `/`): a gap that stays with the statement before it.
    Batch,
}

#[derive(Debug)]
struct Stmt {
    /// Where its atom starts: the attached comment lines, or its first line.
    lead: usize,
    /// Its first token.
    start: usize,
    end: usize,
    kind: Kind,
}

/// The statement scanner's state; see [`statements`].
struct Scan<'a> {
    b: &'a [u8],
    d: Dialect,
    out: Vec<Stmt>,
    /// Start of the comment run waiting for the statement below it.
    lead: Option<usize>,
    /// Whether the current line, between statements, has held only white space so far.
    line_blank: bool,
    /// End of the last statement: leads never reach back over it.
    floor: usize,
    /// The open statement: its lead and first token.
    cur: Option<(usize, usize)>,
    last_tok_end: usize,
    paren: u32,
    block: u32,
    routine: Option<bool>,
    /// The first `;` of the open statement that a parenthesis or a `BEGIN` kept from ending
    /// it: where it ends if the file ends before they close.
    suspended: Option<usize>,
    /// Whether parentheses and `BEGIN … END` hold statements open (off once they failed to
    /// close before the end of the file).
    strict: bool,
    delim: Option<Vec<u8>>,
}

impl<'a> Scan<'a> {
    fn new(b: &'a [u8], d: Dialect) -> Self {
        Scan {
            b,
            d,
            out: Vec::new(),
            lead: None,
            line_blank: true,
            floor: 0,
            cur: None,
            last_tok_end: 0,
            paren: 0,
            block: 0,
            routine: None,
            suspended: None,
            strict: true,
            delim: None,
        }
    }

    /// Back to the line start when only indentation precedes `pos` (not past the floor).
    fn line_start(&self, pos: usize) -> usize {
        let mut i = pos;
        while i > self.floor && matches!(self.b[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        if i == 0 || self.b[i - 1] == b'\n' { i } else { pos }
    }

    /// A token starts at `i`: it opens a statement when none is open.
    fn token(&mut self, i: usize) {
        if self.cur.is_none() {
            let lead = self.lead.take().unwrap_or(i);
            let lead = self.line_start(lead);
            self.cur = Some((lead, i));
            self.paren = 0;
            self.block = 0;
            self.routine = None;
            self.suspended = None;
        }
    }

    /// A comment starts at `i`: between statements it may lead the next one.
    fn comment(&mut self, i: usize) {
        if self.cur.is_none() {
            self.line_blank = false;
            if self.lead.is_none() {
                self.lead = Some(i);
            }
        }
    }

    /// Ends the open statement (opening one at `at` if none is) after its terminator at
    /// `end`, and after a comment that ends the line; returns where the scan goes on.
    fn finish(&mut self, at: usize, end: usize, kind: Kind) -> usize {
        self.token(at);
        let (lead, start) = self.cur.take().expect("a statement is open");
        let end = self.trailing_comment(end);
        self.out.push(Stmt { lead, start, end, kind });
        self.floor = end;
        self.lead = None;
        self.line_blank = false;
        self.last_tok_end = end;
        end
    }

    /// After a comment on the rest of the line at `end`, if there is one.
    fn trailing_comment(&self, end: usize) -> usize {
        let b = self.b;
        let mut j = end;
        while j < b.len() && matches!(b[j], b' ' | b'\t') {
            j += 1;
        }
        let rest = &b[j..];
        if rest.starts_with(b"--") || (rest.starts_with(b"#") && hash_comment(b, j, self.d)) {
            return trim_end(b, j, line_end(b, j));
        }
        if rest.starts_with(b"/*") {
            let e = block_comment_end(b, j, self.d.nested);
            let nl = line_end(b, j);
            if e <= nl && b[e..nl].iter().all(u8::is_ascii_whitespace) {
                return e;
            }
        }
        end
    }

    /// The end of the line at `i`, its trailing white space left out.
    fn line_rest(&self, i: usize) -> usize {
        trim_end(self.b, i, line_end(self.b, i))
    }

    /// Whether the line at `i` is a batch line (`GO`, `GO 5`, `/`): its end if it is.
    fn batch_line(&self, i: usize) -> Option<usize> {
        let b = self.b;
        let mut j = i;
        while j < b.len() && matches!(b[j], b' ' | b'\t') {
            j += 1;
        }
        let end = self.line_rest(j);
        let line = &b[j..end];
        let go = line.len() >= 2
            && line[..2].eq_ignore_ascii_case(b"go")
            && line[2..].iter().all(|c| c.is_ascii_digit() || matches!(c, b' ' | b'\t'))
            && line.get(2).is_none_or(|c| !c.is_ascii_digit());
        (go || line == b"/").then_some(end)
    }

    /// Whether the open statement is a routine (`CREATE FUNCTION`, `PROCEDURE`, `TRIGGER`,
    /// `EVENT`), whose `BEGIN … END` body holds `;`: decided once, from its head.
    fn is_routine(&mut self) -> bool {
        if let Some(r) = self.routine {
            return r;
        }
        let start = self.cur.map_or(0, |c| c.1);
        let toks = head_tokens(self.b, start, self.b.len(), self.d);
        let r = parse_head(self.b, &toks).routine;
        self.routine = Some(r);
        r
    }

    fn run(mut self) -> (Vec<Stmt>, bool) {
        let b = self.b;
        let n = b.len();
        let mut i = 0;
        let mut fell_back = false;
        loop {
            while i < n {
                i = self.step(i);
            }
            // The end of the file with a statement held open by a parenthesis or a `BEGIN`
            // that never closed: it ends at its first `;` after all, and the rest of the file
            // is read without holding (once: the scan stays linear).
            if let (Some(_), Some(semi), true) = (self.cur, self.suspended, self.strict) {
                self.strict = false;
                fell_back = true;
                i = self.finish(semi, semi + 1, Kind::Sql);
                continue;
            }
            break;
        }
        if let Some((lead, start)) = self.cur.take() {
            let end = self.last_tok_end.max(start + 1).min(n);
            self.out.push(Stmt { lead, start, end, kind: Kind::Sql });
        }
        (self.out, fell_back)
    }

    /// Reads what starts at `i`; returns where the next thing starts.
    fn step(&mut self, i: usize) -> usize {
        let b = self.b;
        let n = b.len();
        let c = b[i];
        if let Some(d) = &self.delim
            && c == d[0]
            && b[i..].starts_with(d)
        {
            let end = i + d.len();
            return self.finish(i, end, Kind::Sql);
        }
        let next = b.get(i + 1).copied();
        match c {
            b'\n' => {
                if self.cur.is_none() {
                    if self.line_blank {
                        self.lead = None;
                    }
                    self.line_blank = true;
                }
                if let Some(end) = self.batch_line(i + 1) {
                    if let Some((lead, start)) = self.cur.take() {
                        let e = self.last_tok_end.max(start + 1);
                        self.out.push(Stmt { lead, start, end: e, kind: Kind::Sql });
                        self.floor = e;
                    }
                    self.lead = None;
                    self.cur = Some((i + 1, i + 1));
                    return self.finish(i + 1, end, Kind::Batch);
                }
                i + 1
            }
            b' ' | b'\t' | b'\r' | b'\x0c' => i + 1,
            b'-' if next == Some(b'-') => {
                self.comment(i);
                line_end(b, i)
            }
            b'#' if hash_comment(b, i, self.d) => {
                self.comment(i);
                line_end(b, i)
            }
            b'/' if next == Some(b'*') => {
                self.comment(i);
                block_comment_end(b, i, self.d.nested)
            }
            b'\'' | b'"' => {
                self.token(i);
                self.last_tok_end = quoted_end(b, i, self.d.backslash);
                self.last_tok_end
            }
            b'`' => {
                self.token(i);
                self.last_tok_end = quoted_end(b, i, false);
                self.last_tok_end
            }
            b'$' if self.d.dollar && (i == 0 || !is_ident(b[i - 1])) => {
                self.token(i);
                self.last_tok_end = match dollar_tag(b, i) {
                    Ok(len) => dollar_end(b, i, len),
                    Err(j) => j,
                };
                self.last_tok_end
            }
            b'e' | b'E' if next == Some(b'\'') && (i == 0 || !is_ident(b[i - 1])) => {
                self.token(i);
                self.last_tok_end = quoted_end(b, i + 1, true);
                self.last_tok_end
            }
            b';' if self.delim.is_none() => {
                if self.cur.is_some() && self.strict && (self.paren > 0 || self.block > 0) {
                    self.suspended.get_or_insert(i);
                    self.last_tok_end = i + 1;
                    return i + 1;
                }
                self.finish(i, i + 1, Kind::Sql)
            }
            b'\\' if next.is_some_and(|c| c.is_ascii_alphabetic()) => {
                let mut j = i + 1;
                while j < n && b[j].is_ascii_alphanumeric() {
                    j += 1;
                }
                let end = self.line_rest(j);
                if self.cur.is_none() {
                    return self.finish(i, end, Kind::Client);
                }
                let word = &b[i + 1..j];
                let ends = [
                    &b"g"[..],
                    b"G",
                    b"gx",
                    b"gset",
                    b"gexec",
                    b"gdesc",
                    b"crosstabview",
                    b"watch",
                ];
                if ends.contains(&word) {
                    return self.finish(i, end, Kind::Sql);
                }
                self.last_tok_end = j;
                j
            }
            b'(' => {
                self.token(i);
                self.paren += 1;
                self.last_tok_end = i + 1;
                i + 1
            }
            b')' => {
                self.token(i);
                self.paren = self.paren.saturating_sub(1);
                self.last_tok_end = i + 1;
                i + 1
            }
            c if is_ident(c) => {
                // A word ends where a delimiter starts (`END$$`).
                let mut j = i + 1;
                while j < n
                    && is_ident(b[j])
                    && self.delim.as_ref().is_none_or(|d| !b[j..].starts_with(d))
                {
                    j += 1;
                }
                let boundary = i == 0 || !matches!(b[i - 1], b'.' | b'@');
                if !is_word_start(c) || !boundary {
                    self.token(i);
                    self.last_tok_end = j;
                    return j;
                }
                self.word(i, j)
            }
            _ => {
                self.token(i);
                self.last_tok_end = i + 1;
                i + 1
            }
        }
    }

    /// A word at `i..j`: a `DELIMITER` line, or a keyword that opens or closes a routine's
    /// block.
    fn word(&mut self, i: usize, j: usize) -> usize {
        let b = self.b;
        let word = &b[i..j];
        if self.cur.is_none() && word.eq_ignore_ascii_case(b"delimiter") {
            let mut k = j;
            while k < b.len() && matches!(b[k], b' ' | b'\t') {
                k += 1;
            }
            let mut e = k;
            while e < b.len() && !b[e].is_ascii_whitespace() {
                e += 1;
            }
            if k > j && e > k {
                let delim = &b[k..e];
                self.delim = (delim != b";").then(|| delim.to_vec());
                let end = self.line_rest(e);
                return self.finish(i, end, Kind::Client);
            }
        }
        self.token(i);
        self.last_tok_end = j;
        if self.delim.is_some() || !self.strict {
            return j;
        }
        let opens = word.eq_ignore_ascii_case(b"begin") || word.eq_ignore_ascii_case(b"case");
        let closes = word.eq_ignore_ascii_case(b"end");
        if (opens || closes) && self.is_routine() {
            if opens {
                self.block += 1;
            } else {
                // `END IF`, `END LOOP`… close blocks that were never counted.
                let mut k = j;
                while k < b.len() && b[k].is_ascii_whitespace() {
                    k += 1;
                }
                let mut e = k;
                while e < b.len() && is_ident(b[e]) {
                    e += 1;
                }
                let after = &b[k..e];
                let compound = [&b"if"[..], b"loop", b"while", b"repeat", b"for"]
                    .iter()
                    .any(|w| after.eq_ignore_ascii_case(w));
                if !compound {
                    self.block = self.block.saturating_sub(1);
                }
            }
        }
        j
    }
}

/// `end`, with the white space before it (back to `start`) left out.
fn trim_end(b: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

/// A token of a statement's head, for its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    Word,
    /// A quoted identifier: `"name"`, `` `name` ``.
    Quoted,
    /// A string literal.
    Str,
    /// A dollar-quoted body: the head ends there.
    Dollar,
    Punct(u8),
}

/// The first tokens of the statement at `from`: comments skipped, MySQL's executable
/// comments (`/*!40101 SET … */`) read as the code they hold.
fn head_tokens(b: &[u8], from: usize, to: usize, d: Dialect) -> Vec<(Tok, Range<usize>)> {
    let to = to.min(b.len()).min(from.saturating_add(HEAD_BYTES));
    let b = &b[..to];
    let mut out = Vec::new();
    let mut i = from;
    while i < to && out.len() < HEAD_TOKENS {
        let c = b[i];
        let next = b.get(i + 1).copied();
        let (tok, end) = match c {
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'-' if next == Some(b'-') => {
                i = line_end(b, i);
                continue;
            }
            b'#' if hash_comment(b, i, d) => {
                i = line_end(b, i);
                continue;
            }
            b'/' if next == Some(b'*') && b.get(i + 2) == Some(&b'!') => {
                i += 3;
                while i < to && b[i].is_ascii_digit() {
                    i += 1;
                }
                continue;
            }
            b'*' if next == Some(b'/') => {
                i += 2;
                continue;
            }
            b'/' if next == Some(b'*') => {
                i = block_comment_end(b, i, d.nested);
                continue;
            }
            b'\'' => (Tok::Str, quoted_end(b, i, d.backslash)),
            b'"' => (Tok::Quoted, quoted_end(b, i, d.backslash)),
            b'`' => (Tok::Quoted, quoted_end(b, i, false)),
            b'$' if d.dollar => match dollar_tag(b, i) {
                Ok(_) => (Tok::Dollar, i + 1),
                Err(j) => (Tok::Word, j),
            },
            c if is_ident(c) => {
                let mut j = i + 1;
                while j < to && is_ident(b[j]) {
                    j += 1;
                }
                (Tok::Word, j)
            }
            // One char, whole (never half of a UTF-8 sequence: those are identifier bytes).
            c => (Tok::Punct(c), i + 1),
        };
        out.push((tok, i..end));
        if tok == Tok::Dollar {
            break;
        }
        i = end;
    }
    out
}

/// What a statement's head says: its label, the name it defines, where its signature ends,
/// and whether it is a routine with a `BEGIN … END` body.
#[derive(Debug, Default)]
struct Head {
    label: Option<String>,
    name: Option<String>,
    signature_end: Option<usize>,
    routine: bool,
}

const CREATE_MODIFIERS: &[&str] = &[
    "OR",
    "REPLACE",
    "ALTER",
    "TEMP",
    "TEMPORARY",
    "UNLOGGED",
    "GLOBAL",
    "LOCAL",
    "RECURSIVE",
    "TRUSTED",
    "PROCEDURAL",
    "CONSTRAINT",
    "UNIQUE",
    "FULLTEXT",
    "SPATIAL",
    "CLUSTERED",
    "NONCLUSTERED",
    "EDITIONABLE",
    "NONEDITIONABLE",
    "FORCE",
    "NOFORCE",
    "ONLINE",
    "OFFLINE",
    "IGNORE",
    "DEFAULT",
];
/// Words that make a type of several words with the one before (`MATERIALIZED VIEW`,
/// `TEXT SEARCH CONFIGURATION`, `FOREIGN DATA WRAPPER`).
const TYPE_TAILS: &[&str] = &[
    "VIEW",
    "TABLE",
    "DATA",
    "WRAPPER",
    "TRIGGER",
    "METHOD",
    "SEARCH",
    "CONFIGURATION",
    "DICTIONARY",
    "PARSER",
    "TEMPLATE",
    "MAPPING",
    "BODY",
    "CLASS",
    "FAMILY",
    "PRIVILEGES",
    "FUNCTION",
];
const TYPE_HEADS: &[&str] = &[
    "MATERIALIZED",
    "FOREIGN",
    "EVENT",
    "ACCESS",
    "TEXT",
    "SEARCH",
    "USER",
    "PACKAGE",
    "OPERATOR",
    "DATA",
    "DEFAULT",
    "AGGREGATE",
];
/// Words that follow a type where a name would be: the statement names nothing.
const NOT_NAMES: &[&str] =
    &["ON", "IN", "FOR", "AS", "TO", "FROM", "SET", "WITH", "ALL", "WHERE", "USING"];
const ROUTINES: &[&str] = &["FUNCTION", "PROCEDURE", "TRIGGER", "EVENT", "PACKAGE", "PACKAGE BODY"];

struct HeadReader<'a> {
    b: &'a [u8],
    toks: &'a [(Tok, Range<usize>)],
    k: usize,
}

impl HeadReader<'_> {
    fn upper(&self, k: usize) -> String {
        match self.toks.get(k) {
            Some((Tok::Word, r)) => {
                String::from_utf8_lossy(&self.b[r.clone()]).to_ascii_uppercase()
            }
            _ => String::new(),
        }
    }

    fn is(&self, k: usize, words: &[&str]) -> bool {
        let w = self.upper(k);
        !w.is_empty() && words.contains(&w.as_str())
    }

    fn punct(&self, k: usize, c: u8) -> bool {
        matches!(self.toks.get(k), Some((Tok::Punct(p), _)) if *p == c)
    }

    /// Skips `IF [NOT] EXISTS`, `ONLY`, `CONCURRENTLY`.
    fn skip_conditions(&mut self) {
        loop {
            if self.is(self.k, &["IF"]) && self.is(self.k + 1, &["NOT"]) {
                self.k += 3;
            } else if self.is(self.k, &["IF"]) && self.is(self.k + 1, &["EXISTS"]) {
                self.k += 2;
            } else if self.is(self.k, &["ONLY", "CONCURRENTLY"]) {
                self.k += 1;
            } else {
                return;
            }
        }
    }

    /// The object type at `k` (one word or several), upper case.
    fn object_type(&mut self) -> Option<String> {
        let mut ty = self.upper(self.k);
        if ty.is_empty() {
            return None;
        }
        self.k += 1;
        let mut last = ty.clone();
        while TYPE_HEADS.contains(&last.as_str()) && self.is(self.k, TYPE_TAILS) {
            last = self.upper(self.k);
            ty.push(' ');
            ty.push_str(&last);
            self.k += 1;
        }
        Some(ty)
    }

    /// A qualified name at `k` (`public.users`, `"My Table"`, `` `db`.`t` ``,
    /// `'bob'@'%'`): its text as written, and its parts unquoted.
    fn name(&mut self) -> Option<(Range<usize>, String)> {
        let (tok, first) = self.toks.get(self.k)?.clone();
        // A keyword where a name would be names nothing, unless a parameter list follows it
        // (a function named `is`).
        let keyword = self.is(self.k, NOT_NAMES) && !self.punct(self.k + 1, b'(');
        if !matches!(tok, Tok::Word | Tok::Quoted | Tok::Str) || keyword {
            return None;
        }
        let mut range = first.clone();
        let mut plain = unquote(&self.b[first]);
        self.k += 1;
        while (self.punct(self.k, b'.') || self.punct(self.k, b'@'))
            && let Some((Tok::Word | Tok::Quoted | Tok::Str, r)) = self.toks.get(self.k + 1)
            && self.toks[self.k].1.end == r.start
            && self.toks[self.k].1.start == range.end
        {
            plain.push(self.b[self.toks[self.k].1.start] as char);
            plain.push_str(&unquote(&self.b[r.clone()]));
            range.end = r.end;
            self.k += 2;
        }
        Some((range, plain))
    }
}

fn unquote(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    text.trim_matches(['"', '`', '\'']).to_owned()
}

/// The label, name and signature end of a statement from its head tokens.
fn parse_head(b: &[u8], toks: &[(Tok, Range<usize>)]) -> Head {
    let mut r = HeadReader { b, toks, k: 0 };
    // `(SELECT …) UNION …`: the first word.
    while r.punct(r.k, b'(') {
        r.k += 1;
    }
    let text = |range: Range<usize>| fold(&String::from_utf8_lossy(&b[range]), MAX_LABEL);
    let verb = r.upper(r.k);
    let mut head = Head::default();
    match toks.get(r.k) {
        Some((Tok::Word, _)) => {}
        // A psql meta-command: `\set`.
        Some((Tok::Punct(b'\\'), s)) => {
            let end = toks.get(r.k + 1).filter(|t| t.0 == Tok::Word).map_or(s.end, |t| t.1.end);
            head.label = Some(text(s.start..end));
            return head;
        }
        _ => return head,
    }
    r.k += 1;
    match verb.as_str() {
        "CREATE" | "ALTER" | "DROP" => {
            loop {
                if r.is(r.k, &["DEFINER"]) {
                    // DEFINER = `root`@`localhost`, DEFINER=CURRENT_USER()
                    r.k += 1;
                    if r.punct(r.k, b'=') {
                        r.k += 1;
                    }
                    r.k += 1;
                    while r.punct(r.k, b'@') || r.punct(r.k, b'(') || r.punct(r.k, b')') {
                        r.k += if r.punct(r.k, b'@') { 2 } else { 1 };
                    }
                } else if (r.is(r.k, &["ALGORITHM"]) && r.punct(r.k + 1, b'='))
                    || (r.is(r.k, &["SQL"]) && r.is(r.k + 1, &["SECURITY"]))
                {
                    r.k += 3;
                } else if (r.is(r.k, &["AGGREGATE"]) && r.is(r.k + 1, &["FUNCTION"]))
                    || r.is(r.k, CREATE_MODIFIERS)
                {
                    r.k += 1;
                } else {
                    break;
                }
            }
            let Some(ty) = r.object_type() else {
                head.label = Some(verb);
                return head;
            };
            head.routine = verb == "CREATE" && ROUTINES.contains(&ty.as_str());
            r.skip_conditions();
            let mut label = format!("{verb} {ty}");
            if ty == "OPERATOR" {
                // An operator's name is its symbol, up to its parenthesis.
                let start = toks.get(r.k).map(|t| t.1.start);
                let open = toks[r.k.min(toks.len())..].iter().find(|t| t.0 == Tok::Punct(b'('));
                if let (Some(s), Some(o)) = (start, open) {
                    let name = text(s..o.1.start);
                    label = format!("{label} {name}");
                    head.name = (verb == "CREATE" && !name.is_empty()).then_some(name);
                }
            } else if ty == "INDEX" && r.is(r.k, &["ON"]) {
                r.k += 1;
                if let Some((range, _)) = r.name() {
                    label = format!("{label} ON {}", text(range));
                }
            } else if let Some((range, plain)) = r.name() {
                label = format!("{label} {}", text(range));
                if verb == "CREATE" {
                    head.name = Some(fold(&plain, MAX_LABEL));
                }
            }
            head.label = Some(label);
            if head.routine {
                head.signature_end = toks[r.k.min(toks.len())..]
                    .iter()
                    .find(|(t, range)| {
                        *t == Tok::Dollar
                            || (*t == Tok::Word
                                && ["AS", "BEGIN", "IS", "RETURN", "DO"]
                                    .iter()
                                    .any(|w| b[range.clone()].eq_ignore_ascii_case(w.as_bytes())))
                    })
                    .map(|t| t.1.start);
            }
        }
        "INSERT" | "REPLACE" => {
            while r.is(r.k, &["IGNORE", "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY"]) {
                r.k += 1;
            }
            if r.is(r.k, &["OR"]) {
                r.k += 2;
            }
            if r.is(r.k, &["INTO"]) {
                r.k += 1;
            }
            let mut label = format!("{verb} INTO");
            if let Some((range, _)) = r.name() {
                label = format!("{label} {}", text(range));
            }
            head.label = Some(label);
            let mut depth = 0i32;
            head.signature_end = toks[r.k.min(toks.len())..].iter().find_map(|(t, range)| {
                match t {
                    Tok::Punct(b'(') => depth += 1,
                    Tok::Punct(b')') => depth -= 1,
                    Tok::Word if depth == 0 => {
                        let w = &b[range.clone()];
                        if w.eq_ignore_ascii_case(b"values") || w.eq_ignore_ascii_case(b"value") {
                            return Some(range.end);
                        }
                        if w.eq_ignore_ascii_case(b"select") || w.eq_ignore_ascii_case(b"set") {
                            return Some(range.start);
                        }
                    }
                    _ => {}
                }
                None
            });
        }
        "UPDATE" | "DELETE" | "TRUNCATE" => {
            while r.is(r.k, &["LOW_PRIORITY", "IGNORE", "QUICK", "ONLY", "TABLE"]) {
                r.k += 1;
            }
            if r.is(r.k, &["OR"]) {
                r.k += 2;
            }
            let mut label = verb.clone();
            if verb == "DELETE" {
                if !r.is(r.k, &["FROM"]) {
                    head.label = Some(label);
                    return head;
                }
                r.k += 1;
                label.push_str(" FROM");
                r.skip_conditions();
            } else if verb == "TRUNCATE" {
                label.push_str(" TABLE");
            }
            if let Some((range, _)) = r.name() {
                label = format!("{label} {}", text(range));
            }
            head.label = Some(label);
        }
        "COMMENT" if r.is(r.k, &["ON"]) => {
            r.k += 1;
            let mut label = "COMMENT ON".to_owned();
            if let Some(ty) = r.object_type() {
                label = format!("{label} {ty}");
                if let Some((range, _)) = r.name() {
                    label = format!("{label} {}", text(range));
                }
            }
            head.label = Some(label);
        }
        "USE" | "CALL" | "EXEC" | "EXECUTE" | "SET" | "DELIMITER" => {
            let mut label = verb.clone();
            if verb == "DELIMITER" {
                if let Some((_, range)) = toks.get(r.k) {
                    label = format!("{label} {}", text(range.start..line_end(b, range.start)));
                }
            } else if let Some((range, _)) = r.name() {
                label = format!("{label} {}", text(range));
            }
            head.label = Some(label);
        }
        _ => head.label = Some(verb),
    }
    head
}

/// The statements of `text`, as the root's children: each statement an atom with the comment
/// lines directly above it, the text between them gaps.
pub(crate) fn atomize(text: &str) -> (Vec<Atom>, Vec<Diagnostic>) {
    let b = text.as_bytes();
    let d = sniff(b);
    let (stmts, fell_back) = Scan::new(b, d).run();
    let mut diagnostics = Vec::new();
    if fell_back {
        diagnostics.push(Diagnostic::new(
            Severity::Note,
            "a parenthesis or a BEGIN was still open at the end of the file: that statement \
             ends at its first `;`, and the rest of the file was split at every `;`",
        ));
    }
    let mut out = Vec::with_capacity(stmts.len() * 2 + 1);
    let mut at = 0;
    for s in stmts {
        // Ranges from the scan are ordered and within the text; anything else is left to the
        // gaps (a guard: the tiling must hold whatever the scan did).
        if s.lead < at || s.end <= s.lead || s.end > b.len() {
            continue;
        }
        let mut boundary = if at == 0 && s.lead == 0 { Boundary::Item } else { Boundary::Member };
        if s.lead > at {
            boundary = hole(b, at..s.lead, &mut out);
        }
        if s.lead > 0 && b[s.lead - 1] != b'\n' {
            boundary = Boundary::Word;
        }
        out.push(statement(text, &s, d).with_boundary(boundary));
        at = s.end;
    }
    if at < b.len() {
        hole(b, at..b.len(), &mut out);
    }
    (out, diagnostics)
}

/// Gaps for the text between statements: the rest of the line and blank lines stay with the
/// statement before; free comments after them stand alone. Returns the boundary before the
/// statement that follows.
fn hole(b: &[u8], range: Range<usize>, out: &mut Vec<Atom>) -> Boundary {
    let mut blank_end = range.start;
    let mut i = range.start;
    while i < range.end && b[i].is_ascii_whitespace() {
        if b[i] == b'\n' {
            blank_end = i + 1;
        }
        i += 1;
    }
    if i == range.end {
        blank_end = range.end;
    }
    let blank = has_blank_line(&b[range.start.saturating_sub(1)..range.end]);
    if blank_end > range.start {
        out.push(Atom::gap(range.start..blank_end).with_boundary(Boundary::Line));
    }
    if blank_end < range.end {
        let boundary = if has_blank_line(&b[range.start.saturating_sub(1)..blank_end]) {
            Boundary::Item
        } else {
            Boundary::Member
        };
        out.push(Atom::gap(blank_end..range.end).with_boundary(boundary));
    }
    if blank || blank_end < range.end { Boundary::Item } else { Boundary::Member }
}

/// Whether `bytes` hold a line with only white space between two newlines.
fn has_blank_line(bytes: &[u8]) -> bool {
    let mut seen_newline = false;
    for &c in bytes {
        match c {
            b'\n' if seen_newline => return true,
            b'\n' => seen_newline = true,
            b' ' | b'\t' | b'\r' => {}
            _ => seen_newline = false,
        }
    }
    false
}

/// The atom of one statement.
fn statement(text: &str, s: &Stmt, d: Dialect) -> Atom {
    let b = text.as_bytes();
    let range = s.lead..s.end;
    if s.kind == Kind::Batch {
        return Atom::gap(range);
    }
    // The line of the first token, when only indentation precedes it.
    let mut core = s.start.min(s.end);
    while core > s.lead && matches!(b[core - 1], b' ' | b'\t') {
        core -= 1;
    }
    if core > s.lead && b[core - 1] != b'\n' {
        core = s.start.min(s.end);
    }
    let toks = head_tokens(b, s.start, s.end, d);
    let mut head = parse_head(b, &toks);
    if head.label.is_none() && s.lead < s.start {
        // `/*!40101 SET NAMES utf8 */;`: the statement is in the comment.
        let toks = head_tokens(b, s.lead, s.end, d);
        head = parse_head(b, &toks);
    }
    let children = if s.end - core > OPEN_MIN { pieces(b, core..s.end, d) } else { Vec::new() };
    let children = if core > s.lead {
        vec![
            Atom::gap(s.lead..core),
            Atom::item_proper(core..s.end, children).with_boundary(Boundary::Line),
        ]
    } else {
        children
    };
    let Some(label) = head.label else {
        return Atom::new(AtomKind::Block, range).with_children(children);
    };
    let signature = head
        .signature_end
        .filter(|&e| e > s.start && e <= s.end)
        .and_then(|e| text.get(s.start..e))
        .map(|head| fold(head, MAX_SIGNATURE))
        .filter(|sig| *sig != label);
    Atom::new(AtomKind::Symbol, range)
        .with_scope(true)
        .with_label(AtomLabel { label, name: head.name, signature })
        .with_children(children)
}

/// The pieces of a long statement: lines outside quoted strings, `VALUES` tuples, and the
/// values of a piece still long (see the module doc).
fn pieces(b: &[u8], range: Range<usize>, d: Dialect) -> Vec<Atom> {
    struct Pieces {
        out: Vec<Atom>,
        start: usize,
        boundary: Boundary,
        /// Commas of the open piece: (position after it, depth).
        commas: Vec<(usize, u32)>,
    }
    impl Pieces {
        fn cut(&mut self, at: usize, boundary: Boundary) {
            if at <= self.start {
                return;
            }
            let mut piece = Atom::new(AtomKind::Block, self.start..at).with_boundary(self.boundary);
            if at - self.start > LONG_PIECE
                && let Some(min) = self.commas.iter().map(|c| c.1).min()
            {
                let mut children = Vec::new();
                let mut from = self.start;
                for &(pos, depth) in &self.commas {
                    if depth == min && pos > from && pos < at {
                        children.push(
                            Atom::new(AtomKind::Block, from..pos).with_boundary(Boundary::Line),
                        );
                        from = pos;
                    }
                }
                if !children.is_empty() {
                    children
                        .push(Atom::new(AtomKind::Block, from..at).with_boundary(Boundary::Line));
                    piece = piece.with_children(children);
                }
            }
            self.out.push(piece);
            self.start = at;
            self.boundary = boundary;
            self.commas.clear();
        }
    }
    let (s, e) = (range.start, range.end);
    let mut p = Pieces { out: Vec::new(), start: s, boundary: Boundary::Line, commas: Vec::new() };
    let mut depth = 0u32;
    // The last byte of code before the scan, comments and white space left out.
    let mut last = 0u8;
    let line_boundary = |i: usize, last: u8, depth: u32| -> Boundary {
        let next_blank = {
            let mut j = i + 1;
            while j < e && matches!(b[j], b' ' | b'\t' | b'\r') {
                j += 1;
            }
            j < e && b[j] == b'\n'
        };
        if next_blank {
            Boundary::Paragraph
        } else if matches!(last, b',' | b';') && depth <= 1 {
            Boundary::Statement
        } else {
            Boundary::Line
        }
    };
    let mut i = s;
    while i < e {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match c {
            b'\n' => {
                let boundary = line_boundary(i, last, depth);
                p.cut(i + 1, boundary);
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'-' if next == Some(b'-') => i = line_end(b, i).min(e),
            b'#' if hash_comment(b, i, d) => i = line_end(b, i).min(e),
            b'/' if next == Some(b'*') => i = block_comment_end(b, i, d.nested).min(e),
            b'\'' | b'"' => {
                i = quoted_end(b, i, d.backslash).min(e);
                last = b'\'';
            }
            b'`' => {
                i = quoted_end(b, i, false).min(e);
                last = b'`';
            }
            b'e' | b'E' if next == Some(b'\'') && (i == s || !is_ident(b[i - 1])) => {
                i = quoted_end(b, i + 1, true).min(e);
                last = b'\'';
            }
            b'$' if d.dollar && (i == s || !is_ident(b[i - 1])) => match dollar_tag(b, i) {
                Ok(len) => {
                    // A body: code, cut at its lines.
                    let close = dollar_end(b, i, len).min(e);
                    let body_end = close.saturating_sub(len).max(i + len).min(e);
                    for k in memchr::memchr_iter(b'\n', &b[i + len..body_end]) {
                        let k = i + len + k;
                        let line_last = b[..k]
                            .iter()
                            .rev()
                            .take_while(|&&c| c != b'\n')
                            .find(|c| !c.is_ascii_whitespace())
                            .copied()
                            .unwrap_or(0);
                        let boundary = line_boundary(k, line_last, 0);
                        p.cut(k + 1, boundary);
                    }
                    i = close;
                    last = b'$';
                }
                Err(j) => {
                    i = j.min(e);
                    last = b'a';
                }
            },
            b'(' => {
                depth += 1;
                last = c;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                last = c;
                i += 1;
            }
            b',' => {
                let mut j = i + 1;
                while j < e && matches!(b[j], b' ' | b'\t') {
                    j += 1;
                }
                let at_line_end = j >= e || matches!(b[j], b'\n' | b'\r');
                if depth == 0 && last == b')' {
                    if !at_line_end {
                        p.cut(j, Boundary::Statement);
                    }
                } else if !at_line_end {
                    p.commas.push((j, depth));
                }
                last = c;
                i = j;
            }
            c if is_ident(c) => {
                while i < e && is_ident(b[i]) {
                    i += 1;
                }
                last = b'a';
            }
            _ => {
                last = c;
                i += 1;
            }
        }
    }
    p.cut(e, Boundary::Line);
    p.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        let (atoms, _) = atomize(text);
        let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(atoms);
        root.validate(text).unwrap();
        root.children.iter().filter_map(|a| a.label_text().map(str::to_owned)).collect()
    }

    fn bodies(text: &str) -> Vec<&str> {
        let (atoms, _) = atomize(text);
        atoms.iter().filter(|a| a.kind != AtomKind::Gap).map(|a| &text[a.range.clone()]).collect()
    }

    #[test]
    fn statements_are_labelled_in_sql_words() {
        let text = "create table users (id int);\nCREATE OR REPLACE FUNCTION public.f(a int) \
                    RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\ninsert into t values (1);\n\
                    ALTER TABLE IF EXISTS x ADD c int;\nSELECT 1;\nCREATE INDEX ON t (a);\n\
                    CREATE UNIQUE INDEX CONCURRENTLY i ON t (a);\nDROP VIEW v;\n\
                    CREATE MATERIALIZED VIEW mv AS SELECT 1;\nCOMMENT ON TABLE t IS 'x';\n\
                    UPDATE ONLY t SET a = 1;\nDELETE FROM t;\n";
        assert_eq!(
            labels(text),
            [
                "CREATE TABLE users",
                "CREATE FUNCTION public.f",
                "INSERT INTO t",
                "ALTER TABLE x",
                "SELECT",
                "CREATE INDEX ON t",
                "CREATE INDEX i",
                "DROP VIEW v",
                "CREATE MATERIALIZED VIEW mv",
                "COMMENT ON TABLE t",
                "UPDATE t",
                "DELETE FROM t",
            ]
        );
    }

    #[test]
    fn semicolons_inside_strings_comments_and_bodies_do_not_end() {
        let text = "SELECT 'a;b', \"c;d\" -- g;h\n/* i; /* j; */ k; */ FROM t;\n\
                    CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END; $body$ LANGUAGE plpgsql;\n\
                    SELECT 'it''s;', E'\\';';\n";
        assert_eq!(bodies(text).len(), 3, "{:?}", bodies(text));
        let mysql = "SELECT 'a\\';b', `e;f` # g;h\n/* i; /* j; */ FROM t;\nSELECT 1;\n";
        assert_eq!(bodies(mysql).len(), 2, "{:?}", bodies(mysql));
    }

    #[test]
    fn begin_end_bodies_hold_their_semicolons() {
        let text = "CREATE TRIGGER tr AFTER INSERT ON a\nBEGIN\n  INSERT INTO b VALUES (1);\n  \
                    UPDATE c SET n = CASE WHEN 1 THEN 2 ELSE 3 END;\nEND;\nSELECT 1;\n";
        assert_eq!(
            bodies(text),
            [
                "CREATE TRIGGER tr AFTER INSERT ON a\nBEGIN\n  INSERT INTO b VALUES (1);\n  UPDATE c SET n = CASE WHEN 1 THEN 2 ELSE 3 END;\nEND;",
                "SELECT 1;"
            ]
        );
        // Transactions are no blocks.
        assert_eq!(bodies("BEGIN;\nSELECT 1;\nCOMMIT;\n").len(), 3);
    }

    #[test]
    fn delimiter_lines_set_the_terminator() {
        let text = "DELIMITER //\nCREATE PROCEDURE p()\nBEGIN\n  SELECT 1;\n  IF x THEN SELECT 2; END IF;\nEND //\nDELIMITER ;\nSELECT 3;\n";
        assert_eq!(labels(text), ["DELIMITER //", "CREATE PROCEDURE p", "DELIMITER ;", "SELECT"]);
        assert!(bodies(text)[1].ends_with("END //"));
    }

    #[test]
    fn leading_comments_go_with_their_statement() {
        let text = "-- License\n\n-- The users.\n-- Two lines.\nCREATE TABLE users (id int); -- trailing\n\n/* free */\n\nSELECT 1;";
        let (atoms, _) = atomize(text);
        let sym: Vec<&str> = atoms
            .iter()
            .filter(|a| a.kind == AtomKind::Symbol)
            .map(|a| &text[a.range.clone()])
            .collect();
        assert_eq!(
            sym,
            ["-- The users.\n-- Two lines.\nCREATE TABLE users (id int); -- trailing", "SELECT 1;"]
        );
        assert!(atoms.iter().any(|a| a.proper().is_some()));
    }

    #[test]
    fn long_inserts_open_at_their_tuples() {
        let rows: Vec<String> = (0..200).map(|i| format!("({i},'a,b),(c',{i})")).collect();
        let text = format!("INSERT INTO t (a, b, c) VALUES {};\n", rows.join(","));
        let (atoms, _) = atomize(&text);
        let stmt = &atoms[0];
        assert_eq!(stmt.label_text(), Some("INSERT INTO t"));
        assert_eq!(
            stmt.label.as_ref().unwrap().signature.as_deref(),
            Some("INSERT INTO t (a, b, c) VALUES")
        );
        assert_eq!(stmt.children.len(), 200);
        for piece in &stmt.children[1..] {
            assert!(text[piece.range.clone()].starts_with('('), "{:?}", &text[piece.range.clone()]);
        }
    }

    #[test]
    fn psql_and_batch_lines() {
        let text = "\\set ON_ERROR_STOP 1\nSELECT 1 \\gset\nSELECT 2\nGO\nSELECT 3;\n";
        assert_eq!(labels(text), ["\\set", "SELECT", "SELECT", "SELECT"]);
    }

    #[test]
    fn an_open_parenthesis_falls_back_to_every_semicolon() {
        let text = "SELECT (1;\nSELECT 2;\nSELECT 3;\n";
        let (_, diags) = atomize(text);
        assert_eq!(bodies(text).len(), 3, "{:?}", bodies(text));
        assert_eq!(diags.len(), 1);
    }
}
