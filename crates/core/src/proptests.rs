//! Property tests: random texts and random atom trees, every sizer, through the one checker.

use proptest::prelude::*;

use crate::atom::{Atom, AtomKind, AtomLabel, AtomTree, Boundary, CommentStyle, ContentKind};
use crate::check::check_invariants;
use crate::config::{ChunkConfig, Cuts};
use crate::pack::pack;
use crate::plain::atomize_blocks;
use crate::sizer::{Tokenizer, Unit};
use crate::text::Source;

/// Cases per property: `PROPTEST_CASES` (as `just fuzz` sets it), else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,12}",
        3 => Just(" ".to_owned()),
        2 => Just("\n".to_owned()),
        1 => Just("\n\n".to_owned()),
        1 => "[ \t]{1,6}",
        1 => "[é☃𝄞ü中文]{1,4}",
        1 => "[{}();,.=+*/$\\\\]{1,3}",
        1 => "[a-zA-Z0-9]{40,400}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..160).prop_map(|v| v.concat())
}

fn unit() -> impl Strategy<Value = Unit> {
    prop_oneof![
        Just(Unit::Chars),
        Just(Unit::Bytes),
        Just(Unit::Estimate),
        Just(Unit::Tokens(Tokenizer::O200k)),
        Just(Unit::Tokens(Tokenizer::Cl100k)),
    ]
}

/// A random tree over `text`: split points drawn from `seeds`, kinds and flags from the seed.
fn random_tree(text: &str, seeds: &[u32]) -> Atom {
    let mut it = seeds.iter().copied().cycle();
    build(text, 0..text.len(), 0, &mut it)
}

fn build(
    text: &str,
    range: std::ops::Range<usize>,
    depth: usize,
    seeds: &mut impl Iterator<Item = u32>,
) -> Atom {
    let s = seeds.next().unwrap_or(0);
    let kind = match s % 5 {
        0 => AtomKind::Symbol,
        1 => AtomKind::Section,
        2 => AtomKind::Block,
        3 => AtomKind::Gap,
        _ => AtomKind::Protected,
    };
    let mut atom =
        Atom::new(kind, range.clone()).with_scope(s.is_multiple_of(3)).with_boundary(match s % 7 {
            0 => Boundary::Item,
            1 => Boundary::Member,
            2 => Boundary::Statement,
            3 => Boundary::Paragraph,
            4 => Boundary::Line,
            5 => Boundary::Sentence,
            _ => Boundary::Section,
        });
    if s % 4 != 3 {
        atom = atom.with_label(AtomLabel {
            label: format!("item{}", s % 100),
            name: s.is_multiple_of(2).then(|| format!("n{}", s % 50)),
            signature: s
                .is_multiple_of(8)
                .then(|| format!("fn item{}(a: u32) -> Result<()>", s % 100)),
        });
    }
    if depth > 5 || range.len() < 2 || s % 9 == 8 {
        return atom;
    }
    let n_cuts = (seeds.next().unwrap_or(0) % 6) as usize;
    let mut cuts: Vec<usize> = (0..n_cuts)
        .map(|_| range.start + seeds.next().unwrap_or(0) as usize % range.len())
        .map(|c| crate::atom::floor_char_boundary(text, c))
        .filter(|&c| c > range.start && c < range.end)
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    if cuts.is_empty() {
        return atom;
    }
    let mut children = Vec::new();
    let mut at = range.start;
    for c in cuts.into_iter().chain(std::iter::once(range.end)) {
        children.push(build(text, at..c, depth + 1, seeds));
        at = c;
    }
    atom.with_children(children)
}

fn config(budget: usize, unit: Unit, overlap_pct: usize, headers: bool) -> ChunkConfig {
    let min = 8 * unit.max_char_size();
    let budget = budget.max(min);
    let overlap =
        if overlap_pct == 0 { 0 } else { (budget * overlap_pct / 100).min(budget / 2 - 1) };
    ChunkConfig::new(budget, unit).unwrap().with_overlap(overlap).unwrap().with_headers(headers)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn random_trees_keep_every_invariant(
        text in text(),
        seeds in prop::collection::vec(any::<u32>(), 1..64),
        budget in 8usize..600,
        unit in unit(),
        overlap_pct in prop_oneof![3 => Just(0usize), 1 => 1usize..40],
        headers in any::<bool>(),
        context in any::<bool>(),
        fill in any::<bool>(),
    ) {
        let root = random_tree(&text, &seeds);
        let mut tree = AtomTree::new("test", ContentKind::Code, root);
        tree.comment = CommentStyle::line("//");
        if context {
            tree.context = vec!["use std::io; use crate::db::Pool;".to_owned()];
        }
        let source = Source::new("src/some/path.rs", &text);
        let cuts = if fill { Cuts::Fill } else { Cuts::Balanced };
        let config = config(budget, unit, overlap_pct, headers).with_cuts(cuts);
        let chunks = pack(&source, &tree, &config);
        let errors = check_invariants(&source, &tree, &chunks, &config);
        let summary: Vec<String> = chunks.iter().map(|c| format!("{}..{} size {} header {:?}", c.byte_start, c.byte_end, c.tokens, c.header)).collect();
        prop_assert!(errors.is_empty(), "{}\n{}\n{:#?}", errors.join("\n"), summary.join("\n"), tree.root);
    }

    #[test]
    fn plain_text_keeps_every_invariant(text in text(), budget in 8usize..400, unit in unit()) {
        let tree = atomize_blocks(&text, "text", ContentKind::Prose);
        let source = Source::new("notes.txt", &text);
        let config = config(budget, unit, 0, true);
        let chunks = pack(&source, &tree, &config);
        let errors = check_invariants(&source, &tree, &chunks, &config);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
    }

    #[test]
    fn output_is_deterministic(text in text(), seeds in prop::collection::vec(any::<u32>(), 1..32)) {
        let tree = AtomTree::new("test", ContentKind::Code, random_tree(&text, &seeds));
        let source = Source::new("a.rs", &text);
        let config = ChunkConfig::new(120, Unit::Tokens(Tokenizer::O200k)).unwrap();
        prop_assert_eq!(pack(&source, &tree, &config), pack(&source, &tree, &config));
    }
}

#[test]
fn a_fitting_file_is_one_chunk() {
    let text = "fn a() {}\n\nfn b() {}\n";
    let tree = atomize_blocks(text, "text", ContentKind::Prose);
    let source = Source::new("a.txt", text);
    let config = ChunkConfig::new(100, Unit::Chars).unwrap();
    let chunks = pack(&source, &tree, &config);
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].text, text);
    assert_eq!(chunks[0].header, "# a.txt\n");
}

#[test]
fn oversize_atoms_are_opened_with_parts_in_headers() {
    // A "function" of 40 statement lines inside an impl, budget far below it.
    let mut text = String::from("impl Foo {\n");
    let open_len = text.len();
    let mut stmts = Vec::new();
    for i in 0..40 {
        let start = text.len();
        text.push_str(&format!("    let x{i} = compute({i});\n"));
        stmts
            .push(Atom::new(AtomKind::Block, start..text.len()).with_boundary(Boundary::Statement));
    }
    let close_start = text.len();
    text.push_str("}\n");
    let mut children = vec![Atom::gap(0..open_len)];
    children.extend(stmts);
    children.push(Atom::gap(close_start..text.len()));
    let root = Atom::new(AtomKind::Symbol, 0..text.len())
        .with_scope(true)
        .with_label(AtomLabel {
            label: "impl Foo".into(),
            name: Some("Foo".into()),
            signature: Some("impl Foo".into()),
        })
        .with_children(children);
    let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(vec![root]);
    let mut tree = AtomTree::new("rust", ContentKind::Code, root);
    tree.comment = CommentStyle::line("//");
    let source = Source::new("src/foo.rs", &text);
    let config = ChunkConfig::new(300, Unit::Chars).unwrap();
    let chunks = pack(&source, &tree, &config);
    crate::check::assert_invariants(&source, &tree, &chunks, &config);
    assert!(chunks.len() >= 4, "{} chunks", chunks.len());
    let n = chunks.len();
    assert_eq!(chunks[0].scope, Vec::<String>::new());
    assert_eq!(chunks[0].part.as_ref().map(|p| (p.index, p.count)), Some((1, n)));
    for (k, c) in chunks.iter().enumerate().skip(1) {
        assert_eq!(c.scope, vec!["impl Foo".to_owned()]);
        assert!(c.header.contains(&format!("(part {}/{n})", k + 1)), "{}", c.header);
        assert!(c.text.starts_with("    let "), "cut at statement starts: {:?}", c.text);
    }
}

/// A minified file is one line of 350 KB with no whitespace: every piece comes from the char
/// splitter, whose work must stay proportional to the piece it cuts.
#[test]
fn one_huge_line_splits_in_linear_time() {
    let text =
        format!("var a={};\n", (0..60_000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let source = Source::new("min.js", &text);
    let tree = atomize_blocks(&text, "javascript", ContentKind::Code);
    for unit in [Unit::Chars, Unit::Tokens(Tokenizer::O200k)] {
        let config = ChunkConfig::new(64, unit).unwrap();
        let chunks = pack(&source, &tree, &config);
        crate::check::assert_invariants(&source, &tree, &chunks, &config);
        // Each chunk is nearly full: a header of a few units and a body up to the budget.
        let body_units: usize = chunks.iter().map(|c| config.sizer().size(&c.text)).sum();
        assert!(body_units <= chunks.len() * 64);
        assert!(
            chunks.len() * 40 < body_units,
            "{unit}: {} chunks for {body_units} units",
            chunks.len()
        );
    }
}

/// Fragments that stress the pre-tokenizers' seams: line breaks of both kinds, white space
/// runs, slashes, contractions, digits and Unicode white space.
fn seam_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-zA-Z]{1,6}",
        3 => Just("\n".to_owned()),
        1 => Just("\r\n".to_owned()),
        1 => Just("\r".to_owned()),
        2 => "[ \t]{1,4}",
        1 => "[/*{}();'\"]{1,3}",
        1 => "'(s|t|re|ll|d|S)",
        1 => "[0-9]{1,5}",
        2 => "[a-z]{1,3}[0-9]{1,3}[a-zA-Z]{1,3}",
        1 => "[!-~] [!-~]",
        1 => "[\u{a0}\u{2028}\u{85}\u{3000}\u{300}]",
        1 => "[é中𝄞]{1,2}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// Every range of a text, with or without a header before it, measures through the prefix
    /// table exactly as its text does.
    #[test]
    fn range_sizes_are_exact(
        parts in prop::collection::vec(seam_fragment(), 0..80),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..24),
        unit in unit(),
    ) {
        let text = parts.concat();
        let source = Source::new("t", &text);
        let sizer = unit.sizer();
        // Every word seam a seam, as in a long line, and the seams of ordinary lines.
        let sizes = crate::ranges::RangeSizes::with_stride(&text, source.line_starts(), sizer, 0, 1);
        let plain = crate::ranges::RangeSizes::new(&text, source.line_starts(), sizer);
        let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        for (a, b) in cuts {
            let (a, b) = (a.get(&bounds), b.get(&bounds));
            let (a, b) = (*a.min(b), *a.max(b));
            for head in ["", "# in class A\n", "x\n\n", "/* y */"] {
                let whole = format!("{head}{}", &text[a..b]);
                prop_assert_eq!(sizes.size_after(head, a..b), sizer.size(&whole), "{:?}", whole);
                prop_assert_eq!(plain.size_after(head, a..b), sizer.size(&whole), "{:?}", whole);
            }
        }
    }
}

fn ascii_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-zA-Z]{1,8}",
        2 => "[ \t\n\r\x0b\x0c]{1,4}",
        2 => "[!-/:-@\\[-`{-~]{1,3}",
        1 => "'(s|t|re|ve|m|ll|d|S|T|RE|LL|x)",
        1 => "[0-9]{1,6}",
        1 => "[\x00-\x08\x0e-\x1f\x7f]",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(512)))]

    /// The hand-written ASCII pre-tokenizer splits exactly as bpe-openai's regex does.
    #[test]
    fn ascii_pre_tokens_match_the_regex(parts in prop::collection::vec(ascii_fragment(), 0..60)) {
        let text = parts.concat();
        prop_assert!(crate::pretok::same_as_bpe_openai(&text).is_ok(), "{:?}", crate::pretok::same_as_bpe_openai(&text));
    }
}

/// Line numbers counted the slow, obvious way: a line ends after `\n`, after `\r\n` and after
/// a lone `\r`.
fn naive_line_of(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    let breaks = (0..offset)
        .filter(|&i| bytes[i] == b'\n' || (bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count();
    1 + breaks
}

fn line_break_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,8}",
        2 => Just(" ".to_owned()),
        2 => Just("\r".to_owned()),
        2 => Just("\r\n".to_owned()),
        2 => Just("\n".to_owned()),
        1 => Just("\r\r".to_owned()),
        1 => "[é☃]{1,2}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    /// See: issue 13, "lone-CR files (classic Mac) report line 1 for every chunk". Files with
    /// `\r`, `\r\n`, `\n` or all three mixed keep every invariant, and every chunk's lines are
    /// the ones counted by hand.
    #[test]
    fn line_numbers_follow_every_line_break(
        parts in prop::collection::vec(line_break_fragment(), 0..200),
        seeds in prop::collection::vec(any::<u32>(), 1..32),
        budget in 8usize..200,
        unit in unit(),
        random in any::<bool>(),
    ) {
        let text = parts.concat();
        let tree = if random {
            AtomTree::new("test", ContentKind::Code, random_tree(&text, &seeds))
        } else {
            atomize_blocks(&text, "text", ContentKind::Prose)
        };
        let source = Source::new("mac.txt", &text);
        let config = config(budget, unit, 0, true);
        let chunks = pack(&source, &tree, &config);
        let errors = check_invariants(&source, &tree, &chunks, &config);
        prop_assert!(errors.is_empty(), "{}", errors.join("\n"));
        for c in &chunks {
            prop_assert_eq!(c.line_start, naive_line_of(&text, c.byte_start));
            prop_assert_eq!(c.line_end, naive_line_of(&text, c.byte_end - 1));
        }
    }
}

/// A lone-CR file over the budget is cut between lines, as a `\n` file is, not between words:
/// its line starts split sizes exactly, and its lines are the pieces.
#[test]
fn lone_cr_files_split_at_lines() {
    for eol in ["\r", "\r\n", "\n"] {
        let text: String =
            (0..120).map(|i| format!("line {i} of a classic Mac OS file{eol}")).collect();
        let source = Source::new("mac.txt", &text);
        for tree in [
            atomize_blocks(&text, "text", ContentKind::Prose),
            AtomTree::new("text", ContentKind::Prose, Atom::new(AtomKind::Block, 0..text.len())),
        ] {
            for unit in [Unit::Chars, Unit::Tokens(Tokenizer::O200k)] {
                let config = ChunkConfig::new(200, unit).unwrap();
                let chunks = pack(&source, &tree, &config);
                crate::check::assert_invariants(&source, &tree, &chunks, &config);
                assert!(chunks.len() > 4, "{eol:?} {unit}: {} chunks", chunks.len());
                for c in &chunks {
                    assert!(c.text.starts_with("line "), "{eol:?} {unit}: {:?}", c.text);
                    assert!(c.text.ends_with(eol), "{eol:?} {unit}: {:?}", c.text);
                    let first: usize = c.text[5..].split(' ').next().unwrap().parse().unwrap();
                    assert_eq!(c.line_start, first + 1, "{eol:?} {unit}");
                    assert_eq!(c.line_end - c.line_start + 1, c.text.matches(eol).count());
                }
            }
        }
    }
}

/// See: issue 13, "a long Markdown paragraph without spaces (a base64 blob) runs at 0.3 MB/s
/// in tokens". A one-line blob inside a section: chunks past the hundredth part used to come
/// out over the budget by their wider part number, and each repair left a crumb.
#[test]
fn a_long_blob_in_a_section_fills_its_chunks() {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let blob: String = (0..120_000)
        .map(|_| {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            B64[(x >> 58) as usize] as char
        })
        .collect();
    let text = format!("# Title\n\n{blob}\n");
    let section = Atom::new(AtomKind::Section, 0..text.len())
        .with_scope(true)
        .with_label(AtomLabel { label: "# Title".into(), name: None, signature: None })
        .with_children(vec![
            Atom::new(AtomKind::Block, 0..9),
            Atom::new(AtomKind::Block, 9..text.len()).with_boundary(Boundary::Paragraph),
        ]);
    let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(vec![section]);
    let mut tree = AtomTree::new("markdown", ContentKind::Prose, root);
    tree.comment = CommentStyle::block("<!--", "-->");
    let source = Source::new("blob.md", &text);
    for unit in [Unit::Chars, Unit::Tokens(Tokenizer::O200k)] {
        let config = ChunkConfig::new(200, unit).unwrap();
        let chunks = pack(&source, &tree, &config);
        crate::check::assert_invariants(&source, &tree, &chunks, &config);
        assert!(
            chunks.len() > 150,
            "{unit}: {} chunks, enough for three-digit parts",
            chunks.len()
        );
        // In tokens, a body that starts with `/` merges with the header's last pre-token
        // (`-->\n/`): char pieces are cut measuring the header's last line before them, else
        // about one chunk in 64 came out a token over and its repair left a one-char crumb.
        let crumbs = chunks.iter().filter(|c| c.tokens < 100).count();
        assert!(crumbs <= 2, "{unit}: {crumbs} of {} chunks are half empty", chunks.len());
    }
}

/// See: issue 13, "a Markdown file named `a --> b.md` ends the header comment early". Through
/// the packer, every header line stays one comment, and the checker finds the scope named in
/// the form the header writes it.
#[test]
fn hostile_names_stay_inside_header_comments() {
    let body: String = (0..30).map(|i| format!("Line {i} of the section body.\n")).collect();
    let text = format!("# a --> b\n\n{body}");
    let lines: Vec<Atom> = crate::pack::line_ranges(&text, 0..text.len())
        .into_iter()
        .map(|r| Atom::new(AtomKind::Block, r))
        .collect();
    let section = Atom::new(AtomKind::Section, 0..text.len())
        .with_scope(true)
        .with_label(AtomLabel { label: "# a --> b <!-- c".into(), name: None, signature: None })
        .with_children(lines);
    let root = Atom::new(AtomKind::Block, 0..text.len()).with_children(vec![section]);
    let mut tree = AtomTree::new("markdown", ContentKind::Prose, root);
    tree.comment = CommentStyle::block("<!--", "-->");
    let source = Source::new("docs/a --> b.md", &text);
    let config = ChunkConfig::new(200, Unit::Chars).unwrap();
    let chunks = pack(&source, &tree, &config);
    crate::check::assert_invariants(&source, &tree, &chunks, &config);
    assert!(chunks.len() > 3);
    assert!(chunks[1].header.contains("<!-- in # a - -> b < !-- c"), "{}", chunks[1].header);
    for c in &chunks {
        for line in c.header.lines() {
            assert!(line.starts_with("<!-- ") && line.ends_with(" -->"), "{line:?}");
            assert_eq!(line.matches("-->").count(), 1, "{line:?}");
        }
    }
}
