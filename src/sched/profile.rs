//! What differs between Node.js versions, in one place: the rules of one
//! version the event loop follows (docs/scheduling.md, "Node versions").
//!
//! Today the profiles differ in the between-callbacks drain (rule 6). A rule
//! that differs in a later version (the ES-module entry of Node 22.18 and
//! later, docs/scheduling.md "Node versions") is a new method here, and the
//! scheduler asks the profile instead of hard-coding Node 20.

/// Which Node.js the loop follows (`--node`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NodeProfile {
    /// Node >= 11 (nodejs/node PR #22842), as Node 20 (libuv 1.46) runs it:
    /// the nextTick and microtask queues drain after every callback, timers and
    /// immediates included.
    #[default]
    Node20,
    /// Node <= 10: a timer list's callbacks run back to back and the check
    /// phase runs all its immediates before the queues drain.
    Node10,
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
            NodeProfile::Node20 => DrainRule::AfterEachCallback,
            NodeProfile::Node10 => DrainRule::AfterTimerListAndCheckPhase,
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
