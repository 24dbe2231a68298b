//! "Can real Node print this order?" — decided exactly by a search guided by
//! the order itself, behind `check` and `test`.
//!
//! The search is the one of [`super::all_orders`] with no deviation budget,
//! but every schedule stops at its first log line that is not the predicted
//! one there. So the search only walks the schedules that agree with the
//! prediction so far: it answers a membership question without enumerating
//! the orders, and it is exact whenever it runs to the end (no bound hit).

use super::{replay, Search, SearchBounds};
use crate::interp::{self, RunOptions};
use crate::syntax::ast::File;

/// The answer to "can real Node print these log lines, in this order?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Membership {
    /// Yes: a schedule prints exactly this order; `race` says what timing
    /// produces it (as in [`super::Order::race`]).
    Possible { race: String },
    /// No: every schedule that agrees with the prediction so far was explored.
    Impossible,
    /// A search bound was hit before an answer: nothing is claimed.
    Undecided { cut: super::Cut },
}

/// Whether real Node can print `logs` (and end stopped by a limit when
/// `stopped`), searching only schedules that agree with `logs` so far.
pub fn can_print(file: &File, src: &str, opts: RunOptions, logs: &[String], stopped: bool, bounds: SearchBounds) -> Membership {
    let deadline = bounds.time_limit.map(|t| (web_time::Instant::now() + t, t.as_secs()));
    can_print_until(file, src, opts, logs, stopped, bounds, deadline)
}

/// [`can_print`] with its time bound given as a deadline (and the seconds it
/// stands for, for the message), which several searches may share; not
/// `bounds.time_limit`.
pub fn can_print_until(
    file: &File,
    src: &str,
    opts: RunOptions,
    logs: &[String],
    stopped: bool,
    bounds: SearchBounds,
    deadline: Option<(web_time::Instant, u64)>,
) -> Membership {
    let opts = interp::resolve_limits(file, opts);
    let mut search = Search {
        budget: usize::MAX,
        deadline,
        max_states: bounds.max_states,
        past_as_one: bounds.past_as_one,
        anonymous_timers: bounds.leaves_slots_out(interp::has_clear(&file.body)),
        ..Search::default()
    };
    search.restart(Vec::new());
    let (mut schedules, mut callbacks, mut statements) = (0usize, 0u64, 0u64);
    loop {
        let (printed, ended_stopped, spent) = replay(file, src, opts, &mut search, Some(logs));
        schedules += 1;
        if let Some(progress) = bounds.progress {
            progress.schedule();
        }
        callbacks = callbacks.saturating_add(spent.callbacks);
        statements = statements.saturating_add(spent.statements);
        if printed.as_deref() == Some(logs) && ended_stopped == stopped {
            return Membership::Possible {
                race: search.race.clone().unwrap_or_else(|| super::NO_CROSSING.to_string()),
            };
        }
        if let Some(cut) = search.halted {
            return Membership::Undecided { cut };
        }
        if schedules >= bounds.max_schedules {
            return Membership::Undecided {
                cut: super::Cut::Schedules(schedules),
            };
        }
        if callbacks >= bounds.max_callbacks {
            return Membership::Undecided {
                cut: super::Cut::Callbacks(callbacks),
            };
        }
        if statements >= bounds.max_statements {
            return Membership::Undecided {
                cut: super::Cut::Statements(statements),
            };
        }
        match search.next_prefix() {
            None => return Membership::Impossible,
            Some(prefix) => search.restart(prefix),
        }
    }
}
