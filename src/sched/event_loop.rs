//! What a running callback can do to the loop, and what the loop asks of the
//! interpreter. Two loops implement [`EventLoop`]: the seed model
//! ([`Scheduler`](super::Scheduler)) and real Node 20 with its unknown timings
//! (`crate::orders`).

use super::{Ctx, Handle, LimitKind, LoopEvent, Phase, Queued, Waiting};

/// The scheduling API a callback body uses (`setTimeout`, `setImmediate` …).
/// Times are in ticks.
pub trait EventLoop<C> {
    /// The clock, in ticks.
    fn now(&self) -> u64;
    /// The current turn (0 during a CommonJS main module).
    fn turn(&self) -> u64;
    /// What is still queued, for limit diagnostics.
    fn waiting(&self) -> Waiting;
    /// Each queued callback and where it waits (the seed model's loop: the
    /// playground's step-through); by default, none.
    fn each_queued(&self, _f: &mut dyn FnMut(Queued, &C)) {}
    /// `setTimeout(cb, delay)`: due at `now + coerce_delay(delay)` (rule 3).
    fn set_timeout(&mut self, delay: u64, cb: C) -> Handle;
    /// `setInterval(cb, delay)`: like a timeout, re-armed from each run's start.
    fn set_interval(&mut self, delay: u64, cb: C) -> Handle;
    /// `setImmediate(cb)`: queued for the check phase.
    fn set_immediate(&mut self, cb: C) -> Handle;
    /// `clearTimeout`/`clearInterval`/`clearImmediate`: a callback not yet run
    /// does not run, even if already due in the current phase. Returns whether
    /// something live was cleared; stale handles are ignored.
    fn clear(&mut self, handle: Handle) -> bool;
    /// `process.nextTick(cb)`.
    fn next_tick(&mut self, cb: C);
    /// `queueMicrotask(cb)` or a promise reaction.
    fn queue_microtask(&mut self, cb: C);
    /// Thread-pool work of `ticks` ticks (rule 4).
    fn submit(&mut self, ticks: u64, cb: C);
    /// I/O outside the pool, ready for poll `after` ticks from now.
    fn io(&mut self, after: u64, cb: C);
    /// A callback libuv defers to the pending phase (`uv__io_feed`).
    fn defer_pending(&mut self, cb: C);
    /// A handle's close callback (`uv_close`): run LIFO in the close phase.
    fn close(&mut self, cb: C);
    /// `work n`: synchronous CPU work; the clock moves, pool threads go on (rule 5).
    fn work(&mut self, ticks: u64);
}

/// The interpreter side: runs callbacks, observes the loop `L`.
pub trait Host<C, L: ?Sized> {
    /// Why the host stopped the run.
    type Stop;
    /// Runs one callback (taken off its queue: lent, not copied once more);
    /// it may schedule more through `sched`.
    fn call(&mut self, sched: &mut L, cb: &C, ctx: Ctx<'_>) -> Result<(), Self::Stop>;
    /// A limit was hit. `phase`: where the callback about to run (callback
    /// limit) or the last callback (turn limit) runs.
    fn limit(&mut self, sched: &L, kind: LimitKind, phase: Phase) -> Self::Stop;
    /// The end of a between-callbacks drain: the nextTick and microtask
    /// queues are both empty (Node's `processTicksAndRejections`,
    /// `lib/internal/process/task_queues.js`, calls `processPromiseRejections`
    /// there: rule 8k). Returns whether the drain goes round again (a
    /// listener ran and may have queued work). Default: nothing to do.
    fn drain_end(&mut self, _sched: &mut L) -> Result<bool, Self::Stop> {
        Ok(false)
    }
    /// A hint that `cb` is likely to be called soon, about `distance`
    /// callbacks from now (the timers phase's next lists; each callback is
    /// hinted at distance 4, then at 2): the host may prefetch what calling
    /// it reads ([`super::prefetch`]), at 4 what `cb` points to, at 2 what
    /// that points to. It must not change any state. Default: nothing.
    #[inline]
    fn fetch_ahead(&self, _cb: &C, _distance: usize) {}
    /// Observes a loop event (verbose traces). Default: ignore.
    fn observe(&mut self, _event: LoopEvent) {}
    /// Feeds the host's state to `h`, so that a search over schedules can
    /// tell equal states apart: everything its future depends on, of the log
    /// so far only the lines' count and bytes (the lines themselves are
    /// [`Host::log_so_far`]). Default: nothing.
    fn fingerprint(&self, _h: &mut dyn std::hash::Hasher) {}
    /// The log so far, for a search that keys states with it or without it
    /// (docs/orders.md "Memoised states"). Default: none.
    fn log_so_far(&self) -> LogSoFar {
        LogSoFar::default()
    }
}

/// The lines a host logged so far, as a search over schedules keys them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct LogSoFar {
    /// A running hash of the lines' texts, in order.
    pub hash: u64,
    /// How many lines.
    pub lines: usize,
    /// A running hash of where each line was logged from (statement and
    /// `{i}`), when recorded: two logs of the same texts from other
    /// statements stand for other orders once commuting completions are
    /// moved (their blocks are found by where their lines came from).
    pub origins: u64,
}
