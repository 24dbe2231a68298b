//! No input panics: every `.loop` file of the repository (examples, every
//! file under `tests/`, `tests/hostile/`'s extreme numbers, and `fuzz/`'s
//! checked-in files), extreme numbers on the command line, and a few hundred
//! random programs, all through the debug binary (`overflow-checks` on), with
//! the commands that reach the most code. Each run must end with a documented
//! exit code (0 to 3: never 101, a panic) and print no "panicked" on stderr.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Small limits keep a debug run of a runaway file quick; the search of
/// `--all-orders` replays each schedule under them too.
const LIMITS: [&str; 4] = ["--max-turns", "100", "--max-callbacks", "500"];

/// `--all-orders`, its search cut at 100 schedules.
const ALL_ORDERS: &[&str] = &["run", "--all-orders", "--max-schedules", "100"];

/// The commands each file goes through.
const COMMANDS: [&[&str]; 4] = [&["run"], &["run", "--explain"], ALL_ORDERS, &["run", "--format", "svg"]];

/// One command may take this long before it counts as a hang.
const DEADLINE: Duration = Duration::from_secs(60);

/// How one command ended.
struct Ended {
    code: Option<i32>,
    stderr: String,
    timed_out: bool,
}

/// Runs the debug binary with `args`, its stdout discarded, and kills it past [`DEADLINE`].
fn loopsim(args: &[String]) -> Ended {
    let mut child = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start loopsim");
    let mut pipe = child.stderr.take().expect("stderr piped");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = pipe.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let start = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("wait for loopsim") {
            break (Some(status), false);
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Ended {
        code: status.and_then(|s| s.code()),
        stderr: reader.join().expect("stderr reader"),
        timed_out,
    }
}

/// `None` when the run ended well; otherwise what went wrong.
fn fault(args: &[String]) -> Option<String> {
    let ended = loopsim(args);
    let panicked = ended.stderr.contains("panicked");
    let documented = matches!(ended.code, Some(0..=3));
    if ended.timed_out {
        Some(format!("loopsim {}: still running after {DEADLINE:?}", args.join(" ")))
    } else if panicked || !documented {
        let excerpt: String = ended.stderr.lines().take(6).collect::<Vec<_>>().join("\n    ");
        Some(format!("loopsim {}: exit {:?}\n    {excerpt}", args.join(" "), ended.code))
    } else {
        None
    }
}

/// Runs every job on as many threads as there are cores; returns each job
/// that went wrong, with what went wrong.
fn sweep(jobs: Vec<Vec<String>>) -> Vec<(Vec<String>, String)> {
    let next = AtomicUsize::new(0);
    let faults = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                if let Some(f) = fault(job) {
                    faults.lock().unwrap().push((job.clone(), f));
                }
            });
        }
    });
    let mut faults = faults.into_inner().unwrap();
    faults.sort();
    faults
}

fn assert_none_went_wrong(faults: Vec<(Vec<String>, String)>) {
    let faults: Vec<String> = faults.into_iter().map(|(_, f)| f).collect();
    assert!(faults.is_empty(), "{} runs went wrong:\n{}", faults.len(), faults.join("\n"));
}

/// `args`, then the limits, then the file.
fn job(args: &[&str], file: &Path) -> Vec<String> {
    let mut job: Vec<String> = args.iter().chain(&LIMITS).map(|s| s.to_string()).collect();
    job.push(file.display().to_string());
    job
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every checked-in `.loop` file: `examples/`, `tests/` and `fuzz/` (not the
/// fuzzer's own git-ignored corpora and crashes).
fn repository_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    common::loop_files(&root().join("examples"), &mut files);
    common::loop_files(&root().join("tests"), &mut files);
    let ignored = ["corpus", "artifacts", "target", "coverage"];
    if let Ok(entries) = std::fs::read_dir(root().join("fuzz")) {
        let mut dirs: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        dirs.sort();
        for dir in dirs {
            if !ignored.iter().any(|i| dir.file_name().is_some_and(|n| n == *i)) {
                common::loop_files(&dir, &mut files);
            }
        }
    }
    files
}

#[test]
fn no_loop_file_of_the_repository_panics_in_a_debug_build() {
    let files = repository_files();
    let hostile = files
        .iter()
        .filter(|f| f.parent().is_some_and(|d| d.ends_with("tests/hostile")))
        .count();
    assert!(hostile >= 90, "tests/hostile holds {hostile} files: run tests/hostile/generate.py");
    assert!(files.len() >= 150, "only {} .loop files found", files.len());
    let jobs: Vec<Vec<String>> = files.iter().flat_map(|f| COMMANDS.iter().map(move |c| job(c, f))).collect();
    assert_none_went_wrong(sweep(jobs));
}

#[test]
fn extreme_numbers_on_the_command_line_never_panic() {
    let files = [
        root().join("examples/phases/p06-main-module-timeout-vs-immediate.loop"),
        root().join("examples/thread-pool/p08-eight-jobs-two-waves.loop"),
        root().join("tests/regressions/clock-saturated-timer-runs.loop"),
    ];
    let values = [
        "0",
        "1",
        "2147483647",
        "4294967296",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
    ];
    let mut jobs = Vec::new();
    for file in &files {
        for flag in ["--max-turns", "--max-callbacks", "--pool"] {
            for value in values {
                for command in [&["run"][..], &["run", "--explain"], ALL_ORDERS, &["check"]] {
                    let mut job: Vec<String> = command.iter().map(|s| s.to_string()).collect();
                    job.extend([flag.to_string(), value.to_string(), file.display().to_string()]);
                    jobs.push(job);
                }
            }
        }
    }
    assert_none_went_wrong(sweep(jobs));
}

/// Numbers a random program uses: small ones, where orders race, and the
/// extremes, where arithmetic overflows.
const NUMBERS: [u64; 12] = [0, 1, 2, 3, 5, 100, (1 << 31) - 1, 1 << 31, 1 << 32, 1 << 63, u64::MAX - 1, u64::MAX];

/// Writes random, mostly valid `.loop` programs.
struct Gen {
    rng: fastrand::Rng,
    out: String,
}

impl Gen {
    fn number(&mut self) -> u64 {
        NUMBERS[self.rng.usize(..NUMBERS.len())]
    }

    fn label(&mut self, in_repeat: bool) -> &'static str {
        let labels: &[&'static str] = if in_repeat {
            &["\"a\"", "\"b\"", "\"c\"", "\"r{i}\""]
        } else {
            &["\"a\"", "\"b\"", "\"c\""]
        };
        labels[self.rng.usize(..labels.len())]
    }

    fn line(&mut self, depth: usize, text: &str) {
        self.out.push_str(&"  ".repeat(depth));
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A callback's optional label and `times`.
    fn rest(&mut self, in_repeat: bool) -> String {
        let mut s = String::new();
        if self.rng.bool() {
            s.push(' ');
            s.push_str(self.label(in_repeat));
        }
        if self.rng.u8(..4) == 0 {
            let n = self.number().max(1);
            s.push_str(&format!(" times {n}"));
        }
        s
    }

    /// Sometimes a body for the callback on the line just written; `again`
    /// is allowed in it unless it is an interval's.
    fn body(&mut self, depth: usize, in_repeat: bool, may_again: bool) {
        if depth < 3 && self.rng.bool() {
            self.out.pop();
            self.out.push_str(" {\n");
            self.block(depth + 1, in_repeat, may_again);
            self.line(depth, "}");
        }
    }

    fn block(&mut self, depth: usize, in_repeat: bool, in_callback: bool) {
        for _ in 0..self.rng.usize(1..=4) {
            self.statement(depth, in_repeat, in_callback);
        }
    }

    fn statement(&mut self, depth: usize, in_repeat: bool, in_callback: bool) {
        let n = self.number();
        match self.rng.u8(..16) {
            0 => self.line(depth, "log \"x\""),
            1 | 2 => {
                let rest = self.rest(in_repeat);
                self.line(depth, &format!("timeout {n}{rest}"));
                self.body(depth, in_repeat, true);
            }
            3 => {
                let label = self.label(in_repeat);
                let times = self.rng.usize(1..=3);
                self.line(depth, &format!("interval {n} {label} times {times}"));
                self.body(depth, in_repeat, false);
            }
            4 | 5 => {
                let rest = self.rest(in_repeat);
                self.line(depth, &format!("immediate{rest}"));
                self.body(depth, in_repeat, true);
            }
            6 => {
                let rest = self.rest(in_repeat);
                self.line(depth, &format!("nextTick{rest}"));
                self.body(depth, in_repeat, true);
            }
            7 => {
                let rest = self.rest(in_repeat);
                self.line(depth, &format!("then{rest}"));
                self.body(depth, in_repeat, true);
                if self.rng.bool() {
                    let rest = self.rest(in_repeat);
                    self.line(depth, &format!(".then{rest}"));
                }
            }
            8 => {
                let label = self.label(in_repeat);
                self.line(depth, &format!("io {label} after {n}"));
                self.body(depth, in_repeat, true);
            }
            9 | 10 => {
                let label = self.label(in_repeat);
                self.line(depth, &format!("submit {label} {n}"));
                self.body(depth, in_repeat, true);
            }
            11 => {
                let rest = self.rest(in_repeat);
                let kind = if self.rng.bool() { "pending" } else { "close" };
                self.line(depth, &format!("{kind}{rest}"));
                self.body(depth, in_repeat, true);
            }
            12 => self.line(depth, &format!("work {n}")),
            13 => {
                let label = self.label(false);
                self.line(depth, &format!("clear {label}"));
            }
            14 if depth < 3 => {
                let count = if self.rng.bool() { n.min(3) } else { n };
                self.line(depth, &format!("repeat {count} {{"));
                self.block(depth + 1, true, in_callback);
                self.line(depth, "}");
            }
            _ if in_callback => self.line(depth, "again"),
            _ => self.line(depth, "microtask \"m\""),
        }
    }

    /// A whole program: directives, statements, and sometimes a prediction.
    fn program(&mut self) -> String {
        self.out.clear();
        if self.rng.u8(..4) == 0 {
            let pool = [1, 2, 4, 1024][self.rng.usize(..4)];
            self.line(0, &format!("pool {pool}"));
        }
        if self.rng.u8(..4) == 0 {
            self.line(0, "module esm");
        }
        self.block(0, false, false);
        if self.rng.u8(..4) == 0 {
            let (turn, at) = (self.number(), self.number());
            self.line(0, &format!("expect {{\n  turn {turn} at {at} \"a\"\n  \"b\"\n}}"));
            if self.rng.bool() {
                self.line(0, "or {\n  \"b\"\n  limit turns\n}");
            }
        }
        std::mem::take(&mut self.out)
    }
}

/// How many random programs [`random_programs_never_panic`] runs.
const RANDOM_PROGRAMS: usize = 300;

#[test]
fn random_programs_never_panic() {
    let dir = std::env::temp_dir().join(format!("loopsim-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut gen = Gen {
        rng: fastrand::Rng::with_seed(0x5eed),
        out: String::new(),
    };
    let mut jobs = Vec::new();
    for i in 0..RANDOM_PROGRAMS {
        let path = dir.join(format!("random-{i:03}.loop"));
        std::fs::write(&path, gen.program()).unwrap();
        jobs.push(job(ALL_ORDERS, &path));
        jobs.push(job(&["run", "--explain"], &path));
    }
    let report: Vec<String> = sweep(jobs)
        .into_iter()
        .map(|(job, f)| {
            let text = job.last().and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default();
            format!("{f}\n--- the program:\n{text}")
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(report.is_empty(), "{} runs went wrong:\n{}", report.len(), report.join("\n"));
}
