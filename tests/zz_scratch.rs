use loopsim::interp::RunOptions;
use loopsim::load::load_bytes;
use loopsim::orders::{all_orders_within, SearchBounds};
use std::time::{Duration, Instant};

#[test]
fn scratch() {
    let path = std::env::var("F").unwrap();
    let src = std::fs::read_to_string(&path).unwrap();
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    let secs: u64 = std::env::var("SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let big = std::env::var("BIG").is_ok();
    let mut bounds = SearchBounds {
        time_limit: Some(Duration::from_secs(secs)),
        ..SearchBounds::default()
    };
    if big {
        bounds.max_bytes = 4 << 30;
        bounds.max_memo_bytes = 3 << 30;
        bounds.max_orders = 100_000_000;
        bounds.max_schedules = 100_000_000;
        bounds.max_callbacks = u64::MAX;
        bounds.max_statements = u64::MAX;
        bounds.max_states = 100_000_000;
    }
    let t = Instant::now();
    let o = all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds);
    eprintln!(
        "RESULT count={} exact={} cut={:?} schedules={} entries={} lazily={} t={:.2}",
        o.count,
        o.count_exact,
        o.cut,
        o.schedules,
        o.entries.len(),
        o.lazily,
        t.elapsed().as_secs_f64()
    );
}
