//! Semantic checks: every rule about what a parsed `.loop` file means, as
//! plain functions over facts (spans, numbers as written, kinds). The parser
//! (`syntax/build.rs`) only turns pest's pairs into the AST and reports what
//! the grammar refuses; where a rule needs what only the builder sees (a
//! number that did not parse, the order of items in a chunk, a text's
//! escapes), the builder calls the rule's function as it builds, and those
//! problems are shown with the syntax errors, in source order. The rules
//! about the whole tree run after parsing, in [`check`], only when parsing
//! found no error.
//!
//! | code | rule | file | runs |
//! |------|------|------|------|
//! | `loop::number` | an integer: not `1.5`, not negative, fits in 64 bits; no extra number in a header | `numbers.rs` | while building |
//! | `loop::pool` | `pool` is 1 to 1024 threads | `numbers.rs` | while building |
//! | `loop::times` | `times 0` | `numbers.rs` | while building |
//! | `loop::delay` | a timer's delay is there, before the label | `numbers.rs` | while building |
//! | `loop::delay` | a timer's delay above 2147483647, which Node sets to 1 (warning) | `numbers.rs` | after parsing |
//! | `loop::ticks` | `submit`'s ticks are there | `numbers.rs` | while building |
//! | `loop::delay`, `loop::ticks` | a word where the number goes (`timeout soon "t"`) | `numbers.rs` ([`numbers::merge_missing_numbers`]) | while building, after each chunk |
//! | `loop::after` | `after N` only on `io` | `clauses.rs` | while building |
//! | `loop::then` | `.then`/`.catch`/`.finally` only on `then` | `clauses.rs` | while building |
//! | `loop::escape` | only `\"`, `\\`, `\n` escapes | `texts.rs` | while building |
//! | `loop::placeholder` | no `{i}`/`{n}`/`{k}` on a promise or function name | `texts.rs` | while building |
//! | `loop::placeholder` | `{i}` inside a `repeat`, `{n}`/`{k}` inside a callback | `texts.rs` | after parsing |
//! | `loop::directive-order` | directives before statements | `order.rs` | while building (and across chunks) |
//! | `loop::directive` | each directive once | `order.rs` | while building |
//! | `loop::expect` | one expect block, after the statements; nothing after its ending or `limit` line | `order.rs` | while building (and across chunks) |
//! | `loop::expect` | an `or` block that repeats an earlier alternative (warning) | `alternatives.rs` | after parsing |
//! | `loop::module`, `loop::rejections`, `loop::unknown-name` | known `module`, `rejections` mode, `limit` queue, expect phase | `names.rs` | while building |
//! | `loop::again` | `again` inside a callback, not an `interval` | `again.rs` | after parsing |
//! | `loop::clear` | `clear` of a label a clearable callback may have (warning) | `clear.rs` | after parsing |
//! | `loop::undeclared`, `loop::redeclared`, `loop::reserved-name`, `loop::name-use`, `loop::context`, `loop::async-executor`, `loop::unreachable` | promise and function names, slots, contexts | `promises.rs` | after parsing |
//! | `loop::node-version` | the promise language against `--node 10` | `promises.rs` | before `run`, `emit-js`, `verify` (`cli.rs`) |
//!
//! Grammar-level errors (unknown statement, unterminated string, a malformed
//! statement, a directive inside a block, a block nested too deeply, an item
//! too long, a bad expect line) stay in `syntax/`.

use crate::problem::{Kept, Problem};
use crate::syntax::ast::*;

pub mod again;
pub(crate) mod alternatives;
pub mod clauses;
mod clear;
pub mod names;
pub mod numbers;
pub mod order;
pub mod promises;
pub mod texts;

/// Where a statement stands.
#[derive(Clone, Copy, Default)]
struct Scope {
    /// The innermost callback kind, if inside a callback body.
    callback: Option<Kind>,
    /// Inside a `repeat` body (here or in an enclosing scope).
    repeat: bool,
}

/// Checks a parsed file. Errors and warnings, in source order: the first
/// [`crate::problem::MAX_KEPT`] of them (and the first error), then a note
/// counting the others ([`Kept`]).
pub fn check(file: &File) -> Vec<Problem> {
    let mut checker = Checker {
        body: &file.body,
        ..Checker::default()
    };
    for p in file.expect.iter().flat_map(alternatives::repeated) {
        checker.problems.push(p);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if file.body.len() < PARALLEL_FROM || cores < 2 {
        checker.block(&file.body, Scope::default());
        promises::check(file, &mut checker.problems);
        return checker.problems.into_sorted();
    }
    // The promise checks on a thread of their own, beside the others; their
    // problems are then kept or counted as if pushed after the others'.
    let mut promise_problems = Kept::default();
    std::thread::scope(|scope| {
        scope.spawn(|| promises::check(file, &mut promise_problems));
        checker.block(&file.body, Scope::default());
    });
    checker.problems.append(promise_problems);
    checker.problems.into_sorted()
}

/// Top-level statements from which [`check`] runs the promise checks on a
/// second thread (when there is a second core): below it a thread costs
/// more than it saves.
const PARALLEL_FROM: usize = 4096;

#[derive(Default)]
struct Checker<'a> {
    problems: Kept,
    /// The labels `clear` may cancel: collected from `body` at the first
    /// `clear` (a file without one needs none).
    labels: clear::Labels<'a>,
    body: &'a [Stmt],
    collected: bool,
    /// One entry per body being walked that `again` would schedule once more
    /// (a callback's, a link's, a handler's, an async function's): whether
    /// an `again` was met in it, outside the callbacks inside it.
    agains: Vec<bool>,
}

impl<'a> Checker<'a> {
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
                if !self.collected {
                    self.collected = true;
                    self.labels.collect_labels(self.body, false);
                }
                self.labels.clear(text, &mut self.problems);
            }
            StmtKind::Repeat { count, body } => {
                if let Some(p) = numbers::repeat(*count) {
                    self.problems.push(p);
                }
                self.block(body, Scope { repeat: true, ..scope })
            }
            StmtKind::Again => self.again(stmt.span, scope),
            StmtKind::Callback(cb) => self.callback(cb, scope),
            other => self.promise_statement(other, scope),
        }
    }

    /// The blocks and labels of a promise statement (`check/promises.rs`
    /// checks names and contexts): an async function's body is no callback;
    /// a handler's is one as a `then` is; an executor, `try` and `catch`
    /// run in the code around them.
    fn promise_statement(&mut self, kind: &StmtKind, scope: Scope) {
        let handler = Scope {
            callback: Some(Kind::Then),
            ..scope
        };
        promise_parts(kind, &mut |part| match part {
            Part::Label(text) => self.text(text, handler),
            Part::Link(link) => self.link(link, Kind::Then, handler),
            Part::Body(role, body) => match role {
                BodyRole::AsyncFn | BodyRole::Listener => {
                    self.again_scope(body, Scope { callback: None, ..scope });
                }
                // The code around them: an `again` there is the callback's.
                BodyRole::Executor | BodyRole::Try | BodyRole::Catch => self.block(body, scope),
            },
        });
    }

    fn callback(&mut self, cb: &Callback, scope: Scope) {
        if let Some(p) = numbers::delay_above_max(cb.kind, cb.amount()) {
            self.problems.push(p);
        }
        if let Some(label) = cb.label() {
            // {n} and {k} in a label refer to the callback's own runs.
            self.text(
                label,
                Scope {
                    callback: Some(cb.kind),
                    ..scope
                },
            );
        }
        let inner = Scope {
            callback: Some(cb.kind),
            ..scope
        };
        let again = self.again_scope(cb.body().unwrap_or_default(), inner);
        let logs = cb.label().filter(|_| cb.body().is_none());
        if let Some(p) = again::times_without_again(cb.kind.name(), cb.kind, cb.times(), again, logs, false) {
            self.problems.push(p);
        }
        for link in cb.links() {
            self.link(link, cb.kind, inner);
        }
    }

    /// A `.then`/`.catch`/`.finally` link (of a `then` chain, whose head is
    /// of kind `kind`, or of a promise expression): its label, its body, and
    /// a `times` its body's `again` would bound.
    fn link(&mut self, link: &Link, kind: Kind, inner: Scope) {
        if let Some(label) = &link.label {
            self.text(label, inner);
        }
        let again = self.again_scope(link.body.as_deref().unwrap_or_default(), inner);
        let name = link.kind.dotted();
        let logs = link.label.as_ref().filter(|_| link.body.is_none());
        if let Some(p) = again::times_without_again(name, kind, link.times, again, logs, true) {
            self.problems.push(p);
        }
    }

    /// Walks a body that `again` inside it would schedule once more;
    /// whether it has an `again` of its own.
    fn again_scope(&mut self, body: &[Stmt], scope: Scope) -> bool {
        self.agains.push(false);
        self.block(body, scope);
        self.agains.pop().unwrap_or(false)
    }

    fn again(&mut self, span: Span, scope: Scope) {
        if let Some(seen) = self.agains.last_mut() {
            *seen = true;
        }
        if let Some(p) = again::again(scope.callback, span) {
            self.problems.push(p);
        }
    }

    fn text(&mut self, text: &Text, scope: Scope) {
        let problems = &mut self.problems;
        texts::placeholders(text, scope.repeat, scope.callback.is_some(), &mut |p| problems.push(p));
    }
}
