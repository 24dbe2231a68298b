//! The races behind a set of orders, stated (docs/orders.md "Races"): which
//! group of lines comes in any order, which two lines may swap, which line
//! may move, and the timing that produces each — so that an answer of 576
//! orders reads as two sentences.
//!
//! Two sources: the symmetry marks of the search (interchangeable completions
//! of one statement, [`super::symmetry`]), and the differences between the
//! canonical orders, cut into blocks — stretches at whose ends every order has
//! printed the same lines — each stated on its own.

use super::symmetry::{self, factorial, Entry, Mark, Member};
use super::Order;

/// One race, stated.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Race {
    /// `anyOrder` (a group, every order), `swap` (two lines), `moves` (one
    /// line, at several places), `partialOrder` (every order that keeps some
    /// pairs in order), `orders` (a group, some orders), `differ` (where
    /// the orders first part: orders that print different lines, or orders
    /// of the same lines too many to cut into blocks), `optional` (one
    /// line some orders print and others do not), `ends` (orders of the
    /// same lines that end otherwise: exit code 0, or an unhandled rejection).
    pub kind: &'static str,
    /// The lines concerned (a symmetric group's as written, `{i}` kept).
    pub lines: Vec<String>,
    /// How many orders of these lines are possible (JSON: saturating at 2⁶⁴ − 1).
    #[serde(serialize_with = "saturating")]
    pub orders: u128,
    /// The timing that produces the other orders.
    pub timing: String,
    /// The race in one sentence.
    pub statement: String,
    /// When some lines stay together in every order (a job's line and the
    /// nextTick line after it), the items the statement orders, each its
    /// lines, in the model's order; empty (and left out of JSON) otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<Vec<String>>,
}

/// What [`statements`] says besides the races: whether the races are
/// independent (every combination possible: the count is their product).
pub fn independent(races: &[Race], count: u128) -> bool {
    races.iter().fold(1u128, |a, r| a.saturating_mul(r.orders)) == count
}

/// A line in quotes (raw: the text output escapes control characters).
fn quote(line: &str) -> String {
    format!("\u{201c}{line}\u{201d}")
}

/// A count with thousands separators, or "more than 18,446,744,073,709,551,615".
pub fn count_text(n: u128) -> String {
    if n > u64::MAX as u128 {
        return format!("more than {}", crate::render::thousands(u64::MAX));
    }
    crate::render::thousands(n as u64)
}

/// [`count_text`] of a count of orders found: "at least …" if the search
/// was cut short (`partial`).
fn found_text(n: u128, partial: bool) -> String {
    if partial {
        format!("at least {}", count_text(n))
    } else {
        count_text(n)
    }
}

/// A count as JSON writes it: saturating at 2⁶⁴ − 1.
fn saturating<S: serde::Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64((*n).min(u64::MAX as u128) as u64)
}

/// "a", "a and b", "a, b and c" (`word` "and" or "or").
fn series(items: Vec<String>, word: &str) -> String {
    match items.as_slice() {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} {word} {last}", init.join(", ")),
    }
}

/// "1…4" for a run of consecutive numbers, else "1, 3, 7".
fn members(m: &[u32]) -> String {
    let consecutive = m.windows(2).all(|w| w[1] == w[0] + 1);
    match m {
        [a, .., b] if consecutive && m.len() > 2 => format!("{a}\u{2026}{b}"),
        _ => m.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
    }
}

/// The races of a search's result: `orders` as listed (the model's first),
/// `entries` its canonical orders, `count` the number of orders. `src` names
/// the statements of symmetric groups. `partial`: the search was cut short,
/// so a count taken from the orders found is a lower bound ("at least 1,000
/// orders"); a group's count (its k! orders) is exact either way.
pub fn statements(orders: &[Order], entries: &[Entry], count: u128, src: &str, partial: bool) -> Vec<Race> {
    let mut races = Vec::new();
    let mut seen: Vec<&Mark> = Vec::new();
    for entry in entries {
        for mark in &entry.marks {
            if seen.iter().any(|m| m.site == mark.site && m.members == mark.members) {
                continue;
            }
            seen.push(mark);
            if let Some(race) = symmetric(entry, mark, src) {
                races.push(race);
            }
        }
    }
    let mut seen_groups: Vec<&Vec<Member>> = Vec::new();
    let first_group = races.len();
    for entry in entries {
        for group in &entry.blocks {
            if seen_groups.contains(&group) {
                continue;
            }
            seen_groups.push(group);
            if let Some(race) = commuting(entry, group, src) {
                races.push(race);
            }
        }
    }
    let model = orders.first().map(|o| o.logs.as_slice()).unwrap_or_default();
    let mut differing = differences(model, entries, partial);
    // The canonical orders hold each commuting group's blocks in one order:
    // a block of other differences that holds some of a group's lines would
    // read that order as a constraint ("keeps (“a”, …) before (“c”, …)")
    // where the group's race says any order (fresh-clone helper 75). The
    // blocks are then cut from the orders the entries stand for, the groups
    // moved, and the groups are not stated apart.
    let overlap = races[first_group..]
        .iter()
        .any(|g| differing.iter().any(|r| r.lines.iter().any(|l| g.lines.contains(l))));
    let total = entries.iter().fold(0u128, |a, e| a.saturating_add(e.orbit));
    // (Lines counted as the model's: the orders of one file are about as long.)
    let few = total <= MAX_MOVED && total.saturating_mul(model.len() as u128) <= symmetry::MAX_COMPARED_LINES;
    if overlap && few && entries.iter().all(|e| e.marks.is_empty()) {
        let mut moved = Vec::new();
        for e in entries {
            let timing = symmetry::orbit_timing(e, src);
            for logs in e.expand(MAX_MOVED as usize) {
                let race = e.timing_of(&logs, &timing);
                moved.push(plain(logs, e.end, race));
            }
        }
        races.truncate(first_group);
        differing = differences(model, &moved, partial);
    }
    races.extend(differing);
    // Groups that depend on each other say less than the blocks of the orders
    // themselves: with every order listed (and few), state those instead.
    if !independent(&races, count) && orders.len() as u128 == count && count <= MAX_BLOCKS_FROM_LIST {
        let listed: Vec<Entry> = orders.iter().map(|o| plain(o.logs.clone(), o.end, o.race.clone())).collect();
        races = differences(model, &listed, partial);
    }
    // The same statement twice (two searches' groups alike): once.
    let mut unique: Vec<Race> = Vec::new();
    for race in races {
        if !unique.iter().any(|r| r.statement == race.statement) {
            unique.push(race);
        }
    }
    let mut races = unique;
    // (Not in the WebAssembly build, for its size budget: there such orders
    // are counted, "2 orders".)
    if !cfg!(target_family = "wasm") {
        races.extend(ends(entries, partial));
    }
    if races.is_empty() && count > 1 {
        races.push(Race {
            kind: "orders",
            lines: Vec::new(),
            orders: count,
            timing: String::new(),
            statement: format!("{} orders", found_text(count, partial)),
            runs: Vec::new(),
        });
    }
    races
}

/// Orders that print the same lines and end otherwise (exit code 0, or an
/// unhandled rejection, …), the first such lines found: that race, stated
/// (kind `ends`, its `lines` the last line printed).
fn ends(entries: &[Entry], partial: bool) -> Option<Race> {
    // (In one pass: the entries may be many thousands.)
    let mut seen: rustc_hash::FxHashMap<&[String], super::End> = rustc_hash::FxHashMap::default();
    let first = entries.iter().find(|e| *seen.entry(&e.logs).or_insert(e.end) != e.end)?;
    let same: Vec<&Entry> = entries.iter().filter(|e| e.logs == first.logs).collect();
    let words: Vec<String> = same
        .iter()
        .map(|e| {
            match e.end {
                super::End::Exit => "exit with code 0",
                super::End::Unhandled => "exit with code 1 (an unhandled rejection)",
                super::End::Unsettled => "exit with code 13 (the top-level await unsettled)",
                super::End::Stopped => "be stopped by a limit",
            }
            .to_string()
        })
        .collect();
    let after = first
        .logs
        .last()
        .map_or("with no line printed".to_string(), |l| format!("after {}", quote(l)));
    let orders = same.len() as u128;
    let timing = timings(&same[1..]);
    let statement = stated(
        format!(
            "{after}, the process may {} ({} orders)",
            series(words, "or"),
            found_text(orders, partial)
        ),
        &timing,
    );
    Some(Race {
        kind: "ends",
        lines: first.logs.last().cloned().into_iter().collect(),
        orders,
        timing,
        statement,
        runs: Vec::new(),
    })
}

/// Most orders [`statements`] cuts into blocks itself when the races of
/// the search's groups depend on each other.
pub const MAX_BLOCKS_FROM_LIST: u128 = 1_000;

/// Most orders [`statements`] lists from the entries when a commuting group
/// falls inside a block of other differences (and at most
/// [`symmetry::MAX_COMPARED_LINES`] lines in all: memory).
const MAX_MOVED: u128 = 20_000;

/// An order as an entry of its own (no symmetries).
fn plain(logs: Vec<String>, end: super::End, race: String) -> Entry {
    Entry {
        logs,
        end,
        race,
        meta: Vec::new(),
        marks: Vec::new(),
        blocks: Vec::new(),
        orbit: 1,
        as_found: true,
    }
}

/// The race of a group of commuting completions: their blocks of lines in
/// any order. A member whose block has more than one line (several `log`s,
/// or the lines of the nextTick and microtask callbacks the drain after its
/// callback runs) is one item, in parentheses, as in [`block_race`].
fn commuting(entry: &Entry, group: &[Member], src: &str) -> Option<Race> {
    // Each member's block, in the canonical order.
    let mut blocks: Vec<Vec<usize>> = group
        .iter()
        .map(|m| symmetry::positions(&entry.meta, m))
        .filter(|p| !p.is_empty())
        .collect();
    crate::sort::sort(&mut blocks);
    let contents: Vec<Vec<String>> = blocks.iter().map(|p| p.iter().map(|&q| entry.logs[q].clone()).collect()).collect();
    let orders = symmetry::multinomial(&contents);
    if orders < 2 {
        return None;
    }
    let grouped = contents.iter().any(|c| c.len() > 1);
    let lines = contents.concat();
    let runs = if grouped { contents.clone() } else { Vec::new() };
    let together = if grouped { ", the lines in parentheses together" } else { "" };
    let item = |c: &[String]| match c {
        [line] => quote(line),
        run => format!("({})", run.iter().map(|l| quote(l)).collect::<Vec<_>>().join(", ")),
    };
    // One statement's callbacks, `{i}` in their lines: said with the pattern.
    let one_statement = group.iter().all(|m| m.site == group[0].site && m.index.is_some());
    let first = blocks.first()?;
    if one_statement && entry.meta[first[0]].pattern.is_some() {
        // The first block's lines as written: `{i}` where a line has it.
        let pattern: Vec<String> = first
            .iter()
            .map(|&q| match entry.meta[q].pattern.as_deref() {
                Some(p) => p.replace('\0', "{i}"),
                None => entry.logs[q].clone(),
            })
            .collect();
        let mut indices: Vec<u32> = group.iter().filter_map(|m| m.index).collect();
        crate::sort::sort(&mut indices);
        let statement_src = src.get(group[0].span.0 as usize..group[0].span.1 as usize).unwrap_or_default();
        let race = pattern_race(
            &format!("{} for i = {} come in any order{together}", item(&pattern), members(&indices)),
            lines,
            orders,
            group.len(),
            head(statement_src),
            &indices,
        );
        return Some(Race { runs, ..race });
    }
    let drain = if grouped { ", with the drain after it," } else { "" };
    let timing = format!(
        "their {} callbacks complete in the same tick, in any order, and each{drain} only logs",
        contents.len()
    );
    let items = series(contents.iter().map(|c| item(c)).collect(), "and");
    // Two items: said as a block's two are ([`block_race`]).
    let (kind, what) = match contents.len() {
        2 => ("swap", format!("{items} may swap")),
        _ => ("anyOrder", format!("{items} come in any order{together}")),
    };
    Some(Race {
        kind,
        statement: format!("{what} ({} orders): {timing}", count_text(orders)),
        lines,
        orders,
        timing,
        runs,
    })
}

/// "“job {i}” for i = 1…4 come in any order (24 orders): the 4 callbacks of `…` …"
/// (`what`: the words before the count).
fn pattern_race(what: &str, lines: Vec<String>, orders: u128, n: usize, statement: String, indices: &[u32]) -> Race {
    let timing = format!(
        "the {n} callbacks of `{statement}` (i = {}) complete in the same tick, in any order",
        members(indices)
    );
    Race {
        kind: "anyOrder",
        statement: format!("{what} ({} orders): {timing}", count_text(orders)),
        lines,
        orders,
        timing,
        runs: Vec::new(),
    }
}

/// The race of one symmetry mark: the members' lines in any order.
fn symmetric(entry: &Entry, mark: &Mark, src: &str) -> Option<Race> {
    // The members that log a line with `{i}`, in order of their first such line.
    let speaking = symmetry::speaking(&entry.meta, mark);
    if speaking.len() < 2 {
        return None;
    }
    let first = speaking[0].1[0];
    let pattern = entry.meta[first].pattern.as_deref()?.replace('\0', "{i}");
    let lines = speaking.iter().map(|(_, p)| entry.logs[p[0]].clone()).collect();
    let orders = symmetry::arrangements(mark.members.len(), speaking.len());
    let statement_src = head(src.get(mark.span.0 as usize..mark.span.1 as usize).unwrap_or_default());
    Some(pattern_race(
        &format!("{} for i = {} come in any order", quote(&pattern), members(&mark.members)),
        lines,
        orders,
        mark.members.len(),
        statement_src,
        &mark.members,
    ))
}

/// A statement's text up to its body ([`crate::syntax::statement_head`]).
pub(crate) fn head(statement: &str) -> String {
    crate::syntax::statement_head(statement).to_string()
}

/// The races among the canonical orders, block by block.
fn differences(model: &[String], entries: &[Entry], partial: bool) -> Vec<Race> {
    if entries.len() < 2 {
        return Vec::new();
    }
    let logs: Vec<&[String]> = entries.iter().map(|e| e.logs.as_slice()).collect();
    // The same lines in every order (compared sorted, by reference: no copy).
    let first = sorted(logs[0]);
    let same_lines = logs[1..].iter().all(|l| l.len() == first.len() && sorted(l) == first);
    let too_long = logs.iter().map(|l| l.len()).sum::<usize>() > MAX_BLOCK_LINES;
    // One line some orders print and the others do not: stated on its own,
    // and the races of the other lines from the orders without it.
    // (Not in the WebAssembly build, for its size budget: 2 KB.)
    let optional = !cfg!(target_family = "wasm") && !same_lines && !too_long;
    if let Some(races) = optional.then(|| optional_line(model, entries, &first, partial)).flatten() {
        return races;
    }
    // Too many lines to cut into blocks (memory, time), or different lines:
    // where the orders first part.
    if !same_lines || too_long {
        return vec![differ(model, entries, partial, same_lines)];
    }
    // Block ends: positions where every order has printed the same lines.
    // Each order against the first: how many lines each has printed more than
    // the other so far, and how many lines that count is not 0 for.
    // Lines by number (the same in every order): one table of counts, no
    // map per order (the orders of a large search are tens of thousands).
    let mut ids: rustc_hash::FxHashMap<&String, usize> = rustc_hash::FxHashMap::default();
    for line in logs[0] {
        let next = ids.len();
        ids.entry(line).or_insert(next);
    }
    let d = ids.len();
    let coded: Vec<Vec<usize>> = logs.iter().map(|l| l.iter().map(|line| ids[line]).collect()).collect();
    let mut ends = Vec::new();
    let mut surplus = vec![0i64; logs.len() * d];
    let mut unequal = vec![0usize; logs.len()];
    for (p, &model_id) in coded[0].iter().enumerate() {
        for o in 1..logs.len() {
            for (id, delta) in [(coded[o][p], 1i64), (model_id, -1)] {
                let c = &mut surplus[o * d + id];
                let was = *c != 0;
                *c += delta;
                unequal[o] = unequal[o] + usize::from(*c != 0) - usize::from(was);
            }
        }
        if unequal.iter().all(|&u| u == 0) {
            ends.push(p + 1);
        }
    }
    let mut races = Vec::new();
    let mut start = 0;
    for end in ends {
        let mut blocks: Vec<&[String]> = logs.iter().map(|l| &l[start..end]).collect();
        crate::sort::sort(&mut blocks);
        blocks.dedup();
        if blocks.len() > 1 {
            let model_block = model.get(start..end);
            let others: Vec<&Entry> = entries.iter().filter(|e| Some(&e.logs[start..end]) != model_block).collect();
            let timing = timings(&others);
            let first = model_block.unwrap_or(blocks[0]);
            races.push(block_race(first, &blocks, timing, partial));
        }
        start = end;
    }
    races
}

/// When the orders' lines differ in one line only, which some print once
/// and the others not at all (a timer that runs once more before a clear,
/// a timer a limit stops the run before): that line's race — "“beat 5” may
/// be printed after “beat 4”, or not at all", "“t” may come at 6 places
/// among …, or not before a limit stops the run" — then the races of the
/// other lines ([`differences`] of the orders without it). `None`
/// otherwise (two lines that replace each other, a line printed twice).
/// `first`: the first entry's lines, [`sorted`].
fn optional_line(model: &[String], entries: &[Entry], first: &[&String], partial: bool) -> Option<Vec<Race>> {
    // The line that one order has more or fewer of than the first: one
    // only (two sorted lists walked side by side).
    let mut optional: Option<&String> = None;
    for e in &entries[1..] {
        let other = sorted(&e.logs);
        let (mut i, mut j) = (0, 0);
        loop {
            let line = match (first.get(i), other.get(j)) {
                (None, None) => break,
                (Some(a), Some(b)) if a == b => {
                    i += 1;
                    j += 1;
                    continue;
                }
                (Some(a), Some(b)) if a < b => {
                    i += 1;
                    *a
                }
                (Some(a), None) => {
                    i += 1;
                    *a
                }
                (_, Some(b)) => {
                    j += 1;
                    *b
                }
            };
            if optional.is_some_and(|x| x != line) {
                return None;
            }
            optional = Some(line);
        }
    }
    let x = optional?;
    let place = |logs: &[String]| -> Option<Option<usize>> {
        let mut at = logs.iter().enumerate().filter(|(_, l)| *l == x).map(|(p, _)| p);
        match (at.next(), at.next()) {
            (None, _) => Some(None),
            (Some(p), None) => Some(Some(p)),
            (Some(_), Some(_)) => None,
        }
    };
    let places: Vec<Option<usize>> = entries.iter().map(|e| place(&e.logs)).collect::<Option<_>>()?;
    let without = |logs: &[String]| -> Vec<String> { logs.iter().filter(|l| *l != x).cloned().collect() };
    // Where it comes: how many of the other lines come before it.
    let mut at: Vec<usize> = places.iter().flatten().copied().collect();
    crate::sort::sort(&mut at);
    at.dedup();
    let rest_model = without(model);
    let name = |p: usize| rest_model.get(p).map(|l| quote(l));
    let line = quote(x);
    let mut place_words = match at.as_slice() {
        [0] => format!("{line} may be printed first"),
        &[p] => match name(p - 1) {
            Some(prev) => format!("{line} may be printed after {prev}"),
            None => format!("{line} may be printed"),
        },
        _ => {
            let (lo, hi) = (at[0], at[at.len() - 1]);
            let among: Vec<String> = (lo..hi).filter_map(name).collect();
            let among = if among.len() <= 6 {
                series(among, "and")
            } else {
                format!("the {} lines from {} to {}", among.len(), among[0], among[among.len() - 1])
            };
            format!("{line} may come at {} places among {among}", at.len())
        }
    };
    let absent = || entries.iter().zip(&places).filter(|(_, p)| p.is_none()).map(|(e, _)| e.end);
    place_words.push_str(if absent().all(super::End::stopped) {
        ", or not before a limit stops the run"
    } else if absent().all(|e| e == super::End::Unhandled) {
        ", or not before an unhandled rejection ends the process"
    } else {
        ", or not at all"
    });
    // The timings of the orders that print it elsewhere than the model, or
    // do not print it.
    let model_place = place(model).flatten();
    let others: Vec<&Entry> = entries
        .iter()
        .zip(&places)
        .filter(|(_, p)| **p != model_place)
        .map(|(e, _)| e)
        .collect();
    let timing = timings(&others);
    let orders = at.len() as u128 + 1;
    let count = found_text(orders, partial);
    let statement = stated(format!("{place_words} ({count} orders)"), &timing);
    let mut races = vec![Race {
        kind: "optional",
        lines: vec![x.clone()],
        orders,
        timing,
        statement,
        runs: Vec::new(),
    }];
    let rest: Vec<Entry> = entries
        .iter()
        .map(|e| Entry {
            orbit: e.orbit,
            ..plain(without(&e.logs), e.end, e.race.clone())
        })
        .collect();
    races.extend(differences(&rest_model, &rest, partial));
    Some(races)
}

/// `lines` sorted, by reference (no copy): two orders of the same lines
/// sort alike.
fn sorted(lines: &[String]) -> Vec<&String> {
    let mut v: Vec<&String> = lines.iter().collect();
    crate::sort::sort(&mut v);
    v
}

/// One block's race: its distinct sequences of the same lines (`partial`:
/// those of a search cut short, so that more may exist). Lines that stay
/// together in every sequence ([`runs`]) are stated as one item, in
/// parentheses.
fn block_race(first: &[String], blocks: &[&[String]], timing: String, partial: bool) -> Race {
    // The model's stretch names the block when it holds the block's lines
    // (the race check's orders may not include the model's, whose stretch
    // there can hold others: fresh-clone helper 74's two jobs and a timer
    // of one tick panicked in `runs`); else the first sequence does.
    let first = if sorted(first) == sorted(blocks[0]) { first } else { blocks[0] };
    let lines: Vec<String> = first.to_vec();
    let orders = blocks.len() as u128;
    let (items, coded) = runs(first, blocks);
    let grouped = items.len() < lines.len();
    let name = |i: usize| match &first[items[i].clone()] {
        [line] => quote(line),
        run => format!("({})", run.iter().map(|l| quote(l)).collect::<Vec<_>>().join(", ")),
    };
    let k = items.len();
    let all = series((0..k).map(name).collect(), "and");
    let codes: Vec<&[usize]> = coded.iter().map(Vec::as_slice).collect();
    let distinct = {
        let mut l: Vec<&[String]> = items.iter().map(|r| &first[r.clone()]).collect();
        crate::sort::sort(&mut l);
        l.dedup();
        l.len() == k
    };
    let together = if grouped { ", the lines in parentheses together" } else { "" };
    let (kind, lines, what) = if blocks.len() == 2 && k == 2 {
        ("swap", lines, format!("{all} may swap"))
    } else if distinct && orders == factorial(k) {
        ("anyOrder", lines, format!("{all} come in any order{together}"))
    } else if let Some(x) = moving_line(&codes) {
        let what = format!(
            "{} may come at {} places among {}",
            name(x),
            blocks.len(),
            series((0..k).filter(|&i| i != x).map(name).collect(), "and")
        );
        ("moves", first[items[x].clone()].to_vec(), what)
    } else if let Some(before) = partial_order(k, &codes).filter(|_| distinct) {
        let pairs: Vec<String> = before.iter().map(|&(a, b)| format!("{} before {}", name(a), name(b))).collect();
        let what = format!("{all} come in any order that keeps {}{together}", pairs.join(", "));
        ("partialOrder", lines, what)
    } else {
        let what = format!("{all} come in {} orders{together}", found_text(orders, partial));
        ("orders", lines, what)
    };
    // Two items have two orders, k distinct items k!: all there are (but
    // orders not found may part lines found together).
    let all_found = matches!(kind, "swap" | "anyOrder") && !grouped;
    let count = if kind == "orders" {
        String::new()
    } else {
        format!(" ({} orders)", found_text(orders, partial && !all_found))
    };
    let statement = stated(format!("{what}{count}"), &timing);
    Race {
        kind,
        lines,
        orders,
        timing,
        statement,
        runs: if grouped {
            items.iter().map(|r| first[r.clone()].to_vec()).collect()
        } else {
            Vec::new()
        },
    }
}

/// The block cut into runs: stretches of the first sequence whose lines
/// come one right after the other in every sequence (a callback's line and
/// the nextTick line its drain prints), as ranges of `first`; and each
/// sequence as the runs' indices. Lines that repeat are runs of their own.
fn runs(first: &[String], blocks: &[&[String]]) -> (Vec<std::ops::Range<usize>>, Vec<Vec<usize>>) {
    let n = first.len();
    let mut index: rustc_hash::FxHashMap<&String, usize> = rustc_hash::FxHashMap::default();
    for (p, line) in first.iter().enumerate() {
        index.entry(line).or_insert(p);
    }
    let positions: Vec<Vec<usize>> = blocks.iter().map(|b| b.iter().map(|l| index[l]).collect()).collect();
    let unique = index.len() == n;
    // apart[p]: line p + 1 of the first does not come right after line p in
    // some sequence.
    let mut apart = vec![!unique; n];
    for s in &positions {
        for w in s.windows(2) {
            apart[w[0]] |= w[1] != w[0] + 1;
        }
        if let Some(&last) = s.last() {
            apart[last] = true;
        }
    }
    let joined = |p: usize| !apart[p];
    let mut items: Vec<std::ops::Range<usize>> = Vec::new();
    for p in 0..n {
        match items.last_mut() {
            Some(r) if joined(p - 1) => r.end = p + 1,
            _ => items.push(p..p + 1),
        }
    }
    let item_of: Vec<usize> = items.iter().enumerate().flat_map(|(i, r)| r.clone().map(move |_| i)).collect();
    let coded = positions
        .iter()
        .map(|s| s.iter().filter(|&&p| items[item_of[p]].start == p).map(|&p| item_of[p]).collect())
        .collect();
    (items, coded)
}

/// Most lines, over all orders, that [`differences`] cuts into blocks.
const MAX_BLOCK_LINES: usize = 2_000_000;

/// Most lines a block may have for [`partial_order`] (it counts orders over subsets).
const MAX_POSET_LINES: usize = 16;

/// When the block's orders are exactly those that keep some pairs of lines
/// in order (every order of the `n` items in which each `a` comes before
/// its `b`; `orders` as the items' indices): those pairs, fewest (the
/// covering ones).
fn partial_order(n: usize, orders: &[&[usize]]) -> Option<Vec<(usize, usize)>> {
    if !(3..=MAX_POSET_LINES).contains(&n) {
        return None;
    }
    // before[a][b]: a comes before b in every order.
    let mut pos = vec![vec![0usize; n]; orders.len()];
    for (o, order) in orders.iter().enumerate() {
        for (p, &l) in order.iter().enumerate() {
            pos[o][l] = p;
        }
    }
    let before = |a: usize, b: usize| pos.iter().all(|p| p[a] < p[b]);
    // Every order keeping those pairs, counted over subsets (what may come first).
    let preds: Vec<u32> = (0..n)
        .map(|b| (0..n).filter(|&a| a != b && before(a, b)).fold(0u32, |p, a| p | (1 << a)))
        .collect();
    let mut ways = vec![0u128; 1 << n];
    ways[0] = 1;
    for set in 0..(1usize << n) {
        if ways[set] == 0 {
            continue;
        }
        for (l, &p) in preds.iter().enumerate() {
            if set & (1 << l) == 0 && (p as usize) & !set == 0 {
                ways[set | (1 << l)] = ways[set | (1 << l)].saturating_add(ways[set]);
            }
        }
    }
    if ways[(1 << n) - 1] != orders.len() as u128 {
        return None;
    }
    // The covering pairs: a before b with nothing between.
    let mut pairs = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b && before(a, b) && !(0..n).any(|c| c != a && c != b && before(a, c) && before(c, b)) {
                pairs.push((a, b));
            }
        }
    }
    crate::sort::sort_by_key(&mut pairs, |&(a, b)| (pos[0][a], pos[0][b]));
    Some(pairs)
}

/// The item whose removal leaves every block the same sequence, if one does.
fn moving_line(blocks: &[&[usize]]) -> Option<usize> {
    blocks[0].iter().copied().find(|&x| {
        let without = |b: &[usize]| b.iter().filter(|&&l| l != x).copied().collect::<Vec<_>>();
        let first = without(blocks[0]);
        blocks
            .iter()
            .all(|b| b.iter().filter(|&&l| l == x).count() == 1 && without(b) == first)
    })
}

/// Where the orders first part: orders that print different lines, or
/// (`same_lines`) orders of the same lines too many to cut into blocks.
fn differ(model: &[String], entries: &[Entry], partial: bool, same_lines: bool) -> Race {
    let at = (0..).find(|&p| entries.iter().any(|e| e.logs.get(p) != model.get(p))).unwrap_or(0);
    // The lines Node may print there, the model's first, then where an
    // order ends instead (JSON's `lines` holds lines only).
    let mut unique: Vec<String> = model.get(at).cloned().into_iter().collect();
    let mut ends: Vec<&str> = Vec::new();
    for e in entries {
        match e.logs.get(at) {
            Some(line) if !unique.contains(line) => unique.push(line.clone()),
            Some(_) => {}
            None => {
                let end = match e.end {
                    super::End::Stopped => "a limit stops the run",
                    super::End::Unhandled => "an unhandled rejection ends the process",
                    _ => "the run ends",
                };
                if !ends.contains(&end) {
                    ends.push(end);
                }
            }
        }
    }
    let choices = series(
        unique.iter().map(|l| quote(l)).chain(ends.iter().map(|e| e.to_string())).collect(),
        "or",
    );
    let after = match at.checked_sub(1).and_then(|p| model.get(p)) {
        Some(prev) => format!("after {}", quote(prev)),
        None => "first".to_string(),
    };
    let others: Vec<&Entry> = entries.iter().filter(|e| e.logs.get(at) != model.get(at)).collect();
    let timing = timings(&others);
    let orders = entries.iter().fold(0u128, |a, e| a.saturating_add(e.orbit));
    let what = if same_lines {
        format!("the orders print the same lines in other orders: {after}, Node may print {choices}")
    } else {
        format!("the orders print different lines: {after}, Node may print {choices}")
    };
    Race {
        kind: "differ",
        lines: unique,
        orders,
        statement: stated(format!("{what} ({} orders)", found_text(orders, partial)), &timing),
        timing,
        runs: Vec::new(),
    }
}

/// A race's statement: `what` it is, then the `timing` behind it, if any
/// ("… (2 orders): a millisecond boundary passed …").
fn stated(what: String, timing: &str) -> String {
    if timing.is_empty() {
        what
    } else {
        format!("{what}: {timing}")
    }
}

/// The distinct timings of the entries `of` (empty ones left out), the
/// first three named: "A; or B; or C; or 4 other timings".
fn timings(of: &[&Entry]) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    for e in of {
        if !e.race.is_empty() && !distinct.contains(&e.race.as_str()) {
            distinct.push(&e.race);
        }
    }
    let more = distinct.len().saturating_sub(3);
    distinct.truncate(3);
    let mut text = distinct.join("; or ");
    if more > 0 {
        text.push_str(&format!("; or {more} other timing{}", if more == 1 { "" } else { "s" }));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A statement's head stops at its body or a comment, `#` or `//`, not
    /// at a `{`, `#` or `//` inside a string.
    #[test]
    fn a_head_ends_at_the_body_or_a_comment_outside_strings() {
        assert_eq!(head("timeout 0 \"a{b\" {\n  log \"x\"\n}"), "timeout 0 \"a{b\"");
        assert_eq!(head("submit \"s\" 0 // the job {"), "submit \"s\" 0");
        assert_eq!(head("immediate \"#1 // x\" # note"), "immediate \"#1 // x\"");
        assert_eq!(
            head("immediate \"say \\\"{hi}\\\"\"\r\nlog \"b\""),
            "immediate \"say \\\"{hi}\\\"\""
        );
        assert_eq!(head("  work 3  "), "work 3");
    }

    fn strings(s: &str) -> Vec<String> {
        s.chars().map(|c| c.to_string()).collect()
    }

    /// [`block_race`] of `orders` (a line a character), the first naming
    /// the block, with no timing.
    fn race_of(orders: &[&str], partial: bool) -> Race {
        let all: Vec<Vec<String>> = orders.iter().map(|s| strings(s)).collect();
        let blocks: Vec<&[String]> = all.iter().map(Vec::as_slice).collect();
        block_race(&all[0], &blocks, String::new(), partial)
    }

    fn entry(s: &str) -> Entry {
        Entry {
            logs: strings(s),
            end: crate::orders::End::Exit,
            race: "a timing".to_string(),
            meta: Vec::new(),
            marks: Vec::new(),
            blocks: Vec::new(),
            orbit: 1,
            as_found: true,
        }
    }

    /// Where the orders first part, said for orders of other lines and for
    /// orders of the same lines (too many lines to cut into blocks): the
    /// second are not said to print different lines.
    #[test]
    fn orders_that_part_say_whether_their_lines_differ() {
        let model = strings("mab");
        let other = [entry("mab"), entry("mxb")];
        let races = differences(&model, &other, false);
        assert_eq!(races.len(), 1);
        assert_eq!(
            races[0].statement,
            "the orders print different lines: after \u{201c}m\u{201d}, Node may print \u{201c}a\u{201d} or \u{201c}x\u{201d} (2 orders): a timing"
        );
        let same = [entry("mab"), entry("mba")];
        let race = differ(&model, &same, false, true);
        assert_eq!(race.kind, "differ");
        assert_eq!(
            race.statement,
            "the orders print the same lines in other orders: after \u{201c}m\u{201d}, Node may print \u{201c}a\u{201d} or \u{201c}b\u{201d} (2 orders): a timing"
        );
    }

    /// Where the orders first part, the statement names the distinct
    /// timings of the orders that part there (three, then how many more),
    /// not only the first one's.
    #[test]
    fn orders_that_part_name_their_timings() {
        let model = strings("mab");
        let mut others = vec![entry("mab")];
        for (i, lines) in ["mba", "mxb", "mya", "mzb", "mbz", "mab"].into_iter().enumerate() {
            let mut e = entry(lines);
            e.race = format!("timing {i}");
            others.push(e);
        }
        let race = differ(&model, &others, false, false);
        assert_eq!(race.timing, "timing 0; or timing 1; or timing 2; or 2 other timings");
        assert!(
            race.statement
                .ends_with("(7 orders): timing 0; or timing 1; or timing 2; or 2 other timings"),
            "{}",
            race.statement
        );
        // The last "mab" (timing 5) prints the model's line there: its
        // timing is not counted. Without "mbz" (timing 4), one is left unnamed.
        others.truncate(5);
        assert_eq!(
            differ(&model, &others, false, false).timing,
            "timing 0; or timing 1; or timing 2; or 1 other timing"
        );
    }

    /// An order that ends where another goes on is said to end, or, cut by
    /// a limit of loopsim's (`--max-turns`), to be stopped: Node would go on.
    #[test]
    fn an_order_cut_by_a_limit_is_not_said_to_end() {
        let model = strings("mnn");
        let mut stopped = entry("mn");
        stopped.end = crate::orders::End::Stopped;
        let race = differ(&model, &[entry("mnn"), stopped], false, false);
        assert!(
            race.statement
                .contains("Node may print \u{201c}n\u{201d} or a limit stops the run ("),
            "{}",
            race.statement
        );
        let race = differ(&model, &[entry("mnn"), entry("mn")], false, false);
        assert!(
            race.statement.contains("Node may print \u{201c}n\u{201d} or the run ends ("),
            "{}",
            race.statement
        );
        // The lines are lines: where an order ends is not one of them.
        assert_eq!(race.lines, strings("n"));
        // The model's line comes first, wherever its entry stands.
        let race = differ(&model, &[entry("mn"), entry("mnn")], false, false);
        assert!(
            race.statement.contains("Node may print \u{201c}n\u{201d} or the run ends ("),
            "{}",
            race.statement
        );
    }

    #[test]
    fn orders_that_keep_two_pairs_are_stated_as_those_pairs() {
        let all: Vec<Vec<String>> = ["abcd", "acbd", "acdb", "cabd", "cadb", "cdab"]
            .iter()
            .map(|s| strings(s))
            .collect();
        let blocks: Vec<&[String]> = all.iter().map(Vec::as_slice).collect();
        let race = block_race(&all[0], &blocks, String::new(), false);
        assert_eq!(race.kind, "partialOrder");
        assert_eq!(race.orders, 6);
        assert_eq!(
            race.statement,
            "\u{201c}a\u{201d}, \u{201c}b\u{201d}, \u{201c}c\u{201d} and \u{201c}d\u{201d} come in any order that keeps \u{201c}a\u{201d} before \u{201c}b\u{201d}, \u{201c}c\u{201d} before \u{201c}d\u{201d} (6 orders)"
        );
        // Without "acbd" the pairs are the same but one of their orders is missing.
        let five: Vec<&[String]> = blocks.iter().enumerate().filter(|(i, _)| *i != 1).map(|(_, b)| *b).collect();
        assert_eq!(block_race(&all[0], &five, String::new(), false).kind, "orders");
        // Without "cdab", "a" also always comes before "d": exactly the orders keeping three pairs.
        let race = block_race(&all[0], &blocks[..5], String::new(), false);
        assert_eq!(race.kind, "partialOrder");
        assert!(
            race.statement.contains("\u{201c}a\u{201d} before \u{201c}d\u{201d}"),
            "{}",
            race.statement
        );
    }

    /// A search cut short: a count taken from the orders found is a lower
    /// bound, said so; two lines swapping, or k lines in all k! orders, are
    /// every order there is, counted as before.
    #[test]
    fn a_partial_search_counts_its_blocks_as_at_least() {
        let race = race_of(&["abc", "bca", "cab"], true);
        assert_eq!(race.kind, "orders");
        assert_eq!(race.orders, 3);
        assert!(race.statement.ends_with(" come in at least 3 orders"), "{}", race.statement);
        assert!(race_of(&["abc", "bca", "cab"], false).statement.ends_with(" come in 3 orders"));

        let race = race_of(&["ab", "ba"], true);
        assert!(race.statement.ends_with(" may swap (2 orders)"), "{}", race.statement);

        let race = race_of(&["abc", "acb", "bac", "bca", "cab", "cba"], true);
        assert!(race.statement.ends_with(" come in any order (6 orders)"), "{}", race.statement);
    }

    /// A first stretch (the model's) that does not hold the block's lines
    /// gives way to the block's first sequence: `runs` looks every line up
    /// in it (fresh-clone helper 74: `submit "a" 10`, `submit "b" 10` and
    /// `timeout 10 "t"` panicked in `loopsim run`'s race check).
    #[test]
    fn a_first_stretch_of_other_lines_gives_way_to_the_blocks() {
        let blocks_owned = [strings("ab"), strings("ba")];
        let blocks: Vec<&[String]> = blocks_owned.iter().map(Vec::as_slice).collect();
        let race = block_race(&strings("ta"), &blocks, String::new(), false);
        assert_eq!(race.kind, "swap");
        assert_eq!(race.lines, strings("ab"));
    }

    /// Lines that come one right after the other in every order (a job's
    /// line and the nextTick line after it) are one item: three such pairs
    /// in all 6 orders are "in any order", not "six lines in 6 orders".
    #[test]
    fn lines_that_stay_together_are_stated_as_one_item() {
        let all: Vec<Vec<String>> = ["aAbBcC", "aAcCbB", "bBaAcC", "bBcCaA", "cCaAbB", "cCbBaA"]
            .iter()
            .map(|s| strings(s))
            .collect();
        let blocks: Vec<&[String]> = all.iter().map(Vec::as_slice).collect();
        let race = block_race(&all[0], &blocks, String::new(), false);
        assert_eq!(race.kind, "anyOrder");
        assert_eq!(race.orders, 6);
        assert_eq!(race.lines, strings("aAbBcC"));
        assert_eq!(race.runs, vec![strings("aA"), strings("bB"), strings("cC")]);
        assert_eq!(
            race.statement,
            "(\u{201c}a\u{201d}, \u{201c}A\u{201d}), (\u{201c}b\u{201d}, \u{201c}B\u{201d}) and (\u{201c}c\u{201d}, \u{201c}C\u{201d}) come in any order, the lines in parentheses together (6 orders)"
        );
        // Orders not found may part lines found together: "at least".
        let race = race_of(&["aAbBcC", "aAcCbB", "bBaAcC", "bBcCaA", "cCaAbB", "cCbBaA"], true);
        assert!(race.statement.ends_with(" (at least 6 orders)"), "{}", race.statement);
        // Five of the six: "(a, A)" before "(b, B)" is not kept by all, nor
        // is any pair; the five orders are stated as such, the runs named.
        let race = block_race(&all[0], &blocks[..5], String::new(), false);
        assert_eq!(race.kind, "orders");
        assert!(
            race.statement.ends_with(" come in 5 orders, the lines in parentheses together"),
            "{}",
            race.statement
        );
        // A run that moves among single lines; and two runs that swap.
        let race = race_of(&["xyab", "axyb", "abxy"], false);
        assert_eq!((race.kind, race.lines.clone()), ("moves", strings("xy")));
        assert!(
            race.statement
                .starts_with("(\u{201c}x\u{201d}, \u{201c}y\u{201d}) may come at 3 places among \u{201c}a\u{201d} and \u{201c}b\u{201d}"),
            "{}",
            race.statement
        );
        let race = race_of(&["xyab", "abxy"], false);
        assert_eq!(race.kind, "swap");
        assert!(race.statement.ends_with(" may swap (2 orders)"), "{}", race.statement);
        // A line printed twice is an item of its own, next to nothing.
        let all: Vec<Vec<String>> = ["aab", "aba", "baa"].iter().map(|s| strings(s)).collect();
        let blocks: Vec<&[String]> = all.iter().map(Vec::as_slice).collect();
        let (items, _) = runs(&all[0], &blocks);
        assert_eq!(items, vec![0..1, 1..2, 2..3]);
    }

    /// One line some orders print and others do not is stated on its own
    /// (where it comes, or not at all, or not before a limit), and the
    /// other lines' races from the orders without it (fresh-clone helper
    /// 82: "after “beat 5”, Node may print “beat 6” or the run ends"). Two
    /// lines that replace each other are where the orders part.
    #[test]
    fn a_line_some_orders_leave_out_is_stated_with_the_other_races() {
        let model = strings("abxcd");
        let orders = [entry("abxcd"), entry("abcd"), entry("abdc")];
        let races = differences(&model, &orders, false);
        let statements: Vec<&str> = races.iter().map(|r| r.statement.as_str()).collect();
        assert_eq!(
            statements,
            [
                "\u{201c}x\u{201d} may be printed after \u{201c}b\u{201d}, or not at all (2 orders): a timing",
                "\u{201c}c\u{201d} and \u{201c}d\u{201d} may swap (2 orders): a timing",
            ]
        );
        assert_eq!(
            (races[0].kind, races[0].lines.clone(), races[0].orders),
            ("optional", vec!["x".to_string()], 2)
        );
        // At several places, or cut off by a limit.
        let mut stopped = entry("aaa");
        stopped.end = crate::orders::End::Stopped;
        let orders = [entry("taaa"), entry("ataa"), entry("aata"), stopped];
        let model = strings("taaa");
        let races = differences(&model, &orders, false);
        assert_eq!(races.len(), 1, "{races:?}");
        assert_eq!(
            races[0].statement,
            "\u{201c}t\u{201d} may come at 3 places among \u{201c}a\u{201d} and \u{201c}a\u{201d}, or not before a limit stops the run (4 orders): a timing"
        );
        // Printed twice in one order, or another line instead: where they part.
        for other in ["axxb", "ayb"] {
            let races = differences(&strings("axb"), &[entry("axb"), entry(other)], false);
            assert_eq!(races[0].kind, "differ", "{other}: {races:?}");
        }
    }

    #[test]
    fn two_lines_swap_and_one_line_moves() {
        let all: Vec<Vec<String>> = ["ab", "ba"].iter().map(|s| strings(s)).collect();
        let blocks: Vec<&[String]> = all.iter().map(Vec::as_slice).collect();
        assert_eq!(block_race(&all[0], &blocks, String::new(), false).kind, "swap");
        let all: Vec<Vec<String>> = ["xab", "axb", "abx"].iter().map(|s| strings(s)).collect();
        let blocks: Vec<&[String]> = all.iter().map(Vec::as_slice).collect();
        let race = block_race(&all[0], &blocks, "t".into(), false);
        assert_eq!((race.kind, race.lines.clone()), ("moves", vec!["x".to_string()]));
        assert!(race.statement.ends_with("(3 orders): t"), "{}", race.statement);
    }
}
