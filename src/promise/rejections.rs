//! Node's unhandled-rejection tracker: a mirror of `lib/internal/process/promises.js` (Node 20).
//!
//! V8 reports two events through `HostPromiseRejectionTracker` (Node's `promiseRejectHandler`):
//! a promise rejected while it had no handler ([`RejectionTracker::on_reject_with_no_handler`],
//! `kPromiseRejectWithNoHandler`), and a handler added to a rejected promise that had none
//! ([`RejectionTracker::on_handler_added_after_reject`], `kPromiseHandlerAddedAfterReject`). Node
//! keeps them until `processPromiseRejections` runs at the end of a drain
//! (`processTicksAndRejections` in `lib/internal/process/task_queues.js`: only when both the nextTick
//! queue and the microtask queue are empty); a promise handled before then is never reported.
//!
//! `processPromiseRejections` calls user listeners between its entries, and a listener may add
//! handlers or reject promises while the call is under way, so it is played one step at a time by a
//! [`RejectionRound`]: the caller runs the listeners of each step before asking for the next.

use super::{PromiseId, Site};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, VecDeque};

/// `--unhandled-rejections` mode (Node `getUnhandledRejectionsMode`, promises.js l.415).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RejectionsMode {
    /// `throw`, Node ≥ 15's default (`throwUnhandledRejectionsMode`, l.383): emit
    /// 'unhandledRejection'; with no listener the error is thrown as an uncaught exception and the
    /// process ends with exit code 1.
    #[default]
    Throw,
    /// `warn` (`alwaysWarnUnhandledRejectionsMode`, l.370): emit 'unhandledRejection', then print
    /// an `UnhandledPromiseRejectionWarning`; the process goes on.
    Warn,
}

/// What Node remembers of a rejection (promises.js `PromiseInfo`, l.124).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RejectionInfo {
    /// The rejection reason (the site the caller named when it rejected).
    pub reason: Site,
    /// `uid`: the "rejection id" Node prints in its warnings (`++lastPromiseId`, l.260), from 1.
    pub uid: u32,
    /// `warned`: already passed to the mode handler by a `processPromiseRejections`.
    pub warned: bool,
}

/// Which process listeners exist when a step is taken (`process.listenerCount(…) > 0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Listeners {
    /// At least one `process.on('unhandledRejection')` listener.
    pub unhandled_rejection: bool,
    /// At least one `process.on('rejectionHandled')` listener.
    pub rejection_handled: bool,
}

/// One thing `processPromiseRejections` did, in the order it did them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionEvent {
    /// 'rejectionHandled' emitted for a promise reported earlier that got a handler since
    /// (promises.js l.441). `listened: false`: no listener, Node prints a
    /// `PromiseRejectionHandledWarning` on stderr instead (l.442).
    RejectionHandled {
        /// The promise.
        promise: PromiseId,
        /// Its rejection id.
        uid: u32,
        /// A listener ran (the caller runs them now).
        listened: bool,
    },
    /// 'unhandledRejection' emitted (`emitUnhandledRejection`, l.247); the process goes on. The
    /// caller runs the listeners now when `listened`.
    UnhandledRejection {
        /// The promise that rejected with no handler.
        promise: PromiseId,
        /// Its rejection reason.
        reason: Site,
        /// Its rejection id.
        uid: u32,
        /// A listener ran.
        listened: bool,
        /// `warn` mode: Node also prints an `UnhandledPromiseRejectionWarning` (two lines on stderr,
        /// written from a nextTick by `process.emitWarning`, l.292).
        warning: bool,
    },
    /// `throw` mode and no 'unhandledRejection' listener: `triggerUncaughtException(err, true)`
    /// (l.391) ends the process inside this call: nothing else runs (no later entry, nextTick,
    /// timer or immediate). Node prints the reason and its stack on stderr.
    Exit {
        /// The promise that rejected with no handler.
        promise: PromiseId,
        /// Its rejection reason.
        reason: Site,
        /// Its rejection id.
        uid: u32,
        /// The process exit code: 1, even when the program set `process.exitCode`.
        code: i32,
    },
}

/// The next step of a [`RejectionRound`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectionStep {
    /// An event: run its listeners (if any) before asking for the next step.
    Event(RejectionEvent),
    /// The call is over. `again`: it ran a listener or warned, or a new rejection is pending, so the
    /// drain goes round again (`processTicksAndRejections`'s `while`, task_queues.js l.96).
    Done {
        /// `processPromiseRejections`'s return value.
        again: bool,
    },
}

/// Node's tracker: `pendingUnhandledRejections`, `maybeUnhandledPromises`,
/// `asyncHandledRejections` of promises.js.
#[derive(Clone, Debug, Default)]
pub struct RejectionTracker {
    /// `pendingUnhandledRejections` (a `Map`, insertion-ordered): keyed by uid, which grows with
    /// each insertion, so iteration order is insertion order.
    pending: BTreeMap<u32, (PromiseId, Site)>,
    /// promise → its key in `pending`.
    pending_index: FxHashMap<PromiseId, u32>,
    /// `maybeUnhandledPromises` (a `WeakMap`): rejections already passed to the mode handler.
    maybe_unhandled: FxHashMap<PromiseId, RejectionInfo>,
    /// `asyncHandledRejections`: reported rejections handled since, waiting for 'rejectionHandled'.
    async_handled: VecDeque<(PromiseId, u32)>,
    /// `lastPromiseId`.
    last_id: u32,
    /// `tickInfo[kHasRejectionToWarn]`.
    has_rejection_to_warn: bool,
}

impl RejectionTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// V8's `kPromiseRejectWithNoHandler` (a promise rejected while it had no handler): Node's
    /// `unhandledRejection` (promises.js l.257): remember it in `pendingUnhandledRejections` with a
    /// new uid, `warned: false`, and set `hasRejectionToWarn`.
    pub fn on_reject_with_no_handler(&mut self, promise: PromiseId, reason: Site) {
        self.last_id = self.last_id.wrapping_add(1);
        let uid = self.last_id;
        if let Some(old) = self.pending_index.insert(promise, uid) {
            // `Map.set` on a key already there (cannot happen: a promise rejects once) keeps its place.
            self.pending.remove(&old);
        }
        self.pending.insert(uid, (promise, reason));
        self.has_rejection_to_warn = true;
    }

    /// V8's `kPromiseHandlerAddedAfterReject` (a handler added to a rejected promise that had
    /// none): Node's `handledRejection` (promises.js l.270). Still pending (same drain): forget it,
    /// no event ever. Already reported (`warned`): queue a 'rejectionHandled'.
    pub fn on_handler_added_after_reject(&mut self, promise: PromiseId) {
        if let Some(uid) = self.pending_index.remove(&promise) {
            self.pending.remove(&uid);
            return;
        }
        if let Some(info) = self.maybe_unhandled.remove(&promise) {
            if info.warned {
                self.async_handled.push_back((promise, info.uid));
                self.has_rejection_to_warn = true;
            }
        }
    }

    /// `hasRejectionToWarn()`: Node's C++ side enters the tick callback after a callback when this
    /// is set even if no nextTick is queued (`InternalCallbackScope::Close`, src/api/callback.cc).
    pub fn has_rejection_to_warn(&self) -> bool {
        self.has_rejection_to_warn
    }

    /// `setHasRejectionToWarn(false)`, done at the end of `processTicksAndRejections`
    /// (task_queues.js l.98).
    pub fn clear_rejection_to_warn(&mut self) {
        self.has_rejection_to_warn = false;
    }

    /// Whether `promise` waits in `pendingUnhandledRejections` (rejected with no handler in this
    /// drain, not reported yet).
    pub fn is_pending(&self, promise: PromiseId) -> bool {
        self.pending_index.contains_key(&promise)
    }

    /// The pending rejections, in insertion order (the order they will be reported).
    pub fn pending(&self) -> impl Iterator<Item = (PromiseId, Site)> + '_ {
        self.pending.values().copied()
    }

    /// What Node remembers of a reported rejection that has no handler yet (`maybeUnhandledPromises`).
    pub fn maybe_unhandled(&self, promise: PromiseId) -> Option<RejectionInfo> {
        self.maybe_unhandled.get(&promise).copied()
    }

    /// How many 'rejectionHandled' events wait for the next `processPromiseRejections`.
    pub fn async_handled_len(&self) -> usize {
        self.async_handled.len()
    }

    /// `processPromiseRejections` (promises.js l.436) when no listener can touch promises: every
    /// step of a [`RejectionRound`], in order. A caller whose listeners add handlers or reject
    /// promises must step a round itself, running each listener before the next step (Node
    /// reports a promise of the same batch even when an earlier listener handled it).
    pub fn process_promise_rejections(&mut self, mode: RejectionsMode, listeners: Listeners) -> (Vec<RejectionEvent>, bool) {
        let mut round = RejectionRound::new();
        let mut events = Vec::new();
        loop {
            match round.next(self, mode, listeners) {
                RejectionStep::Event(e) => events.push(e),
                RejectionStep::Done { again } => return (events, again),
            }
        }
    }
}

#[derive(Debug, Default)]
enum RoundPhase {
    /// Not started: `maybeScheduledTicksOrMicrotasks` not computed yet.
    #[default]
    Start,
    /// Emitting 'rejectionHandled' for `asyncHandledRejections` (l.439–444; the array is live).
    Handled,
    /// Passing the snapshot of `pendingUnhandledRejections` to the mode handler (l.449–477).
    Unhandled(BTreeMap<u32, (PromiseId, Site)>),
    /// Returned, or the process ended.
    Over,
}

/// One call of Node's `processPromiseRejections` (promises.js l.436), played step by step: first
/// every 'rejectionHandled' (handled before unhandled), then a snapshot of the pending rejections,
/// each moved to `maybeUnhandledPromises` with `warned = true` just before its mode handler runs.
#[derive(Debug, Default)]
pub struct RejectionRound {
    phase: RoundPhase,
    /// `maybeScheduledTicksOrMicrotasks`.
    did_something: bool,
}

impl RejectionRound {
    /// A call that has not started.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next step. `listeners` says which process listeners exist now (a listener may add
    /// one). After [`RejectionEvent::Exit`] the process is gone and every further step is
    /// `Done { again: false }`.
    pub fn next(&mut self, tracker: &mut RejectionTracker, mode: RejectionsMode, listeners: Listeners) -> RejectionStep {
        loop {
            match &mut self.phase {
                RoundPhase::Start => {
                    self.did_something = !tracker.async_handled.is_empty();
                    self.phase = RoundPhase::Handled;
                }
                RoundPhase::Handled => {
                    if let Some((promise, uid)) = tracker.async_handled.pop_front() {
                        return RejectionStep::Event(RejectionEvent::RejectionHandled {
                            promise,
                            uid,
                            listened: listeners.rejection_handled,
                        });
                    }
                    tracker.pending_index.clear();
                    self.phase = RoundPhase::Unhandled(std::mem::take(&mut tracker.pending));
                }
                RoundPhase::Unhandled(snapshot) => {
                    let Some((uid, (promise, reason))) = snapshot.pop_first() else {
                        self.phase = RoundPhase::Over;
                        return RejectionStep::Done {
                            again: self.did_something || !tracker.pending.is_empty(),
                        };
                    };
                    tracker.maybe_unhandled.insert(promise, RejectionInfo { reason, uid, warned: true });
                    self.did_something = true;
                    let event = match mode {
                        RejectionsMode::Throw if !listeners.unhandled_rejection => {
                            self.phase = RoundPhase::Over;
                            RejectionEvent::Exit {
                                promise,
                                reason,
                                uid,
                                code: 1,
                            }
                        }
                        RejectionsMode::Throw => RejectionEvent::UnhandledRejection {
                            promise,
                            reason,
                            uid,
                            listened: true,
                            warning: false,
                        },
                        RejectionsMode::Warn => RejectionEvent::UnhandledRejection {
                            promise,
                            reason,
                            uid,
                            listened: listeners.unhandled_rejection,
                            warning: true,
                        },
                    };
                    return RejectionStep::Event(event);
                }
                RoundPhase::Over => return RejectionStep::Done { again: false },
            }
        }
    }
}
