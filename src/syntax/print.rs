//! The syntax tree back to text: [`print`] writes a file as canonical `.loop`
//! text (`parse(print(f))` is `f` but for spans: the random-program generator
//! prints its programs with it), and [`outline`] writes a compact structural
//! dump without spans, one item per line, that tests compare exactly.

use super::ast::*;
use std::fmt::Write;

/// `file` as canonical `.loop` text: directives, statements (two spaces per
/// block level, one statement per line), the expect block.
pub fn print(file: &File) -> String {
    let mut out = String::new();
    if let Some(t) = &file.title {
        let _ = writeln!(out, "title {}", quote(&t.value));
    }
    if let Some(m) = file.module {
        let _ = writeln!(out, "module {}", module_name(m.value));
    }
    if let Some(p) = file.pool {
        let _ = writeln!(out, "pool {}", p.value);
    }
    if let Some(r) = file.rejections {
        let _ = writeln!(out, "rejections {}", r.value.name());
    }
    if let Some(n) = file.node {
        let _ = writeln!(out, "node {}", n.value.name());
    }
    for stmt in &file.body {
        statement(&mut out, stmt, 0);
    }
    if let Some(e) = &file.expect {
        out.push_str("expect ");
        for (i, alt) in e.alternatives().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            expect_body(&mut out, alt);
        }
        out.push('\n');
    }
    out
}

fn expect_body(out: &mut String, e: &Expect) {
    out.push_str("{\n");
    for line in &e.lines {
        out.push_str("  ");
        if let Some(t) = line.turn {
            let _ = write!(out, "turn {t} ");
        }
        if let Some(a) = line.at {
            let _ = write!(out, "at {a} ");
        }
        if let Some(p) = line.phase {
            let _ = write!(out, "{} ", p.name());
        }
        let _ = writeln!(out, "{}", quote(&line.text));
    }
    if let Some(l) = e.limit {
        let _ = writeln!(out, "  limit {}", l.value.name());
    }
    if let Some(end) = e.ending {
        let _ = writeln!(out, "  {}", end.value.name());
    }
    out.push('}');
}

fn module_name(m: crate::sched::Module) -> &'static str {
    match m {
        crate::sched::Module::Cjs => "cjs",
        crate::sched::Module::Esm => "esm",
    }
}

/// A string literal: `"`, `\` and newlines escaped as the grammar reads them.
pub(crate) fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

fn text(t: &Text) -> String {
    quote(&t.to_string())
}

fn pad(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn statement(out: &mut String, stmt: &Stmt, level: usize) {
    pad(out, level);
    match &stmt.kind {
        StmtKind::Log(t) => {
            let _ = write!(out, "log {}", text(t));
        }
        StmtKind::Work(n) => {
            let _ = write!(out, "work {}", n.value);
        }
        StmtKind::Clear(t) => {
            let _ = write!(out, "clear {}", text(t));
        }
        StmtKind::Repeat { count, body } => {
            let _ = write!(out, "repeat {} ", count.value);
            block(out, body, level);
        }
        StmtKind::Again => out.push_str("again"),
        StmtKind::Callback(cb) => callback(out, cb, level),
        StmtKind::AsyncDef { name, body } => {
            let _ = write!(out, "async {} ", name.text);
            block(out, body, level);
        }
        StmtKind::Call(name) => {
            let _ = write!(out, "call {}", name.text);
        }
        StmtKind::Await(e) => {
            out.push_str("await ");
            expr(out, e, level);
        }
        StmtKind::Chain(e) => {
            out.push_str("chain ");
            expr(out, e, level);
        }
        StmtKind::Promise(p) => match &**p {
            PromiseStmt::Executor {
                name,
                is_async,
                body,
                links: l,
            } => {
                out.push_str("promise ");
                if let Some(n) = name {
                    let _ = write!(out, "{} ", n.text);
                }
                if *is_async {
                    out.push_str("async ");
                }
                block(out, body, level);
                links(out, l, level);
            }
            PromiseStmt::Expr { name, expr: e } => {
                let _ = write!(out, "promise {} = ", name.text);
                expr(out, e, level);
            }
        },
        StmtKind::Resolve { target, with } => {
            out.push_str("resolve");
            if let Some(n) = target {
                let _ = write!(out, " {}", n.text);
            }
            if let Some(e) = with {
                out.push_str(" with ");
                expr(out, e, level);
            }
        }
        StmtKind::Reject { target } => {
            out.push_str("reject");
            if let Some(n) = target {
                let _ = write!(out, " {}", n.text);
            }
        }
        StmtKind::Return(e) => {
            out.push_str("return");
            if let Some(e) = e {
                out.push(' ');
                expr(out, e, level);
            }
        }
        StmtKind::Throw => out.push_str("throw"),
        StmtKind::Try { body, catch } => {
            out.push_str("try ");
            block(out, body, level);
            out.push_str(" catch ");
            block(out, catch, level);
        }
        StmtKind::On(l) => {
            let _ = write!(out, "on {}", l.event.value.name());
            if let Some(t) = &l.label {
                let _ = write!(out, " {}", text(t));
            }
            if let Some(b) = &l.body {
                out.push(' ');
                block(out, b, level);
            }
        }
    }
    out.push('\n');
}

fn block(out: &mut String, body: &[Stmt], level: usize) {
    if body.is_empty() {
        out.push_str("{ }");
        return;
    }
    out.push_str("{\n");
    for s in body {
        statement(out, s, level + 1);
    }
    pad(out, level);
    out.push('}');
}

fn callback(out: &mut String, cb: &Callback, level: usize) {
    out.push_str(cb.kind.name());
    if let Some(d) = cb.delay() {
        let _ = write!(out, " {}", d.value);
    }
    if let Some(t) = cb.label() {
        let _ = write!(out, " {}", text(t));
    }
    if let Some(t) = cb.ticks() {
        let _ = write!(out, " {}", t.value);
    }
    if let Some(a) = cb.after() {
        let _ = write!(out, " after {}", a.value);
    }
    if let Some(t) = cb.times() {
        let _ = write!(out, " times {}", t.value);
    }
    if let Some(b) = cb.body() {
        out.push_str(if cb.is_async { " async " } else { " " });
        block(out, b, level);
    }
    links(out, cb.links(), level);
}

fn links(out: &mut String, links: &[Link], level: usize) {
    for l in links {
        let _ = write!(out, " .{}", l.kind.name());
        if let Some(t) = &l.label {
            let _ = write!(out, " {}", text(t));
        }
        if let Some(t) = l.times {
            let _ = write!(out, " times {}", t.value);
        }
        if let Some(b) = &l.body {
            out.push_str(if l.is_async { " async " } else { " " });
            block(out, b, level);
        }
    }
}

fn expr(out: &mut String, e: &Expr, level: usize) {
    match &e.operand {
        Operand::Value(_) => out.push_str("value"),
        Operand::Resolved(_) => out.push_str("resolved"),
        Operand::Rejected(_) => out.push_str("rejected"),
        Operand::Thenable(_) => out.push_str("thenable"),
        Operand::Immediate(_) => out.push_str("immediate"),
        Operand::File(op, _) => out.push_str(op.name()),
        Operand::Name(n) => out.push_str(&n.text),
        Operand::Call { name, .. } => {
            let _ = write!(out, "call {}", name.text);
        }
        Operand::Executor { is_async, body, .. } => {
            out.push_str(if *is_async { "promise async " } else { "promise " });
            block(out, body, level);
        }
        Operand::Combinator { kind, list, .. } => {
            let _ = write!(out, "{} [", kind.name());
            for (i, e) in list.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                expr(out, e, level);
            }
            out.push(']');
        }
        Operand::Timeout(n, _) => {
            let _ = write!(out, "timeout {}", n.value);
        }
    }
    links(out, &e.links, level);
}

/// A compact dump of `file`'s structure without spans: one line per
/// statement, nested blocks indented, expressions as `(operand links…)`.
/// Two files with the same outline are the same tree but for spans (and
/// resolved slots).
pub fn outline(file: &File) -> String {
    let mut out = String::new();
    for (name, value) in [
        ("title", file.title.as_ref().map(|t| quote(&t.value))),
        ("module", file.module.map(|m| module_name(m.value).to_string())),
        ("pool", file.pool.map(|p| p.value.to_string())),
        ("rejections", file.rejections.map(|r| r.value.name().to_string())),
        ("node", file.node.map(|n| n.value.name().to_string())),
    ] {
        if let Some(v) = value {
            let _ = writeln!(out, "{name}={v}");
        }
    }
    for stmt in &file.body {
        outline_stmt(&mut out, stmt, 0);
    }
    if let Some(e) = &file.expect {
        for alt in e.alternatives() {
            out.push_str("Expect");
            for l in &alt.lines {
                let phase = l.phase.map(|p| p.name());
                let _ = write!(out, " [{:?} {:?} {:?} {}]", l.turn, l.at, phase, quote(&l.text));
            }
            if let Some(l) = alt.limit {
                let _ = write!(out, " limit={}", l.value.name());
            }
            if let Some(end) = alt.ending {
                let _ = write!(out, " ending={}", end.value.name());
            }
            out.push('\n');
        }
    }
    out
}

fn outline_block(out: &mut String, tag: &str, body: &[Stmt], level: usize) {
    pad(out, level);
    let _ = writeln!(out, "{tag}:");
    for s in body {
        outline_stmt(out, s, level + 1);
    }
}

fn outline_stmt(out: &mut String, stmt: &Stmt, level: usize) {
    pad(out, level);
    match &stmt.kind {
        StmtKind::Log(t) => {
            let _ = writeln!(out, "Log {}", text(t));
        }
        StmtKind::Work(n) => {
            let _ = writeln!(out, "Work {}", n.value);
        }
        StmtKind::Clear(t) => {
            let _ = writeln!(out, "Clear {}", text(t));
        }
        StmtKind::Repeat { count, body } => {
            let _ = writeln!(out, "Repeat {}", count.value);
            outline_block(out, "body", body, level + 1);
        }
        StmtKind::Again => out.push_str("Again\n"),
        StmtKind::Callback(cb) => {
            let _ = write!(out, "Callback {}", cb.kind.name());
            if let Some(a) = cb.amount() {
                let _ = write!(out, " amount={}", a.value);
            }
            if let Some(t) = cb.label() {
                let _ = write!(out, " label={}", text(t));
            }
            if let Some(t) = cb.times() {
                let _ = write!(out, " times={}", t.value);
            }
            if cb.is_async {
                out.push_str(" async");
            }
            out.push('\n');
            if let Some(b) = cb.body() {
                outline_block(out, "body", b, level + 1);
            }
            outline_links(out, cb.links(), level + 1);
        }
        StmtKind::AsyncDef { name, body } => {
            let _ = writeln!(out, "AsyncDef {}", name.text);
            outline_block(out, "body", body, level + 1);
        }
        StmtKind::Call(name) => {
            let _ = writeln!(out, "Call {}", name.text);
        }
        StmtKind::Await(e) => {
            let _ = writeln!(out, "Await {}", outline_expr(e, level));
        }
        StmtKind::Chain(e) => {
            let _ = writeln!(out, "Chain {}", outline_expr(e, level));
        }
        StmtKind::Promise(p) => match &**p {
            PromiseStmt::Executor {
                name,
                is_async,
                body,
                links,
            } => {
                let name = name.as_ref().map_or("-", |n| n.text.as_str());
                let _ = writeln!(out, "Promise {name} executor{}", if *is_async { " async" } else { "" });
                outline_block(out, "body", body, level + 1);
                outline_links(out, links, level + 1);
            }
            PromiseStmt::Expr { name, expr } => {
                let _ = writeln!(out, "Promise {} = {}", name.text, outline_expr(expr, level));
            }
        },
        StmtKind::Resolve { target, with } => {
            let target = target.as_ref().map_or("-", |n| n.text.as_str());
            let with = with.as_ref().map_or("-".to_string(), |e| outline_expr(e, level));
            let _ = writeln!(out, "Resolve {target} with={with}");
        }
        StmtKind::Reject { target } => {
            let _ = writeln!(out, "Reject {}", target.as_ref().map_or("-", |n| n.text.as_str()));
        }
        StmtKind::Return(e) => {
            let e = e.as_ref().map_or("-".to_string(), |e| outline_expr(e, level));
            let _ = writeln!(out, "Return {e}");
        }
        StmtKind::Throw => out.push_str("Throw\n"),
        StmtKind::Try { body, catch } => {
            out.push_str("Try\n");
            outline_block(out, "body", body, level + 1);
            outline_block(out, "catch", catch, level + 1);
        }
        StmtKind::On(l) => {
            let _ = write!(out, "On {}", l.event.value.name());
            if let Some(t) = &l.label {
                let _ = write!(out, " label={}", text(t));
            }
            out.push('\n');
            if let Some(b) = &l.body {
                outline_block(out, "body", b, level + 1);
            }
        }
    }
}

fn outline_links(out: &mut String, links: &[Link], level: usize) {
    for l in links {
        pad(out, level);
        let _ = write!(out, ".{}", l.kind.name());
        if let Some(t) = &l.label {
            let _ = write!(out, " label={}", text(t));
        }
        if let Some(t) = l.times {
            let _ = write!(out, " times={}", t.value);
        }
        if l.is_async {
            out.push_str(" async");
        }
        out.push('\n');
        if let Some(b) = &l.body {
            outline_block(out, "body", b, level + 1);
        }
    }
}

/// `(operand link…)`; a body inside is printed on the following lines.
fn outline_expr(e: &Expr, level: usize) -> String {
    let mut s = String::from("(");
    match &e.operand {
        Operand::Value(_) => s.push_str("Value"),
        Operand::Resolved(_) => s.push_str("Resolved"),
        Operand::Rejected(_) => s.push_str("Rejected"),
        Operand::Thenable(_) => s.push_str("Thenable"),
        Operand::Immediate(_) => s.push_str("Immediate"),
        Operand::File(op, _) => {
            let _ = write!(s, "File {}", op.name());
        }
        Operand::Name(n) => {
            let _ = write!(s, "Name {}", n.text);
        }
        Operand::Call { name, .. } => {
            let _ = write!(s, "Call {}", name.text);
        }
        Operand::Executor { is_async, body, .. } => {
            let _ = writeln!(s, "Executor{}", if *is_async { " async" } else { "" });
            outline_block(&mut s, "body", body, level + 1);
            pad(&mut s, level);
        }
        Operand::Combinator { kind, list, .. } => {
            let _ = write!(s, "{}", kind.name());
            for e in list {
                let _ = write!(s, " {}", outline_expr(e, level));
            }
        }
        Operand::Timeout(n, _) => {
            let _ = write!(s, "Timeout {}", n.value);
        }
    }
    for l in &e.links {
        let _ = write!(s, " .{}", l.kind.name());
        if let Some(t) = &l.label {
            let _ = write!(s, " {}", text(t));
        }
        if let Some(t) = l.times {
            let _ = write!(s, " times={}", t.value);
        }
        if l.is_async {
            s.push_str(" async");
        }
        if let Some(b) = &l.body {
            s.push('\n');
            outline_block(&mut s, "body", b, level + 1);
            pad(&mut s, level);
        }
    }
    s.push(')');
    s
}
