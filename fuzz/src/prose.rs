//! The body shared by the prose and data targets: one format, one input.

use cleave_code::ParseContext;
use cleave_prose::{Format, annotate, atomize_prose};

use crate::{Options, check, text};

/// Atomizes the text of `data` (after its option bytes) as `format`, packs it, checks every
/// invariant, then annotates the chunks with provenance and classification (which must not
/// panic either).
pub fn run(format: Format, data: &[u8]) {
    let Some((opts, rest)) = Options::parse(data) else { return };
    let Some(text) = text(rest) else { return };
    let mut ctx = ParseContext::new();
    let tree = atomize_prose(format, text, &mut ctx);
    let path = format!("docs/fuzz.{}", extension(format));
    let source = cleave_core::Source::new(&path, text);
    let mut chunks = cleave_core::pack(&source, &tree, &opts.config);
    check(&path, text, &tree, &chunks, &opts.config);
    // Annotation only reads the tree and the chunks; it runs last so a panic in it is told
    // apart from an invariant violation by the message.
    annotate(&tree, &source, &mut chunks);
}

/// Chooses one of `formats` by the byte after the option bytes and runs the rest as it.
pub fn run_one_of(formats: &[Format], data: &[u8]) {
    if data.len() <= crate::OPTION_BYTES || formats.is_empty() {
        return;
    }
    let pick = usize::from(data[crate::OPTION_BYTES]) % formats.len();
    // The format byte is taken out and the options kept in front, so that `run` reads the
    // same layout as every other target.
    let mut input = Vec::with_capacity(data.len() - 1);
    input.extend_from_slice(&data[..crate::OPTION_BYTES]);
    input.extend_from_slice(&data[crate::OPTION_BYTES + 1..]);
    run(formats[pick], &input);
}

fn extension(format: Format) -> &'static str {
    match format {
        Format::Markdown => "md",
        Format::Latex => "tex",
        Format::Text => "txt",
        Format::Rst => "rst",
        Format::Json => "json",
        Format::Yaml => "yaml",
        Format::Toml => "toml",
    }
}
