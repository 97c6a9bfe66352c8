//! The README's languages table is generated from the registry: this test fails when it is
//! stale, and `CLEAVE_UPDATE_README=1` writes the table in.

use cleave_code::{Language, languages};

const START: &str = "<!-- languages: generated -->\n";
const END: &str = "<!-- /languages -->";

fn row(l: &Language) -> String {
    let ticks = |items: &[&str], prefix: &str| {
        items.iter().map(|i| format!("`{prefix}{i}`")).collect::<Vec<_>>().join(" ")
    };
    let comment = if l.comment_end.is_empty() {
        format!("`{}`", l.comment)
    } else {
        format!("`{} {}`", l.comment, l.comment_end)
    };
    let parsed = match (l.feature, l.has_grammar()) {
        (Some(feature), _) => format!("tree-sitter, feature `{feature}`"),
        (None, true) => "tree-sitter, always".to_owned(),
        (None, false) if l.has_scanner() => "scanner (statements), always".to_owned(),
        (None, false) => "no grammar: blank-line blocks".to_owned(),
    };
    let mut extensions = ticks(l.extensions, ".");
    if !l.shared_extensions.is_empty() {
        extensions.push_str(&format!(
            " ({} when a line of code starts with {})",
            ticks(l.shared_extensions, "."),
            ticks(&l.markers[..l.markers.len().min(3)], "")
        ));
    }
    format!(
        "| {} | {extensions} | {} | {comment} | {parsed} |\n",
        l.name,
        ticks(l.interpreters, "")
    )
}

fn table() -> String {
    let mut out = String::from(
        "| language | extensions | shebang | header comment | parsed |\n| --- | --- | --- | --- | --- |\n",
    );
    for l in languages() {
        out.push_str(&row(l));
    }
    out
}

#[test]
fn readme_languages_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let start = readme.find(START).expect("the README has the languages markers") + START.len();
    let end = start + readme[start..].find(END).expect("the closing marker");
    let want = table();
    if readme[start..end] == want {
        return;
    }
    if std::env::var_os("CLEAVE_UPDATE_README").is_some() {
        let updated = format!("{}{want}{}", &readme[..start], &readme[end..]);
        std::fs::write(path, updated).expect("README.md written");
        return;
    }
    panic!(
        "README.md's languages table is stale; run with CLEAVE_UPDATE_README=1, or paste:\n{want}"
    );
}

/// The names in one `NAME=(a b c)` line of a shell script.
fn shell_list<'s>(script: &'s str, name: &str) -> Vec<&'s str> {
    let start = format!("\n{name}=(");
    let at =
        script.find(&start).unwrap_or_else(|| panic!("fuzz/seeds.sh sets {name}")) + start.len();
    let end = at + script[at..].find(')').expect("the list closes");
    script[at..end].split_whitespace().collect()
}

/// fuzz/seeds.sh gives each seed the byte that draws its language in the code targets, which
/// index `languages()` filtered by structure (`code`) or by grammar (`code_sections`): its
/// lists must be those, or seeds land on the wrong language and some languages get none.
#[test]
fn fuzz_seed_languages_match_the_registry() {
    // A build with a language group off draws from fewer languages; the seeds are written for
    // the default build, where every group is on.
    if languages().iter().any(|l| l.feature.is_some() && !l.has_grammar()) {
        return;
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/seeds.sh");
    let script = std::fs::read_to_string(path).expect("fuzz/seeds.sh");
    let names = |keep: fn(&Language) -> bool| -> Vec<&str> {
        languages().iter().filter(|l| keep(l)).map(|l| l.name).collect()
    };
    assert_eq!(shell_list(&script, "STRUCTURED"), names(Language::has_structure));
    assert_eq!(shell_list(&script, "PARSED"), names(Language::has_grammar));
    // The code targets draw five bits' worth of languages at most (code_sections' low bits).
    assert!(names(Language::has_grammar).len() <= 32);
}
