//! pest pairs → AST for the promise language (docs/language.md, "Promises
//! and async functions"): the statements `async`, `call`, `await`,
//! `promise`, `chain`, `resolve`, `reject`, `return`, `throw`, `try`, `on`,
//! expressions, and the `rejections` directive. A child of the builder (it
//! extends [`Builder`]); the checks of names and contexts are in
//! `check/promises.rs`, the rules it applies while building in `check/`.

use super::*;

/// The grammar rules of the promise language's statements: the builder hands
/// them to [`Builder::promise_statement`]; syntax errors name them "a statement".
pub(crate) const PROMISE_STATEMENTS: [Rule; 11] = [
    Rule::async_def,
    Rule::call_stmt,
    Rule::await_stmt,
    Rule::chain_stmt,
    Rule::promise_stmt,
    Rule::resolve_stmt,
    Rule::reject_stmt,
    Rule::return_stmt,
    Rule::throw_stmt,
    Rule::try_stmt,
    Rule::on_stmt,
];

impl Builder {
    /// A statement of the promise language, from its rule and parts.
    pub(super) fn promise_statement(&mut self, rule: Rule, mut inner: pest::iterators::Pairs<Rule>) -> Option<StmtKind> {
        // Every rule starts with its keyword.
        let _keyword = inner.next()?;
        Some(match rule {
            Rule::async_def => {
                let name = Box::new(self.name(inner.next()?));
                let body = self.statements(inner.next()?);
                StmtKind::AsyncDef { name, body }
            }
            Rule::call_stmt => StmtKind::Call(Box::new(self.name(inner.next()?))),
            Rule::await_stmt => StmtKind::Await(Box::new(self.expr(inner.next()?))),
            Rule::chain_stmt => StmtKind::Chain(Box::new(self.expr(inner.next()?))),
            Rule::promise_stmt => StmtKind::Promise(Box::new(self.promise(inner)?)),
            Rule::resolve_stmt => {
                let (mut target, mut with) = (None, None);
                for part in inner {
                    match part.as_rule() {
                        Rule::name => target = Some(Box::new(self.name(part))),
                        Rule::expr => with = Some(Box::new(self.expr(part))),
                        _ => {}
                    }
                }
                StmtKind::Resolve { target, with }
            }
            Rule::reject_stmt => StmtKind::Reject {
                target: inner.next().map(|p| Box::new(self.name(p))),
            },
            Rule::return_stmt => StmtKind::Return(inner.next().map(|p| Box::new(self.expr(p)))),
            Rule::throw_stmt => StmtKind::Throw,
            Rule::try_stmt => {
                let body = self.statements(inner.next()?);
                let _catch = inner.next()?;
                let catch = self.statements(inner.next()?);
                StmtKind::Try { body, catch }
            }
            Rule::on_stmt => {
                let event = inner.next()?;
                let value = match event.as_str() {
                    "unhandledRejection" => Event::UnhandledRejection,
                    _ => Event::RejectionHandled,
                };
                let mut listener = Listener {
                    event: Spanned {
                        value,
                        span: event.as_span().into(),
                    },
                    label: None,
                    body: None,
                    site: self.site(),
                };
                for part in inner {
                    match part.as_rule() {
                        Rule::string => listener.label = Some(self.text(part)),
                        Rule::body => listener.body = Some(self.statements(part)),
                        _ => {}
                    }
                }
                StmtKind::On(Box::new(listener))
            }
            _ => unreachable!("a promise statement rule the grammar has"),
        })
    }

    /// `promise NAME = EXPR` or `promise [NAME] [async] { … } LINK*` (after the keyword).
    fn promise(&mut self, inner: pest::iterators::Pairs<Rule>) -> Option<PromiseStmt> {
        let (mut name, mut expr, mut body, mut is_async, mut links) = (None, None, None, false, Vec::new());
        for part in inner {
            match part.as_rule() {
                Rule::name => name = Some(self.name(part)),
                Rule::assign => {}
                Rule::expr => expr = Some(self.expr(part)),
                Rule::body => body = Some(self.statements(part)),
                Rule::async_body => {
                    is_async = true;
                    body = Some(self.async_body(part));
                }
                Rule::link => links.push(self.link(part)),
                _ => unreachable!("a promise part the grammar has"),
            }
        }
        Some(match (expr, body) {
            (Some(expr), _) => PromiseStmt::Expr { name: name?, expr },
            (None, body) => PromiseStmt::Executor {
                name,
                is_async,
                body: body?,
                links,
            },
        })
    }

    /// The body of an `async_body` (its `async` mark is the caller's).
    pub(super) fn async_body(&mut self, pair: Pair<Rule>) -> Block {
        let body = pair.into_inner().nth(1).expect("async_body has a body");
        self.statements(body)
    }

    /// A name; `{i}` (or `{n}`, `{k}`) written on it is refused: a name is
    /// one program name, not a text.
    fn name(&mut self, pair: Pair<Rule>) -> Name {
        let span: Span = pair.as_span().into();
        if let Some(placeholder) = pair.clone().into_inner().find(|p| p.as_rule() == Rule::name_placeholder) {
            self.push(texts::placeholder_in_name(pair.as_str(), placeholder.as_span().start()));
        }
        Name::new(pair.as_str(), span)
    }

    /// `OPERAND LINK*`.
    fn expr(&mut self, pair: Pair<Rule>) -> Expr {
        let span = trimmed(&pair);
        let mut inner = pair.into_inner();
        let operand = self.operand(inner.next().expect("an expression has an operand"));
        let links = inner.map(|l| self.link(l)).collect();
        Expr { operand, links, span }
    }

    fn operand(&mut self, pair: Pair<Rule>) -> Operand {
        let span = trimmed(&pair);
        let mut inner = pair.into_inner();
        let first = inner.next().expect("an operand has a part");
        match first.as_rule() {
            Rule::op_value => Operand::Value(span),
            Rule::op_resolved => Operand::Resolved(span),
            Rule::op_rejected => Operand::Rejected(span),
            Rule::op_thenable => Operand::Thenable(span),
            Rule::op_immediate => Operand::Immediate(span),
            Rule::op_read_file => Operand::File(FileOp::Read, span),
            Rule::op_write_file => Operand::File(FileOp::Write, span),
            Rule::name => Operand::Name(self.name(first)),
            Rule::kw_call => {
                let name = self.name(inner.next().expect("call NAME"));
                Operand::Call { name, span }
            }
            Rule::kw_promise => {
                let body = inner.next().expect("promise BODY");
                let is_async = body.as_rule() == Rule::async_body;
                let body = if is_async { self.async_body(body) } else { self.statements(body) };
                Operand::Executor { is_async, body, span }
            }
            Rule::combinator => {
                let kind = Combinator::from_name(first.as_str()).expect("grammar lists the combinators");
                let list = inner.next().expect("a combinator's list");
                let list = list
                    .into_inner()
                    .filter(|p| p.as_rule() == Rule::expr)
                    .map(|p| self.expr(p))
                    .collect();
                Operand::Combinator { kind, list, span }
            }
            Rule::op_timeout => {
                let n = inner.next().expect("timeout N");
                let ticks = self.spanned_int(n).unwrap_or(Spanned {
                    value: 0,
                    span: Span::new(span.end(), span.end()),
                });
                Operand::Timeout(ticks, span)
            }
            _ => unreachable!("an operand the grammar has"),
        }
    }

    /// `rejections WORD`.
    pub(super) fn rejections(&mut self, value: Pair<Rule>, span: Span, file: &mut File) {
        match names::rejections(value.as_str()) {
            Ok(mode) => {
                self.once(&file.rejections, span, "rejections");
                file.rejections = Some(Spanned { value: mode, span });
            }
            Err(d) => self.push(d.at(value.as_span().into())),
        }
    }
}
