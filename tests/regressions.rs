//! Inputs that once crashed, hung or exhausted memory (found by `fuzz/` or by
//! hand). Each `tests/regressions/*.loop` says on its first line what it must
//! do now, with the default run options:
//!
//! - `# expect: invalid`: it is refused with problems (exit 2), at least one
//!   an error whose span is non-empty, and all inside the source;
//! - `# expect: limit`: it runs and a limit stops it (exit 3);
//! - `# expect: ok`: it runs to the end (and its `expect` block, if any, holds).
//!
//! A line `# open: …` marks a bug not fixed yet (no file has one now): such
//! a file must still miss its outcome, so that a fix is noticed and the line
//! removed.

use loopsim::interp::{self, RunOptions};
use loopsim::load::{self, LoadError};
use loopsim::problem::{FileProblems, Problem};
use loopsim::trace::{Ending, Style};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Generous for a debug build; a regression that hangs fails here instead.
const DEADLINE: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Invalid,
    Limit,
    Ok,
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "loop"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no regression files in {}", dir.display());
    files
}

/// The outcome the first line promises, and whether the file is marked `# open:`.
fn header(path: &Path) -> (Outcome, bool) {
    let bytes = std::fs::read(path).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let first = text.lines().next().unwrap_or_default().trim();
    let outcome = match first.strip_prefix("# expect:").map(str::trim) {
        Some("invalid") => Outcome::Invalid,
        Some("limit") => Outcome::Limit,
        Some("ok") => Outcome::Ok,
        _ => panic!(
            "{}: the first line must be `# expect: invalid|limit|ok`, not {first:?}",
            path.display()
        ),
    };
    let open = text.lines().any(|l| l.starts_with("# open:"));
    (outcome, open)
}

fn spans_inside(what: &str, src: &str, problems: &[Problem]) {
    for p in problems {
        let (s, e) = (p.span.start(), p.span.end());
        assert!(s <= e && e <= src.len(), "{what}: span {s}..{e} outside {} bytes: {p:?}", src.len());
        assert!(
            src.is_char_boundary(s) && src.is_char_boundary(e),
            "{what}: span {s}..{e} splits a character"
        );
    }
}

/// Loads and runs `path` as `loopsim run` would; returns what happened.
fn outcome(path: &Path) -> Outcome {
    let what = path.display().to_string();
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
    let loaded = match load::load(path) {
        Ok(loaded) => loaded,
        Err(LoadError::Invalid(fp)) => {
            let src = fp.src.inner();
            assert!(!fp.problems.is_empty(), "{what}: invalid without a problem");
            spans_inside(&what, src, &fp.problems);
            assert!(
                fp.problems.iter().any(|p| !p.warning && p.span.start() < p.span.end()),
                "{what}: no error with a non-empty span: {:?}",
                fp.problems
            );
            assert!(!fp.render(&handler).is_empty());
            return Outcome::Invalid;
        }
        Err(e) => panic!("{what}: {e:?}"),
    };
    spans_inside(&what, &loaded.src, &loaded.warnings);
    let trace = interp::run(&loaded.file, &loaded.src, &loaded.title(), RunOptions::default());
    let _ = trace.to_text(false, &Style::default());
    let _ = trace.to_json();
    match &trace.ending {
        Ending::Finished { .. } | Ending::Unhandled { .. } | Ending::Unsettled { .. } => {
            if let Some(expect) = &loaded.file.expect {
                if let Err(p) = loopsim::expect::check(expect, &trace) {
                    panic!("{what}: the prediction fails: {}", p.message);
                }
            }
            Outcome::Ok
        }
        Ending::Limit(hit) => {
            let p = loopsim::limit::problem(hit);
            spans_inside(&what, &loaded.src, std::slice::from_ref(&p));
            let fp = FileProblems::new(&loaded.name, &loaded.src, vec![p]);
            assert!(!fp.render(&handler).is_empty());
            Outcome::Limit
        }
    }
}

/// Runs `outcome` on a thread with the main thread's 8 MiB stack, within
/// [`DEADLINE`]: `Ok` when the file has the outcome its first line names.
/// For a file marked `# open:`, `Ok` when it does not yet.
fn check(path: &Path) -> Result<(), String> {
    let (want, open) = header(path);
    let (tx, rx) = mpsc::channel();
    let owned = path.to_path_buf();
    let start = Instant::now();
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = tx.send(outcome(&owned));
        })
        .unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let got = match rx.recv_timeout(DEADLINE) {
        Ok(got) if got == want => Ok(got),
        Ok(got) => Err(format!("{name}: expected {want:?}, got {got:?}")),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("{name}: did not finish in {DEADLINE:?}")),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(format!("{name}: panicked (see above)")),
    };
    match (got, open) {
        (Ok(got), false) => {
            eprintln!("ok    {name}: {got:?} in {:.2?}", start.elapsed());
            Ok(())
        }
        (Err(e), false) => Err(e),
        (Ok(got), true) => Err(format!("{name}: {got:?} as its first line names: fixed, remove its `# open:` line")),
        (Err(e), true) => {
            eprintln!("open  {e}");
            Ok(())
        }
    }
}

#[test]
fn every_regression_file_has_the_outcome_its_first_line_names() {
    let failures: Vec<String> = files().iter().filter_map(|path| check(path).err()).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
