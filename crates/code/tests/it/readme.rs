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
