//! `language=`: chunking a text as a named language.
//!
//! The engine picks a file's language from its name (extension, then shebang, then special
//! names) and has no call that takes a language instead. So a language asked for by name is
//! reached through a name that the engine's detection maps to it: the path as given when it
//! already selects that language, else the path (or `<text>` when there is none) with the
//! language's first extension appended. Records then carry that name. The names come from
//! the code registry (`cleave_engine::languages`) and the engine's prose and data formats, and
//! every name is checked against the engine's own detection before it is used.

use pyo3::PyResult;
use pyo3::exceptions::PyValueError;

/// Prose and data formats by record name, with an extension the engine maps to each.
const FORMATS: &[(&str, &str)] = &[
    ("json", "json"),
    ("latex", "tex"),
    ("markdown", "md"),
    ("rst", "rst"),
    ("text", "txt"),
    ("toml", "toml"),
    ("yaml", "yaml"),
];

/// The name given to a text without a path when a language is asked for.
const NAMELESS: &str = "<text>";

/// Every language name `language=` accepts, sorted.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = cleave_engine::languages().iter().map(|l| l.name).collect();
    names.extend(FORMATS.iter().map(|(name, _)| *name));
    names.sort_unstable();
    names.dedup();
    names
}

fn extension(language: &str) -> Option<&'static str> {
    if let Some(lang) =
        cleave_engine::languages().iter().find(|l| l.name.eq_ignore_ascii_case(language))
    {
        return lang.extensions.first().copied();
    }
    FORMATS.iter().find(|(name, _)| name.eq_ignore_ascii_case(language)).map(|(_, ext)| *ext)
}

/// The name to chunk a text under: `path` (or no name at all) without a language, else a
/// name that the engine detects as `language`.
pub fn name_for(path: Option<&str>, language: Option<&str>) -> PyResult<String> {
    let Some(language) = language else {
        return Ok(path.unwrap_or("").to_owned());
    };
    let unknown = || {
        PyValueError::new_err(format!(
            "unknown language {language:?}: expected one of {}",
            names().join(", ")
        ))
    };
    let ext = extension(language).ok_or_else(unknown)?;
    let wanted = language.to_ascii_lowercase();
    if let Some(path) = path
        && cleave_engine::detect(path, "").name() == wanted
    {
        return Ok(path.to_owned());
    }
    let name = format!("{}.{ext}", path.unwrap_or(NAMELESS));
    // The registry and the detection are separate tables: a name that detects as another
    // language would chunk the text silently wrong, so it is refused instead.
    if cleave_engine::detect(&name, "").name() != wanted {
        return Err(unknown());
    }
    Ok(name)
}
