//! Any bytes → `load_bytes`: never panics; problems point inside the source
//! (`common::parse`).
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::parse(data));
