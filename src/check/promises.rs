//! The checks of the promise language (docs/language.md, "Promises and async
//! functions"), all problems at once, each with a help line: names (lexical
//! scopes as JavaScript's `const`, async functions hoisted in their block),
//! each name use resolved to its [`Slot`]; the contexts of `await`,
//! `return`, `throw`, `try`, `resolve`, `reject`; `async` executors;
//! statements after `return`/`throw`. Also the refusals that depend on how
//! a file is run: [`node_version`] (`--node 10`).

use crate::problem::{Diag, Kept, Problem};
use crate::sched::{Module, NodeVersion};
use crate::syntax::ast::*;
use crate::syntax::suggest;
use rustc_hash::FxHashMap;

/// Words a name cannot be: JavaScript's reserved words and literals, and the
/// identifiers the emitted program (`emit-js`) uses itself.
const RESERVED_JS: [&str; 45] = [
    "break",
    "case",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "super",
    "switch",
    "this",
    "true",
    "typeof",
    "var",
    "void",
    "while",
    "yield",
    "let",
    "static",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
    "undefined",
    "NaN",
    "Infinity",
    "arguments",
    "eval",
];

/// The identifiers of the emitted program and of Node's globals it uses.
const RESERVED_EMIT: [&str; 26] = [
    "process",
    "console",
    "Promise",
    "require",
    "exports",
    "setTimeout",
    "setInterval",
    "setImmediate",
    "queueMicrotask",
    "timersPromises",
    "ticks",
    "TICK",
    "SOURCE",
    "label",
    "n",
    "i",
    "k",
    "Error",
    "globalThis",
    "work",
    "clearLabel",
    "submit",
    "track",
    "tell",
    "stop",
    "step",
];

/// Checks the promise statements of `file`, pushing each problem; resolves
/// every name it accepts (sets [`Name::slot`]).
pub fn check(file: &File, problems: &mut Kept) {
    // One walk for every declared name and every named executor.
    let (mut names, mut executors) = (Vec::new(), Vec::new());
    every_declaration(&file.body, &mut |name, executor| {
        names.push(name);
        if executor {
            executors.push(name.text.as_str());
        }
    });
    let mut all = FxHashMap::default();
    for name in &names {
        all.entry(name.text.as_str()).or_insert(Named { first: name.span, open: 0 });
    }
    let mut checker = Checker {
        problems,
        decls: Vec::new(),
        frames: Vec::new(),
        all,
        esm: file.module.is_some_and(|m| m.value == Module::Esm),
    };
    checker.reserved_resolvers(&names, &executors);
    let top = Ctx {
        func: Func::Top,
        executor: false,
        in_async: false,
    };
    checker.block(&file.body, top);
    #[cfg(not(target_family = "wasm"))]
    OwnExecutor::check(&file.body, checker.problems);
}

/// The first use of the promise language in `file`, with its keyword: a
/// promise statement, `async` on a callback or link, a `.catch`/`.finally`
/// link, the `rejections` directive, or an expect block's `rejections`
/// phase or `unhandled`/`unsettled` ending.
pub fn first_use(file: &File) -> Option<(Span, &'static str)> {
    if let Some(found) = first_use_in_code(file) {
        return Some(found);
    }
    for e in file.expect.iter().flat_map(|e| e.alternatives()) {
        if let Some(end) = e.ending {
            return Some((end.span, end.value.name()));
        }
        if let Some(line) = e.lines.iter().find(|l| l.phase == Some(crate::sched::Phase::Rejections)) {
            return Some((line.span, "rejections"));
        }
    }
    None
}

/// [`first_use`] in the directives and statements only, not the prediction:
/// what a run needs to know (a file with no promise statements rejects
/// nothing, whatever its `expect` block says), in time proportional to the
/// statements, not to the `expect` block.
pub fn first_use_in_code(file: &File) -> Option<(Span, &'static str)> {
    if let Some(r) = file.rejections {
        return Some((r.span, "rejections"));
    }
    let mut found = None;
    first_in(&file.body, &mut found);
    found
}

fn first_in(stmts: &[Stmt], found: &mut Option<(Span, &'static str)>) {
    for stmt in stmts {
        if found.is_some() {
            return;
        }
        if let Some(kw) = stmt.kind.promise_keyword() {
            *found = Some((Span::new(stmt.span.start(), stmt.span.start() + kw.len()), kw));
            return;
        }
        match &stmt.kind {
            StmtKind::Repeat { body, .. } => first_in(body, found),
            StmtKind::Callback(cb) => {
                if cb.is_async {
                    *found = Some((cb.kind_span(), "async"));
                    return;
                }
                if let Some(link) = cb.links().iter().find(|l| l.is_async || l.kind != LinkKind::Then) {
                    let head = Span::new(link.span.start(), link.span.start() + 1 + link.kind.name().len());
                    *found = Some((head, if link.is_async { "async" } else { link.kind.dotted() }));
                    return;
                }
                for body in cb.bodies() {
                    first_in(body, found);
                }
            }
            _ => {}
        }
    }
}

/// Node 10 with the promise language: refused (exit 2), naming the first
/// use. The CLI calls it with the run's `--node` (`flag`, if given) before
/// running; without one, the file's `node N` decides (else Node 26), and
/// the message names the file's `node 10` rather than the flag.
pub fn node_version(file: &File, flag: Option<NodeVersion>) -> Option<Problem> {
    let node = flag.or(file.node.map(|n| n.value)).unwrap_or_default();
    if node != NodeVersion::Node10 {
        return None;
    }
    let (span, statement) = first_use(file)?;
    Some(
        Diag::PromisesOnNode10 {
            statement: statement.to_string(),
            directive: flag.is_none(),
        }
        .at(span),
    )
}

/// Calls `f` with every declared name in `stmts` (blocks included) and
/// whether it names an executor (`promise NAME { … }`).
fn every_declaration<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Name, bool)) {
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::AsyncDef { name, .. } => f(name, false),
            StmtKind::Promise(p) => {
                if let Some(name) = p.name() {
                    f(name, matches!(&**p, PromiseStmt::Executor { .. }));
                }
            }
            _ => {}
        }
        each_block(&stmt.kind, &mut |body| every_declaration(body, f));
    }
}

/// What a declaration makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeclKind {
    AsyncFn,
    /// `promise NAME { … }`, with or without links.
    Executor {
        links: bool,
    },
    /// `promise NAME = EXPR`.
    Expr,
}

struct Decl<'a> {
    name: &'a str,
    span: Span,
    kind: DeclKind,
    /// Visible yet (async functions from the start of their block; promises
    /// from the end of their statement).
    visible: bool,
    slot: Slot,
    /// How many blocks are open around its block's (0: the file's).
    frame: usize,
    /// The declaration of the same name it shadows while its block is
    /// open ([`Named::open`]'s form).
    shadows: u32,
}

/// The innermost function-like body around a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func {
    /// The main module.
    Top,
    /// A callback's body (timer, immediate, nextTick, …).
    Callback { is_async: bool },
    /// A `then` body, or a `.then`/`.catch`/`.finally` link's.
    Handler { is_async: bool },
    /// An executor's body.
    Executor,
    /// An async function's body.
    AsyncFn,
    /// An `on` listener's body.
    Listener,
}

/// Where a statement stands.
#[derive(Debug, Clone, Copy)]
struct Ctx {
    func: Func,
    /// Inside an executor's body (or a callback nested in one): `resolve`
    /// and `reject` without a name mean its promise.
    executor: bool,
    /// Some enclosing function is async (for "await in a callback that is not async").
    in_async: bool,
}

impl Ctx {
    fn is_async(self, esm: bool) -> bool {
        match self.func {
            Func::AsyncFn => true,
            Func::Callback { is_async } | Func::Handler { is_async } => is_async,
            Func::Top => esm,
            Func::Executor | Func::Listener => false,
        }
    }

    /// The context of a function body nested here.
    fn enter(self, func: Func, esm: bool) -> Ctx {
        Ctx {
            func,
            executor: self.executor || func == Func::Executor,
            in_async: self.in_async || self.is_async(esm),
        }
    }
}

struct Checker<'a, 'p> {
    problems: &'p mut Kept,
    decls: Vec<Decl<'a>>,
    /// The blocks open around the statement checked: their declarations.
    frames: Vec<Vec<usize>>,
    /// Every declared name of the file, with its first declaration.
    all: FxHashMap<&'a str, Named>,
    esm: bool,
}

/// A declared name: its first declaration in the file, and its innermost
/// declaration in the blocks open (its index in `decls` plus 1; 0: none),
/// each of which keeps the one it shadows ([`Decl::shadows`]). A name is
/// so found in one lookup, not by a walk of every open block's declarations
/// (60,000 async functions in one block took 12 s).
struct Named {
    first: Span,
    open: u32,
}

impl<'a> Checker<'a, '_> {
    fn block(&mut self, stmts: &'a [Stmt], ctx: Ctx) {
        let depth = self.frames.len();
        let mut frame = Vec::new();
        let mut index = 0u32;
        for name_stmt in stmts {
            let (name, kind) = match &name_stmt.kind {
                StmtKind::AsyncDef { name, .. } => (&**name, DeclKind::AsyncFn),
                StmtKind::Promise(p) => match &**p {
                    PromiseStmt::Executor {
                        name: Some(name), links, ..
                    } => (name, DeclKind::Executor { links: !links.is_empty() }),
                    PromiseStmt::Expr { name, .. } => (name, DeclKind::Expr),
                    PromiseStmt::Executor { name: None, .. } => continue,
                },
                _ => continue,
            };
            self.reserved(name);
            let decl = self.decls.len() as u32;
            // (Every declared name is in `all`.)
            let Some(named) = self.all.get_mut(name.text.as_str()) else {
                continue;
            };
            let shadows = named.open;
            if let Some(first) = shadows.checked_sub(1).map(|d| d as usize).filter(|&d| self.decls[d].frame == depth) {
                self.problems.push(
                    Diag::Redeclared { name: name.text.clone() }
                        .at(name.span)
                        .also(self.decls[first].span, "first declared here"),
                );
                continue;
            }
            named.open = decl + 1;
            let slot = Slot { depth: 0, index, decl };
            index += 1;
            let _ = name.slot.set(slot);
            frame.push(decl as usize);
            self.decls.push(Decl {
                name: &name.text,
                span: name.span,
                kind,
                visible: kind == DeclKind::AsyncFn,
                slot,
                frame: depth,
                shadows,
            });
        }
        self.frames.push(frame);
        let mut exited: Option<&'static str> = None;
        let mut warned = false;
        for stmt in stmts {
            if let (Some(what), false) = (exited, warned) {
                let last = stmts.last().map_or(stmt.span, |s| s.span);
                self.problems
                    .push(Diag::AfterExit { what }.at(Span::new(stmt.span.start(), last.end())));
                warned = true;
            }
            self.statement(stmt, ctx);
            match &stmt.kind {
                StmtKind::Return(_) => exited = exited.or(Some("return")),
                StmtKind::Throw => exited = exited.or(Some("throw")),
                _ => {}
            }
            // A promise's name is visible from the end of its statement on.
            if let StmtKind::Promise(p) = &stmt.kind {
                if let Some(slot) = p.name().and_then(Name::slot) {
                    let decl = &mut self.decls[slot.decl as usize];
                    if decl.frame == depth {
                        decl.visible = true;
                    }
                }
            }
        }
        for d in self.frames.pop().unwrap_or_default() {
            if let Some(named) = self.all.get_mut(self.decls[d].name) {
                named.open = self.decls[d].shadows;
            }
        }
    }

    /// A name JavaScript or the emitted program keeps.
    fn reserved(&mut self, name: &Name) {
        let why = if RESERVED_JS.contains(&name.text.as_str()) {
            "a JavaScript reserved word"
        } else if RESERVED_EMIT.contains(&name.text.as_str()) {
            "a name the emitted program uses"
        } else {
            return;
        };
        self.problems.push(
            Diag::ReservedName {
                name: name.text.clone(),
                why,
            }
            .at(name.span),
        );
    }

    /// Names of the form `resolveX`/`rejectX` where `x` is an executor
    /// promise: emit-js names its resolving functions so.
    fn reserved_resolvers(&mut self, names: &[&'a Name], executors: &[&str]) {
        for &name in names {
            let rest = name.text.strip_prefix("resolve").or_else(|| name.text.strip_prefix("reject"));
            let Some(rest) = rest.filter(|r| r.starts_with(|c: char| c.is_ascii_uppercase())) else {
                continue;
            };
            let of = format!("{}{}", rest[..1].to_ascii_lowercase(), &rest[1..]);
            if executors.contains(&of.as_str()) {
                self.problems.push(
                    Diag::ResolvingFunctionName {
                        name: name.text.clone(),
                        of,
                    }
                    .at(name.span),
                );
            }
        }
    }

    /// Resolves a use of `name`: its declaration, or a problem.
    fn resolve(&mut self, name: &Name) -> Option<DeclKind> {
        // Blocks without declarations make no environment at run time: only
        // the declaring blocks passed over count.
        let named = self.all.get(name.text.as_str());
        if let Some(d) = named.and_then(|n| n.open.checked_sub(1)) {
            let decl = &self.decls[d as usize];
            let up = self.frames[decl.frame + 1..].iter().filter(|f| !f.is_empty()).count() as u32;
            if !decl.visible {
                let declared = decl.span;
                self.problems.push(
                    Diag::NotYetDeclared { name: name.text.clone() }
                        .at(name.span)
                        .also(declared, "declared here"),
                );
                return None;
            }
            let _ = name.slot.set(Slot { depth: up, ..decl.slot });
            return Some(decl.kind);
        }
        if let Some(declared) = named.map(|n| n.first) {
            self.problems.push(
                Diag::NotInScope { name: name.text.clone() }
                    .at(name.span)
                    .also(declared, "declared here"),
            );
            return None;
        }
        // The closest name is looked for only while problems are kept, among
        // at most 1,000 names visible (40,000 uses of undeclared names beside
        // 40,000 declarations took four minutes).
        let mut suggestion = None;
        if !self.problems.is_full() {
            let visible: Vec<&str> = self
                .frames
                .iter()
                .flatten()
                .map(|&d| &self.decls[d])
                .filter(|d| d.visible)
                .map(|d| d.name)
                .take(1_000)
                .collect();
            suggestion = suggest::closest(&name.text, &visible).map(str::to_string);
        }
        self.problems.push(
            Diag::UndeclaredName {
                name: name.text.clone(),
                suggestion,
            }
            .at(name.span),
        );
        None
    }

    fn statement(&mut self, stmt: &'a Stmt, ctx: Ctx) {
        let esm = self.esm;
        match &stmt.kind {
            StmtKind::Log(_) | StmtKind::Work(_) | StmtKind::Clear(_) | StmtKind::Again => {}
            StmtKind::Repeat { body, .. } => self.block(body, ctx),
            StmtKind::Callback(cb) => {
                let head = if cb.kind == Kind::Then {
                    Func::Handler { is_async: cb.is_async }
                } else {
                    Func::Callback { is_async: cb.is_async }
                };
                if let Some(body) = cb.body() {
                    self.block(body, ctx.enter(head, esm));
                }
                self.links(cb.links(), ctx);
            }
            StmtKind::AsyncDef { body, .. } => self.block(body, ctx.enter(Func::AsyncFn, esm)),
            StmtKind::Call(name) => self.call(name),
            StmtKind::Await(e) => {
                if !ctx.is_async(esm) {
                    self.problems.push(Diag::AwaitOutsideAsync { nested: ctx.in_async }.at(stmt.span));
                } else if ctx.func == Func::Top && rejects(e) {
                    self.problems.push(Diag::TopLevelThrow { what: "await rejected" }.at(stmt.span));
                }
                self.expr(e, ctx);
            }
            StmtKind::Chain(e) => self.expr(e, ctx),
            StmtKind::Promise(p) => match &**p {
                PromiseStmt::Executor { is_async, body, links, .. } => {
                    if *is_async {
                        self.problems.push(Diag::AsyncExecutor.at(stmt.span));
                    }
                    self.block(body, ctx.enter(Func::Executor, esm));
                    self.links(links, ctx);
                }
                PromiseStmt::Expr { expr, .. } => self.expr(expr, ctx),
            },
            StmtKind::Resolve { target, with } => {
                let kind = self.settle("resolve", target.as_deref(), stmt.span, ctx);
                if let Some(e) = with {
                    self.expr(e, ctx);
                    if let (Some(t), Operand::Name(n), true) = (target, &e.operand, e.links.is_empty()) {
                        if kind.is_some() && n.slot().map(|s| s.decl) == t.slot().map(|s| s.decl) {
                            self.problems.push(Diag::ResolveWithItself { name: t.text.clone() }.at(stmt.span));
                        }
                    }
                }
            }
            StmtKind::Reject { target } => {
                self.settle("reject", target.as_deref(), stmt.span, ctx);
            }
            StmtKind::Return(e) => {
                let ok = match ctx.func {
                    Func::AsyncFn | Func::Handler { .. } => true,
                    Func::Callback { is_async } => is_async,
                    _ => false,
                };
                if !ok {
                    self.problems.push(Diag::ReturnOutside.at(stmt.span));
                }
                if let Some(e) = e {
                    self.expr(e, ctx);
                }
            }
            StmtKind::Throw => match ctx.func {
                Func::AsyncFn | Func::Handler { .. } | Func::Executor | Func::Callback { is_async: true } => {}
                Func::Top if esm => self.problems.push(Diag::TopLevelThrow { what: "throw" }.at(stmt.span)),
                _ => self.problems.push(Diag::ThrowOutside.at(stmt.span)),
            },
            StmtKind::Try { body, catch } => {
                let ok = matches!(ctx.func, Func::AsyncFn | Func::Handler { .. } | Func::Callback { is_async: true });
                if !ok {
                    let head = Span::new(stmt.span.start(), stmt.span.start() + 3);
                    self.problems.push(Diag::TryOutside.at(head));
                }
                self.block(body, ctx);
                self.block(catch, ctx);
            }
            StmtKind::On(l) => {
                if let Some(body) = &l.body {
                    self.block(body, ctx.enter(Func::Listener, esm));
                }
            }
        }
    }

    /// `resolve`/`reject` `[NAME]`: the name's kind if it resolved.
    fn settle(&mut self, verb: &'static str, target: Option<&'a Name>, span: Span, ctx: Ctx) -> Option<DeclKind> {
        let Some(name) = target else {
            if !ctx.executor {
                let head = Span::new(span.start(), span.start() + verb.len());
                self.problems.push(Diag::SettleOutsideExecutor { verb }.at(head));
            }
            return None;
        };
        let kind = self.resolve(name)?;
        if kind != (DeclKind::Executor { links: false }) {
            let d = &self.decls[name.slot()?.decl as usize];
            let declared = d.span;
            self.problems.push(
                Diag::SettleNotExecutor {
                    verb,
                    name: name.text.clone(),
                    links: kind == DeclKind::Executor { links: true },
                }
                .at(name.span)
                .also(declared, "declared here"),
            );
            return None;
        }
        Some(kind)
    }

    /// `call NAME`: NAME must be an async function.
    fn call(&mut self, name: &'a Name) {
        if let Some(kind) = self.resolve(name) {
            if kind != DeclKind::AsyncFn {
                let d = &self.decls[name.slot().map_or(0, |s| s.decl as usize)];
                let declared = d.span;
                self.problems.push(
                    Diag::CallNotAsync { name: name.text.clone() }
                        .at(name.span)
                        .also(declared, "declared here"),
                );
            }
        }
    }

    fn links(&mut self, links: &'a [Link], ctx: Ctx) {
        let esm = self.esm;
        for link in links {
            if let Some(body) = &link.body {
                self.block(body, ctx.enter(Func::Handler { is_async: link.is_async }, esm));
            }
        }
    }

    fn expr(&mut self, e: &'a Expr, ctx: Ctx) {
        let esm = self.esm;
        match &e.operand {
            Operand::Name(name) => {
                if self.resolve(name) == Some(DeclKind::AsyncFn) {
                    let d = &self.decls[name.slot().map_or(0, |s| s.decl as usize)];
                    let declared = d.span;
                    self.problems.push(
                        Diag::AsyncAsPromise { name: name.text.clone() }
                            .at(name.span)
                            .also(declared, "declared here"),
                    );
                }
            }
            Operand::Call { name, .. } => self.call(name),
            Operand::Executor { is_async, body, span } => {
                if *is_async {
                    self.problems.push(Diag::AsyncExecutor.at(*span));
                }
                self.block(body, ctx.enter(Func::Executor, esm));
            }
            Operand::Combinator { list, .. } => {
                for e in list {
                    self.expr(e, ctx);
                }
            }
            // `timers/promises` clamps as `setTimeout` does, and Node warns alike.
            Operand::Timeout(delay, _) => {
                if let Some(p) = crate::check::numbers::delay_above_max(Kind::Timeout, Some(*delay)) {
                    self.problems.push(p);
                }
            }
            Operand::Value(_)
            | Operand::Resolved(_)
            | Operand::Rejected(_)
            | Operand::Thenable(_)
            | Operand::Immediate(_)
            | Operand::File(..) => {}
        }
        self.links(&e.links, ctx);
    }
}

/// A promise used by an async function its own executor (or expression:
/// `promise p = call f`) calls, before that function's first `await`
/// (`promise p { call f resolve }`, `async f { await p }`): the executor
/// runs before the promise's `const` is set, so
/// JavaScript throws a ReferenceError there (fresh-clone helper 87: loopsim
/// ran it, Node exited with code 1). After the first `await` the function
/// goes on later, with the promise set. Checked once every name is
/// resolved, natively only (1.3 KB of the WebAssembly, gzipped, over its
/// size budget).
#[cfg(not(target_family = "wasm"))]
struct OwnExecutor<'a> {
    /// Each async function's body, by its declaration ([`Slot::decl`]).
    bodies: FxHashMap<u32, &'a [Stmt]>,
    reach: Reach,
}

#[cfg(not(target_family = "wasm"))]
impl<'a> OwnExecutor<'a> {
    fn check(stmts: &'a [Stmt], problems: &mut Kept) {
        let mut executors = Vec::new();
        let mut walk = OwnExecutor {
            bodies: FxHashMap::default(),
            reach: Reach::default(),
        };
        walk.collect(stmts, &mut executors);
        for (name, evaluated) in executors {
            let Some(promise) = name.slot().map(|s| s.decl) else { continue };
            walk.reach.called.clear();
            let walked = match evaluated {
                Evaluated::Body(body) => walk.sync_use(body, promise, None),
                Evaluated::Expr(e) => walk.sync_expr(e, promise, None),
            };
            if let Walk::Used(at, call) = walked {
                problems.push(
                    Diag::NotYetDeclared { name: name.text.clone() }
                        .at(at)
                        .also(call.unwrap_or(at), "called before the promise is set"),
                );
            }
        }
    }

    /// The async functions' bodies and the named executors in `stmts`.
    fn collect(&mut self, stmts: &'a [Stmt], executors: &mut Vec<(&'a Name, Evaluated<'a>)>) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::AsyncDef { name, body } => {
                    if let Some(slot) = name.slot() {
                        self.bodies.insert(slot.decl, body);
                    }
                }
                StmtKind::Promise(p) => match &**p {
                    PromiseStmt::Executor {
                        name: Some(name), body, ..
                    } => executors.push((name, Evaluated::Body(body))),
                    // `promise p = call f`: the call runs before `p` is set too
                    // (fresh-clone helper 88).
                    PromiseStmt::Expr { name, expr } => executors.push((name, Evaluated::Expr(expr))),
                    PromiseStmt::Executor { name: None, .. } => {}
                },
                _ => {}
            }
            each_block(&stmt.kind, &mut |body| self.collect(body, executors));
        }
    }

    /// Walks `stmts` as they run synchronously for a use of declaration
    /// `promise`, following `call`s into async function bodies (each once,
    /// `reach`) up to their first `await`; `via`: the first call in the
    /// executor on the way.
    fn sync_use(&mut self, stmts: &'a [Stmt], promise: u32, via: Option<Span>) -> Walk {
        for stmt in stmts {
            self.reach.steps += 1;
            if self.reach.steps > Reach::MAX_STEPS {
                return Walk::On;
            }
            let step = match &stmt.kind {
                StmtKind::Call(name) => self.sync_call(name, promise, via),
                StmtKind::Await(e) => match self.sync_expr(e, promise, via) {
                    Walk::On => Walk::Suspended,
                    used => used,
                },
                StmtKind::Chain(e) => self.sync_expr(e, promise, via),
                StmtKind::Return(e) => match e.as_deref().map(|e| self.sync_expr(e, promise, via)) {
                    Some(used @ Walk::Used(..)) => used,
                    _ => Walk::Suspended,
                },
                StmtKind::Resolve { target, with } => match (target.as_deref().and_then(|t| Some((t, t.slot()?))), with) {
                    (Some((t, slot)), _) if slot.decl == promise && via.is_some() => Walk::Used(t.span, via),
                    (_, Some(e)) => self.sync_expr(e, promise, via),
                    _ => Walk::On,
                },
                StmtKind::Reject { target: Some(t) } if t.slot().is_some_and(|s| s.decl == promise) && via.is_some() => {
                    Walk::Used(t.span, via)
                }
                StmtKind::Promise(p) => match &**p {
                    PromiseStmt::Executor { body, .. } => self.sync_use(body, promise, via),
                    PromiseStmt::Expr { expr, .. } => self.sync_expr(expr, promise, via),
                },
                StmtKind::Repeat { body, .. } | StmtKind::Try { body, .. } => self.sync_use(body, promise, via),
                StmtKind::Throw => Walk::Suspended,
                _ => Walk::On,
            };
            if !matches!(step, Walk::On) {
                return step;
            }
        }
        Walk::On
    }

    /// `call NAME` in a synchronous walk: the function's body up to its first
    /// `await` runs now; the caller goes on either way.
    fn sync_call(&mut self, name: &'a Name, promise: u32, via: Option<Span>) -> Walk {
        let Some(body) = name.slot().and_then(|s| {
            let fresh = !self.reach.called.contains(&s.decl) && self.reach.called.len() < Reach::MAX_CALLS;
            if fresh {
                self.reach.called.push(s.decl);
            }
            fresh.then(|| self.bodies.get(&s.decl).copied()).flatten()
        }) else {
            return Walk::On;
        };
        match self.sync_use(body, promise, via.or(Some(name.span))) {
            used @ Walk::Used(..) => used,
            _ => Walk::On,
        }
    }

    /// An expression evaluated now: its operand (links run later).
    fn sync_expr(&mut self, e: &'a Expr, promise: u32, via: Option<Span>) -> Walk {
        match &e.operand {
            Operand::Name(n) if via.is_some() && n.slot().is_some_and(|s| s.decl == promise) => Walk::Used(n.span, via),
            Operand::Call { name, .. } => self.sync_call(name, promise, via),
            Operand::Executor { body, .. } => self.sync_use(body, promise, via),
            Operand::Combinator { list, .. } => list
                .iter()
                .map(|e| self.sync_expr(e, promise, via))
                .find(|w| matches!(w, Walk::Used(..)))
                .unwrap_or(Walk::On),
            _ => Walk::On,
        }
    }
}

/// What the synchronous walks ([`OwnExecutor::sync_use`]) have followed: the
/// functions called from the executor walked (each once, at most
/// [`Reach::MAX_CALLS`], which bounds the recursion), and the statements
/// visited over all executors (at most [`Reach::MAX_STEPS`]: a hostile file
/// of many executors calling many functions is checked in bounded time;
/// past it, uses are no longer found).
#[cfg(not(target_family = "wasm"))]
#[derive(Default)]
struct Reach {
    called: Vec<u32>,
    steps: usize,
}

#[cfg(not(target_family = "wasm"))]
impl Reach {
    const MAX_CALLS: usize = 200;
    const MAX_STEPS: usize = 1_000_000;
}

/// What runs before a promise's `const` is set: its executor's body, or
/// the expression of `promise NAME = EXPR`.
#[cfg(not(target_family = "wasm"))]
enum Evaluated<'a> {
    Body(&'a [Stmt]),
    Expr(&'a Expr),
}

/// How a synchronous walk ([`OwnExecutor::sync_use`]) ended.
#[cfg(not(target_family = "wasm"))]
enum Walk {
    /// It ran to the end of the statements: the code after them runs too.
    On,
    /// An `await`, `return` or `throw`: the rest runs later, or never.
    Suspended,
    /// The promise is used here, reached through this call of its executor.
    Used(Span, Option<Span>),
}

/// Whether awaiting `e` throws for sure: `rejected` with no `.catch`.
fn rejects(e: &Expr) -> bool {
    matches!(e.operand, Operand::Rejected(_)) && e.links.iter().all(|l| l.kind != LinkKind::Catch)
}
