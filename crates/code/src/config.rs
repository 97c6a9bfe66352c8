//! Compiled language configurations: a grammar and its `atoms.scm` query, with capture indices
//! resolved once against the closed vocabulary of `grammars/README.md`.

use std::fmt;

use tree_sitter::Query;

/// What an atom capture says about the item it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// A free function.
    Function,
    /// A method or associated function.
    Method,
    /// A class.
    Class,
    /// A struct or union.
    Struct,
    /// An enum.
    Enum,
    /// A trait.
    Trait,
    /// An impl block.
    Impl,
    /// An interface.
    Interface,
    /// A type alias or type definition.
    Type,
    /// A module.
    Module,
    /// A namespace.
    Namespace,
    /// A constant.
    Constant,
    /// A static.
    Static,
    /// A variable declaration worth naming (`let api = { … }`).
    Variable,
    /// A field of a class.
    Field,
    /// A macro definition.
    Macro,
}

impl ItemKind {
    /// Whether the body holds statements (functions) rather than members (containers).
    pub fn has_statements(self) -> bool {
        matches!(self, ItemKind::Function | ItemKind::Method)
    }
}

/// The role a capture name gives a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Atom(ItemKind),
    Name,
    Keyword,
    Qualifier,
    Body,
    Wrapper,
    Wrapped,
    Comment,
    Attach,
    Import,
    Expand,
}

/// The closed vocabulary of capture names, as documented in `grammars/README.md`.
pub const CAPTURE_NAMES: &[&str] = &[
    "atom.class",
    "atom.constant",
    "atom.enum",
    "atom.field",
    "atom.function",
    "atom.impl",
    "atom.interface",
    "atom.macro",
    "atom.method",
    "atom.module",
    "atom.namespace",
    "atom.static",
    "atom.struct",
    "atom.trait",
    "atom.type",
    "atom.variable",
    "attach",
    "body",
    "comment",
    "expand",
    "import",
    "keyword",
    "name",
    "qualifier",
    "wrapped",
    "wrapper",
];

fn role_of(name: &str) -> Option<Role> {
    let kind = match name {
        "atom.class" => ItemKind::Class,
        "atom.constant" => ItemKind::Constant,
        "atom.enum" => ItemKind::Enum,
        "atom.field" => ItemKind::Field,
        "atom.function" => ItemKind::Function,
        "atom.impl" => ItemKind::Impl,
        "atom.interface" => ItemKind::Interface,
        "atom.macro" => ItemKind::Macro,
        "atom.method" => ItemKind::Method,
        "atom.module" => ItemKind::Module,
        "atom.namespace" => ItemKind::Namespace,
        "atom.static" => ItemKind::Static,
        "atom.struct" => ItemKind::Struct,
        "atom.trait" => ItemKind::Trait,
        "atom.type" => ItemKind::Type,
        "atom.variable" => ItemKind::Variable,
        "attach" => return Some(Role::Attach),
        "body" => return Some(Role::Body),
        "comment" => return Some(Role::Comment),
        "expand" => return Some(Role::Expand),
        "import" => return Some(Role::Import),
        "keyword" => return Some(Role::Keyword),
        "name" => return Some(Role::Name),
        "qualifier" => return Some(Role::Qualifier),
        "wrapped" => return Some(Role::Wrapped),
        "wrapper" => return Some(Role::Wrapper),
        _ => return None,
    };
    Some(Role::Atom(kind))
}

/// Why a language's queries could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    language: String,
    message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "grammars/{}/atoms.scm: {}", self.language, self.message)
    }
}

impl std::error::Error for LoadError {}

/// A language's compiled query and capture roles: built once, shared by every thread.
#[derive(Debug)]
pub struct LanguageConfig {
    pub(crate) query: Query,
    /// Role of each capture index.
    pub(crate) roles: Vec<Role>,
}

impl LanguageConfig {
    /// Compiles `source` (an `atoms.scm`, inherits already resolved) for `grammar`.
    ///
    /// Fails when the query does not compile, or when it uses a capture name outside the
    /// vocabulary; the message then lists the valid names.
    pub fn new(
        language: &str,
        grammar: tree_sitter::Language,
        source: &str,
    ) -> Result<Self, LoadError> {
        let err = |message: String| LoadError { language: language.to_owned(), message };
        let query = Query::new(&grammar, source).map_err(|e| {
            err(format!(
                "line {}, column {}: {:?} error: {}",
                e.row + 1,
                e.column + 1,
                e.kind,
                e.message
            ))
        })?;
        let mut roles = Vec::with_capacity(query.capture_names().len());
        for name in query.capture_names() {
            match role_of(name) {
                Some(role) => roles.push(role),
                None => {
                    return Err(err(format!(
                        "unknown capture @{name}; valid captures: {}",
                        CAPTURE_NAMES
                            .iter()
                            .map(|n| format!("@{n}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
                }
            }
        }
        Ok(Self { query, roles })
    }
}

/// Resolves `; inherits: a, b` lines: the inherited queries come after the file's own
/// patterns, so the more specific patterns of the inheriting language win.
pub(crate) fn resolve_inherits(
    source: &str,
    lookup: &dyn Fn(&str) -> Option<&'static str>,
) -> String {
    let mut out = String::from(source);
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("; inherits:") else { continue };
        for base in rest.split(',').map(str::trim).filter(|b| !b.is_empty()) {
            if let Some(text) = lookup(base) {
                out.push('\n');
                out.push_str(&resolve_inherits(text, lookup));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabulary_is_sorted_and_complete() {
        let mut sorted = CAPTURE_NAMES.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, CAPTURE_NAMES);
        for name in CAPTURE_NAMES {
            assert!(role_of(name).is_some(), "{name}");
        }
    }

    #[test]
    fn unknown_capture_names_the_valid_ones() {
        let grammar: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
        let err = LanguageConfig::new("rust", grammar, "(function_item) @atom.fun").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown capture @atom.fun"), "{msg}");
        assert!(msg.contains("@atom.function"), "{msg}");
    }

    #[test]
    fn inherited_patterns_come_last() {
        let lookup = |name: &str| (name == "base").then_some("(base)");
        let out = resolve_inherits("; inherits: base\n(own)", &lookup);
        assert!(out.find("(own)").unwrap() < out.find("(base)").unwrap());
    }
}
