//! Helpers shared by the integration tests.

// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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

/// Whether the file at `path` uses the promise language, which this build
/// checks but cannot run: the CLI refuses it with `loop::not-yet-runnable`
/// (`check::promises::gate`). The tests that run every example skip these
/// files (`examples/promises/`) until the interpreter runs them; the
/// interpreter work, which removes the gate, removes this helper with it.
pub fn not_yet_runnable(path: &Path) -> bool {
    loopsim::load::load(path).is_ok_and(|loaded| loopsim::check::promises::gate(&loaded.file).is_some())
}
