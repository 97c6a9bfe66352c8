//! The closed vocabulary of capture names (`grammars/README.md`) and the role each gives a
//! node: shared by the compiled configuration, the plain-pattern matcher and the builder.

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
    /// A region of another language (`<script>` in Vue, `<style>` in Svelte): its body is
    /// parsed with the named language, or with the one its `@language` capture names, and
    /// its atoms become the region's children (see `grammars/README.md`, "Injections").
    Inject(InjectName),
}

/// The language an `@inject.<language>` capture names, kept inline so that the capture
/// vocabulary needs no registry: the registry checks the name when it loads the queries
/// (see [`inject_names`]) and the builder looks it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InjectName {
    bytes: [u8; InjectName::MAX],
    len: u8,
}

impl InjectName {
    /// The longest language name an injection can give.
    const MAX: usize = 23;

    fn new(name: &str) -> Option<Self> {
        let valid = !name.is_empty()
            && name.len() <= Self::MAX
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return None;
        }
        let mut bytes = [0; Self::MAX];
        bytes[..name.len()].copy_from_slice(name.as_bytes());
        Some(Self { bytes, len: name.len() as u8 })
    }

    /// The language name, as the capture wrote it.
    pub fn as_str(&self) -> &str {
        // The bytes were copied from a `&str` of ASCII characters only.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

/// The language names of the `@inject.<language>` captures a query source holds (comment
/// lines left out), for the registry to check against its rows.
pub(crate) fn inject_names(source: &str) -> impl Iterator<Item = &str> {
    source.lines().filter(|line| !line.trim_start().starts_with(';')).flat_map(|line| {
        line.match_indices("@inject.").map(move |(at, capture)| {
            let rest = &line[at + capture.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
    })
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
    /// The language of an injected region, by name or extension (`ts`, `lang="ts"`).
    Language,
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
    "inject.<language>",
    "keyword",
    "language",
    "name",
    "qualifier",
    "wrapped",
    "wrapper",
];

pub(crate) fn role_of(name: &str) -> Option<Role> {
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
        "language" => return Some(Role::Language),
        "name" => return Some(Role::Name),
        "qualifier" => return Some(Role::Qualifier),
        "wrapped" => return Some(Role::Wrapped),
        "wrapper" => return Some(Role::Wrapper),
        _ => {
            // `@inject.<language>`: a registry row's name, which the registry checks when
            // it loads the queries (this module stays below the registry).
            let language = name.strip_prefix("inject.")?;
            return InjectName::new(language).map(|l| Role::Atom(ItemKind::Inject(l)));
        }
    };
    Some(Role::Atom(kind))
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
            let name = name.replace("<language>", "css");
            assert!(role_of(&name).is_some(), "{name}");
        }
    }

    #[test]
    fn inject_names_are_inline_and_found_in_sources() {
        let Some(Role::Atom(ItemKind::Inject(name))) = role_of("inject.typescript") else {
            panic!("inject capture");
        };
        assert_eq!(name.as_str(), "typescript");
        assert_eq!(role_of("inject."), None);
        assert_eq!(role_of("inject.a b"), None);
        assert_eq!(role_of(&format!("inject.{}", "x".repeat(24))), None);
        let source =
            "(a) @inject.css\n((b) @x @inject.javascript)\n  ; @inject.<language>\n(c) @inject.";
        assert_eq!(inject_names(source).collect::<Vec<_>>(), ["css", "javascript", ""]);
    }
}
