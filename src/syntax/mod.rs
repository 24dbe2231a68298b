//! Syntax: `grammar/loop.pest` → [`ast::File`] with spans. The only code that
//! matches on pest's `Rule`.

pub mod ast;
mod build;
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
