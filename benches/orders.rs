//! The orders search (`run --all-orders`): every order Node can print,
//! found by replaying schedules. Pool puzzles whose jobs race
//! (examples/thread-pool/p10, p08), a small racy file (timers against an
//! immediate, a pool job and an I/O arrival), and groups of same-tick jobs
//! reduced by symmetry and by commutation; loops starved before turn 1
//! (examples/starvation/p16, p21), and P14b (its timer starts read lazily, and
//! its first 5,000 schedules read exactly); the race check of `run` on 1,000
//! jobs that complete in one tick; eight jobs each queuing an immediate,
//! with states' futures memoised and replayed; a thirteen-line learner file
//! whose memoised graph holds about 50,000 states.

use criterion::{criterion_group, criterion_main, Criterion};
use loopsim::interp::RunOptions;
use loopsim::orders::{all_orders, all_orders_within, Cut, SearchBounds};

/// A few lines whose callbacks race: a main-module `timeout 0` against an
/// immediate, two timers one tick apart, and a pool job against an I/O arrival.
const RACY: &str = "timeout 0 \"t\"\nimmediate \"i\"\ntimeout 2 \"a\"\ntimeout 1 \"b\"\n\
submit \"fs.stat\" 0 { log \"stat\" }\nio \"read\" after 1 { log \"bytes\" }\n";

/// Thirteen lines a learner might write (one of 120 generated ones).
const LEARNER: &str = "immediate \"a\" {\n  interval 5 \"b\" times 3\n  timeout 2 \"c\" {\n    timeout 3 \"d\"\n    \
interval 4 \"e\" times 1\n  }\n}\nimmediate \"f\"\ninterval 1 \"g\" times 3 {\n  submit \"h\" 4\n  submit \"i\" 2\n}\n\
io \"j\" after 1\n";

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("orders");
    g.sample_size(10);
    let p10 = std::fs::read("examples/thread-pool/p10-who-waits-behind-the-pool.loop").unwrap();
    let p8 = std::fs::read("examples/thread-pool/p08-eight-jobs-two-waves.loop").unwrap();
    // One statement's ten jobs in one tick (3,628,800 orders, one race), and
    // eight distinct jobs that only log (40,320 orders): the cost follows the
    // states, not the orders.
    let ten = "pool 10\nrepeat 10 { submit \"job {i}\" 10 { log \"job {i} done\" nextTick \"tick {i}\" } }\n";
    let eight: String = std::iter::once("pool 8\n".to_string())
        .chain((1..=8).map(|j| format!("submit \"job {j}\" 10\n")))
        .collect();
    for (name, bytes) in [
        ("p10 pool puzzle", p10.as_slice()),
        ("p8 two waves", p8.as_slice()),
        ("small racy file", RACY.as_bytes()),
        ("ten interchangeable jobs", ten.as_bytes()),
        ("eight commuting jobs", eight.as_bytes()),
    ] {
        let loaded = loopsim::load::load_bytes("bench.loop", bytes).unwrap();
        // Default options, as tests/orders.rs uses.
        let opts = RunOptions::default();
        let result = all_orders(&loaded.file, &loaded.src, opts);
        let found = result.count;
        assert!(
            found > 1 && !result.truncated,
            "{name}: {found} order(s), expected a complete search of a race"
        );
        g.bench_function(format!("all orders/{name} ({found} orders)"), |b| {
            b.iter(|| all_orders(&loaded.file, &loaded.src, opts))
        });
    }
    // Eight jobs of different statements on four threads, each queuing an
    // immediate (853 orders): their states are met again with the lines in
    // other orders; memoised, a state's future is joined to each prefix
    // instead of replayed (docs/orders.md "Memoised states").
    let jobs: String = std::iter::once("pool 4\n".to_string())
        .chain((1..=8).map(|j| format!("submit \"j{j}\" 1 {{ immediate \"i{j}\" }}\n")))
        .collect();
    let jobs = loopsim::load::load_bytes("bench.loop", jobs.as_bytes()).unwrap();
    let opts = RunOptions::default();
    for memoise in [true, false] {
        let bounds = SearchBounds {
            memoise,
            time_limit: None,
            ..SearchBounds::default()
        };
        let result = all_orders_within(&jobs.file, &jobs.src, opts, bounds);
        assert!(result.count == 853 && !result.truncated, "eight jobs: {}", result.count);
        let how = if memoise { "memoised" } else { "replayed" };
        g.bench_function(
            format!("all orders/eight jobs each queuing an immediate (853 orders, {how})"),
            |b| b.iter(|| all_orders_within(&jobs.file, &jobs.src, opts, bounds)),
        );
    }
    // A learner-style file of thirteen lines (timers, intervals, pool jobs
    // and an I/O arrival a few ticks apart; 1,687 orders): about 50,000
    // states, whose memoised graph the search needs whole (docs/orders.md
    // "Memoised states": dropped, the search was cut short at 10 s).
    let learner = loopsim::load::load_bytes("bench.loop", LEARNER.as_bytes()).unwrap();
    let whole = SearchBounds {
        time_limit: None,
        ..SearchBounds::default()
    };
    let result = all_orders_within(&learner.file, &learner.src, opts, whole);
    assert!(
        result.count == 1_687 && !result.truncated,
        "learner file: {} {:?}",
        result.count,
        result.cut
    );
    g.bench_function("all orders/thirteen-line learner file (1,687 orders)", |b| {
        b.iter(|| all_orders_within(&learner.file, &learner.src, opts, whole))
    });
    // Loops starved from the main module (P16, P21): the model's run, stopped
    // by the callback limit in turn 0, is the answer (no schedule replayed).
    for (name, path) in [
        ("p16 microtask starvation", "examples/starvation/p16-microtask-starvation.loop"),
        ("p21 nextTick starvation", "examples/starvation/p21-nexttick-starvation.loop"),
    ] {
        let loaded = loopsim::load::load(std::path::Path::new(path)).unwrap();
        let opts = RunOptions::default();
        let result = all_orders(&loaded.file, &loaded.src, opts);
        assert!(result.count == 1 && !result.truncated && result.schedules == 0, "{name}");
        g.bench_function(format!("all orders/{name}"), |b| {
            b.iter(|| all_orders(&loaded.file, &loaded.src, opts))
        });
    }
    // P14b's timers' start ticks (docs/orders.md "Lazy timer starts"): exact
    // with lazily read starts, and the exact readings' first 5,000 schedules
    // before them.
    let p14b = loopsim::load::load(std::path::Path::new("examples/real-node/p14b-count-300-makes-timers-late.loop")).unwrap();
    let opts = RunOptions::default();
    let result = all_orders(&p14b.file, &p14b.src, opts);
    assert!(!result.truncated && result.lazily && result.count == 3_628_800, "p14b");
    g.bench_function("all orders/p14b timers' start ticks, read lazily", |b| {
        b.iter(|| all_orders(&p14b.file, &p14b.src, opts))
    });
    let exactly = SearchBounds {
        lazy_after: None,
        max_schedules: 5_000,
        ..SearchBounds::default()
    };
    assert_eq!(
        all_orders_within(&p14b.file, &p14b.src, opts, exactly).cut,
        Some(Cut::Schedules(5_000))
    );
    g.bench_function("all orders/p14b timers' start ticks read exactly (5,000 schedules)", |b| {
        b.iter(|| all_orders_within(&p14b.file, &p14b.src, opts, exactly))
    });
    // The race check of `run` (two orders, listed two) on 1,000 one-tick jobs
    // that complete in one tick on 1,024 threads: a poll chooses among 1,000
    // completions at each step, for 20 schedules.
    let thousand = loopsim::load::load_bytes("bench.loop", b"pool 1024\nrepeat 1000 { submit \"j{i}\" 1 }\n").unwrap();
    let race_check = SearchBounds {
        max_schedules: 20,
        time_limit: None,
        ..SearchBounds::race_check()
    };
    let result = all_orders_within(&thousand.file, &thousand.src, opts, race_check);
    assert_eq!(result.orders.len(), 2, "1,000 jobs");
    g.bench_function("race check/1,000 jobs in one tick (20 schedules)", |b| {
        b.iter(|| all_orders_within(&thousand.file, &thousand.src, opts, race_check))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
