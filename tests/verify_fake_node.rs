//! `loopsim verify`'s own behaviour, with a fake `node` (a shell script)
//! whose output is known: deterministic, no real `node` needed.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A scratch folder with `file.loop` holding `src`, and a fake `node` (a shell
/// script answering `--version` and printing `output` for any program).
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str, src: &str, node_script: Option<&str>) -> Scratch {
        let dir = std::env::temp_dir().join(format!("loopsim-diff-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        std::fs::write(dir.join("file.loop"), src).unwrap();
        let scratch = Scratch { dir };
        if let Some(body) = node_script {
            scratch.node(&format!(
                "#!/bin/sh\nif [ \"$1\" = --version ]; then echo v20.0.0-fake; exit 0; fi\n{body}\n"
            ));
        }
        scratch
    }

    /// Makes `script` the fake `node` (an executable file in `bin`).
    fn node(&self, script: &str) {
        let path = self.dir.join("bin").join("node");
        std::fs::write(&path, script).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    /// `loopsim verify ARGS file.loop` with only the fake `node` on PATH.
    fn verify(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_loopsim"))
            .arg("verify")
            .args(args)
            .arg(self.dir.join("file.loop"))
            .env("PATH", self.dir.join("bin"))
            .output()
            .unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

const TWO_LINES: &str = "log \"first\"\nnextTick \"second\"\n";

#[test]
fn verify_without_node_is_a_clear_error() {
    let s = Scratch::new("no-node", TWO_LINES, None);
    let out = s.verify(&["--runs", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`node` was not found on PATH"), "{stderr}");
}

/// A `node` whose `--version` fails without a word is named so, not with an
/// empty reason after the colon (found by the fresh-clone check).
#[test]
fn verify_with_a_node_whose_version_fails_silently_says_so() {
    let s = Scratch::new("failed-version", TWO_LINES, None);
    s.node("#!/bin/sh\nexit 1\n");
    let out = s.verify(&["--runs", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`node --version` failed (exit status: 1): it printed nothing on stderr"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing ran");
}

/// A `node` on PATH that never answers `--version` is killed after 5 s, not
/// waited for (before: verify hung; found by the fresh-clone check).
#[test]
fn verify_with_a_node_that_hangs_at_its_version_is_a_clear_error() {
    let s = Scratch::new("hung-version", TWO_LINES, None);
    // (PATH holds only the fake: `sleep` by its full path.)
    let sleep = ["/bin/sleep", "/usr/bin/sleep"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .expect("sleep(1)");
    s.node(&format!("#!/bin/sh\nexec {sleep} 1000\n"));
    let out = s.verify(&["--runs", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`node --version` did not answer within 5 s (killed): is the `node` on PATH Node.js?"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing ran");
}

#[test]
fn verify_accepts_the_orders_loopsim_allows() {
    let s = Scratch::new("allowed", TWO_LINES, Some("echo first; echo second"));
    let out = s.verify(&["--runs", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("verify: node v20.0.0-fake (Node 20 profile), 3 runs per file"),
        "{stdout}"
    );
    assert!(stdout.contains("3 runs in"), "{stdout}");
    assert!(stdout.contains("3 x  allowed: loopsim's own order"), "{stdout}");
    assert!(stdout.contains("1 all allowed, 0 with runs that failed"), "{stdout}");
}

#[test]
fn verify_reports_an_order_loopsim_does_not_allow() {
    let s = Scratch::new("not-allowed", TWO_LINES, Some("echo second; echo first"));
    let out = s.verify(&["--runs", "2", "--jobs", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("2 x  NOT ALLOWED: differs from loopsim's order at line 1"),
        "{stdout}"
    );
    assert!(stdout.contains("> second"), "the first differing line is marked: {stdout}");
}

#[test]
fn verify_reports_crashes_and_limits() {
    let crash = Scratch::new("crash", TWO_LINES, Some("echo first; echo boom >&2; exit 5"));
    let out = crash.verify(&["--runs", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("NOT ALLOWED: the program failed"), "{stdout}");
    assert!(stdout.contains("boom"), "{stdout}");
    assert!(
        stdout.contains("0 all allowed, 1 with runs that failed (an order loopsim does not allow, a crash or a hang"),
        "{stdout}"
    );
    // A program stopped at loopsim's limit (exit 3) matches an order that stops.
    let spin = "log \"start\"\nnextTick \"spin\" { again }\n";
    let stopped = Scratch::new(
        "stopped",
        spin,
        Some("echo start; echo 'loopsim: stopped: more than 5 callbacks' >&2; exit 3"),
    );
    let out = stopped.verify(&["--runs", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("stopped at the limit"), "{stdout}");
}

#[test]
fn verify_an_invalid_file_exits_2() {
    let s = Scratch::new("invalid", "timeout \"no delay\"\nbogus\n", Some("echo"));
    let out = s.verify(&["--runs", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A failed write to standard output (a full disk) is told and exits 74, as
/// in every command; `verify` panicked in `println!` (exit 101).
#[test]
#[cfg(target_os = "linux")]
fn verify_into_a_full_disk_exits_74() {
    let s = Scratch::new("full", TWO_LINES, Some("echo first; echo second"));
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["verify", "--runs", "1"])
        .arg(s.dir.join("file.loop"))
        .env("PATH", s.dir.join("bin"))
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(74), "{stderr}");
    assert!(stderr.contains("error: cannot write to standard output"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
