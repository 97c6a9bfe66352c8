//! What LaTeX environments are, by name: the atomizer protects and groups by class, and marks
//! each environment's atom with the region its class names, which the classifier counts.

use cleave_core::Region;

/// The class of an environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum EnvClass {
    /// Display math: `equation`, `align`, `gather`, `multline`, … and starred forms.
    Math,
    /// Theorem-like statements: `theorem`, `lemma`, `corollary`, `proposition`, declared ones.
    Theorem,
    /// Definitions (a theorem-like environment that defines).
    Definition,
    /// `proof`.
    Proof,
    /// `algorithm`, `algorithmic`, `algorithm2e` and friends.
    Algorithm,
    /// Verbatim-like code: `lstlisting`, `verbatim`, `minted`, …
    Code,
    /// `table`, `tabular` and other tables.
    Table,
    /// `figure` and pictures.
    Figure,
    /// `itemize`, `enumerate`, `description`.
    List,
    /// Environments that may hold sections: `appendices`, `multicols`, …
    Container,
    /// Anything else (`abstract`, `center`, `quote`, unknown ones).
    Other,
}

impl EnvClass {
    /// Whether an environment of this class is kept whole while it fits, even at the cost of
    /// a shorter header: all but containers, which hold sections. A list that does not fit is
    /// still opened between its items.
    pub(crate) fn is_protected(self) -> bool {
        !matches!(self, EnvClass::Container)
    }

    /// Whether the body reads as lines of its own (math rows, code lines, table rows) rather
    /// than as paragraphs: such an environment is a leaf, split at lines when it must be.
    pub(crate) fn is_line_based(self) -> bool {
        matches!(self, EnvClass::Math | EnvClass::Code | EnvClass::Table)
    }

    /// Whether environment `name` of this class reads as lines; floats (`table`) hold a
    /// caption and a tabular, so they are opened into blocks instead.
    pub(crate) fn is_line_based_env(self, name: &str) -> bool {
        let base = name.strip_suffix('*').unwrap_or(name);
        self.is_line_based() && !matches!(base, "table" | "sidewaystable" | "wraptable")
    }

    /// The region an environment of this class holds, for the annotation after packing: lists,
    /// containers and other environments hold none, except `abstract`.
    pub(crate) fn region(self, name: &str) -> Option<Region> {
        Some(match self {
            EnvClass::Math => Region::Math,
            EnvClass::Code => Region::Code,
            EnvClass::Table => Region::Table,
            EnvClass::Theorem => Region::Theorem,
            EnvClass::Definition => Region::Definition,
            EnvClass::Proof => Region::Proof,
            EnvClass::Algorithm => Region::Algorithm,
            EnvClass::Figure => Region::Figure,
            EnvClass::Other if name == "abstract" => Region::Abstract,
            EnvClass::List | EnvClass::Container | EnvClass::Other => return None,
        })
    }

    /// Whether the environment stands as a block of its own, apart from the sentence around it.
    /// Display math stays inside its paragraph: it is part of a sentence.
    pub(crate) fn is_block(self) -> bool {
        !matches!(self, EnvClass::Math)
    }
}

/// Environments whose body the scanner skips to the literal `\end{name}`.
pub(crate) fn is_verbatim(name: &str) -> bool {
    matches!(
        name,
        "verbatim"
            | "verbatim*"
            | "Verbatim"
            | "Verbatim*"
            | "BVerbatim"
            | "LVerbatim"
            | "lstlisting"
            | "minted"
            | "comment"
            | "filecontents"
            | "filecontents*"
            | "alltt"
            | "spverbatim"
            | "verbatimtab"
            | "code"
    ) || is_verbatim_like(name)
}

/// Package documentation declares its own verbatim environments (`dtxverblisting`,
/// `sourcecode`, `tcblisting`): names that say "verbatim", "listing" or "code" are read as such.
fn is_verbatim_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let base = lower.strip_suffix('*').unwrap_or(&lower);
    base.contains("verb")
        || base.contains("listing")
        || base.ends_with("code")
        || base == "source"
        || base.starts_with("minted")
}

/// The class of environment `name`; `theorems` are names declared with `\newtheorem`.
pub(crate) fn env_class(name: &str, theorems: &[String]) -> EnvClass {
    let base = name.strip_suffix('*').unwrap_or(name);
    match base {
        "equation" | "align" | "gather" | "multline" | "flalign" | "alignat" | "eqnarray"
        | "math" | "displaymath" | "dmath" | "dgroup" | "subequations" | "IEEEeqnarray"
        | "xalignat" | "xxalignat" => EnvClass::Math,
        "proof" | "pf" | "Proof" => EnvClass::Proof,
        "algorithm" | "algorithmic" | "algorithm2e" | "algorithmicx" | "procedure" | "function"
        | "pseudocode" => EnvClass::Algorithm,
        "table" | "tabular" | "tabularx" | "tabulary" | "longtable" | "tabu" | "array"
        | "supertabular" | "xtabular" | "sidewaystable" | "wraptable" | "tblr" | "NiceTabular" => {
            EnvClass::Table
        }
        "figure" | "wrapfigure" | "sidewaysfigure" | "subfigure" | "tikzpicture" | "picture"
        | "pspicture" | "SCfigure" | "marginfigure" => EnvClass::Figure,
        "itemize" | "enumerate" | "description" | "compactitem" | "compactenum" | "inparaenum"
        | "asparaenum" | "list" | "thebibliography" => EnvClass::List,
        "appendices" | "subappendices" | "multicols" | "landscape" | "frame" | "document" => {
            EnvClass::Container
        }
        "definition" | "defn" | "def" | "dfn" | "notation" => EnvClass::Definition,
        "theorem" | "lemma" | "corollary" | "proposition" | "conjecture" | "claim" | "fact"
        | "observation" | "remark" | "example" | "assumption" | "hypothesis" | "axiom"
        | "property" | "exercise" | "problem" | "question" | "thm" | "lem" | "cor" | "prop"
        | "conj" | "rem" | "rmk" | "ex" | "exa" | "obs" | "assump" | "claim*" => EnvClass::Theorem,
        _ if is_verbatim(name) || base == "listing" || base == "program" => EnvClass::Code,
        _ if theorems.iter().any(|t| t == base) => {
            if base.starts_with("def") {
                EnvClass::Definition
            } else {
                EnvClass::Theorem
            }
        }
        _ => EnvClass::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_by_name() {
        assert_eq!(env_class("align*", &[]), EnvClass::Math);
        assert_eq!(env_class("lemma", &[]), EnvClass::Theorem);
        assert_eq!(env_class("definition", &[]), EnvClass::Definition);
        assert_eq!(env_class("lstlisting", &[]), EnvClass::Code);
        assert_eq!(env_class("myresult", &["myresult".to_owned()]), EnvClass::Theorem);
        assert_eq!(env_class("myresult", &[]), EnvClass::Other);
        assert!(EnvClass::List.is_protected() && !EnvClass::Container.is_protected());
        assert!(EnvClass::Math.is_line_based() && !EnvClass::Math.is_block());
    }
}
