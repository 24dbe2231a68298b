//! `run --explain`: every rule of docs/scheduling.md explains the lines it places.

use loopsim::interp::{run, RunOptions};
use loopsim::load::load_bytes;

/// The explanation of each log line, by its text.
fn why(src: &str) -> Vec<(String, String)> {
    let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
    let trace = run(
        &loaded.file,
        &loaded.src,
        "t",
        RunOptions {
            explain: true,
            ..RunOptions::default()
        },
    );
    trace.logs().map(|(_, t)| t.to_string()).zip(trace.explanations.clone()).collect()
}

fn of(src: &str, text: &str) -> String {
    why(src)
        .into_iter()
        .find(|(t, _)| t == text)
        .unwrap_or_else(|| panic!("no line {text}"))
        .1
}

fn has(src: &str, text: &str, needles: &[&str]) {
    let w = of(src, text);
    for n in needles {
        assert!(w.contains(n), "{text}: {n:?} not in {w:?}");
    }
}

#[test]
fn rule_1_main_module_cjs_and_esm() {
    has("log \"m\"", "m", &["main module runs synchronously at turn 0"]);
    has(
        "module esm\nnode 20\nlog \"m\"",
        "m",
        &["inside turn 1's poll phase, as a microtask"],
    );
    has(
        "module esm\nlog \"m\"",
        "m",
        &["runs at turn 0, before the loop starts (Node >= 22.18"],
    );
    has(
        "module esm\nnextTick \"t\"\nthen \"p\"",
        "p",
        &["queued by the ES module body", "before any nextTick"],
    );
}

#[test]
fn rule_2_timers_phase_already_run_and_check_snapshot() {
    let p1 = "io \"read\" {\n  log \"read\"\n  timeout 0 \"timer\"\n  immediate \"imm\" { log \"imm\" immediate \"second\" }\n}\n";
    has(
        p1,
        "timer",
        &[
            "line 3",
            "scheduled at tick 0 from the poll phase of turn 1",
            "turn 1's timers phase had already run, so it waits for turn 2",
        ],
    );
    has(p1, "imm", &["the check phase comes later in the same turn (turn 1)"]);
    has(p1, "second", &["check queue was taken as a snapshot, so it runs next turn"]);
    has(
        p1,
        "read",
        &["the bytes arrive at tick 0", "the first poll phase to find them ready is turn 1's"],
    );
}

#[test]
fn rule_2_sleep_pending_and_close() {
    has("timeout 100 \"t\"", "t", &["the loop slept from tick 0 to 100"]);
    has(
        "timeout 1 \"t\" { pending \"p\" }",
        "p",
        &["deferred from the timers phase, it runs in the same turn's pending phase"],
    );
    has(
        "io \"r\" { pending \"p\" }",
        "p",
        &["deferred during poll, it runs in the pending rounds right after poll"],
    );
    has(
        "immediate \"i\" { pending \"p\" }",
        "p",
        &["waits for the next turn's pending phase"],
    );
    has("close \"a\"\nclose \"b\"", "b", &["last in first out"]);
}

#[test]
fn rule_3_timers() {
    has(
        "timeout 0 \"t\" { timeout 0 \"inner\" }",
        "inner",
        &["0 becomes 1", "set during turn 1's timers phase, it waits for a later turn"],
    );
    has(
        "interval 30 \"i\" times 2 { log \"run {n}\" work 20 }",
        "run 2",
        &["run 2 of the interval", "re-armed 30 ticks after the previous run started"],
    );
    has(
        "interval 3000000000 \"i\" times 2 { log \"run {n}\" }",
        "run 2",
        &["re-armed 1 tick (a delay above 2147483647 becomes 1, as in Node) after the previous run started"],
    );
}

#[test]
fn rule_4_thread_pool() {
    let src = "pool 1\nsubmit \"a\" 4\nsubmit \"b\" 1";
    has(
        src,
        "a",
        &["a free pool thread took it at once (tick 0)", "4 ticks of work made it ready at 4"],
    );
    has(
        src,
        "b",
        &["all 1 pool threads were busy", "free at tick 4 (FIFO, rule 4)", "ready at 5"],
    );
}

#[test]
fn rule_5_work_makes_timers_late() {
    has(
        "timeout 2 \"a\" { work 6 }\ntimeout 3 \"b\"",
        "b",
        &["due at 3", "the thread was busy until tick 8, so it ran late (rule 5)"],
    );
}

#[test]
fn rule_6_between_callbacks() {
    has(
        "nextTick \"t\"",
        "t",
        &["runs right after the callback that queued it returns, before any microtask"],
    );
    has("microtask \"m\"", "m", &["once the nextTick queue is empty"]);
    has(
        "then \"m\" { nextTick \"late tick\" }",
        "late tick",
        &["queued by a microtask, a nextTick waits until the whole microtask queue is empty"],
    );
    has(
        "then \"a\" .then \"b\"",
        "b",
        &["a `.then` link's reaction job is queued when the previous link's promise settles, as its callback returns, and runs one hop later (rule 8a)"],
    );
}

/// (From an I/O callback the immediate always runs first: Node's orders and
/// the model's trace part from the prediction at its first line, so the
/// model's difference is shown, with why.)
#[test]
fn a_failed_prediction_explains_what_ran_there() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["check", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin
                .take()
                .unwrap()
                .write_all(b"io \"read\" {\n  timeout 0 \"t\"\n  immediate \"i\"\n}\nexpect {\n  \"t\"\n}\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("why \"i\" ran there: immediate \"i\" (line 3) was scheduled at tick 0 from the poll phase of turn 1"),
        "{err}"
    );
}

/// `--node 10 --explain`: the drain after the whole timer list is Node 10's
/// rule, not Node 20's "right after the callback".
#[test]
fn node_10_explains_its_own_drain() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("n10.loop");
    std::fs::write(
        &file,
        "repeat 2 {\n  timeout 0 \"t{i}\" {\n    log \"t{i}\"\n    then \"t{i} promise\"\n    nextTick \"t{i} tick\"\n  }\n}\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["run", "--node", "10", "--explain"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let tick = text.lines().skip_while(|l| !l.ends_with("nextTick   t1 tick")).nth(1).unwrap();
    assert!(
        tick.ends_with("Node 10 drains the nextTick and microtask queues only after the whole list of due timers, not after each callback (rule 6, as before Node 11)"),
        "{text}"
    );
    assert!(!text.contains("right after the callback that queued it"), "{text}");
}

#[test]
fn a_clock_at_its_limit_stops_before_a_timer_there_is_explained() {
    // Once an arithmetic overflow (`due + 1`) in a debug build, on a timer due
    // at the clock's maximum; now the run stops when the clock reaches 2^53 - 1
    // (docs/scheduling.md rule 7), before any such timer runs.
    let src = std::fs::read_to_string("tests/regressions/clock-saturated-timer-runs.loop").unwrap();
    for src in [
        src.as_str(),
        "timeout 5 \"t\"\nwork 18446744073709551615",
        "work 18446744073709551614\nio \"r\" { timeout 1 \"t\" }",
    ] {
        assert!(why(src).iter().all(|(text, _)| text != "t"), "{src}");
    }
    // Under the limit, a timer late behind a long `work` is explained as before.
    assert_eq!(
        of("timeout 5 \"t\"\nwork 9007199254740000", "t"),
        "timeout \"t\" (line 1) was scheduled at tick 0 from the main module; due at 5; timers run in a turn's \
         timers phase once due (rule 3); the thread was busy until tick 9007199254740000, so it ran late (rule 5)"
    );
}

/// `again` in a link of a promise expression: the later run says which run
/// it is and that the link's `again` queued it, one hop later (rule 8a).
#[test]
fn rule_8a_a_links_again_names_its_run() {
    let src = "chain rejected .catch \"r\" times 2 { log \"r {n}\" again }\n";
    has(
        src,
        "r 2",
        &[".catch \"r\" (line 1), run 2 queued by its `again`", "one hop later (rule 8a)"],
    );
    assert!(!of(src, "r 1").contains("again"), "{}", of(src, "r 1"));
}

/// A `then` statement's link is placed by its chain (queued as the callback
/// before it returns), not "scheduled from the main module"; a run its own
/// `again` queued says so, and where that `again` ran.
#[test]
fn a_then_link_is_explained_by_its_chain_and_its_again() {
    // The link on a line of its own: its line, not the chain's.
    let src = "timeout 2 \"t\" {\n  then \"a\"\n  .then times 2 {\n    log \"b{n}\"\n    again\n  }\n}\n";
    let b1 = of(src, "b1");
    assert!(
        b1.starts_with(".then link 1 (line 3) of the chain scheduled at tick 2 from the timers phase of turn 1; "),
        "{b1}"
    );
    assert!(
        b1.ends_with("is queued when the previous link's promise settles, as its callback returns, and runs one hop later (rule 8a)"),
        "{b1}"
    );
    let b2 = of(src, "b2");
    assert!(
        b2.starts_with(
            ".then link 1 (line 3), run 2, was queued by its `again` at tick 2 from a microtask callback in the timers phase of turn 1; "
        ),
        "{b2}"
    );
    assert!(
        b2.ends_with(
            "`again` queues the link's body once more, alone, as a reaction job on a settled promise: it runs one hop later (rule 8a)"
        ),
        "{b2}"
    );
    let three = why("then \"a\"\n.then \"b\"\n.then \"c\"\n");
    assert!(three[1].1.starts_with(".then link 1 (line 2) of the chain"), "{}", three[1].1);
    assert!(three[2].1.starts_with(".then link 2 (line 3) of the chain"), "{}", three[2].1);
}
