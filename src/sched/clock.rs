//! What differs between the loops the one scheduler runs: the clock, where
//! the loop waits, which completions a poll phase finds ready. A [`Timing`]
//! says it; the queues, phases and drains are the scheduler's alone.
//!
//! [`ExactClock`] is the seed model (docs/scheduling.md): the clock is read
//! exactly, the loop sleeps at a turn's start (rule 2a) and a turn lasts at
//! least a tick (rule 2g). The all-orders explorer's timing, whose clock
//! readings and completion orders are choices, is `crate::orders::node20`.
//! Times are in ticks.

use super::{Completion, LoopState, Phase, Slept};
use std::fmt::Display;
use std::hash::Hasher;

/// A moment the loop reads the clock at, and what the reading is for.
pub enum Reading<'a, C> {
    /// The entry of turn `turn`'s timers phase (`uv__run_timers` reads `loop->time`).
    TimersPhase { turn: u64 },
    /// A timers phase run again (`RunTimers` reads the clock afresh).
    TimersRerun,
    /// An interval's callback starts (`listOnTimeout` re-arms from `getLibuvNow()`).
    IntervalStart(&'a C),
    /// `setTimeout`/`setInterval` (`getLibuvNow()` in `insert`).
    TimerSet(&'a C),
    /// An `io` or pool job starts.
    Started(&'a C),
    /// The entry of turn `turn`'s poll phase.
    PollPhase { turn: u64 },
}

impl<C> Reading<'_, C> {
    /// Whether the reading updates libuv's cached loop time, the `L` of
    /// docs/scheduling.md rule 3: the timers phase's entry and re-run, a
    /// timer being set, an interval's start (Node's `getLibuvNow()`).
    pub fn reads_loop_time(&self) -> bool {
        matches!(
            self,
            Reading::TimersPhase { .. } | Reading::TimersRerun | Reading::IntervalStart(_) | Reading::TimerSet(_)
        )
    }
}

impl<C: Display> Reading<'_, C> {
    /// "the timers phase of turn 2", "timeout \"a\" was set", …
    pub fn describe(&self) -> String {
        match self {
            Reading::TimersPhase { turn } => format!("the timers phase of turn {turn}"),
            Reading::TimersRerun => "a timers phase run again".to_string(),
            Reading::IntervalStart(cb) | Reading::Started(cb) => format!("{cb} started"),
            Reading::TimerSet(cb) => format!("{cb} was set"),
            Reading::PollPhase { turn } => format!("the poll phase of turn {turn}"),
        }
    }
}

/// The timing of a loop: what the seed model and real Node 20 (with its
/// unknown timings) do differently. Every method is handed the loop's state.
pub trait Timing<C> {
    /// Why a schedule is abandoned ([`std::convert::Infallible`] when never).
    type Prune;
    /// Whether pool threads' events reach the host ([`super::LoopEvent::Pool`]).
    const REPORTS_POOL: bool;
    /// A turn begins (after `turn += 1`): the seed model may sleep here
    /// (rule 2a; returns the sleep), the explorer may abandon the schedule
    /// (`Err`). `host` feeds the host's state to a hasher; `log` is the
    /// host's log so far ([`super::Host::log_so_far`]).
    fn turn_begins(
        &mut self,
        state: &mut LoopState<C>,
        host: &dyn Fn(&mut dyn Hasher),
        log: super::LogSoFar,
    ) -> Result<Option<Slept>, Self::Prune>;
    /// Reads the clock at `what`; `offset` is what the reading will be
    /// compared with later (a delay, a job's length). Returns the reading.
    fn read(&mut self, state: &mut LoopState<C>, offset: u64, what: Reading<'_, C>) -> u64;
    /// A unit begins: a callback, the main module, the stretch before the
    /// first turn.
    fn unit_begins(&mut self);
    /// After the timers phase: whether the turn goes on.
    fn after_timers_phase(&mut self, state: &LoopState<C>) -> bool;
    /// `phase` begins: the pending phase (after the timers phase) or the
    /// poll phase (its clock read and an ES module body run). The explorer
    /// may abandon the schedule here too (`Err`), as at a turn's start.
    /// `host` and `log` as for [`Timing::turn_begins`].
    fn phase_begins(
        &mut self,
        _phase: Phase,
        _state: &mut LoopState<C>,
        _host: &dyn Fn(&mut dyn Hasher),
        _log: super::LogSoFar,
    ) -> Result<(), Self::Prune> {
        Ok(())
    }
    /// The completions the poll phase entered at clock `entry` runs, in order.
    fn poll_ready(&mut self, state: &mut LoopState<C>, entry: u64) -> Vec<Completion<C>>;
    /// A turn that began (after any sleep) at `turn_start` ends (rule 2g in the seed model).
    fn turn_ends(&mut self, state: &mut LoopState<C>, turn_start: u64);
    /// A callback did `work ticks` on the main thread (rule 5).
    fn work_done(&mut self, state: &mut LoopState<C>, ticks: u64);
}

/// The seed model's clock (docs/scheduling.md): exact readings, a sleep at a
/// turn's start, a turn of at least one tick.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExactClock;

impl<C> Timing<C> for ExactClock {
    type Prune = std::convert::Infallible;
    const REPORTS_POOL: bool = true;

    fn turn_begins(&mut self, s: &mut LoopState<C>, _: &dyn Fn(&mut dyn Hasher), _: super::LogSoFar) -> Result<Option<Slept>, Self::Prune> {
        Ok(ExactClock::sleep(s))
    }

    fn read(&mut self, s: &mut LoopState<C>, _offset: u64, what: Reading<'_, C>) -> u64 {
        if what.reads_loop_time() {
            s.last_reading = s.now;
        }
        s.now
    }

    fn unit_begins(&mut self) {}

    fn after_timers_phase(&mut self, _: &LoopState<C>) -> bool {
        true
    }

    /// Rule 2d's readiness: the watchers started since the last poll phase
    /// are registered, then every completion ready at `now` (the clock after
    /// an ES module body) runs, in the order epoll reports them.
    fn poll_ready(&mut self, s: &mut LoopState<C>, _entry: u64) -> Vec<Completion<C>> {
        s.advance_pool();
        s.pool.register_watchers(s.now);
        s.pool.take_ready(s.now)
    }

    fn turn_ends(&mut self, s: &mut LoopState<C>, turn_start: u64) {
        ExactClock::end_of_turn(s, turn_start);
    }

    fn work_done(&mut self, s: &mut LoopState<C>, ticks: u64) {
        ExactClock::synchronous_work(s, ticks);
    }
}

impl ExactClock {
    /// Rule 2a — sleep: with nothing ready for this turn (libuv's
    /// `uv__backend_timeout` is not 0 and no completion is ready), the clock
    /// jumps to the earliest of Node's timer handle and the next I/O or pool
    /// completion, if that is later.
    pub fn sleep<C>(s: &mut LoopState<C>) -> Option<Slept> {
        let ready = s.pool.next_ready().is_some_and(|t| t <= s.now) || s.backend_timeout_is_zero() || s.main.is_some();
        if ready {
            return None;
        }
        let wake = match (s.timers.handle_due(), s.pool.next_ready()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let to = wake.filter(|&to| to > s.now)?;
        let from = s.now;
        // libuv sleeps in the poll phase, its new watchers registered first (rule 2d).
        s.pool.register_watchers(from);
        s.now = to;
        s.advance_pool();
        Some(Slept { from, to })
    }

    /// Rule 2g — end of turn: `now = max(now, turn_start + 1)`.
    pub fn end_of_turn<C>(s: &mut LoopState<C>, turn_start: u64) {
        s.now = s.now.max(turn_start.saturating_add(1));
        s.advance_pool();
    }

    /// Rule 5 — synchronous work: the clock moves; pool threads go on.
    pub fn synchronous_work<C>(s: &mut LoopState<C>, ticks: u64) {
        s.now = s.now.saturating_add(ticks);
        s.advance_pool();
    }
}
