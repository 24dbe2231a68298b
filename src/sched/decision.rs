//! Decisions as data: when the scheduler runs a callback it hands the host a
//! [`Decision`] (in [`Ctx`](super::Ctx)): the rule of docs/scheduling.md that
//! placed the callback there and the facts that rule used. `--explain`, the
//! failed-prediction messages and anything else that says *why* a line ran
//! read this record; none of them re-derive it.
//!
//! Recording costs a few facts per queued callback (where it was queued), so
//! it is off unless the host asks ([`Scheduler::with_decisions`](super::Scheduler::with_decisions)):
//! then the facts live in side tables ([`Facts`]), never in the timer nodes.
//! Times are in ticks.

use super::{coerce_delay, Module, Phase, TimerId, TIMEOUT_MAX};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Why a callback runs where it runs: the rule that placed it, with its facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Not recorded: the host did not ask for decisions.
    Unrecorded,
    /// Rule 1: the main module (CommonJS at turn 0, an ES module inside turn 1's poll phase).
    MainModule(super::Entry),
    /// Rule 3: a timeout ran in a timers phase once due.
    Timeout {
        /// The clock reading when it was set, in ticks.
        set_at: u64,
        /// `set_at` plus the coerced delay.
        due: u64,
        /// How Node changed the delay as written, if it did.
        coerced: Option<Coercion>,
        /// The clock reading the timers phase compared due ticks with (its entry, or its re-run).
        phase_clock: u64,
        /// Which turn rule made it wait, if one is worth telling.
        turn: TimerTurn,
        /// What happened between due and run.
        before: Before,
    },
    /// Rule 3: run `run` (1-based) of an interval, re-armed `delay` ticks
    /// (coerced as [`coerce_delay`] does) after the previous run started.
    Interval {
        /// The run's number, from 1.
        run: u64,
        /// The delay as written, in ticks (0 and above [`TIMEOUT_MAX`] mean 1).
        delay: u64,
        /// The loop slept before this turn's timers phase.
        slept: Option<Slept>,
    },
    /// Rule 2e: an immediate, and when it was queued relative to the check phase's snapshot.
    Immediate(ImmediateQueued),
    /// Rule 6 (and rule 1 for an ES module body): a nextTick or microtask,
    /// and which drain ran it.
    Drained {
        /// [`Phase::NextTick`] or [`Phase::Microtask`].
        queue: Phase,
        /// Which drain ran it, given what queued it.
        drain: Drain,
    },
    /// Rule 2d: I/O that arrived at tick `arrived`, run by the first poll phase to find it ready.
    Io {
        /// The tick the bytes arrived at (ready for poll).
        arrived: u64,
        /// The loop slept in poll before this turn's timers phase.
        slept: Option<Slept>,
        /// `Some(tick)`: it arrived before its watcher was registered, which
        /// the poll phase entered at `tick` did (rule 2d).
        joined: Option<u64>,
    },
    /// Rule 4: a thread-pool job, run by the first poll phase after it was ready.
    PoolJob(PoolJob),
    /// Rules 2c/2d: a pending callback, and where it was deferred.
    Pending(Deferred),
    /// Rule 2f: a close callback (the close queue at phase entry, last in first out).
    Close,
}

/// A thread-pool job's facts (rule 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolJob {
    /// The pool thread (1-based) that ran the job.
    pub thread: usize,
    /// Tick it was submitted at.
    pub queued: u64,
    /// Tick a thread took it.
    pub start: u64,
    /// Its ticks of work.
    pub work: u64,
    /// Whether all threads were busy at `queued`, so that it waited in the FIFO.
    pub waited: bool,
    /// Tick its callback became ready for poll (`start` plus its ticks of work).
    pub ready: u64,
    /// Threads in the pool.
    pub pool_size: usize,
    /// The loop slept in poll before this turn's timers phase.
    pub slept: Option<Slept>,
    /// `Some(tick)`: it was ready before the pool's watcher was registered,
    /// which turn 1's poll phase, entered at `tick`, did (rule 2d).
    pub joined: Option<u64>,
}

/// The loop slept (rule 2a) from tick `from` to tick `to` at the start of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slept {
    /// The clock when the loop went to sleep, in ticks.
    pub from: u64,
    /// The clock it woke at: Node's timer handle or the next completion.
    pub to: u64,
}

/// How Node coerced a timer's delay (`Timeout` constructor, rule 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coercion {
    /// A delay of 0 became 1.
    Zero,
    /// A delay above [`TIMEOUT_MAX`] became 1.
    AboveMax,
}

impl Coercion {
    /// How `delay`, as written, is coerced by [`coerce_delay`], if it is.
    pub fn of(delay: u64) -> Option<Coercion> {
        match delay {
            0 => Some(Coercion::Zero),
            d if d > TIMEOUT_MAX => Some(Coercion::AboveMax),
            _ => None,
        }
    }
}

/// Which turn rule a timeout's run followed, as `--explain` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerTurn {
    /// Set by the main module: the first timers phase that found it due ran it (rule 3).
    FromMainModule,
    /// Set during turn `set_turn`'s timers phase, which compares with its entry clock:
    /// it ran in a later turn (rule 3).
    SetDuringTimersPhase { set_turn: u64 },
    /// Set after turn `set_turn`'s timers phase (pending, poll, check or close
    /// phase), it ran in the next turn, on time (rule 2).
    SetAfterTimersPhase { set_turn: u64 },
    /// None of the above is worth telling.
    Plain,
}

/// What happened between a timer's due tick and its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Before {
    /// Nothing worth telling.
    Nothing,
    /// Nothing else was ready: the loop slept at the start of its turn (rule 2a).
    Slept(Slept),
    /// The loop did not sleep this turn, and it ran more than a tick after
    /// due: the main thread was busy with `work` until tick `until` (rule 5).
    /// A run one tick after due is not called late.
    Busy { until: u64 },
}

/// When an immediate was queued, relative to the check phase that ran it (rule 2e).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImmediateQueued {
    /// By the CommonJS main module: turn 1's check phase is the first.
    ByMainModule,
    /// Earlier in the turn than the check phase (timers, pending, poll, an ES module body).
    EarlierInTurn,
    /// During a check phase, after its snapshot: the next turn's check phase ran it.
    DuringCheckPhase,
    /// During a close phase: the next turn's check phase ran it.
    DuringClosePhase,
}

/// Which drain ran a nextTick or microtask (rule 6), given what queued it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drain {
    /// The drain right after the callback that queued it.
    AfterItsCallback,
    /// A nextTick queued by a microtask: it waited for the whole microtask queue.
    AfterMicrotaskQueue,
    /// A microtask queued by an ES module's body, itself a microtask: the
    /// microtask queue ran before any nextTick (rule 1).
    EsModuleBody,
    /// Node 10's rule: queued by a timer, it waited for the whole list of due timers.
    AfterTimerList,
    /// Node 10's rule: queued by an immediate, it waited for the whole check phase.
    AfterCheckPhase,
}

/// Where a pending callback was deferred (rules 2c, 2d).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deferred {
    /// From the timers phase: the same turn's pending phase ran it.
    FromTimersPhase,
    /// During the pending or poll phase: the pending rounds right after poll ran it.
    DuringPoll,
    /// Anywhere else (main module, check, close): the next turn's pending phase ran it.
    Elsewhere,
}

/// Which drain is running (set where the loop calls it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DrainAfter {
    /// After one callback.
    Callback,
    /// After a whole list of due timers (Node 10).
    TimerList,
    /// After the whole check phase (Node 10).
    CheckPhase,
}

/// Where and when a timer was set: (turn, tick, loop phase, delay as written).
#[derive(Debug, Clone, Copy)]
struct TimerSet {
    turn: u64,
    tick: u64,
    loop_phase: Phase,
    delay: u64,
}

/// The facts recorded per queued callback while decisions are on: side
/// tables, so that the queues and timer nodes stay as small without them.
#[derive(Clone, Default)]
pub(crate) struct Facts {
    timers: FxHashMap<TimerId, TimerSet>,
    /// The phase of the callback that queued each nextTick / microtask, in queue order.
    pub next_ticks: VecDeque<Phase>,
    pub microtasks: VecDeque<Phase>,
    /// The loop phase each pending callback / immediate was queued in, in queue order.
    pub pending: VecDeque<Phase>,
    pub check: VecDeque<Phase>,
    /// The tick each pool job (by job number - 1) was submitted at, and its ticks of work.
    pub jobs: Vec<(u64, u64)>,
}

/// What a timer's decision needs besides the facts of its setting.
pub(crate) struct TimerRun {
    pub id: TimerId,
    pub turn: u64,
    pub now: u64,
    pub phase_clock: u64,
    pub slept: Option<Slept>,
}

impl Facts {
    /// A timer was set at `tick` of `turn`, during `loop_phase`, with `delay` as written.
    pub fn timer_set(&mut self, id: TimerId, turn: u64, tick: u64, loop_phase: Phase, delay: u64) {
        self.timers.insert(
            id,
            TimerSet {
                turn,
                tick,
                loop_phase,
                delay,
            },
        );
    }

    /// A timer was cleared: its facts go.
    pub fn timer_cleared(&mut self, id: TimerId) {
        self.timers.remove(&id);
    }

    /// A timeout runs (its facts go): due at its set tick plus the coerced
    /// delay; which turn rule it followed; whether it ran late (rules 2, 3, 5).
    pub fn timeout(&mut self, run: TimerRun) -> Decision {
        let Some(set) = self.timers.remove(&run.id) else {
            return Decision::Unrecorded;
        };
        let due = set.tick.saturating_add(coerce_delay(set.delay));
        let after_timers_phase = matches!(set.loop_phase, Phase::Pending | Phase::Poll | Phase::Check | Phase::Close);
        let turn = if set.loop_phase == Phase::Timers && run.turn > set.turn {
            TimerTurn::SetDuringTimersPhase { set_turn: set.turn }
        } else if after_timers_phase && run.turn == set.turn.saturating_add(1) && run.now <= due {
            TimerTurn::SetAfterTimersPhase { set_turn: set.turn }
        } else if set.turn == 0 {
            TimerTurn::FromMainModule
        } else {
            TimerTurn::Plain
        };
        let before = match run.slept {
            Some(s) => Before::Slept(s),
            None if run.now > due.saturating_add(1) => Before::Busy { until: run.now },
            None => Before::Nothing,
        };
        Decision::Timeout {
            set_at: set.tick,
            due,
            coerced: Coercion::of(set.delay),
            phase_clock: run.phase_clock,
            turn,
            before,
        }
    }

    /// Run `n` of an interval (its facts stay for the next run).
    pub fn interval(&self, id: TimerId, n: u64, slept: Option<Slept>) -> Decision {
        match self.timers.get(&id) {
            Some(set) => Decision::Interval {
                run: n,
                delay: set.delay,
                slept,
            },
            None => Decision::Unrecorded,
        }
    }
}

/// The decision for a nextTick or microtask queued by a callback of phase
/// `queued_by`, run by the drain after `point` (rule 6; rule 1 for an ES
/// module body). A callback queued by a timer or an immediate and drained
/// after the whole timer list or check phase follows Node 10's rule; one
/// queued by a microtask (a `.then` link, an `again`) does not.
pub(crate) fn drained(queue: Phase, queued_by: Phase, point: DrainAfter, module: Module) -> Decision {
    let drain = match (queue, queued_by, point) {
        (Phase::NextTick, Phase::Microtask, _) => Drain::AfterMicrotaskQueue,
        // The ES module's body is itself a microtask: its nextTicks wait for the microtask queue.
        (Phase::NextTick, Phase::Main, _) if module == Module::Esm => Drain::AfterMicrotaskQueue,
        (Phase::Microtask, Phase::Main, _) if module == Module::Esm => Drain::EsModuleBody,
        (_, Phase::Timers, DrainAfter::TimerList) => Drain::AfterTimerList,
        (_, Phase::Check, DrainAfter::CheckPhase) => Drain::AfterCheckPhase,
        _ => Drain::AfterItsCallback,
    };
    Decision::Drained { queue, drain }
}

/// The decision for an immediate queued during `loop_phase` (rule 2e).
pub(crate) fn immediate(loop_phase: Phase) -> Decision {
    Decision::Immediate(match loop_phase {
        Phase::Main => ImmediateQueued::ByMainModule,
        Phase::Check => ImmediateQueued::DuringCheckPhase,
        Phase::Close => ImmediateQueued::DuringClosePhase,
        _ => ImmediateQueued::EarlierInTurn,
    })
}

/// The decision for a pending callback deferred during `loop_phase` (rules 2c, 2d).
pub(crate) fn pending(loop_phase: Phase) -> Decision {
    Decision::Pending(match loop_phase {
        Phase::Timers => Deferred::FromTimersPhase,
        Phase::Poll | Phase::Pending => Deferred::DuringPoll,
        _ => Deferred::Elsewhere,
    })
}

#[cfg(test)]
mod tests;
