//! What waits in each queue as each callback starts (`interp::run_with_queues`,
//! the playground's step-through), checked against the puzzles' own account.

use loopsim::interp::{self, QueueSnapshot, RunOptions};
use loopsim::load;
use loopsim::trace::EventKind;

fn steps(path: &str) -> Vec<(String, QueueSnapshot)> {
    let loaded = load::load(std::path::Path::new(path)).expect("a valid example");
    let opts = RunOptions {
        auto_limits: true,
        ..RunOptions::default()
    };
    let (trace, snapshots) = interp::run_with_queues(&loaded.file, &loaded.src, "", opts);
    let calls: Vec<String> = trace
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Call { kind, label, .. } => Some(format!("{kind} {}", label.clone().unwrap_or_default())),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), snapshots.len(), "one snapshot per callback entered");
    calls.into_iter().zip(snapshots).collect()
}

fn shown(s: &QueueSnapshot) -> Vec<String> {
    s.queues.iter().map(|q| format!("{}: {}", q.name, q.items.join(" | "))).collect()
}

/// P2: the read callback's timer waits while the first immediate runs; the
/// second immediate (queued from the check phase) waits behind the timer.
#[test]
fn p02_the_timer_waits_between_the_two_immediates() {
    let s = steps("examples/phases/p02-timer-between-two-immediates.loop");
    let names: Vec<&str> = s.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "main ",
            "io чтение файла",
            "immediate первый immediate",
            "timeout таймер",
            "immediate второй immediate"
        ]
    );
    assert!(shown(&s[0].1).is_empty(), "nothing waits while the main module runs");
    assert!(shown(&s[1].1).is_empty(), "the io callback was the only thing queued");
    assert_eq!(shown(&s[2].1), ["timers: timeout \"таймер\" (line 8), due at 1"]);
    assert_eq!(shown(&s[3].1), ["check: immediate \"второй immediate\" (line 11)"]);
    assert!(shown(&s[4].1).is_empty());
}

/// P8: eight jobs on four threads; as the first completion runs, three jobs
/// are still running, four wait for a thread, and the next completions are due.
#[test]
fn p08_jobs_run_wait_and_complete() {
    let s = steps("examples/thread-pool/p08-eight-jobs-two-waves.loop");
    let (name, first) = &s[1];
    assert!(name.starts_with("submit"), "{name}");
    let pool = first.queues.iter().find(|q| q.name == "pool").expect("jobs in the pool");
    let running = pool.items.iter().filter(|i| i.contains("running on thread")).count();
    let waiting = pool.items.iter().filter(|i| i.contains("waiting for a thread")).count();
    let poll = first.queues.iter().find(|q| q.name == "poll").map_or(0, |q| q.count);
    assert_eq!(running + waiting + poll, 7, "{:?}", shown(first));
    assert_eq!(waiting, 0, "the second wave has started by the first poll: {:?}", shown(first));
}

/// The microtask and nextTick queues in P17, in the order they drain.
#[test]
fn p17_next_ticks_before_microtasks() {
    let s = steps("examples/microtasks/p17-nexttick-promise-then-the-race.loop");
    let first = s.iter().find(|(n, _)| n.starts_with("nextTick")).expect("a nextTick callback");
    for q in &first.1.queues {
        assert!(q.count >= q.items.len());
    }
    let order: Vec<&str> = first.1.queues.iter().map(|q| q.name).collect();
    let rank = |n: &str| {
        ["nextTick", "microtask", "timers", "pool", "poll", "pending", "check", "close"]
            .iter()
            .position(|x| *x == n)
    };
    assert!(order.windows(2).all(|w| rank(w[0]) < rank(w[1])), "{order:?}");
}
