//! Unit tests of `verify`'s limits and of how it runs programs, without `node`
//! (programs here are `sh` scripts).

use super::*;
use crate::load;
use std::os::unix::fs::PermissionsExt;

fn loaded(src: &str) -> Loaded {
    match load::load_bytes("file.loop", src.as_bytes()) {
        Ok(l) => l,
        Err(e) => panic!("{e:?}"),
    }
}

#[test]
fn the_time_limit_is_twice_the_run_plus_20_s_and_saturates() {
    assert_eq!(time_limit(0), Duration::from_secs(20));
    // 303 ticks at 20 ms: 6.06 s, so 12.12 s + 20 s.
    assert_eq!(time_limit(303 * 20), Duration::from_millis(32_120));
    assert_eq!(time_limit(MAX_RUN.as_millis() as u64), Duration::from_secs(20 * 60 + 20));
    assert_eq!(time_limit(u64::MAX), Duration::new(36_893_488_147_419_123, 230_000_000));
}

#[test]
fn the_plan_counts_work_timers_and_jobs() {
    let plan = plan(&loaded("work 5\ntimeout 10 { work 3 }\nsubmit \"job\" 40\n"), 20).unwrap();
    assert_eq!(
        plan,
        Plan {
            model_ticks: 46, // the loop exits one tick after the job's callback
            work_ticks: 8,
            scale: 20,
        }
    );
    assert_eq!(plan.model_ms(), 920);
    assert_eq!(plan.limit(), Duration::from_millis(21_840));
}

#[test]
fn a_run_of_exactly_ten_minutes_is_accepted_one_tick_more_is_refused() {
    let ok = plan(&loaded("work 30000\n"), 20).unwrap();
    assert_eq!(ok.model_ms(), 600_000);
    let p = plan(&loaded("work 30001\n"), 20).unwrap_err();
    assert_eq!(p.code, "loop::verify-too-long");
    assert_eq!(
        p.message,
        "one run of this file would last 10 min 0.02 s of real time at 20 ms per tick; `verify` runs files that last at most 10 min"
    );
    assert_eq!(p.span.text("work 30001\n"), "work 30001");
    assert_eq!(p.label, "busy until tick 30,001: 10 min 0.02 s into the run");
    assert_eq!(
        p.help.as_deref(),
        Some("use a smaller scale: `--scale 19` or less keeps one run of these 30,001 ticks within 10 min; or make the run shorter")
    );
}

/// A run that never ends is refused as such, not as one that would last
/// hours: its length is only where loopsim's turn limit stopped it.
#[test]
fn an_endless_run_is_refused_as_one_that_never_ends() {
    let src = "interval 1 \"x\"\n";
    let p = plan(&loaded(src), 20).unwrap_err();
    assert_eq!(p.code, "loop::verify-too-long");
    assert!(
        p.message.starts_with("this file's run never ends (loopsim's limit stops it "),
        "{}",
        p.message
    );
    assert!(p.message.ends_with("`verify` runs files that last at most 10 min"), "{}", p.message);
    assert_eq!(
        p.help.as_deref(),
        Some("bound each `interval` and `again` chain with `times N` (`loopsim run FILE` names the first that never ends)")
    );
    // A bounded chain too long for 10 min is told the scale that fits.
    let p = plan(&loaded("interval 1 \"x\" times 40000\n"), 20).unwrap_err();
    assert!(p.message.starts_with("one run of this file would last "), "{}", p.message);
}

#[test]
fn work_of_u64_max_ticks_is_refused_at_the_statement_not_run() {
    let src = "log \"start\"\nwork 18446744073709551615\nlog \"done\"\n";
    let p = plan(&loaded(src), 20).unwrap_err();
    assert_eq!(p.code, "loop::verify-too-long");
    assert_eq!(p.span.text(src), "work 18446744073709551615");
    assert!(
        p.message.starts_with("one run of this file would last 11,690,840,921 years"),
        "{}",
        p.message
    );
    assert_eq!(
        p.help.as_deref(),
        Some("even `--scale 1` makes one run of these 18,446,744,073,709,551,615 ticks last 584,542,046 years: make the run shorter (at most 600,000 ticks fit in 10 min at `--scale 1`)")
    );
    // At --scale 0 nothing takes time: accepted, with the bare margin as its limit.
    let zero = plan(&loaded(src), 0).unwrap();
    assert_eq!(zero.model_ticks, u64::MAX);
    assert_eq!(zero.limit(), LIMIT_MARGIN);
}

#[test]
fn a_late_callback_is_refused_at_its_statement_head() {
    let src = "immediate {\n  log \"x\"\n  timeout 40000 \"late\" {\n    log \"late\"\n  }\n}\n";
    let p = plan(&loaded(src), 20).unwrap_err();
    assert_eq!(p.span.text(src), "timeout 40000 \"late\"");
    assert_eq!(p.label, "runs at tick 40,000: 13 min 20 s into the run");
    // The same file fits at 10 ms per tick.
    assert_eq!(plan(&loaded(src), 10).unwrap().model_ms(), 400_010);
}

#[test]
fn work_in_a_then_link_is_found() {
    let src = "then \"a\" .then \"b\" {\n  work 40000\n}\n";
    let p = plan(&loaded(src), 20).unwrap_err();
    assert_eq!(p.span.text(src), "work 40000");
}

#[test]
fn human_durations() {
    assert_eq!(human(0), "0 s");
    assert_eq!(human(12_345), "12.345 s");
    assert_eq!(human(1_500), "1.5 s");
    assert_eq!(human(600_000), "10 min");
    assert_eq!(human(800_000), "13 min 20 s");
    assert_eq!(human(5 * 3_600_000 + 7 * 60_000), "5 h 7 min");
    assert_eq!(human(12 * 86_400_000), "12 days");
    assert_eq!(human(u128::from(u64::MAX)), "584,542,046 years");
    assert_eq!(human(u128::from(u64::MAX) * 20), "11,690,840,921 years");
}

#[test]
fn a_hung_run_is_reported_with_its_limit() {
    let report = FileReport {
        name: "f.loop".into(),
        seen: vec![Seen {
            run: Run {
                lines: vec!["a".into()],
                end: RunEnd::TimedOut(Duration::from_secs(20)),
            },
            count: 2,
            allowed: None,
        }],
        elapsed: Duration::from_secs(21),
        truncated: false,
        model: vec!["a".into()],
        model_ms: 0,
        scale: 20,
        sets_timer: true,
    };
    assert!(!report.ok());
    assert_eq!(
        report.render(),
        concat!(
            "f.loop: 2 runs in 21.0 s, 1 order, 2 runs hung\n",
            "      2 x  hung: killed after 20 s (its time limit: 2 x loopsim's 0 s + 20 s)\n",
            "           | a\n",
        )
    );
    // One run: no plural.
    let one = FileReport {
        seen: vec![Seen {
            count: 1,
            ..report.seen[0].clone()
        }],
        ..report
    };
    assert!(
        one.render().starts_with("f.loop: 1 run in 21.0 s, 1 order, 1 run hung\n"),
        "{}",
        one.render()
    );
}

/// An order loopsim does not allow, at a scale above 1, is told with the
/// one limit known there (a timer set a millisecond into a tick); at
/// `--scale 1` there is no such limit to name.
#[test]
fn a_run_not_allowed_above_scale_1_names_the_known_limit() {
    let report = FileReport {
        name: "f.loop".into(),
        seen: vec![Seen {
            run: Run {
                lines: vec!["a".into(), "ai".into(), "t".into()],
                end: RunEnd::Exited(0),
            },
            count: 5,
            allowed: None,
        }],
        elapsed: Duration::from_secs(2),
        truncated: false,
        model: vec!["a".into(), "t".into(), "ai".into()],
        model_ms: 40,
        scale: 20,
        sets_timer: true,
    };
    let text = report.render();
    assert!(text.starts_with("f.loop: 5 runs in 2.0 s, 1 order, 5 runs NOT ALLOWED\n"), "{text}");
    assert!(
        text.contains("  5 x  NOT ALLOWED: differs from loopsim's order at line 2\n"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "  note: at --scale 20 a timer set (or an interval re-armed) a millisecond into a tick falls due a \
             millisecond into a later one, where loopsim's whole ticks put it at a tick's start: an order that \
             differs only there is a known limit (README, \"Checking against real Node\"); `--scale 1` checks \
             the orders as loopsim means them\n"
        ),
        "{text}"
    );
    let at_1 = FileReport {
        scale: 1,
        ..report.clone()
    };
    assert!(!at_1.render().contains("note:"), "{}", at_1.render());
    // Nor for a file that sets no timer, nor for a crash (fresh-clone
    // helper 87: an `io` and a `submit` in another order, a ReferenceError).
    let no_timer = FileReport {
        sets_timer: false,
        ..report.clone()
    };
    assert!(!no_timer.render().contains("note:"), "{}", no_timer.render());
    let mut crash = report;
    crash.seen[0].run.end = RunEnd::Failed("exit status 1".into());
    assert!(!crash.render().contains("note:"), "{}", crash.render());
}

/// A private folder holding `script` as `run.sh`.
fn script(text: &str) -> (live::Folder, PathBuf) {
    let folder = live::Folder::new().unwrap();
    let path = folder.path().join("run.sh");
    std::fs::write(&path, text).unwrap();
    (folder, path)
}

/// Whether process `pid` is gone (or a zombie), waiting up to 10 s for a
/// killed process to finish dying.
fn gone(pid: &str) -> bool {
    for _ in 0..1000 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) if stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')) => return true,
            Ok(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    false
}

#[test]
fn a_run_past_its_limit_is_killed_with_what_it_started() {
    let (folder, path) = script("sleep 60 &\necho $! > grandchild.pid\necho started\nwait\n");
    let run = run_once("sh", &path, folder.path(), 0, Duration::from_secs(2), &[]);
    assert_eq!(run.end, RunEnd::TimedOut(Duration::from_secs(2)));
    assert_eq!(run.lines, ["started"]);
    let grandchild = std::fs::read_to_string(folder.path().join("grandchild.pid")).unwrap();
    assert!(gone(grandchild.trim()), "the program's own child {grandchild} was killed too");
    assert!(!folder.path().join("run0.out").exists(), "output files are removed");
}

#[test]
fn an_exit_code_counts_as_an_ending_only_where_an_order_ends_with_it() {
    let (folder, path) = script("echo sync\nexit 1\n");
    let run = run_once("sh", &path, folder.path(), 0, Duration::from_secs(60), &[1, 13]);
    assert_eq!(run.end, RunEnd::Exited(1));
    assert_eq!(run.lines, ["sync"]);
    let run = run_once("sh", &path, folder.path(), 0, Duration::from_secs(60), &[]);
    assert!(
        matches!(run.end, RunEnd::Failed(ref why) if why.starts_with("exit status: 1")),
        "{:?}",
        run.end
    );
    let run = run_once("sh", &path, folder.path(), 0, Duration::from_secs(60), &[13]);
    assert!(matches!(run.end, RunEnd::Failed(_)), "{:?}", run.end);
}

#[test]
fn a_finished_run_leaves_nothing_running() {
    let (folder, path) = script("sleep 60 &\necho $! > grandchild.pid\necho done\n");
    let run = run_once("sh", &path, folder.path(), 0, Duration::from_secs(60), &[]);
    assert_eq!(run.end, RunEnd::Exited(0));
    assert_eq!(run.lines, ["done"]);
    let grandchild = std::fs::read_to_string(folder.path().join("grandchild.pid")).unwrap();
    assert!(
        gone(grandchild.trim()),
        "the program's own child {grandchild} was killed when it ended"
    );
}

#[test]
fn output_files_never_follow_a_planted_symlink() {
    let (folder, path) = script("echo overwritten\n");
    let victim = folder.path().join("victim");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, folder.path().join("run0.out")).unwrap();
    let run = run_once("sh", &path, folder.path(), 0, Duration::from_secs(60), &[]);
    match &run.end {
        RunEnd::Failed(why) => assert!(why.starts_with("cannot create output files: "), "{why}"),
        end => panic!("{end:?}"),
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[test]
fn temporary_folders_are_private_random_new_and_removed() {
    let a = live::Folder::new().unwrap();
    let b = live::Folder::new().unwrap();
    let (pa, pb) = (a.path().to_path_buf(), b.path().to_path_buf());
    assert_ne!(pa, pb);
    assert_eq!(pa.parent(), Some(std::env::temp_dir().as_path()));
    let name = pa.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("loopsim-verify-"), "{name}");
    assert_eq!(name.len(), "loopsim-verify-".len() + 6, "a random part of 6 characters: {name}");
    let mode = std::fs::metadata(&pa).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert!(live::create_new(&pa.join("f")).is_ok());
    assert!(live::create_new(&pa.join("f")).is_err(), "never opens what is there");
    drop(a);
    drop(b);
    assert!(!pa.exists() && !pb.exists());
}

#[test]
fn the_profile_follows_node_version() {
    use crate::sched::NodeProfile;
    assert_eq!(profile_of("v20.20.2"), (NodeProfile::Node20, None));
    assert_eq!(profile_of("v22.21.0\n"), (NodeProfile::Node22, None));
    assert_eq!(profile_of("v24.11.1"), (NodeProfile::Node24, None));
    assert_eq!(profile_of("v26.12.1"), (NodeProfile::Node26, None));
    let (p, note) = profile_of("v25.1.0");
    assert_eq!(p, NodeProfile::Node24);
    assert_eq!(
        note.as_deref(),
        Some("loopsim has no profile of node v25.1.0: the orders are Node 24's")
    );
    assert_eq!(profile_of("v28.0.0").0, NodeProfile::Node26);
    assert_eq!(profile_of("v18.19.0").0, NodeProfile::Node20);
    assert_eq!(
        profile_of("v10.24.1").0,
        NodeProfile::Node20,
        "Node 10's profile is the model's drain only"
    );
    assert_eq!(profile_of("garbage").0, NodeProfile::Node20);
}
