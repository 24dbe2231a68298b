//! `run --explain`: for each trace line, the rule that placed it there, in
//! the terms of docs/scheduling.md and the seeds.

use crate::sched::{coerce_delay, Module, NodeVersion, Phase, TIMEOUT_MAX};
use crate::syntax::ast::Kind;

/// Where and when a callback was scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Origin {
    pub turn: u64,
    pub tick: u64,
    /// Where the scheduling code ran (a phase, `main`, or a queue).
    pub phase: Option<Phase>,
    /// The loop phase that code ran in or drained after.
    pub loop_phase: Option<Phase>,
    /// 1-based source line of the statement.
    pub line: usize,
}

/// Everything the explanation of one callback run needs.
#[derive(Debug, Clone)]
pub struct Why {
    pub kind: Kind,
    /// 0: the callback; i: its i-th `.then` link.
    pub link: usize,
    pub label: Option<String>,
    pub from: Origin,
    /// When and where it ran.
    pub turn: u64,
    pub tick: u64,
    pub phase: Phase,
    /// `timeout`/`interval` delay as written; `io … after`; `submit` ticks.
    pub amount: u64,
    /// Run number of an interval or `again` chain.
    pub run: u64,
    /// A pool job's start tick (when it got a thread).
    pub pool_start: Option<u64>,
    pub pool_size: usize,
    /// The loop slept in poll from..to in the turn it ran.
    pub slept: Option<(u64, u64)>,
    /// Whose between-callbacks drain the run follows (`--node`).
    pub node: NodeVersion,
}

/// "where": `the main module`, `the poll phase of turn 1`, `a nextTick callback in turn 1`.
fn place(o: &Origin) -> String {
    match o.phase {
        None | Some(Phase::Main) if o.turn == 0 => "the main module".into(),
        Some(Phase::Main) => format!("the ES module body (turn {}'s poll phase)", o.turn),
        Some(Phase::NextTick) | Some(Phase::Microtask) => {
            let q = o.phase.map_or("", |p| p.name());
            match o.loop_phase {
                Some(Phase::Main) | None => format!("a {q} callback after the main module"),
                Some(lp) => format!("a {q} callback in the {lp} phase of turn {}", o.turn),
            }
        }
        Some(p) => format!("the {p} phase of turn {}", o.turn),
        None => format!("turn {}", o.turn),
    }
}

fn scheduled(w: &Why) -> String {
    let what = match (&w.label, w.link) {
        (_, l) if l > 0 => format!(".then link {l}"),
        (Some(label), _) => format!("{} \"{label}\"", w.kind.name()),
        (None, _) => w.kind.name().to_string(),
    };
    format!(
        "{what} (line {}) was scheduled at tick {} from {}",
        w.from.line,
        w.from.tick,
        place(&w.from)
    )
}

/// The explanation of the main module's lines.
pub fn main_module(module: Module) -> String {
    match module {
        Module::Cjs => "the main module runs synchronously at turn 0, before the loop starts (rule 1)".into(),
        Module::Esm => {
            "an ES module's body runs inside turn 1's poll phase, as a microtask, so its microtasks run before its nextTicks (rule 1)"
                .into()
        }
    }
}

/// Queued by a timer or an immediate under Node 10's drain rule, which
/// waits for the whole timer list or check phase.
fn node10_batch(w: &Why) -> bool {
    w.node == NodeVersion::Node10 && matches!(w.from.phase, Some(Phase::Timers) | Some(Phase::Check))
}

/// One line: what scheduled the callback, when, and the decisive rule.
pub fn explain(w: &Why) -> String {
    let rule = match w.kind {
        Kind::Timeout => timer(w),
        Kind::Interval => format!(
            "run {} of the interval: each run is re-armed {} after the previous run started, not ended (rule 3){}",
            w.run,
            ticks(coerce_delay(w.amount)),
            late(w, None)
        ),
        Kind::Immediate => immediate(w),
        Kind::NextTick | Kind::Microtask | Kind::Then if node10_batch(w) => format!(
            "Node 10 drains the nextTick and microtask queues only after {}, not after each callback (rule 6, as before Node 11)",
            if w.from.phase == Some(Phase::Timers) {
                "the whole list of due timers"
            } else {
                "the whole check phase"
            }
        ),
        Kind::NextTick => match w.from.phase {
            Some(Phase::Microtask) => "queued by a microtask, a nextTick waits until the whole microtask queue is empty (rule 6)".into(),
            _ => "a nextTick runs right after the callback that queued it returns, before any microtask (rule 6)".into(),
        },
        Kind::Microtask | Kind::Then if w.link > 0 => "a `.then` link is queued when the previous link's callback returns (rule 6)".into(),
        Kind::Microtask | Kind::Then => match w.from.phase {
            Some(Phase::Main) if w.from.turn > 0 => {
                "queued by the ES module body, itself a microtask: it runs before any nextTick (rule 1)".into()
            }
            _ => "a microtask runs once the nextTick queue is empty, right after the callback that queued it (rule 6)".into(),
        },
        Kind::Io => format!(
            "the bytes arrive at tick {}; the first poll phase to find them ready is turn {}'s (rule 2){}",
            w.from.tick.saturating_add(w.amount),
            w.turn,
            slept(w)
        ),
        Kind::Submit => pool(w),
        Kind::Pending => match w.from.loop_phase {
            Some(Phase::Timers) => "deferred from the timers phase, it runs in the same turn's pending phase (rule 2)".into(),
            Some(Phase::Poll) | Some(Phase::Pending) => {
                "deferred during poll, it runs in the pending rounds right after poll (libuv 1.46, rule 2)".into()
            }
            _ => "deferred outside timers and poll, it waits for the next turn's pending phase (rule 2)".into(),
        },
        Kind::Close => "close callbacks run in the close phase, the queue as it was at phase entry, last in first out (rule 2)".into(),
    };
    format!("{}; {rule}", scheduled(w))
}

fn timer(w: &Why) -> String {
    let delay = coerce_delay(w.amount);
    let due = w.from.tick.saturating_add(delay);
    let coerced = match w.amount {
        0 => " (0 becomes 1, as in Node)",
        d if d > TIMEOUT_MAX => " (a delay above 2147483647 becomes 1, as in Node)",
        _ => "",
    };
    let mut s = format!("due at {due}{coerced}");
    let after_timers = matches!(w.from.loop_phase, Some(Phase::Pending | Phase::Poll | Phase::Check | Phase::Close));
    if w.from.loop_phase == Some(Phase::Timers) && w.turn > w.from.turn {
        s += &format!(
            "; set during turn {}'s timers phase, it waits for a later turn (rule 3)",
            w.from.turn
        );
    } else if after_timers && w.turn == w.from.turn.saturating_add(1) && w.tick <= due {
        s += &format!(
            "; turn {}'s timers phase had already run, so it waits for turn {} (rule 2)",
            w.from.turn, w.turn
        );
    } else if w.from.turn == 0 {
        s += "; timers run in a turn's timers phase once due (rule 3)";
    }
    s + &late(w, Some(due))
}

fn late(w: &Why, due: Option<u64>) -> String {
    match (w.slept, due) {
        (Some((from, to)), _) => format!("; nothing else was ready, so the loop slept from tick {from} to {to} (rule 2)"),
        (None, Some(due)) if w.tick > due.saturating_add(1) => {
            format!("; the thread was busy until tick {}, so it ran late (rule 5)", w.tick)
        }
        _ => String::new(),
    }
}

fn slept(w: &Why) -> String {
    match w.slept {
        Some((from, to)) => format!("; the loop slept in poll from tick {from} to {to}"),
        None => String::new(),
    }
}

fn immediate(w: &Why) -> String {
    match w.from.loop_phase {
        Some(Phase::Check) => "set during the check phase: the check queue was taken as a snapshot, so it runs next turn (rule 2)".into(),
        Some(Phase::Close) => "set in the close phase, it waits for the next turn's check phase (rule 2)".into(),
        Some(Phase::Main) | None if w.from.turn == 0 => "turn 1's check phase is the first after the main module (rule 2)".into(),
        _ => format!("the check phase comes later in the same turn (turn {}) (rule 2)", w.turn),
    }
}

fn pool(w: &Why) -> String {
    let start = w.pool_start.unwrap_or(w.from.tick);
    let wait = if start > w.from.tick {
        format!(
            "all {} pool threads were busy, so it waited until a thread was free at tick {start} (FIFO, rule 4); ",
            w.pool_size
        )
    } else {
        format!("a free pool thread took it at once (tick {start}); ")
    };
    format!(
        "{wait}{} of work made it ready at {}, and turn {}'s poll phase ran it (rule 4){}",
        ticks(w.amount),
        start.saturating_add(w.amount),
        w.turn,
        slept(w)
    )
}

/// "1 tick", "4 ticks".
fn ticks(n: u64) -> String {
    if n == 1 {
        "1 tick".into()
    } else {
        format!("{n} ticks")
    }
}
