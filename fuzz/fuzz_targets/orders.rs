//! Any bytes → load → every order Node 20 can print, with small bounds: the
//! search, its text and JSON reports, the race warning `run` adds, and the
//! check of `expect … or …`. Nothing panics, and each input finishes quickly
//! (`common::orders`).
#![no_main]

use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::orders(data));
