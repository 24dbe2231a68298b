//! `loopsim verify`: run each file's emitted program ([`crate::emit`]) with
//! real `node`, many times, and check that every order of log lines Node
//! printed is one loopsim allows ([`crate::orders::all_orders`]).

use crate::emit::{self, EmitOptions};
use crate::interp;
use crate::load::Loaded;
use crate::orders::{self, Orders};
use crate::trace::{Ending, EventKind};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `verify`'s exit codes.
pub const EXIT_CODES: &str = "\
Exit codes:
  0  every order real Node printed is one loopsim allows
  1  some run printed an order loopsim does not allow, crashed, or did not finish
  2  the input is invalid (syntax or check errors, unreadable file), or `node` is missing";

/// Options of [`verify`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Runs per file.
    pub runs: u32,
    /// Milliseconds per tick.
    pub scale: u64,
    /// Runs at once (`None`: one per core, four per core for a program
    /// that mostly sleeps).
    pub jobs: Option<usize>,
    /// `node --version`, for the header.
    pub node: String,
}

/// Runs at once by default: one per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `node --version`, or why `node` cannot be run.
///
/// # Errors
/// A message for the user when `node` is not on `PATH` or does not run.
pub fn node_version() -> Result<String, String> {
    match Command::new("node").arg("--version").stdin(Stdio::null()).output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        Ok(o) => Err(format!(
            "`node --version` failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(
            "`node` was not found on PATH: `verify` runs each file's program with real Node.js (v20); install Node.js or put it on PATH"
                .into(),
        ),
        Err(e) => Err(format!("cannot run `node`: {e}")),
    }
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RunEnd {
    /// The program ended by itself.
    Finished,
    /// It stopped at loopsim's limit (exit code 3).
    Stopped,
    /// It failed: exit status and the end of its stderr.
    Failed(String),
    /// It was killed after this many seconds.
    TimedOut(u64),
}

/// What one run printed, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Run {
    pub lines: Vec<String>,
    pub end: RunEnd,
}

/// One distinct real order and what loopsim says of it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub run: Run,
    pub count: u32,
    /// `Some(race)` when loopsim allows it (`""`: its own order).
    pub allowed: Option<String>,
}

/// The result for one file.
#[derive(Debug, Clone)]
pub struct FileReport {
    pub name: String,
    /// Distinct real orders, most frequent first.
    pub seen: Vec<Seen>,
    pub elapsed: Duration,
    /// loopsim's search for orders was cut short.
    pub truncated: bool,
    /// loopsim's own order.
    pub model: Vec<String>,
}

impl FileReport {
    /// Every real order is one loopsim allows.
    pub fn ok(&self) -> bool {
        self.seen.iter().all(|s| s.allowed.is_some())
    }

    /// The report as text.
    pub fn render(&self) -> String {
        let runs: u32 = self.seen.iter().map(|s| s.count).sum();
        let bad: u32 = self.seen.iter().filter(|s| s.allowed.is_none()).map(|s| s.count).sum();
        let orders = match self.seen.len() {
            1 => "1 order".to_string(),
            n => format!("{n} orders"),
        };
        let verdict = if bad == 0 {
            "all allowed".to_string()
        } else {
            format!("{bad} run(s) NOT ALLOWED")
        };
        let mut out = format!(
            "{}: {runs} runs in {:.1} s, {orders}, {verdict}\n",
            self.name,
            self.elapsed.as_secs_f64()
        );
        let show_lines = self.seen.len() > 1 || bad > 0;
        for seen in &self.seen {
            let what = match (&seen.allowed, &seen.run.end) {
                (Some(race), _) if race.is_empty() => "allowed: loopsim's own order".to_string(),
                (Some(race), _) => format!("allowed: {race}"),
                (None, RunEnd::Failed(why)) => format!("NOT ALLOWED: the program failed ({why})"),
                (None, RunEnd::TimedOut(s)) => format!("NOT ALLOWED: killed after {s} s without finishing"),
                (None, _) => {
                    let mut why = match first_difference(&seen.run.lines, &self.model) {
                        Some(line) => format!("NOT ALLOWED: differs from loopsim's order at line {line}"),
                        None => "NOT ALLOWED".to_string(),
                    };
                    if self.truncated {
                        why.push_str(" (loopsim's search for orders was cut short: it may still be possible)");
                    }
                    why
                }
            };
            let stopped = if seen.run.end == RunEnd::Stopped {
                ", stopped at the limit"
            } else {
                ""
            };
            out.push_str(&format!("  {:>5} x  {what}{stopped}\n", seen.count));
            if show_lines {
                let focus = match seen.allowed {
                    Some(_) => None,
                    None => first_difference(&seen.run.lines, &self.model),
                };
                out.push_str(&lines_excerpt(&seen.run.lines, focus));
            }
        }
        out
    }
}

/// The first line (1-based) where `a` and `b` differ.
fn first_difference(a: &[String], b: &[String]) -> Option<usize> {
    let n = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    (n < a.len().max(b.len())).then_some(n + 1)
}

/// Up to a dozen of `lines`, from the start or around `focus` (1-based,
/// marked `>`: where the order leaves loopsim's).
fn lines_excerpt(lines: &[String], focus: Option<usize>) -> String {
    const SHOW: usize = 12;
    let mut out = String::new();
    if lines.is_empty() {
        out.push_str("           (no lines)\n");
    }
    let start = focus.map_or(0, |f| f.saturating_sub(4)).min(lines.len());
    if start > 0 {
        out.push_str(&format!("           … {start} earlier lines\n"));
    }
    for (i, line) in lines.iter().enumerate().skip(start).take(SHOW) {
        let mark = if focus == Some(i + 1) { '>' } else { '|' };
        out.push_str(&format!("           {mark} {line}\n"));
    }
    let shown = start + SHOW;
    if lines.len() > shown {
        out.push_str(&format!("           … {} more lines\n", lines.len() - shown));
    }
    out
}

/// Verifies every file, printing a report per file and a summary; true when
/// every real order is allowed.
pub fn verify(files: &[Loaded], opts: &Options) -> bool {
    let total = files.len() as u64 * u64::from(opts.runs);
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total), target);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} runs, {elapsed}  {wide_msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    println!(
        "verify: node {}, {} runs per file, {} ms per tick, {} at once",
        opts.node,
        opts.runs,
        opts.scale,
        opts.jobs.map_or_else(
            || format!("{} (x4 for programs that mostly sleep)", default_jobs()),
            |j| j.to_string()
        )
    );
    let (mut ok, mut bad) = (0, 0);
    for loaded in files {
        bar.set_message(crate::term::escape(&loaded.name).into_owned());
        let report = verify_file(loaded, opts, &bar);
        // What node printed and the file's texts may hold control characters: shown escaped.
        bar.suspend(|| print!("{}", crate::term::escape_lines(&report.render())));
        if report.ok() {
            ok += 1;
        } else {
            bad += 1;
        }
    }
    bar.finish_and_clear();
    println!(
        "verified {} file(s): {ok} all allowed, {bad} with orders loopsim does not allow",
        files.len()
    );
    bad == 0
}

/// Runs one file's program `opts.runs` times and compares what it printed
/// with the orders loopsim allows.
pub fn verify_file(loaded: &Loaded, opts: &Options, bar: &ProgressBar) -> FileReport {
    let start = Instant::now();
    let run_opts = emit::run_options();
    let program = emit::emit(
        &loaded.file,
        &loaded.src,
        &EmitOptions {
            scale: opts.scale,
            name: loaded.name.clone(),
        },
    );
    let orders = orders::all_orders(&loaded.file, &loaded.src, run_opts);
    let model = interp::run(&loaded.file, &loaded.src, "", interp::RunOptions { verbose: true, ..run_opts });
    let model_ticks = match &model.ending {
        Ending::Finished { ticks, .. } => *ticks,
        Ending::Limit(hit) => hit.tick,
    };
    let work_ticks = model.events.iter().fold(0u64, |sum, e| match e.kind {
        EventKind::Work { ticks, .. } => sum.saturating_add(ticks),
        _ => sum,
    });
    // A program that mostly sleeps (waiting for timers, pool jobs, I/O) leaves the
    // cores free: run more of them at once, unless --jobs says how many.
    let jobs = match opts.jobs {
        Some(j) => j,
        None if work_ticks.saturating_mul(10) <= model_ticks && model_ticks.saturating_mul(opts.scale) >= 1000 => 4 * default_jobs(),
        None => default_jobs(),
    };
    // Generous: a loaded machine, startup, and runs that stop at a limit.
    let limit = Duration::from_millis(model_ticks.saturating_mul(opts.scale).saturating_mul(3)) + Duration::from_secs(60);
    let runs = run_program(&program, opts.runs, jobs, limit, bar);
    let mut seen: Vec<Seen> = Vec::new();
    for run in runs {
        match seen.iter_mut().find(|s| s.run == run) {
            Some(s) => s.count += 1,
            None => {
                let allowed = allowed(&run, &orders);
                seen.push(Seen { run, count: 1, allowed });
            }
        }
    }
    seen.sort_by_key(|s| std::cmp::Reverse(s.count));
    FileReport {
        name: loaded.name.clone(),
        seen,
        elapsed: start.elapsed(),
        truncated: orders.truncated,
        model: orders.orders.first().map(|o| flatten(&o.logs)).unwrap_or_default(),
    }
}

/// The race that gives `run`'s order, if loopsim allows it.
fn allowed(run: &Run, orders: &Orders) -> Option<String> {
    let stopped = match run.end {
        RunEnd::Finished => false,
        RunEnd::Stopped => true,
        RunEnd::Failed(_) | RunEnd::TimedOut(_) => return None,
    };
    orders
        .orders
        .iter()
        .find(|o| o.stopped == stopped && flatten(&o.logs) == run.lines)
        .map(|o| o.race.clone())
}

/// Log texts as the lines `console.log` prints.
fn flatten(logs: &[String]) -> Vec<String> {
    logs.iter().flat_map(|t| t.split('\n')).map(str::to_string).collect()
}

/// Runs the program `opts.runs` times, `opts.jobs` at once.
fn run_program(program: &emit::Program, runs: u32, jobs: usize, limit: Duration, bar: &ProgressBar) -> Vec<Run> {
    static DIRS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "loopsim-verify-{}-{}",
        std::process::id(),
        DIRS.fetch_add(1, Ordering::SeqCst)
    ));
    let prepared = std::fs::create_dir_all(&dir).and_then(|()| {
        let path = dir.join(format!("program.{}", program.extension()));
        std::fs::write(&path, &program.js).map(|()| path)
    });
    let path = match prepared {
        Ok(p) => p,
        Err(e) => {
            let run = Run {
                lines: Vec::new(),
                end: RunEnd::Failed(format!("cannot write the program to {}: {e}", dir.display())),
            };
            bar.inc(u64::from(runs));
            return vec![run; runs as usize];
        }
    };
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, runs as usize) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= runs as usize {
                    break;
                }
                let run = run_once(&path, &dir, i, limit);
                done.lock().expect("no panics while locked").push(run);
                bar.inc(1);
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    done.into_inner().expect("no panics while locked")
}

/// One run of the program, its output in files (not pipes: no pipe-buffer
/// stalls), killed after `limit`.
fn run_once(program: &Path, dir: &Path, i: usize, limit: Duration) -> Run {
    let out_path: PathBuf = dir.join(format!("run{i}.out"));
    let err_path: PathBuf = dir.join(format!("run{i}.err"));
    let failed = |why: String| Run {
        lines: Vec::new(),
        end: RunEnd::Failed(why),
    };
    let (out, err) = match (std::fs::File::create(&out_path), std::fs::File::create(&err_path)) {
        (Ok(o), Ok(e)) => (o, e),
        (Err(e), _) | (_, Err(e)) => return failed(format!("cannot create output files: {e}")),
    };
    let child = Command::new("node")
        .arg(program)
        .current_dir(dir)
        .env("TMPDIR", dir) // the program's named pipes go here, removed with it
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return failed(format!("cannot start node: {e}")),
    };
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return failed(format!("cannot wait for node: {e}")),
        }
    };
    let stdout = std::fs::read(&out_path).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned();
    let _ = std::fs::remove_file(&out_path);
    let _ = std::fs::remove_file(&err_path);
    let text = String::from_utf8_lossy(&stdout);
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let end = match status {
        None => RunEnd::TimedOut(limit.as_secs()),
        Some(s) if s.success() => RunEnd::Finished,
        Some(s) if s.code() == Some(3) && stderr.contains("loopsim: stopped") => RunEnd::Stopped,
        Some(s) => {
            let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = tail[tail.len().saturating_sub(3)..].join(" / ");
            RunEnd::Failed(format!("{s}: {tail}"))
        }
    };
    Run { lines, end }
}
