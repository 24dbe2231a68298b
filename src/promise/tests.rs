//! The engine against Node 20.20.2's measured hops (notes: `hops.js`, `hops2.js`, `u_*.js`).
//!
//! A tiny harness plays the caller: one FIFO microtask queue (promise jobs and `queueMicrotask`
//! share it, as in V8), a nextTick queue, `processTicksAndRejections`, and handlers that log. A hop
//! is the round a job runs in: 1 + the hop of the code that queued it, 0 for synchronous code. Each
//! expected line below is what real `node` printed for the same program (`L('…')` prints `… @hop`).

use super::*;
use std::collections::HashMap;
use std::rc::Rc;

type Handler = Box<dyn FnOnce(&mut Harness, Outcome) -> Returned>;
type Listener = Rc<dyn Fn(&mut Harness, PromiseId)>;
type Callback = Box<dyn FnOnce(&mut Harness)>;

enum Task {
    Job(Job<Handler>),
    Micro(Callback),
}

struct Harness {
    engine: Promises<Handler>,
    micro: VecDeque<(Task, u32)>,
    ticks: VecDeque<Callback>,
    hop: u32,
    lines: Vec<String>,
    /// The rule of every job run, in order.
    rules: Vec<HopRule>,
    mode: RejectionsMode,
    on_unhandled: Vec<Listener>,
    on_handled: Vec<Listener>,
    exited: bool,
    names: HashMap<PromiseId, &'static str>,
}

const S: Site = Site(0);

impl Harness {
    fn new() -> Self {
        Harness {
            engine: Promises::new(),
            micro: VecDeque::new(),
            ticks: VecDeque::new(),
            hop: 0,
            lines: Vec::new(),
            rules: Vec::new(),
            mode: RejectionsMode::Throw,
            on_unhandled: Vec::new(),
            on_handled: Vec::new(),
            exited: false,
            names: HashMap::new(),
        }
    }

    /// `L(text)` of hops.js: the line and its hop.
    fn log(&mut self, text: &str) {
        self.lines.push(format!("{text} @{}", self.hop));
    }

    /// `console.log(text)`: the line alone.
    fn say(&mut self, text: &str) {
        self.lines.push(text.to_string());
    }

    fn name(&mut self, p: PromiseId, name: &'static str) -> PromiseId {
        self.names.insert(p, name);
        p
    }

    /// Run an engine operation; the jobs it queues go to the microtask queue, one hop later.
    fn op<R>(&mut self, f: impl FnOnce(&mut Promises<Handler>, &mut Vec<Job<Handler>>) -> R) -> R {
        let mut jobs = Vec::new();
        let r = f(&mut self.engine, &mut jobs);
        let hop = self.hop + 1;
        self.micro.extend(jobs.into_iter().map(|j| (Task::Job(j), hop)));
        r
    }

    fn queue_microtask(&mut self, f: impl FnOnce(&mut Harness) + 'static) {
        self.micro.push_back((Task::Micro(Box::new(f)), self.hop + 1));
    }

    fn next_tick(&mut self, f: impl FnOnce(&mut Harness) + 'static) {
        self.ticks.push_back(Box::new(f));
    }

    fn resolved(&mut self) -> PromiseId {
        self.op(|e, s| e.promise_resolve(Value::Plain, S, s)).unwrap()
    }

    fn rejected(&mut self, reason: u32) -> PromiseId {
        self.op(|e, s| e.promise_reject(Site(reason), s)).unwrap()
    }

    fn then(&mut self, p: PromiseId, f: Option<Handler>, r: Option<Handler>) -> PromiseId {
        self.op(|e, s| e.then(p, f, r, S, s)).unwrap()
    }

    fn then_log(&mut self, p: PromiseId, label: &'static str) -> PromiseId {
        self.then(p, Some(logs(label)), None)
    }

    fn catch_log(&mut self, p: PromiseId, label: &'static str) -> PromiseId {
        self.op(|e, s| e.catch(p, logs(label), S, s)).unwrap()
    }

    fn catch_say(&mut self, p: PromiseId, label: &'static str) -> PromiseId {
        self.op(|e, s| e.catch(p, says(label), S, s)).unwrap()
    }

    fn finally(&mut self, p: PromiseId, h: Handler) -> PromiseId {
        self.op(|e, s| e.promise_finally(p, h, S, s)).unwrap()
    }

    fn new_promise(&mut self) -> PromiseId {
        self.engine.new_promise(S).unwrap()
    }

    fn resolve(&mut self, p: PromiseId, x: Value) -> bool {
        self.op(|e, s| e.resolve_promise(p, x, S, s))
    }

    fn await_(&mut self, x: Value, k: impl FnOnce(&mut Harness, Outcome) + 'static) {
        let cont: Handler = Box::new(move |h, o| {
            k(h, o);
            Returned::Value
        });
        self.op(|e, s| e.await_(x, cont, S, s)).unwrap();
    }

    /// Call an async function: `body` runs now with the function's promise.
    fn call_async(&mut self, body: impl FnOnce(&mut Harness, PromiseId)) -> PromiseId {
        let p = self.engine.async_function_enter(S).unwrap();
        body(self, p);
        p
    }

    fn ret(&mut self, p: PromiseId, x: Value) {
        assert!(self.op(|e, s| e.async_function_resolve(p, x, S, s)));
    }

    fn throw(&mut self, p: PromiseId, reason: u32) {
        assert!(self.op(|e, s| e.async_function_reject(p, Site(reason), s)));
    }

    fn combinator(&mut self, kind: CombinatorKind, elements: &[Value]) -> PromiseId {
        self.op(|e, s| e.perform_combinator(kind, elements, S, s)).unwrap()
    }

    /// V8's microtask checkpoint: run the queue until it is empty.
    fn run_microtasks(&mut self) {
        while let Some((task, hop)) = self.micro.pop_front() {
            self.hop = hop;
            match task {
                Task::Micro(f) => f(self),
                Task::Job(job) => {
                    self.rules.push(job.rule);
                    match self.op(|e, s| e.run_job(job, s)).unwrap() {
                        JobOutcome::Done => {}
                        JobOutcome::Call { handler, outcome, call } => {
                            let returned = handler(self, outcome);
                            self.op(|e, s| e.handler_returned(call, returned, s)).unwrap();
                        }
                        JobOutcome::Resume { continuation, outcome } => {
                            continuation(self, outcome);
                        }
                    }
                }
            }
        }
        self.hop = 0;
    }

    /// `processTicksAndRejections` (task_queues.js l.67–99).
    fn process_ticks_and_rejections(&mut self) {
        loop {
            while let Some(tick) = self.ticks.pop_front() {
                self.hop = 0;
                tick(self);
            }
            self.run_microtasks();
            if !self.ticks.is_empty() {
                continue;
            }
            if !self.process_promise_rejections() {
                return;
            }
        }
    }

    /// `processPromiseRejections`, step by step, listeners run between steps.
    fn process_promise_rejections(&mut self) -> bool {
        let mut round = RejectionRound::new();
        loop {
            let listeners = Listeners {
                unhandled_rejection: !self.on_unhandled.is_empty(),
                rejection_handled: !self.on_handled.is_empty(),
            };
            let mode = self.mode;
            match round.next(self.engine.rejections_mut(), mode, listeners) {
                RejectionStep::Event(RejectionEvent::RejectionHandled { promise, .. }) => {
                    for l in self.on_handled.clone() {
                        l(self, promise);
                    }
                }
                RejectionStep::Event(RejectionEvent::UnhandledRejection { promise, warning, .. }) => {
                    for l in self.on_unhandled.clone() {
                        l(self, promise);
                    }
                    if warning {
                        let name = self.names.get(&promise).copied().unwrap_or("?");
                        self.lines.push(format!("(stderr) UnhandledPromiseRejectionWarning {name}"));
                    }
                }
                RejectionStep::Event(RejectionEvent::Exit { promise, code, .. }) => {
                    let name = self.names.get(&promise).copied().unwrap_or("?");
                    self.lines.push(format!("exit {code}: unhandled rejection of {name}"));
                    self.exited = true;
                    self.ticks.clear();
                    self.micro.clear();
                    return false;
                }
                RejectionStep::Done { again } => return again,
            }
        }
    }

    /// A macrotask (the main module, a timer, an immediate): its body, then the drain. Nothing runs
    /// once the process has exited.
    fn callback(&mut self, body: impl FnOnce(&mut Harness)) {
        if self.exited {
            return;
        }
        self.hop = 0;
        body(self);
        self.process_ticks_and_rejections();
    }

    /// Run `main` as the main module and return every line.
    fn main(body: impl FnOnce(&mut Harness)) -> Vec<String> {
        let mut h = Harness::new();
        h.callback(body);
        h.lines
    }
}

fn logs(label: &'static str) -> Handler {
    Box::new(move |h, _| {
        h.log(label);
        Returned::Value
    })
}

fn says(label: &'static str) -> Handler {
    Box::new(move |h, _| {
        h.say(label);
        Returned::Value
    })
}

fn returns(f: impl FnOnce(&mut Harness) -> Returned + 'static) -> Handler {
    Box::new(move |h, _| f(h))
}

/// A promise resolved two hops from now (`queueMicrotask(() => queueMicrotask(() => { L('resolve
/// pending'); r(); }))`).
fn resolve_at_hop_2(h: &mut Harness, p: PromiseId) {
    h.queue_microtask(move |h| {
        h.queue_microtask(move |h| {
            h.log("resolve pending");
            h.resolve(p, Value::Plain);
        })
    });
}

fn lines(expected: &[&str]) -> Vec<String> {
    expected.iter().map(|s| s.to_string()).collect()
}

// ---- hops.js: then ---------------------------------------------------------------------------

#[test]
fn then_plain() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        let d = h.then_log(p, "then 1");
        h.then_log(d, "then 2");
    });
    assert_eq!(out, lines(&["then 1 @1", "then 2 @2"]));
}

#[test]
fn then_on_resolved_twice() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        h.then_log(p, "A1");
        h.then_log(p, "B1");
    });
    assert_eq!(out, lines(&["A1 @1", "B1 @1"]));
}

#[test]
fn then_throws() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        let d = h.then(p, Some(returns(|_| Returned::Threw(Site(1)))), None);
        h.catch_log(d, "catch after throwing then");
    });
    assert_eq!(out, lines(&["catch after throwing then @2"]));
}

#[test]
fn then_returns_promise() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        let d = h.then(p, Some(returns(|h| Returned::Promise(h.resolved()))), None);
        h.then_log(d, "after then returning promise");
    });
    assert_eq!(out, lines(&["after then returning promise @4"]));
}

#[test]
fn then_returns_thenable() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        let d = h.then(p, Some(returns(|_| Returned::Thenable)), None);
        h.then_log(d, "after then returning thenable");
    });
    assert_eq!(out, lines(&["after then returning thenable @3"]));
}

#[test]
fn reject_pass_through() {
    let out = Harness::main(|h| {
        let p = h.rejected(1);
        let d1 = h.then(p, Some(returns(|_| Returned::Value)), None);
        let d2 = h.then(d1, Some(returns(|_| Returned::Value)), None);
        h.catch_log(d2, "catch after 2 pass-through");
    });
    assert_eq!(out, lines(&["catch after 2 pass-through @3"]));
}

#[test]
fn executor_resolve_value_promise_thenable() {
    let run = |x: fn(&mut Harness) -> Value, label: &'static str| {
        Harness::main(move |h| {
            let p = h.new_promise();
            let v = x(h);
            h.resolve(p, v);
            h.then_log(p, label);
        })
    };
    assert_eq!(
        run(|_| Value::Plain, "then of executor resolve(value)"),
        lines(&["then of executor resolve(value) @1"])
    );
    assert_eq!(
        run(|h| Value::Promise(h.resolved()), "then of executor resolve(promise)"),
        lines(&["then of executor resolve(promise) @3"])
    );
    assert_eq!(
        run(|_| Value::Thenable, "then of executor resolve(thenable)"),
        lines(&["then of executor resolve(thenable) @2"])
    );
}

#[test]
fn promise_resolve_identity_and_thenable() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        let q = h.op(|e, s| e.promise_resolve(Value::Promise(p), S, s)).unwrap();
        h.log(&format!("identity {}", p == q));
        h.then_log(q, "then of Promise.resolve(p)");
    });
    assert_eq!(out, lines(&["identity true @0", "then of Promise.resolve(p) @1"]));
    let out = Harness::main(|h| {
        let p = h.op(|e, s| e.promise_resolve(Value::Thenable, S, s)).unwrap();
        h.then_log(p, "then of Promise.resolve(thenable)");
    });
    assert_eq!(out, lines(&["then of Promise.resolve(thenable) @2"]));
}

// ---- hops.js: await and async functions ------------------------------------------------------

#[test]
fn await_value_settled_rejected_thenable() {
    let out = Harness::main(|h| {
        h.call_async(|h, p| h.await_(Value::Plain, move |h, _| (h.log("after await 1"), h.ret(p, Value::Plain)).1));
    });
    assert_eq!(out, lines(&["after await 1 @1"]));
    let out = Harness::main(|h| {
        let r = h.resolved();
        h.call_async(|h, p| {
            h.await_(Value::Promise(r), move |h, _| {
                (h.log("after await settled native"), h.ret(p, Value::Plain)).1
            })
        });
    });
    assert_eq!(out, lines(&["after await settled native @1"]));
    let out = Harness::main(|h| {
        h.call_async(|h, p| {
            let r = h.rejected(1);
            h.await_(Value::Promise(r), move |h, o| {
                assert_eq!(o, Outcome::Rejected(Site(1)));
                h.log("caught await rejected");
                h.ret(p, Value::Plain);
            })
        });
    });
    assert_eq!(out, lines(&["caught await rejected @1"]));
    let out = Harness::main(|h| {
        h.call_async(|h, p| {
            h.await_(Value::Thenable, move |h, _| {
                (h.log("after await thenable"), h.ret(p, Value::Plain)).1
            })
        });
    });
    assert_eq!(out, lines(&["after await thenable @2"]));
}

#[test]
fn await_pending_native() {
    let out = Harness::main(|h| {
        h.call_async(|h, f| {
            let p = h.new_promise();
            resolve_at_hop_2(h, p);
            h.await_(Value::Promise(p), move |h, _| {
                (h.log("after await pending"), h.ret(f, Value::Plain)).1
            });
        });
    });
    assert_eq!(out, lines(&["resolve pending @2", "after await pending @3"]));
}

/// `await f()` where `f` is `async () => X`.
fn await_async_returning(x: fn(&mut Harness) -> Value, label: &'static str) -> Vec<String> {
    Harness::main(move |h| {
        h.call_async(|h, outer| {
            let inner = h.call_async(|h, p| {
                let v = x(h);
                h.ret(p, v);
            });
            h.await_(Value::Promise(inner), move |h, _| (h.log(label), h.ret(outer, Value::Plain)).1);
        });
    })
}

#[test]
fn await_async_value_promise_thenable() {
    assert_eq!(
        await_async_returning(|_| Value::Plain, "after await asyncValue"),
        lines(&["after await asyncValue @1"])
    );
    assert_eq!(
        await_async_returning(|h| Value::Promise(h.resolved()), "after await asyncPromise"),
        lines(&["after await asyncPromise @3"])
    );
    assert_eq!(
        await_async_returning(|_| Value::Thenable, "after await asyncThenable"),
        lines(&["after await asyncThenable @2"])
    );
}

#[test]
fn async_value_and_promise_then() {
    let out = Harness::main(|h| {
        let f = h.call_async(|h, p| h.ret(p, Value::Plain));
        h.then_log(f, "then of async returning value");
    });
    assert_eq!(out, lines(&["then of async returning value @1"]));
    let out = Harness::main(|h| {
        let f = h.call_async(|h, p| {
            let r = h.resolved();
            h.ret(p, Value::Promise(r));
        });
        h.then_log(f, "then of async returning promise");
    });
    assert_eq!(out, lines(&["then of async returning promise @3"]));
}

#[test]
fn async_throw_before_and_after_await() {
    let out = Harness::main(|h| {
        let f = h.call_async(|h, p| h.throw(p, 1));
        h.catch_log(f, "catch of async throwing sync");
    });
    assert_eq!(out, lines(&["catch of async throwing sync @1"]));
    let out = Harness::main(|h| {
        let f = h.call_async(|h, p| h.await_(Value::Plain, move |h, _| h.throw(p, 1)));
        h.catch_log(f, "catch of async throwing after await");
    });
    assert_eq!(out, lines(&["catch of async throwing after await @2"]));
}

#[test]
fn nested_await_3() {
    let out = Harness::main(|h| {
        h.call_async(|h, top| {
            let b = h.call_async(|h, b| {
                let a = h.call_async(|h, a| h.await_(Value::Plain, move |h, _| h.ret(a, Value::Plain)));
                h.await_(Value::Promise(a), move |h, _| h.ret(b, Value::Plain));
            });
            h.await_(Value::Promise(b), move |h, _| {
                (h.log("after nested (b awaits a awaits null)"), h.ret(top, Value::Plain)).1
            });
        });
    });
    assert_eq!(out, lines(&["after nested (b awaits a awaits null) @3"]));
}

// ---- hops.js: finally ------------------------------------------------------------------------

#[test]
fn finally_fulfilled_and_rejected() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        let d = h.finally(p, logs("finally handler"));
        h.then_log(d, "after finally (fulfilled)");
    });
    assert_eq!(out, lines(&["finally handler @1", "after finally (fulfilled) @4"]));
    let out = Harness::main(|h| {
        let p = h.rejected(1);
        let d = h.finally(p, logs("finally handler (rejected)"));
        h.catch_log(d, "catch after finally (rejected)");
    });
    assert_eq!(out, lines(&["finally handler (rejected) @1", "catch after finally (rejected) @4"]));
}

#[test]
fn finally_returns_promise_and_throws() {
    let out = Harness::main(|h| {
        let p = h.resolved();
        let d = h.finally(p, returns(|h| Returned::Promise(h.resolved())));
        h.then_log(d, "after finally returning promise");
    });
    assert_eq!(out, lines(&["after finally returning promise @4"]));
    let out = Harness::main(|h| {
        let p = h.resolved();
        let d = h.finally(p, returns(|_| Returned::Threw(Site(2))));
        h.catch_log(d, "catch after finally throwing");
    });
    assert_eq!(out, lines(&["catch after finally throwing @2"]));
}

#[test]
fn finally_on_rejected_passes_the_original_reason() {
    let mut h = Harness::new();
    h.callback(|h| {
        let p = h.rejected(7);
        let d = h.finally(p, logs("f"));
        h.then(
            d,
            None,
            Some(Box::new(|h, o| {
                assert_eq!(o, Outcome::Rejected(Site(7)));
                h.log("reason 7");
                Returned::Value
            })),
        );
    });
    assert_eq!(h.lines, lines(&["f @1", "reason 7 @4"]));
}

// ---- hops.js: combinators --------------------------------------------------------------------

#[test]
fn combinators_over_settled_elements() {
    let run = |kind: CombinatorKind, rejected_first: bool, label: &'static str, catch: bool| {
        Harness::main(move |h| {
            let first = if rejected_first { h.rejected(1) } else { h.resolved() };
            let els: Vec<Value> = match kind {
                CombinatorKind::AllSettled => vec![Value::Promise(first)],
                CombinatorKind::Any if catch => vec![Value::Promise(first)],
                CombinatorKind::Any => vec![Value::Promise(first), Value::Promise(h.resolved())],
                _ => vec![Value::Promise(first), Value::Plain],
            };
            let c = h.combinator(kind, &els);
            if catch {
                h.catch_log(c, label);
            } else {
                h.then_log(c, label);
            }
        })
    };
    assert_eq!(run(CombinatorKind::All, false, "all", false), lines(&["all @2"]));
    assert_eq!(run(CombinatorKind::All, true, "all rejected", true), lines(&["all rejected @2"]));
    assert_eq!(run(CombinatorKind::Race, false, "race", false), lines(&["race @2"]));
    assert_eq!(
        run(CombinatorKind::AllSettled, true, "allSettled", false),
        lines(&["allSettled @2"])
    );
    assert_eq!(run(CombinatorKind::Any, true, "any", false), lines(&["any @2"]));
    assert_eq!(
        run(CombinatorKind::Any, true, "any rejected (AggregateError)", true),
        lines(&["any rejected (AggregateError) @2"])
    );
}

#[test]
fn all_empty_and_empty_lists() {
    let out = Harness::main(|h| {
        let c = h.combinator(CombinatorKind::All, &[]);
        h.then_log(c, "all of []");
    });
    assert_eq!(out, lines(&["all of [] @1"]));
    let mut h = Harness::new();
    let mut sink = Vec::new();
    let s = h.engine.perform_promise_all_settled(&[], S, &mut sink).unwrap();
    let a = h.engine.perform_promise_any(&[], Site(3), &mut sink).unwrap();
    let r = h.engine.perform_promise_race(&[], S, &mut sink).unwrap();
    assert_eq!(h.engine.state(s), PromiseState::Fulfilled);
    assert_eq!(h.engine.state(a), PromiseState::Rejected(Site(3)));
    assert_eq!(h.engine.state(r), PromiseState::Pending);
    assert!(sink.is_empty());
}

#[test]
fn all_pending_and_await_all() {
    let out = Harness::main(|h| {
        let p = h.new_promise();
        let c = h.combinator(CombinatorKind::All, &[Value::Promise(p), Value::Plain]);
        h.then_log(c, "all after pending resolved");
        resolve_at_hop_2(h, p);
    });
    assert_eq!(out, lines(&["resolve pending @2", "all after pending resolved @4"]));
    let out = Harness::main(|h| {
        h.call_async(|h, f| {
            let c = h.combinator(CombinatorKind::All, &[Value::Plain]);
            h.await_(Value::Promise(c), move |h, _| {
                (h.log("after await all([1])"), h.ret(f, Value::Plain)).1
            });
        });
    });
    assert_eq!(out, lines(&["after await all([1]) @2"]));
}

// ---- hops2.js: a pending native promise, adopted, raced, awaited, finally'd ------------------

#[test]
fn hops2_adoption_of_pending_promise() {
    let out = Harness::main(|h| {
        let q = h.new_promise();
        resolve_at_hop_2(h, q);
        let p = h.new_promise();
        h.resolve(p, Value::Promise(q));
        h.then_log(p, "then of p (resolved with pending q)");
        h.call_async(|h, f| h.await_(Value::Promise(p), move |h, _| (h.log("await p"), h.ret(f, Value::Plain)).1));
        let never = h.new_promise();
        let race = h.combinator(CombinatorKind::Race, &[Value::Promise(q), Value::Promise(never)]);
        h.then_log(race, "race over pending q");
        h.call_async(|h, f| h.await_(Value::Promise(q), move |h, _| (h.log("await q"), h.ret(f, Value::Plain)).1));
        let d = h.finally(q, logs("finally on q"));
        h.then_log(d, "after finally on q");
    });
    // `node hops2.js` (the 'resolve pending' line is its 'q resolved')
    assert_eq!(
        out,
        lines(&[
            "resolve pending @2",
            "await q @3",
            "finally on q @3",
            "race over pending q @4",
            "then of p (resolved with pending q) @4",
            "await p @4",
            "after finally on q @6",
        ])
    );
}

// ---- design §3: the classic puzzles ----------------------------------------------------------

/// a05 / a06: `async1` awaits `async2()`, which returns nothing (a05) or `Promise.resolve()` (a06).
fn classic_puzzle(async2_returns_promise: bool) -> Vec<String> {
    let mut h = Harness::new();
    h.callback(|h| {
        h.log("script start");
        // timeout 0 "setTimeout": a later macrotask, run below.
        h.call_async(|h, p1| {
            h.log("async1 start");
            let p2 = h.call_async(|h, p2| {
                h.log("async2");
                let x = if async2_returns_promise {
                    Value::Promise(h.resolved())
                } else {
                    Value::Plain
                };
                h.ret(p2, x);
            });
            h.await_(Value::Promise(p2), move |h, _| (h.log("async1 end"), h.ret(p1, Value::Plain)).1);
        });
        let p = h.new_promise();
        h.log("promise1");
        h.resolve(p, Value::Plain);
        let d2 = h.then_log(p, "promise2");
        let d3 = h.then_log(d2, "promise3");
        h.then_log(d3, "promise4");
        h.next_tick(|h| h.log("nextTick"));
        h.log("script end");
    });
    h.callback(|h| h.log("setTimeout"));
    h.lines
}

#[test]
fn a05_classic_puzzle() {
    assert_eq!(
        classic_puzzle(false),
        lines(&[
            "script start @0",
            "async1 start @0",
            "async2 @0",
            "promise1 @0",
            "script end @0",
            "nextTick @0",
            "async1 end @1",
            "promise2 @1",
            "promise3 @2",
            "promise4 @3",
            "setTimeout @0",
        ])
    );
}

#[test]
fn a06_async2_returns_a_promise() {
    assert_eq!(
        classic_puzzle(true),
        lines(&[
            "script start @0",
            "async1 start @0",
            "async2 @0",
            "promise1 @0",
            "script end @0",
            "nextTick @0",
            "promise2 @1",
            "promise3 @2",
            "async1 end @3",
            "promise4 @3",
            "setTimeout @0",
        ])
    );
}

#[test]
fn a06_rules_of_the_jobs_in_order() {
    let mut h = Harness::new();
    h.engine.record_facts(true);
    h.callback(|h| {
        let p2 = h.call_async(|h, p2| {
            let r = h.resolved();
            h.ret(p2, Value::Promise(r));
        });
        h.await_(Value::Promise(p2), |_, _| {});
        let p = h.resolved();
        let d2 = h.then_log(p, "promise2");
        h.then_log(d2, "promise3");
    });
    // hop 1: the return's resolve-thenable job, promise2; hop 2: adoption, promise3; hop 3: await.
    assert_eq!(
        h.rules,
        vec![
            HopRule::AsyncReturn,
            HopRule::Reaction,
            HopRule::Adoption,
            HopRule::Reaction,
            HopRule::Await
        ]
    );
}

#[test]
fn facts_say_who_queued_and_whether_already_settled() {
    let mut e: Promises<u8> = Promises::new();
    let mut jobs = Vec::new();
    let p = e.new_promise(Site(1)).unwrap();
    e.then(p, Some(1), None, Site(2), &mut jobs).unwrap();
    assert!(jobs.is_empty());
    e.resolve_promise(p, Value::Plain, Site(3), &mut jobs);
    assert!(jobs[0].facts.is_none(), "facts only when asked");
    e.record_facts(true);
    e.then(p, None, Some(2), Site(4), &mut jobs).unwrap();
    assert_eq!(jobs[1].rule, HopRule::PassThrough);
    assert_eq!(
        jobs[1].facts.as_deref(),
        Some(&JobFacts {
            site: Site(4),
            promise: Some(p),
            already_settled: true
        })
    );
    let q = e.new_promise(Site(5)).unwrap();
    e.then(q, Some(3), None, Site(6), &mut jobs).unwrap();
    e.resolve_promise(q, Value::Plain, Site(7), &mut jobs);
    assert_eq!(jobs[2].rule, HopRule::Reaction);
    assert_eq!(
        jobs[2].facts.as_deref(),
        Some(&JobFacts {
            site: Site(6),
            promise: Some(q),
            already_settled: false
        })
    );
}

// ---- resolving functions ---------------------------------------------------------------------

#[test]
fn already_resolved_ignores_later_resolve_and_reject() {
    let mut e: Promises<u8> = Promises::new();
    let mut jobs = Vec::new();
    let p = e.new_promise(S).unwrap();
    let q = e.new_promise(S).unwrap();
    assert!(e.resolve_promise(p, Value::Promise(q), S, &mut jobs));
    assert_eq!(e.state(p), PromiseState::Pending);
    assert!(e.already_resolved(p));
    assert!(!e.reject_promise(p, Site(9), &mut jobs), "locked in to q");
    assert!(!e.executor_threw(p, Site(9), &mut jobs));
    assert!(!e.resolve_promise(p, Value::Plain, S, &mut jobs));
    assert_eq!(jobs.len(), 1);
    // resolving a promise with itself rejects it (TypeError: Chaining cycle)
    let c = e.new_promise(S).unwrap();
    e.resolve_promise(c, Value::Promise(c), Site(4), &mut jobs);
    assert_eq!(e.state(c), PromiseState::Rejected(Site(4)));
}

#[test]
fn arena_limit_is_an_error_not_a_panic() {
    let mut e: Promises<u8> = Promises::with_limit(3);
    let mut jobs = Vec::new();
    let p = e.new_promise(S).unwrap();
    e.then(p, Some(1), None, S, &mut jobs).unwrap();
    e.then(p, Some(2), None, S, &mut jobs).unwrap();
    let err = e.then(p, Some(3), None, S, &mut jobs).unwrap_err();
    assert_eq!(
        err,
        LimitError {
            what: Bounded::Promises,
            limit: 3
        }
    );
    assert_eq!(err.to_string(), "more than 3 promises (the most a run holds)");
    assert_eq!(e.len(), 3);
    // reactions are bounded too (awaits make no promise)
    e.await_(Value::Promise(p), 4, S, &mut jobs).unwrap();
    let err = e.await_(Value::Promise(p), 5, S, &mut jobs).unwrap_err();
    assert_eq!(err.what, Bounded::Reactions);
    // settling frees the reaction slots
    e.resolve_promise(p, Value::Plain, S, &mut jobs);
    assert_eq!(jobs.len(), 3);
    e.await_(Value::Promise(p), 6, S, &mut jobs).unwrap();
    assert_eq!(jobs.len(), 4);
}

// ---- design §1.4: the unhandled-rejection tracker -------------------------------------------

fn listen_unhandled(h: &mut Harness) {
    h.on_unhandled.push(Rc::new(|h, p| {
        let name = h.names.get(&p).copied().unwrap_or("?");
        h.say(&format!("unhandledRejection {name}"));
    }));
}

fn listen_handled(h: &mut Harness) {
    h.on_handled.push(Rc::new(|h, p| {
        let name = h.names.get(&p).copied().unwrap_or("?");
        h.say(&format!("rejectionHandled {name}"));
    }));
}

/// a11: a rejection in the main module, no listener: `throw` ends the process after the drain;
/// `warn` goes on to the immediate.
fn a11(mode: RejectionsMode) -> Vec<String> {
    let mut h = Harness::new();
    h.mode = mode;
    h.callback(|h| {
        // immediate "immediate": the callback below
        let r = h.resolved();
        let d = h.then(r, Some(says("micro 1")), None);
        h.then(d, Some(says("micro 2")), None);
        h.next_tick(|h| h.say("tick"));
        let p = h.rejected(4);
        h.name(p, "rejected");
        h.say("sync");
    });
    h.callback(|h| h.say("immediate"));
    h.lines
}

#[test]
fn a11_throw_mode_ends_the_process() {
    assert_eq!(
        a11(RejectionsMode::Throw),
        lines(&["sync", "tick", "micro 1", "micro 2", "exit 1: unhandled rejection of rejected"])
    );
    assert_eq!(
        a11(RejectionsMode::Warn),
        lines(&[
            "sync",
            "tick",
            "micro 1",
            "micro 2",
            "(stderr) UnhandledPromiseRejectionWarning rejected",
            "immediate"
        ])
    );
}

#[test]
fn a07_late_catch_emits_rejection_handled() {
    let mut h = Harness::new();
    let mut p = PromiseId(0);
    h.callback(|h| {
        listen_unhandled(h);
        listen_handled(h);
        p = h.rejected(3);
        h.name(p, "p");
        h.next_tick(|h| h.say("tick"));
        let r = h.resolved();
        h.then(r, Some(says("micro")), None);
        h.say("sync");
    });
    assert_eq!(h.engine.rejections().maybe_unhandled(p).map(|i| i.warned), Some(true));
    h.callback(|h| {
        h.say("immediate attaches catch");
        h.catch_say(p, "catch handler");
    });
    assert_eq!(
        h.lines,
        lines(&[
            "sync",
            "tick",
            "micro",
            "unhandledRejection p",
            "immediate attaches catch",
            "catch handler",
            "rejectionHandled p",
        ])
    );
}

#[test]
fn a08_caught_in_the_same_drain_no_event() {
    let mut h = Harness::new();
    h.callback(|h| {
        listen_unhandled(h);
        let p = h.rejected(3);
        h.name(p, "p");
        h.next_tick(move |h| {
            let r = h.resolved();
            // `then { return p .catch "caught" }`: the handler returns p.catch(…)
            h.then(r, Some(returns(move |h| Returned::Promise(h.catch_say(p, "caught")))), None);
        });
        assert!(h.engine.rejections().is_pending(p));
    });
    h.callback(|h| h.say("immediate"));
    assert_eq!(h.lines, lines(&["caught", "immediate"]));
}

#[test]
fn u_late_tick_still_the_same_drain() {
    let mut h = Harness::new();
    h.callback(|h| {
        listen_unhandled(h);
        listen_handled(h);
        let p = h.rejected(1);
        h.next_tick(move |h| {
            h.queue_microtask(move |h| {
                h.next_tick(move |h| {
                    h.queue_microtask(move |h| {
                        h.catch_say(p, "caught");
                    })
                })
            })
        });
    });
    h.callback(|h| h.say("immediate"));
    assert_eq!(h.lines, lines(&["caught", "immediate"]));
}

#[test]
fn u_derived_reports_the_derived_promise() {
    let mut h = Harness::new();
    let mut original = PromiseId(0);
    h.callback(|h| {
        original = h.rejected(1);
        h.name(original, "original");
        let d = h.then(original, Some(says("never")), None);
        h.name(d, "derived");
        let r = h.resolved();
        let m1 = h.then(r, Some(says("micro 1")), None);
        let m2 = h.then(m1, Some(says("micro 2")), None);
        h.then(m2, Some(says("micro 3")), None);
    });
    h.callback(|h| h.say("immediate"));
    assert_eq!(
        h.lines,
        lines(&["micro 1", "micro 2", "micro 3", "exit 1: unhandled rejection of derived"])
    );
    assert!(h.engine.is_handled(original));
}

#[test]
fn u_order_handled_before_unhandled() {
    let mut h = Harness::new();
    let mut a = PromiseId(0);
    h.callback(|h| {
        listen_unhandled(h);
        listen_handled(h);
        a = h.rejected(1);
        h.name(a, "a");
    });
    h.callback(|h| {
        h.say("immediate: catch a, reject b");
        let b = h.rejected(2);
        h.name(b, "b");
        h.catch_say(a, "a caught");
        h.next_tick(|h| h.say("tick"));
    });
    assert_eq!(
        h.lines,
        lines(&[
            "unhandledRejection a",
            "immediate: catch a, reject b",
            "tick",
            "a caught",
            "rejectionHandled a",
            "unhandledRejection b",
        ])
    );
}

#[test]
fn u_listener_tick_runs_in_the_same_drain() {
    let mut h = Harness::new();
    h.callback(|h| {
        h.on_unhandled.push(Rc::new(|h, p| {
            let name = h.names.get(&p).copied().unwrap_or("?");
            h.say(&format!("unhandledRejection {name}"));
            h.next_tick(|h| h.say("tick from listener"));
            h.queue_microtask(|h| h.say("micro from listener"));
        }));
        let a = h.rejected(1);
        h.name(a, "a");
        let b = h.rejected(2);
        h.name(b, "b");
        h.next_tick(|h| h.say("tick"));
        h.queue_microtask(|h| h.say("micro"));
    });
    h.callback(|h| h.say("immediate"));
    assert_eq!(
        h.lines,
        lines(&[
            "tick",
            "micro",
            "unhandledRejection a",
            "unhandledRejection b",
            "tick from listener",
            "tick from listener",
            "micro from listener",
            "micro from listener",
            "immediate",
        ])
    );
}

/// Checked with node 20.20.2: a listener that catches `b` while `b` waits in the same batch does
/// not stop `b`'s report, and no 'rejectionHandled' follows (the batch is a snapshot; `b` is in
/// neither map when the catch is added).
#[test]
fn listener_catching_a_promise_of_the_same_batch() {
    let mut h = Harness::new();
    h.callback(|h| {
        let a = h.rejected(1);
        h.name(a, "a");
        let b = h.rejected(2);
        h.name(b, "b");
        h.on_unhandled.push(Rc::new(move |h, p| {
            let name = h.names.get(&p).copied().unwrap_or("?");
            h.say(&format!("unhandledRejection {name}"));
            if p == a {
                h.catch_say(b, "b caught");
            }
        }));
        listen_handled(h);
    });
    h.callback(|h| h.say("immediate"));
    assert_eq!(
        h.lines,
        lines(&["unhandledRejection a", "unhandledRejection b", "b caught", "immediate"])
    );
}

#[test]
fn u_immediates_and_u_async_and_u_late_timer() {
    // two immediates, the first rejects
    for (mode, expected) in [
        (RejectionsMode::Throw, vec!["imm 1", "exit 1: unhandled rejection of x"]),
        (
            RejectionsMode::Warn,
            vec!["imm 1", "(stderr) UnhandledPromiseRejectionWarning x", "imm 2"],
        ),
    ] {
        let mut h = Harness::new();
        h.mode = mode;
        h.callback(|_| {});
        h.callback(|h| {
            h.say("imm 1");
            let p = h.rejected(1);
            h.name(p, "x");
        });
        h.callback(|h| h.say("imm 2"));
        assert_eq!(h.lines, lines(&expected));
    }
    // an async function throws after `await null`; nobody catches; the timeout never runs
    let mut h = Harness::new();
    h.callback(|h| {
        let f = h.call_async(|h, f| {
            h.await_(Value::Plain, move |h, _| {
                h.say("f throws");
                h.throw(f, 1);
            })
        });
        h.name(f, "f()");
        h.next_tick(|h| h.say("tick"));
    });
    h.callback(|h| h.say("timeout"));
    assert_eq!(h.lines, lines(&["tick", "f throws", "exit 1: unhandled rejection of f()"]));
    // a catch attached from a later timer: too late in `throw` mode
    for (mode, expected) in [
        (RejectionsMode::Throw, vec!["exit 1: unhandled rejection of p"]),
        (
            RejectionsMode::Warn,
            vec!["(stderr) UnhandledPromiseRejectionWarning p", "caught late"],
        ),
    ] {
        let mut h = Harness::new();
        h.mode = mode;
        let mut p = PromiseId(0);
        h.callback(|h| {
            p = h.rejected(1);
            h.name(p, "p");
        });
        h.callback(|h| {
            h.catch_say(p, "caught late");
        });
        assert_eq!(h.lines, lines(&expected));
    }
}

#[test]
fn all_settled_of_rejected_is_not_reported() {
    let mut h = Harness::new();
    h.callback(|h| {
        let p = h.rejected(1);
        h.name(p, "rejected");
        let c = h.combinator(CombinatorKind::AllSettled, &[Value::Promise(p)]);
        h.then(c, Some(says("allSettled")), None);
    });
    assert_eq!(h.lines, lines(&["allSettled"]));
}

#[test]
fn report_lists_events_in_order() {
    let mut t = RejectionTracker::new();
    t.on_reject_with_no_handler(PromiseId(1), Site(10));
    t.on_reject_with_no_handler(PromiseId(2), Site(20));
    t.on_reject_with_no_handler(PromiseId(3), Site(30));
    t.on_handler_added_after_reject(PromiseId(2));
    let listeners = Listeners {
        unhandled_rejection: true,
        rejection_handled: false,
    };
    let (events, again) = t.process_promise_rejections(RejectionsMode::Throw, listeners);
    assert!(again);
    assert_eq!(
        events,
        vec![
            RejectionEvent::UnhandledRejection {
                promise: PromiseId(1),
                reason: Site(10),
                uid: 1,
                listened: true,
                warning: false
            },
            RejectionEvent::UnhandledRejection {
                promise: PromiseId(3),
                reason: Site(30),
                uid: 3,
                listened: true,
                warning: false
            },
        ]
    );
    t.on_handler_added_after_reject(PromiseId(3));
    let (events, again) = t.process_promise_rejections(RejectionsMode::Throw, Listeners::default());
    assert!(again);
    assert_eq!(
        events,
        vec![RejectionEvent::RejectionHandled {
            promise: PromiseId(3),
            uid: 3,
            listened: false
        }]
    );
    assert_eq!(
        t.process_promise_rejections(RejectionsMode::Throw, Listeners::default()),
        (vec![], false)
    );
}

/// Checked with node 20.20.2 `--unhandled-rejections=warn`: the listener runs and the warning is
/// still printed (`alwaysWarnUnhandledRejectionsMode` warns unconditionally); exit 0.
#[test]
fn warn_mode_warns_even_with_a_listener() {
    let mut h = Harness::new();
    h.mode = RejectionsMode::Warn;
    h.callback(|h| {
        listen_unhandled(h);
        let p = h.rejected(1);
        h.name(p, "x");
    });
    assert_eq!(
        h.lines,
        lines(&["unhandledRejection x", "(stderr) UnhandledPromiseRejectionWarning x"])
    );
    assert!(!h.exited);
}
