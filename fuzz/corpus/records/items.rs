à//! A small lexer: tokens, their display, and a parser module.
//!
//! Caret lines (`// ^ â€¦`) assert which atom and scope the line above belongs to.

use std::collections::HashMap;
use std::fmt;

/// The largest token we accept.
pub const MAX_TOKEN: usize = 4096;
// ^ symbol MAX_TOKEN

/// A token of the input.
#[derive(Debug, Clone, PartialEq)]
// ^ symbol Token
pub struct Token {
    /// What kind of token this is.
    pub kind: Kind,
    // ^ scope struct Token
    pub text: String, // the exact source text
}

/// Token kinds.
pub enum Kind {
    Ident,
    Number,
    Punct(char),
}

impl fmt::Display for Token {
    /// Writes the token's text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // ^ scope impl fmt::Display for Token > fn fmt
        write!(f, "{}", self.text)
        // ^ symbol Token::fmt
    }
}

impl Token {
    /// A new token.
    pub fn new(kind: Kind, text: &str) -> Self {
        Self { kind, text: text.to_owned() }
    }

    /// Whether the token is an identifier.
    pub fn is_ident(&self) -> bool {
        matches!(self.kind, Kind::Ident)
        // ^ scope impl Token > fn is_ident
    }
}

/// Things that read tokens.
pub trait Reader {
    /// The next token, if any.
    fn next_token(&mut self) -> Option<Token>;
    // ^ symbol Reader::next_token

    /// Skips `n` tokens.
    fn skip(&mut self, n: usize) {
        for _ in 0..n {
            self.next_token();
        }
    }
}

// Free comment between items: a gap.
// ^ gap

pub type Table = HashMap<String, Token>;
// ^ symbol Table

static KEYWORDS: &[&str] = &["fn", "let", "mod"];

mod parser {
    use super::Token;

    /// Parses tokens into a count.
    pub fn parse(tokens: &[Token]) -> usize {
        // ^ scope mod parser > fn parse
        let mut count = 0;
        for token in tokens {
            if token.is_ident() {
                count += 1;
            }
        }
        count
    }
}

macro_rules! token {
    ($kind:ident, $text:expr) => {
        Token::new(Kind::$kind, $text)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_writes_text() {
        // ^ symbol tests::display_writes_text
        let t = token!(Ident, "x");
        assert_eq!(t.to_string(), "x");
    }
}
