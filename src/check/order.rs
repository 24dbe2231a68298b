//! Order of a file's items: directives first and each once, then statements,
//! then at most one `expect` block, last; inside an `expect` block nothing
//! after its ending (`unhandled`, `unsettled`) or its `limit` line. Checked
//! while building (`syntax/build.rs`): within a chunk as each item is built,
//! and across chunks with [`across_chunks`], as each builder sees only its
//! own chunk.

use crate::problem::{Diag, Problem};
use crate::syntax::ast::{ExpectEnding, Span, Spanned};

/// A directive (at `span`, written `text`) after a statement.
pub fn directive(seen_statement: bool, span: Span, text: &str) -> Option<Problem> {
    seen_statement.then(|| misplaced_directive(span, text))
}

/// A directive (`name`, at `span`) given before (`prev` is set), pointing
/// at both.
pub fn directive_twice<T>(prev: &Option<Spanned<T>>, span: Span, name: &'static str) -> Option<Problem> {
    prev.as_ref()
        .map(|first| Diag::DirectiveTwice { name }.at(span).also(first.span, "first given here"))
}

/// An expect block (at `span`) after another one.
pub fn expect_block(seen_expect: bool, span: Span) -> Option<Problem> {
    seen_expect.then(|| second_expect(span))
}

/// A statement (at `span`) after the expect block.
pub fn statement(seen_expect: bool, span: Span) -> Option<Problem> {
    seen_expect.then(|| statement_after_expect(span))
}

/// The order problems of one chunk against the chunks before it (spans in
/// the chunk): its directives before its first statement if an earlier chunk
/// had statements; its first statement before any expect block of its own,
/// and its first expect block, if an earlier chunk had an expect block.
pub fn across_chunks(
    seen_statement: bool,
    seen_expect: bool,
    early_directives: &[(Span, String)],
    first_statement: Option<Span>,
    first_expect: Option<Span>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    if seen_statement {
        out.extend(early_directives.iter().map(|(span, text)| misplaced_directive(*span, text)));
    }
    if seen_expect {
        out.extend(first_statement.map(statement_after_expect));
        out.extend(first_expect.map(second_expect));
    }
    out
}

/// A line (at `span`) of an expect block after its ending, if it has one.
pub fn after_ending(ending: Option<Spanned<ExpectEnding>>, span: Span) -> Option<Problem> {
    let ending = ending?;
    Some(
        Diag::AfterEnding {
            ending: ending.value.name(),
        }
        .at(span),
    )
}

/// A line (at `span`) of an expect block after its `limit` line, if it has
/// one; `again`: that line is a `limit` line too.
pub fn after_limit<T>(limit: Option<Spanned<T>>, span: Span, again: bool) -> Option<Problem> {
    limit.map(|_| Diag::AfterLimit { again }.at(span))
}

fn second_expect(span: Span) -> Problem {
    Diag::SecondExpect.at(span)
}

fn statement_after_expect(span: Span) -> Problem {
    Diag::StatementAfterExpect.at(span)
}

fn misplaced_directive(span: Span, text: &str) -> Problem {
    Diag::DirectiveOrder { text: text.to_string() }.at(span)
}
