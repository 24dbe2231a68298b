//! Syntax: `grammar/loop.pest` → [`ast::File`] with spans. The only code that
//! matches on pest's `Rule`.

pub mod ast;
mod build;
mod chunk;
mod pest_error;
pub mod suggest;

use crate::problem::Problem;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/loop.pest"]
pub(crate) struct LoopParser;

/// Parses a whole file. On syntax errors, every error the parser can reach
/// is returned (after each, the offending line is blanked and parsing retried).
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
