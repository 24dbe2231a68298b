//! Any bytes → load → run with small limits → text, JSON, limit diagnostic and
//! `expect` check: nothing panics, and each input finishes quickly (`common::run`).
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::run(data));
