//! loopsim in WebAssembly: what the playground (`web/static/app.js`) and the
//! npm package (`npm/bin/loopsim.js`) call. Every function takes and returns
//! strings (JSON where structured); docs/playground.md describes them.
//!
//! The texts are the CLI's own: [`run`], [`predict`] and the npm package's
//! [`cli`] run `loopsim::cli::run` on a [`Host`] that holds the file in
//! memory (or asks the JavaScript host for files), so the page and the package
//! print what `loopsim` prints.

use loopsim::cli::{self, Format, Host, Kind, Request, Stream};
use loopsim::interp::{self, RunOptions};
use loopsim::load::{self, LoadError, Loaded};
use loopsim::orders::{self, SearchBounds};
use loopsim::problem::{FileProblems, Problem};
use loopsim::sched::NodeProfile;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use wasm_bindgen::prelude::*;

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// loopsim's version (`loopsim --version` without the name).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Every example of `examples/`: JSON `[{ "path", "title", "source" }]`, by path.
#[wasm_bindgen]
pub fn examples() -> String {
    let list: Vec<Value> = EXAMPLES
        .iter()
        .map(|(path, source)| {
            let title = load::load_bytes(path, source.as_bytes())
                .ok()
                .and_then(|l| l.file.title.as_ref().map(|t| t.value.clone()))
                .unwrap_or_else(|| (*path).to_string());
            json!({ "path": path, "title": title, "source": source })
        })
        .collect();
    Value::Array(list).to_string()
}

/// The options every function takes (JSON; each key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
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
        let opts: Options = serde_json::from_str(options).map_err(|e| format!("bad options: {e}"))?;
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
}

impl Memory {
    fn with(name: &str, text: &str) -> Memory {
        Memory {
            files: vec![(PathBuf::from(name), text.as_bytes().to_vec())],
            ..Memory::default()
        }
    }

    /// Runs the CLI's `request`: (exit code, stdout, stderr).
    fn cli(&self, request: &Request) -> (u8, String, String) {
        self.stdout.borrow_mut().clear();
        self.stderr.borrow_mut().clear();
        let code = cli::request(request, self);
        let text = |b: &RefCell<Vec<u8>>| String::from_utf8_lossy(&b.borrow()).into_owned();
        (code, text(&self.stdout), text(&self.stderr))
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
        match stream {
            Stream::Stdout => self.stdout.borrow_mut().extend_from_slice(bytes),
            Stream::Stderr => self.stderr.borrow_mut().extend_from_slice(bytes),
        }
    }

    fn auto_color(&self, _stream: Stream) -> bool {
        false
    }
}

/// A diagnostic for the page: spans in UTF-16 code units (JavaScript string
/// indices), lines and columns 1-based.
#[derive(Serialize)]
struct Diagnostic {
    severity: &'static str,
    code: &'static str,
    message: String,
    help: Option<String>,
    labels: Vec<Label>,
}

#[derive(Serialize)]
struct Label {
    start: usize,
    end: usize,
    line: usize,
    column: usize,
    text: Option<String>,
}

/// Byte offset → (UTF-16 offset, line, column), on a char boundary at or before it.
fn position(src: &str, byte: usize) -> (usize, usize, usize) {
    let mut byte = byte.min(src.len());
    while !src.is_char_boundary(byte) {
        byte -= 1;
    }
    let before = &src[..byte];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let utf16 = before.encode_utf16().count();
    let column = src[line_start..byte].encode_utf16().count() + 1;
    (utf16, before.matches('\n').count() + 1, column)
}

fn diagnostic(src: &str, p: &Problem) -> Diagnostic {
    let label = |span: loopsim::syntax::ast::Span, text: &str| {
        let (start, line, column) = position(src, span.start());
        let (end, _, _) = position(src, span.end());
        Label {
            start,
            end,
            line,
            column,
            text: (!text.is_empty()).then(|| text.to_string()),
        }
    };
    let mut labels = vec![label(p.span, &p.label)];
    labels.extend(p.secondary.iter().map(|(span, text)| label(*span, text)));
    Diagnostic {
        severity: if p.warning { "warning" } else { "error" },
        code: p.code,
        message: p.message.clone(),
        help: p.help.clone(),
        labels,
    }
}

/// Loads `source` as the CLI would: the file, or its problems (the text they
/// point into: an invalid UTF-8 text is shown with replacement characters).
fn load_source(name: &str, source: &str, profile: Option<NodeProfile>) -> (Option<Loaded>, Vec<Diagnostic>) {
    match load::load_bytes(name, source.as_bytes()) {
        Ok(loaded) => {
            let node = profile.or(loaded.file.node.map(|n| n.value)).unwrap_or_default();
            let refused = loopsim::check::promises::node_version(&loaded.file, node);
            let mut shown: Vec<Diagnostic> = loaded.warnings.iter().map(|p| diagnostic(source, p)).collect();
            shown.extend(refused.iter().map(|p| diagnostic(source, p)));
            (refused.is_none().then_some(loaded), shown)
        }
        Err(LoadError::Invalid(problems)) => {
            let text = problems.src.inner().clone();
            (None, problems.problems.iter().map(|p| diagnostic(&text, p)).collect())
        }
        Err(LoadError::Io { error, .. }) => (
            None,
            vec![Diagnostic {
                severity: "error",
                code: "loop::io",
                message: error.to_string(),
                help: None,
                labels: Vec::new(),
            }],
        ),
    }
}

fn plain_handler() -> miette::GraphicalReportHandler {
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
}

fn bad_options(message: &str) -> String {
    json!({ "exit": 2, "diagnostics": [], "rendered": format!("error: {message}\n") }).to_string()
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
        return json!({ "exit": exit, "diagnostics": diagnostics, "rendered": rendered, "trace": null, "text": null,
                       "verbose": null, "svg": null, "raceWarning": null, "steps": null })
        .to_string();
    };
    let quiet = |r: Request| memory.cli(&Request { no_race_check: true, ..r }).1;
    let base = opts.request(&name);
    let trace = quiet(Request {
        format: Some(Format::Json),
        explain: true,
        ..base.clone()
    });
    let trace: Value = serde_json::from_str(&trace).unwrap_or(Value::Null);
    let verbose = quiet(Request {
        verbose: true,
        ..base.clone()
    });
    let svg = quiet(Request {
        format: Some(Format::Svg),
        ..base
    });
    let race = if rendered.contains("loop::race") {
        race_warning(&loaded, &opts)
    } else {
        Value::Null
    };
    json!({
        "exit": exit,
        "diagnostics": diagnostics,
        "rendered": rendered,
        "trace": trace,
        "text": text,
        "verbose": verbose,
        "svg": svg,
        "raceWarning": race,
        "steps": steps(&loaded, &opts),
    })
    .to_string()
}

/// The race warning `run` shows, as `{ "message", "help" }`.
fn race_warning(loaded: &Loaded, opts: &Options) -> Value {
    let run_opts = opts.run_options();
    let trace = interp::run(&loaded.file, &loaded.src, &loaded.title(), run_opts);
    let bounds = SearchBounds {
        time_limit: Some(std::time::Duration::from_millis(opts.time_limit_ms())),
        ..SearchBounds::race_check()
    };
    let found = orders::all_orders_after(&loaded.file, &loaded.src, run_opts, bounds, &trace);
    match orders::race_warning(&trace, &found) {
        Some(w) => json!({ "message": w.message, "help": w.help }),
        None => Value::Null,
    }
}

/// One step per callback entered: where and when it ran, the log lines
/// printed up to its end, and what waited in each queue as it started.
fn steps(loaded: &Loaded, opts: &Options) -> Value {
    use loopsim::trace::EventKind;
    let (trace, snapshots) = interp::run_with_queues(&loaded.file, &loaded.src, &loaded.title(), opts.run_options());
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
            EventKind::Call { kind, label, line } => {
                let call = steps.len();
                let Some(snapshot) = snapshots.get(call) else { break };
                steps.push(json!({
                    "call": call, "turn": event.turn, "tick": event.tick, "phase": event.phase,
                    "kind": kind, "label": label, "line": line, "logs": logs, "queues": snapshot.queues,
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
    let Some(loaded) = loaded.filter(|_| opts.node.as_deref() != Some("10")) else {
        // Invalid or refused: the CLI's own words (`run` loads it the same way).
        let (exit, rendered) = if opts.node.as_deref() == Some("10") {
            (2, "error: --all-orders searches the real loop of Node 20 and later; --node 10 changes only the model's drain rule (drop one of them)\n".to_string())
        } else {
            let (exit, _, rendered) = Memory::with(&name, source).cli(&Request {
                no_race_check: true,
                ..opts.request(&name)
            });
            (exit, rendered)
        };
        return json!({ "exit": exit, "text": null, "report": null, "rendered": rendered }).to_string();
    };
    let bounds = SearchBounds {
        time_limit: Some(std::time::Duration::from_millis(opts.time_limit_ms())),
        ..SearchBounds::default()
    };
    let found = orders::all_orders_within(&loaded.file, &loaded.src, opts.run_options(), bounds);
    let text = orders::report::text(&found, false);
    let report: Value = serde_json::from_str(&orders::report::json(&found)).unwrap_or(Value::Null);
    let rendered = match &found.model_limit {
        Some(hit) => FileProblems::new(&loaded.name, &loaded.src, vec![loopsim::limit::problem(hit)]).render(&plain_handler()),
        None => String::new(),
    };
    let exit = if found.model_limit.is_some() || found.truncated { 3 } else { 0 };
    json!({ "exit": exit, "text": text, "report": report, "rendered": rendered }).to_string()
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
    let lines: Vec<String> = match serde_json::from_str(lines) {
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
            if let loopsim::verdict::Verdict::Fail { problems, .. } = loopsim::verdict::verdict(&loaded, opts.run_options(), time) {
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
    json!({
        "exit": exit, "pass": exit == 0, "text": text, "firstWrong": first_wrong,
        "message": message, "expected": expected, "got": got, "help": help,
    })
    .to_string()
}

/// The npm package's command line (the `cli` feature: `npm/`).
#[cfg(feature = "cli")]
mod npm;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let src = "# é\ntimeout 1 \"😀\"\n";
        assert_eq!(position(src, 0), (0, 1, 1));
        let at = src.find("timeout").unwrap();
        assert_eq!(position(src, at), (4, 2, 1));
        let emoji = src.find('😀').unwrap();
        // 4 + 11 units before the emoji, which is 2 units (4 bytes): column 11 + 2 + 1.
        assert_eq!(position(src, emoji + 4), (17, 2, 14));
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
    fn bad_options_are_refused() {
        let out: Value = serde_json::from_str(&run("", r#"{"node":"12"}"#)).unwrap();
        assert_eq!(out["exit"], 2);
        let out: Value = serde_json::from_str(&run("", r#"{"colour":1}"#)).unwrap();
        assert_eq!(out["exit"], 2);
    }
}
