//! How many callbacks a file's bounded statements can run at most, so that
//! the default limits never stop a finite run (docs/scheduling.md rule 7).
//!
//! A file is finite unless it has an `interval` without `times` or an
//! `again` without `times`; everything else runs a number of times fixed by
//! `repeat` counts and `times`. The default limits are raised above that
//! number, up to a cap that keeps any run under a few seconds.

use crate::sched::Limits;
use crate::syntax::ast::{Callback, File, Kind, Stmt, StmtKind};

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
    let need = callbacks(file).saturating_add(1_000_000).min(CAP);
    Limits {
        max_turns: base.max_turns.max(need),
        max_callbacks: base.max_callbacks.max(need),
    }
}

/// The first statement (in source order) that repeats until a limit stops
/// it: an `interval` without `times`, or a callback (or `.then` link) whose
/// body has an `again` and no `times`.
pub fn first_unbounded(stmts: &[Stmt]) -> Option<crate::syntax::ast::Span> {
    stmts.iter().find_map(|s| match &s.kind {
        StmtKind::Repeat { body, .. } => first_unbounded(body),
        StmtKind::Callback(cb) => {
            let body = cb.body().unwrap_or(&[]);
            let repeats = cb.kind == Kind::Interval || has_again(body);
            if repeats && cb.times().is_none() {
                return Some(cb.span);
            }
            let link = cb
                .links()
                .iter()
                .find(|l| l.times.is_none() && l.body.as_deref().is_some_and(has_again))
                .map(|l| l.span);
            link.or_else(|| first_unbounded(body))
                .or_else(|| cb.links().iter().find_map(|l| first_unbounded(l.body.as_deref().unwrap_or(&[]))))
        }
        _ => None,
    })
}

fn block(stmts: &[Stmt]) -> u64 {
    stmts.iter().fold(0u64, |sum, s| sum.saturating_add(statement(s)))
}

fn statement(stmt: &Stmt) -> u64 {
    match &stmt.kind {
        StmtKind::Repeat { count, body } => block(body).saturating_mul(count.value),
        StmtKind::Callback(cb) => callback(cb),
        _ => 0,
    }
}

fn callback(cb: &Callback) -> u64 {
    let body = cb.body().map_or(0, block);
    let repeats = cb.kind == Kind::Interval || cb.body().is_some_and(has_again);
    let runs = match cb.times() {
        Some(t) => t.value,
        None if repeats => 1,
        None => 1,
    };
    let links = cb.links().iter().fold(0u64, |sum, l| {
        let runs = l.times.map_or(1, |t| t.value);
        let body = l.body.as_deref().map_or(0, block);
        sum.saturating_add(runs.saturating_mul(body.saturating_add(1)))
    });
    runs.saturating_mul(body.saturating_add(1)).saturating_add(links)
}

/// An `again` in this body (not in a nested callback's).
fn has_again(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Again => true,
        StmtKind::Repeat { body, .. } => has_again(body),
        _ => false,
    })
}
