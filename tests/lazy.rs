//! Lazily read timer starts (docs/orders.md "Lazy timer starts"): a search
//! that reads them lazily gives exactly the orders of one that reads every
//! start exactly, or gives up and reads them exactly, on every example, every
//! conformance case and families of generated files where timers are set
//! inside callbacks.

mod common;

use loopsim::interp::RunOptions;
use loopsim::load::load_bytes;
use loopsim::orders::{all_orders_within, Orders, SearchBounds};
use std::collections::BTreeSet;
use std::time::Duration;

fn search(src: &str, lazy_after: Option<usize>) -> Orders {
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    let bounds = SearchBounds {
        lazy_after,
        time_limit: Some(Duration::from_secs(120)),
        ..SearchBounds::default()
    };
    all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds)
}

fn set(o: &Orders) -> BTreeSet<(Vec<String>, loopsim::orders::End)> {
    o.orders.iter().map(|o| (o.logs.clone(), o.end)).collect()
}

/// Both searches complete and agree on the count and every order listed.
/// Returns the lazy one's answer.
fn agree(name: &str, src: &str) -> Orders {
    let exact = search(src, None);
    let lazy = search(src, Some(0));
    assert!(!exact.lazily, "{name}");
    assert!(!exact.truncated, "{name}: the exact search was cut short: {:?}", exact.cut);
    assert!(!lazy.truncated, "{name}: the lazy search was cut short: {:?}", lazy.cut);
    assert_eq!(exact.count, lazy.count, "{name}: counts differ (lazily: {})", lazy.lazily);
    if exact.all_listed() && lazy.all_listed() {
        assert_eq!(set(&exact), set(&lazy), "{name}: the orders differ (lazily: {})", lazy.lazily);
    }
    for o in &exact.orders {
        assert!(lazy.contains(&o.logs, o.end), "{name}: the lazy search misses {:?}", o.logs);
    }
    for o in &lazy.orders {
        assert!(exact.contains(&o.logs, o.end), "{name}: the lazy search adds {:?}", o.logs);
    }
    lazy
}

#[test]
fn lazy_readings_give_the_exact_orders_on_every_example() {
    let mut lazily = 0;
    for path in common::loop_files_under("examples")
        .into_iter()
        .chain(common::loop_files_under("tests/conformance"))
    {
        let src = std::fs::read_to_string(&path).unwrap();
        if path.to_str().unwrap().contains("p14b") {
            continue; // the exact search takes minutes: tests/symmetry.rs checks its answer
        }
        lazily += usize::from(agree(&path.display().to_string(), &src).lazily);
    }
    // Some examples keep their lazy answer, others fall back to exact readings.
    assert!(lazily >= 5, "{lazily}");
}

/// `k` I/O events each arm a timer in their callback (P14b's shape), beside
/// events that keep the clock past those timers, or not.
#[test]
fn lazy_readings_give_the_exact_orders_on_generated_files() {
    let (mut checked, mut lazily) = (0, 0);
    for k in [2, 3] {
        for after in [1, 3] {
            for delay in [1, 2, 5, 100] {
                for extra in [
                    "",
                    "io \"long\" after 2 { log \"long\" work 300 }",
                    "io \"short\" after 2 { log \"short\" work 3 }",
                    "immediate \"imm\"",
                    "timeout 4 \"late\"",
                    "io \"other\" after 2 { timeout 3 \"u\" }",
                ] {
                    let src = format!("repeat {k} {{ io \"e {{i}}\" after {after} {{ timeout {delay} \"t {{i}}\" }} }}\n{extra}\n");
                    lazily += usize::from(agree(&src, &src).lazily);
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 2 * 2 * 4 * 6);
    // Those whose timers are overdue by the time a reading compares (delay 100 behind work 300).
    assert_eq!(lazily, 2);
}

/// Timers armed in callbacks that also log, queue immediates or arm a second
/// list, behind a long callback or a shorter one, beside later events.
#[test]
fn lazy_readings_give_the_exact_orders_behind_long_callbacks() {
    let (mut checked, mut lazily) = (0, 0);
    for delay in [50, 100] {
        for work in [60, 300] {
            for after in [1, 2] {
                for more in ["", "log \"e {i}\"", "immediate \"imm {i}\"", "timeout 60 \"u {i}\""] {
                    for extra in ["", "timeout 70 \"late\"", "io \"x\" after 80 { log \"x\" }"] {
                        let src = format!(
                            "repeat 2 {{ io \"e {{i}}\" after {after} {{ timeout {delay} \"t {{i}}\" {more} }} }}\n\
                             io \"busy\" after 2 {{ log \"busy\" work {work} }}\n{extra}\n"
                        );
                        lazily += usize::from(agree(&src, &src).lazily);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 2 * 2 * 4 * 3);
    // A third keep their lazy answer (checked against the exact one all the same).
    assert_eq!(lazily, 32);
}

/// Timers set from immediates, nextTicks and the main module, in several lists.
#[test]
fn lazy_readings_give_the_exact_orders_with_several_lists() {
    let mut checked = 0;
    for src in [
        "immediate \"a\" { timeout 1 \"ta\" }\nimmediate \"b\" { timeout 2 \"tb\" }\n",
        "timeout 1 \"x\"\ntimeout 2 \"y\"\nimmediate \"i\" { timeout 1 \"z\" }\n",
        "io \"a\" after 1 { timeout 10 \"ta\" nextTick { timeout 11 \"tb\" } }\nio \"b\" after 1 { timeout 10 \"tc\" }\nio \"c\" after 2 { work 20 }\n",
        "repeat 3 { io \"r{i}\" after 1 { timeout 5 \"t{i}\" immediate \"i{i}\" } }\n",
        "repeat 3 { io \"r{i}\" after 1 { interval 5 \"t{i}\" times 2 } }\nio \"busy\" after 2 { work 50 }\n",
        "module esm\nrepeat 3 { io \"r{i}\" after 1 { timeout 100 \"t{i}\" } }\nio \"busy\" after 2 { work 300 }\n",
    ] {
        agree(src, src);
        checked += 1;
    }
    assert_eq!(checked, 6);
}

/// P14b's shape: the exact readings cross every combination of start ticks;
/// the lazy ones see that every timer is overdue when the timers phase
/// compares, and keep their answer.
#[test]
fn ten_timers_overdue_after_a_long_callback_are_read_lazily() {
    let src = "repeat 6 { io \"w{i}\" after 1 { timeout 100 \"t{i}\" } }\nio \"count\" after 2 { work 300 }\n";
    let o = agree("six", src);
    assert!(o.lazily);
    assert_eq!(o.count, 720);
}

/// A timer whose due tick a later reading may fall on: lazy readings cannot
/// stand for its start, and the search reads starts exactly.
#[test]
fn a_timer_a_reading_may_land_on_is_read_exactly() {
    let src = "repeat 3 { io \"w{i}\" after 1 { timeout 2 \"t{i}\" } }\nio \"x\" after 2 { log \"x\" }\n";
    let o = agree("close", src);
    assert!(!o.lazily);
}

/// A file that sets no timer is not searched a second time with lazy
/// readings after the first 5,000 schedules (they would only repeat the
/// exact search): the default search takes the schedules of the exact one.
#[test]
fn a_file_without_timers_is_searched_once() {
    let src = "pool 3\n\
               submit \"a\" 1 { immediate \"ia\" }\n\
               submit \"b\" 2 { immediate \"ib\" }\n\
               submit \"c\" 1 { submit \"c2\" 1 }\n\
               submit \"d\" 3\n\
               io \"e\" after 2 { immediate \"ie\" }\n\
               io \"f\" after 3\n\
               submit \"g\" 2 { immediate \"ig\" }\n";
    let exact = search(src, None);
    let default = search(src, SearchBounds::default().lazy_after);
    assert!(
        exact.schedules > 5_000,
        "{} schedules: too few to reach the lazy search",
        exact.schedules
    );
    assert!(!default.lazily && !default.truncated);
    assert_eq!(default.schedules, exact.schedules);
    assert_eq!(default.count, exact.count);
    assert_eq!(exact.count, 356);
}
