//! Node 20 as it really runs, with its unknown timings (docs/orders.md).
//!
//! The loop is the one scheduler ([`Scheduler`](crate::sched::Scheduler):
//! libuv 1.46's `uv_run` with Node 20's queues, timer lists and single timer
//! handle); what differs from the seed model is its [`Timing`], here
//! [`ChooserClock`]. The clock is a floored millisecond counter that each
//! unit (the main module, every callback, the stretch before the first turn,
//! each turn's own overhead) may move across one more boundary than its
//! `work`; the loop waits inside the poll phase, not at a turn's start; and
//! completions within one tick happen in any order. Every such unknown is a
//! choice put to a [`Chooser`]; `crate::orders` explores them all. Times are
//! in ticks (milliseconds).

use crate::sched::{Completion, LoopState, Module, Phase, Reading, Scheduler, Slept, ThreadPool, Timing};
use crate::sched::{Limits, LogSoFar, NodeProfile};
use std::collections::HashMap;
use std::fmt::Display;
use std::hash::{Hash, Hasher};

/// Picks among the possible timings.
pub trait Chooser {
    /// Picks one of `n >= 2` options; `why(i)` says what option `i` means.
    fn choose(&mut self, n: usize, why: &dyn Fn(usize) -> String) -> usize;
    /// Called at each turn with a fingerprint of the whole state but the log
    /// so far, and the log so far; `false` abandons this schedule (its
    /// future was explored).
    fn visit(&mut self, fingerprint: u64, log: LogSoFar) -> bool;
    /// Whether completions of callback site `site` may be treated as
    /// interchangeable (see [`Interchangeable`]); `false` unless the chooser
    /// reduces by symmetry.
    fn symmetric(&mut self, site: usize) -> bool {
        let _ = site;
        false
    }
    /// Asked when the completions of `class` (indices `{i}` in `members`) are
    /// interchangeable at a choice: `true` lets only the first be offered (the
    /// chooser records the symmetry), `false` offers them all.
    fn interchanged(&mut self, class: Class, members: &[u32]) -> bool {
        let _ = (class, members);
        false
    }
    /// Asked when `members`, completions whose callbacks only log
    /// ([`Interchangeable::pure`]), are candidates at one choice: `true` lets
    /// only the first be offered (the chooser records them), `false` offers
    /// them all.
    fn commuting(&mut self, members: &[Member]) -> bool {
        let _ = members;
        false
    }
    /// Whether a poll phase may leave out the choice to stop taking a
    /// tick's completions when stopping cannot change a line
    /// ([`ChooserClock::stop_changes_nothing`]); `false` unless the chooser
    /// reduces by symmetry.
    fn drops_idle_stops(&self) -> bool {
        false
    }
    /// Whether timer starts are read lazily ([`ChooserClock`]'s lazy
    /// readings, docs/orders.md "Lazy timer starts"); `false` unless the
    /// chooser asks for it.
    fn lazy(&self) -> bool {
        false
    }
    /// Whether a run that is [`settled`] stops offering its states to
    /// [`Chooser::visit`] (docs/orders.md "Settled runs"); `false` unless
    /// the chooser asks for it.
    fn settles(&self) -> bool {
        false
    }
    /// Whether a state's fingerprint holds the turn count: two schedules
    /// that meet one state at different turns have the same futures only
    /// where no turn limit cuts them; `false` unless the chooser asks.
    fn keys_turns(&self) -> bool {
        false
    }
    /// Whether a state's fingerprint holds the ticks at or before the last
    /// clock reading as one value (docs/orders.md "Past ticks"); `true`
    /// unless the chooser asks for them exactly.
    fn keys_past_as_one(&self) -> bool {
        true
    }
    /// Whether a state's fingerprint holds the timers' slots; `true` unless
    /// the chooser knows nothing reads them (no `clear` in the file: docs/orders.md
    /// "Timer slots").
    fn keys_timer_slots(&self) -> bool {
        true
    }
    /// Told when a lazy schedule met a comparison whose outcome a lazily read
    /// timer start could change: its orders stand for no exact set, and the
    /// search must read every start exactly instead.
    fn not_robust(&mut self) {}
}

/// One completion of a group that commutes: its statement and `{i}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Member {
    /// The callback statement's site number.
    pub site: usize,
    /// The statement's span in bytes (start, end).
    #[serde(skip)]
    pub span: (u32, u32),
    /// Its `{i}`, if it has one.
    pub index: Option<u32>,
}

/// What makes two completions interchangeable: the same callback statement
/// (site), the same everything else but the `{i}` of their `repeat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Class {
    /// The callback statement's site number.
    pub site: usize,
    /// The statement's span in bytes (start, end): the lines its callbacks log lie inside.
    pub span: (u32, u32),
    /// What else must be equal: the round trips left (high 32 bits) and the
    /// run of an `again` chain (low 32 bits).
    pub key: u64,
}

/// A callback that may be one of several interchangeable completions
/// (symmetry reduction, docs/orders.md "How loopsim searches").
pub trait Interchangeable {
    /// Its class and its `{i}`, if it has both; `None`: never interchangeable.
    fn class(&self) -> Option<(Class, u32)> {
        None
    }
    /// Whether its callback only logs lines that no order of running changes
    /// (no `work`, no `{k}` or `{n}`, no scheduling but of nextTick,
    /// `microtask` and `then` callbacks that do the same, which the drain
    /// after it runs right after it): then two such completions of one tick
    /// commute but for the order of their blocks of lines.
    /// `None`: it may do more.
    fn pure(&self) -> Option<Member> {
        None
    }
    /// The callbacks it runs, with those the drain after it runs, if it
    /// is [`pure`](Self::pure). Each may take a tick (a unit of the clock),
    /// so only completions that run as many commute: moving a longer block
    /// before another event would change when that event falls due.
    fn callbacks(&self) -> usize {
        1
    }
    /// The lines it logs, if it is [`pure`](Self::pure) (`None`: it may do
    /// more). Two completions with the same lines: which of the two runs
    /// first shows in no order.
    fn lines(&self) -> Option<Vec<String>> {
        None
    }
    /// Whether its callback leaves nothing behind once the drain after it
    /// ends: it only logs lines and queues nextTick, microtask or `then`
    /// callbacks that do the same (docs/orders.md "Idle stops"). Every
    /// [`pure`](Self::pure) callback does.
    fn drains_only(&self) -> bool {
        self.pure().is_some()
    }
    /// Whether its callback, and every callback it may schedule however
    /// deep, sets no timer, starts no pool job or I/O and touches no
    /// promise (only `log`, `work`, `clear`, `repeat`, `again` and
    /// immediate, nextTick, microtask, `then`, pending and close
    /// callbacks that do the same): once only such callbacks wait, no
    /// timing is left to choose ([`settled`]). `false`: it may do more.
    fn untimed(&self) -> bool {
        false
    }
}

impl Interchangeable for usize {}

/// The chooser abandoned a schedule (its future was explored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruned;

/// Why a schedule stopped early: the host stopped it (a limit), or the chooser abandoned it.
pub type Halt<S> = crate::sched::Halt<S, Pruned>;

/// How many of a tick's completions a poll finds ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ready {
    /// All of them (an earlier tick): only their order is unknown.
    All,
    /// Any subset, maybe none (a poll entered in their tick).
    Any,
    /// At least one (a poll woken by one of them).
    AtLeastOne,
}

/// Real Node 20's timing: clock readings and completion orders chosen by `K`.
pub struct ChooserClock<K> {
    /// Units begun whose one boundary crossing is still unused.
    unused: u64,
    chooser: K,
    /// Lazy readings ([`Chooser::lazy`]): the timer starts read since the
    /// last exact reading lie in `open` (lowest and highest clock values).
    open: Option<(u64, u64)>,
    /// Closed stretches of lazy readings `(lowest, highest, crossings)`: a
    /// timer whose start `s` lies in one may really have started anywhere
    /// in `s ..= s + crossings`.
    stretches: Vec<(u64, u64, u64)>,
    /// The chooser asked for lazy readings.
    lazy: bool,
    /// The turn limit ([`Limits::max_turns`]): a stop left out must not be
    /// one that would have reached it.
    max_turns: u64,
    /// No choice is left in this run ([`settled`]): its states are no
    /// longer offered to the chooser.
    settled: bool,
    /// The turn count is part of a state ([`Chooser::keys_turns`]).
    keys_turns: bool,
    /// Past ticks are one value in a state ([`Chooser::keys_past_as_one`]).
    past_as_one: bool,
    /// Timers' slots are part of a state ([`Chooser::keys_timer_slots`]).
    timer_slots: bool,
}

/// Marks a state met at a poll phase's start, apart from one at a turn's start.
const POLL_BEGINS: u64 = 0x9e37_79b9_7f4a_7c15;

/// Marks a state met at a pending phase's start, apart from the other two kinds.
const PENDING_BEGINS: u64 = 0x51ed_270b_2730_67a1;

/// The Node 20 loop with its unknown timings. `C`: the host's callbacks; `K`: the chooser.
pub type Node20<C, K> = Scheduler<C, ChooserClock<K>>;

/// A real Node loop at tick 0 whose unknown timings `chooser` picks, with the
/// rules of `profile` (libuv's timings are the same from Node 20 to 26: the
/// profiles differ in where an ES module's body runs and in `readFile`'s
/// round trips).
pub fn node20<C: Clone + Display + Hash + Interchangeable, K: Chooser>(
    pool_size: usize,
    module: Module,
    limits: Limits,
    profile: NodeProfile,
    chooser: K,
) -> Node20<C, K> {
    let clock = ChooserClock {
        max_turns: limits.max_turns,
        ..ChooserClock::new(chooser)
    };
    Scheduler::with_timing(pool_size, module, limits, clock).with_node(profile)
}

/// What a [`ChooserClock`] holds besides its chooser, kept between two
/// turns so that a search can resume a schedule there.
#[derive(Debug, Clone)]
pub struct ClockParts {
    unused: u64,
    open: Option<(u64, u64)>,
    stretches: Vec<(u64, u64, u64)>,
    settled: bool,
}

impl<K> ChooserClock<K> {
    /// Its state besides the chooser.
    pub fn parts(&self) -> ClockParts {
        ClockParts {
            unused: self.unused,
            open: self.open,
            stretches: self.stretches.clone(),
            settled: self.settled,
        }
    }

    /// Puts back a state [`ChooserClock::parts`] kept.
    pub fn restore(&mut self, parts: ClockParts) {
        self.unused = parts.unused;
        self.open = parts.open;
        self.stretches = parts.stretches;
        self.settled = parts.settled;
    }

    /// The chooser.
    pub fn chooser(&self) -> &K {
        &self.chooser
    }

    /// A timing driven by `chooser`, before any unit began.
    pub fn new(chooser: K) -> Self
    where
        K: Chooser,
    {
        ChooserClock {
            unused: 0,
            lazy: chooser.lazy(),
            keys_turns: chooser.keys_turns(),
            past_as_one: chooser.keys_past_as_one(),
            timer_slots: chooser.keys_timer_slots(),
            chooser,
            open: None,
            stretches: Vec::new(),
            max_turns: 0,
            settled: false,
        }
    }
}

impl<C: Clone + Display + Hash + Interchangeable, K: Chooser> Timing<C> for ChooserClock<K> {
    type Prune = Pruned;
    const REPORTS_POOL: bool = false;

    /// Offers the state's fingerprint to the chooser once per turn; the loop
    /// does not sleep here but waits inside the poll phase ([`ChooserClock::block`]).
    /// Once no choice is left ([`settled`]), no state is offered: the
    /// run goes on as it must, to its end or a limit.
    fn turn_begins(&mut self, s: &mut LoopState<C>, host: &dyn Fn(&mut dyn Hasher), log: LogSoFar) -> Result<Option<Slept>, Pruned> {
        // (Left out of the WebAssembly build, for its size budget.)
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.settled = self.settled || (self.chooser.settles() && settled(s));
            if self.settled {
                return Ok(None);
            }
        }
        self.offer(self.fingerprint(s, host), log).map(|()| None)
    }

    /// Offers the state at the pending and the poll phase's start to the
    /// chooser too (each kind told apart from the others): schedules whose
    /// readings before it differ but meet here in one state share its
    /// future. The pending phase's start splits a turn's readings in two:
    /// the timers phase's (its own, each interval's start, each timer set)
    /// and the poll phase's, which would otherwise multiply their options
    /// before the next point.
    fn phase_begins(&mut self, phase: Phase, s: &mut LoopState<C>, host: &dyn Fn(&mut dyn Hasher), log: LogSoFar) -> Result<(), Pruned> {
        if self.settled {
            return Ok(());
        }
        let kind = if phase == Phase::Pending { PENDING_BEGINS } else { POLL_BEGINS };
        self.offer(self.fingerprint(s, host) ^ kind, log)
    }

    /// A clock reading: the clock may have crossed one boundary per unit
    /// begun since the last reading. `offset` is what the reading is compared
    /// with later (a timer's delay, a job's length), so that only crossings
    /// that change some comparison are tried.
    fn read(&mut self, s: &mut LoopState<C>, offset: u64, what: Reading<'_, C>) -> u64 {
        if self.lazy && matches!(what, Reading::TimerSet(_)) && s.loop_phase != Phase::Timers {
            return self.lazy_timer_start(s);
        }
        // (Past the horizon, a crossing would put the reading inside the window
        // of every lazily read timer not yet due: the first such option,
        // `max_k`, fails already; see `check_lazy`.)
        let max_k = self.unused.min(horizon(s));
        let k = if max_k == 0 || self.erased_by_sleep(s, &what, max_k) {
            0
        } else {
            let mut options = candidates(s, max_k, offset);
            let windows = if max_k > 4 { self.windows(s, max_k) } else { Vec::new() };
            if !windows.is_empty() {
                // Every value a lazily read timer may be due at is a threshold.
                let (base, last) = (s.now, s.now.saturating_add(max_k));
                for &(a, b) in &windows {
                    let from = a.saturating_sub(1).max(base);
                    options.extend((from..=b.saturating_add(1).min(last)).map(|t| t - base));
                }
                crate::sort::sort(&mut options);
                options.dedup();
            }
            let i = self.chooser.choose(options.len(), &|i| match options[i] {
                1 => format!("a millisecond boundary passed before {}", what.describe()),
                k => format!("{k} millisecond boundaries passed before {}", what.describe()),
            });
            options[i]
        };
        if let Some((low, high)) = self.open.take() {
            if k > 0 {
                self.stretches.push((low, high, k));
            }
        }
        self.unused = u64::from(k < self.unused);
        s.now = s.now.saturating_add(k);
        s.last_reading = s.now;
        s.advance_pool();
        if !self.stretches.is_empty() {
            let timers_run = matches!(what, Reading::TimersPhase { .. } | Reading::TimersRerun);
            self.check_lazy(s, s.now, timers_run);
        }
        s.now
    }

    fn unit_begins(&mut self) {
        self.unused += 1;
    }

    /// With nothing alive after the timers phase the loop ends; else the
    /// rest of the turn is one more unit.
    fn after_timers_phase(&mut self, s: &LoopState<C>) -> bool {
        let alive = s.alive();
        if alive {
            self.unused += 1;
        }
        alive
    }

    /// Poll: completions of earlier ticks are ready, any ordered subset of
    /// this tick's; with nothing ready and nothing else queued it blocks
    /// until the timer handle or the next completion (docs/orders.md §4-5).
    fn poll_ready(&mut self, s: &mut LoopState<C>, entry: u64) -> Vec<Completion<C>> {
        s.advance_pool();
        s.pool.register_watchers(entry);
        let earlier = s.pool.take_before(entry);
        // Rule 2d: those ready before their watcher was registered (now) come
        // after those that woke epoll, in the order libuv registered them.
        let (woke, mut joined) = split_joined(earlier);
        let mut ready = self.order_groups(s, woke);
        ThreadPool::ready_list_order(&mut joined);
        let ahead = ready.len();
        ready.extend(joined);
        let group = s.pool.take_at(entry);
        let now = self.ordered_subset(s, group, Ready::Any, &ready);
        // Those of this tick registered earlier may have woken epoll before
        // the registration at the poll phase's start, ahead of those it
        // added, or after it; those it registered come after either way.
        if ahead < ready.len() && now.iter().any(|c| c.joined.is_none()) {
            // (Option 0 is the default, which no race text names.)
            let i = self.chooser.choose(2, &|_| {
                "this tick's completions woke epoll after the poll phase registered new watchers".to_string()
            });
            if i == 0 {
                // Woken before: those registered earlier first, then this poll phase's.
                let joined = ready.split_off(ahead);
                let (old, new) = split_joined(now);
                ready.extend(old);
                ready.extend(joined);
                ready.extend(new);
                return ready;
            }
        }
        ready.extend(now);
        if ready.is_empty() && may_block(s) {
            ready = self.block(s);
        }
        ready
    }

    /// Real turns last microseconds: no tick is added (the units' crossings stand for them).
    fn turn_ends(&mut self, _: &mut LoopState<C>, _: u64) {}

    /// `work n` moves the clock exactly; its crossings are the unit's.
    fn work_done(&mut self, s: &mut LoopState<C>, ticks: u64) {
        s.now = s.now.saturating_add(ticks);
    }
}

impl<K: Chooser> ChooserClock<K> {
    /// Whether every number of crossings up to `max_k` that this reading may
    /// take ends in the same state (docs/orders.md "Sleeps erase
    /// crossings"): the reading is the entry of a turn's timers or poll
    /// phase, and the loop will sleep in that turn's poll phase until a tick
    /// past all of them, running nothing before. Then no timer is due and no
    /// completion ready at any of the ticks the crossings reach; nothing
    /// runs before the poll phase (no pending, immediate or close callback
    /// (`uv__backend_timeout` is not 0), no ES module body still to run);
    /// the poll phase finds nothing ready and blocks until the first
    /// completion or the timer handle's due tick ([`ChooserClock::block`]),
    /// and sets the clock, its last reading and the unused crossings to
    /// those of that wake whatever was crossed here. A timers phase's
    /// reading leaves at most two crossings (its own left and the poll's
    /// unit) to the poll phase's, whose ticks must stay short of the wake
    /// too. Readings made lazily keep every choice (`open`, `stretches`).
    fn erased_by_sleep<C>(&self, s: &LoopState<C>, what: &Reading<'_, C>, max_k: u64) -> bool {
        let after = match what {
            Reading::PollPhase { .. } => 0,
            Reading::TimersPhase { .. } => 2,
            _ => return false,
        };
        let wake = s.pool.next_ready().into_iter().chain(s.timers.handle_due()).min();
        self.open.is_none()
            && self.stretches.is_empty()
            && s.main.is_none()
            && !s.backend_timeout_is_zero()
            && wake.is_some_and(|w| w > s.now.saturating_add(max_k).saturating_add(after))
    }

    /// Offers a state met at a turn's, the pending phase's or a poll phase's start to the chooser:
    /// `Err` when it abandons the schedule there (its future was explored).
    fn offer(&mut self, fingerprint: u64, log: LogSoFar) -> Result<(), Pruned> {
        if self.chooser.visit(fingerprint, log) {
            Ok(())
        } else {
            Err(Pruned)
        }
    }

    /// The state's fingerprint, times relative to the clock: equal states
    /// have equal futures (the lines logged so far are not part of it).
    fn fingerprint<C: Hash>(&self, s: &LoopState<C>, host: &dyn Fn(&mut dyn Hasher)) -> u64 {
        let mut h = Gathered::default();
        let base = s.now;
        // Crossings past the horizon change nothing (docs/orders.md "Crossings
        // past the horizon"): the next exact reading takes at most the
        // horizon, which cannot grow before it, and leaves one unused either
        // way. Lazy readings arm timers without a reading: counted exactly.
        let unused = if self.lazy {
            self.unused
        } else {
            self.unused.min(horizon(s).saturating_add(1))
        };
        (unused, s.last_reading as i128 - base as i128, s.callbacks).hash(&mut h);
        if self.keys_turns {
            s.turn.hash(&mut h);
        }
        let rel = |t: u64| t as i128 - base as i128;
        self.open.map(|(low, high)| (rel(low), rel(high))).hash(&mut h);
        for &(low, high, k) in &self.stretches {
            (rel(low), rel(high), k).hash(&mut h);
        }
        // Lazily read starts keep their ticks: their windows are compared.
        let past = (self.past_as_one && !self.lazy).then_some(s.last_reading);
        s.timers.fingerprint(base, past, self.timer_slots, &mut h);
        s.pool.fingerprint(base, past, &mut h);
        s.hash_queues(&mut h);
        host(&mut h);
        h.finish()
    }

    /// Blocks until the handle's due tick or the next completion; a
    /// completion that wakes it is among those it sees (rule 2a's wait, in poll).
    fn block<C: Display + Interchangeable>(&mut self, s: &mut LoopState<C>) -> Vec<Completion<C>> {
        let next = s.pool.next_ready();
        let handle = s.timers.handle_due();
        let Some(wake) = next.into_iter().chain(handle).min() else {
            return Vec::new();
        };
        if wake > s.now {
            if !self.stretches.is_empty() || self.open.is_some() {
                // A wake by the handle at a lazily read timer's due tick: each
                // start it may have had wakes the loop at another tick.
                let woken_by_handle = handle == Some(wake) && next != Some(wake);
                if woken_by_handle && self.windows(s, 0).iter().any(|&(a, b)| a <= wake && wake <= b) {
                    self.chooser.not_robust();
                }
            }
            if let Some((low, high)) = self.open.take() {
                // (The poll phase's reading closed it already.) Any crossing so far may have come first.
                self.stretches.push((low, high, self.unused));
            }
            s.now = wake;
            s.last_reading = wake;
            self.unused = 1;
            s.advance_pool();
            if !self.stretches.is_empty() {
                self.check_lazy(s, wake, false);
            }
        }
        if next != Some(wake) {
            return Vec::new();
        }
        let group = s.pool.take_at(wake);
        let earlier = s.pool.take_before(wake);
        let mut ready = self.order_groups(s, earlier);
        let must = if handle == Some(wake) { Ready::Any } else { Ready::AtLeastOne };
        let now = self.ordered_subset(s, group, must, &ready);
        ready.extend(now);
        ready
    }

    /// Orders each tick's group of completions in every possible way.
    fn order_groups<C: Display + Interchangeable>(&mut self, s: &mut LoopState<C>, items: Vec<Completion<C>>) -> Vec<Completion<C>> {
        let mut out = Vec::new();
        let mut rest = std::collections::VecDeque::from(items);
        while let Some(first) = rest.pop_front() {
            let mut group = vec![first];
            while rest.front().is_some_and(|c| c.ready == group[0].ready) {
                group.push(rest.pop_front().expect("peeked"));
            }
            let ordered = self.ordered_subset(s, group, Ready::All, &[]);
            out.extend(ordered);
        }
        out
    }

    /// Chooses which of `group` (all of one tick) are ready, and in which
    /// order; the others are put back. `before`: the completions this poll
    /// phase takes ahead of them.
    ///
    /// A pool job of 0 ticks completes only when a thread was free for it
    /// ([`may_complete_next`]).
    fn ordered_subset<C: Display + Interchangeable>(
        &mut self,
        s: &mut LoopState<C>,
        mut group: Vec<Completion<C>>,
        ready: Ready,
        before: &[Completion<C>],
    ) -> Vec<Completion<C>> {
        let mut out = Vec::new();
        while !group.is_empty() {
            let mut can_stop = match ready {
                Ready::All => false,
                Ready::Any => true,
                Ready::AtLeastOne => !out.is_empty(),
            };
            let mut next: Vec<usize> = (0..group.len()).filter(|&i| may_complete_next(&group, i)).collect();
            // Twins that only log commute with the others that do: each has
            // its place in their group (jobs a, b, b: three orders).
            self.reduce_by_symmetry(&group, &mut next);
            drop_twins(&group, &mut next);
            if can_stop && !next.is_empty() && self.chooser.drops_idle_stops() && self.stop_changes_nothing(s, before, &out, &group) {
                can_stop = false;
            }
            let n = next.len() + usize::from(can_stop);
            if n == 1 {
                out.push(group.remove(next[0]));
                continue;
            }
            // (The names only when the chooser asks: a race's text.)
            let i = self.chooser.choose(n, &|i| match next.get(i) {
                Some(&at) => format!("{} completed next within its tick", group[at].cb),
                None => "the rest of the tick's completions were not ready yet".to_string(),
            });
            if i == next.len() {
                break;
            }
            out.push(group.remove(next[i]));
        }
        s.pool.put_back(group);
        out
    }
}

impl<K: Chooser> ChooserClock<K> {
    /// Whether stopping here, leaving the rest of `group` for later polls,
    /// prints the same lines as taking them now (docs/orders.md "Idle
    /// stops"): every completion this poll takes (`before`, `out`) and
    /// leaves (`group`) only logs and queues callbacks that have run when
    /// the drain after it ends ([`Interchangeable::drains_only`]), nothing
    /// waits outside the pool
    /// ([`LoopState::only_pool_waits`]), no pool job or `io` is outstanding
    /// beyond them, and the turns the stops could add (one a completion left)
    /// stay under the turn limit. Then nothing can run between two polls,
    /// and the lines come out in the orders the polls offer either way.
    fn stop_changes_nothing<C: Interchangeable>(
        &self,
        s: &LoopState<C>,
        before: &[Completion<C>],
        out: &[Completion<C>],
        group: &[Completion<C>],
    ) -> bool {
        s.pool.outstanding() == 0
            && s.only_pool_waits()
            && s.turn.saturating_add(group.len() as u64 + 2) < self.max_turns
            && before.iter().chain(out).chain(group).all(|c| c.cb.drains_only())
    }
}

/// The pool's rule within a tick (docs/orders.md §4): a 0-tick job started
/// in this tick may complete only once enough of the jobs submitted before
/// it that complete in this tick have completed to leave a thread free for
/// it: at most its `room` of them may still be pending. An `io` and a job
/// begun in an earlier tick may complete at any point of the tick.
fn may_complete_next<C>(group: &[Completion<C>], i: usize) -> bool {
    let c = &group[i];
    if c.job == 0 || c.room == u64::MAX {
        return true;
    }
    let pending = group.iter().filter(|d| d.job != 0 && d.job < c.job).count() as u64;
    pending <= c.room
}

/// Of two pool jobs of the tick that may complete next and log the same
/// lines ([`Interchangeable::lines`]), only the one submitted first is
/// offered. Any order with the later one first is printed by an order with
/// the two swapped: the earlier job started no later, so it may take the
/// later one's finishing moment and the later one its own, and at every
/// moment as many threads are busy as before ([`may_complete_next`] holds).
fn drop_twins<C: Interchangeable>(group: &[Completion<C>], next: &mut Vec<usize>) {
    if next.len() < 2 {
        return;
    }
    // For each lines kept, the first job that logs them: a later job with the
    // same lines is a twin (each completion's lines read once, not once per
    // pair: a poll of 1,000 completions took seconds).
    let mut first_job: HashMap<Vec<String>, u64> = HashMap::new();
    let mut kept: Vec<usize> = Vec::with_capacity(next.len());
    for &i in next.iter() {
        let c = &group[i];
        let lines = if c.job != 0 { c.cb.lines() } else { None };
        let Some(lines) = lines else {
            kept.push(i);
            continue;
        };
        match first_job.get_mut(&lines) {
            Some(job) if *job < c.job => {}
            Some(job) => {
                *job = c.job;
                kept.push(i);
            }
            None => {
                first_job.insert(lines, c.job);
                kept.push(i);
            }
        }
    }
    *next = kept;
}

impl<K: Chooser> ChooserClock<K> {
    /// A lazy reading of a timer's start (docs/orders.md "Lazy timer
    /// starts"): no crossing is chosen here; the start is read as the clock
    /// stands, and the crossings of the units so far stay for the next exact
    /// reading, which may take them all. The timer may really have started
    /// later by as many ticks as that reading takes ([`ChooserClock::windows`]);
    /// [`ChooserClock::check_lazy`] makes sure no comparison can tell.
    fn lazy_timer_start<C>(&mut self, s: &mut LoopState<C>) -> u64 {
        self.open = Some(match self.open {
            Some((low, _)) => (low, s.now),
            None => (s.now, s.now),
        });
        s.last_reading = s.now;
        s.now
    }

    /// The due ticks `(earliest, latest)` of each armed timer whose start was
    /// read lazily: `open_crossings` is how many ticks a still open stretch
    /// may take.
    fn windows<C>(&self, s: &LoopState<C>, open_crossings: u64) -> Vec<(u64, u64)> {
        if self.stretches.is_empty() && self.open.is_none() {
            return Vec::new();
        }
        let open = self.open.map(|(low, high)| (low, high, open_crossings));
        let mut out = Vec::new();
        s.timers.each_list(|_, timers| {
            for &(start, due) in timers {
                let width = holding(&self.stretches, start)
                    .chain(holding(open.as_slice(), start))
                    .map(|(_, k)| k)
                    .max();
                if let Some(width) = width.filter(|&w| w > 0) {
                    out.push((due, due.saturating_add(width)));
                }
            }
        });
        out
    }

    /// Whether the reading `at` and what the scheduler compares with it are
    /// the same for every start a lazily read timer may have had: each such
    /// timer is due at `at` for all of them or for none; in a timers phase
    /// (`timers_run`), the lists due run in one order for all of them. If not,
    /// the chooser is told ([`Chooser::not_robust`]).
    fn check_lazy<C>(&mut self, s: &LoopState<C>, at: u64, timers_run: bool) {
        let mut robust = true;
        let mut due_lists: Vec<(u64, u64)> = Vec::new();
        // The stretches some armed timer started in: the others are forgotten.
        let mut armed = vec![false; self.stretches.len()];
        s.timers.each_list(|expiry, timers| {
            let mut width = |start: u64| {
                let mut most = 0;
                for (i, k) in holding(&self.stretches, start) {
                    armed[i] = true;
                    most = most.max(k);
                }
                most
            };
            for &(start, due) in timers {
                let w = width(start);
                if w > 0 && due <= at && at < due.saturating_add(w) {
                    robust = false;
                }
            }
            let head = width(timers[0].0);
            if timers_run && expiry <= at {
                due_lists.push((expiry, expiry.saturating_add(head)));
            }
        });
        if timers_run && due_lists.len() >= 2 {
            // A list whose key may move must not pass another's key.
            crate::sort::sort(&mut due_lists);
            for (i, &(a, b)) in due_lists.iter().enumerate() {
                if b > a && due_lists.iter().enumerate().any(|(j, &(c, _))| j != i && a <= c && c <= b) {
                    robust = false;
                }
            }
        }
        if !robust {
            self.chooser.not_robust();
        }
        let mut i = 0;
        self.stretches.retain(|_| {
            i += 1;
            armed[i - 1]
        });
    }

    /// Symmetry reduction: of the candidates in `next` that are interchangeable
    /// (one class, alone on their pool threads in `group`), only the first
    /// submitted stays; the chooser is told the class and its members' `{i}`.
    /// Any other member first gives the same run with the members' `{i}`
    /// renamed, which `crate::orders::symmetry` puts back.
    ///
    /// The chooser decides whether a class may be reduced
    /// ([`Chooser::interchanged`]): its members must be either all members of
    /// a class reduced before (still pending: their lines are all to come) or
    /// none of them.
    fn reduce_by_symmetry<C: Interchangeable>(&mut self, group: &[Completion<C>], next: &mut Vec<usize>) {
        if next.len() < 2 {
            return;
        }
        // Free of the pool's rule: neither held back by earlier jobs nor holding
        // later ones (no job held back, one with a room, comes after it).
        let last_held = group.iter().filter(|d| d.room != u64::MAX).map(|d| d.job).max();
        let alone = |i: usize| {
            let c = &group[i];
            c.job == 0 || (c.room == u64::MAX && last_held.is_none_or(|last| last <= c.job))
        };
        // Completions that only log commute: offer the first submitted of them.
        let pure: Vec<(usize, Member)> = next
            .iter()
            .filter_map(|&i| {
                group[i]
                    .cb
                    .pure()
                    .filter(|m| alone(i) && self.chooser.symmetric(m.site))
                    .map(|m| (i, m))
            })
            .collect();
        // Only those that run as many callbacks as the first of them
        // (the others are offered as any completion is).
        let callbacks = pure.first().map(|&(i, _)| group[i].cb.callbacks());
        let pure: Vec<(usize, Member)> = pure
            .into_iter()
            .filter(|&(i, _)| Some(group[i].cb.callbacks()) == callbacks)
            .collect();
        if pure.len() >= 2 {
            let members: Vec<Member> = pure.iter().map(|(_, m)| *m).collect();
            if self.chooser.commuting(&members) {
                let first = pure.iter().map(|&(i, _)| group[i].seq).min();
                next.retain(|i| !pure.iter().any(|(j, _)| j == i) || Some(group[*i].seq) == first);
            }
        }
        let mut class_of: Vec<Option<(Class, u32)>> = Vec::with_capacity(next.len());
        for &i in next.iter() {
            let class = group[i].cb.class().filter(|(c, _)| alone(i) && self.chooser.symmetric(c.site));
            let class = class.filter(|_| group[i].cb.pure().is_none());
            class_of.push(class);
        }
        // Each class: its members' `{i}` and the smallest sequence number among them.
        let mut classes: Vec<(Class, Vec<u32>, u64)> = Vec::new();
        for (pos, class) in class_of.iter().enumerate() {
            let Some((class, index)) = *class else { continue };
            let seq = group[next[pos]].seq;
            match classes.iter_mut().find(|(c, _, _)| *c == class) {
                Some((_, members, first)) => {
                    members.push(index);
                    *first = (*first).min(seq);
                }
                None => classes.push((class, vec![index], seq)),
            }
        }
        classes.retain(|(class, members, _)| members.len() >= 2 && self.chooser.interchanged(*class, members));
        if classes.is_empty() {
            return;
        }
        let mut pos = 0;
        next.retain(|&i| {
            let keep = match class_of[pos] {
                Some((class, _)) => classes.iter().all(|(c, _, first)| *c != class || group[i].seq == *first),
                None => true,
            };
            pos += 1;
            keep
        });
    }
}

/// The stretches of lazy readings `(lowest, highest, crossings)` that hold a
/// timer started at `start`: each one's index and crossings.
fn holding(stretches: &[(u64, u64, u64)], start: u64) -> impl Iterator<Item = (usize, u64)> + '_ {
    stretches
        .iter()
        .enumerate()
        .filter(move |(_, &(low, high, _))| low <= start && start <= high)
        .map(|(i, &(_, _, k))| (i, k))
}

/// A hasher that gathers what it is fed and hashes it in one piece when
/// finished (xxh3; SipHash, as `DefaultHasher`, in the WebAssembly build,
/// for its size budget): a state's fingerprint is fed in hundreds of small
/// writes, each of which SipHash would mix on its own. Both are 64-bit
/// hashes of good quality: two of a million states collide with a
/// probability below 10⁻⁷.
/// Its buffer is the thread's, lent and given back, so that a search
/// (a fingerprint a turn) allocates none.
pub(crate) struct Gathered(Vec<u8>);

thread_local! {
    static GATHERED: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Default for Gathered {
    /// Room for a typical state, so that it is not grown write by write.
    fn default() -> Self {
        let mut buffer = GATHERED.with(|b| b.take());
        buffer.clear();
        buffer.reserve(4096);
        Gathered(buffer)
    }
}

impl Drop for Gathered {
    fn drop(&mut self) {
        // A buffer grown past 1 MiB (a huge state) is not kept.
        if self.0.capacity() <= 1 << 20 {
            GATHERED.with(|b| b.set(std::mem::take(&mut self.0)));
        }
    }
}

impl Hasher for Gathered {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    #[cfg(not(target_family = "wasm"))]
    fn finish(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.0)
    }

    #[cfg(target_family = "wasm")]
    fn finish(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        h.write(&self.0);
        h.finish()
    }
}

/// How far ahead of the clock anything pending lies: past it, more
/// crossings change no comparison.
fn horizon<C>(s: &LoopState<C>) -> u64 {
    let latest = s.timers.latest().into_iter().chain(s.pool.latest()).max();
    latest.map_or(0, |t| t.saturating_sub(s.now))
}

/// The crossings worth trying: 0, the most, and those that put the
/// reading (or the reading plus `offset`) next to a pending threshold.
fn candidates<C>(s: &LoopState<C>, max_k: u64, offset: u64) -> Vec<u64> {
    let base = s.now;
    let mut ks = vec![0, max_k];
    if max_k > 4 {
        let thresholds = s
            .timers
            .latest()
            .into_iter()
            .chain(s.pool.latest())
            .chain(s.timers.handle_due())
            .chain(s.timers.thresholds())
            .chain(s.pool.thresholds());
        for t in thresholds {
            for x in [
                t.saturating_sub(1),
                t,
                t.saturating_add(1),
                t.saturating_sub(offset.saturating_add(1)),
                t.saturating_sub(offset),
                t.saturating_sub(offset).saturating_add(1),
            ] {
                if x >= base && x - base <= max_k {
                    ks.push(x - base);
                }
            }
        }
    } else {
        ks.extend(1..max_k);
    }
    crate::sort::sort(&mut ks);
    ks.dedup();
    ks
}

/// Whether no timing is left to choose in the rest of the run
/// (docs/orders.md "Settled runs"): no timer armed and the timer handle
/// stopped, no pool job or I/O under way or ready, no main module still to
/// run, and every callback waiting is [`untimed`](Interchangeable::untimed).
/// Nothing can then arm a timer or start a job: every later clock reading
/// has nothing pending to compare with (its horizon is 0) and every poll
/// phase has no completion to order, so each choice has one option, and
/// the rest of the run is one schedule, whatever state it passes through.
#[cfg(not(target_arch = "wasm32"))]
fn settled<C: Interchangeable>(s: &LoopState<C>) -> bool {
    s.main.is_none()
        && s.timers.latest().is_none()
        && s.timers.handle_due().is_none()
        && s.pool.outstanding() == 0
        && s.all_queued(&mut |cb| cb.untimed())
}

/// `items` split, in their order, into those that woke epoll while their
/// watcher was registered and those that joined its ready list as the poll
/// phase registered it (rule 2d).
fn split_joined<C>(items: Vec<Completion<C>>) -> (Vec<Completion<C>>, Vec<Completion<C>>) {
    let (mut woke, mut joined) = (Vec::new(), Vec::new());
    for c in items {
        if c.joined.is_none() {
            woke.push(c);
        } else {
            joined.push(c);
        }
    }
    (woke, joined)
}

/// Whether the poll phase may block (`uv__backend_timeout` is not 0).
fn may_block<C>(s: &LoopState<C>) -> bool {
    !s.backend_timeout_is_zero() && s.timers.handle_due().is_none_or(|r| r > s.last_reading)
}

#[cfg(test)]
mod tests;
