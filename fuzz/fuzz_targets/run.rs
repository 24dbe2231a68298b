//! Any bytes → load → run with small limits → text, JSON, limit diagnostic and
//! `expect` check: nothing panics, and each input finishes quickly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopsim::interp::{self, RunOptions};
use loopsim::load::load_bytes;
use loopsim::problem::FileProblems;
use loopsim::sched::{Limits, NodeVersion};
use loopsim::trace::{Ending, Style};

mod common;

fuzz_target!(|data: &[u8]| {
    let Ok(loaded) = load_bytes("fuzz.loop", data) else {
        return;
    };
    let opts = RunOptions {
        verbose: true,
        pool: None,
        limits: Limits {
            max_turns: 2_000,
            max_callbacks: 20_000,
        },
        max_statements: 200_000,
        ..RunOptions::default()
    };
    // Node 10's drain rule and `--explain` too, on the same input.
    let old = RunOptions {
        node: NodeVersion::Node10,
        explain: true,
        ..opts
    };
    let _ = interp::run(&loaded.file, &loaded.src, "fuzz", old).to_text(true, &Style { color: false });
    let trace = interp::run(&loaded.file, &loaded.src, "fuzz", opts);
    let _ = trace.to_text(true, &Style { color: false });
    let _ = trace.to_text(false, &Style { color: true });
    let _ = trace.to_json();
    if let Ending::Limit(hit) = &trace.ending {
        let p = loopsim::limit::problem(hit);
        common::check_problems(&FileProblems::new(&loaded.name, &loaded.src, vec![p]));
    }
    if let Some(expect) = &loaded.file.expect {
        if let Err(p) = loopsim::expect::check(expect, &trace) {
            common::check_problems(&FileProblems::new(&loaded.name, &loaded.src, vec![p]));
        }
    }
});
