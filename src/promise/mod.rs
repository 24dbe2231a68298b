//! Promises as V8 runs them (docs/scheduling.md rule 8, parts 8a–8l): the promise arena, its jobs, and Node's
//! unhandled-rejection tracker ([`rejections`]).
//!
//! This layer knows nothing of `.loop` statements and nothing of the event loop. Its caller (the
//! interpreter) owns the handlers: a handler is an opaque `H` (a `.then` body, an `await`
//! continuation, a `.finally` body). The engine never runs anything itself:
//!
//! - every operation appends the jobs it queues to a [`JobSink`], in the order V8 queues them; the
//!   caller pushes each onto the scheduler's microtask queue in that order (promise jobs and
//!   `queueMicrotask` share V8's one FIFO queue);
//! - when the caller takes a job off that queue it calls [`Promises::run_job`]. The engine either
//!   does the whole job (a pass-through, an adoption, a combinator element, a resolve-thenable
//!   job, a `finally` thunk) — queuing follow-up jobs — or answers "call handler `H` with this
//!   outcome" ([`JobOutcome::Call`]) / "resume this `await` continuation" ([`JobOutcome::Resume`]);
//! - after calling a handler, the caller reports what it returned with
//!   [`Promises::handler_returned`], and the engine resolves or rejects the derived promise
//!   (ECMA-262 §27.2.2.1 PromiseReactionJob, steps 1.g–1.i).
//!
//! Values are not modelled: a promise is fulfilled (with "a value") or rejected with a reason, and
//! the reason is the caller's [`Site`] (the statement that rejected), so messages can name it. A
//! value is either plain, a native promise, or a thenable that resolves at once when its `then` is
//! called ([`Value`]).
//!
//! A *hop* is one round of the microtask queue: a job queued while round k runs runs in round k+1.
//! Every hop count of the design (notes: "Consequences" table) falls out of the queue order these
//! functions produce; the tests in `tests.rs` replay them with a FIFO queue.
//!
//! Memory: the arena never frees a promise; it holds at most [`Promises::limit`] promises and as
//! many waiting reactions, and an operation past either returns [`LimitError`] (the caller turns it
//! into a limit diagnostic).

mod combinator;
mod finally;
pub mod rejections;
pub mod rule;
#[cfg(test)]
mod tests;

pub use combinator::CombinatorKind;
pub use rejections::{Listeners, RejectionEvent, RejectionRound, RejectionStep, RejectionTracker, RejectionsMode};
pub use rule::HopRule;

use std::collections::VecDeque;
use std::fmt;

/// The most promises (and, separately, the most waiting reactions) an arena holds by default.
/// A promise with what hangs on it in a run (its queued job, a suspended async frame) takes
/// some 400 bytes, so a run holds at most about 100 MiB of them. The arena frees none: a run
/// that makes promises without end (an `await` loop, an async function that calls itself after
/// a timer) stops here, told as "the run makes more promises than it can hold".
pub const DEFAULT_LIMIT: u32 = 250_000;

/// A promise of the arena (its index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PromiseId(pub u32);

/// A place in the caller's program (a statement, a link, an operand), opaque to the engine: the
/// site that queued a job, that made a promise, or that gave a rejection its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site(pub u32);

/// A combinator call (`Promise.all` …) of the arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CombinatorId(pub u32);

/// A promise's state (ECMA-262 [[PromiseState]]; V8 `Promise::PromiseState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromiseState {
    /// Not settled (it may be resolved, locked in to another promise: see
    /// [`Promises::already_resolved`]).
    Pending,
    /// Fulfilled with a value.
    Fulfilled,
    /// Rejected with the reason made at this site.
    Rejected(Site),
}

/// How a settled promise settled, as passed to its reactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Fulfilled with a value.
    Fulfilled,
    /// Rejected with the reason made at this site.
    Rejected(Site),
}

/// A JavaScript value as far as promises care: what a promise is resolved with, what is awaited,
/// what a combinator's list holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// Not a thenable (`null`, `undefined`, a number, an array…).
    Plain,
    /// A native promise whose constructor is `%Promise%` (V8's fast paths apply).
    Promise(PromiseId),
    /// A non-native thenable whose `then(resolve)` calls `resolve()` at once
    /// (`{ then(r) { r(); } }`).
    Thenable,
}

/// What a handler's body did, reported with [`Promises::handler_returned`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returned {
    /// Returned a plain value (or nothing).
    Value,
    /// Returned a native promise.
    Promise(PromiseId),
    /// Returned a thenable.
    Thenable,
    /// Threw; the reason was made at this site.
    Threw(Site),
}

impl From<Value> for Returned {
    fn from(v: Value) -> Self {
        match v {
            Value::Plain => Returned::Value,
            Value::Promise(p) => Returned::Promise(p),
            Value::Thenable => Returned::Thenable,
        }
    }
}

/// What a reaction does when its promise settles (ECMA-262 PromiseReaction record; V8
/// `PromiseReaction`, whose handlers may be V8-internal closures).
#[derive(Clone, Debug)]
pub enum ReactionKind<H> {
    /// `then(on_fulfilled, on_rejected)`; `catch(r)` is `then(undefined, r)`. A missing handler
    /// passes the outcome through to the derived promise.
    Then {
        /// Called when the promise fulfils.
        on_fulfilled: Option<H>,
        /// Called when the promise rejects.
        on_rejected: Option<H>,
    },
    /// An `await` continuation: resume the frame with the outcome (no derived promise).
    Await(H),
    /// A combinator's element function for element `index`.
    Element {
        /// The combinator call.
        combinator: CombinatorId,
        /// The element's index in the list.
        index: u32,
    },
    /// V8's `PromiseResolveThenableJob` fast path: settle this promise with the outcome.
    Adopt(PromiseId),
    /// `finally(on_finally)`: `thenFinally` / `catchFinally`, both calling `H`.
    Finally(H),
    /// `finally`'s `valueThunk` (`() => value`) on `Promise.resolve(on_finally())`.
    ValueThunk,
    /// `finally`'s `thrower` (`() => { throw reason }`) on `Promise.resolve(on_finally())`.
    Thrower(Site),
}

/// A reaction registered on a promise, or carried by a queued job.
#[derive(Clone, Debug)]
pub struct Reaction<H> {
    /// What it does.
    pub kind: ReactionKind<H>,
    /// The promise it resolves ("promiseOrCapability"): `then`'s result; `None` for `await`,
    /// adoption and combinator elements.
    pub derived: Option<PromiseId>,
    /// The caller's site that registered it (the link, the `await`, the combinator).
    pub site: Site,
}

/// Who a resolve-thenable job calls `then` on (ECMA-262 NewPromiseResolveThenableJob).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thenable {
    /// A native promise: V8 registers an [`ReactionKind::Adopt`] reaction on it.
    Native(PromiseId),
    /// `{ then(r) { r(); } }`: fulfils the target inside the job.
    Plain,
}

/// A job of V8's microtask queue (ECMA-262 §27.2.2 Promise Jobs).
#[derive(Clone, Debug)]
pub enum JobKind<H> {
    /// PromiseReactionJob: a reaction and the outcome of its promise.
    Reaction {
        /// The reaction.
        reaction: Reaction<H>,
        /// Its promise's outcome.
        outcome: Outcome,
    },
    /// PromiseResolveThenableJob: call `thenable.then` with `target`'s resolving functions.
    ResolveThenable {
        /// The promise being resolved.
        target: PromiseId,
        /// What it was resolved with.
        thenable: Thenable,
        /// The caller's site that resolved it.
        site: Site,
    },
}

/// Why a job was queued, for `--explain` (kept only when the arena was asked to, see
/// [`Promises::record_facts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobFacts {
    /// The caller's site that registered the reaction / resolved the promise.
    pub site: Site,
    /// The promise whose settlement queued the job (a reaction job), or the promise being resolved
    /// (a resolve-thenable job); `None` for an `await` of a plain value.
    pub promise: Option<PromiseId>,
    /// The job was queued at once because that promise was already settled (a reaction registered
    /// on a settled promise; a resolve-thenable job whose native promise was settled) rather than
    /// when it settled.
    pub already_settled: bool,
}

/// One job to push onto the microtask queue.
#[derive(Clone, Debug)]
pub struct Job<H> {
    /// What it does.
    pub kind: JobKind<H>,
    /// The part of rule 8 that queued it.
    pub rule: HopRule,
    /// Why it was queued (with [`Promises::record_facts`] only).
    pub facts: Option<Box<JobFacts>>,
}

/// Where an operation puts the jobs it queues, in order (the caller's microtask queue).
pub trait JobSink<H> {
    /// Queue one job after the ones queued before it.
    fn queue(&mut self, job: Job<H>);
}

impl<H> JobSink<H> for Vec<Job<H>> {
    fn queue(&mut self, job: Job<H>) {
        self.push(job);
    }
}

impl<H> JobSink<H> for VecDeque<Job<H>> {
    fn queue(&mut self, job: Job<H>) {
        self.push_back(job);
    }
}

/// Which kind of handler the caller is calling, so the engine knows what its return means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallKind {
    /// A `then`/`catch` handler: its return resolves the derived promise.
    Then,
    /// `finally`'s `on_finally`, called for this outcome of the original promise.
    Finally(Outcome),
}

/// A handler call in progress: hand it back to [`Promises::handler_returned`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "report the handler's completion with Promises::handler_returned"]
pub struct HandlerCall {
    derived: PromiseId,
    kind: CallKind,
    site: Site,
}

impl HandlerCall {
    /// The promise the handler's completion resolves (`then`'s result).
    pub fn derived(&self) -> PromiseId {
        self.derived
    }

    /// The site of the link whose handler this is.
    pub fn site(&self) -> Site {
        self.site
    }

    /// The call is `finally`'s handler (its return value does not pass through).
    pub fn is_finally(&self) -> bool {
        matches!(self.kind, CallKind::Finally(_))
    }
}

/// What running a job asks of the caller.
#[derive(Debug)]
pub enum JobOutcome<H> {
    /// The engine did the whole job (follow-up jobs, if any, are in the sink).
    Done,
    /// Call `handler` (it sees `outcome`: fulfilled, or rejected with this reason), then report its
    /// completion with [`Promises::handler_returned`]`(call, …)`.
    Call {
        /// The handler to run.
        handler: H,
        /// The settled promise's outcome (the handler's argument).
        outcome: Outcome,
        /// Hand back with the handler's completion.
        call: HandlerCall,
    },
    /// Resume the suspended async frame `continuation`: the `await` returns (fulfilled) or throws
    /// the reason (rejected).
    Resume {
        /// The `await` continuation.
        continuation: H,
        /// The awaited promise's outcome.
        outcome: Outcome,
    },
}

/// What an arena ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bounded {
    /// Promises.
    Promises,
    /// Reactions waiting on pending promises.
    Reactions,
}

/// An operation would hold more promises or waiting reactions than the arena's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitError {
    /// What ran out.
    pub what: Bounded,
    /// The limit.
    pub limit: u32,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.what {
            Bounded::Promises => "promises",
            Bounded::Reactions => "reactions waiting on pending promises",
        };
        write!(f, "more than {} {what} (the most a run holds)", self.limit)
    }
}

impl std::error::Error for LimitError {}

/// One promise of the arena (ECMA-262 §27.2.6 internal slots; V8 `JSPromise`).
#[derive(Clone, Debug)]
struct Promise<H> {
    state: PromiseState,
    /// [[PromiseFulfillReactions]] + [[PromiseRejectReactions]] in registration order; empty once
    /// settled.
    reactions: Vec<Reaction<H>>,
    /// [[AlreadyResolved]] of the promise's resolving functions (executor `resolve`/`reject`, the
    /// async function's, a derived promise's capability): set once it is resolved, even with a
    /// thenable while it stays pending.
    already_resolved: bool,
    /// [[PromiseIsHandled]] (V8 `has_handler`).
    handled: bool,
    origin: Site,
}

/// The promise arena, its combinator calls and Node's rejection tracker.
#[derive(Clone, Debug)]
pub struct Promises<H> {
    promises: Vec<Promise<H>>,
    combinators: Vec<combinator::Combinator>,
    limit: u32,
    /// Reactions stored on pending promises now.
    waiting_reactions: u32,
    record_facts: bool,
    tracker: RejectionTracker,
}

impl<H> Default for Promises<H> {
    fn default() -> Self {
        Self::new()
    }
}

impl<H> Promises<H> {
    /// An empty arena holding at most [`DEFAULT_LIMIT`] promises, without job facts.
    pub fn new() -> Self {
        Self::with_limit(DEFAULT_LIMIT)
    }

    /// An empty arena holding at most `limit` promises and `limit` waiting reactions.
    pub fn with_limit(limit: u32) -> Self {
        Promises {
            promises: Vec::new(),
            combinators: Vec::new(),
            limit,
            waiting_reactions: 0,
            record_facts: false,
            tracker: RejectionTracker::new(),
        }
    }

    /// Keep [`JobFacts`] on every job queued from now on (`--explain`, `--verbose`); off by default
    /// to keep jobs small.
    pub fn record_facts(&mut self, on: bool) {
        self.record_facts = on;
    }

    /// The most promises (and waiting reactions) this arena holds.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// How many promises the arena holds.
    pub fn len(&self) -> usize {
        self.promises.len()
    }

    /// The arena holds no promise.
    pub fn is_empty(&self) -> bool {
        self.promises.is_empty()
    }

    /// `promise`'s state. Panics if `promise` is not of this arena (as for every `PromiseId`
    /// argument).
    pub fn state(&self, promise: PromiseId) -> PromiseState {
        self.promises[promise.0 as usize].state
    }

    /// [[PromiseIsHandled]]: a handler (then, catch, finally, await, adoption, a combinator) was
    /// ever added.
    pub fn is_handled(&self, promise: PromiseId) -> bool {
        self.promises[promise.0 as usize].handled
    }

    /// Its resolving functions were used (it is settled, or locked in to a thenable).
    pub fn already_resolved(&self, promise: PromiseId) -> bool {
        self.promises[promise.0 as usize].already_resolved
    }

    /// The site that made it.
    pub fn origin(&self, promise: PromiseId) -> Site {
        self.promises[promise.0 as usize].origin
    }

    /// How many reactions wait on it (0 once settled).
    pub fn reaction_count(&self, promise: PromiseId) -> usize {
        self.promises[promise.0 as usize].reactions.len()
    }

    /// Node's unhandled-rejection tracker, fed by this arena's rejections and `then`s.
    pub fn rejections(&self) -> &RejectionTracker {
        &self.tracker
    }

    /// The tracker, to run `processPromiseRejections` ([`RejectionRound`]).
    pub fn rejections_mut(&mut self) -> &mut RejectionTracker {
        &mut self.tracker
    }

    fn get(&mut self, promise: PromiseId) -> &mut Promise<H> {
        &mut self.promises[promise.0 as usize]
    }

    /// A new pending promise (V8 `NewJSPromise`; ECMA-262 NewPromiseCapability(%Promise%)).
    fn alloc(&mut self, origin: Site) -> Result<PromiseId, LimitError> {
        if self.promises.len() >= self.limit as usize {
            return Err(LimitError {
                what: Bounded::Promises,
                limit: self.limit,
            });
        }
        let id = PromiseId(self.promises.len() as u32);
        self.promises.push(Promise {
            state: PromiseState::Pending,
            reactions: Vec::new(),
            already_resolved: false,
            handled: false,
            origin,
        });
        Ok(id)
    }

    fn facts(&self, site: Site, promise: Option<PromiseId>, already_settled: bool) -> Option<Box<JobFacts>> {
        self.record_facts.then(|| {
            Box::new(JobFacts {
                site,
                promise,
                already_settled,
            })
        })
    }

    /// The job a reaction becomes when its promise settles: NewPromiseReactionJob (ECMA-262
    /// §27.2.2.1), stamped with the part of rule 8 it belongs to.
    fn reaction_job(&self, reaction: Reaction<H>, outcome: Outcome, promise: Option<PromiseId>, already_settled: bool) -> Job<H> {
        let rule = match &reaction.kind {
            ReactionKind::Then { on_fulfilled, on_rejected } => {
                let handler = match outcome {
                    Outcome::Fulfilled => on_fulfilled.is_some(),
                    Outcome::Rejected(_) => on_rejected.is_some(),
                };
                if handler {
                    HopRule::Reaction
                } else {
                    HopRule::PassThrough
                }
            }
            ReactionKind::Await(_) => HopRule::Await,
            ReactionKind::Element { .. } => HopRule::Combinator,
            ReactionKind::Adopt(_) => HopRule::Adoption,
            ReactionKind::Finally(_) | ReactionKind::ValueThunk | ReactionKind::Thrower(_) => HopRule::Finally,
        };
        let facts = self.facts(reaction.site, promise, already_settled);
        Job {
            kind: JobKind::Reaction { reaction, outcome },
            rule,
            facts,
        }
    }

    // ---- creating promises ----------------------------------------------------------------

    /// `new Promise(executor)` (V8 `PromiseConstructor`, promise-constructor.tq; ECMA-262
    /// §27.2.3.1): a new pending promise. The caller then runs the executor body synchronously
    /// (rule 8e); its `resolve`/`reject` are [`Promises::resolve_promise`] /
    /// [`Promises::reject_promise`], and a throw out of it is [`Promises::executor_threw`].
    pub fn new_promise(&mut self, site: Site) -> Result<PromiseId, LimitError> {
        self.alloc(site)
    }

    /// The executor threw (ECMA-262 §27.2.3.1 step 10: `Call(rejectingFunction, reason)`): reject
    /// the promise unless it was already resolved. Returns whether it took effect.
    pub fn executor_threw(&mut self, promise: PromiseId, reason: Site, sink: &mut impl JobSink<H>) -> bool {
        self.reject_promise(promise, reason, sink)
    }

    /// `Promise.resolve(x)` (V8 `PromiseResolve`, promise-resolve.tq; ECMA-262 §27.2.4.7.1): a
    /// native promise is returned itself (0 hops); a plain value gives a new fulfilled promise; a
    /// thenable gives a new promise and queues its resolve-thenable job now.
    pub fn promise_resolve(&mut self, x: Value, site: Site, sink: &mut impl JobSink<H>) -> Result<PromiseId, LimitError> {
        self.promise_resolve_by(x, site, HopRule::Adoption, sink)
    }

    fn promise_resolve_by(&mut self, x: Value, site: Site, rule: HopRule, sink: &mut impl JobSink<H>) -> Result<PromiseId, LimitError> {
        if let Value::Promise(p) = x {
            return Ok(p);
        }
        let p = self.alloc(site)?;
        self.get(p).already_resolved = true;
        self.resolve_unchecked(p, x, site, rule, sink);
        Ok(p)
    }

    /// `Promise.reject(reason)` (V8 `PromiseReject`, promise-constructor.tq; ECMA-262
    /// §27.2.4.6): a new promise, rejected at once (and, having no handler, reported to the
    /// tracker).
    pub fn promise_reject(&mut self, reason: Site, sink: &mut impl JobSink<H>) -> Result<PromiseId, LimitError> {
        let p = self.alloc(reason)?;
        self.get(p).already_resolved = true;
        self.reject_unchecked(p, reason, sink);
        Ok(p)
    }

    // ---- then -----------------------------------------------------------------------------

    /// `p.then(on_fulfilled, on_rejected)` (V8 `PromisePrototypeThen`, promise-then.tq; ECMA-262
    /// §27.2.5.4): a new derived promise, and [`Promises::perform_promise_then`]'s reaction
    /// resolving it. Returns the derived promise.
    pub fn then(
        &mut self,
        promise: PromiseId,
        on_fulfilled: Option<H>,
        on_rejected: Option<H>,
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<PromiseId, LimitError> {
        let derived = self.alloc(site)?;
        let reaction = Reaction {
            kind: ReactionKind::Then { on_fulfilled, on_rejected },
            derived: Some(derived),
            site,
        };
        self.perform_promise_then(promise, reaction, sink)?;
        Ok(derived)
    }

    /// `p.catch(on_rejected)` = `p.then(undefined, on_rejected)` (V8 `PromisePrototypeCatch`;
    /// ECMA-262 §27.2.5.1). Returns the derived promise.
    pub fn catch(&mut self, promise: PromiseId, on_rejected: H, site: Site, sink: &mut impl JobSink<H>) -> Result<PromiseId, LimitError> {
        self.then(promise, None, Some(on_rejected), site, sink)
    }

    /// PerformPromiseThen (V8 `PerformPromiseThenImpl`, promise-abstract-operations.tq; ECMA-262
    /// §27.2.5.4.1): a pending promise keeps the reaction (FIFO); a settled one queues its job
    /// **now** (rule 8a), and a rejected one that had no handler tells the tracker a handler was
    /// added after the rejection (`kPromiseHandlerAddedAfterReject`). The promise is handled from
    /// now on.
    pub fn perform_promise_then(
        &mut self,
        promise: PromiseId,
        reaction: Reaction<H>,
        sink: &mut impl JobSink<H>,
    ) -> Result<(), LimitError> {
        let p = &self.promises[promise.0 as usize];
        let (state, handled) = (p.state, p.handled);
        match state {
            PromiseState::Pending => {
                if self.waiting_reactions >= self.limit {
                    return Err(LimitError {
                        what: Bounded::Reactions,
                        limit: self.limit,
                    });
                }
                self.waiting_reactions += 1;
                self.get(promise).reactions.push(reaction);
            }
            PromiseState::Fulfilled => {
                let job = self.reaction_job(reaction, Outcome::Fulfilled, Some(promise), true);
                sink.queue(job);
            }
            PromiseState::Rejected(reason) => {
                if !handled {
                    self.tracker.on_handler_added_after_reject(promise);
                }
                let job = self.reaction_job(reaction, Outcome::Rejected(reason), Some(promise), true);
                sink.queue(job);
            }
        }
        self.get(promise).handled = true;
        Ok(())
    }

    // ---- settling -------------------------------------------------------------------------

    /// The promise's resolve function (ECMA-262 §27.2.1.3.2 Promise Resolve Functions; V8
    /// `ResolvePromise`, promise-resolve.tq, behind the [[AlreadyResolved]] check of
    /// `CreateResolvingFunctions`): ignored if already resolved (returns false). A plain value
    /// fulfils now; a native promise or a thenable queues a resolve-thenable job **now** and the
    /// promise stays pending (rule 8c: +2 hops for a native promise, +1 for a thenable). Resolving
    /// a promise with itself rejects it (a TypeError made at `site`).
    pub fn resolve_promise(&mut self, promise: PromiseId, x: Value, site: Site, sink: &mut impl JobSink<H>) -> bool {
        self.resolve_checked(promise, x, site, HopRule::Adoption, sink)
    }

    fn resolve_checked(&mut self, promise: PromiseId, x: Value, site: Site, rule: HopRule, sink: &mut impl JobSink<H>) -> bool {
        let p = self.get(promise);
        if p.already_resolved || p.state != PromiseState::Pending {
            return false;
        }
        p.already_resolved = true;
        self.resolve_unchecked(promise, x, site, rule, sink);
        true
    }

    /// ResolvePromise without the [[AlreadyResolved]] check (the caller set it).
    fn resolve_unchecked(&mut self, promise: PromiseId, x: Value, site: Site, rule: HopRule, sink: &mut impl JobSink<H>) {
        match x {
            Value::Plain => self.fulfill_promise(promise, sink),
            Value::Promise(q) if q == promise => self.reject_unchecked(promise, site, sink),
            Value::Promise(q) => {
                let already_settled = self.state(q) != PromiseState::Pending;
                let facts = self.facts(site, Some(promise), already_settled);
                sink.queue(Job {
                    kind: JobKind::ResolveThenable {
                        target: promise,
                        thenable: Thenable::Native(q),
                        site,
                    },
                    rule,
                    facts,
                });
            }
            Value::Thenable => {
                let facts = self.facts(site, Some(promise), false);
                sink.queue(Job {
                    kind: JobKind::ResolveThenable {
                        target: promise,
                        thenable: Thenable::Plain,
                        site,
                    },
                    rule,
                    facts,
                });
            }
        }
    }

    /// The promise's reject function (ECMA-262 §27.2.1.3.1 Promise Reject Functions): ignored if
    /// already resolved (returns false), else [`RejectPromise`](Self::reject_unchecked).
    pub fn reject_promise(&mut self, promise: PromiseId, reason: Site, sink: &mut impl JobSink<H>) -> bool {
        let p = self.get(promise);
        if p.already_resolved || p.state != PromiseState::Pending {
            return false;
        }
        p.already_resolved = true;
        self.reject_unchecked(promise, reason, sink);
        true
    }

    /// FulfillPromise (V8 `FulfillPromise`, promise-abstract-operations.tq; ECMA-262 §27.2.1.4):
    /// settle a pending promise and queue one job per reaction, in registration order. No effect
    /// on a settled promise. Does not look at [[AlreadyResolved]] (adoption settles a promise whose
    /// flag is set).
    pub fn fulfill_promise(&mut self, promise: PromiseId, sink: &mut impl JobSink<H>) {
        let p = self.get(promise);
        if p.state != PromiseState::Pending {
            return;
        }
        p.state = PromiseState::Fulfilled;
        let reactions = std::mem::take(&mut p.reactions);
        self.trigger_promise_reactions(promise, reactions, Outcome::Fulfilled, sink);
    }

    /// RejectPromise (V8 `RejectPromise`, promise-abstract-operations.tq; ECMA-262 §27.2.1.7):
    /// settle a pending promise; with no handler, tell the tracker (`kPromiseRejectWithNoHandler`,
    /// HostPromiseRejectionTracker "reject"); queue one job per reaction.
    fn reject_unchecked(&mut self, promise: PromiseId, reason: Site, sink: &mut impl JobSink<H>) {
        let p = self.get(promise);
        if p.state != PromiseState::Pending {
            return;
        }
        p.state = PromiseState::Rejected(reason);
        let handled = p.handled;
        let reactions = std::mem::take(&mut p.reactions);
        if !handled {
            self.tracker.on_reject_with_no_handler(promise, reason);
        }
        self.trigger_promise_reactions(promise, reactions, Outcome::Rejected(reason), sink);
    }

    /// TriggerPromiseReactions (V8 promise-abstract-operations.tq, which reverses its linked list
    /// to keep this order; ECMA-262 §27.2.1.8): one job per reaction, FIFO.
    pub fn trigger_promise_reactions(
        &mut self,
        promise: PromiseId,
        reactions: Vec<Reaction<H>>,
        outcome: Outcome,
        sink: &mut impl JobSink<H>,
    ) {
        self.waiting_reactions = self.waiting_reactions.saturating_sub(reactions.len() as u32);
        for reaction in reactions {
            let job = self.reaction_job(reaction, outcome, Some(promise), false);
            sink.queue(job);
        }
    }

    /// Settle `promise` with `outcome` as its own resolving functions would (a derived promise,
    /// an adoption target).
    fn settle(&mut self, promise: PromiseId, outcome: Outcome, sink: &mut impl JobSink<H>) {
        self.get(promise).already_resolved = true;
        match outcome {
            Outcome::Fulfilled => self.fulfill_promise(promise, sink),
            Outcome::Rejected(reason) => self.reject_unchecked(promise, reason, sink),
        }
    }

    // ---- running jobs ---------------------------------------------------------------------

    /// Run a job the caller took off the microtask queue: [`Promises::promise_reaction_job`] or
    /// [`Promises::promise_resolve_thenable_job`].
    pub fn run_job(&mut self, job: Job<H>, sink: &mut impl JobSink<H>) -> Result<JobOutcome<H>, LimitError> {
        match job.kind {
            JobKind::Reaction { reaction, outcome } => Ok(self.promise_reaction_job(reaction, outcome, sink)),
            JobKind::ResolveThenable { target, thenable, site } => {
                self.promise_resolve_thenable_job(target, thenable, site, sink)?;
                Ok(JobOutcome::Done)
            }
        }
    }

    /// PromiseReactionJob (V8 promise-reaction-job.tq; ECMA-262 §27.2.2.1): with a handler for
    /// the outcome, ask the caller to call it ([`JobOutcome::Call`]; `await`: [`JobOutcome::Resume`]);
    /// without one, pass the outcome through to the derived promise (rule 8b); adoption, element
    /// functions and `finally`'s thunks are done here.
    pub fn promise_reaction_job(&mut self, reaction: Reaction<H>, outcome: Outcome, sink: &mut impl JobSink<H>) -> JobOutcome<H> {
        let Reaction { kind, derived, site } = reaction;
        match kind {
            ReactionKind::Then { on_fulfilled, on_rejected } => {
                let handler = match outcome {
                    Outcome::Fulfilled => on_fulfilled,
                    Outcome::Rejected(_) => on_rejected,
                };
                match (handler, derived) {
                    (Some(handler), Some(derived)) => JobOutcome::Call {
                        handler,
                        outcome,
                        call: HandlerCall {
                            derived,
                            kind: CallKind::Then,
                            site,
                        },
                    },
                    (None, Some(derived)) => {
                        self.settle(derived, outcome, sink);
                        JobOutcome::Done
                    }
                    // No derived promise (not made by this arena's `then`): nothing to resolve.
                    (_, None) => JobOutcome::Done,
                }
            }
            ReactionKind::Await(continuation) => JobOutcome::Resume { continuation, outcome },
            ReactionKind::Adopt(target) => {
                self.settle(target, outcome, sink);
                JobOutcome::Done
            }
            ReactionKind::Element { combinator, index } => {
                self.element_function(combinator, index, outcome, sink);
                JobOutcome::Done
            }
            ReactionKind::Finally(handler) => match derived {
                Some(derived) => JobOutcome::Call {
                    handler,
                    outcome,
                    call: HandlerCall {
                        derived,
                        kind: CallKind::Finally(outcome),
                        site,
                    },
                },
                None => JobOutcome::Done,
            },
            ReactionKind::ValueThunk => {
                if let Some(derived) = derived {
                    // valueThunk returns the original value; a rejection of Promise.resolve(f())
                    // passes through (the thunk is only an on_fulfilled handler).
                    self.settle(derived, outcome, sink);
                }
                JobOutcome::Done
            }
            ReactionKind::Thrower(reason) => {
                if let Some(derived) = derived {
                    let reason = match outcome {
                        Outcome::Fulfilled => reason,
                        Outcome::Rejected(other) => other,
                    };
                    self.settle(derived, Outcome::Rejected(reason), sink);
                }
                JobOutcome::Done
            }
        }
    }

    /// PromiseResolveThenableJob (V8 promise-jobs.tq; ECMA-262 §27.2.2.2). A native promise takes
    /// V8's fast path (`then` is the initial `Promise.prototype.then`): PerformPromiseThen with an
    /// [`ReactionKind::Adopt`] reaction, queued now if it is settled — the second extra hop of rule
    /// 8c. A plain thenable calls `resolve()` inside this job: the target fulfils now.
    pub fn promise_resolve_thenable_job(
        &mut self,
        target: PromiseId,
        thenable: Thenable,
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<(), LimitError> {
        match thenable {
            Thenable::Native(q) => {
                let reaction = Reaction {
                    kind: ReactionKind::Adopt(target),
                    derived: None,
                    site,
                };
                self.perform_promise_then(q, reaction, sink)
            }
            Thenable::Plain => {
                self.fulfill_promise(target, sink);
                Ok(())
            }
        }
    }

    /// The caller ran a handler the engine asked for ([`JobOutcome::Call`]); `returned` is its
    /// completion. A `then` handler: resolve the derived promise with the returned value (R-resolve:
    /// a promise costs +2 hops, a thenable +1) or reject it with the thrown reason (ECMA-262
    /// §27.2.2.1 steps 1.g–1.i). A `finally` handler: [`Promises::then_finally`] /
    /// [`Promises::catch_finally`].
    pub fn handler_returned(&mut self, call: HandlerCall, returned: Returned, sink: &mut impl JobSink<H>) -> Result<(), LimitError> {
        let HandlerCall { derived, kind, site } = call;
        match kind {
            CallKind::Then => {
                match returned {
                    Returned::Threw(reason) => self.settle(derived, Outcome::Rejected(reason), sink),
                    Returned::Value => self.settle(derived, Outcome::Fulfilled, sink),
                    Returned::Promise(q) => {
                        self.resolve_checked(derived, Value::Promise(q), site, HopRule::Adoption, sink);
                    }
                    Returned::Thenable => {
                        self.resolve_checked(derived, Value::Thenable, site, HopRule::Adoption, sink);
                    }
                }
                Ok(())
            }
            CallKind::Finally(Outcome::Fulfilled) => self.then_finally(derived, returned, site, sink),
            CallKind::Finally(Outcome::Rejected(reason)) => self.catch_finally(derived, reason, returned, site, sink),
        }
    }

    // ---- await and async functions ----------------------------------------------------------

    /// `await x` (V8 `AsyncBuiltinsAssembler::Await`, builtins-async-gen.cc, the optimised await of
    /// V8 ≥ 7.2; ECMA-262 §27.7.5.3 Await): a native promise gets the continuation as a reaction
    /// directly (no wrapper: resumes one hop after it settles, at once if settled); anything else
    /// is first wrapped by `Promise.resolve` (a thenable: +1 hop). The caller suspends its frame.
    pub fn await_(&mut self, x: Value, continuation: H, site: Site, sink: &mut impl JobSink<H>) -> Result<(), LimitError> {
        let reaction = Reaction {
            kind: ReactionKind::Await(continuation),
            derived: None,
            site,
        };
        match x {
            Value::Promise(p) => self.perform_promise_then(p, reaction, sink),
            Value::Plain => {
                // The wrapper would be fulfilled and never seen again: queue its reaction job as
                // PerformPromiseThen on it would, without keeping the promise.
                let job = self.reaction_job(reaction, Outcome::Fulfilled, None, true);
                sink.queue(job);
                Ok(())
            }
            Value::Thenable => {
                let wrapper = self.promise_resolve_by(Value::Thenable, site, HopRule::Await, sink)?;
                self.perform_promise_then(wrapper, reaction, sink)
            }
        }
    }

    /// Calling an async function (V8 `AsyncFunctionEnter`, builtins-async-function-gen.cc;
    /// ECMA-262 §27.7.5.1 AsyncFunctionStart): its new pending promise. The caller runs the body
    /// synchronously until its first `await` (rule 8e) and hands the promise to the call site.
    pub fn async_function_enter(&mut self, site: Site) -> Result<PromiseId, LimitError> {
        self.alloc(site)
    }

    /// The async body returned `x` (V8 `AsyncFunctionResolve` → `ResolvePromise`; ECMA-262
    /// §27.7.5.2 step 3.d): resolve its promise — returning a promise goes through adoption
    /// (+2 hops, rule 8f/8c). Returns false if the promise was already resolved.
    pub fn async_function_resolve(&mut self, promise: PromiseId, x: Value, site: Site, sink: &mut impl JobSink<H>) -> bool {
        self.resolve_checked(promise, x, site, HopRule::AsyncReturn, sink)
    }

    /// A throw escaped the async body (V8 `AsyncFunctionReject`; ECMA-262 §27.7.5.2 step 3.g):
    /// reject its promise now (rule 8g). Returns false if the promise was already resolved.
    pub fn async_function_reject(&mut self, promise: PromiseId, reason: Site, sink: &mut impl JobSink<H>) -> bool {
        self.reject_promise(promise, reason, sink)
    }
}
