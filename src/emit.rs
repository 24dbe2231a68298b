//! `loopsim emit-js`: a `.loop` file as a standalone, readable Node.js program
//! that schedules what the file describes and prints one line per `log`, with
//! the texts `loopsim run` prints. `verify` runs it with real `node`.
//!
//! Statements become the Node APIs they stand for (`setTimeout`, `setImmediate`,
//! `process.nextTick`, `queueMicrotask`, promises); what has no one-line
//! analogue becomes a small helper in the program's runtime section
//! (`runtime`): `io` (a byte on a named pipe, arriving through the poll
//! phase), `submit` (a pool thread blocked reading a named pipe for N ticks),
//! `close` (a pipe handle's close callback), `pending` (a connect that fails at
//! once), `work` (a busy loop). One tick is `scale` milliseconds.
//!
//! The promise language (docs/language.md, section 9, whose tables give the
//! JavaScript of each statement) becomes what it stands for: `async function`,
//! `await`, `new Promise((resolve, reject) => …)`, `.then/.catch/.finally`,
//! `Promise.all` …, `node:timers/promises`, `process.on('unhandledRejection', …)`;
//! `rejections warn` runs the program again under `node --unhandled-rejections=warn`.
//!
//! Every text from the file (its title and name, labels, `log` texts) reaches
//! the program only inside a string literal written by `js_string`: never in
//! a comment or a template literal, where a line terminator or a backtick in the
//! text could end it and turn the rest of the text into code. Names of promises
//! and async functions are words the checks accepted (`Names`).
//!
//! The generator is left out of the WebAssembly build (the npm package has
//! no `emit-js` or `verify`), for its size budget: only [`DEFAULT_SCALE`],
//! which the command line's `--scale` shows, is there.

/// Milliseconds per tick unless `--scale` says otherwise: long enough that a
/// loaded two-core machine's hiccups (a few ms) stay well inside one tick.
pub const DEFAULT_SCALE: u64 = 20;

#[cfg(not(target_family = "wasm"))]
mod program;
#[cfg(not(target_family = "wasm"))]
mod runtime;

#[cfg(not(target_family = "wasm"))]
pub use program::*;
