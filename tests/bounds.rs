//! Hostile files: every command ends within seconds and under 1 GiB of
//! address space, stopped by a documented bound with a documented exit code.
//!
//! Each command runs under `ulimit -v` (1 GiB) and is killed if it runs past
//! a generous time (no test asserts anything closer about time). Outputs are
//! deterministic: the files hit their bound far beyond it, or the bound is a
//! count (a time limit of 0 s stops a search at its first step).

mod common;

use loopsim::orders::{self, Cut, SearchBounds};
use loopsim::{interp, load};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The address space each command may use: 1 GiB.
const MEMORY_KIB: u64 = 1 << 20;

/// What a command printed and how it ended.
struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bounds");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `text` as the file `name` and returns its path.
fn file(name: &str, text: &str) -> String {
    let path = dir().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs loopsim with `args` under 1 GiB of address space; fails the test if it
/// is still running after `secs` seconds.
fn loopsim(args: &[&str], secs: u64) -> Out {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let (out_path, err_path) = (dir().join(format!("out-{call}")), dir().join(format!("err-{call}")));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_loopsim"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::from(std::fs::File::create(&out_path).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err_path).unwrap()))
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("loopsim {args:?} still ran after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &PathBuf| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    let out = Out {
        code: status.code(),
        stdout: read(&out_path),
        stderr: read(&err_path),
    };
    let _ = std::fs::remove_file(out_path);
    let _ = std::fs::remove_file(err_path);
    out
}

// ----- 1. `clear` labels ------------------------------------------------------

#[test]
fn ten_thousand_timers_and_ten_thousand_clears_check_in_linear_time() {
    // Every label distinct and literal, every clear naming one: the check of
    // `clear` labels compared each clear with each label (33 s and more).
    let mut src = String::new();
    for i in 0..10_000 {
        src.push_str(&format!("timeout 1 \"t{i}\"\n"));
    }
    for i in 0..10_000 {
        src.push_str(&format!("clear \"t{i}\"\n"));
    }
    let f = file("clears.loop", &src);
    let o = loopsim(&["run", "--no-race-check", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stdout, "turn  tick  phase      log (Node 26)\n");
    assert_eq!(o.stderr, "");
}

#[test]
fn ninety_thousand_alternatives_check_in_linear_time() {
    // 1.2 MB: `expect { "i" "t" } or { "t" "i" } or …`, both orders 45,000 times.
    // Each alternative not the model's was searched for on its own (over 60 s);
    // now one search for every order, each alternative looked up in it.
    let alts = vec![r#"{ "i" "t" } or { "t" "i" }"#; 45_000].join(" or ");
    let f = file("alternatives.loop", &format!("timeout 0 \"t\"\nimmediate \"i\"\nexpect {alts}\n"));
    let o = loopsim(&["check", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("2 lines as predicted"), "{}", o.stdout);
    // One alternative Node never prints, after 45,000 that it does: said at that one.
    let f = file(
        "alternatives-bad.loop",
        &format!("timeout 0 \"t\"\nimmediate \"i\"\nexpect {alts} or {{ \"t\" }}\n"),
    );
    let o = loopsim(&["check", &f], 30);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert!(o.stderr.contains("real Node"), "{}", o.stderr);
}

/// The 720 orders of six 0-tick jobs, each written 40 times (1 MB of `expect`): the
/// search for every order read the whole `expect` block at each of its schedules, and
/// was cut short after 10 s; the alternatives it did not meet were then searched for
/// one by one, each with 10 s of its own. The run now reads only the statements, and
/// the searches one by one share one time bound.
#[test]
fn many_alternatives_of_a_pool_race_check_within_the_time_bound() {
    let jobs: Vec<String> = (1..=6).map(|i| format!("x{i}")).collect();
    let mut perms: Vec<Vec<&str>> = vec![Vec::new()];
    for _ in 0..jobs.len() {
        let mut longer = Vec::new();
        for p in &perms {
            for j in jobs.iter().filter(|j| !p.contains(&j.as_str())) {
                let mut q = p.clone();
                q.push(j.as_str());
                longer.push(q);
            }
        }
        perms = longer;
    }
    assert_eq!(perms.len(), 720);
    let alt = |p: &Vec<&str>| format!("{{ {} }}", p.iter().map(|x| format!("\"{x}\"")).collect::<Vec<_>>().join(" "));
    let alts: Vec<String> = perms.iter().map(alt).collect();
    let head: String = std::iter::once("pool 1024\n".to_string())
        .chain(jobs.iter().map(|j| format!("submit \"{j}\" 0\n")))
        .collect();
    let f = file(
        "pool-alternatives.loop",
        &format!("{head}expect {}\n", vec![alts.join(" or "); 40].join(" or ")),
    );
    let o = loopsim(&["check", &f], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("6 lines as predicted"), "{}", o.stdout);
}

#[test]
fn a_long_label_and_a_long_clear_stay_under_a_gigabyte() {
    // 80 KB: a 40,000-character label and a clear that differs in its last
    // character. The check built a 40,000 × 40,000 table (1.5 GB).
    let a = "a".repeat(40_000);
    let f = file("long-clear.loop", &format!("timeout 1 \"{a}\"\nclear \"{a}b\"\n"));
    let o = loopsim(&["check", &f], 30);
    assert_eq!(o.code, Some(1), "{}", o.stderr); // no expect block
    assert!(o.stderr.contains("no timeout, interval or immediate is labelled"), "{}", o.stderr);
}

#[test]
fn clear_labels_with_placeholders_match_digit_runs() {
    // `clear` semantics are unchanged: labels compared after `{i}` is filled in.
    let src = "repeat 3 { timeout 5 \"t{i}\" }\nrepeat 2 { immediate \"im{i}x\" { log \"im\" } }\nlog \"main\"\nclear \"t2\"\nrepeat 2 { clear \"im{i}x\" }\ntimeout 9 \"late\" { clear \"t3\" }\nrepeat 1 { nextTick \"n{i}5\" }\nrepeat 1 { clear \"n{i}{i}5\" }\n";
    let f = file("placeholders.loop", src);
    let o = loopsim(&["run", "--no-race-check", "--verbose", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    // t1 and t3 run at 5 (the clear in "late" comes after), t2 was cleared, both immediates too.
    let logs: Vec<&str> = o.stdout.lines().filter(|l| l.contains("× clear")).collect();
    assert_eq!(logs.len(), 5, "{}", o.stdout);
    assert!(logs[0].ends_with("× clear \"t2\": 1 cancelled (line 4)"), "{}", logs[0]);
    assert!(logs[1].ends_with("× clear \"im1x\": 1 cancelled (line 5)"), "{}", logs[1]);
    assert!(logs[2].ends_with("× clear \"im2x\": 1 cancelled (line 5)"), "{}", logs[2]);
    assert!(logs[3].ends_with("× clear \"n115\": 0 cancelled (line 8)"), "{}", logs[3]);
    assert!(logs[4].ends_with("× clear \"t3\": 0 cancelled (line 6)"), "{}", logs[4]);
    // "n{i}{i}5" names no timeout, interval or immediate: one warning, at line 8.
    // (It could also be the nextTick label "n{i}5" filled in as "n115"; the
    // check does not say so: see the closing note of issue 9.)
    assert_eq!(o.stderr.matches("loop::clear").count(), 1, "{}", o.stderr);
    assert!(o.stderr.contains("placeholders.loop:8:18]"), "{}", o.stderr);
}

// ----- 2. log text in bytes ---------------------------------------------------

const LINE_2KB: usize = 2_000;

fn two_kb_lines() -> String {
    file(
        "2kb.loop",
        &format!("immediate \"x\" {{ log \"{}\" again }}\n", "x".repeat(LINE_2KB)),
    )
}

/// A 2 KB label with `{i}` in a repeat of 10^8: each callback's label is a
/// new one, kept while it waits (this took 20 GB before the waiting bound).
#[test]
fn distinct_long_labels_stop_at_64_mib() {
    let text = format!("repeat 100000000 {{ timeout 1 \"{}{{i}}\" }}\n", "L".repeat(2000));
    let o = loopsim(&["run", &file("labels.loop", &text)], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains("the callbacks' labels take more memory than a run holds"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("stopped at 64 MiB of labels (the most a run holds): a `{i}` makes a new one"),
        "{}",
        o.stderr
    );
    // The run stops at the label that passes 64 MiB: labels of 2,001 to 2,005
    // bytes, every timer still waiting (none is due before the main module ends).
    let never: usize = o
        .stderr
        .split(" timers left waiting")
        .next()
        .unwrap()
        .rsplit(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(((64 << 20) / 2005..=(64 << 20) / 2001 + 1).contains(&never), "{never}");
}

#[test]
fn two_kilobyte_lines_stop_at_128_mib_of_log_text() {
    // 2,000,000 lines of 2 KB took 4 GB (8 GB as JSON).
    let o = loopsim(&["run", &two_kb_lines()], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains("the run prints more log text than a trace can hold"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("stopped at 128 MiB of log text (the most a trace holds)"),
        "{}",
        o.stderr
    );
    // 128 MiB / 2,000 bytes = 67,108 lines, under the header.
    assert_eq!(o.stdout.lines().count(), 1 + (128 << 20) / LINE_2KB);
    // The note names the bound that stopped the chain, not the turn and
    // callback limits (fresh-clone helper 81).
    assert!(
        o.stderr
            .contains("has no `times`: it repeats until a limit stops the run: here 128 MiB of log text (the most a trace holds)\n"),
        "{}",
        o.stderr
    );
    // The chain has no `times`: the help says to bound it, not to make the
    // scenario smaller (fresh-clone helper 81).
    assert!(
        o.stderr
            .contains("A chain without `times` repeats until a bound stops it: bound it with"),
        "{}",
        o.stderr
    );
    // A promise expression's link, its reaction running when the bound
    // stopped it: a chain too (fresh-clone helper 82).
    let link = file(
        "2kb-link.loop",
        &format!("chain resolved .then \"x\" {{ log \"{}\" again }}\n", "x".repeat(LINE_2KB)),
    );
    let o = loopsim(&["run", &link], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains("A chain without `times` repeats until a bound stops it"),
        "{}",
        o.stderr
    );
    // Seventy thousand such lines from a `repeat`: a scenario too large.
    let bounded = file("2kb-repeat.loop", &format!("repeat 70000 {{ log \"{}\" }}\n", "x".repeat(LINE_2KB)));
    let o = loopsim(&["run", &bounded], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains("This bound keeps memory in check: make the scenario smaller"),
        "{}",
        o.stderr
    );
}

#[test]
fn the_json_trace_of_two_kilobyte_lines_is_written_as_it_is_built() {
    let o = loopsim(&["run", "--format", "json", &two_kb_lines()], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["events"].as_array().unwrap().len(), (128 << 20) / LINE_2KB);
    assert_eq!(v["limit"], "logBytes");
    assert_eq!(v["max"], 128u64 << 20);
}

#[test]
fn check_exits_3_when_a_limit_it_does_not_predict_stops_the_run() {
    let x = "x".repeat(LINE_2KB);
    let f = file(
        "2kb-expect.loop",
        &format!("immediate \"x\" {{ log \"{x}\" again }}\nexpect {{\n  \"{x}\"\n}}\n"),
    );
    let o = loopsim(&["check", &f], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains("the run printed more: log line 2 is not predicted"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("stopped at 128 MiB of log text"), "{}", o.stderr);
}

// ----- 3. verbose events and explanations -------------------------------------

#[test]
fn verbose_events_stop_at_64_mib_with_a_note_and_log_lines_go_on() {
    // A 10 KB label: every call and scheduling holds it once more.
    let label = "L".repeat(10_000);
    let f = file(
        "verbose.loop",
        &format!("immediate \"{label}\" times 5000 {{ log \"{{n}}\" again }}\n"),
    );
    let o = loopsim(&["run", "--verbose", "--no-race-check", &f], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    let cut = lines.iter().position(|l| l.contains("verbose events stop here")).expect("the note");
    assert!(
        lines[cut].ends_with(
            "──         verbose events stop here: a trace holds at most 2,000,000 of them and 64 MiB of their text; log lines go on"
        ),
        "{}",
        lines[cut]
    );
    assert_eq!(lines.iter().filter(|l| l.contains("verbose events stop here")).count(), 1);
    // After it, only log lines, through the last one.
    assert!(
        lines[cut + 1..].iter().all(|l| !l.contains('▶') && !l.contains("  + ")),
        "{}",
        lines[cut + 1]
    );
    assert!(lines.last().unwrap().ends_with("check      5000"), "{}", lines.last().unwrap());
    // Each call holds the label once, each scheduling once: 64 MiB is about 3,355 callbacks.
    let calls = lines[..cut].iter().filter(|l| l.contains('▶')).count();
    assert!((3_300..3_400).contains(&calls), "{calls}");
}

#[test]
fn the_json_verbose_trace_marks_where_events_stop() {
    let label = "L".repeat(10_000);
    let f = file("verbose-json.loop", &format!("immediate \"{label}\" times 5000 {{ again }}\n"));
    let o = loopsim(&["run", "--verbose", "--format", "json", "--no-race-check", &f], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let cuts: Vec<&serde_json::Value> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "verboseCut")
        .collect();
    assert_eq!(cuts.len(), 1);
    assert_eq!(
        (cuts[0]["events"].as_u64(), cuts[0]["bytes"].as_u64()),
        (Some(2_000_000), Some(64 << 20))
    );
}

#[test]
fn a_one_line_again_chain_with_a_long_label_stays_under_a_gigabyte_verbose() {
    // 5,000,000 verbose events of a 1 KB label each took 6 GB.
    let f = file("verbose-again.loop", &format!("immediate \"{}\" {{ again }}\n", "L".repeat(1_000)));
    let o = loopsim(&["run", "--verbose", &f], 120);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stdout.contains("verbose events stop here"));
    assert!(o.stderr.contains("the check queue is refilled every turn"), "{}", o.stderr);
}

#[test]
fn explanations_stop_at_64_mib_with_a_note() {
    // The explanation of each line names its callback's 100 KB label.
    let label = "L".repeat(100_000);
    let f = file(
        "explain.loop",
        &format!("immediate \"{label}\" times 1000 {{ log \"{{n}}\" again }}\n"),
    );
    let o = loopsim(&["run", "--explain", "--no-race-check", &f], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let notes: Vec<&str> = o.stdout.lines().filter(|l| l.contains("no more explanations")).collect();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].ends_with("↳ no more explanations: a trace holds at most 64 MiB of them"),
        "{}",
        notes[0]
    );
    assert_eq!(o.stdout.lines().filter(|l| l.contains("  check  ")).count(), 1000);
}

// ----- 4. the search for orders ----------------------------------------------

const RACE: &str = "timeout 0 \"t\"\nimmediate \"i\"\n";

#[test]
fn all_orders_cut_short_by_time_says_so_and_exits_3() {
    let f = file("race.loop", RACE);
    let o = loopsim(&["run", "--all-orders", "--orders-time-limit", "0", &f], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert_eq!(
        o.stdout,
        "at least 1 order Node 26 can print (search cut short after 0 s: the orders listed are a partial answer; \
         `--orders-time-limit SECONDS` gives it longer):\n\norder 1 (the seed model's order):\n  i\n  t\n"
    );
    let o = loopsim(&["run", "--all-orders", "--orders-time-limit", "0", "--format", "json", &f], 30);
    assert_eq!(o.code, Some(3));
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["truncated"], true);
    assert_eq!(v["cut"], serde_json::json!({"bound": "seconds", "max": 0}));
    // Given time, the search completes: both orders, exit 0.
    let o = loopsim(&["run", "--all-orders", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stdout.starts_with("2 orders Node 26 can print. The races:\n  1. \u{201c}i\u{201d} and \u{201c}t\u{201d} may swap (2 orders): a millisecond boundary passed before the timers phase of turn 1\n"),
        "{}",
        o.stdout
    );
}

/// A search cut short where the seed model's own run ran into a limit says
/// so: more time rarely helps there (each schedule may run as far), a run
/// that ends does.
#[test]
fn a_cut_search_whose_model_run_hit_a_limit_says_a_run_that_ends_makes_it_short() {
    let f = file("endless.loop", "timeout 0 \"t\"\nimmediate {\n  log \"i\"\n  again\n}\n");
    let args = ["run", "--all-orders", "--max-callbacks", "100", "--max-schedules", "2", &f];
    let o = loopsim(&args, 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    let first = o.stdout.lines().next().unwrap();
    assert!(
        first.starts_with(
            "at least 2 orders Node 26 can print (search cut short after 2 schedules: the orders listed are a \
             partial answer; the model's own run hit a limit, and each schedule may run as far: a run that \
             ends (`times N` on an endless chain), or a lower limit (`--max-turns 50`), is searched fast)."
        ),
        "{first}"
    );
    assert!(o.stderr.contains("the check queue is refilled every turn"), "{}", o.stderr);
    // Stopped by a turn limit of 50 or less, it suggests no lower one.
    let args = ["run", "--all-orders", "--max-turns", "10", "--max-schedules", "2", &f];
    let o = loopsim(&args, 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    let first = o.stdout.lines().next().unwrap();
    assert!(
        first.contains(
            "the model's own run hit a limit, and each schedule may run as far: a run that ends (`times N` on \
             an endless chain) is searched fast). "
        ),
        "{first}"
    );
    // Nor does a callback limit that stopped it before turn 50: the same
    // rule as the no-race-check note's (`LimitHit::lower_turn_limit_helps`).
    let args = ["run", "--all-orders", "--max-callbacks", "10", "--max-schedules", "2", &f];
    let o = loopsim(&args, 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    let first = o.stdout.lines().next().unwrap();
    assert!(first.contains("(`times N` on an endless chain) is searched fast). "), "{first}");
    // With `times`, the same file ends, and the search is exact.
    let f = file("ends.loop", "timeout 0 \"t\"\nimmediate times 3 {\n  log \"i\"\n  again\n}\n");
    let o = loopsim(&["run", "--all-orders", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(
        o.stdout.starts_with("4 orders Node 26 can print. The races:\n  1. \u{201c}t\u{201d} may come at 4 places among \u{201c}i\u{201d}, \u{201c}i\u{201d} and \u{201c}i\u{201d} (4 orders)"),
        "{}",
        o.stdout
    );
}

#[test]
fn the_race_check_of_run_cut_short_adds_a_note_and_exits_0() {
    let f = file("race-run.loop", RACE);
    let o = loopsim(&["run", "--orders-time-limit", "0", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(
        o.stdout,
        "turn  tick  phase      log (Node 26)\n   1     0  check      i\n   2     1  timers     t\n"
    );
    assert!(o.stderr.starts_with("note: "), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("the race check was cut short after 0 s: Node 26 may print other orders than this one"),
        "{}",
        o.stderr
    );
    // Cut by time: the option that gives it more is named.
    assert!(o.stderr.contains("`--orders-time-limit SECONDS` sets how long"), "{}", o.stderr);
}

/// A run too large for the race check says it was not checked (it said
/// nothing, and `check` passed it silently): `run` on stderr, `check` and
/// `test` under their report; `--no-race-check` asks for no note.
#[test]
fn a_run_too_large_for_the_race_check_says_so() {
    // The command names the file, ready to paste.
    let note = |f: &str| {
        format!(
            "no race check for a run this large (more than 10,000 turns, 100,000 callbacks or 10,000 log lines): \
             `loopsim run --all-orders {f}` searches for other orders"
        )
    };
    let body = "repeat 10001 {\n  log \"x\"\n}\n";
    let f = file("large.loop", body);
    let o = loopsim(&["run", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stderr, format!("note: {f}: {}\n", note(&f)));
    let o = loopsim(&["run", "--no-race-check", &f], 30);
    assert_eq!((o.code, o.stderr.as_str()), (Some(0), ""));
    // One line short of the bound: checked, and no race, no note.
    let f = file("small.loop", "repeat 10000 {\n  log \"x\"\n}\n");
    let o = loopsim(&["run", &f], 30);
    assert_eq!((o.code, o.stderr.as_str()), (Some(0), ""));
    let predicted = file(
        "large-predicted.loop",
        &format!("{body}expect {{\n{}}}\n", "  \"x\"\n".repeat(10001)),
    );
    for (cmd, head) in [("check", "ok: "), ("test", "PASS  ")] {
        let o = loopsim(&[cmd, &predicted], 30);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        assert!(o.stdout.starts_with(head), "{}", o.stdout);
        assert!(o.stdout.contains(&format!("note: {}", note(&predicted))), "{cmd}: {}", o.stdout);
    }
}

/// A run a limit stopped gets no race check either, and says so (it said
/// nothing): its schedules run into the limit too, and orders that differ
/// only in where it cut them would be found first. A timer that starts an
/// endless immediate chain beside an immediate it races with, under a turn
/// limit of 40: the note, then the limit's diagnostic; exit 3 as before.
/// Stopped before the loop (a nextTick chain from the main module), the run
/// has its one order, found without a schedule: no note.
#[test]
fn a_run_a_limit_stopped_says_it_had_no_race_check() {
    let src = common::TIMER_STARTS_ENDLESS_CHAIN;
    let f = file("stopped.loop", src);
    let o = loopsim(&["run", "--max-turns", "40", &f], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    // After the note naming the endless chain.
    assert!(
        o.stderr.starts_with("note: `immediate \"spin\"` (line 3) has no `times`"),
        "{}",
        o.stderr
    );
    // A turn limit of 40 is not told to go down to 50 (fresh-clone helper 76).
    assert!(
        o.stderr.contains(&format!(
            "\nnote: {f}: no race check for a run a limit stopped: `loopsim run --all-orders --max-turns 40 {f}` searches for other orders\n"
        )),
        "{}",
        o.stderr
    );
    let o = loopsim(&["run", "--max-callbacks", "2000", &f], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!(
            "\nnote: {f}: no race check for a run a limit stopped: `loopsim run --all-orders --max-callbacks 2000 {f}` searches for other \
             orders (with a lower limit, e.g. `--max-turns 50`, each schedule stops sooner)\n"
        )),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("loop::limit"), "{}", o.stderr);
    // Stopped by 30 callbacks before turn 50, it is not told to stop at turn
    // 50 (fresh-clone helper 80).
    let o = loopsim(&["run", "--max-callbacks", "30", &f], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains(&format!(
            "\nnote: {f}: no race check for a run a limit stopped: `loopsim run --all-orders --max-callbacks 30 {f}` searches for other orders\n"
        )),
        "{}",
        o.stderr
    );
    let o = loopsim(&["run", "--max-turns", "40", "--no-race-check", &f], 30);
    assert_eq!(o.code, Some(3));
    assert!(!o.stderr.contains("race check"), "{}", o.stderr);
    let f = file("turn-zero.loop", "timeout 0 \"t\"\nnextTick \"n\" {\n  again\n}\n");
    let o = loopsim(&["run", "--max-callbacks", "100", &f], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stderr.contains("loop::limit") && !o.stderr.contains("race check"), "{}", o.stderr);
}

/// `--no-race-check` skips the race check of `check` and `test` as it does
/// `run`'s: no race warning, no "Node has others", no note (they ignored it).
#[test]
fn no_race_check_skips_the_race_check_of_check_and_test_too() {
    let f = file("racy-predicted.loop", &format!("{RACE}expect {{\n  \"i\"\n  \"t\"\n}}\n"));
    for cmd in ["check", "test"] {
        let checked = loopsim(&[cmd, &f], 30);
        let told = format!("{}{}", checked.stdout, checked.stderr);
        assert!(
            told.contains("real Node 26 can print these lines in another order"),
            "{cmd}: {told}"
        );
        let o = loopsim(&[cmd, "--no-race-check", &f], 30);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        assert_eq!(o.stderr, "", "{cmd}");
        assert!(
            !o.stdout.contains("note:") && !o.stdout.contains("Node has others"),
            "{cmd}: {}",
            o.stdout
        );
    }
    let large = file(
        "large-unchecked.loop",
        &format!("repeat 10001 {{\n  log \"x\"\n}}\nexpect {{\n{}}}\n", "  \"x\"\n".repeat(10001)),
    );
    let o = loopsim(&["check", "--no-race-check", &large], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(!o.stdout.contains("note:"), "{}", o.stdout);
}

/// `check` and `test` give the same note under their report (on stdout,
/// where their verdicts go), naming the Node version as `run` does.
#[test]
fn the_race_check_of_check_cut_short_names_the_node_version() {
    let f = file("race-check.loop", &format!("{RACE}expect {{\n  \"i\"\n  \"t\"\n}}\n"));
    for (cmd, version, head) in [("check", "22", "ok: "), ("test", "24", "PASS  ")] {
        let o = loopsim(&[cmd, "--node", version, "--orders-time-limit", "0", &f], 30);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        assert!(o.stdout.starts_with(head), "{}", o.stdout);
        assert!(
            o.stdout.contains(&format!(
                "note: the race check was cut short after 0 s: Node {version} may print other orders than this one"
            )),
            "{cmd}: {}",
            o.stdout
        );
    }
}

#[test]
fn all_orders_exits_3_where_run_exits_3() {
    let f = file("starve.loop", "nextTick \"a\" { again }\n");
    let run = loopsim(&["run", "--max-callbacks", "1000", &f], 30);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let all = loopsim(&["run", "--all-orders", "--max-callbacks", "1000", &f], 30);
    assert_eq!(all.code, Some(3), "{}", all.stderr);
    assert!(
        all.stdout.contains("(the seed model's order, then stopped by a limit)"),
        "{}",
        all.stdout
    );
    assert!(all.stderr.contains("the nextTick queue never empties"), "{}", all.stderr);
    // check: 3 unless the prediction names the limit.
    let lines: String = (1..=1000).map(|_| "  \"a\"\n").collect();
    let unpredicted = file(
        "starve-expect.loop",
        &format!("nextTick \"a\" {{ log \"a\" again }}\nexpect {{\n{lines}}}\n"),
    );
    let o = loopsim(&["check", "--max-callbacks", "1000", &unpredicted], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    let predicted = file(
        "starve-limit.loop",
        &format!("nextTick \"a\" {{ log \"a\" again }}\nexpect {{\n{lines}  limit nextTick\n}}\n"),
    );
    let o = loopsim(&["check", "--max-callbacks", "1000", &predicted], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
}

#[test]
fn check_of_alternatives_cut_short_exits_3() {
    let src = format!("{RACE}expect {{\n  \"i\"\n  \"t\"\n}} or {{\n  \"t\"\n  \"i\"\n}}\n");
    let f = file("race-or.loop", &src);
    let o = loopsim(&["check", &f], 30);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let o = loopsim(&["check", "--orders-time-limit", "0", &f], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stderr.contains("was cut short after 0 s"), "{}", o.stderr);
    // An alternative not met yet is not called impossible after a search cut short.
    assert!(!o.stderr.contains("never prints"), "{}", o.stderr);
    let o = loopsim(&["test", "--orders-time-limit", "0", &f], 30);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stdout.starts_with("FAIL "), "{}", o.stdout);
}

const INTERVALS: &str = "interval 1 \"a\"\ninterval 2 \"b\"\ninterval 3 \"c\"\n";

#[test]
fn three_unbounded_intervals_end_within_seconds_under_a_gigabyte() {
    // --all-orders took 62 s and 936 MB.
    let f = file("intervals.loop", INTERVALS);
    let o = loopsim(&["run", "--all-orders", "--max-callbacks", "500000", &f], 90);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stdout.contains("(search cut short "), "{}", o.stdout);
    assert!(o.stderr.contains("the timers keep re-arming"), "{}", o.stderr);
}

#[test]
fn the_race_check_of_many_bounded_intervals_ends_within_seconds() {
    // 8,000 timer runs beside 3,000 waiting timers: the race check of `run`
    // replayed them for minutes. Now it stops after 2 s with a note (or a
    // race warning, should it find a second order first); the trace is whole.
    let f = file(
        "intervals-times.loop",
        "interval 1 \"a\" times 2000\ninterval 1 \"b\" times 2000\ninterval 2 \"c\" times 2000\ninterval 3 \"d\" times 2000\nrepeat 3000 { timeout 100000 }\n",
    );
    let o = loopsim(&["run", &f], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stdout.lines().count(), 8_001);
    assert!(
        o.stderr.contains("the race check was cut short after 2 s") || o.stderr.contains("loop::race"),
        "{}",
        o.stderr
    );
}

fn search(src: &str, bounds: SearchBounds) -> orders::Orders {
    let loaded = load::load_bytes("t.loop", src.as_bytes()).unwrap();
    let opts = interp::RunOptions {
        limits: loopsim::sched::Limits {
            max_turns: 10_000,
            max_callbacks: 10_000,
        },
        ..interp::RunOptions::default()
    };
    orders::all_orders_within(&loaded.file, &loaded.src, opts, bounds)
}

#[test]
fn the_search_remembers_a_bounded_number_of_states() {
    let bounds = SearchBounds {
        max_states: 1_000,
        time_limit: None,
        ..SearchBounds::default()
    };
    let o = search(INTERVALS, bounds);
    assert_eq!((o.truncated, o.cut), (true, Some(Cut::States(1_000))));
    assert!(o.model_limit.is_some());
}

#[test]
fn the_search_holds_a_bounded_number_of_bytes_of_orders() {
    // The model's order alone is 10,000 lines: past a 100 KB bound.
    let bounds = SearchBounds {
        max_bytes: 100_000,
        time_limit: None,
        ..SearchBounds::default()
    };
    let o = search(INTERVALS, bounds);
    assert_eq!((o.orders.len(), o.cut), (1, Some(Cut::Bytes(100_000))));
    // A bound it fits in: the search goes on to the next bound.
    let o = search(RACE, bounds);
    assert_eq!((o.orders.len(), o.cut), (2, None));
}

/// Past the bytes the orders held may take, an order without symmetries is
/// counted without its lines (docs/orders.md "Orders counted, not held"):
/// the count, its exactness and each order's timing are those of the whole
/// search; the races are stated from the orders held, as a lower bound.
#[test]
fn past_the_bytes_of_orders_held_plain_orders_are_counted_without_their_lines() {
    let src = "timeout 1 \"a\"\ntimeout 2 \"b\"\nio \"r\" after 1\nimmediate \"i\" { timeout 0 \"c\" }\n";
    let unbounded = SearchBounds {
        time_limit: None,
        ..SearchBounds::default()
    };
    let whole = search(src, unbounded);
    assert_eq!((whole.count, whole.count_exact, whole.cut, whole.counted.len()), (8, true, None, 0));
    assert!(whole.entries.iter().all(|e| e.marks.is_empty() && e.blocks.is_empty()));
    // Each order is 4 lines of 1 byte (each with its `LINE_OVERHEAD`): room
    // for the model's order and two orders found (one of them the model's).
    let small = search(
        src,
        SearchBounds {
            max_bytes: 3 * 4 * (1 + orders::LINE_OVERHEAD),
            ..unbounded
        },
    );
    assert_eq!((small.count, small.count_exact, small.cut), (8, true, None));
    assert_eq!((small.entries.len(), small.counted.len(), small.orders.len()), (2, 6, 2));
    for o in &whole.orders {
        let timing = whole.race_of(&o.logs, o.end);
        assert!(timing.is_some(), "{o:?}");
        assert_eq!(small.race_of(&o.logs, o.end), timing, "{o:?}");
    }
    assert_eq!(small.race_of(&["a".to_string()], orders::End::Exit), None);
    let text = orders::report::text(&small, false);
    assert!(
        text.starts_with("8 orders Node 26 can print. The races among the 2 orders held (the other 6 were counted without their lines):\n"),
        "{text}"
    );
    assert!(text.contains("(at least "), "{text}");
    assert!(text.contains("(`--list` lists the first 2 of them.)"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&orders::report::json(&small, src)).unwrap();
    assert_eq!(
        (json["count"].as_u64(), json["countedOnly"].as_u64(), json["listed"].as_u64()),
        (Some(8), Some(6), Some(2))
    );
    assert_eq!(json["diagnostics"], serde_json::json!([]), "no limit stopped the model's run");
}

/// The default limits are raised for bounded statements only up to ten
/// million callbacks: a chain of 49 million stops (exit 3) instead of running
/// for many seconds.
#[test]
fn default_limits_stop_a_bounded_chain_past_ten_million_callbacks() {
    let f = file("long-chain.loop", "immediate \"a\" times 49000000 { again }\n");
    let o = loopsim(&["run", &f], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        words(&o.stderr).contains(
            "stopped after 10,000,000 turns (the turn limit: 1,000,000 plus 1 per callback the file schedules, capped at 10,000,000; --max-turns)"
        ),
        "{}",
        o.stderr
    );
}

/// `text` with its lines joined and runs of spaces made one (the renderer
/// wraps a long help line).
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `interval 1` without `times` stops after 1,000,001 turns, not the
/// 1,000,000 `--help` names as the default: the note before the trace and the
/// diagnostic after it say the limit was raised for the file's one callback
/// (rule 7). Under `--max-turns`, they name the flag alone.
#[test]
fn the_turn_limit_says_how_the_default_was_raised_for_the_file() {
    let f = file("endless-interval-default.loop", "interval 1 \"tick\"\n");
    let o = loopsim(&["run", &f], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.starts_with(
            "note: `interval 1 \"tick\"` (line 1) has no `times`: it repeats until a limit stops the run: \
             1,000,001 turns (1,000,000 plus 1 per callback the file schedules, an endless chain counted once) \
             or 5,000,000 callbacks (--max-turns, --max-callbacks)\n"
        ),
        "{}",
        o.stderr
    );
    assert!(
        words(&o.stderr).contains(
            "1 timer left waiting; stopped after 1,000,001 turns (the turn limit: 1,000,000 plus 1 per callback \
             the file schedules, an endless chain counted once; --max-turns). Bound the chain"
        ),
        "{}",
        o.stderr
    );
    let o = loopsim(&["run", "--max-turns", "50", &f], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.starts_with(
            "note: `interval 1 \"tick\"` (line 1) has no `times`: it repeats until a limit stops the run: \
             50 turns or 5,000,000 callbacks (--max-turns, --max-callbacks)\n"
        ),
        "{}",
        o.stderr
    );
    assert!(
        words(&o.stderr).contains("stopped after 50 turns (--max-turns). Bound"),
        "{}",
        o.stderr
    );
    // A picture's run gets the note on stderr too, and JSON's (fresh-clone
    // helpers 85 and 86); standard output stays the picture or the JSON.
    let o = loopsim(&["run", "--max-turns", "50", "--format", "svg", &f], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.starts_with("note: `interval 1 \"tick\"` (line 1) has no `times`"),
        "{}",
        o.stderr
    );
    let o = loopsim(&["run", "--max-turns", "50", "--format", "json", &f], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.starts_with("note: `interval 1 \"tick\"` (line 1) has no `times`"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.starts_with("{\n  \"title\""), "{}", o.stdout);
}

// ----- 4. a long run against an endless one -----------------------------------

/// A turn limit that stops a chain bounded by `times` says the run is longer
/// than the limit (raise it, or lower a `times`); one that stops an interval
/// without `times` says the run never ends (bound it). Both exit 3.
#[test]
fn a_limit_tells_a_long_bounded_run_from_an_endless_one() {
    let bounded = file("bounded-chain.loop", "immediate \"x\" times 5000 { again }\n");
    let o = loopsim(&["run", "--max-turns", "10", &bounded], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stderr.contains("× the run is longer than the turn limit"), "{}", o.stderr);
    assert!(o.stderr.contains("stopped after 10 turns (--max-turns)"), "{}", o.stderr);
    assert!(o.stderr.contains("raise it, or lower a `times`"), "{}", o.stderr);
    assert!(!o.stderr.contains("never ends"), "{}", o.stderr);

    let endless = file("endless-interval.loop", "interval 1 \"tick\"\n");
    let o = loopsim(&["run", "--max-turns", "10", &endless], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stderr.contains("× the timers keep re-arming: the run never ends"), "{}", o.stderr);
    assert!(o.stderr.contains("Bound the chain with `times N`"), "{}", o.stderr);
}

/// A turn or callback limit names the endless statement that kept the run
/// going and its queue, whichever callback it refused: a timer refused
/// beside an endless immediate chain was "the timers keep re-arming", and
/// the label pointed at whichever statement ran last (fresh-clone helper
/// 80). An `interval` cleared before the limit is not endless: the run is
/// long.
#[test]
fn a_limit_is_named_for_the_endless_statement_that_kept_the_run_going() {
    let beside = file(
        "beside.loop",
        "immediate \"a\" { again }\nnextTick \"n\"\ntimeout 1 \"t\"\nio \"r\" after 50\n",
    );
    for n in ["1", "2", "3", "5"] {
        let o = loopsim(&["run", "--max-callbacks", n, &beside], 60);
        assert_eq!(o.code, Some(3), "{n}: {}", o.stderr);
        assert!(
            o.stderr.contains("× the check queue is refilled every turn: the run never ends"),
            "{n}: {}",
            o.stderr
        );
        assert!(o.stderr.contains("beside.loop:1:1]"), "{n}: {}", o.stderr);
        assert!(o.stderr.contains("╰── feeds the check queue"), "{n}: {}", o.stderr);
    }
    // The nextTick an immediate chain queues each turn is not a starved queue.
    let queued = file("queued.loop", "immediate \"a\" {\n  nextTick \"x\"\n  again\n}\n");
    let o = loopsim(&["run", "--max-turns", "4", &queued], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stderr.contains("× the check queue is refilled every turn"), "{}", o.stderr);
    // An endless pool job: the poll phase, named as such.
    let job = file("job.loop", "submit \"s\" 3 { again }\ntimeout 10 \"t\" { log \"t\" }\n");
    let o = loopsim(&["run", "--max-turns", "4", &job], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.contains("× the poll phase gets callbacks without end: the run never ends"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("╰── feeds the poll phase"), "{}", o.stderr);
    // The interval cleared, a bounded chain runs past the limit.
    let cleared = file(
        "cleared.loop",
        "interval 1 \"h\" { log \"h\" }\ntimeout 3 \"c\" {\n  clear \"h\"\n  immediate \"i\" times 20 { again }\n}\n",
    );
    let o = loopsim(&["run", "--max-turns", "10", &cleared], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stderr.contains("× the run is longer than the turn limit"), "{}", o.stderr);
    assert!(o.stderr.contains("Nothing here repeats without end"), "{}", o.stderr);
    // The note before the trace names the chain the diagnostic names, not
    // the first without `times`; and none when the run ends (fresh-clone
    // helper 82).
    assert!(!o.stderr.contains("has no `times`"), "{}", o.stderr);
    let ends = file(
        "ends.loop",
        "interval 1 \"beat\" { log \"beat {n}\" }\ntimeout 10 \"stop\" { clear \"beat\" }\n",
    );
    let o = loopsim(&["run", "--no-race-check", &ends], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stderr, "");
    let two = file(
        "two.loop",
        "timeout 1 \"t1\"\nimmediate \"spin\" { log \"spin {n}\" again }\nmicrotask \"m\" { again }\n",
    );
    let o = loopsim(&["run", "--max-callbacks", "10", &two], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr.starts_with("note: `microtask \"m\" { again }` (line 3) has no `times`"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("× the microtask queue never empties"), "{}", o.stderr);
    // A promise expression's link of the main module, where only its
    // reactions ran: the link, not the file's first statement (helper 83).
    let link = file("link.loop", "log \"start\"\nchain resolved .then \"x\" { log \"x\" again }\n");
    let o = loopsim(&["run", "--max-callbacks", "5", &link], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stderr.contains("link.loop:2:16]"), "{}", o.stderr);
    assert!(o.stderr.contains("╰── feeds the microtask queue"), "{}", o.stderr);
}

/// A `repeat` whose body is empty (or only a comment) does nothing, however
/// large its count: it runs no iteration, instead of spinning through 2^64
/// of them without a statement to count against the statement limit.
#[test]
fn an_empty_repeat_body_takes_no_time_at_any_count() {
    for body in ["{ }", "{\n  # nothing yet\n}"] {
        let src = format!("repeat 18446744073709551615 {body}\nlog \"after\"\n\nexpect {{\n  \"after\"\n}}\n");
        let path = file("empty-repeat.loop", &src);
        for args in [vec!["run"], vec!["run", "--all-orders"], vec!["run", "--max-callbacks", "10"]] {
            let mut args = args.clone();
            args.push(&path);
            let o = loopsim(&args, 60);
            assert_eq!(o.code, Some(0), "{args:?}: {}", o.stderr);
            assert!(o.stdout.contains("after"), "{args:?}: {}", o.stdout);
        }
        let o = loopsim(&["check", &path], 60);
        assert_eq!(o.code, Some(0), "check: {} {}", o.stdout, o.stderr);
    }
}

/// The clock stops at 2^53 - 1 ticks (JavaScript's largest exact integer):
/// a `work` or an `after` that takes it there stops the run (exit 3) before
/// any line is printed at a time that would be wrong.
#[test]
fn a_clock_past_two_to_the_53_stops_the_run() {
    let work = file("huge-work.loop", "work 18446744073709551615\nlog \"after\"\ntimeout 1 \"t\"\n");
    let o = loopsim(&["run", &work], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(!o.stdout.contains("after"), "{}", o.stdout);
    assert!(
        o.stderr.contains("the clock ran past the largest time it holds exactly"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("9,007,199,254,740,991 ticks"), "{}", o.stderr);
    let io = file(
        "huge-after.loop",
        "io \"x\" after 18446744073709551615 { log \"late\" }\nlog \"now\"\n",
    );
    let o = loopsim(&["run", &io], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(o.stdout.contains("now") && !o.stdout.contains("late"), "{}", o.stdout);
    // Just under the limit, the run goes on.
    let under = file("under.loop", "work 9007199254740990\nlog \"just\"\n");
    let o = loopsim(&["run", &under], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stdout.contains("9007199254740990  main       just"), "{}", o.stdout);
    // The JSON says where the run stopped: at the limit, never past it (a
    // JavaScript reader holds it exactly), for a `work` and for a wait.
    let json = |path: &str| -> serde_json::Value {
        let o = loopsim(&["run", "--format", "json", path], 60);
        assert_eq!(o.code, Some(3), "{}", o.stderr);
        serde_json::from_str(&o.stdout).expect("one JSON value")
    };
    let stopped = json(&work);
    assert_eq!(
        (stopped["limit"].as_str(), stopped["tick"].as_u64()),
        (Some("clock"), Some((1 << 53) - 1))
    );
    let wait = file(
        "huge-wait.loop",
        "immediate \"i\" {\n  work 9007199254740990\n  timeout 5 \"b\"\n}\n",
    );
    assert_eq!(json(&wait)["tick"].as_u64(), Some((1 << 53) - 1));
    // The `work` took the clock there; past a wait, the callback that ran last is named.
    let o = loopsim(&["run", "--no-race-check", &work], 60);
    assert!(o.stderr.contains("took the clock there"), "{}", o.stderr);
    let o = loopsim(&["run", "--no-race-check", &wait], 60);
    assert!(o.stderr.contains("ran last; the loop then waited past that time"), "{}", o.stderr);
}

/// A chain without `times` inside a promise statement's block (an executor,
/// an async function's body) is named as endless, as one at the top level
/// is: the run never ends, and no `times` to lower is suggested (found by
/// the fresh-clone check).
#[test]
fn an_endless_chain_inside_an_executor_or_async_body_is_named_endless() {
    for (name, src) in [
        ("executor.loop", "promise {\n  timeout 1 { again }\n}\n"),
        ("async.loop", "async f {\n  timeout 1 { again }\n}\ncall f\n"),
    ] {
        let path = file(name, src);
        let o = loopsim(&["run", "--max-turns", "50", &path], 60);
        assert_eq!(o.code, Some(3), "{name}: {}", o.stderr);
        assert!(
            o.stderr.contains("note: `timeout 1 { again }` (line 2) has no `times`"),
            "{name}: {}",
            o.stderr
        );
        assert!(
            o.stderr.contains("the timers keep re-arming: the run never ends"),
            "{name}: {}",
            o.stderr
        );
        assert!(!o.stderr.contains("Nothing here repeats without end"), "{name}: {}", o.stderr);
    }
}

/// A link of a promise expression whose body has `again` and no `times`
/// repeats without end, as a `then` statement's link does: named as the
/// endless chain it is, in the file and inside a block (it ran once before
/// `again` in such links worked).
#[test]
fn an_endless_link_of_a_promise_expression_is_named_endless() {
    for (name, src, line) in [
        ("chain.loop", "chain resolved .then \"c\" { log \"c\" again }\n", 1),
        ("block.loop", "async f {\n  chain rejected .catch { again }\n}\ncall f\n", 2),
    ] {
        let path = file(name, src);
        let o = loopsim(&["run", "--max-callbacks", "1000", &path], 60);
        assert_eq!(o.code, Some(3), "{name}: {}", o.stderr);
        assert!(o.stderr.contains("the microtask queue never empties"), "{name}: {}", o.stderr);
        assert!(o.stderr.contains(&format!("(line {line}) has no `times`")), "{name}: {}", o.stderr);
    }
    // An `again` after a `return` never runs: the run ends, and no note
    // calls the link endless (only the warning that the line never runs).
    let unreached = file("unreached.loop", "chain resolved .then {\n  return resolved\n  again\n}\n");
    let o = loopsim(&["run", &unreached], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(o.stderr.contains("the statements after `return` never run"), "{}", o.stderr);
    assert!(!o.stderr.contains("has no `times`"), "{}", o.stderr);
    // Its runs make no promises: a long bounded chain ends (it stopped at
    // 250,000 promises, called a starved loop), and an endless one stops
    // at the callback limit, not the promise arena's.
    let long = file("long.loop", "chain resolved .then times 400000 { again }\nlog \"m\"\n");
    let o = loopsim(&["run", &long], 60);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let endless = file("endless.loop", "chain rejected .catch { again }\n");
    let o = loopsim(&["run", &endless], 60);
    assert_eq!(o.code, Some(3), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("stopped after 5,000,000 callbacks (--max-callbacks). Bound the chain with `times N`"),
        "{}",
        o.stderr
    );
}
