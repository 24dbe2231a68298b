//! Where a callback runs: a phase of the loop or a between-callbacks queue.

use std::fmt;

/// A phase of a libuv loop turn (`uv_run`: timers, pending, poll, check, close),
/// the main module, or one of Node's two between-callbacks queues.
///
/// Trace lines and `expect` lines name one of these; the names are those of the
/// Node.js event-loop guide (seed 004) and docs/language.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Phase {
    /// The main module's synchronous code (turn 0; turn 1's poll phase for `module esm`).
    Main,
    /// Expired `setTimeout`/`setInterval` callbacks (`uv__run_timers`).
    Timers,
    /// I/O callbacks libuv deferred to the next turn (`uv__run_pending`).
    Pending,
    /// Completed I/O and thread-pool work (`uv__io_poll`).
    Poll,
    /// `setImmediate` callbacks (`uv__run_check`, Node's `CheckImmediate`).
    Check,
    /// Close callbacks (`uv__run_closing_handles`).
    Close,
    /// `process.nextTick` callbacks, drained after every callback.
    NextTick,
    /// Promise reactions and `queueMicrotask` callbacks, drained after the nextTick queue.
    Microtask,
    /// Node's unhandled-rejection processing at the end of a drain (`processPromiseRejections`,
    /// `lib/internal/process/promises.js`): the 'unhandledRejection' and 'rejectionHandled'
    /// listeners run here.
    Rejections,
}

impl Phase {
    /// Every phase and queue, in the order the names are listed in docs/language.md.
    pub const ALL: [Phase; 9] = [
        Phase::Main,
        Phase::Timers,
        Phase::Pending,
        Phase::Poll,
        Phase::Check,
        Phase::Close,
        Phase::NextTick,
        Phase::Microtask,
        Phase::Rejections,
    ];

    /// The name used in `.loop` files and in traces.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Main => "main",
            Phase::Timers => "timers",
            Phase::Pending => "pending",
            Phase::Poll => "poll",
            Phase::Check => "check",
            Phase::Close => "close",
            Phase::NextTick => "nextTick",
            Phase::Microtask => "microtask",
            Phase::Rejections => "rejections",
        }
    }

    /// Parses a name as written in `.loop` files (`"nextTick"`, `"poll"`, …).
    pub fn from_name(name: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}
