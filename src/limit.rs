//! The diagnostic for a run stopped by a limit (docs/scheduling.md rule 7).

use crate::problem::{Diag, Problem};
use crate::sched::Waiting;
use crate::trace::LimitHit;

/// "the nextTick queue never empties", pointing at the statement that feeds
/// it, with what was left waiting.
pub fn problem(hit: &LimitHit) -> Problem {
    Diag::Limit {
        limit: hit.limit,
        queue: hit.queue,
        max: hit.max,
        waiting: left_waiting(&hit.waiting),
        bounded: hit.bounded,
        raised_for: hit.raised_for,
        site: hit.site,
    }
    .at(hit.span)
}

/// "1 timer and 1 I/O callback left waiting", or "no timer, I/O, immediate or
/// close callback was left waiting" (the loop's queues; the microtask and
/// nextTick queues are named by the limit's own text).
pub fn left_waiting(w: &Waiting) -> String {
    let mut parts = Vec::new();
    let mut add = |n: usize, one: &str, many: &str| {
        if n > 0 {
            parts.push(format!(
                "{} {}",
                crate::render::thousands(n as u64),
                if n == 1 { one } else { many }
            ));
        }
    };
    add(w.timers, "timer", "timers");
    add(w.io, "I/O callback", "I/O callbacks");
    add(w.pending, "pending callback", "pending callbacks");
    add(w.immediates, "immediate", "immediates");
    add(w.close, "close callback", "close callbacks");
    match parts.len() {
        0 => "no timer, I/O, immediate or close callback was left waiting".into(),
        1 => format!("{} left waiting", parts[0]),
        n => format!("{} and {} left waiting", parts[..n - 1].join(", "), parts[n - 1]),
    }
}
