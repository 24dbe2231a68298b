//! The command line: `loopsim run | check | test`.

use crate::expect;
use crate::interp::{self, RunOptions};
use crate::load::{self, LoadError, Loaded};
use crate::problem::{FileProblems, Problem};
use crate::sched::Limits;
use crate::trace::{Ending, Style, Trace};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const EXIT_CODES: &str = "\
Exit codes:
  0  success: the run ended (run), every prediction held (check, test)
  1  a prediction failed, or there was none to check
  2  the input is invalid (syntax or check errors, unreadable file)
  3  a run hit a limit (--max-turns, --max-callbacks, the bounds on log lines
     and on callbacks waiting at once)";

const EXAMPLES: &str = "\
Examples:
  loopsim run examples/phases/p01-read-callback-schedules-three.loop
  loopsim run --verbose --pool 8 examples/thread-pool/p08-eight-jobs-two-waves.loop
  loopsim run --format json FILE
  loopsim check FILE...
  loopsim test examples";

/// Run `.loop` files on a simulated Node.js event loop: which callback runs on
/// which turn, at which tick, in which phase.
#[derive(Debug, Parser)]
#[command(name = "loopsim", version, after_help = format!("{EXAMPLES}\n\n{EXIT_CODES}"))]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to use colour: auto (a terminal without NO_COLOR), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the trace of FILE: one line per `log` with turn, tick and phase.
    #[command(after_help = EXIT_CODES)]
    Run {
        file: PathBuf,
        /// Also show callback entries, scheduling, pool threads, sleeps and turns.
        #[arg(short, long)]
        verbose: bool,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// List every order of log lines real Node 20 can print (ALL-ORDERS.md).
        #[arg(long)]
        all_orders: bool,
        /// With --all-orders: replay at most this many schedules [default: 20000]
        #[arg(long, requires = "all_orders", value_parser = clap::value_parser!(u64).range(1..))]
        max_schedules: Option<u64>,
        /// Under each line, the rule that placed it there.
        #[arg(long)]
        explain: bool,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Check each file's `expect` block against its run.
    #[command(after_help = EXIT_CODES)]
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Check every `.loop` file with an `expect` block under PATHs (default `.`).
    #[command(after_help = EXIT_CODES)]
    Test {
        paths: Vec<PathBuf>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Print FILE as a standalone Node.js program that schedules what it
    /// describes and prints its `log` lines (CommonJS, or an ES module for `module esm`).
    EmitJs {
        file: PathBuf,
        /// Milliseconds per tick; 0 takes no time at all (every delay, job and
        /// `work` becomes 0 ms: for benchmarks, not for orders)
        #[arg(long, default_value_t = crate::emit::DEFAULT_SCALE, value_parser = clap::value_parser!(u64).range(0..=60_000))]
        scale: u64,
    },
    /// Run each FILE's emitted program with real `node`, RUNS times, and check
    /// that every order of lines it printed is one loopsim allows.
    #[command(after_help = crate::verify::EXIT_CODES)]
    Verify {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Runs per file.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
        /// Milliseconds per tick; 0 takes no time at all (every delay, job and
        /// `work` becomes 0 ms: for benchmarks, not for orders)
        #[arg(long, default_value_t = crate::emit::DEFAULT_SCALE, value_parser = clap::value_parser!(u64).range(0..=60_000))]
        scale: u64,
        /// Runs at once [default: the number of cores, four times that for a
        /// program that mostly sleeps]
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
        jobs: Option<u32>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    /// A picture of the run (turns, phase lanes, callbacks, sleeps, pool threads).
    Svg,
    /// A standalone HTML page with that picture.
    Html,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Thread-pool size (1..=1024), instead of the file's `pool` directive.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pool: Option<u64>,
    /// Stop a run after this many turns of the loop [default: 1000000, raised
    /// to let every bounded statement of the file run]
    #[arg(long)]
    max_turns: Option<u64>,
    /// Stop a run after this many callbacks, and ten times as many statements
    /// [default: 5000000, raised likewise, up to 50000000]
    #[arg(long)]
    max_callbacks: Option<u64>,
    /// Skip the search for other orders Node 20 could print (no race warnings).
    #[arg(long)]
    no_race_check: bool,
    /// Whose drain rule to follow: 20 (nextTicks and microtasks after every
    /// callback) or 10 (a timer list, or the whole check phase, first).
    #[arg(long, default_value = "20", value_parser = ["10", "20"])]
    node: String,
}

impl RunArgs {
    fn options(&self, verbose: bool) -> RunOptions {
        RunOptions {
            verbose,
            pool: self.pool,
            limits: Limits {
                max_turns: self.max_turns.unwrap_or(Limits::default().max_turns),
                max_callbacks: self.max_callbacks.unwrap_or(Limits::default().max_callbacks),
            },
            max_statements: self.max_callbacks.unwrap_or(Limits::default().max_callbacks).saturating_mul(10),
            auto_limits: self.max_turns.is_none() && self.max_callbacks.is_none(),
            node: if self.node == "10" {
                crate::sched::NodeVersion::Node10
            } else {
                crate::sched::NodeVersion::Node20
            },
            explain: false,
        }
    }
}

/// Exit codes (see `--help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    Ok = 0,
    PredictionFailed = 1,
    Invalid = 2,
    Limit = 3,
}

/// Parses the arguments and runs the command.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let out = Output::new(cli.color);
    let code = match &cli.command {
        Command::Run {
            file,
            all_orders: true,
            max_schedules,
            format,
            run,
            ..
        } => cmd_all_orders(&out, file, *format == Format::Json, *max_schedules, run),
        Command::Run {
            file,
            verbose,
            format,
            run,
            explain,
            ..
        } => cmd_run(&out, file, *verbose, *explain, *format, run),
        Command::Check { files, run } => cmd_check(&out, files, run),
        Command::Test { paths, run } => cmd_test(&out, paths, run),
        Command::EmitJs { file, scale } => cmd_emit_js(&out, file, *scale),
        Command::Verify { files, runs, scale, jobs } => cmd_verify(&out, files, *runs, *scale, *jobs),
    };
    ExitCode::from(code as u8)
}

/// Where output goes, and whether it is coloured.
struct Output {
    stdout_color: bool,
    handler: miette::GraphicalReportHandler,
}

impl Output {
    fn new(choice: ColorChoice) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let decide = |tty: bool| match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => tty && !no_color,
        };
        let theme = if decide(std::io::stderr().is_terminal()) {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        Output {
            stdout_color: decide(std::io::stdout().is_terminal()),
            handler: miette::GraphicalReportHandler::new_themed(theme),
        }
    }

    fn problems(&self, problems: &FileProblems) {
        eprint!("{}", problems.render(&self.handler));
    }

    fn one(&self, loaded: &Loaded, problem: Problem) {
        self.problems(&FileProblems::new(&loaded.name, &loaded.src, vec![problem]));
    }

    fn load(&self, path: &Path) -> Result<Loaded, Exit> {
        match load::load(path) {
            Ok(loaded) => {
                if !loaded.warnings.is_empty() {
                    self.problems(&FileProblems::new(&loaded.name, &loaded.src, loaded.warnings.clone()));
                }
                Ok(loaded)
            }
            Err(LoadError::Io { name, error }) => {
                let hint = if path.is_dir() {
                    " (for a folder, use `loopsim test FOLDER`)"
                } else {
                    ""
                };
                eprintln!("error: cannot read {name}: {error}{hint}");
                Err(Exit::Invalid)
            }
            Err(LoadError::Invalid(problems)) => {
                self.problems(&problems);
                Err(Exit::Invalid)
            }
        }
    }
}

fn run_file(loaded: &Loaded, opts: RunOptions) -> Trace {
    interp::run(&loaded.file, &loaded.src, &loaded.title(), opts)
}

fn cmd_run(out: &Output, path: &Path, verbose: bool, explain: bool, format: Format, args: &RunArgs) -> Exit {
    let loaded = match out.load(path) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let trace = run_file(
        &loaded,
        RunOptions {
            explain,
            ..args.options(verbose)
        },
    );
    let predicted_all = loaded.file.expect.as_ref().is_some_and(|e| !e.or.is_empty());
    if !args.no_race_check && !predicted_all && args.node == "20" && crate::orders::SearchBounds::worth_checking(&trace) {
        let orders = crate::orders::all_orders_after(
            &loaded.file,
            &loaded.src,
            args.options(false),
            crate::orders::SearchBounds::race_check(),
            &trace,
        );
        if let Some(warning) = crate::orders::race_warning(&trace, &orders) {
            out.one(&loaded, warning);
        }
    }
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = match format {
        Format::Text => trace.write_text(&mut stdout, verbose, &Style { color: out.stdout_color }),
        Format::Json => stdout.write_all((trace.to_json() + "\n").as_bytes()),
        Format::Svg => stdout.write_all(crate::render::to_svg(&run_file(&loaded, args.options(true))).as_bytes()),
        Format::Html => stdout.write_all(crate::render::to_html(&run_file(&loaded, args.options(true))).as_bytes()),
    };
    let _ = stdout.flush();
    drop(stdout);
    match &trace.ending {
        Ending::Finished { .. } => Exit::Ok,
        Ending::Limit(hit) => {
            out.one(&loaded, crate::limit::problem(hit));
            Exit::Limit
        }
    }
}

fn cmd_all_orders(out: &Output, path: &Path, json: bool, max_schedules: Option<u64>, args: &RunArgs) -> Exit {
    let loaded = match out.load(path) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let mut bounds = crate::orders::SearchBounds::default();
    if let Some(n) = max_schedules {
        bounds.max_schedules = usize::try_from(n).unwrap_or(usize::MAX);
    }
    let orders = crate::orders::all_orders_within(&loaded.file, &loaded.src, args.options(false), bounds);
    let text = if json {
        crate::orders::report::json(&orders)
    } else {
        crate::orders::report::text(&orders)
    };
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    Exit::Ok
}

/// The verdict on one file's prediction.
enum Verdict {
    Pass { lines: usize, racy: bool },
    Fail(Problem),
    NoPrediction,
}

fn verdict(loaded: &Loaded, args: &RunArgs) -> Verdict {
    let Some(expect) = &loaded.file.expect else {
        return Verdict::NoPrediction;
    };
    let trace = run_file(
        loaded,
        RunOptions {
            explain: true,
            ..args.options(false)
        },
    );
    if let Err(p) = expect::check(expect, &trace) {
        return Verdict::Fail(p);
    }
    if !expect.or.is_empty() {
        let orders = crate::orders::all_orders(&loaded.file, &loaded.src, args.options(false));
        if let Err(p) = expect::check_orders(expect, &orders) {
            return Verdict::Fail(p);
        }
    }
    // A one-order prediction of a file Node 20 prints in several orders holds
    // for the model only: say so (`expect … or …` lists them all).
    let racy = expect.or.is_empty()
        && crate::orders::SearchBounds::worth_checking(&trace)
        && crate::orders::all_orders_after(
            &loaded.file,
            &loaded.src,
            args.options(false),
            crate::orders::SearchBounds::race_check(),
            &trace,
        )
        .orders
        .len()
            > 1;
    Verdict::Pass {
        lines: expect.lines.len(),
        racy,
    }
}

/// "1 line", "4 lines".
fn lines(n: usize) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

const RACY: &str =
    "real Node 20 can also print other orders: `loopsim run --all-orders` lists them, `expect { … } or { … }` predicts them all";

fn cmd_check(out: &Output, files: &[PathBuf], args: &RunArgs) -> Exit {
    let mut worst = Exit::Ok;
    for path in files {
        let code = match out.load(path) {
            Err(code) => code,
            Ok(loaded) => match verdict(&loaded, args) {
                Verdict::Pass { lines: n, racy } => {
                    println!("ok: {} ({} as predicted)", loaded.name, lines(n));
                    if racy {
                        eprintln!("warning: {}: {RACY}", loaded.name);
                    }
                    Exit::Ok
                }
                Verdict::Fail(p) => {
                    out.one(&loaded, p);
                    Exit::PredictionFailed
                }
                Verdict::NoPrediction => {
                    println!("no prediction: {} has no expect block (run it with `loopsim run`)", loaded.name);
                    Exit::PredictionFailed
                }
            },
        };
        worst = worst.max(code);
    }
    worst
}

fn cmd_test(out: &Output, paths: &[PathBuf], args: &RunArgs) -> Exit {
    let roots = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let mut files = Vec::new();
    for root in &roots {
        if let Err(e) = collect(root, &mut files) {
            eprintln!("error: cannot read {}: {e}", root.display());
            return Exit::Invalid;
        }
    }
    let (mut passed, mut failed, mut worst) = (0, 0, Exit::Ok);
    for path in &files {
        let loaded = match out.load(path) {
            Ok(l) => l,
            Err(code) => {
                println!("ERROR {}: not a valid .loop file (see the diagnostic above)", path.display());
                failed += 1;
                worst = worst.max(code);
                continue;
            }
        };
        match verdict(&loaded, args) {
            Verdict::NoPrediction => {}
            Verdict::Pass { lines: n, racy } => {
                let note = if racy { "; the model's order, Node 20 has others" } else { "" };
                println!("PASS  {} ({}{note})", loaded.name, lines(n));
                passed += 1;
            }
            Verdict::Fail(p) => {
                println!("FAIL  {}: {}", loaded.name, p.message);
                out.one(&loaded, p);
                failed += 1;
                worst = worst.max(Exit::PredictionFailed);
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if passed + failed == 0 {
        let under: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        eprintln!(
            "error: no .loop file with an expect block under {}: nothing was checked",
            under.join(", ")
        );
        return worst.max(Exit::PredictionFailed);
    }
    worst
}

/// Every `.loop` file under `path` (a file or a folder), sorted.
fn collect(path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_file() {
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            let hidden = entry
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.') || n == "target");
            if !hidden {
                collect(&entry, files)?;
            }
        } else if entry.extension().is_some_and(|e| e == "loop") {
            files.push(entry);
        }
    }
    Ok(())
}

fn cmd_emit_js(out: &Output, path: &Path, scale: u64) -> Exit {
    let loaded = match out.load(path) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let opts = crate::emit::EmitOptions {
        scale,
        name: loaded.name.clone(),
    };
    let program = crate::emit::emit(&loaded.file, &loaded.src, &opts);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(program.js.as_bytes());
    let _ = stdout.flush();
    Exit::Ok
}

fn cmd_verify(out: &Output, files: &[PathBuf], runs: u32, scale: u64, jobs: Option<u32>) -> Exit {
    let node = match crate::verify::node_version() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let mut loaded = Vec::new();
    let mut worst = Exit::Ok;
    for path in files {
        match out.load(path) {
            Ok(l) => loaded.push(l),
            Err(code) => worst = worst.max(code),
        }
    }
    let opts = crate::verify::Options {
        runs,
        scale,
        jobs: jobs.map(|j| j as usize),
        node,
    };
    if !crate::verify::verify(&loaded, &opts) {
        worst = worst.max(Exit::PredictionFailed);
    }
    worst
}
