//! The thread pool and the poll queue of completed I/O.
//!
//! Models libuv `src/threadpool.c` (a fixed number of threads, one FIFO queue of
//! waiting work, a freed thread takes the next job at once) and the completions
//! `uv__io_poll` reports: docs/scheduling.md rule 4. Times are in ticks.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

/// A completed (or in-flight) I/O or pool job, ready for the poll phase at `ready`.
///
/// Poll callbacks run in the order epoll reports them (docs/scheduling.md rule
/// 2d, [`ThreadPool::ready_list_order`]): those that became ready while their
/// watcher was registered by `(ready, start, seq)`, then those registered when
/// already ready.
#[derive(Clone)]
pub struct Completion<C> {
    pub ready: u64,
    pub start: u64,
    pub seq: u64,
    /// Took no time at all (an `io` without `after`): ready at every later poll,
    /// never racing (docs/orders.md §4). A pool job never is, even of 0 ticks.
    pub instant: bool,
    /// The pool thread (1-based, at most 1024) that ran the job; 0 for `io`.
    pub thread: u16,
    /// The pool job's number (1-based, in submit order); 0 for `io`.
    pub job: u64,
    /// How many of the pool jobs submitted before this one that complete in
    /// the same tick may still be running when this one completes
    /// (`ThreadPool::room`); `u64::MAX` when any number may (an `io`, a job
    /// that started in an earlier tick).
    pub room: u64,
    /// `Some(tick)` when it was ready before its watcher was registered with
    /// epoll, which the poll phase entered at `tick` did (rule 2d): it joined
    /// epoll's ready list then, behind those that became ready while
    /// registered. `None` when it became ready while registered.
    pub joined: Option<u64>,
    pub cb: C,
}

impl<C> Completion<C> {
    fn key(&self) -> (u64, u64, u64) {
        (self.ready, self.start, self.seq)
    }
}

impl<C> PartialEq for Completion<C> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<C> Eq for Completion<C> {}
impl<C> PartialOrd for Completion<C> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<C> Ord for Completion<C> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// What happened in the pool, for verbose traces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolEvent {
    /// Thread `thread` (1-based) took job number `job` (1-based, in submit order) at tick `at`.
    Start { thread: usize, job: u64, at: u64, until: u64 },
    /// Thread `thread` finished job `job` at tick `at`; its callback is ready for poll.
    Finish { thread: usize, job: u64, at: u64 },
}

/// Where a callback held by the pool is ([`ThreadPool::each_job`], [`ThreadPool::each_completion`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolItem {
    /// Its job runs on pool thread `thread` (1-based).
    Running { thread: usize },
    /// Its job `job` waits for a free thread.
    Waiting { job: u64 },
    /// Its job finished (or its `io` arrives, when `io`): its callback is for
    /// the poll phase from tick `at` on.
    Ready { at: u64, io: bool },
}

/// A busy thread: (finish tick, thread, job, start seq, start tick).
type Busy = (u64, usize, u64, u64, u64);

#[derive(Clone)]
struct Waiting<C> {
    job: u64,
    ticks: u64,
    cb: C,
}

/// `size` threads and a FIFO of waiting jobs; finished jobs and `io` events
/// become [`Completion`]s in one queue ordered by ready tick.
#[derive(Clone)]
pub struct ThreadPool<C> {
    size: usize,
    /// Busy threads: (finish tick, thread, job, start seq, start tick, callback).
    running: BinaryHeap<Reverse<Busy>>,
    running_cbs: Vec<Option<C>>,
    /// The [`Completion::room`] of each busy thread's job, by thread.
    running_rooms: Vec<u64>,
    free_threads: Vec<usize>,
    waiting: VecDeque<Waiting<C>>,
    completions: BinaryHeap<Reverse<Completion<C>>>,
    /// Completions (and `io` events) whose watcher the next poll phase
    /// registers (rule 2d): `io` started since the last poll phase began,
    /// pool jobs finished before the first one.
    unregistered: Vec<Completion<C>>,
    /// Whether the pool's watcher (libuv's `wq_async`) is registered with
    /// epoll: from turn 1's poll phase on.
    pool_registered: bool,
    jobs: u64,
}

impl<C> ThreadPool<C> {
    /// Each job the pool holds, in order: running on a thread (by thread),
    /// then waiting for one (FIFO).
    pub fn each_job(&self, f: &mut dyn FnMut(PoolItem, &C)) {
        for (thread, cb) in self.running_cbs.iter().enumerate() {
            if let Some(cb) = cb {
                f(PoolItem::Running { thread: thread + 1 }, cb);
            }
        }
        for w in &self.waiting {
            f(PoolItem::Waiting { job: w.job }, &w.cb);
        }
    }

    /// Each completion (and `io` event), in the order poll phases take them,
    /// with the tick each is ready at.
    pub fn each_completion(&self, f: &mut dyn FnMut(PoolItem, &C)) {
        let mut done: Vec<&Completion<C>> = self.completions.iter().map(|Reverse(c)| c).collect();
        done.extend(&self.unregistered);
        crate::sort::sort_by_key(&mut done, |c| c.key());
        for c in done {
            f(
                PoolItem::Ready {
                    at: c.ready,
                    io: c.job == 0,
                },
                &c.cb,
            );
        }
    }

    /// A pool of `size` threads (`UV_THREADPOOL_SIZE`, 1..=1024).
    pub fn new(size: usize) -> Self {
        ThreadPool {
            size,
            running: BinaryHeap::new(),
            running_cbs: (0..size).map(|_| None).collect(),
            running_rooms: vec![u64::MAX; size],
            free_threads: (0..size).rev().collect(),
            waiting: VecDeque::new(),
            completions: BinaryHeap::new(),
            unregistered: Vec::new(),
            pool_registered: false,
            jobs: 0,
        }
    }

    /// Jobs running or waiting, plus completions not yet taken by a poll phase.
    pub fn outstanding(&self) -> usize {
        self.running.len() + self.waiting.len() + self.completions.len() + self.unregistered.len()
    }

    /// Number of threads.
    pub fn size(&self) -> usize {
        self.size
    }

    /// `uv_queue_work` at tick `now` (after [`advance`](Self::advance) to
    /// `now`): a free thread starts it at once, else it waits its turn (FIFO).
    pub fn submit(&mut self, now: u64, ticks: u64, seq: &mut u64, cb: C, log: &mut Vec<PoolEvent>) {
        self.jobs += 1;
        let job = self.jobs;
        match self.free_threads.pop() {
            // A job of 0 ticks is not instant: a thread still runs it and wakes the loop, at any
            // moment of its tick (docs/orders.md §4). Only an `io` that has already arrived is.
            Some(thread) => self.start(thread, job, now, ticks, seq, cb, log),
            None => self.waiting.push_back(Waiting { job, ticks, cb }),
        }
    }

    /// A job of 0 ticks that gets a thread at tick `at` completes in that same
    /// tick, so its thread must have been free inside that tick: of the jobs
    /// submitted before it, those still running when it started are at most the
    /// pool's size less one. The jobs that run past `at` are running then for
    /// sure; of those completing in tick `at`, at most the rest may be: the
    /// room returned. (The thread the model hands it is one way it can go:
    /// libuv's threads take jobs from one FIFO queue as each becomes free, so
    /// any thread freed in that tick, or idle before it, may take it;
    /// docs/orders.md §4.) A job of more ticks completes in a later tick than
    /// any such job: no room to keep.
    fn room(&self, at: u64, ticks: u64) -> u64 {
        if ticks > 0 {
            return u64::MAX;
        }
        let past = self.running.iter().filter(|r| r.0 .0 > at).count();
        (self.size - 1).saturating_sub(past) as u64
    }

    #[allow(clippy::too_many_arguments)]
    fn start(&mut self, thread: usize, job: u64, at: u64, ticks: u64, seq: &mut u64, cb: C, log: &mut Vec<PoolEvent>) {
        *seq += 1;
        self.running_rooms[thread] = self.room(at, ticks);
        let until = at.saturating_add(ticks);
        self.running.push(Reverse((until, thread, job, *seq, at)));
        self.running_cbs[thread] = Some(cb);
        log.push(PoolEvent::Start {
            thread: thread + 1,
            job,
            at,
            until,
        });
    }

    /// An `io` event started at `start` (sequence `seq`) that arrives at `ready`.
    pub fn arrive(&mut self, ready: u64, start: u64, seq: u64, cb: C) {
        let instant = ready == start;
        // A new watcher: libuv registers it at the next poll phase's start (rule 2d).
        self.unregistered.push(Completion {
            ready,
            start,
            seq,
            instant,
            thread: 0,
            job: 0,
            room: u64::MAX,
            joined: None,
            cb,
        });
    }

    /// Rule 2d — the watchers started since the last poll phase are
    /// registered with epoll as the poll phase entered at tick `at` begins
    /// (libuv's `uv__io_poll` adds the `watcher_queue` first), the pool's
    /// (`wq_async`, from `uv_loop_init`) ahead of every `io`'s. One already
    /// ready joins epoll's ready list there, behind those that became ready
    /// while registered: its `joined` is `Some(at)`.
    pub fn register_watchers(&mut self, at: u64) {
        self.pool_registered = true;
        if self.unregistered.is_empty() {
            return;
        }
        let mut fresh = std::mem::take(&mut self.unregistered);
        for c in &mut fresh {
            if c.ready <= at {
                c.joined = Some(at);
            }
        }
        // Natively, heapified in place when nothing else waits: a million
        // `io` from the main module are not held twice. (Not in the
        // WebAssembly build, for its size budget: the code folds away.)
        if cfg!(not(target_arch = "wasm32")) && self.completions.is_empty() {
            self.completions = BinaryHeap::from(fresh.into_iter().map(Reverse).collect::<Vec<_>>());
            return;
        }
        while let Some(c) = fresh.pop() {
            self.completions.push(Reverse(c));
        }
    }

    /// Keeps `joined` (for `--explain`) only where rule 2d's registration
    /// changed the order of `items` (one poll phase's, in run order) from
    /// `(ready, start, seq)`.
    pub fn keep_joined_where_it_reordered(items: &mut [Completion<C>]) {
        if items.windows(2).all(|w| w[0].key() <= w[1].key()) {
            for c in items {
                c.joined = None;
            }
        }
    }

    /// Rule 2d — the order epoll reports the completions one poll phase
    /// takes (`items`, which must come by `(ready, start, seq)`): those that became ready
    /// while registered first, in that order (each joined epoll's ready list
    /// as it became ready); then those that joined it as their watcher was
    /// registered, in the order libuv registered them: the pool's (its jobs
    /// by completion), then each `io` in start order.
    pub fn ready_list_order(items: &mut [Completion<C>]) {
        if items.iter().all(|c| c.joined.is_none()) {
            return;
        }
        // `items` come by `(ready, start, seq)`, which a stable sort keeps
        // within each of the first two groups; an `io`'s `seq` is its start
        // order.
        crate::sort::sort_by_key(items, |c| match c.joined {
            None => 0,
            Some(_) if c.job != 0 => 1,
            Some(_) => c.seq.saturating_add(2),
        });
    }

    /// Runs the pool's threads up to tick `until`: every job finishing at
    /// `T <= until` completes, and its thread takes the next waiting job at `T`.
    pub fn advance(&mut self, until: u64, seq: &mut u64, log: &mut Vec<PoolEvent>) {
        while let Some(&Reverse((at, thread, job, start_seq, start))) = self.running.peek() {
            if at > until {
                break;
            }
            self.running.pop();
            let cb = self.running_cbs[thread].take().expect("a busy thread holds its job");
            log.push(PoolEvent::Finish {
                thread: thread + 1,
                job,
                at,
            });
            let done = Completion {
                ready: at,
                start,
                seq: start_seq,
                instant: false,
                thread: u16::try_from(thread + 1).unwrap_or(u16::MAX),
                job,
                room: self.running_rooms[thread],
                joined: None,
                cb,
            };
            if self.pool_registered {
                self.completions.push(Reverse(done));
            } else {
                self.unregistered.push(done);
            }
            match self.waiting.pop_front() {
                Some(w) => self.start(thread, w.job, at, w.ticks, seq, w.cb, log),
                None => self.free_threads.push(thread),
            }
        }
    }

    /// The earliest tick at which a completion is (or will be) ready, if any.
    pub fn next_ready(&self) -> Option<u64> {
        let mut done = self.completions.peek().map(|c| c.0.ready);
        for c in &self.unregistered {
            done = Some(done.map_or(c.ready, |d| d.min(c.ready)));
        }
        let running = self.running.peek().map(|r| r.0 .0);
        match (done, running) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Takes every completion ready at or before `now`, in the order epoll
    /// reports them ([`ThreadPool::ready_list_order`]).
    pub fn take_ready(&mut self, now: u64) -> Vec<Completion<C>> {
        let mut ready = Vec::new();
        while self.completions.peek().is_some_and(|c| c.0.ready <= now) {
            ready.push(self.completions.pop().expect("peeked").0);
        }
        Self::ready_list_order(&mut ready);
        ready
    }
}

impl<C> ThreadPool<C> {
    /// Takes the completions certainly ready at a poll entered at tick `t`:
    /// those of earlier ticks and the instant ones, by ready tick.
    pub fn take_before(&mut self, t: u64) -> Vec<Completion<C>> {
        let mut keep = Vec::new();
        let mut ready = Vec::new();
        while let Some(Reverse(c)) = self.completions.pop() {
            if c.ready < t || (c.instant && c.ready <= t) {
                ready.push(c);
            } else if c.ready > t {
                keep.push(c);
                break;
            } else {
                keep.push(c);
            }
        }
        self.completions.extend(keep.into_iter().map(Reverse));
        ready
    }

    /// Takes the (non-instant) completions of tick `t`: they may or may not be
    /// ready yet at a poll in that tick.
    pub fn take_at(&mut self, t: u64) -> Vec<Completion<C>> {
        let mut at = Vec::new();
        let mut keep = Vec::new();
        while self.completions.peek().is_some_and(|c| c.0.ready <= t) {
            let c = self.completions.pop().expect("peeked").0;
            if c.ready == t && !c.instant {
                at.push(c);
            } else {
                keep.push(c);
            }
        }
        self.completions.extend(keep.into_iter().map(Reverse));
        at
    }

    /// Puts completions back (not ready after all): each will join epoll's
    /// ready list as it becomes ready, its watcher registered.
    pub fn put_back(&mut self, mut items: Vec<Completion<C>>) {
        for c in &mut items {
            c.joined = None;
        }
        self.completions.extend(items.into_iter().map(Reverse));
    }

    /// The latest tick anything in the pool or the I/O queue completes at
    /// (an upper bound for waiting jobs), if anything is outstanding.
    pub fn latest(&self) -> Option<u64> {
        let running = self.running.iter().map(|r| r.0 .0).max();
        let mut done = self.completions.iter().map(|c| c.0.ready).max();
        for c in &self.unregistered {
            done = Some(done.map_or(c.ready, |d| d.max(c.ready)));
        }
        let waiting: u64 = self.waiting.iter().fold(0u64, |a, w| a.saturating_add(w.ticks));
        let base = running.into_iter().chain(done).max()?;
        Some(base.saturating_add(waiting))
    }

    /// Every tick a running job or an `io` event completes at.
    pub fn thresholds(&self) -> Vec<u64> {
        self.running
            .iter()
            .map(|r| r.0 .0)
            .chain(self.completions.iter().map(|c| c.0.ready))
            .chain(self.unregistered.iter().map(|c| c.ready))
            .collect::<Vec<u64>>()
    }

    /// Feeds a description of the pool's state, times relative to `base`, to `h`;
    /// completions ready before `past` keep only the ranks of their ticks and
    /// of their starts within a tick (docs/orders.md "Past ticks").
    pub fn fingerprint<H: std::hash::Hasher>(&self, base: u64, past: Option<u64>, h: &mut H)
    where
        C: std::hash::Hash,
    {
        use std::hash::Hash;
        let rel = |t: u64| t as i128 - base as i128;
        let mut running: Vec<(i128, i128)> = self.running.iter().map(|r| (rel(r.0 .0), rel(r.0 .4))).collect();
        crate::sort::sort(&mut running);
        running.hash(h);
        for (thread, cb) in self.running_cbs.iter().enumerate() {
            if let Some(cb) = cb {
                (thread, cb, self.running_rooms[thread]).hash(h);
            }
        }
        for w in &self.waiting {
            (w.ticks, &w.cb).hash(h);
        }
        let mut done: Vec<(i128, i128, u64, bool, u64)> = self
            .completions
            .iter()
            .map(|c| (rel(c.0.ready), rel(c.0.start), c.0.seq, c.0.instant, c.0.room))
            .collect();
        crate::sort::sort(&mut done);
        // Ready before `past`: ready at every later poll, by tick, and within
        // a tick in an order chosen there (from their start order). Only
        // that is kept: the rank of each one's tick, and of its start within
        // the tick. They come first in `done`, sorted.
        // (Not in the WebAssembly build, for its size budget: the code folds away.)
        let past = past.filter(|_| cfg!(not(target_arch = "wasm32")));
        let before = past.map_or(i128::MIN, rel);
        let (mut tick, mut within, mut last) = (i128::MIN, 0, None);
        for d in done.iter_mut().take_while(|d| d.0 < before) {
            match last {
                Some((ready, _)) if ready == d.0 => {}
                _ => (tick, within) = (tick + 1, 0),
            }
            if last != Some((d.0, d.1)) {
                within += 1;
            }
            last = Some((d.0, d.1));
            (d.0, d.1) = (tick, within);
        }
        done.hash(h);
        for c in &self.completions {
            (c.0.joined.is_some(), &c.0.cb).hash(h);
        }
        // Not yet registered (rule 2d): in start order, as they will be.
        self.pool_registered.hash(h);
        for c in &self.unregistered {
            (rel(c.ready), rel(c.start), c.seq, c.instant, c.room, &c.cb).hash(h);
        }
    }
}
