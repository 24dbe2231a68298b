//! The decisions the scheduler records: for each callback, the rule that
//! placed it and the facts it used (what `--explain` words).

use super::*;
use crate::sched::tests::{run_script, Op, Op::*};
use crate::sched::NodeProfile;

fn decisions_with(module: Module, node: NodeProfile, pool: usize, table: Vec<Vec<Op>>, on: bool) -> Vec<(usize, Decision)> {
    run_script(module, node, pool, table, on).seen
}

fn decisions(table: Vec<Vec<Op>>) -> Vec<(usize, Decision)> {
    decisions_with(Module::Cjs, NodeProfile::Node20, 4, table, true)
}

/// The decision of callback `cb` (its first run).
fn of(seen: &[(usize, Decision)], cb: usize) -> Decision {
    seen.iter().find(|(c, _)| *c == cb).expect("it ran").1
}

#[test]
fn without_decisions_nothing_is_recorded() {
    let seen = decisions_with(
        Module::Cjs,
        NodeProfile::Node20,
        4,
        vec![vec![Timeout(1, 1), NextTick(1)], vec![]],
        false,
    );
    assert!(seen.iter().all(|(_, d)| *d == Decision::Unrecorded));
}

#[test]
fn the_main_module_is_rule_1() {
    let seen = decisions_with(Module::Esm, NodeProfile::Node20, 4, vec![vec![Microtask(1)], vec![]], true);
    assert_eq!(of(&seen, 0), Decision::MainModule(crate::sched::Entry::EsModuleInPoll));
    assert_eq!(
        of(&seen, 1),
        Decision::Drained {
            queue: Phase::Microtask,
            drain: Drain::EsModuleBody
        }
    );
}

#[test]
fn a_timeout_records_its_due_tick_its_turn_rule_and_the_sleep() {
    // Main sets a 0 ms timer (due at 1): the loop sleeps 0 → 1.
    let seen = decisions(vec![vec![Timeout(0, 1)], vec![]]);
    assert_eq!(
        of(&seen, 1),
        Decision::Timeout {
            set_at: 0,
            due: 1,
            coerced: Some(Coercion::Zero),
            phase_clock: 1,
            turn: TimerTurn::FromMainModule,
            before: Before::Slept(Slept { from: 0, to: 1 }),
        }
    );
    // Set from poll (turn 1), run in turn 2 on time.
    let seen = decisions(vec![vec![Io(0, 1)], vec![Timeout(1, 2)], vec![]]);
    assert!(matches!(
        of(&seen, 2),
        Decision::Timeout {
            turn: TimerTurn::SetAfterTimersPhase { set_turn: 1 },
            before: Before::Nothing,
            ..
        }
    ));
    // Set in a timers phase: a later turn.
    let seen = decisions(vec![vec![Timeout(1, 1)], vec![Timeout(1, 2)], vec![]]);
    assert!(matches!(
        of(&seen, 2),
        Decision::Timeout {
            turn: TimerTurn::SetDuringTimersPhase { set_turn: 1 },
            ..
        }
    ));
}

#[test]
fn a_timer_behind_a_busy_one_ran_late() {
    // Two timers due at 2, the main module busy until 3 (no sleep); the
    // first works 5 ticks: the second runs at 8.
    let seen = decisions(vec![vec![Timeout(2, 1), Timeout(2, 2), Work(3)], vec![Work(5)], vec![]]);
    assert!(matches!(
        of(&seen, 2),
        Decision::Timeout {
            due: 2,
            phase_clock: 3,
            before: Before::Busy { until: 8 },
            ..
        }
    ));
    // After a sleep in its turn, the sleep is told (as `--explain` always did).
    let seen = decisions(vec![vec![Timeout(2, 1), Timeout(2, 2), Work(1)], vec![Work(5)], vec![]]);
    assert!(matches!(
        of(&seen, 2),
        Decision::Timeout {
            before: Before::Slept(Slept { from: 1, to: 2 }),
            ..
        }
    ));
}

#[test]
fn an_interval_records_its_run_and_period() {
    let seen = decisions(vec![vec![Interval(3, 1)], vec![StopAfter(2)]]);
    let runs: Vec<Decision> = seen.iter().filter(|(c, _)| *c == 1).map(|(_, d)| *d).collect();
    assert_eq!(
        runs,
        [
            Decision::Interval {
                run: 1,
                delay: 3,
                slept: Some(Slept { from: 0, to: 3 })
            },
            Decision::Interval {
                run: 2,
                delay: 3,
                slept: Some(Slept { from: 4, to: 6 })
            }
        ]
    );
}

/// An interval's runs keep its delay as written (0 here), which `--explain`
/// coerces and says it did (as for a timeout).
#[test]
fn an_interval_records_its_delay_as_written() {
    let seen = decisions(vec![vec![Interval(0, 1)], vec![StopAfter(2)]]);
    let runs: Vec<Decision> = seen.iter().filter(|(c, _)| *c == 1).map(|(_, d)| *d).collect();
    assert_eq!(runs.len(), 2);
    for d in runs {
        assert!(matches!(d, Decision::Interval { delay: 0, .. }), "{d:?}");
    }
}

#[test]
fn an_immediate_records_when_it_was_queued_against_the_snapshot() {
    let seen = decisions(vec![
        vec![Immediate(1), Io(0, 2)],
        vec![Immediate(3)],
        vec![Immediate(4), Close(5)],
        vec![],
        vec![],
        vec![Immediate(6)],
        vec![],
    ]);
    assert_eq!(of(&seen, 1), Decision::Immediate(ImmediateQueued::ByMainModule));
    assert_eq!(of(&seen, 4), Decision::Immediate(ImmediateQueued::EarlierInTurn));
    assert_eq!(of(&seen, 3), Decision::Immediate(ImmediateQueued::DuringCheckPhase));
    assert_eq!(of(&seen, 6), Decision::Immediate(ImmediateQueued::DuringClosePhase));
    assert_eq!(of(&seen, 5), Decision::Close);
}

#[test]
fn a_pending_callback_records_where_it_was_deferred() {
    let seen = decisions(vec![
        vec![Pending(1), Io(0, 2), Timeout(1, 3)],
        vec![],
        vec![Pending(4)],
        vec![Pending(5)],
        vec![],
        vec![],
    ]);
    assert_eq!(of(&seen, 1), Decision::Pending(Deferred::Elsewhere));
    assert_eq!(of(&seen, 4), Decision::Pending(Deferred::DuringPoll));
    assert_eq!(of(&seen, 5), Decision::Pending(Deferred::FromTimersPhase));
}

#[test]
fn io_and_pool_jobs_record_arrival_thread_and_wait() {
    // One thread: the second job waits for it until 3.
    let seen = decisions_with(
        Module::Cjs,
        NodeProfile::Node20,
        1,
        vec![vec![Submit(3, 1), Submit(2, 2), Io(4, 3)], vec![], vec![], vec![]],
        true,
    );
    let job = |queued, start, work, waited, ready, slept| {
        Decision::PoolJob(PoolJob {
            thread: 1,
            queued,
            start,
            work,
            waited,
            ready,
            pool_size: 1,
            slept,
            joined: None,
        })
    };
    assert_eq!(of(&seen, 1), job(0, 0, 3, false, 3, Some(Slept { from: 0, to: 3 })));
    assert_eq!(
        of(&seen, 3),
        Decision::Io {
            arrived: 4,
            slept: None,
            joined: None
        }
    );
    assert_eq!(of(&seen, 2), job(0, 3, 2, true, 5, None));
}

#[test]
fn a_drained_callback_records_which_drain_ran_it() {
    let table = vec![
        vec![Timeout(1, 1), Timeout(1, 2), Microtask(3)],
        vec![NextTick(4), Microtask(5)],
        vec![],
        vec![NextTick(6)],
        vec![],
        vec![Microtask(7)],
        vec![],
        vec![],
    ];
    let drained = |seen: &[(usize, Decision)], cb| match of(seen, cb) {
        Decision::Drained { drain, .. } => drain,
        other => panic!("{other:?}"),
    };
    let node20 = decisions(table.clone());
    assert_eq!(drained(&node20, 3), Drain::AfterItsCallback);
    assert_eq!(drained(&node20, 6), Drain::AfterMicrotaskQueue);
    assert_eq!(drained(&node20, 4), Drain::AfterItsCallback);
    let node10 = decisions_with(Module::Cjs, NodeProfile::Node10, 4, table, true);
    assert_eq!(drained(&node10, 4), Drain::AfterTimerList);
    assert_eq!(drained(&node10, 5), Drain::AfterTimerList);
    // Queued by a microtask (as a `.then` link is), not by the timer.
    assert_eq!(drained(&node10, 7), Drain::AfterItsCallback);
}
