//! The diagnostic for a run stopped by a limit (docs/scheduling.md rule 7).

use crate::problem::Problem;
use crate::sched::{LimitKind, Phase, Waiting};
use crate::trace::LimitHit;

/// "the nextTick queue never empties", pointing at the statement that feeds
/// it, with what was left waiting.
pub fn problem(hit: &LimitHit) -> Problem {
    let (message, label) = match (hit.limit, hit.queue) {
        (LimitKind::Output, _) => (
            "the run prints more lines than a trace can hold".to_string(),
            "this line was one too many",
        ),
        (LimitKind::LogBytes, _) => (
            "the run prints more log text than a trace can hold".to_string(),
            "this line was one too many",
        ),
        (LimitKind::Waiting, _) => (
            "too many callbacks are waiting at once".to_string(),
            "schedules more than the run can hold",
        ),
        (LimitKind::Callbacks, Phase::NextTick) => (
            "the nextTick queue never empties: the loop is starved".to_string(),
            "feeds the nextTick queue",
        ),
        (LimitKind::Callbacks, Phase::Microtask) => (
            "the microtask queue never empties: the loop is starved".to_string(),
            "feeds the microtask queue",
        ),
        (_, Phase::Check) => (
            "the check queue is refilled every turn: the run never ends".to_string(),
            "feeds the check queue",
        ),
        (_, Phase::Timers) => ("the timers keep re-arming: the run never ends".to_string(), "feeds the timers"),
        (_, phase) => (
            format!("the run does not end (last callback in {phase})"),
            "scheduled the last callback",
        ),
    };
    let stopped = match hit.limit {
        LimitKind::Turns => format!("stopped after {} turns (--max-turns)", hit.max),
        LimitKind::Callbacks => format!("stopped after {} callbacks or statements (--max-callbacks)", hit.max),
        LimitKind::Output => format!("stopped after {} log lines (the most a trace holds)", hit.max),
        LimitKind::LogBytes => format!("stopped after {} MiB of log text (the most a trace holds)", hit.max >> 20),
        LimitKind::Waiting => format!("stopped once more than {} callbacks were waiting (the most a run holds)", hit.max),
    };
    let advice = match hit.limit {
        LimitKind::Output | LimitKind::LogBytes | LimitKind::Waiting => "This bound keeps memory in check: make the scenario smaller",
        LimitKind::Turns | LimitKind::Callbacks => "Bound the chain with `times N`, or raise the limit if the run is meant to be this long",
    };
    let help = format!("{}; {stopped}. {advice}", left_waiting(&hit.waiting));
    Problem::error("loop::limit", hit.span, message, label).help(help)
}

/// "1 timer and 1 I/O callback never ran", or "nothing else was waiting".
pub fn left_waiting(w: &Waiting) -> String {
    let mut parts = Vec::new();
    let mut add = |n: usize, one: &str, many: &str| {
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    };
    add(w.timers, "timer", "timers");
    add(w.io, "I/O callback", "I/O callbacks");
    add(w.pending, "pending callback", "pending callbacks");
    add(w.immediates, "immediate", "immediates");
    add(w.close, "close callback", "close callbacks");
    match parts.len() {
        0 => "nothing else was waiting".into(),
        1 => format!("{} never ran", parts[0]),
        n => format!("{} and {} never ran", parts[..n - 1].join(", "), parts[n - 1]),
    }
}
