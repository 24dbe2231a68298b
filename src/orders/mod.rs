//! Every order of log lines real Node 20 can print for a file
//! (`docs/orders.md`), behind `run --all-orders`, race warnings,
//! `expect … or …` and `verify`.
//!
//! The file runs on [`node20::Node20`], whose unknown timings are choices; a
//! depth-first search replays the run once per choice sequence, pruning
//! schedules that reach a state (log so far included) already explored.

pub mod membership;
mod memo;
pub mod node20;
pub mod races;
pub mod report;
pub mod symmetry;

use crate::interp::{self, Interp, RunOptions, Stop, MAIN};
use crate::syntax::ast::File;
use crate::trace::{Ending, EventKind, LimitHit};
use indexmap::map::Entry;
use indexmap::IndexMap;
use node20::{Chooser, Halt};
use std::collections::HashSet;
use std::time::Duration;
use web_time::Instant;

/// One possible order of log lines and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Order {
    /// The log texts, in order.
    pub logs: Vec<String>,
    /// How the process ends after them.
    pub end: End,
    /// What made this order differ from the model's (empty for the model's own).
    pub race: String,
}

/// How an order ends: what the process does after its last line. Part of
/// an order's identity (docs/orders.md "How an order ends"): two schedules
/// that print the same lines, one exiting with code 0 and one ended by an
/// unhandled rejection, are two orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum End {
    /// The loop ran out of work: exit code 0.
    #[default]
    Exit,
    /// An unhandled rejection ended the process: exit code 1 (rule 8k).
    Unhandled,
    /// The loop ran out of work while the ES module's top-level `await` had
    /// not settled: exit code 13 (rule 8l).
    Unsettled,
    /// A limit of loopsim's stopped the schedule, or it repeats forever.
    Stopped,
}

impl End {
    /// How a run that ended with `ending` ends.
    pub fn of(ending: &Ending) -> End {
        match ending {
            Ending::Finished { .. } => End::Exit,
            Ending::Unhandled { .. } => End::Unhandled,
            Ending::Unsettled { .. } => End::Unsettled,
            Ending::Limit(_) => End::Stopped,
        }
    }

    /// Whether a limit stopped it.
    pub fn stopped(self) -> bool {
        self == End::Stopped
    }

    /// The process's exit code (`None`: loopsim stopped it at a limit).
    pub fn code(self) -> Option<i32> {
        match self {
            End::Exit => Some(0),
            End::Unhandled => Some(1),
            End::Unsettled => Some(13),
            End::Stopped => None,
        }
    }

    /// Said after an order's lines ("" for exit code 0).
    pub fn words(self) -> &'static str {
        match self {
            End::Exit => "",
            End::Unhandled => ", then exit code 1 (an unhandled rejection)",
            End::Unsettled => ", then exit code 13 (an unsettled top-level await)",
            End::Stopped => ", then stopped by a limit",
        }
    }
}

/// The distinct possible orders, the seed model's first.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Orders {
    /// The orders, the seed model's first; at most [`SearchBounds::max_listed`].
    pub orders: Vec<Order>,
    /// How many distinct orders there are (of those found, when `truncated`;
    /// saturating at 2¹²⁸ − 1).
    pub count: u128,
    /// Whether `count` is exact; `false`: an upper bound (orbits of several
    /// canonical orders that may overlap, too many to list and compare).
    pub count_exact: bool,
    /// The races that make the orders many, stated.
    pub races: Vec<races::Race>,
    /// The canonical orders of the search, each standing for its renamings.
    #[serde(skip)]
    pub entries: Vec<symmetry::Entry>,
    /// Orders found once the orders held reached their bound on bytes,
    /// counted (in `count`) without their lines (docs/orders.md "Orders
    /// counted, not held"): their races are not stated.
    #[serde(skip)]
    pub counted: Counted,
    /// A search bound cut the exploration short: more orders may exist.
    pub truncated: bool,
    /// Which bound, when `truncated`.
    pub cut: Option<Cut>,
    /// Some Node 20 schedule printed the seed model's order (a check of the
    /// model: docs/scheduling.md says it always does).
    pub model_possible: bool,
    /// The limit that stopped the seed model's run, if one did (`run` exits 3 for it).
    #[serde(skip)]
    pub model_limit: Option<LimitHit>,
    /// How the process ends after the seed model's order, when it exits
    /// otherwise than with code 0 (an unhandled rejection, a top-level
    /// `await` never settled: [`crate::trace::Ending::process_exit`]).
    #[serde(skip)]
    pub model_exit: Option<String>,
    /// Schedules the search replayed (the model's own run not counted; none
    /// when a limit stopped it in turn 0, see [`SearchBounds::turn_zero`]).
    pub schedules: usize,
    /// Whose rules the search followed.
    pub node: crate::sched::NodeProfile,
    /// The answer came from a search that read timer starts lazily
    /// (docs/orders.md "Lazy timer starts"); `false`: every start was read exactly.
    #[serde(skip)]
    pub lazily: bool,
    /// The most turns a schedule ran, when a bound cut the search short
    /// while the seed model's run ended by itself and some schedule ran
    /// far longer (past [`crate::trace::LimitHit::SOONER_TURNS`] and four
    /// times the model's turns): some timing never stops a chain, and each
    /// such schedule runs to the turn limit (a `clear` that timing misses).
    #[serde(skip)]
    pub longer_run: Option<u64>,
}

/// The bound that cut a search short (see [`SearchBounds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "bound", content = "max", rename_all = "camelCase")]
pub enum Cut {
    /// This many orders were found.
    Orders(usize),
    /// This many schedules were replayed.
    Schedules(usize),
    /// This many callbacks were run over all schedules.
    Callbacks(u64),
    /// This many statements were executed over all schedules.
    Statements(u64),
    /// This many states were remembered (memory).
    States(usize),
    /// The orders found held this many bytes of log text (memory).
    Bytes(usize),
    /// The search ran this many seconds.
    Seconds(u64),
}

impl Orders {
    /// Whether `logs`, ending as `end` says, is one of the orders: exact,
    /// over every order and not only those listed.
    pub fn contains(&self, logs: &[String], end: End) -> bool {
        self.race_of(logs, end).is_some()
    }

    /// The timing that gives `logs` ending as `end` says (as in
    /// [`Order::race`]), if it is one of the orders.
    pub fn race_of(&self, logs: &[String], end: End) -> Option<String> {
        if let Some(o) = self.orders.iter().find(|o| o.logs == logs && o.end == end) {
            return Some(o.race.clone());
        }
        if let Some(e) = self.entries.iter().find(|e| e.contains(logs, end)) {
            return Some(e.race.clone());
        }
        self.counted.race_of(logs, end).map(str::to_string)
    }

    /// The exit codes other than 0 that some order ends with (1, 13); both
    /// when the search was cut short (an order not found may end so).
    pub fn exit_codes(&self) -> Vec<i32> {
        if self.truncated {
            return vec![1, 13];
        }
        let ends = self.orders.iter().map(|o| o.end);
        let ends = ends
            .chain(self.entries.iter().map(|e| e.end))
            .chain(self.counted.keys.keys().map(|k| k.1));
        let mut codes: Vec<i32> = ends.filter_map(End::code).filter(|&c| c != 0).collect();
        crate::sort::sort(&mut codes);
        codes.dedup();
        codes
    }

    /// Whether every order is listed in [`Orders::orders`].
    pub fn all_listed(&self) -> bool {
        self.orders.len() as u128 >= self.count
    }
}

impl Cut {
    /// "after 10 s", "at 1,000 orders", …
    pub fn describe(&self) -> String {
        use crate::render::thousands;
        match *self {
            Cut::Orders(n) => format!("at {} orders", thousands(n as u64)),
            Cut::Schedules(1) => "after 1 schedule".to_string(),
            Cut::Schedules(n) => format!("after {} schedules", thousands(n as u64)),
            Cut::Callbacks(n) => format!("after {} callbacks", thousands(n)),
            Cut::Statements(n) => format!("after {} statements", thousands(n)),
            Cut::States(n) => format!("at {} states remembered", thousands(n as u64)),
            Cut::Bytes(n) => format!("at {} MiB of orders held", n >> 20),
            Cut::Seconds(s) => format!("after {s} s"),
        }
    }

    /// What searches further than a race check this bound cut short:
    /// `command`, the file's `run --all-orders` (its bounds are larger), and
    /// for the time bound the option that sets it (no option raises the
    /// others).
    /// A command that gives the search the same time limit it was cut
    /// at (`--orders-time-limit 0`: fresh-clone helper 85) gets twice it,
    /// at least 10 s, instead (natively).
    pub fn search_longer(&self, command: &str) -> String {
        match self {
            #[cfg_attr(target_family = "wasm", allow(unused_variables))]
            Cut::Seconds(s) => {
                // (Not in the WebAssembly build, for its size budget.)
                #[cfg(not(target_family = "wasm"))]
                let command = &command.replacen(
                    &format!(" --orders-time-limit {s} "),
                    &format!(" --orders-time-limit {} ", s.saturating_mul(2).max(10)),
                    1,
                );
                format!("`{command}` searches longer; `--orders-time-limit SECONDS` sets how long")
            }
            _ => format!("`{command}` searches further"),
        }
    }
}

/// Orders counted without their lines: once the orders held reach
/// [`SearchBounds::max_bytes`], each further order without symmetries (its
/// lines are the order itself, not a canonical form standing for renamings)
/// keeps only its key ([`lines_key`]: 128 bits natively) and the index of
/// the timing behind it, about 40 bytes, so that the search goes on
/// counting until it ends or another bound (time, orders) cuts it
/// (docs/orders.md "Orders counted, not held"). Not in the WebAssembly
/// build, whose key is the lines themselves.
#[derive(Debug, Clone, Default)]
pub struct Counted {
    /// Each order's key and ending, with its timing's index in `timings`.
    keys: IndexMap<(LinesKey, End), u32>,
    /// The distinct timings of the orders counted.
    timings: indexmap::IndexSet<String>,
}

impl Counted {
    /// How many orders are counted without their lines (none in the
    /// WebAssembly build, where what reads it is then left out).
    pub fn len(&self) -> usize {
        if COUNTS_PAST_BYTES {
            self.keys.len()
        } else {
            0
        }
    }

    /// Whether no order is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The timing that gives `logs` ending as `end` says, if it is one of the orders counted.
    pub fn race_of(&self, logs: &[String], end: End) -> Option<&str> {
        if self.is_empty() {
            return None;
        }
        let &t = self.keys.get(&(lines_key(logs), end))?;
        self.timings.get_index(t as usize).map(String::as_str)
    }
}

/// Bounds of the search.
#[derive(Debug, Clone, Copy)]
pub struct SearchBounds {
    /// Most schedules replayed.
    pub max_schedules: usize,
    /// Most callbacks run over all schedules.
    pub max_callbacks: u64,
    /// Most statements executed over all schedules (a schedule may run
    /// millions of statements without a callback: `repeat 100000000 { timeout 1 }`).
    pub max_statements: u64,
    /// Most distinct orders found (each standing for its renamings).
    pub max_orders: usize,
    /// Most orders listed in [`Orders::orders`] (the model's first), at most
    /// [`MAX_LISTED`]: the race check needs two, and listing the renamings of
    /// a large symmetric group costs time and memory in proportion.
    pub max_listed: usize,
    /// Most states (fingerprints) remembered at once, so memory stays bounded.
    pub max_states: usize,
    /// Most bytes of log text the orders held may hold (each line also
    /// counts [`LINE_OVERHEAD`] bytes); past them an order without
    /// symmetries is counted without its lines ([`Counted`], natively), and
    /// any other cuts the search short.
    pub max_bytes: usize,
    /// Most bytes the graph of a memoised search may hold (its states,
    /// edges, lines and suffixes, as they lie in memory); past them it is
    /// dropped and the search goes on without it (docs/orders.md
    /// "Memoised states").
    pub max_memo_bytes: usize,
    /// Longest the search may run, after the seed model's run; `None`: no limit.
    pub time_limit: Option<Duration>,
    /// Reduce by symmetry ([`symmetry`]): the same orders, found faster.
    pub symmetry: bool,
    /// Try timer starts read lazily once reading them exactly has taken this
    /// many schedules (docs/orders.md "Lazy timer starts"): the same orders,
    /// found faster where no comparison depends on those starts. `None`:
    /// always exactly; `Some(0)`: lazily from the start (tests compare them).
    pub lazy_after: Option<usize>,
    /// Memoise states' futures (docs/orders.md "Memoised states"): a state
    /// met again with other lines before it has its future joined to them,
    /// not replayed: the same orders, found faster; `false` replays them
    /// (tests compare both).
    pub memoise: bool,
    /// Take a model run stopped by a limit before turn 1 as the whole answer
    /// (see [`stopped_in_turn_zero`]): the same orders, without replaying a
    /// schedule; `false` replays them (tests compare both).
    pub turn_zero: bool,
    /// Offer no more states once a schedule's run is settled (docs/orders.md
    /// "Settled runs": no timing is left to choose in the rest of it): the
    /// same orders, without remembering the states of an endless chain's
    /// turns; `false` offers them all (tests compare both).
    pub settle: bool,
    /// Key states with every tick at or before the last clock reading as one
    /// value (docs/orders.md "Past ticks": each later comparison finds them
    /// due alike): the same orders, with fewer states where timers fell due
    /// at different ticks; `false` keys those ticks exactly (tests compare
    /// both).
    pub past_as_one: bool,
    /// Key states without the timers' slots in a file that has no `clear`
    /// (docs/orders.md "Timer slots": nothing else reads a slot, so the
    /// same timers in other slots are one state): the same orders, with
    /// fewer states where timers end in different orders before others are
    /// set; `false` keys the slots (tests compare both). Not in
    /// the WebAssembly build, for its size budget.
    pub anonymous_timers: bool,
    /// Where the search counts the schedules it replays and the orders it
    /// finds as it goes, for a progress display on another thread; `None`:
    /// not counted.
    pub progress: Option<&'static Progress>,
}

/// A search's progress so far, read from another thread while it runs (the
/// command line's progress spinner): counters only, written with relaxed
/// atomics once per schedule.
#[derive(Debug, Default)]
pub struct Progress {
    /// Schedules replayed so far, over every search that counts here.
    pub schedules: std::sync::atomic::AtomicU64,
    /// Distinct orders found so far by the search running now (each
    /// standing for its renamings).
    pub orders: std::sync::atomic::AtomicU64,
}

impl Progress {
    /// No schedule and no order yet.
    pub const fn new() -> Self {
        Progress {
            schedules: std::sync::atomic::AtomicU64::new(0),
            orders: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Counts one schedule replayed (not in WebAssembly, which has no
    /// thread to read it: the calls compile to nothing there).
    pub(crate) fn schedule(&self) {
        #[cfg(not(target_family = "wasm"))]
        self.schedules.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Sets the count of distinct orders found so far (not in WebAssembly).
    fn found(&self, _orders: usize) {
        #[cfg(not(target_family = "wasm"))]
        self.orders.store(_orders as u64, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Bytes an order's line costs besides its text: its `String`, where it
/// came from (kept beside it), and the allocator's rounding of its text
/// (about 16 bytes). Counting the `String` alone let a search of short
/// lines hold five times its bound in memory (fresh-clone helper 78: 1.36
/// GB for 24 lines of 2 or 3 characters).
pub const LINE_OVERHEAD: usize = std::mem::size_of::<String>() + std::mem::size_of::<crate::interp::LineMeta>() + 16;

impl SearchBounds {
    /// Whether a search of a file (with a `clear` in it if `has_clear`)
    /// leaves the timers' slots out of its states
    /// ([`SearchBounds::anonymous_timers`]; never in the WebAssembly build).
    pub(crate) fn leaves_slots_out(&self, has_clear: bool) -> bool {
        self.anonymous_timers && !has_clear && cfg!(not(target_arch = "wasm32"))
    }

    /// Enough to tell whether a file races: stop at the second order.
    pub fn race_check() -> Self {
        SearchBounds {
            max_schedules: 5_000,
            max_callbacks: 2_000_000,
            max_statements: 2_000_000,
            max_orders: 2,
            max_listed: 2,
            time_limit: Some(Duration::from_secs(2)),
            ..SearchBounds::default()
        }
    }

    /// Whether `run` looks for races in a run this size at all: a large run
    /// is left to `--all-orders`, so that `run` stays fast.
    pub fn worth_checking(trace: &crate::trace::Trace) -> bool {
        match &trace.ending {
            Ending::Finished { turns, callbacks, .. } | Ending::Unsettled { turns, callbacks, .. } => {
                *turns <= 10_000 && *callbacks <= 100_000 && trace.log_spans.len() <= 10_000
            }
            Ending::Unhandled { turn, .. } => *turn <= 10_000 && trace.log_spans.len() <= 10_000,
            // Stopped before the loop: its one order is the answer, found
            // without a schedule ([`stopped_in_turn_zero`]).
            Ending::Limit(hit) => stopped_in_turn_zero(Some(hit)),
        }
    }
}

impl Default for SearchBounds {
    fn default() -> Self {
        SearchBounds {
            max_schedules: 2_000_000,
            max_callbacks: 20_000_000,
            max_statements: 20_000_000,
            max_orders: 1_000_000,
            max_listed: MAX_LISTED,
            max_states: 2_000_000,
            max_bytes: 128 << 20,
            max_memo_bytes: 256 << 20,
            time_limit: Some(Duration::from_secs(10)),
            symmetry: true,
            lazy_after: Some(LAZY_AFTER),
            memoise: true,
            turn_zero: true,
            settle: true,
            past_as_one: true,
            anonymous_timers: true,
            progress: None,
        }
    }
}

/// Every order Node 20 can print for `file`, the seed model's first.
pub fn all_orders(file: &File, src: &str, opts: RunOptions) -> Orders {
    all_orders_within(file, src, opts, SearchBounds::default())
}

/// [`all_orders`] with explicit search bounds.
///
/// Schedules are explored by the number of choices that differ from the
/// default (no boundary crossed, completions in start order): all schedules
/// with at most 0, then 1, then 2 … such deviations, until a round needs no
/// more or a bound is hit. Under a bound, the orders found are those closest
/// to the default timing.
pub fn all_orders_within(file: &File, src: &str, opts: RunOptions, bounds: SearchBounds) -> Orders {
    let model = interp::run(file, src, "", RunOptions { verbose: false, ..opts });
    all_orders_from(file, src, opts, bounds, model)
}

/// [`all_orders_after`], given the model's trace to keep: its lines are moved
/// out, and the rest is freed before the search.
pub fn all_orders_from(file: &File, src: &str, opts: RunOptions, bounds: SearchBounds, model: crate::trace::Trace) -> Orders {
    let end = model_end(&model.ending);
    search(file, src, opts, bounds, into_texts(model), end)
}

/// [`all_orders_within`] for a file whose model run is `model` already.
pub fn all_orders_after(file: &File, src: &str, opts: RunOptions, bounds: SearchBounds, model: &crate::trace::Trace) -> Orders {
    search(file, src, opts, bounds, texts(model), model_end(&model.ending))
}

/// How the seed model's run ended, as [`Orders`] keeps it: the limit that
/// stopped it, if one did, and how the process exits after it, if not with
/// code 0 ([`Orders::model_exit`]); and the turns it ran.
fn model_end(ending: &Ending) -> ModelEnd {
    let limit = match ending {
        Ending::Limit(hit) => Some(hit.clone()),
        _ => None,
    };
    (End::of(ending), limit, ending.process_exit(), ending.turn())
}

/// [`model_end`]'s answer: how its order ends, the limit, the process's exit, the turns.
type ModelEnd = (End, Option<LimitHit>, Option<String>, u64);

fn search(
    file: &File,
    src: &str,
    opts: RunOptions,
    bounds: SearchBounds,
    model: Vec<String>,
    (model_end, limit, exit, model_turns): ModelEnd,
) -> Orders {
    let opts = interp::resolve_limits(file, opts);
    let model_stopped = model_end.stopped();
    let deadline = bounds.time_limit.map(|t| (Instant::now() + t, t.as_secs()));
    let has_clear = crate::interp::has_clear(&file.body);
    let symmetric = if bounds.symmetry {
        interp::interchangeable_sites(file)
    } else {
        Vec::new()
    };
    let exploration = |lazy: bool, no_blocks: bool| {
        let search = Search {
            deadline,
            max_states: bounds.max_states,
            symmetric: symmetric.clone(),
            lazy,
            no_blocks,
            drop_idle_stops: bounds.symmetry,
            memoise: bounds.memoise,
            memo_bytes: bounds.max_memo_bytes,
            settle: bounds.settle,
            keys_turns: model_stopped,
            past_as_one: bounds.past_as_one,
            anonymous_timers: bounds.leaves_slots_out(has_clear),
            ..Search::default()
        };
        Exploration::new(&bounds, &model, limit.as_ref(), search)
    };
    // Every start read exactly, at first; past LAZY_AFTER schedules, with
    // lazily read timer starts; where those cannot stand for every start,
    // exactly again, from where the first search stopped.
    // (Not with `clear`, which leaves a timer's list or the handle keyed by a
    // start that no armed timer shows any more: a `clear` in any block rules
    // lazy readings out; nor in a file that sets no timer, where the lazy
    // search would only repeat the exact one.)
    let lazy_after = bounds
        .lazy_after
        .filter(|&n| n < bounds.max_schedules && !has_clear && crate::interp::may_set_timer(file));
    // The exploration that stands, and the schedules of those it replaced.
    // One that found an order stopped by a limit after recording commuting
    // completions is given up at once ([`Search::blocks_failed`]).
    let explore = |no_blocks: bool| {
        let mut explored = exploration(false, no_blocks);
        if let Some(n) = lazy_after.filter(|&n| n > 0) {
            explored.run(
                file,
                src,
                opts,
                SearchBounds {
                    max_schedules: n,
                    ..bounds
                },
            );
            if explored.search.blocks_failed {
                return (explored, 0);
            }
        }
        let mut schedules = 0;
        if lazy_after.is_some_and(|n| n == 0 || explored.cut == Some(Cut::Schedules(n))) {
            let mut lazy = exploration(true, no_blocks);
            lazy.run(file, src, opts, bounds);
            if lazy.search.blocks_failed {
                return (lazy, explored.schedules);
            }
            if lazy.search.lazy_failed {
                schedules = lazy.schedules;
                explored.cut = None;
            } else {
                schedules = explored.schedules;
                explored = lazy;
            }
        }
        explored.run(file, src, opts, bounds);
        (explored, schedules)
    };
    let (mut explored, mut schedules) = explore(false);
    if explored.search.blocks_failed {
        let given_up = schedules + explored.schedules;
        (explored, schedules) = explore(true);
        schedules += given_up;
    }
    let schedules = schedules + explored.schedules;
    let lazily = explored.search.lazy;
    let longer_run = Some(explored.longest)
        .filter(|&turns| explored.cut.is_some() && !model_stopped && turns > LimitHit::SOONER_TURNS && turns / 4 > model_turns);
    let (found, cut, counted) = (explored.found, explored.cut, explored.counted);
    let entries: Vec<symmetry::Entry> = found.into_values().flatten().collect();
    let (held, held_exact) = symmetry::count(&entries);
    // An order counted without its lines is not compared with the renamings
    // of the orders held: with symmetries among those, the sum is an upper bound.
    let count_exact = held_exact && (counted.is_empty() || entries.iter().all(symmetry::Entry::plain));
    let mut count = held.saturating_add(counted.len() as u128);
    let model_at = entries.iter().position(|e| e.contains(&model, model_end));
    let model_possible = model_at.is_some() || counted.race_of(&model, model_end).is_some();
    if !model_possible {
        count = count.saturating_add(1);
    }
    // The list: the model's order first, then each entry's orbit, up to max_listed.
    let max_listed = bounds.max_listed.min(MAX_LISTED);
    let mut orders = vec![Order {
        logs: model.clone(),
        end: model_end,
        race: String::new(),
    }];
    // Orders listed, by hash; the bytes the list may still take (the bound on
    // the orders found, counted again for the renamed copies).
    let mut listed: HashSet<u64> = HashSet::new();
    listed.insert(symmetry::order_hash(&model, model_end));
    let mut room = bounds.max_bytes;
    // Listing a large orbit of long orders takes time: past the search's
    // deadline it may take a tenth of the time limit more (at least 0.1 s),
    // then the orders listed so far stand (the count is exact without them).
    let list_until = bounds
        .time_limit
        .zip(deadline)
        .map(|(limit, (end, _))| end.max(Instant::now()) + (limit / 10).max(Duration::from_millis(100)));
    'list: for (i, entry) in entries.iter().enumerate() {
        if orders.len() >= max_listed || (orders.len() > 1 && list_until.is_some_and(|u| Instant::now() >= u)) {
            break;
        }
        let renamed = symmetry::orbit_timing(entry, src);
        let each = order_bytes(&entry.logs).max(1);
        // The orbit holding the model's order expands by one more: the model's
        // copy is skipped below, as it is listed first already.
        let again = usize::from(model_at == Some(i));
        let fits = (room / each).min(max_listed - orders.len().min(max_listed)) + again;
        for logs in entry.expand_until(fits, list_until) {
            if orders.len() >= max_listed || room < each {
                break 'list;
            }
            if !listed.insert(symmetry::order_hash(&logs, entry.end)) {
                continue;
            }
            room -= each;
            // (The orbit's canonical order need not come first: a group's
            // blocks are arranged in the order of their lines.)
            let race = entry.timing_of(&logs, &renamed);
            orders.push(Order {
                logs,
                end: entry.end,
                race,
            });
        }
    }
    // The races are those of the orders held: with others counted only, or
    // with the search cut short, a count taken from them is a lower bound.
    let races = races::statements(&orders, &entries, count, src, cut.is_some() || !counted.is_empty());
    Orders {
        orders,
        count,
        count_exact: count_exact && cut.is_none(),
        races,
        entries,
        counted,
        truncated: cut.is_some(),
        cut,
        model_possible,
        model_limit: limit,
        model_exit: exit,
        schedules,
        node: opts.profile(file),
        lazily,
        longer_run,
    }
}

/// Schedules the search tries with every timer start read exactly before
/// it tries them read lazily, by default (see [`SearchBounds::lazy_after`]).
pub const LAZY_AFTER: usize = 5_000;

/// One exploration: the orders found so far and where its depth-first
/// search stands, so that a search cut short by [`SearchBounds::max_schedules`]
/// can go on later ([`Exploration::run`] again, with larger bounds).
struct Exploration<'a> {
    search: Search,
    /// The current schedule's states kept where its turns began (memoising only).
    kept: Vec<Kept<'a>>,
    /// The canonical orders found (symmetry::Entry), by their lines' hash
    /// ([`lines_key`]) and ending: each order's lines are held once, in its
    /// entries (natively; twice in the WebAssembly build).
    found: IndexMap<(LinesKey, End), Vec<symmetry::Entry>>,
    /// The orders found past the bytes the orders held may take, counted
    /// without their lines.
    counted: Counted,
    /// Bytes of log text held by the model's order and those found.
    bytes: usize,
    schedules: usize,
    callbacks: u64,
    statements: u64,
    /// The most turns a schedule ran.
    longest: u64,
    cut: Option<Cut>,
    /// The search needs no schedule replayed (see [`stopped_in_turn_zero`]), or is over.
    done: bool,
    /// The round of deviation budgets running (0, 1, then unlimited).
    round: usize,
    /// Where a round cut short goes on: the next prefix to replay (`None`: the round is over).
    resume: Option<Option<Vec<usize>>>,
}

impl<'a> Exploration<'a> {
    /// An exploration by `search` that has replayed nothing yet.
    fn new(bounds: &SearchBounds, model: &[String], limit: Option<&LimitHit>, search: Search) -> Self {
        let bytes = order_bytes(model);
        let mut found = IndexMap::new();
        // Every schedule prints the model's lines and stops where it did: its
        // run is the search's, held whatever its size (a trace is bounded
        // already: 2,000,000 lines, 128 MiB of text). Counted against the
        // bound, 3,000,000 `log` statements in a `repeat` were "at least 1
        // order, cut short at 128 MiB" (fresh-clone helper 81).
        let turn_zero = bounds.turn_zero && stopped_in_turn_zero(limit);
        let mut cut = (!turn_zero && bytes > bounds.max_bytes).then_some(Cut::Bytes(bounds.max_bytes));
        if search.deadline.is_some_and(|(d, _)| Instant::now() >= d) {
            cut = cut.or(bounds.time_limit.map(|t| Cut::Seconds(t.as_secs())));
        }
        let decided = turn_zero && cut.is_none();
        if decided {
            let entry = symmetry::canonical(
                model.to_vec(),
                End::Stopped,
                NO_CROSSING.to_string(),
                Vec::new(),
                Vec::new(),
                Vec::new(),
            );
            found.insert((lines_key(&entry.logs), End::Stopped), vec![entry]);
        }
        Exploration {
            search,
            kept: Vec::new(),
            found,
            counted: Counted::default(),
            bytes,
            schedules: 0,
            callbacks: 0,
            statements: 0,
            longest: 0,
            cut,
            done: decided,
            round: 0,
            resume: None,
        }
    }

    /// Explores by rounds of deviation budgets (see [`all_orders_within`])
    /// until the search is over or a bound cuts it short.
    fn run(&mut self, file: &'a File, src: &'a str, opts: RunOptions, bounds: SearchBounds) {
        loop {
            if self.cut.is_some() || self.done {
                return;
            }
            let search = &mut self.search;
            let go_on = match self.resume.take() {
                None => {
                    search.budget = if self.round >= 2 { usize::MAX } else { self.round };
                    if search.memoising() {
                        // States are keyed otherwise from here on (without the log so far).
                        search.seen.clear();
                    }
                    search.cut = false;
                    search.restart(Vec::new());
                    true
                }
                Some(Some(prefix)) => {
                    search.restart(prefix);
                    true
                }
                Some(None) => false,
            };
            if go_on && !self.replay_round(file, src, opts, &bounds) {
                return;
            }
            if !self.search.cut {
                self.done = true;
                return;
            }
            self.round += 1;
        }
    }

    /// Replays the rest of the current round; `false` if a bound or a failed
    /// lazy reading stopped it (the round may go on later).
    fn replay_round(&mut self, file: &'a File, src: &'a str, opts: RunOptions, bounds: &SearchBounds) -> bool {
        loop {
            let search = &mut self.search;
            let kept = search.memoising().then_some(&mut self.kept);
            let (ended, spent, meta) = replay_with_meta(file, src, opts, search, None, kept);
            self.callbacks = self.callbacks.saturating_add(spent.callbacks);
            self.statements = self.statements.saturating_add(spent.statements);
            self.longest = self.longest.max(spent.turns);
            self.schedules += 1;
            if let Some(progress) = bounds.progress {
                progress.schedule();
            }
            if search.lazy_failed {
                return false;
            }
            if let Some(halt) = search.halted {
                self.cut = Some(halt);
                return false;
            }
            let memoising = search.memoising();
            match ended {
                Ended::Order { logs, end } => {
                    if memoising {
                        search.record(&logs, &meta, memo::Next::End(end));
                    }
                    let race = search.race.clone().unwrap_or_else(|| NO_CROSSING.to_string());
                    let (marks, blocks) = (search.marks.clone(), search.blocks.clone());
                    if !self.add(logs, end, race, meta, marks, blocks, bounds) {
                        return false;
                    }
                }
                Ended::Pruned { logs } => {
                    if let Some((state, first)) = search.join.filter(|_| memoising) {
                        search.record(&logs, &meta, memo::Next::State(state));
                        if first && !self.join(state, logs, meta, bounds) {
                            return false;
                        }
                    }
                }
                Ended::Nothing | Ended::Diverged { .. } => {}
            }
            if let Some(progress) = bounds.progress {
                progress.found(self.found_len());
            }
            if self.search.memoising() && self.search.memo.bytes() > self.search.memo_bytes {
                self.forget_memo();
            }
            let found = self.found_len();
            let search = &mut self.search;
            self.cut = if found >= bounds.max_orders {
                Some(Cut::Orders(bounds.max_orders))
            } else if self.schedules >= bounds.max_schedules {
                Some(Cut::Schedules(bounds.max_schedules))
            } else if self.callbacks >= bounds.max_callbacks {
                Some(Cut::Callbacks(bounds.max_callbacks))
            } else if self.statements >= bounds.max_statements {
                Some(Cut::Statements(bounds.max_statements))
            } else {
                None
            };
            let next = if std::mem::take(&mut search.replay_again) {
                Some(search.trail.iter().map(|&(choice, _)| choice).collect())
            } else {
                search.next_prefix()
            };
            if self.cut.is_some() {
                self.resume = Some(next);
                return false;
            }
            match next {
                None => return true,
                Some(prefix) => search.restart(prefix),
            }
        }
    }

    /// Adds one order found (its lines in canonical form); `false` if the
    /// bound on bytes held cut the search short.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        logs: Vec<String>,
        end: End,
        race: String,
        meta: Vec<interp::LineMeta>,
        marks: Vec<symmetry::Mark>,
        blocks: Vec<Vec<node20::Member>>,
        bounds: &SearchBounds,
    ) -> bool {
        if end.stopped() && self.search.blocks_met {
            self.search.blocks_failed = true;
            return false;
        }
        let entry = symmetry::canonical(logs, end, race, meta, marks, blocks);
        let key = (lines_key(&entry.logs), end);
        let plain = entry.plain();
        let was_counted = !self.counted.is_empty() && self.counted.keys.contains_key(&key);
        if was_counted && plain {
            return true;
        }
        match self.found.entry(key) {
            Entry::Vacant(v) => {
                let more = order_bytes(&entry.logs);
                if self.bytes.saturating_add(more) <= bounds.max_bytes {
                    self.bytes += more;
                    // (An order counted before, now found with symmetries:
                    // held, its orbit standing for it.)
                    if was_counted {
                        self.counted.keys.swap_remove(v.key());
                    }
                    v.insert(vec![entry]);
                } else if plain && COUNTS_PAST_BYTES {
                    let (timing, _) = self.counted.timings.insert_full(entry.race);
                    self.counted.keys.insert(v.into_key(), timing as u32);
                } else {
                    self.cut = Some(Cut::Bytes(bounds.max_bytes));
                    return false;
                }
            }
            // The same lines, found with other symmetries: keep the widest orbits.
            Entry::Occupied(mut o) => symmetry::merge(o.get_mut(), entry),
        }
        true
    }

    /// Distinct orders found: held, and counted without their lines.
    fn found_len(&self) -> usize {
        self.found.len() + self.counted.len()
    }

    /// Drops the graph of states ([`Search::forget_memo`]) and the states
    /// kept to resume from, which only a memoising search keeps.
    fn forget_memo(&mut self) {
        self.search.forget_memo();
        self.kept.clear();
    }

    /// A schedule reached explored state `state` with lines (`logs`, their
    /// `meta`) not met there before: adds each suffix recorded from the
    /// state joined to them (docs/orders.md "Memoised states"), once per
    /// distinct order. `false` if a bound cut the search short.
    fn join(&mut self, state: u64, logs: Vec<String>, meta: Vec<interp::LineMeta>, bounds: &SearchBounds) -> bool {
        let search = &mut self.search;
        let room = search.memo.suffix_room(search.memo_bytes);
        let schedule = memo::Schedule {
            visits: &search.visits,
            logs: &logs,
            meta: &meta,
            marks: &search.marks,
            blocks: &search.blocks,
        };
        let prefix = search.memo.prefix_fp(&schedule);
        let Some(count) = search.memo.suffixes(state, room).map(<[_]>::len) else {
            // The graph would outgrow its bytes: it is dropped, and this
            // schedule replayed past the state, keyed with its lines.
            self.forget_memo();
            self.search.replay_again = true;
            return true;
        };
        let with_meta = search.records_meta();
        for i in 0..count {
            let search = &mut self.search;
            let suffix = search.memo.suffix(state, i);
            if !search.memo.compose_once(prefix.then(suffix.fp()), suffix.end) {
                continue;
            }
            if i % 256 == 255 {
                if let Some(cut) = search.time_up() {
                    self.cut = Some(cut);
                    return false;
                }
            }
            let (mut full, mut lines_meta) = (logs.clone(), meta.clone());
            let (mut marks, mut blocks) = (search.marks.clone(), search.blocks.clone());
            search
                .memo
                .spell(state, i, &mut full, with_meta.then_some(&mut lines_meta), &mut marks, &mut blocks);
            let race = search
                .race
                .clone()
                .or_else(|| suffix.race().map(|r| search.memo.race(r).to_string()))
                .unwrap_or_else(|| NO_CROSSING.to_string());
            if !self.add(full, suffix.end, race, lines_meta, marks, blocks, bounds) {
                return false;
            }
            if self.found_len() >= bounds.max_orders {
                return true;
            }
        }
        true
    }
}

/// Whether the model's run was stopped by a limit before turn 1 began: then
/// every Node schedule prints its lines and is stopped by the same limit, and
/// the search need not replay it.
///
/// Before the loop (the CommonJS main module, or an ES module's body on Node
/// ≥ 22.18, and the drain after it) nothing runs by the clock: no timer,
/// completion or phase, only the main module, nextTicks and microtasks, in
/// one order. The clock readings there (a timer set, an `io` started) are
/// the only choices, and they change the start ticks of what runs from turn
/// 1 on, never a line of turn 0 or a limit (turns, callbacks, statements,
/// output, waiting callbacks, labels, promises, call depth: none counts
/// ticks). A limit hit in turn 0 thus stops every schedule at the same line.
pub fn stopped_in_turn_zero(limit: Option<&LimitHit>) -> bool {
    limit.is_some_and(|hit| hit.turn == 0)
}

/// Most orders [`Orders::orders`] lists (the count goes on).
pub const MAX_LISTED: usize = 10_000;

/// An order's lines hashed to 128 bits (two SipHash digests, of the lines
/// followed by two endings: [`symmetry::order_hash`]), to tell
/// orders apart without a second copy of their lines: two of a million
/// orders collide with a probability below 10⁻²⁶. (The WebAssembly build
/// keys them by a copy of their lines, for its size budget.)
#[cfg(not(target_arch = "wasm32"))]
fn lines_key(logs: &[String]) -> LinesKey {
    (u128::from(symmetry::order_hash(logs, End::Exit)) << 64) | u128::from(symmetry::order_hash(logs, End::Stopped))
}

/// An order's lines, copied (see the native build's `lines_key`).
#[cfg(target_arch = "wasm32")]
fn lines_key(logs: &[String]) -> LinesKey {
    logs.to_vec()
}

/// Whether orders past [`SearchBounds::max_bytes`] are counted without
/// their lines ([`Counted`]): natively, where their key is 128 bits.
const COUNTS_PAST_BYTES: bool = cfg!(not(target_arch = "wasm32"));

/// What tells the orders found apart ([`lines_key`]).
#[cfg(not(target_arch = "wasm32"))]
type LinesKey = u128;
#[cfg(target_arch = "wasm32")]
type LinesKey = Vec<String>;

/// The bytes an order's lines hold, as counted against [`SearchBounds::max_bytes`].
fn order_bytes(logs: &[String]) -> usize {
    logs.iter().fold(0usize, |sum, l| sum.saturating_add(l.len() + LINE_OVERHEAD))
}

const NO_CROSSING: &str = "no millisecond boundary was crossed anywhere (Node ran faster than a tick per turn)";

/// The race check of `run`, `check` and `test` on the model's run `model`
/// (within `bounds`, [`SearchBounds::race_check`]'s with the command's time
/// limit): the race warning ([`race_warning`]) when Node can print another
/// order, else a note when the check was not made (a run too large for it,
/// [`SearchBounds::worth_checking`]) or cut short by a bound before a second
/// order; a run stopped by a limit gets neither. For a file whose
/// prediction has alternatives (`expect … or …`), one order more than they
/// name is searched for, and only an order they leave out is warned of.
/// `command`: the command the warning and the note name for the orders
/// ([`crate::verdict::all_orders_command`]).
pub fn race_check(
    file: &File,
    src: &str,
    opts: RunOptions,
    mut bounds: SearchBounds,
    model: &crate::trace::Trace,
    command: &str,
) -> (Option<crate::problem::Problem>, Option<String>) {
    // A run a limit stopped in turn 0 has one order, the model's: nothing
    // to search, whatever its size ([`stopped_in_turn_zero`]).
    if matches!(&model.ending, Ending::Limit(hit) if stopped_in_turn_zero(Some(hit))) {
        return (None, None);
    }
    if !SearchBounds::worth_checking(model) {
        // (Each schedule of a run a limit stopped runs into that limit too:
        // orders that differ only in where it cut them, found first.)
        let (what, sooner) = if let Ending::Limit(hit) = &model.ending {
            let sooner = if hit.lower_turn_limit_helps() {
                " (with a lower limit, e.g. `--max-turns 50`, each schedule stops sooner)"
            } else {
                ""
            };
            ("a limit stopped", sooner)
        } else {
            ("this large (more than 10,000 turns, 100,000 callbacks or 10,000 log lines)", "")
        };
        let note = format!("no race check for a run {what}: `{command}` searches for other orders{sooner}");
        return (None, Some(note));
    }
    let named = file.expect.as_ref().filter(|e| !e.or.is_empty()).map(crate::expect::Named::of);
    if let Some(named) = &named {
        bounds.max_orders = named.len() + 1;
        bounds.max_listed = named.len() + 1;
    }
    let mut found = all_orders_after(file, src, opts, bounds, model);
    // A prediction naming several orders: warned only of an order it leaves
    // out (the model's, or another put second), if one is found.
    let mut left_out = 0;
    if let Some(named) = &named {
        let unnamed: Vec<usize> = (0..found.orders.len())
            .filter(|&i| !named.names(&found.orders[i].logs, found.orders[i].end))
            .collect();
        left_out = unnamed.len();
        match unnamed.first() {
            None => found.orders.truncate(1),
            Some(&i) if i > 1 => found.orders.swap(1, i),
            _ => {}
        }
    }
    if let Some(warning) = race_warning(model, &found, command) {
        // (A search cut short at one order more than they name may have
        // left out more.)
        let how_many = match (left_out, found.cut.is_none()) {
            (0, _) => None,
            (1, true) => Some("an order (`loopsim check` shows it)".to_string()),
            (1, false) => Some("at least one order (`loopsim check` tells which)".to_string()),
            (n, exact) => Some(format!(
                "{}{n} orders (`loopsim check` tells which)",
                if exact { "" } else { "at least " }
            )),
        };
        let warning = match how_many {
            Some(n) => warning.add_help(&format!("the prediction's alternatives leave out {n}")),
            None => warning,
        };
        return (Some(warning), None);
    }
    let note = found.cut.filter(|c| !matches!(c, Cut::Orders(_))).map(|cut| {
        format!(
            "the race check was cut short {}: {} may print other orders than this one ({})",
            cut.describe(),
            found.node,
            cut.search_longer(command)
        )
    });
    (None, note)
}

/// The warning `run` adds when Node 20 can print the file's lines in more
/// than one order: the first line where another order differs from the
/// model's, and the line Node may print there instead; its help names
/// `command` for the orders ([`crate::verdict::all_orders_command`]).
pub fn race_warning(trace: &crate::trace::Trace, orders: &Orders, command: &str) -> Option<crate::problem::Problem> {
    let model = orders.orders.first()?;
    let other = orders.orders.get(1)?;
    let i = model
        .logs
        .iter()
        .zip(&other.logs)
        .position(|(a, b)| a != b)
        .unwrap_or(model.logs.len().min(other.logs.len()));
    let span_of = |k: usize| trace.log_spans.get(k).copied();
    let first = span_of(i).or_else(|| trace.log_spans.last().copied()).unwrap_or_default();
    let count = if orders.truncated {
        "other".to_string()
    } else {
        crate::render::thousands(orders.count.min(u64::MAX as u128) as u64)
    };
    let mut p = crate::problem::Diag::Race {
        count,
        race: other.race.clone(),
        node: orders.node,
        command: command.to_string(),
        ends: i >= model.logs.len(),
        same_lines: other.logs == model.logs,
        sooner: other.logs.len() < model.logs.len() && other.end != model.end && model.logs.starts_with(&other.logs),
    }
    .at(first);
    if let Some(b) = other.logs.get(i) {
        if let Some(j) = model.logs.iter().skip(i + 1).position(|t| t == b) {
            if let Some(span) = span_of(i + 1 + j) {
                p = p.also(span, format!("{} may print this first", orders.node));
            }
        }
    }
    Some(p)
}

fn texts(trace: &crate::trace::Trace) -> Vec<String> {
    trace.logs().map(|(_, t)| t.to_string()).collect()
}

/// The log texts of `trace`, moved out of it.
fn into_texts(trace: crate::trace::Trace) -> Vec<String> {
    trace
        .events
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::Log { text } => Some(text),
            _ => None,
        })
        .collect()
}

/// What one schedule cost, and the turn it reached.
struct Spent {
    callbacks: u64,
    statements: u64,
    turns: u64,
}

/// Runs one schedule; returns how it ended and what it cost. With a
/// `target`, a schedule stops at its first log line that differs from the
/// target's ([`Ended::Diverged`]).
fn replay(file: &File, src: &str, opts: RunOptions, search: &mut Search, target: Option<&[String]>) -> (Ended, Spent) {
    let (ended, spent, _) = replay_with_meta(file, src, opts, search, target, None);
    (ended, spent)
}

/// How one schedule ended.
enum Ended {
    /// With an order: its lines, and how it ended.
    Order { logs: Vec<String>, end: End },
    /// Abandoned at a state explored before: the lines up to it.
    Pruned { logs: Vec<String> },
    /// Left the target order: its lines, the last the one not in the target there.
    Diverged { logs: Vec<String> },
    /// With no order: cut short.
    Nothing,
}

/// A schedule's state kept where one of its turns began (its point offered
/// and not pruned, [`crate::sched::Scheduler::begin_turn`]), from which a
/// later schedule that makes the same choices up to there resumes instead of
/// replaying them (memoising search only): the loop's, the clock's, the
/// interpreter's, and the search's own.
struct Kept<'a> {
    state: crate::sched::LoopState<interp::Task<'a>>,
    clock: node20::ClockParts,
    host: Interp<'a>,
    search: ScheduleSoFar,
    callbacks: u64,
    statements: u64,
}

/// The search's own state partway through a schedule, as a [`Kept`] state
/// holds it ([`Search::so_far`], [`Search::resume_at`]).
struct ScheduleSoFar {
    trail: Vec<(usize, usize)>,
    used: usize,
    race: Option<String>,
    marks: Vec<symmetry::Mark>,
    blocks: Vec<Vec<node20::Member>>,
    visits: Vec<memo::Visit>,
}

/// A schedule keeps its state at the start of its turns while it has had
/// fewer turns, lines and statements run than these (what a kept state
/// copies grows with its lines and with what its statements scheduled:
/// at most about 64 states of a few MB are kept); a later turn is
/// replayed from the last state kept.
const KEEP_TURNS: usize = 64;
const KEEP_LINES: usize = 4_096;
const KEEP_STATEMENTS: u64 = 8_192;

/// [`replay`], with how it ended and the lines' [`interp::LineMeta`] when
/// the search reduces by symmetry. With `kept` (the previous schedule's
/// kept states), a schedule resumes from the last state kept before its
/// first new choice, and keeps its own.
fn replay_with_meta<'a>(
    file: &'a File,
    src: &'a str,
    opts: RunOptions,
    search: &mut Search,
    target: Option<&'a [String]>,
    mut kept: Option<&mut Vec<Kept<'a>>>,
) -> (Ended, Spent, Vec<interp::LineMeta>) {
    let (pool, module) = interp::loop_config(file, &opts);
    let deadline = search.deadline;
    let quiet = RunOptions {
        verbose: false,
        explain: false,
        ..opts
    };
    // The last state kept before the first choice this schedule makes anew.
    let mut from = None;
    if let Some(kept) = kept.as_deref_mut() {
        let at = search
            .prefix
            .len()
            .checked_sub(1)
            .and_then(|changed| kept.iter().rposition(|k| k.search.trail.len() <= changed));
        kept.truncate(at.map_or(0, |i| i + 1));
        if let Some(k) = at.and_then(|i| kept.get(i)) {
            search.resume_at(&k.search);
            from = Some((k.host.clone(), k.state.clone(), k.clock.clone(), k.callbacks, k.statements));
        }
    }
    let (mut host, from) = match from {
        Some((host, state, clock, callbacks, statements)) => (host, Some((state, clock, callbacks, statements))),
        None => {
            let mut host = Interp::new(file, src, quiet).with_deadline(deadline.map(|(d, _)| d));
            if let Some(target) = target {
                host = host.with_target(target);
            }
            if search.records_meta() {
                host = host.with_line_meta();
            }
            (host, None)
        }
    };
    let mut node = node20::node20(pool, module, opts.limits, opts.profile(file), &mut *search);
    let (callbacks_before, statements_before) = from.as_ref().map_or((0, 0), |f| (f.2, f.3));
    let resumed = from.is_some();
    if let Some((state, clock, _, _)) = from {
        node.resume(state);
        node.timing_mut().restore(clock);
    }
    let result = 'run: {
        if resumed {
            // The state was kept where its turn began: the turn goes on.
            if let Err(halt) = node.finish_turn(interp::as_host!(host)) {
                break 'run Err(halt);
            }
        } else if let Err(halt) = node.start(MAIN, interp::as_host!(host)) {
            break 'run Err(halt);
        }
        loop {
            match node.begin_turn(interp::as_host!(host)) {
                Err(halt) => break 'run Err(halt),
                Ok(false) => break 'run Ok(()),
                Ok(true) => {}
            }
            // Keep the state where this turn began, once its point was
            // offered and not pruned: most schedules are pruned there, and
            // a copy kept before it would be dropped.
            if let Some(list) = kept.as_deref_mut() {
                let search: &Search = node.timing().chooser();
                let small = list.len() < KEEP_TURNS && host.lines() < KEEP_LINES && host.statements() < KEEP_STATEMENTS;
                if node.state().turn as usize == list.len() + 1 && small {
                    list.push(Kept {
                        state: node.state().clone(),
                        clock: node.timing().parts(),
                        host: host.clone(),
                        search: search.so_far(),
                        callbacks: node.callbacks(),
                        statements: host.statements(),
                    });
                }
            }
            if let Err(halt) = node.finish_turn(interp::as_host!(host)) {
                break 'run Err(halt);
            }
        }
    };
    let spent = Spent {
        callbacks: node.callbacks().saturating_sub(callbacks_before),
        statements: host.statements().saturating_sub(statements_before),
        turns: node.state().turn,
    };
    let meta = host.take_line_meta();
    let unsettled = host.unsettled();
    let trace = host.into_trace(
        "",
        Ending::Finished {
            turns: 0,
            ticks: 0,
            callbacks: 0,
        },
    );
    if let (Err(Halt::Host(Stop::TimeUp)), Some((_, seconds))) = (&result, deadline) {
        search.halted = Some(Cut::Seconds(seconds));
    }
    if search.halted.is_some() {
        // Cut short mid-schedule: its lines are no order.
        return (Ended::Nothing, spent, meta);
    }
    let logs = into_texts(trace);
    let ended = match result {
        Ok(()) if unsettled => Ended::Order { logs, end: End::Unsettled },
        Ok(()) => Ended::Order { logs, end: End::Exit },
        // A schedule that diverged from the target, or ran out of time, is no order.
        Err(Halt::Host(interp::Stop::Diverged)) => Ended::Diverged { logs },
        Err(Halt::Host(interp::Stop::TimeUp)) => Ended::Nothing,
        Err(Halt::Host(interp::Stop::Limit(_))) => Ended::Order { logs, end: End::Stopped },
        // The process ended (an unhandled rejection): the order ends there.
        Err(Halt::Host(interp::Stop::Exit(ending))) => Ended::Order {
            logs,
            end: End::of(&ending),
        },
        Err(Halt::Pruned(_)) if search.cycle => Ended::Order { logs, end: End::Stopped },
        Err(Halt::Pruned(_)) => Ended::Pruned { logs },
    };
    (ended, spent, meta)
}

/// Depth-first search over choice sequences by replay.
#[derive(Default)]
struct Search {
    /// Most choices that may differ from the default (option 0).
    budget: usize,
    /// Deviations so far on this schedule.
    used: usize,
    /// Some choice point had options the budget did not allow.
    cut: bool,
    /// Choices to replay before exploring anew.
    prefix: Vec<usize>,
    pos: usize,
    /// (choice, number of options) at each choice point of this schedule.
    trail: Vec<(usize, usize)>,
    /// The first choice that differs from the default, described.
    race: Option<String>,
    /// Fingerprints of states whose futures were (or are being) explored,
    /// with the deviation budget that was left there.
    seen: rustc_hash::FxHashMap<u64, usize>,
    /// Fingerprints met on this schedule (a repeat is a cycle).
    path: rustc_hash::FxHashSet<u64>,
    /// This schedule was abandoned on a cycle: it runs forever.
    cycle: bool,
    /// When the search must stop, and the time limit in seconds.
    deadline: Option<(Instant, u64)>,
    /// Most fingerprints in `seen` and `path` together.
    max_states: usize,
    /// The deadline passed, or memory ran out: the search stops.
    halted: Option<Cut>,
    /// By callback site: whose completions may be interchanged (symmetry
    /// reduction; empty: none, as in a guided search).
    symmetric: Vec<bool>,
    /// The symmetries met on this schedule.
    marks: Vec<symmetry::Mark>,
    /// The groups of commuting completions met on this schedule.
    blocks: Vec<Vec<node20::Member>>,
    /// Timer starts are read lazily ([`node20::Chooser::lazy`]).
    lazy: bool,
    /// A lazy schedule met a comparison a lazily read start could change.
    lazy_failed: bool,
    /// Offer every member of a group of commuting completions
    /// ([`node20::Chooser::commuting`]).
    no_blocks: bool,
    /// Some schedule recorded a group of commuting completions.
    blocks_met: bool,
    /// An order stopped by a limit was found after such a group: the limit
    /// may have stopped the run before some members ran, or inside a
    /// member's block, where moving the blocks would give wrong orders; so
    /// the search is made again with [`Search::no_blocks`].
    blocks_failed: bool,
    /// Polls leave out stops that change no line
    /// ([`node20::Chooser::drops_idle_stops`]; with the symmetry reduction).
    drop_idle_stops: bool,
    /// Memoise futures once the deviation budget is unlimited (see
    /// [`Search::memoising`]); `false` in a guided search, whose schedules
    /// end where they leave their target.
    memoise: bool,
    /// The graph of states explored and their suffixes.
    memo: memo::Memo,
    /// The points (turns', pending phases' and poll phases' starts) met on this schedule.
    visits: Vec<memo::Visit>,
    /// This schedule was abandoned at this explored state; `true`: the
    /// first time with the lines before it.
    join: Option<(u64, bool)>,
    /// Most bytes the memo may hold; past them the search stops memoising.
    memo_bytes: usize,
    /// The graph was dropped while this schedule's future was to be joined
    /// from it: the schedule is replayed again, past that state.
    replay_again: bool,
    /// Settled runs offer no more states ([`SearchBounds::settle`]).
    settle: bool,
    /// States are keyed with the turn count: the seed model's run was
    /// stopped by a limit, so schedules may run into the turn limit, which
    /// cuts futures met at different turns in different places.
    keys_turns: bool,
    /// Past ticks are one value in a state ([`SearchBounds::past_as_one`]).
    past_as_one: bool,
    /// Timers' slots are left out of a state ([`SearchBounds::anonymous_timers`]
    /// in a file without `clear`, where nothing holds a timer's handle).
    anonymous_timers: bool,
}

impl Search {
    fn restart(&mut self, prefix: Vec<usize>) {
        self.prefix = prefix;
        self.pos = 0;
        self.trail.clear();
        self.used = 0;
        self.race = None;
        self.path.clear();
        self.cycle = false;
        self.marks.clear();
        self.blocks.clear();
        self.visits.clear();
        self.join = None;
    }

    /// Whether states are keyed without the log so far and their futures
    /// memoised (docs/orders.md "Memoised states"): in the round whose
    /// deviation budget is unlimited, where a state's future is explored
    /// once, whatever the deviations before it. Never in the WebAssembly
    /// build, whose size has a budget (docs/playground.md): the code is left
    /// out of it.
    fn memoising(&self) -> bool {
        cfg!(not(target_family = "wasm")) && self.memoise && self.budget == usize::MAX
    }

    /// Drops the graph of states (it grew past [`Search::memo_bytes`]: long
    /// stretches of many lines, or hundreds of thousands of states): from
    /// here on, states are keyed with the lines before them again, and
    /// explored once per such lines (docs/orders.md "Memoised states"); the
    /// states remembered without their lines are forgotten too.
    fn forget_memo(&mut self) {
        self.memoise = false;
        self.memo = memo::Memo::default();
        self.seen.clear();
    }

    /// Whether replays record each line's [`interp::LineMeta`] (the symmetry
    /// reduction renames lines by it).
    fn records_meta(&self) -> bool {
        self.symmetric.iter().any(|&s| s)
    }

    /// The bound on time, if it has passed.
    fn time_up(&self) -> Option<Cut> {
        let (deadline, seconds) = self.deadline?;
        (Instant::now() >= deadline).then_some(Cut::Seconds(seconds))
    }

    /// Records this schedule's stretches, its lines `logs` (with `meta`)
    /// ending at `end` ([`memo::Memo::record`]).
    fn record(&mut self, logs: &[String], meta: &[interp::LineMeta], end: memo::Next) {
        let schedule = memo::Schedule {
            visits: &self.visits,
            logs,
            meta,
            marks: &self.marks,
            blocks: &self.blocks,
        };
        self.memo.record(&schedule, self.prefix.len().checked_sub(1), end);
    }

    /// Its own state at this point of the schedule.
    fn so_far(&self) -> ScheduleSoFar {
        ScheduleSoFar {
            trail: self.trail.clone(),
            used: self.used,
            race: self.race.clone(),
            marks: self.marks.clone(),
            blocks: self.blocks.clone(),
            visits: self.visits.clone(),
        }
    }

    /// Back at a point [`Search::so_far`] kept: the choices before it are
    /// replayed no more, the points met before it are on the path.
    fn resume_at(&mut self, at: &ScheduleSoFar) {
        self.trail.clone_from(&at.trail);
        self.pos = at.trail.len();
        self.used = at.used;
        self.race.clone_from(&at.race);
        self.marks.clone_from(&at.marks);
        self.blocks.clone_from(&at.blocks);
        self.visits.clone_from(&at.visits);
        self.path.clear();
        self.path.extend(at.visits.iter().map(|v| v.state));
    }

    /// The next sequence to replay: the last choice that has options left, advanced.
    fn next_prefix(&self) -> Option<Vec<usize>> {
        let last = self.trail.iter().rposition(|&(choice, n)| choice + 1 < n)?;
        let mut prefix: Vec<usize> = self.trail[..last].iter().map(|&(c, _)| c).collect();
        prefix.push(self.trail[last].0 + 1);
        Some(prefix)
    }
}

impl Chooser for &mut Search {
    fn choose(&mut self, n: usize, why: &dyn Fn(usize) -> String) -> usize {
        let choice = if self.pos < self.prefix.len() {
            self.prefix[self.pos].min(n - 1)
        } else {
            0
        };
        self.pos += 1;
        let options = if self.used < self.budget || choice != 0 {
            n
        } else {
            self.cut = true;
            1
        };
        self.trail.push((choice, options));
        self.used += usize::from(choice != 0);
        if choice != 0 {
            // The first deviation of the schedule, and of the stretch since its last visit.
            let stretch = self.memoising() && self.visits.last().is_some_and(|v| v.race.is_none());
            if self.race.is_none() || stretch {
                let why = why(choice);
                if stretch {
                    let id = self.memo.race_id(why.clone());
                    if let Some(v) = self.visits.last_mut() {
                        v.race = Some(id);
                    }
                }
                self.race.get_or_insert(why);
            }
        }
        choice
    }

    fn symmetric(&mut self, site: usize) -> bool {
        self.symmetric.get(site).copied().unwrap_or(false)
    }

    fn lazy(&self) -> bool {
        self.lazy
    }

    fn settles(&self) -> bool {
        self.settle
    }

    fn keys_turns(&self) -> bool {
        self.keys_turns
    }

    fn keys_past_as_one(&self) -> bool {
        self.past_as_one
    }

    fn keys_timer_slots(&self) -> bool {
        !self.anonymous_timers
    }

    fn not_robust(&mut self) {
        self.lazy_failed = true;
    }

    fn drops_idle_stops(&self) -> bool {
        self.drop_idle_stops
    }

    /// Members all of an earlier mark of the site: already covered; none of
    /// any: a new mark; some of one: no reduction (the renamings would mix).
    fn interchanged(&mut self, class: node20::Class, members: &[u32]) -> bool {
        let mut earlier = self.marks.iter().filter(|m| m.site == class.site);
        if earlier.clone().any(|m| members.iter().all(|i| m.members.contains(i))) {
            return true;
        }
        if earlier.any(|m| members.iter().any(|i| m.members.contains(i))) {
            return false;
        }
        let mut members = members.to_vec();
        crate::sort::sort(&mut members);
        self.marks.push(symmetry::Mark {
            site: class.site,
            span: class.span,
            members,
        });
        true
    }

    /// As [`Chooser::interchanged`], for groups of commuting completions.
    fn commuting(&mut self, members: &[node20::Member]) -> bool {
        if self.no_blocks {
            return false;
        }
        // Each group is kept sorted: a member is looked up by binary search
        // (a poll of 1,000 completions asks this at each of its steps).
        let holds = |g: &Vec<node20::Member>, m: &node20::Member| g.binary_search(m).is_ok();
        if self.blocks.iter().any(|g| members.iter().all(|m| holds(g, m))) {
            return true;
        }
        if self.blocks.iter().any(|g| members.iter().any(|m| holds(g, m))) {
            return false;
        }
        let mut group = members.to_vec();
        crate::sort::sort(&mut group);
        self.blocks.push(group);
        self.blocks_met = true;
        true
    }

    fn visit(&mut self, fingerprint: u64, log: crate::sched::LogSoFar) -> bool {
        if self.lazy_failed {
            return false;
        }
        // The symmetries met so far are part of the state: the orders a future
        // stands for depend on them.
        let state = if self.marks.is_empty() && self.blocks.is_empty() {
            fingerprint
        } else {
            use std::hash::{Hash, Hasher};
            let mut h = node20::Gathered::default();
            (fingerprint, &self.marks, &self.blocks).hash(&mut h);
            h.finish()
        };
        let memoising = self.memoising();
        // With commuting completions, where the lines came from too: the
        // orders moving their blocks gives depend on it (fresh-clone helper
        // 76: jobs a and b printing “x” each, a then b and b then a, were
        // taken for one log).
        let log_hash = if self.blocks.is_empty() {
            log.hash
        } else {
            memo::combine(log.hash, log.origins)
        };
        // Memoising, a state is keyed without the lines before it; else with them.
        let fingerprint = if memoising { state } else { memo::combine(state, log_hash) };
        if let Some(cut) = self.time_up() {
            self.halted = Some(cut);
            return false;
        }
        if self.seen.len() + self.path.len() >= self.max_states {
            self.halted = Some(Cut::States(self.max_states));
            return false;
        }
        if !self.path.insert(fingerprint) {
            self.cycle = true;
            return false;
        }
        if memoising {
            let first = self.memo.first_with_log(state, log_hash);
            if self.pos >= self.prefix.len() && self.seen.contains_key(&state) {
                // Explored: its future is joined to these lines, not replayed.
                self.join = Some((state, first));
                return false;
            }
            self.seen.insert(state, usize::MAX);
            self.visits.push(memo::Visit {
                state,
                lines: log.lines,
                marks: self.marks.len(),
                blocks: self.blocks.len(),
                choices: self.pos,
                race: None,
            });
            return true;
        }
        if self.pos < self.prefix.len() {
            return true;
        }
        let left = self.budget - self.used.min(self.budget);
        match self.seen.get(&fingerprint) {
            Some(&explored) if explored >= left => false,
            _ => {
                self.seen.insert(fingerprint, left);
                true
            }
        }
    }
}

#[cfg(test)]
mod cut_tests {
    use super::Cut;

    /// A race check cut short by time names `--orders-time-limit`; cut by
    /// another bound, which no option raises, it names only the command
    /// with its file (fresh-clone helpers 75 and 77 were given none).
    #[test]
    fn only_the_time_bound_names_its_option() {
        let command = "loopsim run --all-orders a.loop";
        assert_eq!(
            Cut::Seconds(2).search_longer(command),
            "`loopsim run --all-orders a.loop` searches longer; `--orders-time-limit SECONDS` sets how long"
        );
        // Not with the time limit it was cut at (fresh-clone helper 85).
        assert_eq!(
            Cut::Seconds(0).search_longer("loopsim run --all-orders --orders-time-limit 0 a.loop"),
            "`loopsim run --all-orders --orders-time-limit 10 a.loop` searches longer; `--orders-time-limit SECONDS` sets how long"
        );
        assert_eq!(
            Cut::Seconds(30).search_longer("loopsim run --all-orders --orders-time-limit 30 a.loop"),
            "`loopsim run --all-orders --orders-time-limit 60 a.loop` searches longer; `--orders-time-limit SECONDS` sets how long"
        );
        assert_eq!(
            Cut::Seconds(1).search_longer("loopsim run --all-orders --orders-time-limit 10 a.loop"),
            "`loopsim run --all-orders --orders-time-limit 10 a.loop` searches longer; `--orders-time-limit SECONDS` sets how long"
        );
        for cut in [Cut::Statements(2_000_000), Cut::Callbacks(2_000_000), Cut::Schedules(5_000)] {
            assert_eq!(
                cut.search_longer(command),
                "`loopsim run --all-orders a.loop` searches further",
                "{cut:?}"
            );
        }
    }
}
