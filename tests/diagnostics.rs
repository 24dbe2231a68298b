//! One small file per kind of bad input (tests/diagnostics/*.loop). Each
//! file's first line says what loopsim must answer:
//! `# expect: [warning] CODE | part of the message | the text the span covers`
//! (its first line, for a span over several lines).
//! A file without that line must run cleanly (exit 0).

mod common;

use loopsim::load::{load_bytes, LoadError};
use std::process::Command;

struct Expected {
    warning: bool,
    code: String,
    message: String,
    spanned: String,
}

fn expected(bytes: &[u8]) -> Option<Expected> {
    let text = String::from_utf8_lossy(bytes);
    let header = text.lines().next()?.strip_prefix("# expect: ")?;
    let parts: Vec<&str> = header.splitn(3, " | ").collect();
    let [code, message, spanned] = parts[..] else { return None };
    let (warning, code) = match code.strip_prefix("warning ") {
        Some(c) => (true, c),
        None => (false, code),
    };
    // (`\u2028` stands for a line separator, which the header, a comment,
    // cannot hold: it is reported there too.)
    let spanned = spanned
        .replace("\\0", "\0")
        .replace("\\xff", "\u{fffd}")
        .replace("\\u2028", "\u{2028}");
    let message = message.to_string();
    Some(Expected {
        warning,
        code: code.to_string(),
        message,
        spanned,
    })
}

#[test]
fn every_bad_input_gets_its_diagnostic_with_exit_code_and_span() {
    let mut checked = 0;
    for path in common::loop_files_in("tests/diagnostics") {
        let bytes = std::fs::read(&path).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .arg("run")
            .arg("--no-race-check")
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let name = path.display();
        let Some(want) = expected(&bytes) else {
            assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
            continue;
        };
        assert_eq!(out.status.code(), Some(if want.warning { 0 } else { 2 }), "{name}: {stderr}");
        // Not in the snippet's copy of the header line itself, which quotes it.
        let told: Vec<&str> = stderr.lines().filter(|l| !l.contains("# expect: ")).collect();
        let told = told.join("\n");
        assert!(told.contains(&want.message), "{name}: {:?} not in\n{stderr}", want.message);
        assert!(stderr.contains("help:"), "{name}: no help line\n{stderr}");
        let (problems, src) = match load_bytes("t.loop", &bytes) {
            Err(LoadError::Invalid(fp)) => (fp.problems, fp.src.inner().clone()),
            Ok(l) => (l.warnings, l.src),
            Err(e) => panic!("{name}: {e:?}"),
        };
        let hit = problems.iter().find(|p| p.code == want.code && p.warning == want.warning);
        let hit = hit.unwrap_or_else(|| panic!("{name}: no {} in {problems:?}", want.code));
        // A span over several lines (a block) is named by its first line.
        let spanned = src[hit.span.start()..hit.span.end()].lines().next().unwrap_or("");
        assert_eq!(spanned, want.spanned, "{name}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} diagnostic files");
}

/// Every malformed line of an expect block is reported, not only the first
/// (docs/language.md: every problem at once).
#[test]
fn every_malformed_expect_line_is_reported() {
    let src = "timeout 0 \"t\"\nexpect {\n  turn one \"t\"\n  \"fine\"\n  turn two \"i\"\n}\n";
    let Err(LoadError::Invalid(fp)) = load_bytes("t.loop", src.as_bytes()) else {
        panic!("the file should not load");
    };
    let spanned: Vec<&str> = fp.problems.iter().map(|p| &src[p.span.start()..p.span.end()]).collect();
    assert_eq!(spanned, ["turn one \"t\"", "turn two \"i\""]);
    assert!(fp.problems.iter().all(|p| p.code == "loop::expect-line"), "{:?}", fp.problems);
}

/// `times N` on a callback that is not an interval counts the runs of its
/// `again` chain: a warning (not an error: the run goes on, the callback
/// runs once) where its own body has no `again` — one inside a `repeat`
/// counts, one inside a callback it schedules is that callback's.
#[test]
fn times_without_again_is_a_warning_where_no_again_is_counted() {
    let warned = |src: &str| -> Vec<String> {
        let loaded = load_bytes("t.loop", src.as_bytes()).unwrap_or_else(|e| panic!("{src}: {e:?}"));
        loaded
            .warnings
            .iter()
            .filter(|p| p.code == "loop::again")
            .map(|p| p.message.clone())
            .collect()
    };
    let once = |times: u64, name: &str| format!("`times {times}` without `again`: this `{name}` runs once");
    // A link runs only if its promise settles its way.
    let link = |times: u64, name: &str| format!("`times {times}` without `again`: this `{name}` runs at most once");
    assert_eq!(warned("timeout 1 \"a\" times 3\n"), [once(3, "timeout")]);
    assert_eq!(warned("submit \"j\" 2 times 2 { log \"j\" }\n"), [once(2, "submit")]);
    assert!(warned("timeout 1 \"a\" times 1\n").is_empty());
    assert!(warned("interval 1 \"a\" times 3\n").is_empty());
    assert!(warned("immediate \"b\" times 2 {\n  log \"b\"\n  again\n}\n").is_empty());
    assert!(warned("immediate \"b\" times 2 {\n  repeat 2 {\n    again\n  }\n}\n").is_empty());
    assert_eq!(
        warned("immediate \"b\" times 2 {\n  timeout 1 \"t\" times 2 {\n    again\n  }\n}\n"),
        [once(2, "immediate")]
    );
    assert_eq!(
        warned("then \"x\" .then \"y\" times 2 .then \"z\" times 2 {\n  again\n}\n"),
        [link(2, ".then")]
    );
    // A promise expression's links too, inside blocks as well: `again` runs them once more.
    assert_eq!(
        warned("chain resolved .then \"c\" times 3\npromise {\n  chain rejected .catch times 2 { log \"r\" }\n}\n"),
        [link(3, ".then"), link(2, ".catch")]
    );
    assert!(warned("chain resolved .then \"c\" times 3 { log \"c {n}\" again }\n").is_empty());
    // The help gives a callback without a body one that logs its label (a
    // body replaces the label's line); a link gets no `repeat` around it.
    let help = |src: &str| {
        let loaded = load_bytes("t.loop", src.as_bytes()).expect("valid");
        loaded.warnings[0].help.clone().unwrap_or_default()
    };
    assert_eq!(
        help("timeout 1 \"a\" times 3\n"),
        "give it the body `{ log \"a\" again }` to run it up to 3 times, one after another; `repeat 3 { … }` around it schedules 3 now"
    );
    assert_eq!(
        help("then \"x\" .then \"y\" times 2 { log \"y\" }\n"),
        "add `again` to its body to run it up to 2 times, one after another"
    );
    // (tests/diagnostics/times-without-again.loop: `run` exits 0 with it.)
}
