//! `.loop` files with hostile texts in every place a text can go, for the
//! emit-js safety suites (`tests/emit_safety.rs` and `tests/emit_promises.rs`,
//! and `tests/node_safety.rs` and `tests/emit_promises_node.rs` with real `node`).

// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

pub mod js;

/// A text that breaks out of a careless JavaScript comment, string or template
/// literal, or HTML `<script>`: quotes, a backtick, `${`, `*/`, `</script>`, a
/// newline, U+2028 and U+2029 (JavaScript line terminators) each followed by
/// code that writes the file named by `$LOOPSIM_PWNED`, backslashes (one
/// before `u0041`, one last), the control characters a `.loop` string may hold
/// (tab, DEL, C1: a lone carriage return is refused when a file is read), a bidi override, a BOM, an emoji. Every occurrence of `PWN` in an emitted program must be inside a
/// string literal.
pub const PAYLOAD: &str = concat!(
    "PWN \"'`${globalThis.PWNED = 1}` */ /* --> <!-- </script><script>\n",
    "require('fs').writeFileSync(process.env.LOOPSIM_PWNED, 'n');//",
    "\u{2028}require('fs').writeFileSync(process.env.LOOPSIM_PWNED, 'ls');//",
    "\u{2029}require('fs').writeFileSync(process.env.LOOPSIM_PWNED, 'ps');//",
    " \\u0041 \u{7f}\u{85}\t \u{202e}rtl\u{202c} \u{feff} 😀 ' \\"
);

/// `text` as a `.loop` string literal (quotes included).
pub fn loop_string(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    format!("\"{escaped}\"")
}

/// One file of the suite.
pub struct Case {
    /// What the file covers.
    pub what: String,
    /// Its source.
    pub src: String,
}

/// Files with [`PAYLOAD`] as the title and in every string position: each
/// callback kind's label without and with a body (and in an `again` chain with
/// `times`), `log` texts with `{i}`, `{n}`, `{k}` between copies of it, a
/// `then` chain's labels, `clear`; each as CommonJS and as `module esm`. One
/// callback kind per file, so that real Node has one order.
pub fn cases() -> Vec<Case> {
    let p = loop_string(PAYLOAD);
    let around = |placeholder: &str| loop_string(&format!("{PAYLOAD}{placeholder}{PAYLOAD}"));
    let log_n = format!("log {}", around("{n}"));
    // (what, the callback header before the label, after it)
    let kinds = [
        ("timeout", "timeout 1", ""),
        ("interval", "interval 1", ""),
        ("immediate", "immediate", ""),
        ("nextTick", "nextTick", ""),
        ("microtask", "microtask", ""),
        ("then", "then", ""),
        ("io", "io", ""),
        ("io after", "io", " after 1"),
        ("submit 0", "submit", " 0"),
        ("submit", "submit", " 1"),
        ("close", "close", ""),
        ("pending", "pending", ""),
    ];
    let mut bodies: Vec<(String, String)> = Vec::new();
    for (what, head, tail) in kinds {
        let once = if what == "interval" { " times 1" } else { "" };
        bodies.push((format!("{what}, label"), format!("{head} {p}{tail}{once}\n")));
        bodies.push((
            format!("{what}, label and body"),
            format!("{head} {p}{tail}{once} {{ log {p}\n{log_n} }}\n"),
        ));
        let chain = if what == "interval" {
            format!("{head} {p}{tail} times 2 {{ {log_n} }}\n")
        } else {
            format!("{head} {p}{tail} times 2 {{ {log_n} again }}\n")
        };
        bodies.push((format!("{what}, times and again"), chain));
        bodies.push((
            format!("{what}, {{i}} and {{k}} in a label"),
            format!("repeat 2 {{ {head} {}{tail}{once} }}\n", around("{i}{k}")),
        ));
    }
    bodies.push((
        "a then chain".into(),
        format!("then {p} .then {p} {{ log {p} }} .then {p} times 2 {{ {log_n} again }} .then {p}\n"),
    ));
    bodies.push(("clear".into(), format!("timeout 5 {p}\nimmediate {p} {{ clear {p} }}\n")));
    bodies.push(("log".into(), format!("log {p}\nrepeat 2 {{ log {} }}\n", around("{i}"))));
    let mut cases = Vec::new();
    for esm in [false, true] {
        for (what, body) in &bodies {
            let module = if esm { "module esm\n" } else { "" };
            cases.push(Case {
                what: format!("{what}{}", if esm { ", module esm" } else { "" }),
                src: format!("{module}title {p}\nlog \"main\"\n{body}"),
            });
        }
    }
    cases
}

/// Files with [`PAYLOAD`] as the title and in every string position of the
/// promise statements: links' labels (with and without a body, with `{n}` and
/// `{k}`), listeners', and `log` texts in async functions, executors, `try`,
/// `catch` and handlers; as CommonJS and as `module esm`. Each runs to its end
/// (exit 0) in one order.
pub fn promise_cases() -> Vec<Case> {
    let p = loop_string(PAYLOAD);
    let around = |placeholder: &str| loop_string(&format!("{PAYLOAD}{placeholder}{PAYLOAD}"));
    let n = around("{n}");
    let k = around("{k}");
    let bodies = [
        ("expression links", format!("chain resolved .then {p} .catch {p} .finally {p}\nchain rejected .catch {p} {{ log {p} }}\n")),
        ("then chain links", format!("then {p} .catch {p} {{ log {p} }} .finally {p} async {{ log {p} }}\n")),
        ("again in a link", format!("chain resolved .then {p} times 2 {{ log {n} again }}\nchain rejected .catch {p} times 2 {{ log {k} again }}\n")),
        ("{k} in a label", format!("repeat 2 {{ chain resolved .then {} }}\n", around("{i}{k}"))),
        ("listeners", format!("on unhandledRejection {p}\non rejectionHandled {p} {{ log {p} }}\nchain rejected .catch {p}\n")),
        ("async function", format!("async f {{ log {p}  await value  log {p}  try {{ throw }} catch {{ log {p} }} }}\ncall f\n")),
        ("executors", format!("promise ready {{ log {p} }}\npromise {{ log {p}  resolve }} .then {p}\ntimeout 1 {p} {{ log {n}  resolve ready with promise {{ log {k}  resolve }} }}\n")),
        ("async interval", format!("interval 1 {p} times 2 async {{ log {n}  await immediate  log {n} }}\n")),
    ];
    let mut cases = Vec::new();
    for esm in [false, true] {
        for (what, body) in &bodies {
            let module = if esm { "module esm\n" } else { "" };
            cases.push(Case {
                what: format!("{what}{}", if esm { ", module esm" } else { "" }),
                src: format!("{module}title {p}\n{body}"),
            });
        }
    }
    cases
}
