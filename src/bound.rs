//! How many callbacks a file's bounded statements can run at most, so that
//! the default limits never stop a finite run (docs/scheduling.md rule 7).
//!
//! A file is finite unless it has an `interval` without `times` or an
//! `again` without `times`; everything else runs a number of times fixed by
//! `repeat` counts and `times`. The default limits are raised above that
//! number, up to a cap that keeps any run under a few seconds.

use std::ops::ControlFlow;

use crate::render::thousands;
use crate::sched::{LimitKind, Limits, Phase};
use crate::syntax::ast::{promise_parts, Callback, File, Kind, Link, Part, Span, Spanned, Stmt, StmtKind};

/// The highest callback limit the defaults are raised to.
pub const CAP: u64 = 10_000_000;

/// Upper bound on the callbacks the file's bounded statements can run
/// (unbounded chains and intervals count once), saturating.
pub fn callbacks(file: &File) -> u64 {
    block(&file.body)
}

/// The default limits for `file`: [`Limits::default`], raised to let every
/// bounded statement run (up to [`CAP`] callbacks).
pub fn default_limits(file: &File) -> Limits {
    let base = Limits::default();
    let need = callbacks(file).saturating_add(HEADROOM).min(CAP);
    Limits {
        max_turns: base.max_turns.max(need),
        max_callbacks: base.max_callbacks.max(need),
    }
}

/// The default limits (1,000,000 turns, 5,000,000 callbacks) are raised to
/// this many more than the callbacks the file's statements can run.
pub const HEADROOM: u64 = 1_000_000;

/// How [`default_limits`] raised the default `limit` (turns or callbacks) to
/// `max` for a file whose statements can run `callbacks` callbacks
/// ([`callbacks`]): "1,000,000 plus 1 per callback the file schedules, an
/// endless chain counted once" (`bounded`: the file has no endless chain,
/// so that clause is left out),
/// with ", capped at 10,000,000" when [`CAP`] held it down and
/// ", above the default 5,000,000" for callbacks. None when `max` is not
/// such a raised default: not above the default, or another limit (the
/// statement limit, ten times the callbacks', also stops a run as
/// [`LimitKind::Callbacks`]).
pub fn raise(limit: LimitKind, max: u64, bounded: bool, callbacks: u64) -> Option<String> {
    let base = Limits::default();
    let base = match limit {
        LimitKind::Turns => base.max_turns,
        LimitKind::Callbacks => base.max_callbacks,
        _ => return None,
    };
    let need = callbacks.saturating_add(HEADROOM);
    if max <= base || max != base.max(need.min(CAP)) {
        return None;
    }
    let mut text = format!("{} plus 1 per callback the file schedules", thousands(HEADROOM));
    if !bounded {
        text.push_str(", an endless chain counted once");
    }
    if limit == LimitKind::Callbacks {
        text.push_str(&format!(", above the default {}", thousands(base)));
    }
    if need > CAP {
        text.push_str(&format!(", capped at {}", thousands(CAP)));
    }
    Some(text)
}

/// Where the turn or callback limit `max` that stopped a run came from, as
/// the diagnostic says it in parentheses: "the turn limit: 1,000,000 plus 1
/// per callback the file schedules, an endless chain counted once;
/// --max-turns" for a
/// default raised for the file ([`raise`], `raised_for` being the callbacks
/// it was raised for), else the flag that sets it ("--max-turns",
/// "--max-callbacks").
pub fn limit_source(limit: LimitKind, max: u64, bounded: bool, raised_for: Option<u64>) -> String {
    let (what, flag) = match limit {
        LimitKind::Turns => ("turn", "--max-turns"),
        _ => ("callback", "--max-callbacks"),
    };
    match raised_for.and_then(|n| raise(limit, max, bounded, n)) {
        Some(raise) => format!("the {what} limit: {raise}; {flag}"),
        None => flag.to_string(),
    }
}

/// The first statement (in source order) that repeats until a limit stops
/// it: an `interval` without `times`, or a callback (or `.then` link) whose
/// body has an `again` and no `times`.
pub fn first_unbounded(stmts: &[Stmt]) -> Option<Span> {
    let mut first = None;
    let _ = each_unbounded(stmts, &mut |span, _| {
        first = Some(span);
        ControlFlow::Break(())
    });
    first
}

/// The endless statement a run a turn or callback limit stopped is named
/// for, with the queue its callbacks run in: of the statements that repeat
/// until a limit stops them and whose queue had callbacks waiting (`live`),
/// the first (in source order) feeding `queue` (that of the callback the
/// limit refused, or the phase the last turn ended in), else the first.
/// A timer refused beside an endless immediate chain is not the timers
/// re-arming, nor is a nextTick an immediate chain queues a starved nextTick
/// queue (fresh-clone helper 80). None when no such statement had a
/// callback waiting (none in the file, or an `interval` cleared): the run is
/// long, not endless.
pub fn endless_feed(stmts: &[Stmt], queue: Phase, live: impl Fn(Span, Phase) -> bool) -> Option<(Span, Phase)> {
    let mut named = None;
    let _ = each_unbounded(stmts, &mut |span, feeds| {
        if !live(span, feeds) {
            return ControlFlow::Continue(());
        }
        if named.is_none() || feeds == queue {
            named = Some((span, feeds));
        }
        if feeds == queue {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    named
}

/// The innermost statement that repeats until a limit stops it and holds
/// `at` (or is it): the chain a limit's span (the endless statement itself,
/// or a `log` in its body) belongs to; none when `at` is in no such
/// statement.
pub fn endless_around(stmts: &[Stmt], at: Span) -> Option<Span> {
    let mut found = None;
    let _ = each_unbounded(stmts, &mut |span, _| {
        if span.start() <= at.start() && at.end() <= span.end() {
            found = Some(span);
        }
        ControlFlow::Continue(())
    });
    found
}

/// Calls `f` with each statement that repeats until a limit stops it, in
/// source order, and the queue its callbacks run in (a link's: the
/// microtask queue), until `f` breaks.
fn each_unbounded(stmts: &[Stmt], f: &mut dyn FnMut(Span, Phase) -> ControlFlow<()>) -> ControlFlow<()> {
    for s in stmts {
        match &s.kind {
            StmtKind::Repeat { body, .. } => each_unbounded(body, f)?,
            StmtKind::Callback(cb) => {
                let body = cb.body().unwrap_or(&[]);
                let repeats = cb.kind == Kind::Interval || has_again(body);
                if repeats && cb.times().is_none() {
                    f(cb.span, cb.kind.phase())?;
                }
                for l in cb.links().iter().filter(|l| endless(l)) {
                    f(l.span, Phase::Microtask)?;
                }
                each_unbounded(body, f)?;
                for l in cb.links() {
                    each_unbounded(l.body.as_deref().unwrap_or(&[]), f)?;
                }
            }
            // A promise statement's links repeat like a chain's; its blocks (an
            // executor, an async function's body, a handler, `try`/`catch`) may
            // hold such a callback.
            other => {
                let mut flow = ControlFlow::Continue(());
                promise_parts(other, &mut |part| {
                    if flow.is_break() {
                        return;
                    }
                    if let Part::Link(l) = part {
                        if endless(l) {
                            flow = f(l.span, Phase::Microtask);
                        }
                    }
                    if let (ControlFlow::Continue(()), Some(body)) = (flow, part.body()) {
                        flow = each_unbounded(body, f);
                    }
                });
                flow?;
            }
        }
    }
    ControlFlow::Continue(())
}

fn block(stmts: &[Stmt]) -> u64 {
    stmts.iter().fold(0u64, |sum, s| sum.saturating_add(statement(s)))
}

fn statement(stmt: &Stmt) -> u64 {
    match &stmt.kind {
        StmtKind::Repeat { count, body } => block(body).saturating_mul(count.value),
        StmtKind::Callback(cb) => callback(cb),
        // A promise statement's blocks, counted once; a link's, once per run.
        other => {
            let mut sum = 0u64;
            promise_parts(other, &mut |part| {
                let body = part.body().map_or(0, block);
                sum = sum.saturating_add(match part {
                    Part::Link(l) => link(l.times, body),
                    _ => body,
                });
            });
            sum
        }
    }
}

/// A link run up to `times` times (`again`), with `body` callbacks in its
/// body: each run counts itself too.
fn link(times: Option<Spanned<u64>>, body: u64) -> u64 {
    times.map_or(1, |t| t.value).saturating_mul(body.saturating_add(1))
}

fn callback(cb: &Callback) -> u64 {
    let body = cb.body().map_or(0, block);
    let repeats = cb.kind == Kind::Interval || cb.body().is_some_and(has_again);
    let runs = match cb.times() {
        Some(t) => t.value,
        None if repeats => 1,
        None => 1,
    };
    let links = cb
        .links()
        .iter()
        .fold(0u64, |sum, l| sum.saturating_add(link(l.times, l.body.as_deref().map_or(0, block))));
    runs.saturating_mul(body.saturating_add(1)).saturating_add(links)
}

/// A link (of a `then` chain or a promise expression) whose body has an
/// `again` and no `times`: it repeats until a limit stops the run.
fn endless(l: &Link) -> bool {
    l.times.is_none() && l.body.as_deref().is_some_and(has_again)
}

/// An `again` that can run in this body (not in a nested callback's): one
/// after a `return` or `throw` of its block never runs (the checks warn).
fn has_again(stmts: &[Stmt]) -> bool {
    let reached = stmts.iter().position(|s| matches!(s.kind, StmtKind::Return(_) | StmtKind::Throw));
    stmts[..reached.unwrap_or(stmts.len())].iter().any(|s| match &s.kind {
        StmtKind::Again => true,
        StmtKind::Repeat { body, .. } => has_again(body),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_default_is_said_with_what_raised_it() {
        let turns = |max, bounded, n| raise(LimitKind::Turns, max, bounded, n);
        let callbacks = |max, bounded, n| raise(LimitKind::Callbacks, max, bounded, n);
        // `interval 1 "tick"`: one callback, counted once.
        assert_eq!(
            turns(1_000_001, false, 1).as_deref(),
            Some("1,000,000 plus 1 per callback the file schedules, an endless chain counted once")
        );
        assert_eq!(
            turns(1_000_250, true, 250).as_deref(),
            Some("1,000,000 plus 1 per callback the file schedules")
        );
        assert_eq!(
            turns(CAP, true, 49_000_000).as_deref(),
            Some("1,000,000 plus 1 per callback the file schedules, capped at 10,000,000")
        );
        assert_eq!(
            callbacks(7_000_001, false, 6_000_001).as_deref(),
            Some("1,000,000 plus 1 per callback the file schedules, an endless chain counted once, above the default 5,000,000")
        );
        // Not raised: the default itself, a flag's value, the statement limit.
        assert_eq!(turns(1_000_000, false, 0), None);
        assert_eq!(callbacks(5_000_000, false, 2), None);
        assert_eq!(turns(50, false, 1), None);
        assert_eq!(callbacks(70_000_010, false, 6_000_001), None);
        assert_eq!(raise(LimitKind::Output, 2_000_000, false, 1), None);
        assert_eq!(
            limit_source(LimitKind::Turns, 1_000_001, false, Some(1)),
            "the turn limit: 1,000,000 plus 1 per callback the file schedules, an endless chain counted once; --max-turns"
        );
        assert_eq!(limit_source(LimitKind::Turns, 1_000_001, false, None), "--max-turns");
        assert_eq!(limit_source(LimitKind::Callbacks, 5_000_000, false, Some(2)), "--max-callbacks");
    }
}
