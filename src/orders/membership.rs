//! "Can real Node print this order?" — decided exactly by a search guided by
//! the order itself, behind `check` and `test`.
//!
//! The search is the one of [`super::all_orders`] with no deviation budget,
//! but every schedule stops at its first log line that is not the predicted
//! one there. So the search only walks the schedules that agree with the
//! prediction so far: it answers a membership question without enumerating
//! the orders, and it is exact whenever it runs to the end (no bound hit).

use super::{replay, End, Ended, Search, SearchBounds};
use crate::interp::{self, RunOptions};
use crate::syntax::ast::File;

/// The answer to "can real Node print these log lines, in this order?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Membership {
    /// Yes: a schedule prints exactly this order; `race` says what timing
    /// produces it (as in [`super::Order::race`]).
    Possible { race: String },
    /// No: every schedule that agrees with the prediction so far was
    /// explored. `parting`: where the closest of them left it (`None` when
    /// the answer came from a list of every order, not this search).
    Impossible { parting: Option<Parting> },
    /// A search bound was hit before an answer: nothing is claimed.
    Undecided { cut: super::Cut },
}

/// Where the orders Node can print part from an order it cannot print: the
/// schedule that agreed with most of its first lines (the first such, in the
/// search's order: the closest to the default timing), and what it printed
/// next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parting {
    /// How many of the order's first lines it printed, in that order.
    pub agreed: usize,
    /// The line it printed next, instead of line `agreed + 1` or past the
    /// order's end; `None`: it printed no more (or ended otherwise: stopped
    /// by a limit, or by an unhandled rejection, where the order is not).
    pub next: Option<String>,
    /// How it ended, when it printed every line of the order and ended
    /// otherwise than the order says (exit code 0 where the order names
    /// `unhandled`, …).
    pub ended: Option<End>,
}

impl Parting {
    /// The closer of `best` (none yet: `None`) and how one schedule ended
    /// (`logs`: its lines, the last one not the target's when `diverged`;
    /// `ended`: its end, when it printed every line of the target and ended
    /// otherwise). Of two that agree as far, the first, unless only the
    /// second printed every line and ended otherwise.
    fn closer(best: Option<Parting>, mut logs: Vec<String>, diverged: bool, ended: Option<End>) -> Option<Parting> {
        let next = if diverged { logs.pop() } else { None };
        match best {
            Some(best) if best.agreed > logs.len() || (best.agreed == logs.len() && (ended.is_none() || best.ended.is_some())) => {
                Some(best)
            }
            _ => Some(Parting {
                agreed: logs.len(),
                next,
                ended,
            }),
        }
    }

    /// "the closest order Node can print agrees with its first 2 lines, then
    /// prints "j"" (or "then ends"), for at least one line agreed.
    pub fn closest(&self) -> String {
        let first = match self.agreed {
            1 => "its first line".to_string(),
            n => format!("its first {n} lines"),
        };
        match &self.next {
            Some(next) => format!("the closest order Node can print agrees with {first}, then prints {next:?}"),
            None => format!("the closest order Node can print agrees with {first}, then ends"),
        }
    }
}

/// Whether real Node can print `logs` and end as `end` says, searching only
/// schedules that agree with `logs` so far.
pub fn can_print(file: &File, src: &str, opts: RunOptions, logs: &[String], end: End, bounds: SearchBounds) -> Membership {
    let deadline = bounds.time_limit.map(|t| (web_time::Instant::now() + t, t.as_secs()));
    can_print_until(file, src, opts, logs, end, bounds, deadline)
}

/// [`can_print`] with its time bound given as a deadline (and the seconds it
/// stands for, for the message), which several searches may share; not
/// `bounds.time_limit`.
pub fn can_print_until(
    file: &File,
    src: &str,
    opts: RunOptions,
    logs: &[String],
    end: End,
    bounds: SearchBounds,
    deadline: Option<(web_time::Instant, u64)>,
) -> Membership {
    let opts = interp::resolve_limits(file, opts);
    let mut search = Search {
        budget: usize::MAX,
        deadline,
        max_states: bounds.max_states,
        past_as_one: bounds.past_as_one,
        settle: bounds.settle,
        // An order a limit stopped: a state met at two turns has two futures
        // (the turn limit cuts them in different places), as in the search
        // for every order when the model's run was stopped. Without it,
        // "i", "t", then 29 lines of a chain under `--max-turns 30`, which
        // `run --all-orders` lists, was "no timing of the loop gives this
        // order".
        keys_turns: end.stopped(),
        anonymous_timers: bounds.leaves_slots_out(interp::has_clear(&file.body)),
        ..Search::default()
    };
    search.restart(Vec::new());
    let (mut schedules, mut callbacks, mut statements) = (0usize, 0u64, 0u64);
    let mut parting = None;
    loop {
        let (ended, spent) = replay(file, src, opts, &mut search, Some(logs));
        let (printed, ended) = match ended {
            Ended::Order { logs, end } => (Some(logs), end),
            Ended::Diverged { logs } => {
                parting = Parting::closer(parting, logs, true, None);
                (None, End::Exit)
            }
            Ended::Pruned { .. } | Ended::Nothing => (None, End::Exit),
        };
        schedules += 1;
        if let Some(progress) = bounds.progress {
            progress.schedule();
        }
        callbacks = callbacks.saturating_add(spent.callbacks);
        statements = statements.saturating_add(spent.statements);
        match printed {
            Some(printed) if printed == logs && ended == end => {
                return Membership::Possible {
                    race: search.race.clone().unwrap_or_else(|| super::NO_CROSSING.to_string()),
                };
            }
            // The same lines ended otherwise, or fewer lines (a prefix of the target's).
            Some(printed) => {
                // (Not in the WebAssembly build, whose help does not say how it ends.)
                let otherwise = (!cfg!(target_family = "wasm") && printed == logs).then_some(ended);
                parting = Parting::closer(parting, printed, false, otherwise);
            }
            None => {}
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
            None => return Membership::Impossible { parting },
            Some(prefix) => search.restart(prefix),
        }
    }
}
