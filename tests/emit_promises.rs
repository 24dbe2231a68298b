//! `emit-js` for the promise language (docs/language.md, section 9): the
//! JavaScript each translation of tests/promises/ becomes (snapshots in
//! `snapshots/emit-promises/`), and a hostile text in every string position of
//! the promise statements stays inside string literals (as
//! `tests/emit_safety.rs` checks for the other statements). Running these
//! programs with real `node` is `tests/emit_promises_node.rs`'s work.
//!
//! The CLI still refuses these files (`check::promises::gate`): the tests
//! load, check and emit them through the library.

use loopsim::emit::{self, EmitOptions, Program};
use loopsim::load;

mod common;
mod safety;
use safety::js::{outside_strings, tokenize};
use safety::{promise_cases, PAYLOAD};

fn emit_src(name: &str, src: &str) -> Program {
    let loaded = load::load_bytes(name, src.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e:?}\n{src}"));
    let opts = EmitOptions {
        scale: emit::DEFAULT_SCALE,
        name: name.to_string(),
    };
    emit::emit(&loaded.file, &loaded.src, &opts).unwrap_or_else(|p| panic!("{name}: {p:?}"))
}

#[test]
fn emitted_javascript_of_the_promise_translations() {
    let files = common::loop_files_in("tests/promises");
    assert_eq!(files.len(), 13, "a01 to a13");
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(path).unwrap();
        let program = emit_src(&path.display().to_string(), &src);
        assert_eq!(program.esm, name.starts_with("a12"), "only a12 is `module esm`");
        insta::with_settings!({snapshot_path => "../snapshots/emit-promises", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(name.as_str(), program.js);
        });
    }
}

#[test]
fn each_promise_statement_becomes_its_javascript() {
    let cases: &[(&str, &[&str])] = &[
        ("async f { log \"a\" }\ncall f\n", &["async function f() {\n  console.log(\"a\");\n}\n", "\nf();\n"]),
        (
            "async f { await call f .then \"x\" }\n",
            &["  await f().then(() => console.log(\"x\"));\n"],
        ),
        (
            "promise p { resolve } .then \"a\" .catch \"b\" .finally \"c\"\n",
            &["const p = new Promise((resolve, reject) => {\n  resolve();\n}).then(() => console.log(\"a\")).catch(() => console.log(\"b\")).finally(() => console.log(\"c\"));\n"],
        ),
        ("promise { }\n", &["\nnew Promise((resolve, reject) => {});\n"]),
        (
            "promise ready { log \"now\" }\ntimeout 5 { resolve ready }\nimmediate { reject ready }\n",
            &[
                "let resolveReady, rejectReady; // set by the executor, called from outside it\nconst ready = new Promise((resolve, reject) => {\n  resolveReady = resolve;\n  rejectReady = reject;\n  console.log(\"now\");\n});\n",
                "setTimeout(() => resolveReady(), ticks(5));\n",
                "setImmediate(() => rejectReady(new Error(\"rejected\")));\n",
            ],
        ),
        ("promise p = rejected\n", &["const p = Promise.reject(new Error(\"rejected\"));\n"]),
        ("promise p = value\nchain p .then \"v\"\n", &["const p = null;\nPromise.resolve(p).then(() => console.log(\"v\"));\n"]),
        ("chain thenable\n", &["\n({ then(resolve) { resolve(); } });\n"]),
        ("chain value .then \"v\"\n", &["Promise.resolve(null).then(() => console.log(\"v\"));\n"]),
        (
            "chain all [resolved, value, thenable] .then \"all\"\nchain any [race [timeout 2], immediate]\n",
            &[
                "Promise.all([Promise.resolve(), null, { then(resolve) { resolve(); } }]).then(() => console.log(\"all\"));\n",
                "Promise.any([Promise.race([timersPromises.setTimeout(ticks(2))]), timersPromises.setImmediate()]);\n",
                "const timersPromises = require('node:timers/promises');\n",
            ],
        ),
        (
            "promise { timeout 1 { resolve with call f } }\nasync f { return }\n",
            &["  setTimeout(() => resolve(f()), ticks(1));\n", "async function f() {\n  return;\n}\n"],
        ),
        (
            "then { return value } .then async { throw }\n",
            &["Promise.resolve().then(() => {\n  return null;\n}).then(async () => {\n  throw new Error(\"thrown\");\n});\n"],
        ),
        (
            "async f { try { await rejected } catch { log \"caught\" } }\n",
            &["  try {\n    await Promise.reject(new Error(\"rejected\"));\n  } catch {\n    console.log(\"caught\");\n  }\n"],
        ),
        (
            "on unhandledRejection \"u\"\non rejectionHandled { log \"h\" }\n",
            &[
                "process.on('unhandledRejection', () => console.log(\"u\"));\n",
                "process.on('rejectionHandled', () => console.log(\"h\"));\n",
            ],
        ),
        (
            "rejections warn\nchain rejected\n",
            &[
                "// Node flag: --unhandled-rejections=warn",
                "const { spawnSync } = require('node:child_process');\n",
                "if (!process.execArgv.includes('--unhandled-rejections=warn')) {\n",
            ],
        ),
        ("module esm\nawait immediate\n", &["import timersPromises from 'node:timers/promises';\n", "\nawait timersPromises.setImmediate();\n"]),
        // A handler's one statement that gives a promise is not its arrow's value.
        ("then { call f } .then \"b\"\nasync f { }\n", &["Promise.resolve().then(() => {\n  f();\n}).then("]),
        ("then { then \"a\" } .then \"b\"\n", &["Promise.resolve().then(() => {\n  Promise.resolve().then("]),
    ];
    for (src, wanted) in cases {
        let js = emit_src("case.loop", src).js;
        for want in *wanted {
            assert!(js.contains(want), "{src}\nwants {want:?} in:\n{js}");
        }
    }
}

#[test]
fn n_survives_the_awaits_of_an_async_interval() {
    let js = emit_src(
        "a.loop",
        "interval 2 times 2 async { log \"a {n}\" await immediate log \"b {n}\" }\n",
    )
    .js;
    assert!(js.contains("  let runs = 0; // runs so far\n"), "{js}");
    assert!(js.contains("setInterval(async () => {\n    const n = ++runs;"), "{js}");
    assert!(js.contains("if (n === 2) clearInterval(interval);"), "{js}");
}

#[test]
fn a_link_that_calls_again_gets_no_value_as_its_run_number() {
    // `.catch` is passed the reason: the function is declared first and called with nothing.
    let js = emit_src("a.loop", "chain rejected .catch \"c\" times 2 { log \"c {n}\" again }\n").js;
    assert!(js.contains("\nfunction cb0(n = 1) {\n"), "{js}");
    assert!(js.contains("Promise.reject(new Error(\"rejected\")).catch(() => cb0());\n"), "{js}");
    // In a `then` chain whose earlier handlers return nothing, the link is passed `undefined`.
    let js = emit_src("b.loop", "then \"a\" .then \"b\" times 2 { again }\n").js;
    assert!(js.contains(".then(function cb1(n = 1) {"), "{js}");
    let js = emit_src("c.loop", "then { return value } .then \"b\" times 2 { again }\n").js;
    assert!(js.contains(".then(() => cb1());"), "{js}");
}

#[test]
fn names_the_program_uses_itself_get_an_underscore() {
    let js = emit_src(
        "a.loop",
        "promise fs = resolved\npromise cb3 { resolve }\nchain all [fs, cb3]\ntimeout 1 { resolve cb3 }\n",
    )
    .js;
    assert!(js.contains("const fs_ = Promise.resolve();\n"), "{js}");
    assert!(js.contains("const cb3_ = new Promise("), "{js}");
    assert!(js.contains("Promise.all([fs_, cb3_]);\n"), "{js}");
    assert!(js.contains("setTimeout(() => resolveCb3_(), ticks(1));"), "{js}");
    // Two executors whose resolving functions would share a name.
    let js = emit_src(
        "b.loop",
        "promise ready { }\npromise Ready { }\nimmediate { resolve ready  resolve Ready }\n",
    )
    .js;
    assert!(js.contains("let resolveReady;"), "{js}");
    assert!(js.contains("let resolveReady2;"), "{js}");
}

#[test]
fn hostile_texts_in_promise_statements_stay_in_string_literals() {
    for case in promise_cases() {
        let js = emit_src("payload.loop", &case.src).js;
        let context = || format!("{}:\n{js}", case.what);
        assert!(!js.contains(['\u{2028}', '\u{2029}']), "a raw line terminator: {}", context());
        for raw in ['\u{7f}', '\u{85}', '\u{202e}', '\r', '\t'] {
            assert!(!js.contains(raw), "raw {raw:?}: {}", context());
        }
        assert!(!js.contains("</script"), "{}", context());
        let outside = outside_strings(&js);
        assert!(outside.is_empty(), "{outside:#?}\n{}", context());
        let pieces = tokenize(&js);
        let whole = pieces.strings.iter().filter(|s| *s == PAYLOAD).count();
        assert!(whole >= 3, "{whole} literals decode to the payload: {}", context());
        assert!(pieces.templates.iter().all(|t| !t.contains("PWN")), "{}", context());
    }
}
