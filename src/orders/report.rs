//! Rendering the orders of `run --all-orders`: text and JSON.

use super::{Cut, Orders};
use std::fmt::Write as _;

/// "N orders Node 20 can print", then each order with the race behind it
/// (control characters in texts shown escaped).
pub fn text(orders: &Orders) -> String {
    let mut out = String::new();
    let n = orders.orders.len();
    let _ = writeln!(
        out,
        "{n} order{} {} can print{}:",
        if n == 1 { "" } else { "s" },
        orders.node,
        cut_note(orders)
    );
    for (i, order) in orders.orders.iter().enumerate() {
        let why = if i == 0 {
            "the seed model's order".to_string()
        } else {
            order.race.clone()
        };
        let stopped = if order.stopped { ", then stopped by a limit" } else { "" };
        let _ = writeln!(out, "\norder {} ({}{stopped}):", i + 1, crate::term::escape(&why));
        for line in &order.logs {
            let _ = writeln!(out, "  {}", crate::term::escape(line));
        }
    }
    out
}

/// " (search cut short after 10 s: …)" when a bound cut the search short, else "".
pub fn cut_note(orders: &Orders) -> String {
    match &orders.cut {
        None => String::new(),
        Some(cut) => {
            let more = match cut {
                Cut::Seconds(_) => "; `--orders-time-limit SECONDS` gives it longer",
                _ => "",
            };
            format!(
                " (search cut short {}: the orders listed are a partial answer{more})",
                cut.describe()
            )
        }
    }
}

/// `{"orders": [["text", …], …], "races": […], "stopped": […], "truncated": bool,
/// "cut": null | {"bound": "seconds" | "orders" | …, "max": N}}`.
pub fn json(orders: &Orders) -> String {
    let value = serde_json::json!({
        "orders": orders.orders.iter().map(|o| &o.logs).collect::<Vec<_>>(),
        "races": orders.orders.iter().map(|o| &o.race).collect::<Vec<_>>(),
        "stopped": orders.orders.iter().map(|o| o.stopped).collect::<Vec<_>>(),
        "truncated": orders.truncated,
        "cut": orders.cut,
    });
    crate::term::json_safe(serde_json::to_string_pretty(&value).expect("json")) + "\n"
}
