//! Every diagnostic loopsim shows, as data: [`Code`] names the kinds (the
//! stable `loop::…` codes), [`Diag`] is one diagnostic with its parameters.
//! Each diagnostic's code, message, label and help are written here and only
//! here; a site builds a [`Problem`] with [`Diag::at`].

use super::Problem;
use crate::sched::{LimitKind, Phase};
use crate::syntax::ast::{Kind, Span};
use crate::trace::LimitSite;

/// The kinds of diagnostic, one stable code each (`loop::syntax`,
/// `loop::unclosed-block`, …). Each has a snapshot of how it is shown in
/// `tests/diagnostics/` (the test `every_kind_has_a_snapshot` iterates them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumIter, strum::IntoStaticStr, strum::EnumCount)]
#[strum(serialize_all = "kebab-case", prefix = "loop::")]
pub enum Code {
    /// The file is 4 GiB or more.
    TooLarge,
    /// Not UTF-8 text (UTF-16, binary, invalid bytes, NUL).
    Encoding,
    /// Carriage returns without a line feed.
    LineEndings,
    /// What the grammar cannot read: "expected X, found Y".
    Syntax,
    /// A `{` never closed.
    UnclosedBlock,
    /// A `"` never closed on its line.
    UnterminatedString,
    /// A line starting with a word that starts no statement.
    UnknownStatement,
    /// A statement keyword followed by what its form does not allow.
    Malformed,
    /// A JavaScript call pasted in.
    Javascript,
    /// An unknown phase or limit queue name.
    UnknownName,
    /// An expect block line that is not `[turn N] [at T] [PHASE] "text"`.
    ExpectLine,
    /// An expect block misplaced, repeated or with a line after `limit`.
    Expect,
    /// A directive after a statement.
    DirectiveOrder,
    /// A directive given twice.
    Directive,
    /// An item of more than [`crate::syntax::MAX_ITEM`] tokens.
    TooLong,
    /// Blocks or parentheses nested too deeply.
    Nesting,
    /// A number that is negative, too large, or not taken here.
    Number,
    /// `after` on something but `io`.
    After,
    /// `.then` on something but `then`.
    Then,
    /// A timer without its delay, or the delay after the label.
    Delay,
    /// A `submit` without its length.
    Ticks,
    /// `times 0`; `repeat 0` (a warning).
    Times,
    /// An unknown escape in a string.
    Escape,
    /// `pool N` out of 1..=1024.
    Pool,
    /// `module` other than `cjs` or `esm`.
    Module,
    /// A directive or expect block inside a block.
    Misplaced,
    /// `again` outside a callback or inside an interval; `times N` on a
    /// callback without `again` (a warning).
    Again,
    /// `{i}`, `{n}` or `{k}` where it means nothing.
    Placeholder,
    /// `clear` of a label no timer or immediate has (a warning).
    Clear,
    /// The note ending a list of problems cut at [`super::MAX_KEPT`].
    TooManyProblems,
    /// A run stopped by a limit (docs/scheduling.md rule 7).
    Limit,
    /// A prediction (`expect` block) that does not hold.
    Prediction,
    /// The search for the orders Node can print, cut short.
    Search,
    /// Real Node can print another order than the trace (a warning).
    Race,
    /// `emit-js --scale`: a delay past Node's maximum timer delay.
    Scale,
    /// `verify`: a run that would last too long in real time.
    VerifyTooLong,
    /// `emit-js`, `verify`: a run loopsim stops at a limit the emitted
    /// program does not keep.
    EmitLimit,
    /// A promise or async function name used where none of that name is in scope.
    Undeclared,
    /// A name declared twice in one block.
    Redeclared,
    /// A name JavaScript or the emitted program keeps for itself.
    ReservedName,
    /// A name used as what it does not name (`call` of a promise, `resolve`
    /// of a promise that has no executor, `resolve p with p`).
    NameUse,
    /// `await`, `return`, `throw`, `try`, `resolve` or `reject` where it cannot be.
    Context,
    /// `async` on a promise's executor.
    AsyncExecutor,
    /// `rejections` other than `throw` or `warn`.
    Rejections,
    /// `--node 10` with promise statements.
    NodeVersion,
    /// Statements after `return` or `throw` in the same block (a warning).
    Unreachable,
}

/// The code of a file that cannot be read, in JSON diagnostics (`run
/// --format json`, the playground): no [`Code`], having no source to point
/// into (the command line says it in one line on stderr).
pub const IO_CODE: &str = "loop::io";

impl Code {
    /// The stable code, e.g. `loop::unclosed-block`.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The code of the note that ends a list cut at [`super::MAX_KEPT`]
/// ([`Code::TooManyProblems`]): it is never drawn as a diagnostic.
pub const CUT: &str = "loop::too-many-problems";

/// The help line of a [`Diag::Syntax`], chosen from the text before the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxHint {
    /// `timeout 1.5`.
    Fraction,
    /// `timeout {i}`.
    PlaceholderNumber,
    /// `timeout "5"`.
    QuotedNumber,
    /// A string where a statement should start.
    StrayString,
    /// A string right after another on its line (`log "x" "y"`).
    SecondString,
    /// A character that looks like a blank but is none (a no-break space,
    /// a zero-width space …), where the error is.
    OddSpace(char),
    /// A string after `throw` (`throw "boom"`), which takes no value.
    ThrowValue,
    /// A number where a statement should start.
    StrayNumber,
    /// A digit other than 0–9 (`１`, full-width), as the character.
    WideDigit(char),
    /// A `}` that closes nothing.
    StrayBrace,
    /// A string was expected.
    Quote,
    /// Typographic or single quotes, or a backtick, where a string may go (`“x”`, `'x'`).
    CurlyQuote,
    /// A `;` (JavaScript's statement end).
    Semicolon,
    /// A `(` (a JavaScript call or arrow function).
    Paren,
    /// A `(` right after a link (`.then("b")`).
    LinkParen,
    /// A `/*` (JavaScript's block comment).
    BlockComment,
    /// `Promise.resolve()` and the like after `promise NAME =`, `await` or `chain`.
    PromiseCall,
    /// A word after a `.` where a link may go (`.thne`): the closest of
    /// `.then`, `.catch` and `.finally`, if one is close.
    Link { suggestion: Option<&'static str> },
    /// Anything else.
    Docs,
}

/// One diagnostic with its parameters. [`Diag::code`], [`Diag::message`],
/// [`Diag::label`] and [`Diag::help`] say how it is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diag {
    // ---- load: bytes → text ----
    /// The file is 4 GiB or more.
    TooLarge,
    /// Text in a wide encoding (`encoding`: "UTF-16 (little-endian)", …),
    /// told by its byte-order mark `bom` ("FF FE", …) or, without one, by its
    /// NUL bytes. Its span is a line of the text decoded.
    WideEncoding { encoding: &'static str, bom: Option<&'static str> },
    /// A NUL byte in the bytes, at byte `at`.
    BinaryFile { at: usize },
    /// Bytes that are not UTF-8; `binary`: many of the first bytes are
    /// control characters, as in binary data, not text in another encoding.
    InvalidUtf8 { binary: bool },
    /// A NUL character in the text.
    NulByte,
    /// `count` carriage returns without a line feed.
    LoneCr { count: usize },

    // ---- syntax ----
    /// pest could not read on: `expected` what, `found` what (`` `x` `` or
    /// "the end of the file").
    Syntax { expected: String, found: String, hint: SyntaxHint },
    /// A block never closed (at its `{`).
    UnclosedBlock,
    /// A string never closed on its line.
    UnterminatedString,
    /// A line starting with `word`, which starts no statement; `suggestion`
    /// the closest keyword, `keywords` every statement keyword.
    UnknownStatement {
        word: String,
        suggestion: Option<&'static str>,
        keywords: String,
        /// It follows a statement on its line: most likely a label written without quotes.
        mid_line: bool,
        /// The same word came before it on its line (`times 3 times 2`).
        twice: bool,
        /// A placeholder follows it (`after {i}`).
        placeholder: bool,
    },
    /// A statement `keyword` not in its `form` (its usage string).
    /// `quoted`: the text has typographic or single quotes or backticks
    /// (`“x”`, `'x'`), which do not make a string. `quoted_name`: a string
    /// stands where the form has a NAME (`async "f" { … }`, `call "f"`).
    Malformed {
        keyword: String,
        form: String,
        quoted: bool,
        quoted_name: bool,
    },
    /// A JavaScript `call`, the `.loop` `form` it becomes, and a `note` (or empty).
    Javascript {
        call: String,
        form: &'static str,
        note: &'static str,
    },
    /// An unknown name of a `what` ("phase", "limit queue"), with the closest
    /// one or every one (`names`, joined).
    UnknownName {
        what: &'static str,
        word: String,
        suggestion: Option<&'static str>,
        names: String,
    },
    /// An expect block line that cannot be read; `quoted`: it has
    /// typographic or single quotes or backticks, which make no string;
    /// `row`: it is a row of `loopsim run`'s table, and this expect line
    /// says the same (empty for a note row, ⏸, ▶, …, which says none).
    ExpectLine { quoted: bool, row: Option<String> },
    /// An expect line whose `turn` or `at` has no number after it, or whose
    /// `limit` has a quoted queue: the grammar read the keyword as a phase.
    ExpectField { field: &'static str },
    /// A second expect block.
    SecondExpect,
    /// A statement after the expect block.
    StatementAfterExpect,
    /// A line after a `limit` line; `again`: a second `limit` line.
    AfterLimit { again: bool },
    /// An `or` after the expect block with no block after it.
    DanglingOr,
    /// An `or` block equal to an earlier alternative (a warning).
    RepeatedAlternative,
    /// A directive (`text`, as written) after a statement.
    DirectiveOrder { text: String },
    /// The directive `name` given twice.
    DirectiveTwice { name: &'static str },
    /// An item with more than `most` tokens.
    TooLong { most: usize },
    /// Blocks (or, with `paren`, parentheses) nested more than `most` deep.
    /// `opener`: the `{`, `(` or `[` opened too deep.
    TooDeep { opener: u8, most: usize },

    // ---- the parts of a statement ----
    /// A number `kind` does not take.
    ExtraNumber { kind: Kind },
    /// Not a number where one is needed.
    NotANumber { text: String },
    /// A negative number.
    Negative { text: String },
    /// A number past `u64::MAX`.
    Overflow { text: String },
    /// `after` on a `kind` other than `io`.
    After { kind: Kind },
    /// A `link` (`then`, `catch`, `finally`) after a `kind` other than `then`.
    ThenLink { kind: Kind, link: &'static str },
    /// A `timeout`/`interval` delay written after its label.
    DelayAfterLabel { kind: Kind, delay: u64 },
    /// A `timeout`/`interval` without a delay.
    NoDelay { kind: Kind },
    /// A `timeout`/`interval` delay above Node's `TIMEOUT_MAX` (2³¹−1),
    /// which Node sets to 1 (a warning).
    DelayAboveMax { kind: Kind, delay: u64 },
    /// A `submit` without its length.
    NoTicks,
    /// `kind` (`timeout`, `interval`, `submit`) followed by a `word` where its
    /// number goes; `ticks`: a `submit` (its length) rather than a delay.
    WordForNumber { ticks: bool, kind: String, word: String },
    /// `times 0`.
    TimesZero,
    /// `repeat 0 { … }`: a body that never runs (a warning: JavaScript's loop
    /// runs it no times too).
    RepeatZero,
    /// `\c` in a string, for an unknown `c`.
    Escape { c: char },
    /// `pool n` out of range.
    Pool { n: u64 },
    /// `module word` for an unknown word; `suggestion` the closest kind.
    Module { word: String, suggestion: Option<&'static str> },
    /// A directive (`directive`) or an expect block inside a block.
    Misplaced { directive: bool },
    /// `again` outside a callback.
    AgainOutside,
    /// `again` inside an interval.
    AgainInInterval,
    /// `times` (N ≥ 2) on a callback or link named `name` (not an interval)
    /// whose body has no `again`: it runs once (a warning). `logs`: the
    /// label it logs, having no body; `link`: a `.then`/`.catch`/`.finally`
    /// link (no `repeat` can go around it).
    TimesWithoutAgain {
        times: u64,
        name: &'static str,
        logs: Option<String>,
        link: bool,
    },
    /// `{i}` outside a `repeat`.
    IndexOutsideRepeat,
    /// `{n}` or `{k}` (`name`) outside a callback.
    RunOutsideCallback { name: &'static str },
    /// `clear` of a label only a `kind` callback has (a warning).
    ClearNotClearable { kind: Kind },
    /// `clear` of a label no callback has (a warning).
    ClearUnknown { label: String },
    /// The note ending a cut list: `message` says what was left out.
    TooManyProblems { message: String },

    // ---- promises and async functions ----
    /// `{i}`, `{n}` or `{k}` written on the name `name`.
    PlaceholderInName { name: String },
    /// A line after the `ending` (`unhandled`, `unsettled`) of a prediction.
    AfterEnding { ending: &'static str },
    /// `rejections word`; `suggestion` the closest mode.
    RejectionsMode { word: String, suggestion: Option<&'static str> },
    /// No promise or async function `name` anywhere; `suggestion` the closest
    /// name in scope.
    UndeclaredName { name: String, suggestion: Option<String> },
    /// `name` used before its declaration (a promise: not hoisted).
    NotYetDeclared { name: String },
    /// `name` is declared in a block this use is not inside.
    NotInScope { name: String },
    /// `name` declared again in the block that declares it.
    Redeclared { name: String },
    /// `name` is a word JavaScript or the emitted program keeps: `why`.
    ReservedName { name: String, why: &'static str },
    /// `name` is the emitted name of the resolving function of the promise `of`.
    ResolvingFunctionName { name: String, of: String },
    /// `call name` of a promise.
    CallNotAsync { name: String },
    /// The async function `name` used as a promise.
    AsyncAsPromise { name: String },
    /// `verb name` (`resolve`, `reject`) of a promise made otherwise than by
    /// an executor without links; `links`: it has links.
    SettleNotExecutor { verb: &'static str, name: String, links: bool },
    /// `resolve name with name`.
    ResolveWithItself { name: String },
    /// `await` outside an async body; `nested`: in a callback inside one.
    AwaitOutsideAsync { nested: bool },
    /// `return` outside an async or handler body.
    ReturnOutside,
    /// `throw` outside an async, handler or executor body.
    ThrowOutside,
    /// `try` outside an async or handler body.
    TryOutside,
    /// `verb` (`resolve`, `reject`) without a name outside an executor.
    SettleOutsideExecutor { verb: &'static str },
    /// At an ES module's top level, `what` (`throw`, `await rejected`)
    /// ends the process through the module loader (not modelled).
    TopLevelThrow { what: &'static str },
    /// `async` before an executor's body.
    AsyncExecutor,
    /// `--node 10`, or a file's `node 10` when no `--node` was given
    /// (`directive`), with the promise statement `statement`.
    PromisesOnNode10 { statement: String, directive: bool },
    /// `node N` for a version loopsim has no profile of.
    UnknownNode { major: u64 },
    /// Statements after a `what` (`return`, `throw`) that never run (a warning).
    AfterExit { what: &'static str },

    // ---- runs ----
    /// A run stopped by `limit` while `queue` was fed; at most `max` of it;
    /// `waiting` what was left waiting (see [`crate::limit::left_waiting`]);
    /// `bounded`: every `again` and `interval` has `times` (a long run, not an endless one);
    /// `raised_for`: see [`crate::trace::LimitHit::raised_for`].
    Limit {
        limit: LimitKind,
        queue: Phase,
        max: u64,
        waiting: String,
        bounded: bool,
        raised_for: Option<u64>,
        site: LimitSite,
    },
    /// A prediction that differs at log line `line` (1-based): `diff` what
    /// differs, `actual` what ran; `why` it ran there (for the log `text`), or
    /// else `printed` the number of log lines.
    PredictionDiffers {
        line: usize,
        diff: String,
        actual: String,
        text: String,
        why: Option<String>,
        printed: usize,
        /// The expect line is a copy of a trace's `⏸`/`▶` note, no log line.
        note_copied: bool,
    },
    /// The run printed more than predicted: `actual` the next log line,
    /// `remaining` the lines not predicted.
    /// `limit`: the queue of the limit that stopped the run, if one did;
    /// `bound`: that limit reached ("2,000,000 log lines (the most a trace
    /// holds)"), when it stopped a run that would end (a bound on the run's
    /// size, or a turn limit on a run with no endless chain).
    PrintedMore {
        line: usize,
        actual: String,
        remaining: usize,
        limit: Option<&'static str>,
        #[cfg(not(target_family = "wasm"))]
        bound: Option<String>,
    },
    /// An expect line never printed: `how` the run ended, after `printed` lines.
    NeverPrinted {
        how: String,
        printed: usize,
        /// The line is a copied `⏸`/`▶` note of the trace.
        note_copied: bool,
    },
    /// `limit want` predicted, `got` stopped the run.
    WrongLimit { want: &'static str, got: &'static str },
    /// A limit predicted, the run finished.
    LimitNotHit,
    /// No limit predicted, `got` stopped the run.
    StoppedByLimit {
        got: &'static str,
        /// The ending the prediction wrote instead (`unhandled`, `unsettled`).
        instead: Option<&'static str>,
    },
    /// The prediction's ending (`unhandled`, `unsettled`, or none: exit 0)
    /// is not how the process ended (`got`, as an ending word or `None`).
    WrongEnding {
        want: Option<&'static str>,
        got: Option<&'static str>,
    },
    /// An alternative real Node never prints; `command` lists the orders it
    /// can print, ready to paste ([`crate::verdict::all_orders_command`]);
    /// `closest`: where the closest of them parts from it, when every order
    /// was listed ("the closest order Node can print agrees with its first 2
    /// lines, then prints "t"").
    NeverPrintedByNode { command: String, closest: Option<String> },
    /// A prediction neither the model nor real Node prints, blamed where the
    /// closest order Node can print parts from it (`parting`: at least one
    /// line agreed), where the prediction has `expected` (`None`: past its
    /// last line). `model_at`: the line where the seed model's trace parts
    /// from it.
    NodeParts {
        parting: crate::orders::membership::Parting,
        expected: Option<String>,
        model_at: usize,
    },
    /// An alternative that is not the model's order.
    NotModelOrder,
    /// Real `node` ("Node 20" or "Node") can print `order`, which no
    /// alternative names; it happens when `race`. `block`: the `or { … }`
    /// block that names it, when it is short enough to give in the help,
    /// followed by those of the `others` orders missing besides it (all
    /// of them, when any).
    MissingOrder {
        node: String,
        order: String,
        race: String,
        block: Option<String>,
        others: usize,
    },
    /// The orders search was cut short (`cut` says how) after `found` orders.
    SearchCut { cut: String, found: usize },
    /// Node 20 can print `count` orders ("2", or "other" when the check
    /// stopped at the second order), e.g. when `race`.
    Race {
        count: String,
        race: String,
        node: crate::sched::NodeProfile,
        /// The command that lists the orders, ready to paste
        /// ([`crate::verdict::all_orders_command`]).
        command: String,
        /// The seed model's order ends where another goes on (its run
        /// ended: an unhandled rejection, a limit): the label says so.
        ends: bool,
        /// The other order prints the same lines and ends otherwise (exit
        /// code 0 where the model's run ends by an unhandled rejection, …).
        same_lines: bool,
        /// The other order prints the first of these lines only, then the
        /// process ends (an unhandled rejection, …).
        sooner: bool,
    },
    #[cfg(not(target_family = "wasm"))]
    /// `emit-js --scale`: a `kind`'s delay of `ticks` is `ms` ms, past `max`;
    /// `--scale fits` would do.
    Scale {
        kind: Kind,
        scale: u64,
        ticks: u64,
        ms: u128,
        max: u64,
        fits: u64,
    },
    #[cfg(not(target_family = "wasm"))]
    /// `verify`: one run lasts `run` at `scale` ms per tick, more than `max`;
    /// `label` says where; the file's run is `ticks` ticks (`ticks_time` at
    /// `--scale 1`); `--scale fits` would do (0: none); `max_ms` the most.
    VerifyTooLong {
        label: String,
        run: String,
        max: String,
        scale: u64,
        ticks: u64,
        ticks_time: String,
        fits: u64,
        max_ms: u64,
        /// The run never ends: a turn or callback limit stopped a chain
        /// without `times` (`run` is where the limit stopped it).
        endless: bool,
    },
    #[cfg(not(target_family = "wasm"))]
    /// `emit-js`, `verify`: loopsim's run stops at the `limit` of `max`,
    /// which the emitted program does not keep (it keeps the turn and
    /// callback limits only).
    EmitLimit { limit: LimitKind, max: u64, bounded: bool },
}

impl Diag {
    /// Its kind.
    pub fn code(&self) -> Code {
        use Diag::*;
        match self {
            TooLarge => Code::TooLarge,
            WideEncoding { .. } | BinaryFile { .. } | InvalidUtf8 { .. } | NulByte => Code::Encoding,
            LoneCr { .. } => Code::LineEndings,
            Syntax { .. } => Code::Syntax,
            UnclosedBlock => Code::UnclosedBlock,
            UnterminatedString => Code::UnterminatedString,
            UnknownStatement { .. } => Code::UnknownStatement,
            Malformed { .. } => Code::Malformed,
            Javascript { .. } => Code::Javascript,
            UnknownName { .. } => Code::UnknownName,
            ExpectLine { .. } | ExpectField { .. } => Code::ExpectLine,
            SecondExpect | StatementAfterExpect | AfterLimit { .. } | DanglingOr | RepeatedAlternative => Code::Expect,
            DirectiveOrder { .. } => Code::DirectiveOrder,
            DirectiveTwice { .. } => Code::Directive,
            TooLong { .. } => Code::TooLong,
            TooDeep { .. } => Code::Nesting,
            ExtraNumber { .. } | NotANumber { .. } | Negative { .. } | Overflow { .. } => Code::Number,
            After { .. } => Code::After,
            ThenLink { .. } => Code::Then,
            DelayAfterLabel { .. } | NoDelay { .. } | DelayAboveMax { .. } => Code::Delay,
            WordForNumber { ticks: false, .. } => Code::Delay,
            NoTicks | WordForNumber { ticks: true, .. } => Code::Ticks,
            TimesZero | RepeatZero => Code::Times,
            Escape { .. } => Code::Escape,
            Pool { .. } => Code::Pool,
            Module { .. } => Code::Module,
            Misplaced { .. } => Code::Misplaced,
            AgainOutside | AgainInInterval | TimesWithoutAgain { .. } => Code::Again,
            IndexOutsideRepeat | RunOutsideCallback { .. } => Code::Placeholder,
            ClearNotClearable { .. } | ClearUnknown { .. } => Code::Clear,
            TooManyProblems { .. } => Code::TooManyProblems,
            PlaceholderInName { .. } => Code::Placeholder,
            AfterEnding { .. } => Code::Expect,
            RejectionsMode { .. } => Code::Rejections,
            UndeclaredName { .. } | NotYetDeclared { .. } | NotInScope { .. } => Code::Undeclared,
            Redeclared { .. } => Code::Redeclared,
            ReservedName { .. } | ResolvingFunctionName { .. } => Code::ReservedName,
            CallNotAsync { .. } | AsyncAsPromise { .. } | SettleNotExecutor { .. } | ResolveWithItself { .. } => Code::NameUse,
            AwaitOutsideAsync { .. } | ReturnOutside | ThrowOutside | TryOutside | SettleOutsideExecutor { .. } | TopLevelThrow { .. } => {
                Code::Context
            }
            AsyncExecutor => Code::AsyncExecutor,
            PromisesOnNode10 { .. } | UnknownNode { .. } => Code::NodeVersion,
            AfterExit { .. } => Code::Unreachable,
            Limit { .. } => Code::Limit,
            PredictionDiffers { .. }
            | PrintedMore { .. }
            | NeverPrinted { .. }
            | WrongLimit { .. }
            | LimitNotHit
            | StoppedByLimit { .. }
            | WrongEnding { .. }
            | NeverPrintedByNode { .. }
            | NodeParts { .. }
            | NotModelOrder
            | MissingOrder { .. } => Code::Prediction,
            SearchCut { .. } => Code::Search,
            Race { .. } => Code::Race,
            #[cfg(not(target_family = "wasm"))]
            Scale { .. } => Code::Scale,
            #[cfg(not(target_family = "wasm"))]
            VerifyTooLong { .. } => Code::VerifyTooLong,
            #[cfg(not(target_family = "wasm"))]
            EmitLimit { .. } => Code::EmitLimit,
        }
    }

    /// Whether it is a warning (which does not stop the run).
    pub fn is_warning(&self) -> bool {
        matches!(
            self,
            Diag::ClearNotClearable { .. }
                | Diag::ClearUnknown { .. }
                | Diag::TimesWithoutAgain { .. }
                | Diag::DelayAboveMax { .. }
                | Diag::RepeatZero
                | Diag::Race { .. }
                | Diag::AfterExit { .. }
                | Diag::RepeatedAlternative
        )
    }

    /// The one line saying what is wrong.
    pub fn message(&self) -> String {
        use Diag::*;
        match self {
            TooLarge => "the file is 4 GiB or more".into(),
            WideEncoding { encoding, .. } => format!("the file is {encoding} text: loopsim reads UTF-8"),
            BinaryFile { at } => format!("the file contains a NUL byte (at byte {at}): it is not text"),
            InvalidUtf8 { .. } => "the file is not valid UTF-8".into(),
            NulByte => "the file contains a NUL byte".into(),
            LoneCr { count } => format!(
                "the file has {} carriage return{} (CR) without a line feed: old Mac line endings?",
                count,
                if *count == 1 { "" } else { "s" }
            ),
            Syntax { expected, found, .. } => format!("expected {expected}, found {found}"),
            UnclosedBlock => "this block is never closed".into(),
            UnterminatedString => "unterminated string".into(),
            UnknownStatement { word, .. } => format!("unknown statement `{word}`"),
            Malformed { keyword, form, .. } => {
                let what = if form.ends_with(AT_THE_TOP) { "directive" } else { "statement" };
                format!("malformed `{keyword}` {what}")
            }
            Javascript { call, .. } => format!("`{call}` is JavaScript, not a .loop statement"),
            UnknownName { what, word, .. } => format!("unknown {what} `{word}`"),
            ExpectLine { .. } => "malformed expect line".into(),
            ExpectField { field: "limit" } => "`limit` takes a queue's name, without quotes".into(),
            ExpectField { field } => format!("`{field}` takes a whole number"),
            SecondExpect => "a file has at most one expect block".into(),
            StatementAfterExpect => "statements must come before the expect block".into(),
            AfterLimit { .. } => "nothing can follow a `limit` line".into(),
            DanglingOr => "`or` needs another expect block after it".into(),
            RepeatedAlternative => "this `or` block repeats an earlier one".into(),
            DirectiveOrder { .. } => "directives must come before the first statement".into(),
            DirectiveTwice { name } => format!("`{name}` is given twice"),
            TooLong { most } => format!(
                "more than {} tokens before a line that begins a new statement",
                crate::render::thousands(*most as u64)
            ),
            TooDeep { opener: b'(', .. } => "parentheses are nested too deeply".into(),
            TooDeep { opener: b'[', .. } => "lists are nested too deeply".into(),
            TooDeep { .. } => "blocks are nested too deeply".into(),
            ExtraNumber { kind } => format!("`{}` does not take this number", kind.name()),
            NotANumber { text } => format!("expected a number, found `{text}`"),
            Negative { text } => format!("negative number `{text}`"),
            Overflow { text } => format!("number `{text}` is too large"),
            After { kind } => format!("`after` belongs to `io`, not `{}`", kind.name()),
            ThenLink { kind, link } => format!("`.{link}` follows a `then`, not `{}`", kind.name()),
            DelayAfterLabel { .. } => "the delay comes before the label".into(),
            NoDelay { kind } => format!("`{}` needs a delay", kind.name()),
            DelayAboveMax { kind, delay } => format!("`{} {delay}`: a delay above 2147483647 becomes 1 tick", kind.name()),
            NoTicks => "`submit` needs the job's length in ticks".into(),
            WordForNumber { kind, word, .. } => format!("`{kind}` needs a number of ticks, found `{word}`"),
            TimesZero => "`times 0` would never run the callback".into(),
            RepeatZero => "`repeat 0` never runs its body".into(),
            Escape { c } => format!("unknown escape `\\{c}`"),
            Pool { n } => format!("pool size {n} is out of range"),
            Module { word, .. } => format!("unknown module kind `{word}`"),
            Misplaced { directive: true } => "directives belong at the top of the file".into(),
            Misplaced { directive: false } => "an expect block belongs at the end of the file".into(),
            AgainOutside => "`again` outside a callback".into(),
            AgainInInterval => "`again` inside an interval".into(),
            // A link runs only if its promise settles its way (a `.catch` on a fulfilled one never).
            TimesWithoutAgain { times, name, link, .. } => {
                format!(
                    "`times {times}` without `again`: this `{name}` runs {}",
                    if *link { "at most once" } else { "once" }
                )
            }
            IndexOutsideRepeat => "`{i}` outside a `repeat`".into(),
            RunOutsideCallback { name } => format!("`{name}` outside a callback"),
            ClearNotClearable { kind } => format!("`clear` cannot cancel a `{}` callback", kind.name()),
            ClearUnknown { label } => format!("no timeout, interval or immediate is labelled \"{label}\""),
            TooManyProblems { message } => message.clone(),
            PlaceholderInName { name } => format!("`{name}`: a name cannot hold a placeholder"),
            AfterEnding { ending } => format!("nothing can follow `{ending}`"),
            RejectionsMode { word, .. } => format!("unknown rejections mode `{word}`"),
            UndeclaredName { name, .. } => format!("no promise or async function is named `{name}`"),
            NotYetDeclared { name } => format!("`{name}` is used before its declaration"),
            NotInScope { name } => format!("`{name}` is declared in another block: it is not visible here"),
            Redeclared { name } => format!("`{name}` is already declared in this block"),
            ReservedName { name, .. } => format!("`{name}` cannot be a name"),
            ResolvingFunctionName { name, of } => format!("`{name}` is the name emit-js gives to the resolving function of `{of}`"),
            CallNotAsync { name } => format!("`{name}` is a promise, not an async function"),
            AsyncAsPromise { name } => format!("`{name}` is an async function, not a promise"),
            SettleNotExecutor { verb, name, .. } => format!("`{verb} {name}`: `{name}` has no executor to settle it"),
            ResolveWithItself { name } => format!("`{name}` is resolved with itself"),
            AwaitOutsideAsync { nested: false } => "`await` outside an async body".into(),
            AwaitOutsideAsync { nested: true } => "`await` in a callback that is not async".into(),
            ReturnOutside => "`return` outside an async function or a handler".into(),
            ThrowOutside => "`throw` outside an async function, a handler or an executor".into(),
            TryOutside => "`try` outside an async function or a handler".into(),
            SettleOutsideExecutor { verb } => format!("`{verb}` without a name outside an executor"),
            TopLevelThrow { what } => format!("`{what}` at the top level of an ES module"),
            AsyncExecutor => "an executor cannot be async".into(),
            PromisesOnNode10 {
                statement,
                directive: false,
            } => format!("`{statement}` cannot run with --node 10"),
            PromisesOnNode10 {
                statement,
                directive: true,
            } => format!("`{statement}` cannot run on the file's `node 10`"),
            UnknownNode { major } => format!("loopsim has no profile of Node {major}"),
            AfterExit { what } => format!("the statements after `{what}` never run"),
            Limit {
                limit,
                queue,
                bounded,
                site,
                ..
            } => limit_message(*limit, *queue, *bounded, *site).0,
            PredictionDiffers { line, diff, .. } => format!("prediction failed at log line {line}: {diff}"),
            PrintedMore { line, .. } => format!("the run printed more: log line {line} is not predicted"),
            NeverPrinted { how, printed, .. } => format!("prediction failed: {how} after {printed} log line{}", plural(*printed as u64)),
            WrongLimit { want, got } => format!("predicted the {want} limit, but the {got} limit stopped the run"),
            LimitNotHit => "predicted a limit, but the run finished".into(),
            StoppedByLimit { got, .. } => format!("the run was stopped by a limit ({got})"),
            WrongEnding { want, got } => {
                let how = |e: &Option<&str>| match e {
                    Some("unhandled") => "with exit code 1 by an unhandled rejection",
                    Some(_) => "with exit code 13, its top-level await unsettled",
                    None => "normally (exit code 0)",
                };
                format!("predicted the process ends {}, but it ends {}", how(want), how(got))
            }
            NeverPrintedByNode { .. } => "real Node never prints this order".into(),
            NodeParts {
                parting,
                expected: Some(e),
                ..
            } => format!(
                "prediction failed at log line {}: real Node never prints {e:?} there",
                parting.agreed + 1
            ),
            NodeParts {
                parting, expected: None, ..
            } => {
                format!("prediction failed after log line {}: real Node prints more", parting.agreed)
            }
            NotModelOrder => "this alternative is not the model's order".into(),
            MissingOrder { node, order, .. } => format!("real {node} can also print: {order}"),
            SearchCut { cut, .. } => format!(
                "the search for the orders Node can print was cut short {cut}: whether the alternatives name them all could not be checked"
            ),
            Race {
                node, same_lines: true, ..
            } => format!("real {node} can print these lines and end otherwise"),
            Race { node, sooner: true, .. } => format!("real {node} can end the process before it prints all these lines"),
            Race { node, .. } => format!("real {node} can print these lines in another order"),
            #[cfg(not(target_family = "wasm"))]
            Scale { kind, scale, ms, max, .. } => format!(
                "at --scale {scale} the delay of this `{}` is {ms} ms, more than Node's maximum timer delay ({max} ms)",
                kind.name()
            ),
            #[cfg(not(target_family = "wasm"))]
            VerifyTooLong {
                run, max, scale, endless, ..
            } => {
                if *endless {
                    format!(
                        "this file's run never ends (loopsim's limit stops it {run} in, at {scale} ms per tick); `verify` runs files that last at most {max}"
                    )
                } else {
                    format!(
                        "one run of this file would last {run} of real time at {scale} ms per tick; `verify` runs files that last at most {max}"
                    )
                }
            }
            #[cfg(not(target_family = "wasm"))]
            EmitLimit { limit, max, .. } => format!(
                "loopsim stops this run at {}, a limit the emitted program does not keep (Node would not stop there)",
                limit_reached(*limit, *max)
            ),
        }
    }

    /// The label shown at the span.
    pub fn label(&self) -> String {
        use Diag::*;
        match self {
            TooLarge => "too large".into(),
            WideEncoding { encoding, bom: Some(bom) } => {
                format!("read as {encoding}, as the byte-order mark {bom} that starts the file says")
            }
            WideEncoding { encoding, bom: None } => {
                format!("read as {encoding}, as the NUL bytes in every other place suggest")
            }
            BinaryFile { .. } => "NUL byte".into(),
            InvalidUtf8 { .. } => "invalid byte here".into(),
            NulByte => "NUL byte".into(),
            LoneCr { .. } => "CR without LF".into(),
            Syntax { .. } => "unexpected here".into(),
            UnclosedBlock => "opened here".into(),
            UnterminatedString => "this string never ends".into(),
            UnknownStatement { .. } => "not a statement".into(),
            Malformed { .. } => "cannot read this".into(),
            Javascript { .. } => "JavaScript".into(),
            UnknownName { what, .. } => format!("not a {what}"),
            ExpectLine { .. } => "cannot read this line".into(),
            ExpectField { field: "limit" } => "a quoted queue".into(),
            ExpectField { .. } => "a string where its number goes".into(),
            SecondExpect => "second expect block".into(),
            StatementAfterExpect => "after expect".into(),
            AfterLimit { .. } => "after the limit".into(),
            DanglingOr => "no block right after it".into(),
            RepeatedAlternative => "the same order again".into(),
            DirectiveOrder { .. } => "after a statement".into(),
            DirectiveTwice { .. } => "second one".into(),
            TooLong { .. } => "too many tokens from here to the next line that begins a statement".into(),
            TooDeep { .. } => "nested too deeply here".into(),
            ExtraNumber { .. } => "unexpected number".into(),
            NotANumber { .. } | WordForNumber { .. } => "not a number".into(),
            Negative { .. } => "below zero".into(),
            Overflow { .. } => "overflows 64 bits".into(),
            After { .. } => "not allowed here".into(),
            ThenLink { .. } => "no promise to chain on".into(),
            PlaceholderInName { .. } => "placeholder".into(),
            AfterEnding { .. } => "after the ending".into(),
            RejectionsMode { .. } => "not a mode".into(),
            UndeclaredName { .. } => "not declared".into(),
            NotYetDeclared { .. } => "not declared yet".into(),
            NotInScope { .. } => "out of its scope".into(),
            Redeclared { .. } => "declared again".into(),
            ReservedName { why, .. } => (*why).into(),
            ResolvingFunctionName { .. } => "taken by emit-js".into(),
            CallNotAsync { .. } => "not callable".into(),
            AsyncAsPromise { .. } => "an async function".into(),
            SettleNotExecutor { .. } => "no executor".into(),
            ResolveWithItself { .. } => "a chaining cycle".into(),
            AwaitOutsideAsync { .. } => "not in an async body".into(),
            ReturnOutside => "nothing to return from".into(),
            ThrowOutside => "nothing to reject".into(),
            TryOutside => "not in an async function or a handler".into(),
            SettleOutsideExecutor { .. } => "which promise?".into(),
            TopLevelThrow { .. } => "escapes the module".into(),
            AsyncExecutor => "async executor".into(),
            PromisesOnNode10 { .. } => "not modelled on Node 10".into(),
            UnknownNode { .. } => "not a known version".into(),
            AfterExit { .. } => "never runs".into(),
            DelayAfterLabel { .. } => "delay after the label".into(),
            NoDelay { .. } => "no delay".into(),
            DelayAboveMax { .. } => "becomes 1".into(),
            NoTicks => "no duration".into(),
            TimesZero => "zero runs".into(),
            RepeatZero => "zero times".into(),
            Escape { .. } => "not an escape".into(),
            Pool { .. } => "not in 1..=1024".into(),
            Module { .. } => "expected cjs or esm".into(),
            Misplaced { .. } => "inside a block".into(),
            AgainOutside => "no callback to repeat".into(),
            AgainInInterval => "the interval already repeats".into(),
            TimesWithoutAgain { .. } => "counts the runs of an `again` chain".into(),
            IndexOutsideRepeat => "no repeat index here".into(),
            RunOutsideCallback { .. } => "the main module is not a callback".into(),
            ClearNotClearable { .. } => "not a timer or immediate".into(),
            ClearUnknown { .. } => "never scheduled".into(),
            TooManyProblems { .. } => "problems left out from here".into(),
            Limit {
                limit,
                queue,
                bounded,
                site,
                ..
            } => limit_message(*limit, *queue, *bounded, *site).1.into(),
            PredictionDiffers { actual, .. } => format!("actually: {actual}"),
            PrintedMore { actual, .. } => format!("next: {actual}"),
            NeverPrinted { .. } => "never printed".into(),
            WrongLimit { got, .. } => format!("actually: limit {got}"),
            LimitNotHit => "the run ended normally".into(),
            StoppedByLimit { .. } => "the run did not finish".into(),
            WrongEnding { got, .. } => format!("actually: {}", got.unwrap_or("exit code 0")),
            NeverPrintedByNode { .. } => "not a possible order".into(),
            NodeParts { parting, expected, .. } => match (&parting.next, expected) {
                (Some(n), Some(_)) => format!("Node prints {n:?} here"),
                (Some(n), None) => format!("Node prints {n:?} next"),
                (None, _) => "Node's output ends before this line".into(),
            },
            NotModelOrder => "not the model's order".into(),
            MissingOrder { .. } => "no alternative names it".into(),
            SearchCut { .. } => "not all checked".into(),
            Race { same_lines: true, .. } => "the process may end otherwise".into(),
            Race { sooner: true, .. } => "Node may end the process before this line".into(),
            Race { ends: false, .. } => "the seed model prints this here".into(),
            Race { .. } => "the seed model's order ends here".into(),
            #[cfg(not(target_family = "wasm"))]
            Scale { scale, ticks, .. } => format!("{ticks} ticks × {scale} ms"),
            #[cfg(not(target_family = "wasm"))]
            VerifyTooLong { label, .. } => label.clone(),
            #[cfg(not(target_family = "wasm"))]
            EmitLimit { .. } => "loopsim's run stops here".into(),
        }
    }

    /// How to fix it.
    pub fn help(&self) -> Option<String> {
        use Diag::*;
        Some(match self {
            TooLarge => "a .loop file describes a program: keep it well under 4 GiB (spans are 32-bit byte offsets)".into(),
            WideEncoding { encoding, bom } => {
                // iconv reads the byte-order mark; without one, it must be told the byte order.
                let family = encoding.split(' ').next().unwrap_or(encoding);
                let order = match (bom, encoding.contains("little")) {
                    (Some(_), _) => "",
                    (None, true) => "LE",
                    (None, false) => "BE",
                };
                format!(
                    "save the file as UTF-8 (in an editor: the file's encoding, UTF-8; or `iconv -f {family}{order} -t UTF-8 OLD > NEW.loop`)"
                )
            }
            BinaryFile { .. } => "a .loop file is UTF-8 text; is this a binary file?".into(),
            InvalidUtf8 { binary: true } => "a .loop file is UTF-8 text, and many of these bytes are control characters: is this a binary file?".into(),
            InvalidUtf8 { binary: false } => "save the file as UTF-8 (in an editor: the file's encoding, UTF-8; or, for a file saved as Windows-1252 or Latin-1, \
                 `iconv -f WINDOWS-1252 -t UTF-8 OLD > NEW.loop`)"
                .into(),
            NulByte => "a .loop file is text; is this a binary file?".into(),
            LoneCr { .. } => "lines end at LF (or CRLF), so a lone CR joins two lines (after `#`, the rest of the file is a comment): \
                 convert the file to LF line endings, e.g. `tr '\\r' '\\n' < OLD > NEW.loop`"
                .into(),
            Syntax { hint, .. } => syntax_hint(*hint),
            UnclosedBlock => "add a `}` to close it".into(),
            UnterminatedString => "close it with `\"` on the same line; a `\"` inside a string is written `\\\"`".into(),
            // `timeout 1 "x" times 3 times 2`: a header part given twice.
            UnknownStatement {
                word, mid_line: true, twice: true, ..
            } if word == "times" || word == "after" => format!("`{word}` is given twice on this line: a header takes one, keep one"),
            // `timeout 1 "x" times`: a header word with its number left out.
            UnknownStatement {
                word, mid_line: true, placeholder, ..
            } if word == "times" || word == "after" => format!(
                "`{word}` takes a number of {}: `{word} 3`{}",
                if word == "times" { "runs" } else { "ticks" },
                if *placeholder { " (`{i}`, `{n}` and `{k}` work only inside strings)" } else { "" }
            ),
            UnknownStatement {
                word, mid_line: true, ..
            } => format!(
                "a label is a string in quotes (`\"{word}\"`): a word after a statement on its line starts another statement"
            ),
            UnknownStatement { suggestion, keywords, .. } => match suggestion {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("a statement starts with one of: {keywords}"),
            },
            Malformed { form, quoted_name: true, .. } => {
                format!("the form is {}: a NAME is a bare word, without quotes", form_text(form))
            }
            Malformed { form, quoted: false, .. } => format!("the form is {}", form_text(form)),
            Malformed { form, quoted: true, .. } => format!(
                "the form is {}; a string takes straight double quotes `\"`, not `“ ”`, `‘ ’`, `'` or backticks",
                form_text(form)
            ),
            Javascript { form: "", note, .. } => note.to_string(),
            Javascript { form, note: "", .. } => format!("in .loop this is written `{form}`"),
            Javascript { form, note, .. } => format!("in .loop this is written `{form}`, {note}"),
            UnknownName { what, suggestion, names, .. } => match suggestion {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("a {what} is one of: {names}"),
            },
            ExpectField { field: "turn" } => "write the turn as a number before the text: `turn 2 \"text\"`".into(),
            ExpectField { field: "at" } => "write the tick as a number before the text: `at 5 \"text\"`".into(),
            ExpectField { .. } => format!(
                "write `limit nextTick` as the block's last line (queues: {})",
                crate::syntax::ast::LimitQueue::NAMES.join(", ")
            ),
            ExpectLine { row: Some(row), .. } if row.is_empty() => {
                "this row of `loopsim run`'s table is a note of the trace, not a log line: leave it out of `expect`".into()
            }
            ExpectLine { row: Some(row), .. } => {
                format!("this is a row of `loopsim run`'s table: as an expect line it is `{row}` (the text alone is enough)")
            }
            ExpectLine { quoted: false, .. } => {
                "an expect line is `[turn N] [at T] [PHASE] \"text\"` (e.g. `turn 2 at 1 timers \"timer\"`), or `limit QUEUE`, `unhandled` or `unsettled` last".into()
            }
            ExpectLine { quoted: true, .. } => "an expect line's text takes straight double quotes, \"like this\", not `“ ”`, `‘ ’`, `'` or backticks".into(),
            SecondExpect => {
                "merge its lines into the first expect block, or write alternatives as `expect { … } or { … }`".into()
            }
            StatementAfterExpect => "move the expect block to the end of the file".into(),
            // (Fresh-clone helper 85: "move this line before that one" for a second `limit` line.)
            AfterLimit { again: true } => "a prediction names one limit, on its last line: delete one of the two `limit` lines".into(),
            AfterLimit { again: false } => "the run stops at the `limit` line above this one: move this line before that one, or delete it".into(),
            DanglingOr => "write each order Node may print in its own block: `expect { \"a\" \"b\" } or { \"b\" \"a\" }`; or delete the `or`".into(),
            RepeatedAlternative => "each alternative is another order Node may print: delete this one or change it".into(),
            DirectiveOrder { text } => {
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                format!("move `{text}` to the top of the file, above the first statement")
            }
            DirectiveTwice { name } => format!("keep one `{name}` line"),
            TooLong { most } => format!(
                "a statement with its blocks and `.then` links, or the expect block, holds at most {} words, numbers, \
                 strings and signs; a new statement starts on a line that begins with a keyword outside every block",
                crate::render::thousands(*most as u64)
            ),
            TooDeep { opener: b'(', most } => format!(
                "blocks and parentheses may nest at most {most} deep; .loop statements take no parentheses (is this JavaScript?)"
            ),
            TooDeep { opener: b'[', most } => format!(
                "blocks and lists may nest at most {most} deep; name an inner list's promise (`promise p = all [ … ]`) and use the name"
            ),
            TooDeep { most, .. } => format!(
                "a file may nest blocks at most {most} deep; use `repeat N` or `again` instead of writing levels out"
            ),
            ExtraNumber { kind } => match kind {
                Kind::Immediate => "an immediate runs in the next check phase; for a delay use `timeout N`".to_string(),
                Kind::Io => "an io event's delay is written `io \"label\" after N`".to_string(),
                Kind::Submit | Kind::Timeout | Kind::Interval => format!("`{}` takes one number", kind.name()),
                _ => format!("`{}` takes no number; for work inside it, write `work N` in its body", kind.name()),
            },
            NotANumber { .. } => "numbers are whole, non-negative ticks, e.g. `4`".into(),
            Negative { .. } => "ticks and counts are whole numbers, 0 or more (Node runs a negative timer delay as 1 ms: for a delay, write `1`)".into(),
            Overflow { .. } => format!("numbers go up to {}", u64::MAX),
            After { kind } => match kind {
                Kind::Timeout | Kind::Interval => format!("a {} already waits its delay: `{} N`", kind.name(), kind.name()),
                Kind::Submit => "a pool job's length is its number: `submit \"job\" N`".into(),
                _ => "for I/O that arrives later, write `io \"label\" after N`".into(),
            },
            ThenLink { .. } => "start the chain with `then \"a\" { … } .then \"b\" { … }`".into(),
            DelayAfterLabel { kind, delay } => format!("write `{} {delay} \"label\"`", kind.name()),
            NoDelay { kind } => format!("write `{} 0 \"label\"` (ticks; 0 becomes 1, as in Node)", kind.name()),
            DelayAboveMax { .. } => {
                "Node does the same, with a TimeoutOverflowWarning (the delay does not fit in 32 bits): write at most 2147483647".into()
            }
            NoTicks => "write `submit \"readFile\" 4 { … }` (a quick fs.stat is `submit 0`)".into(),
            WordForNumber { kind, word, .. } => {
                format!("times are whole ticks: write `{kind} 5 …`; a label is a string: `\"{word}\"`")
            }
            TimesZero => "use `times 1` or more, or delete the statement".into(),
            RepeatZero => "write `repeat 1` or more, or delete the block".into(),
            Escape { .. } => "strings know `\\\"`, `\\\\` and `\\n`; write `\\\\` for a backslash".into(),
            Pool { .. } => "UV_THREADPOOL_SIZE is between 1 and 1024; the default is 4".into(),
            Module { suggestion, .. } => match suggestion {
                Some(s) => format!("did you mean `module {s}`?"),
                None => "write `module cjs` (CommonJS, the default) or `module esm` (ES module)".into(),
            },
            Misplaced { directive: true } => "move it above the first statement, outside any block".into(),
            Misplaced { directive: false } => "move it out of this block, after the last statement".into(),
            AgainOutside => {
                "`again` reschedules the callback it is written in: put it inside a body, e.g. `immediate \"spin\" times 3 { again }`".into()
            }
            AgainInInterval => "an interval re-arms itself; bound it with `interval N \"label\" times K` instead".into(),
            TimesWithoutAgain { times, logs, link, .. } => {
                let again = match logs {
                    // A body replaces the label's own line: it must log it.
                    Some(label) => format!("give it the body `{{ log \"{}\" again }}`", label.replace('"', "\\\"")),
                    None => "add `again` to its body".into(),
                };
                let repeat = if *link {
                    String::new()
                } else {
                    format!("; `repeat {times} {{ … }}` around it schedules {times} now")
                };
                format!("{again} to run it up to {times} times, one after another{repeat}")
            }
            IndexOutsideRepeat => "`{i}` is the index of the innermost enclosing `repeat N { … }`".into(),
            RunOutsideCallback { name } => format!("`{name}` numbers a callback's runs; use it in a callback's label or body"),
            ClearNotClearable { .. } => {
                "`clear` cancels a timeout, an interval or an immediate (clearTimeout, clearInterval, clearImmediate)".into()
            }
            ClearUnknown { .. } => "`clear` names the label of a `timeout`, `interval` or `immediate`; check the spelling".into(),
            TooManyProblems { .. } => "fix the problems listed first, then run again".into(),
            PlaceholderInName { .. } => {
                "a name is one promise or async function; to make one per `repeat` run, declare it inside the `repeat` body (each run of a block makes fresh promises)".into()
            }
            AfterEnding { .. } => "`unhandled` or `unsettled` is the last line of a prediction: move the lines above it".into(),
            RejectionsMode { suggestion, .. } => match suggestion {
                Some(s) => format!("did you mean `rejections {s}`?"),
                None => "write `rejections throw` (Node's default) or `rejections warn` (--unhandled-rejections=warn)".into(),
            },
            UndeclaredName { suggestion, .. } => match suggestion {
                Some(s) => format!("did you mean `{s}`?"),
                None => "declare it first: `promise NAME { … }`, `promise NAME = EXPR` or `async NAME { … }`".into(),
            },
            NotYetDeclared { .. } => {
                "a promise's name is visible from the end of its statement on (as a JavaScript `const`); move the use below it — inside its own executor, write `resolve` or `reject` without a name".into()
            }
            NotInScope { .. } => {
                "a name is visible only in the block that declares it and the blocks inside it: declare it in a block around both".into()
            }
            Redeclared { .. } => "give one of them another name".into(),
            ReservedName { .. } => "choose another word: names become JavaScript identifiers in `emit-js`".into(),
            ResolvingFunctionName { of, .. } => {
                format!("`resolve {of}` outside its executor is emitted with that name: choose another word")
            }
            CallNotAsync { name, .. } => format!("`call` runs an async function; to wait for the promise, write `await {name}`"),
            AsyncAsPromise { name, .. } => format!("write `call {name}` for the promise its call returns"),
            SettleNotExecutor { name, links: true, .. } => format!(
                "with links, `{name}` names the promise the last link returns; declare the executor's promise alone (`promise {name} {{ … }}`) and chain on it with `chain {name} .then …`"
            ),
            SettleNotExecutor { .. } => "only `promise NAME { … }` makes a promise you settle by name".into(),
            ResolveWithItself { .. } => {
                "JavaScript rejects it with a TypeError (\"Chaining cycle detected for promise\"): resolve it with another promise or `value`".into()
            }
            AwaitOutsideAsync { nested: false } => "mark the body `async` (`async NAME { … }`, `… async { … }`), or add `module esm` for a top-level await".into(),
            AwaitOutsideAsync { nested: true } => {
                "each callback is a function of its own: mark this callback's body `async` too (in JavaScript this is a SyntaxError)".into()
            }
            ReturnOutside => "`return` ends an async function or a `.then`/`.catch`/`.finally` handler (or a `then` body)".into(),
            ThrowOutside => "`throw` rejects the promise of an async function, a handler or an executor; elsewhere it would be an uncaught exception".into(),
            TryOutside => "`try { … } catch { … }` catches a `throw` or a rejected `await` in an async function or a handler".into(),
            SettleOutsideExecutor { verb } => format!(
                "without a name, `{verb}` settles the promise of the enclosing `promise {{ … }}`; name the promise (`promise p {{ … }}`) and write `{verb} p`"
            ),
            TopLevelThrow { .. } => {
                "Node ends the process with exit 1 after its module loader's own microtask hops, which loopsim does not model: throw inside an async function instead".into()
            }
            AsyncExecutor => "`new Promise(async …)` is an antipattern (a throw after an await is lost): drop `async`, or use an async function".into(),
            PromisesOnNode10 { directive, .. } => format!(
                "loopsim models promises as V8 ≥ 7.2 (Node ≥ 12) runs them (V8 6.8, in Node 10, took 3 hops per await): {} (`then`, its `.then` links and `microtask` work with both)",
                if *directive { "write `node 20` or later in place of the file's `node 10`" } else { "run with --node 20 or later" }
            ),
            UnknownNode { .. } => "write `node 26` (the active LTS, the default), `node 24`, `node 22`, `node 20` or `node 10`".into(),
            AfterExit { what } => format!("`{what}` leaves the block: delete these statements or move them above it"),
            Limit {
                limit,
                max,
                waiting,
                bounded,
                raised_for,
                site,
                ..
            } => limit_help(*limit, *max, waiting, *bounded, *raised_for, *site),
            PredictionDiffers { note_copied: true, .. } | NeverPrinted { note_copied: true, .. } => {
                "lines marked ⏸ and ▶ are the trace's notes of where an async function suspended and resumed, not log lines: leave them out of `expect`".into()
            }
            PredictionDiffers { text, why, printed, .. } => match why {
                Some(why) => format!("why \"{text}\" ran there: {why}"),
                None => format!(
                    "the run printed {printed} log line{}; `loopsim run --explain` shows why each ran where it did",
                    plural(*printed as u64)
                ),
            },
            PrintedMore { remaining, limit: None, .. } => format!(
                "add the remaining {} line{} to the expect block",
                crate::render::thousands(*remaining as u64),
                plural(*remaining as u64)
            ),
            #[cfg(not(target_family = "wasm"))]
            PrintedMore {
                remaining,
                limit: Some(queue),
                bound: Some(bound),
                ..
            } => format!(
                "the run printed {} more line{} before loopsim stopped it at {bound}, a run that would end: `limit {queue}` predicts that stop after the lines above it, all of them; a smaller run is predicted more easily",
                crate::render::thousands(*remaining as u64),
                plural(*remaining as u64)
            ),
            PrintedMore { remaining, limit: Some(queue), .. } => format!(
                "the run never ends: it printed {} more line{} before a limit stopped it. `limit {queue}` predicts that stop after the lines above it, all of them: bound the chain with `times N`, or let it log nothing",
                crate::render::thousands(*remaining as u64),
                plural(*remaining as u64)
            ),
            NeverPrinted { .. } => "delete this line and those after it, or change the program so that it prints this line".into(),
            WrongLimit { got, .. } => format!("write `limit {got}`"),
            LimitNotHit => "delete the `limit` line: every callback ran".into(),
            StoppedByLimit { got, instead: None } => format!("if that is the point, end the expect block with `limit {got}`"),
            StoppedByLimit { got, instead: Some(ending) } => {
                format!("if that is the point, end the expect block with `limit {got}` in place of `{ending}`")
            }
            WrongEnding { got: Some(got), .. } => format!("end the expect block with `{got}`"),
            WrongEnding { want, got: None } => format!("delete the `{}` line", want.unwrap_or("")),
            NeverPrintedByNode { command, closest: Some(closest) } => {
                format!("no timing of the loop gives it: {closest}; `{command}` lists the orders Node can print")
            }
            NeverPrintedByNode { command, closest: None } => format!(
                "no timing of the loop gives it (every schedule that agrees with it so far was tried); `{command}` lists the orders Node can print"
            ),
            NodeParts { parting, model_at, .. } => format!(
                "no timing of the loop gives this order (every schedule that agrees with it so far was tried): {}; the seed \
                 model's trace first differs from it at line {model_at} (`loopsim run --explain` shows it, and why)",
                parting.closest()
            ),
            NotModelOrder => return None,
            MissingOrder { race, block, others, .. } => {
                let block = block.as_deref().unwrap_or("or { … }");
                let it = match others {
                    0 => "it".to_string(),
                    1 => "it and the other order missing".to_string(),
                    n => format!("it and the {n} other orders missing"),
                };
                // An empty timing is the seed model's own (`loopsim run` prints it).
                if race.is_empty() {
                    format!("it is the seed model's order, the one `loopsim run` prints; add {it} as `{block}`")
                } else {
                    format!("it happens when {race}; add {it} as `{block}`")
                }
            }
            SearchCut { found, .. } => format!(
                "each alternative is an order Node can print, and every order found ({found}) is predicted, but more may exist; `--orders-time-limit SECONDS` gives the search longer"
            ),
            Race {
                count, race, node, command, ..
            } => format!(
                "this trace is the seed model's (a turn lasts a tick); {node} can print {count} orders here, e.g. when {race}; `{command}` lists them"
            ),
            #[cfg(not(target_family = "wasm"))]
            Scale { ticks, fits, .. } => format!(
                "Node would run it 1 ms after it is set, loopsim {ticks} ticks after: use `--scale {fits}` or less for this file"
            ),
            #[cfg(not(target_family = "wasm"))]
            VerifyTooLong {
                ticks,
                ticks_time,
                fits,
                max,
                max_ms,
                endless,
                ..
            } => {
                let (ticks, max_ms) = (crate::render::thousands(*ticks), crate::render::thousands(*max_ms));
                if *endless {
                    "bound each `interval` and `again` chain with `times N` (`loopsim run FILE` names the first that never ends)".into()
                } else if *fits >= 1 {
                    format!(
                        "use a smaller scale: `--scale {fits}` or less keeps one run of these {ticks} ticks within {max}; or make the run shorter"
                    )
                } else {
                    format!(
                        "even `--scale 1` makes one run of these {ticks} ticks last {ticks_time}: make the run shorter (at most {max_ms} ticks fit in {max} at `--scale 1`)"
                    )
                }
            }
            #[cfg(not(target_family = "wasm"))]
            EmitLimit { limit, bounded, .. } => match limit {
                LimitKind::CallDepth => {
                    "the program stops where loopsim does only at the turn and callback limits: stop the recursion, so that loopsim's run ends by itself".into()
                }
                LimitKind::Clock => {
                    "the program stops where loopsim does only at the turn and callback limits: make the `work`, `after` or job ticks smaller, so that loopsim's run ends by itself".into()
                }
                // A chain without `times` filled the trace or the queues
                // first (fresh-clone helper 82: "a lower `repeat` count" for
                // a file without one).
                _ if !bounded => {
                    "the program stops where loopsim does only at the turn and callback limits: bound the chain with `times N`, so that loopsim's run ends by itself".into()
                }
                _ => {
                    "the program stops where loopsim does only at the turn and callback limits: make the scenario smaller (a lower `repeat` count, fewer statements), so that loopsim's run ends by itself".into()
                }
            },
        })
    }

    /// The problem at `span`: an error, or a warning if [`Diag::is_warning`].
    pub fn at(self, span: Span) -> Problem {
        Problem {
            code: self.code().as_str(),
            message: self.message(),
            span,
            label: self.label(),
            help: self.help(),
            warning: self.is_warning(),
            secondary: Vec::new(),
        }
    }
}

/// The help line of each [`SyntaxHint`].
fn syntax_hint(hint: SyntaxHint) -> String {
    let links = "a link is `.then`, `.catch` or `.finally`, after a `then` or a promise";
    let text = match hint {
        SyntaxHint::Link { suggestion: Some(s) } => return format!("did you mean `{s}`? {links}"),
        SyntaxHint::Link { suggestion: None } => links,
        SyntaxHint::OddSpace(c) => {
            let (name, like) = match c {
                '\u{a0}' => ("a no-break space", "a blank"),
                '\u{200b}' => ("a zero-width space", "a blank"),
                '\u{2060}' => ("a word joiner", "a blank"),
                '\u{2028}' => ("a line separator", "a line break"),
                '\u{2029}' => ("a paragraph separator", "a line break"),
                '\u{85}' => ("a next-line character", "a line break"),
                _ => ("a Unicode space", "a blank"),
            };
            let plain = if like == "a blank" { "a plain space" } else { "a plain line break" };
            return format!(
                "U+{:04X} ({name}) looks like {like} but is none here: retype it as {plain}, or delete it (text copied from a web page brings it)",
                c as u32
            );
        }
        // (Fresh-clone helper 85: `timeout １` got "labels and texts are double-quoted".)
        SyntaxHint::WideDigit(c) => return format!("`{c}` (U+{:04X}) is no digit of .loop: numbers take the digits 0 to 9", c as u32),
        SyntaxHint::Fraction => "ticks are whole numbers: write `1` or `2`, not a fraction",
        SyntaxHint::PlaceholderNumber => "`{i}`, `{n}` and `{k}` work only inside strings; a delay or a count is a plain number",
        SyntaxHint::QuotedNumber => {
            "a delay or a count is a plain number, not a string: `timeout 5 \"label\"`, not `timeout \"5\" \"label\"`"
        }
        SyntaxHint::StrayString => "a string here needs a statement before it, e.g. `log \"text\"`",
        SyntaxHint::SecondString => {
            "a statement takes one string: join the two into one, or start the second statement on a line of its own"
        }
        SyntaxHint::ThrowValue => "`throw` takes no value: it throws an Error of its own; `log` the text before it to print it",
        SyntaxHint::StrayNumber => "numbers are whole ticks and follow their keyword: `timeout 5`, `work 3`, `times 2`",
        SyntaxHint::StrayBrace => "this `}` closes no block; delete it or add the `{` it belongs to",
        SyntaxHint::Quote => "labels and texts are double-quoted: \"like this\"",
        SyntaxHint::CurlyQuote => "labels and texts take straight double quotes, \"like this\", not `“ ”`, `‘ ’`, `'` or backticks",
        SyntaxHint::Semicolon => "no `;` in .loop: a statement ends where the next one starts, or at its line's end",
        SyntaxHint::Paren => "no parentheses in .loop: `timeout 0 \"a\"` and `call main`, not `setTimeout(…)`, `timeout(0)` or `main()`",
        SyntaxHint::PromiseCall => {
            return format!(
                "`Promise.…` is JavaScript: in .loop write {}",
                crate::syntax::suggest::PROMISE_EXPRESSIONS
            )
        }
        SyntaxHint::LinkParen => "a link takes its label and block without parentheses: `.then \"b\" { … }`, not `.then(…)`",
        SyntaxHint::BlockComment => "a comment is `#` or `//` to the end of its line; there is no `/* … */`",
        SyntaxHint::Docs => "docs/language.md lists the statement forms; the files under examples/ show them in use",
    };
    text.to_string()
}

/// The message and label of a run stopped by a limit.
fn limit_message(limit: LimitKind, queue: Phase, bounded: bool, site: LimitSite) -> (String, &'static str) {
    match (limit, queue) {
        // `--max-turns 0` or `--max-callbacks 0`: no callback ran, whether
        // the file's callbacks repeat without end or not.
        (LimitKind::Turns | LimitKind::Callbacks, Phase::Main) if !(bounded && site == LimitSite::Statement) => (
            "the limit stopped the run before the loop began".to_string(),
            if site == LimitSite::Statement {
                "the run stopped at this statement"
            } else {
                "the main module ran; no callback did"
            },
        ),
        (LimitKind::Turns | LimitKind::Callbacks, _) if bounded => (
            format!(
                "the run is longer than the {} limit",
                match (limit, site) {
                    (LimitKind::Turns, _) => "turn",
                    (_, LimitSite::Statement) => "statement",
                    _ => "callback",
                }
            ),
            match site {
                LimitSite::LastCallback => "scheduled the last callback",
                LimitSite::Statement => "the run stopped at this statement",
                LimitSite::MainModule => "the main module ran; no callback did",
            },
        ),
        (LimitKind::Output, _) => (
            "the run prints more lines than a trace can hold".to_string(),
            "this line was one too many",
        ),
        (LimitKind::LogBytes, _) => (
            "the run prints more log text than a trace can hold".to_string(),
            "this line was one too many",
        ),
        (LimitKind::Waiting, _) => (
            "too many callbacks are waiting at once".to_string(),
            "schedules more than the run can hold",
        ),
        (LimitKind::LabelBytes, _) => (
            "the callbacks' labels take more memory than a run holds".to_string(),
            "makes a new label for every callback",
        ),
        (LimitKind::Promises, _) => (
            "the run makes more promises than it can hold".to_string(),
            "made one promise too many",
        ),
        (LimitKind::CallDepth, _) => ("async functions call each other too deep".to_string(), "this call was one too deep"),
        (LimitKind::Clock, _) => (
            "the clock ran past the largest time it holds exactly".to_string(),
            // Else the loop waited past it, for a timer or a completion.
            match site {
                LimitSite::Statement => "took the clock there",
                LimitSite::MainModule => "the main module ran; the loop then waited past that time",
                LimitSite::LastCallback => "ran last; the loop then waited past that time",
            },
        ),
        (LimitKind::Callbacks, Phase::NextTick) => (
            "the nextTick queue never empties: the loop is starved".to_string(),
            "feeds the nextTick queue",
        ),
        (LimitKind::Callbacks, Phase::Microtask) => (
            "the microtask queue never empties: the loop is starved".to_string(),
            "feeds the microtask queue",
        ),
        (_, Phase::Check) => (
            "the check queue is refilled every turn: the run never ends".to_string(),
            "feeds the check queue",
        ),
        (_, Phase::Timers) => ("the timers keep re-arming: the run never ends".to_string(), "feeds the timers"),
        // The poll, pending and close phases (an endless `io`, `submit`,
        // `pending` or `close` chain), and a queue a turn limit stopped.
        (_, phase) => (
            format!(
                "the {phase} {} gets callbacks without end: the run never ends",
                if matches!(phase, Phase::NextTick | Phase::Microtask) {
                    "queue"
                } else {
                    "phase"
                }
            ),
            match phase {
                Phase::Poll => "feeds the poll phase",
                Phase::Pending => "feeds the pending phase",
                Phase::Close => "feeds the close phase",
                Phase::NextTick => "feeds the nextTick queue",
                Phase::Microtask => "feeds the microtask queue",
                _ => "scheduled the last callback",
            },
        ),
    }
}

/// "s" but for one: "1 turn", "2 turns".
fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// How a directive's form ends ([`crate::syntax::suggest::form`]).
const AT_THE_TOP: &str = ", at the top of the file";

/// A statement's or directive's form as a help shows it: the form in
/// backticks, a directive's place after them ("`pool N`, at the top of the
/// file").
fn form_text(form: &str) -> String {
    match form.strip_suffix(AT_THE_TOP) {
        Some(form) => format!("`{form}`{AT_THE_TOP}"),
        None => format!("`{form}`"),
    }
}

/// What a run stopped by `limit` (of `max`) reached: "2,000,000 log lines".
pub(crate) fn limit_reached(limit: LimitKind, max: u64) -> String {
    let n = crate::render::thousands(max);
    match limit {
        LimitKind::Turns => format!("{n} turn{}", plural(max)),
        LimitKind::Callbacks => format!("{n} callback{} or statement{0}", plural(max)),
        LimitKind::Output => format!("{n} log lines (the most a trace holds)"),
        LimitKind::LogBytes => format!("{} MiB of log text (the most a trace holds)", max >> 20),
        LimitKind::Waiting => format!("more than {n} waiting callbacks (the most a run holds)"),
        LimitKind::LabelBytes => format!("{} MiB of labels (the most a run holds)", max >> 20),
        LimitKind::Promises => format!("more than {n} promises, reactions or scopes (the most a run holds)"),
        LimitKind::CallDepth => format!("{max} nested calls of async functions, executors and handlers"),
        LimitKind::Clock => format!("{n} ticks on the clock"),
    }
}

/// The help of a run stopped by a limit: what was left waiting, where it stopped,
/// what to do. The bound on statements run stops the callback limit's run
/// at a statement (`site`): ten times `--max-callbacks` (fresh-clone helper
/// 85: "50,000,000 callbacks or statements (--max-callbacks)" where that
/// limit was 5,000,000).
fn limit_help(limit: LimitKind, max: u64, waiting: &str, bounded: bool, raised_for: Option<u64>, site: LimitSite) -> String {
    let source = crate::bound::limit_source(limit, max, bounded, raised_for);
    let n = crate::render::thousands(max);
    let stopped = match limit {
        LimitKind::Callbacks if site == LimitSite::Statement => {
            format!("stopped after {n} statements (ten times the callback limit; --max-callbacks)")
        }
        LimitKind::Turns | LimitKind::Callbacks => format!(
            "stopped after {n} {}{} ({source})",
            if limit == LimitKind::Turns { "turn" } else { "callback" },
            plural(max)
        ),
        // The other bounds as `limit_reached` words them, with what to know of some.
        _ => format!(
            "stopped at {}{}",
            limit_reached(limit, max),
            match limit {
                LimitKind::LabelBytes => ": a `{i}` makes a new one for each callback",
                LimitKind::CallDepth => " (the most loopsim follows)",
                LimitKind::Clock => " (2^53 - 1 ms, the largest integer a JavaScript number holds exactly)",
                _ => "",
            }
        ),
    };
    let advice = match limit {
        // A chain without `times` fills the trace or the queues: the note
        // before the trace names it (fresh-clone helper 81: "make the
        // scenario smaller" for `nextTick "spin" { log "spin" again }`).
        LimitKind::Output | LimitKind::LogBytes | LimitKind::Waiting | LimitKind::LabelBytes if !bounded => {
            "A chain without `times` repeats until a bound stops it: bound it with `times N`"
        }
        LimitKind::Output | LimitKind::LogBytes | LimitKind::Waiting | LimitKind::LabelBytes | LimitKind::Promises => {
            "This bound keeps memory in check: make the scenario smaller"
        }
        LimitKind::CallDepth => "An async function that calls itself (or a chain of them that calls back) without end stops here: stop the recursion; a chain this deep that ends is beyond what loopsim follows",
        LimitKind::Clock => "Make the `work`, `after` or job ticks smaller: past this, due ticks are no longer exact",
        LimitKind::Turns | LimitKind::Callbacks if bounded => {
            "Nothing here repeats without end, but the run is longer than this limit: raise it, or lower a `times` or a `repeat` count"
        }
        LimitKind::Turns | LimitKind::Callbacks => "Bound the chain with `times N`, or raise the limit if the run is meant to be this long",
    };
    format!("{waiting}; {stopped}. {advice}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::IntoEnumIterator;

    #[test]
    fn codes_are_the_stable_loop_codes() {
        let codes: Vec<&str> = Code::iter().map(Code::as_str).collect();
        assert_eq!(
            codes[..4],
            ["loop::too-large", "loop::encoding", "loop::line-endings", "loop::syntax"]
        );
        assert!(codes.contains(&"loop::unclosed-block"));
        assert!(codes.contains(&"loop::verify-too-long"));
        assert_eq!(Code::TooManyProblems.as_str(), CUT);
        let mut unique = codes.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), codes.len());
    }

    #[test]
    fn a_diagnostic_is_built_from_its_kind() {
        let p = Diag::NoDelay { kind: Kind::Timeout }.at(Span::new(3, 10));
        assert_eq!(p.code, "loop::delay");
        assert_eq!(p.message, "`timeout` needs a delay");
        assert_eq!(p.label, "no delay");
        assert_eq!(
            p.help.as_deref(),
            Some("write `timeout 0 \"label\"` (ticks; 0 becomes 1, as in Node)")
        );
        assert!(!p.warning);
        assert!(Diag::ClearUnknown { label: "x".into() }.at(Span::new(0, 1)).warning);
    }
}
