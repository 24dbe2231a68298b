//! The syntax tree of a `.loop` file. Every node keeps its source [`Span`].

use crate::sched::Phase;

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
}

/// A string with `{i}`, `{n}`, `{k}` placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub parts: Vec<TextPart>,
    pub span: Span,
}

/// A piece of a [`Text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextPart {
    /// Literal text (escapes already resolved).
    Lit(String),
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
    Repeat { count: Spanned<u64>, body: Vec<Stmt> },
    /// `again`: the running callback schedules itself once more.
    Again,
    /// A callback-scheduling statement (`timeout`, `immediate`, `then` …).
    Callback(Box<Callback>),
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
pub const STATEMENTS: [Statement; 15] = [
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
    plain("clear", Amount::None, "clear \"label\""),
    plain("repeat", Amount::Count, "repeat N { … }"),
    plain("again", Amount::None, "again"),
];

impl Kind {
    /// Every kind, in order.
    pub const ALL: [Kind; 10] = [
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
#[derive(Debug, Clone)]
pub struct Callback {
    /// Site number: callbacks and `.then` links numbered in source order, from 0.
    pub site: usize,
    /// The whole statement.
    pub span: Span,
    pub kind: Spanned<Kind>,
    /// The kind's number, in ticks: a `timeout`/`interval` delay, a `submit`
    /// job's length, `io … after N` (see [`delay`](Self::delay),
    /// [`ticks`](Self::ticks), [`after`](Self::after)).
    pub amount: Option<Spanned<u64>>,
    /// `times N`: runs at most N times in all.
    pub times: Option<Spanned<u64>>,
    pub label: Option<Text>,
    /// The body; `None` for a label-only callback (which logs its label).
    pub body: Option<Box<[Stmt]>>,
    /// `.then` links of a `then` chain, in order.
    pub links: Vec<Link>,
}

impl Callback {
    /// A `timeout`/`interval` delay, in ticks.
    pub fn delay(&self) -> Option<Spanned<u64>> {
        self.amount.filter(|_| matches!(self.kind.value, Kind::Timeout | Kind::Interval))
    }

    /// A `submit` job's length, in ticks.
    pub fn ticks(&self) -> Option<Spanned<u64>> {
        self.amount.filter(|_| self.kind.value == Kind::Submit)
    }

    /// `io … after N`, in ticks.
    pub fn after(&self) -> Option<Spanned<u64>> {
        self.amount.filter(|_| self.kind.value == Kind::Io)
    }
}

/// A `.then [LABEL] [times N] [BODY]` link of a `then` chain.
#[derive(Debug, Clone)]
pub struct Link {
    /// Site number (see [`Callback::site`]).
    pub site: usize,
    pub label: Option<Text>,
    pub times: Option<Spanned<u64>>,
    pub body: Option<Box<[Stmt]>>,
    pub span: Span,
}

/// An `expect { … }` block, with its `or { … }` alternatives.
#[derive(Debug, Clone)]
pub struct Expect {
    pub lines: Vec<ExpectLine>,
    /// `limit QUEUE`: the run is predicted to stop at that limit.
    pub limit: Option<Spanned<LimitQueue>>,
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
