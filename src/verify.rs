//! `loopsim verify`: run each file's emitted program ([`crate::emit`]) with
//! real `node`, many times, and check that every order of log lines Node
//! printed is one loopsim allows ([`crate::orders::all_orders`]).
//!
//! Safety: a file whose run would last longer than [`MAX_RUN`] at the chosen
//! scale is refused before anything runs ([`plan`]); each run is killed at its
//! time limit ([`time_limit`]); programs run in process groups of their own and
//! temporary folders are private and removed, also on Ctrl-C ([`live`]).

pub mod live;

use crate::emit;
use crate::interp;
use crate::load::Loaded;
use crate::orders::{self, End, Orders};
use crate::problem::{Diag, Problem};
use crate::render::thousands;
use crate::sched::LimitKind;
use crate::syntax::ast::{Callback, Link, Span, Stmt, StmtKind};
use crate::term::counted;
use crate::trace::{Ending, EventKind, Trace};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `verify`'s exit codes.
pub use crate::cli::VERIFY_EXIT_CODES as EXIT_CODES;

/// The longest one run of a file may last at the chosen `--scale` (loopsim's
/// run of it, in ticks, times milliseconds per tick): 10 minutes. A longer
/// file is refused before anything runs.
pub const MAX_RUN: Duration = Duration::from_secs(10 * 60);

/// A run is killed after [`LIMIT_FACTOR`] times the file's own length (ticks ×
/// scale) plus [`LIMIT_MARGIN`] (see [`time_limit`]).
pub const LIMIT_FACTOR: u32 = 2;

/// The fixed part of a run's time limit: 20 s, for Node's startup and
/// callbacks on a loaded machine (the model counts neither).
pub const LIMIT_MARGIN: Duration = Duration::from_secs(20);

/// The time limit of one run of a file whose run (loopsim's) lasts `model_ms`
/// milliseconds of real time: `LIMIT_FACTOR × model_ms + LIMIT_MARGIN`,
/// saturating.
pub fn time_limit(model_ms: u64) -> Duration {
    Duration::from_millis(model_ms)
        .saturating_mul(LIMIT_FACTOR)
        .saturating_add(LIMIT_MARGIN)
}

/// What `verify` knows of a file before running it, from loopsim's run of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The last tick loopsim's run reaches (where it ends, or stops at a
    /// limit), `work`, timers, `io … after` and `submit` jobs included.
    pub model_ticks: u64,
    /// Ticks of `work` in that run (the main thread busy).
    pub work_ticks: u64,
    /// Milliseconds per tick.
    pub scale: u64,
}

impl Plan {
    /// How long the run lasts in real time at [`Plan::scale`], in milliseconds (saturating).
    pub fn model_ms(&self) -> u64 {
        self.model_ticks.saturating_mul(self.scale)
    }

    /// One run's time limit ([`time_limit`]).
    pub fn limit(&self) -> Duration {
        time_limit(self.model_ms())
    }
}

/// Runs loopsim's model of `loaded` and plans its real runs at `scale`
/// milliseconds per tick.
///
/// # Errors
/// A `loop::verify-too-long` problem, at the statement where the run passes
/// [`MAX_RUN`], when one run would last longer than that.
pub fn plan(loaded: &Loaded, scale: u64) -> Result<Plan, Box<Problem>> {
    let run_opts = emit::run_options();
    let model = interp::run(&loaded.file, &loaded.src, "", interp::RunOptions { verbose: true, ..run_opts });
    // The last `work`'s end, and all `work` together, in one pass.
    let (work_end, work_ticks) = model.events.iter().fold((0u64, 0u64), |(end, sum), e| match e.kind {
        EventKind::Work { ticks, .. } => (end.max(e.tick.saturating_add(ticks)), sum.saturating_add(ticks)),
        _ => (end, sum),
    });
    // A run stopped at the clock limit ends there; a `work` that took the
    // clock past it would keep the program busy to its own end.
    let model_ticks = model.ending.ticks().max(work_end);
    let plan = Plan {
        model_ticks,
        work_ticks,
        scale,
    };
    if u128::from(plan.model_ms()) > MAX_RUN.as_millis() {
        return Err(Box::new(too_long(loaded, &model, &plan)));
    }
    Ok(plan)
}

/// A duration in milliseconds for people: `12.345 s`, `10 min`, `13 min 20 s`,
/// `5 h 7 min`, `12 days`, `584,542,046 years` (to the millisecond below an
/// hour); exact for any tick count times any scale (no saturation).
fn human(ms: u128) -> String {
    const SEC: u128 = 1000;
    const MIN: u128 = 60 * SEC;
    const HOUR: u128 = 60 * MIN;
    const DAY: u128 = 24 * HOUR;
    const YEAR: u128 = 365 * DAY + DAY / 4;
    // Seconds with up to three decimals, no trailing zeros.
    let secs = |ms: u128| {
        let text = format!("{}.{:03}", ms / SEC, ms % SEC);
        format!("{} s", text.trim_end_matches('0').trim_end_matches('.'))
    };
    match ms {
        _ if ms < MIN => secs(ms),
        _ if ms < HOUR && ms.is_multiple_of(MIN) => format!("{} min", ms / MIN),
        _ if ms < HOUR => format!("{} min {}", ms / MIN, secs(ms % MIN)),
        _ if ms < 2 * DAY => format!("{} h {} min", ms / HOUR, ms % HOUR / MIN),
        _ if ms < 2 * YEAR => format!("{} days", ms / DAY),
        _ => format!("{} years", thousands(u64::try_from(ms / YEAR).unwrap_or(u64::MAX))),
    }
}

/// The refusal of a file whose run lasts longer than [`MAX_RUN`]: at the first
/// `work` that runs past it, or the statement of the first callback that runs
/// after it (else where the run stopped at a limit, or the file's start).
fn too_long(loaded: &Loaded, model: &Trace, plan: &Plan) -> Problem {
    let max_ms = u64::try_from(MAX_RUN.as_millis()).unwrap_or(u64::MAX);
    // Ticks past `max_ticks` end after MAX_RUN (scale > 0 here: the run is longer than MAX_RUN).
    let max_ticks = max_ms / plan.scale.max(1);
    let scale = plan.scale;
    let at = |ticks: u64| human(u128::from(ticks) * u128::from(scale));
    let lines = LineIndex::new(&loaded.src);
    let mut place = None;
    for event in &model.events {
        match &event.kind {
            EventKind::Work { ticks, line } if event.tick.saturating_add(*ticks) > max_ticks => {
                let end = event.tick.saturating_add(*ticks);
                place = find_statement(&loaded.file.body, &lines, *line, Site::Work)
                    .map(|span| (span, format!("busy until tick {}: {} into the run", thousands(end), at(end))));
                break;
            }
            EventKind::Call { kind, line, .. } if event.tick > max_ticks => {
                let site = if *kind == ".then" { Site::Link } else { Site::Callback };
                let tick = event.tick;
                place = find_statement(&loaded.file.body, &lines, *line, site)
                    .map(|span| (span, format!("runs at tick {}: {} into the run", thousands(tick), at(tick))));
                break;
            }
            _ => {}
        }
    }
    let (span, label) = place.unwrap_or_else(|| match &model.ending {
        Ending::Limit(hit) => (
            hit.span,
            format!(
                "loopsim stops the run here, at tick {}: {} into it",
                thousands(hit.tick),
                at(hit.tick)
            ),
        ),
        ending => (
            loaded.file.body.first().map_or(Span::new(0, 0), |s| s.span),
            format!("the run lasts {} ticks: {}", ending.ticks(), at(ending.ticks())),
        ),
    });
    Diag::VerifyTooLong {
        label,
        run: at(plan.model_ticks),
        max: human(u128::from(max_ms)),
        scale,
        ticks: plan.model_ticks,
        ticks_time: human(u128::from(plan.model_ticks)),
        fits: max_ms / plan.model_ticks.max(1),
        max_ms,
        endless: matches!(&model.ending, Ending::Limit(hit)
            if !hit.bounded && matches!(hit.limit, LimitKind::Turns | LimitKind::Callbacks)),
    }
    .at(span)
}

/// Line numbers (1-based) of byte offsets, as the trace counts them.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(src: &str) -> Self {
        LineIndex(std::iter::once(0).chain(src.match_indices('\n').map(|(i, _)| i + 1)).collect())
    }

    fn line(&self, span: Span) -> usize {
        self.0.partition_point(|&start| start <= span.start())
    }
}

/// Which statements a trace event's line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    Work,
    Callback,
    Link,
}

/// The first statement of kind `site` that starts on `line` (its head, for a
/// callback or `.then` link: without the body).
fn find_statement(stmts: &[Stmt], lines: &LineIndex, line: usize, site: Site) -> Option<Span> {
    for stmt in stmts {
        let found = match &stmt.kind {
            StmtKind::Work(_) if site == Site::Work && lines.line(stmt.span) == line => Some(stmt.span),
            StmtKind::Repeat { body, .. } => find_statement(body, lines, line, site),
            StmtKind::Callback(cb) => find_in_callback(cb, lines, line, site),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn find_in_callback(cb: &Callback, lines: &LineIndex, line: usize, site: Site) -> Option<Span> {
    if site == Site::Callback && lines.line(cb.span) == line {
        let ends = [
            Some(cb.kind_span().end()),
            cb.amount().map(|a| a.span.end()),
            cb.times().map(|t| t.span.end()),
            cb.label().map(|l| l.span.end()),
        ];
        let end = ends.into_iter().flatten().max().unwrap_or(cb.span.end());
        return Some(Span::new(cb.span.start(), end));
    }
    if let Some(found) = cb.body().and_then(|body| find_statement(body, lines, line, site)) {
        return Some(found);
    }
    cb.links().iter().find_map(|link| find_in_link(link, lines, line, site))
}

fn find_in_link(link: &Link, lines: &LineIndex, line: usize, site: Site) -> Option<Span> {
    if site == Site::Link && lines.line(link.span) == line {
        let ends = [
            Some(link.span.start() + ".then".len()),
            link.times.map(|t| t.span.end()),
            link.label.as_ref().map(|l| l.span.end()),
        ];
        let end = ends.into_iter().flatten().max().unwrap_or(link.span.end()).min(link.span.end());
        return Some(Span::new(link.span.start(), end));
    }
    link.body.as_deref().and_then(|body| find_statement(body, lines, line, site))
}

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
    /// The profile the orders are searched with: `node --version`'s ([`profile_of`]).
    pub profile: crate::sched::NodeProfile,
}

/// The profile for `node --version`'s answer (`v26.12.1`): its own, or, for a version loopsim
/// has no profile of, the newest one not newer than it (Node 20's below 20), with a note saying so.
pub fn profile_of(version: &str) -> (crate::sched::NodeProfile, Option<String>) {
    use crate::sched::NodeProfile;
    if let Some(p) = NodeProfile::of_version(version).filter(|p| *p != NodeProfile::Node10) {
        return (p, None);
    }
    let major: Option<u64> = version
        .trim()
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok());
    let profile = major
        .and_then(|m| {
            NodeProfile::ALL
                .into_iter()
                .filter(|p| *p != NodeProfile::Node10)
                .rev()
                .find(|p| p.name().parse::<u64>().is_ok_and(|n| n <= m))
        })
        .unwrap_or(NodeProfile::Node20);
    let note = format!("loopsim has no profile of node {}: the orders are {profile}'s", version.trim());
    (profile, Some(note))
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
    // Its output in files, and a process group killed after the time limit:
    // a `node` on PATH that never answers must not hang verify.
    let (Ok(out), Ok(err)) = (tempfile::tempfile(), tempfile::tempfile()) else {
        return Err("cannot create a temporary file for the output of `node --version`".into());
    };
    let (Ok(out_w), Ok(err_w)) = (out.try_clone(), err.try_clone()) else {
        return Err("cannot create a temporary file for the output of `node --version`".into());
    };
    let mut command = Command::new("node");
    command.arg("--version").stdin(Stdio::null()).stdout(out_w).stderr(err_w);
    let group = match live::Group::spawn(&mut command) {
        Ok(g) => g,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(
            "`node` was not found on PATH: `verify` runs each file's program with real Node.js (20, 22, 24 or 26); install Node.js or put it on PATH"
                .into(),
        ),
        Err(e) => return Err(format!("cannot run `node`: {e}")),
    };
    match group.exits_within(VERSION_TIME_LIMIT) {
        Ok(true) => {}
        Ok(false) => {
            drop(group); // kills it
            return Err(format!(
                "`node --version` did not answer within {} s (killed): is the `node` on PATH Node.js?",
                VERSION_TIME_LIMIT.as_secs()
            ));
        }
        Err(e) => return Err(format!("cannot wait for `node --version`: {e}")),
    }
    let status = group.finish().map_err(|e| format!("cannot wait for `node --version`: {e}"))?;
    let read = |mut f: std::fs::File| {
        use std::io::{Read, Seek};
        let mut text = Vec::new();
        let _ = f.seek(std::io::SeekFrom::Start(0));
        let _ = f.take(64 * 1024).read_to_end(&mut text);
        String::from_utf8_lossy(&text).trim().to_string()
    };
    if status.success() {
        Ok(read(out))
    } else {
        let said = read(err);
        let said = if said.is_empty() {
            "it printed nothing on stderr".to_string()
        } else {
            said
        };
        Err(format!("`node --version` failed ({status}): {said}"))
    }
}

/// How long `node --version` may take ([`node_version`]): Node answers in
/// well under a second; more means the `node` on PATH is not Node.js, or hangs.
pub const VERSION_TIME_LIMIT: Duration = Duration::from_secs(5);

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RunEnd {
    /// The program ended by itself, with exit code 0, or with one some
    /// order of loopsim's ends with: 1 for an unhandled rejection (rule 8k),
    /// 13 for an unsettled top-level `await` (rule 8l).
    Exited(i32),
    /// It stopped at loopsim's limit (exit code 3).
    Stopped,
    /// It failed: exit status and the end of its stderr.
    Failed(String),
    /// It hung: killed at its time limit, after this long.
    TimedOut(Duration),
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
    /// How long loopsim's run of the file lasts at the scale, in milliseconds.
    pub model_ms: u64,
    /// Milliseconds per tick the program ran at (`--scale`).
    pub scale: u64,
    /// The file may set a timer (a `timeout`, an `interval`, or `timers/promises`).
    pub sets_timer: bool,
}

impl FileReport {
    /// Every real order is one loopsim allows.
    pub fn ok(&self) -> bool {
        self.seen.iter().all(|s| s.allowed.is_some())
    }

    /// The report as text.
    pub fn render(&self) -> String {
        let runs: u32 = self.seen.iter().map(|s| s.count).sum();
        let hung = |s: &&Seen| matches!(s.run.end, RunEnd::TimedOut(_));
        let bad: u32 = self.seen.iter().filter(|s| s.allowed.is_none() && !hung(s)).map(|s| s.count).sum();
        let hung: u32 = self.seen.iter().filter(hung).map(|s| s.count).sum();
        let orders = counted(self.seen.len() as u64, "order");
        let verdict = match (bad, hung) {
            (0, 0) => "all allowed".to_string(),
            (bad, 0) => format!("{} NOT ALLOWED", counted(bad.into(), "run")),
            (0, hung) => format!("{} hung", counted(hung.into(), "run")),
            (bad, hung) => format!("{} NOT ALLOWED, {} hung", counted(bad.into(), "run"), counted(hung.into(), "run")),
        };
        let mut out = format!(
            "{}: {} in {:.1} s, {orders}, {verdict}\n",
            self.name,
            counted(runs.into(), "run"),
            self.elapsed.as_secs_f64()
        );
        let show_lines = self.seen.len() > 1 || bad > 0 || hung > 0;
        for seen in &self.seen {
            let what = match (&seen.allowed, &seen.run.end) {
                (Some(race), _) if race.is_empty() => "allowed: loopsim's own order".to_string(),
                (Some(race), _) => format!("allowed: {race}"),
                (None, RunEnd::Failed(why)) => format!("NOT ALLOWED: the program failed ({why})"),
                (None, RunEnd::TimedOut(limit)) => format!(
                    "hung: killed after {} (its time limit: {LIMIT_FACTOR} x loopsim's {} + {})",
                    seconds(*limit),
                    human(u128::from(self.model_ms)),
                    seconds(LIMIT_MARGIN)
                ),
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
            let stopped = match seen.run.end {
                RunEnd::Stopped => ", stopped at the limit".to_string(),
                RunEnd::Exited(code) if code != 0 => format!(", exit code {code}"),
                _ => String::new(),
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
        // The one limit known at a scale above 1 (fresh-clone helper 81 met
        // it on `timeout 0 "a" { immediate "ai" }`, `timeout 0 "t"`,
        // `immediate "i"`): said where it may be the cause, an order of a
        // file that sets timers (not a crash, nor an order of pool jobs and
        // I/O alone: fresh-clone helper 87).
        let differs = |s: &Seen| s.allowed.is_none() && matches!(s.run.end, RunEnd::Exited(_) | RunEnd::Stopped);
        if self.sets_timer && self.scale > 1 && self.seen.iter().any(differs) {
            out.push_str(&format!(
                "  note: at --scale {} a timer set (or an interval re-armed) a millisecond into a tick falls due a \
                 millisecond into a later one, where loopsim's whole ticks put it at a tick's start: an order that \
                 differs only there is a known limit (README, \"Checking against real Node\"); `--scale 1` checks \
                 the orders as loopsim means them\n",
                self.scale
            ));
        }
        out
    }
}

/// `20 s`, or `32.1 s` when not whole.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
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

/// Prints `text` on standard output; a failed write is told when the command
/// ends (exit 74), not a panic.
fn print(text: String) {
    crate::cli::host::print_stdout(text.as_bytes());
}

/// Verifies every file (with its [`plan`]), printing a report per file and a
/// summary; true when every real order is allowed. From here on, Ctrl-C,
/// SIGTERM and SIGHUP kill the running programs, remove the temporary folders
/// and exit ([`live::watch_signals`]).
pub fn verify(files: &[(Loaded, emit::Program, Plan)], opts: &Options) -> bool {
    live::watch_signals();
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
    print(format!(
        "verify: node {} ({} profile), {} per file, {} ms per tick, {} at once\n",
        opts.node,
        opts.profile,
        counted(opts.runs.into(), "run"),
        opts.scale,
        opts.jobs.map_or_else(
            || format!("{} (x4 for programs that mostly sleep)", default_jobs()),
            |j| j.to_string()
        )
    ));
    let (mut ok, mut bad) = (0, 0);
    for (loaded, program, plan) in files {
        bar.set_message(crate::term::escape(&loaded.name).into_owned());
        let report = verify_file(loaded, program, plan, opts, &bar);
        // What node printed and the file's texts may hold control characters: shown escaped.
        bar.suspend(|| print(crate::term::escape_lines(&report.render()).into_owned()));
        if report.ok() {
            ok += 1;
        } else {
            bad += 1;
        }
    }
    bar.finish_and_clear();
    print(format!(
        "verified {}: {ok} all allowed, {bad} with runs that failed (an order loopsim does not allow, a crash or a hang: above)\n",
        counted(files.len() as u64, "file")
    ));
    bad == 0
}

/// Runs one file's program (emitted at `opts.scale`) `opts.runs` times and
/// compares what it printed with the orders loopsim allows. `plan` is the
/// file's [`plan`] at `opts.scale`.
pub fn verify_file(loaded: &Loaded, program: &emit::Program, plan: &Plan, opts: &Options, bar: &ProgressBar) -> FileReport {
    let start = Instant::now();
    let run_opts = interp::RunOptions {
        node: Some(opts.profile),
        ..emit::run_options()
    };
    let orders = orders::all_orders(&loaded.file, &loaded.src, run_opts);
    let Plan {
        model_ticks, work_ticks, ..
    } = *plan;
    // A program that mostly sleeps (waiting for timers, pool jobs, I/O) leaves the
    // cores free: run more of them at once, unless --jobs says how many.
    let jobs = match opts.jobs {
        Some(j) => j,
        None if work_ticks.saturating_mul(10) <= model_ticks && model_ticks.saturating_mul(opts.scale) >= 1000 => 4 * default_jobs(),
        None => default_jobs(),
    };
    let runs = run_program(program, opts.runs, jobs, plan, &orders.exit_codes(), bar);
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
        model_ms: plan.model_ms(),
        scale: opts.scale,
        sets_timer: interp::may_set_timer(&loaded.file),
    }
}

/// The race that gives `run`'s order, if loopsim allows it.
fn allowed(run: &Run, orders: &Orders) -> Option<String> {
    let end = match run.end {
        RunEnd::Exited(0) => End::Exit,
        RunEnd::Exited(13) => End::Unsettled,
        RunEnd::Exited(_) => End::Unhandled,
        RunEnd::Stopped => End::Stopped,
        RunEnd::Failed(_) | RunEnd::TimedOut(_) => return None,
    };
    orders
        .orders
        .iter()
        .find(|o| o.end == end && flatten(&o.logs) == run.lines)
        .map(|o| o.race.clone())
        // Beyond the orders listed: a run whose lines are the texts themselves.
        .or_else(|| orders.race_of(&run.lines, end))
}

/// Log texts as the lines `console.log` prints.
fn flatten(logs: &[String]) -> Vec<String> {
    logs.iter().flat_map(|t| t.split('\n')).map(str::to_string).collect()
}

/// Runs the program `runs` times, `jobs` at once, each killed after `limit`,
/// in a private temporary folder removed afterwards.
/// `codes`: the exit codes other than 0 that some order of loopsim's ends with.
fn run_program(program: &emit::Program, runs: u32, jobs: usize, plan: &Plan, codes: &[i32], bar: &ProgressBar) -> Vec<Run> {
    let prepared = live::Folder::new().and_then(|folder| {
        let path = folder.path().join(format!("program.{}", program.extension()));
        live::create_new(&path)?.write_all(program.js.as_bytes())?;
        Ok((folder, path))
    });
    let (folder, path) = match prepared {
        Ok(p) => p,
        Err(e) => {
            let run = Run {
                lines: Vec::new(),
                end: RunEnd::Failed(format!(
                    "cannot write the program to a temporary folder in {}: {e}",
                    std::env::temp_dir().display()
                )),
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
                let run = run_once("node", &path, folder.path(), i, plan.limit(), codes);
                done.lock().expect("no panics while locked").push(run);
                bar.inc(1);
            });
        }
    });
    drop(folder);
    done.into_inner().expect("no panics while locked")
}

/// One run of `program` with `runner` (`node`), in `dir`, its output in files
/// there (not pipes: no pipe-buffer stalls), in a process group of its own
/// that is killed when it ends or after `limit`.
/// `codes`: the exit codes other than 0 some order of loopsim's ends with
/// (a run that exits with one of them ended by itself, not failed).
fn run_once(runner: &str, program: &Path, dir: &Path, i: usize, limit: Duration, codes: &[i32]) -> Run {
    let out_path: PathBuf = dir.join(format!("run{i}.out"));
    let err_path: PathBuf = dir.join(format!("run{i}.err"));
    let failed = |why: String| Run {
        lines: Vec::new(),
        end: RunEnd::Failed(why),
    };
    let (out, err) = match (live::create_new(&out_path), live::create_new(&err_path)) {
        (Ok(o), Ok(e)) => (o, e),
        (Err(e), _) | (_, Err(e)) => return failed(format!("cannot create output files: {e}")),
    };
    let mut command = Command::new(runner);
    command
        .arg(program)
        .current_dir(dir)
        .env("TMPDIR", dir) // the program's named pipes go here, removed with it
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let group = match live::Group::spawn(&mut command) {
        Ok(g) => g,
        Err(e) => return failed(format!("cannot start {runner}: {e}")),
    };
    let hung = match group.exits_within(limit) {
        Ok(exited) => !exited,
        Err(e) => return failed(format!("cannot wait for {runner}: {e}")),
    };
    // Kills the group: what the program started dies with it.
    let status = group.finish();
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
        _ if hung => RunEnd::TimedOut(limit),
        Err(e) => RunEnd::Failed(format!("cannot wait for {runner}: {e}")),
        Ok(s) if s.success() => RunEnd::Exited(0),
        // The process ended as an order of loopsim's says it may (an unhandled rejection: 1).
        Ok(s) if s.code().is_some_and(|c| codes.contains(&c)) => RunEnd::Exited(s.code().unwrap_or(0)),
        Ok(s) if s.code() == Some(3) && stderr.contains("loopsim: stopped") => RunEnd::Stopped,
        Ok(s) => {
            let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = tail[tail.len().saturating_sub(3)..].join(" / ");
            RunEnd::Failed(format!("{s}: {tail}"))
        }
    };
    Run { lines, end }
}

#[cfg(test)]
mod tests;
