//! Unit tests of the scheduler alone, one group per rule of docs/scheduling.md.
//! A tiny host runs scripted callbacks: each callback is an index into a
//! table of operations.

use super::*;
use crate::sched::NodeVersion;

/// What a scripted callback does (shared with the decision tests).
#[derive(Clone, Debug)]
pub(super) enum Op {
    Log(&'static str),
    Timeout(u64, usize),
    Interval(u64, usize),
    Immediate(usize),
    NextTick(usize),
    Microtask(usize),
    Submit(u64, usize),
    Io(u64, usize),
    Pending(usize),
    Close(usize),
    Work(u64),
    /// Clears the handle remembered under this slot.
    Clear(usize),
    /// Clears the running interval after its `n`-th run.
    StopAfter(u64),
    /// Schedules the same callback again as an immediate.
    AgainImmediate,
}

/// A host whose callbacks are indexes into a table of operations; it keeps
/// the `Log` lines and the decision each callback ran under.
pub(super) struct Script {
    table: Vec<Vec<Op>>,
    handles: Vec<Option<Handle>>,
    log: Vec<(u64, u64, Phase, &'static str)>,
    pub(super) seen: Vec<(usize, Decision)>,
}

impl Script {
    fn new(table: Vec<Vec<Op>>) -> Self {
        let n = table.len();
        Script {
            table,
            handles: vec![None; n],
            log: Vec::new(),
            seen: Vec::new(),
        }
    }
}

/// Runs `table`'s callback 0 as the main module to the end, recording
/// decisions when `decisions` is on; returns the script with what it saw.
pub(super) fn run_script(module: Module, node: NodeProfile, pool: usize, table: Vec<Vec<Op>>, decisions: bool) -> Script {
    let mut script = Script::new(table);
    let mut s = Scheduler::new(pool, module, Limits::default())
        .with_node(node)
        .with_decisions(decisions);
    s.run(0, &mut script).expect("finite run");
    script
}

impl Host<usize, Scheduler<usize>> for Script {
    type Stop = (LimitKind, Phase);

    fn call(&mut self, s: &mut Scheduler<usize>, &cb: &usize, ctx: Ctx) -> Result<(), Self::Stop> {
        self.seen.push((cb, *ctx.decision));
        for op in self.table[cb].clone() {
            match op {
                Op::Log(t) => self.log.push((s.turn(), s.now(), ctx.phase, t)),
                Op::Timeout(d, c) => self.handles[c] = Some(s.set_timeout(d, c)),
                Op::Interval(d, c) => self.handles[c] = Some(s.set_interval(d, c)),
                Op::Immediate(c) => self.handles[c] = Some(s.set_immediate(c)),
                Op::NextTick(c) => s.next_tick(c),
                Op::Microtask(c) => s.queue_microtask(c),
                Op::Submit(t, c) => s.submit(t, c),
                Op::Io(a, c) => s.io(a, c),
                Op::Pending(c) => s.defer_pending(c),
                Op::Close(c) => s.close(c),
                Op::Work(n) => s.work(n),
                Op::Clear(c) => {
                    if let Some(h) = self.handles[c] {
                        s.clear(h);
                    }
                }
                Op::StopAfter(n) => {
                    if ctx.run >= n {
                        s.clear(ctx.handle.expect("a timer"));
                    }
                }
                Op::AgainImmediate => {
                    s.set_immediate(cb);
                }
            }
        }
        Ok(())
    }

    fn limit(&mut self, _s: &Scheduler<usize>, kind: LimitKind, phase: Phase) -> Self::Stop {
        (kind, phase)
    }
}

/// Runs callback 0 as the main module; returns "turn@tick phase text" lines.
fn run_with(module: Module, pool: usize, table: Vec<Vec<Op>>) -> Vec<String> {
    run_script(module, NodeProfile::Node20, pool, table, false)
        .log
        .iter()
        .map(|(turn, tick, phase, t)| format!("{turn}@{tick} {phase} {t}"))
        .collect()
}

fn run(table: Vec<Vec<Op>>) -> Vec<String> {
    run_with(Module::Cjs, 4, table)
}

use Op::*;

// Rule 1: the main module.
#[test]
fn cjs_main_runs_at_turn_0_then_drains_ticks_before_microtasks() {
    let out = run(vec![
        vec![Microtask(1), NextTick(2), Log("main")],
        vec![Log("micro")],
        vec![Log("tick")],
    ]);
    assert_eq!(out, ["0@0 main main", "0@0 nextTick tick", "0@0 microtask micro"]);
}

#[test]
fn esm_main_runs_in_turn_1_poll_microtasks_first_and_immediate_before_timeout() {
    let table = vec![
        vec![Log("body"), Timeout(0, 1), Immediate(2), NextTick(3), Microtask(4)],
        vec![Log("timeout")],
        vec![Log("immediate")],
        vec![Log("tick")],
        vec![Log("micro")],
    ];
    let out = run_with(Module::Esm, 4, table);
    assert_eq!(
        out,
        [
            "1@0 main body",
            "1@0 microtask micro",
            "1@0 nextTick tick",
            "1@0 check immediate",
            "2@1 timers timeout"
        ]
    );
}

// Rule 2: turns, sleep, snapshots, close LIFO, a turn lasts a tick.
#[test]
fn a_long_wait_costs_one_turn() {
    let out = run(vec![vec![Immediate(1), Timeout(100, 2)], vec![Log("check")], vec![Log("timer")]]);
    assert_eq!(out, ["1@0 check check", "2@100 timers timer"]);
}

#[test]
fn timeout_0_from_poll_waits_for_the_next_turn() {
    let table = vec![
        vec![Io(0, 1)],
        vec![Log("read"), Timeout(0, 2), Immediate(3), NextTick(4)],
        vec![Log("timer")],
        vec![Log("immediate")],
        vec![Log("tick")],
    ];
    assert_eq!(
        run(table),
        ["1@0 poll read", "1@0 nextTick tick", "1@0 check immediate", "2@1 timers timer"]
    );
}

#[test]
fn check_queue_is_a_snapshot() {
    let table = vec![
        vec![Io(0, 1)],
        vec![Timeout(0, 2), Immediate(3)],
        vec![Log("timer")],
        vec![Log("first"), Immediate(4)],
        vec![Log("second")],
    ];
    assert_eq!(run(table), ["1@0 check first", "2@1 timers timer", "2@1 check second"]);
}

#[test]
fn close_callbacks_run_last_in_first_out() {
    let table = vec![vec![Close(1), Close(2), Close(3)], vec![Log("a")], vec![Log("b")], vec![Log("c")]];
    assert_eq!(run(table), ["1@0 close c", "1@0 close b", "1@0 close a"]);
}

#[test]
fn pending_from_timers_runs_same_turn_from_check_next_turn() {
    let table = vec![
        vec![Timeout(1, 1), Immediate(2)],
        vec![Log("timer"), Pending(3)],
        vec![Log("immediate"), Pending(4)],
        vec![Log("deferred by timer")],
        vec![Log("deferred by check")],
    ];
    assert_eq!(
        run(table),
        [
            "1@0 check immediate",
            "2@1 timers timer",
            "2@1 pending deferred by check",
            "2@1 pending deferred by timer"
        ]
    );
}

#[test]
fn pending_deferred_in_poll_runs_before_check() {
    let table = vec![
        vec![Io(0, 1), Immediate(2)],
        vec![Log("read"), Pending(3)],
        vec![Log("immediate")],
        vec![Log("deferred"), Pending(4)],
        vec![Log("deferred again")],
    ];
    assert_eq!(
        run(table),
        [
            "1@0 poll read",
            "1@0 pending deferred",
            "1@0 pending deferred again",
            "1@0 check immediate"
        ]
    );
}

#[test]
fn a_turn_lasts_at_least_one_tick_or_its_work() {
    let table = vec![
        vec![Immediate(1)],
        vec![Log("a"), Immediate(2)],
        vec![Log("b"), Work(5), Immediate(3)],
        vec![Log("c")],
    ];
    assert_eq!(run(table), ["1@0 check a", "2@1 check b", "3@6 check c"]);
}

#[test]
fn poll_callbacks_run_by_ready_tick_then_start_order() {
    let table = vec![
        vec![Io(5, 1), Submit(3, 2), Io(3, 3), Immediate(4)],
        vec![Log("io at 5")],
        vec![Log("job at 3")],
        vec![Log("io at 3")],
        vec![Immediate(5)],
        vec![Work(10)],
    ];
    assert_eq!(run(table), ["3@11 poll job at 3", "3@11 poll io at 3", "3@11 poll io at 5"]);
}

// Rule 3: timers.
#[test]
fn delay_0_and_oversized_delays_become_1() {
    assert_eq!(coerce_delay(0), 1);
    assert_eq!(coerce_delay(TIMEOUT_MAX), TIMEOUT_MAX);
    assert_eq!(coerce_delay(TIMEOUT_MAX + 1), 1);
    let out = run(vec![vec![Timeout(1, 1), Timeout(0, 2)], vec![Log("1ms")], vec![Log("0ms")]]);
    assert_eq!(out, ["1@1 timers 1ms", "1@1 timers 0ms"]);
}

#[test]
fn overdue_timers_run_list_by_list() {
    // A (10, set at 0), B (10, set at 2), C (5, set at 6); busy until 13.
    let table = vec![
        vec![Timeout(10, 1), Work(2), Timeout(10, 2), Work(4), Timeout(5, 3), Work(7)],
        vec![Log("A")],
        vec![Log("B")],
        vec![Log("C")],
    ];
    assert_eq!(run(table), ["1@13 timers A", "1@13 timers B", "1@13 timers C"]);
}

#[test]
fn timers_not_overdue_together_run_in_due_order() {
    let table = vec![
        vec![Timeout(10, 1), Work(2), Timeout(10, 2), Work(4), Timeout(5, 3)],
        vec![Log("A")],
        vec![Log("B")],
        vec![Log("C")],
    ];
    assert_eq!(run(table), ["1@10 timers A", "2@11 timers C", "3@12 timers B"]);
}

#[test]
fn timer_set_in_timers_phase_waits_for_a_later_turn() {
    let table = vec![
        vec![Timeout(0, 1), Timeout(0, 2)],
        vec![Log("first"), NextTick(3), Timeout(0, 4)],
        vec![Log("second")],
        vec![Log("tick")],
        vec![Log("from first")],
    ];
    assert_eq!(
        run(table),
        [
            "1@1 timers first",
            "1@1 nextTick tick",
            "1@1 timers second",
            "2@2 timers from first"
        ]
    );
}

#[test]
fn work_in_a_timer_does_not_make_later_timers_due_in_that_phase_entry() {
    // Seed 002: /a due 2 (1 tick), report due 3 (6 ticks), /b due 4, /c due 5.
    let table = vec![
        vec![Timeout(2, 1), Timeout(3, 2), Timeout(4, 3), Timeout(5, 4)],
        vec![Log("/a"), Work(1)],
        vec![Log("report"), Work(6)],
        vec![Log("/b"), Work(1)],
        vec![Log("/c"), Work(1)],
    ];
    assert_eq!(
        run(table),
        ["1@2 timers /a", "2@3 timers report", "3@9 timers /b", "3@10 timers /c"]
    );
}

#[test]
fn a_reading_past_the_handle_in_the_last_drain_reruns_the_timers_phase() {
    // T1 due 1; T2 due 5. T1's tick works 10 ticks, then sets a timer (a clock reading).
    let table = vec![
        vec![Timeout(1, 1), Timeout(5, 2)],
        vec![Log("T1"), NextTick(3)],
        vec![Log("T2")],
        vec![Work(10), Timeout(100, 4)],
        vec![],
    ];
    assert_eq!(run(table), ["1@1 timers T1", "1@11 timers T2"]);
}

#[test]
fn without_a_reading_the_handle_waits_for_the_next_turn() {
    let table = vec![
        vec![Timeout(1, 1), Timeout(5, 2)],
        vec![Log("T1"), NextTick(3)],
        vec![Log("T2")],
        vec![Work(10)],
    ];
    assert_eq!(run(table), ["1@1 timers T1", "2@11 timers T2"]);
}

#[test]
fn interval_is_rearmed_from_its_start() {
    let table = vec![vec![Interval(30, 1)], vec![Log("tick"), Work(20), StopAfter(3)]];
    assert_eq!(run(table), ["1@30 timers tick", "2@60 timers tick", "3@90 timers tick"]);
}

#[test]
fn clearing_a_due_timer_before_it_runs_cancels_it() {
    let table = vec![vec![Timeout(5, 1), Timeout(5, 2)], vec![Log("b"), Clear(2)], vec![Log("c")]];
    assert_eq!(run(table), ["1@5 timers b"]);
}

#[test]
fn clearing_an_immediate_in_the_snapshot_cancels_it() {
    let table = vec![vec![Immediate(1), Immediate(2)], vec![Log("a"), Clear(2)], vec![Log("b")]];
    assert_eq!(run(table), ["1@0 check a"]);
}

// Rule 4: the thread pool.
#[test]
fn pool_runs_in_waves_of_its_size() {
    let mut table = vec![vec![]];
    for _ in 0..8 {
        table[0].push(Submit(10, 1));
    }
    table.push(vec![Log("done")]);
    let out = run(table);
    let ticks: Vec<&str> = out.iter().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(ticks, ["1@10", "1@10", "1@10", "1@10", "2@20", "2@20", "2@20", "2@20"]);
}

#[test]
fn a_freed_thread_takes_the_next_job_fifo() {
    // Pool of 2: two 4-tick hashes, a 1-tick read waits; io needs no thread.
    let table = vec![
        vec![Submit(4, 1), Submit(4, 2), Submit(1, 3), Io(2, 4)],
        vec![Log("login")],
        vec![Log("signup")],
        vec![Log("avatar")],
        vec![Log("feed")],
    ];
    assert_eq!(
        run_with(Module::Cjs, 2, table),
        ["1@2 poll feed", "2@4 poll login", "2@4 poll signup", "3@5 poll avatar"]
    );
}

// Rule 5: work.
#[test]
fn work_advances_the_clock_and_pool_threads_go_on() {
    let table = vec![vec![Submit(5, 1), Work(20), Log("main done")], vec![Log("job")]];
    assert_eq!(run(table), ["0@20 main main done", "1@20 poll job"]);
}

// Rule 6: between callbacks.
#[test]
fn a_tick_queued_by_a_microtask_waits_for_the_whole_microtask_queue() {
    let table = vec![
        vec![NextTick(1), Microtask(2), Microtask(3)],
        vec![Log("A tick")],
        vec![Log("B micro"), NextTick(4), Microtask(5)],
        vec![Log("C micro")],
        vec![Log("D tick")],
        vec![Log("E micro")],
    ];
    assert_eq!(
        run(table),
        [
            "0@0 nextTick A tick",
            "0@0 microtask B micro",
            "0@0 microtask C micro",
            "0@0 microtask E micro",
            "0@0 nextTick D tick"
        ]
    );
}

#[test]
fn ticks_and_microtasks_drain_after_every_timer() {
    let table = vec![
        vec![Timeout(0, 1), Timeout(0, 2)],
        vec![Log("t1"), Microtask(3), NextTick(4)],
        vec![Log("t2")],
        vec![Log("t1 promise")],
        vec![Log("t1 tick")],
    ];
    assert_eq!(
        run(table),
        ["1@1 timers t1", "1@1 nextTick t1 tick", "1@1 microtask t1 promise", "1@1 timers t2"]
    );
}

// Rule 7: limits.
#[test]
fn an_endless_immediate_chain_hits_the_turn_limit() {
    let mut script = Script::new(vec![vec![Immediate(1)], vec![AgainImmediate]]);
    let limits = Limits {
        max_turns: 50,
        max_callbacks: 1_000,
    };
    let mut s = Scheduler::new(4, Module::Cjs, limits);
    assert_eq!(s.run(0, &mut script), Err((LimitKind::Turns, Phase::Check)));
    assert_eq!(s.turn(), 50);
}

#[test]
fn an_endless_tick_chain_hits_the_callback_limit() {
    struct Spin;
    impl Host<(), Scheduler<()>> for Spin {
        type Stop = (LimitKind, Phase, u64);
        fn call(&mut self, s: &mut Scheduler<()>, _: &(), _: Ctx) -> Result<(), Self::Stop> {
            s.next_tick(());
            Ok(())
        }
        fn limit(&mut self, s: &Scheduler<()>, kind: LimitKind, phase: Phase) -> Self::Stop {
            (kind, phase, s.callbacks())
        }
    }
    let limits = Limits {
        max_turns: 10,
        max_callbacks: 100,
    };
    let mut s = Scheduler::new(4, Module::Cjs, limits);
    assert_eq!(s.run((), &mut Spin), Err((LimitKind::Callbacks, Phase::NextTick, 100)));
}

// Node 10 (before nodejs/node PR #22842): no drain between a list's timers
// or between immediates.
#[test]
fn node_10_runs_a_timer_list_and_the_check_phase_before_draining() {
    let table = vec![
        vec![Timeout(0, 1), Timeout(0, 2), Immediate(5), Immediate(6)],
        vec![Log("t1"), Microtask(3)],
        vec![Log("t2"), Microtask(4)],
        vec![Log("t1 promise")],
        vec![Log("t2 promise")],
        vec![Log("i1"), NextTick(7)],
        vec![Log("i2")],
        vec![Log("i1 tick")],
    ];
    let script = run_script(Module::Cjs, NodeVersion::Node10, 4, table, false);
    let out: Vec<&str> = script.log.iter().map(|l| l.3).collect();
    assert_eq!(out, ["i1", "i2", "i1 tick", "t1", "t2", "t1 promise", "t2 promise"]);
}

#[test]
fn clearing_inside_a_list_keeps_the_others_in_order_and_slots_are_reused_safely() {
    let table = vec![
        vec![
            Timeout(5, 1),
            Timeout(5, 2),
            Timeout(5, 3),
            Clear(2),
            Timeout(5, 4),
            Clear(1),
            Clear(3),
            Clear(4),
            Timeout(5, 5),
            Timeout(5, 6),
        ],
        vec![Log("a")],
        vec![Log("b")],
        vec![Log("c")],
        vec![Log("d")],
        vec![Log("e"), Timeout(5, 2), Clear(6)],
        vec![Log("f")],
        vec![Log("b")],
    ];
    assert_eq!(run(table), ["1@5 timers e", "2@10 timers b"]);
}

/// A nextTick or microtask queue grown past [`HUGE_QUEUE_BYTES`] (a new
/// buffer, advised huge pages, the old elements copied) keeps its order,
/// also when its elements wrapped round the old buffer's end.
#[test]
fn a_queue_grown_into_huge_pages_keeps_its_order() {
    let mut queue: VecDeque<[u64; 64]> = VecDeque::new();
    let (mut next_in, mut next_out) = (0u64, 0u64);
    // 512-byte elements: the buffer passes 4 MiB at 8,192 of them.
    while queue.capacity() * std::mem::size_of::<[u64; 64]>() < 4 * HUGE_QUEUE_BYTES {
        for _ in 0..3 {
            push_queued(&mut queue, [next_in; 64]);
            next_in += 1;
        }
        // Taking one of every three moves the head, so the elements wrap.
        let out = queue.pop_front().expect("pushed three");
        assert_eq!(out, [next_out; 64]);
        next_out += 1;
    }
    assert_eq!((next_in, queue.len(), queue.capacity()), (3 * 8_192, 2 * 8_192, 4 * 8_192));
    while let Some(out) = queue.pop_front() {
        assert_eq!(out, [next_out; 64]);
        next_out += 1;
    }
    assert_eq!(next_out, next_in);
}
