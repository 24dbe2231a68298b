//! Files written to hurt whoever runs them: a diagnostic far to the right,
//! floods of diagnostics, huge lines, devices, named pipes and symbolic-link
//! loops, control characters aimed at the terminal, characters XML forbids,
//! old Mac line endings and UTF-16. Each must give a bounded, well-formed,
//! escaped answer with its documented exit code.

use loopsim::load::{self, LoadError};
use loopsim::problem::{FileProblems, Problem, MAX_SHOWN};
use loopsim::syntax::ast::Span;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Generous for a debug build; a command that hangs fails here instead.
const DEADLINE: Duration = Duration::from_secs(30);

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `bytes` to `name` in a fresh folder of its own.
fn file(name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = folder(name).join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Runs loopsim with `args`, killing it (and failing) after [`DEADLINE`].
fn loopsim(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(args)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("loopsim {args:?} did not finish in {DEADLINE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("loopsim writes UTF-8")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn render(fp: &FileProblems) -> String {
    fp.render(&miette::GraphicalReportHandler::new_themed(
        miette::GraphicalTheme::unicode_nocolor(),
    ))
}

// ---- 1. a diagnostic far to the right ----

#[test]
fn a_warning_past_column_65536_is_shown_cut_around_its_label() {
    let path = file("wide.loop", format!("{}clear \"nothing\"\n", " ".repeat(70_000)));
    let o = loopsim(&["run", s(&path)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("wide.loop:1:70007]"), "{err}");
    let line = err.lines().find(|l| l.contains("clear \"nothing\"")).expect("the source line");
    assert!(line.starts_with(" 1 │ …"), "{line:?}");
    assert!(line.chars().count() < 100, "{line:?}");
    assert!(err.contains("never scheduled"), "{err}");
    assert!(err.len() < 2_000, "{} bytes", err.len());
}

/// Columns count characters, as an editor does (Cyrillic takes two bytes a
/// letter, an emoji four), the same on a line cut to a window; a leading
/// byte-order mark is no column.
#[test]
fn columns_count_characters_not_bytes() {
    for (name, src, at) in [
        ("cyrillic.loop", "log \"тест\" bogus\n".to_string(), "cyrillic.loop:1:12]"),
        ("emoji.loop", "log \"🙂🙂\"\nlog \"ё\" bogus\n".to_string(), "emoji.loop:2:9]"),
        ("bom.loop", "\u{feff}log \"a\" bogus\n".to_string(), "bom.loop:1:9]"),
        (
            "wide-cyrillic.loop",
            format!("log \"{}\" bogus\n", "я".repeat(1_000)),
            "wide-cyrillic.loop:1:1008]",
        ),
    ] {
        let Err(LoadError::Invalid(fp)) = load::load_bytes(name, src.as_bytes()) else {
            panic!("{name}: bogus is an error")
        };
        let shown = render(&fp);
        assert!(shown.contains(at), "{name}: {shown}");
    }
}

/// A diagnostic whose labels lie in two boxes (a race warning's two lines,
/// far apart): each box's header names its own label's column, not 1.
#[test]
fn each_box_of_a_diagnostic_shows_its_labels_column() {
    let src = "pool 2\nrepeat 3 {\n  submit \"job {i}\" 2 {\n    log \"done {i}\"\n  }\n}\n\
               log \"x\"\nlog \"y\"\nlog \"z\"\nlog \"w\"\nio \"r\" after 2 {\n  log \"read\"\n}\n";
    let path = file("two-boxes.loop", src);
    let o = loopsim(&["run", s(&path)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("two-boxes.loop:4:5]"), "{err}");
    assert!(err.contains("two-boxes.loop:12:3]"), "{err}");
}

#[test]
fn an_error_past_column_100000_renders() {
    let src = format!("{}bogus\n", " ".repeat(100_000));
    let Err(LoadError::Invalid(fp)) = load::load_bytes("wide.loop", src.as_bytes()) else {
        panic!("bogus is an error")
    };
    let shown = render(&fp);
    assert!(shown.contains("wide.loop:1:100001]"), "{shown}");
    assert!(shown.contains(" 1 │ …    ") && shown.contains(" bogus\n"), "{shown}");
    assert!(shown.len() < 2_000, "{shown}");
}

// ---- 2. floods of diagnostics, huge lines and texts ----

/// Names are resolved in one lookup each, and a misspelt name's closest
/// match is looked for only where its error is kept, among at most 1,000
/// names (fresh-clone helper 87's follow-up: 40,000 async functions beside
/// 40,000 calls of undeclared names took four minutes; 60,000 async
/// functions in one block, twelve seconds). A promise's executor that calls
/// a chain of 60,000 functions is followed 200 calls deep.
#[test]
fn tens_of_thousands_of_names_are_checked_at_once() {
    let mut src: String = (0..40_000).map(|i| format!("async f{i} {{ log \"x\" }}\n")).collect();
    src.extend((0..40_000).map(|i| format!("call zz{i}\n")));
    let o = loopsim(&["check", s(&file("names.loop", src))]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no promise or async function is named `zz0`"), "{err}");
    assert!(
        err.contains("39000 more errors past the first 1000 were counted, not kept"),
        "{err}"
    );
    let mut chain: String = (0..60_000).map(|i| format!("async f{i} {{ call f{} }}\n", i + 1)).collect();
    chain.push_str("async f60000 { log \"x\" }\n");
    chain.extend((0..3_000).map(|i| format!("promise p{i} {{ call f0 }}\n")));
    chain.push_str("expect {\n  \"x\"\n}\n");
    let o = loopsim(&["check", s(&file("chain.loop", chain))]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
}

#[test]
fn twenty_thousand_errors_show_fifty_and_stop_after_a_thousand() {
    let src: String = (0..20_000).map(|i| format!("bogus{i}\n")).collect();
    let path = file("many.loop", src);
    let o = loopsim(&["run", s(&path)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(err.matches("unknown statement `bogus").count(), MAX_SHOWN);
    assert!(err.contains("unknown statement `bogus49`"));
    assert!(!err.contains("`bogus50`"));
    let count = format!(
        "… and 950 more errors in {} (not shown); stopped after the first 1000 errors\n",
        path.display()
    );
    assert!(err.ends_with(&count), "{err}");
    assert!(err.len() < 30_000, "{} bytes", err.len());
}

#[test]
fn warnings_and_errors_left_over_are_counted_apart() {
    let mut problems: Vec<Problem> = (0..60)
        .map(|i| Problem::error("loop::x", Span::new(i, i + 1), "an error", "here"))
        .collect();
    problems.extend((0..3).map(|i| Problem::warning("loop::y", Span::new(i, i + 1), "a warning", "here")));
    let fp = FileProblems::new("f.loop", &"x\n".repeat(100), problems);
    assert!(render(&fp).ends_with("… and 10 more errors and 3 more warnings in f.loop (not shown)\n"));
}

#[test]
fn a_megabyte_line_is_shown_cut_around_the_error() {
    let src = format!("log \"{}\" bogus {}\n", "a".repeat(1 << 20), "b".repeat(1 << 20));
    let Err(LoadError::Invalid(fp)) = load::load_bytes("huge.loop", src.as_bytes()) else {
        panic!("an error")
    };
    let shown = render(&fp);
    assert!(shown.len() < 4_000, "{} bytes", shown.len());
    let line = shown.lines().find(|l| l.starts_with(" 1 │ ")).expect("the source line");
    assert!(line.starts_with(" 1 │ …") && line.ends_with('…'), "{line}");
    assert!(line.contains("\" bogus b"), "{line}");
}

#[test]
fn a_huge_label_text_message_and_help_are_cut() {
    let long = "n".repeat(100_000);
    let p = Problem::warning("loop::x", Span::new(0, 3), format!("message {long}"), format!("label {long}"))
        .help(format!("help {long}"))
        .also(Span::new(4, 7), format!("second {long}"));
    let shown = render(&FileProblems::new("f.loop", "abc def\n", vec![p]));
    assert!(shown.len() < 2_000, "{} bytes:\n{shown}", shown.len());
    for part in ["⚠ message", "label nnn", "help: help", "second nnn"] {
        assert!(shown.contains(part), "{part} in {shown}");
    }
    assert!(shown.matches('…').count() >= 4, "{shown}");
}

#[test]
fn a_label_over_many_lines_is_shown_on_its_first_line() {
    let src: String = (1..=1000).map(|i| format!("log \"{i}\"\n")).collect();
    let p = Problem::error("loop::x", Span::new(0, src.len() - 1), "all of it", "this statement");
    let shown = render(&FileProblems::new("f.loop", &src, vec![p]));
    assert!(shown.contains("this statement (to line 1000)"), "{shown}");
    assert!(shown.contains(" 1 │ log \"1\""), "{shown}");
    assert!(shown.contains(" 2 │ log \"2\""), "{shown}");
    assert!(!shown.contains("log \"3\""), "{shown}");
}

#[test]
fn labels_far_apart_on_one_long_line_each_get_a_window() {
    let src = format!("aaa{}bbb\n", " ".repeat(10_000));
    let p = Problem::error("loop::x", Span::new(0, 3), "two places", "first").also(Span::new(10_003, 10_006), "second");
    let shown = render(&FileProblems::new("f.loop", &src, vec![p]));
    assert!(shown.len() < 3_000, "{shown}");
    assert!(shown.contains("first") && shown.contains("second"), "{shown}");
    assert!(shown.contains(" 1 │ aaa    "), "{shown}");
    assert!(shown.contains(" 1 │ …      "), "{shown}");
}

#[test]
fn diagnostics_of_ordinary_files_are_unchanged_by_the_excerpts() {
    let src = "log \"a\"\r\ntimeout 1 \"t\" {\r\n\tagain\r\n}\r\nclear \"none\"\r\n";
    let loaded = load::load_bytes("crlf.loop", src.as_bytes()).expect("CRLF files are valid");
    let shown = render(&FileProblems::new("crlf.loop", src, loaded.warnings));
    assert_eq!(
        shown,
        "loop::clear\n\n  ⚠ no timeout, interval or immediate is labelled \"none\"\n   ╭─[crlf.loop:5:7]\n 4 │ }\n 5 │ clear \"none\"\n   ·       ───┬──\n   ·          ╰── never scheduled\n   ╰────\n  help: `clear` names the label of a `timeout`, `interval` or `immediate`; check the spelling\n"
    );
}

// ---- 3. only regular files, of bounded size ----

#[cfg(unix)]
#[test]
fn a_device_is_refused_without_reading_it() {
    // /dev/zero would never end; /dev/null is the same kind of file, safe to try.
    let o = loopsim(&["run", "/dev/null"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "error: cannot read /dev/null: not a regular file (a character device)\n"
    );
}

#[test]
fn a_folder_is_refused_with_a_hint() {
    let dir = folder("dir");
    let o = loopsim(&["run", s(&dir)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!(
            "error: cannot read {}: not a regular file (a folder); for a folder, use `loopsim test {}`\n",
            dir.display(),
            dir.display()
        )
    );
}

#[test]
fn a_file_over_the_cap_is_refused_by_its_size() {
    let path = folder("big").join("big.loop");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(load::MAX_FILE_BYTES + 1).unwrap(); // sparse: nothing is written
    drop(f);
    let o = loopsim(&["run", s(&path)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!(
            "error: cannot read {}: it is larger than 16 MiB, the most loopsim reads\n",
            path.display()
        )
    );
    let _ = std::fs::remove_file(&path);
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

/// Opens `pipe` for writing (waiting for a reader) on a thread and writes
/// `chunk` `times` times, stopping when the reader goes away; returns the
/// bytes written.
#[cfg(unix)]
fn writer(pipe: &Path, chunk: &'static [u8], times: usize) -> std::thread::JoinHandle<usize> {
    let pipe = pipe.to_path_buf();
    std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().write(true).open(&pipe).unwrap();
        let mut written = 0;
        for _ in 0..times {
            if f.write_all(chunk).is_err() {
                break;
            }
            written += chunk.len();
        }
        written
    })
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_read_when_named_and_skipped_by_test() {
    let dir = folder("fifo");
    let pipe = dir.join("a.loop");
    mkfifo(&pipe);
    std::fs::write(dir.join("ok.loop"), "log \"x\"\nexpect { \"x\" }\n").unwrap();

    // Named on the command line, a pipe is read (`/dev/stdin`, `<(…)`).
    let w = writer(&pipe, b"log \"from a pipe\"\n", 1);
    let o = loopsim(&["run", s(&pipe)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "turn  tick  phase      log (Node 26)\n   0     0  main       from a pipe\n"
    );
    w.join().unwrap();

    // Found by `test`'s walk, it is skipped: nobody may ever write to it.
    let o = loopsim(&["test", s(&dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        format!("note: skipped {}: not a regular file (a named pipe)\n", pipe.display())
    );
    assert_eq!(
        text(&o.stdout),
        format!("PASS  {} (1 line)\n1 passed, 0 failed\n", dir.join("ok.loop").display())
    );
}

#[cfg(unix)]
#[test]
fn a_pipe_that_never_ends_is_read_up_to_the_cap_only() {
    let pipe = folder("endless").join("endless.loop");
    mkfifo(&pipe);
    const CHUNK: &[u8] = &[b'#'; 1 << 20];
    let w = writer(&pipe, CHUNK, 256); // 256 MiB: bounded even for a reader without a cap
    let o = loopsim(&["run", s(&pipe)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        format!(
            "error: cannot read {}: it is larger than 16 MiB, the most loopsim reads\n",
            pipe.display()
        )
    );
    let written = w.join().unwrap() as u64;
    assert!(written <= load::MAX_FILE_BYTES + 2 * CHUNK.len() as u64, "{written} bytes written");
    // Standard input too, named as such ("it", not "the file": helper 65).
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["run", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = std::thread::spawn(move || {
        use std::io::Write;
        (0..20).try_for_each(|_| stdin.write_all(CHUNK)).is_ok()
    });
    let o = child.wait_with_output().unwrap();
    feed.join().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "error: cannot read <stdin>: it is larger than 16 MiB, the most loopsim reads\n"
    );
}

#[cfg(unix)]
#[test]
fn symbolic_link_loops_do_not_make_test_walk_forever() {
    use std::os::unix::fs::symlink;
    let dir = folder("links");
    symlink(".", dir.join("x")).unwrap();
    symlink(".", dir.join("y")).unwrap();
    symlink("/dev/zero", dir.join("zero.loop")).unwrap();
    std::fs::write(dir.join("ok.loop"), "log \"x\"\nexpect { \"x\" }\n").unwrap();
    symlink("ok.loop", dir.join("same.loop")).unwrap();
    let o = loopsim(&["test", s(&dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let d = dir.display();
    assert_eq!(
        text(&o.stdout),
        format!("PASS  {d}/ok.loop (1 line)\nPASS  {d}/same.loop (1 line)\n2 passed, 0 failed\n")
    );
    assert_eq!(
        text(&o.stderr),
        format!(
            "note: skipped {d}/x: a symbolic link to a folder (not followed)\n\
             note: skipped {d}/y: a symbolic link to a folder (not followed)\n\
             note: skipped {d}/zero.loop: a symbolic link to a character device, not to a regular file\n"
        )
    );
}

// ---- 4. control characters never reach the terminal raw ----

/// A C1 CSI, DEL, a tab, a `\n` escape and a right-to-left override in a
/// title, labels and texts; a prediction that fails on them.
const CONTROLS: &str = "title \"t\u{9b}31m\"\nlog \"a\u{9b}2J\\n\u{7f}\tb\u{202e}c\"\ntimeout 1 \"l\u{9d}0;x\u{9c}\" { log \"x\" }\nclear \"n\u{9b}q\"\nexpect { \"a\" }\n";

fn assert_escaped(what: &str, out: &str) {
    assert_escaped_but(what, out, '\n');
}

/// No character that must be escaped is in `out`, but newlines and `colour` (ESC, for colour codes).
fn assert_escaped_but(what: &str, out: &str, colour: char) {
    let raw: Vec<char> = out
        .chars()
        .filter(|&c| loopsim::term::is_escaped(c) && c != '\n' && c != colour)
        .collect();
    assert!(raw.is_empty(), "{what}: raw {raw:?} in\n{out}");
}

#[test]
fn control_characters_are_escaped_in_every_text_output() {
    let path = file("controls.loop", CONTROLS);
    let p = s(&path);
    for args in [
        vec!["run", p],
        vec!["run", "--verbose", "--explain", p],
        vec!["run", "--all-orders", p],
        vec!["check", p],
        vec!["test", p],
        vec!["run", "--color", "always", "--verbose", p],
    ] {
        let o = loopsim(&args);
        let (out, err) = (text(&o.stdout), text(&o.stderr));
        let colour = if args.contains(&"always") { '\u{1b}' } else { '\n' };
        assert_escaped_but(&format!("{args:?} stdout"), &out, colour);
        assert_escaped_but(&format!("{args:?} stderr"), &err, colour);
        assert!(
            (out.clone() + &err).contains("a\\u{9b}2J\\n\\u{7f}\\tb\\u{202e}c"),
            "{args:?}:\n{out}\n{err}"
        );
        assert!(err.contains("\"n\\u{9b}q\""), "{args:?}: the clear warning:\n{err}");
    }
    let o = loopsim(&["run", "--verbose", "--explain", p]);
    let out = text(&o.stdout);
    assert!(out.contains("   0     0  main       a\\u{9b}2J\\n\\u{7f}\\tb\\u{202e}c\n"), "{out}");
    assert!(out.contains("+ timeout \"l\\u{9d}0;x\\u{9c}\": due at 1 (line 3)"), "{out}");
    assert!(out.contains("↳ timeout \"l\\u{9d}0;x\\u{9c}\" (line 3) was scheduled"), "{out}");
}

#[test]
fn json_keeps_the_real_strings_with_escapes() {
    let path = file("controls-json.loop", CONTROLS);
    let o = loopsim(&["run", "--format", "json", s(&path)]);
    let out = text(&o.stdout);
    assert_escaped("json", &out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["title"], "t\u{9b}31m");
    assert_eq!(v["events"][0]["text"], "a\u{9b}2J\n\u{7f}\tb\u{202e}c");
    let o = loopsim(&["run", "--all-orders", "--format", "json", s(&path)]);
    let out = text(&o.stdout);
    assert_escaped("all-orders json", &out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["orders"][0][0], "a\u{9b}2J\n\u{7f}\tb\u{202e}c");
}

#[test]
fn escape_characters_in_a_bad_file_and_its_name_are_escaped() {
    let path = file("bad\u{1b}[2J.loop", "log \"a\u{1b}[2Jb\"\nbogus \u{1b}]0;title\u{7}\n");
    let o = loopsim(&["run", s(&path)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert_escaped("diagnostics", &err);
    assert!(err.contains(" 1 │ log \"a\\u{1b}[2Jb\""), "{err}");
    assert!(err.contains(" 2 │ bogus \\u{1b}]0;title\\u{7}"), "{err}");
    assert!(err.contains("bad\\u{1b}[2J.loop:2:1]"), "{err}");
    let o = loopsim(&["test", s(&path)]);
    assert_escaped("test", &(text(&o.stdout) + &text(&o.stderr)));
    assert!(text(&o.stdout).contains("ERROR "), "{}", text(&o.stdout));
    let good = file("ok\u{1b}[31m.loop", "log \"x\"\nexpect { \"x\" }\n");
    let o = loopsim(&["check", s(&good)]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        text(&o.stdout),
        format!("ok: {} (1 line as predicted)\n", s(&good).replace('\u{1b}', "\\u{1b}"))
    );
}

// ---- 5. SVG and HTML are well-formed whatever the texts ----

#[test]
fn svg_and_html_stay_well_formed_with_characters_xml_forbids_or_that_reorder_text() {
    let src = "title \"<t> & \u{fffe} \u{ffff} \u{9b} \u{7f} \u{202e}\u{2028}\u{2029}\"\n\
               timeout 1 \"l\u{fffe}<&>\u{85}\" { log \"x\u{ffff}\\n\u{202e}\" }\n\
               submit \"\u{ffff}\" 2 { log \"\u{fffe}'\\\"\" }\n";
    let path = file("xml.loop", src);
    for format in ["svg", "html"] {
        let o = loopsim(&["run", "--format", format, s(&path)]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        for bad in [
            '\u{fffe}', '\u{ffff}', '\u{9b}', '\u{7f}', '\u{85}', '\u{202e}', '\u{2028}', '\u{2029}',
        ] {
            assert!(!out.contains(bad), "{format}: {bad:?} in output");
        }
        let svg = &out[out.find("<svg").unwrap()..out.find("</svg>").unwrap() + "</svg>".len()];
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{format}: {e}"));
        let title = doc.descendants().find(|n| n.has_tag_name("title")).unwrap().text().unwrap();
        assert_eq!(title, "loopsim: <t> & \u{fffd} \u{fffd} \u{fffd} \u{fffd} \u{fffd}\u{fffd}\u{fffd}");
    }
}

// ---- 6. line endings and encodings ----

#[test]
fn old_mac_line_endings_are_refused_with_how_to_convert() {
    let path = file("mac.loop", "# a comment\rlog \"hello\"\rlog \"world\"\r");
    let o = loopsim(&["run", s(&path)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the file has 3 carriage returns (CR) without a line feed: old Mac line endings?"),
        "{err}"
    );
    assert!(err.contains("mac.loop:1:12]"), "{err}");
    assert!(err.contains(" 1 │ # a comment\\rlog \"hello\"\\rlog \"world\"\\r"), "{err}");
    assert!(err.contains("tr '\\r' '\\n' < OLD > NEW.loop"), "{err}");
    assert_eq!(text(&o.stdout), "");
}

#[test]
fn crlf_line_endings_and_a_utf8_bom_are_read_as_usual() {
    let plain = loopsim(&["run", s(&file("plain.loop", "log \"a\"\nlog \"b\"\n"))]);
    for (name, bytes) in [
        ("crlf.loop", b"log \"a\"\r\nlog \"b\"\r\n".to_vec()),
        ("bom.loop", b"\xef\xbb\xbflog \"a\"\nlog \"b\"\n".to_vec()),
    ] {
        let o = loopsim(&["run", s(&file(name, bytes))]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o.stderr));
        assert_eq!(o.stdout, plain.stdout, "{name}");
        assert_eq!(text(&o.stderr), "", "{name}");
    }
}

/// Bytes that are not UTF-8: text in Windows-1252 gets the `iconv` hint;
/// binary data without a NUL byte (random bytes, a compressed file) is
/// named as such, not taken for text in another encoding.
#[test]
fn invalid_utf8_tells_binary_data_from_text_in_another_encoding() {
    let help = |bytes: &[u8]| {
        let Err(LoadError::Invalid(fp)) = load::load_bytes("b.loop", bytes) else {
            panic!("{bytes:?}: accepted")
        };
        assert_eq!(fp.problems[0].message, "the file is not valid UTF-8");
        fp.problems[0].help.clone().unwrap()
    };
    let latin = help(b"timeout 1 \"caf\xe9\"\nlog \"na\xefve\"\n");
    assert!(latin.contains("`iconv -f WINDOWS-1252 -t UTF-8 OLD > NEW.loop`"), "{latin}");
    // Bytes a fixed generator gives: a fifth are controls, none is NUL.
    let mut x: u32 = 12345;
    let random: Vec<u8> = (0..300)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            ((x >> 16) as u8).max(1)
        })
        .collect();
    let binary = help(&random);
    assert_eq!(
        binary,
        "a .loop file is UTF-8 text, and many of these bytes are control characters: is this a binary file?"
    );
}

#[test]
fn utf16_is_recognised_with_or_without_a_byte_order_mark() {
    let text16 = "log \"привет\"\nlog \"hello\"\n";
    let le: Vec<u8> = text16.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text16.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let cases = [
        ([&[0xFF, 0xFE][..], &le].concat(), "UTF-16 (little-endian)"),
        ([&[0xFE, 0xFF][..], &be].concat(), "UTF-16 (big-endian)"),
        (le, "UTF-16 (little-endian)"),
        (be, "UTF-16 (big-endian)"),
    ];
    for (bytes, encoding) in cases {
        let Err(LoadError::Invalid(fp)) = load::load_bytes("u16.loop", &bytes) else {
            panic!("{encoding}: refused")
        };
        let p = &fp.problems[0];
        assert_eq!(p.code, "loop::encoding");
        assert_eq!(p.message, format!("the file is {encoding} text: loopsim reads UTF-8"));
        assert!(p.help.as_deref().unwrap().starts_with("save the file as UTF-8"));
        // The excerpt is the first line, decoded, labelled from column 1.
        assert_eq!(fp.src.inner(), "log \"привет\"");
        assert_eq!((p.span.start(), p.span.end()), (0, "log \"привет\"".len()));
        let shown = render(&fp);
        assert!(shown.contains("u16.loop:1:1]"), "{shown}");
        assert!(shown.contains(" 1 │ log \"привет\"\n"), "{shown}");
    }
    let label = |bytes: &[u8]| {
        let Err(LoadError::Invalid(fp)) = load::load_bytes("u16.loop", bytes) else {
            panic!("refused")
        };
        (fp.problems[0].label.clone(), fp.problems[0].help.clone().unwrap())
    };
    let le: Vec<u8> = text16.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let (with_bom, help) = label(&[&[0xFF, 0xFE][..], &le].concat());
    assert_eq!(
        with_bom,
        "read as UTF-16 (little-endian), as the byte-order mark FF FE that starts the file says"
    );
    assert!(help.contains("`iconv -f UTF-16 -t UTF-8 OLD > NEW.loop`"), "{help}");
    let (without, help) = label(&le);
    assert_eq!(
        without,
        "read as UTF-16 (little-endian), as the NUL bytes in every other place suggest"
    );
    assert!(help.contains("`iconv -f UTF-16LE -t UTF-8 OLD > NEW.loop`"), "{help}");
    // A few binary bytes with one NUL are no UTF-16: a NUL byte (found by the
    // fresh-clone check: `00 01 02 FF FE` was "UTF-16 (big-endian)"); nor
    // is text with one or three (`ab\0cd`, `lo\0g`: a later check).
    let three = b"a\0b\0c\0";
    for bytes in [
        &[0x00, 0x01, 0x02, 0xFF, 0xFE][..],
        &[0x00, 0x01],
        &[0x7F, 0x00, 0x80, 0x00],
        b"ab\0cd",
        b"lo\0g",
        three,
    ] {
        let Err(LoadError::Invalid(fp)) = load::load_bytes("b.loop", bytes) else {
            panic!("{bytes:?}: refused")
        };
        let at = bytes.iter().position(|&b| b == 0).unwrap();
        let want = format!("the file contains a NUL byte (at byte {at}): it is not text");
        assert_eq!(fp.problems[0].message, want, "{bytes:?}");
    }
    // UTF-32, CRLF and blank lines first: the first line with text, at its real line number.
    let text32 = "\r\n  \r\ntimeout 1 \"t\"\r\n";
    let u32le: Vec<u8> = [0xFEFF_u32]
        .into_iter()
        .chain(text32.chars().map(u32::from))
        .flat_map(u32::to_le_bytes)
        .collect();
    let Err(LoadError::Invalid(fp)) = load::load_bytes("u32.loop", &u32le) else {
        panic!("UTF-32 refused")
    };
    assert_eq!(
        fp.problems[0].message,
        "the file is UTF-32 (little-endian) text: loopsim reads UTF-8"
    );
    assert_eq!(fp.src.inner(), "\n\ntimeout 1 \"t\"");
    assert_eq!((fp.problems[0].span.start(), fp.problems[0].span.end()), (2, 15));
    let shown = render(&fp);
    assert!(shown.contains("u32.loop:3:1]"), "{shown}");
    assert!(shown.contains(" 3 │ timeout 1 \"t\"\n"), "{shown}");
    // Nothing but white space: no source box at all (it would be empty).
    let blank: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("\r\n \n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let Err(LoadError::Invalid(fp)) = load::load_bytes("blank.loop", &blank) else {
        panic!("refused")
    };
    let shown = render(&fp);
    assert!(shown.contains("UTF-16 (little-endian) text") && !shown.contains('╭'), "{shown}");
    // A long line is decoded only from the first 4 KiB, and shown cut.
    let long: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            format!("log \"{}\"\n", "x".repeat(100_000))
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let Err(LoadError::Invalid(fp)) = load::load_bytes("long.loop", &long) else {
        panic!("refused")
    };
    assert_eq!(fp.src.inner().chars().count(), 2048 + 1);
    assert!(fp.src.inner().ends_with("xx…"));
    // A file with a few NUL bytes is still "binary", not UTF-16.
    let Err(LoadError::Invalid(fp)) = load::load_bytes("bin.loop", b"log \"a\"\n\0\0\0 log \"b\"\n") else {
        panic!("NUL bytes are refused")
    };
    assert!(fp.problems[0].message.contains("NUL byte"), "{:?}", fp.problems);
}

/// Any spans (past the end, inside a character, over many lines, empty) over
/// sources with long lines, CRLF, tabs, controls and wide characters render
/// without panicking, with every label shown and a bounded size.
#[test]
fn any_span_over_any_source_renders() {
    let pieces = [
        "log \"a\"\n",
        "\r\n",
        "\t",
        "\u{1b}[2J",
        "é",
        "漢",
        "\u{9b}",
        "\n",
        "x",
        "\n\n",
        &" ".repeat(300),
        "\u{202e}",
        "",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    for _ in 0..2000 {
        let src: String = (0..next(40)).map(|_| pieces[next(pieces.len())]).collect();
        let spans: Vec<Span> = (0..1 + next(4))
            .map(|_| {
                let a = next(src.len() + 3);
                Span::new(a, a + next(src.len() + 3))
            })
            .collect();
        let mut p = Problem::error("loop::x", spans[0], "m", "first");
        for (i, s) in spans[1..].iter().enumerate() {
            p = p.also(*s, format!("more {i}"));
        }
        let shown = render(&FileProblems::new("f.loop", &src, vec![p]));
        assert!(!shown.contains("Failed to read contents"), "{src:?}\n{shown}");
        // (An empty source has no line to put a label under.)
        for label in std::iter::once("first".to_string()).chain((1..spans.len()).map(|i| format!("more {}", i - 1))) {
            assert!(src.is_empty() || shown.contains(&label), "{label} for {src:?} {spans:?}\n{shown}");
        }
        assert!(shown.len() < 20_000, "{src:?}\n{shown}");
        assert_escaped_but("excerpt", &shown, '\n');
    }
}

/// U+2028 and U+2029 end a line in some viewers (and in JavaScript): one
/// trace line stays one line.
#[test]
fn line_and_paragraph_separators_are_escaped_in_text_output() {
    let path = file("separators.loop", "title \"a\u{2028}b\"\nlog \"c\u{2029}d\"\n");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["run", "--no-race-check"])
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("c\\u{2029}d"), "{stdout}");
    assert!(!stdout.contains('\u{2029}'), "{stdout}");
}

/// A raw ESC inside a string is text like any other (a newcomer's file
/// was refused as "malformed `title` statement"): it runs, shown escaped.
#[test]
fn a_raw_control_character_in_a_string_is_text_shown_escaped() {
    let path = file(
        "esc.loop",
        "title \"bad \u{1b}[31m\"\nlog \"a\u{1b}[2Jb\"\nimmediate \"c\u{1b}[1m\"\n",
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["run", "--no-race-check"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.ends_with("a\\u{1b}[2Jb\n   1     0  check      c\\u{1b}[1m\n"), "{stdout}");
}

/// A label of a megabyte on a statement repeated without end (and labels of
/// 100 KB on a `then` and its link) is filled in and compared once, not once
/// per callback: the run stops at the bound on callbacks waiting (exit 3),
/// as one with a short label does. Fresh-clone helper 71 found it took
/// 412 s, a megabyte's copying, hashing and comparing per callback; the
/// deadline of [`loopsim`] fails it again if that comes back.
#[test]
fn a_long_label_costs_its_length_once_not_per_callback() {
    let long = "w".repeat(1 << 20);
    let links = format!(
        "repeat 4294967296 {{ then \"{}\" .then \"{}\" {{ log \"x\" }} }}\n",
        "t".repeat(100_000),
        "l".repeat(100_000)
    );
    for (name, src) in [
        ("long-label.loop", format!("repeat 4294967296 {{ immediate \"{long}\" }}\n")),
        ("long-link-labels.loop", links),
    ] {
        let path = file(name, src);
        let o = loopsim(&["run", "--color", "never", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{name}: {err}");
        assert!(err.contains("too many callbacks are waiting at once"), "{name}: {err}");
    }
}
