//! Every kind of diagnostic as the user sees it: for each [`Code`] at least
//! one input, and an insta snapshot (`snapshots/diagnostics/`) of what
//! `loopsim` prints on stderr for it without colour (`NO_COLOR=1`, stderr not
//! a terminal), with its exit code: the source excerpt, the message, the
//! span underlined, the label and the help.
//!
//! The inputs: every `tests/diagnostics/*.loop` (run with `run
//! --no-race-check`), every `tests/diagnostics/run/*.loop` (run with the
//! command on its `# command:` line: the kinds a run, `check`, `emit-js` or
//! `verify` finds), and inputs made here from bytes (encodings, line endings,
//! sizes). A kind no input can reach is rendered from its [`Diag`] as the CLI
//! renders a file's problems. The test fails when a kind has no snapshot.

mod common;

use loopsim::problem::{Code, Diag, FileProblems};
use loopsim::syntax::ast::Span;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use strum::IntoEnumIterator;

/// One input and the kind it must show.
struct Case {
    name: String,
    code: String,
    /// Where `args` run and the file is.
    dir: PathBuf,
    args: Vec<String>,
}

/// The `# expect: [warning] CODE | …` code and the `# command: …` words of a file.
fn header(text: &str) -> (Option<String>, Vec<String>) {
    let mut code = None;
    let mut command = vec!["run".to_string(), "--no-race-check".to_string()];
    for line in text.lines().take(3) {
        if let Some(rest) = line.strip_prefix("# expect: ") {
            let first = rest.split(" | ").next().unwrap_or("");
            code = Some(first.trim_start_matches("warning ").to_string());
        } else if let Some(rest) = line.strip_prefix("# command: ") {
            command = rest.split_whitespace().map(String::from).collect();
        }
    }
    (code, command)
}

fn file_cases(dir: &str, out: &mut Vec<Case>) {
    for path in common::loop_files_in(dir) {
        let bytes = std::fs::read(&path).unwrap();
        let (Some(code), mut args) = header(&String::from_utf8_lossy(&bytes)) else {
            continue;
        };
        args.push(path.display().to_string());
        let stem = path.file_stem().unwrap().to_string_lossy();
        let name = if dir.ends_with("run") {
            format!("run-{stem}")
        } else {
            stem.to_string()
        };
        out.push(Case {
            name,
            code,
            dir: PathBuf::from("."),
            args,
        });
    }
}

/// Inputs made from bytes: written to `dir`, run with `run --no-race-check`.
fn generated(dir: &Path) -> Vec<Case> {
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("log \"a\"\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let deep = "repeat 1 {\n".repeat(101);
    let long = format!("log \"a\"\nrepeat 1 {{\n{}}}\n", "again\n".repeat(loopsim::syntax::MAX_ITEM));
    let inputs: [(&str, &str, Vec<u8>); 7] = [
        ("utf16", "loop::encoding", utf16),
        ("binary", "loop::encoding", b"log \"a\"\n\x00\x01\x02".to_vec()),
        ("lone-cr", "loop::line-endings", b"log \"a\"\rlog \"b\"\n".to_vec()),
        ("nested-too-deeply", "loop::nesting", deep.into_bytes()),
        (
            "parentheses-too-deep",
            "loop::nesting",
            format!("x{}\n", "(".repeat(101)).into_bytes(),
        ),
        ("item-too-long", "loop::too-long", long.into_bytes()),
        (
            "over-a-thousand-problems",
            "loop::too-many-problems",
            "again\n".repeat(1001).into_bytes(),
        ),
    ];
    inputs
        .into_iter()
        .map(|(name, code, bytes)| {
            let file = format!("{name}.loop");
            std::fs::write(dir.join(&file), bytes).unwrap();
            Case {
                name: name.to_string(),
                code: code.to_string(),
                dir: dir.to_path_buf(),
                args: vec!["run".into(), "--no-race-check".into(), file],
            }
        })
        .collect()
}

/// What `loopsim ARGS` prints on stderr, and its exit code, as snapshotted.
fn shown(case: &Case) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(&case.args)
        .current_dir(&case.dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    format!("$ loopsim {}\nexit: {:?}\n{stderr}", case.args.join(" "), out.status.code())
}

/// Kinds no input reaches, rendered from their [`Diag`] in a source as the
/// CLI renders a file's problems: a file of 4 GiB or more (refused on reading
/// at 16 MiB already); a directive or expect block inside a block (the
/// grammar reads a line starting with a word there as an unknown statement
/// first); a search cut short after every alternative was found but before
/// the search ended (it depends on timing).
fn rendered() -> Vec<(&'static str, Code, String)> {
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
    let block = "immediate \"a\" {\n  pool 2\n}\n";
    let race = "timeout 0 \"t\"\nimmediate \"i\"\nexpect {\n  \"i\"\n  \"t\"\n} or {\n  \"t\"\n  \"i\"\n}\n";
    let cases = [
        ("too-large", "huge.loop", "", Diag::TooLarge.at(Span::new(0, 0))),
        (
            "misplaced",
            "misplaced.loop",
            block,
            Diag::Misplaced { directive: true }.at(Span::new(18, 24)),
        ),
        (
            "search",
            "search.loop",
            race,
            Diag::SearchCut {
                cut: "after 10 s".into(),
                found: 2,
            }
            .at(Span::new(28, race.len() - 1)),
        ),
    ];
    cases
        .into_iter()
        .map(|(name, file, src, p)| {
            let code = Code::iter().find(|c| c.as_str() == p.code).unwrap();
            (name, code, FileProblems::new(file, src, vec![p]).render(&handler))
        })
        .collect()
}

#[test]
fn every_kind_has_a_snapshot_of_what_the_user_sees() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    file_cases("tests/diagnostics", &mut cases);
    file_cases("tests/diagnostics/run", &mut cases);
    cases.extend(generated(tmp.path()));
    let mut covered = BTreeSet::new();
    insta::with_settings!({snapshot_path => "../snapshots/diagnostics", prepend_module_to_snapshot => false, omit_expression => true}, {
        for case in &cases {
            let text = shown(case);
            let shows = if case.code == Code::TooManyProblems.as_str() {
                text.contains("past the first 1000 were counted, not kept")
            } else {
                text.contains(&format!("\n{}\n", case.code))
            };
            assert!(shows, "{}: no {} in\n{text}", case.name, case.code);
            covered.insert(case.code.clone());
            insta::assert_snapshot!(case.name.as_str(), text);
        }
        for (name, code, text) in rendered() {
            assert!(text.contains(code.as_str()), "{name}: {text}");
            covered.insert(code.as_str().to_string());
            insta::assert_snapshot!(format!("rendered-{name}").as_str(), text);
        }
    });
    let missing: Vec<&str> = Code::iter().map(Code::as_str).filter(|c| !covered.contains(*c)).collect();
    assert!(missing.is_empty(), "kinds without a snapshot: {missing:?}");
}

/// Every `src/` file but the one that defines the kinds (tests aside).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn codes_are_written_only_where_the_kinds_are_defined() {
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    let kinds = Path::new("src/problem/kind.rs");
    let mut found = Vec::new();
    for path in files.iter().filter(|p| p.as_path() != kinds && !p.ends_with("tests.rs")) {
        let text = std::fs::read_to_string(path).unwrap();
        // Unit tests at the end of a file may name codes.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if line.contains("\"loop::") {
                found.push(format!("{}:{}: {line}", path.display(), n + 1));
            }
        }
    }
    assert!(found.is_empty(), "build these with Diag::at:\n{}", found.join("\n"));
    assert!(files.len() > 20, "{files:?}");
}
