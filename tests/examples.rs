//! Every example's trace as an insta snapshot (reviewed against PUZZLES.md),
//! and `loopsim test examples` passing as a whole.

use loopsim::{interp, load, trace::Style};
use std::process::Command;

#[test]
fn trace() {
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("../examples", "**/*.loop", |path| {
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

fn count_loop_files(dir: &std::path::Path) -> usize {
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
    let dir = std::path::Path::new("../shared/conformance");
    if !dir.is_dir() {
        println!("skipped: ../shared/conformance is not here");
        return;
    }
    let (ok, stdout) = loopsim_test("../shared/conformance");
    assert!(ok, "{stdout}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    assert!(!stdout.contains("FAIL"), "{stdout}");
}
