//! Why a promise job was queued: the parts of docs/scheduling.md rule 8 ("promise jobs (V8)").
//!
//! The engine stamps every [`Job`](super::Job) it queues with the part that queued it; `--explain`
//! turns the part and the job's facts into a sentence. Parts 8e, 8g, 8j, 8k and 8l are never put on
//! a job by the engine (they explain synchronous starts, throws, awaitable timers, the rejection
//! hook and top-level await, which the interpreter and scheduler place); they are here so that the
//! whole rule has one enum.

use std::fmt;

/// One part of rule 8: the reason a promise job (or a line a promise placed) ran when it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HopRule {
    /// 8a: a `then`/`catch` handler queued when its promise settled, or at once if it already had
    /// (V8 `PerformPromiseThen`, `TriggerPromiseReactions`; ECMA-262 §27.2.5.4.1, §27.2.1.8).
    Reaction,
    /// 8b: a link without a handler for this outcome passes it on to its derived promise in one
    /// hop (V8 `PromiseReactionJob` with an undefined handler; ECMA-262 §27.2.2.1 step 1.e/f).
    PassThrough,
    /// 8c: a promise resolved with a promise or thenable: a resolve-thenable job, then (native
    /// promise) an adoption reaction on it (V8 `ResolvePromise`, `PromiseResolveThenableJob` fast
    /// path; ECMA-262 §27.2.1.3.2 steps 13–16, §27.2.2.2).
    Adoption,
    /// 8d: an `await` continuation, one hop after the awaited promise settled (V8
    /// `AsyncBuiltinsAssembler::Await`, the V8 ≥ 7.2 optimised await; ECMA-262 §27.7.5.3 Await).
    Await,
    /// 8e: an executor or an async function body runs synchronously until its first `await`
    /// (V8 `PromiseConstructor`, `AsyncFunctionEnter`; ECMA-262 §27.2.3.1, §27.7.5.1).
    SyncStart,
    /// 8f: an async function's promise resolved by its `return` (V8 `AsyncFunctionResolve` →
    /// `ResolvePromise`; ECMA-262 §27.7.5.2 AsyncBlockStart step 3.d).
    AsyncReturn,
    /// 8g: a throw rejected a promise at once (V8 `AsyncFunctionReject`, the `PromiseReactionJob`
    /// catch, the executor's abrupt completion; ECMA-262 §27.2.2.1 step 1.h, §27.2.3.1 step 10).
    Throw,
    /// 8h: `finally` passes the outcome through `Promise.resolve(f())` and a thunk: two hops more
    /// than `then` (V8 promise-finally.tq `PromiseThenFinally`/`PromiseCatchFinally`; ECMA-262
    /// §27.2.5.3).
    Finally,
    /// 8i: a combinator's element function, and the combinator's promise settling in its job (V8
    /// promise-all.tq, promise-all-element-closure.tq, promise-any.tq, promise-race.tq; ECMA-262
    /// §27.2.4.1–§27.2.4.5).
    Combinator,
    /// 8j: a `timers/promises` timer or immediate resolved its promise in its callback (Node
    /// `lib/timers/promises.js` `setTimeout`, `setImmediate`).
    AwaitableTimer,
    /// 8k: the 'unhandledRejection'/'rejectionHandled' hook at the end of a drain (Node
    /// `lib/internal/process/promises.js` `processPromiseRejections`, `task_queues.js`
    /// `processTicksAndRejections`).
    Rejections,
    /// 8l: an ES module's body is an async function body (Node `run_main.js`; ECMA-262 §16.2.1.5.3.1
    /// ExecuteAsyncModule).
    TopLevelAwait,
}

impl HopRule {
    /// The part's number in docs/scheduling.md rule 8 (`"8a"` … `"8l"`).
    pub fn part(self) -> &'static str {
        match self {
            HopRule::Reaction => "8a",
            HopRule::PassThrough => "8b",
            HopRule::Adoption => "8c",
            HopRule::Await => "8d",
            HopRule::SyncStart => "8e",
            HopRule::AsyncReturn => "8f",
            HopRule::Throw => "8g",
            HopRule::Finally => "8h",
            HopRule::Combinator => "8i",
            HopRule::AwaitableTimer => "8j",
            HopRule::Rejections => "8k",
            HopRule::TopLevelAwait => "8l",
        }
    }

    /// The part's short name, as docs/scheduling.md titles it.
    pub fn name(self) -> &'static str {
        match self {
            HopRule::Reaction => "reaction",
            HopRule::PassThrough => "pass-through",
            HopRule::Adoption => "adoption",
            HopRule::Await => "await",
            HopRule::SyncStart => "synchronous start",
            HopRule::AsyncReturn => "async return",
            HopRule::Throw => "throw",
            HopRule::Finally => "finally",
            HopRule::Combinator => "combinator",
            HopRule::AwaitableTimer => "awaitable timer",
            HopRule::Rejections => "rejections",
            HopRule::TopLevelAwait => "top-level await",
        }
    }
}

impl fmt::Display for HopRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule {} ({})", self.part(), self.name())
    }
}
