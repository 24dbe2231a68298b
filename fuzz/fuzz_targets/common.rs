//! The checks of the fuzz targets, as plain functions of the input bytes, so
//! that `tests/fuzz_targets.rs` compiles them with the main crate and runs
//! them over every `.loop` file of the repository (no cargo-fuzz needed).
//! Every diagnostic must point inside its source and render without panicking.

// Each target uses one of these functions; the test uses them all.
#![allow(dead_code)]

use loopsim::interp::{self, RunOptions};
use loopsim::load::{load_bytes, LoadError};
use loopsim::orders::{self, SearchBounds};
use loopsim::problem::FileProblems;
use loopsim::sched::{Limits, NodeVersion};
use loopsim::trace::{Ending, Style};
use miette::{GraphicalReportHandler, GraphicalTheme};

/// Spans inside the source, on character boundaries; miette renders them.
pub fn check_problems(fp: &FileProblems) {
    let src = fp.src.inner();
    assert!(!fp.problems.is_empty(), "an invalid file has at least one problem");
    for p in &fp.problems {
        let (start, end) = (p.span.start(), p.span.end());
        assert!(
            start <= end && end <= src.len(),
            "span {start}..{end} outside a source of {} bytes",
            src.len()
        );
        assert!(
            src.is_char_boundary(start) && src.is_char_boundary(end),
            "span {start}..{end} splits a character"
        );
    }
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    let _ = fp.render(&handler);
}

/// `parse`: any bytes → `load_bytes`.
pub fn parse(data: &[u8]) {
    match load_bytes("fuzz.loop", data) {
        Ok(loaded) => {
            if !loaded.warnings.is_empty() {
                check_problems(&FileProblems::new(&loaded.name, &loaded.src, loaded.warnings.clone()));
            }
        }
        Err(LoadError::Invalid(fp)) => check_problems(&fp),
        Err(LoadError::Io { .. }) => unreachable!("load_bytes reads nothing"),
    }
}

/// `run`: load → run with small limits → text, JSON, limit diagnostic and
/// `expect` check; with Node 20's rules and with Node 10's and `explain`.
pub fn run(data: &[u8]) {
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
    let old = RunOptions {
        node: Some(NodeVersion::Node10),
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
        check_problems(&FileProblems::new(&loaded.name, &loaded.src, vec![p]));
    }
    if let Some(expect) = &loaded.file.expect {
        if let Err(p) = loopsim::expect::check(expect, &trace) {
            check_problems(&FileProblems::new(&loaded.name, &loaded.src, vec![p]));
        }
    }
}

/// `orders`: load → one explained run → every order Node 20 can print, with
/// small bounds → text and JSON reports, race warning, `run`'s race check,
/// `expect … or …` check.
pub fn orders(data: &[u8]) {
    let Ok(loaded) = load_bytes("fuzz.loop", data) else {
        return;
    };
    let opts = RunOptions {
        limits: Limits {
            max_turns: 200,
            max_callbacks: 2_000,
        },
        max_statements: 20_000,
        explain: true,
        ..RunOptions::default()
    };
    let bounds = SearchBounds {
        max_schedules: 200,
        max_callbacks: 50_000,
        max_statements: 200_000,
        max_orders: 50,
        // No time limit: a fuzz input's answer must not depend on the machine.
        time_limit: None,
        ..SearchBounds::default()
    };
    let model = interp::run(&loaded.file, &loaded.src, "fuzz", opts);
    let found = orders::all_orders_after(&loaded.file, &loaded.src, opts, bounds, &model);
    assert!(!found.orders.is_empty(), "the model's order is always listed");
    let _ = orders::report::text(&found, false);
    let _ = orders::report::text(&found, true);
    let _ = orders::report::json(&found, &loaded.src);
    if let Some(warning) = orders::race_warning(&model, &found, "loopsim run --all-orders") {
        check_problems(&FileProblems::new(&loaded.name, &loaded.src, vec![warning]));
    }
    // `run`'s race check, which with `expect … or …` warns only of an order
    // the alternatives leave out.
    let check = SearchBounds {
        max_schedules: 200,
        max_callbacks: 50_000,
        max_statements: 200_000,
        time_limit: None,
        ..SearchBounds::race_check()
    };
    if let (Some(warning), _) = orders::race_check(&loaded.file, &loaded.src, opts, check, &model, "loopsim run --all-orders") {
        check_problems(&FileProblems::new(&loaded.name, &loaded.src, vec![warning]));
    }
    if let Some(expect) = &loaded.file.expect {
        if let Err(p) = loopsim::verdict::missing_order(expect, &found, &loaded, "") {
            check_problems(&FileProblems::new(&loaded.name, &loaded.src, vec![p]));
        }
    }
}
