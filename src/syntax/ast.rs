//! The syntax tree of a `.loop` file. Every node keeps its source [`Span`].

use crate::sched::Phase;
pub use thin_vec::ThinVec;

/// A byte range `start..end` in the source file, in 32 bits (files are read
/// whole and stay far below 4 GiB: `load` refuses larger ones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The span from `start` to `end` bytes.
    pub const fn new(start: usize, end: usize) -> Self {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// First byte.
    pub fn start(self) -> usize {
        self.start as usize
    }

    /// One past the last byte.
    pub fn end(self) -> usize {
        self.end as usize
    }

    /// The same span `by` bytes later.
    pub fn shifted(self, by: usize) -> Self {
        Span::new(self.start() + by, self.end() + by)
    }

    /// The text the span covers in `src`.
    pub fn text(self, src: &str) -> &str {
        &src[self.start()..self.end()]
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(s: Span) -> Self {
        (s.start(), s.end() - s.start()).into()
    }
}

impl From<pest::Span<'_>> for Span {
    fn from(s: pest::Span<'_>) -> Self {
        Span::new(s.start(), s.end())
    }
}

/// A value with the span it was written at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

/// A whole `.loop` file.
#[derive(Debug, Clone, Default)]
pub struct File {
    /// `pool N`: thread-pool size.
    pub pool: Option<Spanned<u64>>,
    /// `module cjs|esm`.
    pub module: Option<Spanned<crate::sched::Module>>,
    /// `title "..."`.
    pub title: Option<Spanned<String>>,
    /// The main module's statements.
    pub body: Vec<Stmt>,
    /// The author's prediction, if any.
    pub expect: Option<Expect>,
    /// Number of callback sites (callbacks and `.then` links).
    pub sites: usize,
    /// `rejections throw|warn`: Node's `--unhandled-rejections` mode; `None`
    /// is Node's default, `throw`.
    pub rejections: Option<Spanned<Rejections>>,
    /// `node 10|20|22|24|26`: whose rules the file follows (`--node` wins);
    /// `None` is the default profile, Node 26.
    pub node: Option<Spanned<crate::sched::NodeProfile>>,
}

/// The `--unhandled-rejections` modes the language names (Node's
/// `getUnhandledRejectionsMode`, `lib/internal/process/promises.js`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rejections {
    /// `throw` (Node's default): an unhandled rejection without an
    /// 'unhandledRejection' listener ends the process with exit code 1.
    Throw,
    /// `warn`: a warning on stderr; the process goes on.
    Warn,
}

impl Rejections {
    /// Every mode, as written.
    pub const NAMES: [&'static str; 2] = ["throw", "warn"];

    /// The word written in the directive.
    pub fn name(self) -> &'static str {
        match self {
            Rejections::Throw => "throw",
            Rejections::Warn => "warn",
        }
    }

    /// Parses the directive's word.
    pub fn from_name(s: &str) -> Option<Self> {
        [Rejections::Throw, Rejections::Warn].into_iter().find(|m| m.name() == s)
    }
}

/// A string with `{i}`, `{n}`, `{k}` placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub parts: ThinVec<TextPart>,
    pub span: Span,
}

/// A piece of a [`Text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextPart {
    /// Literal text (escapes already resolved); up to 24 bytes held inline,
    /// without an allocation of its own.
    Lit(compact_str::CompactString),
    /// `{i}`: the innermost `repeat` index, 1-based.
    Index,
    /// `{n}`: the running callback's run number, 1-based.
    Run,
    /// `{k}`: this callback's number among the runs of its statement, 1-based.
    Count,
}

impl Text {
    /// The text if it has no placeholders.
    pub fn literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [] => Some(""),
            [TextPart::Lit(s)] => Some(s),
            _ => None,
        }
    }

    /// Whether the text uses a placeholder.
    pub fn uses(&self, part: &TextPart) -> bool {
        self.parts.contains(part)
    }
}

impl std::fmt::Display for Text {
    /// The text as written, placeholders verbatim.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for part in &self.parts {
            match part {
                TextPart::Lit(s) => f.write_str(s)?,
                TextPart::Index => f.write_str("{i}")?,
                TextPart::Run => f.write_str("{n}")?,
                TextPart::Count => f.write_str("{k}")?,
            }
        }
        Ok(())
    }
}

/// A block's statements: one pointer (8 bytes; the length and capacity sit
/// in the allocation), so that the statements holding a block and a
/// [`Text`] fit in a 40-byte [`Stmt`] (issue 14: memory per pending timer).
pub type Block = ThinVec<Stmt>;

/// A statement.
#[derive(Debug, Clone)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// The statement forms of docs/language.md.
#[derive(Debug, Clone)]
pub enum StmtKind {
    /// `log "text"`: a trace line now.
    Log(Text),
    /// `work N`: N ticks of synchronous work.
    Work(Spanned<u64>),
    /// `clear LABEL`: `clearTimeout`/`clearInterval`/`clearImmediate`.
    Clear(Text),
    /// `repeat N { ... }`: a loop; `{i}` is its 1-based index.
    Repeat { count: Spanned<u64>, body: Block },
    /// `again`: the running callback schedules itself once more.
    Again,
    /// A callback-scheduling statement (`timeout`, `immediate`, `then` …),
    /// inline: a bare `timeout N` allocates nothing.
    Callback(Callback),
    /// `async NAME { … }`: defines an async function (hoisted in its block).
    AsyncDef { name: Box<Name>, body: Block },
    /// `call NAME`: calls an async function now, its promise dropped.
    Call(Box<Name>),
    /// `await EXPR`: in an async body or an ES module's top level.
    /// (An expression or a name is boxed in a statement, to keep a [`Stmt`] small: 40 bytes.)
    Await(Box<Expr>),
    /// `promise [NAME] { … } LINK*` or `promise NAME = EXPR`.
    Promise(Box<PromiseStmt>),
    /// `chain EXPR`: an expression evaluated for its links.
    Chain(Box<Expr>),
    /// `resolve [NAME] [with EXPR]`: without a name, the enclosing executor's
    /// promise; without `with`, resolved with `value`.
    Resolve {
        target: Option<Box<Name>>,
        with: Option<Box<Expr>>,
    },
    /// `reject [NAME]`: rejects the executor's promise (or NAME's).
    Reject { target: Option<Box<Name>> },
    /// `return [EXPR]`: ends an async or handler body (default `value`).
    Return(Option<Box<Expr>>),
    /// `throw`: throws an Error (rejects the promise of the body).
    Throw,
    /// `try { … } catch { … }`.
    Try { body: Block, catch: Block },
    /// `on EVENT ["label"] [{ … }]`: a process listener.
    On(Box<Listener>),
}

impl StmtKind {
    /// The keyword of a statement of the promise language (`async`, `call`,
    /// `await`, …), `None` for the others. A `then` or another callback that
    /// uses `async` or a `.catch`/`.finally` link is not one by itself: see
    /// `check::promises::first_use`.
    pub fn promise_keyword(&self) -> Option<&'static str> {
        Some(match self {
            StmtKind::AsyncDef { .. } => "async",
            StmtKind::Call(_) => "call",
            StmtKind::Await(_) => "await",
            StmtKind::Promise(_) => "promise",
            StmtKind::Chain(_) => "chain",
            StmtKind::Resolve { .. } => "resolve",
            StmtKind::Reject { .. } => "reject",
            StmtKind::Return(_) => "return",
            StmtKind::Throw => "throw",
            StmtKind::Try { .. } => "try",
            StmtKind::On(_) => "on",
            _ => return None,
        })
    }
}

/// A name of a promise or an async function, as written. The checks
/// ([`crate::check::check`]) resolve each name to its [`Slot`]; until then
/// [`Name::slot`] is `None`.
#[derive(Debug, Clone)]
pub struct Name {
    pub text: String,
    pub span: Span,
    /// Set once by the checks.
    pub slot: std::sync::OnceLock<Slot>,
}

impl Name {
    /// An unresolved name.
    pub fn new(text: impl Into<String>, span: Span) -> Self {
        Name {
            text: text.into(),
            span,
            slot: std::sync::OnceLock::new(),
        }
    }

    /// Where the checks resolved it to (`None` before the checks, or for a
    /// name they refused).
    pub fn slot(&self) -> Option<Slot> {
        self.slot.get().copied()
    }
}

/// What a name refers to, as the checks resolved it (the scheme of
/// docs/language.md, "Names"): lexical scopes as in JavaScript's `const`.
///
/// Every block (`{ … }`: the file's top level, a callback's, a link's, a
/// `repeat`'s, `try`'s and `catch`'s, an executor's, an async function's, a
/// listener's) is a scope; each run of a block makes a fresh environment with
/// one binding per declaration written directly in it ([`declarations`]).
/// A declaration's [`Slot::index`] is its position among them; a use's
/// [`Slot::depth`] counts the declaring blocks (those with at least one
/// declaration) between the use and the declaring block (0: the same block).
/// Only a declaring block makes an environment when it runs, so at run time
/// a use reads `depth` environments up, binding `index`. [`Slot::decl`] numbers the declarations of the file
/// from 0, the same at the declaration and every use, in the order the checks
/// meet them (a block's own declarations when it is entered, then those of
/// the blocks inside it): for passes that want a table per declaration
/// (emit-js's `resolveX`). A name the checks refused has no slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slot {
    /// Declaring blocks between the use and the declaring block.
    pub depth: u32,
    /// Position among the declarations of the declaring block.
    pub index: u32,
    /// The declaration's number in the file (see above).
    pub decl: u32,
}

/// The declarations written directly in a block, in source order: async
/// functions (their bindings made when the block starts: hoisted) and named
/// promises (made when their statement runs). Their positions are the
/// [`Slot::index`]es.
pub fn declarations(stmts: &[Stmt]) -> impl Iterator<Item = &Name> {
    stmts.iter().filter_map(|s| match &s.kind {
        StmtKind::AsyncDef { name, .. } => Some(&**name),
        StmtKind::Promise(p) => p.name(),
        _ => None,
    })
}

/// What a block nested in a promise statement is, for the passes that walk
/// every block ([`promise_parts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRole {
    /// An async function's body (`async NAME { … }`).
    AsyncFn,
    /// An executor's body: runs now, in the code around it.
    Executor,
    /// A `try` block: runs now, in the code around it.
    Try,
    /// A `catch` block: runs in the code around it.
    Catch,
    /// An `on` listener's body.
    Listener,
}

/// A part of a promise statement that another pass looks into.
#[derive(Debug, Clone, Copy)]
pub enum Part<'a> {
    /// A nested block.
    Body(BodyRole, &'a [Stmt]),
    /// A listener's label.
    Label(&'a Text),
    /// A `.then`/`.catch`/`.finally` link of a promise expression: its
    /// label, `times` and body.
    Link(&'a Link),
}

impl<'a> Part<'a> {
    /// The block of a [`Part::Body`] or of a link that has one.
    pub fn body(self) -> Option<&'a [Stmt]> {
        match self {
            Part::Body(_, body) => Some(body),
            Part::Link(link) => link.body.as_deref(),
            Part::Label(_) => None,
        }
    }
}

/// Calls `f` on each block and label of a promise statement (expressions
/// included, in source order; not the statements inside the blocks). Nothing
/// for the other statements.
pub fn promise_parts<'a>(kind: &'a StmtKind, f: &mut dyn FnMut(Part<'a>)) {
    match kind {
        StmtKind::AsyncDef { body, .. } => f(Part::Body(BodyRole::AsyncFn, body)),
        StmtKind::Await(e) | StmtKind::Chain(e) | StmtKind::Return(Some(e)) => expr_parts(e, f),
        StmtKind::Resolve { with: Some(e), .. } => expr_parts(e, f),
        StmtKind::Promise(p) => match &**p {
            PromiseStmt::Executor { body, links, .. } => {
                f(Part::Body(BodyRole::Executor, body));
                link_parts(links, f);
            }
            PromiseStmt::Expr { expr, .. } => expr_parts(expr, f),
        },
        StmtKind::Try { body, catch } => {
            f(Part::Body(BodyRole::Try, body));
            f(Part::Body(BodyRole::Catch, catch));
        }
        StmtKind::On(l) => {
            if let Some(t) = &l.label {
                f(Part::Label(t));
            }
            if let Some(b) = &l.body {
                f(Part::Body(BodyRole::Listener, b));
            }
        }
        _ => {}
    }
}

/// Calls `f` with every block directly inside a statement: a `repeat`'s body,
/// a callback's body and its links' bodies, and the blocks of the promise
/// statements ([`promise_parts`]: async function, executor, `try`/`catch` and
/// handler bodies, executors inside expressions). Not the blocks nested in
/// those: walk them with `each_block` again.
pub fn each_block<'a>(kind: &'a StmtKind, f: &mut dyn FnMut(&'a [Stmt])) {
    match kind {
        StmtKind::Repeat { body, .. } => f(body),
        StmtKind::Callback(cb) => {
            for body in cb.bodies() {
                f(body);
            }
        }
        other => promise_parts(other, &mut |part| {
            if let Some(body) = part.body() {
                f(body);
            }
        }),
    }
}

/// [`promise_parts`] of an expression.
pub fn expr_parts<'a>(e: &'a Expr, f: &mut dyn FnMut(Part<'a>)) {
    match &e.operand {
        Operand::Executor { body, .. } => f(Part::Body(BodyRole::Executor, body)),
        Operand::Combinator { list, .. } => {
            for e in list {
                expr_parts(e, f);
            }
        }
        _ => {}
    }
    link_parts(&e.links, f);
}

/// [`promise_parts`] of links.
pub fn link_parts<'a>(links: &'a [Link], f: &mut dyn FnMut(Part<'a>)) {
    for link in links {
        f(Part::Link(link));
    }
}

/// `promise …`: an executor or a named expression.
#[derive(Debug, Clone)]
pub enum PromiseStmt {
    /// `promise [NAME] [async] { … } LINK*`: `body` runs now; `resolve` and
    /// `reject` without a name in it (and in callbacks nested in it) settle
    /// this promise. With links, NAME is the promise the last link returns.
    Executor {
        name: Option<Name>,
        /// `async` written before the body (refused by the checks).
        is_async: bool,
        body: Block,
        links: Vec<Link>,
    },
    /// `promise NAME = EXPR`.
    Expr { name: Name, expr: Expr },
}

impl PromiseStmt {
    /// The declared name.
    pub fn name(&self) -> Option<&Name> {
        match self {
            PromiseStmt::Executor { name, .. } => name.as_ref(),
            PromiseStmt::Expr { name, .. } => Some(name),
        }
    }
}

/// `OPERAND LINK*`: a promise-like value (after `await`, `return`, `with`,
/// `=`, `chain`, in a combinator's list).
#[derive(Debug, Clone)]
pub struct Expr {
    pub operand: Operand,
    pub links: Vec<Link>,
    pub span: Span,
}

/// What an expression starts from (docs/language.md, "Operands").
#[derive(Debug, Clone)]
pub enum Operand {
    /// `value`: a value that is not a promise (`null`).
    Value(Span),
    /// `resolved`: `Promise.resolve()`.
    Resolved(Span),
    /// `rejected`: `Promise.reject(new Error(…))`.
    Rejected(Span),
    /// `thenable`: `{ then(resolve) { resolve(); } }`.
    Thenable(Span),
    /// A named promise.
    Name(Name),
    /// `call NAME`: calls an async function now; its promise.
    Call { name: Name, span: Span },
    /// `promise [async] { … }`: an anonymous executor.
    Executor { is_async: bool, body: Block, span: Span },
    /// `all|allSettled|any|race [EXPR, …]`.
    Combinator { kind: Combinator, list: Vec<Expr>, span: Span },
    /// `timeout N`: `timers/promises` `setTimeout(N ticks)`.
    Timeout(Spanned<u64>, Span),
    /// `immediate`: `timers/promises` `setImmediate()`.
    Immediate(Span),
    /// `readFile` / `writeFile`: `fs.promises.readFile(…)` / `fs.promises.writeFile(…)`, its
    /// pool round trips as the statement's.
    File(FileOp, Span),
}

/// Which `fs.promises` call a `readFile`/`writeFile` operand is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileOp {
    Read,
    Write,
}

impl FileOp {
    /// The keyword.
    pub fn name(self) -> &'static str {
        match self {
            FileOp::Read => "readFile",
            FileOp::Write => "writeFile",
        }
    }
}

impl Operand {
    /// Where it is written.
    pub fn span(&self) -> Span {
        match self {
            Operand::Value(s)
            | Operand::Resolved(s)
            | Operand::Rejected(s)
            | Operand::Thenable(s)
            | Operand::Immediate(s)
            | Operand::File(_, s) => *s,
            Operand::Name(n) => n.span,
            Operand::Call { span, .. } | Operand::Executor { span, .. } | Operand::Combinator { span, .. } | Operand::Timeout(_, span) => {
                *span
            }
        }
    }
}

/// `Promise.all`, `Promise.allSettled`, `Promise.any`, `Promise.race`
/// (V8 `promise-all.tq`, `promise-any.tq`, `promise-race.tq`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Combinator {
    All,
    AllSettled,
    Any,
    Race,
}

impl Combinator {
    /// The keyword (and the `Promise` method's name).
    pub fn name(self) -> &'static str {
        match self {
            Combinator::All => "all",
            Combinator::AllSettled => "allSettled",
            Combinator::Any => "any",
            Combinator::Race => "race",
        }
    }

    /// Parses a keyword.
    pub fn from_name(s: &str) -> Option<Self> {
        use Combinator::*;
        [All, AllSettled, Any, Race].into_iter().find(|c| c.name() == s)
    }
}

/// The two process events a listener may take (Node's
/// `lib/internal/process/promises.js` `processPromiseRejections`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Event {
    UnhandledRejection,
    RejectionHandled,
}

impl Event {
    /// The event's name.
    pub fn name(self) -> &'static str {
        match self {
            Event::UnhandledRejection => "unhandledRejection",
            Event::RejectionHandled => "rejectionHandled",
        }
    }
}

/// `on EVENT ["label"] [{ … }]`: `process.on(EVENT, …)`; a listener without
/// a body logs its label.
#[derive(Debug, Clone)]
pub struct Listener {
    pub event: Spanned<Event>,
    pub label: Option<Text>,
    pub body: Option<Block>,
    /// Site number (see [`Callback::site`]).
    pub site: usize,
}

/// Kinds of callback-scheduling statements, in the order of their rows in
/// [`STATEMENTS`] (from its third row on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Timeout,
    Interval,
    Immediate,
    NextTick,
    Microtask,
    Then,
    Io,
    Submit,
    Close,
    Pending,
    ReadFile,
    WriteFile,
}

/// What the number written with a statement means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    /// It takes no number.
    None,
    /// `timeout N`, `interval N`: the delay, in ticks (Node's `setTimeout`
    /// delay; 0 becomes 1, `lib/internal/timers.js` `Timeout`).
    Delay,
    /// `submit [LABEL] N`, `work N`: a length, in ticks.
    Ticks,
    /// `repeat N`: how many times.
    Count,
    /// `io … after N`: ticks until the I/O event arrives (written after `after`).
    After,
}

/// One statement kind of docs/language.md: the one table of them on the
/// Rust side (the grammar has its own rule, `callback_kind` and the `kw_*`
/// rules). The syntax tree, the suggestions and the checks read it.
#[derive(Debug, Clone, Copy)]
pub struct Statement {
    /// The keyword.
    pub name: &'static str,
    /// The callback kind it schedules, for a callback statement.
    pub kind: Option<Kind>,
    /// Where its callbacks run (for a callback statement).
    pub phase: Option<Phase>,
    /// What its number means.
    pub amount: Amount,
    /// Its form, for help lines: `[…]` optional, `(…)*` repeated.
    pub usage: &'static str,
}

const fn plain(name: &'static str, amount: Amount, usage: &'static str) -> Statement {
    Statement {
        name,
        kind: None,
        phase: None,
        amount,
        usage,
    }
}

const fn callback(kind: Kind, name: &'static str, phase: Phase, amount: Amount, usage: &'static str) -> Statement {
    Statement {
        name,
        kind: Some(kind),
        phase: Some(phase),
        amount,
        usage,
    }
}

/// Every statement kind, in the order docs/language.md lists them: `log`,
/// `work`, the callback kinds in the order of [`Kind`], then `clear`,
/// `repeat`, `again`. Phases: libuv's `uv_run` (timers, poll, check, close,
/// pending) and Node's `processTicksAndRejections` (nextTick, microtask).
pub const STATEMENTS: [Statement; 17] = [
    plain("log", Amount::None, "log \"text\""),
    plain("work", Amount::Ticks, "work TICKS"),
    callback(
        Kind::Timeout,
        "timeout",
        Phase::Timers,
        Amount::Delay,
        "timeout DELAY [\"label\"] [times N] [{ … }]",
    ),
    callback(
        Kind::Interval,
        "interval",
        Phase::Timers,
        Amount::Delay,
        "interval DELAY [\"label\"] [times N] [{ … }]",
    ),
    callback(
        Kind::Immediate,
        "immediate",
        Phase::Check,
        Amount::None,
        "immediate [\"label\"] [times N] [{ … }]",
    ),
    callback(
        Kind::NextTick,
        "nextTick",
        Phase::NextTick,
        Amount::None,
        "nextTick [\"label\"] [times N] [{ … }]",
    ),
    callback(
        Kind::Microtask,
        "microtask",
        Phase::Microtask,
        Amount::None,
        "microtask [\"label\"] [times N] [{ … }]",
    ),
    callback(
        Kind::Then,
        "then",
        Phase::Microtask,
        Amount::None,
        "then [\"label\"] [{ … }] (.then [\"label\"] [{ … }])*",
    ),
    callback(Kind::Io, "io", Phase::Poll, Amount::After, "io [\"label\"] [after N] [{ … }]"),
    callback(
        Kind::Submit,
        "submit",
        Phase::Poll,
        Amount::Ticks,
        "submit [\"label\"] TICKS [{ … }]",
    ),
    callback(
        Kind::Close,
        "close",
        Phase::Close,
        Amount::None,
        "close [\"label\"] [times N] [{ … }]",
    ),
    callback(
        Kind::Pending,
        "pending",
        Phase::Pending,
        Amount::None,
        "pending [\"label\"] [times N] [{ … }]",
    ),
    callback(
        Kind::ReadFile,
        "readFile",
        Phase::Poll,
        Amount::None,
        "readFile [\"label\"] [{ … }]",
    ),
    callback(
        Kind::WriteFile,
        "writeFile",
        Phase::Poll,
        Amount::None,
        "writeFile [\"label\"] [{ … }]",
    ),
    plain("clear", Amount::None, "clear \"label\""),
    plain("repeat", Amount::Count, "repeat N { … }"),
    plain("again", Amount::None, "again"),
];

/// The statements of the promise language and their forms, for help lines
/// (docs/language.md, "Promises and async functions"). A help line shows a
/// form inside one code span (`` the form is `…` ``): a form with words
/// between its code closes and reopens the span around them.
pub const PROMISE_STATEMENTS: [(&str, &str); 11] = [
    ("async", "async NAME { … }"),
    ("call", "call NAME"),
    ("await", "await EXPR` (EXPR: `value`, `resolved`, `rejected`, `thenable`, a NAME, `call NAME`, `promise { … }`, `all [ … ]`, `timeout N`, `immediate`), with links: `await EXPR .then …"),
    ("promise", "promise [NAME] { … } (.then|.catch|.finally …)*` or `promise NAME = EXPR"),
    ("chain", "chain EXPR"),
    ("resolve", "resolve [NAME] [with EXPR]"),
    ("reject", "reject [NAME]"),
    ("return", "return [EXPR]"),
    ("throw", "throw"),
    ("try", "try { … } catch { … }"),
    ("on", "on unhandledRejection|rejectionHandled [\"label\"] [{ … }]"),
];

impl Kind {
    /// Every kind, in order.
    pub const ALL: [Kind; 12] = [
        Kind::Timeout,
        Kind::Interval,
        Kind::Immediate,
        Kind::NextTick,
        Kind::Microtask,
        Kind::Then,
        Kind::Io,
        Kind::Submit,
        Kind::Close,
        Kind::Pending,
        Kind::ReadFile,
        Kind::WriteFile,
    ];

    /// Its row of [`STATEMENTS`].
    pub fn statement(self) -> &'static Statement {
        &STATEMENTS[2 + self as usize]
    }

    /// The keyword.
    pub fn name(self) -> &'static str {
        self.statement().name
    }

    /// Parses a keyword.
    pub fn from_name(s: &str) -> Option<Kind> {
        STATEMENTS.iter().find(|row| row.name == s).and_then(|row| row.kind)
    }

    /// Where callbacks of this kind run.
    pub fn phase(self) -> Phase {
        self.statement().phase.expect("every callback kind has a phase")
    }
}

/// `KIND [DELAY] [LABEL] [TICKS] [after N] [times N] [BODY] (.then …)*`.
///
/// Kept in 32 bytes, inline in its [`Stmt`] (no allocation for a bare
/// `timeout N`: a file of a million of them holds a million of these): the
/// keyword's span is derived from the statement's (it starts with the
/// keyword), the number is held in 32 bits with its start and length (a
/// larger one goes to the box), and the parts most callbacks lack (label,
/// body, `times`, links) are in one box, [`CallbackParts`], allocated only
/// when one is written.
#[derive(Debug, Clone)]
pub struct Callback {
    /// Site number (see [`site`](Self::site)); `u32::MAX` for the main module.
    site: u32,
    pub kind: Kind,
    /// `async` written before the body: the callback is an async function.
    pub is_async: bool,
    /// The number's length in bytes: 0 when none is written,
    /// [`AMOUNT_IN_PARTS`] when it is kept in [`CallbackParts::big_amount`].
    amount_len: u8,
    /// The kind's number, in ticks, when it fits here (see `amount_len`).
    amount: u32,
    /// Where the number starts (byte offset), when it fits here.
    amount_start: u32,
    /// The whole statement.
    pub span: Span,
    /// Label, body, `times` and links; `None` when none is written.
    parts: Option<Box<HeldParts>>,
}

/// The parts of a [`Callback`] other than its kind and number, as the
/// builder gives them ([`Callback::set_parts`]).
#[derive(Debug, Clone, Default)]
pub struct CallbackParts {
    /// The label.
    pub label: Option<Text>,
    /// The body; `None` for a label-only callback (which logs its label).
    pub body: Option<Block>,
    /// `times N`: runs at most N times in all.
    pub times: Option<Spanned<u64>>,
    /// `.then`/`.catch`/`.finally` links of a `then` chain, in order.
    pub links: Box<[Link]>,
}

/// The box of a [`Callback`] that has a label or a body (32 bytes: most
/// callbacks of a large file have a label, a body, or both, and nothing
/// else); the parts fewer callbacks have are in a second box,
/// [`RareParts`] (issue 14: memory and build time of a large file).
#[derive(Debug, Clone, Default)]
struct HeldParts {
    label: Option<Text>,
    body: Option<Block>,
    rare: Option<Box<RareParts>>,
}

/// The parts of a [`Callback`] few callbacks have.
#[derive(Debug, Clone, Default)]
struct RareParts {
    times: Option<Spanned<u64>>,
    links: Box<[Link]>,
    /// The kind's number when it does not fit inline in the [`Callback`]
    /// (above `u32::MAX` ticks, or written with 255 bytes or more).
    big_amount: Option<Spanned<u64>>,
}

/// The parts of a [`Callback`] to change in place (a chunk's spans shifted).
pub struct CallbackPartsMut<'a> {
    pub label: &'a mut Option<Text>,
    pub body: &'a mut Option<Block>,
    pub times: Option<&'a mut Spanned<u64>>,
    pub links: &'a mut [Link],
}

/// [`Callback::amount_len`]'s mark for a number kept in [`RareParts::big_amount`].
const AMOUNT_IN_PARTS: u8 = u8::MAX;

impl RareParts {
    fn is_empty(&self) -> bool {
        self.times.is_none() && self.links.is_empty() && self.big_amount.is_none()
    }
}

impl HeldParts {
    fn is_empty(&self) -> bool {
        self.label.is_none() && self.body.is_none() && self.rare.is_none()
    }

    fn rare(&self) -> Option<&RareParts> {
        self.rare.as_deref()
    }
}

impl Callback {
    /// A callback of `kind` with no number, label, body or links yet (the
    /// builder fills them in; the interpreter's main module is one, site
    /// `usize::MAX`). `span` is the whole statement's, which starts with the
    /// keyword (see [`kind_span`](Self::kind_span)).
    pub const fn bare(site: usize, span: Span, kind: Kind) -> Self {
        Callback {
            site: if site > u32::MAX as usize { u32::MAX } else { site as u32 },
            kind,
            is_async: false,
            amount_len: 0,
            amount: 0,
            amount_start: 0,
            span,
            parts: None,
        }
    }

    /// Site number: callbacks and `.then` links numbered in source order,
    /// from 0 (`usize::MAX` for the interpreter's main module).
    pub fn site(&self) -> usize {
        if self.site == u32::MAX {
            usize::MAX
        } else {
            self.site as usize
        }
    }

    /// Sets the site number (a chunk's callbacks are numbered again when merged).
    pub fn set_site(&mut self, site: usize) {
        self.site = u32::try_from(site).expect("sites are fewer than the bytes of a file below 4 GiB");
    }

    /// The label, body, `times` and links to change, if any is written.
    pub fn parts_mut(&mut self) -> Option<CallbackPartsMut<'_>> {
        let held = self.parts.as_deref_mut()?;
        let (times, links) = match held.rare.as_deref_mut() {
            Some(rare) => (rare.times.as_mut(), &mut rare.links[..]),
            None => (None, &mut [][..]),
        };
        Some(CallbackPartsMut {
            label: &mut held.label,
            body: &mut held.body,
            times,
            links,
        })
    }

    /// The keyword's span: the statement starts with it.
    pub fn kind_span(&self) -> Span {
        Span::new(self.span.start(), self.span.start() + self.kind.name().len())
    }

    /// The kind with its keyword's span.
    pub fn spanned_kind(&self) -> Spanned<Kind> {
        Spanned {
            value: self.kind,
            span: self.kind_span(),
        }
    }

    /// The label, if written.
    pub fn label(&self) -> Option<&Text> {
        self.parts.as_ref().and_then(|p| p.label.as_ref())
    }

    /// The body; `None` for a label-only callback (which logs its label).
    pub fn body(&self) -> Option<&[Stmt]> {
        self.parts.as_ref().and_then(|p| p.body.as_deref())
    }

    /// The `.then`/`.catch`/`.finally` links, in order (empty for none).
    pub fn links(&self) -> &[Link] {
        self.parts.as_ref().and_then(|p| p.rare()).map_or(&[], |r| &r.links)
    }

    /// The body and the links' bodies, in order (those written).
    pub fn bodies(&self) -> impl Iterator<Item = &[Stmt]> {
        std::iter::once(self.body())
            .chain(self.links().iter().map(|l| l.body.as_deref()))
            .flatten()
    }

    /// `times N`: runs at most N times in all.
    pub fn times(&self) -> Option<Spanned<u64>> {
        self.parts.as_ref().and_then(|p| p.rare()).and_then(|r| r.times)
    }

    /// Sets the parts other than the kind and its number (no box for none).
    pub fn set_parts(&mut self, parts: CallbackParts) {
        let big_amount = self.parts.take().and_then(|p| p.rare).and_then(|r| r.big_amount);
        let rare = RareParts {
            times: parts.times,
            links: parts.links,
            big_amount,
        };
        let held = HeldParts {
            label: parts.label,
            body: parts.body,
            rare: (!rare.is_empty()).then(|| Box::new(rare)),
        };
        self.parts = (!held.is_empty()).then(|| Box::new(held));
    }

    /// The kind's number, in ticks: a `timeout`/`interval` delay, a `submit`
    /// job's length, `io … after N` (see [`delay`](Self::delay),
    /// [`ticks`](Self::ticks), [`after`](Self::after)).
    pub fn amount(&self) -> Option<Spanned<u64>> {
        match self.amount_len {
            0 => None,
            AMOUNT_IN_PARTS => self.parts.as_ref().and_then(|p| p.rare()).and_then(|r| r.big_amount),
            len => Some(Spanned {
                value: u64::from(self.amount),
                span: Span::new(self.amount_start as usize, self.amount_start as usize + usize::from(len)),
            }),
        }
    }

    /// Sets [`amount`](Self::amount): inline when the number fits in 32 bits
    /// and was written with fewer than 255 bytes (any real file's), else in
    /// the parts' box, so that the record stays 32 bytes.
    pub fn set_amount(&mut self, amount: Option<Spanned<u64>>) {
        let inline = amount.map(|a| {
            let fits = (
                u32::try_from(a.value),
                u32::try_from(a.span.start()),
                u8::try_from(a.span.end() - a.span.start()),
            );
            match fits {
                (Ok(value), Ok(start), Ok(len)) if len != AMOUNT_IN_PARTS && len != 0 => Some((value, start, len)),
                _ => None,
            }
        });
        let big = match inline {
            Some(None) => amount,
            None | Some(Some(_)) => None,
        };
        (self.amount, self.amount_start, self.amount_len) = match inline {
            None => (0, 0, 0),
            Some(Some(fits)) => fits,
            Some(None) => (0, 0, AMOUNT_IN_PARTS),
        };
        // No box made for no number, nor kept for one no longer there.
        if big.is_none() && self.parts.as_ref().and_then(|p| p.rare()).is_none_or(|r| r.big_amount.is_none()) {
            return;
        }
        let held = self.parts.get_or_insert_with(Box::default);
        let rare = held.rare.get_or_insert_with(Box::default);
        rare.big_amount = big;
        if rare.is_empty() {
            held.rare = None;
        }
        if held.is_empty() {
            self.parts = None;
        }
    }

    /// A `timeout`/`interval` delay, in ticks.
    pub fn delay(&self) -> Option<Spanned<u64>> {
        self.amount().filter(|_| matches!(self.kind, Kind::Timeout | Kind::Interval))
    }

    /// A `submit` job's length, in ticks.
    pub fn ticks(&self) -> Option<Spanned<u64>> {
        self.amount().filter(|_| self.kind == Kind::Submit)
    }

    /// `io … after N`, in ticks.
    pub fn after(&self) -> Option<Spanned<u64>> {
        self.amount().filter(|_| self.kind == Kind::Io)
    }
}

/// Which method a link calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// `.then(f)`.
    Then,
    /// `.catch(f)` = `.then(undefined, f)`.
    Catch,
    /// `.finally(f)` (V8 `promise-finally.tq`).
    Finally,
}

impl LinkKind {
    /// The method's name.
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Then => "then",
            LinkKind::Catch => "catch",
            LinkKind::Finally => "finally",
        }
    }

    /// As written in a file: `.then`, `.catch` or `.finally`.
    pub fn dotted(self) -> &'static str {
        match self {
            LinkKind::Then => ".then",
            LinkKind::Catch => ".catch",
            LinkKind::Finally => ".finally",
        }
    }
}

/// A `.then|.catch|.finally [LABEL] [times N] [async] [BODY]` link of a
/// `then` chain or a promise expression.
#[derive(Debug, Clone)]
pub struct Link {
    /// Site number (see [`Callback::site`]).
    pub site: usize,
    pub kind: LinkKind,
    /// `async` written before the body.
    pub is_async: bool,
    pub label: Option<Text>,
    pub times: Option<Spanned<u64>>,
    pub body: Option<Block>,
    pub span: Span,
}

/// An `expect { … }` block, with its `or { … }` alternatives.
#[derive(Debug, Clone)]
pub struct Expect {
    pub lines: Vec<ExpectLine>,
    /// `limit QUEUE`: the run is predicted to stop at that limit.
    pub limit: Option<Spanned<LimitQueue>>,
    /// `unhandled` or `unsettled`, the last line.
    pub ending: Option<Spanned<ExpectEnding>>,
    pub span: Span,
    /// `expect { … } or { … } or { … }`: the other orders predicted for a
    /// racy file (each with an empty `or`).
    pub or: Vec<Expect>,
}

impl Expect {
    /// This alternative and the `or` ones, in order.
    pub fn alternatives(&self) -> impl Iterator<Item = &Expect> {
        std::iter::once(self).chain(&self.or)
    }
}

/// How a prediction says the process ends (its last line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExpectEnding {
    /// `unhandled`: exit 1 by an unhandled rejection.
    Unhandled,
    /// `unsettled`: exit 13, the module's top-level await never settled.
    Unsettled,
}

impl ExpectEnding {
    /// The word written for it.
    pub fn name(self) -> &'static str {
        match self {
            ExpectEnding::Unhandled => "unhandled",
            ExpectEnding::Unsettled => "unsettled",
        }
    }
}

/// One predicted log line: `[turn N] [at T] [PHASE] "text"`.
#[derive(Debug, Clone)]
pub struct ExpectLine {
    pub turn: Option<u64>,
    pub at: Option<u64>,
    pub phase: Option<Phase>,
    pub text: String,
    pub span: Span,
}

/// The queue a `limit` line predicts the run is stopped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LimitQueue {
    NextTick,
    Microtask,
    Check,
    Timers,
    Turns,
}

impl LimitQueue {
    /// The name used in `limit` lines.
    pub fn name(self) -> &'static str {
        match self {
            LimitQueue::NextTick => "nextTick",
            LimitQueue::Microtask => "microtask",
            LimitQueue::Check => "check",
            LimitQueue::Timers => "timers",
            LimitQueue::Turns => "turns",
        }
    }

    /// Every name, for suggestions.
    pub const NAMES: [&'static str; 5] = ["nextTick", "microtask", "check", "timers", "turns"];

    /// Parses a name.
    pub fn from_name(s: &str) -> Option<Self> {
        use LimitQueue::*;
        [NextTick, Microtask, Check, Timers, Turns].into_iter().find(|q| q.name() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_row() {
        for kind in Kind::ALL {
            let row = kind.statement();
            assert_eq!(row.kind, Some(kind));
            assert_eq!(Kind::from_name(row.name), Some(kind));
            assert!(row.usage.starts_with(row.name), "{}", row.usage);
        }
        let callbacks = STATEMENTS.iter().filter(|row| row.kind.is_some()).count();
        assert_eq!(callbacks, Kind::ALL.len());
        assert_eq!(Kind::from_name("log"), None);
        assert_eq!(Kind::NextTick.phase(), Phase::NextTick);
        assert_eq!(Kind::Submit.statement().amount, Amount::Ticks);
    }
}

#[cfg(test)]
mod size_tests {
    use super::{Callback, CallbackParts, Kind, Span, Spanned, Text};

    /// A 1e6-statement file holds a million of these (issue 14: peak memory
    /// per pending timer), each a bare `timeout N` with its callback inline:
    /// 40 bytes, no allocation of its own.
    #[test]
    fn a_statement_takes_40_bytes() {
        assert_eq!(std::mem::size_of::<super::Stmt>(), 40);
    }

    /// The callback is inline in its statement's 32 bytes of kind: the enum
    /// tag must take no room of its own (it sits in a niche of the
    /// callback's); every other statement holds at most 24 bytes (blocks and
    /// texts are one pointer each, [`super::Block`]).
    #[test]
    fn a_callback_record_takes_32_bytes_inline() {
        assert_eq!(std::mem::size_of::<Callback>(), 32);
        assert_eq!(std::mem::size_of::<super::StmtKind>(), 32);
        assert_eq!(std::mem::size_of::<Text>(), 16);
        assert_eq!(std::mem::size_of::<super::HeldParts>(), 32);
    }

    fn amount(value: u64, start: usize, end: usize) -> Option<Spanned<u64>> {
        Some(Spanned {
            value,
            span: Span::new(start, end),
        })
    }

    /// A label and a body go in the first box only; `times`, links and a
    /// number too large to keep inline in the second, made only for them;
    /// each reads back as set, and a span shifted through `parts_mut` moves.
    #[test]
    fn rare_parts_take_a_second_box_only_when_written() {
        let text = |start: usize| Text {
            parts: super::ThinVec::new(),
            span: Span::new(start, start + 3),
        };
        let mut common = Callback::bare(0, Span::new(0, 40), Kind::Then);
        common.set_parts(CallbackParts {
            label: Some(text(5)),
            body: Some(super::Block::new()),
            ..CallbackParts::default()
        });
        assert!(common.parts.as_ref().is_some_and(|p| p.rare.is_none()));
        assert_eq!(common.body().map(<[_]>::len), Some(0));

        let link = super::Link {
            site: 1,
            kind: super::LinkKind::Catch,
            is_async: false,
            label: Some(text(20)),
            times: None,
            body: None,
            span: Span::new(18, 26),
        };
        let times = Spanned {
            value: 3,
            span: Span::new(12, 13),
        };
        let mut rare = Callback::bare(0, Span::new(0, 40), Kind::Then);
        rare.set_parts(CallbackParts {
            label: Some(text(5)),
            times: Some(times),
            links: vec![link].into_boxed_slice(),
            ..CallbackParts::default()
        });
        rare.set_amount(amount(u64::MAX, 30, 50));
        assert!(rare.parts.as_ref().is_some_and(|p| p.rare.is_some()));
        assert_eq!(rare.times(), Some(times));
        assert_eq!(rare.links().len(), 1);
        assert_eq!(rare.label().map(|l| l.span), Some(Span::new(5, 8)));
        assert_eq!(rare.amount(), amount(u64::MAX, 30, 50));
        let parts = rare.parts_mut().expect("parts were set");
        parts.times.expect("times was set").span = Span::new(112, 113);
        parts.links[0].span = Span::new(118, 126);
        assert_eq!(rare.times().map(|t| t.span), Some(Span::new(112, 113)));
        assert_eq!(rare.links()[0].span, Span::new(118, 126));
        // The number set again to one that fits: the second box stays for the rest.
        rare.set_amount(amount(7, 30, 31));
        assert_eq!(rare.amount(), amount(7, 30, 31));
        assert_eq!(rare.times().map(|t| t.value), Some(3));

        // Only a large number: one box of each, dropped again with it.
        let mut big = Callback::bare(0, Span::new(0, 40), Kind::Timeout);
        big.set_amount(amount(u64::MAX, 8, 28));
        assert!(big.parts.as_ref().is_some_and(|p| p.rare.is_some() && p.label.is_none()));
        big.set_amount(None);
        assert!(big.parts.is_none());
    }

    /// A number kept inline, one kept in the box (too large, or written
    /// with too many bytes), and none: each read back as set, whether the
    /// parts were set before or after it, and no box left for nothing.
    #[test]
    fn a_number_reads_back_as_set_inline_or_boxed() {
        let cases = [
            amount(100, 8, 11),
            amount(u64::from(u32::MAX), 8, 18),
            amount(u64::from(u32::MAX) + 1, 8, 18),
            amount(u64::MAX, 8, 28),
            amount(7, 8, 8 + 254),
            amount(7, 8, 8 + 255),
            amount(7, 8, 8 + 10_000),
            None,
        ];
        for case in cases {
            let mut bare = Callback::bare(0, Span::new(0, 40), Kind::Timeout);
            bare.set_amount(case);
            assert_eq!(bare.amount(), case);
            // Nothing but a number that does not fit makes a box.
            let boxed = case.is_some_and(|a| a.value > u64::from(u32::MAX) || a.span.end() - a.span.start() >= 255);
            assert_eq!(bare.parts_mut().is_some(), boxed, "{case:?}");
            assert!(bare.label().is_none());

            let label = || CallbackParts {
                label: Some(Text {
                    parts: super::ThinVec::new(),
                    span: Span::new(30, 32),
                }),
                ..CallbackParts::default()
            };
            let mut parts_after = Callback::bare(0, Span::new(0, 40), Kind::Timeout);
            parts_after.set_amount(case);
            parts_after.set_parts(label());
            let mut parts_before = Callback::bare(0, Span::new(0, 40), Kind::Timeout);
            parts_before.set_parts(label());
            parts_before.set_amount(case);
            for c in [&parts_after, &parts_before] {
                assert_eq!(c.amount(), case);
                assert_eq!(c.label().map(|l| l.span), Some(Span::new(30, 32)));
            }
            // Set again to none: no number, and no box kept for it alone.
            bare.set_amount(None);
            assert_eq!(bare.amount(), None);
            assert!(bare.parts_mut().is_none());
            parts_after.set_amount(None);
            assert_eq!(parts_after.amount(), None);
            assert!(parts_after.label().is_some());
        }
    }
}
