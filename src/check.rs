//! Semantic checks after parsing: placement of `again`, `{i}`, `{n}`, `{k}`,
//! and `clear` of labels that nothing schedules. All problems at once.

use crate::problem::Problem;
use crate::syntax::ast::*;

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
        if self.clearable.iter().any(|l| may_match(l, text)) {
            return;
        }
        let shown = text.to_string();
        let p = match self.other.iter().find(|(l, _)| may_match(l, text)) {
            Some((_, kind)) => Problem::warning(
                "loop::clear",
                text.span,
                format!("`clear` cannot cancel a `{}` callback", kind.name()),
                "not a timer or immediate",
            )
            .help("`clear` cancels a timeout, an interval or an immediate (clearTimeout, clearInterval, clearImmediate)"),
            None => Problem::warning(
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

/// Whether a label template and a `clear` template can produce the same text:
/// placeholders match any run of digits.
fn may_match(label: &Text, clear: &Text) -> bool {
    let pattern = |t: &Text| -> Vec<Option<char>> {
        let mut out = Vec::new();
        for part in &t.parts {
            match part {
                TextPart::Lit(s) => out.extend(s.chars().map(Some)),
                _ => out.push(None),
            }
        }
        out
    };
    glob_match(&pattern(label), &pattern(clear))
}

/// Two patterns of literal chars and digit-run wildcards (`None`) can match
/// a common string. Wildcards match one or more digits.
fn glob_match(a: &[Option<char>], b: &[Option<char>]) -> bool {
    let (n, m) = (a.len(), b.len());
    // reach[i][j]: a[..i] and b[..j] can produce the same string.
    let mut reach = vec![vec![false; m + 1]; n + 1];
    reach[0][0] = true;
    for i in 0..=n {
        for j in 0..=m {
            if !reach[i][j] {
                continue;
            }
            match (a.get(i), b.get(j)) {
                (Some(Some(x)), Some(Some(y))) if x == y => reach[i + 1][j + 1] = true,
                (Some(None), Some(Some(y))) if y.is_ascii_digit() => {
                    reach[i + 1][j + 1] = true;
                    reach[i][j + 1] = true;
                }
                (Some(Some(x)), Some(None)) if x.is_ascii_digit() => {
                    reach[i + 1][j + 1] = true;
                    reach[i + 1][j] = true;
                }
                (Some(None), Some(None)) => {
                    reach[i + 1][j + 1] = true;
                }
                _ => {}
            }
        }
    }
    reach[n][m]
}
