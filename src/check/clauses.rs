//! Clauses that belong to one callback kind: `after N` only on `io` (its
//! duration), `.then`/`.catch`/`.finally` links only on `then`. Called by the
//! builder (`syntax/build.rs`) after it read a callback's header.

use crate::problem::{Diag, Problem};
use crate::syntax::ast::{Kind, Link, Span};

/// An `after` clause (at `span`) on a callback of `kind`: only `io` takes one.
pub fn after(kind: Kind, span: Span) -> Option<Problem> {
    (kind != Kind::Io).then(|| Diag::After { kind }.at(span))
}

/// The links of a callback of `kind`: only `then` is a promise callback that
/// may be chained; the first link of any other kind is reported.
pub fn links(kind: Kind, links: &[Link]) -> Option<Problem> {
    let first = links.first().filter(|_| kind != Kind::Then)?;
    Some(
        Diag::ThenLink {
            kind,
            link: first.kind.name(),
        }
        .at(first.span),
    )
}
