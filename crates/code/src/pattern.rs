//! A matcher for the plain patterns of `atoms.scm`, so that tree-sitter need not compile them:
//! compiling a query analyses every pattern against the grammar's parse table, and on the
//! large ecma grammars that costs ≈ 0.1 s per language and process. Plain means nodes, tokens,
//! fields, wildcards, alternations of nodes and optional child steps (`?`), with captures, and
//! the main capture on the pattern's root (or down a chain of single child steps): no other
//! quantifiers, no anchors, negated fields or predicates. Such a pattern
//! matches a node when each child step matches a distinct child, in order; the first such
//! assignment (earliest children) gives the captures, as tree-sitter's first match does.

use std::collections::HashMap;
use std::num::NonZeroU16;

use tree_sitter::{Language, Node, TreeCursor};

use crate::capture::{Role, role_of};
use crate::idmap::IdMap;

/// One step of a plain pattern.
#[derive(Debug)]
pub(crate) struct Step {
    what: What,
    /// Field the node must sit in (child steps only).
    field: Option<NonZeroU16>,
    capture: Option<Role>,
    children: Vec<Step>,
    /// Whether some child step names a field.
    needs_fields: bool,
    /// Whether the main capture is on the only child step (see [`Step::make_plain_root`]).
    anchored: bool,
    /// A wrapper whose `@wrapped` node is its last child step, in no field: it matches once
    /// per child that step matches (see [`Step::each_fan_match`]).
    fans_out: bool,
    /// `?`: a child step that may be missing (`body: (_)? @body`).
    optional: bool,
    /// The regexes of the pattern's `#match?` predicates on this step's capture: the node
    /// matches the step only if its text matches them all.
    predicates: Vec<Predicate>,
}

/// A `#match?` regex, compiled on its first use: compiling the Unicode-aware regexes of a
/// language's patterns (`\s`, `\b`) cost ~3.5 M instructions per process, most of a run on a
/// few small files, for patterns many runs never try. The pattern's syntax is checked when the
/// language loads, so an invalid one still makes its pattern a tree-sitter query (which
/// reports it).
#[derive(Debug, Clone)]
pub(crate) struct Predicate(
    std::sync::Arc<(String, std::sync::OnceLock<Option<regex::bytes::Regex>>)>,
);

impl Predicate {
    /// The predicate of `pattern`, or `None` when its syntax is invalid.
    fn new(pattern: String) -> Option<Self> {
        regex_syntax::ast::parse::Parser::new().parse(&pattern).ok()?;
        Some(Self(std::sync::Arc::new((pattern, std::sync::OnceLock::new()))))
    }

    /// The compiled regex (`None`: it does not compile, and matches nothing).
    fn regex(&self) -> Option<&regex::bytes::Regex> {
        let (pattern, compiled) = &*self.0;
        compiled.get_or_init(|| regex::bytes::Regex::new(pattern).ok()).as_ref()
    }

    fn is_match(&self, text: &[u8]) -> bool {
        self.regex().is_some_and(|r| r.is_match(text))
    }
}

#[derive(Debug)]
enum What {
    /// `(kind …)`: a named node of one of these kind ids.
    Named(Vec<u16>),
    /// `"token"`: an anonymous node of one of these kind ids.
    Token(Vec<u16>),
    /// `(_ …)`: any named node.
    AnyNamed,
    /// `_`: any node.
    Any,
    /// `[…]`: the first branch that matches.
    Alt(Vec<Step>),
}

/// The captures of one match: (role, node), the root's own first; and a scratch stack of
/// children.
pub(crate) struct Captures<'t, 's> {
    /// The text the tree was parsed from, for `#match?` predicates.
    text: &'s [u8],
    pub(crate) caps: Vec<(Role, Node<'t>)>,
    kids: Vec<(Node<'t>, Option<NonZeroU16>)>,
    /// Children loaded since the start node: node id → the range of `kids` holding them, and
    /// whether with their fields. Patterns tried at one node mostly look at the same children
    /// (`const x = …` for three `lexical_declaration` patterns), and each load steps a tree
    /// cursor through them.
    loaded: IdMap<(u32, u32, bool)>,
}

impl<'t, 's> Captures<'t, 's> {
    /// Captures for matches in a tree parsed from `text`.
    pub(crate) fn new(text: &'s [u8]) -> Self {
        Self { text, caps: Vec::new(), kids: Vec::new(), loaded: IdMap::default() }
    }

    /// Whether `node`'s text matches every regex of `predicates`.
    fn satisfies(&self, node: Node<'_>, predicates: &[Predicate]) -> bool {
        predicates.is_empty()
            || self
                .text
                .get(node.byte_range())
                .is_some_and(|t| predicates.iter().all(|r| r.is_match(t)))
    }

    /// The children of `node` (all of them, in order) if a pattern loaded them since the last
    /// [`Captures::clear`]: at the start node, or below it.
    pub(crate) fn loaded_kids(
        &self,
        node: Node<'_>,
    ) -> Option<impl Iterator<Item = Node<'t>> + '_> {
        let &(base, end, _) = self.loaded.get(&node.id())?;
        Some(self.kids[base as usize..end as usize].iter().map(|k| k.0))
    }

    /// Starts the matches at a new node.
    pub(crate) fn clear(&mut self) {
        self.caps.clear();
        self.kids.clear();
        self.loaded.clear();
    }
}

impl Step {
    /// Matches `node` against this step; captures are pushed onto `out` (and truncated back
    /// when the step fails).
    pub(crate) fn matches<'t>(
        &self,
        node: Node<'t>,
        cursor: &mut TreeCursor<'t>,
        out: &mut Captures<'t, '_>,
    ) -> bool {
        let mark = out.caps.len();
        let ok = match &self.what {
            What::Named(ids) => node.is_named() && ids.contains(&node.kind_id()),
            What::Token(ids) => !node.is_named() && ids.contains(&node.kind_id()),
            What::AnyNamed => node.is_named(),
            What::Any => true,
            What::Alt(branches) => {
                if !out.satisfies(node, &self.predicates) {
                    return false;
                }
                if let Some(role) = self.capture {
                    out.caps.push((role, node));
                }
                if branches.iter().any(|b| b.matches(node, cursor, out)) {
                    return true;
                }
                out.caps.truncate(mark);
                return false;
            }
        };
        if !ok || !out.satisfies(node, &self.predicates) {
            return false;
        }
        if let Some(role) = self.capture {
            out.caps.push((role, node));
        }
        if self.children.is_empty() {
            return true;
        }
        // The children go on `kids`, where they stay for the other patterns tried at the same
        // start node.
        let (base, end) = load_kids(node, cursor, out, self.needs_fields);
        if match_in_order(&self.children, base, end, cursor, out).is_none() {
            out.caps.truncate(mark);
            return false;
        }
        true
    }

    /// Whether this step matches `kid`, which sits in `field` of its parent.
    fn matches_kid<'t>(
        &self,
        kid: Node<'t>,
        field: Option<NonZeroU16>,
        cursor: &mut TreeCursor<'t>,
        out: &mut Captures<'t, '_>,
    ) -> bool {
        (self.field.is_none() || field == self.field) && self.matches(kid, cursor, out)
    }

    /// Whether this step can be a plain pattern's root: a node kind with a main capture,
    /// parts below it, and a wrapper's item in a field (so that it is unique); or a node kind
    /// with one such child step (`(program (lexical_declaration …) @atom.constant)`), which
    /// then matches once per child (see [`Self::each_child_match`]).
    pub(crate) fn make_plain_root(&mut self) -> bool {
        if !matches!(self.what, What::Named(_)) || self.field.is_some() {
            return false;
        }
        if self.capture.is_none() && self.children.len() == 1 {
            self.anchored = self.children[0].chains_to_main();
            return self.anchored;
        }
        if self.is_main() {
            return true;
        }
        self.fans_out = self.capture == Some(Role::Wrapper)
            && self.children.last().is_some_and(|c| c.capture == Some(Role::Wrapped))
            && self.children.iter().all(|c| c.parts_only() && !c.optional);
        self.fans_out
    }

    /// Whether this step is a node kind that carries the main capture, or a node kind without
    /// captures whose only child step chains to it (`(class body: (block (def) @atom.method))`).
    fn chains_to_main(&self) -> bool {
        matches!(self.what, What::Named(_))
            && (self.is_main()
                || (self.capture.is_none()
                    && self.children.len() == 1
                    && self.children[0].chains_to_main()))
    }

    /// Whether this step carries a main capture with parts below it.
    fn is_main(&self) -> bool {
        let Some(main) = self.capture else { return false };
        let parts_only = self.children.iter().all(Step::parts_only);
        let wrapper_ok = match main {
            Role::Wrapper => self.children.iter().any(|c| c.wrapped_in_fields()),
            Role::Atom(_) | Role::Comment | Role::Attach | Role::Import | Role::Expand => true,
            _ => false,
        };
        parts_only && wrapper_ok
    }

    /// Whether a match records an item at the pattern's root node, and nothing else.
    pub(crate) fn root_item(&self) -> bool {
        !self.anchored && matches!(self.capture, Some(Role::Atom(_)))
    }

    /// Whether the pattern matches once per matching child of the root.
    pub(crate) fn anchored(&self) -> bool {
        self.anchored
    }

    /// Whether the pattern matches once per child its last step matches.
    pub(crate) fn fans_out(&self) -> bool {
        self.fans_out
    }

    /// For a fanning-out wrapper (`(ambient_declaration (_) @wrapped) @wrapper`): calls `f`
    /// with the captures of each match at `node`, one per child that the last step matches
    /// after the earliest match of the steps before it, in order. tree-sitter reports one match
    /// per assignment; later assignments of the steps before find no other wrapped node (they
    /// leave fewer children for the last step), so the wrapped nodes are the same, and a
    /// wrapper with two of them is ambiguous either way.
    pub(crate) fn each_fan_match<'t>(
        &self,
        node: Node<'t>,
        cursor: &mut TreeCursor<'t>,
        out: &mut Captures<'t, '_>,
        mut f: impl FnMut(&[(Role, Node<'t>)]),
    ) {
        let Some((last, before)) = self.children.split_last() else { return };
        if !self.kind_matches(node) || !out.satisfies(node, &self.predicates) {
            return;
        }
        out.caps.clear();
        if let Some(role) = self.capture {
            out.caps.push((role, node));
        }
        let (base, end) = load_kids(node, cursor, out, self.needs_fields);
        let Some(at) = match_in_order(before, base, end, cursor, out) else { return };
        let mark = out.caps.len();
        for i in at..end {
            let (kid, field) = out.kids[i];
            if last.matches_kid(kid, field, cursor, out) {
                f(&out.caps);
                out.caps.truncate(mark);
            }
        }
    }

    /// For an anchored pattern: calls `f` with the captures of each match below `node`, in
    /// order: one per child (or, down a chain of single child steps, per descendant) that the
    /// main step matches, as tree-sitter reports one match per combination.
    pub(crate) fn each_child_match<'t>(
        &self,
        node: Node<'t>,
        cursor: &mut TreeCursor<'t>,
        out: &mut Captures<'t, '_>,
        mut f: impl FnMut(&[(Role, Node<'t>)]),
    ) {
        if self.kind_matches(node) {
            self.children[0].each_match_below(node, cursor, out, &mut f);
        }
    }

    /// Calls `f` for each child of `parent` in this step's field that this step matches: with
    /// the captures if this step holds the main capture, else for each match of its only child
    /// step below that child.
    fn each_match_below<'t, F: FnMut(&[(Role, Node<'t>)])>(
        &self,
        parent: Node<'t>,
        cursor: &mut TreeCursor<'t>,
        out: &mut Captures<'t, '_>,
        f: &mut F,
    ) {
        let (base, end) = load_kids(parent, cursor, out, true);
        for i in base..end {
            let (kid, field) = out.kids[i];
            if self.field.is_some() && field != self.field {
                continue;
            }
            if self.capture.is_some() {
                out.caps.clear();
                if self.matches(kid, cursor, out) {
                    f(&out.caps);
                }
            } else if self.kind_matches(kid) {
                self.children[0].each_match_below(kid, cursor, out, f);
            }
        }
    }

    /// Gives `regex` to every step that captures `role`; whether there was one.
    fn attach(&mut self, role: Role, regex: &Predicate) -> bool {
        let mut found = false;
        if self.capture == Some(role) {
            self.predicates.push(regex.clone());
            found = true;
        }
        if let What::Alt(branches) = &mut self.what {
            for b in branches {
                found |= b.attach(role, regex);
            }
        }
        for child in &mut self.children {
            found |= child.attach(role, regex);
        }
        found
    }

    /// The `#match?` regexes of this step and the steps below it that do not compile.
    #[cfg(test)]
    pub(crate) fn broken_predicates(&self) -> Vec<String> {
        let mut out: Vec<String> =
            self.predicates.iter().filter(|p| p.regex().is_none()).map(|p| p.0.0.clone()).collect();
        if let What::Alt(branches) = &self.what {
            out.extend(branches.iter().flat_map(Step::broken_predicates));
        }
        out.extend(self.children.iter().flat_map(Step::broken_predicates));
        out
    }

    /// Whether `node` is a named node of this step's kinds.
    fn kind_matches(&self, node: Node<'_>) -> bool {
        match &self.what {
            What::Named(ids) => node.is_named() && ids.contains(&node.kind_id()),
            _ => false,
        }
    }

    fn parts_only(&self) -> bool {
        let part = matches!(
            self.capture,
            None | Some(
                Role::Name
                    | Role::Keyword
                    | Role::Qualifier
                    | Role::Body
                    | Role::Wrapped
                    | Role::Language,
            )
        );
        let below = match &self.what {
            What::Alt(branches) => branches.iter().all(Step::parts_only),
            _ => true,
        };
        part && below && self.children.iter().all(Step::parts_only)
    }

    /// Whether a `@wrapped` capture is found on this step or below it, through fields only.
    fn wrapped_in_fields(&self) -> bool {
        self.field.is_some()
            && (self.capture == Some(Role::Wrapped)
                || self.children.iter().any(Step::wrapped_in_fields))
    }

    /// The kind ids a root step matches.
    pub(crate) fn root_ids(&self) -> &[u16] {
        match &self.what {
            What::Named(ids) => ids,
            _ => &[],
        }
    }

    /// The main role of a bare `(kind) @capture` that needs no parts.
    pub(crate) fn bare_role(&self) -> Option<Role> {
        match self.capture {
            Some(role @ (Role::Atom(_) | Role::Comment | Role::Attach | Role::Import))
                if self.children.is_empty() && self.predicates.is_empty() =>
            {
                Some(role)
            }
            _ => None,
        }
    }
}

/// Matches `steps` in order against the children `out.kids[at..end]`, each at the first child
/// it matches after the previous step's: the index after the last match, or `None` when a
/// step that is not optional matches no child.
fn match_in_order<'t>(
    steps: &[Step],
    mut at: usize,
    end: usize,
    cursor: &mut TreeCursor<'t>,
    out: &mut Captures<'t, '_>,
) -> Option<usize> {
    for step in steps {
        let found = (at..end).find(|&i| {
            let (kid, field) = out.kids[i];
            step.matches_kid(kid, field, cursor, out)
        });
        match found {
            Some(i) => at = i + 1,
            None if step.optional => {}
            None => return None,
        }
    }
    Some(at)
}

/// Puts the children of `node` (with their fields when `fields`) on top of `out.kids`, unless
/// already there: their range in `out.kids`. They stay until the next [`Captures::clear`], for
/// the next pattern tried at the same start node.
fn load_kids<'t>(
    node: Node<'t>,
    cursor: &mut TreeCursor<'t>,
    out: &mut Captures<'t, '_>,
    fields: bool,
) -> (usize, usize) {
    if let Some(&(base, end, with_fields)) = out.loaded.get(&node.id())
        && (with_fields || !fields)
    {
        return (base as usize, end as usize);
    }
    let base = out.kids.len();
    let count = node.child_count();
    if !fields && count <= FEW_CHILDREN {
        out.kids.extend((0..count).filter_map(|i| node.child(i)).map(|kid| (kid, None)));
    } else {
        for_each_child(node, cursor, |c| {
            out.kids.push((c.node(), if fields { c.field_id() } else { None }));
        });
    }
    let end = out.kids.len();
    if let (Ok(b), Ok(e)) = (u32::try_from(base), u32::try_from(end)) {
        out.loaded.insert(node.id(), (b, e, fields));
    }
    (base, end)
}

/// Calls `f` with `cursor` on each child of `node`, in order.
pub(crate) fn for_each_child<'t>(
    node: Node<'t>,
    cursor: &mut TreeCursor<'t>,
    mut f: impl FnMut(&TreeCursor<'t>),
) {
    cursor.reset(node);
    if cursor.goto_first_child() {
        loop {
            f(cursor);
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
}

/// Pushes the children of `node` onto `out`, in order.
pub(crate) fn push_children<'t>(
    node: Node<'t>,
    cursor: &mut TreeCursor<'t>,
    out: &mut Vec<Node<'t>>,
) {
    let count = node.child_count();
    if count <= FEW_CHILDREN {
        out.extend((0..count).filter_map(|i| node.child(i)));
    } else {
        for_each_child(node, cursor, |c| out.push(c.node()));
    }
}

/// Nodes with at most this many children are read with `Node::child` when their fields are
/// not needed. `Node::child(i)` runs a light iterator from the first child (tens of
/// instructions a step), where each step of a tree cursor rebuilds its iterator and counts
/// descendants (hundreds): reading all `n` children one index at a time costs `n²/2` light
/// steps against `n` cursor steps, which is cheaper up to a few dozen children.
const FEW_CHILDREN: u32 = 16;

/// A grammar's visible node kinds by name and namedness, looked up once per language: asking
/// tree-sitter for each name walks every kind of the grammar (a thousand in TypeScript), which
/// made compiling a language's patterns cost ~10 M instructions, a few per cent of a run on a
/// small corpus.
pub(crate) struct Kinds<'g> {
    ids: HashMap<(&'g str, bool), Vec<u16>>,
}

impl<'g> Kinds<'g> {
    pub(crate) fn new(grammar: &'g Language) -> Self {
        let mut ids: HashMap<(&'g str, bool), Vec<u16>> = HashMap::new();
        for id in (0..grammar.node_kind_count()).filter_map(|id| u16::try_from(id).ok()) {
            if grammar.node_kind_is_visible(id)
                && let Some(name) = grammar.node_kind_for_id(id)
            {
                ids.entry((name, grammar.node_kind_is_named(id))).or_default().push(id);
            }
        }
        Self { ids }
    }
}

/// Parses one whole pattern; `None` when it is not plain, or names something the grammar
/// lacks (tree-sitter then compiles it and reports the error).
pub(crate) fn parse(text: &str, grammar: &Language, kinds: &Kinds<'_>) -> Option<Step> {
    let mut p = Parser { text, at: 0, grammar, kinds, predicates: Vec::new() };
    let mut step = p.step(false)?;
    p.space();
    for (role, regex) in p.predicates {
        // A predicate on a capture the pattern lacks is an error tree-sitter reports.
        if !step.attach(role, &regex) {
            return None;
        }
    }
    (p.at == text.len()).then_some(step)
}

struct Parser<'s, 'g> {
    text: &'s str,
    at: usize,
    grammar: &'g Language,
    kinds: &'g Kinds<'g>,
    /// The `#match?` predicates met so far: they hold for the whole pattern.
    predicates: Vec<(Role, Predicate)>,
}

impl<'s> Parser<'s, '_> {
    fn rest(&self) -> &'s str {
        &self.text[self.at..]
    }

    fn space(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            if trimmed.starts_with(';') {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.space();
        if self.rest().starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<&'s str> {
        self.space();
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '!')))
            .unwrap_or(rest.len());
        if len == 0 {
            return None;
        }
        self.at += len;
        Some(&rest[..len])
    }

    fn kind_ids(&self, name: &str, named: bool) -> Option<Vec<u16>> {
        self.kinds.ids.get(&(name, named)).cloned()
    }

    /// One step, with an optional `field:` prefix when `child`, and its captures.
    fn step(&mut self, child: bool) -> Option<Step> {
        self.space();
        let mut field = None;
        if child {
            let save = self.at;
            if let Some(name) = self.ident()
                && name != "_"
                && self.eat(":")
            {
                field = Some(self.grammar.field_id_for_name(name)?);
            } else {
                self.at = save;
            }
        }
        self.space();
        let (what, children) = if self.eat("(") {
            let name = self.ident()?.to_owned();
            let what =
                if name == "_" { What::AnyNamed } else { What::Named(self.kind_ids(&name, true)?) };
            let mut children = Vec::new();
            while !self.eat(")") {
                if self.rest().starts_with("(#") {
                    self.predicate()?;
                    continue;
                }
                children.push(self.step(true)?);
            }
            (what, children)
        } else if self.eat("[") {
            let mut branches = Vec::new();
            while !self.eat("]") {
                let branch = self.step(false)?;
                if !matches!(branch.what, What::Named(_) | What::AnyNamed | What::Token(_)) {
                    return None;
                }
                branches.push(branch);
            }
            (What::Alt(branches), Vec::new())
        } else if self.eat("\"") {
            let rest = self.rest();
            let end = rest.find('"')?;
            let token = &rest[..end];
            if token.contains('\\') {
                return None;
            }
            let ids = self.kind_ids(token, false)?;
            self.at += end + 1;
            (What::Token(ids), Vec::new())
        } else if self.eat("_") {
            (What::Any, Vec::new())
        } else {
            return None;
        };
        // A child step may be optional; other quantifiers are not plain.
        let optional = child && self.eat("?");
        let mut capture = None;
        while self.eat("@") {
            let name = self.ident()?;
            if capture.is_some() {
                return None;
            }
            capture = Some(role_of(name)?);
        }
        self.space();
        if self.rest().starts_with(['*', '+', '?', '.', '!', '#']) {
            return None;
        }
        let needs_fields = children.iter().any(|c| c.field.is_some());
        Some(Step {
            what,
            field,
            capture,
            children,
            needs_fields,
            anchored: false,
            fans_out: false,
            optional,
            predicates: Vec::new(),
        })
    }

    /// `(#match? @capture "regex")`, the one predicate plain patterns may hold; the string
    /// is unescaped as tree-sitter does (`\\` → `\`, `\"` → `"`, `\n` → a newline).
    fn predicate(&mut self) -> Option<()> {
        if !(self.eat("(") && self.eat("#match?") && self.eat("@")) {
            return None;
        }
        let role = role_of(self.ident()?)?;
        if !self.eat("\"") {
            return None;
        }
        let mut pattern = String::new();
        let mut chars = self.rest().char_indices();
        let end = loop {
            match chars.next()? {
                (i, '"') => break i,
                (_, '\\') => match chars.next()?.1 {
                    'n' => pattern.push('\n'),
                    't' => pattern.push('\t'),
                    'r' => pattern.push('\r'),
                    '0' => pattern.push('\0'),
                    c => pattern.push(c),
                },
                (_, c) => pattern.push(c),
            }
        };
        self.at += end + 1;
        if !self.eat(")") {
            return None;
        }
        self.predicates.push((role, Predicate::new(pattern)?));
        Some(())
    }
}

/// The index just after the bracket that closes the `depth` groups open before `i`, and any
/// opened from `i` on; strings and `;` comments are skipped. `None` if the text ends first or
/// a bracket closes a group that is not open.
pub(crate) fn close_groups(bytes: &[u8], mut i: usize, mut depth: usize) -> Option<usize> {
    let mut in_string = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Splits a query source into its top-level patterns, as byte ranges; `None` when the text
/// has a shape this reader does not know.
pub(crate) fn split(source: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' => {
                let start = i;
                i = close_groups(bytes, i, 0)?;
                // Trailing quantifiers and captures.
                loop {
                    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
                        i += 1;
                    }
                    match bytes.get(i) {
                        Some(b'*' | b'+' | b'?') => i += 1,
                        Some(b'@') => {
                            i += 1;
                            while i < bytes.len()
                                && (bytes[i].is_ascii_alphanumeric()
                                    || matches!(bytes[i], b'_' | b'.' | b'-'))
                            {
                                i += 1;
                            }
                        }
                        _ => break,
                    }
                }
                out.push(start..i);
            }
            _ => return None,
        }
    }
    Some(out)
}
