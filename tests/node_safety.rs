//! With real `node` (`cargo test --features real-node --test node_safety`):
//! the programs `emit-js` writes for files with a hostile text in every string
//! position (`safety::cases()`) parse (`node --check`), run without running
//! any of the text, and print the texts exactly (an order loopsim allows);
//! `loopsim verify` on such files, at a hostile path, writes nothing outside
//! its temporary folder.

use loopsim::emit::{self, EmitOptions};
use loopsim::{load, orders};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod safety;
use safety::{cases, loop_string, PAYLOAD};

/// A fresh, empty folder under the system's temporary folder.
fn temp_dir(what: &str) -> PathBuf {
    static DIRS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "loopsim-node-safety-{}-{what}-{}",
        std::process::id(),
        DIRS.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// What is wrong with one case's program, if anything. `work`: an empty folder
/// of its own, the program's current folder and `TMPDIR`.
fn check_case(i: usize, what: &str, src: &str, work: &Path, pwned: &Path) -> Option<String> {
    let loaded = load::load_bytes("payload.loop", src.as_bytes()).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let opts = EmitOptions {
        scale: 5,
        name: PAYLOAD.to_string(),
    };
    let program = emit::emit(&loaded.file, &loaded.src, &opts).unwrap();
    let dir = work.parent().unwrap();
    let js = dir.join(format!("case{i}.{}", program.extension()));
    std::fs::write(&js, &program.js).unwrap();
    let check = Command::new("node").arg("--check").arg(&js).output().unwrap();
    if !check.status.success() {
        return Some(format!("{what}: node --check failed: {}", String::from_utf8_lossy(&check.stderr)));
    }
    let out = Command::new("node")
        .arg(&js)
        .current_dir(work)
        .env("TMPDIR", work)
        .env("LOOPSIM_PWNED", pwned)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let allowed = orders::all_orders(&loaded.file, &loaded.src, emit::run_options());
    let printed = allowed
        .orders
        .iter()
        .any(|o| o.end == orders::End::Exit && o.logs.iter().map(|l| format!("{l}\n")).collect::<String>() == stdout);
    let mut problems = Vec::new();
    if out.status.code() != Some(0) {
        problems.push(format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr)));
    }
    if !printed {
        let model: Vec<&String> = allowed.orders[0].logs.iter().collect();
        problems.push(format!("printed {stdout:?}, loopsim's order is {model:?}"));
    }
    if !stdout.contains(PAYLOAD) && !what.starts_with("clear") {
        problems.push("the payload is not printed whole".into());
    }
    let left = entries(work);
    if !left.is_empty() {
        problems.push(format!("left files in its folder: {left:?}"));
    }
    if pwned.exists() {
        problems.push(format!("the payload ran: {} exists", pwned.display()));
    }
    let _ = std::fs::remove_file(&js);
    (!problems.is_empty()).then(|| format!("{what}:\n  {}", problems.join("\n  ")))
}

#[test]
fn emitted_programs_parse_run_no_text_and_print_it_exactly() {
    let root = temp_dir("programs");
    let pwned = root.join("pwned");
    let all = cases();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for t in 0..3 {
            let work = root.join(format!("worker{t}")).join("work");
            std::fs::create_dir_all(&work).unwrap();
            let (all, next, failures, pwned) = (&all, &next, &failures, &pwned);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(case) = all.get(i) else { break };
                if let Some(failure) = check_case(i, &case.what, &case.src, &work, pwned) {
                    failures.lock().unwrap().push(failure);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(!pwned.exists(), "the payload ran");
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn verify_on_hostile_files_writes_nothing_outside_its_folder() {
    // The path names a folder whose name is JavaScript after a U+2028 (`//` is a
    // legal path separator): a file name in a `//` comment would run it.
    let base = temp_dir("verify");
    let (cwd, tmp) = (base.join("cwd"), base.join("tmp"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let pwned = cwd.join("pwned");
    let hostile = base
        .join("src")
        .join("x\u{2028}require('fs').writeFileSync(process.env.LOOPSIM_PWNED, 'name');");
    std::fs::create_dir_all(&hostile).unwrap();
    let all = cases();
    let pick = |what: &str| all.iter().find(|c| c.what == what).unwrap_or_else(|| panic!("{what}")).src.clone();
    let files = [
        ("a", pick("immediate, label and body")),
        ("b", pick("io after, times and again, module esm")),
        ("c", pick("submit, {i} and {k} in a label")),
        ("d", format!("title {}\nnextTick\n", loop_string(PAYLOAD))),
    ];
    let mut args: Vec<String> = vec!["verify".into(), "--runs".into(), "2".into(), "--scale".into(), "5".into()];
    for (name, src) in &files {
        std::fs::write(hostile.join(format!("{name}.loop")), src).unwrap();
        args.push(format!("{}//{name}.loop", hostile.display()));
    }
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(&args)
        .current_dir(&cwd)
        .env("TMPDIR", "../tmp") // relative: node runs elsewhere, verify must make it absolute
        .env("LOOPSIM_PWNED", &pwned)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("verified 4 files: 4 all allowed"), "{stdout}");
    assert!(!pwned.exists(), "the payload ran");
    assert_eq!(entries(&cwd), Vec::<String>::new(), "files left in the current folder");
    assert_eq!(entries(&tmp), Vec::<String>::new(), "files left in TMPDIR");
    let mut sources = entries(&hostile);
    sources.sort();
    assert_eq!(sources, ["a.loop", "b.loop", "c.loop", "d.loop"]);
    let _ = std::fs::remove_dir_all(&base);
}
