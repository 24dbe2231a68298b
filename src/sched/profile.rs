//! What differs between Node.js versions, in one place: the rules of one
//! version the event loop follows (docs/scheduling.md, "Node versions").
//!
//! libuv's `uv_run` is the same from 1.46 (Node 20) to 1.52 (Node 24, 26), and
//! so are the nextTick/microtask drain, the timer lists, `setImmediate`, the
//! thread pool's FIFO and V8's promise hops. What differs is a method here,
//! and the scheduler and interpreter ask the profile instead of hard-coding a
//! version: the drain of Node <= 10 ([`NodeProfile::drain_rule`]), where an ES
//! module's body runs ([`NodeProfile::entry`]: nodejs/node PR #57419, Node
//! 22.18, 24.3 and 26), and how many thread-pool round trips `fs.readFile` and
//! `fs.writeFile` take ([`NodeProfile::read_file_round_trips`]: one on Node 26).

use super::Module;

/// Which Node.js the loop follows (`--node`, or the file's `node N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub enum NodeProfile {
    /// Node <= 10: a timer list's callbacks run back to back and the check
    /// phase runs all its immediates before the queues drain.
    #[serde(rename = "10")]
    Node10,
    /// Node 20 (libuv 1.46, V8 11.3; end of life 2026-04-30): the nextTick and
    /// microtask queues drain after every callback (Node >= 11, nodejs/node PR
    /// #22842); an ES module's body runs inside turn 1's poll phase.
    #[serde(rename = "20")]
    Node20,
    /// Node 22 (22.18 and later, maintenance LTS): as Node 20, but an ES
    /// module's body runs before the loop starts.
    #[serde(rename = "22")]
    Node22,
    /// Node 24 (24.3 and later, maintenance LTS): as Node 22.
    #[serde(rename = "24")]
    Node24,
    /// Node 26 (active LTS since 2026-10-28): as Node 24, and `fs.readFile`
    /// and `fs.writeFile` take one thread-pool round trip.
    #[default]
    #[serde(rename = "26")]
    Node26,
}

/// Where and how the main module runs (rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entry {
    /// CommonJS: at turn 0, before the loop starts; then the nextTick queue, then microtasks.
    CommonJs,
    /// An ES module on Node 20: read asynchronously, its body runs inside turn 1's poll phase,
    /// as a microtask (its microtasks before its nextTicks).
    EsModuleInPoll,
    /// An ES module on Node >= 22.18, 24.3, 26: loaded synchronously, its body runs at turn 0
    /// before the loop starts; its microtasks still run before its nextTicks.
    EsModuleBeforeLoop,
}

impl NodeProfile {
    /// Every profile, oldest first.
    pub const ALL: [NodeProfile; 5] = [
        NodeProfile::Node10,
        NodeProfile::Node20,
        NodeProfile::Node22,
        NodeProfile::Node24,
        NodeProfile::Node26,
    ];

    /// The major version: `"26"`.
    pub fn name(self) -> &'static str {
        match self {
            NodeProfile::Node10 => "10",
            NodeProfile::Node20 => "20",
            NodeProfile::Node22 => "22",
            NodeProfile::Node24 => "24",
            NodeProfile::Node26 => "26",
        }
    }

    /// The profile of a major version, if loopsim has one.
    pub fn from_major(major: u64) -> Option<NodeProfile> {
        NodeProfile::ALL.into_iter().find(|p| p.name().parse() == Ok(major))
    }

    /// The profile of `node --version`'s answer (`v26.12.1`), if loopsim has one.
    pub fn of_version(version: &str) -> Option<NodeProfile> {
        let major = version.trim().trim_start_matches('v').split('.').next()?;
        NodeProfile::from_major(major.parse().ok()?)
    }

    /// Where the main module of kind `module` runs (rule 1).
    pub fn entry(self, module: Module) -> Entry {
        match (module, self) {
            (Module::Cjs, _) => Entry::CommonJs,
            (Module::Esm, NodeProfile::Node10 | NodeProfile::Node20) => Entry::EsModuleInPoll,
            (Module::Esm, _) => Entry::EsModuleBeforeLoop,
        }
    }

    /// Thread-pool round trips of `fs.readFile` (`readFile`): open, fstat, read, close on Node
    /// <= 24 (`lib/fs.js` `ReadFileContext`); one on Node 26 (the whole read in one request,
    /// files up to 512 KiB), also for `fs.promises.readFile`.
    pub fn read_file_round_trips(self) -> u64 {
        match self {
            NodeProfile::Node26 => 1,
            _ => 4,
        }
    }

    /// Thread-pool round trips of `fs.writeFile` (`writeFile`): open, write, close on Node <= 24;
    /// one on Node 26.
    pub fn write_file_round_trips(self) -> u64 {
        match self {
            NodeProfile::Node26 => 1,
            _ => 3,
        }
    }
}

impl std::fmt::Display for NodeProfile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Node {}", self.name())
    }
}

use super::decision::DrainAfter;

/// The name the CLI and [`crate::interp::RunOptions`] use for a profile.
pub type NodeVersion = NodeProfile;

/// Where the between-callbacks drain (rule 6) runs in the timers and check
/// phases; everywhere else it runs after every callback in every profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrainRule {
    /// After every callback (Node >= 11: `listOnTimeout` and
    /// `processImmediate` in `lib/internal/timers.js` call `runNextTicks()`
    /// between callbacks).
    AfterEachCallback,
    /// After a whole list of due timers and after the whole check phase
    /// (Node <= 10: the queues drained only when `MakeCallback` returned).
    AfterTimerListAndCheckPhase,
}

impl NodeProfile {
    /// The drain rule of the timers and check phases (docs/scheduling.md rule 6).
    pub fn drain_rule(self) -> DrainRule {
        match self {
            NodeProfile::Node10 => DrainRule::AfterTimerListAndCheckPhase,
            _ => DrainRule::AfterEachCallback,
        }
    }
}

impl DrainRule {
    /// The drain before the timers phase's next due timer, after one ran
    /// (`same_list`: the next one is of the list that ran last), if any.
    pub(crate) fn between_timers(self, same_list: bool) -> Option<DrainAfter> {
        match self {
            DrainRule::AfterEachCallback => Some(DrainAfter::Callback),
            DrainRule::AfterTimerListAndCheckPhase if same_list => None,
            DrainRule::AfterTimerListAndCheckPhase => Some(DrainAfter::TimerList),
        }
    }

    /// The drain after the last timer a timers phase ran.
    pub(crate) fn after_timers(self) -> DrainAfter {
        match self {
            DrainRule::AfterEachCallback => DrainAfter::Callback,
            DrainRule::AfterTimerListAndCheckPhase => DrainAfter::TimerList,
        }
    }

    /// The drain after each immediate, if any.
    pub(crate) fn after_immediate(self) -> Option<DrainAfter> {
        match self {
            DrainRule::AfterEachCallback => Some(DrainAfter::Callback),
            DrainRule::AfterTimerListAndCheckPhase => None,
        }
    }

    /// The drain after the whole check phase (empty under Node 20's rule:
    /// the last immediate's drain ran already).
    pub(crate) fn after_check_phase(self) -> DrainAfter {
        match self {
            DrainRule::AfterEachCallback => DrainAfter::Callback,
            DrainRule::AfterTimerListAndCheckPhase => DrainAfter::CheckPhase,
        }
    }
}
