//! Parser tests: every statement form, and the span of every kind of error.

use loopsim::load::{load_bytes, LoadError};
use loopsim::sched::{Module, Phase};
use loopsim::syntax::ast::*;
use loopsim::syntax::parse;

fn one(src: &str) -> Stmt {
    let file = parse(src).unwrap_or_else(|p| panic!("{src}: {p:?}"));
    assert_eq!(file.body.len(), 1, "{src}");
    file.body.into_iter().next().unwrap()
}

fn callback(src: &str) -> Callback {
    match one(src).kind {
        StmtKind::Callback(cb) => cb,
        k => panic!("{src}: not a callback: {k:?}"),
    }
}

fn lit(t: Option<&Text>) -> &str {
    t.and_then(|t| t.literal()).expect("a literal label")
}

#[test]
fn log_work_clear_again_repeat() {
    assert!(matches!(one(r#"log "hi""#).kind, StmtKind::Log(t) if t.literal() == Some("hi")));
    assert!(matches!(one("work 6").kind, StmtKind::Work(n) if n.value == 6));
    assert!(matches!(one(r#"clear "t""#).kind, StmtKind::Clear(t) if t.literal() == Some("t")));
    match one(r#"repeat 3 { log "x{i}" }"#).kind {
        StmtKind::Repeat { count, body } => {
            assert_eq!(count.value, 3);
            assert!(matches!(&body[0].kind, StmtKind::Log(t) if t.parts == [TextPart::Lit("x".into()), TextPart::Index]));
        }
        k => panic!("{k:?}"),
    }
    let cb = callback(r#"immediate "a" { again }"#);
    assert!(matches!(cb.body().unwrap()[0].kind, StmtKind::Again));
}

#[test]
fn every_callback_kind_with_its_parts() {
    let t = callback(r#"timeout 5 "t" times 2 { log "x" }"#);
    assert_eq!(
        (t.kind, t.delay().unwrap().value, lit(t.label()), t.times().unwrap().value),
        (Kind::Timeout, 5, "t", 2)
    );
    let i = callback(r#"interval 30 "tick" times 4"#);
    assert_eq!((i.kind, i.delay().unwrap().value, i.body().is_none()), (Kind::Interval, 30, true));
    for (src, kind) in [
        (r#"immediate "x""#, Kind::Immediate),
        (r#"nextTick "x""#, Kind::NextTick),
        (r#"microtask "x""#, Kind::Microtask),
        (r#"close "x""#, Kind::Close),
        (r#"pending "x""#, Kind::Pending),
    ] {
        let cb = callback(src);
        assert_eq!((cb.kind, lit(cb.label())), (kind, "x"), "{src}");
    }
    let io = callback(r#"io "bytes" after 15 { log "b" }"#);
    assert_eq!((io.kind, io.after().unwrap().value), (Kind::Io, 15));
    let s1 = callback(r#"submit "readFile" 4"#);
    let s2 = callback("submit 100 { }");
    assert_eq!(
        (s1.ticks().unwrap().value, s2.ticks().unwrap().value, s2.label().is_none()),
        (4, 100, true)
    );
    let th = callback(r#"then "a" { log "a" } .then "b" .then { log "c" }"#);
    assert_eq!(th.links().len(), 2);
    assert_eq!(lit(th.links()[0].label.as_ref()), "b");
    assert!(th.links()[1].label.is_none() && th.links()[1].body.is_some());
}

#[test]
fn directives_expect_and_comments() {
    let src = "# comment\npool 8 // another\nmodule esm\ntitle \"T\"\nlog \"a\"\nexpect {\n  turn 0 at 0 main \"a\"\n  \"b\"\n  limit nextTick\n}\n";
    let f = parse(src).unwrap();
    assert_eq!(f.pool.unwrap().value, 8);
    assert_eq!(f.module.unwrap().value, Module::Esm);
    assert_eq!(f.title.unwrap().value, "T");
    let e = f.expect.unwrap();
    assert_eq!(
        (e.lines[0].turn, e.lines[0].at, e.lines[0].phase),
        (Some(0), Some(0), Some(Phase::Main))
    );
    assert_eq!((e.lines[1].turn, e.lines[1].phase, e.lines[1].text.as_str()), (None, None, "b"));
    assert_eq!(e.limit.unwrap().value, LimitQueue::NextTick);
}

#[test]
fn escapes_unicode_and_placeholders() {
    let StmtKind::Log(t) = one(r#"log "кот \"мур\" \\ {n} #{k}""#).kind else {
        panic!()
    };
    assert_eq!(
        t.parts,
        [
            TextPart::Lit("кот \"мур\" \\ ".into()),
            TextPart::Run,
            TextPart::Lit(" #".into()),
            TextPart::Count
        ]
    );
}

#[test]
fn statement_spans_cover_the_statement() {
    let src = "log \"a\"\ntimeout 0 \"t\" {\n  log \"b\"\n}\n\n";
    let f = parse(src).unwrap();
    assert_eq!(f.body[0].span.text(src), "log \"a\"");
    assert_eq!(f.body[1].span.text(src), "timeout 0 \"t\" {\n  log \"b\"\n}");
}

/// Loads `src` and returns each problem as (code, spanned text, message).
fn problems(src: &str) -> Vec<(&'static str, String, String)> {
    match load_bytes("t.loop", src.as_bytes()) {
        Err(LoadError::Invalid(fp)) => fp
            .problems
            .iter()
            .map(|p| (p.code, p.span.text(&lossy(src)).to_string(), p.message.clone()))
            .collect(),
        Ok(l) => l
            .warnings
            .iter()
            .map(|p| (p.code, p.span.text(src).to_string(), p.message.clone()))
            .collect(),
        Err(e) => panic!("{e:?}"),
    }
}

fn lossy(s: &str) -> String {
    s.to_string()
}

#[test]
fn error_spans_point_at_the_offending_text() {
    let cases: [(&str, &str, &str); 12] = [
        ("timout 0 \"x\"", "loop::unknown-statement", "timout 0 \"x\""),
        ("setImmediate(() => {})", "loop::javascript", "setImmediate(() => {})"),
        ("timeout \"x\"", "loop::delay", "timeout"),
        ("timeout -5 \"x\"", "loop::number", "-5"),
        ("work 99999999999999999999999", "loop::number", "99999999999999999999999"),
        ("pool 0\nlog \"a\"", "loop::pool", "0"),
        ("log \"a\"\npool 2", "loop::directive-order", "pool 2"),
        ("again", "loop::again", "again"),
        ("immediate times 0", "loop::times", "0"),
        ("log \"{i}\"", "loop::placeholder", "\"{i}\""),
        ("log \"a \\t\"", "loop::escape", "\\t"),
        ("expect {\n  turn 1 chek \"x\"\n}", "loop::unknown-name", "chek"),
    ];
    for (src, code, text) in cases {
        let got = problems(src);
        assert!(got.iter().any(|(c, t, _)| *c == code && t == text), "{src}: {got:?}");
    }
}

#[test]
fn unterminated_string_and_block() {
    let got = problems("log \"abc\nlog \"d\"");
    assert_eq!(got[0].0, "loop::unterminated-string");
    assert_eq!(got[0].1, "\"abc");
    let got = problems("immediate \"a\" {\n  log \"x\"\n");
    assert_eq!((got[0].0, got[0].1.as_str()), ("loop::unclosed-block", "{"));
}

#[test]
fn several_errors_are_all_reported() {
    let got = problems("timout 0 \"x\"\nlog \"ok\"\nimediate \"y\"\nwork -1\n");
    let codes: Vec<&str> = got.iter().map(|g| g.0).collect();
    assert_eq!(
        codes,
        ["loop::unknown-statement", "loop::unknown-statement", "loop::number"],
        "{got:?}"
    );
    assert!(got[1].2.contains("imediate"));
}

/// A `}` that closes no block is reported and dropped, and the parse goes
/// on: the errors before it (and after it) are reported too, each once.
#[test]
fn a_stray_brace_hides_no_other_error() {
    let got = problems("timout 1 \"x\"\nimmediate \"i\"\nimmediate {\n  log \"a\"\n}\n}\nimediate \"y\"\n");
    let seen: Vec<(&str, &str)> = got.iter().map(|g| (g.0, g.1.as_str())).collect();
    assert_eq!(
        seen,
        [
            ("loop::unknown-statement", "timout 1 \"x\""),
            ("loop::syntax", "}"),
            ("loop::unknown-statement", "imediate \"y\"")
        ],
        "{got:?}"
    );
    assert!(got[1].2.ends_with("found `}`"), "{got:?}");
    // A string left open on the stray brace's line is reported once.
    let got = problems("abc\"def\nxyz}\"q\n");
    let seen: Vec<(&str, &str)> = got.iter().map(|g| (g.0, g.1.as_str())).collect();
    assert_eq!(
        seen,
        [("loop::unterminated-string", "\"def"), ("loop::unterminated-string", "\"q")],
        "{got:?}"
    );
    // A `}` in a string that never ends is the string's: one error, and the
    // lines after it are read.
    let got = problems("log \"abc }}}}}}}}}}}}\nimediate \"y\"\ntiemout 1 \"z\"\n");
    let codes: Vec<&str> = got.iter().map(|g| g.0).collect();
    assert_eq!(
        codes,
        ["loop::unterminated-string", "loop::unknown-statement", "loop::unknown-statement"],
        "{got:?}"
    );
    // A `}` that closes a block is not dropped: a statement that misses
    // its number before it is reported, and the extra `}` after.
    let got = problems("immediate {\n  timeout }\n}\n");
    let codes: Vec<&str> = got.iter().map(|g| g.0).collect();
    assert_eq!(codes, ["loop::delay", "loop::syntax"], "{got:?}");
}

/// A small file stops at 10 syntax errors, and says the rest was not read
/// (it said so only for files parsed in chunks).
#[test]
fn a_file_stopped_at_ten_syntax_errors_says_so() {
    let src = |braces: usize| format!("immediate \"i\"\n{}imediate \"y\"\n", "}\n".repeat(braces));
    let got = problems(&src(11));
    assert_eq!(got.iter().filter(|g| g.0 == "loop::syntax").count(), 10, "{got:?}");
    let last = got.last().unwrap();
    assert_eq!(
        (last.0, last.2.as_str()),
        (
            "loop::too-many-problems",
            "stopped after 10 syntax errors: the rest of the file was not read"
        )
    );
    // Nine: all read, the misspelt statement after them too, no note.
    let got = problems(&src(9));
    let codes: Vec<&str> = got.iter().map(|g| g.0).collect();
    assert_eq!(
        codes,
        [["loop::syntax"; 9].as_slice(), &["loop::unknown-statement"]].concat(),
        "{got:?}"
    );
}

#[test]
fn clear_of_an_unknown_label_is_a_warning() {
    let got = problems("timeout 5 \"a\"\nclear \"b\"\nclear \"a\"");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!((got[0].0, got[0].1.as_str()), ("loop::clear", "\"b\""));
}

#[test]
fn invalid_utf8_and_nul_bytes() {
    for bytes in [&b"log \"\xff\""[..], &b"log \"a\0\""[..]] {
        match load_bytes("t.loop", bytes) {
            Err(LoadError::Invalid(fp)) => assert_eq!(fp.problems[0].code, "loop::encoding"),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn an_empty_file_is_valid() {
    let f = parse("").unwrap();
    assert!(f.body.is_empty() && f.expect.is_none());
    assert!(parse("# only a comment\n").unwrap().body.is_empty());
}

#[test]
fn large_files_are_parsed_in_chunks_with_file_spans() {
    let mut src = String::from("pool 2\n");
    for i in 0..40_000 {
        src.push_str(&format!("timeout {i} \"t{i}\" {{\n  log \"x\"\n}}\nthen \"a\"\n  .then \"b\"\n"));
    }
    assert!(src.len() > 1_000_000);
    let f = parse(&src).unwrap();
    assert_eq!(f.body.len(), 80_000);
    assert_eq!(f.pool.unwrap().value, 2);
    let last = f.body.last().unwrap();
    assert_eq!(last.span.text(&src), "then \"a\"\n  .then \"b\"");
    assert_eq!(f.sites, 40_000 * 3);
    src.push_str("timout 3\nlog \"fine\"\npool 4\n");
    let got = problems(&src);
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[0].0, got[0].1.as_str()), ("loop::unknown-statement", "timout 3"));
    assert_eq!((got[1].0, got[1].1.as_str()), ("loop::directive-order", "pool 4"));
}

/// The codes and spanned texts of the problems `src` gets from the parser.
fn parse_problems(src: &str) -> Vec<(&'static str, String)> {
    match parse(src) {
        Ok(_) => panic!("{src}: parsed"),
        Err(problems) => problems.iter().map(|p| (p.code, p.span.text(src).to_string())).collect(),
    }
}

#[test]
fn a_brace_inside_a_string_does_not_stop_recovery() {
    // Recovery blanks a failed line only if its braces balance; a `{` inside
    // a string is no brace, so the second line is read and reported too.
    let src = "timeout \"{\" 5 5\ntimeout \"b\" 5 5\n";
    assert_eq!(
        parse_problems(src),
        vec![("loop::syntax", "5".to_string()), ("loop::syntax", "5".to_string())]
    );
}

#[test]
fn a_quote_inside_a_comment_of_an_unknown_statement_opens_no_string() {
    let src = "foo({ # \"x\n}) 1\n";
    assert_eq!(
        parse_problems(src),
        vec![("loop::unknown-statement", "foo({ # \"x\n}) 1".to_string())]
    );
}

/// A string's text is read in runs between `\` and `{`: escapes, placeholders,
/// a `{` that starts none, and characters of several bytes around them.
#[test]
fn texts_split_at_escapes_and_placeholders() {
    let src = "log \"a{x}\\\"b\\\\{i}\u{e9}{n}\\n\"";
    match one(src).kind {
        StmtKind::Log(t) => assert_eq!(
            t.parts,
            [
                TextPart::Lit("a{x}\"b\\".into()),
                TextPart::Index,
                TextPart::Lit("\u{e9}".into()),
                TextPart::Run,
                TextPart::Lit("\n".into()),
            ]
        ),
        k => panic!("{k:?}"),
    }
    match one("log \"\"").kind {
        StmtKind::Log(t) => assert!(t.parts.is_empty()),
        k => panic!("{k:?}"),
    }
    // An unknown escape is shown at its backslash and character (of two bytes here).
    for (src, span) in [("log \"ab\\q\"", (7, 9)), ("log \"ab\\\u{e9}\"", (7, 10))] {
        let problems = parse(src).expect_err(src);
        assert_eq!(problems.len(), 1, "{src}");
        assert_eq!((problems[0].span.start(), problems[0].span.end()), span, "{src}");
    }
    // A NUL byte is no character of a string (the loader refuses it first):
    // the statement does not parse as `log`.
    let problems = parse("log \"a\0b\"").expect_err("NUL in a string");
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].code, "loop::malformed");
    assert_eq!((problems[0].span.start(), problems[0].span.end()), (0, 9));
}

/// A NAME written as a string (`async "f" { … }`, `call "f"`), as a label
/// is: the help says a NAME takes no quotes (fresh-clone helper 61).
#[test]
fn a_quoted_name_is_told_to_take_no_quotes() {
    for (src, form) in [
        ("async \"f\" { log \"x\" }\n", "async NAME { … }"),
        ("async f { log \"x\" }\ncall \"f\"\n", "call NAME"),
        (
            "promise \"p\" = resolved\n",
            "promise [NAME] { … } (.then|.catch|.finally …)*` or `promise NAME = EXPR",
        ),
    ] {
        let problems = parse(src).expect_err(src);
        let help = problems[0].help.as_deref().unwrap_or_default();
        assert_eq!(
            help,
            format!("the form is `{form}`: a NAME is a bare word, without quotes"),
            "{src}"
        );
    }
    // Another mistake in such a statement keeps the plain form.
    let problems = parse("async f log \"x\"\n").expect_err("no braces");
    assert_eq!(problems[0].help.as_deref(), Some("the form is `async NAME { … }`"));
}

/// A statement whose block does not parse: what is wrong inside the block is
/// reported, and its head too when the head is wrong as well (an empty block
/// would not make it parse), all at once; a good head is not blamed
/// (fresh-clone helper 61 found `async "a1" { logg "x" }` told only of
/// `logg`).
#[test]
fn a_wrong_head_and_a_wrong_block_are_both_reported() {
    let codes = |src: &str| -> Vec<(String, usize)> {
        let problems = parse(src).expect_err(src);
        problems.iter().map(|p| (p.code.to_string(), p.span.start())).collect()
    };
    let malformed = || "loop::malformed".to_string();
    let unknown = || "loop::unknown-statement".to_string();
    assert_eq!(codes("async \"a1\" {\n  logg \"x\"\n}\n"), [(malformed(), 0), (unknown(), 15)]);
    // (The head's own diagnostic, as with a good block: the number is wrong.)
    assert_eq!(
        codes("immediate \"i\" 5 {\n  logg \"x\"\n}\n"),
        [("loop::number".into(), 14), (unknown(), 20)]
    );
    // A good head: only the block's line.
    assert_eq!(codes("async a1 {\n  logg \"x\"\n}\n"), [(unknown(), 13)]);
    assert_eq!(codes("timeout 5 \"t\" {\n  logg \"x\"\n}\n"), [(unknown(), 18)]);
}
