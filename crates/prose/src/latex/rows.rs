//! Rows of a tabular or alignment environment, and the steps of an algorithm: where an oversize
//! `tabular`, `array`, `align` or `algorithmic` is best cut, so that no chunk starts mid-row.
//!
//! A row runs to the line that ends it with `\\` (or `\\[2pt]`, `\\*`, `\tabularnewline`)
//! outside any environment nested in it (`cases` inside an `eqnarray` row ends its own lines
//! with `\\`), and takes in the rule lines after it (`\hline`, `\midrule`, `\cline{2-3}`). An
//! algorithm step starts at a line opening with a step command (`\State`, `\If`, `\For`, …);
//! continuation lines stay with their step.

use std::ops::Range;

/// Rule commands: a line of them belongs to the row above.
const RULES: [&str; 8] = [
    "\\hline",
    "\\midrule",
    "\\toprule",
    "\\bottomrule",
    "\\cline",
    "\\cmidrule",
    "\\addlinespace",
    "\\specialrule",
];

/// Commands that open a step of an algorithm (algorithmic, algorithmicx, algorithm2e).
const STEPS: [&str; 34] = [
    "\\State",
    "\\Statex",
    "\\STATE",
    "\\If",
    "\\IF",
    "\\ElsIf",
    "\\ELSIF",
    "\\Else",
    "\\ELSE",
    "\\EndIf",
    "\\ENDIF",
    "\\For",
    "\\FOR",
    "\\ForAll",
    "\\FORALL",
    "\\EndFor",
    "\\ENDFOR",
    "\\While",
    "\\WHILE",
    "\\EndWhile",
    "\\ENDWHILE",
    "\\Repeat",
    "\\REPEAT",
    "\\Until",
    "\\UNTIL",
    "\\Return",
    "\\RETURN",
    "\\Require",
    "\\REQUIRE",
    "\\Ensure",
    "\\ENSURE",
    "\\Function",
    "\\EndFunction",
    "\\Procedure",
];

/// The line of `line` without a trailing `%` comment (an escaped `\%` is text), trimmed.
fn code_of(line: &str) -> &str {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'%' => return line[..i].trim(),
            _ => i += 1,
        }
    }
    line.trim()
}

/// Whether a line's code ends a row: `\\`, `\\*`, `\\[len]` or `\tabularnewline` at its end,
/// rule commands after it aside (`c & d \\ \hline`).
fn ends_row(code: &str) -> bool {
    let mut code = code.trim_end();
    while let Some(i) = trailing_rule(code) {
        code = code[..i].trim_end();
    }
    if code.ends_with("\\tabularnewline") {
        return true;
    }
    let code = match code.strip_suffix(']') {
        Some(rest) => match rest.rfind('[') {
            Some(open) => rest[..open].trim_end(),
            None => code,
        },
        None => code,
    };
    let code = code.strip_suffix('*').unwrap_or(code);
    // An even run of backslashes at the end: `\\\\` is two row ends, `\\\` no clean end.
    let slashes = code.bytes().rev().take_while(|&c| c == b'\\').count();
    slashes >= 2 && slashes % 2 == 0
}

/// Where a rule command (with its arguments) that ends `code` starts, if one does.
fn trailing_rule(code: &str) -> Option<usize> {
    let (at, rule) = RULES.iter().filter_map(|r| code.rfind(r).map(|i| (i, *r))).max()?;
    let args = &code[at + rule.len()..];
    let only_args = args.chars().all(|c| "{}[]()-.,: ".contains(c) || c.is_ascii_alphanumeric())
        && args.chars().next().is_none_or(|c| !c.is_ascii_alphabetic());
    (at > 0 && only_args).then_some(at)
}

fn is_rule_line(code: &str) -> bool {
    !code.is_empty()
        && RULES.iter().any(|r| code.starts_with(r))
        && code.split_whitespace().all(|w| RULES.iter().any(|r| w.starts_with(r)))
}

/// Environments opened minus closed on a line's code.
fn depth_change(code: &str) -> isize {
    code.matches("\\begin{").count() as isize - code.matches("\\end{").count() as isize
}

/// Line ranges (terminators included) of `text[range]`.
fn lines(text: &str, range: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = range.start;
    std::iter::from_fn(move || {
        if at >= range.end {
            return None;
        }
        let end = text[at..range.end].find('\n').map_or(range.end, |i| at + i + 1);
        let line = at..end;
        at = end;
        Some(line)
    })
}

/// The rows of a tabular or alignment body in `text[range]`; one range (the whole) when no
/// row ends inside it. `opens` says that the range starts with the environment's own
/// `\begin`, which nests nothing.
pub(crate) fn table_rows(text: &str, range: Range<usize>, opens: bool) -> Vec<Range<usize>> {
    let mut rows: Vec<Range<usize>> = Vec::new();
    let mut start = range.start;
    let mut depth = -isize::from(opens);
    let mut open = false;
    for line in lines(text, range.clone()) {
        let code = code_of(&text[line.clone()]);
        if open && is_rule_line(code) {
            // The rule under a row is part of it.
            if let Some(last) = rows.last_mut() {
                last.end = line.end;
                start = line.end;
            }
            continue;
        }
        open = false;
        depth = (depth + depth_change(code)).max(-1);
        if depth == 0 && ends_row(code) {
            rows.push(start..line.end);
            start = line.end;
            open = true;
        }
    }
    if start < range.end {
        rows.push(start..range.end);
    }
    rows
}

/// The steps of an algorithm body in `text[range]`: each from a line opening with a step
/// command to the next; one range when there are none.
pub(crate) fn algorithm_steps(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut starts = vec![range.start];
    for line in lines(text, range.clone()) {
        let code = code_of(&text[line.clone()]);
        let opens = STEPS.iter().any(|s| {
            code.strip_prefix(s)
                .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_ascii_alphabetic()))
        });
        if opens && line.start > range.start {
            starts.push(line.start);
        }
    }
    starts.push(range.end);
    starts.windows(2).map(|w| w[0]..w[1]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(text: &str) -> Vec<&str> {
        table_rows(text, 0..text.len(), false).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn rows_end_at_double_backslash_and_take_their_rules() {
        let t = "a & b \\\\ \\hline\nc & d \\\\\n\\hline\ne & f \\\\[2pt]\ng & h % x \\\\\n";
        assert_eq!(
            rows_of(t),
            [
                "a & b \\\\ \\hline\n",
                "c & d \\\\\n\\hline\n",
                "e & f \\\\[2pt]\n",
                "g & h % x \\\\\n"
            ]
        );
    }

    #[test]
    fn a_nested_environment_keeps_its_lines_in_one_row() {
        let t = "z & \\begin{cases}\n0 & x \\\\\n1 & y\n\\end{cases} \\\\\nw & v \\\\\n";
        assert_eq!(
            rows_of(t),
            ["z & \\begin{cases}\n0 & x \\\\\n1 & y\n\\end{cases} \\\\\n", "w & v \\\\\n"]
        );
    }

    #[test]
    fn a_body_without_row_ends_is_one_row() {
        assert_eq!(rows_of("x = y\n+ z\n"), ["x = y\n+ z\n"]);
        assert_eq!(rows_of("a \\\\\nb"), ["a \\\\\n", "b"]);
    }

    #[test]
    fn algorithm_steps_start_at_step_commands() {
        let t =
            "\\Require $n$\n\\State $x \\gets 0$\n  continued\n\\For{$i$}\n\\Statex\n\\EndFor\n";
        let steps: Vec<&str> = algorithm_steps(t, 0..t.len()).into_iter().map(|r| &t[r]).collect();
        assert_eq!(
            steps,
            [
                "\\Require $n$\n",
                "\\State $x \\gets 0$\n  continued\n",
                "\\For{$i$}\n",
                "\\Statex\n",
                "\\EndFor\n"
            ]
        );
    }
}
