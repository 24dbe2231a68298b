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
/// close callback was left waiting": the loop's queues, then the nextTick
/// and microtask queues (a callback limit stopped between two nextTick
/// callbacks said none was left; fresh-clone helper 77).
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
    add(w.next_ticks, "nextTick callback", "nextTick callbacks");
    add(w.microtasks, "microtask", "microtasks");
    match parts.len() {
        0 => "no timer, I/O, immediate or close callback was left waiting".into(),
        1 => format!("{} left waiting", parts[0]),
        n => format!("{} and {} left waiting", parts[..n - 1].join(", "), parts[n - 1]),
    }
}
