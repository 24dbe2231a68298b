//! Floods of problems and oversized items: the parser stops after
//! `MAX_KEPT` errors, the checks and `emit-js` count what they do not keep,
//! `clear` matching stays within its budget, failed blocks are read again
//! within a budget, and an item of more than `MAX_ITEM` tokens is refused
//! before it is parsed. The files are a few megabytes, written here.

use loopsim::load::{self, LoadError};
use loopsim::problem::{FileProblems, Problem, CUT, MAX_KEPT};
use loopsim::syntax::{self, ast::Span, MAX_ITEM};
use std::path::PathBuf;
use std::process::Command;

/// The problems of `src`, which must not parse.
fn errors(src: &str) -> Vec<Problem> {
    match syntax::parse(src) {
        Ok(_) => panic!("parsed"),
        Err(problems) => problems,
    }
}

/// `unit` repeated to about `bytes` bytes.
fn flood(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len())
}

fn render(fp: &FileProblems) -> String {
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor());
    fp.render(&handler)
}

/// The 1-based line of byte `at`.
fn line(src: &str, at: usize) -> usize {
    src[..at].matches('\n').count() + 1
}

#[test]
fn each_flood_of_errors_stops_after_the_first_thousand() {
    for (unit, code) in [
        ("x\n", "loop::unknown-statement"),
        ("  x\n", "loop::unknown-statement"),
        ("timeout\n", "loop::delay"),
        ("log 5\n", "loop::malformed"),
        ("timeout soon \"t\"\n", "loop::delay"),
        ("repeat 1 { timeout }\n", "loop::delay"),
    ] {
        let src = flood(unit, 3 << 20);
        let problems = errors(&src);
        assert_eq!(problems.len(), MAX_KEPT + 1, "{unit:?}");
        let (cut, kept) = problems.split_last().unwrap();
        assert_eq!(cut.code, CUT, "{unit:?}");
        assert_eq!(cut.message, "stopped after the first 1000 errors", "{unit:?}");
        assert!(!cut.warning);
        // The first thousand, in order, one per line from the top.
        assert!(kept.iter().all(|p| p.code == code && !p.warning), "{unit:?}: {:?}", kept[0]);
        let lines: Vec<usize> = kept.iter().map(|p| line(&src, p.span.start())).collect();
        assert_eq!(lines, (1..=MAX_KEPT).collect::<Vec<_>>(), "{unit:?}");
    }
}

#[test]
fn the_same_problems_every_time() {
    // Chunks are parsed on several threads; which ones is never seen.
    let src = flood("x\ntimeout\nlog \"a\"\n\"x\"\n", 3 << 20);
    let first = errors(&src);
    for _ in 0..3 {
        assert_eq!(errors(&src), first);
    }
}

#[test]
fn a_flood_of_warnings_is_counted_not_kept() {
    let src = flood("clear \"nothing\"\n", 3000 * 16);
    let loaded = load::load_bytes("f.loop", src.as_bytes()).expect("warnings only");
    assert_eq!(loaded.warnings.len(), MAX_KEPT + 1);
    let cut = loaded.warnings.last().unwrap();
    assert_eq!((cut.code, cut.warning), (CUT, true));
    assert_eq!(cut.message, "2000 more warnings past the first 1000 were counted, not kept");
    let shown = render(&FileProblems::new("f.loop", &src, loaded.warnings));
    assert!(
        shown.ends_with("… and 950 more warnings in f.loop (not shown); 2000 more warnings past the first 1000 were counted, not kept\n"),
        "{}",
        &shown[shown.len() - 300..]
    );
}

#[test]
fn an_error_after_a_thousand_warnings_still_refuses_the_file() {
    let src = flood("clear \"nothing\"\n", 1500 * 16) + "again\n";
    let Err(LoadError::Invalid(fp)) = load::load_bytes("f.loop", src.as_bytes()) else {
        panic!("`again` outside a callback is an error")
    };
    let codes: Vec<&str> = fp.problems.iter().map(|p| p.code).collect();
    assert_eq!(codes.len(), MAX_KEPT + 2);
    assert_eq!(codes[MAX_KEPT], "loop::again");
    let cut = fp.problems.last().unwrap();
    assert_eq!((cut.code, cut.warning), (CUT, true));
    assert_eq!(cut.message, "500 more warnings past the first 1000 were counted, not kept");
}

#[test]
fn clear_checks_stay_within_their_budget() {
    // Comparing a label with placeholders and a `clear` fills a table of one
    // cell per pair of characters: 10¹⁰ cells here, past the budget, so the
    // `clear` is taken to match (no warning) instead.
    let long = "a".repeat(100_000);
    let src = format!("repeat 2 {{ timeout 1 \"{long}{{i}}\" }}\nclear \"{long}b\"\n");
    let loaded = load::load_bytes("f.loop", src.as_bytes()).expect("valid");
    assert_eq!(loaded.warnings, Vec::<Problem>::new());
    // Within the budget, and for labels without placeholders (looked up, not
    // compared one by one), every `clear` is still checked.
    let labels: String = (0..3000).map(|i| format!("timeout 1 \"t{i}\"\n")).collect();
    let clears: String = (0..3000).map(|i| format!("clear \"c{i}\"\nclear \"t{i}\"\n")).collect();
    let src = format!("{labels}repeat 2 {{ timeout 1 \"u{{i}}\" }}\n{clears}clear \"u7\"\nclear \"u\"\n");
    let loaded = load::load_bytes("f.loop", src.as_bytes()).expect("valid");
    let cut = loaded.warnings.last().unwrap();
    assert_eq!(cut.message, "2001 more warnings past the first 1000 were counted, not kept");
    assert!(loaded.warnings[..MAX_KEPT]
        .iter()
        .all(|p| p.message.starts_with("no timeout, interval or immediate is labelled \"c")));
}

#[test]
fn an_item_of_more_than_max_item_tokens_is_refused_before_parsing() {
    for (head, unit) in [("repeat 1 {\n", "again\n"), ("then \"a\"\n", ".then\n"), ("expect {\n", "\"a\"\n")] {
        let src = format!("log \"before\"\n{head}{}}}\nlog \"after\"\n", unit.repeat(MAX_ITEM + 1));
        let problems = errors(&src);
        assert_eq!(problems.len(), 1, "{head:?}");
        assert_eq!(problems[0].code, "loop::too-long");
        assert_eq!(
            problems[0].message,
            "more than 500,000 tokens before a line that begins a new statement"
        );
        let first = head.trim_end();
        let at = "log \"before\"\n".len();
        assert_eq!(problems[0].span, Span::new(at, at + first.len()), "{head:?}");
    }
    // Tokens, not bytes: a long string or word is one.
    let src = format!("log \"{}\"\n", "a".repeat(3 << 20));
    assert!(syntax::parse(&src).is_ok());
    // Just under the limit, it is read.
    let src = format!("repeat 1 {{\n{}}}\n", "work 1\n".repeat((MAX_ITEM - 4) / 2));
    assert!(syntax::parse(&src).is_ok());
}

#[test]
fn syntax_errors_late_in_a_chunk_keep_the_problems_before_them() {
    // A file in several chunks. In the second, a `timeout` without a delay
    // and then more syntax errors than a chunk reports: the items before the
    // first of them are built (not read again for each error), so the
    // `timeout` is reported too.
    let logs = "log \"a\"\n".repeat(35_000);
    let src = format!("{logs}timeout\n{}{}{logs}", "log \"b\"\n".repeat(100), "\"x\"\n".repeat(12));
    let mut problems = errors(&src);
    // Ten syntax errors are all a file reports: the chunk after is not read.
    let cut = problems.pop().unwrap();
    assert_eq!(cut.code, CUT);
    assert_eq!(cut.message, "stopped after 10 syntax errors: the rest of the file was not read");
    let found: Vec<(usize, &str)> = problems.iter().map(|p| (line(&src, p.span.start()), p.code)).collect();
    let mut expected = vec![(35_001, "loop::delay")];
    expected.extend((35_102..35_112).map(|l| (l, "loop::syntax")));
    assert_eq!(found, expected);
}

#[test]
fn ten_syntax_errors_in_a_file_of_many_chunks_stop_it() {
    // One syntax error at the end of each chunk: the chunks after the tenth
    // are not read.
    let chunk = "log \"a\"\n".repeat(33_000) + "\"x\"\n";
    let src = chunk.repeat(12);
    let mut problems = errors(&src);
    let cut = problems.pop().unwrap();
    assert_eq!(cut.message, "stopped after 10 syntax errors: the rest of the file was not read");
    let lines: Vec<usize> = problems.iter().map(|p| line(&src, p.span.start())).collect();
    assert_eq!(lines, (1..=10).map(|k| k * 33_001).collect::<Vec<_>>());
    // One chunk: ten errors, and the same note (it had none: the two errors
    // after the tenth went unsaid).
    let src = "\"x\"\n".repeat(12);
    let mut problems = errors(&src);
    assert_eq!(problems.len(), 11);
    assert_eq!(
        problems.pop().unwrap().message,
        "stopped after 10 syntax errors: the rest of the file was not read"
    );
}

#[test]
fn failed_blocks_nested_deep_are_read_again_within_a_budget() {
    // Each level of `x { … }` is an unknown statement whose block is parsed
    // again to find what is wrong inside it. With 99 levels around a
    // megabyte, that would be 99 megabytes; the budget (4 MiB and twice the
    // text) runs out at level 6, which is then reported as it is. (Each level
    // above it is reported too: `x` starts with no keyword.)
    let inner = "timeout\n".repeat(1 << 17);
    let src = format!("{}{inner}{}", "x {\n".repeat(99), "}\n".repeat(99));
    let problems = errors(&src);
    let found: Vec<(usize, &str, &str)> = problems
        .iter()
        .map(|p| (line(&src, p.span.start()), p.code, p.message.as_str()))
        .collect();
    let levels: Vec<(usize, &str, &str)> = (1..=6).map(|k| (k, "loop::unknown-statement", "unknown statement `x`")).collect();
    assert_eq!(found, levels);
}

#[test]
fn emit_js_keeps_a_thousand_scale_errors() {
    let src = flood("timeout 3000000\n", 1500 * 16);
    let loaded = load::load_bytes("f.loop", src.as_bytes()).expect("valid");
    let problems = loopsim::emit::scale_problems(&loaded.file, 1000);
    assert_eq!(problems.len(), MAX_KEPT + 1);
    assert!(problems[..MAX_KEPT].iter().all(|p| p.code == "loop::scale"));
    let cut = problems.last().unwrap();
    assert_eq!((cut.code, cut.warning), (CUT, false));
    assert_eq!(cut.message, "500 more errors past the first 1000 were counted, not kept");
}

#[test]
fn a_cut_note_ends_the_count_line() {
    let error = |i: usize| Problem::error("loop::x", Span::new(i, i + 1), "an error", "here");
    let src = "x\n".repeat(100);
    let mut problems: Vec<Problem> = (0..60).map(error).collect();
    problems.push(Problem::cut(Span::new(60, 60), "stopped after the first 60 errors", false));
    let shown = render(&FileProblems::new("f.loop", &src, problems));
    assert!(shown.ends_with("… and 10 more errors in f.loop (not shown); stopped after the first 60 errors\n"));
    assert!(!shown.contains(CUT), "the note is not drawn as a diagnostic");
    // All shown: the note alone.
    let problems = vec![
        error(0),
        Problem::cut(Span::new(1, 1), "3 more warnings past the first 1 were counted, not kept", true),
    ];
    let shown = render(&FileProblems::new("f.loop", &src, problems));
    assert!(
        shown.ends_with("… in f.loop: 3 more warnings past the first 1 were counted, not kept\n"),
        "{shown}"
    );
}

#[test]
fn every_command_stops_a_flood_with_the_same_line() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.loop");
    std::fs::write(&path, flood("x\n", 2 << 20)).unwrap();
    let name = path.to_str().unwrap();
    let line = format!("… and 950 more errors in {name} (not shown); stopped after the first 1000 errors\n");
    for args in [
        &["run", name][..],
        &["check", name],
        &["run", "--all-orders", name],
        &["run", "--format", "svg", name],
        &["emit-js", name],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_loopsim")).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.ends_with(&line), "{args:?}: {}", &err[err.len().saturating_sub(300)..]);
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
