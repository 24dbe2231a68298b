//! `Promise.all`, `allSettled`, `any`, `race` (rule 8i): V8 promise-all.tq,
//! promise-all-element-closure.tq, promise-any.tq, promise-race.tq; ECMA-262 §27.2.4.1–§27.2.4.5.
//!
//! Each element goes through `Promise.resolve` (a native promise is itself) and gets the element
//! functions as a reaction (queued now if it is settled). V8 takes its fast path (the initial
//! `then`) and makes no derived promise for that `then`. The combinator's promise settles inside
//! the job of the element function that decides it (an array is not a thenable: no adoption).

use super::{CombinatorId, HopRule, JobSink, LimitError, Outcome, PromiseId, Promises, Reaction, ReactionKind, Site, Value};

/// Which combinator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CombinatorKind {
    /// `Promise.all`: fulfils when every element fulfilled, rejects with the first rejection.
    All,
    /// `Promise.allSettled`: fulfils when every element settled.
    AllSettled,
    /// `Promise.any`: fulfils with the first fulfilment, rejects (AggregateError) when every
    /// element rejected.
    Any,
    /// `Promise.race`: settles like the first element to settle.
    Race,
}

/// One combinator call: its promise and `remainingElementsCount`.
#[derive(Clone, Debug)]
pub(super) struct Combinator {
    kind: CombinatorKind,
    result: PromiseId,
    /// ECMA-262 remainingElementsCount (unused by race).
    remaining: u32,
    /// Where it was called: the reason of `any`'s AggregateError.
    site: Site,
}

impl<H> Promises<H> {
    /// `Promise.all(elements)` (V8 `PromiseAll`, promise-all.tq; ECMA-262 §27.2.4.1
    /// PerformPromiseAll): the combinator's promise. An empty list fulfils it now.
    pub fn perform_promise_all(&mut self, elements: &[Value], site: Site, sink: &mut impl JobSink<H>) -> Result<PromiseId, LimitError> {
        self.perform_combinator(CombinatorKind::All, elements, site, sink)
    }

    /// `Promise.allSettled(elements)` (V8 `PromiseAllSettled`, promise-all.tq; ECMA-262
    /// §27.2.4.2 PerformPromiseAllSettled). An empty list fulfils it now.
    pub fn perform_promise_all_settled(
        &mut self,
        elements: &[Value],
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<PromiseId, LimitError> {
        self.perform_combinator(CombinatorKind::AllSettled, elements, site, sink)
    }

    /// `Promise.any(elements)` (V8 `PromiseAny`, promise-any.tq; ECMA-262 §27.2.4.3
    /// PerformPromiseAny). An empty list rejects it now (AggregateError, reason `site`).
    pub fn perform_promise_any(&mut self, elements: &[Value], site: Site, sink: &mut impl JobSink<H>) -> Result<PromiseId, LimitError> {
        self.perform_combinator(CombinatorKind::Any, elements, site, sink)
    }

    /// `Promise.race(elements)` (V8 `PromiseRace`, promise-race.tq; ECMA-262 §27.2.4.5
    /// PerformPromiseRace): the element functions are the promise's own resolve/reject. An empty
    /// list leaves it pending forever.
    pub fn perform_promise_race(&mut self, elements: &[Value], site: Site, sink: &mut impl JobSink<H>) -> Result<PromiseId, LimitError> {
        self.perform_combinator(CombinatorKind::Race, elements, site, sink)
    }

    /// The shared loop of the four: remainingElementsCount starts at 1, each element adds 1, and
    /// after the loop it drops by 1 (reaching 0 only for an empty list or elements whose jobs
    /// have not run yet: never here, they are all queued).
    pub fn perform_combinator(
        &mut self,
        kind: CombinatorKind,
        elements: &[Value],
        site: Site,
        sink: &mut impl JobSink<H>,
    ) -> Result<PromiseId, LimitError> {
        let result = self.alloc(site)?;
        let id = CombinatorId(self.combinators.len() as u32);
        self.combinators.push(Combinator {
            kind,
            result,
            remaining: 1,
            site,
        });
        for (index, &element) in elements.iter().enumerate() {
            let next = self.promise_resolve_by(element, site, HopRule::Combinator, sink)?;
            self.combinators[id.0 as usize].remaining += 1;
            let reaction = Reaction {
                kind: ReactionKind::Element {
                    combinator: id,
                    index: index as u32,
                },
                derived: None,
                site,
            };
            self.perform_promise_then(next, reaction, sink)?;
        }
        let c = &mut self.combinators[id.0 as usize];
        c.remaining -= 1;
        if c.remaining == 0 {
            match kind {
                CombinatorKind::All | CombinatorKind::AllSettled => {
                    self.resolve_promise(result, Value::Plain, site, sink);
                }
                CombinatorKind::Any => {
                    self.reject_promise(result, site, sink);
                }
                CombinatorKind::Race => {}
            }
        }
        Ok(result)
    }

    /// The element functions (V8 promise-all-element-closure.tq `PromiseAllResolveElementClosure`,
    /// `PromiseAllSettled{Resolve,Reject}ElementClosure`, promise-any.tq
    /// `PromiseAnyRejectElementClosure`, and the capability functions for `all`'s reject, `any`'s
    /// resolve and `race`): run inside the element's reaction job. The combinator's promise is
    /// settled through its resolving functions, so only the first decision counts.
    pub(super) fn element_function(&mut self, combinator: CombinatorId, _index: u32, outcome: Outcome, sink: &mut impl JobSink<H>) {
        let Some(c) = self.combinators.get_mut(combinator.0 as usize) else {
            return;
        };
        let (kind, result, site) = (c.kind, c.result, c.site);
        let count_down = |c: &mut Combinator| {
            c.remaining = c.remaining.saturating_sub(1);
            c.remaining == 0
        };
        match (kind, outcome) {
            (CombinatorKind::All, Outcome::Fulfilled) | (CombinatorKind::AllSettled, _) => {
                if count_down(c) {
                    self.resolve_promise(result, Value::Plain, site, sink);
                }
            }
            (CombinatorKind::All | CombinatorKind::Race, Outcome::Rejected(reason)) => {
                self.reject_promise(result, reason, sink);
            }
            (CombinatorKind::Any | CombinatorKind::Race, Outcome::Fulfilled) => {
                self.resolve_promise(result, Value::Plain, site, sink);
            }
            (CombinatorKind::Any, Outcome::Rejected(_)) => {
                if count_down(c) {
                    self.reject_promise(result, site, sink);
                }
            }
        }
    }
}
