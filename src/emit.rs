//! `loopsim emit-js`: a `.loop` file as a standalone, readable Node.js program
//! that schedules what the file describes and prints one line per `log`, with
//! the texts `loopsim run` prints. `verify` runs it with real `node`.
//!
//! Statements become the Node APIs they stand for (`setTimeout`, `setImmediate`,
//! `process.nextTick`, `queueMicrotask`, promises); what has no one-line
//! analogue becomes a small helper in the program's runtime section
//! ([`runtime`]): `io` (a byte on a named pipe, arriving through the poll
//! phase), `submit` (a pool thread blocked reading a named pipe for N ticks),
//! `close` (a pipe handle's close callback), `pending` (a connect that fails at
//! once), `work` (a busy loop). One tick is `scale` milliseconds.
//!
//! Every text from the file (its title and name, labels, `log` texts) reaches
//! the program only inside a string literal written by [`js_string`]: never in
//! a comment or a template literal, where a line terminator or a backtick in the
//! text could end it and turn the rest of the text into code.

mod runtime;

use crate::interp::{self, RunOptions};
use crate::problem::{Diag, Problem};
use crate::sched::{coerce_delay, LimitKind, Module, TIMEOUT_MAX};
use crate::syntax::ast::*;
use crate::trace::Ending;
use std::collections::BTreeSet;

/// Milliseconds per tick unless `--scale` says otherwise: long enough that a
/// loaded two-core machine's hiccups (a few ms) stay well inside one tick.
pub const DEFAULT_SCALE: u64 = 20;

/// Options of [`emit`].
#[derive(Debug, Clone)]
pub struct EmitOptions {
    /// Milliseconds per tick.
    pub scale: u64,
    /// The file's name, for the header (as a string literal, `SOURCE`).
    pub name: String,
}

/// An emitted program.
#[derive(Debug, Clone)]
pub struct Program {
    /// The JavaScript source.
    pub js: String,
    /// An ES module (save as `.mjs`) rather than CommonJS (`.js`).
    pub esm: bool,
}

impl Program {
    /// The file extension Node needs to run it as intended.
    pub fn extension(&self) -> &'static str {
        if self.esm {
            "mjs"
        } else {
            "js"
        }
    }
}

/// The options `loopsim run` uses by default (limits raised to what the
/// file's bounded statements need): the emitted program stops where that run does.
pub fn run_options() -> RunOptions {
    RunOptions {
        auto_limits: true,
        ..RunOptions::default()
    }
}

/// Where loopsim's own run of the file stops.
#[derive(Debug, Clone, Copy)]
struct Limit {
    kind: LimitKind,
    tick: u64,
    max_callbacks: u64,
}

/// The Node.js program for a checked file.
///
/// # Errors
/// The file's timers that Node cannot run at `opts.scale` ([`scale_problems`]).
pub fn emit(file: &File, src: &str, opts: &EmitOptions) -> Result<Program, Vec<Problem>> {
    let problems = scale_problems(file, opts.scale);
    if !problems.is_empty() {
        return Err(problems);
    }
    let esm = file.module.is_some_and(|m| m.value == Module::Esm);
    let uses = Uses::of(file);
    // A file loopsim stops at a limit never ends by itself: the program counts callbacks too.
    let opts_run = interp::resolve_limits(file, run_options());
    let limit = match interp::run(file, src, "", opts_run).ending {
        Ending::Limit(hit) => Some(Limit {
            kind: hit.limit,
            tick: hit.tick,
            max_callbacks: opts_run.limits.max_callbacks,
        }),
        Ending::Finished { .. } | Ending::Unhandled { .. } | Ending::Unsettled { .. } => None,
    };
    let mut gen = Gen {
        clear: uses.clear,
        limit: limit.is_some(),
        counters: BTreeSet::new(),
        depth: 0,
    };
    let main = Frame {
        run: None,
        count: None,
        this: None,
    };
    let body = gen.block(&file.body, &main, 0);
    let mut out = String::new();
    header(&mut out, file, opts, esm, &uses);
    runtime_section(&mut out, file, &uses, esm, limit, opts.scale);
    if !gen.counters.is_empty() {
        out.push_str("\n// `{k}`: how many callbacks of each statement have run so far.\n");
        for site in &gen.counters {
            out.push_str(&format!("let runs{site} = 0;\n"));
        }
    }
    out.push_str("\n// ---- the program: the file's main module ----\n");
    out.push_str(&body);
    Ok(Program { js: out, esm })
}

/// Node's timers run a delay above [`TIMEOUT_MAX`] milliseconds (2³¹−1, about
/// 24.8 days) after 1 ms. loopsim's model does the same in ticks (a delay above
/// [`TIMEOUT_MAX`] ticks is one tick), and the program's `ticks()` does it too;
/// but a delay the model keeps whose milliseconds at `scale` (ms per tick) are
/// above [`TIMEOUT_MAX`] would run after 1 ms in Node and at its tick in the
/// model. One error per such `timeout`/`interval`, at its delay, with the
/// largest scale that fits every timer of the file (the first
/// [`crate::problem::MAX_KEPT`], then a note counting the others).
pub fn scale_problems(file: &File, scale: u64) -> Vec<Problem> {
    let mut delays = Vec::new();
    timer_delays(&file.body, &mut delays);
    let too_long: Vec<(Kind, Spanned<u64>)> = delays
        .into_iter()
        .filter(|(_, d)| coerce_delay(d.value).saturating_mul(scale) > TIMEOUT_MAX)
        .collect();
    let Some(longest) = too_long.iter().map(|(_, d)| coerce_delay(d.value)).max() else {
        return Vec::new();
    };
    let fits = TIMEOUT_MAX / longest;
    let mut kept = crate::problem::Kept::default();
    for (kind, d) in too_long {
        let ms = u128::from(d.value) * u128::from(scale);
        kept.push_with(false, d.span, || {
            Diag::Scale {
                kind,
                scale,
                ticks: d.value,
                ms,
                max: TIMEOUT_MAX,
                fits,
            }
            .at(d.span)
        });
    }
    kept.into_sorted()
}

/// Every `timeout`/`interval` delay in `stmts`, bodies included.
fn timer_delays(stmts: &[Stmt], out: &mut Vec<(Kind, Spanned<u64>)>) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Repeat { body, .. } => timer_delays(body, out),
            StmtKind::Callback(cb) => {
                if let Some(d) = cb.delay() {
                    out.push((cb.kind.value, d));
                }
                for body in std::iter::once(&cb.body).chain(cb.links.iter().map(|l| &l.body)).flatten() {
                    timer_delays(body, out);
                }
            }
            StmtKind::Log(_) | StmtKind::Work(_) | StmtKind::Clear(_) | StmtKind::Again => {}
            // The promise statements: the CLI refuses a file that has them
            // (`check::promises::gate`) until emit-js writes them.
            _ => {}
        }
    }
}

/// What a file uses, to include only the helpers it needs.
#[derive(Debug, Default)]
struct Uses {
    timers: bool,
    work: bool,
    clear: bool,
    io: bool,
    /// Some `io … after N` with N > 0.
    io_later: bool,
    submit: bool,
    /// Some `submit N` with N > 0.
    submit_work: bool,
    close: bool,
    pending: bool,
    /// Named pipes worth making at startup, besides `close`'s one.
    fifos: u64,
    /// 1 when `close` needs its named pipe.
    close_fifo: u64,
}

impl Uses {
    fn of(file: &File) -> Uses {
        let mut uses = Uses::default();
        uses.walk(&file.body, 1);
        uses
    }

    fn walk(&mut self, stmts: &[Stmt], times: u64) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Log(_) | StmtKind::Again => {}
                StmtKind::Work(_) => self.work = true,
                StmtKind::Clear(_) => self.clear = true,
                StmtKind::Repeat { count, body } => self.walk(body, times.saturating_mul(count.value)),
                StmtKind::Callback(cb) => {
                    match cb.kind.value {
                        Kind::Timeout | Kind::Interval => self.timers = true,
                        Kind::Io => {
                            self.io = true;
                            self.io_later |= cb.after().is_some_and(|a| a.value > 0);
                            self.fifos = self.fifos.saturating_add(times);
                        }
                        Kind::Submit => {
                            self.submit = true;
                            if cb.ticks().is_some_and(|t| t.value > 0) {
                                self.submit_work = true;
                                self.fifos = self.fifos.saturating_add(times);
                            }
                        }
                        Kind::Close => {
                            self.close = true;
                            self.close_fifo = 1;
                        }
                        Kind::Pending => self.pending = true,
                        _ => {}
                    }
                    for body in std::iter::once(&cb.body).chain(cb.links.iter().map(|l| &l.body)).flatten() {
                        self.walk(body, times);
                    }
                }
                // The promise statements: gated (`check::promises::gate`).
                _ => {}
            }
        }
    }

    fn fifos(&self) -> bool {
        self.io || self.submit_work || self.close
    }

    fn monitor(&self) -> bool {
        self.io_later || self.submit_work
    }

    fn net(&self) -> bool {
        self.io || self.close || self.pending
    }
}

fn header(out: &mut String, file: &File, opts: &EmitOptions, esm: bool, uses: &Uses) {
    let ext = if esm { "mjs" } else { "js" };
    let titled = if file.title.is_some() { ", titled TITLE" } else { "" };
    out.push_str(&format!(
        "// Emitted by `loopsim emit-js` from the .loop file named in SOURCE{titled} (below). Texts from\n// the file appear only in string literals.\n"
    ));
    out.push_str(&format!(
        "// One tick is {} ms (--scale {}). Save as a .{ext} file and run it with node: it prints one line\n// per `log`, in the order this run of Node gives them.\n",
        opts.scale, opts.scale
    ));
    if esm {
        out.push_str("// An ES module (`module esm`): the file must end in .mjs.\n");
    }
    if uses.monitor() {
        out.push_str("// Linux only: it uses named pipes (mkfifo) and /proc.\n");
    } else if uses.fifos() {
        out.push_str("// It uses named pipes (mkfifo): Linux or another Unix.\n");
    }
    if !esm {
        out.push_str("'use strict';\n");
    }
    out.push_str(&format!("const SOURCE = {};\n", js_string(&opts.name)));
    if let Some(title) = &file.title {
        out.push_str(&format!("const TITLE = {};\n", js_string(&title.value)));
    }
}

fn runtime_section(out: &mut String, file: &File, uses: &Uses, esm: bool, limit: Option<Limit>, scale: u64) {
    let pool = file.pool.map_or(4, |p| p.value);
    let pool_matters = uses.submit || file.pool.is_some();
    if pool_matters && !esm {
        out.push_str(&format!(
            "\n// The thread-pool size (`pool {pool}`): set before anything uses the pool.\nprocess.env.UV_THREADPOOL_SIZE = '{pool}';\n"
        ));
    }
    let mut imports: Vec<(&str, &str)> = Vec::new();
    // `submit 0` alone is an fs.stat.
    if uses.fifos() || uses.pending || uses.submit {
        imports.push(("fs", "node:fs"));
    }
    if uses.net() {
        imports.push(("net", "node:net"));
    }
    if uses.fifos() || uses.pending {
        imports.push(("os", "node:os"));
        imports.push(("path", "node:path"));
    }
    let mut child = Vec::new();
    if uses.fifos() {
        child.push("execFileSync");
    }
    if esm && pool_matters {
        child.push("spawnSync");
    }
    let has_imports = !imports.is_empty() || !child.is_empty() || uses.monitor();
    if has_imports {
        out.push('\n');
    }
    for (name, module) in &imports {
        if esm {
            out.push_str(&format!("import {name} from '{module}';\n"));
        } else {
            out.push_str(&format!("const {name} = require('{module}');\n"));
        }
    }
    if !child.is_empty() {
        let names = child.join(", ");
        if esm {
            out.push_str(&format!("import {{ {names} }} from 'node:child_process';\n"));
        } else {
            out.push_str(&format!("const {{ {names} }} = require('node:child_process');\n"));
        }
    }
    if uses.monitor() {
        if esm {
            out.push_str("import { Worker } from 'node:worker_threads';\n");
        } else {
            out.push_str("const { Worker } = require('node:worker_threads');\n");
        }
    }
    if pool_matters && esm {
        out.push_str(&runtime::ESM_POOL.replace("{POOL}", &pool.to_string()));
    }
    out.push_str(&format!("\n// Milliseconds per tick (--scale).\nconst TICK = {scale};\n"));
    if uses.timers {
        out.push_str(runtime::TICKS);
    }
    if uses.work || uses.monitor() {
        out.push_str(runtime::CLOCK);
    }
    if uses.work {
        out.push_str(runtime::WORK);
    }
    if uses.clear {
        out.push_str(runtime::CLEAR);
    }
    if let Some(Limit { kind, tick, max_callbacks }) = limit {
        out.push_str(&runtime::LIMIT.replace("{MAX}", &max_callbacks.to_string()));
        if kind == LimitKind::Turns {
            let ms = tick.saturating_add(1).saturating_mul(scale).min(i32::MAX as u64);
            out.push_str(&format!(
                "// loopsim stops it after its turn limit, at tick {tick}: so does this program (by the clock).\nsetTimeout(() => stop('the turn limit'), {ms}).unref();\n"
            ));
        }
    }
    if uses.fifos() {
        out.push_str(&runtime::FIFOS.replace("{COUNT}", &(uses.fifos.min(64) + uses.close_fifo).max(1).to_string()));
    }
    if uses.monitor() {
        out.push_str(&runtime::MONITOR.replace("{POOL}", &pool.to_string()));
    }
    if uses.io {
        let (who, arrive) = if uses.io_later {
            (
                "The monitor thread\n// writes the byte (this thread, at once, for `after 0`).",
                runtime::IO_ARRIVE_LATER,
            )
        } else {
            (
                "Every `io` here\n// has already arrived: the byte is written at once.",
                runtime::IO_ARRIVE_NOW,
            )
        };
        out.push_str(&runtime::IO.replace("{WHO}", who).replace("{ARRIVE}", arrive));
    }
    if uses.submit {
        out.push_str(if uses.submit_work { runtime::SUBMIT } else { runtime::SUBMIT_QUICK });
    }
    if uses.close {
        out.push_str(runtime::CLOSE);
    }
    if uses.pending {
        out.push_str(runtime::PENDING);
    }
}

/// The values a body's texts need, and the callback `again` repeats.
struct Frame<'a> {
    /// The JavaScript variable holding `{n}` (`None`: always 1).
    run: Option<&'static str>,
    /// The variable holding `{k}` (`None`: always 1).
    count: Option<&'static str>,
    this: Option<This<'a>>,
}

/// The running callback, for `again`.
struct This<'a> {
    site: Site<'a>,
    /// The function's name.
    name: String,
    /// The names of the chain's later links (a `then` head's `again` goes on with them).
    links: Vec<String>,
}

/// A callback or a `.then` link.
#[derive(Clone, Copy)]
struct Site<'a> {
    cb: &'a Callback,
    /// 0: the callback itself; i: its i-th `.then` link.
    link: usize,
}

impl<'a> Site<'a> {
    fn number(self) -> usize {
        if self.link == 0 {
            self.cb.site
        } else {
            self.cb.links[self.link - 1].site
        }
    }

    fn label(self) -> Option<&'a Text> {
        if self.link == 0 {
            self.cb.label.as_ref()
        } else {
            self.cb.links[self.link - 1].label.as_ref()
        }
    }

    fn times(self) -> Option<u64> {
        if self.link == 0 {
            self.cb.times.map(|t| t.value)
        } else {
            self.cb.links[self.link - 1].times.map(|t| t.value)
        }
    }

    fn body(self) -> Option<&'a [Stmt]> {
        if self.link == 0 {
            self.cb.body.as_deref()
        } else {
            self.cb.links[self.link - 1].body.as_deref()
        }
    }

    fn kind(self) -> Kind {
        self.cb.kind.value
    }

    /// Whether the callback's own frame (its body and repeats, not nested
    /// callbacks) satisfies `pred`, or, without a body, its label does.
    fn frame_has(self, pred: &dyn Fn(FramePart) -> bool) -> bool {
        match self.body() {
            Some(body) => frame_has(body, pred),
            None => self.label().is_some_and(|l| pred(FramePart::Text(l))),
        }
    }

    fn has_again(self) -> bool {
        self.frame_has(&|p| matches!(p, FramePart::Again))
    }

    fn uses(self, part: TextPart) -> bool {
        self.frame_has(&|p| matches!(p, FramePart::Text(t) if t.uses(&part)))
    }
}

/// What [`frame_has`] looks at.
enum FramePart<'a> {
    Text(&'a Text),
    Again,
}

fn frame_has(stmts: &[Stmt], pred: &dyn Fn(FramePart) -> bool) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Log(t) | StmtKind::Clear(t) => pred(FramePart::Text(t)),
        StmtKind::Again => pred(FramePart::Again),
        StmtKind::Repeat { body, .. } => frame_has(body, pred),
        StmtKind::Work(_) | StmtKind::Callback(_) => false,
        // The promise statements: gated (`check::promises::gate`).
        _ => false,
    })
}

struct Gen {
    /// The file has `clear`: timers and immediates are tracked by label.
    clear: bool,
    /// Count callbacks (the file runs into a limit).
    limit: bool,
    /// Sites whose `{k}` needs a counter.
    counters: BTreeSet<usize>,
    /// `repeat` nesting depth.
    depth: usize,
}

const INDENT: &str = "  ";

fn pad(level: usize) -> String {
    INDENT.repeat(level)
}

impl<'a> Gen {
    /// The statements, one or more lines each, at `level`.
    fn block(&mut self, stmts: &'a [Stmt], frame: &Frame<'a>, level: usize) -> String {
        let mut out = String::new();
        for stmt in stmts {
            out.push_str(&self.statement(stmt, frame, level));
        }
        out
    }

    fn statement(&mut self, stmt: &'a Stmt, frame: &Frame<'a>, level: usize) -> String {
        let p = pad(level);
        match &stmt.kind {
            StmtKind::Log(text) => format!("{p}console.log({});\n", self.text(text, frame, true)),
            StmtKind::Work(n) => format!("{p}work({});\n", n.value),
            StmtKind::Clear(text) => format!("{p}clearLabel({});\n", self.text(text, frame, true)),
            StmtKind::Repeat { count, body } => {
                self.depth += 1;
                let var = self.index_var().unwrap_or_default();
                let inner = self.block(body, frame, level + 1);
                self.depth -= 1;
                format!("{p}for (let {var} = 1; {var} <= {}; {var}++) {{\n{inner}{p}}}\n", count.value)
            }
            StmtKind::Again => match &frame.this {
                Some(this) => self.again(this, frame, level),
                None => String::new(),
            },
            StmtKind::Callback(cb) => self.callback(cb, frame, level),
            // The promise statements: the CLI refuses a file that has them
            // (`check::promises::gate`) until emit-js writes them.
            _ => String::new(),
        }
    }

    /// The innermost `repeat` index variable.
    fn index_var(&self) -> Option<String> {
        match self.depth {
            0 => None,
            1 => Some("i".into()),
            d => Some(format!("i{d}")),
        }
    }

    /// A text as a JavaScript expression. `full`: fill in `{n}` and `{k}` too
    /// (a label for `clear` tracking keeps them as written).
    fn text(&self, text: &Text, frame: &Frame, full: bool) -> String {
        let mut lit = String::new();
        let mut parts: Vec<Result<String, String>> = Vec::new();
        let flush = |lit: &mut String, parts: &mut Vec<Result<String, String>>| {
            if !lit.is_empty() {
                parts.push(Ok(std::mem::take(lit)));
            }
        };
        for part in &text.parts {
            match part {
                TextPart::Lit(s) => lit.push_str(s),
                TextPart::Index => match self.index_var() {
                    Some(v) => {
                        flush(&mut lit, &mut parts);
                        parts.push(Err(v));
                    }
                    None => lit.push('0'),
                },
                TextPart::Run => match (full, frame.run) {
                    (false, _) => lit.push_str("{n}"),
                    (true, None) => lit.push('1'),
                    (true, Some(v)) => {
                        flush(&mut lit, &mut parts);
                        parts.push(Err(v.into()));
                    }
                },
                TextPart::Count => match (full, frame.count) {
                    (false, _) => lit.push_str("{k}"),
                    (true, None) => lit.push('1'),
                    (true, Some(v)) => {
                        flush(&mut lit, &mut parts);
                        parts.push(Err(v.into()));
                    }
                },
            }
        }
        flush(&mut lit, &mut parts);
        // String literals and variables joined by `+`, starting with a string (so that
        // two numbers next to each other are not added).
        let mut out: Vec<String> = Vec::new();
        if !matches!(parts.first(), Some(Ok(_))) {
            out.push("\"\"".into());
        }
        for part in parts {
            out.push(match part {
                Ok(s) => js_string(&s),
                Err(v) => v,
            });
        }
        out.join(" + ")
    }

    /// A callback statement.
    fn callback(&mut self, cb: &'a Callback, frame: &Frame<'a>, level: usize) -> String {
        let p = pad(level);
        let site = Site { cb, link: 0 };
        match cb.kind.value {
            Kind::Then => return self.then_chain(cb, level),
            Kind::Interval => return self.interval(cb, frame, level),
            _ => {}
        }
        let f = self.function(site, &[], level, None);
        let call = self.schedule_call(site, &f, frame);
        format!("{p}{call};\n")
    }

    /// `setTimeout(f, ticks(3))` and the like, with `f` already written.
    fn schedule_call(&self, site: Site<'a>, f: &str, frame: &Frame) -> String {
        let cb = site.cb;
        let call = match site.kind() {
            Kind::Timeout => format!("setTimeout({f}, ticks({}))", value(cb.delay())),
            Kind::Immediate => format!("setImmediate({f})"),
            Kind::NextTick => format!("process.nextTick({f})"),
            Kind::Microtask => format!("queueMicrotask({f})"),
            Kind::Io => format!("io({}, {f})", value(cb.after())),
            Kind::Submit => format!("submit({}, {f})", value(cb.ticks())),
            Kind::Close => format!("close({f})"),
            Kind::Pending => format!("pending({f})"),
            Kind::Interval | Kind::Then => unreachable!("written by interval() and then_chain()"),
        };
        self.tracked(site, call, frame)
    }

    /// `track(label, handle)` around a timer or immediate when the file has `clear`.
    fn tracked(&self, site: Site<'a>, call: String, frame: &Frame) -> String {
        let trackable = matches!(site.kind(), Kind::Timeout | Kind::Interval | Kind::Immediate);
        match site.label() {
            Some(label) if self.clear && trackable => format!("track({}, {call})", self.text(label, frame, false)),
            _ => call,
        }
    }

    /// A callback's function expression, its first line inline, its last line
    /// `}` at `level`. `links`: the names of the later links of a `then` chain
    /// (for a head that calls `again`). `interval`: the interval's `times`
    /// (Some(None): unbounded) when `n` counts its runs.
    fn function(&mut self, site: Site<'a>, links: &[String], level: usize, interval: Option<Option<u64>>) -> String {
        let p = pad(level);
        let inner = pad(level + 1);
        let again = site.has_again();
        let name = format!("cb{}", site.number());
        let uses_k = site.uses(TextPart::Count);
        if uses_k {
            self.counters.insert(site.number());
        }
        let frame = Frame {
            run: if again || interval.is_some() { Some("n") } else { None },
            count: if uses_k { Some("k") } else { None },
            this: again.then(|| This {
                site,
                name: name.clone(),
                links: links.to_vec(),
            }),
        };
        let mut pre = Vec::new();
        if self.limit {
            pre.push("step();".to_string());
        }
        if let Some(times) = interval {
            pre.push("n += 1;".into());
            if let Some(t) = times {
                pre.push(format!(
                    "if (n === {t}) clearInterval(interval); // `times {t}`: cleared as its run {t} starts"
                ));
            }
        }
        if uses_k {
            pre.push(format!("const k = ++runs{};", site.number()));
        }
        let body = match site.body() {
            Some(stmts) => self.block(stmts, &frame, level + 1),
            None => match site.label() {
                Some(label) => format!("{inner}console.log({});\n", self.text(label, &frame, true)),
                None => String::new(),
            },
        };
        // A body's label, as written (placeholders verbatim), for the reader.
        if let (Some(_), Some(label)) = (site.body(), site.label()) {
            pre.insert(0, format!("const label = {};", js_string(&label.to_string())));
        }
        let head = if again {
            format!("function {name}(n = 1) {{\n")
        } else {
            "() => {\n".to_string()
        };
        if !again && pre.is_empty() {
            let lines: Vec<&str> = body.lines().collect();
            match lines.as_slice() {
                [] => return "() => {}".into(),
                [one] => return format!("() => {}", one.trim().trim_end_matches(';')),
                _ => {}
            }
        }
        let mut out = head;
        for line in pre {
            out.push_str(&format!("{inner}{line}\n"));
        }
        out.push_str(&body);
        out.push_str(&format!("{p}}}"));
        out
    }

    /// `again`: the running callback once more, the same way.
    fn again(&mut self, this: &This<'a>, frame: &Frame, level: usize) -> String {
        let p = pad(level);
        let site = this.site;
        let name = &this.name;
        let cb = site.cb;
        let call = match site.kind() {
            Kind::Timeout => self.tracked(site, format!("setTimeout({name}, ticks({}), n + 1)", value(cb.delay())), frame),
            Kind::Immediate => self.tracked(site, format!("setImmediate({name}, n + 1)"), frame),
            Kind::NextTick => format!("process.nextTick({name}, n + 1)"),
            Kind::Microtask => format!("queueMicrotask(() => {name}(n + 1))"),
            Kind::Then if site.link == 0 => {
                let rest: String = this.links.iter().map(|l| format!(".then({l})")).collect();
                format!("Promise.resolve().then(() => {name}(n + 1)){rest}")
            }
            Kind::Then => format!("Promise.resolve().then(() => {name}(n + 1))"),
            Kind::Io => format!("io({}, () => {name}(n + 1))", value(cb.after())),
            Kind::Submit => format!("submit({}, () => {name}(n + 1))", value(cb.ticks())),
            Kind::Close => format!("close(() => {name}(n + 1))"),
            Kind::Pending => format!("pending(() => {name}(n + 1))"),
            Kind::Interval => return String::new(),
        };
        match site.times() {
            Some(t) => format!("{p}if (n < {t}) {call}; // again, at most {t} runs in all\n"),
            None => format!("{p}{call}; // again\n"),
        }
    }

    /// `interval`: `setInterval`, cleared at the start of its N-th run for `times N`.
    fn interval(&mut self, cb: &'a Callback, frame: &Frame<'a>, level: usize) -> String {
        let p = pad(level);
        let site = Site { cb, link: 0 };
        let delay = value(cb.delay());
        let times = site.times();
        if times.is_none() && !site.uses(TextPart::Run) {
            let f = self.function(site, &[], level, None);
            let call = self.tracked(site, format!("setInterval({f}, ticks({delay}))"), frame);
            return format!("{p}{call};\n");
        }
        let inner = pad(level + 1);
        let f = self.function(site, &[], level + 1, Some(times));
        let call = self.tracked(site, format!("setInterval({f}, ticks({delay}))"), frame);
        format!("{p}{{\n{inner}let n = 0; // runs so far\n{inner}const interval = {call};\n{p}}}\n")
    }

    /// `then A .then B …`: `Promise.resolve().then(a).then(b)…`.
    fn then_chain(&mut self, cb: &'a Callback, level: usize) -> String {
        let p = pad(level);
        let head = Site { cb, link: 0 };
        if head.has_again() && !cb.links.is_empty() {
            // The head's `again` goes on with the later links: name them first.
            let inner = pad(level + 1);
            let mut out = format!("{p}{{\n");
            let mut names = Vec::new();
            for link in 1..=cb.links.len() {
                let site = Site { cb, link };
                let f = self.function(site, &[], level + 1, None);
                let name = format!("link{}", site.number());
                out.push_str(&format!("{inner}const {name} = {f};\n"));
                names.push(name);
            }
            let f = self.function(head, &names, level + 1, None);
            let rest: String = names.iter().map(|l| format!(".then({l})")).collect();
            out.push_str(&format!("{inner}Promise.resolve().then({f}){rest};\n{p}}}\n"));
            return out;
        }
        let mut out = format!("{p}Promise.resolve()");
        for link in 0..=cb.links.len() {
            let f = self.function(Site { cb, link }, &[], level, None);
            out.push_str(&format!(".then({f})"));
        }
        out.push_str(";\n");
        out
    }
}

fn value(n: Option<Spanned<u64>>) -> u64 {
    n.map_or(0, |n| n.value)
}

/// A JavaScript string literal: JSON's escaping (serde_json), plus `\uXXXX`
/// for what JSON leaves raw but a JavaScript reader or an HTML page should not
/// see raw: U+2028 and U+2029 (line terminators), DEL and the C1 controls,
/// the bidirectional formatting characters (they can make code read other than
/// it runs), and `<` (no `</script>` or `<!--`).
pub fn js_string(s: &str) -> String {
    let json = serde_json::to_string(s).expect("strings serialize");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let escape = matches!(c,
            '\u{2028}' | '\u{2029}' | '\u{7f}'..='\u{9f}' | '<'
            | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if escape {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}
