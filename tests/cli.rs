//! The command line as a user sees it: output, diagnostics and exit codes.

mod common;

use std::process::{Command, Output};

fn loopsim(args: &[&str], stdin_file: Option<(&str, &str)>) -> Output {
    // Removed when this function returns: the run has ended by then.
    let dir = tempfile::Builder::new().prefix("loopsim-cli-").tempdir().unwrap();
    let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    if let Some((name, text)) = stdin_file {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        for a in &mut args {
            if a == name {
                *a = path.display().to_string();
            }
        }
    }
    Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(&args)
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The binary run with `args` in `dir`, where a test wrote the files they name.
fn loopsim_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `text` with its wrapping undone: every run of whitespace one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

const P1: &str = "examples/phases/p01-read-callback-schedules-three.loop";

#[test]
fn run_prints_aligned_columns_identical_from_run_to_run() {
    let a = loopsim(&["run", P1], None);
    let b = loopsim(&["run", P1], None);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    let out = stdout(&a);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "turn  tick  phase      log (Node 26)");
    assert_eq!(lines[1], "   1     0  poll       колбэк чтения файла");
    assert_eq!(lines[4], "   2     1  timers     таймер на 0");
    assert!(!out.contains('\x1b'), "no colour when piped");
}

#[test]
fn verbose_shows_calls_scheduling_pool_sleeps_and_turns() {
    let o = loopsim(&["run", "--verbose", "examples/thread-pool/p08-eight-jobs-two-waves.loop"], None);
    let out = stdout(&o);
    for needle in [
        "turn 1 begins",
        "poll sleeps from tick 0 to 10",
        "thread 1 starts job 1 (done at 10)",
        "thread 1 finishes job 1",
        "▶ submit",
        "+ submit",
        "the loop exits",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
}

#[test]
fn json_has_the_same_events() {
    let o = loopsim(&["run", "--format", "json", P1], None);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), 4);
    assert_eq!(events[3]["turn"], 2);
    assert_eq!(events[3]["tick"], 1);
    assert_eq!(events[3]["phase"], "timers");
    assert_eq!(events[3]["event"], "log");
    assert_eq!(v["end"], "finished");
}

#[test]
fn pool_flag_overrides_the_file() {
    let o = loopsim(&["run", "--pool", "8", "examples/thread-pool/p08-eight-jobs-two-waves.loop"], None);
    let out = stdout(&o);
    assert_eq!(out.lines().filter(|l| l.contains("   10  poll")).count(), 8, "{out}");
}

#[test]
fn failed_prediction_exits_1_pointing_at_the_line_with_what_ran() {
    let src = "io \"read\" {\n  timeout 0 \"timer\"\n  immediate \"immediate\"\n}\nexpect {\n  timers \"timer\"\n  \"immediate\"\n}\n";
    let o = loopsim(&["check", "w.loop"], Some(("w.loop", src)));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("prediction failed at log line 1: expected \"timer\", got \"immediate\""),
        "{err}"
    );
    assert!(err.contains("actually: turn 1 at 0 check \"immediate\""), "{err}");
    assert!(err.contains("6 │   timers \"timer\""), "{err}");
}

/// A trace's `⏸`/`▶` notes copied into an expect block are named as notes,
/// not log lines (found by the fresh-clone check: the help blamed rule 1).
#[test]
fn a_copied_await_note_in_a_prediction_is_named_as_a_note() {
    let src = "async main {\n  log \"start\"\n  await timeout 1\n  log \"end\"\n}\ncall main\nlog \"sync\"\nexpect {\n  \"start\"\n  \"\u{23f8} main suspends at the await of line 3\"\n  \"sync\"\n  \"end\"\n}\n";
    let o = loopsim(&["check", "a.loop"], Some(("a.loop", src)));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("lines marked \u{23f8} and \u{25b6} are the trace's notes of where an async function suspended and resumed, not log lines: leave them out of `expect`"),
        "{err}"
    );
    // Without the note, the prediction holds.
    let src = src.replace("  \"\u{23f8} main suspends at the await of line 3\"\n", "");
    let o = loopsim(&["check", "a.loop"], Some(("a.loop", &src)));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A note copied as the last line (after every log line) is named too.
    let last = src.replace(
        "  \"end\"\n}",
        "  \"end\"\n  \"\u{25b6} main resumes after the await of line 3\"\n}",
    );
    let o = loopsim(&["check", "a.loop"], Some(("a.loop", &last)));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("prediction failed: the run finished after 3 log lines"), "{err}");
    assert!(err.contains("not log lines: leave them out of `expect`"), "{err}");
}

#[test]
fn wrong_turn_is_reported_with_the_real_turn() {
    let src = "timeout 0 \"t\"\nexpect {\n  turn 1 \"t\"\n}\n";
    let o = loopsim(&["check", "t.loop"], Some(("t.loop", src)));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let src = "immediate \"i\"\ntimeout 0 \"t\"\nexpect {\n  \"i\"\n  turn 1 \"t\"\n}\n";
    let o = loopsim(&["check", "t.loop"], Some(("t.loop", src)));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("\"t\" ran on turn 2, not turn 1"), "{}", stderr(&o));
}

#[test]
fn invalid_input_exits_2() {
    let o = loopsim(&["run", "bad.loop"], Some(("bad.loop", "setTimeout(f, 0)\n")));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("in .loop this is written `timeout DELAY"), "{}", stderr(&o));
    let o = loopsim(&["run", "/nonexistent/x.loop"], None);
    assert_eq!(o.status.code(), Some(2));
    // In words, not the system's "No such file or directory (os error 2)"
    // (fresh-clone helper 67).
    assert_eq!(stderr(&o), "error: cannot read /nonexistent/x.loop: there is no such file\n");
    let o = loopsim(&["test", "/nonexistent"], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "error: cannot read /nonexistent: there is no such file or folder\n");
    // An empty argument is named as one (it read "cannot read : No such file").
    let o = loopsim(&["run", ""], None);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "error: cannot read '': the file name is empty\n");
}

/// `run --format json` of a file that cannot run gives its problems as JSON
/// on standard output too (the text stays on standard error), offsets and
/// columns in UTF-16 code units; an unreadable file is one `loop::io` problem.
#[test]
fn json_of_an_invalid_file_is_its_diagnostics() {
    let src = "log \"é\"\nimmedate \"b\"\n";
    for args in [
        vec!["run", "--format", "json", "bad.loop"],
        vec!["run", "--all-orders", "--format", "json", "bad.loop"],
    ] {
        let o = loopsim(&args, Some(("bad.loop", src)));
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains("unknown statement `immedate`"), "{}", stderr(&o));
        let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON on stdout");
        // Pretty-printed, as a trace is.
        assert!(stdout(&o).starts_with("{\n  \"diagnostics\": [\n"), "{}", stdout(&o));
        assert!(doc["title"].as_str().unwrap().ends_with("bad.loop"), "{doc}");
        let d = &doc["diagnostics"][0];
        assert_eq!(d["severity"], "error");
        assert_eq!(d["code"], "loop::unknown-statement");
        assert_eq!(d["message"], "unknown statement `immedate`");
        assert_eq!(d["help"], "did you mean `immediate`?");
        // Line 2 starts after `log "é"` and its newline: 8 UTF-16 units (9 bytes).
        let l = &d["labels"][0];
        assert_eq!((&l["line"], &l["column"], &l["start"]), (&2.into(), &1.into(), &8.into()), "{doc}");
        assert_eq!(doc["diagnostics"].as_array().unwrap().len(), 1, "{doc}");
    }
    let o = loopsim(&["run", "--format", "json", "/nonexistent/x.loop"], None);
    assert_eq!(o.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON on stdout");
    assert_eq!(doc["diagnostics"][0]["code"], "loop::io");
    assert!(
        doc["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("cannot read /nonexistent/x.loop: "),
        "{doc}"
    );
    // Text output of an invalid file: nothing on stdout.
    let o = loopsim(&["run", "bad.loop"], Some(("bad.loop", src)));
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(2), ""));
}

/// A negative number for a numeric flag is refused as a bad value (exit 2),
/// not taken for a flag with clap's tip to write `-- -1` (which would make it
/// the FILE).
#[test]
fn a_negative_number_for_a_numeric_flag_is_a_bad_value() {
    for (flag, value) in [
        ("--max-turns", "-1"),
        ("--max-callbacks", "-5"),
        ("--pool", "-3"),
        ("--orders-time-limit", "-2"),
    ] {
        let o = loopsim(&["run", flag, value, "ok.loop"], Some(("ok.loop", "log \"a\"\n")));
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(&format!("invalid value '{value}' for '{flag}")), "{flag}: {err}");
        assert!(!err.contains("use '--"), "{flag}: {err}");
    }
    // The limits say what they take (clap's own words were "invalid digit found in string").
    for (value, why) in [
        ("-1", "expected a whole number, 0 or more (digits only)"),
        ("1.5", "expected a whole number, 0 or more (digits only)"),
        (
            "99999999999999999999",
            "99999999999999999999 is more than 18446744073709551615 (the most a count holds)",
        ),
    ] {
        for flag in ["--max-turns", "--max-callbacks"] {
            let o = loopsim(&["run", flag, value, "ok.loop"], Some(("ok.loop", "log \"a\"\n")));
            assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
            assert!(stderr(&o).contains(why), "{flag} {value}: {}", stderr(&o));
        }
    }
    // So do the ranged ones.
    for (args, why) in [
        (&["run", "--pool", "-1"][..], "expected a whole number from 1 to 1024 (digits only)"),
        (&["run", "--pool", "0"], "0 is out of range: give a whole number from 1 to 1024"),
        (
            &["run", "--pool", "2000"],
            "2000 is out of range: give a whole number from 1 to 1024",
        ),
        (
            &["run", "--all-orders", "--max-schedules", "0"],
            "0 is out of range: give a whole number 1 or more",
        ),
        (
            &["run", "--all-orders", "--max-schedules", "-1"],
            "expected a whole number 1 or more (digits only)",
        ),
        (
            &["verify", "--runs", "-1"],
            "expected a whole number from 1 to 4294967295 (digits only)",
        ),
        (
            &["verify", "--runs", "5000000000"],
            "5000000000 is out of range: give a whole number from 1 to 4294967295",
        ),
        (&["verify", "--jobs", "65"], "65 is out of range: give a whole number from 1 to 64"),
        // Past 64 bits, where a smaller bound holds: out of range as well.
        (
            &["run", "--pool", "99999999999999999999999"],
            "99999999999999999999999 is out of range: give a whole number from 1 to 1024",
        ),
        (
            &["run", "--orders-time-limit", "abc"],
            "expected a whole number from 0 to 86400 (digits only)",
        ),
        (
            &["emit-js", "--scale", "-1"],
            "expected a whole number from 0 to 60000 (digits only)",
        ),
        (
            &["verify", "--scale", "60001"],
            "60001 is out of range: give a whole number from 1 to 60000",
        ),
        // At 0 ms a tick, Node's orders are not the file's (fresh-clone helper 81).
        (
            &["verify", "--scale", "0"],
            "0 takes no time for any delay, job or `work`: Node's orders are then not the file's",
        ),
    ] {
        let mut all = args.to_vec();
        all.push("ok.loop");
        let o = loopsim(&all, Some(("ok.loop", "log \"a\"\n")));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn a_runaway_exits_3_naming_the_queue_and_what_waited() {
    let src = "timeout 5 \"t\"\nio \"r\"\nimmediate \"spin\" { again }\n";
    let o = loopsim(&["run", "--max-turns", "100", "r.loop"], Some(("r.loop", src)));
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("the check queue is refilled every turn"), "{err}");
    assert!(err.contains("stopped after 100 turns"), "{err}");
    assert!(err.contains("3 │ immediate \"spin\" { again }"), "{err}");
    let src = "timeout 5 \"t\"\nio \"r\" after 9\nnextTick \"spin\" { again }\n";
    let o = loopsim(&["run", "--max-callbacks", "1000", "r.loop"], Some(("r.loop", src)));
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("the nextTick queue never empties"), "{err}");
    // The nextTick callback the limit refused waits too.
    assert!(
        err.contains("1 timer, 1 I/O callback and 1 nextTick callback left waiting"),
        "{err}"
    );
    // Stopped between two nextTicks, with a microtask queued: both named, not
    // "no timer, I/O, immediate or close callback was left waiting"
    // (fresh-clone helper 77).
    let src = "nextTick \"a\"\nnextTick \"b\"\nmicrotask \"m\"\n";
    let o = loopsim(&["run", "--max-callbacks", "1", "r.loop"], Some(("r.loop", src)));
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(err.contains("help: 1 nextTick callback and 1 microtask left waiting"), "{err}");
}

/// Found by fresh-clone helper 76: the callbacks a phase took and had not
/// run yet (the immediate about to run, the rest of a poll phase's
/// completions) were not named as waiting when a limit stopped the run.
#[test]
fn a_limit_names_what_a_phase_took_and_had_not_run_as_waiting() {
    for (src, waiting) in [
        ("immediate \"x\"\nimmediate \"y\"\n", "help: 1 immediate left waiting;"),
        ("submit \"x\" 1\nsubmit \"y\" 5\n", "help: 1 I/O callback left waiting;"),
        ("submit \"x\" 1\nsubmit \"y\" 1\n", "help: 1 I/O callback left waiting;"),
        (
            "io \"x\"\ntimeout 5 \"t\"\nimmediate \"i\"\nio \"y\" after 3\nsubmit \"s\" 4\n",
            "help: 1 timer, 2 I/O callbacks and 1 immediate left waiting;",
        ),
    ] {
        let o = loopsim(&["run", "--max-callbacks", "1", "w.loop"], Some(("w.loop", src)));
        assert_eq!(o.status.code(), Some(3), "{src}");
        let err = stderr(&o);
        assert!(err.contains(waiting), "{src}: {err}");
    }
}

#[test]
fn test_command_prints_a_line_per_file_and_a_summary() {
    let o = loopsim(&["test", "examples/phases"], None);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(
        out.lines()
            .all(|l| l.starts_with("PASS  ") || l.starts_with("      warning: ") || l.ends_with(" passed, 0 failed")),
        "{out}"
    );
    assert!(out.ends_with("5 passed, 0 failed\n"), "{out}");
}

/// A failure a limit stopped says so on its FAIL line and in the summary,
/// which exit 3 stands for (found by the fresh-clone check: only stderr's
/// diagnostic said it).
#[test]
fn test_names_the_failures_a_limit_stopped() {
    let dir = tempfile::Builder::new().prefix("loopsim-test-stops-").tempdir().unwrap();
    std::fs::write(dir.path().join("endless.loop"), "interval 1 \"x\"\nexpect {\n  \"x\"\n}\n").unwrap();
    std::fs::write(dir.path().join("wrong.loop"), "log \"a\"\nexpect {\n  \"b\"\n}\n").unwrap();
    std::fs::write(dir.path().join("ok.loop"), "log \"a\"\nexpect {\n  \"a\"\n}\n").unwrap();
    let o = loopsim(&["test", &dir.path().display().to_string()], None);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    let fail = |name: &str| {
        out.lines()
            .find(|l| l.starts_with("FAIL") && l.contains(name))
            .unwrap_or_default()
            .to_string()
    };
    assert!(fail("endless.loop").ends_with(" (a limit stopped the run)"), "{out}");
    assert!(!fail("wrong.loop").ends_with("(a limit stopped the run)"), "{out}");
    assert!(out.ends_with("1 passed, 2 failed (1 stopped by a limit)\n"), "{out}");
}

#[test]
fn check_without_expect_says_so_and_does_not_pass() {
    let o = loopsim(&["check", "n.loop"], Some(("n.loop", "log \"a\"\n")));
    assert_eq!(o.status.code(), Some(1));
    // An error, on standard error (found by a fresh-clone check: it was on stdout).
    assert!(stderr(&o).contains("has no expect block"), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

/// `test` given only a file without `expect` checks nothing and says so for
/// a file as for a folder ("among", not "under": found by a fresh-clone
/// check), with the skipped file counted in the singular.
#[test]
fn test_of_a_file_without_expect_checks_nothing_and_says_so() {
    let o = loopsim(&["test", "n.loop"], Some(("n.loop", "log \"a\"\n")));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o), "0 passed, 0 failed\n");
    let err = stderr(&o);
    assert!(err.contains("note: skipped 1 file without an expect block"), "{err}");
    assert!(
        err.contains("error: nothing was checked: no .loop file with an expect block among "),
        "{err}"
    );
    assert!(err.trim_end().ends_with("n.loop"), "{err}");
}

/// `--color always|never` also governs clap's own usage errors, made before
/// the flag is parsed (found by a fresh-clone check: `--color never` left
/// them coloured on a terminal). The last one given wins; after `--` it is
/// no flag.
#[test]
fn the_color_flag_governs_usage_errors_too() {
    let o = loopsim(&["--color", "always", "run", "--frobnicate", "x"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("\u{1b}["), "{}", stderr(&o));
    assert!(stderr(&o).contains("--frobnicate"), "{}", stderr(&o));
    let o = loopsim(&["--color=always", "run", "--color", "never", "--frobnicate", "x"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains('\u{1b}'), "{}", stderr(&o));
    let o = loopsim(&["--color=never", "run", "x", "--", "--color", "always", "--frobnicate"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(!stderr(&o).contains('\u{1b}'), "{}", stderr(&o));
}

#[test]
fn help_documents_exit_codes_and_examples() {
    let o = loopsim(&["--help"], None);
    let out = stdout(&o);
    assert!(out.contains("Exit codes:") && out.contains("3    a run hit a limit"), "{out}");
    assert!(out.contains("141  standard output was a pipe that closed early"), "{out}");
    assert!(out.contains("loopsim run examples/"), "{out}");
    // A command line it cannot take exits 2, as documented.
    assert!(
        out.contains("or the\n       command line is (an unknown flag, a bad value"),
        "{out}"
    );
    for args in [
        &["run", "--no-such-flag", P1][..],
        &["run", "--max-turns", "x", P1],
        &["frobnicate"],
    ] {
        assert_eq!(loopsim(args, None).status.code(), Some(2), "{args:?}");
    }
    // Every subcommand's too, each with examples of its own.
    for sub in ["run", "check", "test", "emit-js", "verify"] {
        let o = loopsim(&[sub, "--help"], None);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(0), "{sub}");
        assert!(out.contains("Examples:") && out.contains("Exit codes:"), "{sub}: {out}");
        assert!(out.contains(&format!("  loopsim {sub} ")), "{sub}: {out}");
    }
}

#[test]
fn node_10_drains_after_the_timer_list() {
    let src = "repeat 2 {\n  timeout 0 \"t{i}\" {\n    log \"t{i}\"\n    then \"t{i} promise\"\n    nextTick \"t{i} tick\"\n  }\n}\n";
    let texts = |args: &[&str]| -> Vec<String> {
        let o = loopsim(args, Some(("n.loop", src)));
        stdout(&o).lines().skip(1).map(|l| l[23..].to_string()).collect()
    };
    assert_eq!(
        texts(&["run", "--node", "10", "n.loop"]),
        ["t1", "t2", "t1 tick", "t2 tick", "t1 promise", "t2 promise"]
    );
    assert_eq!(
        texts(&["run", "n.loop"]),
        ["t1", "t1 tick", "t1 promise", "t2", "t2 tick", "t2 promise"]
    );
}

#[test]
fn expect_alternatives_must_be_the_orders_node_can_print() {
    let both = "timeout 0 \"t\"\nimmediate \"i\"\nexpect {\n  \"i\"\n  \"t\"\n} or {\n  \"t\"\n  \"i\"\n}\n";
    assert_eq!(loopsim(&["check", "a.loop"], Some(("a.loop", both))).status.code(), Some(0));
    let impossible = "io \"x\"\nimmediate \"i\"\nexpect {\n  \"x\"\n  \"i\"\n} or {\n  \"i\"\n  \"x\"\n}\n";
    let o = loopsim(&["check", "a.loop"], Some(("a.loop", impossible)));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("real Node never prints this order"), "{}", stderr(&o));
    // Its help names the command that lists the orders, with the file and the options.
    let o = loopsim(&["check", "--pool", "2", "a.loop"], Some(("a.loop", impossible)));
    let err = stderr(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        err.contains("`loopsim run --all-orders --list --pool 2 /") && err.contains("/a.loop` lists the orders Node can print"),
        "{err}"
    );
    let missing = "timeout 0 \"t\"\nimmediate \"i\"\nexpect {\n  \"i\"\n  \"t\"\n} or {\n  \"i\"\n  \"t\"\n}\n";
    let o = loopsim(&["check", "a.loop"], Some(("a.loop", missing)));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("real Node 26 can also print: t | i"), "{}", stderr(&o));
    // Every impossible alternative is told, with where the orders part from
    // it, and the order none names (fresh-clone helper 81: only `{ "y" }`).
    let several = "timeout 0 \"t\"\nimmediate \"i\"\nexpect { \"i\" \"t\" } or { \"i\" \"y\" } or { \"z\" }\n";
    let o = loopsim(&["check", "a.loop"], Some(("a.loop", several)));
    assert_eq!(o.status.code(), Some(1));
    let err = one_line(&stderr(&o));
    assert_eq!(err.matches("× real Node never prints this order").count(), 2, "{err}");
    assert!(
        err.contains("no timing of the loop gives it: the closest order Node can print agrees with its first line, then prints \"t\""),
        "{err}"
    );
    assert!(
        err.contains("no timing of the loop gives it: every order Node can print begins otherwise (one with \"i\")"),
        "{err}"
    );
    assert!(err.contains("real Node 26 can also print: t | i"), "{err}");
    // An impossible alternative names no order: the orders missing are
    // counted and given without it (fresh-clone helper 83: "1 more").
    let four = "timeout 0 \"t\"\nimmediate \"i\" times 3 { log \"i{n}\" again }\n\
                expect { \"i1\" \"t\" \"i2\" \"i3\" } or { \"q\" }\n";
    let err = one_line(&stderr(&loopsim(&["check", "a.loop"], Some(("a.loop", four)))));
    assert!(err.contains("add it and the 2 other orders missing as `or {"), "{err}");
    // A block of no lines is not "all its lines in this order" (helper 82).
    let empty = "timeout 0 \"t\"\nimmediate \"i\"\nexpect { \"i\" \"t\" } or { }\n";
    let err = one_line(&stderr(&loopsim(&["check", "a.loop"], Some(("a.loop", empty)))));
    assert!(
        err.contains("it names no line, and every order Node can print has some (one begins with \"i\")"),
        "{err}"
    );
    // What was not compared for an order the model does not print is said,
    // in an `or` block and for a `limit` line's queue too (fresh-clone
    // helper 85: both passed without a word).
    let fields =
        "timeout 0 \"t\"\nimmediate \"i\"\nexpect { turn 1 check \"i\" turn 2 timers \"t\" } or { turn 7 poll \"t\" at 99 \"i\" }\n";
    let o = loopsim(&["check", "a.loop"], Some(("a.loop", fields)));
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o)
            .contains("note: turns, ticks and phases are the model's: for an order the model does not print, only the texts were compared"),
        "{}",
        stdout(&o)
    );
    let queue = "timeout 1 \"t\"\nimmediate \"a\" { log \"a\" again }\nexpect { \"t\" \"a\" \"a\" \"a\" \"a\" \"a\" limit nextTick }\n";
    let o = loopsim(&["check", "--max-turns", "5", "a.loop"], Some(("a.loop", queue)));
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains(
            "note: a `limit` line's queue is the model's: for an order the model does not print, only the texts, and whether a limit stops the run, were compared"
        ),
        "{}",
        stdout(&o)
    );
    // A repeated block gets the warning, not the first block's error again
    // (fresh-clone helper 83: "never prints this order" at both).
    let repeated = "timeout 0 \"t\"\nimmediate \"i\"\nexpect { \"q\" } or { \"q\" }\n";
    let err = one_line(&stderr(&loopsim(&["check", "a.loop"], Some(("a.loop", repeated)))));
    assert_eq!(err.matches("× real Node never prints this order").count(), 1, "{err}");
    assert_eq!(err.matches("this `or` block repeats an earlier one").count(), 1, "{err}");
    assert!(err.contains("add it and the other order missing as `or {"), "{err}");
}

/// Past the blocks a help can hold, the command that lists every order
/// names the file, as a shell reads it back: quoted, after `./` when it
/// starts with `-`, `-` for standard input.
#[test]
fn the_command_listing_every_missing_order_names_the_file() {
    let src = "pool 4\nrepeat 4 { submit \"j{i}\" 10 }\nexpect {\n  \"j1\"\n  \"j2\"\n  \"j3\"\n  \"j4\"\n} or {\n  \"j2\"\n  \"j1\"\n  \"j3\"\n  \"j4\"\n}\n";
    let dir = tempfile::tempdir().unwrap();
    for name in ["my file.loop", "-x.loop", "new\nline.loop"] {
        std::fs::write(dir.path().join(name), src).unwrap();
    }
    // The search's options go along (fresh-clone helper 73 pasted one
    // without `--node 20` and got 48 orders for 24); a newline in the name
    // is bash's `$'…'`, which a shell reads back (in quotes, `\n` is two characters).
    let cases = [
        (vec!["check", "my file.loop"], "`loopsim run --all-orders --list 'my file.loop'`"),
        (vec!["check", "--", "-x.loop"], "`loopsim run --all-orders --list ./-x.loop`"),
        (
            vec!["check", "--node", "20", "--pool", "4", "my file.loop"],
            "`loopsim run --all-orders --list --node 20 --pool 4 'my file.loop'`",
        ),
        (
            vec!["check", "new\nline.loop"],
            "`loopsim run --all-orders --list $'new\\nline.loop'`",
        ),
    ];
    for (args, command) in cases {
        let o = loopsim_in(dir.path(), &args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let said = one_line(&stderr(&o));
        assert!(
            said.contains(&format!("21 more orders are missing too ({command} lists every order)")),
            "{said}"
        );
        // Pasted, it lists all 24.
        let o = loopsim_in(dir.path(), &["run", "--all-orders", "--list", "--", args[args.len() - 1]]);
        assert!(stdout(&o).starts_with("24 orders Node 26 can print."), "{}", stdout(&o));
    }
    let o = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["check", "-"])
        .stdin(std::fs::File::open(dir.path().join("-x.loop")).unwrap())
        .output()
        .unwrap();
    assert!(
        one_line(&stderr(&o)).contains("(`loopsim run --all-orders --list - < FILE` lists every order)"),
        "{}",
        stderr(&o)
    );
}

/// The race check's orders need not include the model's: two jobs and a
/// timer of one tick, whose model order starts with the timer, named the
/// block by the model's lines and panicked (fresh-clone helper 74).
#[test]
fn a_race_check_whose_orders_leave_out_the_models_warns() {
    let src = "submit \"a\" 10\nsubmit \"b\" 10\ntimeout 10 \"t\"\n";
    for args in [&["run", "m.loop"][..], &["run", "--format", "json", "m.loop"][..]] {
        let o = loopsim(args, Some(("m.loop", src)));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("real Node 26 can print these lines in another order"),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn empty_file_gives_an_empty_trace() {
    let o = loopsim(&["run", "e.loop"], Some(("e.loop", "")));
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "turn  tick  phase      log (Node 26)\n");
}

#[test]
fn every_output_format_is_byte_identical_from_run_to_run() {
    let file = "examples/thread-pool/p12-avatar-answers-last.loop";
    for args in [
        vec!["run", "--format", "json", file],
        vec!["run", "--format", "svg", file],
        vec!["run", "--explain", "--verbose", file],
        vec!["run", "--all-orders", "--format", "json", file],
    ] {
        let a = loopsim(&args, None);
        let b = loopsim(&args, None);
        assert_eq!(a.status.code(), Some(0), "{args:?}");
        assert!(!a.stdout.is_empty(), "{args:?}");
        assert_eq!(a.stdout, b.stdout, "{args:?}");
        assert_eq!(a.stderr, b.stderr, "{args:?}");
    }
}

#[test]
fn a_one_order_prediction_of_a_racy_file_holds_with_a_warning() {
    let src = "timeout 0 \"t\"\nimmediate \"i\"\nexpect {\n  \"i\"\n  \"t\"\n}\n";
    let o = loopsim(&["check", "r.loop"], Some(("r.loop", src)));
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("real Node 26 can print these lines in another order"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("Node 26 may print this first"),
        "run's race warning: {}",
        stderr(&o)
    );
    let o = loopsim(&["test", "examples/phases"], None);
    let out = stdout(&o);
    assert!(
        out.contains("p06-main-module-timeout-vs-immediate.loop (2 lines; the model's order, Node has others)\n      warning: real Node 26 can print these lines in another order"),
        "{out}"
    );
}

/// Seed 000's second puzzle: real Node 26 printed the timer after both
/// immediates in 29 of 30 runs; the model puts it between them.
const P2_AS_NODE_USUALLY_PRINTS: &str = "io \"read\" {\n  log \"read\"\n  timeout 0 \"timer\"\n  immediate \"first\" {\n    log \"first\"\n    immediate \"second\"\n  }\n}\nexpect {\n  \"read\"\n  \"first\"\n  \"second\"\n  \"timer\"\n}\n";

#[test]
fn an_order_real_node_prints_is_accepted_with_a_note() {
    let o = loopsim(&["check", "p2.loop"], Some(("p2.loop", P2_AS_NODE_USUALLY_PRINTS)));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("ok: "), "{out}");
    assert!(out.ends_with(
        "p2.loop (4 lines as predicted)\n  note: real Node prints this order when no millisecond boundary was crossed anywhere (Node ran faster than a tick per turn); the seed model's trace is another order Node can print (`loopsim run` shows it)\n"
    ), "{out}");
}

#[test]
fn a_failed_prediction_says_whether_node_can_print_it_at_all() {
    let impossible = P2_AS_NODE_USUALLY_PRINTS.replace("\"read\"\n  \"first\"", "\"first\"\n  \"read\"");
    let o = loopsim(&["check", "p2.loop"], Some(("p2.loop", &impossible)));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("prediction failed at log line 1: expected \"first\", got \"read\""),
        "{err}"
    );
    assert!(err.contains("cannot print this order either"), "{err}");
    assert!(
        one_line(&err).contains("every order Node can print begins otherwise (one with \"read\")"),
        "{err}"
    );
    // A prediction that stops early: Node can print its lines ("t" first
    // when a millisecond passes), but not end there. The model's trace
    // parts from it at line 1, Node's orders only after line 2: blamed there.
    let short = "timeout 0 \"t\"\nimmediate \"i\"\nimmediate \"j\"\nexpect { \"t\" \"i\" }\n";
    let o = loopsim(&["check", "s.loop"], Some(("s.loop", short)));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("× prediction failed after log line 2: real Node prints more"), "{err}");
    assert!(err.contains("s.loop:4:18]") && err.contains("╰── Node prints \"j\" next"), "{err}");
    assert!(
        one_line(&err).contains("the seed model's trace first differs from it at line 1"),
        "{err}"
    );
    // A wrong line after two Node can print: blamed at the wrong line, not
    // at line 2, where the model's trace parts.
    let wrong = "timeout 0 \"t\"\nimmediate \"i\"\nnextTick \"n\"\nexpect { \"n\" \"t\" \"x\" }\n";
    let o = loopsim(&["check", "w.loop"], Some(("w.loop", wrong)));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("× prediction failed at log line 3: real Node never prints \"x\" there"),
        "{err}"
    );
    assert!(err.contains("w.loop:4:18]") && err.contains("╰── Node prints \"i\" here"), "{err}");
    // Where the model's trace and Node's orders part at the same line, the
    // model's difference is shown, with Node's in the help.
    let same = "timeout 0 \"t\"\nimmediate \"i\"\nimmediate \"j\"\nexpect { \"i\" \"t\" }\n";
    let o = loopsim(&["check", "m.loop"], Some(("m.loop", same)));
    let err = one_line(&stderr(&o));
    assert!(err.contains("prediction failed at log line 2: expected \"t\", got \"j\""), "{err}");
    assert!(
        err.contains("the closest order Node can print agrees with its first line, then prints \"j\""),
        "{err}"
    );
    // Where Node parts comes before why the model's line ran there, whole
    // (fresh-clone helper 61: with the explanation first, the help was cut
    // at 400 bytes just before "prints \"tick\"").
    let chain = "log \"start\"\nthen \"a\" .then \"b\"\nnextTick \"tick\"\nexpect { \"start\" \"a\" \"tick\" \"b\" }\n";
    let o = loopsim(&["check", "c.loop"], Some(("c.loop", chain)));
    let err = one_line(&stderr(&o));
    assert!(
        err.contains("help: real Node cannot print this order either: no timing of the loop gives it (every schedule that agrees with the prediction so far was tried); the closest order Node can print agrees with its first line, then prints \"tick\"; why \"tick\" ran there: nextTick \"tick\" (line 3)"),
        "{err}"
    );
    assert!(err.ends_with("before any microtask (rule 6)"), "{err}");
    // Right order, wrong field: the order is the model's, so only the field is blamed.
    let field = "timeout 0 \"t\"\nexpect {\n  turn 2 \"t\"\n}\n";
    let o = loopsim(&["check", "f.loop"], Some(("f.loop", field)));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        one_line(&stderr(&o)).contains("the lines come in the model's order: what differs is a turn, tick or phase written on a line"),
        "{}",
        stderr(&o)
    );
}

/// A predicted line the run never prints, a near miss of one it does: the
/// help names that line instead of explaining the order (where the model's
/// trace parts, and where Node's closest order does). A line far from any
/// keeps the explanation.
#[test]
fn a_misspelt_prediction_line_is_named_as_a_near_miss() {
    let src = "timeout 0 \"timeout\"\nimmediate \"i\"\nexpect {\n  \"tiemout\"\n  \"i\"\n}\n";
    let o = loopsim(&["check", "t.loop"], Some(("t.loop", src)));
    assert_eq!(o.status.code(), Some(1));
    let err = one_line(&stderr(&o));
    assert!(
        err.contains("prediction failed at log line 1: expected \"tiemout\", got \"i\""),
        "{err}"
    );
    assert!(
        err.ends_with("help: did you mean \"timeout\"? this run prints no line \"tiemout\", and no timing of the loop gives this order"),
        "{err}"
    );
    // Where Node's closest order parts later than the model's trace.
    let later = "timeout 0 \"t\"\nimmediate \"immediate\"\nnextTick \"next\"\nexpect { \"next\" \"t\" \"imediate\" }\n";
    let o = loopsim(&["check", "l.loop"], Some(("l.loop", later)));
    assert_eq!(o.status.code(), Some(1));
    let err = one_line(&stderr(&o));
    assert!(
        err.contains("prediction failed at log line 3: real Node never prints \"imediate\" there"),
        "{err}"
    );
    assert!(
        err.ends_with("help: did you mean \"immediate\"? this run prints no line \"imediate\", and no timing of the loop gives this order"),
        "{err}"
    );
    // Not a near miss, or too short to tell ("b" is one edit from "a"):
    // the order is explained.
    for other in ["elsewhere", "b"] {
        let far = src.replace("tiemout", other);
        let o = loopsim(&["check", "f.loop"], Some(("f.loop", &far)));
        let err = one_line(&stderr(&o));
        assert!(!err.contains("did you mean"), "{err}");
        assert!(err.contains("why \"i\" ran there"), "{err}");
    }
}

/// Off a terminal, diagnostics wrap at 200 columns between words only: the
/// race warning's `loopsim run --all-orders`, which fell at the edge, was cut
/// at its hyphen ("`loopsim run --all-" and "orders`").
#[test]
fn off_a_terminal_no_backticked_command_is_split() {
    let src = "timeout 0 \"timeout\"\nimmediate \"immediate\"\n// a comment line that is long enough to be shown\n";
    let o = loopsim(&["run", "p6.loop"], Some(("p6.loop", src)));
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(err.contains("loop::race"), "{err}");
    assert!(
        err.lines()
            .any(|l| l.contains("`loopsim run --all-orders /") && l.ends_with("/p6.loop` lists them")),
        "{err}"
    );
    for line in err.lines() {
        assert_eq!(line.matches('`').count() % 2, 0, "{line:?} in {err}");
        assert!(line.chars().count() <= 200, "{line:?}");
    }
}

/// A word taken for a command that names an option of `run`, or a file
/// given without a command: the usage error names the command to type.
#[test]
fn a_file_or_an_option_given_as_a_command_gets_the_command_to_type() {
    for (word, tip) in [
        (
            "explain",
            "tip: `loopsim run --explain p6.loop` says why each line runs where it does",
        ),
        (
            "all-orders",
            "tip: `loopsim run --all-orders p6.loop` lists the orders Node can print",
        ),
        ("svg", "tip: `loopsim run --format svg p6.loop` draws the run as an SVG picture"),
        (
            "nothere.loop",
            "tip: `loopsim run FILE` runs a file, but there is no file nothere.loop here",
        ),
        ("-", "tip: `loopsim run -` runs the program on standard input"),
        ("examples", "tip: `loopsim test examples` checks the predictions of a folder"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p6.loop"), "log \"a\"\n").unwrap();
        std::fs::create_dir(dir.path().join("examples")).unwrap();
        let o = loopsim_in(dir.path(), &[word, "p6.loop"]);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("error: unrecognized subcommand '{word}'\n\n  {tip}\n\nUsage: loopsim")),
            "{err}"
        );
    }
    // A file that exists: the command that runs it.
    let o = loopsim(&["p6.loop"], Some(("p6.loop", "log \"a\"\n")));
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let tip = err.lines().find_map(|l| l.strip_prefix("  tip: `loopsim run ")).unwrap_or_default();
    assert!(tip.ends_with("p6.loop` runs the file"), "{err}");
    // No file after the word: FILE.
    let err = stderr(&loopsim(&["explain"], None));
    assert!(err.contains("tip: `loopsim run --explain FILE` says"), "{err}");
    // The other arguments are kept, a path that needs it quoted for a
    // shell, and a missing file after an option's word is told of (fresh-
    // clone helpers 64 and 65 found them dropped, unquoted and not told).
    for (args, tip) in [
        (
            &["my p6.loop", "--explain"][..],
            "tip: `loopsim run 'my p6.loop' --explain` runs the file",
        ),
        (
            &["explain", "--color", "never", "p6.loop"][..],
            "tip: `loopsim run --explain --color never p6.loop` says why each line runs where it does",
        ),
        (
            &["svg", "nothere.loop"][..],
            "tip: `loopsim run --format svg nothere.loop` draws the run as an SVG picture, \
             but there is no file nothere.loop here",
        ),
        (
            &["explain", "it's.loop"][..],
            "tip: `loopsim run --explain 'it'\\''s.loop'` says why each line runs where it does, \
             but there is no file it's.loop here",
        ),
        // `run` takes one file; global options before the word are kept;
        // a misspelt command clap finds nothing close to is named (fresh-
        // clone helper 68 found them given on, left out and not named).
        (
            &["explain", "p6.loop", "my p6.loop"][..],
            "tip: `loopsim run --explain p6.loop` says why each line runs where it does (`run` takes one file)",
        ),
        (
            &["--color", "never", "explain", "p6.loop"][..],
            "tip: `loopsim --color never run --explain p6.loop` says why each line runs where it does",
        ),
        (
            &["--color=never", "p6.loop"][..],
            "tip: `loopsim --color=never run p6.loop` runs the file",
        ),
        (&["rn", "p6.loop"][..], "tip: did you mean `loopsim run p6.loop`?"),
        (
            &["rnu", "--explain", "my p6.loop"][..],
            "tip: did you mean `loopsim run --explain 'my p6.loop'`?",
        ),
        // Fresh-clone helper 71: tips that failed when pasted. `rn` takes
        // `run`'s one file and tells of a missing one; a file that starts
        // with `-` goes after `--`; options `run` refuses together with the
        // word's are left out, and named (helper 72 found them dropped
        // silently); a file given with no command keeps one file.
        (
            &["rn", "p6.loop", "my p6.loop"][..],
            "tip: did you mean `loopsim run p6.loop`? (`run` takes one file)",
        ),
        (&["rn"][..], "tip: did you mean `loopsim run FILE`?"),
        (
            &["rn", "nothere.loop"][..],
            "tip: did you mean `loopsim run nothere.loop`? (there is no file nothere.loop here)",
        ),
        // One parenthesis for both (fresh-clone helper 72 found two stacked).
        (
            &["rn", "nothere.loop", "p6.loop"][..],
            "tip: did you mean `loopsim run nothere.loop`? (`run` takes one file; there is no file nothere.loop here)",
        ),
        (
            &["explain", "-p6.loop"][..],
            "tip: `loopsim run --explain -- -p6.loop` says why each line runs where it does",
        ),
        (
            &["explain", "p6.loop", "--all-orders"][..],
            "tip: `loopsim run --explain p6.loop` says why each line runs where it does \
             (without `--all-orders`, which `run` refuses here)",
        ),
        (
            &["svg", "--explain", "p6.loop"][..],
            "tip: `loopsim run --format svg p6.loop` draws the run as an SVG picture \
             (without `--explain`, which `run` refuses here)",
        ),
        (
            &["p6.loop", "my p6.loop", "--explain"][..],
            "tip: `loopsim run p6.loop --explain` runs the file (`run` takes one file)",
        ),
        // Fresh-clone helper 76: a file after `--` got `loopsim -- run …`,
        // which clap refuses.
        (&["--", "-p6.loop"][..], "tip: `loopsim run -- -p6.loop` runs the file"),
        (&["--", "my p6.loop"][..], "tip: `loopsim run 'my p6.loop'` runs the file"),
        (
            &["--color", "never", "--", "p6.loop"][..],
            "tip: `loopsim --color never run p6.loop` runs the file",
        ),
        // Fresh-clone helper 81: clap's "use '-- -p'" for `run -p6.loop`
        // named a file that is not there.
        (
            &["run", "-p6.loop"][..],
            "tip: a file whose name begins with `-` goes after `--`: `loopsim run -- -p6.loop`",
        ),
        (
            &["check", "--node", "20", "-p6.loop"][..],
            "tip: a file whose name begins with `-` goes after `--`: `loopsim check --node 20 -- -p6.loop`",
        ),
        // Without a command, `run` (fresh-clone helper 82).
        (
            &["--color", "never", "-p6.loop", "--explain"][..],
            "tip: a file whose name begins with `-` goes after `--`: `loopsim --color never run --explain -- -p6.loop`",
        ),
        (
            &["-p7.loop"][..],
            "tip: a file whose name begins with `-` goes after `--`: `loopsim run -- -p7.loop`, \
             but there is no file -p7.loop here",
        ),
        (
            &["--color=never", "-p6.loop"][..],
            "tip: a file whose name begins with `-` goes after `--`: `loopsim --color=never run -- -p6.loop`",
        ),
        // Misspelt after `help`: the help of the command, not a run of FILE
        // (fresh-clone helper 85).
        (&["help", "rn"][..], "tip: did you mean `loopsim help run`?"),
        // A second file, which `run` and `emit-js` do not take, gets no
        // "goes after `--`" (fresh-clone helper 84: `run p6.loop -- my
        // p6.loop`, then `-- --`).
        (
            &["run", "p6.loop", "my p6.loop"][..],
            "tip: `loopsim run` takes one file: give each file its own command (`check`, `test` and `verify` take several)",
        ),
        (
            &["run", "p6.loop", "--", "-p6.loop"][..],
            "tip: `loopsim run` takes one file: give each file its own command (`check`, `test` and `verify` take several)",
        ),
        (
            &["emit-js", "p6.loop", "extra"][..],
            "tip: `loopsim emit-js` takes one file: give each file its own command (`check`, `test` and `verify` take several)",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("my p6.loop"), "log \"a\"\n").unwrap();
        std::fs::write(dir.path().join("-p6.loop"), "log \"a\"\n").unwrap();
        std::fs::write(dir.path().join("p6.loop"), "log \"a\"\n").unwrap();
        let o = loopsim_in(dir.path(), args);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(err.contains(&format!("\n  {tip}\n")), "{args:?}: {err}");
    }
    // Another word: clap's own error, no tip.
    let err = stderr(&loopsim(&["frobnicate", "p6.loop"], None));
    assert!(!err.contains("tip:"), "{err}");
}

/// `run` on a file whose `expect … or …` names several orders warns only
/// of an order the alternatives leave out (fresh-clone helper 64 found it
/// silent whatever they named): two or four of the five orders get the
/// warning, with the order left out as the other order, and "at least one"
/// (the search stops at one order more than they name; helper 66 found "an
/// order" understated three); all five, none.
#[test]
fn run_warns_of_an_order_the_alternatives_leave_out() {
    let five = ["s i t", "i s t", "t s i", "i t s", "t i s"];
    let file = |n: usize| {
        let blocks: Vec<String> = five[..n]
            .iter()
            .map(|o| format!("{{ {} }}", o.split(' ').map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(" ")))
            .collect();
        format!("timeout 0 \"t\"\nimmediate \"i\"\nsubmit \"s\" 0\nexpect {}\n", blocks.join(" or "))
    };
    for (n, timing) in [
        (2, "a millisecond boundary passed before the timers phase of turn 1"),
        (4, "a millisecond boundary passed before submit \"s\" started"),
    ] {
        let o = loopsim(&["--color", "never", "run", "f.loop"], Some(("f.loop", &file(n))));
        assert_eq!(o.status.code(), Some(0));
        let err = one_line(&stderr(&o));
        assert!(err.contains("⚠ real Node 26 can print these lines in another order"), "{err}");
        assert!(err.contains(&format!("e.g. when {timing};")), "{n}: {err}");
        assert!(
            err.ends_with("the prediction's alternatives leave out at least one order (`loopsim check` tells which)"),
            "{err}"
        );
    }
    let o = loopsim(&["run", "f.loop"], Some(("f.loop", &file(5))));
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(0), ""));
}

/// `run --format json` holds the run's warnings as `"diagnostics"` (the
/// race warning, the limit that stopped the run), as a file that cannot run
/// has its errors; stderr keeps the text. A run without them has no such field.
#[test]
fn run_as_json_holds_the_race_warning_and_the_limit() {
    let race = "timeout 0 \"timeout\"\nimmediate \"immediate\"\n";
    let o = loopsim(&["run", "--format", "json", "p6.loop"], Some(("p6.loop", race)));
    assert_eq!(o.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["events"].as_array().map(Vec::len), Some(2));
    let d = &doc["diagnostics"];
    assert_eq!(d.as_array().map(Vec::len), Some(1), "{doc}");
    assert_eq!(
        (d[0]["severity"].as_str(), d[0]["code"].as_str()),
        (Some("warning"), Some("loop::race"))
    );
    assert_eq!(d[0]["message"], "real Node 26 can print these lines in another order");
    // At the line the model prints first, then at the one Node may print first.
    assert_eq!(
        (d[0]["labels"][0]["line"].as_u64(), d[0]["labels"][1]["line"].as_u64()),
        (Some(2), Some(1))
    );
    assert!(stderr(&o).contains("loop::race"), "{}", stderr(&o));
    // Stopped by a limit: its problem, and no race check (each schedule hits it too).
    let o = loopsim(
        &["run", "--format", "json", "--max-turns", "5", "i.loop"],
        Some(("i.loop", "interval 1 \"a\"\n")),
    );
    assert_eq!(o.status.code(), Some(3));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["end"], "limit");
    let d = doc["diagnostics"].as_array().unwrap();
    assert_eq!(d.len(), 1, "{doc}");
    assert_eq!(d[0]["severity"], "error");
    assert_eq!(d[0]["labels"][0]["line"].as_u64(), Some(1));
    // Nothing to say: no field.
    let o = loopsim(&["run", "--format", "json", "one.loop"], Some(("one.loop", "immediate \"i\"\n")));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(doc.get("diagnostics").is_none(), "{doc}");
}

#[test]
fn test_on_a_folder_without_predictions_is_an_error() {
    let dir = tempfile::Builder::new().prefix("loopsim-empty-").tempdir().unwrap();
    let o = loopsim(&["test", dir.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no .loop file with an expect block"), "{}", stderr(&o));
}

#[test]
fn a_quote_in_a_slash_slash_comment_opens_no_string() {
    let o = loopsim(&["run", "c.loop"], Some(("c.loop", "log \"a\" 5 // say \"hi\n")));
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("found `5`"), "blamed on the stray number: {err}");
    assert!(!err.contains("unterminated string"), "{err}");
}

#[test]
fn a_delay_written_as_a_string_is_named_as_such() {
    let o = loopsim(&["run", "d.loop"], Some(("d.loop", "timeout \"5\" \"t\"\n")));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("a delay or a count is a plain number, not a string: `timeout 5 \"label\"`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn flags_that_do_not_combine_are_refused_with_exit_2() {
    let file = "examples/phases/p07-hundred-ticks-cost-one-turn.loop";
    for (args, says) in [
        (vec!["run", "--all-orders", "--verbose", file], "cannot be used with '--verbose'"),
        (vec!["run", "--all-orders", "--explain", file], "cannot be used with '--explain'"),
        (
            vec!["run", "--all-orders", "--no-race-check", file],
            "cannot be used with '--no-race-check'",
        ),
        (
            vec!["run", "--all-orders", "--format", "svg", file],
            "--all-orders lists orders as text or JSON",
        ),
        (
            vec!["run", "--all-orders", "--format", "html", file],
            "--all-orders lists orders as text or JSON",
        ),
        (
            vec!["run", "--all-orders", "--node", "10", file],
            "--all-orders searches the real loop of Node 20 and later",
        ),
        (vec!["run", "--explain", "--format", "svg", file], "the picture has no room for it"),
        (vec!["check", "--explain", file], "check has no --explain"),
        (
            vec!["run", "--verbose", "--format", "html", file],
            "--format svg and html always draw every event",
        ),
        (
            vec!["run", "--no-race-check", "--orders-time-limit", "5", file],
            "--orders-time-limit bounds the race check, which --no-race-check turns off",
        ),
    ] {
        let o = loopsim(&args, None);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}: nothing printed");
    }
}

#[test]
fn the_combinations_that_work() {
    let file = "examples/phases/p07-hundred-ticks-cost-one-turn.loop";
    let o = loopsim(&["run", "--explain", "--format", "json", file], None);
    assert_eq!(o.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let why = json["explanations"].as_array().unwrap();
    assert_eq!(why.len(), 2, "one explanation per log line");
    assert!(why[1]
        .as_str()
        .unwrap()
        .ends_with("nothing else was ready, so the loop slept from tick 1 to 100 (rule 2)"));
    let o = loopsim(&["run", "--all-orders", "--format", "json", file], None);
    assert_eq!(o.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["orders"].as_array().unwrap().len(), 1);
    // Whose orders they are, as `run --format json` says (fresh-clone helper 81).
    assert_eq!(json["node"], "26");
    let o = loopsim(&["run", "--all-orders", "--node", "20", "--format", "json", file], None);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["node"], "20");
    // The limit that stopped the model's run, as `run --format json` gives it
    // (fresh-clone helper 82: only `stopped`).
    let endless = "immediate \"a\" { log \"a\" again }\n";
    let o = loopsim(
        &["run", "--all-orders", "--max-turns", "5", "--format", "json", "a.loop"],
        Some(("a.loop", endless)),
    );
    assert_eq!(o.status.code(), Some(3));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let diagnostics = json["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{json}");
    assert_eq!(diagnostics[0]["code"], "loop::limit");
    assert_eq!(
        diagnostics[0]["message"],
        "the check queue is refilled every turn: the run never ends"
    );
    assert_eq!(diagnostics[0]["labels"][0]["line"], 1);
    let o = loopsim(
        &["run", "--max-turns", "5", "--format", "json", "a.loop"],
        Some(("a.loop", endless)),
    );
    let run: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(run["diagnostics"][0], diagnostics[0], "as `run` gives it");
    // The note naming the chain without `times` goes to stderr, as in text
    // (fresh-clone helpers 85 and 86: JSON had none).
    for all_orders in [false, true] {
        let args = ["run", "--all-orders", "--max-turns", "5", "--format", "json", "a.loop"];
        let args: Vec<&str> = args.into_iter().filter(|a| all_orders || *a != "--all-orders").collect();
        let o = loopsim(&args, Some(("a.loop", endless)));
        assert!(
            stderr(&o).starts_with("note: `immediate \"a\" { log \"a\" again }` (line 1) has no `times`"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

/// `loopsim verify FILES` in a scratch folder holding `files`, with no `node`
/// on PATH (an empty folder).
fn verify_without_node(files: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .arg("verify")
        .args(files.iter().map(|(name, _)| name))
        .current_dir(dir.path())
        .env("PATH", &empty)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

#[test]
fn verify_refuses_a_file_stopped_at_a_limit_the_program_does_not_keep() {
    // Before: its program printed 2,000,000 lines and was killed as hung
    // after 20 s of each run (found by the fresh-clone check).
    let o = verify_without_node(&[("lines.loop", "repeat 2 { repeat 2000000 { log \"x\" } }\n")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "nothing ran");
    assert!(stderr(&o).contains("loop::emit-limit"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("node"), "refused before looking for node: {}", stderr(&o));
}

#[test]
fn verify_refuses_a_file_whose_run_would_never_end_before_running_anything() {
    // Before: verify ran this program, whose busy loop never ends, and hung.
    let o = verify_without_node(&[("huge.loop", HUGE_WORK)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stdout(&o), "", "nothing ran");
    let err = stderr(&o);
    for needle in [
        "loop::verify-too-long",
        "one run of this file would last 11,690,840,921 years of real time at 20 ms per tick; `verify` runs files that last at most 10 min",
        "2 │ work 18446744073709551615",
        "busy until tick 18,446,744,073,709,551,615: 11,690,840,921 years into the run",
        "even `--scale 1` makes one run of these 18,446,744,073,709,551,615 ticks last 584,542,046 years",
    ] {
        assert!(err.contains(needle), "{needle:?} in:\n{err}");
    }
    assert!(!err.contains("node"), "node is not looked for when nothing would run: {err}");
}

#[test]
fn verify_refuses_a_too_long_file_and_suggests_a_scale_that_fits() {
    let late = "immediate {\n  timeout 40000 \"late\"\n}\n";
    let o = verify_without_node(&[("late.loop", late), ("ok.loop", "log \"a\"\n")]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    for needle in [
        "one run of this file would last 13 min 20.02 s of real time at 20 ms per tick",
        "2 │   timeout 40000 \"late\"",
        "runs at tick 40,000: 13 min 20 s into the run",
        "`--scale 14` or less keeps one run of these 40,001 ticks within 10 min",
        // The other file would run: node is looked for.
        "`node` was not found on PATH: `verify` runs each file's program with real Node.js (20, 22, 24 or 26)",
    ] {
        assert!(err.contains(needle), "{needle:?} in:\n{err}");
    }
}

#[test]
fn verify_help_documents_its_exit_codes_and_time_limit() {
    let o = loopsim(&["verify", "--help"], None);
    let out = stdout(&o);
    for needle in [
        "1    some run printed an order loopsim does not allow, crashed, or hung",
        "at its time limit: 2 x the file's run at --scale, plus 20 s",
        "a run that would last over 10",
        "130  stopped by Ctrl-C (SIGINT); 143 by SIGTERM, 129 by SIGHUP",
    ] {
        assert!(out.contains(needle), "{needle:?} in:\n{out}");
    }
}
const HUGE_WORK: &str = "log \"start\"\nwork 18446744073709551615\nlog \"done\"\n";

#[test]
fn test_in_the_repository_root_checks_only_real_predictions_and_says_what_it_skipped() {
    let o = loopsim(&["test", "."], None);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(!out.contains("ERROR") && !out.contains("FAIL"), "{out}");
    assert!(out.ends_with(" passed, 0 failed\n"), "{out}");
    for skipped in [
        "note: skipped ./tests/diagnostics: its .loopsim-skip file says: invalid on purpose",
        "note: skipped ./tests/regressions: its .loopsim-skip file says: invalid on purpose",
        // (A fuzzing corpus copies the examples, and fuzzing adds inputs a
        // limit stops: `test` in the root failed once one had been run.)
        "note: skipped ./fuzz: its .loopsim-skip file says: fuzzing",
        "skipped 1 file without an expect block (nothing to check): ./tests/conformance/01-timeout-vs-immediate-main.loop",
    ] {
        assert!(err.contains(skipped), "{skipped:?} in {err}");
    }
    // Named explicitly, a marked folder is walked.
    let o = loopsim(&["test", "tests/diagnostics"], None);
    assert!(stdout(&o).contains("ERROR tests/diagnostics/bad-escape.loop"), "{}", stdout(&o));
}

#[test]
fn an_unbounded_chain_is_named_before_the_trace() {
    let o = loopsim(
        &["run", "--max-turns", "50", "i.loop"],
        Some(("i.loop", "log \"a\"\ninterval 1 \"tick\" {\n  log \"t\"\n}\n")),
    );
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    assert!(
        err.starts_with(
            "note: `interval 1 \"tick\"` (line 2) has no `times`: it repeats until a limit stops the run: \
             50 turns or 5,000,000 callbacks (--max-turns, --max-callbacks)\n"
        ),
        "{err}"
    );
    let o = loopsim(&["run", "b.loop"], Some(("b.loop", "interval 1 \"tick\" times 3\n")));
    assert_eq!(stderr(&o), "", "bounded: no note");
}

/// `run` prints the trace at once, then what stopped the run, then the race
/// warning (its search takes up to 2 s) or the note that there was none:
/// with both streams on one file, as on a terminal, the warning comes last
/// and a long trace does not push it out of sight.
#[test]
fn the_race_warning_follows_the_trace_and_the_limit() {
    let dir = tempfile::Builder::new().prefix("loopsim-cli-").tempdir().unwrap();
    let both = |src: &str, args: &[&str]| {
        let file = dir.path().join("r.loop");
        std::fs::write(&file, src).unwrap();
        let out = std::fs::File::create(dir.path().join("out")).unwrap();
        let status = Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .args(["run", "--color", "never"])
            .args(args)
            .arg(&file)
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .status()
            .unwrap();
        (status.code(), std::fs::read_to_string(dir.path().join("out")).unwrap())
    };
    let at = |out: &str, what: &str| out.find(what).unwrap_or_else(|| panic!("{what:?} in {out}"));
    let (code, out) = both("timeout 0 \"t\"\nimmediate \"i\"\n", &[]);
    assert_eq!(code, Some(0));
    assert!(
        at(&out, "   2     1  timers     t\n") < at(&out, "real Node 26 can print these lines in another order"),
        "{out}"
    );
    let (code, out) = both(
        "timeout 0 \"t\"\nimmediate \"i\"\ninterval 5 \"tick\" { log \"n\" }\n",
        &["--max-turns", "4"],
    );
    assert_eq!(code, Some(3));
    let order = [
        at(&out, "has no `times`"),
        at(&out, "turn  tick  phase"),
        at(&out, "loop::limit"),
        at(&out, "no race check for a run a limit stopped"),
    ];
    assert!(order.is_sorted(), "{out}");
}

#[test]
fn a_file_without_statements_says_so_on_stderr() {
    let note = |err: &str| {
        err.starts_with("note: /")
            && err.ends_with("e.loop has no statements: nothing is scheduled, so no line is printed\n")
            && err.lines().count() == 1
    };
    for text in ["", "# only a comment\n\n", "title \"t\"\npool 2\n"] {
        let o = loopsim(&["run", "e.loop"], Some(("e.loop", text)));
        assert_eq!(o.status.code(), Some(0), "{text:?}");
        assert!(note(&stderr(&o)), "{text:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), "turn  tick  phase      log (Node 26)\n", "{text:?}");
        // JSON and the list of orders: stdout stays pure JSON, the note on stderr.
        for args in [
            &["run", "--format", "json", "e.loop"][..],
            &["run", "--all-orders", "--format", "json", "e.loop"],
        ] {
            let o = loopsim(args, Some(("e.loop", text)));
            assert_eq!(o.status.code(), Some(0), "{args:?}");
            assert!(note(&stderr(&o)), "{args:?}: {}", stderr(&o));
            let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
            assert!(json.is_object(), "{args:?}");
        }
    }
    // A prediction of nothing holds, with the note under it (check and test).
    let o = loopsim(&["check", "e.loop"], Some(("e.loop", "pool 2\nexpect {\n}\n")));
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("e.loop (0 lines as predicted)\n  note: /"), "{out}");
    assert!(
        out.ends_with("e.loop has no statements: nothing is scheduled, so no line is printed\n"),
        "{out}"
    );
    // A file with a statement has no note.
    let o = loopsim(&["run", "s.loop"], Some(("s.loop", "# a comment\ntimeout 1 \"t\"\n")));
    assert_eq!(stderr(&o), "");
}

/// `loopsim test examples | head -1`: a reader that closes the pipe early
/// ends loopsim quietly (SIGPIPE, as any Unix filter), never a panic (exit 101).
#[test]
#[cfg(unix)]
fn a_closed_stdout_pipe_ends_test_quietly_not_with_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["--color", "never", "test", "examples"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(!first.is_empty(), "test printed nothing");
    drop(out);
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(status.code(), Some(101), "{err}");
    assert!(
        status.code() == Some(0) || status.signal() == Some(libc::SIGPIPE),
        "{status:?} {err}"
    );
}

/// A failed prediction whose "could real Node print it?" search stops at its
/// statement bound says so, and does not send the user to the time limit,
/// which would not help (exit 3: the search was cut short).
#[test]
fn an_undecided_prediction_names_the_bound_that_stopped_the_search() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.loop");
    let mut src = "timeout 1 \"x\"\n".repeat(150_000);
    src.push_str("expect {\n  turn 1 timers \"x\"\n}\n");
    std::fs::write(&path, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["--color", "never", "check", "--orders-time-limit", "3600"])
        .arg(&path)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("whether real Node can print this one is undecided"), "{err}");
    assert!(err.contains("a bound on the search's size, not its time, stopped it"), "{err}");
    assert!(!err.contains("--orders-time-limit SECONDS` gives it longer"), "{err}");
}

/// `-` as FILE reads standard input (as `/dev/stdin`: a pipe or a redirected
/// file; named `<stdin>`), for `run`, `check` and `emit-js`; a terminal or device there is
/// refused with exit 2 and a hint, never waited on; named twice, refused.
#[test]
#[cfg(unix)]
fn a_dash_reads_the_file_from_standard_input() {
    use std::io::Write;
    let piped = |args: &[&str], text: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .args(["--color", "never"])
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A refused command line exits without reading: the pipe may close first.
        let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
        child.wait_with_output().unwrap()
    };
    let out = piped(&["run", "-"], "timeout 0 \"t\"\nlog \"main\"\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let logs: Vec<String> = stdout(&out)
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().last().unwrap().to_string())
        .collect();
    assert_eq!(logs, ["main", "t"]);
    let out = piped(&["check", "-"], "log \"a\"\nexpect {\n  \"b\"\n}\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("[<stdin>:3:3]"), "{}", stderr(&out));
    let out = piped(&["test", "-"], "log \"a\"\nexpect {\n  \"a\"\n}\n");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "PASS  <stdin> (1 line)\n1 passed, 0 failed\n");
    let out = piped(&["test", "-"], "logg \"a\"\n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "ERROR <stdin>: unreadable or not a valid .loop file (its error is on stderr)\n0 passed, 1 failed (1 unreadable or invalid)\n"
    );
    let out = piped(&["test", "-"], "log \"a\"\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with("no .loop file with an expect block among <stdin>\n"),
        "{}",
        stderr(&out)
    );
    let out = piped(&["emit-js", "-"], "log \"a`${x}\"\n");
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains(r#""a`${x}""#), "{}", stdout(&out));
    // Standard input can be read once: `-` twice is a usage error, not an
    // empty second file (check, test and verify take several).
    for args in [&["check", "-", "-"][..], &["test", "-", "examples", "-"], &["verify", "-", "-"]] {
        let out = piped(args, "log \"a\"\nexpect {\n  \"a\"\n}\n");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("standard input (`-`) can be read only once"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(stdout(&out), "", "{args:?}");
    }
    // /dev/null is a device: refused at once.
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["--color", "never", "run", "-"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "standard input (`-`) is a terminal or a device here: redirect a file to it, `loopsim run - < FILE`, or pipe one, `cat FILE | loopsim run -`"
        ),
        "{}",
        stderr(&out)
    ); // The hint names the command used (fresh-clone helper 90).
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["--color", "never", "check", "-"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        stderr(&out).contains("`loopsim check - < FILE`, or pipe one, `cat FILE | loopsim check -`"),
        "{}",
        stderr(&out)
    );
}

/// A write to standard output that fails (a full disk: /dev/full) is told on
/// stderr and ends with exit 74, whatever the command found; before, the
/// error was dropped and the exit code said the trace was printed.
#[test]
#[cfg(target_os = "linux")]
fn a_failed_write_to_standard_output_exits_74() {
    for args in [
        vec!["run", P1],
        vec!["run", "--format", "json", P1],
        vec!["emit-js", P1],
        vec!["--help"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(74), "{args:?}: {}", stderr(&out));
        if args[0] != "--help" {
            assert!(
                stderr(&out).contains("error: cannot write to standard output: No space left on device"),
                "{args:?}: {}",
                stderr(&out)
            );
        }
    }
}

/// A prediction of the first lines of an endless chain that logs: the help
/// says a limit stopped the run and what `limit QUEUE` predicts, not "add
/// the remaining 1000000 lines" (found by the fresh-clone check).
#[test]
fn a_prediction_of_an_endless_chain_that_logs_is_told_how_it_ends() {
    let src = "immediate \"s\" { log \"s\" again }\n\nexpect {\n  \"s\"\n}\n";
    let o = loopsim(&["check", "e.loop"], Some(("e.loop", src)));
    // (3: a limit the prediction does not name stopped the run.)
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o).replace(['\n', ' '], "");
    let want = "the run never ends: it printed 1,000,000 more lines before a limit stopped it. `limit check` predicts that stop after the lines above it";
    assert!(err.contains(&want.replace(' ', "")), "{}", stderr(&o));
    assert!(!err.contains("addtheremaining"), "{}", stderr(&o));
    // A run that ends keeps the plain help.
    let o = loopsim(
        &["check", "f.loop"],
        Some(("f.loop", "log \"a\"\nlog \"b\"\n\nexpect {\n  \"a\"\n}\n")),
    );
    assert!(
        stderr(&o).contains("add the remaining 1 line to the expect block"),
        "{}",
        stderr(&o)
    );
}

/// Several files: the exit code is the highest of theirs (documented in
/// `--help` and the README): a limit (3) beside an invalid file (2) is 3,
/// an invalid file beside a failed prediction (1) is 2.
#[test]
fn several_files_exit_with_the_highest_code() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("a-invalid.loop", "timeout\n");
    write("b-limit.loop", "immediate \"s\" { again }\nexpect {\n}\n");
    write("c-wrong.loop", "log \"a\"\nexpect {\n  \"b\"\n}\n");
    let test = |names: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .arg("test")
            .args(names.iter().map(|n| dir.path().join(n)))
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(test(&["a-invalid.loop", "b-limit.loop", "c-wrong.loop"]), Some(3));
    assert_eq!(test(&["a-invalid.loop", "c-wrong.loop"]), Some(2));
    assert_eq!(test(&["c-wrong.loop"]), Some(1));
}

/// A search cut short states the races of the orders it found, and says so
/// (a count of orders found is "at least" one):
/// a longer search may join or widen them (eight jobs of one tick, each
/// setting an immediate: 853 orders in all, where the first 20 schedules see
/// two groups of four).
#[test]
fn a_partial_answer_says_its_races_are_those_found_so_far() {
    let src: String = (1..=8).map(|n| format!("submit \"j{n}\" 1 {{ immediate \"i{n}\" }}\n")).collect();
    let o = loopsim(
        &["--color", "never", "run", "--all-orders", "--max-schedules", "20", "r8.loop"],
        Some(("r8.loop", &src)),
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "at least 11 orders Node 26 can print (search cut short after 20 schedules: the orders listed are a partial answer). \
             The races among the orders found so far:\n  1. \u{201c}i1\u{201d}, \u{201c}i2\u{201d}, \u{201c}i3\u{201d} and \u{201c}i4\u{201d} come in at least 5 orders"
        ),
        "{out}"
    );
    // Complete, the heading is plain.
    let o = loopsim(
        &["--color", "never", "run", "--all-orders", "p.loop"],
        Some(("p.loop", "timeout 0 \"t\"\nimmediate \"i\"\n")),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("2 orders Node 26 can print. The races:\n"), "{}", stdout(&o));
}

/// A prediction that runs out where a limit other than turns or callbacks
/// stopped the run names that limit, not "the turns limit" (`limit turns`
/// stands for it in a prediction).
#[test]
fn a_prediction_cut_by_the_clock_limit_names_it() {
    let src = "log \"a\"\nwork 18446744073709551615\nlog \"b\"\nexpect {\n  \"a\"\n  \"b\"\n}\n";
    let o = loopsim(&["--color", "never", "check", "c.loop"], Some(("c.loop", src)));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "prediction failed: the run was stopped at 9,007,199,254,740,991 ticks on the clock (a prediction writes it `limit turns`) after 1 log line"
        ),
        "{err}"
    );
    assert!(!err.contains("the turns limit"), "{err}");
}

/// A partial answer with more orders found than `--list` lists says both
/// counts, and that the count is a lower bound (eight interchangeable jobs
/// of one tick: the first schedule alone finds 8! = 40,320 orders).
#[test]
fn a_partial_answer_longer_than_the_list_says_how_many_it_found() {
    let src = "pool 8\nrepeat 8 {\n  submit \"job {i}\" 10 {\n    log \"done {i}\"\n    immediate \"after {i}\"\n  }\n}\nimmediate \"x\"\n";
    let o = loopsim(
        &["--color", "never", "run", "--all-orders", "--max-schedules", "1", "s.loop"],
        Some(("s.loop", src)),
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("at least 40,320 orders Node 26 can print (search cut short after 1 schedule"),
        "{out}"
    );
    assert!(out.ends_with("\n(`--list` lists the first 10,000 of the 40,320 found.)\n"), "{out}");
    let o = loopsim(
        &[
            "--color",
            "never",
            "run",
            "--all-orders",
            "--list",
            "--max-schedules",
            "1",
            "s.loop",
        ],
        Some(("s.loop", src)),
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches("\norder ").count(), 10_000);
    assert!(
        out.ends_with("\n(the first 10,000 of at least 40,320 orders are listed)\n"),
        "{out}"
    );
}

/// More than a thousand distinct orders are counted and listed exactly: the
/// search is bounded by time, schedules and memory, not by the orders it
/// finds (four waves of three 10-tick jobs on a pool of 12, each job logging
/// and queueing a nextTick: each wave's three callbacks in any of 6 orders,
/// 6⁴ = 1,296 in all; the search stopped at 1,000 before).
#[test]
fn more_than_a_thousand_orders_are_counted_exactly() {
    let mut src = String::from("pool 12\n");
    for wave in 1..=4 {
        for job in 1..=3 {
            src += &format!(
                "submit \"j{wave}{job}\" {} {{\n  log \"a{wave}{job}\"\n  nextTick \"t{wave}{job}\"\n}}\n",
                10 * wave
            );
        }
    }
    let o = loopsim(&["--color", "never", "run", "--all-orders", "w.loop"], Some(("w.loop", &src)));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("1,296 orders Node 26 can print. The races:\n"), "{out}");
    for wave in 1..=4 {
        // Each job's line and its nextTick's line stay together: three pairs in any order.
        let pairs: Vec<String> = (1..=3)
            .map(|j| format!("(\u{201c}a{wave}{j}\u{201d}, \u{201c}t{wave}{j}\u{201d})"))
            .collect();
        let said = format!(
            "{}. {}, {} and {} come in any order, the lines in parentheses together (6 orders): ",
            wave, pairs[0], pairs[1], pairs[2]
        );
        assert!(out.contains(&said), "{said} not in\n{out}");
    }
    let o = loopsim(&["run", "--all-orders", "--format", "json", "w.loop"], Some(("w.loop", &src)));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(json["count"], 1296);
    assert_eq!(json["truncated"], false);
    // The pairs that stay together, as JSON's `runs`.
    assert_eq!(
        json["races"][0]["runs"],
        serde_json::json!([["a11", "t11"], ["a12", "t12"], ["a13", "t13"]])
    );
    let orders: std::collections::HashSet<String> = json["orders"].as_array().unwrap().iter().map(|o| o.to_string()).collect();
    assert_eq!(orders.len(), 1296, "the orders listed are distinct");
}

/// A limit of one says "1 turn", "1 callback", not "1 turns",
/// in the limit's help and in the note naming an endless statement.
#[test]
fn a_limit_of_one_is_singular() {
    let src = "timeout 0 \"t\"\nimmediate \"i\"\n";
    let o = loopsim(&["--color", "never", "run", "--max-turns", "1", "z.loop"], Some(("z.loop", src)));
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("stopped after 1 turn (--max-turns)"), "{}", stderr(&o));
    let o = loopsim(
        &["--color", "never", "run", "--max-callbacks", "1", "z.loop"],
        Some(("z.loop", src)),
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("stopped after 1 callback (--max-callbacks)"), "{}", stderr(&o));
    let o = loopsim(
        &["run", "--max-turns", "1", "--max-callbacks", "1", "e.loop"],
        Some(("e.loop", "interval 1 \"x\"\n")),
    );
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("until a limit stops the run: 1 turn or 1 callback (--max-turns"),
        "{}",
        stderr(&o)
    );
}

/// A limit's label says what its line is: the main module when no callback
/// ran (`--max-turns 0`: its first statement, not line 1's comment), the
/// statement one past the statement limit (`--max-callbacks 0`).
#[test]
fn a_limit_before_any_callback_points_at_the_main_module() {
    let bounded = "# a comment\ntimeout 0 \"t\"\nimmediate \"i\"\n";
    let endless = "interval 1 \"tick\"\n";
    let before = "× the limit stopped the run before the loop began";
    // (flag, file, text, where the header points, message, label). An
    // endless chain stopped there reads as the bounded file does (no "last
    // callback in main", no "scheduled the last callback": none ran);
    // `--max-callbacks 0` stops the run at a first statement never run.
    let cases = [
        (
            "--max-turns",
            "z.loop",
            bounded,
            Some("z.loop:2:1]"),
            Some(before),
            "╰── the main module ran; no callback did",
        ),
        (
            "--max-turns",
            "i.loop",
            endless,
            None,
            Some(before),
            "╰── the main module ran; no callback did",
        ),
        (
            "--max-callbacks",
            "i.loop",
            endless,
            None,
            Some(before),
            "╰── the run stopped at this statement",
        ),
        (
            "--max-callbacks",
            "z.loop",
            bounded,
            Some("z.loop:2:1]"),
            None,
            "╰── the run stopped at this statement",
        ),
    ];
    for (flag, name, src, at, message, label) in cases {
        let o = loopsim(&["--color", "never", "run", flag, "0", name], Some((name, src)));
        assert_eq!(o.status.code(), Some(3), "{flag} {name}");
        let err = stderr(&o);
        for needle in [at, message, Some(label)].into_iter().flatten() {
            assert!(err.contains(needle), "{flag} {name}: {err}");
        }
    }
}

/// Hints that name what was meant: `module mjs` is an ES module (Node's
/// extension for one), and an order missing from `expect … or …` that is the
/// seed model's own says so (its timing is no race).
#[test]
fn hints_name_the_module_meant_and_the_models_own_order() {
    for (word, meant) in [("mjs", "esm"), ("commonjs", "cjs"), ("ems", "esm")] {
        let src = format!("module {word}\nlog \"a\"\n");
        let o = loopsim(&["--color", "never", "run", "m.loop"], Some(("m.loop", &src)));
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(&format!("help: did you mean `module {meant}`?")),
            "{word}: {}",
            stderr(&o)
        );
    }
    let src = "timeout 0 \"t\"\nimmediate \"i\"\nexpect { \"t\" \"i\" } or { \"t\" \"i\" }\n";
    let o = loopsim(&["--color", "never", "check", "d.loop"], Some(("d.loop", src)));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("real Node 26 can also print: i | t"), "{err}");
    assert!(
        err.contains("help: it is the seed model's order, the one `loopsim run` prints; add it as `or { \"i\" \"t\" }`"),
        "{err}"
    );
}

/// A header part left without its number, or given twice, is told which.
#[test]
fn a_header_part_without_its_number_or_twice_is_told_so() {
    for (src, help) in [
        ("timeout 1 \"x\" times\n", "help: `times` takes a number of runs: `times 3`"),
        ("io \"r\" after\n", "help: `after` takes a number of ticks: `after 3`"),
        (
            "immediate \"x\" times 3 times 2\n",
            "help: `times` is given twice on this line: a header takes one, keep one",
        ),
        (
            "io \"a\" after 3 after 4\n",
            "help: `after` is given twice on this line: a header takes one, keep one",
        ),
    ] {
        let o = loopsim(&["--color", "never", "run", "h.loop"], Some(("h.loop", src)));
        assert_eq!(o.status.code(), Some(2), "{src}");
        assert!(stderr(&o).contains(help), "{src}: {}", stderr(&o));
    }
    // A placeholder for the number is one problem (its `{i}` is no block of
    // statements to report an unknown `i` in), and the help says why.
    let o = loopsim(
        &["--color", "never", "run", "h.loop"],
        Some(("h.loop", "repeat 6 { io \"a{i}\" after {i} }\n")),
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("help: `after` takes a number of ticks: `after 3` (`{i}`, `{n}` and `{k}` work only inside strings)"),
        "{err}"
    );
    assert_eq!(err.matches("loop::").count(), 1, "{err}");
}

/// `--all-orders` without `--list` shows the seed model's order and says when
/// a limit stopped it, as `--list` does for each order: a timer that starts
/// an endless immediate chain, under a turn limit of 40.
#[test]
fn the_model_order_shown_alone_says_a_limit_stopped_it() {
    let src = common::TIMER_STARTS_ENDLESS_CHAIN;
    let o = loopsim(&["run", "--all-orders", "--max-turns", "40", "spin.loop"], Some(("spin.loop", src)));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    // The endless chain is named first, as `run` names it.
    assert!(
        stderr(&o).starts_with("note: `immediate \"spin\"` (line 3) has no `times`: it repeats until a limit stops the run: 40 turns"),
        "{}",
        stderr(&o)
    );
    let out = stdout(&o);
    assert!(out.starts_with("3 orders Node 26 can print. The races:\n"), "{out}");
    assert!(
        out.contains("\nthe seed model's order, then stopped by a limit:\n  i\n  t\n  spin\n"),
        "{out}"
    );
    // The model's turn 2 ran the timer: the chain ran in turns 2 to 40.
    assert_eq!(out.matches("\n  spin").count(), 39, "{out}");
    let listed = stdout(&loopsim(
        &["run", "--all-orders", "--list", "--max-turns", "40", "spin.loop"],
        Some(("spin.loop", src)),
    ));
    assert!(
        listed.contains("\norder 1 (the seed model's order, then stopped by a limit):\n  i\n  t\n"),
        "{listed}"
    );
}

/// A file's `node 10` is refused by `run --all-orders` as `--node 10` is
/// (the search follows Node 20 and later; Node 10 changes only the model's
/// drain rule); `--node 20` overrides the directive and searches.
#[test]
fn all_orders_refuses_a_file_that_says_node_10() {
    let src = "node 10\ntimeout 0 \"t\"\nimmediate \"i\"\n";
    let o = loopsim(&["run", "--all-orders", "ten.loop"], Some(("ten.loop", src)));
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(
        stderr(&o)
            .contains("--all-orders searches the real loop of Node 20 and later; the file's `node 10` changes only the model's drain rule"),
        "{}",
        stderr(&o)
    );
    let o = loopsim(&["run", "--all-orders", "--node", "20", "ten.loop"], Some(("ten.loop", src)));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("2 orders Node 20 can print. The races:\n"), "{}", stdout(&o));
}

/// A prediction that outlives a run a queue's limit stopped names the
/// `limit QUEUE` line that predicts that stop (it said "the check limit",
/// which read as a limit of the `check` command).
#[test]
fn a_prediction_past_a_limit_names_the_limit_line() {
    let src = "immediate \"x\" { log \"x\" again }\nexpect { \"x\" \"y\" }\n";
    let o = loopsim(&["check", "--max-turns", "1", "c.loop"], Some(("c.loop", src)));
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("prediction failed: the run was stopped at a limit (a prediction writes it `limit check`) after 1 log line\n"),
        "{}",
        stderr(&o)
    );
}

/// A UTF-8 byte-order mark is no statement before the first line's word: the
/// same help as without it (it said a word after a statement starts another).
#[test]
fn a_byte_order_mark_does_not_make_the_first_word_mid_line() {
    let help = |src: &str| {
        let o = loopsim(&["--color", "never", "run", "b.loop"], Some(("b.loop", src)));
        assert_eq!(o.status.code(), Some(2));
        stderr(&o).lines().find(|l| l.contains("help:")).unwrap_or_default().to_string()
    };
    let plain = help("bogus \"x\"\n");
    assert!(plain.contains("a statement starts with one of: log,"), "{plain}");
    assert_eq!(help("\u{feff}bogus \"x\"\n"), plain);
}

/// On a terminal, diagnostics wrap to its width (here 40 to 100 columns),
/// between words only and never inside backticks: the command a help line
/// names (`loopsim run --all-orders`) stays whole, where miette's fixed 200
/// columns split it at its hyphen (and 80 columns, wrapping at spaces only,
/// between `run` and `--all-orders`).
#[test]
fn diagnostics_wrap_to_the_terminal_between_words() {
    use loopsim::cli::{Host, Kind, Stream};
    use std::cell::RefCell;
    use std::ffi::OsString;
    use std::io;
    use std::path::Path;
    struct Terminal {
        src: &'static str,
        stderr: RefCell<Vec<u8>>,
        width: usize,
    }
    impl Host for Terminal {
        fn read(&self, _: &Path) -> io::Result<Vec<u8>> {
            Ok(self.src.as_bytes().to_vec())
        }
        fn kind(&self, _: &Path, _: bool) -> io::Result<Kind> {
            Ok(Kind::File)
        }
        fn names(&self, _: &Path) -> io::Result<Vec<OsString>> {
            Ok(Vec::new())
        }
        fn write(&self, stream: Stream, bytes: &[u8]) {
            if stream == Stream::Stderr {
                self.stderr.borrow_mut().extend_from_slice(bytes);
            }
        }
        fn auto_color(&self, _: Stream) -> bool {
            false
        }
        fn stderr_width(&self) -> Option<usize> {
            Some(self.width)
        }
    }
    for width in 40..=100 {
        let host = Terminal {
            src: "timeout 0 \"t\"\nimmediate \"i\"\n",
            stderr: RefCell::new(Vec::new()),
            width,
        };
        assert_eq!(loopsim::cli::run(["loopsim", "run", "r.loop"], &host), 0);
        let err = String::from_utf8(host.stderr.take()).unwrap();
        let help: Vec<&str> = err.lines().skip_while(|l| !l.trim_start().starts_with("help:")).collect();
        assert!(help.len() >= 3, "{width}: {err}");
        for line in &help {
            assert!(line.chars().count() <= width, "{width}: {line:?} in {err}");
        }
        // The command whole on one line where it fits the help's room
        // (width less 10), else cut at a space, not inside a word.
        let command = "`loopsim run --all-orders r.loop`";
        if width - 10 >= command.len() {
            assert!(help.iter().any(|l| l.contains(command)), "{width}: {err}");
        } else {
            let joined = help.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
            assert!(joined.contains(command), "{width}: {err}");
        }
    }
}

/// `--all-orders` says how the process ends after the seed model's order when
/// it does not exit with code 0: an unhandled rejection ends it with code 1.
#[test]
fn all_orders_says_an_unhandled_rejection_ends_the_process() {
    let src = "then \"micro\"\nchain rejected\nlog \"sync\"\n";
    let o = loopsim(&["run", "--all-orders", "u.loop"], Some(("u.loop", src)));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "1 order Node 26 can print:\n\norder 1 (the seed model's order, then the process exits with code 1: the promise \
         rejected at line 2 has no handler (rule 8k)):\n  sync\n  micro\n"
    );
    // Without the rejection, the order ends as the loop does.
    let o = loopsim(
        &["run", "--all-orders", "f.loop"],
        Some(("f.loop", "then \"micro\"\nlog \"sync\"\n")),
    );
    assert_eq!(
        stdout(&o),
        "1 order Node 26 can print:\n\norder 1 (the seed model's order):\n  sync\n  micro\n"
    );
}

/// `check` given several files ends with how many held, an unreadable file
/// counted as failed and named so (fresh-clone helper 67 found no summary,
/// 68 the unreadable file counted among the predictions that failed); one
/// file gets none.
#[test]
fn check_of_several_files_ends_with_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.loop"), "log \"a\"\nexpect { \"a\" }\n").unwrap();
    std::fs::write(dir.path().join("wrong.loop"), "log \"a\"\nexpect { \"b\" }\n").unwrap();
    let check = |files: &[&str]| loopsim_in(dir.path(), &[&["check"], files].concat());
    let o = check(&["ok.loop", "wrong.loop", "nosuch.loop"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "ok: ok.loop (1 line as predicted)\n1 passed, 2 failed (1 unreadable or invalid)\n"
    );
    assert!(
        stderr(&o).contains("error: cannot read nosuch.loop: there is no such file"),
        "{}",
        stderr(&o)
    );
    // A name one typo from a file beside it is told the file (helper 78).
    let o = check(&["ok.lop"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("error: cannot read ok.lop: there is no such file; did you mean ok.loop?"),
        "{}",
        stderr(&o)
    );
    // Names of one extension are compared without it: `nosuch.loop` is
    // not one typo from `wrong.loop` (fresh-clone helper 86: "nope.loop",
    // "did you mean typo.loop?"), `wrng.loop` is.
    let o = check(&["nope.loop"]);
    assert!(!stderr(&o).contains("did you mean"), "{}", stderr(&o));
    let o = check(&["wrng.loop"]);
    assert!(
        stderr(&o).contains("there is no such file; did you mean wrong.loop?"),
        "{}",
        stderr(&o)
    );
    // A dangling link is listed beside the others but is not suggested for
    // itself (fresh-clone helper 88: "did you mean dang.loop?").
    std::os::unix::fs::symlink("/nonexistent/x.loop", dir.path().join("dang.loop")).unwrap();
    let o = check(&["dang.loop"]);
    assert!(!stderr(&o).contains("did you mean dang.loop"), "{}", stderr(&o));
    let o = check(&["ok.loop", "ok.loop"]);
    assert_eq!((o.status.code(), stdout(&o).lines().last()), (Some(0), Some("2 passed, 0 failed")));
    let o = check(&["ok.loop"]);
    assert_eq!(stdout(&o), "ok: ok.loop (1 line as predicted)\n");
}

/// `test` warns only of the files it checks: a file without an `expect`
/// block is skipped without its warnings (fresh-clone helper 67 saw a
/// `loop::delay` warning for a file then skipped).
#[test]
fn test_warns_only_of_the_files_it_checks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("skipped.loop"), "timeout 5000000000 \"far\"\n").unwrap();
    std::fs::write(dir.path().join("checked.loop"), "timeout 5000000001 \"far\"\nexpect { \"far\" }\n").unwrap();
    let o = loopsim_in(dir.path(), &["--color", "never", "test", "."]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.contains("`timeout 5000000001`: a delay above 2147483647 becomes 1 tick"),
        "{err}"
    );
    assert!(!err.contains("5000000000"), "{err}");
    assert!(
        err.contains("skipped 1 file without an expect block (nothing to check): ./skipped.loop"),
        "{err}"
    );
}

/// Fresh-clone helper 77: a folder whose name starts with `-`, given to
/// `run`, was named in a command clap refuses (`loopsim test -df`).
#[test]
fn a_folder_that_starts_with_a_dash_is_named_after_two_dashes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("-df")).unwrap();
    let o = loopsim_in(dir.path(), &["run", "--", "-df"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: cannot read -df: not a regular file (a folder); for a folder, use `loopsim test -- -df`\n"
    );
}

/// Fresh-clone helper 89: the trace's `exit` line took the turn of the last
/// line shown, or 0 with none (`0  5  exit` for a rejection in turn 1's
/// timer); it is the turn the run ended in, as `--verbose` shows it.
#[test]
fn the_exit_line_names_the_turn_the_process_ended_in() {
    let dir = tempfile::tempdir().unwrap();
    for (src, line) in [
        (
            "timeout 5 \"t\" { chain rejected }\n",
            "   1     5  exit       the process exits with code 1",
        ),
        (
            "module esm\npromise never { }\ntimeout 3 { }\nimmediate { }\nawait never\n",
            "   2     4  exit       the loop has nothing left",
        ),
        ("chain rejected\n", "   0     0  exit       the process exits with code 1"),
    ] {
        std::fs::write(dir.path().join("f.loop"), src).unwrap();
        for verbose in [false, true] {
            let mut args = vec!["run", "--no-race-check", "f.loop"];
            if verbose {
                args.push("--verbose");
            }
            let o = loopsim_in(dir.path(), &args);
            let out = stdout(&o);
            assert!(out.lines().last().unwrap().starts_with(line), "{src}:\n{out}");
        }
    }
}

/// Fresh-clone helper 89: the note naming a chain without `times` quoted its
/// statement whole, a megabyte label included; it is cut as a label is.
#[test]
fn the_note_on_a_chain_without_times_is_cut_as_a_label() {
    let dir = tempfile::tempdir().unwrap();
    let label = "B".repeat(100_000);
    std::fs::write(
        dir.path().join("f.loop"),
        format!("timeout 0 \"{label}\" {{ log \"{{k}}\" again }}\n"),
    )
    .unwrap();
    let o = loopsim_in(dir.path(), &["--color", "never", "run", "f.loop"]);
    assert_eq!(o.status.code(), Some(3));
    let err = stderr(&o);
    let note = err.lines().find(|l| l.starts_with("note: ")).expect("the note");
    assert!(note.contains("BBBB…` (line 1) has no `times`"), "{note}");
    assert!(note.len() < 600, "{} bytes", note.len());
    assert!(err.len() < 3_000, "{} bytes", err.len());
}

/// A file whose name is not UTF-8 is read like any other (fresh-clone
/// helper 90: clap refused the argument).
#[test]
fn a_file_name_that_is_not_utf8_is_read() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.loop");
    std::fs::write(dir.path().join(name), "log \"a\"\nexpect { \"a\" }\n").unwrap();
    for command in ["run", "check"] {
        let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .arg(command)
            .arg(name)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stderr(&out));
    }
}

/// A run stopped at a limit that would have ended (every chain has
/// `times`) is not said to be endless where it printed more than predicted
/// (fresh-clone helper 90: "the run never ends … bound the chain").
#[test]
fn a_prediction_short_of_a_long_run_is_not_told_to_bound_a_chain() {
    let src = "interval 1 \"x\" times 100\nexpect { \"x\" }\n";
    let out = loopsim(&["--color", "never", "check", "--max-turns", "10", "t.loop"], Some(("t.loop", src)));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = one_line(&stderr(&out));
    assert!(err.contains("before loopsim stopped it at 10 turns, a run that would end"), "{err}");
    assert!(!err.contains("never ends"), "{err}");
}
