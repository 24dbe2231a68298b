//! Every order of log lines real Node 20 can print for a file
//! (`../shared/ALL-ORDERS.md`), behind `run --all-orders`, race warnings,
//! `expect … or …` and `verify`.
//!
//! The file runs on [`node20::Node20`], whose unknown timings are choices; a
//! depth-first search replays the run once per choice sequence, pruning
//! schedules that reach a state (log so far included) already explored.

pub mod node20;
pub mod report;

use crate::interp::{self, Interp, RunOptions, MAIN};
use crate::syntax::ast::File;
use crate::trace::Ending;
use indexmap::IndexMap;
use node20::{Chooser, Halt, Node20};
use std::collections::HashSet;

/// One possible order of log lines and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Order {
    /// The log texts, in order.
    pub logs: Vec<String>,
    /// Whether a limit stopped this schedule (or it repeats forever).
    pub stopped: bool,
    /// What made this order differ from the model's (empty for the model's own).
    pub race: String,
}

/// The distinct possible orders, the seed model's first.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Orders {
    pub orders: Vec<Order>,
    /// A search bound cut the exploration short: more orders may exist.
    pub truncated: bool,
}

/// Bounds of the search.
#[derive(Debug, Clone, Copy)]
pub struct SearchBounds {
    /// Most schedules replayed.
    pub max_schedules: usize,
    /// Most callbacks run over all schedules.
    pub max_callbacks: u64,
    /// Most distinct orders listed.
    pub max_orders: usize,
}

impl Default for SearchBounds {
    fn default() -> Self {
        SearchBounds {
            max_schedules: 20_000,
            max_callbacks: 20_000_000,
            max_orders: 1_000,
        }
    }
}

/// Every order Node 20 can print for `file`, the seed model's first.
pub fn all_orders(file: &File, src: &str, opts: RunOptions) -> Orders {
    all_orders_within(file, src, opts, SearchBounds::default())
}

/// [`all_orders`] with explicit search bounds.
pub fn all_orders_within(file: &File, src: &str, opts: RunOptions, bounds: SearchBounds) -> Orders {
    let model = interp::run(file, src, "", RunOptions { verbose: false, ..opts });
    let mut found: IndexMap<(Vec<String>, bool), String> = IndexMap::new();
    found.insert((texts(&model), matches!(model.ending, Ending::Limit(_))), String::new());
    let mut search = Search {
        prefix: Vec::new(),
        pos: 0,
        trail: Vec::new(),
        race: None,
        seen: HashSet::new(),
        path: HashSet::new(),
        cycle: false,
    };
    let (mut schedules, mut callbacks, mut truncated) = (0usize, 0u64, false);
    loop {
        let (logs, stopped, spent) = replay(file, src, opts, &mut search);
        callbacks += spent;
        schedules += 1;
        if let Some(logs) = logs {
            let race = search.race.clone().unwrap_or_default();
            found.entry((logs, stopped)).or_insert(race);
        }
        match search.next_prefix() {
            None => break,
            Some(prefix) => search.restart(prefix),
        }
        if schedules >= bounds.max_schedules || callbacks >= bounds.max_callbacks || found.len() >= bounds.max_orders {
            truncated = true;
            break;
        }
    }
    let orders = found.into_iter().map(|((logs, stopped), race)| Order { logs, stopped, race }).collect();
    Orders { orders, truncated }
}

fn texts(trace: &crate::trace::Trace) -> Vec<String> {
    trace.logs().map(|(_, t)| t.to_string()).collect()
}

/// Runs one schedule; returns its log (`None` if pruned), whether it was
/// stopped, and how many callbacks it ran.
fn replay(file: &File, src: &str, opts: RunOptions, search: &mut Search) -> (Option<Vec<String>>, bool, u64) {
    let (pool, module) = interp::loop_config(file, &opts);
    let mut host = Interp::new(file, src, RunOptions { verbose: false, ..opts });
    let mut node = Node20::new(pool, module, opts.limits, &mut *search);
    let result = node.run(MAIN, &mut host);
    let spent = node.callbacks();
    let trace = host.into_trace("", Ending::Finished { turns: 0, ticks: 0 });
    let logs = texts(&trace);
    match result {
        Ok(()) => (Some(logs), false, spent),
        Err(Halt::Host(_)) => (Some(logs), true, spent),
        Err(Halt::Pruned) if search.cycle => (Some(logs), true, spent),
        Err(Halt::Pruned) => (None, false, spent),
    }
}

/// Depth-first search over choice sequences by replay.
struct Search {
    /// Choices to replay before exploring anew.
    prefix: Vec<usize>,
    pos: usize,
    /// (choice, number of options) at each choice point of this schedule.
    trail: Vec<(usize, usize)>,
    /// The first choice that differs from the default, described.
    race: Option<String>,
    /// Fingerprints of states whose futures were (or are being) explored.
    seen: HashSet<u64>,
    /// Fingerprints met on this schedule (a repeat is a cycle).
    path: HashSet<u64>,
    /// This schedule was abandoned on a cycle: it runs forever.
    cycle: bool,
}

impl Search {
    fn restart(&mut self, prefix: Vec<usize>) {
        self.prefix = prefix;
        self.pos = 0;
        self.trail.clear();
        self.race = None;
        self.path.clear();
        self.cycle = false;
    }

    /// The next sequence to replay: the last choice that has options left, advanced.
    fn next_prefix(&self) -> Option<Vec<usize>> {
        let mut trail = self.trail.clone();
        while let Some((choice, n)) = trail.pop() {
            if choice + 1 < n {
                let mut prefix: Vec<usize> = trail.iter().map(|&(c, _)| c).collect();
                prefix.push(choice + 1);
                return Some(prefix);
            }
        }
        None
    }
}

impl Chooser for &mut Search {
    fn choose(&mut self, n: usize, why: &dyn Fn(usize) -> String) -> usize {
        let choice = if self.pos < self.prefix.len() { self.prefix[self.pos].min(n - 1) } else { 0 };
        self.pos += 1;
        self.trail.push((choice, n));
        if choice != 0 && self.race.is_none() {
            self.race = Some(why(choice));
        }
        choice
    }

    fn visit(&mut self, fingerprint: u64) -> bool {
        if !self.path.insert(fingerprint) {
            self.cycle = true;
            return false;
        }
        if self.pos < self.prefix.len() {
            return true;
        }
        self.seen.insert(fingerprint)
    }
}
