//! loopsim in WebAssembly: what the playground (`web/static/app.js`) and the
//! npm package (`npm/bin/loopsim.js`) call. Every function takes and returns
//! strings (JSON where structured); docs/playground.md describes them.
//!
//! The texts are the CLI's own: [`run`], [`predict`] and the npm package's
//! [`cli`] run `loopsim::cli::run` on a [`Host`] that holds the file in
//! memory (or asks the JavaScript host for files), so the page and the package
//! print what `loopsim` prints.

use loopsim::cli::{self, Host, Kind, Request, Stream};
use loopsim::interp::{self, RunOptions};
use loopsim::load::{self, LoadError, Loaded};
use loopsim::orders::{self, SearchBounds};
use loopsim::problem::{FileProblems, JsonProblem};
use loopsim::sched::NodeProfile;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use wasm_bindgen::prelude::*;

// Every example (tests compare the page with the command line on each).
#[cfg(test)]
include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// loopsim's version (`loopsim --version` without the name).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The options every function takes (JSON; each key optional, `null` as
/// absent): `node`, `pool`, `name`, `timeLimitMs`.
#[derive(Debug, Default)]
pub struct Options {
    /// `--node`: "26", "24", "22", "20" or "10" (default: the file's `node N`, else 26).
    node: Option<String>,
    /// `--pool`: the thread-pool size, 1..=1024.
    pool: Option<u64>,
    /// The file's name in diagnostics (default `main.loop`).
    name: Option<String>,
    /// The bound on a search for orders, in milliseconds (default 2000; the
    /// CLI's `--orders-time-limit` is in whole seconds, rounded up here).
    time_limit_ms: Option<u64>,
}

impl Options {
    fn parse(options: &str) -> Result<Options, String> {
        if options.trim().is_empty() {
            return Ok(Options::default());
        }
        // Read from a JSON value, not with serde's derive: its error texts
        // format floats, and float formatting is about 6 KB of the module, gzipped.
        let value: Value = serde_json::from_str(options).map_err(|e| format!("bad options: {e}"))?;
        let Value::Object(keys) = value else {
            return Err("bad options: not a JSON object".into());
        };
        let mut opts = Options::default();
        for (key, value) in keys {
            let string = || match &value {
                Value::String(s) => Ok(Some(s.clone())),
                Value::Null => Ok(None),
                _ => Err(format!("bad options: {key} is not a string")),
            };
            let whole = || match &value {
                Value::Null => Ok(None),
                v => v
                    .as_u64()
                    .map(Some)
                    .ok_or_else(|| format!("bad options: {key} is not a whole number")),
            };
            match key.as_str() {
                "node" => opts.node = string()?,
                "pool" => opts.pool = whole()?,
                "name" => opts.name = string()?,
                "timeLimitMs" => opts.time_limit_ms = whole()?,
                _ => return Err(format!("bad options: unknown key {key:?} (node, pool, name, timeLimitMs)")),
            }
        }
        if let Some(n) = &opts.node {
            if !["10", "20", "22", "24", "26"].contains(&n.as_str()) {
                return Err(format!("bad options: node {n:?} is not one of 26, 24, 22, 20, 10"));
            }
        }
        if opts.pool.is_some_and(|p| !(1..=1024).contains(&p)) {
            return Err("bad options: pool is 1..=1024".into());
        }
        Ok(opts)
    }

    fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| "main.loop".into())
    }

    fn profile(&self) -> Option<NodeProfile> {
        self.node.as_deref().and_then(|n| NodeProfile::from_major(n.parse().ok()?))
    }

    fn time_limit_ms(&self) -> u64 {
        self.time_limit_ms.unwrap_or(2000).min(86_400_000)
    }

    /// The CLI request for `file` with these options (`run`, text, race check on).
    fn request(&self, file: &str) -> Request {
        Request {
            file: PathBuf::from(file),
            node: self.node.clone(),
            pool: self.pool,
            orders_time_limit: Some(self.time_limit_ms().div_ceil(1000)),
            ..Request::default()
        }
    }

    fn run_options(&self) -> RunOptions {
        RunOptions {
            pool: self.pool,
            node: self.profile(),
            auto_limits: true,
            ..RunOptions::default()
        }
    }
}

/// A host holding files in memory, collecting what is written.
#[derive(Default)]
struct Memory {
    files: Vec<(PathBuf, Vec<u8>)>,
    stdout: RefCell<Vec<u8>>,
    stderr: RefCell<Vec<u8>>,
    /// Bytes written past [`MAX_PAGE_TEXT`] (not kept), per stream.
    dropped: RefCell<[usize; 2]>,
}

/// Most bytes of one stream the page is given (1 MiB): the command line
/// prints all of a trace of millions of lines; the page shows its start and
/// says how much more there is.
pub const MAX_PAGE_TEXT: usize = 1 << 20;

/// Most trace events (`trace.events` of [`run`]) the page is given; the rest
/// are counted in `eventsCut`.
pub const MAX_PAGE_EVENTS: usize = 10_000;

impl Memory {
    fn with(name: &str, text: &str) -> Memory {
        Memory {
            files: vec![(PathBuf::from(name), text.as_bytes().to_vec())],
            ..Memory::default()
        }
    }

    /// Runs the CLI's `request`: (exit code, stdout, stderr), each stream at
    /// most [`MAX_PAGE_TEXT`] bytes, cut at a line's end, then a line saying
    /// how much was left out.
    fn cli(&self, request: &Request) -> (u8, String, String) {
        self.stdout.borrow_mut().clear();
        self.stderr.borrow_mut().clear();
        *self.dropped.borrow_mut() = [0, 0];
        let code = cli::request(request, self);
        let text = |b: &RefCell<Vec<u8>>, i: usize| cut_at_line(&b.borrow(), self.dropped.borrow()[i]);
        (code, text(&self.stdout, 0), text(&self.stderr, 1))
    }
}

impl Host for Memory {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "No such file or directory (os error 2)"))
    }

    fn kind(&self, path: &Path, _follow: bool) -> io::Result<Kind> {
        self.read(path).map(|_| Kind::File)
    }

    fn names(&self, _path: &Path) -> io::Result<Vec<OsString>> {
        Err(io::Error::new(io::ErrorKind::NotFound, "Not a directory (os error 20)"))
    }

    fn write(&self, stream: Stream, bytes: &[u8]) {
        let (buffer, i) = match stream {
            Stream::Stdout => (&self.stdout, 0),
            Stream::Stderr => (&self.stderr, 1),
        };
        let mut buffer = buffer.borrow_mut();
        let room = MAX_PAGE_TEXT.saturating_sub(buffer.len()).min(bytes.len());
        buffer.extend_from_slice(&bytes[..room]);
        self.dropped.borrow_mut()[i] += bytes.len() - room;
    }

    fn auto_color(&self, _stream: Stream) -> bool {
        false
    }
}

/// Loads `source` as the CLI would: the file, or its problems (the text they
/// point into: an invalid UTF-8 text is shown with replacement characters).
fn load_source(name: &str, source: &str, profile: Option<NodeProfile>) -> (Option<Loaded>, Vec<JsonProblem>) {
    match load::load_bytes(name, source.as_bytes()) {
        Ok(loaded) => {
            let refused = loopsim::check::promises::node_version(&loaded.file, profile);
            let mut shown = loaded.warnings.clone();
            shown.extend(refused.clone());
            let shown = loopsim::problem::to_json(source, &shown);
            (refused.is_none().then_some(loaded), shown)
        }
        Err(LoadError::Invalid(problems)) => {
            let text = problems.src.inner().clone();
            (None, loopsim::problem::to_json(&text, &problems.problems))
        }
        Err(LoadError::Io { error, .. }) => (
            None,
            vec![JsonProblem {
                severity: "error",
                code: loopsim::problem::IO_CODE,
                message: error.to_string(),
                help: None,
                labels: Vec::new(),
            }],
        ),
    }
}

/// A JSON array of strings (read as a JSON value: see [`Options::parse`]).
fn string_array(json: &str) -> Result<Vec<String>, String> {
    match serde_json::from_str(json).map_err(|e| e.to_string())? {
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => Ok(s),
                _ => Err("not a string".to_string()),
            })
            .collect(),
        _ => Err("not a JSON array".to_string()),
    }
}

fn plain_handler() -> miette::GraphicalReportHandler {
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
}

fn bad_options(message: &str) -> String {
    json_text(&json!({ "exit": 2, "diagnostics": [], "rendered": format!("error: {message}\n") }))
}

/// `loopsim run` of `source`: JSON with the exit code, the diagnostics (with
/// spans), the CLI's stderr (`rendered`), the JSON trace with explanations,
/// the text trace, the verbose trace, the SVG picture, the race warning and
/// one step per callback entered (see docs/playground.md).
#[wasm_bindgen]
pub fn run(source: &str, options: &str) -> String {
    let opts = match Options::parse(options) {
        Ok(o) => o,
        Err(e) => return bad_options(&e),
    };
    let name = opts.name();
    let memory = Memory::with(&name, source);
    let (loaded, diagnostics) = load_source(&name, source, opts.profile());
    let (exit, text, rendered) = memory.cli(&opts.request(&name));
    let Some(loaded) = loaded else {
        let mut out = json!({ "exit": exit, "diagnostics": diagnostics, "rendered": rendered });
        for key in ["trace", "text", "verbose", "svg", "raceWarning", "steps"] {
            out[key] = Value::Null;
        }
        return json_text(&out);
    };
    // The model's run: how it ends (a limit is a diagnostic), and the race check's seed.
    let plain = interp::run(&loaded.file, &loaded.src, &loaded.title(), opts.run_options());
    let mut diagnostics = diagnostics;
    if let loopsim::trace::Ending::Limit(hit) = &plain.ending {
        diagnostics.push(loopsim::limit::problem(hit).json(source));
    }
    let race = if rendered.contains("loop::race") {
        race_warning(&loaded, &opts, &plain, source)
    } else {
        Value::Null
    };
    // `run --format json --explain`'s trace for the page: its first events,
    // from a run stopped soon after them (explaining millions of callbacks
    // takes seconds), with the whole run's ending.
    let explained = interp::run(
        &loaded.file,
        &loaded.src,
        &loaded.title(),
        RunOptions {
            explain: true,
            ..bounded(&opts, MAX_PAGE_EVENTS as u64)
        },
    );
    let (trace, events_cut) = page_trace(explained, &plain);
    // `run --verbose` and `run --format svg` draw the same (verbose) trace.
    let drawn = interp::run(
        &loaded.file,
        &loaded.src,
        &loaded.title(),
        RunOptions {
            verbose: true,
            ..opts.run_options()
        },
    );
    let verbose = cut_text(drawn.to_text(true, &loopsim::trace::Style::default()));
    let svg = loopsim::render::to_svg(&drawn);
    json_text(&json!({
        "exit": exit,
        "diagnostics": diagnostics,
        "rendered": rendered,
        "trace": trace,
        "eventsCut": events_cut,
        "text": text,
        "verbose": verbose,
        "svg": svg,
        "raceWarning": race,
        "steps": steps(&loaded, &opts),
    }))
}

/// The race warning `run` shows ([`orders::race_check`]: for a prediction
/// with alternatives, only of an order they leave out), as a diagnostic
/// (`message`, `help`, the labels at the two statements).
fn race_warning(loaded: &Loaded, opts: &Options, trace: &loopsim::trace::Trace, source: &str) -> Value {
    let bounds = SearchBounds {
        time_limit: Some(std::time::Duration::from_millis(opts.time_limit_ms())),
        ..SearchBounds::race_check()
    };
    match orders::race_check(
        &loaded.file,
        &loaded.src,
        opts.run_options(),
        bounds,
        trace,
        "loopsim run --all-orders",
    )
    .0
    {
        Some(w) => to_value(&w.json(source)),
        None => Value::Null,
    }
}

/// The trace as `run --format json --explain` prints it, with at most
/// [`MAX_PAGE_EVENTS`] events (the first ones, and the explanations of the
/// log lines among them) and the ending of `whole`, the same run not stopped
/// early; and how many of `whole`'s events were left out.
fn page_trace(mut trace: loopsim::trace::Trace, whole: &loopsim::trace::Trace) -> (Value, usize) {
    use loopsim::trace::EventKind;
    trace.events.truncate(MAX_PAGE_EVENTS.min(whole.events.len()));
    let logs = trace.events.iter().filter(|e| matches!(e.kind, EventKind::Log { .. })).count();
    trace.explanations.truncate(logs);
    trace.ending = whole.ending.clone();
    let cut = whole.events.len() - trace.events.len();
    (to_value(&trace), cut)
}

/// `value` as compact JSON, its numbers written as integers
/// ([`loopsim::term::Integers`]: no float formatting in the WebAssembly).
fn json_text(value: &Value) -> String {
    serde_json::to_string(&loopsim::term::Integers(value)).unwrap_or_default()
}

/// `value` as JSON, written by [`loopsim::term::write_json`] and read back:
/// its types' `Serialize` is then compiled for the command line's serializer
/// only, not for `serde_json::to_value`'s too (size budget,
/// docs/playground.md).
fn to_value<T: serde::Serialize>(value: &T) -> Value {
    let mut out = Vec::new();
    loopsim::term::write_json(&mut out, value).map_or(Value::Null, |()| {
        String::from_utf8(out)
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null)
    })
}

/// `opts` with a run stopped after `callbacks` callbacks (and as many turns):
/// a prefix of the full run, which a limit only ends.
fn bounded(opts: &Options, callbacks: u64) -> RunOptions {
    RunOptions {
        auto_limits: false,
        limits: loopsim::sched::Limits {
            max_turns: callbacks.max(loopsim::sched::Limits::default().max_turns),
            max_callbacks: callbacks,
        },
        max_statements: callbacks.saturating_mul(1000),
        ..opts.run_options()
    }
}

/// `text` cut to [`MAX_PAGE_TEXT`] bytes at a line's end, with a line saying how much more.
fn cut_text(text: String) -> String {
    if text.len() <= MAX_PAGE_TEXT {
        return text;
    }
    cut_at_line(&text.as_bytes()[..MAX_PAGE_TEXT], text.len() - MAX_PAGE_TEXT)
}

/// The text of `kept`, the start of a stream whose `dropped` bytes more were
/// not kept: whole, or (when something was dropped) to its last line's end,
/// then a line saying how many bytes were left out.
fn cut_at_line(kept: &[u8], dropped: usize) -> String {
    if dropped == 0 {
        return String::from_utf8_lossy(kept).into_owned();
    }
    let end = kept.iter().rposition(|&c| c == b'\n').map_or(0, |n| n + 1);
    let more = dropped + kept.len() - end;
    format!(
        "{}… {more} more bytes: the page shows the first MiB (`loopsim run` prints them all)\n",
        String::from_utf8_lossy(&kept[..end])
    )
}

/// One step per callback entered: where and when it ran, the log lines
/// printed up to its end, and what waited in each queue as it started.
fn steps(loaded: &Loaded, opts: &Options) -> Value {
    use loopsim::trace::EventKind;
    // Stopped after the callbacks that get a snapshot: a run of millions
    // (P16's starvation) is not run once more for steps nobody can reach.
    let run = bounded(opts, interp::MAX_QUEUE_SNAPSHOTS as u64);
    let (trace, snapshots) = interp::run_with_queues(&loaded.file, &loaded.src, &loaded.title(), run);
    let mut steps: Vec<Value> = Vec::new();
    let mut logs = 0usize;
    for event in &trace.events {
        match &event.kind {
            EventKind::Log { .. } => {
                logs += 1;
                if let Some(last) = steps.last_mut() {
                    last["logs"] = json!(logs);
                }
            }
            EventKind::Call { kind, label, line, by } => {
                let call = steps.len();
                let Some(snapshot) = snapshots.get(call) else { break };
                // A resumption's body as the trace names it ("worker").
                let by = by.as_ref().map(ToString::to_string);
                steps.push(json!({
                    "call": call, "turn": event.turn, "tick": event.tick, "phase": event.phase,
                    "kind": kind, "label": label, "line": line, "logs": logs, "queues": snapshot.queues,
                    "by": by,
                }));
            }
            _ => {}
        }
    }
    Value::Array(steps)
}

/// `loopsim run --all-orders` of `source`: the exit code, the text (count,
/// race statements, the model's order), the JSON report and the stderr.
#[wasm_bindgen]
pub fn orders(source: &str, options: &str) -> String {
    let opts = match Options::parse(options) {
        Ok(o) => o,
        Err(e) => return bad_options(&e),
    };
    let name = opts.name();
    let (loaded, _) = load_source(&name, source, opts.profile());
    let (exit, text, report, rendered) = match loaded.filter(|_| opts.node.as_deref() != Some("10")) {
        // Invalid or refused: the CLI's own words (`run` loads it the same way).
        None if opts.node.as_deref() == Some("10") => (2, Value::Null, Value::Null, format!("error: {}\n", cli::ALL_ORDERS_NODE_10)),
        None => {
            // (No time limit: with no search, `run` refuses one.)
            let (exit, _, rendered) = Memory::with(&name, source).cli(&Request {
                no_race_check: true,
                orders_time_limit: None,
                ..opts.request(&name)
            });
            (exit, Value::Null, Value::Null, rendered)
        }
        Some(loaded) => {
            let bounds = SearchBounds {
                time_limit: Some(std::time::Duration::from_millis(opts.time_limit_ms())),
                ..SearchBounds::default()
            };
            let found = orders::all_orders_within(&loaded.file, &loaded.src, opts.run_options(), bounds);
            let text = orders::report::text(&found, false);
            let report: Value = serde_json::from_str(&orders::report::json(&found, &loaded.src)).unwrap_or(Value::Null);
            let rendered = match &found.model_limit {
                Some(hit) => FileProblems::new(&loaded.name, &loaded.src, vec![loopsim::limit::problem(hit)]).render(&plain_handler()),
                None => String::new(),
            };
            let exit = if found.model_limit.is_some() || found.truncated { 3 } else { 0 };
            (exit, Value::String(text), report, rendered)
        }
    };
    json_text(&json!({ "exit": exit, "text": text, "report": report, "rendered": rendered }))
}

/// `source` with its `expect` block (if any) replaced by one predicting `lines`.
fn with_prediction(source: &str, lines: &[String]) -> String {
    let body = match load::load_bytes("main.loop", source.as_bytes()) {
        Ok(l) => match &l.file.expect {
            Some(e) => {
                // The block's span starts at its body; the keyword is before it.
                let head = source[..e.span.start()].trim_end();
                let start = head.strip_suffix("expect").map_or(e.span.start(), str::len);
                let end = e.or.iter().map(|o| o.span.end()).fold(e.span.end(), usize::max);
                format!("{}{}", &source[..start], &source[end..])
            }
            None => source.to_string(),
        },
        Err(_) => source.to_string(),
    };
    let mut out = body.trim_end().to_string();
    out.push_str("\n\nexpect {\n");
    for line in lines {
        out.push_str("  \"");
        for c in line.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => {}
                c => out.push(c),
            }
        }
        out.push_str("\"\n");
    }
    out.push_str("}\n");
    out
}

/// `loopsim check` of `source` with its prediction replaced by `lines` (a
/// JSON array of log-line texts): the exit code, whether it holds, the CLI's
/// output, and at a wrong prediction the first wrong line (0-based), what
/// was expected, what ran there and why.
#[wasm_bindgen]
pub fn predict(source: &str, lines: &str, options: &str) -> String {
    let opts = match Options::parse(options) {
        Ok(o) => o,
        Err(e) => return bad_options(&e),
    };
    let lines = match string_array(lines) {
        Ok(l) => l,
        Err(e) => return bad_options(&format!("lines: {e}")),
    };
    let name = opts.name();
    let composed = with_prediction(source, &lines);
    let memory = Memory::with(&name, &composed);
    let (exit, stdout, stderr) = memory.cli(&Request {
        check: true,
        ..opts.request(&name)
    });
    let text = format!("{stdout}{stderr}");
    let mut first_wrong = Value::Null;
    let (mut got, mut help, mut message) = (Value::Null, Value::Null, Value::Null);
    if exit != 0 {
        if let (Some(loaded), _) = load_source(&name, &composed, opts.profile()) {
            let time = Some(std::time::Duration::from_millis(opts.time_limit_ms()));
            if let loopsim::verdict::Verdict::Fail { problems, .. } =
                loopsim::verdict::verdict(&loaded, opts.run_options(), time, None, true)
            {
                if let (Some(p), Some(expect)) = (problems.first(), &loaded.file.expect) {
                    let at = p.span.start();
                    if let Some(i) = expect
                        .lines
                        .iter()
                        .position(|l| l.span.start() <= at && at < l.span.end().max(l.span.start() + 1))
                    {
                        first_wrong = json!(i);
                    }
                    message = json!(p.message);
                    got = json!(p.label.strip_prefix("actually: ").unwrap_or(&p.label));
                    help = json!(p.help);
                }
            }
        }
    }
    let expected = first_wrong
        .as_u64()
        .and_then(|i| lines.get(i as usize))
        .map_or(Value::Null, |l| json!(l));
    json_text(&json!({
        "exit": exit, "pass": exit == 0, "text": text, "firstWrong": first_wrong,
        "message": message, "expected": expected, "got": got, "help": help,
    }))
}

/// The npm package's command line (`npm/`): the same module as the page's.
mod npm;

#[cfg(test)]
mod tests {
    use super::*;
    use loopsim::cli::Format;

    /// The page's trace, verbose text and picture are the command line's,
    /// on every example (but the two that run 5,000,000 callbacks).
    ///
    /// Both sides' race checks get the same time limit, a day: one no run
    /// reaches, so that the search's other bounds (schedules, callbacks,
    /// statements, orders: counts, the same on both sides) end it, and the two
    /// runs agree however busy the machine (with the 2 s default, a search
    /// slowed past it on one side only printed a note the other did not).
    #[test]
    fn run_shows_what_the_command_line_prints() {
        const DAY_MS: u64 = 86_400_000;
        for (path, _, source) in EXAMPLES
            .iter()
            .filter(|(p, _, _)| !p.starts_with("starvation/p16") && !p.starts_with("starvation/p21"))
        {
            let options = format!("{{\"name\":{path:?},\"timeLimitMs\":{DAY_MS}}}");
            let out: Value = serde_json::from_str(&run(source, &options)).unwrap();
            let memory = Memory::with(path, source);
            let request = Options::parse(&options).unwrap().request(path);
            assert_eq!(request.orders_time_limit, Some(DAY_MS / 1000), "{path}");
            let cli = |r: Request| {
                memory.cli(&Request {
                    no_race_check: true,
                    orders_time_limit: None,
                    ..r
                })
            };
            let (_, svg, _) = cli(Request {
                format: Some(Format::Svg),
                ..request.clone()
            });
            assert_eq!(out["svg"].as_str().unwrap(), svg, "{path}");
            let (_, verbose, _) = cli(Request {
                verbose: true,
                ..request.clone()
            });
            assert_eq!(out["verbose"].as_str().unwrap(), verbose, "{path}");
            let (_, json, _) = cli(Request {
                format: Some(Format::Json),
                explain: true,
                ..request.clone()
            });
            let json: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(out["trace"], json, "{path}");
            assert_eq!(out["eventsCut"], 0, "{path}");
            let (exit, text, rendered) = memory.cli(&request);
            assert_eq!(
                (out["exit"].as_u64().unwrap(), out["text"].as_str().unwrap()),
                (u64::from(exit), text.as_str()),
                "{path}"
            );
            assert_eq!(out["rendered"].as_str().unwrap(), rendered, "{path}");
        }
    }

    /// The page's menu (web/examples.mjs, run by web/build.sh): every
    /// example, with the title loopsim reads from the file (or its path).
    #[test]
    fn the_menus_examples_carry_their_titles() {
        let out = std::env::temp_dir().join(format!("loopsim-examples-{}.json", std::process::id()));
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples.mjs");
        let status = std::process::Command::new("node")
            .arg(script)
            .arg(&out)
            .status()
            .expect("node runs");
        assert!(status.success());
        let list: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        std::fs::remove_file(&out).unwrap();
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), EXAMPLES.len());
        let p30 = list
            .iter()
            .find(|e| e["path"] == "promises/p30-classic-async1-async2.loop")
            .unwrap();
        assert_eq!(p30["title"], "the classic async1/async2 puzzle");
        for (e, (path, _, source)) in list.iter().zip(EXAMPLES) {
            assert_eq!((e["path"].as_str().unwrap(), e["source"].as_str().unwrap()), (*path, *source));
            let loaded = load::load_bytes(path, source.as_bytes()).unwrap();
            assert_eq!(e["title"], loaded.file.title.map_or(path.to_string(), |t| t.value), "{path}");
        }
    }

    /// An invalid file's orders are its diagnostics, as `run --all-orders`
    /// prints them, with a time limit given or not (`run` refuses a time
    /// limit beside `--no-race-check`, which the page's fallback asks for).
    #[test]
    fn orders_of_an_invalid_file_give_its_diagnostics() {
        for options in ["{}", "{\"timeLimitMs\":5000}"] {
            let out: Value = serde_json::from_str(&orders("bogus 3\n", options)).unwrap();
            assert_eq!(out["exit"], 2, "{options}");
            let rendered = out["rendered"].as_str().unwrap();
            assert!(rendered.contains("loop::unknown-statement"), "{options}: {rendered}");
        }
    }

    #[test]
    fn a_prediction_replaces_the_expect_block() {
        let src = "immediate \"i\"\n\nexpect {\n  \"x\"\n} or {\n  \"y\"\n}\n";
        let out = with_prediction(src, &["say \"hi\"\\".to_string()]);
        assert_eq!(out, "immediate \"i\"\n\nexpect {\n  \"say \\\"hi\\\"\\\\\"\n}\n");
    }

    #[test]
    fn run_gives_the_clis_trace_and_steps() {
        let src = "timeout 0 \"t\"\nimmediate \"i\"\n";
        let out: Value = serde_json::from_str(&run(src, "{}")).unwrap();
        assert_eq!(out["exit"], 0);
        let texts: Vec<&str> = out["trace"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["event"] == "log")
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        assert_eq!(texts, ["i", "t"]);
        assert!(out["text"].as_str().unwrap().contains("check"));
        assert!(out["svg"].as_str().unwrap().starts_with("<svg"));
        let steps = out["steps"].as_array().unwrap();
        // main, then the immediate (check) and the timer: while the main
        // module runs nothing waits; when the immediate starts, the timer waits.
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[1]["kind"], "immediate");
        assert_eq!(steps[1]["queues"][0]["name"], "timers");
        assert_eq!(steps[1]["queues"][0]["items"][0], "timeout \"t\" (line 1), due at 1");
        assert!(out["raceWarning"]["message"].as_str().unwrap().contains("another order"));
        assert_eq!(steps[1]["by"], Value::Null);
        // A resumption's step names whose body resumes.
        let src = "async worker {\n  await resolved\n  log \"w\"\n}\ncall worker\n";
        let out: Value = serde_json::from_str(&run(src, "{}")).unwrap();
        let steps = out["steps"].as_array().unwrap();
        let resume: Vec<&Value> = steps.iter().filter(|s| s["kind"] == "resume").collect();
        assert_eq!(resume.len(), 1);
        assert_eq!(resume[0]["by"], "worker");
    }

    /// The page's race warning follows `run`'s rule for `expect … or …`:
    /// of the order the alternatives leave out, the CLI's text; none when
    /// they name every order.
    #[test]
    fn the_race_warning_names_an_order_the_alternatives_leave_out() {
        let five = [["s", "i", "t"], ["i", "s", "t"], ["t", "s", "i"], ["i", "t", "s"], ["t", "i", "s"]];
        let file = |n: usize| {
            let blocks: Vec<String> = five[..n].iter().map(|o| format!("{{ \"{}\" }}", o.join("\" \""))).collect();
            format!("timeout 0 \"t\"\nimmediate \"i\"\nsubmit \"s\" 0\nexpect {}\n", blocks.join(" or "))
        };
        let out: Value = serde_json::from_str(&run(&file(2), "{}")).unwrap();
        let help = out["raceWarning"]["help"].as_str().unwrap();
        assert!(
            help.contains("e.g. when a millisecond boundary passed before the timers phase of turn 1;"),
            "{help}"
        );
        assert!(
            help.ends_with("the prediction's alternatives leave out at least one order (`loopsim check` tells which)"),
            "{help}"
        );
        let out: Value = serde_json::from_str(&run(&file(5), "{}")).unwrap();
        assert_eq!(out["raceWarning"], Value::Null);
        assert_eq!(out["exit"], 0);
    }

    #[test]
    fn a_wrong_prediction_names_its_line() {
        let src = "io \"read\" {\n  timeout 0 \"timer\"\n  immediate \"immediate\"\n}\n";
        let out: Value = serde_json::from_str(&predict(src, r#"["timer","immediate"]"#, "{}")).unwrap();
        assert_eq!(out["exit"], 1);
        assert_eq!(out["pass"], false);
        assert_eq!(out["firstWrong"], 0);
        assert_eq!(out["got"], "turn 1 at 0 check \"immediate\"");
        assert!(out["help"].as_str().unwrap().contains("real Node cannot print this order either"));
        let right: Value = serde_json::from_str(&predict(src, r#"["immediate","timer"]"#, "{}")).unwrap();
        assert_eq!(right["pass"], true);
        assert!(right["text"].as_str().unwrap().starts_with("ok: main.loop (2 lines as predicted)"));
    }

    #[test]
    fn diagnostics_point_at_their_span() {
        let out: Value = serde_json::from_str(&run("timeout 1 \"a\"\nsetTimeout(x)\n", "{}")).unwrap();
        assert_eq!(out["exit"], 2);
        let d = &out["diagnostics"][0];
        assert_eq!(d["severity"], "error");
        assert_eq!(d["labels"][0]["line"], 2);
        assert_eq!(d["labels"][0]["start"], 14);
        assert!(out["rendered"].as_str().unwrap().contains("main.loop:2:1"));
    }

    #[test]
    fn orders_state_the_race() {
        let out: Value = serde_json::from_str(&orders("timeout 0 \"t\"\nimmediate \"i\"\n", "{}")).unwrap();
        assert_eq!(out["exit"], 0);
        assert_eq!(out["report"]["count"], 2);
        assert!(out["text"].as_str().unwrap().contains("2 orders"));
    }

    #[test]
    fn steps_stop_at_their_bound() {
        let src = "repeat 5000 {\n  immediate \"i\"\n}\n";
        let out: Value = serde_json::from_str(&run(src, "{}")).unwrap();
        assert_eq!(out["exit"], 0);
        assert_eq!(out["steps"].as_array().unwrap().len(), interp::MAX_QUEUE_SNAPSHOTS);
        let first = &out["steps"][1]["queues"][0];
        assert_eq!(first["name"], "check");
        assert_eq!(first["count"], 4_999);
        assert_eq!(first["items"].as_array().unwrap().len(), interp::MAX_QUEUE_ITEMS);
    }

    #[test]
    fn long_traces_are_cut_for_the_page() {
        let src = "repeat 40000 {\n  log \"a line of the main module, long enough\"\n}\n";
        let out: Value = serde_json::from_str(&run(src, "{}")).unwrap();
        assert_eq!(out["exit"], 0);
        assert_eq!(out["trace"]["events"].as_array().unwrap().len(), MAX_PAGE_EVENTS);
        assert_eq!(out["eventsCut"], 40_000 - MAX_PAGE_EVENTS);
        let text = out["text"].as_str().unwrap();
        assert!(text.len() <= MAX_PAGE_TEXT + 200, "{}", text.len());
        assert!(text.ends_with("more bytes: the page shows the first MiB (`loopsim run` prints them all)\n"));
        let kept = text.lines().filter(|l| l.ends_with("long enough")).count();
        assert!(kept > 10_000 && kept < 40_000, "{kept}");
    }

    #[test]
    fn a_limit_is_a_diagnostic() {
        let src = "nextTick \"spin\" {\n  again\n}\n";
        let out: Value = serde_json::from_str(&run(src, "{}")).unwrap();
        assert_eq!(out["exit"], 3);
        let d = out["diagnostics"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(d["severity"], "error");
        assert_eq!(d["code"], "loop::limit");
        assert_eq!(d["message"], "the nextTick queue never empties: the loop is starved");
        assert_eq!(d["labels"][0]["text"], "feeds the nextTick queue");
    }

    #[test]
    fn bad_options_are_refused() {
        let out: Value = serde_json::from_str(&run("", r#"{"node":"12"}"#)).unwrap();
        assert_eq!(out["exit"], 2);
        let out: Value = serde_json::from_str(&run("", r#"{"colour":1}"#)).unwrap();
        assert_eq!(out["exit"], 2);
        assert_eq!(
            out["rendered"],
            "error: bad options: unknown key \"colour\" (node, pool, name, timeLimitMs)\n"
        );
        let out: Value = serde_json::from_str(&run("", r#"{"pool":1.5}"#)).unwrap();
        assert_eq!(out["rendered"], "error: bad options: pool is not a whole number\n");
        let out: Value = serde_json::from_str(&run("", r#"{"pool":null,"name":"a.loop"}"#)).unwrap();
        assert_eq!(out["exit"], 0);
        let out: Value = serde_json::from_str(&predict("", r#"["a",1]"#, "")).unwrap();
        assert_eq!(out["rendered"], "error: lines: not a string\n");
    }
}
