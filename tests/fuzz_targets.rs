//! The fuzz targets' checks (`fuzz/fuzz_targets/common.rs`), compiled with
//! the main crate so that they cannot rot unseen (cargo-fuzz builds them only
//! on demand), and run on the `.loop` files a fuzzer starts from (examples,
//! conformance cases, regressions, bad inputs): none may fail a check.

mod common;

#[path = "../fuzz/fuzz_targets/common.rs"]
mod fuzz;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

fn files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    // The seeds a fuzzer starts from; `tests/hostile` (extreme numbers) is
    // left to `tests/sweep.rs`, which runs it through the binary.
    for dir in ["examples", "tests/conformance", "tests/regressions", "tests/diagnostics"] {
        common::loop_files(&root.join(dir), &mut files);
    }
    assert!(files.len() >= 70, "only {} .loop files", files.len());
    files
}

/// Runs `target` on every file, on as many threads as there are cores; a
/// panic names the file.
fn each_file(target: fn(&[u8])) {
    let files = files();
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(path) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let data = std::fs::read(path).unwrap();
                    if std::panic::catch_unwind(|| target(&data)).is_err() {
                        panic!("{}: a check failed (see above)", path.display());
                    }
                }
            });
        }
    });
}

#[test]
fn parse_target_accepts_every_repository_file() {
    each_file(fuzz::parse);
}

#[test]
fn run_target_accepts_every_repository_file() {
    each_file(fuzz::run);
}

#[test]
fn orders_target_accepts_every_repository_file() {
    each_file(fuzz::orders);
}
