//! loopsim: an interpreter for `.loop` files, a small language describing what a
//! Node.js program schedules, run on a simulated libuv event loop.
// pest_derive without its `std` feature (no per-rule stack probe; nesting is bounded before parsing) names `alloc`.
extern crate alloc;

pub mod bound;
pub mod check;
pub mod cli;
pub mod emit;
pub mod expect;
pub mod explain;
pub mod interp;
pub mod limit;
pub mod load;
pub mod orders;
pub mod problem;
pub mod promise;
pub mod render;
pub mod sched;
pub mod sort;
pub mod syntax;
pub mod term;
pub mod trace;
pub mod verdict;
#[cfg(not(target_family = "wasm"))]
pub mod verify;
