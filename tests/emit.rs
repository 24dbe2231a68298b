//! `loopsim emit-js`: the emitted JavaScript of a few files (snapshots in
//! `snapshots/emit/`). Running the programs with real `node` is the
//! real-node suite's work (`tests/differential.rs`).

use loopsim::emit::{self, EmitOptions, Program};
use loopsim::load::{self, Loaded};
use std::path::Path;
use std::process::Command;

/// Every statement form, for the snapshot (not run: it races on purpose).
const EVERY_STATEMENT: &str = r#"title "every statement"
pool 2
log "main {x} `tpl` ${x} \"q\" back\\slash"
repeat 2 {
  timeout 1 "t{i}" {
    log "t{i} run {n} count {k}"
    repeat 2 { log "  inner {i}" }
  }
}
timeout 3 "again" times 3 { log "again {n}" again }
interval 2 "iv" times 3 { log "iv {n}" }
interval 2 "forever" { log "forever {n}" }
timeout 9 { clear "forever" }
immediate "imm" times 2 { log "imm {n}" again }
immediate "cleared"
clear "cleared"
nextTick "tick" times 2 { log "tick {n}" again }
microtask "mt" times 2 { log "mt {n}" again }
then "head" times 2 { log "head {n}" again } .then "link" { log "link" } .then "last"
then "a" .then "b" times 2 { log "b {n}" again }
io "io" after 1 { log "io {k}" submit "job" 1 { log "job" } }
submit "quick" 0
close "c1"
close "c2" { log "c2" pending "p" }
pending
"#;

fn program(loaded: &Loaded) -> Program {
    let opts = EmitOptions {
        scale: emit::DEFAULT_SCALE,
        name: loaded.name.clone(),
    };
    emit::emit(&loaded.file, &loaded.src, &opts).expect("the scale fits every timer")
}

fn load(path: &Path) -> Loaded {
    load::load(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
}

#[test]
fn emitted_javascript_snapshots() {
    let mut cases: Vec<(String, Loaded)> = [
        "examples/phases/p01-read-callback-schedules-three.loop",
        "examples/real-node/p04-same-order-from-poll-and-timers.loop",
        "examples/thread-pool/p09a-tiny-job-waits-pool-4.loop",
        "examples/starvation/p16-microtask-starvation.loop",
        "examples/starvation/p22a-portions-by-immediate.loop",
    ]
    .iter()
    .map(|p| {
        let name = Path::new(p).file_stem().unwrap().to_string_lossy().into_owned();
        (name, load(Path::new(p)))
    })
    .collect();
    let every = load::load_bytes("every-statement.loop", EVERY_STATEMENT.as_bytes()).expect("a valid file");
    cases.push(("every-statement".into(), every));
    for (name, loaded) in &cases {
        let program = program(loaded);
        insta::with_settings!({snapshot_path => "../snapshots/emit", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(name.as_str(), program.js);
        });
    }
}

#[test]
fn esm_files_become_es_modules() {
    let esm = program(&load(Path::new("examples/real-node/p04-same-order-from-poll-and-timers.loop")));
    assert!(esm.esm);
    assert_eq!(esm.extension(), "mjs");
    assert!(esm.js.contains("import fs from 'node:fs';"));
    assert!(
        !esm.js.lines().any(|l| l.starts_with("const") && l.contains("require(")),
        "no CommonJS require at the top level (the monitor thread's own code may use it)"
    );
    let cjs = program(&load(Path::new("examples/phases/p01-read-callback-schedules-three.loop")));
    assert!(!cjs.esm);
    assert_eq!(cjs.extension(), "js");
    assert!(cjs.js.contains("'use strict';"));
}

#[test]
fn only_the_helpers_a_file_needs() {
    let loaded = load::load_bytes("small.loop", b"nextTick \"a\"\nthen \"b\"\n").unwrap();
    let js = program(&loaded).js;
    for absent in [
        "mkfifo",
        "Worker",
        "function work",
        "clearLabel",
        "MAX_CALLBACKS",
        "UV_THREADPOOL_SIZE",
    ] {
        assert!(!js.contains(absent), "{absent} in:\n{js}");
    }
    assert!(js.contains("process.nextTick(() => console.log(\"a\"));"));
    assert!(js.contains("Promise.resolve().then(() => console.log(\"b\"));"));
}

#[test]
fn submit_0_alone_imports_fs() {
    // `submit 0` is an fs.stat: it needs `fs` even without named pipes.
    let cjs = program(&load::load_bytes("s.loop", b"submit \"a\" 0\n").unwrap()).js;
    assert!(cjs.contains("const fs = require('node:fs');"), "{cjs}");
    assert!(cjs.contains("fs.stat(process.argv[1], () => callback());"), "{cjs}");
    let esm = program(&load::load_bytes("s.loop", b"module esm\nsubmit \"a\" 0\n").unwrap()).js;
    assert!(esm.contains("import fs from 'node:fs';"), "{esm}");
}

#[test]
fn emit_js_command_prints_the_program() {
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["emit-js", "--scale", "7", "examples/phases/p07-hundred-ticks-cost-one-turn.loop"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let js = String::from_utf8(out.stdout).unwrap();
    assert!(js.contains("const TICK = 7;"), "{js}");
    assert!(js.contains("setTimeout(() => console.log(\"срок\"), ticks(100));"), "{js}");
    let bad = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["emit-js", "no-such-file.loop"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn read_file_and_write_file_are_the_real_calls() {
    let loaded = load::load_bytes("fs.loop", b"readFile \"r\"\nwriteFile \"w\" { log \"written\" }\n").unwrap();
    let js = program(&loaded).js;
    assert!(
        js.contains("fs.readFile(process.argv[1], () => (() => console.log(\"r\"))());"),
        "{js}"
    );
    assert!(js.contains("fs.writeFile(writeTarget, 'x', () => (() => {"), "{js}");
    // The one file it writes is in a private folder of its own, removed at exit.
    assert!(js.contains("fs.mkdtempSync(path.join(os.tmpdir(), 'loopsim-'))"), "{js}");
    assert!(
        js.contains("process.on('exit', () => fs.rmSync(path.dirname(writeTarget), { recursive: true, force: true }));"),
        "{js}"
    );
    let plain = load::load_bytes("p.loop", b"readFile \"r\"\n").unwrap();
    assert!(!program(&plain).js.contains("writeTarget"), "only writeFile makes the folder");
}
