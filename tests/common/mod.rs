//! Helpers shared by the integration tests.

// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// A timer that starts an endless immediate chain ("spin"), beside an
/// immediate ("i") it races with: the race, then a run only a limit stops
/// (docs/orders.md "Settled runs").
pub const TIMER_STARTS_ENDLESS_CHAIN: &str =
    "timeout 1 \"t\" {\n  log \"t\"\n  immediate \"spin\" {\n    log \"spin\"\n    again\n  }\n}\nimmediate \"i\"\n";

/// Every `.loop` file under `dir` (recursively), sorted; nothing if `dir` is missing.
pub fn loop_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            loop_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "loop") {
            out.push(path);
        }
    }
}

/// [`loop_files`] of `dir` (recursively), a path from the repository root
/// (tests run there).
pub fn loop_files_under(dir: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    loop_files(Path::new(dir), &mut out);
    out
}

/// The `.loop` files directly in `dir` (not its sub-folders), sorted.
pub fn loop_files_in(dir: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "loop"))
        .collect();
    paths.sort();
    paths
}
