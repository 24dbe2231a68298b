//! Rendering the orders of `run --all-orders`: text and JSON.

use super::{Cut, Orders};
use std::fmt::Write as _;

/// "N orders Node 26 can print", then the races stated and the seed model's
/// order; with `list` (or when there is one order), every order listed (at
/// most [`super::MAX_LISTED`]) with the timing behind it. Control characters
/// in texts are shown escaped.
pub fn text(orders: &Orders, list: bool) -> String {
    let mut out = String::new();
    let n = orders.count;
    let _ = write!(
        out,
        "{}{} order{} {} can print{}",
        if n > u64::MAX as u128 {
            ""
        } else if orders.truncated {
            "at least "
        } else if !orders.count_exact {
            "up to "
        } else {
            ""
        },
        count(n),
        if n == 1 { "" } else { "s" },
        orders.node,
        cut_note(orders)
    );
    if n > 1 && !orders.races.is_empty() {
        // A partial answer's races are those of the orders found: a fuller
        // search may join or widen them; past the bytes the orders held may
        // take, those of the orders held.
        let among = if !orders.counted.is_empty() {
            format!(
                " among the {} orders held (the other {} {}counted without their lines)",
                count(orders.entries.len() as u128),
                count(orders.counted.len() as u128),
                if orders.truncated { "found so far were " } else { "were " }
            )
        } else if orders.truncated {
            " among the orders found so far".to_string()
        } else {
            String::new()
        };
        let _ = writeln!(out, ". The races{among}:");
        for (i, race) in orders.races.iter().enumerate() {
            let _ = writeln!(out, "  {}. {}", i + 1, crate::term::escape(&race.statement));
        }
        if !super::races::independent(&orders.races, n) && !orders.truncated && orders.counted.is_empty() {
            let _ = writeln!(
                out,
                "  (these races depend on each other: {} orders in all, not every combination)",
                count(n)
            );
        }
    } else {
        let _ = writeln!(out, ":");
    }
    if !list && n > 1 {
        if let Some(model) = orders.orders.first() {
            let _ = writeln!(out, "\nthe seed model's order{}:", end_note(orders, model));
            for line in &model.logs {
                let _ = writeln!(out, "  {}", crate::term::escape(line));
            }
            if model.logs.is_empty() {
                let _ = writeln!(out, "  (no log lines)");
            }
        }
        let _ = writeln!(
            out,
            "\n(`--list` lists {}.)",
            if orders.truncated && orders.all_listed() {
                format!("the {} found", count(orders.orders.len() as u128))
            } else if orders.truncated {
                format!("the first {} of the {} found", count(orders.orders.len() as u128), count(n))
            } else if orders.all_listed() {
                format!("all {}", count(n))
            } else {
                format!("the first {} of them", count(orders.orders.len() as u128))
            }
        );
        return out;
    }
    for (i, order) in orders.orders.iter().enumerate() {
        let why = if i == 0 {
            format!("the seed model's order{}", end_note(orders, order))
        } else {
            format!("{}{}", order.race, order.end.words())
        };
        let _ = writeln!(out, "\norder {} ({}):", i + 1, crate::term::escape(&why));
        for line in &order.logs {
            let _ = writeln!(out, "  {}", crate::term::escape(line));
        }
        if order.logs.is_empty() {
            let _ = writeln!(out, "  (no log lines)");
        }
    }
    if !orders.all_listed() {
        let _ = writeln!(
            out,
            "\n(the first {} of {}{} orders are listed)",
            count(orders.orders.len() as u128),
            if orders.truncated { "at least " } else { "" },
            count(n)
        );
    }
    out
}

/// ", then the process exits with code 1: …" after the seed model's order
/// (`model`), when its process exits otherwise than with code 0 (the line
/// it rejected at named), or ", then stopped by a limit".
fn end_note(orders: &Orders, model: &super::Order) -> String {
    match &orders.model_exit {
        Some(e) => format!(", then {e}"),
        None => model.end.words().to_string(),
    }
}

/// A count with thousands separators ("3,628,800").
fn count(n: u128) -> String {
    super::races::count_text(n)
}

/// " (search cut short after 10 s: …)" when a bound cut the search short, else "".
/// When the seed model's own run was stopped by a limit, the note says so:
/// every schedule may then run that far (millions of callbacks each), so
/// more time rarely helps, and a run that ends does.
pub fn cut_note(orders: &Orders) -> String {
    match &orders.cut {
        None => String::new(),
        Some(cut) => {
            let model_stopped = orders.orders.first().is_some_and(|o| o.end.stopped());
            let more = if model_stopped {
                let lower = orders
                    .model_limit
                    .as_ref()
                    .is_some_and(crate::trace::LimitHit::lower_turn_limit_helps);
                let or_lower = if lower { ", or a lower limit (`--max-turns 50`)," } else { "" };
                format!(
                    "; the model's own run hit a limit, and each schedule may run as far: \
                     a run that ends (`times N` on an endless chain){or_lower} is searched fast"
                )
            } else if let Some(turns) = orders.longer_run.filter(|_| !cfg!(target_family = "wasm")) {
                // (A race of a `clear`: its `interval` runs on in some timing.
                // Not in the WebAssembly build, for its size budget.)
                format!(
                    "; in some timing the run goes on past turn {}, far past the model's end \
                     (a chain or `interval` that timing never stops?): a lower limit (`--max-turns 50`) is searched fast",
                    count(u128::from(turns))
                )
            } else if let Cut::Seconds(_) = cut {
                "; `--orders-time-limit SECONDS` gives it longer".to_string()
            } else {
                String::new()
            };
            format!(
                " (search cut short {}: the orders listed are a partial answer{more})",
                cut.describe()
            )
        }
    }
}

/// `{"count": N, "node": "26", "races": [{"kind", "lines", "orders", "timing", "statement"}, …],
/// "orders": [["text", …], …], "timings": […], "stopped": […],
/// "exitCodes": [0 | 1 | 13 | null, …] (null: stopped), "listed": N,
/// "countedOnly": N (orders counted without their lines, whose races are
/// not stated: [`super::Counted`]), "truncated": bool,
/// "cut": null | {"bound": "seconds" | "orders" | …, "max": N},
/// "diagnostics": […]}`: `diagnostics` holds the limit that stopped the
/// seed model's run, if one did, as `run --format json` gives it, with its
/// labels placed in `src` (the file's text).
pub fn json(orders: &Orders, src: &str) -> String {
    // The limit that stopped the model's run, as `run --format json` gives it.
    let limit: Vec<crate::problem::Problem> = orders.model_limit.iter().map(crate::limit::problem).collect();
    let value = serde_json::json!({
        "count": orders.count.min(u64::MAX as u128) as u64,
        "countExact": orders.count_exact,
        "races": orders.races,
        "orders": orders.orders.iter().map(|o| &o.logs).collect::<Vec<_>>(),
        "timings": orders.orders.iter().map(|o| &o.race).collect::<Vec<_>>(),
        "stopped": orders.orders.iter().map(|o| o.end.stopped()).collect::<Vec<_>>(),
        "exitCodes": orders.orders.iter().map(|o| o.end.code().map_or(serde_json::Value::Null, Into::into)).collect::<Vec<_>>(),
        "listed": orders.orders.len(),
        "node": orders.node,
        "countedOnly": orders.counted.len(),
        "truncated": orders.truncated,
        "cut": orders.cut,
        "diagnostics": crate::problem::to_json(src, &limit),
    });
    crate::term::json_text(&crate::term::Integers(&value)) + "\n"
}
