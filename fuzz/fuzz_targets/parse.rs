//! Any bytes → `load_bytes`: never panics; problems point inside the source.
#![no_main]

use libfuzzer_sys::fuzz_target;
use loopsim::load::{load_bytes, LoadError};
use loopsim::problem::FileProblems;

mod common;

fuzz_target!(|data: &[u8]| {
    match load_bytes("fuzz.loop", data) {
        Ok(loaded) => {
            if !loaded.warnings.is_empty() {
                common::check_problems(&FileProblems::new(&loaded.name, &loaded.src, loaded.warnings.clone()));
            }
        }
        Err(LoadError::Invalid(fp)) => common::check_problems(&fp),
        Err(LoadError::Io { .. }) => unreachable!("load_bytes reads nothing"),
    }
});
