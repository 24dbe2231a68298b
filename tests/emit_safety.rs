//! `emit-js` never lets a text from the file become code: every file of
//! `safety::cases()` (a hostile text as the title and in every string position)
//! and a hostile file name are emitted, the JavaScript is split into code,
//! comments, string and template literals by a small tokenizer, and the hostile
//! text must be only in string literals, escaped so that they decode to it. And
//! the timers Node would clamp at the chosen `--scale` are refused.

use loopsim::emit::{self, EmitOptions, Program};
use loopsim::load;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

mod safety;
use safety::js::{outside_strings, tokenize};
use safety::{cases, loop_string, PAYLOAD};

fn emit_named(name: &str, src: &str, scale: u64) -> Result<Program, String> {
    let loaded = load::load_bytes(name, src.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e:?}\n{src}"));
    let opts = EmitOptions {
        scale,
        name: name.to_string(),
    };
    emit::emit(&loaded.file, &loaded.src, &opts).map_err(|p| format!("{p:?}"))
}

#[test]
fn the_tokenizer_finds_text_outside_string_literals() {
    // A check that passes anything proves nothing: these must be caught.
    let sneaky = [
        "// PWN\n",
        "// a\u{2028}PWN\n",
        "/* PWN */",
        "`PWN ${1}`",
        "`${'a'} PWN`",
        "'\\'PWN'; PWN",
        "const a = \"x\\\\\"; PWN",
    ];
    for js in sneaky {
        assert!(!outside_strings(js).is_empty(), "{js:?}");
    }
    let pieces = tokenize(r#"f("PWN \u2028 \" \\ \x41 \u{1F600} \uD83D\uDE00", 'P\'WN') // ok"#);
    assert_eq!(pieces.strings, ["PWN \u{2028} \" \\ A 😀 😀", "P'WN"]);
    assert_eq!(pieces.comments, ["// ok"]);
    assert!(outside_strings(r#"f("PWN `${x}` */ // </script>"); `${"PWN"}`"#).is_empty());
}

#[test]
fn payload_in_every_string_position_stays_in_string_literals() {
    let all = cases();
    assert_eq!(all.len(), 2 * (12 * 4 + 3));
    for case in &all {
        let program = emit_named("payload.loop", &case.src, emit::DEFAULT_SCALE).unwrap();
        let js = &program.js;
        assert_eq!(program.esm, case.what.ends_with("module esm"), "{}", case.what);
        let context = || format!("{}:\n{js}", case.what);
        assert!(!js.contains(['\u{2028}', '\u{2029}']), "a raw line terminator: {}", context());
        for raw in ['\u{7f}', '\u{85}', '\u{202e}', '\r', '\t'] {
            assert!(!js.contains(raw), "raw {raw:?}: {}", context());
        }
        assert!(!js.contains("</script"), "{}", context());
        let outside = outside_strings(js);
        assert!(outside.is_empty(), "{outside:#?}\n{}", context());
        let pieces = tokenize(js);
        // The title, decoded exactly, and the payload whole in at least one more literal.
        assert!(js.contains("\nconst TITLE = \"PWN "), "{}", context());
        let whole = pieces.strings.iter().filter(|s| *s == PAYLOAD).count();
        assert!(whole >= 2, "{whole} literals decode to the payload: {}", context());
        assert!(pieces.templates.iter().all(|t| !t.contains("PWN")));
    }
}

#[test]
fn every_label_with_a_body_is_a_string_literal() {
    // The form a label with a body takes (it used to be a `//` comment).
    let src = format!("timeout 1 {} {{ log \"x\" }}\n", loop_string("a\u{2028}b"));
    let js = emit_named("f.loop", &src, 20).unwrap().js;
    assert!(
        js.contains("setTimeout(() => {\n  const label = \"a\\u2028b\";\n  console.log(\"x\");\n}, ticks(1));\n"),
        "{js}"
    );
    // {i}, {n}, {k} between texts: string literals joined by `+`, starting with a string.
    let src = "repeat 2 { timeout 1 \"{i}{k}\" times 2 { log \"{n}{i}<`${x}`>\" again } }\n";
    let js = emit_named("f.loop", src, 20).unwrap().js;
    assert!(js.contains("const label = \"{i}{k}\";"), "{js}");
    assert!(js.contains("console.log(\"\" + n + i + \"\\u003c`${x}`>\");"), "{js}");
}

#[test]
fn hostile_file_names_are_string_literals() {
    let names = [
        "x\u{2028}require('fs').writeFileSync('pwned', 'x');//.loop",
        "x\u{2029}PWN */ `${1}` </script>.loop",
        "dir/PWN\nname\r\u{1}\u{1b}\".loop",
        "PWN\\\\'.loop",
    ];
    for name in names {
        for esm in [false, true] {
            let module = if esm { "module esm\n" } else { "" };
            let program = emit_named(name, &format!("{module}log \"a\"\n"), 20).unwrap();
            let js = &program.js;
            assert!(!js.contains(['\u{2028}', '\u{2029}', '\r', '\u{1}', '\u{1b}']), "{js}");
            let pieces = tokenize(js);
            assert!(pieces.strings.iter().any(|s| s == name), "{name:?} not decoded from:\n{js}");
            let hidden = pieces.code.contains("pwned")
                || pieces.comments.iter().any(|c| c.contains("pwned") || c.contains("PWN"))
                || pieces.code.contains("PWN");
            assert!(!hidden, "{name:?} outside a string literal:\n{js}");
        }
    }
}

#[test]
fn js_string_escapes_what_json_leaves_raw() {
    assert_eq!(
        emit::js_string("a\"\\\n\u{1}\u{7f}\u{85}\u{2028}\u{2029}\u{202e}</script>é😀"),
        r#""a\"\\\n\u0001\u007f\u0085\u2028\u2029\u202e\u003c/script>é😀""#
    );
}

fn emit_js(args: &[&str], src: &str) -> (Option<i32>, String, String) {
    static DIRS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "loopsim-emit-safety-{}-{}",
        std::process::id(),
        DIRS.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("f.loop");
    std::fs::write(&file, src).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .arg("emit-js")
        .args(args)
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code(), String::from_utf8(out.stdout).unwrap(), stderr)
}

/// A run loopsim stops at a limit the program does not keep (log lines,
/// waiting callbacks, promises, call depth, the clock) is refused: the program would
/// go on for ever or fill the memory (found by the fresh-clone check). The
/// turn and callback limits the program keeps: those files still emit.
#[test]
fn runs_stopped_at_a_limit_the_program_does_not_keep_are_refused() {
    for (src, reached, at) in [
        (
            "repeat 18446744073709551615 { log \"x\" }\n",
            "2,000,000 log lines (the most a trace holds)",
            ":1:31]",
        ),
        (
            "repeat 100000000 { timeout 1 }\n",
            "more than 5,000,000 waiting callbacks (the most a run holds)",
            ":1:20]",
        ),
        (
            "repeat 1000000 { chain resolved .then \"a\" .then \"b\" }\n",
            "more than 250,000 promises, reactions or scopes (the most a run holds)",
            ":1:33]",
        ),
        (
            "async f {\n  log \"f\"\n  await call f\n}\ncall f\n",
            "200 nested calls of async functions, executors and handlers",
            ":3:9]",
        ),
        // The clock's limit: the program would hold Node for ages
        // (fresh-clone helper 87).
        (
            "timeout 1 \"w\" { work 18446744073709551615 }\n",
            "9,007,199,254,740,991 ticks on the clock",
            ":1:17]",
        ),
    ] {
        let (code, stdout, stderr) = emit_js(&[], src);
        assert_eq!(code, Some(2), "{src}: {stderr}");
        assert_eq!(stdout, "", "{src}");
        assert!(stderr.contains("loop::emit-limit"), "{src}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "loopsim stops this run at {reached}, a limit the emitted program does not keep (Node would not stop there)"
            )),
            "{src}: {stderr}"
        );
        assert!(stderr.contains(at), "{src}: at {at}: {stderr}");
        assert!(stderr.contains("only at the turn and callback limits"), "{src}: {stderr}");
    }
    // An endless `again` chain stops at the callback limit: the program counts callbacks too.
    let (code, stdout, stderr) = emit_js(&[], "immediate \"s\" { log \"s\" again }\n");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("stop("), "{stdout}");
    // A chain without `times` that fills the trace first: the help says to
    // bound it, not to lower a `repeat` count (fresh-clone helper 82).
    let (code, _, stderr) = emit_js(&[], "nextTick \"n\" { log \"n {n}\" again }\n");
    assert_eq!(code, Some(2), "{stderr}");
    let help = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("turn and callback limits: bound the chain with `times N`"), "{help}");
    let (_, _, stderr) = emit_js(&[], "repeat 18446744073709551615 { log \"x\" }\n");
    let help = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("make the scenario smaller (a lower `repeat` count"), "{help}");
}

#[test]
fn timers_node_would_clamp_at_this_scale_are_refused() {
    // 200 000 000 ticks × 20 ms = 4e9 ms: Node would run it after 1 ms.
    let src = "log \"a\"\ntimeout 200000000 \"late\"\n";
    let (code, stdout, stderr) = emit_js(&[], src);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("loop::scale"), "{stderr}");
    assert!(
        stderr.contains("at --scale 20 the delay of this `timeout` is 4000000000 ms, more than Node's maximum timer delay (2147483647 ms)"),
        "{stderr}"
    );
    assert!(stderr.contains("200000000 ticks × 20 ms"), "{stderr}");
    assert!(stderr.contains(".loop:2:9]"), "at the delay: {stderr}");
    assert!(stderr.contains("use `--scale 10` or less for this file"), "{stderr}");
    // At --scale 10 it fits (2e9 ms).
    let (code, stdout, stderr) = emit_js(&["--scale", "10"], src);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("setTimeout(() => console.log(\"late\"), ticks(200000000));"),
        "{stdout}"
    );
    // An interval inside a callback, and the largest scale that fits every timer.
    let src = "immediate { interval 1073741824 \"iv\" times 1 }\ntimeout 1000000000\n";
    let (code, _, stderr) = emit_js(&["--scale", "3"], src);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("this `interval` is 3221225472 ms"), "{stderr}");
    assert!(stderr.contains("this `timeout` is 3000000000 ms"), "{stderr}");
    assert_eq!(stderr.matches("use `--scale 1` or less").count(), 2, "{stderr}");
    // Exactly the maximum is allowed.
    let (code, _, stderr) = emit_js(&["--scale", "1"], "timeout 2147483647\n");
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn delays_node_raises_to_one_are_one_tick_in_the_program_too() {
    // The model runs a delay above 2147483647 ticks after 1 tick (as Node does in ms); at any
    // scale the program does the same through ticks(), which is not refused.
    let src = "timeout 3000000000 \"x\"\nimmediate \"a\"\n";
    let (code, stdout, stderr) = emit_js(&["--scale", "60000"], src);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("const ticks = (n) => (n >= 1 && n <= 2147483647 ? n : 1) * TICK;"),
        "{stdout}"
    );
    assert!(
        stdout.contains("setTimeout(() => console.log(\"x\"), ticks(3000000000));"),
        "{stdout}"
    );
    let loaded = load::load_bytes("f.loop", src.as_bytes()).unwrap();
    let trace = loopsim::interp::run(&loaded.file, &loaded.src, "", emit::run_options());
    let logs: Vec<String> = trace.logs().map(|(_, t)| t.to_string()).collect();
    assert_eq!(logs, ["a", "x"]);
    // --scale 0 takes no time: nothing is too long.
    assert_eq!(emit_js(&["--scale", "0"], "timeout 4000000000\n").0, Some(0));
}
