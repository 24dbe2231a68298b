//! The interpreter: runs the main module and callback bodies, scheduling
//! through [`Scheduler`], and records the [`Trace`]. The promise statements
//! (async functions, `await`, executors, links, listeners) are in
//! [`promises`]: they drive V8's promise jobs ([`crate::promise`]).

mod promises;

use promises::{Env, Exec, Flow, PromiseRt};
pub(crate) use promises::{FsTask, FsThen, Task};

use crate::sched::{Ctx, EventLoop, Handle, Host, LimitKind, Limits, LoopEvent, Phase, PoolEvent, Scheduler};
use crate::syntax::ast::*;
use crate::trace::{Ending, Event, EventKind, LimitHit, LimitSite, Trace};
use indexmap::{IndexMap, IndexSet};
use std::fmt;
use std::hash::{Hash, Hasher};

/// Options of one run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Record callback entries, scheduling, pool threads, sleeps and turns.
    pub verbose: bool,
    /// Thread-pool size instead of the file's `pool`.
    pub pool: Option<u64>,
    pub limits: Limits,
    /// Most statements one run may execute (stops `repeat` with huge counts).
    pub max_statements: u64,
    /// Whose rules the run follows (`--node`); `None`: the file's `node N`,
    /// else the default profile (Node 26). See [`RunOptions::profile`].
    pub node: Option<crate::sched::NodeProfile>,
    /// Explain each log line (`--explain`): fills [`Trace::explanations`].
    pub explain: bool,
    /// Use [`crate::bound::default_limits`] for the file instead of `limits`
    /// and `max_statements` (the CLI's defaults).
    pub auto_limits: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            verbose: false,
            pool: None,
            limits: Limits::default(),
            max_statements: 50_000_000,
            node: None,
            explain: false,
            auto_limits: false,
        }
    }
}

/// One scheduled callback: which statement (or `.then` link), with the
/// values its texts need.
#[derive(Debug, Clone, Copy)]
pub struct Instance<'a> {
    cb: &'a Callback,
    /// 0: the callback itself; i: its i-th `.then` link.
    link: u32,
    /// `{i}` captured when it was scheduled (1-based, so never 0; the
    /// statement bound stops a `repeat` long before 2³² iterations).
    index: Option<std::num::NonZeroU32>,
    /// `{n}` of an `again` chain.
    run: u32,
    /// Set by `again` inside a `.then` link: the chain does not go on.
    alone: bool,
    label: Label,
    /// With `--explain`: 1 + the index of where and when it was scheduled in
    /// [`Interp`]'s notes; 0 without. Not part of its identity.
    note: u32,
    /// The scope its body sees promise names in (captured when scheduled).
    env: Env,
    /// The executor whose `resolve`/`reject` a bare `resolve`/`reject` in its body settles.
    executor: Exec,
}

/// An interned label id, or none (`u32::MAX`): 4 bytes where `Option<u32>` takes 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Label(u32);

impl Label {
    const NONE: Label = Label(u32::MAX);

    fn get(self) -> Option<u32> {
        (self != Label::NONE).then_some(self.0)
    }
}

impl From<Option<u32>> for Label {
    fn from(id: Option<u32>) -> Self {
        id.map_or(Label::NONE, Label)
    }
}

/// The values of a body's texts, the callback `again` repeats, and the
/// scope of promise names.
#[derive(Clone, Copy)]
struct Frame<'a> {
    index: Option<u64>,
    run: u64,
    count: u64,
    this: Option<Again<'a>>,
    /// The innermost environment (of the innermost declaring block).
    env: Env,
    /// The innermost executor around (lexically).
    executor: Exec,
}

/// What `again` in a body schedules once more.
#[derive(Clone, Copy)]
enum Again<'a> {
    /// A callback, or a link of a `then` statement (run alone).
    Callback(Instance<'a>),
    /// A link of a promise expression, with what it captured where written.
    Link { link: &'a Link, captured: promises::Captured },
}

use crate::explain::{self, Origin, Why};

impl Hash for Instance<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        (self.cb.site(), self.link, self.index, self.run, self.alone, self.label.0).hash(h);
    }
}

impl fmt::Display for Instance<'_> {
    /// `timeout "label"`, `.then`, or the kind alone.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.link == u32::MAX {
            return f.write_str("the main module");
        }
        let (kind, label) = if self.link == 0 {
            (self.cb.kind.name(), self.cb.label())
        } else {
            (".then", self.cb.links()[self.link as usize - 1].label.as_ref())
        };
        match label {
            Some(l) => write!(f, "{kind} \"{l}\""),
            None => f.write_str(kind),
        }
    }
}

/// Why a run stopped early.
pub(crate) enum Stop {
    Limit(LimitHit),
    /// A guided search's schedule printed a line its target order does not
    /// have there (see [`Interp::with_target`]).
    Diverged,
    /// The deadline of the orders search passed (only with
    /// [`Interp::with_deadline`], which [`run`] never sets).
    TimeUp,
    /// The process ended: an unhandled rejection in `throw` mode (rule 8k),
    /// or a rejected top-level `await` of an ES module.
    Exit(crate::trace::Ending),
}

impl Stop {
    /// A limit stop whose span is `site` (see [`LimitSite`]).
    fn at_site(mut self, site: LimitSite) -> Self {
        if let Stop::Limit(hit) = &mut self {
            hit.site = site;
        }
        self
    }
}

impl RunOptions {
    /// The profile a run of `file` follows: `--node`, else the file's
    /// `node N`, else Node 26 (the active LTS).
    pub fn profile(&self, file: &File) -> crate::sched::NodeProfile {
        self.node.or(file.node.map(|n| n.value)).unwrap_or_default()
    }
}

/// The options with `auto_limits` resolved into limits for `file`.
pub(crate) fn resolve_limits(file: &File, opts: RunOptions) -> RunOptions {
    if !opts.auto_limits {
        return opts;
    }
    let limits = crate::bound::default_limits(file);
    RunOptions {
        limits,
        max_statements: limits.max_callbacks.saturating_mul(10),
        auto_limits: false,
        ..opts
    }
}

/// The thread-pool size and module kind a run uses.
pub(crate) fn loop_config(file: &File, opts: &RunOptions) -> (usize, crate::sched::Module) {
    let pool = opts.pool.or(file.pool.map(|p| p.value)).unwrap_or(4);
    (pool as usize, file.module.map(|m| m.value).unwrap_or_default())
}

/// Runs a checked file; returns its trace (ended normally or by a limit).
pub fn run(file: &File, src: &str, title: &str, opts: RunOptions) -> Trace {
    run_on(file, src, title, opts, false).0
}

/// Most queue snapshots [`run_with_queues`] records (the first callbacks').
pub const MAX_QUEUE_SNAPSHOTS: usize = 2_000;

/// Most callbacks of one queue a snapshot names; the rest are counted.
pub const MAX_QUEUE_ITEMS: usize = 50;

/// What waited in each queue of the seed model's loop when one callback
/// started (the callback itself taken off): the queues in the order of a turn
/// (nextTick, microtask, timers, pool, poll, pending, check, close), empty
/// ones left out. The playground's step-through shows them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct QueueSnapshot {
    pub queues: Vec<QueueContents>,
}

/// One queue's callbacks, in the order they are taken.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct QueueContents {
    /// `nextTick`, `microtask`, `timers`, `pool` (jobs running or waiting for a
    /// thread), `poll` (completions and `io` events), `pending`, `check`, `close`.
    pub name: &'static str,
    /// `timeout "a" (line 3), due at 5`, … (at most [`MAX_QUEUE_ITEMS`]).
    pub items: Vec<String>,
    /// How many there are in all.
    pub count: usize,
}

/// [`run`] with verbose events, and for each callback entered (each `call`
/// event, the main module first) what waited in each queue: at most
/// [`MAX_QUEUE_SNAPSHOTS`] of them.
pub fn run_with_queues(file: &File, src: &str, title: &str, opts: RunOptions) -> (Trace, Vec<QueueSnapshot>) {
    run_on(file, src, title, RunOptions { verbose: true, ..opts }, true)
}

fn run_on(file: &File, src: &str, title: &str, opts: RunOptions, queues: bool) -> (Trace, Vec<QueueSnapshot>) {
    let raised_for = opts.auto_limits.then(|| crate::bound::callbacks(file));
    let opts = resolve_limits(file, opts);
    let (pool, module) = loop_config(file, &opts);
    let mut sched: Scheduler<Task> = Scheduler::new(pool, module, opts.limits)
        .with_node(opts.profile(file))
        .with_decisions(opts.explain);
    let mut interp = Interp::new(file, src, opts);
    interp.raised_for = raised_for;
    if queues {
        interp.queues = Some(Vec::new());
    }
    let ending = match sched.run(MAIN, as_host!(interp)) {
        Ok(()) => match interp.unsettled_line() {
            Some(line) => Ending::Unsettled {
                turns: sched.turn(),
                ticks: sched.now(),
                callbacks: sched.callbacks(),
                line,
                code: 13,
            },
            None => Ending::Finished {
                turns: sched.turn(),
                ticks: sched.now(),
                callbacks: sched.callbacks(),
            },
        },
        Err(Stop::Limit(hit)) => Ending::Limit(hit),
        Err(Stop::Exit(ending)) => ending,
        // Neither is set on this run (no target order, no deadline).
        Err(Stop::Diverged | Stop::TimeUp) => Ending::Finished {
            turns: sched.turn(),
            ticks: sched.now(),
            callbacks: sched.callbacks(),
        },
    };
    let snapshots = interp.queues.take().unwrap_or_default();
    (interp.into_trace(title, ending), snapshots)
}

/// Most `log` lines a trace holds; a run that prints more stops with
/// [`LimitKind::Output`], so memory stays bounded.
pub const MAX_TRACE_LOGS: usize = 2_000_000;

/// Most bytes the distinct labels of a run's callbacks may take (64 MiB):
/// each `{i}` label is kept once made, so a long label written with `{i}` in
/// a `repeat` of millions would otherwise take gigabytes before
/// [`MAX_WAITING`] stops the run; past it the run stops with
/// [`LimitKind::LabelBytes`].
pub const MAX_LABEL_BYTES: usize = 64 << 20;

/// Most callbacks waiting at once (scheduled, not yet run): past it the run
/// stops with [`LimitKind::Waiting`], so memory stays bounded.
pub const MAX_WAITING: usize = 5_000_000;

/// Most bytes of log text a trace holds (128 MiB); a run that prints more
/// stops with [`LimitKind::LogBytes`], so memory stays bounded whatever the
/// length of its lines.
pub const MAX_TRACE_LOG_BYTES: usize = 128 << 20;

/// Most verbose events (everything but log lines) a trace holds. Past it, or
/// past [`MAX_VERBOSE_BYTES`], verbose events are dropped and one
/// [`EventKind::VerboseCut`] marks where; log lines go on.
pub const MAX_VERBOSE_EVENTS: usize = 2_000_000;

/// Most bytes of text (labels, details) the verbose events of a trace hold (64 MiB).
pub const MAX_VERBOSE_BYTES: usize = 64 << 20;

/// Most bytes of `--explain` text a trace holds (64 MiB); the lines past it go
/// unexplained ([`Trace::explanations`] is shorter, and says so).
pub const MAX_EXPLAIN_BYTES: usize = 64 << 20;

/// Statements and callbacks between two looks at the clock when a deadline is set.
const DEADLINE_EVERY: u32 = 4096;

/// The main module, as a callback the loop runs first.
pub(crate) const MAIN: Task<'static> = Task::Cb(MAIN_INSTANCE);

const MAIN_INSTANCE: Instance<'static> = Instance {
    cb: &MAIN_CALLBACK,
    link: u32::MAX,
    index: None,
    run: 1,
    alone: true,
    label: Label::NONE,
    note: 0,
    env: Env::NONE,
    executor: Exec::NONE,
};

static MAIN_CALLBACK: Callback = Callback::bare(usize::MAX, Span::new(0, 0), Kind::Then);

/// The `{k}` counters, one per callback site: 4 bytes a site (a file of a
/// million timers has a million sites, and the run touches each), until a
/// count passes `u32::MAX`; then 8 bytes a site, so every count stays exact.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum SiteCounts {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl SiteCounts {
    /// Counters at 0 for `sites` sites.
    fn new(sites: usize) -> Self {
        SiteCounts::Narrow(vec![0; sites])
    }

    /// Counts one more run of `site`'s callback; returns its count, from 1.
    fn bump(&mut self, site: usize) -> u64 {
        match self {
            SiteCounts::Narrow(counts) => match counts[site].checked_add(1) {
                Some(n) => {
                    counts[site] = n;
                    u64::from(n)
                }
                None => {
                    *self = SiteCounts::Wide(counts.iter().map(|&n| u64::from(n)).collect());
                    self.bump(site)
                }
            },
            SiteCounts::Wide(counts) => {
                counts[site] += 1;
                counts[site]
            }
        }
    }

    /// Asks the CPU for `site`'s counter ahead of its use (a hint; no effect
    /// on a site out of range).
    #[inline]
    fn prefetch(&self, site: usize) {
        match self {
            SiteCounts::Narrow(counts) => {
                if let Some(count) = counts.get(site) {
                    crate::sched::prefetch(count);
                }
            }
            SiteCounts::Wide(counts) => {
                if let Some(count) = counts.get(site) {
                    crate::sched::prefetch(count);
                }
            }
        }
    }
}

/// Bounds accounting: statements run, callbacks scheduled, the orders
/// search's deadline.
#[derive(Clone, Default)]
struct Budget {
    statements: u64,
    /// Callbacks scheduled so far.
    scheduled: u64,
    /// When the orders search this replay belongs to must stop.
    deadline: Option<web_time::Instant>,
    /// Steps since the clock was last read (for the deadline).
    steps: u32,
}

impl Budget {
    /// Counts a step; `Err(TimeUp)` once the deadline has passed.
    fn tick_deadline(&mut self) -> Result<(), Stop> {
        let Some(deadline) = self.deadline else {
            return Ok(());
        };
        self.steps += 1;
        if self.steps >= DEADLINE_EVERY {
            self.steps = 0;
            if web_time::Instant::now() >= deadline {
                return Err(Stop::TimeUp);
            }
        }
        Ok(())
    }
}

/// Where a log line came from, for renaming `{i}` (crate::orders::symmetry).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct LineMeta {
    /// The byte offset of the statement that logged it.
    pub start: u32,
    /// The `{i}` its texts saw.
    pub index: Option<u32>,
    /// The text with every `{i}` left as `\0` (only when it has one), so that
    /// another `{i}` can be filled in.
    pub pattern: Option<Box<str>>,
}

/// The distinct labels of a run's callbacks (`{i}` filled in), numbered in
/// the order first met: an [`Instance`] holds its label's number. Natively
/// shared between copies of the interpreter until one meets a new label: an
/// orders search copies the interpreter once per schedule it replays, and
/// copying every label took about a sixteenth of its time. (The WebAssembly
/// build, whose search keeps no copies, holds them unshared, for its size
/// budget.)
#[cfg(not(target_family = "wasm"))]
#[derive(Clone, Default)]
struct Labels(std::rc::Rc<LabelSet>);

#[cfg(target_family = "wasm")]
#[derive(Clone, Default)]
struct Labels(LabelSet);

/// What [`Labels`] holds.
#[derive(Clone, Default)]
struct LabelSet {
    /// The labels, numbered in the order first met.
    texts: IndexSet<String>,
    /// The number of each label without `{i}` by where it is written (its
    /// [`Text`]'s address in the syntax tree, which outlives the run): a
    /// callback whose label was met before is numbered without filling the
    /// label in, hashing and comparing it again. (Fresh-clone helper 71: a
    /// label of a megabyte took a megabyte's work per callback, minutes for a
    /// `repeat` of immediates. A label with `{i}` is another label for each
    /// `{i}`, and the bytes of labels met are bounded.) A hash map: a list
    /// sorted by address took time quadratic in the labels when callbacks
    /// ran in the reverse of their source order (200,000 such timers: 19 s).
    by_text: rustc_hash::FxHashMap<usize, u32>,
}

impl Labels {
    fn set_mut(&mut self) -> &mut LabelSet {
        #[cfg(not(target_family = "wasm"))]
        return std::rc::Rc::make_mut(&mut self.0);
        #[cfg(target_family = "wasm")]
        return &mut self.0;
    }

    /// The number of the label `text` gives with `{i}` = `index` filled in
    /// ([`label_text`]), and the bytes it added (0 when met before).
    fn intern(&mut self, text: &Text, index: Option<u64>) -> (u32, usize) {
        let key = (!text.uses(&TextPart::Index)).then_some(std::ptr::from_ref(text) as usize);
        if let Some(&id) = key.and_then(|key| self.0.by_text.get(&key)) {
            return (id, 0);
        }
        let label = label_text(text, index);
        let set = self.set_mut();
        let (id, added) = match set.texts.get_index_of(&label) {
            Some(id) => (id, 0),
            None => (set.texts.len(), label.len()),
        };
        if added > 0 {
            set.texts.insert(label);
        }
        if let Some(key) = key {
            set.by_text.insert(key, id as u32);
        }
        (id as u32, added)
    }

    /// The number of `text`, if it was met.
    fn get_index_of(&self, text: &str) -> Option<usize> {
        self.0.texts.get_index_of(text)
    }
}

impl std::ops::Index<usize> for Labels {
    type Output = String;

    fn index(&self, id: usize) -> &String {
        &self.0.texts[id]
    }
}

/// The trace being recorded: log lines (bounded by the run's limits) and
/// verbose events (dropped past their own bounds).
#[derive(Clone, Default)]
struct Recorder {
    events: Vec<Event>,
    /// The source span of each `log` event, in order.
    log_spans: Vec<Span>,
    /// A running hash of the log texts so far.
    log_hash: u64,
    /// For the orders search's symmetry reduction: where each line was
    /// logged from and with which `{i}` (`None`: not recorded).
    line_meta: Option<Vec<LineMeta>>,
    /// A running hash of the recorded [`LineMeta`]s' statements and `{i}`s
    /// ([`crate::sched::LogSoFar::origins`]).
    origins_hash: u64,
    /// Bytes of log text held ([`MAX_TRACE_LOG_BYTES`]).
    log_bytes: usize,
    /// Verbose events held, and the bytes of their text.
    verbose_events: usize,
    verbose_bytes: usize,
    /// Verbose events were dropped from here on.
    verbose_cut: bool,
}

impl Recorder {
    /// Records a verbose event, or drops it past [`MAX_VERBOSE_EVENTS`] or
    /// [`MAX_VERBOSE_BYTES`] (the first one dropped leaves a [`EventKind::VerboseCut`]).
    fn push_verbose(&mut self, event: Event) {
        if self.verbose_cut {
            return;
        }
        let bytes = match &event.kind {
            EventKind::Call { label, .. } => label.as_ref().map_or(0, String::len),
            EventKind::Schedule { label, detail, .. } => label.as_ref().map_or(0, String::len) + detail.len(),
            EventKind::Clear { label, .. } => label.len(),
            _ => 0,
        };
        if self.verbose_events >= MAX_VERBOSE_EVENTS || self.verbose_bytes.saturating_add(bytes) > MAX_VERBOSE_BYTES {
            self.verbose_cut = true;
            self.events.push(Event {
                phase: Phase::Main,
                kind: EventKind::VerboseCut {
                    events: MAX_VERBOSE_EVENTS,
                    bytes: MAX_VERBOSE_BYTES,
                },
                ..event
            });
            return;
        }
        self.verbose_events += 1;
        self.verbose_bytes += bytes;
        self.events.push(event);
    }

    fn last_turn(&self) -> u64 {
        self.events.last().map_or(0, |e| e.turn)
    }
}

/// `--explain`: where the host scheduled each callback, and one explanation per log line.
#[derive(Clone, Default)]
struct Notes {
    explanations: Vec<String>,
    /// The explanation of the callback running.
    why: Option<String>,
    /// Where and when each scheduled callback was scheduled.
    origins: Vec<Origin>,
    /// Bytes of explanations held ([`MAX_EXPLAIN_BYTES`]); past it, none are kept.
    bytes: usize,
    cut: bool,
}

impl Notes {
    /// Keeps the running callback's explanation for one more log line.
    fn explain_log(&mut self, entry: crate::sched::Entry) {
        if self.cut {
            return;
        }
        let why = self.why.clone().unwrap_or_else(|| explain::main_module_sentence(entry));
        if self.bytes.saturating_add(why.len()) > MAX_EXPLAIN_BYTES {
            self.cut = true;
            self.explanations.shrink_to_fit();
        } else {
            self.bytes += why.len();
            self.explanations.push(why);
        }
    }
}

/// `clear`'s live handles, by label id (only when the file has a `clear`).
#[derive(Default, Clone)]
struct Live {
    enabled: bool,
    handles: IndexMap<u32, IndexSet<Handle>>,
}

/// The interpreter: the host of a loop run.
#[derive(Clone)]
pub(crate) struct Interp<'a> {
    /// The source text, for line numbers.
    src: &'a str,
    /// With [`run_with_queues`]: what waited in each queue at each callback's start.
    queues: Option<Vec<QueueSnapshot>>,
    /// The byte offset of each line's start (32 bits: `load` refuses files of 4 GiB),
    /// found the first time a line number is asked for: a run that reports no
    /// line (most runs without `--verbose`) does not read the text once more.
    src_lines: std::cell::OnceCell<Vec<u32>>,
    main: &'a [Stmt],
    /// [`LimitHit::raised_for`]: the callbacks the default limits in force
    /// were raised for (set by [`run`] when the options asked for them).
    raised_for: Option<u64>,
    /// Whose rules the run follows.
    profile: crate::sched::NodeProfile,
    /// Where the main module runs (rule 1), by its kind and the profile.
    entry: crate::sched::Entry,
    opts: RunOptions,
    labels: Labels,
    /// Bytes of `labels` ([`MAX_LABEL_BYTES`]).
    label_bytes: usize,
    /// `{k}` counters per callback site.
    counts: SiteCounts,
    /// Where the running callback runs, and the loop phase around it.
    frame_phase: Phase,
    loop_phase: Phase,
    /// The last callback called (its statement, and which `.then` link:
    /// [`Instance`]'s `link`), for limit diagnostics.
    last: Option<(&'a Callback, u32)>,
    /// The order of log texts a guided search is looking for: a run that
    /// prints anything else stops with [`Stop::Diverged`].
    target: Option<&'a [String]>,
    budget: Budget,
    trace: Recorder,
    notes: Notes,
    live: Live,
    /// Neither `--explain` nor `--verbose`, and no `clear` in the file: a
    /// scheduling needs no note, event or handle kept (set once, at the start).
    quiet: bool,
    /// Promises, async frames, scopes and listeners (files with promise statements).
    rt: PromiseRt<'a>,
}

impl<'a> Interp<'a> {
    /// A fresh interpreter for `file`.
    pub(crate) fn new(file: &'a File, src: &'a str, opts: RunOptions) -> Self {
        let clears = has_clear(&file.body);
        Interp {
            src,
            queues: None,
            src_lines: std::cell::OnceCell::new(),
            main: &file.body,
            raised_for: None,
            profile: opts.profile(file),
            entry: opts.profile(file).entry(file.module.map(|m| m.value).unwrap_or_default()),
            opts,
            labels: Labels::default(),
            label_bytes: 0,
            counts: SiteCounts::new(file.sites),
            frame_phase: Phase::Main,
            loop_phase: Phase::Main,
            last: None,
            target: None,
            budget: Budget::default(),
            trace: Recorder::default(),
            notes: Notes::default(),
            live: Live {
                enabled: clears,
                handles: IndexMap::new(),
            },
            quiet: !(opts.explain || opts.verbose || clears),
            rt: PromiseRt::new(file, opts.explain),
        }
    }

    /// Stops the run ([`Stop::Diverged`]) at the first log line that differs
    /// from `target` (or goes past its end), once that line is logged.
    pub(crate) fn with_target(mut self, target: &'a [String]) -> Self {
        self.target = Some(target);
        self
    }

    /// Records where each log line came from ([`LineMeta`]), read back by
    /// [`Interp::take_line_meta`].
    pub(crate) fn with_line_meta(mut self) -> Self {
        self.trace.line_meta = Some(Vec::new());
        self
    }

    /// The lines' [`LineMeta`], if recorded.
    pub(crate) fn take_line_meta(&mut self) -> Vec<LineMeta> {
        self.trace.line_meta.take().unwrap_or_default()
    }

    /// Logs `text` rendered in `frame` (and its [`LineMeta`] when recorded).
    #[inline(never)]
    fn log_text<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, text: &Text, frame: &Frame, span: Span) -> Result<(), Stop> {
        self.log(sched, render(text, frame), span)?;
        if let Some(meta) = &mut self.trace.line_meta {
            let pattern = text.parts.iter().any(|p| matches!(p, TextPart::Index)).then(|| {
                let mut pattern = String::new();
                for part in &text.parts {
                    match part {
                        TextPart::Lit(s) => pattern.push_str(s),
                        TextPart::Index => pattern.push('\0'),
                        TextPart::Run => pattern.push_str(&frame.run.to_string()),
                        TextPart::Count => pattern.push_str(&frame.count.to_string()),
                    }
                }
                pattern.into_boxed_str()
            });
            let (start, index) = (span.start() as u32, frame.index.map(|i| i as u32));
            // FxHash's step, twice: the statement, then `{i}` (0 for none).
            let step = |h: u64, x: u64| (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
            let h = step(self.trace.origins_hash, u64::from(start));
            self.trace.origins_hash = step(h, index.map_or(0, |i| u64::from(i) + 1));
            meta.push(LineMeta { start, index, pattern });
        }
        Ok(())
    }

    /// Stops the run with [`Stop::TimeUp`] once `deadline` has passed (checked
    /// every few thousand statements and callbacks).
    pub(crate) fn with_deadline(mut self, deadline: Option<web_time::Instant>) -> Self {
        self.budget.deadline = deadline;
        self
    }

    /// Whether verbose events are recorded (`--verbose`, and not past their bounds).
    fn verbose(&self) -> bool {
        self.opts.verbose && !self.trace.verbose_cut
    }

    /// The trace of the run so far.
    pub(crate) fn into_trace(self, title: &str, ending: Ending) -> Trace {
        Trace {
            title: title.to_string(),
            node: self.profile,
            events: self.trace.events,
            log_spans: self.trace.log_spans,
            explanations: self.notes.explanations,
            explanations_cut: self.notes.cut,
            ending,
            diagnostics: Vec::new(),
        }
    }

    fn log<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, text: String, span: Span) -> Result<(), Stop> {
        if self.trace.log_spans.len() >= MAX_TRACE_LOGS {
            return Err(self.output_limit(sched, span));
        }
        // A line that leaves the target is logged, then the run stops: the
        // search reports what Node printed where it parted from the target.
        let diverged = self
            .target
            .is_some_and(|target| target.get(self.trace.log_spans.len()) != Some(&text));
        if self.trace.log_bytes.saturating_add(text.len()) > MAX_TRACE_LOG_BYTES {
            return Err(self.stop(sched, LimitKind::LogBytes, MAX_TRACE_LOG_BYTES as u64, self.frame_phase, span));
        }
        self.trace.log_bytes += text.len();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (self.trace.log_hash, &text).hash(&mut h);
        self.trace.log_hash = h.finish();
        self.trace.log_spans.push(span);
        if self.opts.explain {
            self.notes.explain_log(self.entry);
        }
        self.push(sched, EventKind::Log { text });
        if diverged {
            return Err(Stop::Diverged);
        }
        Ok(())
    }
}

/// The interpreter as a loop's host ([`as_host`]) in WebAssembly: the loop
/// reached through `dyn EventLoop`, so that the interpreter is compiled once
/// for both loops (the seed model's and the orders search's), not once for
/// each: 17 KB of code, for the size budget (docs/playground.md). Natively
/// each loop has its own copy, its calls inlined.
#[cfg(target_family = "wasm")]
pub(crate) struct Dyn<'i, 'a>(pub &'i mut Interp<'a>);

#[cfg(target_family = "wasm")]
impl<'a, L: EventLoop<Task<'a>>> Host<Task<'a>, L> for Dyn<'_, 'a> {
    type Stop = Stop;

    fn call(&mut self, sched: &mut L, task: &Task<'a>, ctx: Ctx<'_>) -> Result<(), Stop> {
        let sched: &mut dyn EventLoop<Task<'a>> = sched;
        self.0.call(sched, task, ctx)
    }

    fn limit(&mut self, sched: &L, kind: LimitKind, phase: Phase) -> Stop {
        let sched: &dyn EventLoop<Task<'a>> = sched;
        self.0.limit(sched, kind, phase)
    }

    fn drain_end(&mut self, sched: &mut L) -> Result<bool, Stop> {
        let sched: &mut dyn EventLoop<Task<'a>> = sched;
        self.0.drain_end(sched)
    }

    fn observe(&mut self, event: LoopEvent) {
        Host::<Task<'a>, dyn EventLoop<Task<'a>>>::observe(self.0, event)
    }

    fn fingerprint(&self, h: &mut dyn Hasher) {
        Host::<Task<'a>, dyn EventLoop<Task<'a>>>::fingerprint(self.0, h)
    }

    fn log_so_far(&self) -> crate::sched::LogSoFar {
        Host::<Task<'a>, dyn EventLoop<Task<'a>>>::log_so_far(self.0)
    }
}

/// `&mut interp` as a loop's host: natively the interpreter itself, in
/// WebAssembly through [`Dyn`].
#[cfg(not(target_family = "wasm"))]
macro_rules! as_host {
    ($interp:expr) => {
        &mut $interp
    };
}
#[cfg(target_family = "wasm")]
macro_rules! as_host {
    ($interp:expr) => {
        &mut $crate::interp::Dyn(&mut $interp)
    };
}
pub(crate) use as_host;

impl<'a, L: EventLoop<Task<'a>> + ?Sized> Host<Task<'a>, L> for Interp<'a> {
    fn fingerprint(&self, mut h: &mut dyn Hasher) {
        // Of the log, only what limits read: its lines' count and bytes.
        (
            self.trace.log_spans.len(),
            self.trace.log_bytes,
            &self.counts,
            self.budget.statements,
        )
            .hash(&mut h);
        self.rt.fingerprint(h);
        for (label, handles) in &self.live.handles {
            (label, handles.len()).hash(&mut h);
            for handle in handles {
                handle.hash(&mut h);
            }
        }
    }

    fn log_so_far(&self) -> crate::sched::LogSoFar {
        crate::sched::LogSoFar {
            hash: self.trace.log_hash,
            lines: self.trace.log_spans.len(),
            origins: self.trace.origins_hash,
        }
    }

    type Stop = Stop;

    /// Inlined into the loop's drains and phases: a callback that runs
    /// nothing costs no call, and the rest one (to [`Interp::call_callback`]
    /// or [`Interp::call_task`]).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn call(&mut self, sched: &mut L, task: &Task<'a>, ctx: Ctx<'_>) -> Result<(), Stop> {
        self.budget.tick_deadline()?;
        self.frame_phase = ctx.phase;
        self.loop_phase = ctx.loop_phase;
        match task {
            Task::Cb(inst) if inst.link == 0 && self.runs_nothing(inst) => {
                self.enter_plain(inst);
                Ok(())
            }
            Task::Cb(inst) if inst.link != u32::MAX => self.call_callback(sched, *inst, &ctx),
            // A round trip's box is cloned: the rare path (the queue drops its own).
            task => self.call_task(sched, task.clone(), &ctx),
        }
    }

    fn drain_end(&mut self, sched: &mut L) -> Result<bool, Stop> {
        self.process_promise_rejections(sched)
    }

    /// Prefetches what calling a timer soon to run reads first: at distance
    /// 4 its callback record (kind, site, label: the record's first cache
    /// line), at 2 (the record is then in cache) its `{k}` counter.
    #[inline]
    fn fetch_ahead(&self, task: &Task<'a>, distance: usize) {
        let Task::Cb(inst) = task else { return };
        if distance > 2 {
            crate::sched::prefetch::<Callback>(inst.cb);
        } else {
            self.counts.prefetch(self.site(inst));
        }
    }

    fn limit(&mut self, sched: &L, kind: LimitKind, phase: Phase) -> Stop {
        // Before any callback ran (`--max-turns 0`), the main module's first statement.
        let (mut span, mut site) = match self.last {
            Some((cb, link)) => (site_span_of(cb, link), LimitSite::LastCallback),
            None => (self.main.first().map_or(Span::default(), |s| s.span), LimitSite::MainModule),
        };
        // A turn or callback limit in the loop is named for the endless
        // statement that kept it going, not for whichever callback came
        // last (`stop` says whether one did). Also when only promise
        // reactions ran, which are no `self.last` (a `chain … .then { again }`
        // of the main module was blamed on its first statement: fresh-clone
        // helper 83).
        // Between callbacks, only a callback waiting makes a chain live; one
        // walk of the statements finds the chain and whether there is one.
        let mut phase = phase;
        let waiting = sched.waiting();
        let in_loop = site == LimitSite::LastCallback || phase != Phase::Main;
        let feed = in_loop
            .then(|| crate::bound::endless_feed(self.main, phase, |_, q| waiting.in_phase(q) > 0))
            .flatten();
        if let Some(feed) = feed.filter(|_| matches!(kind, LimitKind::Turns | LimitKind::Callbacks)) {
            (span, phase, site) = (feed.0, feed.1, LimitSite::LastCallback);
        }
        let endless = self.endless_in(phase, feed.is_some());
        let max = match kind {
            LimitKind::Turns => self.opts.limits.max_turns,
            LimitKind::Callbacks => self.opts.limits.max_callbacks,
            LimitKind::Output => MAX_TRACE_LOGS as u64,
            LimitKind::LogBytes => MAX_TRACE_LOG_BYTES as u64,
            LimitKind::Waiting => MAX_WAITING as u64,
            LimitKind::LabelBytes => MAX_LABEL_BYTES as u64,
            LimitKind::Promises => u64::from(crate::promise::DEFAULT_LIMIT),
            LimitKind::CallDepth => u64::from(promises::MAX_CALL_DEPTH),
            LimitKind::Clock => crate::sched::CLOCK_LIMIT,
        };
        self.hit(sched, kind, max, phase, span, waiting, endless).at_site(site)
    }

    fn observe(&mut self, event: LoopEvent) {
        if !self.verbose() {
            return;
        }
        let last_turn = self.trace.last_turn();
        let (turn, tick, kind) = match event {
            LoopEvent::TurnStart { turn, now } => (turn, now, EventKind::TurnStart),
            LoopEvent::Sleep { from, to } => (last_turn, from, EventKind::Sleep { to }),
            LoopEvent::Pool(PoolEvent::Start { thread, job, at, until }) => (last_turn, at, EventKind::PoolStart { thread, job, until }),
            LoopEvent::Pool(PoolEvent::Finish { thread, job, at }) => (last_turn, at, EventKind::PoolFinish { thread, job }),
            LoopEvent::Exit { turn, now } => (turn, now, EventKind::Exit),
        };
        let phase = match kind {
            EventKind::TurnStart | EventKind::Exit => Phase::Main,
            _ => Phase::Poll,
        };
        self.trace.push_verbose(Event { turn, tick, phase, kind });
    }
}

impl<'a> Interp<'a> {
    /// Runs a task other than a plain callback: the main module, a
    /// thread-pool round trip, a promise job or settlement.
    #[inline(never)]
    fn call_task<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, task: Task<'a>, ctx: &Ctx<'_>) -> Result<(), Stop> {
        let inst = match task {
            Task::Cb(inst) => inst,
            // An `fs.readFile`/`fs.writeFile` round trip before its last: the next one.
            Task::Fs(mut fs) if fs.left > 1 => {
                fs.left -= 1;
                sched.submit(0, Task::Fs(fs));
                return Ok(());
            }
            Task::Fs(fs) => match fs.then {
                FsThen::Settle { promise, site, op } => return self.settle(sched, promise, site, explain::SettledBy::FsCall(op)),
                FsThen::Callback(inst) => inst,
            },
            Task::Job { id, .. } => return self.run_job(sched, id, ctx),
            Task::Settle { promise, site } => return self.settle(sched, promise, site, explain::SettledBy::Timer(ctx.phase)),
            Task::Link(run) => return self.run_link(sched, *run, ctx),
        };
        if inst.link == u32::MAX {
            return self.call_main(sched);
        }
        self.call_callback(sched, inst, ctx)
    }

    /// Runs a callback (or a `.then` link): its body, or its label logged;
    /// then queues the next link of a chain run without promises.
    #[inline(never)]
    fn call_callback<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, inst: Instance<'a>, ctx: &Ctx<'_>) -> Result<(), Stop> {
        let (run, count) = self.enter(sched, inst, ctx);
        let (label, _, body) = self.parts(&inst);
        if label.is_some() || body.is_some() {
            // A plain callback's body cannot return or throw (the checks); an
            // `async` one runs as an async function whose promise nobody holds.
            self.callback_body(sched, inst, frame_of(inst, run, count))?;
        }
        if self.verbose() {
            self.push(sched, EventKind::Return);
        }
        self.queue_next_link(sched, inst);
        Ok(())
    }

    /// The main module's body (turn 0, or turn 1's poll phase for an ES module).
    fn call_main<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L) -> Result<(), Stop> {
        let frame = Frame {
            index: None,
            run: 1,
            count: 1,
            this: None,
            env: Env::NONE,
            executor: Exec::NONE,
        };
        if self.verbose() {
            let kind = EventKind::call("main", None, 1);
            self.push(sched, kind);
        }
        self.main_body(sched, self.main, frame)?;
        if self.verbose() {
            self.push(sched, EventKind::Return);
        }
        Ok(())
    }

    /// Whether calling `inst` (a callback, not a link) does nothing but count
    /// ([`Interp::enter_plain`]): it has no label, body, `times` or links, is
    /// no interval, and there is neither `--explain` nor `--verbose` to record
    /// it for; `clear` has no handle of it to forget (it has no label).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn runs_nothing(&self, inst: &Instance<'a>) -> bool {
        let cb = inst.cb;
        !(self.opts.explain || self.opts.verbose)
            && cb.kind != Kind::Interval
            && cb.label().is_none()
            && cb.body().is_none()
            && cb.times().is_none()
            && cb.links().is_empty()
    }

    /// What every callback's start records: it is the last one called, and
    /// its site's `{k}` count goes up (returned).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn enter_plain(&mut self, inst: &Instance<'a>) -> u64 {
        self.last = Some((inst.cb, inst.link));
        let site = self.site(inst);
        self.counts.bump(site)
    }

    /// A callback starts: its counters, explanation and `clear` bookkeeping;
    /// an interval past its `times` is cleared. Returns its `{n}` (the run of
    /// its `again` chain or interval) and `{k}` (its site's count).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn enter<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, inst: Instance<'a>, ctx: &Ctx<'_>) -> (u64, u64) {
        let count = self.enter_plain(&inst);
        let interval = inst.cb.kind == Kind::Interval;
        let run = if interval { ctx.run } else { u64::from(inst.run) };
        if !self.quiet {
            self.enter_noted(&inst, ctx, interval);
        }
        if interval {
            let (_, times, _) = self.parts(&inst);
            if times.is_some_and(|t| run >= t.value) {
                if let Some(handle) = ctx.handle {
                    sched.clear(handle);
                }
            }
        }
        if self.verbose() {
            let (kind, label, line) = self.named(&inst);
            let label = label.cloned();
            self.push(sched, EventKind::call(kind, label, line));
        }
        (run, count)
    }

    /// [`Interp::enter`]'s bookkeeping for `--explain` and `clear`: why the
    /// callback runs now; a timeout or immediate that ran has no handle left
    /// to clear.
    #[inline(never)]
    fn enter_noted(&mut self, inst: &Instance<'a>, ctx: &Ctx<'_>, interval: bool) {
        if self.opts.explain {
            self.notes.why = Some(self.explain(inst, ctx));
        }
        if let (Some(label), Some(handle), true, false) = (inst.label.get(), ctx.handle, self.live.enabled, interval) {
            if let Some(set) = self.live.handles.get_mut(&label) {
                set.swap_remove(&handle);
            }
        }
    }

    /// A `then` chain no code can observe (see [`promises::unobservable_chain`]) runs without
    /// promises: each link's reaction job is queued when the previous link's callback returns,
    /// which is when its promise would settle (rule 8a, the same hop).
    fn queue_next_link<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, inst: Instance<'a>) {
        if inst.alone || inst.cb.kind != Kind::Then || (inst.link as usize) >= inst.cb.links().len() {
            return;
        }
        let next = Instance {
            link: inst.link + 1,
            run: 1,
            label: Label::NONE,
            ..inst
        };
        let index = next.index.map(|i| u64::from(i.get()));
        let next = Instance {
            label: Label::from(self.intern_label(&next, index)),
            ..next
        };
        sched.queue_microtask(Task::Cb(next));
    }

    fn push<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, kind: EventKind) {
        if matches!(kind, EventKind::Call { .. }) && self.queues.as_ref().is_some_and(|q| q.len() < MAX_QUEUE_SNAPSHOTS) {
            let snapshot = self.snapshot(sched);
            self.queues.as_mut().expect("checked above").push(snapshot);
        }
        let event = Event {
            turn: sched.turn(),
            tick: sched.now(),
            phase: self.frame_phase,
            kind,
        };
        if matches!(event.kind, EventKind::Log { .. }) {
            self.trace.events.push(event); // bounded by `log`, which stops the run
        } else {
            self.trace.push_verbose(event);
        }
    }

    fn site(&self, inst: &Instance) -> usize {
        if inst.link == 0 {
            inst.cb.site()
        } else {
            inst.cb.links()[inst.link as usize - 1].site
        }
    }

    /// What waits in each queue of `sched` now ([`QueueSnapshot`]).
    fn snapshot<L: EventLoop<Task<'a>> + ?Sized>(&self, sched: &L) -> QueueSnapshot {
        use crate::sched::{PoolItem, Queued};
        let mut queues: Vec<QueueContents> = Vec::new();
        sched.each_queued(&mut |at, task| {
            let name = match at {
                Queued::NextTick => "nextTick",
                Queued::Microtask => "microtask",
                Queued::Timer { .. } => "timers",
                Queued::Pool(PoolItem::Running { .. } | PoolItem::Waiting { .. }) => "pool",
                Queued::Pool(PoolItem::Ready { .. }) => "poll",
                Queued::Pending => "pending",
                Queued::Check => "check",
                Queued::Close => "close",
            };
            if queues.last().is_none_or(|q| q.name != name) {
                queues.push(QueueContents {
                    name,
                    items: Vec::new(),
                    count: 0,
                });
            }
            let queue = queues.last_mut().expect("pushed above");
            queue.count += 1;
            if queue.items.len() >= MAX_QUEUE_ITEMS {
                return; // counted, not described
            }
            let what = self.describe_task(task);
            queue.items.push(match at {
                Queued::Timer { due } => format!("{what}, due at {due}"),
                Queued::Pool(PoolItem::Running { thread }) => format!("{what}, running on thread {thread}"),
                Queued::Pool(PoolItem::Waiting { job }) => format!("{what}, job {job} waiting for a thread"),
                Queued::Pool(PoolItem::Ready { at, io: true }) => format!("{what}, arrives at {at}"),
                Queued::Pool(PoolItem::Ready { at, io: false }) => format!("{what}, done at {at}"),
                _ => what,
            });
        });
        QueueSnapshot { queues }
    }

    /// How the verbose trace names a callback: its kind (`.then` for a
    /// link), its label, the line that scheduled it.
    fn named(&self, inst: &Instance<'a>) -> (&'static str, Option<&String>, usize) {
        let kind = if inst.link > 0 { ".then" } else { inst.cb.kind.name() };
        let label = inst.label.get().map(|l| &self.labels[l as usize]);
        (kind, label, self.line(self.site_span(inst)))
    }

    /// `timeout "a" (line 3)`: what a queued callback is, as the verbose trace names it.
    fn describe_instance(&self, inst: &Instance<'a>) -> String {
        match self.named(inst) {
            (kind, Some(label), line) => format!("{kind} \"{}\" (line {line})", crate::term::escape(label)),
            (kind, None, line) => format!("{kind} (line {line})"),
        }
    }

    fn site_span(&self, inst: &Instance) -> Span {
        site_span_of(inst.cb, inst.link)
    }

    /// Label, `times` and body of the callback or link.
    fn parts(&self, inst: &Instance<'a>) -> (Option<&'a Text>, Option<Spanned<u64>>, Option<&'a [Stmt]>) {
        let cb: &'a Callback = inst.cb;
        if inst.link == 0 {
            (cb.label(), cb.times(), cb.body())
        } else {
            let link: &'a Link = &cb.links()[inst.link as usize - 1];
            (link.label.as_ref(), link.times, link.body.as_deref())
        }
    }

    fn line(&self, span: Span) -> usize {
        let lines = self.src_lines.get_or_init(|| line_starts(self.src));
        match lines.binary_search(&(span.start() as u32)) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// Lines logged so far.
    pub(crate) fn lines(&self) -> usize {
        self.trace.log_spans.len()
    }

    /// Statements executed so far.
    pub fn statements(&self) -> u64 {
        self.budget.statements
    }

    #[inline(never)]
    fn intern_label(&mut self, inst: &Instance<'a>, index: Option<u64>) -> Option<u32> {
        let (label, _, _) = self.parts(inst);
        let (id, added) = self.labels.intern(label?, index);
        self.label_bytes += added;
        Some(id)
    }

    /// Runs a block: its statements in order until one returns, throws or
    /// suspends (an `await`). A block with declarations gets a fresh
    /// environment. Resuming an async frame, the block starts where it
    /// suspended, in the environment it had (see [`promises`]):
    /// [`Interp::resumed_block`].
    #[inline(never)]
    fn block<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, stmts: &'a [Stmt], frame: &Frame<'a>) -> Result<Flow, Stop> {
        self.block_inline(sched, stmts, frame)
    }

    /// [`Interp::block`], inlined where a callback's body runs.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn block_inline<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, stmts: &'a [Stmt], frame: &Frame<'a>) -> Result<Flow, Stop> {
        if self.rt.resuming() {
            return self.resumed_block(sched, stmts, frame);
        }
        let env = self.open_env(sched, stmts, frame)?;
        let inner;
        let frame = if env == frame.env {
            frame
        } else {
            inner = Frame { env, ..*frame };
            &inner
        };
        for (pc, stmt) in stmts.iter().enumerate() {
            self.count_statement(sched, stmt)?;
            // The statements a callback body schedules with: here, without
            // the call to `statement` (all the others).
            match &stmt.kind {
                StmtKind::Callback(cb) => self.callback_statement(sched, cb, frame)?,
                StmtKind::Again => self.again_statement(sched, frame)?,
                _ => match self.statement(sched, stmt, frame, None)? {
                    Flow::Next => {}
                    Flow::Suspend => {
                        self.rt.suspended_at(pc, env);
                        return Ok(Flow::Suspend);
                    }
                    flow => return Ok(flow),
                },
            }
        }
        Ok(Flow::Next)
    }

    /// [`Interp::block`] while an async frame is resumed: the block starts at
    /// the statement its path says, in the environment it had then.
    #[inline(never)]
    fn resumed_block<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        stmts: &'a [Stmt],
        frame: &Frame<'a>,
    ) -> Result<Flow, Stop> {
        let (start, env, mut resuming) = match self.rt.resume_level() {
            Some(pos) => (pos.pc as usize, pos.env, Some(pos.sub)),
            None => (0, self.open_env(sched, stmts, frame)?, None),
        };
        let inner;
        let frame = if env == frame.env {
            frame
        } else {
            inner = Frame { env, ..*frame };
            &inner
        };
        for (pc, stmt) in stmts.iter().enumerate().skip(start) {
            let sub = resuming.take();
            if sub.is_none() {
                self.count_statement(sched, stmt)?;
            }
            match self.statement(sched, stmt, frame, sub)? {
                Flow::Next => {}
                Flow::Suspend => {
                    self.rt.suspended_at(pc, env);
                    return Ok(Flow::Suspend);
                }
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Next)
    }

    /// One more statement run: the deadline's step, and the bound on statements.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn count_statement<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, stmt: &Stmt) -> Result<(), Stop> {
        self.budget.tick_deadline()?;
        self.budget.statements += 1;
        if self.budget.statements > self.opts.max_statements {
            return Err(self.statement_limit(sched, stmt.span));
        }
        Ok(())
    }

    fn output_limit<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, span: Span) -> Stop {
        self.stop(sched, LimitKind::Output, MAX_TRACE_LOGS as u64, self.frame_phase, span)
    }

    #[cold]
    #[inline(never)]
    fn statement_limit<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, span: Span) -> Stop {
        self.stop(sched, LimitKind::Callbacks, self.opts.max_statements, self.frame_phase, span)
            .at_site(LimitSite::Statement)
    }

    /// A limit hit at the statement or callback at `span`, with what is left waiting.
    fn stop<L: EventLoop<Task<'a>> + ?Sized>(&self, sched: &L, limit: LimitKind, max: u64, queue: Phase, span: Span) -> Stop {
        let waiting = sched.waiting();
        // Whether an endless statement kept the run going: one with a
        // callback waiting in its queue, or running (an `interval` cleared
        // has neither).
        // (A promise expression's reaction is no `self.last`: a link of
        // `chain`, `promise` or `await` stopped in the microtask queue it
        // runs in counts as running: fresh-clone helper 82.)
        let running = self.last.map(|(cb, link)| site_span_of(cb, link));
        let live = |at: Span, q: Phase| waiting.in_phase(q) > 0 || running == Some(at) || (q == Phase::Microtask && queue == q);
        let endless = queue != Phase::Main && crate::bound::endless_feed(self.main, queue, live).is_some();
        let endless = self.endless_in(queue, endless);
        self.hit(sched, limit, max, queue, span, waiting, endless)
    }

    /// Whether a run stopped in `queue` was kept going by an endless
    /// statement: `live_chain` (one had a callback waiting or running)
    /// in the loop; in the main module, where the statement may not have
    /// run yet, any ([`crate::bound::first_unbounded`]).
    fn endless_in(&self, queue: Phase, live_chain: bool) -> bool {
        if queue == Phase::Main {
            crate::bound::first_unbounded(self.main).is_some()
        } else {
            live_chain
        }
    }

    /// The stop itself: `endless`, whether a chain without `times` kept
    /// the run going ([`LimitHit::bounded`] is its negation).
    #[allow(clippy::too_many_arguments)]
    fn hit<L: EventLoop<Task<'a>> + ?Sized>(
        &self,
        sched: &L,
        limit: LimitKind,
        max: u64,
        queue: Phase,
        span: Span,
        waiting: crate::sched::Waiting,
        endless: bool,
    ) -> Stop {
        Stop::Limit(LimitHit {
            limit,
            max,
            queue,
            line: self.line(span),
            span,
            waiting,
            turn: sched.turn(),
            // A clock past its limit is not exact: the run stopped once it got there.
            tick: if limit == LimitKind::Clock {
                sched.now().min(crate::sched::CLOCK_LIMIT)
            } else {
                sched.now()
            },
            bounded: !endless,
            raised_for: self.raised_for,
            site: LimitSite::LastCallback,
        })
    }

    /// One statement. `resuming`: the statement is the one an async frame
    /// suspended in (an `await`, or a `repeat`/`try` around it), with what
    /// it recorded ([`promises::Pos::sub`]).
    #[inline(never)]
    fn statement<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        stmt: &'a Stmt,
        frame: &Frame<'a>,
        resuming: Option<u64>,
    ) -> Result<Flow, Stop> {
        match &stmt.kind {
            StmtKind::Log(text) => self.log_text(sched, text, frame, stmt.span)?,
            StmtKind::Work(n) => {
                if self.verbose() {
                    let line = self.line(stmt.span);
                    self.push(sched, EventKind::Work { ticks: n.value, line });
                }
                sched.work(n.value);
                if sched.now() >= crate::sched::CLOCK_LIMIT {
                    let limit = crate::sched::CLOCK_LIMIT;
                    let stop = self.stop(sched, LimitKind::Clock, limit, self.frame_phase, stmt.span);
                    return Err(stop.at_site(LimitSite::Statement));
                }
            }
            StmtKind::Clear(text) => self.clear(sched, text, frame, stmt.span),
            // An empty body does nothing however often it runs: no iteration at all
            // (one per count would take hours for the largest counts, and no
            // statement would count against the statement limit).
            StmtKind::Repeat { body, .. } if body.is_empty() => {}
            StmtKind::Repeat { count, body } => {
                for i in resuming.unwrap_or(1)..=count.value {
                    match self.block(sched, body, &Frame { index: Some(i), ..*frame })? {
                        Flow::Next => {}
                        Flow::Suspend => {
                            self.rt.suspending_sub(i);
                            return Ok(Flow::Suspend);
                        }
                        flow => return Ok(flow),
                    }
                }
            }
            StmtKind::Again => self.again_statement(sched, frame)?,
            StmtKind::Callback(cb) => self.callback_statement(sched, cb, frame)?,
            _ => return self.promise_statement(sched, stmt, frame, resuming),
        }
        Ok(Flow::Next)
    }

    /// A callback statement: its callback scheduled, with the `{i}` and
    /// scope of `frame` (and its label, rendered now, interned).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn callback_statement<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        cb: &'a Callback,
        frame: &Frame<'a>,
    ) -> Result<(), Stop> {
        let inst = Instance {
            cb,
            link: 0,
            index: frame.index.and_then(|i| u32::try_from(i).ok()).and_then(std::num::NonZeroU32::new),
            run: 1,
            alone: false,
            label: Label::NONE,
            note: 0,
            env: frame.env,
            executor: frame.executor,
        };
        let inst = if cb.label().is_some() {
            Instance {
                label: Label::from(self.intern_label(&inst, frame.index)),
                ..inst
            }
        } else {
            inst
        };
        self.schedule(sched, inst)
    }

    /// `again` in `frame`: its callback once more ([`Interp::again`]); nothing
    /// outside a callback.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn again_statement<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, frame: &Frame<'a>) -> Result<(), Stop> {
        match frame.this {
            Some(Again::Callback(this)) => self.again(sched, this),
            Some(Again::Link { link, captured }) => self.again_link(sched, link, captured),
            None => Ok(()),
        }
    }

    #[inline(never)]
    fn clear<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, text: &Text, frame: &Frame, span: Span) {
        let label = render(text, frame);
        let mut count = 0;
        if let Some(id) = self.labels.get_index_of(&label) {
            if let Some(set) = self.live.handles.get_mut(&(id as u32)) {
                for handle in set.drain(..) {
                    count += usize::from(sched.clear(handle));
                }
            }
        }
        if self.verbose() {
            let line = self.line(span);
            self.push(sched, EventKind::Clear { label, count, line });
        }
    }

    /// `again`: the running callback once more, the same way; bounded by `times`.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn again<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, this: Instance<'a>) -> Result<(), Stop> {
        let (_, times, _) = self.parts(&this);
        if times.is_some_and(|t| u64::from(this.run) >= t.value) {
            return Ok(());
        }
        let next = Instance {
            run: this.run.saturating_add(1),
            alone: this.alone || this.link > 0,
            ..this
        };
        self.schedule(sched, next)
    }

    /// Hands a callback to the loop (after the bound on waiting callbacks),
    /// with its `--explain` note, `clear` handle and verbose event.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn schedule<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, inst: Instance<'a>) -> Result<(), Stop> {
        if !self.quiet {
            return self.schedule_in_full(sched, inst);
        }
        self.check_waiting(sched, &inst)?;
        // A nextTick, microtask or immediate without `--explain`, `--verbose` or
        // `clear` in the file needs nothing more: inline, what a callback body
        // scheduling a million of them does.
        match hand_to_loop::<_, true>(sched, inst, self.profile) {
            Ok(_) => Ok(()),
            Err(inst) => self.schedule_checked(sched, inst),
        }
    }

    /// [`Interp::schedule`] with everything a scheduling can involve.
    #[inline(never)]
    fn schedule_in_full<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, inst: Instance<'a>) -> Result<(), Stop> {
        self.check_waiting(sched, &inst)?;
        self.schedule_checked(sched, inst)
    }

    /// [`Interp::schedule_in_full`] past the bound on waiting callbacks.
    #[inline(never)]
    fn schedule_checked<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, inst: Instance<'a>) -> Result<(), Stop> {
        let mut inst = inst;
        if self.opts.explain {
            inst.note = self.note_origin(sched, &inst);
        }
        let handle = if inst.cb.kind == Kind::Then && !inst.alone && !promises::unobservable_chain(inst.cb) {
            // Rule 8a: `Promise.resolve().then(…)…`, each link a reaction.
            self.then_chain(sched, inst)?;
            None
        } else {
            // Every kind is handed over (`PLAIN` false): never `Err`.
            hand_to_loop::<_, false>(sched, inst, self.profile).unwrap_or(None)
        };
        if let (Some(handle), Some(label), true) = (handle, inst.label.get(), self.live.enabled) {
            self.live.handles.entry(label).or_default().insert(handle);
        }
        if self.verbose() {
            self.push_schedule(sched, &inst);
        }
        Ok(())
    }

    /// `--explain`: notes where and when `inst` is being scheduled; returns its note
    /// ([`Instance`]'s `note`).
    #[cold]
    #[inline(never)]
    fn note_origin<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, inst: &Instance<'a>) -> u32 {
        let from = Origin {
            turn: sched.turn(),
            tick: sched.now(),
            phase: Some(self.frame_phase),
            loop_phase: Some(self.loop_phase),
            line: self.line(self.site_span(inst)),
        };
        self.notes.origins.push(from);
        self.notes.origins.len() as u32
    }

    /// `--verbose`: the event of `inst` being scheduled.
    #[cold]
    #[inline(never)]
    fn push_schedule<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, inst: &Instance<'a>) {
        let (kind, label, line) = self.named(inst);
        let label = label.cloned();
        let detail = schedule_detail(sched, inst.cb);
        self.push(sched, EventKind::Schedule { kind, label, detail, line });
    }

    /// Stops the run when too many callbacks wait at once ([`MAX_WAITING`]);
    /// checked every 1,024 schedulings, so the bound may be passed by that many.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn check_waiting<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, inst: &Instance<'a>) -> Result<(), Stop> {
        self.budget.scheduled = self.budget.scheduled.wrapping_add(1);
        if self.label_bytes <= MAX_LABEL_BYTES && !self.budget.scheduled.is_multiple_of(1024) {
            return Ok(());
        }
        self.check_bounds(sched, inst)
    }

    /// [`Interp::check_waiting`]'s checks, every 1,024 schedulings (and past
    /// [`MAX_LABEL_BYTES`]).
    #[cold]
    #[inline(never)]
    fn check_bounds<L: EventLoop<Task<'a>> + ?Sized>(&self, sched: &L, inst: &Instance<'a>) -> Result<(), Stop> {
        if self.label_bytes > MAX_LABEL_BYTES {
            let phase = inst.cb.kind.phase();
            return Err(self.stop(sched, LimitKind::LabelBytes, MAX_LABEL_BYTES as u64, phase, inst.cb.span));
        }
        let w = sched.waiting();
        if w.timers + w.io + w.pending + w.immediates + w.close + w.next_ticks + w.microtasks >= MAX_WAITING {
            let phase = inst.cb.kind.phase();
            return Err(self.stop(sched, LimitKind::Waiting, MAX_WAITING as u64, phase, inst.cb.span));
        }
        Ok(())
    }

    /// The explanation of `inst`'s run: the scheduler's decision, worded
    /// after where it was scheduled.
    fn explain(&self, inst: &Instance<'a>, ctx: &Ctx<'_>) -> String {
        let from = inst
            .note
            .checked_sub(1)
            .map_or(Origin::default(), |i| self.notes.origins[i as usize]);
        let why = Why {
            kind: inst.cb.kind,
            link: inst.link as usize,
            link_line: self.line(site_span_of(inst.cb, inst.link)),
            again_run: inst.alone.then_some(inst.run),
            label: inst.label.get().map(|l| self.labels[l as usize].clone()),
            from,
            turn: ctx.turn,
            decision: *ctx.decision,
        };
        explain::explain(&why)
    }
}

/// The frame `inst`'s body runs in, at run `run` (`{n}`) and count `count` (`{k}`).
#[inline]
fn frame_of(inst: Instance<'_>, run: u64, count: u64) -> Frame<'_> {
    Frame {
        index: inst.index.map(|i| u64::from(i.get())),
        run,
        count,
        this: Some(Again::Callback(Instance {
            run: u32::try_from(run).unwrap_or(u32::MAX),
            ..inst
        })),
        env: inst.env,
        executor: inst.executor,
    }
}

/// Where the callback (`link` 0, or the main module's `u32::MAX`) or its
/// `link`-th `.then` link is written.
fn site_span_of(cb: &Callback, link: u32) -> Span {
    if link == 0 || link == u32::MAX {
        cb.span
    } else {
        cb.links()[link as usize - 1].span
    }
}

/// Hands `inst` to the loop by its kind; returns its handle for `clear`, if it has one.
/// `PLAIN`: only a nextTick, microtask or immediate; any other kind is handed back
/// (`Err`), not over (the check of [`Interp::schedule`], and this match, in one).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
fn hand_to_loop<'a, L: EventLoop<Task<'a>> + ?Sized, const PLAIN: bool>(
    sched: &mut L,
    inst: Instance<'a>,
    profile: crate::sched::NodeProfile,
) -> Result<Option<Handle>, Instance<'a>> {
    let cb = inst.cb;
    let task = Task::Cb(inst);
    match cb.kind {
        Kind::Immediate => return Ok(Some(sched.set_immediate(task))),
        Kind::NextTick => sched.next_tick(task),
        Kind::Microtask => sched.queue_microtask(task),
        _ if PLAIN => return Err(inst),
        Kind::Timeout => return Ok(Some(sched.set_timeout(value(cb.delay()), task))),
        Kind::Interval => return Ok(Some(sched.set_interval(value(cb.delay()), task))),
        Kind::Then => sched.queue_microtask(task),
        Kind::Io => sched.io(value(cb.after()), task),
        Kind::Submit => sched.submit(value(cb.ticks()), task),
        Kind::Close => sched.close(task),
        Kind::Pending => sched.defer_pending(task),
        // `fs.readFile`/`fs.writeFile`: pool round trips one after the other, the callback
        // after the last (rule 4; how many: the profile's).
        Kind::ReadFile => sched.submit(
            0,
            Task::Fs(Box::new(FsTask {
                then: FsThen::Callback(inst),
                left: profile.read_file_round_trips(),
            })),
        ),
        Kind::WriteFile => sched.submit(
            0,
            Task::Fs(Box::new(FsTask {
                then: FsThen::Callback(inst),
                left: profile.write_file_round_trips(),
            })),
        ),
    }
    Ok(None)
}

/// The verbose trace's "+ …" detail of a callback scheduled now.
fn schedule_detail<'a, L: EventLoop<Task<'a>> + ?Sized>(sched: &L, cb: &Callback) -> String {
    let now = sched.now();
    match cb.kind {
        Kind::Timeout | Kind::Interval => {
            let d = crate::sched::coerce_delay(value(cb.delay()));
            format!("due at {}", now.saturating_add(d))
        }
        Kind::Immediate => "queued for the check phase".into(),
        Kind::NextTick => "queued on the nextTick queue".into(),
        Kind::Microtask | Kind::Then => "queued on the microtask queue".into(),
        Kind::Io => format!("arrives at {}", now.saturating_add(value(cb.after()))),
        Kind::Submit => match value(cb.ticks()) {
            1 => "1 tick of pool work".into(),
            n => format!("{n} ticks of pool work"),
        },
        Kind::Close => "queued for the close phase".into(),
        Kind::Pending => "deferred to the pending phase".into(),
        Kind::ReadFile | Kind::WriteFile => "thread-pool round trips, the callback after the last".into(),
    }
}

/// The callback sites whose completions the orders search may treat as
/// interchangeable (symmetry reduction, docs/orders.md "How loopsim
/// searches"): `submit`, `io`, `readFile` and `writeFile` statements of the
/// main module, outside or in one `repeat` (so each `{i}` schedules one
/// callback, once), with no `times`, whose bodies hold no `repeat` (every
/// `{i}` inside is theirs) and no `again`. Then `{i}` only fills in texts, and two such
/// callbacks of one tick differ only in the lines they log. None in a file
/// with `clear` (which compares labels, `{i}` filled in) or promise
/// statements.
pub(crate) fn interchangeable_sites(file: &File) -> Vec<bool> {
    let mut sites = vec![false; file.sites];
    if has_clear(&file.body) || crate::check::promises::first_use(file).is_some() {
        return sites;
    }
    // `repeats`: how many `repeat`s enclose the statement (more than one: `{i}` repeats).
    fn walk(stmts: &[Stmt], repeats: usize, sites: &mut [bool]) {
        for s in stmts {
            match &s.kind {
                StmtKind::Repeat { body, .. } => walk(body, repeats + 1, sites),
                StmtKind::Callback(cb) => {
                    let completion = matches!(cb.kind, Kind::Submit | Kind::Io | Kind::ReadFile | Kind::WriteFile);
                    let body = cb.body().unwrap_or(&[]);
                    if repeats <= 1 && completion && cb.times().is_none() && cb.links().is_empty() && !repeats_or_again(body) {
                        if let Some(slot) = sites.get_mut(cb.site()) {
                            *slot = true;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    fn repeats_or_again(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|s| match &s.kind {
            StmtKind::Repeat { .. } | StmtKind::Again => true,
            StmtKind::Callback(cb) => {
                cb.times().is_some()
                    || cb.body().is_some_and(repeats_or_again)
                    || cb.links().iter().any(|l| l.body.as_deref().is_some_and(repeats_or_again))
            }
            _ => false,
        })
    }
    walk(&file.body, 0, &mut sites);
    // A group needs two completions: one statement outside a `repeat` alone
    // never makes one (and then the search records no line provenance).
    let in_repeat = {
        fn any_in_repeat(stmts: &[Stmt], sites: &[bool], repeats: usize) -> bool {
            stmts.iter().any(|s| match &s.kind {
                StmtKind::Repeat { body, .. } => any_in_repeat(body, sites, repeats + 1),
                StmtKind::Callback(cb) => repeats > 0 && sites.get(cb.site()).copied().unwrap_or(false),
                _ => false,
            })
        }
        any_in_repeat(&file.body, &sites, 0)
    };
    if !in_repeat && sites.iter().filter(|&&s| s).count() < 2 {
        sites.iter_mut().for_each(|s| *s = false);
    }
    sites
}

/// Whether any block of `stmts`, however deep (async function, executor,
/// `try` and handler bodies included), has a `clear`.
pub(crate) fn has_clear(stmts: &[Stmt]) -> bool {
    any_statement(stmts, &|kind| matches!(kind, StmtKind::Clear(_)))
}

/// Whether a run of `file` may set a timer: a `timeout` or `interval`
/// callback in any block, or any promise statement (a promise's `timeout N`
/// is `timers/promises`' `setTimeout`; the expressions are not looked into).
/// A file that cannot gains nothing from lazily read timer starts.
pub(crate) fn may_set_timer(file: &File) -> bool {
    let timer = |kind: &StmtKind| matches!(kind, StmtKind::Callback(cb) if matches!(cb.kind, Kind::Timeout | Kind::Interval));
    any_statement(&file.body, &timer) || crate::check::promises::first_use_in_code(file).is_some()
}

/// Whether `f` holds for the kind of any statement of `stmts`, in any block
/// however deep ([`each_block`](crate::syntax::ast::each_block)).
fn any_statement(stmts: &[Stmt], f: &dyn Fn(&StmtKind) -> bool) -> bool {
    stmts.iter().any(|s| {
        let mut found = f(&s.kind);
        crate::syntax::ast::each_block(&s.kind, &mut |body| found = found || any_statement(body, f));
        found
    })
}

fn value(n: Option<Spanned<u64>>) -> u64 {
    n.map_or(0, |n| n.value)
}

fn line_starts(src: &str) -> Vec<u32> {
    std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect()
}

/// A text with its placeholders filled in.
fn render(text: &Text, frame: &Frame) -> String {
    let mut out = with_room(text);
    for part in &text.parts {
        match part {
            TextPart::Lit(s) => out.push_str(s),
            TextPart::Index => push_number(&mut out, frame.index.unwrap_or(0)),
            TextPart::Run => push_number(&mut out, frame.run),
            TextPart::Count => push_number(&mut out, frame.count),
        }
    }
    out
}

/// A label for `clear`: `{i}` filled in, `{n}` and `{k}` kept as written.
fn label_text(text: &Text, index: Option<u64>) -> String {
    let mut out = with_room(text);
    for part in &text.parts {
        match part {
            TextPart::Lit(s) => out.push_str(s),
            TextPart::Index => push_number(&mut out, index.unwrap_or(0)),
            TextPart::Run => out.push_str("{n}"),
            TextPart::Count => out.push_str("{k}"),
        }
    }
    out
}

/// An empty string with room for `text` filled in (20 bytes a number), so
/// that filling it in does not grow it step by step.
fn with_room(text: &Text) -> String {
    let room = text
        .parts
        .iter()
        .map(|p| match p {
            TextPart::Lit(s) => s.len(),
            TextPart::Index | TextPart::Run | TextPart::Count => 20,
        })
        .sum();
    String::with_capacity(room)
}

/// Appends `n` in decimal, without a string of its own.
fn push_number(out: &mut String, n: u64) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}

#[cfg(test)]
mod tests {
    use super::{run, RunOptions, SiteCounts};
    use crate::sched::{LimitKind, Limits, Phase};
    use crate::trace::Ending;

    /// A run of `src` with at most `max_callbacks` callbacks: its log lines and how it ended.
    fn run_src(src: &str, max_callbacks: u64) -> (Vec<String>, Ending) {
        let loaded = crate::load::load_bytes("t.loop", src.as_bytes()).expect("loads");
        let opts = RunOptions {
            limits: Limits {
                max_callbacks,
                ..Limits::default()
            },
            ..RunOptions::default()
        };
        let trace = run(&loaded.file, &loaded.src, "", opts);
        (trace.logs().map(|(_, text)| text.to_string()).collect(), trace.ending)
    }

    /// Callbacks with nothing to run (no label, body or `times`) take the
    /// short way through `call`: they still run in their queue's order and
    /// count against the callback limit, and a limit hit right after one
    /// names its line.
    #[test]
    fn callbacks_that_run_nothing_still_count_and_are_named_by_limits() {
        let src = "nextTick times 3 { microtask again }\nmicrotask { log \"m {k}\" }\nnextTick \"a\"\nmicrotask\ntimeout 0 \"t\"\n";
        let (logs, ending) = run_src(src, 100);
        assert_eq!(logs, ["a", "m 1", "t"]);
        assert!(matches!(ending, Ending::Finished { callbacks: 10, .. }), "{ending:?}");
        // nextTick x3, "a", then the microtasks: "m", the empty one of line 4, the
        // three empty ones the nextTicks queued: the 8th is the last before the limit.
        let (logs, ending) = run_src(src, 8);
        assert_eq!(logs, ["a", "m 1"]);
        let Ending::Limit(hit) = ending else { panic!("{ending:?}") };
        assert_eq!(
            (hit.limit, hit.max, hit.line, hit.queue),
            (LimitKind::Callbacks, 8, 1, Phase::Microtask)
        );
        let (_, ending) = run_src(src, 6);
        let Ending::Limit(hit) = ending else { panic!("{ending:?}") };
        assert_eq!((hit.line, hit.queue), (4, Phase::Microtask));
    }

    /// A callback body scheduling every kind: without `--explain`,
    /// `--verbose` or `clear` (the quiet way: nextTicks, microtasks and
    /// immediates handed over inline, the rest by `schedule_checked`) the
    /// lines come in the order a `--verbose` run (every scheduling in full)
    /// gives, and Node's: the nextTick, the chain's first link (queued by its
    /// statement) before the microtask, its second link after, then the
    /// immediate, then the next turn's timeout; `again` and `{n}` as ever.
    #[test]
    fn quiet_and_verbose_runs_schedule_alike() {
        let src = "timeout 0 {\n  immediate \"i\"\n  then \"p1\" .then \"p2\"\n  nextTick \"t\"\n  microtask \"m\"\n  timeout 0 \"t0\"\n}\nnextTick times 2 { log \"n{n}\" again }\n";
        let loaded = crate::load::load_bytes("t.loop", src.as_bytes()).expect("loads");
        let lines = |verbose: bool| {
            let opts = RunOptions {
                verbose,
                ..RunOptions::default()
            };
            let trace = run(&loaded.file, &loaded.src, "", opts);
            assert!(matches!(trace.ending, Ending::Finished { .. }), "{:?}", trace.ending);
            trace.logs().map(|(_, text)| text.to_string()).collect::<Vec<_>>()
        };
        let quiet = lines(false);
        assert_eq!(quiet, ["n1", "n2", "t", "p1", "m", "p2", "i", "t0"]);
        assert_eq!(lines(true), quiet);
    }

    /// 4 bytes a site while every count fits in a `u32`; past that, the
    /// counters widen and the count goes on exactly (no wrap, no saturation).
    #[test]
    fn site_counts_widen_past_u32() {
        let mut counts = SiteCounts::new(3);
        assert_eq!(counts.bump(1), 1);
        assert_eq!(counts.bump(1), 2);
        assert_eq!(counts, SiteCounts::Narrow(vec![0, 2, 0]));
        let mut full = SiteCounts::Narrow(vec![u32::MAX, 5]);
        assert_eq!(full.bump(0), u64::from(u32::MAX) + 1);
        assert_eq!(full, SiteCounts::Wide(vec![u64::from(u32::MAX) + 1, 5]));
        assert_eq!(full.bump(1), 6);
    }
}
