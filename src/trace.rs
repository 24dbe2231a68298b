//! Trace events and their renderers: aligned text columns and JSON.

use crate::sched::{LimitKind, Phase, Waiting};
use serde::Serialize;

/// One thing that happened, at a turn and a clock tick, in a phase or queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Event {
    /// Loop turn (0: the CommonJS main module).
    pub turn: u64,
    /// Clock, in ticks.
    pub tick: u64,
    /// Where: a phase, `main`, or the nextTick/microtask queue.
    pub phase: Phase,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened. Only [`EventKind::Log`] is shown without `--verbose`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum EventKind {
    /// A `log` line.
    Log { text: String },
    /// A callback starts: what kind, its label, the line that scheduled it;
    /// for a `resume` (an async body resuming after the `await` of `line`,
    /// `--verbose`), whose body it is.
    Call {
        kind: &'static str,
        label: Option<String>,
        line: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<Awaiter>,
    },
    /// The callback that started with the last unmatched `Call` returned
    /// (`tick` is its end: it ran from the `Call`'s tick to here).
    Return,
    /// A callback was scheduled (or, for `clear`, cancelled).
    Schedule {
        kind: &'static str,
        label: Option<String>,
        detail: String,
        line: usize,
    },
    /// A `clear` cancelled `count` callbacks labelled `label`.
    Clear { label: String, count: usize, line: usize },
    /// `work N` advanced the clock.
    Work { ticks: u64, line: usize },
    /// A new turn begins.
    TurnStart,
    /// The loop slept in poll until `to`.
    Sleep { to: u64 },
    /// A pool thread took a job (`until`: the tick it will finish).
    PoolStart { thread: usize, job: u64, until: u64 },
    /// A pool thread finished a job.
    PoolFinish { thread: usize, job: u64 },
    /// An async function (or the ES module body) suspended at the `await` of
    /// `line`; `by`: whose body it is.
    Suspend {
        line: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<Awaiter>,
    },
    /// A suspended async function resumed after its `await` at `line` (`by`
    /// as for [`EventKind::Suspend`]).
    Resume {
        line: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<Awaiter>,
    },
    /// Nothing left: the loop exits.
    Exit,
    /// Verbose events stop here: the trace holds at most `events` of them and
    /// `bytes` of their text (`interp::MAX_VERBOSE_EVENTS`, `interp::MAX_VERBOSE_BYTES`).
    /// Log lines go on.
    VerboseCut { events: usize, bytes: usize },
    /// ⏸/▶ lines stop here: a trace shows the first `shown` (10,000)
    /// suspensions and resumptions without `--verbose`
    /// (`interp::promises::MAX_SHOWN_SUSPENSIONS`).
    SuspensionsCut { shown: u32 },
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "end", rename_all = "camelCase")]
pub enum Ending {
    /// The loop ran out of work.
    Finished { turns: u64, ticks: u64, callbacks: u64 },
    /// A limit stopped it.
    Limit(LimitHit),
    /// An unhandled rejection ended the process with exit code `code` (1)
    /// after the drain that found it (rule 8k: Node's default
    /// `--unhandled-rejections=throw` with no 'unhandledRejection'
    /// listener): nothing else ran. `line`: the statement that rejected.
    Unhandled { turn: u64, tick: u64, line: usize, code: i32 },
    /// The loop ran out of work while the ES module's top-level `await` at
    /// `line` had not settled: Node exits with code `code`, 13 (rule 8l;
    /// in JSON as an unhandled rejection's `code` is).
    Unsettled {
        turns: u64,
        ticks: u64,
        callbacks: u64,
        line: usize,
        code: i32,
    },
}

impl Ending {
    /// The clock when the run ended, in ticks.
    pub fn ticks(&self) -> u64 {
        match self {
            Ending::Finished { ticks, .. } | Ending::Unsettled { ticks, .. } => *ticks,
            Ending::Limit(hit) => hit.tick,
            Ending::Unhandled { tick, .. } => *tick,
        }
    }

    /// The turn the run ended in (0: in the main module, before the loop).
    pub fn turn(&self) -> u64 {
        match self {
            Ending::Finished { turns, .. } | Ending::Unsettled { turns, .. } => *turns,
            Ending::Limit(hit) => hit.turn,
            Ending::Unhandled { turn, .. } => *turn,
        }
    }

    /// How the process ends, for a trace's last line: `None` for a loop that ran out of work
    /// (exit code 0) or a limit (loopsim stopped it).
    pub fn process_exit(&self) -> Option<String> {
        match self {
            Ending::Unhandled { line, code, .. } => Some(format!(
                "the process exits with code {code}: the promise rejected at line {line} has no handler (rule 8k)"
            )),
            Ending::Unsettled { line, .. } => Some(format!(
                "the loop has nothing left, but the top-level await at line {line} never settled: the process exits with code 13 (rule 8l)"
            )),
            Ending::Finished { .. } | Ending::Limit(_) => None,
        }
    }
}

/// A limit that stopped a run, and what was left waiting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitHit {
    pub limit: LimitKind,
    /// The value of the limit.
    pub max: u64,
    /// The queue or phase that kept the run going (`nextTick`, `check`, …).
    pub queue: Phase,
    /// Line of the statement that feeds it.
    pub line: usize,
    /// Span of that statement.
    #[serde(skip)]
    pub span: crate::syntax::ast::Span,
    pub waiting: Waiting,
    pub turn: u64,
    pub tick: u64,
    /// Every `again` and `interval` of the file has `times`
    /// ([`crate::bound::first_unbounded`] finds none), or none of those
    /// without had a callback waiting when a turn or callback limit stopped
    /// the run (an `interval` cleared; [`crate::bound::endless_feed`]): the
    /// run is long, not endless.
    #[serde(skip)]
    pub bounded: bool,
    /// When the turn and callback limits in force were the defaults raised
    /// for the file (no `--max-turns` or `--max-callbacks`; docs/scheduling.md
    /// rule 7): the callbacks its statements can run that they were raised
    /// for ([`crate::bound::callbacks`]). None when a flag set them.
    #[serde(skip)]
    pub raised_for: Option<u64>,
    /// What [`LimitHit::span`] is: the diagnostic's label says it.
    #[serde(skip)]
    pub site: LimitSite,
}

impl LimitHit {
    /// The turn a search of other orders is advised to stop each schedule
    /// at (`--max-turns 50`) when a limit stopped the model's own run.
    pub const SOONER_TURNS: u64 = 50;

    /// Whether a lower turn limit ([`Self::SOONER_TURNS`]) would stop each
    /// schedule of an orders search sooner: the run went past that turn.
    /// (A run a turn limit of 50 or less stopped did not, nor did one a
    /// callback limit stopped at turn 1: fresh-clone helpers 76 and 80.)
    pub fn lower_turn_limit_helps(&self) -> bool {
        self.turn > Self::SOONER_TURNS
    }
}

/// What the span of a [`LimitHit`] points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LimitSite {
    /// The statement that scheduled the callback that ran last (or that fed
    /// the queue, or made the line, the label or the promise the limit is on).
    #[default]
    LastCallback,
    /// The statement one past the statement limit.
    Statement,
    /// No callback ran: the main module's first statement.
    MainModule,
}

/// A finished (or stopped) run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trace {
    pub title: String,
    /// Whose rules the run followed (`"node": "26"`).
    pub node: crate::sched::NodeProfile,
    pub events: Vec<Event>,
    /// The source span of the statement behind each `log` event, in order.
    #[serde(skip)]
    pub log_spans: Vec<crate::syntax::ast::Span>,
    /// With `--explain`: why each `log` line ran where it did, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explanations: Vec<String>,
    /// The explanations stopped before the last log line: the trace holds at
    /// most `interp::MAX_EXPLAIN_BYTES` of them.
    #[serde(skip)]
    pub explanations_cut: bool,
    #[serde(flatten)]
    pub ending: Ending,
    /// `run --format json`: the run's warnings and the limit that stopped
    /// it, as JSON problems (empty, and left out, otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<crate::problem::JsonProblem>,
}

impl Trace {
    /// The `log` lines only, in order.
    pub fn logs(&self) -> impl Iterator<Item = (&Event, &str)> {
        self.events.iter().filter_map(|e| match &e.kind {
            EventKind::Log { text } => Some((e, text.as_str())),
            _ => None,
        })
    }

    /// JSON: `{"title", "events": [{turn, tick, phase, event, …}], "end", …}`.
    pub fn to_json(&self) -> String {
        crate::term::json_safe(serde_json::to_string_pretty(self).expect("traces serialize"))
    }

    /// Aligned text columns: turn, tick, phase, text; one line per event,
    /// control characters in texts shown escaped (`\u{1b}`, `\n`).
    /// Without `verbose` only `log` lines are shown.
    pub fn to_text(&self, verbose: bool, style: &Style) -> String {
        let mut out = Vec::new();
        let _ = self.write_text(&mut out, verbose, style);
        String::from_utf8(out).expect("the trace is UTF-8")
    }

    /// [`to_text`](Self::to_text), written to `out` line by line.
    ///
    /// # Errors
    /// Whatever writing to `out` fails with.
    pub fn write_text(&self, out: &mut impl std::io::Write, verbose: bool, style: &Style) -> std::io::Result<()> {
        self.text_lines(verbose, style, &mut |args| out.write_fmt(args))
    }

    /// The lines of [`write_text`](Self::write_text), each given to `emit`
    /// (one body for every writer: the WebAssembly build is size-bound).
    fn text_lines(
        &self,
        verbose: bool,
        style: &Style,
        emit: &mut dyn FnMut(std::fmt::Arguments) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let shown: Vec<&Event> = self
            .events
            .iter()
            .filter(|e| {
                verbose
                    || matches!(
                        e.kind,
                        EventKind::Log { .. } | EventKind::Suspend { .. } | EventKind::Resume { .. } | EventKind::SuspensionsCut { .. }
                    )
            })
            .collect();
        let turn_w = shown.iter().map(|e| digits(e.turn)).max().unwrap_or(1).max(4);
        let tick_w = shown.iter().map(|e| digits(e.tick)).max().unwrap_or(1).max(4);
        // `rejections` is the one phase name longer than `microtask`: wider only when shown.
        let phase_w = if shown.iter().any(|e| e.phase == Phase::Rejections) {
            10
        } else {
            9
        };
        emit(format_args!(
            "{}\n",
            style.dim(&format!(
                "{:>turn_w$}  {:>tick_w$}  {:<phase_w$}  {} ({})",
                "turn",
                "tick",
                "phase",
                if verbose { "event" } else { "log" },
                self.node
            ))
        ))?;
        let mut logs = 0;
        for e in shown {
            let cols = format!("{:>turn_w$}  {:>tick_w$}  ", e.turn, e.tick);
            emit(format_args!("{}", style.dim(&cols)))?;
            let (phase, text) = describe(e);
            // Texts from the file may hold control characters: shown escaped (`\u{1b}`).
            emit(format_args!(
                "{}  {}\n",
                style.phase(&format!("{phase:<phase_w$}")),
                crate::term::escape(&text)
            ))?;
            if matches!(e.kind, EventKind::Log { .. }) {
                let pad = " ".repeat(turn_w + tick_w + phase_w + 6);
                if let Some(why) = self.explanations.get(logs) {
                    emit(format_args!("{pad}{}\n", style.dim(&format!("↳ {}", crate::term::escape(why)))))?;
                } else if self.explanations_cut && logs == self.explanations.len() {
                    let note = format!(
                        "↳ no more explanations: a trace holds at most {} MiB of them",
                        crate::interp::MAX_EXPLAIN_BYTES >> 20
                    );
                    emit(format_args!("{pad}{}\n", style.dim(&note)))?;
                }
                logs += 1;
            }
        }
        if let Some(exit) = self.ending.process_exit() {
            let cols = format!("{:>turn_w$}  {:>tick_w$}  ", self.ending.turn(), self.ending.ticks());
            emit(format_args!(
                "{}{}  {}\n",
                style.dim(&cols),
                style.phase(&format!("{:<phase_w$}", "exit")),
                exit
            ))?;
        }
        Ok(())
    }
}

impl EventKind {
    /// A callback starting ([`EventKind::Call`]) that is no resumption.
    pub fn call(kind: &'static str, label: Option<String>, line: usize) -> Self {
        EventKind::Call {
            kind,
            label,
            line,
            by: None,
        }
    }
}

/// Whose body suspended or resumed at an `await` ([`EventKind::Suspend`]):
/// in JSON `{"kind": "function", "name": "worker"}`, `{"kind": "module"}`,
/// `{"kind": "label", "name": "beat 2"}`, `{"kind": "callback", "name":
/// "timeout"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "camelCase")]
pub enum Awaiter {
    /// The ES module's body (top-level `await`).
    Module,
    /// The async function of this name (`call worker`).
    Function(String),
    /// An `async` callback or link with this label, its `{i}`, `{n}` and
    /// `{k}` filled in.
    Label(String),
    /// An `async` callback or link without a label, of this kind (`timeout`,
    /// `.then`).
    Callback(&'static str),
}

impl std::fmt::Display for Awaiter {
    /// How the trace names it: `worker`, `the module`, `"beat 2"` (quoted as
    /// a string literal), `the timeout callback`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Awaiter::Module => f.write_str("the module"),
            Awaiter::Function(name) => f.write_str(name),
            Awaiter::Label(label) => f.write_str(&crate::syntax::print::quote(label)),
            Awaiter::Callback(kind) => write!(f, "the {kind} callback"),
        }
    }
}

/// "worker " for a ⏸ or ▶ line whose body is named ([`EventKind::Suspend`]'s `by`), else "".
fn subject(by: &Option<Awaiter>) -> String {
    by.as_ref().map(|b| format!("{b} ")).unwrap_or_default()
}

fn describe(e: &Event) -> (String, String) {
    let phase = e.phase.name().to_string();
    let quoted = |l: &Option<String>| l.as_ref().map(|l| format!(" \"{l}\"")).unwrap_or_default();
    let text = match &e.kind {
        EventKind::Log { text } => text.clone(),
        EventKind::Call { by: Some(by), line, .. } => format!("▶ {by} resumes after the await of line {line}"),
        EventKind::Call { kind, label, line, .. } => format!("▶ {kind}{} (line {line})", quoted(label)),
        EventKind::Schedule { kind, label, detail, line } => format!("  + {kind}{}: {detail} (line {line})", quoted(label)),
        EventKind::Clear { label, count, line } => format!("  × clear \"{label}\": {count} cancelled (line {line})"),
        EventKind::Work { ticks, line } => format!("  ⋯ work {ticks} (line {line})"),
        EventKind::Return => "◀ returns".to_string(),
        EventKind::TurnStart => return ("──".into(), format!("turn {} begins", e.turn)),
        EventKind::Sleep { to } => return ("sleep".into(), format!("poll sleeps from tick {} to {to}", e.tick)),
        EventKind::PoolStart { thread, job, until } => {
            return ("pool".into(), format!("thread {thread} starts job {job} (done at {until})"))
        }
        EventKind::PoolFinish { thread, job } => return ("pool".into(), format!("thread {thread} finishes job {job}")),
        EventKind::Exit => return ("──".into(), "nothing left: the loop exits".into()),
        EventKind::Suspend { line, by } => format!("⏸ {}suspends at the await of line {line}", subject(by)),
        EventKind::Resume { line, by } => format!("▶ {}resumes after the await of line {line}", subject(by)),
        // (Its count is the constant `MAX_SHOWN_SUSPENSIONS`, written out.)
        EventKind::SuspensionsCut { .. } => {
            return (
                "──".into(),
                "⏸/▶ lines stop here: a trace shows the first 10,000 (`--verbose` shows them all)".into(),
            )
        }
        EventKind::VerboseCut { events, bytes } => {
            return (
                "──".into(),
                format!(
                    "verbose events stop here: a trace holds at most {} of them and {} MiB of their text; log lines go on",
                    crate::render::thousands(*events as u64),
                    bytes >> 20
                ),
            )
        }
    };
    (phase, text)
}

fn digits(n: u64) -> usize {
    n.to_string().len()
}

/// Terminal styling; plain when colour is off.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(&self, style: anstyle::Style, s: &str) -> String {
        if self.color {
            format!("{style}{s}{style:#}")
        } else {
            s.to_string()
        }
    }

    fn dim(&self, s: &str) -> String {
        self.paint(anstyle::Style::new().dimmed(), s)
    }

    fn phase(&self, s: &str) -> String {
        self.paint(anstyle::AnsiColor::Cyan.on_default(), s)
    }
}
