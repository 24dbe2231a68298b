//! `Promise.prototype.finally` (V8 promise-finally.tq; ECMA-262 §27.2.5.3), rule 8h.
//!
//! `p.finally(f)` is `p.then(thenFinally, catchFinally)`; each calls `f()`, then returns
//! `Promise.resolve(result).then(valueThunk)` (or `.then(thrower)`), so the derived promise is
//! resolved with a promise: adoption (+2 hops) on top of the thunk's own hop.

use super::{HopRule, JobSink, LimitError, PromiseId, Promises, Reaction, ReactionKind, Returned, Site, Value};

impl<H> Promises<H> {
    /// `p.finally(on_finally)` (V8 `PromisePrototypeFinally`; ECMA-262 §27.2.5.3): one reaction
    /// standing for `then(thenFinally, catchFinally)`; its job asks the caller to call
    /// `on_finally` (either outcome). Returns the derived promise.
    pub fn promise_finally(
        &mut self,
        promise: PromiseId,
        on_finally: H,
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<PromiseId, LimitError> {
        let derived = self.alloc(site)?;
        let reaction = Reaction {
            kind: ReactionKind::Finally(on_finally),
            derived: Some(derived),
            site,
        };
        self.perform_promise_then(promise, reaction, sink)?;
        Ok(derived)
    }

    /// `thenFinally` after `on_finally()` completed (V8 `PromiseThenFinally`; ECMA-262 §27.2.5.3.1):
    /// a throw rejects `derived`; otherwise `q = Promise.resolve(result)`, `e = q.then(valueThunk)`
    /// (queued now if `q` is settled) and `derived` is resolved with `e` (a resolve-thenable job).
    pub fn then_finally(
        &mut self,
        derived: PromiseId,
        returned: Returned,
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<(), LimitError> {
        self.finally_continue(derived, ReactionKind::ValueThunk, returned, site, sink)
    }

    /// `catchFinally` after `on_finally()` completed (V8 `PromiseCatchFinally`; ECMA-262
    /// §27.2.5.3.2): as [`Promises::then_finally`] with `thrower` (which rethrows `reason`) instead of
    /// `valueThunk`.
    pub fn catch_finally(
        &mut self,
        derived: PromiseId,
        reason: Site,
        returned: Returned,
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<(), LimitError> {
        self.finally_continue(derived, ReactionKind::Thrower(reason), returned, site, sink)
    }

    fn finally_continue(
        &mut self,
        derived: PromiseId,
        thunk: ReactionKind<H>,
        returned: Returned,
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<(), LimitError> {
        let value = match returned {
            Returned::Threw(reason) => {
                self.reject_promise(derived, reason, sink);
                return Ok(());
            }
            Returned::Value => Value::Plain,
            Returned::Promise(p) => Value::Promise(p),
            Returned::Thenable => Value::Thenable,
        };
        let q = self.promise_resolve_by(value, site, HopRule::Finally, sink)?;
        let e = self.alloc(site)?;
        let reaction = Reaction {
            kind: thunk,
            derived: Some(e),
            site,
        };
        self.perform_promise_then(q, reaction, sink)?;
        self.resolve_checked(derived, Value::Promise(e), site, HopRule::Finally, sink);
        Ok(())
    }
}
