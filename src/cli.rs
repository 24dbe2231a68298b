//! The command line: `loopsim run | check | test`.

use crate::interp::{self, RunOptions};
use crate::load::{self, LoadError, Loaded};
use crate::orders::SearchBounds;
use crate::problem::{FileProblems, Problem, MAX_MESSAGE};
use crate::sched::{LimitKind, Limits};
use crate::term::{self, escape};
use crate::trace::{Ending, Style, Trace};
use crate::verdict::{verdict, Verdict};
use clap::{Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

pub use host::{Host, Kind, NativeHost, Stream};
pub(crate) mod host;
#[cfg(not(target_family = "wasm"))]
mod progress;

const EXIT_CODES: &str = "\
Exit codes:
  0    success: the run ended (run), every prediction held (check, test); a
       race check cut short by its bounds only adds a note
  1    a prediction failed, or there was none to check
  2    the input is invalid (syntax or check errors, unreadable file), or the
       command line is (an unknown flag, a bad value, flags that conflict)
  3    a run hit a limit (--max-turns, --max-callbacks, the bounds on log lines,
       log bytes, labels, callbacks waiting at once, promises, nested async
       calls and the clock), in run, run --all-orders, check and test (unless
       the prediction names that limit); or a search for orders
       was cut short by its bounds (--orders-time-limit, orders, schedules,
       statements, memory) in run --all-orders, or in check and test when the
       search behind a failed prediction or an `expect … or …` was cut short
  74   standard output could not be written (a full disk, a failing device)
  141  standard output was a pipe that closed early (`| head`): the rest is
       dropped, silently
With several files (check, test), the highest code of them all.";

/// `emit-js`'s exit codes.
#[cfg(not(target_family = "wasm"))]
const EMIT_JS_EXIT_CODES: &str = "\
Exit codes:
  0    the program was printed
  2    the input is invalid (syntax or check errors, unreadable file, a timer
       whose delay at --scale is above Node's maximum, a run loopsim stops at a
       limit the program does not keep: log lines, callbacks waiting, promises,
       nested async calls), or, in the npm package, emit-js is not there
  74   standard output could not be written (a full disk, a failing device)
  141  standard output was a pipe that closed early (`| head`): the rest is
       dropped, silently";

/// `verify`'s exit codes.
#[cfg(not(target_family = "wasm"))]
pub const VERIFY_EXIT_CODES: &str = "\
Exit codes:
  0    every order real Node printed is one loopsim allows
  1    some run printed an order loopsim does not allow, crashed, or hung (killed
       at its time limit: 2 x the file's run at --scale, plus 20 s)
  2    the input is invalid (syntax or check errors, unreadable file, a timer whose
       delay at --scale is above Node's maximum, a run that would last over 10
       minutes at this --scale or that loopsim stops at a limit the program does
       not keep), or `node` is missing or does not answer `node --version`
  74   standard output could not be written (a full disk, a failing device)
  130  stopped by Ctrl-C (SIGINT); 143 by SIGTERM, 129 by SIGHUP. Running `node`
       processes (their whole process groups) are killed and the temporary
       folders removed first
  141  standard output was a pipe that closed early (`| head`): the rest is
       dropped, silently";

/// The `--help` of `emit-js` and `verify` in the WebAssembly build (the npm
/// package), which has neither command (exit 2).
#[cfg(target_family = "wasm")]
const NATIVE_ONLY: &str = "Exit code 2: this command is in the loopsim binary only.";

/// Examples under each subcommand's `--help`.
const RUN_EXAMPLES: &str = "\
Examples:
  loopsim run examples/phases/p01-read-callback-schedules-three.loop
  loopsim run --explain examples/phases/p02-timer-between-two-immediates.loop
  loopsim run --all-orders examples/phases/p06-main-module-timeout-vs-immediate.loop
  loopsim run --format json --node 20 FILE
  loopsim run --format html FILE > run.html
  cat FILE | loopsim run -";

const CHECK_EXAMPLES: &str = "\
Examples:
  loopsim check examples/promises/p30-classic-async1-async2.loop
  loopsim check --node 22 FILE1 FILE2";

const TEST_EXAMPLES: &str = "\
Examples:
  loopsim test                  (every .loop file with an expect block under .)
  loopsim test examples/phases examples/timers";

#[cfg(not(target_family = "wasm"))]
const EMIT_JS_EXAMPLES: &str = "\
Examples:
  loopsim emit-js examples/phases/p01-read-callback-schedules-three.loop > p01.js && node p01.js
  loopsim emit-js --scale 0 FILE";

#[cfg(not(target_family = "wasm"))]
const VERIFY_EXAMPLES: &str = "\
Examples:
  loopsim verify examples/phases/p06-main-module-timeout-vs-immediate.loop
  loopsim verify --runs 200 --jobs 2 FILE";

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
    /// Print the trace of FILE: one line per `log` (and a ⏸ and a ▶ line per `await`) with turn, tick and phase.
    #[command(after_help = format!("{RUN_EXAMPLES}\n\n{EXIT_CODES}"))]
    Run {
        /// The .loop file to run (`-` reads standard input).
        #[arg(value_parser = file_arg())]
        file: PathBuf,
        /// Also show callback entries, scheduling, pool threads, sleeps and turns.
        #[arg(short, long)]
        verbose: bool,
        /// What to print: the trace as a table (text) or as JSON, or the run's picture (svg, html).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// List every order of log lines real Node can print, with the rules of --node (docs/orders.md),
        /// as text or JSON.
        #[arg(long, conflicts_with_all = ["verbose", "explain", "no_race_check"])]
        all_orders: bool,
        /// With --all-orders: replay at most this many schedules [default: 2000000]
        #[arg(long, requires = "all_orders", allow_negative_numbers = true, value_parser = whole_in::<1, { u64::MAX }>)]
        max_schedules: Option<u64>,
        /// With --all-orders: list every order (up to 10,000), not only the races and the model's order (JSON lists them either way, the same 10,000)
        #[arg(long, requires = "all_orders")]
        list: bool,
        /// Under each line, the rule that placed it there (docs/scheduling.md);
        /// with `--format json`, an "explanations" array, one per log line.
        #[arg(long)]
        explain: bool,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Check each file's `expect` block against its run.
    #[command(after_help = format!("{CHECK_EXAMPLES}\n\n{EXIT_CODES}"))]
    Check {
        /// The .loop files whose `expect` blocks to check (`-` reads standard input).
        #[arg(required = true, value_parser = file_arg())]
        files: Vec<PathBuf>,
        /// Refused: a failed prediction always says why its line ran there;
        /// `loopsim run --explain FILE` explains every line.
        #[arg(long, hide = true)]
        explain: bool,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Check every `.loop` file with an `expect` block under PATHs (default `.`).
    #[command(after_help = format!("{TEST_EXAMPLES}\n\n{EXIT_CODES}"))]
    Test {
        /// Folders (walked) and .loop files (`-` reads standard input).
        #[arg(value_parser = file_arg())]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Print FILE as a standalone Node.js program that schedules what it
    /// describes and prints its `log` lines (CommonJS, or an ES module for `module esm`).
    #[cfg(not(target_family = "wasm"))]
    #[command(after_help = format!("{EMIT_JS_EXAMPLES}\n\n{EMIT_JS_EXIT_CODES}"))]
    EmitJs {
        /// The .loop file to translate (`-` reads standard input).
        #[arg(value_parser = file_arg())]
        file: PathBuf,
        /// Milliseconds per tick; 0 takes no time at all (every delay, job and
        /// `work` becomes 0 ms: for benchmarks, not for orders)
        #[arg(long, default_value_t = crate::emit::DEFAULT_SCALE, allow_negative_numbers = true, value_parser = whole_in::<0, 60_000>)]
        scale: u64,
    },
    /// Run each FILE's emitted program with real `node`, RUNS times, and check
    /// that every order of lines it printed is one loopsim allows.
    #[cfg(not(target_family = "wasm"))]
    #[command(after_help = format!("{VERIFY_EXAMPLES}\n\n{VERIFY_EXIT_CODES}"))]
    Verify {
        /// The .loop files whose emitted programs to run (`-` reads standard input).
        #[arg(required = true, value_parser = file_arg())]
        files: Vec<PathBuf>,
        /// Runs per file.
        #[arg(long, default_value_t = 50, allow_negative_numbers = true, value_parser = whole_in_u32::<1, { u32::MAX }>)]
        runs: u32,
        /// Milliseconds per tick, at least 1 (at 0 every delay, job and
        /// `work` takes no time: Node's orders are then not the file's, so
        /// there is nothing to verify; `emit-js --scale 0` is for benchmarks)
        #[arg(long, default_value_t = crate::emit::DEFAULT_SCALE, allow_negative_numbers = true, value_parser = verify_scale)]
        scale: u64,
        /// Runs at once [default: the number of cores, four times that for a
        /// program that mostly sleeps]
        #[arg(long, allow_negative_numbers = true, value_parser = whole_in_u32::<1, 64>)]
        jobs: Option<u32>,
    },
    /// Print FILE as a standalone Node.js program that schedules what it
    /// describes and prints its `log` lines (CommonJS, or an ES module for `module esm`).
    #[cfg(target_family = "wasm")]
    #[command(after_help = NATIVE_ONLY)]
    EmitJs {
        #[arg(hide = true, num_args = 0.., allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run each FILE's emitted program with real `node`, RUNS times, and check
    /// that every order of lines it printed is one loopsim allows.
    #[cfg(target_family = "wasm")]
    #[command(after_help = NATIVE_ONLY)]
    Verify {
        #[arg(hide = true, num_args = 0.., allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

impl Command {
    /// The command's name as typed (`run`, `emit-js`, …).
    fn name(&self) -> &'static str {
        match self {
            Command::Run { .. } => "run",
            Command::Check { .. } => "check",
            Command::Test { .. } => "test",
            Command::EmitJs { .. } => "emit-js",
            Command::Verify { .. } => "verify",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The trace as a table: turn, tick, phase and log line.
    Text,
    /// The trace as JSON: its events, log lines and how the run ended.
    Json,
    /// A picture of the run (turns, phase lanes, callbacks, sleeps, pool threads).
    Svg,
    /// A standalone HTML page with that picture.
    Html,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Thread-pool size (1..=1024), instead of the file's `pool` directive.
    #[arg(long, allow_negative_numbers = true, value_parser = whole_in::<1, 1024>)]
    pool: Option<u64>,
    /// Stop a run after this many turns of the loop [default: 1000000, raised
    /// to let every bounded statement of the file run]
    #[arg(long, allow_negative_numbers = true, value_parser = whole_number)]
    max_turns: Option<u64>,
    /// Stop a run after this many callbacks, and ten times as many statements
    /// [default: 5000000, raised likewise, up to 10000000]
    #[arg(long, allow_negative_numbers = true, value_parser = whole_number)]
    max_callbacks: Option<u64>,
    /// Skip the search for other orders Node could print (no race warnings).
    #[arg(long)]
    no_race_check: bool,
    /// Stop a search for the orders Node can print after SECONDS (0: the
    /// model's order only, a partial answer) [default: 10 for --all-orders
    /// and `expect … or …`, 2 for the race check of run, check and test]
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = whole_in::<0, 86_400>)]
    orders_time_limit: Option<u64>,
    /// Whose rules to follow: 26 (the active LTS), 24, 22, 20, or 10 (the
    /// drain after a whole timer list or check phase) [default: the file's
    /// `node N`, else 26]
    #[arg(long, value_name = "VERSION", value_parser = ["10", "20", "22", "24", "26"])]
    node: Option<String>,
}

impl RunArgs {
    /// `base` with the time limit of `--orders-time-limit`, if given.
    fn bounds(&self, base: SearchBounds) -> SearchBounds {
        SearchBounds {
            time_limit: self.time_limit().or(base.time_limit),
            ..base
        }
    }

    /// `--orders-time-limit`, if given.
    fn time_limit(&self) -> Option<Duration> {
        self.orders_time_limit.map(Duration::from_secs)
    }

    /// `--node`, if given.
    fn node_version(&self) -> Option<crate::sched::NodeProfile> {
        self.node
            .as_deref()
            .and_then(|n| crate::sched::NodeProfile::from_major(n.parse().ok()?))
    }

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
            node: self.node_version(),
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

/// Parses the process's arguments and runs the command on this machine.
pub fn main() -> ExitCode {
    let code = run(std::env::args_os(), &NativeHost);
    match host::output_failed() {
        None => ExitCode::from(code),
        // Output into a pipe that closed early: silent, as when SIGPIPE ends the process.
        Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(141),
        Some(e) => {
            NativeHost.write(
                Stream::Stderr,
                format!("error: cannot write to standard output: {e}; the output is incomplete\n").as_bytes(),
            );
            ExitCode::from(EXIT_OUTPUT)
        }
    }
}

/// The exit code when standard output could not be written (a full disk, a
/// failing device): `EX_IOERR` of BSD's sysexits.h. Whatever the command found,
/// its output is incomplete.
pub const EXIT_OUTPUT: u8 = 74;

/// Parses `args` (the program's name first) and runs the command, reading
/// files and writing output through `host`; returns the exit code (see
/// `--help`; 0 for `--help` and `--version`, 2 for a usage error). The native
/// binary and the npm package (through WebAssembly) both run this.
pub fn run<I, T>(args: I, host: &dyn Host) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // `--color always|never` also governs clap's own usage errors, which are
    // made before the flag is parsed.
    let color = match color_asked(&args) {
        Some(ColorChoice::Always) => Some(true),
        Some(ColorChoice::Never) => Some(false),
        Some(ColorChoice::Auto) | None => None,
    };
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        #[cfg_attr(target_family = "wasm", allow(unused_mut))]
        Err(mut e) => {
            #[cfg(not(target_family = "wasm"))]
            if let Some(tip) = subcommand_tip(&e, &args, host)
                .or_else(|| one_file_tip(&e, &args))
                .or_else(|| dash_file_tip(&e, &args, host))
            {
                use clap::error::{ContextKind, ContextValue};
                e.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
            }
            return host.usage_error(&e, color);
        }
    };
    if let Some(conflict) = conflict(&cli.command) {
        use clap::CommandFactory;
        let name = cli.command.name();
        let mut command = Cli::command();
        command.build();
        let sub = command.find_subcommand_mut(name).expect("every Command is a subcommand");
        return host.usage_error(&sub.error(clap::error::ErrorKind::ArgumentConflict, conflict), color);
    }
    execute(&cli, host)
}

/// A tip for a second file (or any extra word) given to `run` or
/// `emit-js`, which take one: clap's "unexpected argument 'c.loop'" alone
/// (fresh-clone helper 84 got the tip for a file beginning with `-`, whose
/// command failed again). Not in the WebAssembly build.
#[cfg(not(target_family = "wasm"))]
fn one_file_tip(e: &clap::Error, args: &[OsString]) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    if e.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let words: Vec<&str> = args.iter().skip(1).filter_map(|a| a.to_str()).collect();
    let command = words.iter().find(|w| matches!(**w, "run" | "emit-js"))?;
    // A word that begins with `-` is taken for a file only after `--`.
    let after_dashes = words.iter().take_while(|w| **w != arg.as_str()).any(|w| *w == "--");
    (!arg.starts_with('-') || after_dashes)
        .then(|| format!("`loopsim {command}` takes one file: give each file its own command (`check`, `test` and `verify` take several)"))
}

/// A tip for a file whose name begins with `-`, which clap read as options
/// (`loopsim run -x.loop`: "unexpected argument '-x'", whose own tip, "use
/// '-- -x'", names a file that does not exist; fresh-clone helper 81): the
/// same command with the file after `--`. For a word ending in `.loop` or
/// naming a file (asking `host`). Not in the WebAssembly build.
#[cfg(not(target_family = "wasm"))]
fn dash_file_tip(e: &clap::Error, args: &[OsString], host: &dyn Host) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    if e.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let is_file = |w: &str| w.ends_with(".loop") || host.kind(Path::new(w), true).is_ok();
    let at = args
        .iter()
        .skip(1)
        .position(|a| a.to_str().is_some_and(|w| w.starts_with(arg.as_str()) && is_file(w)))?
        + 1;
    let file = args[at].to_string_lossy();
    let mut words: Vec<String> = args
        .iter()
        .enumerate()
        .skip(1)
        .filter(|&(i, _)| i != at)
        .map(|(_, a)| shell_word(&a.to_string_lossy()))
        .collect();
    // No command given (`loopsim -x.loop`): `run`, after the global options
    // (fresh-clone helper 82 got `loopsim  -- -x.loop`).
    use clap::CommandFactory;
    let cli = Cli::command();
    if !words.iter().any(|w| cli.find_subcommand(w).is_some()) {
        let global = global_options(&cli, &words);
        words.insert(global, "run".to_string());
    }
    let missing = if host.kind(Path::new(file.as_ref()), true).is_err() {
        format!(", but there is no file {} here", escape(&file))
    } else {
        String::new()
    };
    Some(format!(
        "a file whose name begins with `-` goes after `--`: `loopsim {} -- {}`{missing}",
        words.join(" "),
        shell_word(&file)
    ))
}

/// How many of `words` (arguments after the program's name) are the global
/// options before the first other word (`--color never`, `--color=never`),
/// by `cli`'s own global arguments: where a command goes.
#[cfg(not(target_family = "wasm"))]
fn global_options(cli: &clap::Command, words: &[String]) -> usize {
    let mut at = 0;
    while let Some(w) = words.get(at).and_then(|w| w.strip_prefix("--")) {
        let (long, value) = w.split_once('=').map_or((w, None), |(l, v)| (l, Some(v)));
        let Some(arg) = cli.get_arguments().find(|a| a.is_global_set() && a.get_long() == Some(long)) else {
            break;
        };
        at += if value.is_none() && arg.get_action().takes_values() { 2 } else { 1 };
    }
    at.min(words.len())
}

/// A tip for a word taken for a subcommand that names what an option of
/// `run` does, or a file: `loopsim explain FILE` gets "tip: `loopsim run
/// --explain FILE` says why each line runs where it does", `loopsim
/// FILE.loop` "tip: `loopsim run FILE.loop` runs the file" (or that there
/// is no such file, asking `host`), and a command clap finds nothing
/// close to, one edit from one (`rn`), "did you mean `loopsim run …`?". The
/// command keeps the global options before the word and the arguments
/// after it (for `run`, the first file only), each quoted for a POSIX
/// shell where it needs it ([`shell_word`]). Not in the WebAssembly build (the npm package), whose
/// size budget it would take 1.1 KB of.
#[cfg(not(target_family = "wasm"))]
fn subcommand_tip(e: &clap::Error, args: &[OsString], host: &dyn Host) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    if e.kind() != clap::error::ErrorKind::InvalidSubcommand {
        return None;
    }
    let Some(ContextValue::String(word)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    // The arguments before the word (global options: `--color never`) and
    // after it (a word that is not UTF-8 shown lossily, escaped: the tip is
    // text to read, not to run blindly).
    let lossy = |a: &OsString| a.to_string_lossy().into_owned();
    let before: Vec<String> = args
        .iter()
        .skip(1)
        .take_while(|a| a.to_str() != Some(word.as_str()))
        // (`--` ends the options: `run`'s tip puts it before the file.)
        .filter(|a| a.to_str() != Some("--"))
        .map(lossy)
        .collect();
    let rest: Vec<String> = args
        .iter()
        .skip_while(|a| a.to_str() != Some(word.as_str()))
        .skip(1)
        .map(lossy)
        .collect();
    // The files among them (their places in `rest`): the words not an
    // option nor the value of one of `run`'s options that take one
    // (`--format svg`), and every word after `--`.
    use clap::CommandFactory;
    let mut cli = Cli::command();
    cli.build(); // gives `run` the global options (`--color`)
    let files: Vec<usize> = {
        let run = cli.find_subcommand("run").expect("run is a subcommand");
        let takes_value = |option: &str| {
            run.get_arguments().any(|a| {
                a.get_action().takes_values()
                    && (option.strip_prefix("--").is_some_and(|l| a.get_long() == Some(l))
                        || option.strip_prefix('-').and_then(|s| s.chars().next()) == a.get_short())
            })
        };
        let mut files = Vec::new();
        let mut words = rest.iter().enumerate();
        while let Some((i, w)) = words.next() {
            if w == "--" {
                files.extend(words.map(|(i, _)| i));
                break;
            } else if !w.starts_with('-') || w == "-" || w.ends_with(".loop") {
                // (`-x.loop` too: a file, which `run` takes after `--`.)
                files.push(i);
            } else if !w.contains('=') && takes_value(w) {
                words.next();
            }
        }
        files
    };
    // `run` takes one file: the others are left out of its tip, which says so.
    let one_file = if files.len() > 1 { " (`run` takes one file)" } else { "" };
    let others = files.get(1..).unwrap_or_default();
    let run_rest: Vec<&String> = rest
        .iter()
        .enumerate()
        .filter(|(i, _)| !others.contains(i))
        .map(|(_, a)| a)
        .collect();
    let file = files.first().map(|&i| &rest[i]);
    let missing = file.filter(|f| *f != "-" && host.kind(Path::new(f.as_str()), true).is_err());
    // The global options, each followed by a space.
    let global: String = before.iter().map(|a| shell_word(a) + " ").collect();
    // The arguments of `loopsim run OPTIONS…`: the arguments after the word
    // (with `all` of them; else the file alone) and FILE when none names a
    // file; a file that starts with `-` last, after `--`.
    let run_args = |options: &str, all: bool| {
        let mut words: Vec<String> = before.clone();
        words.push("run".to_string());
        words.extend(options.split_whitespace().map(str::to_string));
        let dashed = file.filter(|f| f.starts_with('-') && *f != "-");
        for a in &run_rest {
            if (all || file == Some(*a)) && dashed != Some(*a) && !(dashed.is_some() && *a == "--") {
                words.push((*a).clone());
            }
        }
        match (file, dashed) {
            (None, _) => words.push("FILE".to_string()),
            (Some(_), Some(f)) => words.extend(["--".to_string(), f.clone()]),
            (Some(_), None) => {}
        }
        words
    };
    // Whether clap takes those arguments, and no two of them conflict.
    let valid = |words: &[String]| {
        let argv = std::iter::once("loopsim").chain(words.iter().map(|w| if w == "FILE" { "x.loop" } else { w.as_str() }));
        Cli::try_parse_from(argv).is_ok_and(|cli| conflict(&cli.command).is_none())
    };
    // `loopsim run OPTIONS…` with the other arguments, or without them when
    // clap would refuse them (`svg --explain`: a picture shows every
    // event), and ", but there is no file F here" when the file named does
    // not exist.
    // The arguments left out are named after it: "(without `--explain`,
    // which `run` refuses here)".
    let command = |options: &str| {
        let all = run_args(options, true);
        let (words, left_out) = if valid(&all) {
            (all, String::new())
        } else {
            let fewer = run_args(options, false);
            let dropped: Vec<String> = all.iter().filter(|w| !fewer.contains(w)).map(|w| shell_word(w)).collect();
            let left_out = if dropped.is_empty() {
                String::new()
            } else {
                format!("without `{}`, which `run` refuses here", dropped.join(" "))
            };
            (fewer, left_out)
        };
        let words: Vec<String> = words.iter().map(|w| if w == "FILE" { w.clone() } else { shell_word(w) }).collect();
        (format!("loopsim {}", words.join(" ")), left_out)
    };
    let but = missing.map_or_else(String::new, |f| format!(", but there is no file {} here", escape(f)));
    let option = |options: &str, does: &str| {
        let (command, left_out) = command(options);
        let left_out = if left_out.is_empty() { left_out } else { format!(" ({left_out})") };
        format!("`{command}` {does}{left_out}{one_file}{but}")
    };
    Some(match word.as_str() {
        "explain" => option("--explain", "says why each line runs where it does"),
        "orders" | "all-orders" => option("--all-orders", "lists the orders Node can print"),
        "svg" => option("--format svg", "draws the run as an SVG picture"),
        "html" => option("--format html", "draws the run as an HTML page"),
        "json" => option("--format json", "prints the trace as JSON"),
        "-" => "`loopsim run -` runs the program on standard input".to_string(),
        w if host.kind(Path::new(w), true).is_ok_and(|k| k == Kind::Dir) => {
            format!("`loopsim {global}test {}` checks the predictions of a folder", shell_word(w))
        }
        w if w.ends_with(".loop") && host.kind(Path::new(w), true).is_err() => {
            format!("`loopsim {global}run FILE` runs a file, but there is no file {} here", escape(w))
        }
        w if w.ends_with(".loop") => {
            // The word is the file: any other file is left out, as above.
            let others = rest.iter().enumerate().filter(|(i, _)| !files.contains(i)).map(|(_, a)| a.as_str());
            let dash = if w.starts_with('-') { "-- " } else { "" };
            let words: Vec<String> = std::iter::once(w).chain(others).map(shell_word).collect();
            let one_file = if files.is_empty() { "" } else { " (`run` takes one file)" };
            format!("`loopsim {global}run {dash}{}` runs the file{one_file}", words.join(" "))
        }
        // A misspelt command clap finds no similar one for (`rn`, `rnu`).
        w if e.get(ContextKind::SuggestedSubcommand).is_none() => {
            let names: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
            let meant = crate::syntax::suggest::closest(w, &names)?;
            // `loopsim help rn`: the help of `run`, not a run of FILE
            // (fresh-clone helper 85 got `loopsim help run FILE`).
            if before.iter().any(|b| b == "help") {
                return Some(format!("did you mean `loopsim {global}{meant}`?"));
            }
            if meant == "run" {
                // One parenthesis for what it adds: "(`run` takes one file; there is no file a.loop here)".
                let (command, left_out) = command("");
                let mut notes: Vec<String> = vec![left_out];
                notes.extend(files.get(1..).filter(|o| !o.is_empty()).map(|_| "`run` takes one file".to_string()));
                notes.extend(missing.map(|f| format!("there is no file {} here", escape(f))));
                notes.retain(|n| !n.is_empty());
                let notes = if notes.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", notes.join("; "))
                };
                return Some(format!("did you mean `{command}`?{notes}"));
            }
            let args: String = rest.iter().map(|a| format!(" {}", shell_word(a))).collect();
            format!("did you mean `loopsim {global}{meant}{args}`?")
        }
        _ => return None,
    })
}

/// Whether a shell reads `word` back as it is: not empty, and only ASCII
/// letters, digits and `_-./:=@%+,` ([`shell_word`]).
pub(crate) fn shell_plain(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c))
}

/// Whether `word` can be named in a command as it is: a shell reads it
/// back unchanged ([`shell_plain`]) and no command takes it for an option
/// (it does not start with `-`). What the WebAssembly build, which does not
/// quote, names a file or folder by.
#[cfg(target_family = "wasm")]
pub(crate) fn unquoted(word: &str) -> bool {
    !word.starts_with('-') && shell_plain(word)
}

/// `word` as a shell reads it back: as it is when it holds only letters,
/// digits and `_-./:=@%+,`; else between single quotes (a `'` in it written
/// `'\''`); and when it holds a character that must not reach a terminal
/// ([`crate::term::is_escaped`]: a newline, ESC), as bash's `$'…'`, whose
/// escapes (`\n`, `\x1b`, `\u202e`) bash, zsh and ksh read back as those
/// characters (fresh-clone helper 73 pasted `'new\nline.loop'`, which a
/// shell reads as a backslash and an n).
#[cfg(not(target_family = "wasm"))]
pub(crate) fn shell_word(word: &str) -> String {
    use std::fmt::Write as _;
    if shell_plain(word) {
        return word.to_string();
    }
    if !word.chars().any(crate::term::is_escaped) {
        return format!("'{}'", word.replace('\'', "'\\''"));
    }
    let mut out = String::from("$'");
    for c in word.chars() {
        let _ = match c {
            '\\' | '\'' => write!(out, "\\{c}"),
            '\n' => write!(out, "\\n"),
            '\t' => write!(out, "\\t"),
            '\r' => write!(out, "\\r"),
            c if !crate::term::is_escaped(c) => write!(out, "{c}"),
            c if (c as u32) < 0x100 => write!(out, "\\x{:02x}", c as u32),
            c if (c as u32) < 0x10000 => write!(out, "\\u{:04x}", c as u32),
            c => write!(out, "\\U{:08x}", c as u32),
        };
    }
    out.push('\'');
    out
}

/// The file beside `path` whose name is closest to its name (a typo:
/// `p6-main.loop` for `p6-mian.loop`), as a path written like `path`; none
/// when no name is close ([`crate::syntax::suggest::closest`]) or the
/// folder cannot be read. Looks at the first 10,000 entries only.
#[cfg(not(target_family = "wasm"))]
fn nearby_file(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let names: Vec<String> = std::fs::read_dir(folder)
        .ok()?
        .take(10_000)
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    // (Not the name itself: a dangling link is listed, but cannot be read;
    // fresh-clone helper 88 got "did you mean dang.loop?" for it.)
    let names: Vec<&str> = names.iter().map(String::as_str).filter(|n| *n != name).collect();
    // Names that share the extension are compared without it, which would
    // make every `.loop` name close to every other (fresh-clone helper 86:
    // `nope.loop` got "did you mean typo.loop?"); a mistyped extension
    // (`ok.lop`) is compared whole.
    let near = match name.rsplit_once('.') {
        Some((stem, ext)) if names.iter().any(|n| n.rsplit_once('.').is_some_and(|(_, e)| e == ext)) => {
            let stems: Vec<&str> = names.iter().filter_map(|n| n.strip_suffix(ext)?.strip_suffix('.')).collect();
            format!("{}.{ext}", crate::syntax::suggest::closest(stem, &stems)?)
        }
        _ => crate::syntax::suggest::closest(name, &names)?.to_string(),
    };
    Some(path.with_file_name(near).to_string_lossy().into_owned())
}

/// An I/O error in words: "there is no such file" (`what`), "permission
/// denied", not the system's "No such file or directory (os error 2)"
/// (which the npm package's and the playground's hosts repeat); other
/// kinds, and loopsim's own errors ("the file name is empty"), as they are.
fn io_words(e: &std::io::Error, what: &str) -> String {
    let text = e.to_string();
    if !text.ends_with(')') || !text.contains("(os error ") {
        return text;
    }
    match e.kind() {
        std::io::ErrorKind::NotFound => format!("there is no such {what}"),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => text,
    }
}

/// The last `--color WHEN` (or `--color=WHEN`) among `args` before a `--`,
/// if it names a choice: read before clap parses them, for clap's own errors.
fn color_asked(args: &[OsString]) -> Option<ColorChoice> {
    use clap::ValueEnum;
    let mut asked = None;
    let mut words = args.iter().skip(1).map(|a| a.to_str());
    while let Some(word) = words.next() {
        let value = match word {
            Some("--") => break,
            Some("--color") => words.next().flatten(),
            Some(w) => w.strip_prefix("--color="),
            None => None,
        };
        if let Some(choice) = value.and_then(|v| ColorChoice::from_str(v, false).ok()) {
            asked = Some(choice);
        }
    }
    asked
}

/// What the playground asks of the CLI, without parsing arguments (so that
/// its WebAssembly needs none of clap's parser): `loopsim run FILE` with
/// these flags, colourless.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `check FILE` instead of `run FILE`.
    pub check: bool,
    pub file: PathBuf,
    /// `--format` (`run`).
    pub format: Option<Format>,
    /// `--verbose`, `--explain`, `--no-race-check` (`run`).
    pub verbose: bool,
    pub explain: bool,
    pub no_race_check: bool,
    /// `--node`: "26", "24", "22", "20" or "10".
    pub node: Option<String>,
    /// `--pool`, 1..=1024.
    pub pool: Option<u64>,
    /// `--orders-time-limit`, in seconds.
    pub orders_time_limit: Option<u64>,
}

/// Runs `request` as `loopsim --color never run|check …` would; returns the exit code.
/// A combination `run` refuses (`--explain` with a picture) is refused the same way, exit 2.
pub fn request(request: &Request, host: &dyn Host) -> u8 {
    let run = RunArgs {
        pool: request.pool,
        max_turns: None,
        max_callbacks: None,
        no_race_check: request.no_race_check,
        orders_time_limit: request.orders_time_limit,
        node: request.node.clone(),
    };
    let command = if request.check {
        Command::Check {
            files: vec![request.file.clone()],
            explain: false,
            run,
        }
    } else {
        Command::Run {
            file: request.file.clone(),
            verbose: request.verbose,
            format: request.format.unwrap_or(Format::Text),
            all_orders: false,
            max_schedules: None,
            list: false,
            explain: request.explain,
            run,
        }
    };
    if let Some(conflict) = conflict(&command) {
        host.write(Stream::Stderr, format!("error: {conflict}\n").as_bytes());
        return Exit::Invalid as u8;
    }
    execute(
        &Cli {
            command,
            color: ColorChoice::Never,
        },
        host,
    )
}

/// A count or limit given as a flag's value: a whole number, 0 or more, that
/// fits 64 bits (clap's own message for `-1` or `1.5` is "invalid digit
/// found in string").
fn whole_number(arg: &str) -> Result<u64, String> {
    arg.parse::<u64>().map_err(|_| {
        if !arg.is_empty() && arg.bytes().all(|b| b.is_ascii_digit()) {
            format!("{arg} is more than {} (the most a count holds)", u64::MAX)
        } else {
            "expected a whole number, 0 or more (digits only)".to_string()
        }
    })
}

/// A whole number from `LO` to `HI` given as a flag's value (a pool size,
/// seconds, milliseconds per tick): clap's range check says "invalid digit
/// found in string" for `-1`.
fn whole_in<const LO: u64, const HI: u64>(arg: &str) -> Result<u64, String> {
    whole_in_range(arg, LO, HI)
}

/// `verify --scale`: 1 to 60,000 ms per tick. At 0 every delay, job and
/// `work` takes no time, so the program's orders are not the file's and
/// every run would be reported as not allowed (fresh-clone helper 81).
#[cfg(not(target_family = "wasm"))]
fn verify_scale(arg: &str) -> Result<u64, String> {
    match whole_in::<0, 60_000>(arg) {
        Ok(0) => Err(format!(
            "0 takes no time for any delay, job or `work`: Node's orders are then not the file's, \
             and there is nothing to verify; give 1 to 60000 (default {})",
            crate::emit::DEFAULT_SCALE
        )),
        _ => whole_in::<1, 60_000>(arg),
    }
}

/// [`whole_in`] for a count kept in 32 bits (`verify --runs`, `--jobs`).
#[cfg(not(target_family = "wasm"))]
fn whole_in_u32<const LO: u32, const HI: u32>(arg: &str) -> Result<u32, String> {
    whole_in_range(arg, LO.into(), HI.into()).map(|n| n as u32)
}

fn whole_in_range(arg: &str, lo: u64, hi: u64) -> Result<u64, String> {
    let range = if hi == u64::MAX {
        format!("{lo} or more")
    } else {
        format!("from {lo} to {hi}")
    };
    match whole_number(arg) {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} is out of range: give a whole number {range}")),
        // Digits past 64 bits: whole_number's own message names the largest count.
        Err(e) if hi == u64::MAX && arg.bytes().all(|b| b.is_ascii_digit()) && !arg.is_empty() => Err(e),
        // Digits past 64 bits, where a smaller bound holds: out of range too.
        Err(_) if arg.bytes().all(|b| b.is_ascii_digit()) && !arg.is_empty() => {
            Err(format!("{arg} is out of range: give a whole number {range}"))
        }
        Err(_) => Err(format!("expected a whole number {range} (digits only)")),
    }
}

/// A FILE argument: `-` is standard input, read as `/dev/stdin` (a pipe or a
/// redirected file, with the same size cap as any file; a terminal is refused
/// as a device, so loopsim never waits for keys).
/// Any bytes a path may hold are taken (a name that is not UTF-8 too:
/// fresh-clone helper 90), and shown with `\u{FFFD}` for the bytes that are not.
fn file_arg() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(|arg| PathBuf::from(if arg == "-" { STDIN.into() } else { arg }))
}

/// The file standard input is read as (`-`).
const STDIN: &str = "/dev/stdin";

/// A FILE as diagnostics and results name it: standard input as compilers
/// name it (`<stdin>`), not by the file it is read as.
fn shown(path: &Path) -> String {
    if path == Path::new(STDIN) {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// Runs a parsed command line.
fn execute(cli: &Cli, host: &dyn Host) -> u8 {
    let mut out = Output::new(cli.color, host);
    out.json = matches!(cli.command, Command::Run { format: Format::Json, .. });
    out.command = cli.command.name();
    let code = match &cli.command {
        Command::Run {
            file,
            all_orders: true,
            max_schedules,
            list,
            format,
            run,
            ..
        } => cmd_all_orders(&out, file, *format == Format::Json, *max_schedules, *list, run),
        Command::Run {
            file,
            verbose,
            format,
            run,
            explain,
            ..
        } => cmd_run(&out, file, *verbose, *explain, *format, run),
        Command::Check { files, run, .. } => cmd_check(&out, files, run),
        Command::Test { paths, run } => cmd_test(&out, paths, run),
        #[cfg(not(target_family = "wasm"))]
        Command::EmitJs { file, scale } => cmd_emit_js(&out, file, *scale),
        #[cfg(not(target_family = "wasm"))]
        Command::Verify { files, runs, scale, jobs } => cmd_verify(&out, files, *runs, *scale, *jobs),
        #[cfg(target_family = "wasm")]
        Command::EmitJs { .. } => native_only(&out, "emit-js writes a Node.js program"),
        #[cfg(target_family = "wasm")]
        Command::Verify { .. } => native_only(&out, "verify starts real `node` processes"),
    };
    code as u8
}

/// What `run --all-orders` searches: why Node 10 (the flag or a file's
/// directive) is refused.
macro_rules! all_orders_node_20 {
    () => {
        "--all-orders searches the real loop of Node 20 and later"
    };
}

/// Why `run --all-orders --node 10` is refused (exit 2).
pub const ALL_ORDERS_NODE_10: &str = concat!(
    all_orders_node_20!(),
    "; --node 10 changes only the model's drain rule (drop one of them)"
);

/// A combination of flags that cannot work together, which clap's own
/// `conflicts_with` cannot say (it depends on values): refused, exit 2.
fn conflict(command: &Command) -> Option<&'static str> {
    let files = match command {
        Command::Check { files, .. } | Command::Test { paths: files, .. } => &files[..],
        #[cfg(not(target_family = "wasm"))]
        Command::Verify { files, .. } => &files[..],
        _ => &[],
    };
    if files.iter().filter(|f| *f == Path::new(STDIN)).count() > 1 {
        return Some("standard input (`-`) can be read only once: name it once, or save it to a file and name that");
    }
    if let Command::Check { explain: true, .. } = command {
        return Some("check has no --explain: a failed prediction always says why the line ran there, and `loopsim run --explain FILE` explains every line");
    }
    let Command::Run {
        all_orders,
        explain,
        verbose,
        format,
        run,
        ..
    } = command
    else {
        return None;
    };
    let picture = matches!(format, Format::Svg | Format::Html);
    if *verbose && picture {
        Some("--format svg and html always draw every event: --verbose adds nothing there (drop it)")
    } else if run.no_race_check && run.orders_time_limit.is_some() && !*all_orders {
        Some("--orders-time-limit bounds the race check, which --no-race-check turns off (drop one of them)")
    } else if *all_orders && picture {
        Some("--all-orders lists orders as text or JSON; --format svg and html draw one run (drop one of them)")
    } else if *all_orders && run.node.as_deref() == Some("10") {
        Some(ALL_ORDERS_NODE_10)
    } else if *explain && picture {
        Some("--explain writes under each trace line (text, or JSON's \"explanations\"); the picture has no room for it (drop one of them)")
    } else {
        None
    }
}

/// Where output goes, and whether it is coloured.
struct Output<'h> {
    host: &'h dyn Host,
    stdout_color: bool,
    handler: miette::GraphicalReportHandler,
    /// `run --format json`: a file that cannot run also gives its problems
    /// as JSON on standard output ([`Output::json_problems`]).
    json: bool,
    /// The command run (`run`, `check`, …), for hints that name it.
    command: &'static str,
}

/// A line on standard output: `say!(out, "…", …)`.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        $out.host.write(Stream::Stdout, format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}

/// A line on standard error: `tell!(out, "…", …)`.
macro_rules! tell {
    ($out:expr, $($arg:tt)*) => {
        $out.host.write(Stream::Stderr, format!("{}\n", format_args!($($arg)*)).as_bytes())
    };
}

/// A diagnostic's line cut into words for wrapping: after each run of
/// spaces, but not inside a backticked span (`loopsim run --all-orders`,
/// `timeout 5 "label"`), which stays one word when it fits the room a line
/// has ([`CODE_ROOM`]); a longer one is cut at its spaces, not inside a word.
fn words_keeping_code(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
    // (Unbounded in the WebAssembly build, which asks no terminal.)
    let room = if cfg!(target_family = "wasm") {
        usize::MAX
    } else {
        CODE_ROOM.with(std::cell::Cell::get)
    };
    let mut words = Vec::new();
    let (mut start, mut in_code, mut after_space, mut whole) = (0, false, false, true);
    for (i, c) in line.char_indices() {
        if c != ' ' && after_space && !(in_code && whole) {
            words.push(textwrap::core::Word::from(&line[start..i]));
            start = i;
        }
        if c == '`' {
            in_code = !in_code;
            // The span with its backticks (unclosed: the rest of the line).
            whole = room == usize::MAX || {
                let span = line[i + 1..].find('`').map_or(&line[i..], |end| &line[i..i + end + 2]);
                span.chars().count() <= room
            };
        }
        after_space = c == ' ';
    }
    if start < line.len() {
        words.push(textwrap::core::Word::from(&line[start..]));
    }
    Box::new(words.into_iter())
}

thread_local! {
    /// The widest a backticked span may be and stay one word, in columns:
    /// a help line's room on the terminal (its width less [`HELP_INDENT`]),
    /// set where the output is made; unbounded off a
    /// terminal, where lines are 200 columns wide.
    static CODE_ROOM: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// The narrowest a terminal's diagnostics are wrapped to, in columns.
#[cfg(not(target_family = "wasm"))]
const MIN_WIDTH: usize = 40;

/// The columns a help line's text cannot take: the 8 before it (`  help: `)
/// and the 2 miette keeps free after it.
#[cfg(not(target_family = "wasm"))]
const HELP_INDENT: usize = 10;

impl<'h> Output<'h> {
    /// Colour follows `--color always|never`, or for `auto` the host's
    /// choice for each stream ([`Host::auto_color`]: on this machine,
    /// anstream's rules — a terminal without `NO_COLOR`, not `TERM=dumb`;
    /// `CLICOLOR_FORCE` forces it).
    fn new(choice: ColorChoice, host: &'h dyn Host) -> Self {
        let decide = |stream: Stream| match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => host.auto_color(stream),
        };
        let theme = if decide(Stream::Stderr) {
            miette::GraphicalTheme::unicode()
        } else {
            miette::GraphicalTheme::unicode_nocolor()
        };
        // Wrapped between words only, and never inside a backticked span
        // (a command a help line names, `loopsim run --all-orders`, stays
        // whole on one line): on a terminal to its width, off one at
        // miette's 200 columns, as the npm package's output is (the
        // WebAssembly build asks no terminal).
        let handler = miette::GraphicalReportHandler::new_themed(theme)
            .with_word_separator(textwrap::WordSeparator::Custom(words_keeping_code))
            .with_word_splitter(textwrap::WordSplitter::NoHyphenation);
        #[cfg(not(target_family = "wasm"))]
        let handler = match host.stderr_width() {
            Some(width) => {
                CODE_ROOM.with(|room| room.set(width.max(MIN_WIDTH) - HELP_INDENT));
                handler.with_width(width.max(MIN_WIDTH))
            }
            None => {
                CODE_ROOM.with(|room| room.set(usize::MAX));
                handler
            }
        };
        Output {
            host,
            stdout_color: decide(Stream::Stdout),
            handler,
            json: false,
            command: "run",
        }
    }

    /// With `run --format json`, `{"title": FILE, "diagnostics": [...]}` on
    /// standard output for a file that cannot run (the text stays on
    /// standard error): each problem as [`crate::problem::JsonProblem`].
    fn json_problems(&self, name: &str, problems: impl FnOnce() -> Vec<crate::problem::JsonProblem>) {
        if self.json {
            let doc = serde_json::json!({ "title": name, "diagnostics": problems() });
            // Pretty-printed, as a trace is.
            say!(self, "{}", crate::term::json_text(&crate::term::Integers(&doc)));
        }
    }

    /// Standard output, buffered (a large trace is written as it is made).
    fn stdout(&self) -> std::io::BufWriter<host::Writer<'h>> {
        std::io::BufWriter::with_capacity(64 << 10, host::Writer::new(self.host, Stream::Stdout))
    }

    fn problems(&self, problems: &FileProblems) {
        self.host.write(Stream::Stderr, problems.render(&self.handler).as_bytes());
    }

    fn one(&self, loaded: &Loaded, problem: Problem) {
        self.problems(&FileProblems::new(&loaded.name, &loaded.src, vec![problem]));
    }

    /// Loads a file for a command; `node`: the `--node` it runs with, if any
    /// (else the file's `node N`, else Node 26).
    fn load(&self, path: &Path, node: Option<crate::sched::NodeProfile>) -> Result<Loaded, Exit> {
        self.load_warning_if(path, node, |_| true)
    }

    /// [`Output::load`], its warnings printed only when `warn` says so of
    /// the file (`test` skips a file without an `expect` block, silently).
    fn load_warning_if(&self, path: &Path, node: Option<crate::sched::NodeProfile>, warn: fn(&Loaded) -> bool) -> Result<Loaded, Exit> {
        let name = shown(path);
        let loaded = self
            .host
            .read(path)
            .map_err(|error| LoadError::Io { name: name.clone(), error })
            .and_then(|bytes| load::load_vec(&name, bytes));
        match loaded {
            Ok(loaded) => {
                // `--node 10` with promise statements: refused (V8 6.8's await took 3 hops).
                let refused = crate::check::promises::node_version(&loaded.file, node);
                let mut shown = if warn(&loaded) { loaded.warnings.clone() } else { Vec::new() };
                shown.extend(refused.clone());
                if refused.is_some() {
                    self.json_problems(&loaded.name, || crate::problem::to_json(&loaded.src, &shown));
                }
                if !shown.is_empty() {
                    self.problems(&FileProblems::new(&loaded.name, &loaded.src, shown));
                }
                if refused.is_some() {
                    return Err(Exit::Invalid);
                }
                Ok(loaded)
            }
            Err(LoadError::Io { name, error }) => {
                let kind = self.host.kind(path, true);
                let mut folder = String::new();
                let hint = if kind.as_ref().is_ok_and(|k| *k == Kind::Dir) {
                    // The folder named (quoted for a shell natively; in the
                    // WebAssembly, for its size budget, only a name that
                    // needs no quoting, else FOLDER).
                    // (`--` before a name that starts with `-`: fresh-clone
                    // helper 77.)
                    #[cfg(not(target_family = "wasm"))]
                    let named = if name.starts_with('-') {
                        format!("-- {}", shell_word(&name))
                    } else {
                        shell_word(&name)
                    };
                    #[cfg(target_family = "wasm")]
                    let named = if unquoted(&name) { name.as_str() } else { "FOLDER" };
                    folder = format!("; for a folder, use `loopsim test {named}`");
                    folder.as_str()
                } else if path == Path::new(STDIN) && kind.is_ok_and(|k| matches!(k, Kind::Other(_))) {
                    folder = format!(
                        "; standard input (`-`) is a terminal or a device here: redirect a file to it, `loopsim {0} - < FILE`, or pipe one, `cat FILE | loopsim {0} -`",
                        self.command
                    );
                    folder.as_str()
                } else {
                    #[cfg(not(target_family = "wasm"))]
                    if error.kind() == std::io::ErrorKind::NotFound {
                        if let Some(near) = nearby_file(path) {
                            folder = format!("; did you mean {}?", shell_word(&near));
                        }
                    }
                    folder.as_str()
                };
                let message = format!(
                    "cannot read {}: {}{hint}",
                    if name.is_empty() { "''".into() } else { escape(&name) },
                    io_words(&error, "file")
                );
                self.json_problems(&name, || {
                    vec![crate::problem::JsonProblem {
                        severity: "error",
                        code: crate::problem::IO_CODE,
                        message: message.clone(),
                        help: None,
                        labels: Vec::new(),
                    }]
                });
                tell!(self, "error: {message}");
                Err(Exit::Invalid)
            }
            Err(LoadError::Invalid(problems)) => {
                let src = problems.src.inner();
                self.json_problems(problems.src.name(), || crate::problem::to_json(src, &problems.problems));
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
    let loaded = match out.load(path, args.node_version()) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if let Some(note) = loaded.no_statements_note() {
        tell!(out, "note: {note}");
    }
    // A picture is drawn from a verbose trace: one run serves both.
    let picture = matches!(format, Format::Svg | Format::Html);
    let spinner = run_spinner(&loaded.name);
    let mut trace = run_file(
        &loaded,
        RunOptions {
            explain,
            ..args.options(verbose || picture)
        },
    );
    drop(spinner);
    // On stderr for a picture and JSON too, as the limit's diagnostic is
    // (fresh-clone helpers 85, 86: JSON had no word of the chain).
    let stopped = match &trace.ending {
        crate::trace::Ending::Limit(hit) => Some(hit),
        _ => None,
    };
    unbounded_note(out, &loaded, args, stopped);
    // The race check (up to 2 s) after the trace, which is shown at once,
    // and after what stopped the run: a long trace does not push its
    // warning out of sight. JSON waits for it, to hold its warning.
    let json = format == Format::Json;
    let mut race = if json { Some(run_race_check(&loaded, args, &trace)) } else { None };
    let mut stdout = out.stdout();
    let _ = match format {
        Format::Text => trace.write_text(&mut stdout, verbose, &Style { color: out.stdout_color }),
        // Written as it is serialized: a large trace is not held twice.
        // The limit that stopped the run and the race warning, if any, as
        // `"diagnostics"` (JSON problems, as for a file that cannot run).
        Format::Json => {
            let limit = match &trace.ending {
                Ending::Limit(hit) => Some(crate::limit::problem(hit)),
                _ => None,
            };
            let shown: Vec<Problem> = limit.into_iter().chain(race.as_ref().and_then(|r| r.0.clone())).collect();
            trace.diagnostics = crate::problem::to_json(&loaded.src, &shown);
            crate::term::write_json(&mut stdout, &trace).and_then(|()| stdout.write_all(b"\n"))
        }
        Format::Svg => stdout.write_all(crate::render::to_svg(&trace).as_bytes()),
        Format::Html => stdout.write_all(crate::render::to_html(&trace).as_bytes()),
    };
    let _ = stdout.flush();
    drop(stdout);
    let code = match &trace.ending {
        // The simulated process ended (exit 1 or 13, said in the trace); loopsim ran it fully.
        Ending::Finished { .. } | Ending::Unhandled { .. } | Ending::Unsettled { .. } => Exit::Ok,
        Ending::Limit(hit) => {
            out.one(&loaded, crate::limit::problem(hit));
            Exit::Limit
        }
    };
    let (warning, note) = match race.take() {
        Some(checked) => checked,
        None => run_race_check(&loaded, args, &trace),
    };
    if let Some(warning) = warning {
        out.one(&loaded, warning);
    }
    if let Some(note) = note {
        tell!(out, "note: {}: {note}", escape(&loaded.name));
    }
    leave_to_exit(trace);
    leave_to_exit(loaded);
    code
}

/// `run`'s race check of `trace` ([`crate::orders::race_check`]): none with
/// `--no-race-check` or under Node 10.
fn run_race_check(loaded: &Loaded, args: &RunArgs, trace: &Trace) -> (Option<Problem>, Option<String>) {
    let profile = args.options(false).profile(&loaded.file);
    if args.no_race_check || profile == crate::sched::NodeProfile::Node10 {
        return (None, None);
    }
    let bounds = args.bounds(SearchBounds::race_check());
    let opts = args.options(false);
    let command = crate::verdict::all_orders_command(&loaded.name, &crate::verdict::search_flags(&opts, args.time_limit()));
    crate::orders::race_check(&loaded.file, &loaded.src, opts, bounds, trace, &command)
}

/// The note before a text answer naming the first statement that repeats
/// until a limit stops the run (`run`, `run --all-orders`), with the turn
/// and callback limits in force and how each was raised for the file, or
/// the bound that stopped it when another did (log lines, waiting callbacks, …).
fn unbounded_note(out: &Output, loaded: &Loaded, args: &RunArgs, stopped: Option<&crate::trace::LimitHit>) {
    // Only for a run a limit stopped while a chain went on (not for an
    // `interval` cleared and a run that ends: fresh-clone helper 82), and
    // for the chain the limit is named for, or that holds the line it
    // stopped at, not the first in the file.
    // (Not in the WebAssembly build, for its size budget: there the limit's
    // own help names the chain it stopped, as natively.)
    let Some(hit) = stopped.filter(|hit| !hit.bounded && !cfg!(target_family = "wasm")) else {
        return;
    };
    let body = &loaded.file.body;
    if let Some(span) = crate::bound::endless_around(body, hit.span).or_else(|| crate::bound::first_unbounded(body)) {
        let opts = args.options(false);
        let limits = interp::resolve_limits(&loaded.file, opts).limits;
        let line = loaded.src[..span.start()].matches('\n').count() + 1;
        let head = loaded.src[span.start()..span.end()].lines().next().unwrap_or("");
        // How each default was raised for the file (rule 7), if it was.
        let raised = |limit, max: u64, noun: &str| {
            let n = crate::render::thousands(max);
            let noun = if max == 1 { noun } else { &format!("{noun}s") };
            let raise = opts
                .auto_limits
                .then(|| crate::bound::raise(limit, max, false, crate::bound::callbacks(&loaded.file)))
                .flatten();
            raise.map_or_else(|| format!("{n} {noun}"), |r| format!("{n} {noun} ({r})"))
        };
        // The turn and callback limits, which the user sets, or the bound
        // that stopped it first (fresh-clone helper 81: a logging chain
        // stopped at 2,000,000 log lines was told of the other two).
        let limits = match hit.limit {
            LimitKind::Turns | LimitKind::Callbacks => format!(
                "{} or {} (--max-turns, --max-callbacks)",
                raised(LimitKind::Turns, limits.max_turns, "turn"),
                raised(LimitKind::Callbacks, limits.max_callbacks, "callback")
            ),
            other => format!("here {}", crate::problem::limit_reached(other, hit.max)),
        };
        tell!(
            out,
            "note: `{}` (line {line}) has no `times`: it repeats until a limit stops the run: {limits}",
            // (Cut as a diagnostic's label is: a label may be megabytes long.)
            crate::term::cut(&escape(head.trim_end_matches('{').trim()), crate::problem::MAX_LABEL),
        );
    }
}

/// Leaves a value the process no longer needs to the process's exit, which
/// returns its memory at once, instead of dropping it: freeing a syntax tree or
/// a trace of a million nodes one allocation at a time takes longer than the
/// rest of the work on some files. Only for what a command holds until it ends.
fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// `run --all-orders`: exit 3 when the model's run hit a limit (as `run`
/// does) or a bound cut the search short (the orders listed are a partial answer).
fn cmd_all_orders(out: &Output, path: &Path, json: bool, max_schedules: Option<u64>, list: bool, args: &RunArgs) -> Exit {
    let loaded = match out.load(path, args.node_version()) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if args.options(false).profile(&loaded.file) == crate::sched::NodeProfile::Node10 {
        // The file's `node 10`, as `--node 10` (refused before the file is read).
        tell!(
            out,
            concat!(
                "error: {}: ",
                all_orders_node_20!(),
                "; the file's `node 10` changes only the model's drain rule (`--node 20` or later overrides it)"
            ),
            escape(&loaded.name)
        );
        return Exit::Invalid;
    }
    if let Some(note) = loaded.no_statements_note() {
        tell!(out, "note: {note}");
    }
    let mut bounds = args.bounds(SearchBounds::default());
    if let Some(n) = max_schedules {
        bounds.max_schedules = usize::try_from(n).unwrap_or(usize::MAX);
    }
    let (spinner, progress) = spinner(&loaded.name, bounds.time_limit);
    bounds.progress = progress;
    let orders = crate::orders::all_orders_within(&loaded.file, &loaded.src, args.options(false), bounds);
    drop(spinner);
    unbounded_note(out, &loaded, args, orders.model_limit.as_ref());
    let text = if json {
        crate::orders::report::json(&orders, &loaded.src)
    } else {
        crate::orders::report::text(&orders, list)
    };
    let mut stdout = out.stdout();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    drop(stdout);
    if let Some(hit) = &orders.model_limit {
        out.one(&loaded, crate::limit::problem(hit));
    }
    let code = if orders.model_limit.is_some() || orders.truncated {
        Exit::Limit
    } else {
        Exit::Ok
    };
    // Up to 10,000 orders of many lines each: freed by the process's exit.
    leave_to_exit(orders);
    code
}

/// A progress spinner on stderr for a search about `what` that stops at
/// `limit` (shown on a terminal once it runs long; cleared when dropped),
/// and the counters to give the search. None in WebAssembly.
#[cfg(not(target_family = "wasm"))]
fn spinner(what: &str, limit: Option<Duration>) -> (progress::Spinner, Option<&'static crate::orders::Progress>) {
    let (spinner, counters) = progress::Spinner::start(what, limit);
    (spinner, Some(counters))
}

/// A spinner on stderr for a run of `what` that goes on past a second
/// (limits raised far), on a terminal only; cleared when dropped. None in
/// WebAssembly.
#[cfg(not(target_family = "wasm"))]
fn run_spinner(what: &str) -> progress::Spinner {
    progress::Spinner::running(what)
}

/// [`run_spinner`] in WebAssembly: none.
#[cfg(target_family = "wasm")]
fn run_spinner(_what: &str) -> NoSpinner {
    NoSpinner
}

/// [`spinner`] in WebAssembly: none.
#[cfg(target_family = "wasm")]
fn spinner(_what: &str, _limit: Option<Duration>) -> (NoSpinner, Option<&'static crate::orders::Progress>) {
    (NoSpinner, None)
}

/// What [`spinner`] gives in WebAssembly (no thread to draw one).
#[cfg(target_family = "wasm")]
struct NoSpinner;

/// The exit code of a failed prediction: 3 when a limit or a search bound is to blame.
fn fail_code(limit: bool) -> Exit {
    if limit {
        Exit::Limit
    } else {
        Exit::PredictionFailed
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

fn cmd_check(out: &Output, files: &[PathBuf], args: &RunArgs) -> Exit {
    let mut worst = Exit::Ok;
    let (mut passed, mut invalid) = (0, 0);
    for (i, path) in files.iter().enumerate() {
        let last = i + 1 == files.len();
        let code = match out.load(path, args.node_version()) {
            Err(code) => {
                invalid += 1;
                code
            }
            Ok(loaded) => {
                let code = check_loaded(out, &loaded, args);
                // The last file's tree is freed by the process's exit; the others' now.
                if last {
                    leave_to_exit(loaded);
                }
                code
            }
        };
        passed += usize::from(code == Exit::Ok);
        worst = worst.max(code);
    }
    // Several files: how many held (an unreadable or invalid file failed).
    if files.len() > 1 {
        say!(out, "{}", summary(passed, files.len() - passed, 0, invalid));
    }
    worst
}

/// `check`'s and `test`'s last line: "3 passed, 2 failed (1 stopped by a
/// limit, 1 unreadable or invalid)", the failed of each kind named.
fn summary(passed: usize, failed: usize, stopped: usize, invalid: usize) -> String {
    let mut of = Vec::new();
    if stopped > 0 {
        of.push(format!("{stopped} stopped by a limit"));
    }
    if invalid > 0 {
        of.push(format!("{invalid} unreadable or invalid"));
    }
    let of = if of.is_empty() {
        String::new()
    } else {
        format!(" ({})", of.join(", "))
    };
    format!("{passed} passed, {failed} failed{of}")
}

/// The verdict on one file's prediction for `check` and `test`, with the
/// command's options, under a progress spinner while its searches run.
fn verdict_of(loaded: &Loaded, args: &RunArgs) -> Verdict {
    let (spinner, progress) = spinner(&loaded.name, args.bounds(SearchBounds::default()).time_limit);
    let verdict = verdict(loaded, args.options(false), args.time_limit(), progress, !args.no_race_check);
    drop(spinner);
    verdict
}

/// `check` of one loaded file: its verdict printed, and its exit code.
fn check_loaded(out: &Output, loaded: &Loaded, args: &RunArgs) -> Exit {
    match verdict_of(loaded, args) {
        Verdict::Pass { lines: n, notes, race } => {
            say!(out, "ok: {} ({} as predicted)", escape(&loaded.name), lines(n));
            for note in notes {
                say!(out, "  note: {}", escape(&note));
            }
            if let Some(warning) = race {
                out.one(loaded, warning);
            }
            Exit::Ok
        }
        Verdict::Fail { problems, limit } => {
            out.problems(&FileProblems::new(&loaded.name, &loaded.src, problems));
            fail_code(limit)
        }
        Verdict::NoPrediction => {
            tell!(
                out,
                "no prediction: {} has no expect block (run it with `loopsim run`)",
                escape(&loaded.name)
            );
            Exit::PredictionFailed
        }
    }
}

fn cmd_test(out: &Output, paths: &[PathBuf], args: &RunArgs) -> Exit {
    let roots = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    let mut files = Vec::new();
    for root in &roots {
        if let Err(e) = collect(out, root, &mut files) {
            tell!(
                out,
                "error: cannot read {}: {}",
                escape(&shown(root)),
                io_words(&e, "file or folder")
            );
            return Exit::Invalid;
        }
    }
    let (mut passed, mut failed, mut worst) = (0, 0, Exit::Ok);
    // Of the failed, those a limit stopped (exit 3), and those unreadable or invalid.
    let (mut stopped, mut invalid) = (0, 0);
    let mut unpredicted = Vec::new();
    for path in &files {
        // (A file without a prediction is skipped: its warnings would be
        // about a file `test` does not check.)
        let loaded = match out.load_warning_if(path, args.node_version(), |l| l.file.expect.is_some()) {
            Ok(l) => l,
            Err(code) => {
                say!(
                    out,
                    "ERROR {}: unreadable or not a valid .loop file (its error is on stderr)",
                    escape(&shown(path))
                );
                failed += 1;
                invalid += 1;
                worst = worst.max(code);
                continue;
            }
        };
        match verdict_of(&loaded, args) {
            Verdict::NoPrediction => unpredicted.push(escape(&loaded.name).into_owned()),
            Verdict::Pass { lines: n, notes, race } => {
                let racy = if race.is_some() {
                    "; the model's order, Node has others"
                } else {
                    ""
                };
                say!(out, "PASS  {} ({}{racy})", escape(&loaded.name), lines(n));
                for note in notes {
                    say!(out, "      note: {}", escape(&note));
                }
                if let Some(warning) = race {
                    say!(
                        out,
                        "      warning: {}: {}",
                        escape(&warning.message),
                        escape(&warning.help.unwrap_or_default())
                    );
                }
                passed += 1;
            }
            Verdict::Fail { problems, limit } => {
                say!(
                    out,
                    "FAIL  {}: {}{}",
                    escape(&loaded.name),
                    term::cut(&escape(&problems[0].message), MAX_MESSAGE),
                    if limit { " (a limit stopped the run)" } else { "" }
                );
                out.problems(&FileProblems::new(&loaded.name, &loaded.src, problems));
                failed += 1;
                stopped += usize::from(limit);
                worst = worst.max(fail_code(limit));
            }
        }
    }
    if !unpredicted.is_empty() {
        const SHOWN: usize = 5;
        let more = match unpredicted.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        tell!(
            out,
            "note: skipped {} without an expect block (nothing to check): {}{more}",
            crate::term::counted(unpredicted.len() as u64, "file"),
            unpredicted[..unpredicted.len().min(SHOWN)].join(", ")
        );
    }
    say!(out, "{}", summary(passed, failed, stopped, invalid));
    if passed + failed == 0 {
        let under: Vec<String> = roots.iter().map(|r| escape(&shown(r)).into_owned()).collect();
        tell!(
            out,
            "error: nothing was checked: no .loop file with an expect block among {}",
            under.join(", ")
        );
        return worst.max(Exit::PredictionFailed);
    }
    worst
}

/// A folder holding a file of this name is not walked by `test` (unless it is
/// the folder given): its `.loop` files are not predictions (the files that
/// are invalid on purpose, under `tests/`). The file's first line says why.
pub const SKIP_MARKER: &str = ".loopsim-skip";

/// Every `.loop` file under `path` (a file or a folder), in order of name
/// (a folder's entries sorted by name, each folder's files before the next
/// entry: depth first); what is skipped gets a note on stderr. Symbolic links
/// to folders are not followed (a link to `.` would make the walk endless); a
/// link to a file is. Named pipes, devices and sockets named `*.loop` are
/// skipped (reading one could wait forever); a path given by name is checked
/// when it is loaded. Hidden folders (`.git`) and `target` are not walked.
fn collect(out: &Output, path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if out.host.kind(path, true)? != Kind::Dir {
        files.push(path.to_path_buf());
        return Ok(());
    }
    // The folder given is walked even when it is a link.
    walk(out, path, files)
}

/// `error` about `path`, saying which.
fn at(path: &Path) -> impl Fn(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// [`collect`]'s walk of one folder.
fn walk(out: &Output, dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let skip = |path: &Path, why: &str| tell!(out, "note: skipped {}: {why}", escape(&path.display().to_string()));
    // An error names the path it is about (the message starts "cannot read ROOT").
    let mut names = out.host.names(dir).map_err(at(dir))?;
    crate::sort::sort(&mut names);
    for name in names {
        let path = dir.join(&name);
        let is_loop = path.extension().is_some_and(|e| e == "loop");
        match out.host.kind(&path, false).map_err(at(&path))? {
            Kind::Dir => {
                if let Ok(why) = out.host.read(&path.join(SKIP_MARKER)) {
                    let why = String::from_utf8_lossy(&why);
                    let why = why.lines().next().unwrap_or("").trim();
                    skip(&path, &format!("its {SKIP_MARKER} file says: {why}"));
                } else if !(name.to_string_lossy().starts_with('.') || name == "target") {
                    walk(out, &path, files)?;
                }
            }
            Kind::Symlink => match out.host.kind(&path, true) {
                Ok(Kind::Dir) => skip(&path, "a symbolic link to a folder (not followed)"),
                Ok(Kind::File) if is_loop => files.push(path),
                Ok(target) if is_loop => skip(&path, &format!("a symbolic link to {}, not to a regular file", target.describe())),
                Err(e) if is_loop => skip(&path, &format!("a symbolic link that cannot be followed ({e})")),
                _ => {}
            },
            Kind::File if is_loop => files.push(path),
            kind if is_loop => skip(&path, &format!("not a regular file ({})", kind.describe())),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(not(target_family = "wasm"))]
fn cmd_emit_js(out: &Output, path: &Path, scale: u64) -> Exit {
    let loaded = match out.load(path, None) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let opts = crate::emit::EmitOptions {
        scale,
        name: loaded.name.clone(),
    };
    let program = match crate::emit::emit(&loaded.file, &loaded.src, &opts) {
        Ok(p) => p,
        Err(problems) => {
            out.problems(&FileProblems::new(&loaded.name, &loaded.src, problems));
            return Exit::Invalid;
        }
    };
    let mut stdout = out.stdout();
    let _ = stdout.write_all(program.js.as_bytes());
    let _ = stdout.flush();
    Exit::Ok
}

/// `emit-js` and `verify` in the WebAssembly build (the npm package): not
/// there, to keep the module small; `what` says what the command does.
#[cfg(target_family = "wasm")]
fn native_only(out: &Output, what: &str) -> Exit {
    tell!(
        out,
        "error: {what}: it is in the loopsim binary only (`cargo install --path .` in loopsim's repository), not in the npm package"
    );
    Exit::Invalid
}

#[cfg(not(target_family = "wasm"))]
fn cmd_verify(out: &Output, files: &[PathBuf], runs: u32, scale: u64, jobs: Option<u32>) -> Exit {
    // Every file is loaded, emitted and planned first: one that is invalid, has
    // a timer Node would clamp at this scale, or whose run would last too long,
    // is refused before anything runs.
    let mut loaded = Vec::new();
    let mut worst = Exit::Ok;
    for path in files {
        let l = match out.load(path, None) {
            Ok(l) => l,
            Err(code) => {
                worst = worst.max(code);
                continue;
            }
        };
        let opts = crate::emit::EmitOptions {
            scale,
            name: l.name.clone(),
        };
        // How long a run lasts first: a run past the clock's limit is told
        // in years (`verify-too-long`), not only refused by `emit`.
        let plan = match crate::verify::plan(&l, scale) {
            Ok(plan) => plan,
            Err(problem) => {
                out.one(&l, *problem);
                worst = worst.max(Exit::Invalid);
                continue;
            }
        };
        match crate::emit::emit(&l.file, &l.src, &opts) {
            Ok(program) => loaded.push((l, program, plan)),
            Err(problems) => {
                out.problems(&FileProblems::new(&l.name, &l.src, problems));
                worst = worst.max(Exit::Invalid);
            }
        }
    }
    if loaded.is_empty() {
        return worst;
    }
    let node = match crate::verify::node_version() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Invalid;
        }
    };
    let (profile, note) = crate::verify::profile_of(&node);
    if let Some(note) = note {
        eprintln!("note: {note}");
    }
    let opts = crate::verify::Options {
        runs,
        scale,
        jobs: jobs.map(|j| j as usize),
        node,
        profile,
    };
    if !crate::verify::verify(&loaded, &opts) {
        worst = worst.max(Exit::PredictionFailed);
    }
    worst
}
