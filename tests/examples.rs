//! Every example's trace as an insta snapshot (reviewed against docs/puzzles.md),
//! and `loopsim test examples` passing as a whole.

use loopsim::{interp, load, trace::Style};
use std::process::Command;

mod common;

#[test]
fn trace() {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("../examples", "**/*.loop", |path| {
            if common::not_yet_runnable(path) {
                return; // the promise examples, until the interpreter runs them
            }
            let loaded = load::load(path).expect("examples are valid");
            let trace = interp::run(&loaded.file, &loaded.src, &loaded.title(), interp::RunOptions::default());
            let mut text = trace.to_text(false, &Style::default());
            if let loopsim::trace::Ending::Limit(hit) = &trace.ending {
                text.push_str(&format!("stopped: {:?} limit, queue {}, line {}\n", hit.limit, hit.queue, hit.line));
            }
            insta::assert_snapshot!(text);
        });
    });
}

fn loopsim_test(dir: &str) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["test", dir])
        .output()
        .expect("runs loopsim");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The `.loop` files under `dir` that `loopsim test` checks: it skips a folder
/// holding a `.loopsim-skip` file (`examples/promises/`, until the interpreter
/// runs it).
fn count_loop_files(dir: &std::path::Path) -> usize {
    if dir.join(loopsim::cli::SKIP_MARKER).exists() {
        return 0;
    }
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                count_loop_files(&p)
            } else {
                usize::from(p.extension().is_some_and(|e| e == "loop"))
            }
        })
        .sum()
}

#[test]
fn loopsim_test_examples_passes_every_puzzle() {
    let n = count_loop_files(std::path::Path::new("examples"));
    assert!(n >= 22, "one file per puzzle P1-P22, found {n}");
    let (ok, stdout) = loopsim_test("examples");
    assert!(ok, "{stdout}");
    assert!(stdout.ends_with(&format!("{n} passed, 0 failed\n")), "{stdout}");
}

#[test]
fn conformance_cases_with_expect_pass() {
    let (ok, stdout) = loopsim_test("tests/conformance");
    assert!(ok, "{stdout}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

/// Every order real Node printed for a conformance case (its `.orders` file:
/// `COUNT order | of | lines`) passes `check` when written as the prediction.
#[test]
fn every_order_real_node_printed_passes_check() {
    let mut checked = 0;
    for entry in std::fs::read_dir("tests/conformance").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "orders") {
            continue;
        }
        let src = std::fs::read_to_string(path.with_extension("loop")).unwrap();
        for line in std::fs::read_to_string(&path).unwrap().lines().filter(|l| !l.trim().is_empty()) {
            let order = line.split_once(' ').unwrap().1;
            let expect: String = order.split(" | ").map(|t| format!("  \"{t}\"\n")).collect();
            let dir = std::env::temp_dir().join(format!("loopsim-orders-{}-{checked}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("case.loop");
            std::fs::write(&file, format!("{src}\nexpect {{\n{expect}}}\n")).unwrap();
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
                .arg("check")
                .arg(&file)
                .output()
                .unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}: {order}\n{}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked >= 2, "the recorded orders of conformance 01");
}
