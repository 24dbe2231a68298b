//! The promise language's front end (docs/language.md, "Promises and async
//! functions"): each construct parses to its tree, the translations a01–a13
//! (tests/promises/) parse and check clean, names resolve to their slots,
//! the printer round-trips every `.loop` file of the repository, and the CLI
//! runs them (every translation's prediction holds), and the reduced cases
//! of tests/promises/regressions/ run and their predictions hold.

mod common;

use loopsim::check::{self, promises};
use loopsim::load::{load_bytes, LoadError};
use loopsim::sched::NodeVersion;
use loopsim::syntax::ast::*;
use loopsim::syntax::parse;
use loopsim::syntax::print::{outline, print};
use std::path::{Path, PathBuf};
use std::process::Command;

fn tree(src: &str) -> String {
    outline(&parse(src).unwrap_or_else(|p| panic!("{src}: {p:?}")))
}

#[test]
fn each_construct_parses_to_its_tree() {
    let cases: [(&str, &str); 24] = [
        ("async f { log \"a\" }", "AsyncDef f\n  body:\n    Log \"a\"\n"),
        ("call f", "Call f\n"),
        (
            "interval 20 \"beat\" times 3 async { await value }",
            "Callback interval amount=20 label=\"beat\" times=3 async\n  body:\n    Await (Value)\n",
        ),
        (
            "then \"a\" .then async { return resolved } .catch \"c\" .finally \"f\"",
            "Callback then label=\"a\"\n  .then async\n    body:\n      Return (Resolved)\n  .catch label=\"c\"\n  .finally label=\"f\"\n",
        ),
        ("await call f .then \"x\"", "Await (Call f .then \"x\")\n"),
        ("return", "Return -\n"),
        ("return p .catch \"caught\"", "Return (Name p .catch \"caught\")\n"),
        ("throw", "Throw\n"),
        (
            "try { await rejected } catch { log \"c\" }",
            "Try\n  body:\n    Await (Rejected)\n  catch:\n    Log \"c\"\n",
        ),
        (
            "promise p { resolve } .then \"a\"",
            "Promise p executor\n  body:\n    Resolve - with=-\n  .then label=\"a\"\n",
        ),
        ("promise { reject }", "Promise - executor\n  body:\n    Reject -\n"),
        ("promise p async { }", "Promise p executor async\n  body:\n"),
        ("promise p = thenable", "Promise p = (Thenable)\n"),
        ("chain rejected", "Chain (Rejected)\n"),
        ("resolve ready with call f", "Resolve ready with=(Call f)\n"),
        ("reject ready", "Reject ready\n"),
        ("on unhandledRejection \"u\"", "On unhandledRejection label=\"u\"\n"),
        ("on rejectionHandled { log \"h\" }", "On rejectionHandled\n  body:\n    Log \"h\"\n"),
        (
            "chain allSettled [resolved, value] .then \"s\"",
            "Chain (allSettled (Resolved) (Value) .then \"s\")\n",
        ),
        ("chain all []", "Chain (all)\n"),
        (
            "chain any [race [p], q .then \"x\"]",
            "Chain (any (race (Name p)) (Name q .then \"x\"))\n",
        ),
        ("await timeout 5", "Await (Timeout 5)\n"),
        ("await immediate", "Await (Immediate)\n"),
        (
            "await promise { timeout 5 { resolve } }",
            "Await (Executor\n  body:\n    Callback timeout amount=5\n      body:\n        Resolve - with=-\n)\n",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(tree(src), want, "{src}");
    }
}

#[test]
fn directives_endings_and_the_rejections_phase() {
    let src = "rejections warn\nchain rejected\nexpect { turn 0 rejections \"u\"  unhandled } or { unsettled }\n";
    assert_eq!(
        tree(src),
        "rejections=warn\nChain (Rejected)\nExpect [Some(0) None Some(\"rejections\") \"u\"] ending=unhandled\nExpect ending=unsettled\n"
    );
}

#[test]
fn keyword_prefixes_are_not_names_and_names_may_start_with_keywords() {
    // PEG traps: a keyword that is a prefix of another (or of a name).
    assert_eq!(tree("chain allSettled [resolved]"), "Chain (allSettled (Resolved))\n");
    assert_eq!(tree("chain all [rejected]"), "Chain (all (Rejected))\n");
    assert_eq!(tree("chain thenable .then \"t\""), "Chain (Thenable .then \"t\")\n");
    assert_eq!(
        tree("promise resolvedP = resolved\nchain resolvedP"),
        "Promise resolvedP = (Resolved)\nChain (Name resolvedP)\n"
    );
    assert_eq!(
        tree("promise allDone = value\nchain allDone"),
        "Promise allDone = (Value)\nChain (Name allDone)\n"
    );
    assert_eq!(tree("rejections throw\nlog \"a\""), "rejections=throw\nLog \"a\"\n");
    // `async` belongs to the header only right before a body.
    assert_eq!(
        tree("immediate \"x\"\nasync worker { log \"w\" }"),
        "Callback immediate label=\"x\"\nAsyncDef worker\n  body:\n    Log \"w\"\n"
    );
    // `return` followed by a statement is a bare return.
    assert_eq!(
        tree("then {\n  return\n  log \"after\"\n}"),
        "Callback then\n  body:\n    Return -\n    Log \"after\"\n"
    );
    // A keyword is never a name.
    assert!(parse("promise then = value").is_err());
    assert!(parse("call resolve").is_err());
}

fn clean(name: &str, src: &str) -> File {
    match load_bytes(name, src.as_bytes()) {
        Ok(loaded) => {
            assert!(loaded.warnings.is_empty(), "{name}: {:?}", loaded.warnings);
            loaded.file
        }
        Err(LoadError::Invalid(fp)) => panic!("{name}: {:?}", fp.problems),
        Err(e) => panic!("{name}: {e:?}"),
    }
}

fn translations() -> Vec<PathBuf> {
    common::loop_files_in("tests/promises")
}

#[test]
fn the_thirteen_translations_parse_and_check_clean() {
    let paths = translations();
    assert_eq!(paths.len(), 13, "{paths:?}");
    for (i, path) in paths.iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(name.starts_with(&format!("a{:02}-", i + 1)), "{name}");
        let file = clean(&name, &std::fs::read_to_string(path).unwrap());
        assert!(promises::first_use(&file).is_some(), "{name} uses the promise language");
        assert!(file.expect.is_some(), "{name} keeps its prediction");
    }
}

#[test]
fn the_cli_runs_them_and_every_prediction_holds() {
    for path in translations() {
        let out = Command::new(env!("CARGO_BIN_EXE_loopsim")).arg("test").arg(&path).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {stdout}{}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("1 passed, 0 failed"), "{stdout}");
    }
}

/// The reduced cases of the bugs real Node found (tests/promise_random.rs):
/// each runs, and its prediction, real Node 20 and 26's output, holds.
#[test]
fn each_promise_regression_runs_and_its_prediction_holds() {
    let files = common::loop_files_in("tests/promises/regressions");
    assert!(!files.is_empty(), "no .loop file in tests/promises/regressions");
    for path in &files {
        let loaded = loopsim::load::load(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        assert!(loaded.warnings.is_empty(), "{}: {:?}", path.display(), loaded.warnings);
        let expect = loaded
            .file
            .expect
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no expect block", path.display()));
        let trace = loopsim::interp::run(&loaded.file, &loaded.src, "", loopsim::emit::run_options());
        if let Err(p) = loopsim::expect::check(expect, &trace) {
            panic!("{}: {}", path.display(), p.message);
        }
    }
}

#[test]
fn node_10_is_refused_naming_the_first_use() {
    let file = clean("t.loop", "log \"a\"\nthen \"b\" .catch \"c\"\nchain resolved\n");
    let node10 = promises::node_version(&file, Some(NodeVersion::Node10)).expect("refused");
    assert_eq!(node10.code, "loop::node-version");
    assert_eq!(node10.message, "`.catch` cannot run with --node 10");
    assert!(node10.help.as_deref().unwrap().contains("run with --node 20 or later"));
    assert_eq!((node10.span.start(), node10.span.end()), (17, 23), "`.catch`");
    assert_eq!(promises::node_version(&file, Some(NodeVersion::Node20)), None);
    assert_eq!(promises::node_version(&file, None), None, "Node 26 when nothing says otherwise");
    // The file's own `node 10`, no flag: the message names the directive, and
    // a flag overrides it.
    let directive = clean("d.loop", "node 10\nthen \"b\" .catch \"c\"\n");
    let refused = promises::node_version(&directive, None).expect("refused");
    assert_eq!(refused.message, "`.catch` cannot run on the file's `node 10`");
    let help = refused.help.as_deref().unwrap();
    assert!(
        help.contains("write `node 20` or later in place of the file's `node 10`") && !help.contains("--node"),
        "{help}"
    );
    assert_eq!(promises::node_version(&directive, Some(NodeVersion::Node24)), None);
    let plain = clean("p.loop", "then \"a\" .then \"b\"\nmicrotask \"m\"\n");
    assert_eq!(promises::first_use(&plain), None);
    assert_eq!(promises::node_version(&plain, Some(NodeVersion::Node10)), None);
    // A prediction's `rejections` phase or ending is the language too.
    let expect = clean("e.loop", "log \"a\"\nexpect { \"a\" unhandled }\n");
    assert_eq!(promises::first_use(&expect).map(|(_, w)| w), Some("unhandled"));
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["run", "--node", "10"])
        .arg(&translations()[4])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("loop::node-version"));
}

/// The slot of the `n`-th name spelt `text` (declarations and uses, in the
/// order the printer meets them).
fn slots(file: &File, text: &str) -> Vec<Option<Slot>> {
    fn walk<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Name>) {
        for s in stmts {
            match &s.kind {
                StmtKind::AsyncDef { name, .. } | StmtKind::Call(name) => out.push(name),
                StmtKind::Promise(p) => {
                    if let Some(n) = p.name() {
                        out.push(n);
                    }
                    if let PromiseStmt::Expr { expr, .. } = &**p {
                        expr_names(expr, out);
                    }
                }
                StmtKind::Await(e) | StmtKind::Chain(e) | StmtKind::Return(Some(e)) => expr_names(e, out),
                StmtKind::Resolve { target, with } => {
                    out.extend(target.as_deref());
                    if let Some(e) = with {
                        expr_names(e, out);
                    }
                }
                StmtKind::Reject { target } => out.extend(target.as_deref()),
                _ => {}
            }
            let mut bodies = Vec::new();
            match &s.kind {
                StmtKind::Repeat { body, .. } => bodies.push(&body[..]),
                StmtKind::Callback(cb) => bodies.extend(cb.body()),
                other => promise_parts(other, &mut |p| {
                    if let Part::Body(_, b) = p {
                        bodies.push(b);
                    }
                }),
            }
            for b in bodies {
                walk(b, out);
            }
        }
    }
    fn expr_names<'a>(e: &'a Expr, out: &mut Vec<&'a Name>) {
        match &e.operand {
            Operand::Name(n) | Operand::Call { name: n, .. } => out.push(n),
            Operand::Combinator { list, .. } => list.iter().for_each(|e| expr_names(e, out)),
            _ => {}
        }
    }
    let mut names = Vec::new();
    walk(&file.body, &mut names);
    names.into_iter().filter(|n| n.text == text).map(Name::slot).collect()
}

#[test]
fn names_resolve_to_depth_and_slot_with_hoisting_and_shadowing() {
    let src = "\
call later
promise p = resolved
async later {
  promise p = value
  chain p
  immediate { chain p  call later }
}
chain p
";
    let file = clean("s.loop", src);
    let slot = |depth, index, decl| Some(Slot { depth, index, decl });
    // `later`: declared at the top (index 1: after `p`), hoisted above its
    // first use; called from an immediate two blocks down, one of which
    // declares something (`later`'s body): depth 1, the immediate's block
    // (no declarations, no environment) is not counted.
    assert_eq!(slots(&file, "later"), [slot(0, 1, 1), slot(0, 1, 1), slot(1, 1, 1)]);
    // The top `p` (decl 0), then the inner `p` shadowing it inside `later`,
    // also from the immediate inside it.
    assert_eq!(
        slots(&file, "p"),
        [slot(0, 0, 0), slot(0, 0, 2), slot(0, 0, 2), slot(0, 0, 2), slot(0, 0, 0)]
    );
    assert_eq!(
        declarations(&file.body).map(|n| n.text.as_str()).collect::<Vec<_>>(),
        ["p", "later"]
    );
}

#[test]
fn contexts_allow_what_javascript_allows() {
    for src in [
        "module esm\nawait value",
        "module esm\nrepeat 2 { await value }",
        "async f { try { await rejected } catch { log \"c\" }  return }\ncall f",
        "then { throw }",
        "then \"a\" .catch { return rejected }",
        "immediate async { await immediate  return  }",
        "promise { timeout 1 { resolve with thenable } }",
        "promise p { log \"x\" }\ntimeout 1 { resolve p with value }\ntimeout 2 { reject p }",
        "promise { throw }",
        "nextTick async { await value }",
        "interval 5 \"i\" times 2 async { await timeout 1 }",
        "on unhandledRejection",
        "rejections warn\nchain rejected",
    ] {
        let file = parse(src).unwrap_or_else(|p| panic!("{src}: {p:?}"));
        let problems = check::check(&file);
        assert!(problems.is_empty(), "{src}: {problems:?}");
    }
}

/// An async function its own promise's executor calls may not use that
/// promise before its first `await` (a ReferenceError in JavaScript: the
/// executor runs before the `const` is set; fresh-clone helper 87): through
/// `call`, `resolve with call`, `chain`, `resolve NAME` and another call;
/// after an `await`, or in a callback it schedules, it may.
#[test]
fn a_promise_used_by_a_call_in_its_own_executor_is_used_before_its_declaration() {
    let used = |src: &str| -> Vec<String> {
        let file = parse(src).unwrap_or_else(|p| panic!("{src}: {p:?}"));
        check::check(&file)
            .iter()
            .filter(|p| p.message.contains("is used before its declaration"))
            .map(|p| format!("{}..{}", p.span.start(), p.span.end()))
            .collect()
    };
    for (src, at) in [
        ("promise p { call f resolve }\nasync f { await p }", "45..46"),
        ("promise p { resolve with call f }\nasync f { await p }\ncall f", "50..51"),
        ("promise p { call g }\nasync g { chain p .then \"x\" }", "37..38"),
        (
            "promise p { call g }\nasync g { call h }\nasync h { log \"h\" resolve p }",
            "66..67",
        ),
        ("promise p { call f }\nasync f { try { await all [value, p] } catch { } }", "55..56"),
        // `promise NAME = EXPR` evaluates its calls before the name is set
        // too (fresh-clone helper 88).
        ("promise p = call f\nasync f { await p }", "35..36"),
        ("promise p = all [call f] .then \"x\"\nasync f { chain p }", "51..52"),
    ] {
        assert_eq!(used(src), [at], "{src}");
    }
    for src in [
        "promise p { call f resolve }\nasync f { await timeout 1 await p }",
        "promise p { call f resolve }\nasync f { timeout 1 { chain p } }",
        "promise p { call f resolve }\nasync f { log \"f\" }\nasync g { await p }\ncall g",
        "async f { call f await value }\npromise p { call f resolve }",
    ] {
        assert_eq!(used(src), Vec::<String>::new(), "{src}");
    }
}

/// Every `.loop` file in the repository (but `target`, `.git`, `fuzz`).
fn repository_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if !["target", ".git", "fuzz", "node_modules"].contains(&name.as_str()) {
                repository_files(&path, out);
            }
        } else if name.ends_with(".loop") {
            out.push(path);
        }
    }
}

#[test]
fn printing_round_trips_every_loop_file_of_the_repository() {
    let mut files = Vec::new();
    repository_files(Path::new("."), &mut files);
    let mut printed = 0;
    for path in &files {
        let Ok(src) = std::fs::read_to_string(path) else { continue };
        let Ok(file) = parse(&src) else { continue };
        let text = print(&file);
        let again = parse(&text).unwrap_or_else(|p| panic!("{}: the printed text does not parse: {p:?}\n{text}", path.display()));
        assert_eq!(outline(&again), outline(&file), "{}:\n{text}", path.display());
        assert_eq!(print(&again), text, "{}: printing is canonical", path.display());
        printed += 1;
    }
    assert!(printed >= 60, "only {printed} files round-tripped");
}

#[test]
fn printing_is_canonical_text() {
    let src = "title \"t\"\nrejections warn\nasync f {   await   call g .then \"x\"  }\nasync g{}\ncall f\nsubmit \"job\" 4 { log \"a\\\"b\" }\nio \"r\" after 2\nexpect { turn 1 at 2 check \"a\" limit timers }\n";
    let want = "\
title \"t\"
rejections warn
async f {
  await call g .then \"x\"
}
async g { }
call f
submit \"job\" 4 {
  log \"a\\\"b\"
}
io \"r\" after 2
expect {
  turn 1 at 2 check \"a\"
  limit timers
}
";
    assert_eq!(print(&parse(src).unwrap()), want);
}

#[test]
fn the_docs_examples_of_the_promise_language_parse_and_check_clean() {
    let md = std::fs::read_to_string("docs/language.md").unwrap();
    let section = &md[md.find("## 9. Promises and async functions").unwrap()..];
    let mut count = 0;
    for block in section.split("```loop\n").skip(1) {
        let src = block.split("```").next().unwrap();
        let file = clean("docs.loop", src);
        assert!(promises::first_use(&file).is_some(), "{src}");
        count += 1;
    }
    assert_eq!(count, 5);
}

#[test]
fn the_rule_8_examples_of_scheduling_md_parse_and_check_clean() {
    let md = std::fs::read_to_string("docs/scheduling.md").unwrap();
    let mut count = 0;
    let rule8 = &md[md.find("## Rule 8").unwrap()..];
    for block in rule8.split("```loop\n").skip(1) {
        let src = block.split("```").next().unwrap();
        let file = clean("rule8.loop", src);
        if promises::first_use(&file).is_none() {
            continue; // the hop's own example: `then` chains and a microtask
        }
        assert!(file.expect.is_some(), "each example states real Node's answer:\n{src}");
        count += 1;
    }
    assert_eq!(count, 14, "parts 8a-8l (two each for 8k and 8l)");
}

#[test]
fn the_promise_examples_parse_and_check_clean() {
    let paths = common::loop_files_in("examples/promises");
    assert!(paths.len() >= 10, "{paths:?}");
    for path in &paths {
        let name = path.file_name().unwrap().to_string_lossy();
        let file = clean(&name, &std::fs::read_to_string(path).unwrap());
        assert!(promises::first_use(&file).is_some(), "{name} uses the promise language");
        assert!(file.expect.is_some(), "{name} states its answer");
        assert!(file.title.is_some(), "{name} has a title");
    }
}

/// `--explain` names the hop rule (a part of rule 8) on every line a promise placed: each line
/// a promise job, a resumed `await` or a rejection listener printed, in every translation and
/// promise example; and a line of an async body run synchronously names rule 8e.
#[test]
fn explain_names_the_hop_rule_on_every_line_a_promise_placed() {
    let mut files = translations();
    files.extend(common::loop_files_in("examples/promises"));
    let mut checked = 0;
    for path in files {
        let loaded = loopsim::load::load(&path).unwrap();
        let opts = loopsim::interp::RunOptions {
            explain: true,
            ..loopsim::interp::RunOptions::default()
        };
        let trace = loopsim::interp::run(&loaded.file, &loaded.src, "", opts);
        let logs: Vec<_> = trace.logs().collect();
        assert_eq!(logs.len(), trace.explanations.len(), "{}", path.display());
        for ((event, text), why) in logs.iter().zip(&trace.explanations) {
            if matches!(event.phase, loopsim::sched::Phase::Microtask | loopsim::sched::Phase::Rejections) {
                assert!(
                    why.contains("rule 8") || why.contains("rules 8"),
                    "{}: {text}: {why}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 80, "{checked} lines");
    let file = clean("s.loop", "async f { log \"inside\" await value }\ncall f\n");
    let opts = loopsim::interp::RunOptions {
        explain: true,
        ..loopsim::interp::RunOptions::default()
    };
    let trace = loopsim::interp::run(&file, "async f { log \"inside\" await value }\ncall f\n", "", opts);
    assert!(
        trace.explanations[0].ends_with("an async function runs synchronously until its first `await` (rule 8e)"),
        "{:?}",
        trace.explanations
    );
}

/// A trace line from its `n`-th column on (0: turn), blanks between columns
/// made one space.
fn columns_from(line: &str, n: usize) -> String {
    line.split_whitespace().skip(n).collect::<Vec<_>>().join(" ")
}

fn loopsim_on(src: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.loop");
    std::fs::write(&path, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(args)
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_trace_shows_suspensions_and_how_the_process_ends() {
    let (code, out, _) = loopsim_on("async w { log \"a\"  await resolved  log \"b\" }\ncall w\nlog \"main\"\n", &["run"]);
    assert_eq!(code, Some(0));
    let lines: Vec<String> = out.lines().skip(1).map(|l| columns_from(l, 3)).collect();
    assert_eq!(
        lines,
        [
            "a",
            "⏸ w suspends at the await of line 1",
            "main",
            "▶ w resumes after the await of line 1",
            "b"
        ]
    );
    let (code, out, _) = loopsim_on("immediate \"never\"\nchain rejected\n", &["run"]);
    assert_eq!(code, Some(0), "the simulated process ends with 1; loopsim ran it fully");
    assert!(
        out.contains("exit       the process exits with code 1: the promise rejected at line 2 has no handler (rule 8k)"),
        "{out}"
    );
    assert!(!out.contains("never"), "{out}");
    let (_, out, _) = loopsim_on("module esm\npromise p { }\nawait p\nlog \"never\"\n", &["run"]);
    assert!(
        out.contains("the top-level await at line 3 never settled: the process exits with code 13 (rule 8l)"),
        "{out}"
    );
    let (_, json, _) = loopsim_on("chain rejected\n", &["run", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["end"].as_str(), v["line"].as_u64(), v["code"].as_i64()),
        (Some("unhandled"), Some(1), Some(1))
    ); // An unsettled top-level await gives its exit code too (fresh-clone helper 91, 7).
    let (_, json, _) = loopsim_on("module esm\npromise p { }\nawait p\n", &["run", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["end"].as_str(), v["line"].as_u64(), v["code"].as_i64()),
        (Some("unsettled"), Some(3), Some(13))
    );
}

#[test]
fn a_prediction_names_the_ending() {
    let (code, _, err) = loopsim_on("chain rejected\nlog \"a\"\nexpect { \"a\" }\n", &["check"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("predicted the process ends normally (exit code 0), but it ends with exit code 1 by an unhandled rejection"),
        "{err}"
    );
    assert!(err.contains("end the expect block with `unhandled`"), "{err}");
    let (code, _, err) = loopsim_on("log \"a\"\nexpect { \"a\" unhandled }\n", &["check"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("delete the `unhandled` line"), "{err}");
    let (code, _, _) = loopsim_on("module esm\npromise p { }\nawait p\nexpect { unsettled }\n", &["check"]);
    assert_eq!(code, Some(0));
}

/// How the process ends is part of an order (docs/orders.md "What is
/// listed"): where a millisecond boundary passes before turn 1's timers
/// phase, `p` rejects before its `.catch` is attached and the process exits
/// with code 1 after the same lines (none) as the model's order, which
/// exits with code 0. Real Node prints nothing and exits with 0 or with 1
/// by timing: `verify --runs 60 --scale 1` on this file (checked by hand)
/// saw 49 runs exit 0 and 11 exit 1 on Node 20.20.2, 58 and 2 on 26.12.1,
/// each allowed.
#[test]
fn orders_of_the_same_lines_that_end_otherwise_are_two_orders() {
    let src = "promise p { timeout 0 { reject } }\nimmediate { chain p .catch }\n";
    let (code, json, _) = loopsim_on(src, &["run", "--all-orders", "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["count"], 2);
    assert_eq!(v["orders"], serde_json::json!([[], []]));
    assert_eq!(v["exitCodes"], serde_json::json!([0, 1]));
    assert_eq!(v["stopped"], serde_json::json!([false, false]));
    assert_eq!(v["races"][0]["kind"], "ends");
    assert_eq!(
        v["races"][0]["statement"],
        "with no line printed, the process may exit with code 0 or exit with code 1 (an unhandled rejection) \
         (2 orders): a millisecond boundary passed before the timers phase of turn 1"
    );
    let (_, text, _) = loopsim_on(src, &["run", "--all-orders", "--list"]);
    assert!(
        text.contains(
            "order 2 (a millisecond boundary passed before the timers phase of turn 1, then exit code 1 \
             (an unhandled rejection)):\n  (no log lines)"
        ),
        "{text}"
    );
}

/// `check` compares each alternative's ending with the order's: `or { }`
/// names the order of no line that exits with code 0, which Node never
/// prints here; the order of no line that an unhandled rejection ends is
/// missing, and its block says `unhandled`.
#[test]
fn alternatives_are_checked_with_their_endings() {
    let src = "promise p { timeout 0 { reject } }\nimmediate { chain p .catch \"caught\" }\n";
    let (code, _, err) = loopsim_on(&format!("{src}expect {{ \"caught\" }} or {{ }}\n"), &["check"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("Node can print exactly these lines, but then an unhandled rejection ends the process"),
        "{err}"
    );
    assert!(
        err.contains("real Node 26 can also print: no line, then exit code 1 (an unhandled rejection)"),
        "{err}"
    );
    assert!(err.contains("add it as `or { unhandled }`"), "{err}");
    let (code, out, err) = loopsim_on(&format!("{src}expect {{ \"caught\" }} or {{ unhandled }}\n"), &["check"]);
    assert_eq!(code, Some(0), "{out}{err}");
    // One alternative alone, another order than the model's: searched for with its ending.
    let (code, out, err) = loopsim_on(&format!("{src}expect {{ unhandled }}\n"), &["check"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let (code, _, err) = loopsim_on(&format!("{src}expect {{ \"caught\" unhandled }}\n"), &["check"]);
    assert_eq!(code, Some(1), "{err}");
}

#[test]
fn recursion_and_await_loops_stop_at_their_bounds() {
    let (code, _, err) = loopsim_on("async f { call f }\ncall f\n", &["run"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("async functions call each other too deep"), "{err}");
    assert!(err.contains("stopped at 200 nested calls"), "{err}");
    // Each round makes a promise: the run stops at the promises it holds, in bounded memory
    // (said as such: a timer between the rounds would not starve the loop, below).
    let (code, out, err) = loopsim_on("async f { await value  call f }\ncall f\n", &["run"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("the run makes more promises than it can hold"), "{err}");
    let (code, _, err) = loopsim_on("async f {\n  await timeout 1\n  call f\n}\ncall f\n", &["run"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("the run makes more promises than it can hold"), "{err}");
    assert!(!err.contains("starved"), "{err}");
    assert!(out.lines().count() <= 10_003, "at most 10,000 suspensions shown");
    // Where they stop, the trace says so, once.
    let cut = "⏸/▶ lines stop here: a trace shows the first 10,000 (`--verbose` shows them all)";
    assert_eq!(out.matches(cut).count(), 1, "{out}");
    let shown = out.split(cut).next().unwrap();
    assert_eq!(shown.matches("⏸ f suspends").count() + shown.matches("▶ f resumes").count(), 10_000);
    assert!(!out.split(cut).nth(1).unwrap().contains('⏸'), "none after the note");
    // In JSON, the event carries the count shown.
    let (_, json, _) = loopsim_on("async f {\n  await timeout 1\n  call f\n}\ncall f\n", &["run", "--format", "json"]);
    let compact: String = json.split_whitespace().collect();
    let event = r#""event":"suspensionsCut","shown":10000"#;
    assert_eq!(compact.matches(event).count(), 1, "{}", &json[json.len().saturating_sub(400)..]);
    let (code, _, _) = loopsim_on("async f { await value  call f }\ncall f\nexpect { limit microtask }\n", &["check"]);
    assert_eq!(code, Some(0));
}

/// `--verbose` shows the `timers/promises` timer that fulfils an `await`'s
/// promise: scheduled in the main module, run in the timers phase before the
/// resumption in microtask (fresh-clone helper 67 saw the resumption first,
/// as if before the timers phase).
#[test]
fn verbose_shows_the_timer_that_fulfils_an_await() {
    let src = "async main {\n  await timeout 5\n  log \"resumed\"\n}\ncall main\ntimeout 5 \"plain timer\"\n";
    let (code, out, _) = loopsim_on(src, &["run", "--verbose"]);
    assert_eq!(code, Some(0));
    let rows: Vec<String> = out.lines().skip(1).map(|l| columns_from(l, 2)).collect();
    assert_eq!(
        rows,
        [
            "main ▶ main (line 1)",
            "main + timers/promises setTimeout: due at 5 (line 2)",
            "main ⏸ main suspends at the await of line 2",
            "main + timeout \"plain timer\": due at 5 (line 6)",
            "main ◀ returns",
            "── turn 1 begins",
            "sleep poll sleeps from tick 0 to 5",
            "timers ▶ timers/promises setTimeout (line 2)",
            "timers ◀ returns",
            "microtask ▶ main resumes after the await of line 2",
            "microtask resumed",
            "microtask ◀ returns",
            "timers ▶ timeout \"plain timer\" (line 6)",
            "timers plain timer",
            "timers ◀ returns",
            "── nothing left: the loop exits",
        ]
    );
    // In JSON the resumption is a call of kind "resume" with whose body it is.
    let (_, json, _) = loopsim_on(src, &["run", "--verbose", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let resume = doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["kind"] == "resume")
        .expect("a resume");
    assert_eq!(resume["by"].to_string(), r#"{"kind":"function","name":"main"}"#);
    assert_eq!(resume["event"], "call");
    // An `fs.promises` call is named by its method, in the trace and in
    // `--explain` (helper 68 found "fs.promises call" for both).
    let src = "async r {\n  await readFile\n  log \"read\"\n}\ncall r\nasync w {\n  await writeFile\n  log \"wrote\"\n}\ncall w\n";
    let (code, out, _) = loopsim_on(src, &["run", "--verbose", "--node", "20"]);
    assert_eq!(code, Some(0));
    let settlers: Vec<String> = out
        .lines()
        .map(|l| columns_from(l, 2))
        .filter(|l| l.contains("fs.promises"))
        .collect();
    assert_eq!(
        settlers,
        [
            "main + fs.promises readFile: thread-pool round trips, the promise fulfilled after the last (line 2)",
            "main + fs.promises writeFile: thread-pool round trips, the promise fulfilled after the last (line 7)",
            "poll ▶ fs.promises writeFile (line 7)",
            "poll ▶ fs.promises readFile (line 2)",
        ]
    );
    let (_, out, _) = loopsim_on(src, &["run", "--explain", "--node", "20"]);
    assert!(
        out.contains("the `fs.promises.readFile` call fulfilled that promise in the poll phase"),
        "{out}"
    );
    assert!(
        out.contains("the `fs.promises.writeFile` call fulfilled that promise in the poll phase"),
        "{out}"
    );
}

/// ⏸ and ▶ name an `async` callback by its label with `{n}` filled in, and
/// one without a label by its kind (fresh-clone helper 68 found "beat {n}"
/// as written and unlabelled callbacks unnamed).
#[test]
fn suspensions_name_unlabelled_callbacks_and_fill_in_labels() {
    let src = "timeout 5 async {\n  await resolved\n}\ninterval 20 \"beat {n}\" times 2 async {\n  await resolved\n}\nthen \"t\" .then async {\n  await resolved\n}\n";
    let (code, out, _) = loopsim_on(src, &["run"]);
    assert_eq!(code, Some(0));
    let notes: Vec<String> = out.lines().filter(|l| l.contains('⏸')).map(|l| columns_from(l, 3)).collect();
    assert_eq!(
        notes,
        [
            "⏸ the .then callback suspends at the await of line 8",
            "⏸ the timeout callback suspends at the await of line 2",
            "⏸ \"beat 1\" suspends at the await of line 5",
            "⏸ \"beat 2\" suspends at the await of line 5",
        ]
    );
    // JSON names each by its kind and name, a label unquoted.
    let (_, json, _) = loopsim_on(src, &["run", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let by: Vec<String> = doc["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "suspend")
        .map(|e| e["by"].to_string())
        .collect();
    assert_eq!(
        by,
        [
            r#"{"kind":"callback","name":".then"}"#,
            r#"{"kind":"callback","name":"timeout"}"#,
            r#"{"kind":"label","name":"beat 1"}"#,
            r#"{"kind":"label","name":"beat 2"}"#,
        ]
    );
    // A label with a quote is quoted as a string literal in the trace.
    let (_, out, _) = loopsim_on("timeout 0 \"say \\\"hi\\\"\" async {\n  await resolved\n}\n", &["run"]);
    assert!(out.contains("⏸ \"say \\\"hi\\\"\" suspends at the await of line 2"), "{out}");
}
