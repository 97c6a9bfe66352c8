//! Behaviour of the code atomizer on small inputs: structure, labels, macro bodies, parse
//! errors, oversize items, and bad input. Every test that chunks checks the invariants.

use cleave_code::{
    ParseContext, SECTION_BYTES, atomize_code, atomize_code_in_pieces, atomize_code_in_sections,
    language_by_name, language_for_path, languages, member_run_count, parse_only, section_starts,
};
use cleave_core::{
    Atom, AtomKind, AtomTree, Chunk, ChunkConfig, Severity, Source, Unit, assert_invariants, pack,
};
use proptest::prelude::*;

fn atomize(lang: &str, text: &str) -> AtomTree {
    let tree = atomize_code(language_by_name(lang).unwrap(), text, &mut ParseContext::new());
    tree.root.validate(text).unwrap();
    tree
}

fn chunk(path: &str, lang: &str, text: &str, budget: usize) -> (AtomTree, Vec<Chunk>) {
    let tree = atomize(lang, text);
    let source = Source::new(path, text);
    let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
    let chunks = pack(&source, &tree, &config);
    assert_invariants(&source, &tree, &chunks, &config);
    (tree, chunks)
}

/// Qualified names of every symbol, in order.
fn symbols(tree: &AtomTree) -> Vec<String> {
    fn walk(atom: &Atom, prefix: &mut Vec<String>, sep: &str, out: &mut Vec<String>) {
        let name = atom.name().map(str::to_owned);
        if let Some(n) = &name {
            prefix.push(n.clone());
            out.push(prefix.join(sep));
        }
        for child in &atom.children {
            walk(child, prefix, sep, out);
        }
        if name.is_some() {
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    walk(&tree.root, &mut Vec::new(), tree.separator, &mut out);
    out
}

fn find<'a>(atom: &'a Atom, label: &str) -> Option<&'a Atom> {
    if atom.label_text() == Some(label) {
        return Some(atom);
    }
    atom.children.iter().find_map(|c| find(c, label))
}

#[test]
fn doc_comments_and_attributes_belong_to_the_item() {
    let text = "use std::fmt;\n\n/// Docs.\n#[derive(Debug)]\npub struct A {\n    x: u8,\n}\n";
    let tree = atomize("rust", text);
    let a = find(&tree.root, "struct A").unwrap();
    assert!(text[a.range.clone()].starts_with("/// Docs.\n#[derive(Debug)]\npub struct A"));
    assert_eq!(a.label.as_ref().unwrap().signature.as_deref(), Some("pub struct A"));
    assert_eq!(tree.context, ["imports: std::fmt"]);
}

#[test]
fn signatures_stop_before_comments_above_the_body() {
    let py = "def save(self, fields=None):\n    # Ensure the pk is set.\n    # Then save.\n    return fields\n";
    let tree = atomize("python", py);
    let save = find(&tree.root, "def save").unwrap();
    assert_eq!(
        save.label.as_ref().unwrap().signature.as_deref(),
        Some("def save(self, fields=None):")
    );
    let java = "class A {\n    void run()\n    // Runs.\n    /* Really. */\n    {\n    }\n}\n";
    let tree = atomize("java", java);
    let run = find(&tree.root, "void run").unwrap();
    assert_eq!(run.label.as_ref().unwrap().signature.as_deref(), Some("void run()"));
}

#[test]
fn decorators_javadoc_and_jsdoc_belong_to_the_item() {
    let py = "import os\n\n\n@app.route('/')\n@login_required\ndef index():\n    return 'hi'\n";
    let tree = atomize("python", py);
    let index = find(&tree.root, "def index").unwrap();
    assert!(py[index.range.clone()].starts_with("@app.route"));
    let java = "class A {\n    /** Docs. */\n    @Override\n    public String toString() {\n        return \"\";\n    }\n}\n";
    let tree = atomize("java", java);
    let m = find(&tree.root, "String toString").unwrap();
    assert!(java[m.range.clone()].starts_with("    /** Docs. */"));
    assert_eq!(m.label.as_ref().unwrap().signature.as_deref(), Some("public String toString()"));
    let ts =
        "/** Adds. */\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n";
    let tree = atomize("typescript", ts);
    let add = find(&tree.root, "function add").unwrap();
    assert_eq!(add.range, 0..ts.len());
}

/// A doc comment belongs to its item across blank lines (as javadoc and rustdoc read it); a plain
/// comment does not, and neither does a doc comment that opens the file (a file header).
#[test]
fn doc_comments_reach_across_blank_lines_plain_comments_do_not() {
    let java =
        "package p;\n\n/**\n * A loader.\n */\n\npublic final class Loader {\n    int x;\n}\n";
    let tree = atomize("java", java);
    let loader = find(&tree.root, "class Loader").unwrap();
    assert!(java[loader.range.clone()].starts_with("/**\n * A loader."));
    let rust = "use std::fmt;\n\n/// Docs.\n\npub fn f() {}\n\n// A note.\n\npub fn g() {}\n";
    let tree = atomize("rust", rust);
    assert!(rust[find(&tree.root, "fn f").unwrap().range.clone()].starts_with("/// Docs."));
    assert!(rust[find(&tree.root, "fn g").unwrap().range.clone()].starts_with("pub fn g"));
    let ts = "/** @license MIT */\n\nexport class A {\n  x = 1;\n}\n";
    let tree = atomize("typescript", ts);
    assert!(ts[find(&tree.root, "class A").unwrap().range.clone()].starts_with("export class A"));
}

/// A file on one line, without a final newline, still has its items and keeps a trailing
/// comment on its line (the walk used to enter only multi-line nodes, the root included).
#[test]
fn a_file_on_one_line_has_its_items() {
    let tree = atomize("rust", "fn a() {}");
    assert_eq!(symbols(&tree), ["a"]);
    let tree = atomize("typescript", "export const f = (x: number) => x + 1;");
    assert_eq!(symbols(&tree), ["f"]);
    let text = "x = 1  # one";
    let tree = atomize("python", text);
    assert_eq!(symbols(&tree), ["x"]);
    let x = find(&tree.root, "x").unwrap();
    assert_eq!(x.range, 0..text.len(), "the comment stays with its line");
}

#[test]
fn trailing_comments_stay_on_their_line() {
    let pad = "    let padding = \"a statement long enough that the function is opened into statements\";\n";
    let text = format!("fn a() {{\n    let x = 1; // one\n{pad}{pad}{pad}    let y = 2;\n}}\n");
    let text = text.as_str();
    let tree = atomize("rust", text);
    let f = find(&tree.root, "fn a").unwrap();
    let stmt = f.children.iter().find(|c| text[c.range.clone()].contains("let x")).unwrap();
    assert_eq!(&text[stmt.range.clone()], "    let x = 1; // one\n");
}

#[test]
fn scopes_in_each_languages_words() {
    let go = "package s\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n";
    let tree = atomize("go", go);
    assert!(find(&tree.root, "func (s *Server) Start").is_some());
    assert_eq!(symbols(&tree), ["Server.Start"]);
    let py = "class A:\n    class B:\n        def f(self):\n            def g():\n                pass\n";
    assert_eq!(symbols(&atomize("python", py)), ["A", "A.B", "A.B.f", "A.B.f.g"]);
    let ts = "namespace N {\n  export class C {\n    m() {}\n  }\n}\nconst o = {\n  f() {},\n  g: () => 1,\n};\n";
    assert_eq!(symbols(&atomize("typescript", ts)), ["N", "N.C", "N.C.m", "o", "o.f", "o.g"]);
    let rs =
        "impl Display for Token {\n    fn fmt(&self) {}\n}\nmod parser {\n    fn parse() {}\n}\n";
    let tree = atomize("rust", rs);
    assert!(find(&tree.root, "impl Display for Token").is_some());
    assert_eq!(symbols(&tree), ["Token", "Token::fmt", "parser", "parser::parse"]);
}

#[test]
fn item_macro_bodies_are_items() {
    let text = "cfg_rt! {\n    /// Spawns.\n    pub fn spawn() {\n        todo()\n    }\n\n    pub struct Handle;\n}\n";
    let tree = atomize("rust", text);
    assert_eq!(symbols(&tree), ["spawn", "Handle"]);
    let spawn = find(&tree.root, "fn spawn").unwrap();
    assert!(text[spawn.range.clone()].starts_with("    /// Spawns."));
    // A macro whose body is no items stays a plain block.
    let tree = atomize("rust", "vec_of! {\n    1, 2, 3,\n    4, 5\n}\n");
    assert!(symbols(&tree).is_empty());
}

#[test]
fn boundaries_rank_items_over_members_over_statements() {
    let long = "\"a string long enough that the function is opened into its statements, \
                it takes several of them, and then some more words\"";
    let text = format!(
        "fn a() {{\n    let x = {long};\n    let y = {long};\n\n    x + y\n}}\n\nfn b() {{}}\n"
    );
    let tree = atomize("rust", &text);
    let b = find(&tree.root, "fn b").unwrap();
    assert_eq!(b.boundary, cleave_core::Boundary::Item);
    let a = find(&tree.root, "fn a").unwrap();
    let kinds: Vec<_> =
        a.children.iter().filter(|c| c.kind == AtomKind::Block).map(|c| c.boundary).collect();
    use cleave_core::Boundary::{Line, Paragraph, Statement};
    assert_eq!(kinds, [Line, Statement, Paragraph]);
}

#[test]
fn parse_errors_degrade_locally_and_are_reported() {
    let text = "export function before(): number {\n  return 1;\n}\n\nlet x = {{{ ]] )) (( ;;\nfoo bar baz\n\nexport function after(): number {\n  return 2;\n}\n";
    let (tree, _) = chunk("e.ts", "typescript", text, 80);
    let syms = symbols(&tree);
    // tree-sitter swallows `after` into the error node; parsing the region again from its
    // next blank-line block finds it.
    assert_eq!(syms, ["before", "after"]);
    let d = tree.diagnostics.iter().find(|d| d.severity == Severity::Degraded).unwrap();
    assert!(d.message.contains("under error nodes, 27.4% (37 bytes) fell back"), "{}", d.message);
}

#[test]
fn variance_annotations_keep_the_rest_of_the_file() {
    let text = "export function before() {\n  return 1;\n}\n\ninterface Producer<out T> {\n  produce(): T;\n}\n\nexport function after() {\n  return 2;\n}\n";
    let (tree, _) = chunk("v.ts", "typescript", text, 60);
    let syms = symbols(&tree);
    assert!(syms.contains(&"before".to_owned()) && syms.contains(&"after".to_owned()), "{syms:?}");
}

#[test]
fn oversize_functions_become_parts_with_signature_and_scope() {
    let body: String =
        (0..60).map(|i| format!("    let v{i} = compute({i}, \"some text\");\n")).collect();
    let text = format!(
        "impl Engine {{\n    pub fn run(&self, input: &str) -> usize {{\n{body}        0\n    }}\n}}\n"
    );
    let (_, chunks) = chunk("src/engine.rs", "rust", &text, 600);
    assert!(chunks.len() > 3);
    for c in &chunks[1..] {
        assert!(c.header.contains("// in impl Engine > fn run (part "), "{}", c.header);
        assert!(c.header.contains("pub fn run(&self, input: &str) -> usize"), "{}", c.header);
        assert_eq!(c.scope, ["impl Engine", "fn run"]);
    }
}

#[test]
fn a_huge_literal_falls_back_to_lines_within_its_atom() {
    let items: String = (0..400).map(|i| format!("    {i},\n")).collect();
    let text = format!("const TABLE: [u32; 400] = [\n{items}];\n\nfn after() {{}}\n");
    let (_, chunks) = chunk("t.rs", "rust", &text, 300);
    let after = chunks.iter().find(|c| c.text.contains("fn after")).unwrap();
    assert!(after.symbols.contains(&"after".to_owned()));
    assert!(
        chunks
            .iter()
            .filter(|c| c.text.contains("    1"))
            .all(|c| c.scope == ["const TABLE"] || c.byte_start == 0)
    );
}

#[test]
fn headers_use_the_languages_comment_and_imports() {
    let text = format!("import os\nimport sys\n\n\ndef f():\n{}", "    x = 1\n".repeat(300));
    // Imports get about 4 % of the budget: at 1000 chars the 19-char import line fits.
    let (_, chunks) = chunk("pkg/mod.py", "python", &text, 1000);
    assert!(chunks.len() > 1);
    assert!(
        chunks[1].header.starts_with("# pkg/mod.py\n# in def f (part 2/"),
        "{}",
        chunks[1].header
    );
    assert!(chunks[1].header.contains("# imports: os, sys\n"), "{}", chunks[1].header);
}

#[test]
fn deep_nesting_does_not_overflow() {
    let text = format!("x = {}1{}\n", "[".repeat(5000), "]".repeat(5000));
    chunk("deep.py", "python", &text, 200);
    let text = format!("let x = {}1{};\n", "(".repeat(5000), ")".repeat(5000));
    chunk("deep.js", "javascript", &text, 200);
}

#[test]
fn parse_context_is_send() {
    fn is_send<T: Send>() {}
    is_send::<ParseContext>();
}

/// Whole-file and sectioned parses of `text` give the same atom tree; returns how many
/// sections the smallest length made.
fn assert_sections_change_nothing(path: &str, text: &str) -> usize {
    let language = language_for_path(path).unwrap();
    let mut ctx = ParseContext::new();
    let whole = atomize_code_in_sections(language, text, &mut ctx, usize::MAX);
    for len in [1, 80, 400, 2_000] {
        let cut = atomize_code_in_sections(language, text, &mut ctx, len);
        assert_eq!(cut.root, whole.root, "{path}: sections of {len} bytes");
        assert_eq!(cut.context, whole.context, "{path}: sections of {len} bytes");
        assert_eq!(
            format!("{:?}", cut.diagnostics),
            format!("{:?}", whole.diagnostics),
            "{path}: sections of {len} bytes"
        );
    }
    section_starts(text.as_bytes(), 1).len()
}

/// Large files are parsed in sections cut between top-level items; the atoms are those of the
/// whole parse, on every code fixture cut as finely as it goes.
#[test]
fn sections_change_no_atom() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/code");
    let (mut files, mut sections) = (0, 0);
    for dir in std::fs::read_dir(root).unwrap() {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let path = path.to_string_lossy();
            if language_for_path(&path).is_some() {
                sections += assert_sections_change_nothing(&path, &text);
                files += 1;
            }
        }
    }
    assert!(files >= 7, "{files} fixture files");
    assert!(sections >= 3 * files, "{sections} sections in {files} files");
}

/// Blank lines and first-column lines inside strings, comments and nested bodies look like cuts
/// between items; the section's parse error shows they are not, and nothing changes.
#[test]
fn sections_are_not_fooled_by_strings_and_nesting() {
    let cases = [
        (
            "a.rs",
            "fn a() {}\n\nconst S: &str = r#\"\n}\n\nfn b() {}\n\"#;\n\nfn c() {\n    x();\n}\n\nfn d() {}\n",
        ),
        ("a.rs", "/* open\n}\n\nfn b() {}\n*/\nfn c() {}\n\nfn d() {}\n"),
        ("a.rs", "mod m {\nfn a() {\n}\n\nfn b() {}\n}\n\nfn c() {}\n"),
        (
            "a.py",
            "\"\"\"Doc.\n    indented\n\nfirst column\n\"\"\"\n\ndef f():\n    pass\n\ndef g():\n    pass\n",
        ),
        ("a.py", "def f():\n    x = (\n        1,\n\n2)\n\ndef g():\n    pass\n"),
        ("a.js", "const t = `\n}\n\nfunction b() {}\n`;\n\nfunction c() {\n}\n\nfunction d() {}\n"),
        (
            "a.go",
            "package p\n\nfunc a() {\n}\n\n// B does b.\nfunc b() {\n}\n\nvar x = `\n}\n\nfunc c() {}\n`\n",
        ),
        ("A.java", "class A {\nvoid a() {\n}\n\nvoid b() {}\n}\n\nclass B {}\n"),
        ("A.java", "class A {\n}\n\n/** Doc\n    more. */\n\nclass B {\n}\n\nclass C {}\n"),
        ("a.ts", "interface X<out T> {\n}\n\nfunction f() {\n}\n\nfunction g() {}\n"),
    ];
    for (path, text) in cases {
        let sections = assert_sections_change_nothing(path, text);
        assert!(sections >= 2, "{path}: {sections} sections");
    }
}

/// A section that is one large item (a class of many methods) is parsed in runs of its
/// members, each with the item's head and tail; the atoms are those of the whole parse, also
/// where a member's doc comment, decorator or string looks like a place to cut.
#[test]
fn large_items_are_parsed_in_runs_of_members() {
    let cases = [
        (
            "A.java",
            "package p;\n\nimport java.util.List;\n\n/** A. */\npublic class A {\n  private int x;\n\n  /** Doc\n      more. */\n\n  void a() {\n    x();\n  }\n\n  @Override\n  public String toString() {\n    return \"}\\n\\n  void c() {\";\n  }\n\n  static class B {\n    void b() {\n    }\n\n    void c() {}\n  }\n\n  void d() {\n  }\n}\n",
        ),
        (
            "a.py",
            "import os\n\n\nclass A:\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n\n    x = 1\n\n    @property\n    def a(self):\n        s = \"\"\"\n\n    def fake(self):\n        \"\"\"\n        return s\n\n    def b(self):\n        def inner():\n            pass\n\n        return inner\n\n    # A comment.\n\n    def c(self):\n        pass\n",
        ),
        (
            "a.rs",
            "use std::fmt;\n\nimpl fmt::Display for T {\n    /// Doc.\n    #[inline]\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"}\\n\\nfn x\")\n    }\n\n    make!(\n        a,\n    );\n\n    fn g() {\n    }\n}\n",
        ),
        (
            "a.ts",
            "export class A {\n  @Input() x = 1;\n\n  @HostListener('click')\n  onClick() {\n    return `\n\n  y() {`;\n  }\n\n  get z() {\n    return 1;\n  }\n}\n",
        ),
    ];
    for (path, text) in cases {
        assert!(member_run_count(text, 1) >= 2, "{path}: no member runs");
        assert_sections_change_nothing(path, text);
    }
    // Large enough for atomize_code and parse_only: one class of many methods.
    let java = language_by_name("java").unwrap();
    let method = "  /** Gets. */\n  public int get(int i) {\n    return i + 1;\n  }\n\n";
    let text = format!("class Big {{\n{}}}\n", method.repeat(SECTION_BYTES * 3 / method.len()));
    assert_eq!(section_starts(text.as_bytes(), SECTION_BYTES).len(), 1);
    assert!(member_run_count(&text, SECTION_BYTES) >= 3);
    let mut ctx = ParseContext::new();
    let whole = atomize_code_in_sections(java, &text, &mut ctx, usize::MAX);
    assert_eq!(atomize_code(java, &text, &mut ctx).root, whole.root);
    assert_eq!(parse_only(java, &text, &mut ctx), Some(false));
}

/// A file past `SECTION_BYTES` is parsed in sections by `atomize_code` and by `parse_only`,
/// with the atoms of the whole parse; an error is reported wherever it is.
#[test]
fn large_files_are_parsed_in_sections() {
    let rust = language_by_name("rust").unwrap();
    let item = "/// Adds.\n#[inline]\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\n";
    let text = item.repeat(SECTION_BYTES * 3 / item.len());
    assert!(section_starts(text.as_bytes(), SECTION_BYTES).len() >= 3);
    let mut ctx = ParseContext::new();
    let whole = atomize_code_in_sections(rust, &text, &mut ctx, usize::MAX);
    let cut = atomize_code(rust, &text, &mut ctx);
    assert_eq!(cut.root, whole.root);
    assert!(cut.diagnostics.is_empty(), "{:?}", cut.diagnostics);
    assert_eq!(parse_only(rust, &text, &mut ctx), Some(false));

    let broken = format!("{text}fn broken( {{\n");
    assert_eq!(parse_only(rust, &broken, &mut ctx), Some(true));
    let tree = atomize_code(rust, &broken, &mut ctx);
    assert_eq!(tree.root, atomize_code_in_sections(rust, &broken, &mut ctx, usize::MAX).root);
    assert_eq!(tree.diagnostics.len(), 1, "{:?}", tree.diagnostics);
}

/// How many pieces the "looks minified" diagnostic of `tree` reports; 0 without it.
fn pieces_reported(tree: &AtomTree) -> usize {
    let Some(d) = tree.diagnostics.iter().find(|d| d.message.starts_with("looks minified")) else {
        return 0;
    };
    assert_eq!(d.severity, Severity::Degraded);
    let (_, rest) = d.message.split_once(" parsed in ").expect("the count follows");
    rest.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a count")
}

/// See: issue 13. Minified code (one long line, no blank line between items) past the piece
/// bound is parsed in pieces of at most that length, cut at statement ends: the tree is valid
/// and chunks within the invariants, the symbols are those of the whole parse (each function
/// is a statement of its own), and a diagnostic says why.
#[test]
fn minified_code_is_parsed_in_bounded_pieces() {
    let js = language_by_name("javascript").unwrap();
    let text: String = (0..2_000)
        .map(|i| format!("function f{i}(a,b){{var s=\"}};{{\";return a+b*{i}}}var v{i}=[1,2];"))
        .collect();
    assert!(!text.contains('\n') && text.len() > 80_000);
    let bound = 8 << 10;
    let mut ctx = ParseContext::new();
    let tree = atomize_code_in_pieces(js, &text, &mut ctx, SECTION_BYTES, bound);
    tree.root.validate(&text).unwrap();
    assert_eq!(tree.root.range, 0..text.len());
    let pieces = pieces_reported(&tree);
    assert!(pieces >= text.len() / bound && pieces <= text.len() / (bound / 2) + 1, "{pieces}");
    // No cut fell inside a function or its string: no parse error is reported.
    assert_eq!(tree.diagnostics.len(), 1, "{:?}", tree.diagnostics);
    let whole = atomize_code_in_sections(js, &text, &mut ctx, usize::MAX);
    assert_eq!(pieces_reported(&whole), 0);
    assert_eq!(symbols(&tree), symbols(&whole));
    assert_eq!(symbols(&tree).len(), 2_000);
    let source = Source::new("bundle.min.js", &text);
    let config = ChunkConfig::new(2_000, Unit::Chars).unwrap();
    assert_invariants(&source, &tree, &pack(&source, &tree, &config), &config);
    // Under the bound, nothing changes.
    let small = &text[..text.find("function f90(").unwrap()];
    let tree = atomize_code_in_pieces(js, small, &mut ctx, SECTION_BYTES, bound);
    assert_eq!(tree.root, atomize_code_in_sections(js, small, &mut ctx, usize::MAX).root);
    assert_eq!(pieces_reported(&tree), 0);
}

/// Generated code of many lines with no blank line, and a line with no statement end at all:
/// pieces at line starts outside blocks keep Python's symbols; a cut where no candidate is
/// still bounds the pieces and keeps the tree valid.
#[test]
fn generated_code_is_parsed_in_bounded_pieces() {
    let python = language_by_name("python").unwrap();
    let text: String = (0..1_500)
        .map(|i| format!("def f{i}(x):\n    s = \"(\"  # [\n    return x * {i}\nK{i} = {{1: 2}}\n"))
        .collect();
    let mut ctx = ParseContext::new();
    let bound = 4 << 10;
    let tree = atomize_code_in_pieces(python, &text, &mut ctx, SECTION_BYTES, bound);
    tree.root.validate(&text).unwrap();
    assert!(pieces_reported(&tree) >= text.len() / bound);
    assert_eq!(tree.diagnostics.len(), 1, "{:?}", tree.diagnostics);
    let whole = atomize_code_in_sections(python, &text, &mut ctx, usize::MAX);
    assert_eq!(symbols(&tree), symbols(&whole));

    // One array literal of 40 KB: nowhere to cut but inside it.
    let ts = language_by_name("typescript").unwrap();
    let text = format!("export const table = [{}];\n", "12345,".repeat(7_000));
    let tree = atomize_code_in_pieces(ts, &text, &mut ctx, SECTION_BYTES, bound);
    tree.root.validate(&text).unwrap();
    assert!(pieces_reported(&tree) >= text.len() / bound);
    let source = Source::new("table.ts", &text);
    let config = ChunkConfig::new(500, Unit::Chars).unwrap();
    assert_invariants(&source, &tree, &pack(&source, &tree, &config), &config);
    assert_eq!(parse_only(ts, &text, &mut ctx), Some(false), "under PIECE_BYTES: one parse");
}

/// See: issue 13. A file with lone CR line ends (classic Mac) gives the atoms, labels,
/// symbols and context of the same file with LF line ends, in the same byte ranges; CRLF and
/// mixed line ends are read the same way.
#[test]
fn lone_cr_files_atomize_as_lf_files() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/code");
    for path in ["python/app.py", "rust/items.rs", "rust/macros.rs", "javascript/api.js"] {
        let lf = std::fs::read_to_string(format!("{root}/{path}")).unwrap();
        let language = language_for_path(path).unwrap();
        let mut ctx = ParseContext::new();
        let want = atomize_code(language, &lf, &mut ctx);
        assert!(symbols(&want).len() > 3, "{path}");
        let cr = lf.replace('\n', "\r");
        let got = atomize_code(language, &cr, &mut ctx);
        got.root.validate(&cr).unwrap();
        assert_eq!(got.root, want.root, "{path}");
        assert_eq!(symbols(&got), symbols(&want), "{path}");
        assert_eq!(got.context, want.context, "{path}");
        assert!(got.diagnostics.iter().any(|d| d.message.starts_with("lone CR")), "{path}");
        // Every other line end CRLF, the rest lone CR: the LF file's symbols again.
        let mut mixed = String::new();
        for (i, line) in lf.split_inclusive('\n').enumerate() {
            let body = line.strip_suffix('\n').unwrap_or(line);
            mixed.push_str(body);
            if line.ends_with('\n') {
                mixed.push_str(if i % 2 == 0 { "\r\n" } else { "\r" });
            }
        }
        let got = atomize_code(language, &mixed, &mut ctx);
        got.root.validate(&mixed).unwrap();
        assert_eq!(symbols(&got), symbols(&want), "{path}: mixed");
        let source = Source::new(path, &mixed);
        let config = ChunkConfig::new(300, Unit::Chars).unwrap();
        assert_invariants(&source, &got, &pack(&source, &got, &config), &config);
    }
}

/// Cases per property: `PROPTEST_CASES` (as `just fuzz` sets it), else 64.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Sections never change the atoms, whatever the text.
    #[test]
    fn sections_never_change_the_atoms(
        text in "(fn a\\(\\) \\{|\\}|\\)|def f\\(\\):|    x = 1|\"|'|/\\*|\\*/|#|//|r#\"|\n|\n\n){0,60}",
        lang_idx in 0usize..languages().len(),
    ) {
        let language = &languages()[lang_idx];
        let mut ctx = ParseContext::new();
        let whole = atomize_code_in_sections(language, &text, &mut ctx, usize::MAX);
        let cut = atomize_code_in_sections(language, &text, &mut ctx, 1);
        prop_assert_eq!(cut.root, whole.root);
        prop_assert_eq!(cut.context, whole.context);
    }

    /// Runs of members never change the atoms: one item of random member-like lines, cut at
    /// every candidate.
    #[test]
    fn member_runs_never_change_the_atoms(
        (path, text) in prop_oneof![
            "(  void a\\(\\) \\{\n|  \\}\n|\n|  /\\*\\* d \\*/\n|  int x;\n|    x\\(\\);\n|  @A\n|  String s = \"\\}\";\n|  class B \\{\n|    \\}\n|  // c\n){0,40}"
                .prop_map(|body| ("A.java", format!("class A {{\n{body}}}\n"))),
            "(    def f\\(self\\):\n|        pass\n|\n|    # c\n|    x = 1\n|    @d\n|        \"\"\"\n|        y = \\(\n|        \\)\n){0,40}"
                .prop_map(|body| ("a.py", format!("class A:\n{body}    z = 2\n"))),
            "(    fn f\\(\\) \\{\n|    \\}\n|\n|    /// d\n|    #\\[a\\]\n|        x\\(\\);\n|    m!\\(\n|    \\);\n|    const C: u8 = 1;\n){0,40}"
                .prop_map(|body| ("a.rs", format!("impl A {{\n{body}}}\n"))),
        ],
    ) {
        let language = language_for_path(path).unwrap();
        let mut ctx = ParseContext::new();
        let whole = atomize_code_in_sections(language, &text, &mut ctx, usize::MAX);
        for len in [1, 40] {
            let cut = atomize_code_in_sections(language, &text, &mut ctx, len);
            prop_assert_eq!(&cut.root, &whole.root, "{} bytes", len);
            prop_assert_eq!(&cut.context, &whole.context);
        }
    }

    /// SQL's scanner on token soup (quotes, dollar tags, comments, delimiters, blocks) and on
    /// arbitrary text: a valid tree, chunks within the invariants, no panic.
    #[test]
    fn sql_scanner_never_panics_and_keeps_invariants(
        text in prop_oneof![
            r#"('|''|"|`|\\|\\g|\$\$|\$a\$|\$1|--|#|/\*|\*/|/\*!40101 |;|\(|\)|,|\),\(|BEGIN |END |CASE |END IF|CREATE TRIGGER t |CREATE FUNCTION f\(\) |INSERT INTO t VALUES |DELIMITER // |DELIMITER ;|//|E'|é|\n|\n\n|GO\n| |x){0,120}"#,
            any::<String>(),
        ],
        budget in 40usize..400,
    ) {
        let sql = language_by_name("sql").unwrap();
        let tree = atomize_code(sql, &text, &mut ParseContext::new());
        prop_assert!(tree.root.validate(&text).is_ok());
        let source = Source::new("f.sql", &text);
        let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
        let chunks = pack(&source, &tree, &config);
        assert_invariants(&source, &tree, &chunks, &config);
    }

    /// Any text, in any language, atomizes to a valid tree and chunks within the invariants.
    #[test]
    fn never_panics_and_keeps_invariants(
        text in "[a-z{}()\\[\\];:,.=<>#@/*'\"\\n \t]{0,400}",
        lang_idx in 0usize..languages().len(),
        budget in 40usize..400,
    ) {
        let language = &languages()[lang_idx];
        let tree = atomize_code(language, &text, &mut ParseContext::new());
        prop_assert!(tree.root.validate(&text).is_ok());
        let source = Source::new("f", &text);
        let config = ChunkConfig::new(budget, Unit::Chars).unwrap();
        let chunks = pack(&source, &tree, &config);
        assert_invariants(&source, &tree, &chunks, &config);
    }
}

/// tokio's `yield_now` in miniature: the function fits the budget, but not with its long doc
/// comment. The comment is cut from the function (it ends the chunk before); the function,
/// attributes and all, stays whole in the next.
#[test]
fn a_long_doc_comment_is_cut_from_its_item_never_the_item() {
    let doc: String = (0..24)
        .map(|i| format!("/// Line {i} of a long explanation of what yielding means here.\n"))
        .collect();
    let item = "#[inline]\n#[must_use]\npub async fn yield_now() {\n    let mut yielded = false;\n    poll_fn(|cx| {\n        if yielded {\n            return Poll::Ready(());\n        }\n        yielded = true;\n        Poll::Pending\n    })\n    .await\n}\n";
    let text = format!("use std::task::Poll;\n\n{doc}{item}");
    let (tree, chunks) = chunk("src/yield_now.rs", "rust", &text, 400);
    // The symbol keeps its doc comment; its item proper starts at the attributes.
    let symbol = find(&tree.root, "fn yield_now").expect("symbol");
    let proper = symbol.proper().expect("the doc comment is detached");
    assert_eq!(&text[proper.range.clone()], item);
    let start = text.find("#[inline]").unwrap();
    let holder = chunks
        .iter()
        .find(|c| c.byte_start <= start && c.byte_end >= start + item.len())
        .unwrap_or_else(|| panic!("the item is split: {chunks:#?}"));
    assert_eq!(holder.scope, ["fn yield_now"]);
    // A short doc comment stays with its item when both fit.
    let short = format!("/// Yields.\n{item}");
    let (_, chunks) = chunk("src/y.rs", "rust", &short, 400);
    assert_eq!(chunks.len(), 1);
}

/// Integrity over header: a function that fits the budget only without its header is kept
/// whole with the header it leaves room for, down to none; the record still names its scope.
#[test]
fn a_unit_that_fits_alone_is_whole_and_its_header_gives_way() {
    let body: String = (0..9).map(|i| format!("        let v{i} = self.compute({i});\n")).collect();
    let method = format!("    fn long_method(&self) -> u32 {{\n{body}        0\n    }}\n");
    let text = format!("impl Engine {{\n{method}\n    fn other(&self) {{}}\n}}\n");
    let budget = method.chars().count() + 2;
    let (_, chunks) = chunk("src/engine.rs", "rust", &text, budget);
    let start = text.find("    fn long_method").unwrap();
    let holder = chunks
        .iter()
        .find(|c| c.byte_start <= start && c.byte_end >= start + method.len())
        .unwrap_or_else(|| panic!("the method is split: {chunks:#?}"));
    assert!(holder.header.chars().count() <= 2, "{:?}", holder.header);
    assert_eq!(holder.scope, ["impl Engine"]);
}

/// A 5 MB `INSERT … VALUES` on one line (a dump's table) is one statement that opens at its
/// row tuples: every chunk starts at a tuple or a value, never inside a string, and the scan
/// and the packing stay linear.
#[test]
fn a_huge_insert_splits_at_its_tuples() {
    let mut text = String::from("-- Users.\nINSERT INTO users (id, name, bio) VALUES ");
    let mut i = 0;
    while text.len() < 5 << 20 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!("({i},'user; {i}','likes ''tea'', (x),(y) and long walks')"));
        i += 1;
    }
    text.push_str(";\nSELECT 1;\n");
    let started = std::time::Instant::now();
    let (tree, chunks) = chunk("dump.sql", "sql", &text, 8000);
    let labels: Vec<_> = tree.root.children.iter().filter_map(|a| a.label_text()).collect();
    assert_eq!(labels, ["INSERT INTO users", "SELECT"]);
    let inside: Vec<_> = chunks.iter().filter(|c| c.scope == ["INSERT INTO users"]).collect();
    assert!(inside.len() > 600, "{} chunks", inside.len());
    for c in &inside {
        assert!(c.text.starts_with('('), "{:?}", &c.text[..40]);
        assert!(c.header.contains("INSERT INTO users (id, name, bio) VALUES"), "{}", c.header);
    }
    assert!(started.elapsed().as_secs() < 120, "{:?}", started.elapsed());
}

#[test]
fn an_error_node_of_many_unnamed_children_is_walked_once() {
    // 40,000 parentheses with nothing inside: one ERROR node of unnamed children. Looking
    // ahead from each child for the next named one made this quadratic (6 s at this size,
    // 43 s at 200 KB); the lookups are now one pass.
    let text = format!("{}{}\n", "(".repeat(20_000), ")".repeat(20_000));
    // `chunk` asserts the invariants (lossless, within budget, integrity).
    let (_, chunks) = chunk("nested.js", "javascript", &text, 400);
    assert!(chunks.len() >= 100);
    assert_eq!(chunks.iter().map(|c| c.text.len()).sum::<usize>(), text.len());
}
