//! `again`: only inside a callback's body (it schedules that callback once
//! more), and not in an `interval`'s, which runs again by itself. Runs after
//! parsing ([`super::check`]).

use crate::problem::{Diag, Problem};
use crate::syntax::ast::{Kind, Span};

/// `again` at `span`, inside the callback of kind `callback` (`None`: at the
/// top level, an async function's body or a listener's).
pub fn again(callback: Option<Kind>, span: Span) -> Option<Problem> {
    match callback {
        None => Some(Diag::AgainOutside.at(span)),
        Some(Kind::Interval) => Some(Diag::AgainInInterval.at(span)),
        Some(_) => None,
    }
}
