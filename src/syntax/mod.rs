//! Syntax: `grammar/loop.pest` → [`ast::File`] with spans. The only code that
//! matches on pest's `Rule`.

pub mod ast;
mod build;
mod chunk;
mod lex;
mod pest_error;
pub mod print;
pub mod suggest;

use crate::problem::Problem;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/loop.pest"]
pub(crate) struct LoopParser;

pub use chunk::MAX_ITEM;

/// A statement's text (from its source) up to its body: its first line,
/// cut at the first `{` or comment outside a string, as the grammar reads
/// them ([`lex::Lexer`]), and trimmed.
pub(crate) fn statement_head(statement: &str) -> &str {
    use lex::{Lexer, Tok};
    let end = Lexer::new(statement, 0)
        .find(|t| matches!(t.kind, Tok::Open | Tok::Comment | Tok::Newline))
        .map_or(statement.len(), |t| t.start);
    statement[..end].trim()
}

/// Parses a whole file. On syntax errors, every error the parser can reach
/// is returned (after each, the offending line is blanked and parsing retried),
/// up to [`crate::problem::MAX_KEPT`]: then the parser stops and the list ends
/// with a [`crate::problem::CUT`] note, "stopped after the first 1000 errors".
/// A file with a block nested too deeply, or an item of more than [`MAX_ITEM`]
/// tokens, is refused with that one error before it is parsed.
///
/// # Errors
/// The problems found, in source order; at least one.
pub fn parse(src: &str) -> Result<ast::File, Vec<Problem>> {
    build::parse_file(src)
}

/// Runs only pest over `src` (in the same chunks as [`parse`]) and counts the
/// tokens: for benchmarks that separate pest from building the AST.
#[doc(hidden)]
pub fn pest_tokens(src: &str) -> usize {
    use pest::Parser;
    chunk::chunks(src)
        .into_iter()
        .map(|(s, e)| LoopParser::parse(Rule::file, &src[s..e]).map_or(0, |p| p.flatten().count()))
        .sum()
}
