//! `again`: only inside a callback's body (it schedules that callback once
//! more), and not in an `interval`'s, which runs again by itself; and
//! `times N` (N ≥ 2) on a callback other than an interval only with an
//! `again` in its body, whose chain it bounds (a warning). Runs after
//! parsing ([`super::check`]).

use crate::problem::{Diag, Problem};
use crate::syntax::ast::{Kind, Span, Spanned, Text};

/// `again` at `span`, inside the callback of kind `callback` (`None`: at the
/// top level, an async function's body or a listener's).
pub fn again(callback: Option<Kind>, span: Span) -> Option<Problem> {
    match callback {
        None => Some(Diag::AgainOutside.at(span)),
        Some(Kind::Interval) => Some(Diag::AgainInInterval.at(span)),
        Some(_) => None,
    }
}

/// `times` on a callback or link named `name` (of a statement of kind
/// `kind`) whose body has an `again` of its own if `again`: a warning when
/// it counts runs that never come (N ≥ 2, not an interval, no `again`).
/// `logs`: the label it logs, having no body; `link`: a link of a chain.
pub fn times_without_again(
    name: &'static str,
    kind: Kind,
    times: Option<Spanned<u64>>,
    again: bool,
    logs: Option<&Text>,
    link: bool,
) -> Option<Problem> {
    let times = times.filter(|t| t.value >= 2 && kind != Kind::Interval && !again)?;
    Some(
        Diag::TimesWithoutAgain {
            times: times.value,
            name,
            // Rendered only for a warning: most callbacks have a label.
            logs: logs.map(ToString::to_string),
            link,
        }
        .at(times.span),
    )
}
