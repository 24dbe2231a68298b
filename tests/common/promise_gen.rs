//! A seeded, deterministic generator of random `.loop` programs in the promise
//! language (docs/language.md, section 9), for comparing loopsim's model with
//! real Node (tests/promise_random.rs) and for its own checks
//! (tests/promise_gen.rs).
//!
//! [`program`] of a seed is always the same text: a splitmix64 generator
//! seeded by the seed (and the attempt number) makes every choice; nothing
//! reads the clock. A construction the checks refuse, or warn about, is made
//! again with the next attempt number (there are few: the generator follows
//! the checks' rules).
//!
//! What a program holds: async functions (defined before their first `call`
//! or, hoisted, at the end of their block), `call`, `await` of every kind of
//! operand, `return` of a value or a promise, `throw`, `try { } catch { }`,
//! executors settled now or from a later `nextTick`/`then`/`microtask`/
//! `immediate`/`timeout`, or by name (`resolve NAME with EXPR`, `reject
//! NAME`) from elsewhere, `promise NAME = EXPR`, `chain` with `.then`/
//! `.catch`/`.finally` links whose handlers log, return promises or throw,
//! `all`/`allSettled`/`any`/`race`, the `timers/promises` operands, the two
//! process listeners, `rejections warn`, and plain `log`, `nextTick`,
//! `microtask`, `then`, `immediate`, `timeout` (async callbacks too). Every
//! label and `log` text is distinct (a callback that runs twice logs its text
//! twice).
//!
//! No races, so that real Node prints one order:
//!
//! - timers are due at distinct absolute ticks, [`SPACING`] (20) ticks apart
//!   and at least 20 ticks after the code that set them: each `timeout`
//!   (callback or operand) takes a free **slot**, an absolute tick that is a
//!   multiple of 20, and its delay is the slot minus the tick the code setting
//!   it runs at (its *epoch*). So there is never a `timeout 0` (or 1) beside an
//!   immediate, and no two timers in the same millisecond area;
//! - the epoch of the code being written is tracked: 0 in the main module, a
//!   timer's slot in its callback, the settling tick of a promise after an
//!   `await` of it or in its handlers. Where it is not known exactly (an
//!   `await` of a promise settled by name, a handler of an async function's
//!   promise that waited, code that may run more than once: a reused async
//!   function, a listener), the generator writes no timer;
//! - the turns that immediates add (1 tick each in the model, microseconds in
//!   Node) are capped well below 20;
//! - no `io`, `submit`, `work`, `interval`, `repeat`, no ES module; `times`
//!   only in [`program_with_again`]'s programs.
//!
//! [`program_with_again`] makes a second family (the same construction, its
//! own choices): some `.then`/`.catch`/`.finally` links with a body get
//! `times N` (2 or 3) and start with `again`, so the link runs N times, each
//! run alone, one hop after the one before (docs/language.md §4). Such a body
//! may run more than once: no timer in it. [`program`]'s texts are unchanged
//! by it (the family's choices are made only when it is asked for).

use loopsim::syntax::ast::{promise_parts, Stmt, StmtKind};
use std::fmt::Write as _;

/// Ticks between two timers' due times, and between a timer and the code that set it.
pub const SPACING: u64 = 20;
/// The latest slot (absolute due tick) a timer may take.
const MAX_SLOT: u64 = 80;
/// Timers in one program, at most.
const MAX_TIMERS: usize = 3;
/// Immediates (callbacks, `await immediate`, an executor settled from one) in one program.
const MAX_TURNS: u32 = 6;
/// Blocks nested in blocks, at most.
const MAX_DEPTH: u32 = 3;
/// Statements of a program, nested ones included: between these two. The
/// generator's budget is a little lower (an executor's settling statements
/// may be written after it runs out); [`program`] makes another construction
/// if the count is out of range all the same.
pub const MIN_STATEMENTS: usize = 5;
pub const MAX_STATEMENTS: usize = 25;
const MAX_BUDGET: u64 = 22;

/// splitmix64 (Steele, Lea, Flood 2014): small, fast, and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True `p` times in 100.
    pub fn percent(&mut self, p: u64) -> bool {
        self.below(100) < p
    }

    /// An index of `weights`, chosen with those weights (one must be > 0).
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let total: u64 = weights.iter().sum();
        let mut x = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        unreachable!("x < total")
    }
}

/// The program of `seed`: the first construction that loopsim's checks accept
/// without a problem (errors and warnings), of [`MIN_STATEMENTS`] to
/// [`MAX_STATEMENTS`] statements.
pub fn program(seed: u64) -> String {
    made(seed, false)
}

/// The program of `seed` in the family with `again` in links (see the
/// module's comment): always the same text for a seed.
pub fn program_with_again(seed: u64) -> String {
    made(seed, true)
}

fn made(seed: u64, agains: bool) -> String {
    for attempt in 0..100 {
        let text = if agains {
            construct_in(seed, attempt, true)
        } else {
            construct(seed, attempt)
        };
        if accepted(&text).is_ok() {
            return text;
        }
    }
    panic!("seed {seed}: no construction of 100 passes the checks")
}

/// Whether loopsim loads `text` without an error or a warning, and it has
/// [`MIN_STATEMENTS`] to [`MAX_STATEMENTS`] statements.
pub fn accepted(text: &str) -> Result<(), String> {
    match loopsim::load::load_bytes("random.loop", text.as_bytes()) {
        Ok(loaded) if loaded.warnings.is_empty() => {
            let n = statements(&loaded.file.body);
            if (MIN_STATEMENTS..=MAX_STATEMENTS).contains(&n) {
                Ok(())
            } else {
                Err(format!("{n} statements"))
            }
        }
        Ok(loaded) => Err(format!("warnings: {:?}", loaded.warnings)),
        Err(loopsim::load::LoadError::Invalid(fp)) => Err(format!("problems: {:?}", fp.problems)),
        Err(e) => Err(format!("{e:?}")),
    }
}

/// How many statements `stmts` holds, those in their blocks included.
pub fn statements(stmts: &[Stmt]) -> usize {
    let mut n = stmts.len();
    for s in stmts {
        match &s.kind {
            StmtKind::Callback(cb) => {
                for body in cb.bodies() {
                    n += statements(body);
                }
            }
            other => promise_parts(other, &mut |p| {
                if let Some(body) = p.body() {
                    n += statements(body);
                }
            }),
        }
    }
    n
}

/// One construction of the program of `seed` (checked by [`program`]).
pub fn construct(seed: u64, attempt: u32) -> String {
    construct_in(seed, attempt, false)
}

/// [`construct`], in the family with `again` in links if `agains`.
fn construct_in(seed: u64, attempt: u32, agains: bool) -> String {
    let mut rng = Rng::new(seed ^ u64::from(attempt).wrapping_mul(0xA076_1D64_78BD_642F));
    let budget = rng.range(MIN_STATEMENTS as u64, MAX_BUDGET) as i64;
    let mut gen = Gen {
        rng,
        budget,
        labels: 0,
        names: 0,
        slots: Vec::new(),
        turns: 0,
        decls: Vec::new(),
        blocks: Vec::new(),
        frames: Vec::new(),
        listeners: [false; 2],
        agains,
    };
    let mut out = String::new();
    let family = if agains { " (again in links)" } else { "" };
    let _ = writeln!(out, "# random program{family}: seed {seed}, attempt {attempt}");
    if gen.rng.percent(20) {
        out.push_str("rejections warn\n");
    }
    let top = Ctx {
        func: Func::Top,
        epoch: Some(0),
        once: true,
        depth: 0,
    };
    let lines = gen.statements(top, u64::MAX, true);
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The innermost function around the code being written (as the checks see it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func {
    Top,
    AsyncFn,
    Callback { is_async: bool },
    Handler { is_async: bool },
    Executor,
}

/// Where the code being written stands.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    func: Func,
    /// The tick it runs at, when known (see the module's comment).
    epoch: Option<u64>,
    /// It runs at most once.
    once: bool,
    /// Blocks around it.
    depth: u32,
}

impl Ctx {
    fn is_async(self) -> bool {
        matches!(
            self.func,
            Func::AsyncFn | Func::Callback { is_async: true } | Func::Handler { is_async: true }
        )
    }

    fn may_return(self) -> bool {
        self.is_async() || matches!(self.func, Func::Handler { .. })
    }

    fn may_throw(self) -> bool {
        self.may_return() || self.func == Func::Executor
    }

    fn may_try(self) -> bool {
        self.may_return()
    }

    fn nested(self, func: Func) -> Ctx {
        Ctx {
            func,
            depth: self.depth + 1,
            ..self
        }
    }
}

/// How a promise ends, as far as the generator knows (to add a `.catch`
/// where a rejection is sure, more often than not).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Fulfils,
    Rejects,
    Unknown,
}

/// A promise expression as written, with when it settles (if known) and how.
struct Ex {
    text: String,
    at: Option<u64>,
    fate: Fate,
}

#[derive(Debug)]
enum DeclKind {
    Func {
        /// Its body is being written: no call from inside it (no recursion).
        writing: bool,
        /// Its body sets timers: called once only, where it was written for.
        once_only: bool,
        called: bool,
        /// When its promise settles, relative to the call, if it never waits
        /// for time: `Some(0)`; otherwise `None`.
        timeless: bool,
        /// When its first call's promise settles.
        first_completion: Option<u64>,
        fate: Fate,
    },
    Promise {
        at: Option<u64>,
        fate: Fate,
        /// An executor's without links: `resolve NAME`/`reject NAME` may settle it.
        settleable: bool,
    },
}

#[derive(Debug)]
struct Decl {
    name: String,
    kind: DeclKind,
}

/// A block being written: its declarations, and async function definitions
/// to write before the statement being written or at the block's end.
#[derive(Default)]
struct Block {
    decls: Vec<usize>,
    before: Vec<String>,
    tail: Vec<String>,
}

/// A function body being written: whether its promise settles at the tick it started.
struct Frame {
    start: Option<u64>,
    exact: bool,
}

struct Gen {
    rng: Rng,
    /// Statements still to write.
    budget: i64,
    labels: u32,
    names: u32,
    /// Timers' absolute due ticks.
    slots: Vec<u64>,
    turns: u32,
    decls: Vec<Decl>,
    blocks: Vec<Block>,
    frames: Vec<Frame>,
    /// `on unhandledRejection`, `on rejectionHandled` written.
    listeners: [bool; 2],
    /// The family with `again` in links ([`program_with_again`]).
    agains: bool,
}

/// `{ … }` of statements (each possibly several lines).
fn body_text(prefix: &str, stmts: &[String]) -> String {
    if stmts.is_empty() {
        return format!("{prefix}{{ }}");
    }
    let mut out = format!("{prefix}{{\n");
    for s in stmts {
        for line in s.lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push('}');
    out
}

fn max_at(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a?.max(b?))
}

/// What a statement kind needs, and how likely it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Log,
    NextTick,
    Microtask,
    Immediate,
    Then,
    Timeout,
    Call,
    Await,
    Executor,
    PromiseExpr,
    Chain,
    SettleByName,
    Try,
    Listener,
}

impl Gen {
    fn label(&mut self, prefix: &str) -> String {
        self.labels += 1;
        format!("\"{prefix}{}\"", self.labels)
    }

    fn fresh_name(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    /// A free slot for a timer set by code at `ctx`, if it may set one.
    fn slot(&mut self, ctx: Ctx) -> Option<u64> {
        let epoch = ctx.epoch?;
        if !ctx.once || self.slots.len() >= MAX_TIMERS {
            return None;
        }
        let free: Vec<u64> = (1..=MAX_SLOT / SPACING)
            .map(|k| k * SPACING)
            .filter(|s| *s >= epoch + SPACING && !self.slots.contains(s))
            .collect();
        if free.is_empty() {
            return None;
        }
        let s = if self.rng.percent(70) {
            free[0]
        } else {
            free[self.rng.below(free.len() as u64) as usize]
        };
        Some(s)
    }

    fn timers_possible(&self, ctx: Ctx) -> bool {
        let Some(epoch) = ctx.epoch else { return false };
        ctx.once
            && self.slots.len() < MAX_TIMERS
            && (1..=MAX_SLOT / SPACING)
                .map(|k| k * SPACING)
                .any(|s| s >= epoch + SPACING && !self.slots.contains(&s))
    }

    fn take_slot(&mut self, slot: u64) {
        self.slots.push(slot);
    }

    /// The visible declarations satisfying `pred`.
    fn visible(&self, pred: &dyn Fn(&Decl) -> bool) -> Vec<usize> {
        self.blocks
            .iter()
            .flat_map(|b| b.decls.iter().copied())
            .filter(|&d| pred(&self.decls[d]))
            .collect()
    }

    fn pick(&mut self, from: &[usize]) -> usize {
        from[self.rng.below(from.len() as u64) as usize]
    }

    /// The epoch of the running function moved (or became unknown): its promise
    /// no longer settles when it started.
    fn moved(&mut self) {
        if let Some(f) = self.frames.last_mut() {
            f.exact = false;
        }
    }

    /// Statements of a block in `ctx` (at most `max`, fewer when the budget
    /// runs out), ending with a `return`/`throw` sometimes where allowed.
    fn statements(&mut self, ctx: Ctx, max: u64, exits: bool) -> Vec<String> {
        self.block(ctx, max, exits).0
    }

    /// [`Gen::statements`], and the block's end epoch.
    fn block(&mut self, mut ctx: Ctx, max: u64, exits: bool) -> (Vec<String>, Option<u64>) {
        self.blocks.push(Block::default());
        let mut out = Vec::new();
        let top = ctx.func == Func::Top && ctx.depth == 0;
        let n = if top { u64::MAX } else { self.rng.range(1, max.max(1)) };
        let mut written = 0;
        while written < n && self.budget > 0 {
            self.budget -= 1;
            let stmt = self.statement(&mut ctx);
            let block = self.blocks.last_mut().expect("open block");
            out.append(&mut block.before);
            out.push(stmt);
            written += 1;
        }
        let mut exit = None;
        if exits && self.budget > 0 {
            if ctx.may_return() && self.rng.percent(30) {
                self.budget -= 1;
                exit = Some(self.return_stmt(ctx));
            } else if ctx.may_throw() && ctx.func != Func::Executor && self.rng.percent(10) {
                self.budget -= 1;
                exit = Some("throw".to_string());
            }
        }
        let block = self.blocks.pop().expect("open block");
        out.extend(block.before);
        out.extend(block.tail);
        out.extend(exit);
        (out, ctx.epoch)
    }

    /// `return …` in `ctx`.
    fn return_stmt(&mut self, ctx: Ctx) -> String {
        let start = self.frames.last().and_then(|f| f.start);
        match self.rng.below(4) {
            0 => "return".into(),
            1 => "return value".into(),
            _ => {
                let e = self.expr(ctx, 0);
                if e.at != start || e.at.is_none() {
                    self.moved();
                }
                format!("return {}", e.text)
            }
        }
    }

    /// A function body (`{ … }` after `prefix`) in `ctx`; and when the
    /// function's promise settles, if that is the tick it started.
    fn function_body(&mut self, prefix: &str, ctx: Ctx, max: u64) -> (String, Option<u64>) {
        self.frames.push(Frame {
            start: ctx.epoch,
            exact: true,
        });
        // Often a first line, to show when the function starts.
        let first = (self.budget > 1 && self.rng.percent(40)).then(|| {
            self.budget -= 1;
            format!("log {}", self.label("log"))
        });
        let (mut lines, end) = self.block(ctx, max, true);
        lines.splice(0..0, first);
        let frame = self.frames.pop().expect("frame");
        let completion = if frame.exact && end == frame.start { frame.start } else { None };
        (body_text(prefix, &lines), completion)
    }

    fn statement(&mut self, ctx: &mut Ctx) -> String {
        let can_nest = ctx.depth < MAX_DEPTH;
        let settleable = !self
            .visible(&|d| matches!(d.kind, DeclKind::Promise { settleable: true, .. }))
            .is_empty();
        let options: [(Choice, u64); 14] = [
            (Choice::Log, 5),
            (Choice::NextTick, 2),
            (Choice::Microtask, 1),
            (Choice::Immediate, if self.turns < MAX_TURNS { 2 } else { 0 }),
            (Choice::Then, 2),
            (Choice::Timeout, if self.timers_possible(*ctx) { 2 } else { 0 }),
            (Choice::Call, 3),
            (Choice::Await, if ctx.is_async() { 6 } else { 0 }),
            (Choice::Executor, if can_nest && self.budget > 1 { 4 } else { 0 }),
            (Choice::PromiseExpr, 2),
            (Choice::Chain, 4),
            (Choice::SettleByName, if settleable { 8 } else { 0 }),
            (Choice::Try, if ctx.may_try() && can_nest { 2 } else { 0 }),
            (
                Choice::Listener,
                if ctx.func == Func::Top && ctx.depth == 0 && self.listeners.contains(&false) {
                    4
                } else {
                    0
                },
            ),
        ];
        let weights: Vec<u64> = options.iter().map(|o| o.1).collect();
        let choice = options[self.rng.weighted(&weights)].0;
        match choice {
            Choice::Log => format!("log {}", self.label("log")),
            Choice::NextTick => self.callback("nextTick", *ctx),
            Choice::Microtask => self.callback("microtask", *ctx),
            Choice::Immediate => {
                self.turns += 1;
                self.callback("immediate", *ctx)
            }
            Choice::Then => self.then_stmt(*ctx),
            Choice::Timeout => self.callback("timeout", *ctx),
            Choice::Call => match self.call(*ctx) {
                Some((text, _)) => text,
                None => format!("log {}", self.label("log")),
            },
            Choice::Await => self.await_stmt(ctx),
            Choice::Executor => self.executor_stmt(*ctx),
            Choice::PromiseExpr => {
                let e = self.expr(*ctx, 0);
                let name = self.fresh_name("p");
                self.declare(
                    &name,
                    DeclKind::Promise {
                        at: e.at,
                        fate: e.fate,
                        settleable: false,
                    },
                );
                format!("promise {name} = {}", e.text)
            }
            Choice::Chain => {
                let base = self.operand(*ctx, 0);
                let n = self.rng.range(0, 3);
                let e = self.links(*ctx, base, n);
                format!("chain {}", e.text)
            }
            Choice::SettleByName => self.settle_by_name(*ctx),
            Choice::Try => self.try_stmt(ctx),
            Choice::Listener => self.listener(),
        }
    }

    fn declare(&mut self, name: &str, kind: DeclKind) -> usize {
        self.decls.push(Decl {
            name: name.to_string(),
            kind,
        });
        let d = self.decls.len() - 1;
        self.blocks.last_mut().expect("open block").decls.push(d);
        d
    }

    /// `nextTick`, `microtask`, `immediate`, `timeout N`: a label, a body or both.
    fn callback(&mut self, kind: &str, ctx: Ctx) -> String {
        self.callback_settling(kind, ctx).0
    }

    /// [`Gen::callback`], and when the promise of its function settles, if
    /// that is the tick it started (for `then`'s links).
    fn callback_settling(&mut self, kind: &str, ctx: Ctx) -> (String, Option<u64>) {
        let prefix = match kind {
            "nextTick" => "tick",
            "microtask" => "micro",
            "immediate" => "imm",
            "then" => "then",
            _ => "timer",
        };
        let mut head = kind.to_string();
        let mut epoch = ctx.epoch;
        if kind == "timeout" {
            let slot = self.slot(ctx).expect("a slot (timers_possible)");
            self.take_slot(slot);
            let delay = slot - ctx.epoch.expect("known epoch");
            let _ = write!(head, " {delay}");
            epoch = Some(slot);
        }
        let label = self.label(prefix);
        if ctx.depth >= MAX_DEPTH || self.rng.percent(35) {
            return (format!("{head} {label}"), epoch);
        }
        if self.rng.percent(25) {
            let _ = write!(head, " {label}");
        }
        let is_async = self.rng.percent(25);
        if is_async {
            head.push_str(" async");
        }
        let func = if kind == "then" {
            Func::Handler { is_async }
        } else {
            Func::Callback { is_async }
        };
        let inner = Ctx { epoch, ..ctx.nested(func) };
        self.function_body(&format!("{head} "), inner, 3)
    }

    /// `then … LINK*`.
    fn then_stmt(&mut self, ctx: Ctx) -> String {
        let (head, at) = self.callback_settling("then", ctx);
        let n = self.rng.range(0, 3);
        let base = Ex {
            text: head,
            at,
            fate: Fate::Unknown,
        };
        self.links(ctx, base, n).text
    }

    /// `call NAME` of a function in scope, or of a new one (defined here).
    /// Also when its promise settles, if known.
    fn call(&mut self, ctx: Ctx) -> Option<(String, Ex)> {
        let reusable = self.visible(&|d| {
            matches!(
                d.kind,
                DeclKind::Func {
                    writing: false,
                    once_only: false,
                    ..
                }
            )
        });
        let new = ctx.depth < MAX_DEPTH && self.budget > 0 && (reusable.is_empty() || self.rng.percent(45));
        if !new {
            if reusable.is_empty() {
                return None;
            }
            let d = self.pick(&reusable);
            let decl = &mut self.decls[d];
            let DeclKind::Func {
                called, timeless, fate, ..
            } = &mut decl.kind
            else {
                unreachable!()
            };
            *called = true;
            let at = if *timeless { ctx.epoch } else { None };
            let fate = *fate;
            let text = format!("call {}", decl.name);
            return Some((text.clone(), Ex { text, at, fate }));
        }
        self.budget -= 1; // the definition
        let name = self.fresh_name("f");
        let d = self.declare(
            &name,
            DeclKind::Func {
                writing: true,
                once_only: false,
                called: true,
                timeless: false,
                first_completion: None,
                fate: Fate::Unknown,
            },
        );
        let slots = self.slots.len();
        let inner = ctx.nested(Func::AsyncFn);
        let (body, completion) = self.function_body(&format!("async {name} "), inner, 4);
        let fate = if body.contains("throw") || body.contains("rejected") || body.contains("reject") {
            Fate::Unknown
        } else {
            Fate::Fulfils
        };
        if let DeclKind::Func {
            writing,
            once_only,
            timeless,
            first_completion,
            fate: f,
            ..
        } = &mut self.decls[d].kind
        {
            *writing = false;
            *once_only = self.slots.len() > slots;
            *timeless = completion.is_some() && completion == ctx.epoch;
            *first_completion = completion;
            *f = fate;
        }
        let block = self.blocks.last_mut().expect("open block");
        if self.rng.percent(70) {
            block.before.push(body);
        } else {
            block.tail.push(body);
        }
        let text = format!("call {name}");
        Some((
            text.clone(),
            Ex {
                text,
                at: completion,
                fate,
            },
        ))
    }

    /// `await EXPR` (sometimes in a `try`, when it may reject).
    fn await_stmt(&mut self, ctx: &mut Ctx) -> String {
        let e = self.expr(*ctx, 0);
        let after = max_at(ctx.epoch, e.at);
        if after != ctx.epoch {
            self.moved();
        }
        ctx.epoch = after;
        format!("await {}", e.text)
    }

    /// `try { … } catch { … }`.
    fn try_stmt(&mut self, ctx: &mut Ctx) -> String {
        let inner = ctx.nested(ctx.func);
        let (body, end) = self.block(inner, 3, true);
        let moved = end != ctx.epoch;
        let catch_ctx = Ctx {
            epoch: if moved { None } else { ctx.epoch },
            ..inner
        };
        let (catch, catch_end) = self.block(catch_ctx, 2, true);
        if moved || catch_end != ctx.epoch {
            self.moved();
            ctx.epoch = None;
        }
        format!("{} {}", body_text("try ", &body), body_text("catch ", &catch))
    }

    /// `on unhandledRejection …` or `on rejectionHandled …`.
    fn listener(&mut self) -> String {
        let free: Vec<usize> = (0..2).filter(|&i| !self.listeners[i]).collect();
        let i = self.pick(&free);
        self.listeners[i] = true;
        let (event, prefix) = [("unhandledRejection", "unhandled"), ("rejectionHandled", "handled")][i];
        let label = self.label(prefix);
        if self.rng.percent(50) {
            return format!("on {event} {label}");
        }
        // Only logs and label-only callbacks: a listener that made a rejection would run forever.
        let mut stmts = vec![format!("log {label}")];
        self.budget -= 1;
        if self.rng.percent(30) {
            self.budget -= 1;
            let (kind, prefix) = if self.rng.percent(50) {
                ("nextTick", "tick")
            } else {
                ("microtask", "micro")
            };
            stmts.push(format!("{kind} {}", self.label(prefix)));
        }
        body_text(&format!("on {event} "), &stmts)
    }

    /// `resolve NAME [with EXPR]` or `reject NAME`.
    fn settle_by_name(&mut self, ctx: Ctx) -> String {
        let targets = self.visible(&|d| matches!(d.kind, DeclKind::Promise { settleable: true, .. }));
        let d = self.pick(&targets);
        let name = self.decls[d].name.clone();
        match self.rng.below(4) {
            0 => format!("resolve {name}"),
            1 | 2 => {
                // Not `resolve p with p` (a TypeError the checks refuse): no `name` in the expression.
                let e = self.expr_without(ctx, 0, Some(d));
                format!("resolve {name} with {}", e.text)
            }
            _ => format!("reject {name}"),
        }
    }

    /// `promise [NAME] { … } LINK*`.
    fn executor_stmt(&mut self, ctx: Ctx) -> String {
        let named = self.rng.percent(75);
        let links = if self.rng.percent(30) { self.rng.range(1, 2) } else { 0 };
        let by_name = named && links == 0;
        let (body, at, fate, settleable) = self.executor(ctx, by_name);
        let base = Ex {
            text: format!("promise {body}"),
            at,
            fate,
        };
        let e = self.links(ctx, base, links);
        if named {
            let name = self.fresh_name("p");
            self.declare(
                &name,
                DeclKind::Promise {
                    at: e.at,
                    fate: e.fate,
                    settleable,
                },
            );
            format!("promise {name} {}", &e.text["promise ".len()..])
        } else {
            e.text
        }
    }

    /// An executor's body `{ … }` and when its promise settles: now, from a
    /// later callback, by name from elsewhere (`by_name`), or never.
    fn executor(&mut self, ctx: Ctx, by_name: bool) -> (String, Option<u64>, Fate, bool) {
        let inner = ctx.nested(Func::Executor);
        let timer = self.timers_possible(inner);
        let plans = [
            3,                           // now
            3,                           // from a nextTick, then, microtask or immediate
            if timer { 2 } else { 0 },   // from a timeout
            if by_name { 6 } else { 0 }, // by name, elsewhere
            1,                           // never
        ];
        let plan = self.rng.weighted(&plans);
        let extra = self.rng.range(0, 2);
        let mut stmts = Vec::new();
        self.blocks.push(Block::default());
        for _ in 0..extra {
            if self.budget <= 2 {
                break;
            }
            self.budget -= 1;
            let mut c = inner;
            let s = self.statement(&mut c);
            let block = self.blocks.last_mut().expect("open block");
            stmts.append(&mut block.before);
            stmts.push(s);
        }
        let (at, fate, settleable) = match plan {
            0 => {
                self.budget -= 1;
                let (s, at, fate) = self.settle_here(inner, true);
                // The functions its expression defines, just before it.
                let mut settle = std::mem::take(&mut self.blocks.last_mut().expect("open block").before);
                settle.push(s.clone());
                let pos = if s == "throw" || self.rng.percent(50) {
                    stmts.len()
                } else {
                    self.rng.below(stmts.len() as u64 + 1) as usize
                };
                stmts.splice(pos..pos, settle);
                (at, fate, false)
            }
            1 | 2 => {
                let kinds = ["nextTick", "then", "microtask", "immediate", "timeout"];
                // (The statements before may have taken the last slot.)
                let kind = if plan == 2 && self.timers_possible(inner) {
                    "timeout"
                } else {
                    let k = if self.turns < MAX_TURNS { 4 } else { 3 };
                    kinds[self.rng.below(k) as usize]
                };
                let mut head = kind.to_string();
                let mut epoch = ctx.epoch;
                if kind == "timeout" {
                    let slot = self.slot(inner).expect("timers_possible");
                    self.take_slot(slot);
                    let _ = write!(head, " {}", slot - ctx.epoch.expect("known"));
                    epoch = Some(slot);
                }
                if kind == "immediate" {
                    self.turns += 1;
                }
                let func = if kind == "then" {
                    Func::Handler { is_async: false }
                } else {
                    Func::Callback { is_async: false }
                };
                let cb = Ctx {
                    epoch,
                    ..inner.nested(func)
                };
                self.budget -= 2;
                let (s, at, fate) = self.settle_here(cb, false);
                let mut body = Vec::new();
                if self.budget > 0 && self.rng.percent(50) {
                    self.budget -= 1;
                    body.push(format!("log {}", self.label("log")));
                }
                body.push(s);
                stmts.append(&mut self.blocks.last_mut().expect("open block").before);
                stmts.push(body_text(&format!("{head} "), &body));
                (at, fate, false)
            }
            3 => (None, Fate::Unknown, true),
            _ => (None, Fate::Unknown, false),
        };
        let block = self.blocks.pop().expect("open block");
        let end = if stmts.last().is_some_and(|s| s == "throw") {
            stmts.len() - 1
        } else {
            stmts.len()
        };
        stmts.splice(end..end, block.before.into_iter().chain(block.tail));
        (body_text("", &stmts), at, fate, settleable)
    }

    /// `resolve`, `resolve with EXPR`, `reject` (or `throw`, directly in the
    /// executor) settling the executor around `ctx`.
    fn settle_here(&mut self, ctx: Ctx, direct: bool) -> (String, Option<u64>, Fate) {
        match self.rng.below(if direct { 6 } else { 5 }) {
            0 | 1 => ("resolve".into(), ctx.epoch, Fate::Fulfils),
            2 | 3 => {
                let e = self.expr(ctx, 0);
                (format!("resolve with {}", e.text), max_at(ctx.epoch, e.at), e.fate)
            }
            4 => ("reject".into(), ctx.epoch, Fate::Rejects),
            _ => ("throw".into(), ctx.epoch, Fate::Rejects),
        }
    }

    /// An expression: an operand and 0 to 2 links.
    fn expr(&mut self, ctx: Ctx, nesting: u32) -> Ex {
        self.expr_without(ctx, nesting, None)
    }

    fn expr_without(&mut self, ctx: Ctx, nesting: u32, not: Option<usize>) -> Ex {
        let base = self.operand_without(ctx, nesting, not);
        let n = if self.rng.percent(30) { self.rng.range(1, 2) } else { 0 };
        self.links(ctx, base, n)
    }

    fn operand(&mut self, ctx: Ctx, nesting: u32) -> Ex {
        self.operand_without(ctx, nesting, None)
    }

    /// An operand (`value`, `resolved`, a name, `call f`, a combinator …),
    /// never the declaration `not`.
    fn operand_without(&mut self, ctx: Ctx, nesting: u32, not: Option<usize>) -> Ex {
        let names = self.visible(&|d| matches!(d.kind, DeclKind::Promise { .. }));
        let names: Vec<usize> = names.into_iter().filter(|&d| Some(d) != not).collect();
        let callable = !self
            .visible(&|d| {
                matches!(
                    d.kind,
                    DeclKind::Func {
                        writing: false,
                        once_only: false,
                        ..
                    }
                )
            })
            .is_empty();
        let weights = [
            2,                                                         // value
            3,                                                         // resolved
            2,                                                         // rejected
            2,                                                         // thenable
            if names.is_empty() { 0 } else { 4 },                      // a name
            if callable || ctx.depth < MAX_DEPTH { 3 } else { 0 },     // call f
            if ctx.depth < MAX_DEPTH && nesting == 0 { 1 } else { 0 }, // promise { … }
            if nesting < 2 { 2 } else { 0 },                           // a combinator
            if self.timers_possible(ctx) { 1 } else { 0 },             // timeout N
            if self.turns < MAX_TURNS { 1 } else { 0 },                // immediate
        ];
        let simple = |text: &str, at, fate| Ex {
            text: text.to_string(),
            at,
            fate,
        };
        match self.rng.weighted(&weights) {
            0 => simple("value", ctx.epoch, Fate::Fulfils),
            1 => simple("resolved", ctx.epoch, Fate::Fulfils),
            2 => simple("rejected", ctx.epoch, Fate::Rejects),
            3 => simple("thenable", ctx.epoch, Fate::Fulfils),
            4 => {
                let d = self.pick(&names);
                let decl = &self.decls[d];
                let DeclKind::Promise { at, fate, .. } = decl.kind else {
                    unreachable!()
                };
                simple(&decl.name.clone(), max_at(at, ctx.epoch), fate)
            }
            5 => match self.call(ctx) {
                Some((_, e)) => e,
                None => simple("resolved", ctx.epoch, Fate::Fulfils),
            },
            6 => {
                let (body, at, fate, _) = self.executor(ctx, false);
                Ex {
                    text: format!("promise {body}"),
                    at,
                    fate,
                }
            }
            7 => self.combinator(ctx, nesting),
            8 => {
                let slot = self.slot(ctx).expect("timers_possible");
                self.take_slot(slot);
                let delay = slot - ctx.epoch.expect("known");
                simple(&format!("timeout {delay}"), Some(slot), Fate::Fulfils)
            }
            _ => {
                self.turns += 1;
                simple("immediate", ctx.epoch, Fate::Fulfils)
            }
        }
    }

    /// `all [ … ]`, `allSettled`, `any`, `race`.
    fn combinator(&mut self, ctx: Ctx, nesting: u32) -> Ex {
        let kind = ["all", "allSettled", "any", "race"][self.rng.below(4) as usize];
        let n = if self.rng.percent(8) { 0 } else { self.rng.range(1, 3) };
        let mut items = Vec::new();
        let mut ats = Vec::new();
        let mut fates = Vec::new();
        for _ in 0..n {
            let e = self.expr(ctx, nesting + 1);
            items.push(e.text);
            ats.push(e.at);
            fates.push(e.fate);
        }
        // Known only when every element settles at the same tick (the deciding
        // element is then at that tick too); empty: `race` never settles.
        let at = match ats.first() {
            None if kind == "race" => None,
            None => ctx.epoch,
            Some(first) => {
                if first.is_some() && ats.iter().all(|a| a == first) {
                    *first
                } else {
                    None
                }
            }
        };
        let fate = match kind {
            "allSettled" => Fate::Fulfils,
            "all" if fates.iter().all(|f| *f == Fate::Fulfils) => Fate::Fulfils,
            "all" if fates.contains(&Fate::Rejects) => Fate::Rejects,
            "any" if n == 0 || fates.iter().all(|f| *f == Fate::Rejects) => Fate::Rejects,
            "any" if fates.contains(&Fate::Fulfils) => Fate::Fulfils,
            _ => Fate::Unknown,
        };
        Ex {
            text: format!("{kind} [{}]", items.join(", ")),
            at,
            fate,
        }
    }

    /// `base` followed by `n` links, each a label or a handler body (which
    /// logs, returns a promise or throws).
    fn links(&mut self, ctx: Ctx, base: Ex, n: u64) -> Ex {
        let mut text = base.text;
        let mut at = base.at;
        let mut fate = base.fate;
        for _ in 0..n {
            let kind = if fate == Fate::Rejects && self.rng.percent(60) {
                "catch"
            } else {
                ["then", "then", "catch", "finally"][self.rng.below(4) as usize]
            };
            let label = self.label(kind);
            let runs = !matches!((kind, fate), ("then", Fate::Rejects) | ("catch", Fate::Fulfils));
            if ctx.depth >= MAX_DEPTH || self.budget <= 0 || self.rng.percent(55) {
                let _ = write!(text, " .{kind} {label}");
                fate = match (kind, fate) {
                    ("catch", _) => Fate::Fulfils,
                    (_, f) => f,
                };
                continue;
            }
            let is_async = self.rng.percent(20);
            let mut head = format!(".{kind}");
            if self.rng.percent(20) {
                let _ = write!(head, " {label}");
            }
            // (Asked only in that family: the other's choices stay as they were.)
            let again = self.agains && self.rng.percent(40);
            if again {
                let _ = write!(head, " times {}", self.rng.range(2, 3));
            }
            if is_async {
                head.push_str(" async");
            }
            let inner = Ctx {
                epoch: at,
                once: ctx.once && !again,
                ..ctx.nested(Func::Handler { is_async })
            };
            let (body, completion) = self.function_body(&format!("{head} "), inner, 3);
            // `again` first: each run queues the next before anything can return or throw.
            let body = if !again {
                body
            } else if let Some(rest) = body.strip_suffix("{ }") {
                format!("{rest}{{ again }}")
            } else {
                body.replacen("{\n", "{\n  again\n", 1)
            };
            let throws = body.trim_end_matches('}').trim_end().ends_with("throw");
            let _ = write!(text, " {body}");
            at = if completion.is_some() { at } else { None };
            fate = match (kind, fate, runs) {
                (_, _, true) if throws => Fate::Rejects,
                ("finally", f, _) => f,
                (_, f, false) => f,
                _ => Fate::Unknown,
            };
        }
        Ex { text, at, fate }
    }
}
