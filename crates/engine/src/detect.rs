//! What a file is: one registry of code languages, prose and data formats, shebangs and
//! special file names, consulted in that order.

use cleave_code::Language;
use cleave_core::ContentKind;
use cleave_prose::Format;

/// What a file is, by name and first line.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Source code in a language cleave parses.
    Code(&'static Language),
    /// A document or data format.
    Prose(Format),
    /// Anything else that is text: blank-line blocks.
    Text,
}

impl Kind {
    /// The name records carry as `language`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Code(lang) => lang.name,
            Kind::Prose(format) => format.name(),
            Kind::Text => "text",
        }
    }

    /// Code, prose or data.
    pub fn content(self) -> ContentKind {
        match self {
            Kind::Code(_) => ContentKind::Code,
            Kind::Prose(format) => format.content(),
            Kind::Text => ContentKind::Prose,
        }
    }
}

/// Whether a chunk of this language (a record's `language`) carries its header inside its
/// text when written as a file of its own: not for a format without comments (JSON), whose
/// header the record alone keeps. Every language and format with comments does.
pub fn header_in_text(language: &str) -> bool {
    Format::from_name(language).is_none_or(Format::has_comments)
}

/// File names (compared without case) that are prose whatever their extension, sorted.
const PROSE_NAMES: &[&str] = &["LICENSE", "README"];

/// The kind of the file at `rel` whose text starts with `text`: by extension (code, then
/// prose and data), then by shebang, then by special name.
pub fn detect(rel: &str, text: &str) -> Kind {
    if let Some(lang) = cleave_code::language_for_file(rel, text) {
        return Kind::Code(lang);
    }
    if let Some(format) = cleave_prose::format_for_path(rel) {
        return Kind::Prose(format);
    }
    let first_line = text.lines().next().unwrap_or("");
    if let Some(lang) = cleave_code::language_for_shebang(first_line) {
        return Kind::Code(lang);
    }
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if PROSE_NAMES.iter().any(|n| name.eq_ignore_ascii_case(n)) {
        return Kind::Prose(Format::Text);
    }
    Kind::Text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_names_are_sorted_and_unique() {
        assert!(PROSE_NAMES.windows(2).all(|w| w[0] < w[1]), "{PROSE_NAMES:?}");
    }

    #[test]
    fn extension_then_shebang_then_name() {
        assert_eq!(detect("src/a.rs", "").name(), "rust");
        assert_eq!(detect("docs/a.md", "").name(), "markdown");
        assert_eq!(detect("bin/run", "#!/usr/bin/env python3\nprint(1)\n").name(), "python");
        assert!(matches!(detect("README", "hello"), Kind::Prose(Format::Text)));
        assert!(matches!(detect("license", "MIT"), Kind::Prose(Format::Text)));
        assert!(matches!(detect("notes", "hello"), Kind::Text));
        // The extension wins over a shebang.
        assert_eq!(detect("a.md", "#!/bin/python\n").name(), "markdown");
    }

    /// Every code file reads as its own language, with or without a grammar: `kind: code`,
    /// and headers in the language's comments.
    #[test]
    fn code_without_a_grammar_is_still_code() {
        for (rel, text, name) in [
            ("src/x.c", "", "c"),
            ("style/site.css", "", "css"),
            ("db/schema.sql", "", "sql"),
            ("web/index.html", "", "html"),
            ("configure", "#!/bin/sh\necho\n", "bash"),
            ("bin/rake", "#!/usr/bin/env ruby\n", "ruby"),
            ("include/widget.h", "#pragma once\nclass Widget {};\n", "cpp"),
            ("include/list.h", "struct list;\n", "c"),
        ] {
            let kind = detect(rel, text);
            assert_eq!(kind.name(), name, "{rel}");
            assert_eq!(kind.content(), ContentKind::Code, "{rel}");
        }
    }

    /// A file of a language without a grammar is chunked, as code, with a header its own
    /// language reads as a comment.
    #[test]
    fn headers_of_grammarless_code_are_its_comments() {
        use crate::file::{Context, Settings, chunk_text};
        let config = cleave_core::ChunkConfig::new(60, cleave_core::Unit::Chars).unwrap();
        let settings = Settings::new(config);
        let text = "SELECT a\n  FROM t;\n\nSELECT b\n  FROM u\n  WHERE x > 0;\n";
        let res = chunk_text("db/report.sql", text, &settings, &mut Context::new());
        assert_eq!(res.outcome, crate::Outcome::Chunked);
        assert_eq!(res.language.as_deref(), Some("sql"));
        assert!(res.chunks.len() > 1);
        for chunk in &res.chunks {
            assert_eq!(chunk.kind, ContentKind::Code);
            assert!(chunk.header.lines().all(|l| l.starts_with("-- ")));
        }
    }

    /// A build without the C group (`--no-default-features`): C files are still C, chunked
    /// as text with a fallback that names the feature to turn on.
    #[cfg(not(feature = "lang-c"))]
    #[test]
    fn a_group_left_out_falls_back_naming_its_feature() {
        use crate::file::{Context, Settings, chunk_text};
        let config = cleave_core::ChunkConfig::new(200, cleave_core::Unit::Chars).unwrap();
        let text = "int main(void)\n{\n    return 0;\n}\n";
        let res = chunk_text("src/main.c", text, &Settings::new(config), &mut Context::new());
        let crate::Outcome::Fallback { reason } = &res.outcome else { panic!("{:?}", res.outcome) };
        assert!(reason.contains("lang-c"), "{reason}");
        assert_eq!(res.language.as_deref(), Some("c"));
        assert!(res.chunks.iter().all(|c| c.kind == ContentKind::Code));
    }
}
