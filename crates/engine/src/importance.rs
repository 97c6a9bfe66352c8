//! Which outline entries matter most to a reader with little room: what `outline --budget`
//! keeps when the whole outline does not fit. An entry weighs more when it is public (by the
//! conventions of its language), near the top of its file, outside tests, and named in other
//! files (a symbol) or long (a section); every kept entry comes after the entries that enclose
//! it, so a kept method always shows its class. Files share the room: each further entry of
//! one file counts for less.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;

use cleave_core::Chunk;

use crate::outline::OutlineEntry;

/// One file's part in the ranking.
#[derive(Clone, Copy)]
pub struct RankFile<'a> {
    /// Relative path (test folders and files weigh less).
    pub path: &'a str,
    /// Language name, for its visibility conventions.
    pub language: Option<&'a str>,
    /// The file's outline entries, in reading order.
    pub entries: &'a [OutlineEntry],
    /// The file's chunks, whose bodies are searched for names defined elsewhere.
    pub chunks: &'a [Chunk],
}

/// `(file, entry)` positions of every entry, most important first; each entry comes after
/// those that enclose it. Deterministic: ties go to the earlier file, then the earlier entry.
pub fn ranked_entries(files: &[RankFile<'_>]) -> Vec<(usize, usize)> {
    let references = references(files);
    let parents: Vec<Vec<Option<usize>>> = files.iter().map(|f| parents(f.entries)).collect();
    let mut scored: Vec<(f64, usize, usize)> = Vec::new();
    for (f, file) in files.iter().enumerate() {
        let parents = &parents[f];
        let test_file = is_test_path(file.path);
        let mut visibility: Vec<f64> = Vec::with_capacity(file.entries.len());
        let mut in_tests: Vec<bool> = Vec::with_capacity(file.entries.len());
        let mut own: Vec<(f64, usize)> = Vec::with_capacity(file.entries.len());
        for (e, entry) in file.entries.iter().enumerate() {
            let parent = parents[e].map(|p| &file.entries[p]);
            // Inside a private item nothing is more than unknown.
            let inherited = parents[e].map_or(1.0, |p| visibility[p].max(VISIBILITY_UNKNOWN));
            let vis = visibility_of(file.language, entry, parent).min(inherited);
            visibility.push(vis);
            // A test file, or a test module inside a file (Rust's `mod tests`).
            let tests =
                test_file || parents[e].is_some_and(|p| in_tests[p]) || is_test_module(entry);
            in_tests.push(tests);
            let depth = if entry.kind == "section" { 0.5 } else { 0.6 };
            // A symbol weighs by how widely it is named; a section by how much of its
            // document it holds (in chunks), so that the long chapters are mapped before the
            // first short ones. (Length counts half as much as references: beside code, a long
            // page of docs should not crowd out the API.)
            let reach = if entry.kind == "section" {
                0.5 * (entry.chunks.len() as f64).ln_1p()
            } else {
                references.get(short_name(entry)).copied().unwrap_or(0.0).ln_1p()
            };
            let tests = if tests { TESTS } else { 1.0 };
            let weight = depth_weight(depth, entry.depth) * vis * tests * (1.0 + reach);
            own.push((weight, e));
        }
        // The n-th entry of a file by weight counts 1 / (1 + n/4): a file with hundreds of
        // public functions does not take all the room from the others.
        own.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (n, (weight, e)) in own.into_iter().enumerate() {
            scored.push((weight / (1.0 + n as f64 / 4.0), f, e));
        }
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut placed: Vec<Vec<bool>> = files.iter().map(|f| vec![false; f.entries.len()]).collect();
    let mut order = Vec::with_capacity(scored.len());
    let mut chain = Vec::new();
    for (_, f, e) in scored {
        // The entry and the enclosing entries not yet placed, outermost first.
        let mut at = Some(e);
        while let Some(i) = at.filter(|&i| !placed[f][i]) {
            chain.push(i);
            at = parents[f][i];
        }
        for &i in chain.iter().rev() {
            placed[f][i] = true;
            order.push((f, i));
        }
        chain.clear();
    }
    order
}

/// Which entries the first `k` of `ranked` are, among the files `shown` lets through: a mark
/// per entry of each file (`entries[f]` entries in file `f`).
pub fn first_ranked(
    entries: &[usize],
    ranked: &[(usize, usize)],
    k: usize,
    shown: impl Fn(usize) -> bool,
) -> Vec<Vec<bool>> {
    let mut keep: Vec<Vec<bool>> = entries.iter().map(|&n| vec![false; n]).collect();
    for &(f, e) in ranked.iter().filter(|(f, _)| shown(*f)).take(k) {
        if let Some(mark) = keep.get_mut(f).and_then(|m| m.get_mut(e)) {
            *mark = true;
        }
    }
    keep
}

/// What a budgeted outline leaves out first, as its notes say.
pub const LEFT_OUT_FIRST: &str = "nested, private, in tests, named in no other file, short";

/// The largest `k` in `0..=n` for which `fits(k)` holds, given that it holds for every `k`
/// below one that does (as the size of the first `k` ranked entries grows with `k`). `fits(0)`
/// is not asked: the caller has checked it, and 0 is the answer when nothing larger fits.
pub fn largest_fitting(n: usize, mut fits: impl FnMut(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    if fits(n) {
        return n;
    }
    // fits(lo) is assumed for lo = 0 (the caller's floor); fits(hi) is false.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The weight of an entry in a test file or test module.
const TESTS: f64 = 0.4;

const VISIBILITY_PUBLIC: f64 = 1.0;
const VISIBILITY_UNKNOWN: f64 = 0.6;
const VISIBILITY_PRIVATE: f64 = 0.25;

fn depth_weight(base: f64, depth: usize) -> f64 {
    base.powi(i32::try_from(depth).unwrap_or(i32::MAX))
}

/// The enclosing entry of each entry: the nearest one before it that is less deep (one level
/// up, as outlines nest).
fn parents(entries: &[OutlineEntry]) -> Vec<Option<usize>> {
    let mut open: Vec<usize> = Vec::new();
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            while open.last().is_some_and(|&p| entries[p].depth >= e.depth) {
                open.pop();
            }
            let parent = open.last().copied();
            open.push(i);
            parent
        })
        .collect()
}

/// The last identifier of an entry's qualified name: `route` of `Flask.route`.
fn short_name(entry: &OutlineEntry) -> &str {
    entry
        .name
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .find(|s| !s.is_empty())
        .unwrap_or(&entry.name)
}

/// How public an entry reads by its language's conventions: 1 public, 0.6 unknown, 0.25
/// private. Sections are public.
fn visibility_of(
    language: Option<&str>,
    entry: &OutlineEntry,
    parent: Option<&OutlineEntry>,
) -> f64 {
    if entry.kind == "section" {
        return VISIBILITY_PUBLIC;
    }
    let name = short_name(entry);
    let head = entry.signature.as_deref().unwrap_or(&entry.label).trim_start();
    let words: Vec<&str> = head
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .take_while(|w| !w.eq_ignore_ascii_case(name))
        .collect();
    let has = |word: &str| words.contains(&word);
    let underscore = name.starts_with('_') && !(name.starts_with("__") && name.ends_with("__"));
    match language.unwrap_or("") {
        "rust" => {
            // Items of a trait, or of a trait's impl, are as public as the trait; an inherent
            // impl's items without `pub` are private.
            let of_trait = parent.is_some_and(|p| {
                let label = p.signature.as_deref().unwrap_or(&p.label).trim_start();
                label.starts_with("trait")
                    || label.starts_with("pub trait")
                    || label.starts_with("impl") && label.contains(" for ")
            });
            if head.starts_with("pub") {
                VISIBILITY_PUBLIC
            } else if of_trait || head.starts_with("impl") || head.starts_with("trait") {
                VISIBILITY_UNKNOWN
            } else {
                VISIBILITY_PRIVATE
            }
        }
        "go" => {
            if name.chars().next().is_some_and(char::is_uppercase) {
                VISIBILITY_PUBLIC
            } else {
                VISIBILITY_PRIVATE
            }
        }
        "python" => {
            if underscore {
                VISIBILITY_PRIVATE
            } else if name.starts_with("__") || name.starts_with("test") {
                VISIBILITY_UNKNOWN
            } else {
                VISIBILITY_PUBLIC
            }
        }
        "javascript" | "typescript" | "tsx" | "vue" | "svelte" => {
            if has("private") || name.starts_with('#') || underscore {
                VISIBILITY_PRIVATE
            } else if has("export") || has("public") {
                VISIBILITY_PUBLIC
            } else {
                VISIBILITY_UNKNOWN
            }
        }
        "c" | "cpp" => {
            if has("static") && entry.depth == 0 || has("private") {
                VISIBILITY_PRIVATE
            } else if has("public") {
                VISIBILITY_PUBLIC
            } else {
                VISIBILITY_UNKNOWN
            }
        }
        _ => {
            if has("private") || has("fileprivate") || underscore {
                VISIBILITY_PRIVATE
            } else if has("public") || has("open") || has("export") {
                VISIBILITY_PUBLIC
            } else {
                VISIBILITY_UNKNOWN
            }
        }
    }
}

/// Whether an entry is a test module of its own (`mod tests` in Rust).
fn is_test_module(entry: &OutlineEntry) -> bool {
    let label = entry.signature.as_deref().unwrap_or(&entry.label).trim_start();
    label.starts_with("mod ") && matches!(short_name(entry), "tests" | "test")
}

/// Whether a path lies in a test folder or names a test file.
fn is_test_path(path: &str) -> bool {
    path.split('/').any(|part| {
        let stem = part.split('.').next().unwrap_or(part);
        matches!(stem, "test" | "tests" | "spec" | "specs" | "__tests__" | "testdata")
            || stem.starts_with("test_")
            || stem.ends_with("_test")
            || stem.ends_with("_spec")
            || part.contains(".test.")
            || part.contains(".spec.")
    })
}

/// For each name that some symbol entry defines: in how many files it is named, beyond the
/// files that define it, per defining file (a name defined in many files, such as `new` or
/// `get`, says little about any one of them). Files are read in parallel.
fn references<'a>(files: &[RankFile<'a>]) -> HashMap<&'a str, f64> {
    let mut defined: HashMap<&'a str, Vec<usize>> = HashMap::new();
    for (f, file) in files.iter().enumerate() {
        // Names of one or two characters (`A`, `T`, `id`) are words of prose too often to
        // count.
        for entry in file.entries.iter().filter(|e| e.kind != "section") {
            let name = short_name(entry);
            let defs = defined.entry(name).or_default();
            if name.chars().count() > 2 && defs.last() != Some(&f) {
                defs.push(f);
            }
        }
    }
    defined.retain(|_, defs| !defs.is_empty());
    if files.len() < 2 || defined.is_empty() {
        return HashMap::new();
    }
    // Per file, the defined names it mentions and does not define itself.
    let named_in: Vec<Vec<&'a str>> = files
        .par_iter()
        .enumerate()
        .map(|(f, file)| {
            let mut seen: HashSet<&'a str> = HashSet::new();
            for chunk in file.chunks {
                for word in words(&chunk.text) {
                    if let Some((&name, defs)) = defined.get_key_value(word)
                        && !defs.contains(&f)
                    {
                        seen.insert(name);
                    }
                }
            }
            seen.into_iter().collect()
        })
        .collect();
    let mut named: HashMap<&'a str, usize> = HashMap::new();
    for name in named_in.into_iter().flatten() {
        *named.entry(name).or_default() += 1;
    }
    named.into_iter().map(|(name, n)| (name, n as f64 / defined[name].len() as f64)).collect()
}

/// The identifier-like words of a text: runs of letters, digits, `_` and `$`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Settings, chunk_bytes};
    use cleave_core::{ChunkConfig, Unit};

    fn chunked(path: &str, text: &str) -> crate::FileResult {
        let settings =
            Settings::new(ChunkConfig::new(400, Unit::Chars).expect("config")).with_outline(true);
        chunk_bytes(path, text.as_bytes().to_vec(), &settings)
    }

    fn names(files: &[crate::FileResult], order: &[(usize, usize)]) -> Vec<String> {
        order
            .iter()
            .map(|&(f, e)| files[f].outline.as_ref().expect("outline")[e].name.clone())
            .collect()
    }

    fn rank(files: &[crate::FileResult]) -> Vec<(usize, usize)> {
        let input: Vec<RankFile<'_>> = files.iter().map(crate::FileResult::rank_file).collect();
        ranked_entries(&input)
    }

    #[test]
    fn public_and_referenced_names_come_before_private_and_test_ones() {
        let files = [
            chunked(
                "pkg/client.py",
                "class Client:\n    def send(self, request):\n        return self._retry(request)\n\n    def _retry(self, request):\n        return request\n\n\ndef _helper():\n    pass\n\n\ndef build_request(url):\n    return url\n",
            ),
            chunked(
                "pkg/api.py",
                "from .client import Client\n\n\ndef get(url):\n    return Client().send(url)\n",
            ),
            chunked("tests/test_client.py", "def test_send():\n    assert Client().send(1) == 1\n"),
        ];
        let order = rank(&files);
        let got = names(&files, &order);
        assert_eq!(got.len(), 7, "{got:?}");
        let at = |n: &str| got.iter().position(|g| g == n).expect(n);
        // Named in two other files, public, top level.
        assert_eq!(at("Client"), 0, "{got:?}");
        assert!(at("build_request") < at("_helper"), "{got:?}");
        assert!(at("Client.send") < at("Client._retry"), "{got:?}");
        assert!(at("get") < at("test_send"), "{got:?}");
        // Every entry comes after the entry that encloses it.
        assert!(at("Client") < at("Client.send") && at("Client") < at("Client._retry"));
    }

    #[test]
    fn a_method_that_outranks_its_class_still_comes_after_it() {
        // A private class whose one method every other file calls, and a test module.
        let files = [
            chunked(
                "pkg/registry.py",
                "class _Registry:\n    def register_plugin(self, name):\n        return name\n\n\ndef _helper():\n    pass\n",
            ),
            chunked("pkg/a.py", "def a():\n    return REG.register_plugin('a')\n"),
            chunked("pkg/b.py", "def b():\n    return REG.register_plugin('b')\n"),
            chunked("pkg/c.py", "def c():\n    return REG.register_plugin('c')\n"),
            chunked(
                "src/lib.rs",
                "pub fn run() {}\n\n#[cfg(test)]\nmod tests {\n    pub fn run_twice() {}\n}\n",
            ),
        ];
        let got = names(&files, &rank(&files));
        let at = |n: &str| got.iter().position(|g| g == n).expect(n);
        // The method weighs more than its private class (it is named in three other files)...
        assert!(at("_Registry.register_plugin") < at("_helper"), "{got:?}");
        // ...and is placed right after it.
        assert_eq!(at("_Registry") + 1, at("_Registry.register_plugin"), "{got:?}");
        // A test module and what it holds weigh as tests do.
        assert!(at("run") < at("tests") && at("tests") < at("tests::run_twice"), "{got:?}");
        assert!(at("a") < at("tests"), "{got:?}");
    }

    #[test]
    fn a_nested_entry_brings_its_enclosing_entries() {
        let text = "# Guide\n\nIntro.\n\n## Install\n\nText.\n\n### Linux\n\nMore.\n";
        let files = [chunked("guide.md", text)];
        let order = rank(&files);
        let got = names(&files, &order);
        assert_eq!(got, ["Guide", "Guide > Install", "Guide > Install > Linux"]);
    }

    #[test]
    fn the_sections_of_a_long_chapter_come_before_those_of_a_short_one() {
        let mut text = String::from("# Short\n\n## Short one\n\nA line.\n\n# Long\n\n");
        for i in 0..3 {
            text.push_str(&format!("## Long {i}\n\n"));
            for _ in 0..8 {
                text.push_str(
                    "A paragraph long enough to need a chunk of its own, more or less.\n\n",
                );
            }
        }
        let files = [chunked("book.md", &text)];
        let got = names(&files, &rank(&files));
        let at = |n: &str| got.iter().position(|g| g == n).expect(n);
        assert!(at("Long > Long 0") < at("Short > Short one"), "{got:?}");
        assert!(at("Long") < at("Short"), "{got:?}");
    }

    #[test]
    fn visibility_follows_each_language() {
        let entry = |name: &str, signature: &str, depth: usize| OutlineEntry {
            depth,
            kind: "symbol".into(),
            label: signature.into(),
            name: name.into(),
            number: None,
            signature: Some(signature.into()),
            byte_start: 0,
            byte_end: 0,
            line_start: 1,
            line_end: 1,
            page: None,
            page_end: None,
            chunks: Vec::new(),
        };
        let vis = |lang: &str, name: &str, sig: &str| {
            visibility_of(Some(lang), &entry(name, sig, 0), None)
        };
        assert_eq!(vis("rust", "parse", "pub fn parse(s: &str)"), VISIBILITY_PUBLIC);
        assert_eq!(vis("rust", "parse", "fn parse(s: &str)"), VISIBILITY_PRIVATE);
        assert_eq!(vis("go", "Parse", "func Parse(s string)"), VISIBILITY_PUBLIC);
        assert_eq!(vis("go", "parse", "func parse(s string)"), VISIBILITY_PRIVATE);
        assert_eq!(vis("python", "_parse", "def _parse(s):"), VISIBILITY_PRIVATE);
        assert_eq!(vis("python", "__init__", "def __init__(self):"), VISIBILITY_UNKNOWN);
        assert_eq!(
            vis("typescript", "parse", "export function parse(s: string)"),
            VISIBILITY_PUBLIC
        );
        assert_eq!(vis("java", "parse", "private static int parse(String s)"), VISIBILITY_PRIVATE);
        assert_eq!(vis("java", "parse", "public static int parse(String s)"), VISIBILITY_PUBLIC);
        assert_eq!(vis("c", "parse", "static int parse(const char *s)"), VISIBILITY_PRIVATE);
        let in_impl = |parent: &str| {
            let method = entry("fmt", "fn fmt(&self)", 1);
            visibility_of(Some("rust"), &method, Some(&entry("X", parent, 0)))
        };
        assert_eq!(in_impl("impl fmt::Display for Span"), VISIBILITY_UNKNOWN);
        assert_eq!(in_impl("impl Span"), VISIBILITY_PRIVATE);
        // A parameter named like a keyword does not count: only words before the name do.
        assert_eq!(vis("kotlin", "open", "fun open(private: Int)"), VISIBILITY_UNKNOWN);
    }

    #[test]
    fn largest_fitting_finds_the_edge() {
        for edge in 0..=9 {
            assert_eq!(largest_fitting(9, |k| k <= edge), edge);
        }
        assert_eq!(largest_fitting(0, |k| k == 0), 0);
    }

    #[test]
    fn test_paths_are_told_apart() {
        for p in ["tests/a.py", "pkg/test_a.py", "a_test.go", "src/__tests__/x.ts", "x.spec.ts"] {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/testing.rs", "pkg/contest.py", "latest/x.go", "attest.rb"] {
            assert!(!is_test_path(p), "{p}");
        }
    }
}
