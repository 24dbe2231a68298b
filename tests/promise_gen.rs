//! The random promise programs of tests/common/promise_gen.rs, without node:
//! the generator is deterministic (a seed makes the same text), its programs
//! pass loopsim's checks, and together they use every statement kind it is
//! meant to. tests/promise_random.rs runs them against real Node.
//!
//! `LOOPSIM_GEN_SEED=N LOOPSIM_GEN_OUT=FILE cargo test --test promise_gen -- --ignored print_program`
//! writes the program of seed N to FILE.

#[path = "common/promise_gen.rs"]
mod promise_gen;

use loopsim::interp;
use loopsim::syntax::ast::*;
use loopsim::trace::EventKind;
use std::collections::BTreeMap;

#[test]
fn the_same_seed_makes_the_same_program() {
    for seed in [0, 1, 7, 42, 1000, u64::MAX] {
        let a = promise_gen::program(seed);
        assert_eq!(a, promise_gen::program(seed), "seed {seed}");
        assert_eq!(promise_gen::construct(seed, 0), promise_gen::construct(seed, 0), "seed {seed}");
    }
    assert_ne!(promise_gen::program(1), promise_gen::program(2));
}

#[test]
fn two_hundred_seeds_pass_the_checks_and_run_to_their_end() {
    let mut retried = 0;
    let mut statements = Vec::new();
    let (mut lines, mut unhandled) = (0, 0);
    for seed in 0..200 {
        let text = promise_gen::program(seed);
        promise_gen::accepted(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        if !text.starts_with(&format!("# random program: seed {seed}, attempt 0\n")) {
            retried += 1;
        }
        let loaded = loopsim::load::load_bytes("random.loop", text.as_bytes()).unwrap();
        statements.push(promise_gen::statements(&loaded.file.body));
        let trace = interp::run(&loaded.file, &loaded.src, "", loopsim::emit::run_options());
        assert!(
            !matches!(trace.ending, loopsim::trace::Ending::Limit(_)),
            "seed {seed}: stopped at a limit\n{text}"
        );
        lines += trace.logs().count();
        unhandled += usize::from(matches!(trace.ending, loopsim::trace::Ending::Unhandled { .. }));
    }
    // Enough lines to compare, and most programs run to their end.
    println!("{lines} lines; {unhandled} programs end by an unhandled rejection");
    assert!(lines >= 200 * 5, "{lines} lines in 200 programs");
    assert!(unhandled <= 200 / 3, "{unhandled} of 200 programs end by an unhandled rejection");
    // The generator follows the checks' rules: a construction is rarely refused.
    assert!(retried < 20, "{retried} of 200 seeds needed another construction");
    let (min, max) = (statements.iter().min().unwrap(), statements.iter().max().unwrap());
    println!("statements per program: {min} to {max}");
    assert!(*min >= 5 && *max <= 25, "statements per program: {min} to {max}");
    assert!(*max >= 20, "the largest program of 200 has {max} statements");
}

/// Where a statement is, for naming what it does.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Other,
    AsyncFn,
    Handler,
    Executor,
    /// A callback's body directly in an executor's.
    ExecutorCallback(&'static str),
}

fn operand_name(op: &Operand) -> &'static str {
    match op {
        Operand::Value(_) => "value",
        Operand::Resolved(_) => "resolved",
        Operand::Rejected(_) => "rejected",
        Operand::Thenable(_) => "thenable",
        Operand::Name(_) => "a name",
        Operand::Call { .. } => "call",
        Operand::Executor { .. } => "an executor",
        Operand::Combinator { kind, .. } => kind.name(),
        Operand::Timeout(..) => "timeout N",
        Operand::Immediate(_) => "immediate",
        Operand::File(op, _) => op.name(),
    }
}

/// What the statements do, counted: `await rejected`, `executor settled from
/// immediate`, `handler throws`, `.finally` …
fn kinds(stmts: &[Stmt], role: Role, out: &mut BTreeMap<String, usize>) {
    for s in stmts {
        let mut add = |k: String| *out.entry(k).or_insert(0) += 1;
        match &s.kind {
            StmtKind::Log(_) => add("log".into()),
            StmtKind::Callback(cb) => {
                let kind = cb.kind.name();
                add(kind.into());
                if cb.is_async {
                    add("async callback".into());
                }
                let inner = match (role, cb.kind) {
                    (Role::Executor, _) => Role::ExecutorCallback(kind),
                    (_, Kind::Then) => Role::Handler,
                    _ => Role::Other,
                };
                if let Some(body) = cb.body() {
                    kinds(body, inner, out);
                }
                links(cb.links(), out);
            }
            StmtKind::AsyncDef { body, .. } => {
                add("async function".into());
                kinds(body, Role::AsyncFn, out);
            }
            StmtKind::Call(_) => add("call".into()),
            StmtKind::Await(e) => {
                add(format!("await {}", operand_name(&e.operand)));
                expr(e, out);
            }
            StmtKind::Promise(p) => match &**p {
                PromiseStmt::Executor { name, body, links: l, .. } => {
                    add(if name.is_some() { "named executor" } else { "anonymous executor" }.into());
                    kinds(body, Role::Executor, out);
                    links(l, out);
                }
                PromiseStmt::Expr { expr: e, .. } => {
                    add("promise NAME = EXPR".into());
                    expr(e, out);
                }
            },
            StmtKind::Chain(e) => {
                add("chain".into());
                expr(e, out);
            }
            StmtKind::Resolve { target, with } => {
                add(match (target, role) {
                    (Some(_), _) if with.is_some() => "resolve NAME with EXPR".into(),
                    (Some(_), _) => "resolve NAME".into(),
                    (None, Role::Executor) => "executor settled now".into(),
                    (None, Role::ExecutorCallback(k)) => format!("executor settled from {k}"),
                    (None, _) => "resolve elsewhere".into(),
                });
                if let Some(e) = with {
                    add("resolve with EXPR".into());
                    expr(e, out);
                }
            }
            StmtKind::Reject { target } => add(match (target, role) {
                (Some(_), _) => "reject NAME".into(),
                (None, Role::Executor) => "executor rejected now".into(),
                (None, Role::ExecutorCallback(k)) => format!("executor rejected from {k}"),
                (None, _) => "reject elsewhere".into(),
            }),
            StmtKind::Return(e) => {
                let what = match e {
                    None => "return".to_string(),
                    Some(e) if matches!(e.operand, Operand::Value(_)) && e.links.is_empty() => "return value".into(),
                    Some(_) => "return a promise".into(),
                };
                if role == Role::Handler && what == "return a promise" {
                    add("handler returns a promise".into());
                }
                add(what);
                if let Some(e) = e {
                    expr(e, out);
                }
            }
            StmtKind::Throw => add(match role {
                Role::Executor => "executor throws",
                Role::Handler => "handler throws",
                Role::AsyncFn => "async function throws",
                _ => "throw",
            }
            .into()),
            StmtKind::Try { body, catch } => {
                add("try".into());
                kinds(body, role, out);
                kinds(catch, role, out);
            }
            StmtKind::On(l) => {
                add(format!("on {}", l.event.value.name()));
                if let Some(body) = &l.body {
                    kinds(body, Role::Other, out);
                }
            }
            other => add(format!("other: {other:?}")),
        }
    }
}

fn links(links: &[Link], out: &mut BTreeMap<String, usize>) {
    for l in links {
        *out.entry(format!(".{}", l.kind.name())).or_insert(0) += 1;
        if l.is_async {
            *out.entry("async link".into()).or_insert(0) += 1;
        }
        if let Some(body) = &l.body {
            kinds(body, Role::Handler, out);
        }
    }
}

fn expr(e: &Expr, out: &mut BTreeMap<String, usize>) {
    match &e.operand {
        Operand::Executor { body, .. } => {
            *out.entry("executor operand".into()).or_insert(0) += 1;
            kinds(body, Role::Executor, out);
        }
        Operand::Combinator { kind, list, .. } => {
            *out.entry(kind.name().to_string()).or_insert(0) += 1;
            if list.is_empty() {
                *out.entry("empty combinator".into()).or_insert(0) += 1;
            }
            list.iter().for_each(|e| expr(e, out));
        }
        Operand::Timeout(..) => *out.entry("timeout operand".into()).or_insert(0) += 1,
        Operand::Immediate(_) => *out.entry("immediate operand".into()).or_insert(0) += 1,
        _ => {}
    }
    links(&e.links, out);
}

#[test]
fn the_programs_use_every_statement_kind() {
    let mut counts = BTreeMap::new();
    let mut warn = 0;
    for seed in 0..200 {
        let text = promise_gen::program(seed);
        let loaded = loopsim::load::load_bytes("random.loop", text.as_bytes()).unwrap();
        if loaded.file.rejections.is_some_and(|r| r.value == Rejections::Warn) {
            warn += 1;
        }
        kinds(&loaded.file.body, Role::Other, &mut counts);
    }
    println!("{counts:#?}\nrejections warn: {warn}");
    let mut wanted: Vec<String> = [
        "log",
        "nextTick",
        "microtask",
        "then",
        "immediate",
        "timeout",
        "async callback",
        "async function",
        "call",
        "named executor",
        "anonymous executor",
        "executor operand",
        "promise NAME = EXPR",
        "chain",
        ".then",
        ".catch",
        ".finally",
        "async link",
        "executor settled now",
        "executor rejected now",
        "executor throws",
        "resolve with EXPR",
        "resolve NAME",
        "resolve NAME with EXPR",
        "reject NAME",
        "return",
        "return value",
        "return a promise",
        "handler returns a promise",
        "handler throws",
        "async function throws",
        "try",
        "all",
        "allSettled",
        "any",
        "race",
        "empty combinator",
        "timeout operand",
        "immediate operand",
        "on unhandledRejection",
        "on rejectionHandled",
    ]
    .map(String::from)
    .to_vec();
    for k in ["nextTick", "then", "microtask", "immediate", "timeout"] {
        wanted.push(format!("executor settled from {k}"));
    }
    for op in [
        "value",
        "resolved",
        "rejected",
        "thenable",
        "a name",
        "call",
        "an executor",
        "all",
        "allSettled",
        "any",
        "race",
        "timeout N",
        "immediate",
    ] {
        wanted.push(format!("await {op}"));
    }
    let missing: Vec<&String> = wanted.iter().filter(|k| !counts.contains_key(*k)).collect();
    assert!(missing.is_empty(), "no program of 200 has {missing:?}");
    assert!(warn > 10, "`rejections warn` in {warn} programs of 200");
    let others: Vec<&String> = counts.keys().filter(|k| k.starts_with("other")).collect();
    assert!(others.is_empty(), "statements the generator must not write: {others:?}");
    assert!(!counts.contains_key("interval"));
}

/// The generator's race avoidance, as loopsim's model runs the programs: every
/// callback timer is due at its own slot (a multiple of 20 ticks, plus the few
/// ticks the turns of immediates add), and everything happens within those few
/// ticks after a multiple of 20 (no code runs at a tick the generator did not
/// expect, where a timer it set could be due beside another).
#[test]
fn timers_are_due_at_distinct_slots_far_apart() {
    let mut timers = 0;
    for seed in 0..300 {
        let text = promise_gen::program(seed);
        let loaded = loopsim::load::load_bytes("random.loop", text.as_bytes()).unwrap();
        let opts = interp::RunOptions {
            verbose: true,
            ..loopsim::emit::run_options()
        };
        let trace = interp::run(&loaded.file, &loaded.src, "", opts);
        let mut due = Vec::new();
        for e in &trace.events {
            let near = e.tick % promise_gen::SPACING < 10;
            if let EventKind::Schedule {
                kind: "timeout", detail, ..
            } = &e.kind
            {
                let at: u64 = detail
                    .strip_prefix("due at ")
                    .and_then(|d| d.parse().ok())
                    .unwrap_or_else(|| panic!("{detail:?}"));
                assert!(at % promise_gen::SPACING < 10, "seed {seed}: a timer due at {at}\n{text}");
                assert!(
                    due.iter().all(|d: &u64| d.abs_diff(at) >= 10),
                    "seed {seed}: timers due at {due:?} and {at}\n{text}"
                );
                due.push(at);
            }
            let idle = matches!(e.kind, EventKind::Sleep { .. } | EventKind::TurnStart | EventKind::Exit);
            assert!(near || idle, "seed {seed}: {e:?} at tick {}\n{text}", e.tick);
        }
        timers += due.len();
    }
    assert!(timers > 100, "{timers} timers in 300 programs");
}

/// A tool: writes the program of seed `LOOPSIM_GEN_SEED` (default 0) to
/// `LOOPSIM_GEN_OUT` (default: prints it).
#[test]
#[ignore = "a tool: prints the program of LOOPSIM_GEN_SEED"]
fn print_program() {
    let seed = std::env::var("LOOPSIM_GEN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let text = promise_gen::program(seed);
    match std::env::var_os("LOOPSIM_GEN_OUT") {
        Some(path) => std::fs::write(path, text).unwrap(),
        None => print!("{text}"),
    }
}

/// The family with `again` in links: the same seed makes the same text, its
/// programs pass the checks and end by themselves, and some of their links
/// run more than once — each run after the first alone, one line per run.
#[test]
fn the_again_family_repeats_links_and_leaves_the_first_family_as_it_was() {
    let mut repeated = 0;
    let mut with_again = 0;
    for seed in 0..200 {
        let text = promise_gen::program_with_again(seed);
        assert_eq!(text, promise_gen::program_with_again(seed), "seed {seed}");
        promise_gen::accepted(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert!(
            text.starts_with(&format!("# random program (again in links): seed {seed}, attempt")),
            "{text}"
        );
        if !text.lines().skip(1).any(|l| l.trim() == "again" || l.contains("{ again }")) {
            continue;
        }
        with_again += 1;
        // Every `again` is the first statement of a link with `times 2` or `times 3`.
        for (i, line) in text.lines().enumerate() {
            if line.trim() == "again" || line.contains("{ again }") {
                let head = if line.contains("{ again }") {
                    line
                } else {
                    text.lines().nth(i - 1).unwrap()
                };
                assert!(
                    head.contains(" times 2") || head.contains(" times 3"),
                    "seed {seed}: {head}\n{text}"
                );
            }
        }
        let loaded = loopsim::load::load_bytes("random.loop", text.as_bytes()).unwrap();
        let trace = interp::run(&loaded.file, &loaded.src, "", loopsim::emit::run_options());
        assert!(
            !matches!(trace.ending, loopsim::trace::Ending::Limit(_)),
            "seed {seed}: stopped at a limit\n{text}"
        );
        // A text logged more often than written: a link that ran again.
        let mut counts = BTreeMap::new();
        for (_, line) in trace.logs() {
            *counts.entry(line.to_string()).or_insert(0) += 1;
        }
        repeated += usize::from(counts.values().any(|&n| n > 1));
    }
    println!("{with_again} of 200 programs have `again`; in {repeated} a link ran more than once");
    assert!(with_again >= 40, "{with_again} of 200 programs have `again`");
    assert!(repeated >= 20, "in {repeated} of 200 programs a link ran more than once");
    // The first family is untouched: no `times` there.
    assert!((0..200).all(|seed| !promise_gen::program(seed).contains(" times ")));
}
