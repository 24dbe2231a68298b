//! With real `node` (`cargo test --features real-node --test promise_random`):
//! random promise programs (tests/common/promise_gen.rs, seeds 0 to N−1)
//! print, on node, exactly the lines loopsim's model prints for them, in the
//! same order, and node exits with the code the model's run ends with (1 after
//! an unhandled rejection, 0 otherwise).
//!
//! And the reduced cases of the bugs this comparison found
//! (tests/promises/regressions/) print their `expect` block on node.
//!
//! Environment:
//! - `LOOPSIM_NODE`: the node binary (default `node`): meant to pass on Node 20
//!   and on the newest Node;
//! - `LOOPSIM_RANDOM_PROGRAMS`: how many seeds (default 300, the CI sample);
//!   `LOOPSIM_RANDOM_AGAIN_PROGRAMS`: how many of the family with `again` in
//!   links (`promise_gen::program_with_again`; default 100);
//!   `LOOPSIM_RANDOM_FIRST`: the first seed (default 0);
//! - `LOOPSIM_RANDOM_WORKERS`: node processes at once (default 2);
//! - `LOOPSIM_RANDOM_SCALE`: milliseconds per tick (default emit-js's, 20);
//! - `LOOPSIM_RANDOM_KEEP`: a folder to write each disagreeing program to
//!   (`seed-N.loop` and its JavaScript).

#[path = "common/promise_gen.rs"]
mod promise_gen;

mod common;

use loopsim::emit::{self, EmitOptions};
use loopsim::interp;
use loopsim::syntax::ast::ExpectEnding;
use loopsim::trace::Ending;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A program that runs longer than this on node is a failure (the longest
/// generated program waits 80 ticks: 1.6 s at 20 ms a tick).
const DEADLINE: Duration = Duration::from_secs(60);

fn node() -> String {
    std::env::var("LOOPSIM_NODE").unwrap_or_else(|_| "node".into())
}

fn env_number(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn node_version() -> String {
    let out = Command::new(node())
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("this suite needs `{}` (LOOPSIM_NODE): {e}", node()));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A program, what loopsim's model prints for it, and its JavaScript.
struct Case {
    name: String,
    text: String,
    js: String,
    file: PathBuf,
    lines: Vec<String>,
    code: i32,
}

/// What node did.
struct Ran {
    lines: Vec<String>,
    code: Option<i32>,
    stderr: String,
    timed_out: bool,
}

/// Loads `text`, runs the model (its log lines, and the exit code its run
/// ends the process with) and emits the program into `dir`.
fn prepare(name: &str, text: &str, dir: &Path, scale: u64) -> Case {
    let loaded = loopsim::load::load_bytes(name, text.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e:?}\n{text}"));
    let trace = interp::run(&loaded.file, &loaded.src, "", emit::run_options());
    let code = match trace.ending {
        Ending::Finished { .. } => 0,
        Ending::Unhandled { code, .. } => code,
        Ending::Unsettled { .. } => 13,
        Ending::Limit(hit) => panic!("{name}: the model stopped at a limit ({hit:?})\n{text}"),
    };
    let lines = trace.logs().map(|(_, t)| t.to_string()).collect();
    let opts = EmitOptions {
        scale,
        name: name.to_string(),
    };
    let program = emit::emit(&loaded.file, &loaded.src, &opts).unwrap_or_else(|p| panic!("{name}: {p:?}"));
    let file = dir.join(format!("{}.{}", name.trim_end_matches(".loop"), program.extension()));
    std::fs::write(&file, &program.js).unwrap();
    Case {
        name: name.to_string(),
        text: text.to_string(),
        js: program.js,
        file,
        lines,
        code,
    }
}

/// Runs `file` with node in `dir`, killed past [`DEADLINE`].
fn run_node(file: &Path, dir: &Path) -> Ran {
    let mut child = Command::new(node())
        .arg(file)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start `{}`: {e}", node()));
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (Some(status), false);
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ran {
        lines: stdout.join().unwrap().lines().map(str::to_string).collect(),
        code: status.and_then(|s| s.code()),
        stderr: stderr.join().unwrap(),
        timed_out,
    }
}

/// Runs every case on node, `workers` at a time; each case's result, in order.
fn run_all(cases: &[Case], dir: &Path) -> Vec<Ran> {
    let workers = env_number("LOOPSIM_RANDOM_WORKERS", 2).max(1);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Ran>>> = Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let ran = run_node(&case.file, dir);
                results.lock().unwrap()[i] = Some(ran);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every case ran"))
        .collect()
}

/// The report of a case node disagrees on, or `None`.
fn disagreement(case: &Case, ran: &Ran) -> Option<String> {
    if !ran.timed_out && ran.lines == case.lines && ran.code == Some(case.code) {
        return None;
    }
    let what = if ran.timed_out {
        format!("node did not end in {DEADLINE:?}")
    } else if ran.lines != case.lines {
        "node printed other lines".to_string()
    } else {
        format!("node exited with {:?}, the model with {}", ran.code, case.code)
    };
    Some(format!(
        "==== {}: {what}\n---- the .loop file:\n{}---- the JavaScript:\n{}---- loopsim's lines (exit {}):\n{}\n---- node's lines (exit {:?}):\n{}\n---- node's stderr:\n{}",
        case.name,
        case.text,
        case.js,
        case.code,
        case.lines.join("\n"),
        ran.code,
        ran.lines.join("\n"),
        ran.stderr.lines().take(20).collect::<Vec<_>>().join("\n"),
    ))
}

#[test]
fn random_promise_programs_print_what_the_model_prints() {
    let count = env_number("LOOPSIM_RANDOM_PROGRAMS", 300);
    compare_family("seed", promise_gen::program, count);
}

/// The family whose links may run again (`times N` and `again`): each run
/// of such a link is alone, one hop after the one before.
#[test]
fn random_programs_with_again_in_links_print_what_the_model_prints() {
    let count = env_number("LOOPSIM_RANDOM_AGAIN_PROGRAMS", 100);
    compare_family("again", promise_gen::program_with_again, count);
}

/// Compares `count` programs that `make` writes (files `{prefix}-{seed}.loop`)
/// with node.
fn compare_family(prefix: &str, make: fn(u64) -> String, count: u64) {
    let version = node_version();
    let first = env_number("LOOPSIM_RANDOM_FIRST", 0);
    let scale = env_number("LOOPSIM_RANDOM_SCALE", emit::DEFAULT_SCALE);
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let cases: Vec<Case> = (first..first + count)
        .map(|seed| prepare(&format!("{prefix}-{seed}.loop"), &make(seed), dir.path(), scale))
        .collect();
    let results = run_all(&cases, dir.path());
    let mut failed = Vec::new();
    let mut unhandled = 0;
    for (case, ran) in cases.iter().zip(&results) {
        unhandled += usize::from(case.code == 1);
        if let Some(report) = disagreement(case, ran) {
            if failed.len() < 5 {
                eprintln!("{report}\n");
            }
            if let Some(keep) = std::env::var_os("LOOPSIM_RANDOM_KEEP") {
                let keep = Path::new(&keep);
                std::fs::create_dir_all(keep).unwrap();
                std::fs::write(keep.join(&case.name), &case.text).unwrap();
                std::fs::write(keep.join(case.file.file_name().unwrap()), &case.js).unwrap();
                std::fs::write(keep.join(format!("{}.report", case.name)), &report).unwrap();
            }
            failed.push(case.name.clone());
        }
    }
    let lines: usize = cases.iter().map(|c| c.lines.len()).sum();
    println!(
        "node {version}: {prefix} {first} to {}: {} of {count} programs agree ({lines} lines; {unhandled} end by an unhandled rejection) in {:.1?}",
        first + count - 1,
        count as usize - failed.len(),
        start.elapsed()
    );
    assert!(
        failed.is_empty(),
        "node {version} disagrees with loopsim on {} of {count} programs: {}",
        failed.len(),
        failed.join(" ")
    );
}

#[test]
fn each_regression_prints_its_expected_order_on_node() {
    let version = node_version();
    let dir = tempfile::tempdir().unwrap();
    let files = common::loop_files_in("tests/promises/regressions");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let case = prepare(&name, &text, dir.path(), emit::DEFAULT_SCALE);
        let loaded = loopsim::load::load(path).unwrap();
        let expect = loaded.file.expect.as_ref().unwrap_or_else(|| panic!("{name} has an expect block"));
        let want: Vec<String> = expect.lines.iter().map(|l| l.text.clone()).collect();
        let code = match expect.ending.map(|e| e.value) {
            Some(ExpectEnding::Unhandled) => 1,
            Some(ExpectEnding::Unsettled) => 13,
            None => 0,
        };
        let ran = run_node(&case.file, dir.path());
        if ran.lines != want || ran.code != Some(code) {
            failures.push(format!(
                "{name}: node {version} printed {:#?} (exit {:?}), the expect block says {want:#?} (exit {code})",
                ran.lines, ran.code
            ));
        }
    }
    println!("node {version}: {} regression files", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
