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
    Inject(&'static str),
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
            // `@inject.<language>`: a registry row's name, checked when the queries load.
            let language = name.strip_prefix("inject.")?;
            return crate::registry::language_by_name(language)
                .map(|l| Role::Atom(ItemKind::Inject(l.name)));
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
}
