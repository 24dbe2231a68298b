//! The event-loop scheduler: clock, phases, queues, timers and thread pool.
//!
//! This module is docs/scheduling.md. It knows nothing of `.loop` syntax: a
//! callback is an opaque value `C` that the [`Host`] runs when its turn comes.
//! The host schedules more work through the `&mut Scheduler` it is handed.
//! All times are in ticks.
//!
//! One loop serves every use: a [`Timing`] says what differs (the seed
//! model's exact clock, [`ExactClock`]; real Node 20's unknown timings,
//! `crate::orders::node20`), a [`NodeProfile`] which Node's rules to follow.
//! When it runs a callback, the loop hands the host a [`Decision`]: the rule
//! that placed it there and the facts it used.
//!
//! Where each rule of docs/scheduling.md lives (one function each):
//!
//! | rule | name | function |
//! |---|---|---|
//! | 1 | the main module | `Scheduler::main_module` |
//! | 2 | the turn | `Scheduler::begin_turn`, `Scheduler::finish_turn` (while `LoopState::alive`) |
//! | 2a | sleep | `ExactClock::sleep` (the explorer waits in poll: `ChooserClock::block`) |
//! | 2b | the timers phase | `Scheduler::timers_phase` |
//! | 2c | the pending phase | `Scheduler::pending_phase` |
//! | 2d | the poll phase | `Scheduler::poll_phase`, `Scheduler::pending_rounds_after_poll`; readiness: `Timing::poll_ready` |
//! | 2e | the check phase | `Scheduler::check_phase` (its snapshot) |
//! | 2f | the close phase | `Scheduler::close_phase` |
//! | 2g | end of turn | `ExactClock::end_of_turn` |
//! | 3 | Node's timers | `Scheduler::process_timers`, `NodeTimers` (timers.rs), `coerce_delay` |
//! | 4 | the thread pool | `ThreadPool` (pool.rs) |
//! | 5 | synchronous work | `ExactClock::synchronous_work` |
//! | 6 | the between-callbacks drain | `Scheduler::drain_between_callbacks`; per profile: `NodeProfile::drain_rule` |
//! | 7 | limits | `Scheduler::within_limits` |

mod clock;
mod decision;
mod event_loop;
mod phase;
mod pool;
mod profile;
mod timers;

pub use clock::{ExactClock, Reading, Timing};
pub use decision::{Before, Coercion, Decision, Deferred, Drain, ImmediateQueued, PoolJob, Slept, TimerTurn};
pub use event_loop::{EventLoop, Host, LogSoFar};
pub use phase::Phase;
pub(crate) use pool::ThreadPool;
pub use pool::{Completion, PoolEvent, PoolItem};
pub use profile::{DrainRule, Entry, NodeProfile, NodeVersion};
pub(crate) use timers::NodeTimers;
pub use timers::{coerce_delay, TimerId, TIMEOUT_MAX};

use decision::{DrainAfter, Facts, TimerRun};
use std::collections::VecDeque;
use timers::Head;

/// Asks the CPU to bring the cache lines holding `*p` (its first and last
/// byte's: a value of up to 64 bytes, or the two ends of a larger one) into
/// its caches, ahead of a read that would otherwise wait for memory
/// (x86-64's `prefetcht0`; nothing elsewhere). A hint: it reads nothing and
/// cannot fault.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
pub fn prefetch<T>(p: *const T) {
    prefetch_line(p.cast::<u8>());
    // A value that may straddle two cache lines: its last byte's line too.
    if std::mem::size_of::<T>() > 8 {
        prefetch_line(p.cast::<u8>().wrapping_add(std::mem::size_of::<T>() - 1));
    }
}

#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is in SSE, which every x86-64 CPU has; it never
    // dereferences in the language's sense and does not fault on any address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// From this size of a queue's buffer on (4 MiB), [`grow_queue`] asks for
/// transparent huge pages.
const HUGE_QUEUE_BYTES: usize = 4 << 20;

/// Appends `item` to the nextTick or microtask `queue`, growing it by
/// [`grow_queue`] when full.
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn push_queued<T>(queue: &mut VecDeque<T>, item: T) {
    if queue.len() == queue.capacity() {
        grow_queue(queue);
    }
    queue.push_back(item);
}

/// Doubles a full queue's buffer, keeping its order. From
/// [`HUGE_QUEUE_BYTES`] on, the new buffer is one the kernel may back with
/// 2 MiB pages (`madvise(MADV_HUGEPAGE)`, where transparent huge pages are
/// on or `madvise`): half a million microtasks waiting behind the nextTicks
/// (issue 14's 24 MB) then fault in a dozen pages, not six thousand 4 KiB
/// ones, each a trap into the kernel. The old elements are copied (a
/// `realloc` would move pages instead): one `memcpy` a doubling.
#[cold]
#[inline(never)]
fn grow_queue<T>(queue: &mut VecDeque<T>) {
    let capacity = queue.capacity().max(4) * 2;
    if capacity.saturating_mul(std::mem::size_of::<T>()) < HUGE_QUEUE_BYTES {
        queue.reserve(capacity - queue.len());
        return;
    }
    let mut old = Vec::from(std::mem::take(queue));
    let mut buffer = Vec::with_capacity(capacity);
    advise_huge_pages(buffer.spare_capacity_mut());
    buffer.append(&mut old);
    *queue = VecDeque::from(buffer);
}

/// Asks the kernel to back `memory` (its whole pages) with transparent huge
/// pages: advice, which it may not follow; elsewhere than Linux, nothing.
fn advise_huge_pages<T>(memory: &mut [std::mem::MaybeUninit<T>]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = memory.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(memory);
        let first = start.next_multiple_of(PAGE);
        if first < end {
            // SAFETY: `[first, end)` lies within `memory`, an allocation of ours;
            // `MADV_HUGEPAGE` changes how its pages are backed, never their
            // contents, and a refusal (an error) leaves it as it was.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

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
    /// The labels of the callbacks scheduled, each different (a `{i}` in a
    /// long label), grew past their bound in bytes (`interp::MAX_LABEL_BYTES`):
    /// keeps memory bounded.
    LabelBytes,
    /// Too many promises, reactions or scopes (`promise::DEFAULT_LIMIT`): keeps memory bounded.
    Promises,
    /// Async functions, executors and handlers called inside each other too deep
    /// (`interp::MAX_CALL_DEPTH`): JavaScript's "Maximum call stack size exceeded".
    CallDepth,
    /// The clock reached [`CLOCK_LIMIT`] ticks: past it, due ticks would no
    /// longer be exact (in Node, nor in loopsim's 64-bit clock).
    Clock,
}

/// The largest clock reading a run may reach, in ticks: 2⁵³ − 1, the largest
/// integer a JavaScript number (Node's milliseconds) holds exactly, about
/// 285,616 years. A `work`, `after` or job length that takes the clock there
/// stops the run ([`LimitKind::Clock`]) before any later time could be wrong.
pub const CLOCK_LIMIT: u64 = (1 << 53) - 1;

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
pub struct Ctx<'a> {
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
    /// Which rule placed the callback here, and the facts it used
    /// ([`Decision::Unrecorded`] unless [`Scheduler::with_decisions`]).
    pub decision: &'a Decision,
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

/// Where a queued callback waits, for a picture of the queues at one moment
/// ([`EventLoop::each_queued`]: the playground's step-through).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// A timer or interval, due at the tick given.
    Timer { due: u64 },
    /// Held by the thread pool, or an `io` event not yet taken by a poll phase.
    Pool(PoolItem),
    /// libuv's pending queue (the pending phase).
    Pending,
    /// The check phase's queue (`setImmediate`).
    Check,
    /// The close phase's callbacks (run last-in, first-out).
    Close,
    /// `process.nextTick`'s queue.
    NextTick,
    /// V8's microtask queue (promise reactions, `queueMicrotask`).
    Microtask,
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

impl Waiting {
    /// How many callbacks wait to run in `phase` (or its queue); none in
    /// the main module's.
    pub fn in_phase(&self, phase: Phase) -> usize {
        match phase {
            Phase::Timers => self.timers,
            Phase::Pending => self.pending,
            Phase::Poll => self.io,
            Phase::Check => self.immediates,
            Phase::Close => self.close,
            Phase::NextTick => self.next_ticks,
            Phase::Microtask => self.microtasks,
            Phase::Main | Phase::Rejections => 0,
        }
    }
}

#[derive(Clone)]
struct Immediate<C> {
    id: u64,
    cb: Option<C>,
}

/// Why a run stopped early: the host stopped it (`S`: a limit, an error), or
/// the [`Timing`] abandoned the schedule (`P`).
#[derive(Debug)]
pub enum Halt<S, P> {
    /// The host stopped the run (a limit, an error it raised).
    Host(S),
    /// The timing abandoned the schedule (the explorer's search prunes it).
    Pruned(P),
}

impl<S, P> From<S> for Halt<S, P> {
    fn from(s: S) -> Self {
        Halt::Host(s)
    }
}

/// The result of a callback or phase: continue, or stop.
type Step<S, P> = Result<(), Halt<S, P>>;

/// What `processTimers` returns: the next list's expiry and whether a timer ran, or a stop.
type TimersRun<S, P> = Result<(Option<u64>, bool), Halt<S, P>>;

/// Where the main module runs (rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MainEntry {
    /// At turn 0, before the loop starts (CommonJS).
    BeforeLoop,
    /// Inside turn 1's poll phase, as a microtask (an ES module on Node 20).
    InPoll,
}

/// The loop's state: the clock, Node's queues, timers and thread pool, and
/// the facts recorded for decisions. A [`Timing`] reads and moves it.
#[derive(Clone)]
pub struct LoopState<C> {
    /// The clock, in ticks (the explorer: as far as it is known, the last
    /// reading plus the exact `work` since).
    pub(crate) now: u64,
    pub(crate) turn: u64,
    /// libuv's cached clock: the last clock reading (`L` in rule 3).
    pub(crate) last_reading: u64,
    pub(crate) seq: u64,
    pub(crate) callbacks: u64,
    pub(crate) timers: NodeTimers<C>,
    pub(crate) pool: ThreadPool<C>,
    pub(crate) pool_log: Vec<PoolEvent>,
    pub(crate) pending: VecDeque<C>,
    /// The completions the poll phase running took, not yet run.
    poll_taken: VecDeque<Completion<C>>,
    /// The callbacks the pending or close phase running took, not yet run.
    taken: VecDeque<C>,
    check: VecDeque<Immediate<C>>,
    pub(crate) live_immediates: usize,
    pub(crate) close: Vec<C>,
    next_ticks: VecDeque<C>,
    microtasks: VecDeque<C>,
    /// The main module, until it runs.
    pub(crate) main: Option<C>,
    /// The loop phase running (`Main` before the loop).
    pub(crate) loop_phase: Phase,
    /// Where the last callback ran (reported when a limit stops the run).
    last_phase: Phase,
    /// The nextTick or microtask callback the callback limit refused, taken
    /// off its queue: it was left waiting too.
    refused: Option<Phase>,
    /// The sleep at this turn's start, if the loop slept.
    slept: Option<Slept>,
    /// Where each queued callback was queued, while decisions are recorded.
    facts: Option<Box<Facts>>,
}

impl<C> LoopState<C> {
    /// An empty loop at tick 0 with a pool of `pool_size` threads.
    pub(crate) fn new(pool_size: usize) -> Self {
        LoopState {
            now: 0,
            turn: 0,
            last_reading: 0,
            seq: 0,
            callbacks: 0,
            timers: NodeTimers::default(),
            pool: ThreadPool::new(pool_size.max(1)),
            pool_log: Vec::new(),
            pending: VecDeque::new(),
            poll_taken: VecDeque::new(),
            taken: VecDeque::new(),
            check: VecDeque::new(),
            live_immediates: 0,
            close: Vec::new(),
            next_ticks: VecDeque::new(),
            microtasks: VecDeque::new(),
            main: None,
            loop_phase: Phase::Main,
            last_phase: Phase::Main,
            refused: None,
            slept: None,
            facts: None,
        }
    }

    /// Whether anything keeps the loop alive (`uv__loop_alive`).
    pub(crate) fn alive(&self) -> bool {
        self.timers.live() > 0
            || self.pool.outstanding() > 0
            || self.live_immediates > 0
            || !self.close.is_empty()
            || !self.pending.is_empty()
            || self.main.is_some()
    }

    /// Whether libuv's `uv__backend_timeout` is 0 for want of a wait: pending
    /// callbacks, an idle handle (Node keeps one active while immediates are
    /// queued) or closing handles. The timer handle is the timing's to weigh.
    pub(crate) fn backend_timeout_is_zero(&self) -> bool {
        !self.pending.is_empty() || self.live_immediates > 0 || !self.close.is_empty()
    }

    /// Runs the pool's threads up to `now` (rule 4).
    pub(crate) fn advance_pool(&mut self) {
        self.pool.advance(self.now, &mut self.seq, &mut self.pool_log);
    }

    /// Whether nothing waits outside the pool: no timer armed, no callback in
    /// the nextTick, microtask, pending, check or close queue, none taken
    /// and not yet run, no main module still to run.
    pub(crate) fn only_pool_waits(&self) -> bool {
        self.timers.live() == 0
            && self.timers.handle_due().is_none()
            && self.next_ticks.is_empty()
            && self.microtasks.is_empty()
            && self.pending.is_empty()
            && self.taken.is_empty()
            && self.poll_taken.is_empty()
            && self.check.is_empty()
            && self.close.is_empty()
            && self.main.is_none()
    }

    /// Feeds the queues' callbacks (pending, check, close, the main module's
    /// presence) to `h`, for a search that tells equal states apart.
    pub(crate) fn hash_queues<H: std::hash::Hasher>(&self, h: &mut H)
    where
        C: std::hash::Hash,
    {
        use std::hash::Hash;
        self.pending.hash(h);
        for im in &self.check {
            im.cb.hash(h);
        }
        self.close.hash(h);
        self.main.is_some().hash(h);
    }

    /// Whether `f` holds for every callback waiting in a queue (nextTick,
    /// microtask, pending, check, close, and those the running phase took)
    /// and no pool completion waits to run; timers and pool jobs not asked.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn all_queued(&self, f: &mut dyn FnMut(&C) -> bool) -> bool {
        self.poll_taken.is_empty()
            && self.next_ticks.iter().all(&mut *f)
            && self.microtasks.iter().all(&mut *f)
            && self.pending.iter().all(&mut *f)
            && self.taken.iter().all(&mut *f)
            && self.check.iter().all(|im| im.cb.as_ref().is_none_or(&mut *f))
            && self.close.iter().all(f)
    }

    /// Each queued callback and where it waits, queue by queue in the order
    /// of a turn (timers, pool and poll, pending, check, close) after the
    /// nextTick and microtask queues, each queue in the order it is taken.
    fn each_queued(&self, f: &mut dyn FnMut(Queued, &C)) {
        for cb in &self.next_ticks {
            f(Queued::NextTick, cb);
        }
        for cb in &self.microtasks {
            f(Queued::Microtask, cb);
        }
        self.timers.each(&mut |due, cb| f(Queued::Timer { due }, cb));
        self.pool.each_job(&mut |item, cb| f(Queued::Pool(item), cb));
        // What the running poll phase took comes first, then what later polls take.
        for c in &self.poll_taken {
            f(
                Queued::Pool(PoolItem::Ready {
                    at: c.ready,
                    io: c.job == 0,
                }),
                &c.cb,
            );
        }
        self.pool.each_completion(&mut |item, cb| f(Queued::Pool(item), cb));
        if self.loop_phase == Phase::Pending {
            for cb in &self.taken {
                f(Queued::Pending, cb);
            }
        }
        for cb in &self.pending {
            f(Queued::Pending, cb);
        }
        for cb in self.check.iter().filter_map(|im| im.cb.as_ref()) {
            f(Queued::Check, cb);
        }
        if self.loop_phase == Phase::Close {
            for cb in &self.taken {
                f(Queued::Close, cb);
            }
        }
        for cb in self.close.iter().rev() {
            f(Queued::Close, cb);
        }
    }

    fn waiting(&self) -> Waiting {
        // The callbacks a phase took and has not run yet wait too (a limit
        // met before the next of them: fresh-clone helper 76).
        let (taken_pending, taken_close) = match self.loop_phase {
            Phase::Close => (0, self.taken.len()),
            _ => (self.taken.len(), 0),
        };
        Waiting {
            timers: self.timers.live(),
            io: self.pool.outstanding() + self.poll_taken.len(),
            pending: self.pending.len() + taken_pending,
            immediates: self.live_immediates,
            close: self.close.len() + taken_close,
            next_ticks: self.next_ticks.len() + usize::from(self.refused == Some(Phase::NextTick)),
            microtasks: self.microtasks.len() + usize::from(self.refused == Some(Phase::Microtask)),
        }
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// While decisions are recorded: notes that a callback was queued in
    /// `phase`, in the side table `table` picks.
    #[inline]
    fn note(&mut self, table: fn(&mut Facts) -> &mut VecDeque<Phase>, phase: Phase) {
        if let Some(facts) = self.facts.as_deref_mut() {
            table(facts).push_back(phase);
        }
    }
}

/// The libuv loop with Node's queues (docs/scheduling.md), on the clock `T`
/// (the seed model's by default).
pub struct Scheduler<C, T = ExactClock> {
    state: LoopState<C>,
    timing: T,
    module: Module,
    limits: Limits,
    profile: NodeProfile,
}

impl<C: Clone> Scheduler<C, ExactClock> {
    /// The seed model: a loop at tick 0 with a pool of `pool_size` threads.
    pub fn new(pool_size: usize, module: Module, limits: Limits) -> Self {
        Scheduler::with_timing(pool_size, module, limits, ExactClock)
    }

    /// Runs the main module `main`, then the loop until nothing is left
    /// (`uv_run` with `UV_RUN_DEFAULT`).
    ///
    /// # Errors
    /// The host's stop reason: an error it raised, or a limit it was told of.
    pub fn run<H: Host<C, Self>>(&mut self, main: C, host: &mut H) -> Result<(), H::Stop> {
        self.run_loop(main, host).map_err(|halt| match halt {
            Halt::Host(stop) => stop,
            Halt::Pruned(never) => match never {},
        })
    }
}

impl<C: Clone, T: Timing<C>> Scheduler<C, T> {
    /// A loop at tick 0 with a pool of `pool_size` threads, on `timing`.
    pub fn with_timing(pool_size: usize, module: Module, limits: Limits, timing: T) -> Self {
        Scheduler {
            state: LoopState::new(pool_size),
            timing,
            module,
            limits,
            profile: NodeProfile::default(),
        }
    }

    /// Follows `node`'s rules instead of Node 20's.
    pub fn with_node(mut self, node: NodeProfile) -> Self {
        self.profile = node;
        self
    }

    /// Records a [`Decision`] for every callback run (`--explain`): a few
    /// facts are kept per queued callback.
    pub fn with_decisions(mut self, on: bool) -> Self {
        self.state.facts = on.then(Box::default);
        self
    }

    /// Callbacks called so far.
    pub fn callbacks(&self) -> u64 {
        self.state.callbacks
    }

    /// Thread-pool size.
    pub fn pool_size(&self) -> usize {
        self.state.pool.size()
    }

    /// What is still queued, for limit diagnostics.
    pub fn waiting(&self) -> Waiting {
        self.state.waiting()
    }

    /// The loop's timing.
    pub fn timing(&self) -> &T {
        &self.timing
    }

    // ----- running ------------------------------------------------------------

    /// Runs the main module `main`, then the loop until nothing is left
    /// (`uv_run` with `UV_RUN_DEFAULT`).
    ///
    /// # Errors
    /// [`Halt::Host`] when the host stops the run; [`Halt::Pruned`] when the timing abandons it.
    pub fn run_loop<H: Host<C, Self>>(&mut self, main: C, host: &mut H) -> Step<H::Stop, T::Prune> {
        self.start(main, host)?;
        while self.next_turn(host)? {}
        Ok(())
    }

    /// The part of [`Scheduler::run_loop`] before the loop's first turn:
    /// the main module and what drains after it.
    ///
    /// # Errors
    /// As [`Scheduler::run_loop`].
    pub fn start<H: Host<C, Self>>(&mut self, main: C, host: &mut H) -> Step<H::Stop, T::Prune> {
        self.state.main = Some(main);
        self.main_module(MainEntry::BeforeLoop, host)?;
        self.timing.unit_begins();
        Ok(())
    }

    /// One more turn of [`Scheduler::run_loop`], if anything is alive;
    /// `false`: the loop ended.
    ///
    /// # Errors
    /// As [`Scheduler::run_loop`].
    pub fn next_turn<H: Host<C, Self>>(&mut self, host: &mut H) -> Result<bool, Halt<H::Stop, T::Prune>> {
        if !self.begin_turn(host)? {
            return Ok(false);
        }
        self.finish_turn(host)?;
        Ok(true)
    }

    /// Rule 2 — the turn (while [`LoopState::alive`]): sleep, timers,
    /// pending, poll, check, close; a turn lasts at least a tick (the
    /// timing's rules 2a and 2g). Its start, up to the point its timing
    /// offers there (`Timing::turn_begins`, where a search may prune the
    /// schedule); [`Scheduler::finish_turn`] runs its phases. A search keeps
    /// the state between the two ([`Scheduler::state`]) to resume from.
    /// `false`: nothing is alive, the loop ended.
    ///
    /// # Errors
    /// As [`Scheduler::run_loop`].
    pub fn begin_turn<H: Host<C, Self>>(&mut self, host: &mut H) -> Result<bool, Halt<H::Stop, T::Prune>> {
        if !self.state.alive() {
            host.observe(LoopEvent::Exit {
                turn: self.state.turn,
                now: self.state.now,
            });
            return Ok(false);
        }
        self.within_limits(host, LimitKind::Turns, self.state.last_phase)?;
        self.within_limits(host, LimitKind::Clock, self.state.last_phase)?;
        self.state.turn += 1;
        host.observe(LoopEvent::TurnStart {
            turn: self.state.turn,
            now: self.state.now,
        });
        self.state.slept = self
            .timing
            .turn_begins(&mut self.state, &|h| host.fingerprint(h), host.log_so_far())
            .map_err(Halt::Pruned)?;
        Ok(true)
    }

    /// Rule 2, the rest of the turn [`Scheduler::begin_turn`] began: its
    /// phases.
    ///
    /// # Errors
    /// As [`Scheduler::run_loop`].
    pub fn finish_turn<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        if let Some(Slept { from, to }) = self.state.slept {
            host.observe(LoopEvent::Sleep { from, to });
        }
        // A sleep to a completion of an immense `after` or job length.
        self.within_limits(host, LimitKind::Clock, self.state.last_phase)?;
        self.flush_pool_log(host);
        let turn_start = self.state.now;
        self.timers_phase(host)?;
        if !self.timing.after_timers_phase(&self.state) {
            return Ok(());
        }
        self.pending_phase(host)?;
        self.poll_phase(host)?;
        self.check_phase(host)?;
        self.close_phase(host)?;
        self.timing.turn_ends(&mut self.state, turn_start);
        self.flush_pool_log(host);
        Ok(())
    }

    /// The loop's state (a search keeps it where a turn began, to resume
    /// from: [`Scheduler::resume`]).
    pub fn state(&self) -> &LoopState<C> {
        &self.state
    }

    /// Puts the loop back in `state`, kept where a turn began
    /// ([`Scheduler::begin_turn`]) in a run with the same file, module,
    /// limits and profile (the timing's own state is its to put back:
    /// [`Scheduler::timing_mut`]); [`Scheduler::finish_turn`] goes on.
    pub fn resume(&mut self, state: LoopState<C>) {
        self.state = state;
    }

    /// The loop's timing, to change.
    pub fn timing_mut(&mut self) -> &mut T {
        &mut self.timing
    }

    /// Rule 7 — limits: a run past `max_turns` turns or `max_callbacks`
    /// callbacks is stopped (`phase`: where the next or last callback runs).
    #[inline]
    fn within_limits<H: Host<C, Self>>(&mut self, host: &mut H, kind: LimitKind, phase: Phase) -> Step<H::Stop, T::Prune> {
        let over = match kind {
            LimitKind::Turns => self.state.turn >= self.limits.max_turns,
            LimitKind::Callbacks => self.state.callbacks >= self.limits.max_callbacks,
            LimitKind::Clock => self.state.now >= CLOCK_LIMIT,
            LimitKind::Output
            | LimitKind::LogBytes
            | LimitKind::Waiting
            | LimitKind::LabelBytes
            | LimitKind::Promises
            | LimitKind::CallDepth => false,
        };
        if over {
            return Err(Halt::Host(host.limit(self, kind, phase)));
        }
        Ok(())
    }

    /// Rule 1 — the main module: CommonJS runs at turn 0 before the loop,
    /// then the drain. An ES module's body is itself run as a microtask, so
    /// the microtask queue runs before the drain's nextTicks; on Node 20 it
    /// runs inside turn 1's poll phase, on Node >= 22.18 at turn 0 before the
    /// loop ([`NodeProfile::entry`]).
    fn main_module<H: Host<C, Self>>(&mut self, at: MainEntry, host: &mut H) -> Step<H::Stop, T::Prune> {
        let entry = self.profile.entry(self.module);
        let runs_at = match entry {
            Entry::CommonJs | Entry::EsModuleBeforeLoop => MainEntry::BeforeLoop,
            Entry::EsModuleInPoll => MainEntry::InPoll,
        };
        if runs_at != at {
            return Ok(());
        }
        let Some(main) = self.state.main.take() else {
            return Ok(());
        };
        let decision = self.recorded(|_| Decision::MainModule(entry));
        let ctx = self.ctx(Phase::Main, None, 1, &decision);
        self.timing.unit_begins();
        self.state.last_phase = Phase::Main;
        host.call(self, &main, ctx)?;
        self.flush_pool_log(host);
        if entry != Entry::CommonJs {
            self.run_microtasks(host, DrainAfter::Callback)?;
        }
        self.drain_between_callbacks(host, DrainAfter::Callback)
    }

    /// Rule 2b — the timers phase: `uv__run_timers` calling Node's
    /// `RunTimers` while the handle is due by the cached clock; each run
    /// after the first reads the clock afresh (rule 3).
    fn timers_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        self.state.loop_phase = Phase::Timers;
        let turn = self.state.turn;
        self.timing.read(&mut self.state, 0, Reading::TimersPhase { turn });
        self.within_limits(host, LimitKind::Clock, Phase::Timers)?;
        let mut again = false;
        while self.state.timers.handle_due().is_some_and(|r| r <= self.state.last_reading) {
            if again {
                self.timing.read(&mut self.state, 0, Reading::TimersRerun);
            }
            again = true;
            let phase_clock = self.state.now;
            self.state.timers.begin_run();
            let (next, ran) = self.process_timers(phase_clock, host)?;
            self.state.timers.end_run(next, self.state.last_reading);
            if ran {
                self.drain_between_callbacks(host, self.profile.drain_rule().after_timers())?;
            }
        }
        Ok(())
    }

    /// Rule 3 — Node's `processTimers(now)`: list by list, each from its head
    /// while due at `phase_clock`. Returns the next list's expiry (if any)
    /// and whether a timer ran; the last timer's drain is left to the
    /// caller, as `RunTimers` does.
    fn process_timers<H: Host<C, Self>>(&mut self, phase_clock: u64, host: &mut H) -> TimersRun<H::Stop, T::Prune> {
        let mut ran = false;
        loop {
            let list = match self.state.timers.next_due_list(phase_clock) {
                Ok(list) => list,
                Err(next) => return Ok((next, ran)),
            };
            self.state.timers.fetch_ahead(&mut |cb, distance| host.fetch_ahead(cb, distance));
            let mut ran_in_list = false;
            while let Head::Due(due) = self.state.timers.head(list, phase_clock) {
                if ran {
                    if let Some(point) = self.profile.drain_rule().between_timers(ran_in_list) {
                        self.drain_between_callbacks(host, point)?;
                    }
                }
                ran = true;
                ran_in_list = true;
                if !self.state.timers.is_running(due.id) {
                    // Cleared by the drain just before it would have run.
                    self.state.timers.finish(due, None);
                    continue;
                }
                let start = due
                    .repeat
                    .then(|| self.timing.read(&mut self.state, 0, Reading::IntervalStart(&due.cb)));
                let decision = self.timer_decision(&due, phase_clock);
                let ctx = self.ctx(Phase::Timers, Some(Handle::Timer(due.id)), due.run, &decision);
                self.call(host, &due.cb, ctx)?;
                self.state.timers.finish(due, start);
            }
        }
    }

    /// The decision for a due timer about to run (rules 2, 3, 5).
    fn timer_decision(&mut self, due: &timers::DueTimer<C>, phase_clock: u64) -> Decision {
        self.recorded(|s| {
            let facts = s.facts.as_deref_mut().expect("recorded");
            if due.repeat {
                return facts.interval(due.id, due.run, s.slept);
            }
            facts.timeout(TimerRun {
                id: due.id,
                turn: s.turn,
                now: s.now,
                phase_clock,
                slept: s.slept,
            })
        })
    }

    /// Rule 2c — the pending phase: the callbacks deferred since the last
    /// one, as a snapshot, first in first out.
    fn pending_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        self.state.loop_phase = Phase::Pending;
        self.timing
            .phase_begins(Phase::Pending, &mut self.state, &|h| host.fingerprint(h), host.log_so_far())
            .map_err(Halt::Pruned)?;
        self.run_pending_snapshot(host)
    }

    /// Rule 2d — the poll phase: the completions the timing finds ready (the
    /// model: those ready at phase entry, by ready tick then start order),
    /// then the pending rounds. With `module esm` the main module runs first
    /// in turn 1.
    fn poll_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        self.state.loop_phase = Phase::Poll;
        let turn = self.state.turn;
        let entry = self.timing.read(&mut self.state, 0, Reading::PollPhase { turn });
        self.main_module(MainEntry::InPoll, host)?;
        self.timing
            .phase_begins(Phase::Poll, &mut self.state, &|h| host.fingerprint(h), host.log_so_far())
            .map_err(Halt::Pruned)?;
        let mut ready = self.timing.poll_ready(&mut self.state, entry);
        ThreadPool::keep_joined_where_it_reordered(&mut ready);
        self.flush_pool_log(host);
        // The poll phase may have waited (or read the clock) up to an immense completion.
        self.within_limits(host, LimitKind::Clock, Phase::Poll)?;
        // Kept in the state while they run, so that what waits can be shown (`each_queued`).
        self.state.poll_taken = ready.into();
        // Each limit met while the callback is still counted as waiting.
        while !self.state.poll_taken.is_empty() {
            self.within_limits(host, LimitKind::Callbacks, Phase::Poll)?;
            let Some(done) = self.state.poll_taken.pop_front() else { break };
            let decision = self.recorded(|s| s.completion(&done));
            self.run_one(host, done.cb, Phase::Poll, decision)?;
        }
        self.pending_rounds_after_poll(host)
    }

    /// Rule 2d's end: up to 8 rounds of the pending callbacks deferred during
    /// the pending and poll phases, each round a snapshot (libuv 1.46
    /// `uv_run`, libuv PR #3598).
    fn pending_rounds_after_poll<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        for _ in 0..8 {
            if self.state.pending.is_empty() {
                break;
            }
            self.run_pending_snapshot(host)?;
        }
        Ok(())
    }

    /// The pending queue as it is now, first in first out (`uv__run_pending`).
    fn run_pending_snapshot<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        if self.state.pending.is_empty() {
            return Ok(());
        }
        self.state.taken = std::mem::take(&mut self.state.pending);
        let mut deferred_in = self.state.facts.as_deref_mut().map(|f| std::mem::take(&mut f.pending));
        while !self.state.taken.is_empty() {
            self.within_limits(host, LimitKind::Callbacks, Phase::Pending)?;
            let Some(cb) = self.state.taken.pop_front() else { break };
            let decision = deferred_in
                .as_mut()
                .and_then(VecDeque::pop_front)
                .map_or(Decision::Unrecorded, decision::pending);
            self.run_one(host, cb, Phase::Pending, decision)?;
        }
        Ok(())
    }

    /// Rule 2e — the check phase: the check queue as it is at phase entry (a
    /// snapshot); the drain follows the profile's rule.
    fn check_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        self.state.loop_phase = Phase::Check;
        let rule = self.profile.drain_rule();
        let snapshot = self.state.check.len();
        for _ in 0..snapshot {
            let immediate = self.state.check.pop_front().expect("snapshot length");
            let queued_in = self.state.facts.as_deref_mut().and_then(|f| f.check.pop_front());
            let Some(cb) = &immediate.cb else { continue };
            // A limit met here finds this immediate still waiting.
            self.within_limits(host, LimitKind::Callbacks, Phase::Check)?;
            self.state.live_immediates -= 1;
            let decision = queued_in.map_or(Decision::Unrecorded, decision::immediate);
            let ctx = self.ctx(Phase::Check, Some(Handle::Immediate(immediate.id)), 1, &decision);
            self.call(host, cb, ctx)?;
            if let Some(point) = rule.after_immediate() {
                self.drain_between_callbacks(host, point)?;
            }
        }
        self.drain_between_callbacks(host, rule.after_check_phase())
    }

    /// Rule 2f — the close phase: the close queue at phase entry, last in first out.
    fn close_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop, T::Prune> {
        self.state.loop_phase = Phase::Close;
        if self.state.close.is_empty() {
            return Ok(());
        }
        self.state.taken = std::mem::take(&mut self.state.close).into_iter().rev().collect();
        let decision = self.recorded(|_| Decision::Close);
        while !self.state.taken.is_empty() {
            self.within_limits(host, LimitKind::Callbacks, Phase::Close)?;
            let Some(cb) = self.state.taken.pop_front() else { break };
            self.run_one(host, cb, Phase::Close, decision)?;
        }
        Ok(())
    }

    /// One callback of a phase, then the drain.
    fn run_one<H: Host<C, Self>>(&mut self, host: &mut H, cb: C, phase: Phase, decision: Decision) -> Step<H::Stop, T::Prune> {
        let ctx = self.ctx(phase, None, 1, &decision);
        self.call(host, &cb, ctx)?;
        self.drain_between_callbacks(host, DrainAfter::Callback)
    }

    /// Rule 6 — the between-callbacks drain (Node's
    /// `processTicksAndRejections`): the nextTick queue to empty, then the
    /// microtask queue to empty, while either has work. `point`: which drain
    /// this is, for the decisions.
    fn drain_between_callbacks<H: Host<C, Self>>(&mut self, host: &mut H, point: DrainAfter) -> Step<H::Stop, T::Prune> {
        loop {
            loop {
                // Lent from where it was popped to (not moved out by `while let`:
                // 2 more instructions a callback on (d), callgrind).
                let cb = self.state.next_ticks.pop_front();
                let Some(cb) = &cb else { break };
                let decision = self.drained(Phase::NextTick, point);
                let ctx = self.ctx(Phase::NextTick, None, 1, &decision);
                self.call(host, cb, ctx)?;
            }
            self.run_microtasks(host, point)?;
            if !self.state.next_ticks.is_empty() {
                continue;
            }
            // Rule 8k: `processPromiseRejections` when both queues are empty.
            if !host.drain_end(self)? {
                return Ok(());
            }
        }
    }

    /// The microtask queue to empty (V8's microtask checkpoint, `runMicrotasks()`).
    fn run_microtasks<H: Host<C, Self>>(&mut self, host: &mut H, point: DrainAfter) -> Step<H::Stop, T::Prune> {
        loop {
            // Lent from where it was popped to (not moved out by `while let`:
            // 2 more instructions a callback on (d), callgrind).
            let cb = self.state.microtasks.pop_front();
            let Some(cb) = &cb else { break };
            let decision = self.drained(Phase::Microtask, point);
            let ctx = self.ctx(Phase::Microtask, None, 1, &decision);
            self.call(host, cb, ctx)?;
        }
        Ok(())
    }

    /// The decision for the nextTick or microtask just taken off `queue`.
    #[inline]
    fn drained(&mut self, queue: Phase, point: DrainAfter) -> Decision {
        let module = self.module;
        self.recorded(|s| {
            let facts = s.facts.as_deref_mut().expect("recorded");
            let queued_by = match queue {
                Phase::NextTick => facts.next_ticks.pop_front(),
                _ => facts.microtasks.pop_front(),
            };
            queued_by.map_or(Decision::Unrecorded, |by| decision::drained(queue, by, point, module))
        })
    }

    /// `make()` when decisions are recorded, else [`Decision::Unrecorded`].
    #[inline]
    fn recorded(&mut self, make: impl FnOnce(&mut LoopState<C>) -> Decision) -> Decision {
        if self.state.facts.is_some() {
            make(&mut self.state)
        } else {
            Decision::Unrecorded
        }
    }

    #[inline]
    fn ctx<'d>(&self, phase: Phase, handle: Option<Handle>, run: u64, decision: &'d Decision) -> Ctx<'d> {
        Ctx {
            turn: self.state.turn,
            now: self.state.now,
            phase,
            loop_phase: self.state.loop_phase,
            handle,
            run,
            decision,
        }
    }

    /// Calls a callback, counted against `max_callbacks`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn call<H: Host<C, Self>>(&mut self, host: &mut H, cb: &C, ctx: Ctx<'_>) -> Step<H::Stop, T::Prune> {
        if self.state.callbacks >= self.limits.max_callbacks {
            return self.refuse(host, ctx.phase);
        }
        self.state.callbacks += 1;
        self.timing.unit_begins();
        self.state.last_phase = ctx.phase;
        host.call(self, cb, ctx)?;
        self.flush_pool_log(host);
        Ok(())
    }

    /// Rule 7 for a callback taken off its queue (a drain's nextTick or
    /// microtask; the phases check their limit before taking one): the
    /// callback limit stops the run with it counted as waiting.
    #[cold]
    fn refuse<H: Host<C, Self>>(&mut self, host: &mut H, phase: Phase) -> Step<H::Stop, T::Prune> {
        self.state.refused = Some(phase);
        Err(Halt::Host(host.limit(self, LimitKind::Callbacks, phase)))
    }

    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn flush_pool_log<H: Host<C, Self>>(&mut self, host: &mut H) {
        if !self.state.pool_log.is_empty() {
            self.report_pool_log(host);
        }
    }

    /// The pool events a callback caused, to the host (verbose traces) or dropped.
    #[cold]
    #[inline(never)]
    fn report_pool_log<H: Host<C, Self>>(&mut self, host: &mut H) {
        if T::REPORTS_POOL {
            for event in self.state.pool_log.drain(..) {
                host.observe(LoopEvent::Pool(event));
            }
        } else {
            self.state.pool_log.clear();
        }
    }

    /// Arms a timeout or interval: due at the reading plus the coerced delay (rule 3).
    fn arm_timer(&mut self, delay: u64, repeat: bool, cb: C) -> Handle {
        let coerced = coerce_delay(delay);
        let start = self.timing.read(&mut self.state, coerced, Reading::TimerSet(&cb));
        let id = self.state.timers.insert(start, coerced, repeat, cb);
        let s = &mut self.state;
        if let Some(facts) = s.facts.as_deref_mut() {
            facts.timer_set(id, s.turn, s.now, s.loop_phase, delay);
        }
        Handle::Timer(id)
    }
}

impl<C> LoopState<C> {
    /// The decision for a completion the poll phase runs (rules 2d, 4).
    fn completion(&self, done: &Completion<C>) -> Decision {
        let slept = self.slept;
        if done.job == 0 {
            return Decision::Io {
                arrived: done.ready,
                slept,
                joined: done.joined,
            };
        }
        let job = self.facts.as_deref().and_then(|f| f.jobs.get(done.job as usize - 1).copied());
        let (queued, work) = job.unwrap_or((done.start, done.ready.saturating_sub(done.start)));
        Decision::PoolJob(PoolJob {
            thread: usize::from(done.thread),
            queued,
            start: done.start,
            work,
            waited: done.start > queued,
            ready: done.ready,
            pool_size: self.pool.size(),
            slept,
            joined: done.joined,
        })
    }
}

impl<C: Clone, T: Timing<C>> EventLoop<C> for Scheduler<C, T> {
    fn now(&self) -> u64 {
        self.state.now
    }

    fn turn(&self) -> u64 {
        self.state.turn
    }

    fn each_queued(&self, f: &mut dyn FnMut(Queued, &C)) {
        self.state.each_queued(f);
    }

    fn waiting(&self) -> Waiting {
        self.state.waiting()
    }

    /// `setTimeout(cb, delay)`: due at the clock reading plus `coerce_delay(delay)` (rule 3).
    fn set_timeout(&mut self, delay: u64, cb: C) -> Handle {
        self.arm_timer(delay, false, cb)
    }

    /// `setInterval(cb, delay)`: like a timeout, re-armed from each run's start.
    fn set_interval(&mut self, delay: u64, cb: C) -> Handle {
        self.arm_timer(delay, true, cb)
    }

    /// `setImmediate(cb)`: queued for the check phase.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn set_immediate(&mut self, cb: C) -> Handle {
        let s = &mut self.state;
        let id = s.next_seq();
        s.check.push_back(Immediate { id, cb: Some(cb) });
        s.live_immediates += 1;
        s.note(|f| &mut f.check, s.loop_phase);
        Handle::Immediate(id)
    }

    /// `clearTimeout`/`clearInterval`/`clearImmediate`: a callback not yet run
    /// does not run, even if already due in the current phase. Returns whether
    /// something live was cleared; stale handles are ignored.
    fn clear(&mut self, handle: Handle) -> bool {
        let s = &mut self.state;
        match handle {
            Handle::Timer(id) => {
                let cleared = s.timers.clear(id);
                if let (true, Some(facts)) = (cleared, s.facts.as_deref_mut()) {
                    facts.timer_cleared(id);
                }
                cleared
            }
            Handle::Immediate(id) => {
                let Ok(i) = s.check.binary_search_by_key(&id, |im| im.id) else {
                    return false;
                };
                let cleared = s.check[i].cb.take().is_some();
                s.live_immediates -= usize::from(cleared);
                cleared
            }
        }
    }

    /// `process.nextTick(cb)`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn next_tick(&mut self, cb: C) {
        let s = &mut self.state;
        push_queued(&mut s.next_ticks, cb);
        s.note(|f| &mut f.next_ticks, s.last_phase);
    }

    /// `queueMicrotask(cb)` or a promise reaction.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn queue_microtask(&mut self, cb: C) {
        let s = &mut self.state;
        push_queued(&mut s.microtasks, cb);
        s.note(|f| &mut f.microtasks, s.last_phase);
    }

    /// Thread-pool work of `ticks` ticks (rule 4).
    fn submit(&mut self, ticks: u64, cb: C) {
        let now = self.timing.read(&mut self.state, ticks, Reading::Started(&cb));
        let s = &mut self.state;
        s.advance_pool();
        if let Some(facts) = s.facts.as_deref_mut() {
            facts.jobs.push((now, ticks));
        }
        s.pool.submit(now, ticks, &mut s.seq, cb, &mut s.pool_log);
    }

    /// I/O outside the pool, ready for poll `after` ticks from now.
    fn io(&mut self, after: u64, cb: C) {
        let now = self.timing.read(&mut self.state, after, Reading::Started(&cb));
        let seq = self.state.next_seq();
        self.state.pool.arrive(now.saturating_add(after), now, seq, cb);
    }

    /// A callback libuv defers to the pending phase (`uv__io_feed`).
    fn defer_pending(&mut self, cb: C) {
        let s = &mut self.state;
        s.pending.push_back(cb);
        s.note(|f| &mut f.pending, s.loop_phase);
    }

    /// A handle's close callback (`uv_close`): run LIFO in the close phase.
    fn close(&mut self, cb: C) {
        self.state.close.push(cb);
    }

    /// `work n`: synchronous CPU work; the clock moves, pool threads go on (rule 5).
    fn work(&mut self, ticks: u64) {
        self.timing.work_done(&mut self.state, ticks);
    }
}

#[cfg(test)]
mod tests;
