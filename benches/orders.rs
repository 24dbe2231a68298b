//! The orders search (`run --all-orders`): every order Node 20 can print,
//! found by replaying schedules. A pool puzzle whose jobs race
//! (examples/thread-pool/p10) and a small racy file (timers against an
//! immediate, a pool job and an I/O arrival).

use criterion::{criterion_group, criterion_main, Criterion};
use loopsim::interp::RunOptions;
use loopsim::orders::all_orders;

/// A few lines whose callbacks race: a main-module `timeout 0` against an
/// immediate, two timers one tick apart, and a pool job against an I/O arrival.
const RACY: &str = "timeout 0 \"t\"\nimmediate \"i\"\ntimeout 2 \"a\"\ntimeout 1 \"b\"\n\
submit \"fs.stat\" 0 { log \"stat\" }\nio \"read\" after 1 { log \"bytes\" }\n";

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("orders");
    g.sample_size(10);
    let p10 = std::fs::read("examples/thread-pool/p10-who-waits-behind-the-pool.loop").unwrap();
    for (name, bytes) in [("p10 pool puzzle", p10.as_slice()), ("small racy file", RACY.as_bytes())] {
        let loaded = loopsim::load::load_bytes("bench.loop", bytes).unwrap();
        // Default options, as tests/orders.rs uses.
        let opts = RunOptions::default();
        let found = all_orders(&loaded.file, &loaded.src, opts).orders.len();
        assert!(found > 1, "{name}: {found} order(s), expected a race");
        g.bench_function(format!("all orders/{name} ({found} orders)"), |b| {
            b.iter(|| all_orders(&loaded.file, &loaded.src, opts))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
