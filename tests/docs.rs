//! The documentation says what loopsim does: every example in `docs/*.md`
//! prints exactly the output shown under it, and every path README.md and
//! `docs/*.md` name exists in the repository.
//!
//! The conventions the docs follow, and this test holds them to:
//!
//! - A ```` ```loop ```` block followed by a ```` ```console ```` block is written,
//!   in a fresh temporary folder, under the first `*.loop` argument of that
//!   block's commands (`ex.loop` when none names one). Each `$ loopsim ARGS…`
//!   line is run there with `NO_COLOR=1`; its stdout and stderr, interleaved
//!   as they were written, must equal the lines up to the next `$` line
//!   (trailing spaces, and blank lines at the end, ignored). A command ending
//!   in `; echo "exit $?"` shows its exit code as a last line `exit N`; a
//!   command that does not show it must exit 0. No other shell syntax is
//!   understood: no shell is started.
//! - A ```` ```loop ```` block with no ```` ```console ```` block after it must
//!   load: `run` exits 0 or 3 (a limit), and `check` exits 0 when it has an
//!   `expect` block.
//! - Every ```` ```console ```` block follows a ```` ```loop ```` block.
//! - Links `[text](target)` that are not URLs name a file or folder of the
//!   repository, relative to the Markdown file, and a `#anchor` names a
//!   heading of the target (as GitHub spells it).
//! - A backticked path whose first folder is one of the repository's
//!   (`docs/orders.md`, `examples/…/x.loop`, `tests/`, `src/cli.rs`) exists,
//!   relative to the repository root. `…` and `*` stand for any text, `NAME`
//!   and `TARGET` for any name. Not checked: paths under a folder
//!   `.gitignore` names (build output), and paths under `src/` that are not
//!   Rust files or folders (they name Node's and libuv's sources,
//!   `src/env.cc`).

use std::fs;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// What a command appends to show its exit code.
const SHOW_EXIT: &str = r#"; echo "exit $?""#;

/// Path segments that stand for any name (besides `*` and `…` inside a segment).
const PLACEHOLDERS: &[&str] = &["NAME", "TARGET"];

/// A fenced code block.
struct Block {
    /// The info string: `loop`, `console`, `text`, or empty.
    lang: String,
    /// The 1-based line of the opening fence.
    line: usize,
    /// The lines between the fences.
    body: Vec<String>,
}

/// The fenced code blocks of a Markdown text, in order, and the text with
/// every fenced line blanked (so prose keeps its line numbers).
fn blocks(text: &str) -> (Vec<Block>, String) {
    let mut out = Vec::new();
    let mut prose = String::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some(info) = line.strip_prefix("```") {
            match open.take() {
                Some(block) => out.push(block),
                None => {
                    open = Some(Block {
                        lang: info.trim().to_string(),
                        line: i + 1,
                        body: Vec::new(),
                    })
                }
            }
        } else if let Some(block) = &mut open {
            block.body.push(line.to_string());
        } else {
            prose.push_str(line);
        }
        prose.push('\n');
    }
    if let Some(block) = open {
        panic!("a code block opened at line {} is never closed", block.line);
    }
    (out, prose)
}

/// One `$ …` line of a console block and the output shown under it.
struct Cmd {
    /// The 1-based line of the `$`.
    line: usize,
    /// The command as written, without `$ `.
    text: String,
    /// The arguments after `loopsim`.
    args: Vec<String>,
    /// Whether the command ends in `; echo "exit $?"`.
    show_exit: bool,
    /// The lines shown under it.
    want: Vec<String>,
}

/// The commands of a console block, or why one cannot be run.
fn commands(block: &Block) -> Result<Vec<Cmd>, (usize, String)> {
    let mut cmds: Vec<Cmd> = Vec::new();
    for (k, line) in block.body.iter().enumerate() {
        let at = block.line + 1 + k;
        if let Some(text) = line.strip_prefix("$ ") {
            let (cmd, show_exit) = match text.strip_suffix(SHOW_EXIT) {
                Some(cmd) => (cmd, true),
                None => (text, false),
            };
            let mut words = cmd.split_whitespace();
            if words.next() != Some("loopsim") {
                return Err((at, format!("`{text}`: a command must start with `loopsim`")));
            }
            let args: Vec<String> = words.map(str::to_string).collect();
            if let Some(bad) = args.iter().find(|a| a.contains(|c| "\"'$|&;<>`\\*?(){}".contains(c))) {
                return Err((
                    at,
                    format!("`{bad}` in `{text}`: only `loopsim ARGS…`, optionally followed by `{SHOW_EXIT}`, is understood"),
                ));
            }
            cmds.push(Cmd {
                line: at,
                text: text.to_string(),
                args,
                show_exit,
                want: Vec::new(),
            });
        } else {
            match cmds.last_mut() {
                Some(cmd) => cmd.want.push(line.to_string()),
                None => return Err((at, "output before the first `$` command".to_string())),
            }
        }
    }
    if cmds.is_empty() {
        return Err((block.line, "a console block without a `$` command".to_string()));
    }
    Ok(cmds)
}

/// Runs `loopsim ARGS` in `dir`: its stdout and stderr in the order they
/// were written, and its exit code.
fn loopsim(dir: &Path, args: &[String]) -> (String, Option<i32>) {
    let mut out = tempfile::tempfile().expect("a temporary file");
    let status = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("clone"))
        .stderr(out.try_clone().expect("clone"))
        .status()
        .expect("loopsim starts");
    let mut text = String::new();
    out.rewind().expect("rewind");
    out.read_to_string(&mut text).expect("loopsim prints UTF-8");
    (text, status.code())
}

/// An exit code as `echo $?` shows it (a signal as such).
fn shown(code: Option<i32>) -> String {
    code.map_or("(killed by a signal)".to_string(), |c| c.to_string())
}

/// `lines` without trailing spaces and without blank lines at the end.
fn normal<S: AsRef<str>>(lines: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut out: Vec<String> = lines.into_iter().map(|l| l.as_ref().trim_end().to_string()).collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Runs every example of the Markdown file `md` (relative to the root):
/// the failures, and how many commands ran.
fn check_examples(md: &str) -> (Vec<String>, usize) {
    let text = fs::read_to_string(Path::new(ROOT).join(md)).unwrap_or_else(|e| panic!("{md}: {e}"));
    let (bs, _) = blocks(&text);
    let mut fails = Vec::new();
    let mut ran = 0;
    for (k, block) in bs.iter().enumerate() {
        if block.lang == "console" && (k == 0 || bs[k - 1].lang != "loop") {
            fails.push(format!("{md}:{}: a console block that follows no ```loop block", block.line));
        }
        if block.lang != "loop" {
            continue;
        }
        let console = bs.get(k + 1).filter(|b| b.lang == "console");
        let cmds = match console.map(commands) {
            None => Vec::new(),
            Some(Ok(cmds)) => cmds,
            Some(Err((line, why))) => {
                fails.push(format!("{md}:{line}: {why}"));
                continue;
            }
        };
        let name = cmds
            .iter()
            .flat_map(|c| &c.args)
            .find(|a| a.ends_with(".loop"))
            .map_or("ex.loop", String::as_str);
        let dir = tempfile::tempdir().expect("a temporary folder");
        fs::write(dir.path().join(name), block.body.join("\n") + "\n").expect("write the example");
        if console.is_none() {
            let (out, code) = loopsim(dir.path(), &["run".into(), name.into()]);
            if !matches!(code, Some(0 | 3)) {
                fails.push(format!(
                    "{md}:{}: this example does not load (`loopsim run` exit {}, not 0 or 3):\n{out}",
                    block.line,
                    shown(code)
                ));
            }
            if block.body.iter().any(|l| {
                l.trim_start()
                    .strip_prefix("expect")
                    .is_some_and(|r| r.trim_start().starts_with('{'))
            }) {
                let (out, code) = loopsim(dir.path(), &["check".into(), name.into()]);
                if code != Some(0) {
                    fails.push(format!(
                        "{md}:{}: this example's prediction does not hold (`loopsim check` exit {}):\n{out}",
                        block.line,
                        shown(code)
                    ));
                }
            }
            ran += 1;
            continue;
        }
        for cmd in &cmds {
            let (out, code) = loopsim(dir.path(), &cmd.args);
            ran += 1;
            let mut got = normal(out.lines());
            if cmd.show_exit {
                got.push(format!("exit {}", shown(code)));
            } else if code != Some(0) {
                got.push(format!(
                    "(exit {}: show it with `{SHOW_EXIT}`, or make the command succeed)",
                    shown(code)
                ));
            }
            let want = normal(&cmd.want);
            if got != want {
                fails.push(format!(
                    "{md}:{}: $ {}\n--- the doc shows\n{}\n--- loopsim printed\n{}",
                    cmd.line,
                    cmd.text,
                    want.join("\n"),
                    got.join("\n")
                ));
            }
        }
    }
    (fails, ran)
}

/// `docs/*.md`, relative to the root, sorted.
fn doc_files() -> Vec<String> {
    let mut files: Vec<String> = fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_doc_example_prints_what_the_doc_shows() {
    let files = doc_files();
    // One thread per file: the examples of one file run in order.
    let results: Vec<(Vec<String>, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = files.iter().map(|md| s.spawn(move || check_examples(md))).collect();
        handles.into_iter().map(|h| h.join().expect("no panic")).collect()
    });
    let ran: usize = results.iter().map(|r| r.1).sum();
    let fails: Vec<&String> = results.iter().flat_map(|r| &r.0).collect();
    assert!(ran >= 40, "only {ran} commands found in {files:?}: is the parsing broken?");
    assert!(
        fails.is_empty(),
        "{} doc example(s) out of date:\n\n{}",
        fails.len(),
        fails.iter().map(|f| f.as_str()).collect::<Vec<_>>().join("\n\n")
    );
}

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_`
/// kept, spaces made `-`, anything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets `-1`, `-2`…).
fn anchors(prose: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in prose.lines() {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..]);
            let mut anchor = base.clone();
            let mut n = 0;
            while out.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            out.push(anchor);
        }
    }
    out
}

/// Texts found in a file's prose, each with its 1-based line.
type Found = Vec<(usize, String)>;

/// The link targets `[text](target)` and the code spans without spaces of a
/// file's prose.
fn references(prose: &str) -> (Found, Found) {
    let (mut links, mut spans) = (Vec::new(), Vec::new());
    let mut line = 1;
    let mut rest = prose;
    while let Some(i) = rest.find(['`', ']', '\n']) {
        let after = &rest[i..];
        match after.as_bytes()[0] {
            b'\n' => {
                line += 1;
                rest = &after[1..];
            }
            b'`' => {
                let end = after[1..].find('`').map_or(after.len(), |e| e + 1);
                let span = &after[1..end];
                if !span.contains(char::is_whitespace) {
                    spans.push((line, span.to_string()));
                }
                line += span.matches('\n').count();
                rest = after.get(end + 1..).unwrap_or("");
            }
            _ => {
                if let Some(target) = after.strip_prefix("](").and_then(|t| t.split_once(')')).map(|t| t.0) {
                    links.push((line, target.to_string()));
                }
                rest = &after[1..];
            }
        }
    }
    (links, spans)
}

/// The folders `.gitignore` names (build output): `target/`, `fuzz/artifacts/`.
fn ignored() -> Vec<String> {
    fs::read_to_string(Path::new(ROOT).join(".gitignore"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().trim_start_matches('/'))
        .filter(|l| l.ends_with('/') && !l.contains('*'))
        .map(str::to_string)
        .collect()
}

/// Whether `name` (one path segment) matches `pattern`, where `*` and `…`
/// stand for any text and a placeholder segment for any name.
fn segment_matches(pattern: &str, name: &str) -> bool {
    if PLACEHOLDERS.iter().any(|p| pattern.split('.').next() == Some(*p)) {
        let ext = pattern.split_once('.').map(|e| e.1);
        return ext.is_none_or(|ext| name.ends_with(&format!(".{ext}")));
    }
    let parts: Vec<&str> = pattern.split(['*', '…']).collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || !name[first.len()..].ends_with(last) {
        return false;
    }
    let mut at = first.len();
    let end = name.len() - last.len();
    for part in &parts[1..parts.len() - 1] {
        match name[at..end].find(part) {
            Some(j) => at += j + part.len(),
            None => return false,
        }
    }
    true
}

/// Whether some path under `dir` matches `segments` (a folder for a trailing `""`).
fn exists(dir: &Path, segments: &[&str]) -> bool {
    match segments {
        [] | [""] => dir.is_dir(),
        [first, rest @ ..] => fs::read_dir(dir).is_ok_and(|entries| {
            entries.filter_map(Result::ok).any(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                segment_matches(first, &name)
                    && (if rest.is_empty() {
                        e.path().exists()
                    } else {
                        exists(&e.path(), rest)
                    })
            })
        }),
    }
}

/// The broken references of one Markdown file (relative to the root).
fn broken_references(md: &str, ignored: &[String], roots: &[String]) -> Vec<String> {
    let root = Path::new(ROOT);
    let text = fs::read_to_string(root.join(md)).unwrap_or_else(|e| panic!("{md}: {e}"));
    let (_, prose) = blocks(&text);
    let (links, spans) = references(&prose);
    let mut broken = Vec::new();
    let base = root.join(md).parent().expect("a folder").to_path_buf();
    for (line, target) in links {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((path, anchor)) => (path, Some(anchor)),
            None => (target.as_str(), None),
        };
        let file: PathBuf = if path.is_empty() { root.join(md) } else { base.join(path) };
        let inside = file.canonicalize().is_ok_and(|f| f.starts_with(root.canonicalize().expect("root")));
        if !inside {
            broken.push(format!("{md}:{line}: the link `{target}` names no file of the repository"));
            continue;
        }
        if let Some(anchor) = anchor.filter(|_| file.extension().is_some_and(|e| e == "md")) {
            let (_, their_prose) = blocks(&fs::read_to_string(&file).expect("a readable Markdown file"));
            if !anchors(&their_prose).iter().any(|a| a == anchor) {
                broken.push(format!("{md}:{line}: the link `{target}`: no heading has the anchor `#{anchor}`"));
            }
        }
    }
    for (line, span) in spans {
        let Some((first, _)) = span.split_once('/') else { continue };
        let ours = roots.iter().any(|r| r == first);
        let build_output = ignored.iter().any(|i| span.starts_with(i.as_str()));
        let foreign_source = first == "src" && !span.ends_with(".rs") && !span.ends_with('/');
        if !ours || build_output || foreign_source {
            continue;
        }
        let segments: Vec<&str> = span.split('/').collect();
        if !exists(root, &segments) {
            broken.push(format!("{md}:{line}: `{span}` is not a path of the repository"));
        }
    }
    broken
}

#[test]
fn every_path_the_docs_name_exists() {
    let ignored = ignored();
    let roots: Vec<String> = fs::read_dir(ROOT)
        .expect("the root")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name != ".git" && !ignored.contains(&format!("{name}/")))
        .collect();
    let mut files = vec!["README.md".to_string()];
    files.extend(doc_files());
    let broken: Vec<String> = files.iter().flat_map(|md| broken_references(md, &ignored, &roots)).collect();
    assert!(broken.is_empty(), "{} broken reference(s):\n{}", broken.len(), broken.join("\n"));
}

#[test]
fn the_reference_checks_catch_what_they_should() {
    let (_, prose) = blocks("# A `title` — here\n\ntext [x](a.md#b) `docs/x.md`\n```sh\n[y](z)\n```\n## A title here\n");
    assert_eq!(anchors(&prose), ["a-title--here", "a-title-here"]);
    let (links, spans) = references(&prose);
    assert_eq!(links, [(3, "a.md#b".to_string())]);
    assert_eq!(spans, [(1, "title".to_string()), (3, "docs/x.md".to_string())]);
    assert!(segment_matches("p06-…", "p06-main-module.loop"));
    assert!(!segment_matches("p06-…", "p07-main-module.loop"));
    assert!(segment_matches("NAME.loop", "again.loop"));
    assert!(!segment_matches("NAME.loop", "again.rs"));
    let root = Path::new(ROOT);
    assert!(exists(root, &["examples", "phases", "p06-…"]));
    assert!(exists(root, &["tests", "regressions", "*.loop"]));
    assert!(exists(root, &["src", "orders", ""]));
    assert!(!exists(root, &["docs", "no-such-page.md"]));
    assert!(!exists(root, &["examples", "phases", "p99-…"]));
}

#[test]
fn console_commands_are_parsed_without_a_shell() {
    let block = |body: &[&str]| Block {
        lang: "console".into(),
        line: 10,
        body: body.iter().map(|s| s.to_string()).collect(),
    };
    let cmds = commands(&block(&[
        "$ loopsim run --explain a.loop; echo \"exit $?\"",
        "out",
        "$ loopsim check a.loop",
        "ok",
    ]))
    .unwrap();
    assert_eq!(cmds.len(), 2);
    assert_eq!(
        (cmds[0].line, cmds[0].args.clone(), cmds[0].show_exit),
        (11, vec!["run".into(), "--explain".into(), "a.loop".into()], true)
    );
    assert_eq!(cmds[0].want, ["out"]);
    assert_eq!((cmds[1].show_exit, cmds[1].want.clone()), (false, vec!["ok".to_string()]));
    assert!(commands(&block(&["$ loopsim run a.loop 2>&1"])).is_err());
    assert!(commands(&block(&["$ node a.js"])).is_err());
    assert!(commands(&block(&["stray output", "$ loopsim run a.loop"])).is_err());
    assert_eq!(normal(["a  ", "b", "", ""]), ["a", "b"]);
}
