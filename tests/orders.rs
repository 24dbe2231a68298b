//! `--all-orders`: every order real Node 26 can print (docs/orders.md), checked
//! against the orders real Node 26 printed (tests/conformance) and the
//! seed puzzles' known races.

mod common;
// For its seeded generator ([`promise_gen::Rng`]); its programs are not used here.
#[allow(dead_code)]
#[path = "common/promise_gen.rs"]
mod promise_gen;

use loopsim::interp::RunOptions;
use loopsim::load::load_bytes;
use loopsim::orders::{all_orders, End, Orders, SearchBounds};
use std::path::Path;

fn orders_of_src(src: &str) -> Orders {
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    all_orders(&loaded.file, &loaded.src, RunOptions::default())
}

fn orders_of(path: &Path) -> Orders {
    let loaded = loopsim::load::load(path).expect("valid");
    all_orders(&loaded.file, &loaded.src, RunOptions::default())
}

fn texts(o: &Orders) -> Vec<Vec<&str>> {
    o.orders.iter().map(|o| o.logs.iter().map(String::as_str).collect()).collect()
}

/// Every `.loop` file under `dir`, sorted.
fn files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    common::loop_files(std::path::Path::new(dir), &mut out);
    out
}

#[test]
fn the_model_order_is_always_one_node_can_print() {
    for path in files("examples").into_iter().chain(files("tests/conformance")) {
        let o = orders_of(&path);
        assert!(
            o.model_possible || o.truncated,
            "{}: the model's order is not among Node's",
            path.display()
        );
    }
}

#[test]
fn conformance_cases_where_node_printed_one_order_get_exactly_one() {
    let cases = files("tests/conformance");
    assert!(cases.len() >= 12, "the conformance cases are in the repository");
    for path in cases {
        if path.with_extension("orders").exists() {
            continue;
        }
        let o = orders_of(&path);
        assert_eq!((o.orders.len(), o.truncated), (1, false), "{}: {:?}", path.display(), texts(&o));
    }
}

#[test]
fn conformance_races_give_exactly_the_orders_node_printed() {
    for path in files("tests/conformance") {
        let Ok(recorded) = std::fs::read_to_string(path.with_extension("orders")) else {
            continue;
        };
        let mut real: Vec<Vec<String>> = recorded
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.split_once(' ').unwrap().1.split(" | ").map(str::to_string).collect())
            .collect();
        let o = orders_of(&path);
        let mut ours: Vec<Vec<String>> = o.orders.iter().map(|o| o.logs.clone()).collect();
        real.sort();
        ours.sort();
        assert_eq!(ours, real, "{}", path.display());
    }
}

#[test]
fn seed_puzzles_that_do_not_race() {
    for name in ["p01", "p03", "p04", "p05", "p19"] {
        let path = files("examples")
            .into_iter()
            .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(name))
            .unwrap();
        let o = orders_of(&path);
        assert_eq!((o.orders.len(), o.truncated), (1, false), "{name}: {:?}", texts(&o));
    }
}

#[test]
fn seed_puzzles_that_race_in_real_node() {
    for name in ["p02", "p06", "p11", "p17"] {
        let path = files("examples")
            .into_iter()
            .find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(name))
            .unwrap();
        let o = orders_of(&path);
        assert_eq!(o.orders.len(), 2, "{name}: {:?}", texts(&o));
        assert_ne!(o.orders[0].logs, o.orders[1].logs);
        assert!(!o.orders[1].race.is_empty());
    }
}

#[test]
fn main_module_timeout_0_and_immediate_race_with_both_orders() {
    let o = orders_of_src("timeout 0 \"t\"\nimmediate \"i\"\n");
    assert_eq!(texts(&o), [["i", "t"], ["t", "i"]]);
    assert!(o.orders[1].race.contains("boundary passed"), "{}", o.orders[1].race);
}

#[test]
fn in_an_es_module_the_immediate_always_wins_on_node_20_and_races_from_node_22() {
    let o = orders_of_src("module esm\nnode 20\ntimeout 0 \"t\"\nimmediate \"i\"\n");
    assert_eq!(texts(&o), [["i", "t"]]);
    assert_eq!(o.node, loopsim::sched::NodeProfile::Node20);
    for node in [22, 24, 26] {
        let o = orders_of_src(&format!("module esm\nnode {node}\ntimeout 0 \"t\"\nimmediate \"i\"\n"));
        assert_eq!(texts(&o), [["i", "t"], ["t", "i"]], "Node {node}");
        assert!(o.orders[1].race.contains("boundary passed"), "{}", o.orders[1].race);
    }
    // The default profile is Node 26's.
    let o = orders_of_src("module esm\ntimeout 0 \"t\"\nimmediate \"i\"\n");
    assert_eq!((o.node, o.orders.len()), (loopsim::sched::NodeProfile::Node26, 2));
}

#[test]
fn io_already_arrived_and_an_immediate_are_not_a_race() {
    let o = orders_of_src("io \"x\"\nimmediate \"i\"\n");
    assert_eq!(texts(&o), [["x", "i"]]);
}

#[test]
fn equal_pool_jobs_finishing_in_one_tick_come_in_any_order() {
    let o = orders_of_src("submit \"a\" 5\nsubmit \"b\" 5\n");
    let mut t = texts(&o);
    t.sort();
    assert_eq!(t, [["a", "b"], ["b", "a"]]);
}

#[test]
fn timers_one_tick_apart_set_in_one_tick_can_swap() {
    // b is due a tick before a, but a millisecond may pass between the two readings.
    let o = orders_of_src("timeout 2 \"a\"\ntimeout 1 \"b\"\n");
    let mut t = texts(&o);
    t.sort();
    assert_eq!(t, [["a", "b"], ["b", "a"]]);
    // Far apart they cannot.
    assert_eq!(texts(&orders_of_src("timeout 20 \"a\"\ntimeout 1 \"b\"\n")), [["b", "a"]]);
}

#[test]
fn overdue_timers_run_list_by_list_in_node_too() {
    let o = orders_of_src("timeout 10 \"A\"\nwork 2\ntimeout 10 \"B\"\nwork 4\ntimeout 5 \"C\"\nwork 7\n");
    assert_eq!(texts(&o), [["A", "B", "C"]]);
}

#[test]
fn json_has_the_orders_shape() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args([
            "run",
            "--all-orders",
            "--format",
            "json",
            "examples/phases/p06-main-module-timeout-vs-immediate.loop",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["orders"].as_array().unwrap().len(), 2);
    assert!(v["orders"][0].as_array().unwrap().iter().all(|t| t.is_string()));
}

#[test]
fn run_warns_of_a_race_only_where_there_is_one() {
    let run = |f: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .args(["run", f])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let racy = run("examples/phases/p06-main-module-timeout-vs-immediate.loop");
    assert!(racy.contains("real Node 26 can print these lines in another order"), "{racy}");
    assert!(racy.contains("Node 26 may print this first"), "{racy}");
    assert_eq!(run("examples/phases/p01-read-callback-schedules-three.loop"), "");
}

mod membership {
    use loopsim::interp::RunOptions;
    use loopsim::load::load_bytes;
    use loopsim::orders::membership::{can_print, Membership, Parting};
    use loopsim::orders::{End, SearchBounds};

    fn can(src: &str, order: &[&str]) -> Membership {
        let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
        let order: Vec<String> = order.iter().map(|s| s.to_string()).collect();
        can_print(
            &loaded.file,
            &loaded.src,
            RunOptions::default(),
            &order,
            End::Exit,
            SearchBounds::default(),
        )
    }

    const P2: &str =
        "io \"read\" {\n  log \"read\"\n  timeout 0 \"timer\"\n  immediate \"first\" { log \"first\" immediate \"second\" }\n}\n";

    #[test]
    fn the_model_order_needs_a_millisecond_to_pass() {
        assert_eq!(
            can(P2, &["read", "first", "timer", "second"]),
            Membership::Possible {
                race: "a millisecond boundary passed before the timers phase of turn 2".into()
            }
        );
    }

    #[test]
    fn real_nodes_usual_p2_order_is_possible() {
        // Real Node 20 printed the timer after both immediates in 29 of 30 runs.
        assert_eq!(
            can(P2, &["read", "first", "second", "timer"]),
            Membership::Possible {
                race: "no millisecond boundary was crossed anywhere (Node ran faster than a tick per turn)".into()
            }
        );
    }

    /// Impossible, where the closest order Node can print agrees with the
    /// first `agreed` lines and then prints `next` (`None`: ends).
    fn parted(agreed: usize, next: Option<&str>) -> Membership {
        Membership::Impossible {
            parting: Some(Parting {
                agreed,
                next: next.map(String::from),
                ended: None,
            }),
        }
    }

    #[test]
    fn an_order_no_schedule_prints_is_impossible() {
        // Every order begins with "read".
        assert_eq!(can(P2, &["first", "read", "timer", "second"]), parted(0, Some("read")));
        assert_eq!(can(P2, &["read", "first", "timer"]), parted(3, Some("second")), "a missing line");
        assert_eq!(
            can(P2, &["read", "first", "timer", "second", "more"]),
            parted(4, None),
            "a line too many"
        );
        // "second" is queued by "first": the closest order has "read", then "first".
        assert_eq!(can(P2, &["read", "second", "first", "timer"]), parted(1, Some("first")));
    }

    #[test]
    fn a_cut_short_search_claims_nothing() {
        let loaded = load_bytes("t.loop", P2.as_bytes()).expect("valid");
        // The model's order needs a deviation from the default timing: not the first schedule.
        let order: Vec<String> = ["read", "first", "timer", "second"].map(String::from).to_vec();
        let tiny = SearchBounds {
            max_schedules: 1,
            ..SearchBounds::default()
        };
        assert_eq!(
            can_print(&loaded.file, &loaded.src, RunOptions::default(), &order, End::Exit, tiny),
            Membership::Undecided {
                cut: loopsim::orders::Cut::Schedules(1)
            }
        );
    }
}
#[test]
fn a_job_or_io_of_the_largest_tick_count_after_several_callbacks() {
    // Once an arithmetic overflow (`offset + 1`) among the crossings the
    // search tries, reached once more than four units had begun. The job and
    // the I/O would complete past the clock's limit (2^53 - 1 ticks): every
    // schedule stops there, before "s".
    for (stmt, order) in [
        ("submit \"s\" 18446744073709551615", &["a", "b", "c", "t"][..]),
        ("io \"s\" after 18446744073709551615", &["a", "b", "c", "t"][..]),
        // A delay above 2³¹−1 becomes 1.
        ("timeout 18446744073709551615 \"s\"", &["a", "b", "c", "s", "t"][..]),
    ] {
        let src = format!("timeout 100 \"t\"\nnextTick \"a\"\nnextTick \"b\"\nnextTick \"c\"\nnextTick {{ {stmt} }}\n");
        let o = orders_of_src(&src);
        assert!(!o.truncated && o.model_possible, "{stmt}");
        assert_eq!(texts(&o), vec![order.to_vec()], "{stmt}");
    }
}

/// Run options with these limits, not raised to fit the file (`auto_limits` off).
fn fixed_limits(max_turns: u64, max_callbacks: u64, max_statements: u64) -> RunOptions {
    RunOptions {
        limits: loopsim::sched::Limits { max_turns, max_callbacks },
        max_statements,
        auto_limits: false,
        ..RunOptions::default()
    }
}

#[test]
fn the_search_counts_statements_not_only_callbacks() {
    // `repeat 100000000 { timeout 1 }` runs no callback before a limit stops
    // it, but each schedule executes every statement the limit allows: the
    // search once replayed up to 20,000 of them (hours in a release build).
    let loaded = load_bytes("t.loop", b"repeat 100000000 { timeout 1 }").expect("valid");
    let opts = fixed_limits(1_000, 1_000, 10_000);
    let bounds = loopsim::orders::SearchBounds {
        max_statements: 100_000,
        // Replay schedules although the model stopped in turn 0, to reach the bound.
        turn_zero: false,
        ..loopsim::orders::SearchBounds::default()
    };
    let o = loopsim::orders::all_orders_within(&loaded.file, &loaded.src, opts, bounds);
    assert!(o.truncated);
    // Each schedule stops at statement 10,001: ten of them spend the 100,000.
    assert_eq!(o.schedules, 10);
    assert_eq!(texts(&o), vec![Vec::<&str>::new()]);
    assert!(o.orders[0].end.stopped());
    // The model stopped in turn 0, as every schedule does: that is the answer, complete.
    let o = loopsim::orders::all_orders_within(&loaded.file, &loaded.src, opts, SearchBounds { turn_zero: true, ..bounds });
    assert!(!o.truncated && o.model_possible);
    assert_eq!((o.schedules, o.count), (0, 1));
    assert_eq!(texts(&o), vec![Vec::<&str>::new()]);
    assert!(o.orders[0].end.stopped());
}

/// A model run stopped by a limit before turn 1 is the whole answer
/// (`SearchBounds::turn_zero`): on generated files whose main module reads the
/// clock (timers, I/O, pool jobs: choices for the search) and whose drain or
/// main module is then stopped by a limit, the full search finds exactly that
/// order, stopped.
#[test]
fn a_limit_in_turn_zero_stops_every_schedule_there() {
    let starts = [
        "timeout 0 \"t\"\nio \"read\" after 1\nsubmit \"job\" 2\ntimeout 3 \"u\"\nimmediate \"i\"\n",
        "io \"a\" after 1\nio \"b\" after 2 { log \"b\" }\ntimeout 1 \"t\"\nlog \"main\"\n",
        "repeat 3 {\n  io \"x {i}\" after 1\n  timeout 2 \"y {i}\"\n}\nwork 1\ntimeout 1 \"z\"\n",
    ];
    let stops = [
        "then \"spin\" { again }\n",
        "nextTick \"spin\" { log \"tick {k}\" again }\n",
        "nextTick {\n  timeout 1 \"late\"\n  microtask \"m\" {\n    log \"m {k}\"\n    again\n  }\n}\n",
        "repeat 100000 { log \"line {i}\" }\n",
    ];
    let opts = fixed_limits(1_000, 200, 2_000);
    let mut checked = 0;
    for start in starts {
        for stop in stops {
            let src = format!("{start}{stop}");
            let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
            let model = loopsim::interp::run(&loaded.file, &loaded.src, "", opts);
            let hit = match &model.ending {
                loopsim::trace::Ending::Limit(hit) => hit.clone(),
                other => panic!("{src}: not stopped: {other:?}"),
            };
            assert_eq!(hit.turn, 0, "{src}");
            let search = |turn_zero| {
                let bounds = SearchBounds {
                    turn_zero,
                    ..SearchBounds::default()
                };
                loopsim::orders::all_orders_within(&loaded.file, &loaded.src, opts, bounds)
            };
            let (full, decided) = (search(false), search(true));
            assert!(!full.truncated && !decided.truncated, "{src}");
            // The full search replayed schedules that differ in the main module's clock readings.
            assert!(full.schedules > 1, "{src}: {} schedule(s)", full.schedules);
            assert_eq!(decided.schedules, 0, "{src}");
            assert_eq!((full.count, decided.count), (1, 1), "{src}");
            assert_eq!(full.orders, decided.orders, "{src}");
            assert!(
                full.orders[0].end.stopped() && full.model_possible && decided.model_possible,
                "{src}"
            );
            assert_eq!(full.races, decided.races, "{src}");
            checked += 1;
        }
    }
    assert_eq!(checked, 12);
}

/// The order of a run a limit stopped in turn 0 is the whole answer however
/// many lines it holds: not cut short by the bound on orders held (3,000,000
/// `log` statements in a `repeat`, stopped at 2,000,000 lines, were "at
/// least 1 order, cut short at 128 MiB": fresh-clone helper 81).
#[test]
fn a_turn_zero_order_larger_than_the_bound_on_orders_held_is_the_answer() {
    let loaded = load_bytes("t.loop", b"repeat 100000 { log \"line {i}\" }\n").expect("valid");
    let opts = fixed_limits(1_000, 200, 2_000);
    let bounds = SearchBounds {
        max_bytes: 1_000,
        ..SearchBounds::default()
    };
    let o = loopsim::orders::all_orders_within(&loaded.file, &loaded.src, opts, bounds);
    assert!(!o.truncated && o.cut.is_none(), "{:?}", o.cut);
    assert_eq!((o.schedules, o.count, o.count_exact), (0, 1, true));
    // (The statement limit, 2,000, counts the `repeat` too.)
    assert_eq!(o.orders[0].logs.len(), 1_999);
    assert_eq!(o.orders[0].logs[1_998], "line 1999");
    assert!(o.orders[0].end.stopped());
}

/// A run is settled once no timer is armed, no pool job or I/O is under way
/// and every callback waiting only logs, works, goes `again` and queues
/// immediate, nextTick, microtask, `then`, pending or close callbacks that do
/// the same (docs/orders.md "Settled runs"): its states are no longer
/// remembered. A timer that starts an endless immediate chain, beside an
/// immediate it races with: with the states of every turn remembered the
/// search runs out of room (10,000 states, 20,000 turns a schedule); settled,
/// it gives the three orders: the race, and the turn limit cutting the chain
/// one turn apart where the timer ran a turn later.
#[test]
fn a_settled_run_remembers_no_more_states() {
    let src = common::TIMER_STARTS_ENDLESS_CHAIN;
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    let opts = fixed_limits(20_000, 1_000_000, 1_000_000);
    let search = |settle| {
        let bounds = SearchBounds {
            settle,
            max_states: 10_000,
            ..SearchBounds::default()
        };
        loopsim::orders::all_orders_within(&loaded.file, &loaded.src, opts, bounds)
    };
    let unsettled = search(false);
    assert_eq!(unsettled.cut, Some(loopsim::orders::Cut::States(10_000)));
    let o = search(true);
    assert!(
        !o.truncated && o.count_exact && o.model_possible,
        "{:?} {} {}",
        o.cut,
        o.count_exact,
        o.model_possible
    );
    let shape: Vec<(Vec<&str>, usize, bool)> = o
        .orders
        .iter()
        .map(|order| {
            let spins = order.logs.iter().filter(|l| *l == "spin").count();
            let head = order.logs.iter().filter(|l| *l != "spin").map(String::as_str).collect();
            (head, spins, order.end.stopped())
        })
        .collect();
    // The model's order (its timer ran in turn 2), the timer a turn later
    // (no boundary crossed: the loop slept for it), and the timer first.
    let want: Vec<(Vec<&str>, usize, bool)> = vec![
        (vec!["i", "t"], 19_999, true),
        (vec!["i", "t"], 19_998, true),
        (vec!["t", "i"], 20_000, true),
    ];
    assert_eq!(shape, want);
    assert_eq!(o.count, 3);
}

/// The settled search gives exactly the orders, counts and races of the
/// search that remembers every state, on generated files: a race, then an
/// endless (or long) chain that a timer, pool job or I/O callback starts,
/// under limits small enough for the full search to end.
#[test]
fn a_settled_search_gives_the_orders_of_the_full_one() {
    let starts = [
        "timeout 0 \"t\"\nimmediate \"i\"\n",
        "submit \"a\" 0\nsubmit \"b\" 0\nimmediate \"i\"\n",
        "io \"r\" after 1\ntimeout 1 \"u\"\nrepeat 2 { immediate \"im {i}\" }\n",
    ];
    let tails = [
        "timeout 2 \"late\" {\n  immediate \"spin\" { log \"spin {n}\" again }\n}\n",
        "submit \"job\" 1 {\n  nextTick { log \"tick\" again }\n}\n",
        "io \"x\" after 3 {\n  pending \"p\" { again }\n  close \"c\" times 5 { work 1 again }\n}\n",
        "timeout 1 {\n  then \"a\" .then { log \"b {k}\" again }\n  immediate \"n\" times 40 { again }\n}\n",
        // Not settled: the chain sets a timer each turn.
        "timeout 2 {\n  immediate \"s\" times 30 {\n    timeout 1 \"in\"\n    again\n  }\n}\n",
    ];
    let opts = fixed_limits(300, 2_000, 20_000);
    let mut checked = 0;
    for start in starts {
        for tail in tails {
            let src = format!("{start}{tail}");
            let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
            let search = |settle| {
                let bounds = SearchBounds {
                    settle,
                    ..SearchBounds::default()
                };
                loopsim::orders::all_orders_within(&loaded.file, &loaded.src, opts, bounds)
            };
            let (full, settled) = (search(false), search(true));
            assert!(!full.truncated && !settled.truncated, "{src}");
            assert!(full.count > 1, "{src}: no race");
            assert_eq!((full.count, full.count_exact), (settled.count, settled.count_exact), "{src}");
            assert_eq!(full.orders, settled.orders, "{src}");
            assert_eq!(full.races, settled.races, "{src}");
            assert!(settled.schedules <= full.schedules, "{src}");
            checked += 1;
        }
    }
    assert_eq!(checked, 15);
}

/// The guided search of `check` settles runs too, with the same answers: on
/// a file of the kind above, every order `run --all-orders` finds is
/// possible with and without it (and, for these orders a limit stopped,
/// only with the turn in a state's key: "i", "t", then 39 lines of the
/// chain under 40 turns was impossible), and each with its last line
/// dropped gets the same answer both ways. A
/// chain that prints nothing, for a line it never prints: impossible,
/// where remembering each of its turns cut the search short (fresh-clone
/// helper 84, exit 3 for `immediate "x" { again }` and `expect { "x" limit
/// check }`).
#[test]
fn a_settled_guided_search_gives_the_answers_of_the_full_one() {
    use loopsim::orders::membership::{can_print, Membership, Parting};
    let src =
        "timeout 0 \"t\"\nimmediate \"i\"\nio \"x\" after 3 {\n  pending \"p\" { again }\n  close \"c\" times 5 { work 1 again }\n}\n\
               timeout 2 \"late\" {\n  immediate \"spin\" { log \"spin {n}\" again }\n}\n";
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    let opts = fixed_limits(40, 2_000, 20_000);
    let all = loopsim::orders::all_orders_within(&loaded.file, &loaded.src, opts, SearchBounds::default());
    assert!(!all.truncated && all.count > 1, "{:?}", all.count);
    let can = |logs: &[String], end: End, settle: bool| {
        let bounds = SearchBounds {
            settle,
            ..SearchBounds::default()
        };
        can_print(&loaded.file, &loaded.src, opts, logs, end, bounds)
    };
    for order in &all.orders {
        for settle in [false, true] {
            let got = can(&order.logs, order.end, settle);
            assert!(
                matches!(got, Membership::Possible { .. }),
                "{got:?} {} lines, ending {:?}, settle {settle}",
                order.logs.len(),
                order.end
            );
        }
        let shorter = &order.logs[..order.logs.len() - 1];
        assert_eq!(can(shorter, order.end, true), can(shorter, order.end, false), "{shorter:?}");
    }
    let silent = load_bytes("t.loop", b"immediate \"x\" { again }\n").expect("valid");
    let x = ["x".to_string()];
    let can = |settle| {
        let bounds = SearchBounds {
            settle,
            max_states: 10_000,
            ..SearchBounds::default()
        };
        can_print(&silent.file, &silent.src, RunOptions::default(), &x, End::Stopped, bounds)
    };
    assert_eq!(
        can(true),
        Membership::Impossible {
            parting: Some(Parting {
                agreed: 0,
                next: None,
                ended: None
            })
        }
    );
    assert_eq!(
        can(false),
        Membership::Undecided {
            cut: loopsim::orders::Cut::States(10_000)
        }
    );
}

/// Searches `src` with the bounds `keyed` and `reduced` (a state key that
/// tells more states apart, and one that joins some of them); asserts both
/// complete with equal orders, counts and races, and that the reduced key
/// needs no more schedules. The count and both schedule counts.
fn same_answer(name: &str, src: &str, keyed: SearchBounds, reduced: SearchBounds) -> (u128, usize, usize) {
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    let search = |bounds| loopsim::orders::all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds);
    let (exact, fewer) = (search(keyed), search(reduced));
    assert!(!exact.truncated && !fewer.truncated, "{name}");
    assert_eq!((exact.count, exact.count_exact), (fewer.count, fewer.count_exact), "{name}");
    assert_eq!(exact.orders, fewer.orders, "{name}");
    assert_eq!(exact.races, fewer.races, "{name}");
    assert!(fewer.schedules <= exact.schedules, "{name}");
    (exact.count, exact.schedules, fewer.schedules)
}

/// `compare` (a [`same_answer`] of two keys) on every example and
/// conformance case.
fn same_answer_on_every_example(compare: &dyn Fn(&str, &str) -> (u128, usize, usize)) {
    let mut checked = 0;
    for path in common::loop_files_under("examples")
        .into_iter()
        .chain(common::loop_files_under("tests/conformance"))
    {
        compare(&path.display().to_string(), &std::fs::read_to_string(&path).unwrap());
        checked += 1;
    }
    assert!(checked >= 50, "{checked} files");
}

/// Keying past ticks as one value (docs/orders.md "Past ticks") gives
/// exactly the orders, counts and races of the search that keys them
/// exactly, on every example, every conformance case and generated files
/// whose timers fall due at ticks the schedules choose: intervals set from
/// a chain of immediates, each in its own turn, beside an `io`, a pool job
/// or a timeout; and it needs fewer schedules.
#[test]
fn past_ticks_as_one_value_give_the_orders_of_the_exact_key() {
    let compare = |name: &str, src: &str| {
        let exact = SearchBounds {
            past_as_one: false,
            ..SearchBounds::default()
        };
        same_answer(name, src, exact, SearchBounds::default())
    };
    same_answer_on_every_example(&compare);
    for chain in [2, 3] {
        for delay in [1, 3] {
            for beside in ["", "io \"x\" after 2", "submit \"j\" 1", "timeout 2 \"t\""] {
                let src = format!(
                    "immediate \"b\" times {chain} {{\n  interval {delay} \"c\" times 2 {{\n    log \"c\"\n  }}\n  again\n}}\n{beside}\n"
                );
                compare(&src, &src);
            }
        }
    }
    // Found by generated files: two completions ready in one tick before
    // the last reading, against two ready in two ticks, were keyed alike
    // (ranked by tick and start together), and an order went missing.
    let src = "interval 3 \"g\" times 2\nsubmit \"c\" 1 {\n  io \"e\" after 5\n}\nthen \"g\" {\n  pending \"g\" {\n    submit \"h\" 2\n  }\n}\ntimeout 2 \"f\" {\n  interval 1 \"d\" times 2\n  io \"g\" after 0\n}\n";
    // 48 orders: rule 2d's registration leaves out the 49th the search gave
    // before it ("g g h e d g d"), where `io "g" after 0`, started in a timers
    // phase past tick 3, came before the pool job "h" that had woken epoll
    // at 3, before that poll phase registered "g".
    assert_eq!(compare("completions of one tick", src).0, 48);
    // Generated programs whose timers, jobs and I/O race within a few ticks.
    for seed in 0..TIMING_PROGRAMS {
        let src = timing_program(seed);
        compare(&src, &src);
    }
    // Four intervals, each set in its own turn, beside an `io`: four
    // orders; the exact key tells apart every combination of the ticks the
    // intervals fell due at (27,887 schedules measured), past ticks as one
    // value do not (10,774).
    let src = "immediate \"b\" times 4 {\n  interval 3 \"c\" times 2 {\n    log \"c\"\n  }\n  again\n}\nio \"a\" after 2\n";
    let (count, exact, past) = compare("four intervals", src);
    assert_eq!(count, 4);
    assert!(past * 2 < exact, "{past} schedules, exact key {exact}");
}

/// How many [`timing_program`]s the past-ticks comparison searches.
const TIMING_PROGRAMS: u64 = 60;

/// A small program of timers, intervals, immediates, pool jobs, I/O and
/// drains with delays of a few ticks, nested two deep: where timings race
/// most (the promise generator's splitmix64, from `seed`).
fn timing_program(seed: u64) -> String {
    let mut rng = promise_gen::Rng::new(seed);
    let mut next = |n: u64| rng.below(n);
    fn statement(next: &mut dyn FnMut(u64) -> u64, depth: usize, out: &mut String) {
        let label = ["a", "b", "c", "d"][next(4) as usize];
        let head = match next(11) {
            0 | 1 => format!("timeout {} \"{label}\"", [0, 1, 2, 3, 5][next(5) as usize]),
            2 => format!("interval {} \"{label}\" times {}", 1 + next(3), 1 + next(2)),
            3 | 4 => format!("immediate \"{label}\""),
            5 => format!("submit \"{label}\" {}", next(3)),
            6 => format!("io \"{label}\" after {}", [0, 1, 2, 5][next(4) as usize]),
            7 => format!("nextTick \"{label}\""),
            8 => format!("then \"{label}\""),
            9 => format!("pending \"{label}\""),
            _ => format!("close \"{label}\""),
        };
        out.push_str(&"  ".repeat(depth));
        out.push_str(&head);
        if depth < 2 && next(10) < 4 {
            out.push_str(" {\n");
            for _ in 0..1 + next(2) {
                statement(next, depth + 1, out);
            }
            out.push_str(&"  ".repeat(depth));
            out.push('}');
        }
        out.push('\n');
    }
    let mut out = String::new();
    if next(3) == 0 {
        out.push_str(&format!("pool {}\n", 1 + next(2)));
    }
    for _ in 0..2 + next(3) {
        statement(&mut next, 0, &mut out);
    }
    out
}

/// `readFile` takes the profile's pool round trips: four on Node 20-24 (a job queued after it
/// overtakes it in a one-thread pool), one on Node 26; `writeFile` three, then one.
#[test]
fn read_file_and_write_file_round_trips_follow_the_profile() {
    for (node, read_first) in [(20, false), (22, false), (24, false), (26, true)] {
        let want = if read_first {
            ["long", "fs", "after"]
        } else {
            ["long", "after", "fs"]
        };
        // The statements, then their promise forms (`fs.promises`): the same round trips.
        for fs in [
            "readFile \"fs\"",
            "writeFile \"fs\"",
            "chain readFile .then \"fs\"",
            "chain writeFile .then \"fs\"",
        ] {
            let src = format!("node {node}\npool 1\nsubmit \"long\" 5\n{fs}\nsubmit \"after\" 0\n");
            let loaded = loopsim::load::load_bytes("t.loop", src.as_bytes()).unwrap();
            let trace = loopsim::interp::run(&loaded.file, &loaded.src, "", loopsim::interp::RunOptions::default());
            let logs: Vec<&str> = trace.logs().map(|(_, t)| t).collect();
            assert_eq!(logs, want, "Node {node}, {fs}");
        }
    }
}

/// A pool job of 0 ticks is not instant (docs/orders.md §4): real Node printed `immediate, stat`
/// in 16 of 60 runs of `fs.stat(__filename, …)` beside `setImmediate(…)` on Node 20, 17 on Node 26.
#[test]
fn a_zero_tick_pool_job_races_an_immediate_from_the_main_module() {
    let o = orders_of_src("submit \"stat\" 0\nimmediate \"i\"\n");
    assert_eq!(texts(&o), [["stat", "i"], ["i", "stat"]]);
    // An `io` that has already arrived is instant: no race.
    let o = orders_of_src("io \"x\"\nimmediate \"i\"\n");
    assert_eq!(texts(&o), [["x", "i"]]);
    // In a Node 20 ES module the job may finish after the module body's poll phase, even after
    // the next turn's timers: real Node 20 printed `immediate, timeout, stat` in 10 runs of 10.
    let o = orders_of_src("module esm\nnode 20\nsubmit \"stat\" 0\nimmediate \"immediate\"\ntimeout 0 \"timeout\"\n");
    assert!(texts(&o).contains(&vec!["immediate", "timeout", "stat"]), "{:?}", texts(&o));
}

/// Two jobs of one pool thread that complete in the same tick keep their order: the second got
/// the thread when the first finished (real Node 20 printed `long, quick` every time).
#[test]
fn a_job_waiting_for_a_thread_never_finishes_before_the_job_it_waited_for() {
    let o = orders_of_src("pool 1\nsubmit \"long\" 5\nsubmit \"quick\" 0\n");
    assert_eq!(texts(&o), [["long", "quick"]]);
    let o = orders_of_src("pool 1\nsubmit \"a\" 0\nsubmit \"b\" 0\nsubmit \"c\" 0\n");
    assert_eq!(texts(&o), [["a", "b", "c"]]);
    // On two threads, equal jobs started together still finish in either order.
    let o = orders_of_src("pool 2\nsubmit \"a\" 3\nsubmit \"b\" 3\n");
    assert_eq!(texts(&o).len(), 2);
}

/// libuv's threads take jobs from one FIFO queue as each becomes free, so a 0-tick job submitted
/// beside another may get a second thread and finish first (real Node 20 printed `b, a` in 3 of
/// 200 runs of two `fs.stat`s with `loopsim verify`); it only has to find a thread free: of the
/// jobs before it that finish in its tick, at most the pool's size less one may still be running
/// (docs/orders.md §4). Five 0-tick jobs on four threads: the fifth is never first (real Node 20:
/// 15 orders in 200 runs, all among these 96).
#[test]
fn a_zero_tick_job_may_take_any_free_thread() {
    let o = orders_of_src("submit \"a\" 0\nsubmit \"b\" 0\n");
    assert_eq!(texts(&o), [["a", "b"], ["b", "a"]]);
    let five = orders_of_src("submit \"a\" 0\nsubmit \"b\" 0\nsubmit \"c\" 0\nsubmit \"d\" 0\nsubmit \"e\" 0\n");
    let five = texts(&five);
    assert_eq!(five.len(), 96, "5! less the 24 with e first");
    assert!(five.iter().all(|o| o[0] != "e"));
    assert!(five.contains(&vec!["d", "e", "a", "b", "c"]));
    // A job that runs past the tick keeps a thread: with two threads, `c` waits for `a`.
    let o = orders_of_src("pool 2\nsubmit \"long\" 5\nsubmit \"a\" 0\nsubmit \"c\" 0\n");
    let o = texts(&o);
    assert_eq!(o, [["a", "c", "long"]]);
    // Two jobs of 3 ticks free both threads in tick 3: the waiting 0-tick job may follow either.
    let o = orders_of_src("pool 2\nsubmit \"a\" 3\nsubmit \"b\" 3\nsubmit \"c\" 0\n");
    let mut o = texts(&o);
    o.sort();
    assert_eq!(o, [["a", "b", "c"], ["a", "c", "b"], ["b", "a", "c"], ["b", "c", "a"]]);
    // Jobs that log the same lines are offered once (the first submitted): twelve `submit "a" 0`
    // on their own lines give one order, not a search cut short; with two "b" among six jobs,
    // the 14 orders a brute force over every completion order allowed by the rule gives.
    let twelve = orders_of_src(&"submit \"a\" 0\n".repeat(12));
    assert!(!twelve.truncated);
    assert_eq!(texts(&twelve), [vec!["a"; 12]]);
    let mix = orders_of_src("submit \"a\" 0\nsubmit \"a\" 0\nsubmit \"b\" 0\nsubmit \"a\" 0\nsubmit \"a\" 0\nsubmit \"b\" 0\n");
    assert_eq!(texts(&mix).len(), 14);
}

/// The list holds at most `max_listed` orders, and a shorter list is the start
/// of a longer one: the renamings of symmetric groups are made group by group,
/// only as many as the list keeps. The race check lists two (it needs the
/// model's order and one other): listing 10,000 renamings of 200 jobs' lines
/// took seconds and half a gigabyte behind a `run`.
#[test]
fn a_shorter_list_is_the_start_of_a_longer_one() {
    use loopsim::orders::all_orders_within;
    let within = |src: &str, max_listed: usize| {
        let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
        let bounds = SearchBounds {
            max_schedules: 300,
            max_listed,
            time_limit: None,
            ..SearchBounds::default()
        };
        all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds)
    };
    for src in [
        "repeat 200 { submit \"j{i}\" 1 }\n",
        "repeat 12 { submit \"a{i}\" 1 { log \"x{i}\" } }\nimmediate \"i\"\nrepeat 3 { io \"r{i}\" }\n",
        "pool 2\nrepeat 9 { submit \"b{i}\" 2 }\nrepeat 2 { submit \"c\" 1 { log \"c done\" log \"c2\" } }\n",
    ] {
        let full = within(src, loopsim::orders::MAX_LISTED);
        assert!(full.orders.len() > 20, "{src}: {}", full.orders.len());
        for max in [1, 2, 7, 20] {
            let short = within(src, max);
            assert_eq!(short.orders.len(), max, "{src}");
            assert_eq!(texts(&short), texts(&full)[..max], "{src} {max}");
            assert_eq!(short.count, full.count, "{src}");
        }
    }
    // The race check's bounds list two.
    let loaded = load_bytes("t.loop", b"repeat 200 { submit \"j{i}\" 1 }\n").expect("valid");
    let bounds = SearchBounds {
        time_limit: None,
        max_schedules: 300,
        ..SearchBounds::race_check()
    };
    let o = all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds);
    assert_eq!(o.orders.len(), 2);
}

/// A search given progress counters counts in them every schedule it
/// replays and the orders it finds, as it goes (the command line's spinner
/// reads them from another thread); so does `check`'s search for an
/// alternative's order.
#[test]
fn a_search_counts_its_schedules_and_orders_in_its_progress_counters() {
    use std::sync::atomic::Ordering::Relaxed;
    static PROGRESS: loopsim::orders::Progress = loopsim::orders::Progress::new();
    let src = "timeout 0 \"t\"\nimmediate \"i\"\n";
    let loaded = load_bytes("race.loop", src.as_bytes()).expect("valid");
    let bounds = SearchBounds {
        progress: Some(&PROGRESS),
        ..SearchBounds::default()
    };
    let o = loopsim::orders::all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds);
    assert_eq!(o.count, 2);
    assert!(o.schedules >= 2, "{}", o.schedules);
    assert_eq!(PROGRESS.schedules.load(Relaxed), o.schedules as u64);
    assert_eq!(PROGRESS.orders.load(Relaxed), 2);
    // The alternative the model does not print is searched for: more schedules.
    let before = PROGRESS.schedules.load(Relaxed);
    let predicted = format!("{src}expect {{\n  \"t\"\n  \"i\"\n}}\n");
    let loaded = load_bytes("race.loop", predicted.as_bytes()).expect("valid");
    let verdict = loopsim::verdict::verdict(&loaded, RunOptions::default(), None, Some(&PROGRESS), true);
    assert!(matches!(verdict, loopsim::verdict::Verdict::Pass { .. }));
    assert!(PROGRESS.schedules.load(Relaxed) > before);
}

/// Leaving the timers' slots out of a state in a file without `clear`
/// (docs/orders.md "Timer slots") gives exactly the orders, counts and races
/// of the key that holds them, on every example, every conformance case,
/// chains of immediates that each set an interval, and generated programs;
/// and fewer schedules where timers are freed and set in different orders.
#[test]
fn timers_without_their_slots_give_the_orders_of_the_keyed_slots() {
    let compare = |name: &str, src: &str| {
        let keyed = SearchBounds {
            anonymous_timers: false,
            ..SearchBounds::default()
        };
        same_answer(name, src, keyed, SearchBounds::default())
    };
    same_answer_on_every_example(&compare);
    let (mut keyed, mut fewer) = (0, 0);
    for seed in 0..TIMING_PROGRAMS {
        let src = timing_program(seed);
        let (_, k, f) = compare(&src, &src);
        (keyed, fewer) = (keyed + k, fewer + f);
    }
    assert!(fewer < keyed, "{fewer} schedules, slots keyed {keyed}");
    for chain in [2, 3, 4] {
        let src = format!(
            "immediate \"b\" times {chain} {{\n  interval 3 \"c\" times 2 {{\n    log \"c\"\n  }}\n  again\n}}\nio \"a\" after 2\n"
        );
        assert_eq!(compare(&src, &src).0, chain);
    }
    // The timeout's slot is free again before the pending callback's
    // interval or the second timeout's interval is set, whichever comes
    // first: the same timers in each other's slots (335 schedules measured
    // with the slots keyed, 250 without).
    let src = "nextTick \"b\"\ntimeout 0 \"c\" {\n  immediate \"a\"\n  immediate \"c\"\n}\npending \"a\" {\n  close \"c\" {\n    immediate \"d\"\n    interval 2 \"c\" times 1\n  }\n}\ntimeout 2 \"d\" {\n  interval 1 \"b\" times 2 {\n    then \"c\"\n    pending \"c\"\n  }\n}\n";
    let (count, keyed, fewer) = compare("slots freed in different orders", src);
    assert_eq!(count, 4);
    assert!(fewer * 5 < keyed * 4, "{fewer} schedules, slots keyed {keyed}");
}

/// A search a bound cuts short while some timing runs an `interval` its
/// `clear` missed (the model's run ends by itself, at turn 3) says so, with
/// the lower limit that answers fast; and under `--max-turns 50` the answer
/// is exact: the interval printed once, not at all, twice, or on until the
/// turn limit.
#[test]
fn a_search_cut_short_by_a_run_that_never_ends_says_so() {
    let src = "timeout 2 \"s\" { interval 1 \"i\" }\ntimeout 0 \"t\"\nio \"x\" after 3 { clear \"i\" }\n";
    let loaded = load_bytes("k.loop", src.as_bytes()).expect("valid");
    let bounds = SearchBounds {
        max_states: 20_000,
        ..SearchBounds::default()
    };
    let o = loopsim::orders::all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds);
    assert_eq!(o.cut, Some(loopsim::orders::Cut::States(20_000)));
    let turns = o.longer_run.expect("a schedule ran far past the model's turns");
    assert!(turns > 1_000, "{turns}");
    let note = loopsim::orders::report::cut_note(&o);
    assert!(
        note.contains("; in some timing the run goes on past turn ")
            && note.ends_with("a lower limit (`--max-turns 50`) is searched fast)"),
        "{note}"
    );
    let o = loopsim::orders::all_orders_within(&loaded.file, &loaded.src, fixed_limits(50, 1_000_000, 10_000_000), bounds);
    assert!(!o.truncated && o.longer_run.is_none(), "{:?}", o.cut);
    let mut shapes: Vec<(usize, bool)> = o.orders.iter().map(|o| (o.logs.len(), o.end.stopped())).collect();
    shapes.sort_unstable();
    assert_eq!(shapes, [(1, false), (2, false), (3, false), (48, true)]);
    assert!(o.orders.iter().all(|o| o.logs[0] == "t" && o.logs[1..].iter().all(|l| l == "i")));
}

/// The exit codes other than 0 that `verify` compares as endings: those of
/// the orders found, and both 1 and 13 where the search was cut short (an
/// order not found may end so: fresh-clone helper 91).
#[test]
fn exit_codes_are_the_orders_and_all_when_cut_short() {
    let src = "promise p { timeout 0 { reject } }\nimmediate { chain p .catch \"c\" }\n";
    assert_eq!(orders_of_src(src).exit_codes(), [1]);
    assert!(orders_of_src("timeout 0 \"t\"\nimmediate \"i\"\n").exit_codes().is_empty());
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    let cut = loopsim::orders::all_orders_within(
        &loaded.file,
        &loaded.src,
        RunOptions::default(),
        SearchBounds {
            max_schedules: 1,
            ..SearchBounds::default()
        },
    );
    assert!(cut.truncated);
    assert_eq!(cut.exit_codes(), [1, 13]);
}
