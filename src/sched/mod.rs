//! The event-loop scheduler: clock, phases, queues, timers and thread pool.
//!
//! This module is docs/scheduling.md. It knows nothing of `.loop` syntax: a
//! callback is an opaque value `C` that the [`Host`] runs when its turn comes.
//! The host schedules more work through the `&mut Scheduler` it is handed.
//! All times are in ticks.

mod event_loop;
mod phase;
mod pool;
mod timers;

pub use event_loop::{EventLoop, Host};

pub use phase::Phase;
pub use pool::PoolEvent;
pub(crate) use pool::{Completion, ThreadPool};
pub use timers::{coerce_delay, TimerId, TIMEOUT_MAX};
pub(crate) use timers::{Head as TimerHead, NodeTimers};

use std::collections::VecDeque;
use timers::Head;

/// How the main module is loaded (docs/language.md `module`, docs/scheduling.md rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Module {
    /// CommonJS: the body runs at turn 0, then the nextTick-then-microtask drain.
    #[default]
    Cjs,
    /// ES module: the body runs inside turn 1's poll phase, as a microtask.
    Esm,
}

/// Which Node.js the between-callbacks drain follows (docs/scheduling.md rule 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NodeVersion {
    /// Node >= 11 (nodejs/node PR #22842): the nextTick and microtask queues
    /// drain after every callback, timers and immediates included.
    #[default]
    Node20,
    /// Node <= 10: a timer list's callbacks run back to back and the check
    /// phase runs all its immediates before the queues drain.
    Node10,
}

/// Which limit stopped a run (docs/scheduling.md rule 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LimitKind {
    /// More turns than `max_turns`.
    Turns,
    /// More callbacks than `max_callbacks`.
    Callbacks,
    /// The trace grew past its bound (`interp::MAX_TRACE_LOGS`): keeps memory bounded.
    Output,
    /// The log text grew past its bound in bytes (`interp::MAX_TRACE_LOG_BYTES`): keeps memory bounded.
    LogBytes,
    /// Too many callbacks waiting at once (`interp::MAX_WAITING`): keeps memory bounded.
    Waiting,
}

/// Bounds that stop a runaway run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most loop turns a run may take.
    pub max_turns: u64,
    /// Most callbacks a run may call (main module excluded).
    pub max_callbacks: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_turns: 1_000_000,
            max_callbacks: 5_000_000,
        }
    }
}

/// Where and when a callback runs, handed to [`Host::call`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ctx {
    /// Loop turn (0 while the CommonJS main module runs).
    pub turn: u64,
    /// Clock at the callback's start, in ticks.
    pub now: u64,
    /// Where it runs: a phase, or the nextTick/microtask queue.
    pub phase: Phase,
    /// The loop phase the callback runs in or drains after (`Main` for turn 0).
    pub loop_phase: Phase,
    /// The timer or immediate being run (intervals clear themselves with it).
    pub handle: Option<Handle>,
    /// For an interval: the 1-based number of this run.
    pub run: u64,
}

/// What `clear` can cancel: a timeout or interval, or an immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Handle {
    Timer(TimerId),
    Immediate(u64),
}

/// Something the scheduler did, for verbose traces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopEvent {
    /// A new turn begins (clock `now`).
    TurnStart { turn: u64, now: u64 },
    /// The loop slept in poll from tick `from` to tick `to`.
    Sleep { from: u64, to: u64 },
    /// A pool thread started or finished a job.
    Pool(PoolEvent),
    /// The loop has nothing left to do.
    Exit { turn: u64, now: u64 },
}

/// What is still queued when a run stops: "what was left waiting".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Waiting {
    pub timers: usize,
    pub io: usize,
    pub pending: usize,
    pub immediates: usize,
    pub close: usize,
    pub next_ticks: usize,
    pub microtasks: usize,
}

struct Immediate<C> {
    id: u64,
    cb: Option<C>,
}

/// The simulated libuv loop with Node's queues (docs/scheduling.md).
pub struct Scheduler<C> {
    now: u64,
    turn: u64,
    module: Module,
    limits: Limits,
    callbacks: u64,
    seq: u64,
    /// The libuv cached clock: the last clock reading (L in §5 rule 3).
    last_reading: u64,
    timers: NodeTimers<C>,
    pool: ThreadPool<C>,
    pool_log: Vec<PoolEvent>,
    pending: VecDeque<C>,
    check: VecDeque<Immediate<C>>,
    live_immediates: usize,
    close: Vec<C>,
    next_ticks: VecDeque<C>,
    microtasks: VecDeque<C>,
    esm_main: Option<C>,
    loop_phase: Phase,
    /// Where the last callback ran (reported when a limit stops the run).
    last_phase: Phase,
    node: NodeVersion,
}

/// The result of a callback or phase: continue, or stop with the host's reason.
type Step<S> = Result<(), S>;

impl<C: Clone> Scheduler<C> {
    fn clear_immediate(&mut self, id: u64) -> bool {
        let Ok(i) = self.check.binary_search_by_key(&id, |im| im.id) else {
            return false;
        };
        let cleared = self.check[i].cb.take().is_some();
        if cleared {
            self.live_immediates -= 1;
        }
        cleared
    }

    /// A loop at tick 0 with a pool of `pool_size` threads.
    pub fn new(pool_size: usize, module: Module, limits: Limits) -> Self {
        Scheduler {
            now: 0,
            turn: 0,
            module,
            limits,
            callbacks: 0,
            seq: 0,
            last_reading: 0,
            timers: NodeTimers::default(),
            pool: ThreadPool::new(pool_size.max(1)),
            pool_log: Vec::new(),
            pending: VecDeque::new(),
            check: VecDeque::new(),
            live_immediates: 0,
            close: Vec::new(),
            next_ticks: VecDeque::new(),
            microtasks: VecDeque::new(),
            esm_main: None,
            loop_phase: Phase::Main,
            last_phase: Phase::Main,
            node: NodeVersion::default(),
        }
    }

    /// Follows `node`'s drain rule instead of Node 20's.
    pub fn with_node(mut self, node: NodeVersion) -> Self {
        self.node = node;
        self
    }

    /// Callbacks called so far.
    pub fn callbacks(&self) -> u64 {
        self.callbacks
    }

    /// Thread-pool size.
    pub fn pool_size(&self) -> usize {
        self.pool.size()
    }

    /// What is still queued, for limit diagnostics.
    pub fn waiting(&self) -> Waiting {
        Waiting {
            timers: self.timers.live(),
            io: self.pool.outstanding(),
            pending: self.pending.len(),
            immediates: self.live_immediates,
            close: self.close.len(),
            next_ticks: self.next_ticks.len(),
            microtasks: self.microtasks.len(),
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    // ----- running ------------------------------------------------------------

    /// Runs the main module `main`, then the loop until nothing is left
    /// (`uv_run` with `UV_RUN_DEFAULT`).
    ///
    /// # Errors
    /// The host's stop reason: an error it raised, or a limit it was told of.
    pub fn run<H: Host<C, Self>>(&mut self, main: C, host: &mut H) -> Result<(), H::Stop> {
        match self.module {
            Module::Cjs => {
                let ctx = self.ctx(Phase::Main, None, 1);
                host.call(self, main, ctx)?;
                self.flush_pool_log(host);
                self.drain(host)?;
            }
            Module::Esm => self.esm_main = Some(main),
        }
        while self.alive() {
            if self.turn >= self.limits.max_turns {
                return Err(host.limit(self, LimitKind::Turns, self.last_phase));
            }
            self.run_turn(host)?;
        }
        host.observe(LoopEvent::Exit {
            turn: self.turn,
            now: self.now,
        });
        Ok(())
    }

    /// Whether anything keeps the loop alive (`uv__loop_alive`).
    fn alive(&self) -> bool {
        self.timers.live() > 0
            || self.pool.outstanding() > 0
            || self.live_immediates > 0
            || !self.close.is_empty()
            || !self.pending.is_empty()
            || self.esm_main.is_some()
    }

    /// One turn: sleep, timers, pending, poll, check, close (rule 2).
    fn run_turn<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        self.turn += 1;
        host.observe(LoopEvent::TurnStart {
            turn: self.turn,
            now: self.now,
        });
        self.sleep(host);
        let turn_start = self.now;
        self.timers_phase(host)?;
        self.pending_phase(host)?;
        self.poll_phase(host)?;
        self.check_phase(host)?;
        self.close_phase(host)?;
        self.now = self.now.max(turn_start.saturating_add(1));
        self.pool.advance(self.now, &mut self.seq, &mut self.pool_log);
        self.flush_pool_log(host);
        Ok(())
    }

    /// Sleep: with nothing ready, the clock jumps to the earliest of Node's
    /// timer handle and the next I/O or pool completion.
    fn sleep<H: Host<C, Self>>(&mut self, host: &mut H) {
        let ready = self.pool.next_ready().is_some_and(|t| t <= self.now)
            || !self.pending.is_empty()
            || self.live_immediates > 0
            || !self.close.is_empty()
            || self.esm_main.is_some();
        if ready {
            return;
        }
        let wake = match (self.timers.handle_due(), self.pool.next_ready()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(to) = wake.filter(|&to| to > self.now) {
            host.observe(LoopEvent::Sleep { from: self.now, to });
            self.now = to;
            self.pool.advance(self.now, &mut self.seq, &mut self.pool_log);
            self.flush_pool_log(host);
        }
    }

    /// The timers phase: `uv__run_timers` calling Node's `RunTimers` while the
    /// handle is due by the cached clock (rule 3).
    fn timers_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        self.loop_phase = Phase::Timers;
        self.last_reading = self.now;
        while self.timers.handle_due().is_some_and(|r| r <= self.last_reading) {
            self.last_reading = self.now;
            let phase_now = self.now;
            self.timers.begin_run();
            let (next, ran) = self.process_timers(phase_now, host)?;
            self.timers.end_run(next, self.last_reading);
            if ran {
                self.drain(host)?;
            }
        }
        Ok(())
    }

    /// Node's `processTimers(now)`: list by list, each from its head while due.
    /// Returns the next list's expiry (if any) and whether a timer ran; the
    /// last timer's drain is left to the caller, as `RunTimers` does.
    fn process_timers<H: Host<C, Self>>(&mut self, now: u64, host: &mut H) -> Result<(Option<u64>, bool), H::Stop> {
        let mut ran = false;
        loop {
            let list = match self.timers.next_due_list(now) {
                Ok(list) => list,
                Err(next) => return Ok((next, ran)),
            };
            let mut ran_in_list = false;
            loop {
                let due = match self.timers.head(list, now) {
                    Head::Due(due) => due,
                    Head::NotDue | Head::ListDone => break,
                };
                // Node >= 11 drains between any two timers; Node 10 ran a
                // list's timers back to back and drained between lists.
                if ran && !(self.node == NodeVersion::Node10 && ran_in_list) {
                    self.drain(host)?;
                }
                ran = true;
                ran_in_list = true;
                if !self.timers.is_running(due.id) {
                    // Cleared by the drain just before it would have run.
                    self.timers.finish(due, None);
                    continue;
                }
                let start = due.repeat.then_some(self.now);
                if due.repeat {
                    self.last_reading = self.now;
                }
                self.run_timer(due, start, host)?;
            }
        }
    }

    fn run_timer<H: Host<C, Self>>(&mut self, due: timers::DueTimer<C>, start: Option<u64>, host: &mut H) -> Step<H::Stop> {
        let ctx = self.ctx(Phase::Timers, Some(Handle::Timer(due.id)), due.run);
        self.call(host, due.cb.clone(), ctx)?;
        self.timers.finish(due, start);
        Ok(())
    }

    /// The pending phase: callbacks deferred since the last one (a snapshot, FIFO).
    fn pending_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        self.loop_phase = Phase::Pending;
        let batch = std::mem::take(&mut self.pending);
        self.run_each(batch, Phase::Pending, host)
    }

    /// The poll phase: completions ready at phase entry, by (ready tick, start
    /// order); then up to 8 rounds of pending callbacks deferred meanwhile
    /// (libuv 1.46 `uv_run`). With `module esm` the main module runs first in turn 1.
    fn poll_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        self.loop_phase = Phase::Poll;
        if let Some(main) = self.esm_main.take() {
            let ctx = self.ctx(Phase::Main, None, 1);
            self.call_counted(host, main, ctx, false)?;
            self.run_microtasks(host)?;
            self.drain(host)?;
        }
        self.pool.advance(self.now, &mut self.seq, &mut self.pool_log);
        self.flush_pool_log(host);
        let ready = self.pool.take_ready(self.now);
        self.run_each(ready, Phase::Poll, host)?;
        for _ in 0..8 {
            if self.pending.is_empty() {
                break;
            }
            let batch = std::mem::take(&mut self.pending);
            self.run_each(batch, Phase::Pending, host)?;
        }
        Ok(())
    }

    /// The check phase: the check queue as it is at phase entry (a snapshot).
    fn check_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        self.loop_phase = Phase::Check;
        let snapshot = self.check.len();
        for _ in 0..snapshot {
            let immediate = self.check.pop_front().expect("snapshot length");
            if let Some(cb) = immediate.cb {
                self.live_immediates -= 1;
                let ctx = self.ctx(Phase::Check, Some(Handle::Immediate(immediate.id)), 1);
                self.call(host, cb, ctx)?;
                if self.node != NodeVersion::Node10 {
                    self.drain(host)?;
                }
            }
        }
        // Node 10 drained once, after the whole check phase.
        self.drain(host)
    }

    /// The close phase: the close queue at phase entry, last in first out.
    fn close_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        self.loop_phase = Phase::Close;
        let mut batch = std::mem::take(&mut self.close);
        batch.reverse();
        self.run_each(batch, Phase::Close, host)
    }

    fn run_each<H: Host<C, Self>, I: IntoIterator<Item = C>>(&mut self, batch: I, phase: Phase, host: &mut H) -> Step<H::Stop> {
        for cb in batch {
            let ctx = self.ctx(phase, None, 1);
            self.call(host, cb, ctx)?;
            self.drain(host)?;
        }
        Ok(())
    }

    /// Between callbacks (rule 6): the nextTick queue to empty, then the
    /// microtask queue to empty, while either has work (Node's
    /// `processTicksAndRejections`).
    fn drain<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        loop {
            while let Some(cb) = self.next_ticks.pop_front() {
                let ctx = self.ctx(Phase::NextTick, None, 1);
                self.call(host, cb, ctx)?;
            }
            self.run_microtasks(host)?;
            if self.next_ticks.is_empty() {
                return Ok(());
            }
        }
    }

    fn run_microtasks<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        while let Some(cb) = self.microtasks.pop_front() {
            let ctx = self.ctx(Phase::Microtask, None, 1);
            self.call(host, cb, ctx)?;
        }
        Ok(())
    }

    fn ctx(&self, phase: Phase, handle: Option<Handle>, run: u64) -> Ctx {
        Ctx {
            turn: self.turn,
            now: self.now,
            phase,
            loop_phase: self.loop_phase,
            handle,
            run,
        }
    }

    fn call<H: Host<C, Self>>(&mut self, host: &mut H, cb: C, ctx: Ctx) -> Step<H::Stop> {
        self.call_counted(host, cb, ctx, true)
    }

    fn call_counted<H: Host<C, Self>>(&mut self, host: &mut H, cb: C, ctx: Ctx, counted: bool) -> Step<H::Stop> {
        if counted {
            if self.callbacks >= self.limits.max_callbacks {
                return Err(host.limit(self, LimitKind::Callbacks, ctx.phase));
            }
            self.callbacks += 1;
        }
        self.last_phase = ctx.phase;
        host.call(self, cb, ctx)?;
        self.flush_pool_log(host);
        Ok(())
    }

    fn flush_pool_log<H: Host<C, Self>>(&mut self, host: &mut H) {
        for event in self.pool_log.drain(..) {
            host.observe(LoopEvent::Pool(event));
        }
    }
}

impl<C: Clone> EventLoop<C> for Scheduler<C> {
    fn now(&self) -> u64 {
        self.now
    }

    fn turn(&self) -> u64 {
        self.turn
    }

    fn waiting(&self) -> Waiting {
        Scheduler::waiting(self)
    }

    /// `setTimeout(cb, delay)`: due at `now + coerce_delay(delay)` (rule 3).
    fn set_timeout(&mut self, delay: u64, cb: C) -> Handle {
        self.last_reading = self.now;
        Handle::Timer(self.timers.insert(self.now, coerce_delay(delay), false, cb))
    }

    /// `setInterval(cb, delay)`: like a timeout, re-armed from each run's start.
    fn set_interval(&mut self, delay: u64, cb: C) -> Handle {
        self.last_reading = self.now;
        Handle::Timer(self.timers.insert(self.now, coerce_delay(delay), true, cb))
    }

    /// `setImmediate(cb)`: queued for the check phase.
    fn set_immediate(&mut self, cb: C) -> Handle {
        let id = self.next_seq();
        self.check.push_back(Immediate { id, cb: Some(cb) });
        self.live_immediates += 1;
        Handle::Immediate(id)
    }

    /// `clearTimeout`/`clearInterval`/`clearImmediate`: a callback not yet run
    /// does not run, even if already due in the current phase. Returns whether
    /// something live was cleared; stale handles are ignored.
    fn clear(&mut self, handle: Handle) -> bool {
        match handle {
            Handle::Timer(id) => self.timers.clear(id),
            Handle::Immediate(id) => self.clear_immediate(id),
        }
    }

    /// `process.nextTick(cb)`.
    fn next_tick(&mut self, cb: C) {
        self.next_ticks.push_back(cb);
    }

    /// `queueMicrotask(cb)` or a promise reaction.
    fn queue_microtask(&mut self, cb: C) {
        self.microtasks.push_back(cb);
    }

    /// Thread-pool work of `ticks` ticks (rule 4).
    fn submit(&mut self, ticks: u64, cb: C) {
        self.pool.advance(self.now, &mut self.seq, &mut self.pool_log);
        self.pool.submit(self.now, ticks, &mut self.seq, cb, &mut self.pool_log);
    }

    /// I/O outside the pool, ready for poll `after` ticks from now.
    fn io(&mut self, after: u64, cb: C) {
        let seq = self.next_seq();
        self.pool.arrive(self.now.saturating_add(after), self.now, seq, cb);
    }

    /// A callback libuv defers to the pending phase (`uv__io_feed`).
    fn defer_pending(&mut self, cb: C) {
        self.pending.push_back(cb);
    }

    /// A handle's close callback (`uv_close`): run LIFO in the close phase.
    fn close(&mut self, cb: C) {
        self.close.push(cb);
    }

    /// `work n`: synchronous CPU work; the clock moves, pool threads go on (rule 5).
    fn work(&mut self, ticks: u64) {
        self.now = self.now.saturating_add(ticks);
        self.pool.advance(self.now, &mut self.seq, &mut self.pool_log);
    }
}

#[cfg(test)]
mod tests;
