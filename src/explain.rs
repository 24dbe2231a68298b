//! `run --explain`: for each trace line, the rule that placed it there, in
//! the terms of docs/scheduling.md and the seeds.
//!
//! The scheduler decides and records why ([`Decision`]); this module only
//! words that record, after where the host scheduled the callback.

use crate::sched::{Before, Coercion, Decision, Deferred, Drain, ImmediateQueued, Module, Phase, PoolJob, Slept, TimerTurn};
use crate::syntax::ast::Kind;

/// Where and when the host scheduled a callback.
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
    /// The turn it ran in.
    pub turn: u64,
    /// What the scheduler decided, and the facts it used.
    pub decision: Decision,
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
pub fn main_module_sentence(module: Module) -> String {
    match module {
        Module::Cjs => "the main module runs synchronously at turn 0, before the loop starts (rule 1)".into(),
        Module::Esm => {
            "an ES module's body runs inside turn 1's poll phase, as a microtask, so its microtasks run before its nextTicks (rule 1)"
                .into()
        }
    }
}

/// One line: what scheduled the callback, when, and the decisive rule.
pub fn explain(w: &Why) -> String {
    let rule = match w.decision {
        Decision::MainModule(module) => return main_module_sentence(module),
        Decision::Unrecorded => return scheduled(w),
        Decision::Timeout {
            due,
            coerced,
            turn,
            before,
            ..
        } => timeout(due, coerced, turn, before, w.turn),
        Decision::Interval { run, every, slept } => format!(
            "run {run} of the interval: each run is re-armed {} after the previous run started, not ended (rule 3){}",
            ticks(every),
            slept.map_or(String::new(), slept_before_timers)
        ),
        Decision::Immediate(queued) => immediate(queued, w.turn),
        Decision::Drained { queue, drain } => drained(queue, drain, w.link),
        Decision::Io { arrived, slept } => format!(
            "the bytes arrive at tick {arrived}; the first poll phase to find them ready is turn {}'s (rule 2){}",
            w.turn,
            slept_in_poll(slept)
        ),
        Decision::PoolJob(job) => pool_job(job, w.turn),
        Decision::Pending(deferred) => match deferred {
            Deferred::FromTimersPhase => "deferred from the timers phase, it runs in the same turn's pending phase (rule 2)",
            Deferred::DuringPoll => "deferred during poll, it runs in the pending rounds right after poll (libuv 1.46, rule 2)",
            Deferred::Elsewhere => "deferred outside timers and poll, it waits for the next turn's pending phase (rule 2)",
        }
        .into(),
        Decision::Close => "close callbacks run in the close phase, the queue as it was at phase entry, last in first out (rule 2)".into(),
    };
    format!("{}; {rule}", scheduled(w))
}

fn timeout(due: u64, coerced: Option<Coercion>, turn: TimerTurn, before: Before, ran_turn: u64) -> String {
    let coerced = match coerced {
        Some(Coercion::Zero) => " (0 becomes 1, as in Node)",
        Some(Coercion::AboveMax) => " (a delay above 2147483647 becomes 1, as in Node)",
        None => "",
    };
    let turn = match turn {
        TimerTurn::SetDuringTimersPhase { set_turn } => {
            format!("; set during turn {set_turn}'s timers phase, it waits for a later turn (rule 3)")
        }
        TimerTurn::SetAfterTimersPhase { set_turn } => {
            format!("; turn {set_turn}'s timers phase had already run, so it waits for turn {ran_turn} (rule 2)")
        }
        TimerTurn::FromMainModule => "; timers run in a turn's timers phase once due (rule 3)".into(),
        TimerTurn::Plain => String::new(),
    };
    let before = match before {
        Before::Slept(s) => slept_before_timers(s),
        Before::Busy { until } => format!("; the thread was busy until tick {until}, so it ran late (rule 5)"),
        Before::Nothing => String::new(),
    };
    format!("due at {due}{coerced}{turn}{before}")
}

fn pool_job(job: PoolJob, ran_turn: u64) -> String {
    let PoolJob {
        start,
        work,
        waited,
        ready,
        pool_size,
        slept,
        ..
    } = job;
    let wait = if waited {
        format!("all {pool_size} pool threads were busy, so it waited until a thread was free at tick {start} (FIFO, rule 4); ")
    } else {
        format!("a free pool thread took it at once (tick {start}); ")
    };
    format!(
        "{wait}{} of work made it ready at {ready}, and turn {ran_turn}'s poll phase ran it (rule 4){}",
        ticks(work),
        slept_in_poll(slept)
    )
}

fn slept_before_timers(s: Slept) -> String {
    format!(
        "; nothing else was ready, so the loop slept from tick {} to {} (rule 2)",
        s.from, s.to
    )
}

fn slept_in_poll(slept: Option<Slept>) -> String {
    match slept {
        Some(s) => format!("; the loop slept in poll from tick {} to {}", s.from, s.to),
        None => String::new(),
    }
}

fn immediate(queued: ImmediateQueued, ran_turn: u64) -> String {
    match queued {
        ImmediateQueued::DuringCheckPhase => {
            "set during the check phase: the check queue was taken as a snapshot, so it runs next turn (rule 2)".into()
        }
        ImmediateQueued::DuringClosePhase => "set in the close phase, it waits for the next turn's check phase (rule 2)".into(),
        ImmediateQueued::ByMainModule => "turn 1's check phase is the first after the main module (rule 2)".into(),
        ImmediateQueued::EarlierInTurn => format!("the check phase comes later in the same turn (turn {ran_turn}) (rule 2)"),
    }
}

/// A nextTick or microtask: the drain that ran it (`link > 0`: a `.then` link).
fn drained(queue: Phase, drain: Drain, link: usize) -> String {
    let node10 = |after: &str| {
        format!("Node 10 drains the nextTick and microtask queues only after {after}, not after each callback (rule 6, as before Node 11)")
    };
    match drain {
        Drain::AfterTimerList => node10("the whole list of due timers"),
        Drain::AfterCheckPhase => node10("the whole check phase"),
        _ if link > 0 => "a `.then` link is queued when the previous link's callback returns (rule 6)".into(),
        Drain::AfterMicrotaskQueue => "queued by a microtask, a nextTick waits until the whole microtask queue is empty (rule 6)".into(),
        Drain::EsModuleBody => "queued by the ES module body, itself a microtask: it runs before any nextTick (rule 1)".into(),
        Drain::AfterItsCallback if queue == Phase::NextTick => {
            "a nextTick runs right after the callback that queued it returns, before any microtask (rule 6)".into()
        }
        Drain::AfterItsCallback => {
            "a microtask runs once the nextTick queue is empty, right after the callback that queued it (rule 6)".into()
        }
    }
}

/// "1 tick", "4 ticks".
fn ticks(n: u64) -> String {
    if n == 1 {
        "1 tick".into()
    } else {
        format!("{n} ticks")
    }
}

#[cfg(test)]
mod tests {
    use crate::interp::{run, RunOptions};
    use crate::load::load_bytes;
    use crate::sched::NodeVersion;

    fn explained(src: &str, node: NodeVersion) -> Vec<(String, String)> {
        let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
        let opts = RunOptions {
            explain: true,
            node,
            ..RunOptions::default()
        };
        let trace = run(&loaded.file, &loaded.src, "t", opts);
        trace.logs().map(|(_, t)| t.to_string()).zip(trace.explanations.clone()).collect()
    }

    #[test]
    fn node_10_explains_a_then_link_by_its_previous_link_not_by_the_timer() {
        let src = "timeout 1 \"a\" { then \"p\" .then \"q\" }\ntimeout 1 \"b\"\n";
        let lines = explained(src, NodeVersion::Node10);
        let texts: Vec<&str> = lines.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["b", "p", "q"]);
        assert!(lines[1].1.ends_with(
            "Node 10 drains the nextTick and microtask queues only after the whole list of due timers, not after each callback (rule 6, as before Node 11)"
        ));
        assert_eq!(
            lines[2].1,
            ".then link 1 (line 1) was scheduled at tick 1 from the timers phase of turn 1; a `.then` link is queued when the previous link's callback returns (rule 6)"
        );
    }

    #[test]
    fn a_sleep_is_told_in_the_turn_it_happened_whatever_logged_before() {
        // Turn 1 logs nothing; turn 2 sleeps from 21 to 25 before "b".
        let src = "timeout 0 \"a\" { }\nwork 20\ntimeout 5 \"b\"\n";
        let lines = explained(src, NodeVersion::Node20);
        assert_eq!(
            lines[0].1,
            "timeout \"b\" (line 3) was scheduled at tick 20 from the main module; due at 25; timers run in a turn's timers phase once due (rule 3); nothing else was ready, so the loop slept from tick 21 to 25 (rule 2)"
        );
    }
}
