//! The promise statements at run time: async functions that suspend at `await` and resume,
//! executors, `.then`/`.catch`/`.finally` links, combinators, awaitable timers, and Node's
//! unhandled-rejection processing with its listeners (docs/scheduling.md rule 8).
//!
//! The V8 side is [`crate::promise`]: every operation there appends the jobs it queues; this
//! module moves each onto the scheduler's microtask queue as a [`Task::Job`], in V8's order, and
//! when the scheduler runs one it asks the engine what to do ([`JobOutcome`]): nothing more, call
//! a handler (a link's body), or resume an async frame.
//!
//! **Suspension.** A body runs by recursion (`Interp::block` → `statement` → …). An `await`
//! returns [`Flow::Suspend`]; on the way out each enclosing block records where it was
//! ([`Pos`]: the statement's index, its environment, and a `repeat`'s index or which half of a
//! `try` ran), innermost first, and the async body's root keeps the path as a continuation.
//! Resuming, each block of the path starts at its recorded statement in its recorded
//! environment, and the `await` itself returns the awaited outcome (or throws the reason).
//!
//! **Scopes.** Names were resolved by the checks to a [`Slot`]: each run of a block that
//! declares something makes an environment; a use reads `depth` environments up. Callbacks,
//! links and listeners capture the environment (and the executor around them) when they are
//! scheduled, as JavaScript closures do.
//!
//! Memory: promises, reactions and environments are bounded ([`crate::promise::DEFAULT_LIMIT`]);
//! nested calls (an async function calling itself) by [`MAX_CALL_DEPTH`].

use super::{render, Again, Frame, Instance, Interp, Label, Stop};
use crate::explain;
use crate::promise::{
    CombinatorKind, HopRule, Job, JobFacts, JobKind, JobOutcome, Listeners, Outcome, PromiseId, Promises, RejectionEvent, RejectionRound,
    RejectionStep, RejectionsMode, Returned, Site, Value,
};
use crate::sched::{Ctx, EventLoop, LimitKind, Phase};
use crate::syntax::ast::*;
use crate::trace::{Ending, EventKind};
use rustc_hash::FxHashMap;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Most async functions, executors and handlers running inside each other (a recursion
/// `async f { call f }` stops here; Node's stack holds more frames, but a chain this deep
/// is almost always a recursion without end, which Node ends with a `RangeError`).
pub const MAX_CALL_DEPTH: u32 = 200;

/// Most suspensions and resumptions a trace shows without `--verbose` (an `await` loop would
/// otherwise fill it); `trace::EventKind::SuspensionsCut`'s text names it.
pub const MAX_SHOWN_SUSPENSIONS: u32 = 10_000;

/// An environment of the arena (`NONE`: the file's top level before it declares anything).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Env(u32);

impl Env {
    pub(crate) const NONE: Env = Env(u32::MAX);
}

/// The executor promise a bare `resolve`/`reject` settles (`NONE`: not inside an executor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Exec(u32);

impl Exec {
    pub(crate) const NONE: Exec = Exec(u32::MAX);

    fn of(p: PromiseId) -> Exec {
        Exec(p.0)
    }

    fn get(self) -> Option<PromiseId> {
        (self != Exec::NONE).then_some(PromiseId(self.0))
    }
}

/// How a block (or statement) ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// It ran to its end: go on with the next statement.
    Next,
    /// `return EXPR`.
    Return(Value),
    /// `throw`, or an `await` whose promise rejected: the reason.
    Throw(Site),
    /// An `await` suspended the async frame.
    Suspend,
}

/// What the scheduler queues: a callback statement or link, a V8 promise job, or the callback of
/// a `timers/promises` timer. 40 bytes (a size test holds it): each pending timer holds one.
#[derive(Debug, Clone)]
pub(crate) enum Task<'a> {
    /// A callback (`timeout`, `immediate`, …), the main module, or a link run alone by `again`.
    Cb(Instance<'a>),
    /// A promise job, by its slot in the job table; `site`: the statement that queued it (what
    /// the orders search hashes, so that equal states look equal).
    Job { id: u32, site: u32 },
    /// `timers/promises` `setTimeout`/`setImmediate`: the callback fulfils `promise` (rule 8j).
    Settle { promise: PromiseId, site: Site },
    /// A thread-pool round trip of `readFile`/`writeFile`: `left` of them, this one included;
    /// after the last, the callback runs (the statement) or the promise fulfils (the operand).
    /// Boxed: the rare round trip is what would make every task 48 bytes.
    Fs(Box<FsTask<'a>>),
    /// A link of a promise expression run once more by its `again`, when no code can see the
    /// promise that run would make ([`plain_body`]): a microtask, the hop of a reaction on a
    /// fulfilled promise (rule 8a), without the promise arena, so an `again` chain holds no
    /// memory per run. Boxed, as [`Task::Fs`].
    Link(Box<LinkRun<'a>>),
}

/// A link's run by `again` ([`Task::Link`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkRun<'a> {
    link: &'a Link,
    /// What it captured where it was written, with its next run's `{n}`.
    captured: Captured,
}

/// A `readFile`/`writeFile` round trip ([`Task::Fs`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FsTask<'a> {
    /// What runs after the last round trip.
    pub(crate) then: FsThen<'a>,
    /// Round trips left, this one included.
    pub(crate) left: u64,
}

/// What follows the last round trip of `readFile`/`writeFile`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FsThen<'a> {
    /// The statement's callback.
    Callback(Instance<'a>),
    /// The `fs.promises` call's (`op`'s) promise fulfils.
    Settle {
        promise: PromiseId,
        site: Site,
        op: crate::syntax::ast::FileOp,
    },
}

impl crate::orders::node20::Interchangeable for Task<'_> {
    /// A callback's completion (or a `readFile`/`writeFile` round trip) with a `{i}`.
    fn class(&self) -> Option<(crate::orders::node20::Class, u32)> {
        let (inst, left) = match self {
            Task::Cb(inst) => (inst, 0),
            Task::Fs(fs) => match &**fs {
                FsTask {
                    then: FsThen::Callback(inst),
                    left,
                } => (inst, *left),
                _ => return None,
            },
            _ => return None,
        };
        if inst.link != 0 || inst.alone {
            return None;
        }
        let index = inst.index?.get();
        // The round trips left (at most 4) and the run of an `again` chain, side by side.
        let key = (left << 32) | u64::from(inst.run);
        let span = (inst.cb.span.start() as u32, inst.cb.span.end() as u32);
        Some((
            crate::orders::node20::Class {
                site: inst.cb.site(),
                span,
                key,
            },
            index,
        ))
    }

    /// A completion whose callback logs its label, or whose body is only `log`s
    /// and nextTick, `microtask` and `then` callbacks that do the same (the
    /// drain after the callback runs them all, right after it), texts without
    /// `{n}` or `{k}`, logging at least one line in all.
    fn pure(&self) -> Option<crate::orders::node20::Member> {
        let inst = self.completion_callback()?;
        let cb = inst.cb;
        if inst.link != 0 || inst.alone {
            return None;
        }
        // At least one line: the search tells where it ran by its lines.
        (logs_only(cb)?.0 > 0).then(|| crate::orders::node20::Member {
            site: cb.site(),
            span: (cb.span.start() as u32, cb.span.end() as u32),
            index: inst.index.map(|i| i.get()),
        })
    }

    /// Its callback and the nextTick, microtask and `then` callbacks its
    /// body queues, however deep (each runs once: none has `times`), if
    /// it is pure.
    fn callbacks(&self) -> usize {
        self.completion_callback()
            .and_then(|inst| logs_only(inst.cb))
            .map_or(1, |(_, callbacks)| callbacks)
    }

    /// A completion whose callback, and every nextTick, microtask or `then`
    /// callback it queues (however deep), only logs and queues such
    /// callbacks: no `times`, `again`, `.then` links, `async`, `work`,
    /// `clear`, `repeat` or other statement. What it queues has all run
    /// when the drain after it ends (docs/scheduling.md rule 6).
    fn drains_only(&self) -> bool {
        fn settles(cb: &Callback) -> bool {
            !cb.is_async
                && cb.links().is_empty()
                && cb.times().is_none()
                && cb.body().is_none_or(|body| {
                    body.iter().all(|s| match &s.kind {
                        StmtKind::Log(_) => true,
                        StmtKind::Callback(inner) => matches!(inner.kind, Kind::NextTick | Kind::Microtask | Kind::Then) && settles(inner),
                        _ => false,
                    })
                })
        }
        self.completion_callback()
            .is_some_and(|inst| inst.link == 0 && !inst.alone && settles(inst.cb))
    }

    /// A callback (any link of it) whose statements, however deep, only log,
    /// work, clear, repeat, go `again`, and queue immediate, nextTick,
    /// microtask, `then`, pending or close callbacks that do the same.
    fn untimed(&self) -> bool {
        fn block(body: &[Stmt]) -> bool {
            body.iter().all(|s| match &s.kind {
                StmtKind::Log(_) | StmtKind::Work(_) | StmtKind::Clear(_) | StmtKind::Again => true,
                StmtKind::Repeat { body, .. } => block(body),
                StmtKind::Callback(inner) => callback(inner),
                _ => false,
            })
        }
        fn callback(cb: &Callback) -> bool {
            matches!(
                cb.kind,
                Kind::Immediate | Kind::NextTick | Kind::Microtask | Kind::Then | Kind::Pending | Kind::Close
            ) && !cb.is_async
                && cb.links().iter().all(|l| !l.is_async)
                && cb.bodies().all(block)
        }
        matches!(self, Task::Cb(inst) if callback(inst.cb))
    }

    /// Its texts once its `{i}` is filled in, if it is pure.
    fn lines(&self) -> Option<Vec<String>> {
        self.pure()?;
        let a = self.completion_callback()?;
        // (Lines its drain logs are not listed: such a completion has no twin.)
        if self.callbacks() > 1 {
            return None;
        }
        let texts = |inst: &Instance<'_>| -> Vec<String> {
            let index = inst.index.map_or(0, |i| i.get());
            let render = |t: &Text| {
                t.parts
                    .iter()
                    .map(|p| match p {
                        TextPart::Lit(s) => s.to_string(),
                        _ => index.to_string(),
                    })
                    .collect::<String>()
            };
            match (inst.cb.body(), inst.cb.label()) {
                (Some(body), _) => body
                    .iter()
                    .filter_map(|s| match &s.kind {
                        StmtKind::Log(t) => Some(render(t)),
                        _ => None,
                    })
                    .collect(),
                (None, Some(label)) => vec![render(label)],
                (None, None) => Vec::new(),
            }
        };
        Some(texts(a))
    }
}

impl Task<'_> {
    /// The callback a completion runs, if it runs one now (not a further round trip).
    fn completion_callback(&self) -> Option<&Instance<'_>> {
        match self {
            Task::Cb(inst) => Some(inst),
            Task::Fs(fs) => match &**fs {
                FsTask {
                    then: FsThen::Callback(inst),
                    left: 1,
                } => Some(inst),
                _ => None,
            },
            _ => None,
        }
    }
}

/// How many lines `cb` logs and how many callbacks it runs, with the
/// callbacks it queues, if it (not `async`, without links or `times`) logs
/// its label or its body's `log`s, texts the same for every run with one
/// `{i}`, and queues only nextTick, `microtask` and `then` callbacks that do
/// the same: what it logs, with the drain after it, is fixed
/// ([`Interchangeable::pure`](crate::orders::node20::Interchangeable::pure)).
/// `None` if it may do more.
fn logs_only(cb: &Callback) -> Option<(usize, usize)> {
    if cb.is_async || !cb.links().is_empty() || cb.times().is_some() {
        return None;
    }
    match cb.body() {
        Some(body) => body.iter().try_fold((0, 1), |(lines, callbacks), s| match &s.kind {
            StmtKind::Log(t) if fixed_text(t) => Some((lines + 1, callbacks)),
            StmtKind::Callback(inner) if matches!(inner.kind, Kind::NextTick | Kind::Microtask | Kind::Then) => {
                let (l, c) = logs_only(inner)?;
                Some((lines + l, callbacks + c))
            }
            _ => None,
        }),
        None => match cb.label() {
            Some(label) => fixed_text(label).then_some((1, 1)),
            None => Some((0, 1)),
        },
    }
}

/// Whether `text` is the same whenever it is rendered for one `{i}` (no `{n}`, no `{k}`).
fn fixed_text(text: &Text) -> bool {
    text.parts.iter().all(|p| matches!(p, TextPart::Lit(_) | TextPart::Index))
}

impl Hash for Task<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        match self {
            Task::Cb(inst) => (0u8, inst).hash(h),
            Task::Job { site, .. } => (1u8, site).hash(h),
            Task::Settle { site, .. } => (2u8, site.0).hash(h),
            Task::Fs(fs) => match &**fs {
                FsTask {
                    then: FsThen::Callback(inst),
                    left,
                } => (3u8, inst, left).hash(h),
                FsTask {
                    then: FsThen::Settle { site, .. },
                    left,
                } => (4u8, site.0, left).hash(h),
            },
            Task::Link(run) => (5u8, run.link.site, run.captured.index, run.captured.run, run.captured.label.0).hash(h),
        }
    }
}

impl fmt::Display for Task<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Task::Cb(inst) => inst.fmt(f),
            Task::Job { .. } => f.write_str("a promise job"),
            Task::Settle { .. } => f.write_str("a timers/promises timer"),
            Task::Fs(fs) => match &fs.then {
                FsThen::Callback(inst) => inst.fmt(f),
                FsThen::Settle { op, .. } => write!(f, "an fs.promises {} call", op.name()),
            },
            Task::Link(run) => f.write_str(run.link.kind.dotted()),
        }
    }
}

/// What a promise reaction calls: an opaque handler to the engine.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Handler<'a> {
    /// A `then` statement's own body or one of its links.
    Cb(Instance<'a>),
    /// A link of a promise expression (`chain p .catch …`, `promise { … } .then …`).
    Link { link: &'a Link, captured: Captured },
    /// The continuation of a suspended async frame (its slot).
    Resume(u32),
}

/// What a link or listener captured where it was written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Captured {
    index: Option<u64>,
    env: Env,
    executor: Exec,
    label: Label,
    /// A link's `{n}`: 1, or the run an `again` in its body asked for.
    run: u32,
}

/// Where a block of a suspended frame stopped.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pos {
    /// The index of the statement it stopped in.
    pub pc: u32,
    /// The block's environment.
    pub env: Env,
    /// What that statement recorded: a `repeat`'s index, or 1 when a `try` stopped in its `catch`.
    pub sub: u64,
}

/// What a finished async body settles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    /// An async function's (or async callback's, or async handler's) promise.
    Async(PromiseId),
    /// The ES module's body (top-level `await`).
    Main,
}

/// Whose body suspends at an `await`: named in the trace's ⏸ and ▶ lines.
#[derive(Clone)]
pub(super) enum Who<'a> {
    /// The ES module's body (top-level `await`).
    Module,
    /// The async function of this name (`call worker`).
    Function(&'a str),
    /// An `async` callback or link with this label, its `{i}`, `{n}` and
    /// `{k}` filled in.
    Labelled(String),
    /// An `async` callback or link without a label, of this kind
    /// (`timeout`, `.then`).
    Kind(&'static str),
}

impl Who<'_> {
    /// An `async` callback's or link's: its label filled in for `frame`,
    /// else its kind.
    fn of(label: Option<&Text>, kind: &'static str, frame: &Frame) -> Self {
        label.map_or(Who::Kind(kind), |l| Who::Labelled(super::render(l, frame)))
    }

    /// As the trace's event holds it.
    fn awaiter(&self) -> crate::trace::Awaiter {
        use crate::trace::Awaiter;
        match self {
            Who::Module => Awaiter::Module,
            Who::Function(name) => Awaiter::Function(name.to_string()),
            Who::Labelled(label) => Awaiter::Label(label.clone()),
            Who::Kind(kind) => Awaiter::Callback(kind),
        }
    }
}

/// The callbacks that fulfil a promise (rule 8j) as `--verbose` names them:
/// a `timers/promises` timer and immediate, an `fs.promises` `readFile`'s
/// and `writeFile`'s last round trip.
const SETTLERS: [&str; 4] = [
    "timers/promises setTimeout",
    "timers/promises setImmediate",
    "fs.promises readFile",
    "fs.promises writeFile",
];

/// [`SETTLERS`]' name of an `fs.promises` call.
fn fs_settler(op: FileOp) -> &'static str {
    match op {
        FileOp::Read => SETTLERS[2],
        FileOp::Write => SETTLERS[3],
    }
}

/// A suspended async frame.
#[derive(Clone)]
struct Cont<'a> {
    body: &'a [Stmt],
    frame: Frame<'a>,
    /// Outermost block first.
    path: Vec<Pos>,
    root: Root,
    /// Whose body it is.
    who: Who<'a>,
    /// The `await` it waits at.
    at: Site,
}

/// A resumption under way: the path still to enter, and the outcome the `await` returns.
#[derive(Clone)]
struct Resuming {
    path: Vec<Pos>,
    level: usize,
    outcome: Outcome,
}

#[derive(Debug, Clone, Copy)]
enum Binding<'a> {
    /// A promise name not declared yet in this run of its block.
    Unset,
    /// A promise name's value: a promise, or the value or thenable of `promise p = value`
    /// (`= thenable`), kept as it is, as JavaScript's `const p = null` keeps it: a link or an
    /// `await` makes it a promise where it is written (docs/language.md, "Expressions").
    Value(Value),
    /// An async function: its body, and where it was defined.
    Async { body: &'a [Stmt], env: Env, executor: Exec },
}

#[derive(Clone)]
struct EnvNode {
    parent: Env,
    start: u32,
}

/// A `process.on(…)` listener.
#[derive(Clone, Copy)]
struct Registered<'a> {
    listener: &'a Listener,
    captured: Captured,
}

/// The run-time state of the promise statements, held by the interpreter.
#[derive(Clone)]
pub(crate) struct PromiseRt<'a> {
    /// The file uses the promise language: scopes are made (else every fast path).
    on: bool,
    engine: Promises<Handler<'a>>,
    /// The jobs the last engine operation queued, in order.
    out: Vec<Job<Handler<'a>>>,
    jobs: Vec<Option<Job<Handler<'a>>>>,
    free_jobs: Vec<u32>,
    envs: Vec<EnvNode>,
    bindings: Vec<Binding<'a>>,
    conts: Vec<Option<Cont<'a>>>,
    free_conts: Vec<u32>,
    /// Positions recorded while a suspension unwinds, innermost first.
    unwind: Vec<Pos>,
    unwind_sub: Option<u64>,
    /// The continuation the unwinding `await` made.
    suspended: Option<u32>,
    resume: Option<Resuming>,
    depth: u32,
    shown_suspensions: u32,
    listeners: Vec<Registered<'a>>,
    mode: RejectionsMode,
    /// The ES module's continuation while its top-level `await` waits.
    main_waiting: Option<(u32, Site)>,
    /// With `--explain`: promises settled in a way worth telling (adoption, a timer).
    settled_by: Option<FxHashMap<PromiseId, explain::SettledBy>>,
}

impl<'a> PromiseRt<'a> {
    pub(crate) fn new(file: &File, explain: bool) -> Self {
        let mut engine = Promises::new();
        engine.record_facts(explain);
        PromiseRt {
            on: crate::check::promises::first_use_in_code(file).is_some(),
            engine,
            out: Vec::new(),
            jobs: Vec::new(),
            free_jobs: Vec::new(),
            envs: Vec::new(),
            bindings: Vec::new(),
            conts: Vec::new(),
            free_conts: Vec::new(),
            unwind: Vec::new(),
            unwind_sub: None,
            suspended: None,
            resume: None,
            depth: 0,
            shown_suspensions: 0,
            listeners: Vec::new(),
            mode: match file.rejections.map(|r| r.value) {
                Some(Rejections::Warn) => RejectionsMode::Warn,
                _ => RejectionsMode::Throw,
            },
            main_waiting: None,
            settled_by: explain.then(FxHashMap::default),
        }
    }

    /// What the orders search tells states apart by, beyond the loop's queues.
    pub(crate) fn fingerprint(&self, mut h: &mut dyn Hasher) {
        if self.on {
            (self.engine.len(), self.conts.len() - self.free_conts.len(), self.listeners.len()).hash(&mut h);
        }
    }

    /// Whether a suspended async frame is being resumed (its blocks re-entered
    /// down the path it suspended at).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn resuming(&self) -> bool {
        self.resume.is_some()
    }

    /// The next block of a resumption's path, if one is under way.
    pub(super) fn resume_level(&mut self) -> Option<Pos> {
        let r = self.resume.as_mut()?;
        let pos = r.path.get(r.level).copied()?;
        r.level += 1;
        Some(pos)
    }

    /// A block records where it suspended (its statement `pc`, its environment).
    pub(super) fn suspended_at(&mut self, pc: usize, env: Env) {
        let sub = self.unwind_sub.take().unwrap_or(0);
        self.unwind.push(Pos { pc: pc as u32, env, sub });
    }

    /// The statement suspending records its own position (a `repeat`'s index, a `try`'s half).
    pub(super) fn suspending_sub(&mut self, sub: u64) {
        self.unwind_sub = Some(sub);
    }

    fn store_job(&mut self, job: Job<Handler<'a>>) -> u32 {
        match self.free_jobs.pop() {
            Some(id) => {
                self.jobs[id as usize] = Some(job);
                id
            }
            None => {
                self.jobs.push(Some(job));
                (self.jobs.len() - 1) as u32
            }
        }
    }

    fn new_cont(&mut self) -> u32 {
        match self.free_conts.pop() {
            Some(id) => id,
            None => {
                self.conts.push(None);
                (self.conts.len() - 1) as u32
            }
        }
    }

    fn listeners_now(&self) -> Listeners {
        let has = |e: Event| self.listeners.iter().any(|r| r.listener.event.value == e);
        Listeners {
            unhandled_rejection: has(Event::UnhandledRejection),
            rejection_handled: has(Event::RejectionHandled),
        }
    }

    fn binding(&self, env: Env, slot: Slot) -> Binding<'a> {
        let mut env = env;
        for _ in 0..slot.depth {
            match self.envs.get(env.0 as usize) {
                Some(node) => env = node.parent,
                None => return Binding::Unset,
            }
        }
        self.envs
            .get(env.0 as usize)
            .and_then(|node| self.bindings.get((node.start + slot.index) as usize))
            .copied()
            .unwrap_or(Binding::Unset)
    }

    /// With `--explain`: `p` was resolved with `with` (a promise or thenable: adoption, rule 8c).
    fn mark_adopted(&mut self, p: PromiseId, with: Value) {
        if let (Some(map), Value::Promise(_) | Value::Thenable) = (self.settled_by.as_mut(), with) {
            map.insert(p, explain::SettledBy::Adoption);
        }
    }
}

/// A `then` chain whose promises no code can see: only `.then` links, none `async`, and no
/// body that returns or throws. Such a chain runs without the promise arena (each link queued
/// as its previous link returns, the same hop as a reaction: rule 8a), so a `then … { again }`
/// loop holds no memory per round.
pub(crate) fn unobservable_chain(cb: &Callback) -> bool {
    !cb.is_async
        && plain_body(cb.body())
        && cb
            .links()
            .iter()
            .all(|l| l.kind == LinkKind::Then && !l.is_async && plain_body(l.body.as_deref()))
}

/// A handler body whose completion settles its promise plainly: no `return`, `throw` or
/// `try` in it (a `repeat` looked into), so that promise fulfils with `undefined`.
fn plain_body(body: Option<&[Stmt]>) -> bool {
    body.is_none_or(|b| {
        b.iter().all(|s| match &s.kind {
            StmtKind::Return(_) | StmtKind::Throw | StmtKind::Try { .. } => false,
            StmtKind::Repeat { body, .. } => plain_body(Some(body)),
            _ => true,
        })
    })
}

/// The site of a statement or operand: its first byte.
fn site_of(span: Span) -> Site {
    Site(span.start() as u32)
}

fn job_site<H>(job: &Job<H>) -> u32 {
    match &job.kind {
        JobKind::Reaction { reaction, .. } => reaction.site.0,
        JobKind::ResolveThenable { site, .. } => site.0,
    }
}

fn combinator_kind(c: Combinator) -> CombinatorKind {
    match c {
        Combinator::All => CombinatorKind::All,
        Combinator::AllSettled => CombinatorKind::AllSettled,
        Combinator::Any => CombinatorKind::Any,
        Combinator::Race => CombinatorKind::Race,
    }
}

type Engine<'a> = Promises<Handler<'a>>;
type Sink<'a> = Vec<Job<Handler<'a>>>;

impl<'a> Interp<'a> {
    /// The line an ES module's unsettled top-level `await` waits at, if it does (exit 13).
    pub(super) fn unsettled_line(&self) -> Option<usize> {
        self.rt.main_waiting.map(|(_, at)| self.site_line(at))
    }

    /// Whether an ES module's top-level `await` has not settled (exit 13 if the loop ends now).
    pub(crate) fn unsettled(&self) -> bool {
        self.rt.main_waiting.is_some()
    }

    /// What a queued task is, for [`super::QueueSnapshot`]: a callback as the
    /// verbose trace names it, or the promise work it stands for.
    pub(super) fn describe_task(&self, task: &Task<'a>) -> String {
        match task {
            Task::Cb(inst) => self.describe_instance(inst),
            Task::Job { site, .. } => format!("promise job (line {})", self.site_line(Site(*site))),
            Task::Settle { site, .. } => format!("timers/promises timer (line {})", self.site_line(*site)),
            Task::Fs(fs) => match &fs.then {
                FsThen::Callback(inst) => self.describe_instance(inst),
                FsThen::Settle { site, op, .. } => format!("fs.promises {} (line {})", op.name(), self.site_line(*site)),
            },
            Task::Link(run) => format!("{} (line {})", run.link.kind.dotted(), self.line(run.link.span)),
        }
    }

    fn site_line(&self, site: Site) -> usize {
        self.line(Span::new(site.0 as usize, site.0 as usize))
    }

    /// Runs an engine operation, then queues the jobs it queued on the microtask queue, in order.
    fn op<L: EventLoop<Task<'a>> + ?Sized, R>(
        &mut self,
        sched: &mut L,
        site: Site,
        f: impl FnOnce(&mut Engine<'a>, &mut Sink<'a>) -> Result<R, crate::promise::LimitError>,
    ) -> Result<R, Stop> {
        let result = f(&mut self.rt.engine, &mut self.rt.out);
        self.queue_jobs(sched);
        result.map_err(|e| self.promise_limit(sched, u64::from(e.limit), site))
    }

    /// Queues the jobs an engine operation queued ([`Interp::op`]) on the
    /// microtask queue, in order (once per event loop type, not per
    /// operation, in the WebAssembly build: 0.9 KB smaller gzipped).
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn queue_jobs<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L) {
        let queued = std::mem::take(&mut self.rt.out);
        for job in queued {
            let site = job_site(&job);
            let id = self.rt.store_job(job);
            sched.queue_microtask(Task::Job { id, site });
        }
    }

    fn promise_limit<L: EventLoop<Task<'a>> + ?Sized>(&self, sched: &L, max: u64, site: Site) -> Stop {
        let span = Span::new(site.0 as usize, site.0 as usize);
        self.stop(sched, LimitKind::Promises, max, self.frame_phase, span)
    }

    /// One more nested call (async function, executor, handler), bounded by [`MAX_CALL_DEPTH`].
    fn deeper<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, site: Site) -> Result<(), Stop> {
        if self.rt.depth >= MAX_CALL_DEPTH {
            let span = Span::new(site.0 as usize, site.0 as usize);
            return Err(self.stop(sched, LimitKind::CallDepth, u64::from(MAX_CALL_DEPTH), self.frame_phase, span));
        }
        self.rt.depth += 1;
        Ok(())
    }

    /// The environment a block runs in: a fresh one when it declares something (its async
    /// functions bound now: hoisted), else the one around it.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    pub(super) fn open_env<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &L,
        stmts: &'a [Stmt],
        frame: &Frame<'a>,
    ) -> Result<Env, Stop> {
        if !self.rt.on {
            return Ok(frame.env);
        }
        self.open_declaring_env(sched, stmts, frame)
    }

    /// [`Interp::open_env`] in a file with promise statements.
    #[inline(never)]
    fn open_declaring_env<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &L,
        stmts: &'a [Stmt],
        frame: &Frame<'a>,
    ) -> Result<Env, Stop> {
        if declarations(stmts).next().is_none() {
            return Ok(frame.env);
        }
        let limit = crate::promise::DEFAULT_LIMIT as usize;
        if self.rt.envs.len() >= limit || self.rt.bindings.len() >= limit {
            return Err(self.promise_limit(sched, limit as u64, site_of(stmts[0].span)));
        }
        let env = Env(self.rt.envs.len() as u32);
        self.rt.envs.push(EnvNode {
            parent: frame.env,
            start: self.rt.bindings.len() as u32,
        });
        for stmt in stmts {
            let binding = match &stmt.kind {
                StmtKind::AsyncDef { body, .. } => Binding::Async {
                    body,
                    env,
                    executor: frame.executor,
                },
                StmtKind::Promise(p) if p.name().is_some() => Binding::Unset,
                _ => continue,
            };
            self.rt.bindings.push(binding);
        }
        Ok(env)
    }

    /// Binds a declared promise name in the block's environment.
    fn bind(&mut self, env: Env, name: &Name, v: Value) {
        let (Some(slot), Some(node)) = (name.slot(), self.rt.envs.get(env.0 as usize)) else {
            return;
        };
        if let Some(b) = self.rt.bindings.get_mut((node.start + slot.index) as usize) {
            *b = Binding::Value(v);
        }
    }

    fn lookup(&self, env: Env, name: &Name) -> Binding<'a> {
        name.slot().map_or(Binding::Unset, |slot| self.rt.binding(env, slot))
    }

    fn capture(&mut self, label: Option<&Text>, frame: &Frame<'a>) -> Captured {
        let label = label.map(|t| self.labels.intern(t, frame.index).0);
        Captured {
            index: frame.index,
            env: frame.env,
            executor: frame.executor,
            label: Label::from(label),
            run: 1,
        }
    }

    /// The main module's body; an ES module's may suspend at a top-level `await` (rule 8l).
    pub(super) fn main_body<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        body: &'a [Stmt],
        frame: Frame<'a>,
    ) -> Result<(), Stop> {
        let flow = self.block(sched, body, &frame)?;
        self.finish_body(sched, flow, (Root::Main, Who::Module), body, frame)
    }

    /// A callback's body or label; an `async` body runs as an async function whose promise
    /// nobody holds (a throw in it is an unhandled rejection).
    pub(super) fn callback_body<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        inst: Instance<'a>,
        frame: Frame<'a>,
    ) -> Result<(), Stop> {
        match self.parts(&inst) {
            (label, _, Some(body)) if self.is_async(&inst) => {
                let who = Who::of(label, self.named(&inst).0, &frame);
                self.call_async(sched, body, frame, site_of(self.site_span(&inst)), who)?;
            }
            (_, _, Some(body)) => {
                self.block_inline(sched, body, &frame)?;
            }
            (Some(label), _, None) => self.log_text(sched, label, &frame, inst.cb.span)?,
            (None, _, None) => {}
        }
        Ok(())
    }

    fn is_async(&self, inst: &Instance<'a>) -> bool {
        if inst.link == 0 {
            inst.cb.is_async
        } else {
            inst.cb.links().get(inst.link as usize - 1).is_some_and(|l| l.is_async)
        }
    }

    /// `then "a" .then "b" …`: `Promise.resolve().then(a).then(b)…`, every link registered now
    /// (rule 8a); `.catch` and `.finally` links as written.
    pub(super) fn then_chain<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, inst: Instance<'a>) -> Result<(), Stop> {
        let mut p = self.resolved_then(sched, site_of(inst.cb.span), Handler::Cb(inst))?;
        for (i, link) in inst.cb.links().iter().enumerate() {
            // `note` stays the `then` statement's: where the chain was scheduled.
            let next = Instance {
                link: i as u32 + 1,
                run: 1,
                label: Label::NONE,
                ..inst
            };
            let label = link
                .label
                .as_ref()
                .map(|t| self.labels.intern(t, inst.index.map(|i| u64::from(i.get()))).0);
            let next = Instance {
                label: Label::from(label),
                ..next
            };
            p = self.register_link(sched, p, link, Handler::Cb(next))?;
        }
        Ok(())
    }

    /// `Promise.resolve().then(h)`: a reaction job queued at once (rule 8a); the derived promise.
    fn resolved_then<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, site: Site, h: Handler<'a>) -> Result<PromiseId, Stop> {
        self.op(sched, site, |e, s| {
            let start = e.promise_resolve(Value::Plain, site, s)?;
            e.then(start, Some(h), None, site, s)
        })
    }

    fn register_link<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        p: PromiseId,
        link: &'a Link,
        h: Handler<'a>,
    ) -> Result<PromiseId, Stop> {
        let site = site_of(link.span);
        self.op(sched, site, |e, s| match link.kind {
            LinkKind::Then => e.then(p, Some(h), None, site, s),
            LinkKind::Catch => e.catch(p, h, site, s),
            LinkKind::Finally => e.promise_finally(p, h, site, s),
        })
    }

    /// An expression's links on `v` (a non-promise is first passed through `Promise.resolve`);
    /// returns the last link's promise.
    fn links<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        v: Value,
        links: &'a [Link],
        frame: &Frame<'a>,
        site: Site,
    ) -> Result<Value, Stop> {
        if links.is_empty() {
            return Ok(v);
        }
        let mut p = self.as_promise(sched, v, site)?;
        for link in links {
            let captured = self.capture(link.label.as_ref(), frame);
            p = self.register_link(sched, p, link, Handler::Link { link, captured })?;
        }
        Ok(Value::Promise(p))
    }

    fn as_promise<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, v: Value, site: Site) -> Result<PromiseId, Stop> {
        match v {
            Value::Promise(p) => Ok(p),
            other => self.op(sched, site, |e, s| e.promise_resolve(other, site, s)),
        }
    }

    /// Evaluates an expression: its operand, then its links.
    fn eval<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, e: &'a Expr, frame: &Frame<'a>) -> Result<Value, Stop> {
        let site = site_of(e.operand.span());
        let v = match &e.operand {
            Operand::Value(_) => Value::Plain,
            Operand::Thenable(_) => Value::Thenable,
            Operand::Resolved(_) => Value::Promise(self.op(sched, site, |en, s| en.promise_resolve(Value::Plain, site, s))?),
            Operand::Rejected(_) => Value::Promise(self.op(sched, site, |en, s| en.promise_reject(site, s))?),
            Operand::Name(n) => match self.lookup(frame.env, n) {
                Binding::Value(v) => v,
                Binding::Unset | Binding::Async { .. } => Value::Plain,
            },
            Operand::Call { name, .. } => self.call_named(sched, name, frame, site)?,
            Operand::Executor { body, .. } => Value::Promise(self.executor(sched, body, frame, site)?),
            Operand::Combinator { kind, list, .. } => {
                let mut values = Vec::with_capacity(list.len());
                for x in list {
                    values.push(self.eval(sched, x, frame)?);
                }
                let kind = combinator_kind(*kind);
                Value::Promise(self.op(sched, site, |en, s| en.perform_combinator(kind, &values, site, s))?)
            }
            Operand::Timeout(n, _) => {
                let p = self.op(sched, site, |en, _| en.new_promise(site))?;
                sched.set_timeout(n.value, Task::Settle { promise: p, site });
                if self.verbose() {
                    let due = sched.now().saturating_add(crate::sched::coerce_delay(n.value));
                    self.push_settler(sched, SETTLERS[0], Some(format!("due at {due}")), site);
                }
                Value::Promise(p)
            }
            Operand::Immediate(_) => {
                let p = self.op(sched, site, |en, _| en.new_promise(site))?;
                sched.set_immediate(Task::Settle { promise: p, site });
                if self.verbose() {
                    self.push_settler(sched, SETTLERS[1], Some("queued for the check phase".to_string()), site);
                }
                Value::Promise(p)
            }
            Operand::File(op, _) => {
                let p = self.op(sched, site, |en, _| en.new_promise(site))?;
                let left = match op {
                    FileOp::Read => self.profile.read_file_round_trips(),
                    FileOp::Write => self.profile.write_file_round_trips(),
                };
                let then = FsThen::Settle { promise: p, site, op: *op };
                sched.submit(0, Task::Fs(Box::new(FsTask { then, left })));
                if self.verbose() {
                    let detail = "thread-pool round trips, the promise fulfilled after the last".to_string();
                    self.push_settler(sched, fs_settler(*op), Some(detail), site);
                }
                Value::Promise(p)
            }
        };
        self.links(sched, v, &e.links, frame, site)
    }

    /// `call NAME`: runs the async function now until its first `await`; its promise.
    fn call_named<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        name: &'a Name,
        frame: &Frame<'a>,
        site: Site,
    ) -> Result<Value, Stop> {
        let Binding::Async { body, env, executor } = self.lookup(frame.env, name) else {
            return Ok(Value::Plain);
        };
        let inner = Frame {
            index: frame.index,
            run: 1,
            count: 1,
            this: None,
            env,
            executor,
        };
        // It runs inside the caller's callback (the trace's lines stay the caller's).
        let p = self.call_async(sched, body, inner, site, Who::Function(&name.text))?;
        Ok(Value::Promise(p))
    }

    /// An async body called now (rule 8e): runs until it returns, throws or suspends; its promise.
    fn call_async<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        body: &'a [Stmt],
        frame: Frame<'a>,
        site: Site,
        who: Who<'a>,
    ) -> Result<PromiseId, Stop> {
        let p = self.op(sched, site, |e, _| e.async_function_enter(site))?;
        self.deeper(sched, site)?;
        let outer = self.sync_start("an async function runs synchronously until its first `await`");
        let flow = self.block(sched, body, &frame);
        self.notes.why = outer;
        self.rt.depth -= 1;
        let flow = flow?;
        self.finish_body(sched, flow, (Root::Async(p), who), body, frame)?;
        Ok(p)
    }

    /// An async body stopped: keep its continuation, or settle its promise (rules 8f, 8g).
    fn finish_body<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        flow: Flow,
        (root, who): (Root, Who<'a>),
        body: &'a [Stmt],
        frame: Frame<'a>,
    ) -> Result<(), Stop> {
        match (flow, root) {
            (Flow::Suspend, _) => {
                let Some(k) = self.rt.suspended.take() else {
                    return Ok(());
                };
                let mut path = std::mem::take(&mut self.rt.unwind);
                path.reverse();
                let at = path
                    .last()
                    .and_then(|pos| pos_stmt(body, &path, pos))
                    .map_or(Site(0), |s| site_of(s.span));
                if root == Root::Main {
                    self.rt.main_waiting = Some((k, at));
                }
                if self.shows_suspensions(sched) {
                    let line = self.site_line(at);
                    self.push(
                        sched,
                        EventKind::Suspend {
                            line,
                            by: Some(who.awaiter()),
                        },
                    );
                }
                self.rt.conts[k as usize] = Some(Cont {
                    body,
                    frame,
                    path,
                    root,
                    who,
                    at,
                });
                Ok(())
            }
            (Flow::Next, Root::Async(p)) => self
                .op(sched, Site(0), |e, s| Ok(e.async_function_resolve(p, Value::Plain, Site(0), s)))
                .map(drop),
            (Flow::Return(v), Root::Async(p)) => {
                self.rt.mark_adopted(p, v);
                self.op(sched, Site(0), |e, s| Ok(e.async_function_resolve(p, v, Site(0), s)))
                    .map(drop)
            }
            (Flow::Throw(reason), Root::Async(p)) => self.op(sched, reason, |e, s| Ok(e.async_function_reject(p, reason, s))).map(drop),
            (Flow::Next | Flow::Return(_), Root::Main) => {
                self.rt.main_waiting = None;
                Ok(())
            }
            (Flow::Throw(reason), Root::Main) => {
                // The module's evaluation rejected: Node prints the error and exits with code 1.
                self.rt.main_waiting = None;
                Err(Stop::Exit(Ending::Unhandled {
                    turn: sched.turn(),
                    tick: sched.now(),
                    line: self.site_line(reason),
                    code: 1,
                }))
            }
        }
    }

    /// Suspensions and resumptions are part of every trace (`run` shows them): the first
    /// [`MAX_SHOWN_SUSPENSIONS`] of a run, then one [`EventKind::SuspensionsCut`]; all of them
    /// with `--verbose` (within its bounds).
    fn shows_suspensions<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L) -> bool {
        if self.trace.verbose_cut {
            return false;
        }
        if self.opts.verbose {
            return true;
        }
        self.rt.shown_suspensions = self.rt.shown_suspensions.saturating_add(1);
        if self.rt.shown_suspensions == MAX_SHOWN_SUSPENSIONS + 1 {
            self.push(
                sched,
                EventKind::SuspensionsCut {
                    shown: MAX_SHOWN_SUSPENSIONS,
                },
            );
        }
        self.rt.shown_suspensions <= MAX_SHOWN_SUSPENSIONS
    }

    /// With `--explain`: the lines of a body run synchronously now say so (rule 8e) after what
    /// runs the code around them; returns the explanation to restore after it.
    fn sync_start(&mut self, what: &str) -> Option<String> {
        if !self.opts.explain {
            return None;
        }
        let outer = self.notes.why.clone();
        let around = outer.clone().unwrap_or_else(|| explain::main_module_sentence(self.entry));
        let clause = format!("{what} (rule 8e)");
        // A body called from a body run the same way says it once.
        if !around.ends_with(&clause) {
            self.notes.why = Some(format!("{around}; {clause}"));
        }
        outer
    }

    /// `promise { … }`: a new promise, its executor body run now (rule 8e); a throw rejects it.
    fn executor<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        body: &'a [Stmt],
        frame: &Frame<'a>,
        site: Site,
    ) -> Result<PromiseId, Stop> {
        let p = self.op(sched, site, |e, _| e.new_promise(site))?;
        let inner = Frame {
            executor: Exec::of(p),
            ..*frame
        };
        self.deeper(sched, site)?;
        let outer = self.sync_start("`new Promise` runs its executor synchronously");
        let flow = self.block(sched, body, &inner);
        self.notes.why = outer;
        self.rt.depth -= 1;
        if let Flow::Throw(reason) = flow? {
            self.op(sched, reason, |e, s| Ok(e.executor_threw(p, reason, s)))?;
        }
        Ok(p)
    }

    /// The promise statements (docs/language.md §9).
    pub(super) fn promise_statement<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        stmt: &'a Stmt,
        frame: &Frame<'a>,
        resuming: Option<u64>,
    ) -> Result<Flow, Stop> {
        let site = site_of(stmt.span);
        match &stmt.kind {
            // Bound when its block started (hoisted).
            StmtKind::AsyncDef { .. } => {}
            StmtKind::Call(name) => {
                self.call_named(sched, name, frame, site)?;
            }
            StmtKind::Await(expr) => {
                if resuming.is_some() {
                    if let Some(r) = self.rt.resume.take() {
                        return Ok(match r.outcome {
                            Outcome::Fulfilled => Flow::Next,
                            Outcome::Rejected(reason) => Flow::Throw(reason),
                        });
                    }
                }
                let v = self.eval(sched, expr, frame)?;
                let k = self.rt.new_cont();
                self.op(sched, site, |e, s| e.await_(v, Handler::Resume(k), site, s))?;
                self.rt.suspended = Some(k);
                return Ok(Flow::Suspend);
            }
            StmtKind::Promise(p) => match &**p {
                PromiseStmt::Executor { name, body, links, .. } => {
                    let p = self.executor(sched, body, frame, site)?;
                    let last = self.links(sched, Value::Promise(p), links, frame, site)?;
                    if let (Some(name), last @ Value::Promise(_)) = (name, last) {
                        self.bind(frame.env, name, last);
                    }
                }
                PromiseStmt::Expr { name, expr } => {
                    let v = self.eval(sched, expr, frame)?;
                    self.bind(frame.env, name, v);
                }
            },
            StmtKind::Chain(expr) => {
                self.eval(sched, expr, frame)?;
            }
            StmtKind::Resolve { target, with } => {
                let v = match with {
                    Some(e) => self.eval(sched, e, frame)?,
                    None => Value::Plain,
                };
                if let Some(p) = self.target(target.as_deref(), frame) {
                    let took = self.op(sched, site, |e, s| Ok(e.resolve_promise(p, v, site, s)))?;
                    if took {
                        self.rt.mark_adopted(p, v);
                    }
                }
            }
            StmtKind::Reject { target } => {
                if let Some(p) = self.target(target.as_deref(), frame) {
                    self.op(sched, site, |e, s| Ok(e.reject_promise(p, site, s)))?;
                }
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(sched, e, frame)?,
                    None => Value::Plain,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Throw => return Ok(Flow::Throw(site)),
            StmtKind::Try { body, catch } => {
                if resuming != Some(1) {
                    match self.block(sched, body, frame)? {
                        Flow::Throw(_) => {}
                        Flow::Suspend => {
                            self.rt.suspending_sub(0);
                            return Ok(Flow::Suspend);
                        }
                        flow => return Ok(flow),
                    }
                }
                return match self.block(sched, catch, frame)? {
                    Flow::Suspend => {
                        self.rt.suspending_sub(1);
                        Ok(Flow::Suspend)
                    }
                    flow => Ok(flow),
                };
            }
            StmtKind::On(listener) => {
                let captured = self.capture(listener.label.as_ref(), frame);
                self.rt.listeners.push(Registered { listener, captured });
            }
            _ => {}
        }
        Ok(Flow::Next)
    }

    /// The promise `resolve`/`reject` settles: the named one, or the executor's around.
    fn target(&self, name: Option<&Name>, frame: &Frame<'a>) -> Option<PromiseId> {
        match name {
            Some(n) => match self.lookup(frame.env, n) {
                Binding::Value(Value::Promise(p)) => Some(p),
                _ => None,
            },
            None => frame.executor.get(),
        }
    }

    /// Runs a promise job the scheduler took off the microtask queue.
    pub(super) fn run_job<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, id: u32, ctx: &Ctx<'_>) -> Result<(), Stop> {
        let Some(job) = self.rt.jobs.get_mut(id as usize).and_then(Option::take) else {
            return Ok(());
        };
        self.rt.free_jobs.push(id);
        let rule = job.rule;
        let facts = job.facts.as_deref().copied();
        let site = Site(job_site(&job));
        match self.op(sched, site, |e, s| e.run_job(job, s))? {
            JobOutcome::Done => Ok(()),
            JobOutcome::Call { handler, call, .. } => {
                let returned = self.call_handler(sched, handler, ctx, rule, facts)?;
                if let (Returned::Promise(_) | Returned::Thenable, false) = (returned, call.is_finally()) {
                    self.rt.mark_adopted(call.derived(), Value::Thenable);
                }
                self.op(sched, site, |e, s| e.handler_returned(call, returned, s))
            }
            JobOutcome::Resume {
                continuation: Handler::Resume(k),
                outcome,
            } => self.resume(sched, k, outcome, rule, facts),
            JobOutcome::Resume { .. } => Ok(()),
        }
    }

    fn settled_by_adoption(&self, facts: Option<JobFacts>) -> bool {
        let p = facts.and_then(|f| f.promise);
        p.is_some_and(|p| self.rt.settled_by.as_ref().and_then(|m| m.get(&p)) == Some(&explain::SettledBy::Adoption))
    }

    /// The sentence of a line a promise job placed, with `--explain`.
    fn hop_sentence(&self, rule: HopRule, facts: Option<JobFacts>, what: &str) -> String {
        let settled = facts.and_then(|f| f.promise);
        let by = settled.and_then(|p| self.rt.settled_by.as_ref().and_then(|m| m.get(&p).copied()));
        explain::hop(&explain::Hop {
            rule,
            what,
            already_settled: facts.is_some_and(|f| f.already_settled),
            plain_value: facts.is_some_and(|f| f.promise.is_none()),
            by,
        })
    }

    /// A reaction's handler: a link's body or label; an `async` one runs as an async function
    /// and returns its promise. Returns its completion for the engine.
    fn call_handler<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        handler: Handler<'a>,
        ctx: &Ctx<'_>,
        rule: HopRule,
        facts: Option<JobFacts>,
    ) -> Result<Returned, Stop> {
        let (label, kind, body, is_async, frame, span) = match handler {
            Handler::Cb(inst) => {
                let (run, count) = self.enter(sched, inst, ctx);
                let frame = super::frame_of(inst, run, count);
                // A plain reaction is told by the drain's sentence (rule 8a); anything else
                // adds the hop rule.
                let plain_link = rule == HopRule::Reaction && !self.settled_by_adoption(facts);
                if self.opts.explain && !plain_link {
                    let legacy = self.notes.why.take().unwrap_or_default();
                    self.notes.why = Some(format!("{legacy}; {}", self.hop_sentence(rule, facts, "")));
                }
                let (label, _, body) = self.parts(&inst);
                let kind = self.named(&inst).0;
                (label, kind, body, self.is_async(&inst), frame, self.site_span(&inst))
            }
            Handler::Link { link, captured } => {
                let frame = self.enter_link(sched, link, captured, rule, facts);
                (
                    link.label.as_ref(),
                    link.kind.dotted(),
                    link.body.as_deref(),
                    link.is_async,
                    frame,
                    link.span,
                )
            }
            Handler::Resume(_) => return Ok(Returned::Value),
        };
        let site = site_of(span);
        let returned = match body {
            Some(body) if is_async => {
                let who = Who::of(label, kind, &frame);
                Returned::Promise(self.call_async(sched, body, frame, site, who)?)
            }
            Some(body) => {
                self.deeper(sched, site)?;
                let flow = self.block(sched, body, &frame);
                self.rt.depth -= 1;
                match flow? {
                    Flow::Return(v) => Returned::from(v),
                    Flow::Throw(reason) => Returned::Threw(reason),
                    Flow::Next | Flow::Suspend => Returned::Value,
                }
            }
            None => {
                if let Some(label) = label {
                    let text = render(label, &frame);
                    self.log(sched, text, span)?;
                }
                Returned::Value
            }
        };
        if self.verbose() {
            self.push(sched, EventKind::Return);
        }
        Ok(returned)
    }

    /// A link of a promise expression starts: its counter, explanation and verbose event.
    fn enter_link<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        link: &'a Link,
        c: Captured,
        rule: HopRule,
        facts: Option<JobFacts>,
    ) -> Frame<'a> {
        let count = self.counts.bump(link.site);
        let kind = link.kind.dotted();
        let line = self.line(link.span);
        let label = c.label.get().map(|l| self.labels[l as usize].clone());
        if self.opts.explain {
            let mut what = match &label {
                Some(l) => format!("{kind} \"{l}\" (line {line})"),
                None => format!("{kind} (line {line})"),
            };
            if c.run > 1 {
                what += &format!(", run {} queued by its `again`", c.run);
            }
            self.notes.why = Some(self.hop_sentence(rule, facts, &what));
        }
        if self.verbose() {
            self.push(sched, EventKind::call(kind, label, line));
        }
        Frame {
            index: c.index,
            run: u64::from(c.run),
            count,
            this: Some(Again::Link { link, captured: c }),
            env: c.env,
            executor: c.executor,
        }
    }

    /// `again` in a link of a promise expression: its body once
    /// more, alone, with `{n}` one higher, as `Promise.resolve().then(() =>
    /// link(n + 1))` runs it: a reaction job on a fulfilled promise, one hop
    /// (rule 8a); the links after it do not run again. Bounded by the link's
    /// `times`. Without the promise arena ([`Task::Link`]) where no code can
    /// see that reaction's promise.
    pub(super) fn again_link<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, link: &'a Link, c: Captured) -> Result<(), Stop> {
        if link.times.is_some_and(|t| u64::from(c.run) >= t.value) {
            return Ok(());
        }
        let captured = Captured {
            run: c.run.saturating_add(1),
            ..c
        };
        if !link.is_async && plain_body(link.body.as_deref()) {
            sched.queue_microtask(Task::Link(Box::new(LinkRun { link, captured })));
            return Ok(());
        }
        self.resolved_then(sched, site_of(link.span), Handler::Link { link, captured })?;
        Ok(())
    }

    /// A link's run by `again` without the promise arena ([`Task::Link`]).
    pub(super) fn run_link<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, run: LinkRun<'a>, ctx: &Ctx<'_>) -> Result<(), Stop> {
        let facts = JobFacts {
            site: site_of(run.link.span),
            promise: None,
            already_settled: true,
        };
        let handler = Handler::Link {
            link: run.link,
            captured: run.captured,
        };
        self.call_handler(sched, handler, ctx, HopRule::Reaction, Some(facts))?;
        Ok(())
    }

    /// Resumes a suspended async frame where its `await` stopped (rule 8d).
    fn resume<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        k: u32,
        outcome: Outcome,
        rule: HopRule,
        facts: Option<JobFacts>,
    ) -> Result<(), Stop> {
        let Some(cont) = self.rt.conts.get_mut(k as usize).and_then(Option::take) else {
            return Ok(());
        };
        self.rt.free_conts.push(k);
        let line = self.site_line(cont.at);
        if self.opts.explain {
            let what = format!("the `await` at line {line}");
            let rule = if cont.root == Root::Main { HopRule::TopLevelAwait } else { rule };
            self.notes.why = Some(self.hop_sentence(rule, facts, &what));
        }
        // Verbose traces (and the picture) show the resumption as the callback it is.
        let verbose = self.verbose();
        if verbose {
            let kind = EventKind::Call {
                kind: "resume",
                label: None,
                line,
                by: Some(cont.who.awaiter()),
            };
            self.push(sched, kind);
        } else if self.shows_suspensions(sched) {
            self.push(
                sched,
                EventKind::Resume {
                    line,
                    by: Some(cont.who.awaiter()),
                },
            );
        }
        self.rt.resume = Some(Resuming {
            path: cont.path,
            level: 0,
            outcome,
        });
        self.deeper(sched, cont.at)?;
        let flow = self.block(sched, cont.body, &cont.frame);
        self.rt.depth -= 1;
        self.rt.resume = None;
        let flow = flow?;
        self.finish_body(sched, flow, (cont.root, cont.who), cont.body, cont.frame)?;
        if verbose {
            self.push(sched, EventKind::Return);
        }
        Ok(())
    }

    /// The callback of a `timers/promises` timer or immediate (rule 8j), or of an `fs.promises`
    /// call's last round trip: fulfils its promise.
    pub(super) fn settle<L: EventLoop<Task<'a>> + ?Sized>(
        &mut self,
        sched: &mut L,
        p: PromiseId,
        site: Site,
        by: explain::SettledBy,
    ) -> Result<(), Stop> {
        if let Some(map) = self.rt.settled_by.as_mut() {
            map.insert(p, by);
        }
        let verbose = self.verbose();
        if verbose {
            let kind = match by {
                explain::SettledBy::Timer(Phase::Check) => SETTLERS[1],
                explain::SettledBy::Timer(_) => SETTLERS[0],
                explain::SettledBy::FsCall(op) => fs_settler(op),
                explain::SettledBy::Adoption => unreachable!("an adoption is no callback"),
            };
            self.push_settler(sched, kind, None, site);
        }
        self.op(sched, site, |e, s| Ok(e.resolve_promise(p, Value::Plain, site, s)))?;
        if verbose {
            self.push(sched, EventKind::Return);
        }
        Ok(())
    }

    /// `--verbose`: a callback that fulfils a promise (rule 8j) scheduled
    /// (with its `detail`), or starting (`None`).
    #[cold]
    #[inline(never)]
    fn push_settler<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &L, kind: &'static str, detail: Option<String>, site: Site) {
        let line = self.site_line(site);
        let event = match detail {
            Some(detail) => EventKind::Schedule {
                kind,
                label: None,
                detail,
                line,
            },
            None => EventKind::call(kind, None, line),
        };
        self.push(sched, event);
    }

    /// Node's `processPromiseRejections` at the end of a drain (rule 8k): 'rejectionHandled'
    /// and 'unhandledRejection' in Node's order, each listener run before the next step; in
    /// `throw` mode with no listener the process ends.
    pub(super) fn process_promise_rejections<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L) -> Result<bool, Stop> {
        if !self.rt.on {
            return Ok(false);
        }
        let tracker = self.rt.engine.rejections();
        if tracker.pending().next().is_none() && tracker.async_handled_len() == 0 {
            return Ok(false);
        }
        let mut round = RejectionRound::new();
        loop {
            let listeners = self.rt.listeners_now();
            let mode = self.rt.mode;
            match round.next(self.rt.engine.rejections_mut(), mode, listeners) {
                RejectionStep::Done { again } => return Ok(again),
                RejectionStep::Event(RejectionEvent::Exit { reason, code, .. }) => {
                    return Err(Stop::Exit(Ending::Unhandled {
                        turn: sched.turn(),
                        tick: sched.now(),
                        line: self.site_line(reason),
                        code,
                    }));
                }
                RejectionStep::Event(RejectionEvent::UnhandledRejection {
                    listened: true, reason, ..
                }) => {
                    self.run_listeners(sched, Event::UnhandledRejection, reason)?;
                }
                RejectionStep::Event(RejectionEvent::RejectionHandled {
                    listened: true, promise, ..
                }) => {
                    let reason = match self.rt.engine.state(promise) {
                        crate::promise::PromiseState::Rejected(r) => r,
                        _ => Site(0),
                    };
                    self.run_listeners(sched, Event::RejectionHandled, reason)?;
                }
                RejectionStep::Event(_) => {}
            }
        }
    }

    /// Every listener of `event`, in the order they were added.
    fn run_listeners<L: EventLoop<Task<'a>> + ?Sized>(&mut self, sched: &mut L, event: Event, reason: Site) -> Result<(), Stop> {
        let regs: Vec<Registered<'a>> = self
            .rt
            .listeners
            .iter()
            .filter(|r| r.listener.event.value == event)
            .copied()
            .collect();
        let outer = self.frame_phase;
        for reg in regs {
            self.frame_phase = Phase::Rejections;
            let l = reg.listener;
            let count = self.counts.bump(l.site);
            let line = self.line(l.event.span);
            let label = reg.captured.label.get().map(|i| self.labels[i as usize].clone());
            if self.opts.explain {
                self.notes.why = Some(explain::rejection_listener(event.name(), line, self.site_line(reason)));
            }
            if self.verbose() {
                self.push(sched, EventKind::call(event.name(), label, line));
            }
            let frame = Frame {
                index: reg.captured.index,
                run: 1,
                count,
                this: None,
                env: reg.captured.env,
                executor: reg.captured.executor,
            };
            match (&l.body, &l.label) {
                (Some(body), _) => {
                    self.block(sched, body, &frame)?;
                }
                (None, Some(label)) => {
                    let text = render(label, &frame);
                    self.log(sched, text, l.event.span)?;
                }
                (None, None) => {}
            }
            if self.verbose() {
                self.push(sched, EventKind::Return);
            }
        }
        self.frame_phase = outer;
        Ok(())
    }
}

/// The statement a suspended path's innermost position names (the `await`).
fn pos_stmt<'s>(body: &'s [Stmt], path: &[Pos], _last: &Pos) -> Option<&'s Stmt> {
    let mut stmts = body;
    let mut stmt = None;
    for pos in path {
        let s = stmts.get(pos.pc as usize)?;
        stmt = Some(s);
        stmts = match &s.kind {
            StmtKind::Repeat { body, .. } => body,
            StmtKind::Try { body, catch } => {
                if pos.sub == 1 {
                    catch
                } else {
                    body
                }
            }
            _ => &[],
        };
    }
    stmt
}

#[cfg(test)]
mod tests {
    /// Each pending timer holds a task (issue 14: peak memory per pending
    /// timer): 40 bytes, the callback's instance with the tag in its niche;
    /// the rare `readFile`/`writeFile` round trip is boxed.
    #[test]
    fn a_task_takes_40_bytes() {
        assert_eq!(std::mem::size_of::<super::Instance>(), 40);
        assert_eq!(std::mem::size_of::<super::Task>(), 40);
        assert_eq!(std::mem::size_of::<Option<super::Task>>(), 40);
    }

    /// The log lines of a run of `src`.
    fn logs(src: &str) -> Vec<String> {
        let loaded = crate::load::load_bytes("t.loop", src.as_bytes()).unwrap();
        let trace = crate::interp::run(&loaded.file, &loaded.src, "", crate::interp::RunOptions::default());
        trace.logs().map(|(_, t)| t.to_string()).collect()
    }

    /// `promise p = thenable` (`= value`) binds the thenable (the value) itself, as
    /// JavaScript's `const p = …` does: a link, an `await` or `resolve with` makes it a
    /// promise where it is written, not at the declaration (real Node 20 and 26's orders).
    #[test]
    fn a_name_bound_to_a_thenable_or_a_value_is_made_a_promise_where_it_is_used() {
        // The resolve-thenable job of `Promise.resolve(p)` is queued after t1's reaction.
        assert_eq!(
            logs("promise p = thenable\nthen \"t1\" .then \"t2\"\nchain p .then \"a\"\n"),
            ["t1", "t2", "a"]
        );
        // In a handler: two hops from there (8c), after the handler's own `.then`.
        assert_eq!(
            logs("promise p = thenable\nthen { chain p .then \"a\" .then \"b\" } .then \"c\"\n"),
            ["c", "a", "b"]
        );
        // `await` of a thenable: two hops from the `await` (8d).
        assert_eq!(
            logs("promise p = thenable\nasync f { await p  log \"a\" }\nthen \"t1\" .then \"t2\" .then \"t3\"\nthen { call f }\n"),
            ["t1", "t2", "t3", "a"]
        );
        // A value is no promise to adopt: `q` is fulfilled at once.
        assert_eq!(
            logs("promise p = value\npromise q { resolve with p }\nchain q .then \"a\"\nthen \"t1\" .then \"t2\"\n"),
            ["a", "t1", "t2"]
        );
        // `promise q = p` holds what `p` holds.
        assert_eq!(
            logs("promise p = thenable\npromise q = p\nchain q .then \"x\" .then \"y\"\nthen \"t1\" .then \"t2\" .then \"t3\"\n"),
            ["t1", "x", "t2", "y", "t3"]
        );
    }
}
