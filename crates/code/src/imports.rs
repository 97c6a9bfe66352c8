//! The header context of a file: its imports (and Go's package) folded into one short line.

/// Widest context line: imports are a small share of the header, whatever the budget.
const CONTEXT_WIDTH: usize = 80;

/// The imports as one compact header line: keywords and punctuation dropped, module paths
/// kept, cut with an ellipsis at [`CONTEXT_WIDTH`].
pub(crate) fn context_lines(imports: &[String]) -> Vec<String> {
    let mut line = String::new();
    let mut package = None;
    for import in imports {
        let import = import.trim_end_matches(';').trim();
        if let Some(name) = import.strip_prefix("package ") {
            package = Some(name.trim().to_owned());
            continue;
        }
        let mut rest = import;
        for keyword in
            ["pub(crate) ", "pub ", "use ", "extern crate ", "import ", "type ", "static "]
        {
            rest = rest.strip_prefix(keyword).unwrap_or(rest);
        }
        let rest = rest.trim_start_matches('(').trim_end_matches(')').trim();
        let rest = rest.replace(['"', '\''], "");
        if rest.is_empty() {
            continue;
        }
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(&rest);
        if line.len() > CONTEXT_WIDTH {
            break;
        }
    }
    let mut out = match package {
        Some(package) if line.is_empty() => format!("package {package}"),
        Some(package) => format!("package {package}; imports: {line}"),
        None if line.is_empty() => return Vec::new(),
        None => format!("imports: {line}"),
    };
    if out.len() > CONTEXT_WIDTH {
        let cut = cleave_core::floor_char_boundary(&out, CONTEXT_WIDTH - 1);
        out.truncate(cut);
        out.push('…');
    }
    vec![out]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_become_one_compact_line() {
        let imports: Vec<String> = (0..30).map(|i| format!("import mod{i}")).collect();
        let lines = context_lines(&imports);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("imports: mod0, mod1, mod2"));
        assert!(lines[0].ends_with('…') && lines[0].chars().count() <= CONTEXT_WIDTH);
        let go =
            context_lines(&["package server".into(), "import ( \"fmt\" \"net/http\" )".into()]);
        assert_eq!(go, ["package server; imports: fmt net/http"]);
        let rust =
            context_lines(&["use std::fmt;".into(), "pub use crate::ast::{Expr, Stmt};".into()]);
        assert_eq!(rust, ["imports: std::fmt, crate::ast::{Expr, Stmt}"]);
    }
}
