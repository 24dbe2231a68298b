//! loopsim: an interpreter for `.loop` files, a small language describing what a
//! Node.js program schedules, run on a simulated libuv event loop.
pub mod sched;
pub mod problem;
pub mod syntax;
pub mod check;
pub mod interp;
pub mod trace;
pub mod expect;
pub mod limit;
pub mod load;
pub mod cli;
