//! The real-node suite (`cargo test --features real-node`): every example
//! and conformance case runs with real `node` (`loopsim verify`), and every
//! order Node prints must be one loopsim allows (`run --all-orders`: racy
//! files are found by the search, never listed by hand).
//!
//! It must pass on a machine whose cores are busy: one tick is 20 ms (far
//! longer than a loaded machine's hiccups), and a file that disagrees is
//! verified once more, which the output reports. `node` missing is a failure.
//!
//! `LOOPSIM_DIFF_RUNS` (default 5) runs per file; `LOOPSIM_DIFF_SCALE`
//! (default 20) milliseconds per tick.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};

mod common;
use common::loop_files;

fn require_node() {
    let ok = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(ok, "the real-node suite needs `node` on PATH (it is a failure, not a skip)");
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn verify(files: &[PathBuf], runs: u64) -> Output {
    let scale = env_number("LOOPSIM_DIFF_SCALE", 20).to_string();
    Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["verify", "--runs", &runs.to_string(), "--scale", &scale])
        .args(files)
        .output()
        .unwrap()
}

/// The files a verify report says real Node printed a disallowed order for.
fn disagreeing(stdout: &str) -> Vec<PathBuf> {
    stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains(" runs in ") && !l.ends_with("all allowed"))
        .filter_map(|l| l.rsplit_once(": ").map(|(name, _)| PathBuf::from(name)))
        .collect()
}

/// Verifies `files`; a file that disagrees is verified once more, and the
/// suite fails only if it disagrees again. Returns the report.
fn verify_with_one_rerun(files: &[PathBuf], runs: u64) -> String {
    let out = verify(files, runs);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    if out.status.code() == Some(0) {
        return stdout;
    }
    let again = disagreeing(&stdout);
    assert!(
        !again.is_empty(),
        "verify failed without a disagreeing file:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("re-running {} file(s) that disagreed once: {again:?}", again.len());
    let second = verify(&again, runs);
    let report = String::from_utf8_lossy(&second.stdout);
    assert_eq!(
        second.status.code(),
        Some(0),
        "real Node printed orders loopsim does not allow, twice:\n{report}\n{}",
        String::from_utf8_lossy(&second.stderr)
    );
    println!("re-run passed: {again:?} agreed the second time\n{report}");
    stdout
}

#[test]
fn every_order_real_node_prints_is_allowed() {
    require_node();
    let mut files = Vec::new();
    loop_files(Path::new("examples"), &mut files);
    loop_files(Path::new("tests/conformance"), &mut files);
    assert!(files.len() >= 38, "every example and conformance case: {files:?}");
    verify_with_one_rerun(&files, env_number("LOOPSIM_DIFF_RUNS", 5));
}

/// Two threads spin on both cores while real `node` runs a sample of the
/// examples (timers, the thread pool, io, starvation): the suite's scale
/// keeps the orders what loopsim allows on a loaded machine.
#[test]
fn real_node_agrees_with_both_cores_busy() {
    require_node();
    let files: Vec<PathBuf> = [
        "examples/phases/p01-read-callback-schedules-three.loop",
        "examples/phases/p03-tick-between-two-timers.loop",
        "examples/thread-pool/p12-avatar-answers-last.loop",
        "examples/timers/p13-long-report-delays-later-timers.loop",
        "examples/timers/p18-timer-100-runs-at-105.loop",
        "examples/real-node/p19-immediate-before-timeout-in-io.loop",
        "tests/conformance/22-threadpool-size-5.loop",
    ]
    .map(PathBuf::from)
    .to_vec();
    let stop = AtomicBool::new(false);
    let report = std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            });
        }
        let report = verify_with_one_rerun(&files, 3);
        stop.store(true, Ordering::Relaxed);
        report
    });
    let verified = format!("verified {}", loopsim::term::counted(files.len() as u64, "file"));
    assert!(report.contains(&verified), "{report}");
}

#[test]
fn verify_with_real_node() {
    require_node();
    let src =
        "timeout 1 \"timer\"\nimmediate \"immediate\" { nextTick \"tick\" then \"promise\" }\nio \"bytes\" after 2\nsubmit \"job\" 3\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file.loop"), src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["verify", "--runs", "4"])
        .arg(dir.path().join("file.loop"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("4 runs in"), "{stdout}");
}
