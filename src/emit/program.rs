//! The generator behind `loopsim emit-js` (the module's documentation is
//! [`crate::emit`]'s).

use super::runtime;
use crate::interp::{self, RunOptions};
use crate::problem::{Diag, Problem};
use crate::sched::{coerce_delay, LimitKind, Module, TIMEOUT_MAX};
use crate::syntax::ast::*;
use crate::trace::Ending;
use std::collections::BTreeSet;

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
/// The file's timers that Node cannot run at `opts.scale` ([`scale_problems`]);
/// or, when loopsim's run stops at a limit other than the turn and callback
/// limits (log lines, waiting callbacks, promises, call depth, the clock…),
/// a `loop::emit-limit` problem where it stops: the program keeps only
/// those two, and would go on.
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
        Ending::Limit(hit) if matches!(hit.limit, LimitKind::Turns | LimitKind::Callbacks) => Some(Limit {
            kind: hit.limit,
            tick: hit.tick,
            max_callbacks: opts_run.limits.max_callbacks,
        }),
        // The other limits bound loopsim's memory and stack, not Node's: a
        // program of this file would go on (or eat the machine's memory).
        // So does the clock's: a `work` or a wait past 2^53 - 1 ticks would
        // hold Node for ages (fresh-clone helper 87: `work
        // 18446744073709551615` emitted a program that never ended).
        Ending::Limit(hit) => {
            return Err(vec![Diag::EmitLimit {
                limit: hit.limit,
                max: hit.max,
                bounded: hit.bounded,
            }
            .at(hit.span)])
        }
        Ending::Finished { .. } | Ending::Unhandled { .. } | Ending::Unsettled { .. } => None,
    };
    let mut gen = Gen {
        clear: uses.clear,
        limit: limit.is_some(),
        counters: BTreeSet::new(),
        depth: 0,
        names: Names::of(file),
        hoisted: Vec::new(),
        stmt_level: 0,
    };
    let body = gen.block(&file.body, &Frame::PLAIN, 0);
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
                    out.push((cb.kind, d));
                }
                for body in cb.bodies() {
                    timer_delays(body, out);
                }
            }
            StmtKind::Log(_) | StmtKind::Work(_) | StmtKind::Clear(_) | StmtKind::Again => {}
            other => {
                promise_parts(other, &mut |part| {
                    if let Some(body) = part.body() {
                        timer_delays(body, out);
                    }
                });
                if let Some(e) = statement_expr(other) {
                    each_operand(e, &mut |op| {
                        if let Operand::Timeout(delay, _) = op {
                            out.push((Kind::Timeout, *delay));
                        }
                    });
                }
            }
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
    /// `timeout N` or `immediate` as an operand: `node:timers/promises`.
    timers_promises: bool,
    /// `rejections warn`: node must run with `--unhandled-rejections=warn`.
    warn: bool,
    /// `readFile`: `fs.readFile` of the program itself.
    read_file: bool,
    /// `writeFile`: `fs.writeFile` into a private temporary folder.
    write_file: bool,
}

impl Uses {
    fn of(file: &File) -> Uses {
        let mut uses = Uses {
            warn: file.rejections.is_some_and(|r| r.value == Rejections::Warn),
            ..Uses::default()
        };
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
                    match cb.kind {
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
                        Kind::ReadFile => self.read_file = true,
                        Kind::WriteFile => self.write_file = true,
                        _ => {}
                    }
                    for body in cb.bodies() {
                        self.walk(body, times);
                    }
                }
                other => {
                    promise_parts(other, &mut |part| {
                        if let Some(body) = part.body() {
                            self.walk(body, times);
                        }
                    });
                    if let Some(e) = statement_expr(other) {
                        each_operand(e, &mut |op| match op {
                            Operand::Timeout(..) => {
                                self.timers = true;
                                self.timers_promises = true;
                            }
                            Operand::Immediate(_) => self.timers_promises = true,
                            Operand::File(FileOp::Read, _) => self.read_file = true,
                            Operand::File(FileOp::Write, _) => self.write_file = true,
                            _ => {}
                        });
                    }
                }
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
    if uses.warn {
        out.push_str(
            "// Node flag: --unhandled-rejections=warn (`rejections warn`). Started without it, the program\n// runs itself again with it.\n",
        );
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
    if uses.fifos() || uses.pending || uses.submit || uses.read_file || uses.write_file {
        imports.push(("fs", "node:fs"));
    }
    if uses.net() {
        imports.push(("net", "node:net"));
    }
    if uses.fifos() || uses.pending || uses.write_file {
        imports.push(("os", "node:os"));
        imports.push(("path", "node:path"));
    }
    if uses.timers_promises {
        imports.push(("timersPromises", "node:timers/promises"));
    }
    let mut child = Vec::new();
    if uses.fifos() {
        child.push("execFileSync");
    }
    if (esm && pool_matters) || uses.warn {
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
    if uses.warn {
        out.push_str(runtime::WARN);
    }
    if uses.write_file {
        out.push_str(runtime::WRITE_TARGET);
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
    if uses.fifos() || uses.write_file {
        out.push_str(runtime::CLEAN_ON_SIGNAL);
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

impl Frame<'static> {
    /// A body that is no callback's (the main module, an async function's).
    const PLAIN: Frame<'static> = Frame {
        run: None,
        count: None,
        this: None,
    };
}

/// The running callback, for `again`.
struct This<'a> {
    site: Site<'a>,
    /// The function's name.
    name: String,
    /// The calls of the chain's later links, `.then(link3)` (a `then` head's `again` goes on with them).
    links: Vec<String>,
}

/// A function the program hands to Node: a callback, a `.then`/`.catch`/`.finally`
/// link (of a `then` chain or of a promise expression), or an `on` listener.
#[derive(Clone, Copy)]
struct Site<'a> {
    /// The site number (callbacks, links and listeners in source order).
    number: usize,
    /// The callback's kind (`Then` for a link); `None` for a listener.
    kind: Option<Kind>,
    /// A callback itself, not one of its links.
    head: bool,
    /// The kind's number: a timer's delay, `io … after N`, a `submit` job's ticks.
    amount: u64,
    label: Option<&'a Text>,
    times: Option<u64>,
    body: Option<&'a [Stmt]>,
    /// An `async` function.
    is_async: bool,
}

impl<'a> Site<'a> {
    fn callback(cb: &'a Callback) -> Self {
        Site {
            number: cb.site(),
            kind: Some(cb.kind),
            head: true,
            amount: value(cb.amount()),
            label: cb.label(),
            times: cb.times().map(|t| t.value),
            body: cb.body(),
            is_async: cb.is_async,
        }
    }

    fn link(link: &'a Link) -> Self {
        Site {
            number: link.site,
            kind: Some(Kind::Then),
            head: false,
            amount: 0,
            label: link.label.as_ref(),
            times: link.times.map(|t| t.value),
            body: link.body.as_deref(),
            is_async: link.is_async,
        }
    }

    fn listener(l: &'a Listener) -> Self {
        Site {
            number: l.site,
            kind: None,
            head: true,
            amount: 0,
            label: l.label.as_ref(),
            times: None,
            body: l.body.as_deref(),
            is_async: false,
        }
    }

    /// Whether the callback's own frame (its body and repeats, not nested
    /// callbacks) satisfies `pred`, or, without a body, its label does.
    fn frame_has(self, pred: &dyn Fn(FramePart) -> bool) -> bool {
        match self.body {
            Some(body) => frame_has(body, pred),
            None => self.label.is_some_and(|l| pred(FramePart::Text(l))),
        }
    }

    fn has_again(self) -> bool {
        self.frame_has(&|p| matches!(p, FramePart::Again))
    }

    fn uses(self, part: TextPart) -> bool {
        self.frame_has(&|p| matches!(p, FramePart::Text(t) if t.uses(&part)))
    }

    /// Whether it may return a value (`return …` in its own frame).
    fn returns(self) -> bool {
        self.frame_has(&|p| matches!(p, FramePart::Return))
    }

    /// Whether its body fits an arrow function's expression (`() => f()`):
    /// no body, or one statement that is a call whose value nobody reads. A
    /// `then` chain, `call` or `chain` is not one: a handler returning it
    /// would make its promise wait for theirs.
    fn one_expression(self) -> bool {
        let Some(body) = self.body else { return true };
        match body {
            [] => true,
            [stmt] => match &stmt.kind {
                StmtKind::Log(_) | StmtKind::Work(_) | StmtKind::Clear(_) => true,
                StmtKind::Resolve { .. } | StmtKind::Reject { .. } => true,
                StmtKind::Callback(cb) => cb.kind != Kind::Then,
                _ => false,
            },
            _ => false,
        }
    }
}

/// What [`frame_has`] looks at.
enum FramePart<'a> {
    Text(&'a Text),
    Again,
    Return,
}

/// Whether a statement of `stmts` satisfies `pred`, in the same frame: inside
/// `repeat`s, executors (they run now, in the code around them), `try` and
/// `catch`; not in nested callbacks, links, async functions or listeners.
fn frame_has(stmts: &[Stmt], pred: &dyn Fn(FramePart) -> bool) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Log(t) | StmtKind::Clear(t) => pred(FramePart::Text(t)),
        StmtKind::Again => pred(FramePart::Again),
        StmtKind::Return(_) if pred(FramePart::Return) => true,
        StmtKind::Repeat { body, .. } => frame_has(body, pred),
        StmtKind::Work(_) | StmtKind::Callback(_) => false,
        other => {
            let mut found = false;
            promise_parts(other, &mut |part| {
                if let Part::Body(BodyRole::Executor | BodyRole::Try | BodyRole::Catch, body) = part {
                    found = found || frame_has(body, pred);
                }
            });
            found
        }
    })
}

/// The JavaScript names of the file's promises and async functions, by
/// declaration ([`Slot::decl`]).
struct Names {
    /// The variable or function: the name as written, unless the program
    /// uses it itself ([`EMITTED_NAMES`]): then with `_` after it.
    ident: Vec<String>,
    /// `resolveX` for an executor's promise settled by name (`resolve x`).
    resolve: Vec<Option<String>>,
    /// `rejectX`, for `reject x`.
    reject: Vec<Option<String>>,
    /// The name holds no native promise (`promise p = value`, `= thenable`).
    plain: Vec<bool>,
}

/// The top-level names of the emitted program (its runtime, imports and
/// header) and the globals its runtime uses, besides those the checks
/// refuse as names (`check::promises`): a name of the file that is one of
/// them gets a `_` ([`Names`]).
const EMITTED_NAMES: [&str; 50] = [
    "TITLE",
    "clock",
    "handles",
    "MAX_CALLBACKS",
    "callbacks",
    "fifoDir",
    "freeFifos",
    "fifoCount",
    "makeFifos",
    "fifo",
    "ARRIVES",
    "JOB",
    "CAPACITY",
    "monitor",
    "shared",
    "control",
    "requests",
    "monitorThread",
    "jobs",
    "closeFifo",
    "missingPipe",
    "writeTarget",
    "fs",
    "net",
    "os",
    "path",
    "execFileSync",
    "spawnSync",
    "Worker",
    "runs",
    "__filename",
    "__dirname",
    "Number",
    "Map",
    "Set",
    "Array",
    "Buffer",
    "SharedArrayBuffer",
    "Int32Array",
    "Float64Array",
    "Atomics",
    "Math",
    "parseInt",
    "Object",
    "JSON",
    "String",
    "Symbol",
    "clearTimeout",
    "clearInterval",
    "clearImmediate",
];

/// Whether the program makes a variable of this form itself: `cb3`, `link3`,
/// `runs3` (functions and counters by site), `i2` (a nested `repeat`'s index).
fn emitted_pattern(name: &str) -> bool {
    ["cb", "link", "runs", "i"].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    })
}

impl Names {
    fn of(file: &File) -> Names {
        let mut decls: Vec<(u32, &str, bool)> = Vec::new();
        let mut settled: Vec<(u32, bool)> = Vec::new();
        // The declarations seen so far that hold no promise (a name is declared before its uses).
        let mut plain_decls: BTreeSet<u32> = BTreeSet::new();
        each_statement(&file.body, &mut |stmt| match &stmt.kind {
            StmtKind::AsyncDef { name, .. } => decls.extend(name.slot().map(|s| (s.decl, name.text.as_str(), false))),
            StmtKind::Promise(p) => {
                let plain = match &**p {
                    PromiseStmt::Expr { expr, .. } => {
                        expr.links.is_empty()
                            && match &expr.operand {
                                Operand::Value(_) | Operand::Thenable(_) => true,
                                // `promise q = p` holds what `p` holds.
                                Operand::Name(n) => n.slot().is_some_and(|s| plain_decls.contains(&s.decl)),
                                _ => false,
                            }
                    }
                    PromiseStmt::Executor { .. } => false,
                };
                if let (true, Some(s)) = (plain, p.name().and_then(Name::slot)) {
                    plain_decls.insert(s.decl);
                }
                if let Some(name) = p.name() {
                    decls.extend(name.slot().map(|s| (s.decl, name.text.as_str(), plain)));
                }
            }
            StmtKind::Resolve { target: Some(t), .. } => settled.extend(t.slot().map(|s| (s.decl, true))),
            StmtKind::Reject { target: Some(t) } => settled.extend(t.slot().map(|s| (s.decl, false))),
            _ => {}
        });
        let count = decls.iter().map(|d| d.0 as usize + 1).max().unwrap_or(0);
        let mut names = Names {
            ident: vec![String::new(); count],
            resolve: vec![None; count],
            reject: vec![None; count],
            plain: vec![false; count],
        };
        let mut taken: BTreeSet<String> = decls.iter().map(|d| d.1.to_string()).collect();
        taken.extend(EMITTED_NAMES.iter().map(|s| s.to_string()));
        let fresh = |taken: &mut BTreeSet<String>, base: String| {
            let mut name = base.clone();
            let mut n = 1;
            while taken.contains(&name) {
                n += 1;
                name = format!("{base}{n}");
            }
            taken.insert(name.clone());
            name
        };
        for &(decl, text, plain) in &decls {
            let d = decl as usize;
            names.plain[d] = plain;
            names.ident[d] = if EMITTED_NAMES.contains(&text) || emitted_pattern(text) {
                fresh(&mut taken, format!("{text}_"))
            } else {
                text.to_string()
            };
        }
        for (decl, resolve) in settled {
            let d = decl as usize;
            let slot = if resolve { &mut names.resolve[d] } else { &mut names.reject[d] };
            if slot.is_none() {
                let ident = &names.ident[d];
                let verb = if resolve { "resolve" } else { "reject" };
                let base = format!("{verb}{}{}", ident[..1].to_ascii_uppercase(), &ident[1..]);
                *slot = Some(fresh(&mut taken, base));
            }
        }
        names
    }
}

/// Calls `f` on every statement of `stmts` and of the blocks inside them.
fn each_statement<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for stmt in stmts {
        f(stmt);
        each_block(&stmt.kind, &mut |body| each_statement(body, f));
    }
}

/// The expression written directly in a promise statement (not those in its blocks).
fn statement_expr(kind: &StmtKind) -> Option<&Expr> {
    match kind {
        StmtKind::Await(e) | StmtKind::Chain(e) | StmtKind::Return(Some(e)) | StmtKind::Resolve { with: Some(e), .. } => Some(e),
        StmtKind::Promise(p) => match &**p {
            PromiseStmt::Expr { expr, .. } => Some(expr),
            PromiseStmt::Executor { .. } => None,
        },
        _ => None,
    }
}

/// Calls `f` on the operand of `e` and of the expressions in its combinator lists.
fn each_operand<'a>(e: &'a Expr, f: &mut dyn FnMut(&'a Operand)) {
    f(&e.operand);
    if let Operand::Combinator { list, .. } = &e.operand {
        for e in list {
            each_operand(e, f);
        }
    }
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
    names: Names,
    /// Functions declared before the statement being written (a link that
    /// calls `again` where the promise would pass it a value: [`Gen::link_arg`]).
    hoisted: Vec<String>,
    /// The level of the statement being written.
    stmt_level: usize,
}

const INDENT: &str = "  ";

fn pad(level: usize) -> String {
    INDENT.repeat(level)
}

/// The message of the errors `rejected`, `reject` and `throw` make (they reach
/// stderr only, in Node's report of an unhandled rejection).
const REJECTED: &str = "\"rejected\"";

impl<'a> Gen {
    /// The statements, one or more lines each, at `level`.
    fn block(&mut self, stmts: &'a [Stmt], frame: &Frame<'a>, level: usize) -> String {
        let mut out = String::new();
        for stmt in stmts {
            out.push_str(&self.statement(stmt, frame, level));
        }
        out
    }

    /// A statement, after the functions it needs declared first.
    fn statement(&mut self, stmt: &'a Stmt, frame: &Frame<'a>, level: usize) -> String {
        let outer = std::mem::take(&mut self.hoisted);
        let outer_level = std::mem::replace(&mut self.stmt_level, level);
        let text = self.statement_text(stmt, frame, level);
        let hoisted = std::mem::replace(&mut self.hoisted, outer);
        self.stmt_level = outer_level;
        hoisted.concat() + &text
    }

    fn statement_text(&mut self, stmt: &'a Stmt, frame: &Frame<'a>, level: usize) -> String {
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
            StmtKind::AsyncDef { name, body } => {
                let inner = self.block(body, &Frame::PLAIN, level + 1);
                format!("{p}async function {}() {{\n{inner}{p}}}\n", self.ident(name))
            }
            StmtKind::Call(name) => format!("{p}{}();\n", self.ident(name)),
            // Its resumption is a microtask job: counted, as the model counts it.
            StmtKind::Await(e) if self.limit => format!("{p}await {};\n{p}step();\n", self.expr(e, frame, level)),
            StmtKind::Await(e) => format!("{p}await {};\n", self.expr(e, frame, level)),
            StmtKind::Chain(e) => {
                let e = self.expr(e, frame, level);
                // An object literal (`thenable`) first in a statement would read as a block.
                if e.starts_with('{') {
                    format!("{p}({e});\n")
                } else {
                    format!("{p}{e};\n")
                }
            }
            StmtKind::Promise(ps) => self.promise(ps, frame, level),
            StmtKind::Resolve { target, with } => {
                let f = match target {
                    Some(name) => self.settler(name, true),
                    None => "resolve".into(),
                };
                let arg = match with {
                    Some(e) => self.expr(e, frame, level),
                    None => String::new(),
                };
                format!("{p}{f}({arg});\n")
            }
            StmtKind::Reject { target } => {
                let f = match target {
                    Some(name) => self.settler(name, false),
                    None => "reject".into(),
                };
                format!("{p}{f}(new Error({REJECTED}));\n")
            }
            StmtKind::Return(None) => format!("{p}return;\n"),
            StmtKind::Return(Some(e)) => format!("{p}return {};\n", self.expr(e, frame, level)),
            StmtKind::Throw => format!("{p}throw new Error(\"thrown\");\n"),
            StmtKind::Try { body, catch } => {
                let body = self.block(body, frame, level + 1);
                let catch = self.block(catch, frame, level + 1);
                format!("{p}try {{\n{body}{p}}} catch {{\n{catch}{p}}}\n")
            }
            StmtKind::On(listener) => {
                let f = self.function(Site::listener(listener), &[], level, None);
                format!("{p}process.on('{}', {f});\n", listener.event.value.name())
            }
        }
    }

    /// The JavaScript name of a promise or an async function.
    fn ident(&self, name: &Name) -> String {
        name.slot()
            .and_then(|s| self.names.ident.get(s.decl as usize))
            .cloned()
            .unwrap_or_else(|| name.text.clone())
    }

    /// `resolveX` or `rejectX` of the executor promise `name`.
    fn settler(&self, name: &Name, resolve: bool) -> String {
        let table = if resolve { &self.names.resolve } else { &self.names.reject };
        let found = name.slot().and_then(|s| table.get(s.decl as usize).cloned().flatten());
        // Every name of a checked file has its slot: this is for a file the checks did not see.
        found.unwrap_or_else(|| {
            let verb = if resolve { "resolve" } else { "reject" };
            format!("{verb}{}{}", name.text[..1].to_ascii_uppercase(), &name.text[1..])
        })
    }

    /// `promise …`.
    fn promise(&mut self, ps: &'a PromiseStmt, frame: &Frame<'a>, level: usize) -> String {
        let p = pad(level);
        match ps {
            PromiseStmt::Expr { name, expr } => {
                format!("{p}const {} = {};\n", self.ident(name), self.expr(expr, frame, level))
            }
            PromiseStmt::Executor { name, body, links, .. } => {
                let Some(name) = name else {
                    let e = self.executor(body, &[], frame, level);
                    return format!("{p}{};\n", self.links(e, links, false, level));
                };
                let decl = name.slot().map_or(usize::MAX, |s| s.decl as usize);
                let settlers: Vec<(String, &str)> = [
                    (self.names.resolve.get(decl).cloned().flatten(), "resolve"),
                    (self.names.reject.get(decl).cloned().flatten(), "reject"),
                ]
                .into_iter()
                .filter_map(|(f, param)| f.map(|f| (f, param)))
                .collect();
                let mut out = String::new();
                if !settlers.is_empty() {
                    let list: Vec<&str> = settlers.iter().map(|(f, _)| f.as_str()).collect();
                    out.push_str(&format!(
                        "{p}let {}; // set by the executor, called from outside it\n",
                        list.join(", ")
                    ));
                }
                let assigns: Vec<String> = settlers.iter().map(|(f, param)| format!("{f} = {param};")).collect();
                let e = self.executor(body, &assigns, frame, level);
                let e = self.links(e, links, false, level);
                out.push_str(&format!("{p}const {} = {e};\n", self.ident(name)));
                out
            }
        }
    }

    /// `new Promise((resolve, reject) => { … })`, its body at `level + 1`
    /// after the lines `first`. The body runs now, in `frame`.
    fn executor(&mut self, body: &'a [Stmt], first: &[String], frame: &Frame<'a>, level: usize) -> String {
        let inner = pad(level + 1);
        let mut out = String::from("new Promise((resolve, reject) => {");
        if body.is_empty() && first.is_empty() {
            return out + "})";
        }
        out.push('\n');
        for line in first {
            out.push_str(&format!("{inner}{line}\n"));
        }
        out.push_str(&self.block(body, frame, level + 1));
        out.push_str(&format!("{}}})", pad(level)));
        out
    }

    /// A promise expression (`OPERAND LINK*`) written at `level`.
    fn expr(&mut self, e: &'a Expr, frame: &Frame<'a>, level: usize) -> String {
        // Links go on a promise: what is not one is made one first.
        let linked = !e.links.is_empty();
        let thenable = "{ then(resolve) { resolve(); } }";
        let operand = match &e.operand {
            Operand::Value(_) if linked => "Promise.resolve(null)".into(),
            Operand::Value(_) => "null".into(),
            Operand::Resolved(_) => "Promise.resolve()".into(),
            Operand::Rejected(_) => format!("Promise.reject(new Error({REJECTED}))"),
            Operand::Thenable(_) if linked => format!("Promise.resolve({thenable})"),
            Operand::Thenable(_) => thenable.into(),
            Operand::Name(name) => {
                let plain = name.slot().is_some_and(|s| self.names.plain.get(s.decl as usize) == Some(&true));
                if plain && linked {
                    format!("Promise.resolve({})", self.ident(name))
                } else {
                    self.ident(name)
                }
            }
            Operand::Call { name, .. } => format!("{}()", self.ident(name)),
            Operand::Executor { body, .. } => self.executor(body, &[], frame, level),
            Operand::Combinator { kind, list, .. } => {
                let items: Vec<String> = list.iter().map(|e| self.expr(e, frame, level)).collect();
                format!("Promise.{}([{}])", kind.name(), items.join(", "))
            }
            Operand::Timeout(n, _) => format!("timersPromises.setTimeout(ticks({}))", n.value),
            Operand::Immediate(_) => "timersPromises.setImmediate()".into(),
            Operand::File(FileOp::Read, _) => "fs.promises.readFile(process.argv[1])".into(),
            Operand::File(FileOp::Write, _) => "fs.promises.writeFile(writeTarget, 'x')".into(),
        };
        self.links(operand, &e.links, false, level)
    }

    /// `promise` followed by `.then(f)`, `.catch(f)`, `.finally(f)` for each
    /// link. `undefined_value`: the promise fulfils with `undefined`.
    fn links(&mut self, promise: String, links: &'a [Link], undefined_value: bool, level: usize) -> String {
        let mut out = promise;
        let mut undefined_value = undefined_value;
        for link in links {
            let f = self.link_arg(link, undefined_value, level);
            out.push_str(&format!(".{}({f})", link.kind.name()));
            undefined_value &= !Site::link(link).returns();
        }
        out
    }

    /// A link's function, for its method's call. A link that calls `again` is
    /// `function cbN(n = 1)`, and its first run must get no argument: where
    /// the promise may pass one (a `.catch`'s reason, a value), the function
    /// is declared before the statement and the link calls it, `() => cbN()`.
    /// `undefined_value`: the promise before the link fulfils with `undefined`.
    fn link_arg(&mut self, link: &'a Link, undefined_value: bool, level: usize) -> String {
        let site = Site::link(link);
        let gets_nothing = match link.kind {
            LinkKind::Finally => true,
            LinkKind::Then => undefined_value,
            LinkKind::Catch => false,
        };
        if site.has_again() && !gets_nothing {
            let at = self.stmt_level;
            let f = self.function(site, &[], at, None);
            self.hoisted.push(format!("{}{f}\n", pad(at)));
            return format!("() => cb{}()", site.number);
        }
        self.function(site, &[], level, None)
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
        let site = Site::callback(cb);
        match cb.kind {
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
        let amount = site.amount;
        let call = match site.kind.expect("a callback") {
            Kind::Timeout => format!("setTimeout({f}, ticks({amount}))"),
            Kind::Immediate => format!("setImmediate({f})"),
            Kind::NextTick => format!("process.nextTick({f})"),
            Kind::Microtask => format!("queueMicrotask({f})"),
            Kind::Io => format!("io({amount}, {f})"),
            Kind::Submit => format!("submit({amount}, {f})"),
            Kind::Close => format!("close({f})"),
            Kind::Pending => format!("pending({f})"),
            Kind::ReadFile => format!("fs.readFile(process.argv[1], () => ({f})())"),
            Kind::WriteFile => format!("fs.writeFile(writeTarget, 'x', () => ({f})())"),
            Kind::Interval | Kind::Then => unreachable!("written by interval() and then_chain()"),
        };
        self.tracked(site, call, frame)
    }

    /// `track(label, handle)` around a timer or immediate when the file has `clear`.
    fn tracked(&self, site: Site<'a>, call: String, frame: &Frame) -> String {
        let trackable = matches!(site.kind, Some(Kind::Timeout | Kind::Interval | Kind::Immediate));
        match site.label {
            Some(label) if self.clear && trackable => format!("track({}, {call})", self.text(label, frame, false)),
            _ => call,
        }
    }

    /// A callback's function expression, its first line inline, its last line
    /// `}` at `level`. `links`: the calls of the later links of a `then` chain
    /// (for a head that calls `again`). `interval`: the interval's `times`
    /// (Some(None): unbounded) when `n` counts its runs.
    fn function(&mut self, site: Site<'a>, links: &[String], level: usize, interval: Option<Option<u64>>) -> String {
        let p = pad(level);
        let inner = pad(level + 1);
        let again = site.has_again();
        let name = format!("cb{}", site.number);
        let uses_k = site.uses(TextPart::Count);
        if uses_k {
            self.counters.insert(site.number);
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
            if site.is_async {
                pre.push("const n = ++runs; // this run's number, for after its awaits too".into());
            } else {
                pre.push("n += 1;".into());
            }
            if let Some(t) = times {
                pre.push(format!(
                    "if (n === {t}) clearInterval(interval); // `times {t}`: cleared as its run {t} starts"
                ));
            }
        }
        if uses_k {
            pre.push(format!("const k = ++runs{};", site.number));
        }
        let body = match site.body {
            Some(stmts) => self.block(stmts, &frame, level + 1),
            None => match site.label {
                Some(label) => format!("{inner}console.log({});\n", self.text(label, &frame, true)),
                None => String::new(),
            },
        };
        // A body's label, as written (placeholders verbatim), for the reader.
        if let (Some(_), Some(label)) = (site.body, site.label) {
            pre.insert(0, format!("const label = {};", js_string(&label.to_string())));
        }
        let is_async = if site.is_async { "async " } else { "" };
        let head = if again {
            format!("{is_async}function {name}(n = 1) {{\n")
        } else {
            format!("{is_async}() => {{\n")
        };
        if !again && pre.is_empty() && site.one_expression() {
            let lines: Vec<&str> = body.lines().collect();
            match lines.as_slice() {
                [] => return format!("{is_async}() => {{}}"),
                [one] => return format!("{is_async}() => {}", one.trim().trim_end_matches(';')),
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
        let amount = site.amount;
        let Some(kind) = site.kind else { return String::new() };
        let call = match kind {
            Kind::Timeout => self.tracked(site, format!("setTimeout({name}, ticks({amount}), n + 1)"), frame),
            Kind::Immediate => self.tracked(site, format!("setImmediate({name}, n + 1)"), frame),
            Kind::NextTick => format!("process.nextTick({name}, n + 1)"),
            Kind::Microtask => format!("queueMicrotask(() => {name}(n + 1))"),
            Kind::Then if site.head => {
                let rest: String = this.links.concat();
                format!("Promise.resolve().then(() => {name}(n + 1)){rest}")
            }
            Kind::Then => format!("Promise.resolve().then(() => {name}(n + 1))"),
            Kind::Io => format!("io({amount}, () => {name}(n + 1))"),
            Kind::Submit => format!("submit({amount}, () => {name}(n + 1))"),
            Kind::Close => format!("close(() => {name}(n + 1))"),
            Kind::Pending => format!("pending(() => {name}(n + 1))"),
            Kind::ReadFile => format!("fs.readFile(process.argv[1], () => {name}(n + 1))"),
            Kind::WriteFile => format!("fs.writeFile(writeTarget, 'x', () => {name}(n + 1))"),
            Kind::Interval => return String::new(),
        };
        match site.times {
            Some(t) => format!("{p}if (n < {t}) {call}; // again, at most {t} runs in all\n"),
            None => format!("{p}{call}; // again\n"),
        }
    }

    /// `interval`: `setInterval`, cleared at the start of its N-th run for `times N`.
    fn interval(&mut self, cb: &'a Callback, frame: &Frame<'a>, level: usize) -> String {
        let p = pad(level);
        let site = Site::callback(cb);
        let delay = site.amount;
        let times = site.times;
        if times.is_none() && !site.uses(TextPart::Run) {
            let f = self.function(site, &[], level, None);
            let call = self.tracked(site, format!("setInterval({f}, ticks({delay}))"), frame);
            return format!("{p}{call};\n");
        }
        let inner = pad(level + 1);
        let f = self.function(site, &[], level + 1, Some(times));
        let call = self.tracked(site, format!("setInterval({f}, ticks({delay}))"), frame);
        // An async run reads `n` after its awaits, when later runs have started: each keeps its own.
        let counter = if cb.is_async { "runs" } else { "n" };
        format!("{p}{{\n{inner}let {counter} = 0; // runs so far\n{inner}const interval = {call};\n{p}}}\n")
    }

    /// `then A .then B …`: `Promise.resolve().then(a).then(b)…` (`.catch`,
    /// `.finally` links the same way).
    fn then_chain(&mut self, cb: &'a Callback, level: usize) -> String {
        let p = pad(level);
        let head = Site::callback(cb);
        if head.has_again() && !cb.links().is_empty() {
            // The head's `again` goes on with the later links: name them first.
            let inner = pad(level + 1);
            let mut out = format!("{p}{{\n");
            let mut calls = Vec::new();
            let mut undefined_value = !head.returns();
            for link in cb.links() {
                let f = self.link_arg(link, undefined_value, level + 1);
                undefined_value &= !Site::link(link).returns();
                let name = format!("link{}", link.site);
                out.push_str(&format!("{inner}const {name} = {f};\n"));
                calls.push(format!(".{}({name})", link.kind.name()));
            }
            let f = self.function(head, &calls, level + 1, None);
            let rest = calls.concat();
            out.push_str(&format!("{inner}Promise.resolve().then({f}){rest};\n{p}}}\n"));
            return out;
        }
        let f = self.function(head, &[], level, None);
        let chain = self.links(format!("Promise.resolve().then({f})"), cb.links(), !head.returns(), level);
        format!("{p}{chain};\n")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every top-level name of the runtime, the imports and the header.
    fn runtime_names() -> Vec<String> {
        let pieces = [
            runtime::TICKS,
            runtime::CLOCK,
            runtime::WORK,
            runtime::CLEAR,
            runtime::LIMIT,
            runtime::FIFOS,
            runtime::CLEAN_ON_SIGNAL,
            runtime::WRITE_TARGET,
            runtime::MONITOR,
            runtime::IO,
            runtime::SUBMIT,
            runtime::SUBMIT_QUICK,
            runtime::CLOSE,
            runtime::PENDING,
            runtime::ESM_POOL,
            runtime::WARN,
        ];
        let mut names: Vec<String> = ["SOURCE", "TITLE", "TICK", "fs", "net", "os", "path", "timersPromises"]
            .iter()
            .chain(&["execFileSync", "spawnSync", "Worker"])
            .map(|s| s.to_string())
            .collect();
        for line in pieces.iter().flat_map(|p| p.lines()) {
            for declared in line
                .strip_prefix("const ")
                .or(line.strip_prefix("let "))
                .into_iter()
                .flat_map(|l| l.split(", "))
            {
                names.extend(declared.split(" = ").next().map(str::to_string));
            }
            if let Some(rest) = line.strip_prefix("function ") {
                names.extend(rest.split('(').next().map(str::to_string));
            }
        }
        names
    }

    /// `promise q = p` of a `p` bound to a value or thenable holds no promise either: its
    /// links go on `Promise.resolve(q)`, not on the thenable's own `then` (or on `null`).
    #[test]
    fn a_name_bound_to_a_plain_name_is_plain_too() {
        for operand in ["thenable", "value"] {
            let src =
                format!("promise p = {operand}\npromise q = p\nchain q .then \"x\"\npromise r = q .then \"y\"\nchain r .then \"z\"\n");
            let loaded = crate::load::load_bytes("n.loop", src.as_bytes()).unwrap();
            let opts = EmitOptions {
                scale: 1,
                name: "n.loop".into(),
            };
            let js = emit(&loaded.file, &loaded.src, &opts).unwrap().js;
            assert!(js.contains("const q = p;\nPromise.resolve(q).then("), "{operand}:\n{js}");
            // `r` is the promise of a link: linked as it is.
            assert!(
                js.contains("const r = Promise.resolve(q).then(") && js.contains("\nr.then("),
                "{operand}:\n{js}"
            );
        }
    }

    #[test]
    fn a_name_of_the_file_never_is_one_of_the_runtime() {
        let names = runtime_names();
        assert!(names.len() > 40, "{names:?}");
        let mut renamed = 0;
        for name in names {
            let src = format!("promise {name} = resolved\nchain {name}\n");
            // A keyword (`io`, `close`) or a name the checks refuse (`ticks`, `stop`).
            let Ok(loaded) = crate::load::load_bytes("n.loop", src.as_bytes()) else {
                continue;
            };
            let opts = EmitOptions {
                scale: 1,
                name: "n.loop".into(),
            };
            let js = emit(&loaded.file, &loaded.src, &opts).unwrap().js;
            assert!(
                js.contains(&format!("const {name}_ = Promise.resolve();\n{name}_;\n")),
                "{name}:\n{js}"
            );
            renamed += 1;
        }
        assert!(renamed > 20, "{renamed} names renamed");
    }
}
