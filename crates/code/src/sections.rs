//! Sectioned parsing, the driver of the atomizer: a file is parsed whole, or past
//! [`SECTION_BYTES`] in sections cut between top-level items (one large item in member runs,
//! see `runs.rs`; minified or generated code in bounded pieces, see `pieces.rs`), each section
//! walked into atoms and freed before the next.

use std::ops::Range;

use cleave_core::{Atom, AtomKind, AtomTree, ContentKind, Diagnostic, Severity};

use crate::builder::{self, Builder};
use crate::context::{self, ParseContext};
use crate::imports::context_lines;
use crate::pieces::{self, PIECE_BYTES};
use crate::registry::{Language, MissingGrammar, language_by_name};
use crate::runs::{atomize_runs, member_runs};
use crate::tags;

/// Files longer than this are parsed in sections of about this length, cut between top-level
/// items. tree-sitter's memory while parsing grows with the file (about 60 bytes per byte of a
/// generated 1.7 MB Rust file, most of it held only during the parse), so a repository's largest
/// files set the peak memory of a whole run; sections bound it. The atoms are those of the
/// whole parse (see [`atomize_code_in_sections`] for files that fail to parse).
pub const SECTION_BYTES: usize = 256 << 10;

/// [`atomize_code`](crate::atomize_code), parsing files longer than `section_bytes` in sections of about that
/// length. The atoms do not depend on it: a section ends only where a top-level item ends
/// (a blank line after a line that closes a bracket or is indented, before a line that starts
/// in the first column), and a section whose parse holds an error is not trusted as one: the
/// whole file is then parsed in one piece, since an error can reshape a whole parse from its
/// first byte on. A file longer than the piece length (2 MiB) is no whole parse even so: from
/// the section before the failing one, the rest is parsed in one piece (or in pieces).
pub fn atomize_code_in_sections(
    language: &Language,
    text: &str,
    ctx: &mut ParseContext,
    section_bytes: usize,
) -> AtomTree {
    atomize_code_in_pieces(language, text, ctx, section_bytes, section_bytes.max(PIECE_BYTES))
}

/// [`atomize_code_in_sections`], parsing a section that stays longer than `piece_bytes` (no
/// blank line between its items, no member runs: minified or generated code) in pieces of at
/// most that length, cut at statement or line ends (see `pieces.rs`), and saying so in a
/// diagnostic. For tests, which need a small bound.
#[doc(hidden)]
pub fn atomize_code_in_pieces(
    language: &Language,
    text: &str,
    ctx: &mut ParseContext,
    section_bytes: usize,
    piece_bytes: usize,
) -> AtomTree {
    if let Some(view) = lone_cr_as_lf(text) {
        // Classic Mac line ends: no grammar reads a lone CR as a newline (Python's statements
        // all run into one line). The view has the same length, so its atoms index `text`.
        let mut tree = atomize_code_in_pieces(language, &view, ctx, section_bytes, piece_bytes);
        tree.diagnostics.push(Diagnostic::new(
            Severity::Note,
            "lone CR line ends (classic Mac) were read as newlines",
        ));
        return tree;
    }
    let root_atom = || Atom::new(AtomKind::Block, 0..text.len());
    let blocks = |severity: Severity, message: String| {
        let mut tree = cleave_core::atomize_blocks(text, language.name, ContentKind::Code);
        tree.comment = language.comment_style();
        tree.separator = language.separator;
        tree.diagnostics.push(Diagnostic::new(severity, message));
        tree
    };
    let fallback = |message: String| blocks(Severity::Fallback, message);
    // A language with a scanner instead of a grammar: its atoms, under the row's facts.
    if let Some(scanner) = language.scanner() {
        let (children, diagnostics) = scanner(text);
        let mut tree = AtomTree::new(language.name, ContentKind::Code, root_atom());
        tree.comment = language.comment_style();
        tree.separator = language.separator;
        tree.root = root_atom().with_children(children);
        tree.diagnostics = diagnostics;
        if tree.root.validate(text).is_err() {
            return fallback(format!("the {} scanner did not tile this file", language.name));
        }
        return tree;
    }
    // A language without a grammar in this build is still code, in blocks: a fallback when
    // the build left its feature out, a note when cleave has no grammar for it.
    if let Some((missing, message)) = language.missing_grammar() {
        let severity = match missing {
            MissingGrammar::FeatureOff => Severity::Fallback,
            MissingGrammar::NoGrammar => Severity::Note,
        };
        return blocks(severity, message);
    }
    let Some(language) = language_by_name(language.name) else {
        return fallback(format!("{} is not a registered language", language.name));
    };
    let config = match language.config() {
        Ok(config) => config,
        Err(e) => return fallback(e.to_string()),
    };
    if let Some(depth) = tags::too_deep_to_parse(language, text) {
        return fallback(format!(
            "elements nest {depth} deep, past {}: the {} grammar's scanner copies the stack of \
             open elements at every token, so its parse would take time quadratic in the depth",
            tags::MAX_TAG_DEPTH,
            language.name,
        ));
    }
    // Where a blank line may be inside HTML (PHP), or a block's end depends on what follows
    // it (Scala 3), files are parsed whole up to the piece length.
    let section_bytes =
        if language.sectioned { section_bytes } else { section_bytes.max(piece_bytes) };
    let mut tree = AtomTree::new(language.name, ContentKind::Code, root_atom());
    tree.comment = language.comment_style();
    tree.separator = language.separator;
    if text.is_empty() {
        return tree;
    }
    ctx.start_file(text.len());
    let mut cuts = section_starts(text.as_bytes(), section_bytes);
    let mut children: Vec<Atom> = Vec::new();
    let mut imports = Vec::new();
    // The exact ranges of the top-level imports of every section, for `AtomTree::imports`.
    let mut import_ranges: Vec<Range<usize>> = Vec::new();
    let mut errors = 0;
    // Where the last section ended with an import atom: the whole parse merges it with
    // imports that follow across blank lines, and so does the next section.
    let mut import_end: Option<usize> = None;
    // What was built before each section, to go back to when a section's parse holds an
    // error: (atoms, end of the last atom, imports, error bytes, import end, fallback bytes).
    let mut saved = Vec::new();
    let mut trusted = cuts.len() > 1;
    // Whether a failing section sent the whole file to one parse: no member runs then.
    let mut whole = false;
    // Sections parsed in pieces: (bytes, pieces).
    let mut pieced = (0, 0);
    // The tree of the last trusted section that parsed clean, kept until the next one parses:
    // when that one fails, the parse that replaces them (the first untrusted one) reuses its
    // nodes instead of parsing its bytes a second time.
    let mut clean: Option<tree_sitter::Tree> = None;
    let mut k = 0;
    while k < cuts.len() {
        saved.truncate(k);
        let last_end = children.last().map(|a| a.range.end);
        saved.push((
            children.len(),
            last_end,
            imports.clone(),
            errors,
            import_end,
            ctx.fallback_bytes,
        ));
        let start = cuts[k];
        let last = k + 1 == cuts.len();
        let end = if last { text.len() } else { cuts[k + 1] };
        // One large item (a class of thousands of methods): parsed in runs of its members.
        let nested = if end - start > section_bytes && !whole {
            member_runs(text.as_bytes(), start..end, section_bytes).and_then(|runs| {
                atomize_runs(language, config, text, start..end, &runs, imports.clone(), ctx)
            })
        } else {
            None
        };
        if let Some((atoms, walked_imports, top_imports)) = nested {
            add_section(&mut children, atoms, import_end, &top_imports, text);
            import_ranges.extend_from_slice(&top_imports);
            import_end = top_imports.last().map(|r| r.end);
            imports = walked_imports;
            k += 1;
            continue;
        }
        if end - start > piece_bytes {
            // Minified or generated code: pieces, each walked as a section of its own. Their
            // parse errors are expected where a cut falls inside a bracket, and stay local.
            let ranges = pieces::pieces(text, start..end, piece_bytes, language.lexis);
            pieced = (pieced.0 + (end - start), pieced.1 + ranges.len());
            for (range, ts) in ranges.iter().zip(context::ts_ranges(text, &ranges)) {
                let Some(syntax) = ctx.parse_ranges(language, text, &[ts]) else {
                    ctx.fallback_bytes += range.len();
                    let lines = cleave_core::blocks(text, range.clone());
                    children.push(Atom::new(AtomKind::Block, range.clone()).with_children(lines));
                    import_end = None;
                    continue;
                };
                let root = syntax.root_node();
                let mut builder = Builder::new(text, language, config, root, ctx, 0);
                builder.imports = std::mem::take(&mut imports);
                let atoms = builder.root(root, range.clone(), ctx);
                add_section(&mut children, atoms, import_end, &builder.top_imports, text);
                import_ranges.extend_from_slice(&builder.top_imports);
                import_end = builder.top_imports.last().map(|r| r.end);
                imports = builder.imports;
                errors += builder::error_bytes(root);
            }
            k += 1;
            continue;
        }
        let old = if trusted { None } else { clean.take() };
        let syntax = if start == 0 && last {
            ctx.reparse(language, text, old.as_ref())
        } else {
            let range = context::ts_range(text, start..end);
            ctx.parse_ranges_reusing(language, text, &[range], old.as_ref())
        };
        drop(old);
        let Some(syntax) = syntax else {
            return fallback(if ctx.stopped_parses > 0 {
                stopped_message(language, end - start, ctx.stopped_by_file)
            } else {
                format!("the {} parser gave up on this file", language.name)
            });
        };
        let root = syntax.root_node();
        if trusted && root.has_error() {
            // A real error, or a cut that was no boundary between items (before or after
            // this section). Tree-sitter's error recovery is not local: an error near the end
            // can make the whole file's root an ERROR node and reshape the nodes before it
            // from the first byte on, so a section that parsed cleanly alone says nothing of
            // the whole parse. The whole file is parsed in one piece when it fits one; past
            // that, where one parse would break the bound the pieces keep, the rest from the
            // section before.
            whole = text.len() <= piece_bytes;
            let back = if whole { 0 } else { k.saturating_sub(1) };
            saved.truncate(back + 1);
            let (len, last_end);
            (len, last_end, imports, errors, import_end, ctx.fallback_bytes) =
                saved.pop().expect("a state was saved before every section");
            children.truncate(len);
            if let (Some(atom), Some(end)) = (children.last_mut(), last_end) {
                atom.range.end = end;
            }
            import_ranges.retain(|r| r.start < cuts[back]);
            cuts.truncate(back + 1);
            trusted = false;
            k = back;
            continue;
        }
        let mut builder = Builder::new(text, language, config, root, ctx, 0);
        builder.imports = std::mem::take(&mut imports);
        let atoms = builder.root(root, start..end, ctx);
        add_section(&mut children, atoms, import_end, &builder.top_imports, text);
        import_ranges.extend_from_slice(&builder.top_imports);
        import_end = builder.top_imports.last().map(|r| r.end);
        imports = builder.imports;
        errors += builder::error_bytes(root);
        // Only a trusted clean section's tree can serve a later parse; one section's at most.
        clean = (trusted && !last).then_some(syntax);
        k += 1;
    }
    tree.context = context_lines(&imports);
    tree.imports = import_ranges;
    tree.root = root_atom().with_children(children);
    if pieced.1 > 0 {
        tree.diagnostics.push(Diagnostic::new(
            Severity::Degraded,
            format!(
                "looks minified or generated: {} bytes with no blank line between top-level \
                 items were parsed in {} pieces of at most {piece_bytes} bytes, cut at \
                 statement or line ends; an item that spans pieces is cut into its parts",
                pieced.0, pieced.1,
            ),
        ));
    }
    if errors > 0 || ctx.fallback_bytes > 0 {
        let share = |n: usize| n as f64 * 100.0 / text.len() as f64;
        tree.diagnostics.push(Diagnostic::new(
            Severity::Degraded,
            format!(
                "parse errors: {:.1}% of the file ({errors} of {} bytes) under error nodes, \
                 {:.1}% ({} bytes) fell back to line packing",
                share(errors),
                text.len(),
                share(ctx.fallback_bytes),
                ctx.fallback_bytes,
            ),
        ));
    }
    if ctx.stopped_parses > 0 {
        tree.diagnostics.push(Diagnostic::new(
            Severity::Degraded,
            format!(
                "{} partial parse(s) stopped at the step budget (error recovery that would \
                 not end); their ranges fell back",
                ctx.stopped_parses,
            ),
        ));
    }
    tree
}

/// Why a file fell back when its parse was stopped at its step budget, or at what was left of
/// the file's budget after its other parses.
fn stopped_message(language: &Language, bytes: usize, by_file: bool) -> String {
    let budget = if by_file {
        "the file's step budget, which its earlier parses had mostly spent".to_owned()
    } else {
        format!("its step budget ({} operations", context::parse_step_budget(bytes) * 100)
            + ": error recovery that would not end)"
    };
    format!("the {} parse of {bytes} bytes passed {budget} and was stopped", language.name)
}

/// `text` with every CR that no LF follows replaced by an LF; `None` when it has none. CRLF
/// is left alone: grammars read it as a line end already.
fn lone_cr_as_lf(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let is_lone = |i: usize| bytes.get(i + 1) != Some(&b'\n');
    let first = memchr::memchr_iter(b'\r', bytes).find(|&i| is_lone(i))?;
    let mut view = bytes.to_vec();
    for i in memchr::memchr_iter(b'\r', &bytes[first..]).map(|i| first + i) {
        if is_lone(i) {
            view[i] = b'\n';
        }
    }
    // One ASCII byte for another: still UTF-8.
    String::from_utf8(view).ok()
}

/// Appends a section's atoms. Imports merged across blank lines in a whole parse are merged
/// across sections too: the last section ended with imports at `import_end`, and this one
/// starts with more.
fn add_section(
    children: &mut Vec<Atom>,
    mut atoms: Vec<Atom>,
    import_end: Option<usize>,
    top_imports: &[Range<usize>],
    text: &str,
) {
    if let (Some(prev), Some(first)) = (import_end, top_imports.first())
        && children.last().is_some_and(|a| a.range.end == prev)
        && text.as_bytes()[prev..first.start].iter().all(u8::is_ascii_whitespace)
    {
        children.last_mut().expect("checked").range.end = first.end;
        atoms.retain(|a| a.range.end > first.end);
    }
    children.extend(atoms);
}

/// How many member runs the sections of `text` past `section_bytes` are parsed in (0 when
/// none is one large item). For tests and reports.
#[doc(hidden)]
pub fn member_run_count(text: &str, section_bytes: usize) -> usize {
    let cuts = section_starts(text.as_bytes(), section_bytes);
    let mut count = 0;
    for (k, &start) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).copied().unwrap_or(text.len());
        if end - start > section_bytes
            && let Some(runs) = member_runs(text.as_bytes(), start..end, section_bytes)
        {
            count += runs.starts.len();
        }
    }
    count
}

/// Parses `text` as [`atomize_code`](crate::atomize_code) does (whole, or in [`section_starts`] sections past
/// [`SECTION_BYTES`]) and builds nothing: the parse-only baseline the benchmarks compare
/// cleave with. Returns whether any parse held an error; `None` when the parser gave up.
pub fn parse_only(language: &Language, text: &str, ctx: &mut ParseContext) -> Option<bool> {
    let language = language_by_name(language.name)?;
    let piece_bytes = SECTION_BYTES.max(PIECE_BYTES);
    let section_bytes = if language.sectioned { SECTION_BYTES } else { piece_bytes };
    let starts = section_starts(text.as_bytes(), section_bytes);
    ctx.start_file(text.len());
    let mut errors = false;
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        if end - start > section_bytes
            && let Some(runs) = member_runs(text.as_bytes(), start..end, section_bytes)
        {
            // In runs of the item's members, as atomize_code parses it when no run fails.
            for run in 0..runs.starts.len() {
                let tree = runs.parse(run, language, text, &(start..end), ctx)?;
                errors |= tree.root_node().has_error();
            }
            continue;
        }
        if end - start > piece_bytes {
            // In pieces, as atomize_code parses minified or generated code.
            let ranges = pieces::pieces(text, start..end, piece_bytes, language.lexis);
            for ts in context::ts_ranges(text, &ranges) {
                errors |= ctx.parse_ranges(language, text, &[ts])?.root_node().has_error();
            }
            continue;
        }
        let tree = if starts.len() == 1 {
            ctx.parse(language, text)?
        } else {
            ctx.parse_ranges(language, text, &[context::ts_range(text, start..end)])?
        };
        errors |= tree.root_node().has_error();
    }
    Some(errors)
}

/// Where the sections of a file start: 0, then the first candidate cut at least
/// `section_bytes` after the previous one, as long as the last section keeps half that length.
/// A candidate is the start of a run of blank lines that follows a line starting with `}`,
/// `)` or indentation, not in or closing a comment (the end of an item or of an indented
/// body), and precedes a line starting in the first column with anything but a closing
/// bracket (the next item, its doc comment or attributes). The blank lines go to the section
/// after, where they are the same gap as in the whole file.
pub fn section_starts(bytes: &[u8], section_bytes: usize) -> Vec<usize> {
    let mut starts = vec![0];
    let section_bytes = section_bytes.max(1);
    if bytes.len() <= section_bytes {
        return starts;
    }
    let line_end = |from: usize| {
        bytes[from..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| from + i + 1)
    };
    // A closing bracket, or an indented line that is no comment: ` */` or `  text */` ends a
    // doc comment that belongs to the item after the blank lines, and a line ending in `\`
    // goes on over the blank line (a C macro whose last line is continued takes it in).
    let ends_item = |line: &[u8]| {
        let code = line.trim_ascii();
        match (line[0], code.first()) {
            _ if code.ends_with(b"*/") || code.ends_with(b"\\") => false,
            (b'}' | b')', _) => true,
            (b' ' | b'\t', Some(c)) => !matches!(c, b'*' | b'/' | b'#'),
            _ => false,
        }
    };
    let mut from = section_bytes;
    // The last line with code, and where the blank lines after it start.
    let mut code: Option<Range<usize>> = None;
    let mut blanks: Option<usize> = None;
    let mut at = bytes[..from].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    while at < bytes.len() {
        let line = at..line_end(at);
        at = line.end;
        if bytes[line.clone()].iter().all(u8::is_ascii_whitespace) {
            blanks.get_or_insert(line.start);
            continue;
        }
        let first = bytes[line.start];
        if let (Some(cut), Some(prev)) = (blanks, &code)
            && cut >= from
            && ends_item(&bytes[prev.clone()])
            && !first.is_ascii_whitespace()
            && !matches!(first, b'}' | b')' | b']')
        {
            if bytes.len() - cut < section_bytes / 2 {
                break;
            }
            starts.push(cut);
            from = cut + section_bytes;
        }
        code = Some(line);
        blanks = None;
    }
    starts
}
