//! Node 20 as it really runs, with its unknown timings (docs/orders.md).
//!
//! Unlike the seed model ([`Scheduler`](crate::sched::Scheduler)), the clock is
//! a floored millisecond counter that each unit (the main module, every
//! callback, the stretch before the first turn, each turn's own overhead) may
//! move across one more boundary than its `work`, and completions within one
//! tick happen in any order. Every such unknown is a choice put to a
//! [`Chooser`]; `crate::orders` explores them all. The loop is libuv 1.46's
//! `uv_run` (pending → poll → pending rounds → check → close → timers), with
//! Node 20's timer lists and single timer handle (`lib/internal/timers.js`,
//! `src/env.cc` `RunTimers`). Times are in ticks (milliseconds).

use crate::sched::{
    coerce_delay, Ctx, EventLoop, Handle, Host, LimitKind, Limits, Module, NodeTimers, Phase, ThreadPool, TimerHead, Waiting,
};
use std::collections::VecDeque;
use std::fmt::Display;
use std::hash::{Hash, Hasher};

/// Picks among the possible timings.
pub trait Chooser {
    /// Picks one of `n >= 2` options; `why(i)` says what option `i` means.
    fn choose(&mut self, n: usize, why: &dyn Fn(usize) -> String) -> usize;
    /// Called at each turn with a fingerprint of the whole state (the log so
    /// far included); `false` abandons this schedule (its future was explored).
    fn visit(&mut self, fingerprint: u64) -> bool;
}

/// Why a schedule stopped early.
#[derive(Debug)]
pub enum Halt<S> {
    /// The host stopped it (a limit).
    Host(S),
    /// The chooser abandoned it.
    Pruned,
}

impl<S> From<S> for Halt<S> {
    fn from(s: S) -> Self {
        Halt::Host(s)
    }
}

/// How many of a tick's completions a poll finds ready.
#[derive(Clone, Copy)]
enum Ready {
    /// All of them (an earlier tick): only their order is unknown.
    All,
    /// Any subset, maybe none (a poll entered in their tick).
    Any,
    /// At least one (a poll woken by one of them).
    AtLeastOne,
}

struct Immediate<C> {
    id: u64,
    cb: Option<C>,
}

/// The Node 20 loop. `C`: the host's callbacks; `K`: the chooser.
pub struct Node20<C, K> {
    /// The clock as far as it is known: the last reading plus exact `work` since.
    base: u64,
    /// Units begun whose one boundary crossing is still unused.
    unused: u64,
    /// libuv's cached `loop->time`: the last reading.
    cached: u64,
    turn: u64,
    module: Module,
    limits: Limits,
    callbacks: u64,
    seq: u64,
    timers: NodeTimers<C>,
    pool: ThreadPool<C>,
    pool_log: Vec<crate::sched::PoolEvent>,
    pending: VecDeque<C>,
    check: VecDeque<Immediate<C>>,
    live_immediates: usize,
    close: Vec<C>,
    next_ticks: VecDeque<C>,
    microtasks: VecDeque<C>,
    esm_main: Option<C>,
    last_phase: Phase,
    chooser: K,
}

type Step<S> = Result<(), Halt<S>>;

impl<C: Clone + Display + Hash, K: Chooser> Node20<C, K> {
    /// A loop at tick 0.
    pub fn new(pool_size: usize, module: Module, limits: Limits, chooser: K) -> Self {
        Node20 {
            base: 0,
            unused: 0,
            cached: 0,
            turn: 0,
            module,
            limits,
            callbacks: 0,
            seq: 0,
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
            last_phase: Phase::Main,
            chooser,
        }
    }

    /// Callbacks called so far.
    pub fn callbacks(&self) -> u64 {
        self.callbacks
    }

    /// Runs the main module, then `uv_run` until nothing is left.
    ///
    /// # Errors
    /// [`Halt::Host`] when the host stops the run; [`Halt::Pruned`] when the chooser abandons it.
    pub fn run<H: Host<C, Self>>(&mut self, main: C, host: &mut H) -> Step<H::Stop> {
        match self.module {
            Module::Cjs => {
                self.unused += 1;
                let ctx = self.ctx(Phase::Main, None, 1);
                host.call(self, main, ctx)?;
                self.drain(host)?;
            }
            Module::Esm => self.esm_main = Some(main),
        }
        self.unused += 1;
        while self.alive() {
            if self.turn >= self.limits.max_turns {
                return Err(Halt::Host(host.limit(self, LimitKind::Turns, self.last_phase)));
            }
            self.turn += 1;
            if !self.chooser.visit(self.fingerprint(host)) {
                return Err(Halt::Pruned);
            }
            let turn = self.turn;
            self.read(0, &|| format!("the timers phase of turn {turn}"));
            self.timers_phase(host)?;
            if !self.alive() {
                break;
            }
            self.unused += 1;
            let batch = std::mem::take(&mut self.pending);
            self.run_each(batch, Phase::Pending, host)?;
            self.poll_phase(host)?;
            self.check_phase(host)?;
            let mut batch = std::mem::take(&mut self.close);
            batch.reverse();
            self.run_each(batch, Phase::Close, host)?;
        }
        Ok(())
    }

    fn fingerprint<H: Host<C, Self>>(&self, host: &H) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let base = self.base;
        (self.unused.min(64), self.cached as i128 - base as i128, self.callbacks).hash(&mut h);
        self.timers.fingerprint(base, &mut h);
        self.pool.fingerprint(base, &mut h);
        self.pending.hash(&mut h);
        for im in &self.check {
            im.cb.hash(&mut h);
        }
        self.close.hash(&mut h);
        self.esm_main.is_some().hash(&mut h);
        host.fingerprint(&mut h);
        h.finish()
    }

    fn alive(&self) -> bool {
        self.timers.live() > 0
            || self.pool.outstanding() > 0
            || self.live_immediates > 0
            || !self.close.is_empty()
            || !self.pending.is_empty()
            || self.esm_main.is_some()
    }

    /// A clock reading: the clock may have crossed one boundary per unit
    /// begun since the last reading. `offset` is what the reading is compared
    /// with later (a timer's delay, a job's length), so that only crossings
    /// that change some comparison are tried.
    fn read(&mut self, offset: u64, what: &dyn Fn() -> String) -> u64 {
        let max_k = self.unused.min(self.horizon());
        let k = if max_k == 0 {
            0
        } else {
            let options = self.candidates(max_k, offset);
            let i = self.chooser.choose(options.len(), &|i| {
                let k = options[i];
                match k {
                    1 => format!("a millisecond boundary passed before {}", what()),
                    k => format!("{k} millisecond boundaries passed before {}", what()),
                }
            });
            options[i]
        };
        self.unused = u64::from(k < self.unused);
        self.base = self.base.saturating_add(k);
        self.cached = self.base;
        self.pool.advance(self.base, &mut self.seq, &mut self.pool_log);
        self.pool_log.clear();
        self.base
    }

    /// How far ahead of `base` anything pending lies: past it, more
    /// crossings change no comparison.
    fn horizon(&self) -> u64 {
        let latest = self.timers.latest().into_iter().chain(self.pool.latest()).max();
        latest.map_or(0, |t| t.saturating_sub(self.base))
    }

    /// The crossings worth trying: 0, the most, and those that put the
    /// reading (or the reading plus `offset`) next to a pending threshold.
    fn candidates(&self, max_k: u64, offset: u64) -> Vec<u64> {
        let mut ks = vec![0, max_k];
        if max_k > 4 {
            let thresholds = self
                .timers
                .latest()
                .into_iter()
                .chain(self.pool.latest())
                .chain(self.timers.handle_due());
            for t in thresholds.chain(self.thresholds()) {
                for x in [
                    t.saturating_sub(1),
                    t,
                    t.saturating_add(1),
                    t.saturating_sub(offset.saturating_add(1)),
                    t.saturating_sub(offset),
                    t.saturating_sub(offset).saturating_add(1),
                ] {
                    if x >= self.base && x - self.base <= max_k {
                        ks.push(x - self.base);
                    }
                }
            }
        } else {
            ks.extend(1..max_k);
        }
        ks.sort_unstable();
        ks.dedup();
        ks
    }

    fn thresholds(&self) -> Vec<u64> {
        self.timers.thresholds().into_iter().chain(self.pool.thresholds()).collect()
    }

    /// Whether the poll phase may block (`uv__backend_timeout` is not 0).
    fn may_block(&self) -> bool {
        self.live_immediates == 0
            && self.pending.is_empty()
            && self.close.is_empty()
            && self.timers.handle_due().is_none_or(|r| r > self.cached)
    }

    /// `uv__run_timers` calling `RunTimers` while the handle is due by the
    /// cached clock; each `RunTimers` after the first reads the clock afresh.
    fn timers_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        let mut first = true;
        while self.timers.handle_due().is_some_and(|r| r <= self.cached) {
            if !first {
                self.read(0, &|| "a timers phase run again".to_string());
            }
            first = false;
            let now = self.base;
            self.timers.begin_run();
            let (next, ran) = self.process_timers(now, host)?;
            self.timers.end_run(next, self.cached);
            if ran {
                self.drain(host)?;
            }
        }
        Ok(())
    }

    fn process_timers<H: Host<C, Self>>(&mut self, now: u64, host: &mut H) -> Result<(Option<u64>, bool), Halt<H::Stop>> {
        let mut ran = false;
        loop {
            let list = match self.timers.next_due_list(now) {
                Ok(list) => list,
                Err(next) => return Ok((next, ran)),
            };
            loop {
                let due = match self.timers.head(list, now) {
                    TimerHead::Due(due) => due,
                    TimerHead::NotDue | TimerHead::ListDone => break,
                };
                if ran {
                    self.drain(host)?;
                }
                ran = true;
                if !self.timers.is_running(due.id) {
                    self.timers.finish(due, None);
                    continue;
                }
                let start = if due.repeat {
                    let what = format!("{} started", due.cb);
                    Some(self.read(0, &|| what.clone()))
                } else {
                    None
                };
                let ctx = self.ctx(Phase::Timers, Some(Handle::Timer(due.id)), due.run);
                self.call(host, due.cb.clone(), ctx)?;
                self.timers.finish(due, start);
            }
        }
    }

    /// Poll: completions of earlier ticks are ready, any ordered subset of
    /// this tick's; with nothing ready and nothing else queued it blocks
    /// until the timer handle or the next completion (docs/orders.md §4-5).
    fn poll_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        let turn = self.turn;
        let t = self.read(0, &|| format!("the poll phase of turn {turn}"));
        if let Some(main) = self.esm_main.take() {
            let ctx = self.ctx(Phase::Main, None, 1);
            self.unused += 1;
            host.call(self, main, ctx)?;
            self.run_microtasks(host)?;
            self.drain(host)?;
        }
        let earlier = self.pool.take_before(t);
        let mut ready = self.order_groups(earlier);
        let group = self.pool.take_at(t);
        ready.extend(self.ordered_subset(group, Ready::Any));
        if ready.is_empty() && self.may_block() {
            ready = self.block();
        }
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

    /// Blocks until the handle's due tick or the next completion.
    fn block(&mut self) -> Vec<C> {
        let next = self.pool.next_ready();
        let handle = self.timers.handle_due();
        let Some(wake) = next.into_iter().chain(handle).min() else {
            return Vec::new();
        };
        if wake > self.base {
            self.base = wake;
            self.cached = wake;
            self.unused = 1;
            self.pool.advance(wake, &mut self.seq, &mut self.pool_log);
            self.pool_log.clear();
        }
        if next != Some(wake) {
            return Vec::new();
        }
        let group = self.pool.take_at(wake);
        let earlier = self.pool.take_before(wake);
        let mut ready = self.order_groups(earlier);
        let must = if handle == Some(wake) { Ready::Any } else { Ready::AtLeastOne };
        ready.extend(self.ordered_subset(group, must));
        ready
    }

    /// Orders each tick's group of completions in every possible way.
    fn order_groups(&mut self, items: Vec<crate::sched::Completion<C>>) -> Vec<C> {
        let mut out = Vec::new();
        let mut rest = items.into_iter().peekable();
        while let Some(first) = rest.next() {
            let mut group = vec![first];
            while rest.peek().is_some_and(|c| c.ready == group[0].ready) {
                group.push(rest.next().expect("peeked"));
            }
            let ordered = self.ordered_subset(group, Ready::All);
            out.extend(ordered);
        }
        out
    }

    /// Chooses which of `group` (all of one tick) are ready, and in which
    /// order; the others are put back.
    fn ordered_subset(&mut self, mut group: Vec<crate::sched::Completion<C>>, ready: Ready) -> Vec<C> {
        let mut out = Vec::new();
        while !group.is_empty() {
            let can_stop = match ready {
                Ready::All => false,
                Ready::Any => true,
                Ready::AtLeastOne => !out.is_empty(),
            };
            let n = group.len() + usize::from(can_stop);
            if n == 1 {
                out.push(group.pop().expect("one left").cb);
                break;
            }
            let names: Vec<String> = group.iter().map(|c| c.cb.to_string()).collect();
            let i = self.chooser.choose(n, &|i| match names.get(i) {
                Some(name) => format!("{name} completed next within its tick"),
                None => "the rest of the tick's completions were not ready yet".to_string(),
            });
            if i == group.len() {
                break;
            }
            out.push(group.remove(i).cb);
        }
        self.pool.put_back(group);
        out
    }

    fn check_phase<H: Host<C, Self>>(&mut self, host: &mut H) -> Step<H::Stop> {
        let snapshot = self.check.len();
        for _ in 0..snapshot {
            let immediate = self.check.pop_front().expect("snapshot length");
            if let Some(cb) = immediate.cb {
                self.live_immediates -= 1;
                let ctx = self.ctx(Phase::Check, Some(Handle::Immediate(immediate.id)), 1);
                self.call(host, cb, ctx)?;
                self.drain(host)?;
            }
        }
        Ok(())
    }

    fn run_each<H: Host<C, Self>, I: IntoIterator<Item = C>>(&mut self, batch: I, phase: Phase, host: &mut H) -> Step<H::Stop> {
        for cb in batch {
            let ctx = self.ctx(phase, None, 1);
            self.call(host, cb, ctx)?;
            self.drain(host)?;
        }
        Ok(())
    }

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
            now: self.base,
            phase,
            loop_phase: phase,
            handle,
            run,
        }
    }

    fn call<H: Host<C, Self>>(&mut self, host: &mut H, cb: C, ctx: Ctx) -> Step<H::Stop> {
        if self.callbacks >= self.limits.max_callbacks {
            return Err(Halt::Host(host.limit(self, LimitKind::Callbacks, ctx.phase)));
        }
        self.callbacks += 1;
        self.unused += 1;
        self.last_phase = ctx.phase;
        host.call(self, cb, ctx)?;
        Ok(())
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }
}

impl<C: Clone + Display + Hash, K: Chooser> EventLoop<C> for Node20<C, K> {
    fn now(&self) -> u64 {
        self.base
    }

    fn turn(&self) -> u64 {
        self.turn
    }

    fn waiting(&self) -> Waiting {
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

    fn set_timeout(&mut self, delay: u64, cb: C) -> Handle {
        let delay = coerce_delay(delay);
        let what = format!("{cb} was set");
        let start = self.read(delay, &|| what.clone());
        Handle::Timer(self.timers.insert(start, delay, false, cb))
    }

    fn set_interval(&mut self, delay: u64, cb: C) -> Handle {
        let delay = coerce_delay(delay);
        let what = format!("{cb} was set");
        let start = self.read(delay, &|| what.clone());
        Handle::Timer(self.timers.insert(start, delay, true, cb))
    }

    fn set_immediate(&mut self, cb: C) -> Handle {
        let id = self.next_seq();
        self.check.push_back(Immediate { id, cb: Some(cb) });
        self.live_immediates += 1;
        Handle::Immediate(id)
    }

    fn clear(&mut self, handle: Handle) -> bool {
        match handle {
            Handle::Timer(id) => self.timers.clear(id),
            Handle::Immediate(id) => {
                let Ok(i) = self.check.binary_search_by_key(&id, |im| im.id) else {
                    return false;
                };
                let cleared = self.check[i].cb.take().is_some();
                self.live_immediates -= usize::from(cleared);
                cleared
            }
        }
    }

    fn next_tick(&mut self, cb: C) {
        self.next_ticks.push_back(cb);
    }

    fn queue_microtask(&mut self, cb: C) {
        self.microtasks.push_back(cb);
    }

    fn submit(&mut self, ticks: u64, cb: C) {
        let what = format!("{cb} started");
        let now = self.read(ticks, &|| what.clone());
        self.pool.submit(now, ticks, &mut self.seq, cb, &mut self.pool_log);
        self.pool_log.clear();
    }

    fn io(&mut self, after: u64, cb: C) {
        let what = format!("{cb} started");
        let now = self.read(after, &|| what.clone());
        let seq = self.next_seq();
        self.pool.arrive(now.saturating_add(after), now, seq, cb);
    }

    fn defer_pending(&mut self, cb: C) {
        self.pending.push_back(cb);
    }

    fn close(&mut self, cb: C) {
        self.close.push(cb);
    }

    fn work(&mut self, ticks: u64) {
        self.base = self.base.saturating_add(ticks);
    }
}
