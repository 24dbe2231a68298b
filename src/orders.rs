//! Every order of log lines real Node 20 can print for a file
//! (`../shared/ALL-ORDERS.md`), behind `run --all-orders`, race warnings and
//! `verify`.

use crate::interp::{self, RunOptions};
use crate::syntax::ast::File;
use crate::trace::Ending;

/// One possible order of log lines and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Order {
    /// The log texts, in order.
    pub logs: Vec<String>,
    /// Whether a limit stopped this schedule.
    pub stopped: bool,
    /// What made this order differ from the model's (empty for the model's own).
    pub race: String,
}

/// The distinct possible orders, the seed model's first.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Orders {
    pub orders: Vec<Order>,
    /// A search bound cut the exploration short: more orders may exist.
    pub truncated: bool,
}

/// Every order Node 20 can print for `file`. (Work in progress: for now only
/// the seed model's own order.)
pub fn all_orders(file: &File, src: &str, opts: RunOptions) -> Orders {
    let trace = interp::run(file, src, "", opts);
    let logs = trace.logs().map(|(_, t)| t.to_string()).collect();
    Orders {
        orders: vec![Order {
            logs,
            stopped: matches!(trace.ending, Ending::Limit(_)),
            race: String::new(),
        }],
        truncated: false,
    }
}
