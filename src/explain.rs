//! `run --explain`: for each trace line, the rule that placed it there, in
//! the terms of docs/scheduling.md and the seeds.
//!
//! The scheduler decides and records why ([`Decision`]); this module only
//! words that record, after where the host scheduled the callback.

use crate::promise::HopRule;
use crate::sched::{Before, Coercion, Decision, Deferred, Drain, Entry, ImmediateQueued, Phase, PoolJob, Slept, TimerTurn};
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
    /// The 1-based line of that link (of the callback, for 0), as
    /// `site_span_of` in `interp.rs` places it.
    pub link_line: usize,
    /// A link's run (`{n}`) that its own `again` queued, alone (then `from`
    /// is that `again`'s place); `None` for a run the chain queued.
    pub again_run: Option<u32>,
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
        // A link's job is queued as the callback before it returns (the
        // rule's clause says so); `from` is where its chain was scheduled.
        (_, l) if l > 0 => {
            let how = match w.again_run {
                Some(run) => format!(", run {run}, was queued by its `again`"),
                None => " of the chain scheduled".into(),
            };
            return format!(
                ".then link {l} (line {}){how} at tick {} from {}",
                w.link_line,
                w.from.tick,
                place(&w.from)
            );
        }
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
pub fn main_module_sentence(entry: Entry) -> String {
    match entry {
        Entry::CommonJs => "the main module runs synchronously at turn 0, before the loop starts (rule 1)".into(),
        Entry::EsModuleInPoll => {
            "an ES module's body runs inside turn 1's poll phase, as a microtask, so its microtasks run before its nextTicks (rule 1)"
                .into()
        }
        Entry::EsModuleBeforeLoop => {
            "an ES module's body runs at turn 0, before the loop starts (Node >= 22.18 loads it synchronously), as a microtask, so its microtasks run before its nextTicks (rule 1)"
                .into()
        }
    }
}

/// One line: what scheduled the callback, when, and the decisive rule.
pub fn explain(w: &Why) -> String {
    let rule = match w.decision {
        Decision::MainModule(entry) => return main_module_sentence(entry),
        Decision::Unrecorded => return scheduled(w),
        Decision::Timeout {
            due,
            coerced,
            turn,
            before,
            ..
        } => timeout(due, coerced, turn, before, w.turn),
        Decision::Interval { run, delay, slept } => format!(
            "run {run} of the interval: each run is re-armed {}{} after the previous run started, not ended (rule 3){}",
            ticks(crate::sched::coerce_delay(delay)),
            coercion(Coercion::of(delay)),
            slept.map_or(String::new(), slept_before_timers)
        ),
        Decision::Immediate(queued) => immediate(queued, w.turn),
        Decision::Drained { queue, drain } if w.kind == Kind::Then && w.link == 0 => format!(
            "{}; `then` is `Promise.resolve().then(…)`: a `then` on a settled promise queues its reaction job at once (rule 8a)",
            drained(queue, drain, 0, false)
        ),
        Decision::Drained { queue, drain } => drained(queue, drain, w.link, w.again_run.is_some()),
        Decision::Io { arrived, slept, joined } => format!(
            "the bytes arrive at tick {arrived}; the first poll phase to find them ready is turn {}'s (rule 2){}{}",
            w.turn,
            slept_in_poll(slept),
            joined_late(joined)
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
    let coerced = coercion(coerced);
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

/// How Node changed a timer's delay as written, in parentheses (or nothing).
fn coercion(coerced: Option<Coercion>) -> &'static str {
    match coerced {
        Some(Coercion::Zero) => " (0 becomes 1, as in Node)",
        Some(Coercion::AboveMax) => " (a delay above 2147483647 becomes 1, as in Node)",
        None => "",
    }
}

fn pool_job(job: PoolJob, ran_turn: u64) -> String {
    let PoolJob {
        start,
        work,
        waited,
        ready,
        pool_size,
        slept,
        joined,
        ..
    } = job;
    let wait = if waited {
        format!("all {pool_size} pool threads were busy, so it waited until a thread was free at tick {start} (FIFO, rule 4); ")
    } else {
        format!("a free pool thread took it at once (tick {start}); ")
    };
    format!(
        "{wait}{} of work made it ready at {ready}, and turn {ran_turn}'s poll phase ran it (rule 4){}{}",
        ticks(work),
        slept_in_poll(slept),
        joined_late(joined)
    )
}

/// Rule 2d: a completion ready before its watcher was registered joins
/// epoll's ready list as the poll phase registers it (or nothing).
fn joined_late(joined: Option<u64>) -> String {
    joined.map_or(String::new(), |at| {
        format!("; ready before its watcher was registered (as the poll phase began, at tick {at}), it comes after those that woke epoll, in registration order (rule 2)")
    })
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
fn drained(queue: Phase, drain: Drain, link: usize, again: bool) -> String {
    let node10 = |after: &str| {
        format!("Node 10 drains the nextTick and microtask queues only after {after}, not after each callback (rule 6, as before Node 11)")
    };
    match drain {
        Drain::AfterTimerList => node10("the whole list of due timers"),
        Drain::AfterCheckPhase => node10("the whole check phase"),
        _ if again => "`again` queues the link's body once more, alone, as a reaction job on a settled promise: it runs one hop later (rule 8a)".into(),
        _ if link > 0 => "a `.then` link's reaction job is queued when the previous link's promise settles, as its callback returns, and runs one hop later (rule 8a)".into(),
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

/// How a promise settled, when it is worth telling (`--explain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettledBy {
    /// Resolved with another promise or a thenable: adoption (rule 8c).
    Adoption,
    /// Fulfilled by a `timers/promises` timer's or immediate's callback in this phase (rule 8j).
    Timer(Phase),
    /// Fulfilled by an `fs.promises` call's (`readFile`'s or `writeFile`'s)
    /// last thread-pool round trip, in the poll phase.
    FsCall(crate::syntax::ast::FileOp),
}

/// What the explanation of a line a promise job placed needs (rule 8).
#[derive(Debug, Clone, Copy)]
pub struct Hop<'w> {
    /// The part of rule 8 that queued the job.
    pub rule: HopRule,
    /// What ran (`.then "a" (line 3)`), or empty when the caller has said it.
    pub what: &'w str,
    /// The job was queued at once: its promise was settled when the handler was added.
    pub already_settled: bool,
    /// An `await` of a value that is not a promise.
    pub plain_value: bool,
    /// How the promise settled, if worth telling.
    pub by: Option<SettledBy>,
}

/// The sentence of a line a promise job placed: the hop rule behind it.
pub fn hop(h: &Hop) -> String {
    let by = match h.by {
        Some(SettledBy::Adoption) => {
            "; that promise was resolved with another promise, which costs 2 extra hops (adoption: a resolve-thenable job, then a `then` on it, rule 8c)".to_string()
        }
        Some(SettledBy::Timer(phase)) => {
            format!("; a `timers/promises` timer fulfilled that promise in its callback in the {phase} phase (rule 8j)")
        }
        Some(SettledBy::FsCall(op)) => format!(
            "; the `fs.promises.{}` call fulfilled that promise in the poll phase, after its last thread-pool round trip (rule 4)",
            op.name()
        ),
        None => String::new(),
    };
    let clause = match h.rule {
        HopRule::Reaction if h.already_settled && h.what.is_empty() && by.is_empty() => {
            "a `then` on a settled promise queues its reaction job at once (rule 8a)".to_string()
        }
        HopRule::Reaction if h.already_settled => {
            format!("its promise was already settled when the handler was added, so the reaction job was queued at once and runs one hop later (rule 8a){by}")
        }
        HopRule::Reaction => format!("its promise settled, which queued the reaction job: it runs one hop later (rule 8a){by}"),
        HopRule::Finally => {
            format!("a `.finally` handler runs one hop after its promise settles, like `.then`; the chain after it waits 2 more hops (rule 8h){by}")
        }
        HopRule::Await if h.plain_value => "`await` of a value that is not a promise resumes one hop later (rule 8d)".to_string(),
        HopRule::Await if h.already_settled => {
            format!("`await` of an already settled native promise resumes one hop later (rule 8d){by}")
        }
        HopRule::Await => format!("`await` resumes one hop after its promise settles (rule 8d){by}"),
        HopRule::TopLevelAwait => {
            format!("the ES module's body is an async function: its top-level `await` resumes one hop after its promise settles (rules 8l, 8d){by}")
        }
        rule => format!("a promise job of rule {} ({})", rule.part(), rule.name()),
    };
    if h.what.is_empty() {
        clause
    } else {
        format!("{}: {clause}", h.what)
    }
}

/// The sentence of a line an 'unhandledRejection' or 'rejectionHandled' listener printed.
pub fn rejection_listener(event: &str, line: usize, reason_line: usize) -> String {
    let when = match event {
        "unhandledRejection" => format!("the promise rejected at line {reason_line} still had no handler"),
        _ => format!("the promise rejected at line {reason_line}, reported unhandled earlier, got a handler"),
    };
    format!(
        "the '{event}' listener (line {line}) runs once the nextTick and microtask queues are empty at the end of the drain in which {when} (Node's processPromiseRejections, rule 8k)"
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

#[cfg(test)]
mod tests {
    use crate::interp::{run, RunOptions};
    use crate::load::load_bytes;
    use crate::sched::NodeVersion;

    fn explained(src: &str, node: NodeVersion) -> Vec<(String, String)> {
        let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
        let opts = RunOptions {
            explain: true,
            node: Some(node),
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
            "Node 10 drains the nextTick and microtask queues only after the whole list of due timers, not after each callback (rule 6, as before Node 11); `then` is `Promise.resolve().then(…)`: a `then` on a settled promise queues its reaction job at once (rule 8a)"
        ));
        assert_eq!(
            lines[2].1,
            ".then link 1 (line 1) of the chain scheduled at tick 1 from the timers phase of turn 1; a `.then` link's reaction job is queued when the previous link's promise settles, as its callback returns, and runs one hop later (rule 8a)"
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
