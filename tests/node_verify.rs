//! `loopsim verify` with real `node`: what it leaves on disk and running.
//! Temporary folders have unpredictable names and never follow a planted
//! symlink; none is left after a run or after Ctrl-C/SIGTERM, and no `node`
//! process either; a program that hangs is killed and reported.
//!
//! Needs `node` on PATH: `cargo test --features real-node --test node_verify`.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A scratch folder: `tmp/` (the TMPDIR `verify` gets, empty) and `.loop` files.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new(files: &[(&str, &str)]) -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("tmp")).unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        Scratch { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn tmp(&self) -> PathBuf {
        self.path("tmp")
    }

    /// What is in `tmp/`, sorted.
    fn tmp_entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// `loopsim verify ARGS` in the scratch folder, with `tmp/` as TMPDIR.
    fn verify(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_loopsim"));
        cmd.arg("verify")
            .args(args)
            .current_dir(self.dir.path())
            .env("TMPDIR", self.tmp())
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }
}

/// A process: pid, process group, state letter, command line.
#[derive(Debug)]
struct Proc {
    pid: u32,
    pgid: u32,
    state: char,
    cmdline: String,
}

/// Every process in /proc.
fn processes() -> Vec<Proc> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        // After the `(comm)` field: state, ppid, pgrp, …
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        out.push(Proc {
            pid,
            pgid: fields[2].parse().unwrap(),
            state: fields[0].chars().next().unwrap(),
            cmdline: String::from_utf8_lossy(&cmdline).replace('\0', " "),
        });
    }
    out
}

/// Live (not zombie) processes whose command line mentions `needle`.
fn live_with(needle: &str) -> Vec<Proc> {
    processes()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.cmdline.contains(needle))
        .collect()
}

/// Polls `done` every 10 ms for up to `secs` seconds.
fn wait_for(secs: u64, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    done()
}

fn output_of(child: Child) -> (Option<i32>, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn temporary_folders_are_unpredictable_private_and_never_follow_a_planted_symlink() {
    let s = Scratch::new(&[("file.loop", "log \"a\"\ntimeout 25 \"t\"\n")]);
    // Before: verify used $TMPDIR/loopsim-verify-PID-0, followed a symlink there
    // and wrote program.js and run outputs into its target.
    let victim = s.path("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("program.js"), "precious").unwrap();
    // The shell plants the symlink at the name its own pid gives, then becomes verify (same pid).
    let script = r#"ln -s "$1" "$TMPDIR/loopsim-verify-$$-0" && exec "$2" verify --runs 4 file.loop"#;
    let mut child = Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(&victim)
        .arg(env!("CARGO_BIN_EXE_loopsim"))
        .current_dir(s.dir.path())
        .env("TMPDIR", s.tmp())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let planted = format!("loopsim-verify-{pid}-0");
    // While it runs: every other entry of TMPDIR is a fresh, private, randomly named folder.
    let mut seen: Vec<(String, u32)> = Vec::new();
    while child.try_wait().unwrap().is_none() {
        for entry in std::fs::read_dir(s.tmp()).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == planted || seen.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Ok(meta) = std::fs::symlink_metadata(entry.path()) {
                seen.push((name, meta.permissions().mode() & 0o7777));
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let (code, stdout, stderr) = output_of(child);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("4 runs in"), "{stdout}");
    // The symlink's target is untouched.
    assert_eq!(std::fs::read_to_string(victim.join("program.js")).unwrap(), "precious");
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 1);
    assert!(!seen.is_empty(), "the run's temporary folder was seen");
    for (name, mode) in &seen {
        let predictable = name
            .strip_prefix(&format!("loopsim-verify-{pid}-"))
            .is_some_and(|n| n.parse::<u32>().is_ok());
        assert!(!predictable, "{name}");
        assert!(name.starts_with("loopsim-verify-"), "{name}");
        assert_eq!(*mode, 0o700, "{name}");
    }
    // Nothing but the planted symlink is left.
    assert_eq!(s.tmp_entries(), [planted]);
}

#[test]
fn nothing_is_left_in_tmpdir_after_a_run() {
    let s = Scratch::new(&[("file.loop", "io \"bytes\" after 2\nsubmit \"job\" 3\nclose \"c\"\n")]);
    let (code, stdout, stderr) = output_of(s.verify(&["--runs", "3", "file.loop"]).spawn().unwrap());
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(s.tmp_entries(), Vec::<String>::new());
}

/// Starts a 50-run verify of a file whose runs last 3 s each, sends `signal`
/// once its `node` processes run, and checks that it exits with `code`
/// promptly, leaving no `node` process and no temporary folder.
fn stopped_by(signal: &str, code: i32) {
    let s = Scratch::new(&[("slow.loop", "log \"a\"\ntimeout 150 \"late\"\n")]);
    let child = s.verify(&["--runs", "50", "slow.loop"]).spawn().unwrap();
    let pid = child.id();
    let tmp = s.tmp().display().to_string();
    // The programs run from the temporary folder: their command lines name it.
    assert!(wait_for(30, || !live_with(&tmp).is_empty()), "node runs started");
    std::thread::sleep(Duration::from_millis(500));
    let nodes = live_with(&tmp);
    assert!(!nodes.is_empty());
    for node in &nodes {
        assert_eq!(node.pgid, node.pid, "each node leads a process group of its own: {node:?}");
    }
    let groups: Vec<u32> = nodes.iter().map(|n| n.pgid).collect();
    let sent = Instant::now();
    assert!(Command::new("kill").args([signal, &pid.to_string()]).status().unwrap().success());
    let mut child = child;
    assert!(wait_for(10, || child.try_wait().unwrap().is_some()), "verify exits promptly");
    let took = sent.elapsed();
    let (status, _, stderr) = output_of(child);
    assert_eq!(status, Some(code), "{stderr}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let name = signal.trim_start_matches('-');
    assert!(stderr.contains(&format!("verify: stopped by SIG{name}: killed ")), "{stderr}");
    // No node left: none running from the folder, none in the groups verify made.
    let left = || {
        processes()
            .into_iter()
            .filter(|p| p.state != 'Z' && (p.cmdline.contains(&tmp) || groups.contains(&p.pgid)))
            .collect::<Vec<_>>()
    };
    assert!(wait_for(5, || left().is_empty()), "{:?}", left());
    assert_eq!(s.tmp_entries(), Vec::<String>::new());
}

#[test]
fn ctrl_c_kills_every_node_and_removes_the_temporary_folder() {
    stopped_by("-INT", 130);
}

#[test]
fn sigterm_kills_every_node_and_removes_the_temporary_folder() {
    stopped_by("-TERM", 143);
}

/// The `node` on PATH, as an absolute path.
fn real_node() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap();
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|p| p.is_file())
        .expect("node on PATH")
}

#[test]
fn a_program_that_hangs_is_killed_at_its_limit_with_what_it_started() {
    // A `node` that never ends, and starts another node that never ends either.
    let s = Scratch::new(&[("file.loop", "log \"a\"\n")]);
    let marker = s.path("hang-marker").display().to_string();
    let node = real_node();
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = --version ]; then exec {node} --version; fi\n\
         {node} -e 'setInterval(() => {{}}, 1000)' {marker} &\n\
         exec {node} -e 'setInterval(() => {{}}, 1000)' {marker}\n",
        node = node.display()
    );
    std::fs::create_dir(s.path("bin")).unwrap();
    let fake = s.path("bin").join("node");
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = s.verify(&["--runs", "2", "file.loop"]);
    cmd.env("PATH", s.path("bin"));
    let (code, stdout, stderr) = output_of(cmd.spawn().unwrap());
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("file.loop: 2 runs in"), "{stdout}");
    assert!(stdout.contains(", 1 order, 2 runs hung"), "{stdout}");
    assert!(
        stdout.contains("2 x  hung: killed after 20 s (its time limit: 2 x loopsim's 0 s + 20 s)"),
        "{stdout}"
    );
    assert!(wait_for(5, || live_with(&marker).is_empty()), "{:?}", live_with(&marker));
    assert_eq!(s.tmp_entries(), Vec::<String>::new());
}
