//! Semantic checks after parsing: placement of `again`, `{i}`, `{n}`, `{k}`,
//! and `clear` of labels that nothing schedules. All problems at once.

use crate::problem::Problem;
use crate::syntax::ast::*;
use std::collections::HashMap;

/// Where a statement stands.
#[derive(Clone, Copy, Default)]
struct Scope {
    /// The innermost callback kind, if inside a callback body.
    callback: Option<Kind>,
    /// Inside a `repeat` body (here or in an enclosing scope).
    repeat: bool,
}

/// Checks a parsed file. Errors and warnings, in source order.
pub fn check(file: &File) -> Vec<Problem> {
    let mut checker = Checker::default();
    checker.collect_labels(&file.body, false);
    checker.block(&file.body, Scope::default());
    let mut problems = checker.problems;
    problems.sort_by_key(|p| (p.span.start(), p.span.end()));
    problems
}

#[derive(Default)]
struct Checker {
    problems: Vec<Problem>,
    /// Labels of clearable callbacks (timeout, interval, immediate).
    clearable: Vec<Text>,
    /// Labels of other callbacks.
    other: Vec<(Text, Kind)>,
    /// Both, indexed for `clear` (built at the first `clear`).
    index: Option<LabelIndex>,
}

impl Checker {
    fn collect_labels(&mut self, stmts: &[Stmt], _nested: bool) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Repeat { body, .. } => self.collect_labels(body, true),
                StmtKind::Callback(cb) => {
                    if let Some(label) = &cb.label {
                        match cb.kind.value {
                            Kind::Timeout | Kind::Interval | Kind::Immediate => self.clearable.push(label.clone()),
                            k => self.other.push((label.clone(), k)),
                        }
                    }
                    if let Some(body) = &cb.body {
                        self.collect_labels(body, true);
                    }
                    for link in &cb.links {
                        if let Some(body) = &link.body {
                            self.collect_labels(body, true);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt], scope: Scope) {
        for stmt in stmts {
            self.statement(stmt, scope);
        }
    }

    fn statement(&mut self, stmt: &Stmt, scope: Scope) {
        match &stmt.kind {
            StmtKind::Log(text) => self.text(text, scope),
            StmtKind::Work(_) => {}
            StmtKind::Clear(text) => {
                self.text(text, scope);
                self.clear(text);
            }
            StmtKind::Repeat { body, .. } => self.block(body, Scope { repeat: true, ..scope }),
            StmtKind::Again => self.again(stmt.span, scope),
            StmtKind::Callback(cb) => self.callback(cb, scope),
        }
    }

    fn callback(&mut self, cb: &Callback, scope: Scope) {
        if let Some(label) = &cb.label {
            // {n} and {k} in a label refer to the callback's own runs.
            self.text(
                label,
                Scope {
                    callback: Some(cb.kind.value),
                    ..scope
                },
            );
        }
        let inner = Scope {
            callback: Some(cb.kind.value),
            ..scope
        };
        if let Some(body) = &cb.body {
            self.block(body, inner);
        }
        for link in &cb.links {
            if let Some(label) = &link.label {
                self.text(label, inner);
            }
            if let Some(body) = &link.body {
                self.block(body, inner);
            }
        }
    }

    fn again(&mut self, span: Span, scope: Scope) {
        match scope.callback {
            None => self.problems.push(
                Problem::error("loop::again", span, "`again` outside a callback", "no callback to repeat").help(
                    "`again` reschedules the callback it is written in: put it inside a body, e.g. `immediate \"spin\" times 3 { again }`",
                ),
            ),
            Some(Kind::Interval) => self.problems.push(
                Problem::error("loop::again", span, "`again` inside an interval", "the interval already repeats")
                    .help("an interval re-arms itself; bound it with `interval N \"label\" times K` instead"),
            ),
            Some(_) => {}
        }
    }

    fn text(&mut self, text: &Text, scope: Scope) {
        if text.uses(&TextPart::Index) && !scope.repeat {
            self.problems.push(
                Problem::error("loop::placeholder", text.span, "`{i}` outside a `repeat`", "no repeat index here")
                    .help("`{i}` is the index of the innermost enclosing `repeat N { … }`"),
            );
        }
        for (part, name) in [(TextPart::Run, "{n}"), (TextPart::Count, "{k}")] {
            if text.uses(&part) && scope.callback.is_none() {
                self.problems.push(
                    Problem::error(
                        "loop::placeholder",
                        text.span,
                        format!("`{name}` outside a callback"),
                        "the main module is not a callback",
                    )
                    .help(format!("`{name}` numbers a callback's runs; use it in a callback's label or body")),
                );
            }
        }
    }

    fn clear(&mut self, text: &Text) {
        let index = self.index.get_or_insert_with(|| LabelIndex::new(&self.clearable, &self.other));
        let clear = Pattern::of(text);
        let found = match index.seen.get(&clear.tokens) {
            Some(&found) => found,
            None => {
                let found = index.find(&clear);
                index.seen.insert(clear.tokens, found);
                found
            }
        };
        let shown = text.to_string();
        let p = match found {
            Found::Clearable => return,
            Found::Other(kind) => Problem::warning(
                "loop::clear",
                text.span,
                format!("`clear` cannot cancel a `{}` callback", kind.name()),
                "not a timer or immediate",
            )
            .help("`clear` cancels a timeout, an interval or an immediate (clearTimeout, clearInterval, clearImmediate)"),
            Found::None => Problem::warning(
                "loop::clear",
                text.span,
                format!("no timeout, interval or immediate is labelled \"{shown}\""),
                "never scheduled",
            )
            .help("`clear` names the label of a `timeout`, `interval` or `immediate`; check the spelling"),
        };
        self.problems.push(p);
    }
}

/// Most steps (pattern comparisons and digit comparisons) the check of `clear`
/// labels takes over a whole file; past it, a `clear` not yet matched is
/// assumed to name a scheduled label (no warning). Keeps hostile files (many
/// labels, many clears, long digit runs) within milliseconds.
pub const MAX_CLEAR_CHECK_STEPS: u64 = 20_000_000;

/// What a `clear` label may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// A timeout, interval or immediate label (or the step budget ran out).
    Clearable,
    /// Only the label of another kind of callback (the first in the file).
    Other(Kind),
    /// Nothing.
    None,
}

/// One character of a label template: a literal or a placeholder (`{i}`,
/// `{n}`, `{k}`: one or more digits once filled in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Tok {
    Char(char),
    Digits,
}

impl Tok {
    fn digitish(self) -> bool {
        match self {
            Tok::Char(c) => c.is_ascii_digit(),
            Tok::Digits => true,
        }
    }
}

/// A label template split for matching: its skeleton (the characters that are
/// not digits, with one marker per run of digits and placeholders) and those
/// runs. Two templates can produce a common text only if their skeletons are
/// equal and each pair of runs can produce a common string of digits.
struct Pattern {
    tokens: Vec<Tok>,
    skeleton: String,
    runs: Vec<Vec<Tok>>,
}

/// Stands for a run of digits in a skeleton (a `.loop` file holds no NUL byte).
const RUN: char = '\0';

impl Pattern {
    fn of(text: &Text) -> Pattern {
        let mut tokens = Vec::new();
        for part in &text.parts {
            match part {
                TextPart::Lit(s) => tokens.extend(s.chars().map(Tok::Char)),
                _ => tokens.push(Tok::Digits),
            }
        }
        let (mut skeleton, mut runs) = (String::new(), Vec::new());
        let mut run: Vec<Tok> = Vec::new();
        for &t in &tokens {
            match t {
                Tok::Char(c) if !t.digitish() => {
                    if !run.is_empty() {
                        runs.push(std::mem::take(&mut run));
                        skeleton.push(RUN);
                    }
                    skeleton.push(c);
                }
                _ => run.push(t),
            }
        }
        if !run.is_empty() {
            runs.push(run);
            skeleton.push(RUN);
        }
        Pattern { tokens, skeleton, runs }
    }

    fn literal(&self) -> bool {
        !self.tokens.contains(&Tok::Digits)
    }
}

/// One distinct label template of the file.
struct Entry {
    pattern: Pattern,
    /// Some timeout, interval or immediate has it.
    clearable: bool,
    /// The first other callback that has it: its place among them, its kind.
    other: Option<(usize, Kind)>,
}

/// The label templates of a file by skeleton, each once, for `clear`.
struct LabelIndex {
    buckets: HashMap<String, Bucket>,
    /// Each `clear` template already looked up.
    seen: HashMap<Vec<Tok>, Found>,
    /// Steps left ([`MAX_CLEAR_CHECK_STEPS`]).
    steps: u64,
}

/// The templates of one skeleton: literal ones found by their text.
#[derive(Default)]
struct Bucket {
    entries: Vec<Entry>,
    by_tokens: HashMap<Vec<Tok>, usize>,
}

impl LabelIndex {
    fn new(clearable: &[Text], other: &[(Text, Kind)]) -> LabelIndex {
        let mut buckets: HashMap<String, Bucket> = HashMap::new();
        let all = clearable
            .iter()
            .map(|t| (t, None))
            .chain(other.iter().enumerate().map(|(i, (t, k))| (t, Some((i, *k)))));
        for (text, other) in all {
            let pattern = Pattern::of(text);
            let bucket = buckets.entry(pattern.skeleton.clone()).or_default();
            let i = match bucket.by_tokens.get(&pattern.tokens) {
                Some(&i) => i,
                None => {
                    bucket.by_tokens.insert(pattern.tokens.clone(), bucket.entries.len());
                    bucket.entries.push(Entry {
                        pattern,
                        clearable: false,
                        other: None,
                    });
                    bucket.entries.len() - 1
                }
            };
            let entry = &mut bucket.entries[i];
            match other {
                None => entry.clearable = true,
                Some(o) => entry.other = entry.other.or(Some(o)),
            }
        }
        LabelIndex {
            buckets,
            seen: HashMap::new(),
            steps: MAX_CLEAR_CHECK_STEPS,
        }
    }

    /// What the `clear` template may name: a clearable label first, else the
    /// first other callback's label.
    fn find(&mut self, clear: &Pattern) -> Found {
        let Some(bucket) = self.buckets.get(&clear.skeleton) else {
            return Found::None;
        };
        let mut best: Option<(usize, Kind)> = None;
        let exact = bucket.by_tokens.get(&clear.tokens).map(|&i| &bucket.entries[i]);
        if let Some(e) = exact {
            if e.clearable {
                return Found::Clearable;
            }
            best = e.other;
        }
        for e in &bucket.entries {
            // A literal template matches a literal clear only exactly (above).
            let worth = e.clearable || e.other.is_some_and(|(i, _)| best.is_none_or(|(b, _)| i < b));
            if !worth || (clear.literal() && e.pattern.literal()) {
                continue;
            }
            if !spend(&mut self.steps, 1) {
                return Found::Clearable;
            }
            match runs_match(&e.pattern.runs, &clear.runs, &mut self.steps) {
                None => return Found::Clearable,
                Some(false) => {}
                Some(true) if e.clearable => return Found::Clearable,
                Some(true) => best = e.other,
            }
        }
        best.map_or(Found::None, |(_, kind)| Found::Other(kind))
    }
}

/// Takes `n` steps from the budget; `false` when it is spent.
fn spend(steps: &mut u64, n: u64) -> bool {
    match steps.checked_sub(n) {
        Some(left) => {
            *steps = left;
            true
        }
        None => {
            *steps = 0;
            false
        }
    }
}

/// Whether two templates of the same skeleton can produce the same text: run
/// by run. `None` when the step budget ran out.
fn runs_match(a: &[Vec<Tok>], b: &[Vec<Tok>], steps: &mut u64) -> Option<bool> {
    for (x, y) in a.iter().zip(b) {
        if !run_match(x, y, steps)? {
            return Some(false);
        }
    }
    Some(true)
}

/// Whether two runs of digits and placeholders (each placeholder one or more
/// digits) can produce the same string of digits. `None`: out of steps.
fn run_match(a: &[Tok], b: &[Tok], steps: &mut u64) -> Option<bool> {
    let wild = |r: &[Tok]| r.contains(&Tok::Digits);
    match (wild(a), wild(b)) {
        (false, false) => Some(a == b),
        // Both have a placeholder: the digits before the first one must agree,
        // and those after the last one; placeholders absorb everything between.
        (true, true) => {
            let head = |r: &[Tok]| r.iter().take_while(|&&t| t != Tok::Digits).count();
            let tail = |r: &[Tok]| r.iter().rev().take_while(|&&t| t != Tok::Digits).count();
            let (ha, hb, ta, tb) = (head(a), head(b), tail(a), tail(b));
            let h = ha.min(hb);
            let t = ta.min(tb);
            Some(a[..h] == b[..h] && a[a.len() - t..] == b[b.len() - t..])
        }
        (true, false) => glob_digits(a, b, steps),
        (false, true) => glob_digits(b, a, steps),
    }
}

/// Whether the pattern `p` (digits and placeholders) matches the digit string
/// `s`: dynamic programming over one row, `|p| × |s|` steps.
fn glob_digits(p: &[Tok], s: &[Tok], steps: &mut u64) -> Option<bool> {
    if !spend(steps, (p.len() as u64).saturating_mul(s.len() as u64 + 1)) {
        return None;
    }
    // row[j]: p[..i] matches s[..j].
    let mut row = vec![false; s.len() + 1];
    let mut next = vec![false; s.len() + 1];
    row[0] = true;
    for &t in p {
        next[0] = false;
        for j in 1..=s.len() {
            next[j] = match t {
                // One more digit for this placeholder, or its first one.
                Tok::Digits => next[j - 1] || row[j - 1],
                c => row[j - 1] && c == s[j - 1],
            };
        }
        std::mem::swap(&mut row, &mut next);
    }
    Some(row[s.len()])
}
