//! The verdict on a file's prediction (`check`, `test`): does the `expect`
//! block say what the run does, and can real Node print it?
//!
//! A prediction holds when each of its alternatives is an order real Node can
//! print: either the seed model's trace (every field written is compared), or
//! another order Node can print (texts and `limit` only: turns, ticks and
//! phases are the model's), decided exactly by [`membership::can_print`].
//! With `or`, the alternatives must also name every order Node can print,
//! when that list is complete. See `docs/language.md` ("Predictions").

// A failed prediction is one diagnostic per file, built once: its size does not matter.
#![allow(clippy::result_large_err)]

use crate::expect;
use crate::interp::{self, RunOptions};
use crate::load::Loaded;
use crate::orders::membership::{self, Membership};
use crate::orders::{self, Cut, SearchBounds};
use crate::problem::{Diag, Problem};
use crate::sched::NodeVersion;
use crate::syntax::ast::Expect;
use crate::trace::Trace;

/// The verdict on one file.
#[derive(Debug)]
pub enum Verdict {
    /// Every alternative is an order real Node can print.
    Pass {
        /// Expect lines of the first alternative.
        lines: usize,
        /// What the user should know beside the pass (one line each).
        notes: Vec<String>,
        /// `run`'s race warning, when the prediction names one order of a file
        /// that Node prints in several.
        race: Option<Problem>,
    },
    /// The prediction is wrong (or could not be decided): the diagnostics.
    /// `limit`: a limit the prediction does not name stopped the run, or a
    /// bound cut the search for the orders of `expect … or …` short (exit 3).
    Fail { problems: Vec<Problem>, limit: bool },
    /// The file has no `expect` block.
    NoPrediction,
}

/// How one alternative relates to the run.
enum Holds {
    /// It is the seed model's trace.
    Model,
    /// Another order real Node can print, when `race`.
    Node(String),
}

impl Verdict {
    fn fail(p: Problem) -> Verdict {
        Verdict::Fail {
            problems: vec![p],
            limit: false,
        }
    }
}

/// Checks `loaded`'s prediction with `opts` (its `explain` is turned on).
/// `time_limit` overrides the searches' own (`--orders-time-limit`);
/// `progress` counts their schedules as they go (the command line's spinner);
/// `race_check: false` (`--no-race-check`) skips the search for other orders
/// behind a prediction of the model's order (no race warning, no note).
pub fn verdict(
    loaded: &Loaded,
    opts: RunOptions,
    time_limit: Option<std::time::Duration>,
    progress: Option<&'static orders::Progress>,
    race_check: bool,
) -> Verdict {
    let Some(expect) = &loaded.file.expect else {
        return Verdict::NoPrediction;
    };
    let bounds = |base: SearchBounds| SearchBounds {
        time_limit: time_limit.or(base.time_limit),
        progress,
        ..base
    };
    let trace = interp::run(&loaded.file, &loaded.src, "", RunOptions { explain: true, ..opts });
    let several = !expect.or.is_empty();
    if let crate::trace::Ending::Limit(hit) = &trace.ending {
        if expect.alternatives().all(|alt| alt.limit.is_none()) {
            if let Err(p) = expect::check(expect, &trace) {
                return Verdict::Fail {
                    problems: vec![p, crate::limit::problem(hit)],
                    limit: true,
                };
            }
        }
    }
    // With alternatives, one search for every order, each alternative looked
    // up in it (a search per alternative would take time quadratic in their number).
    let all = several.then(|| orders::all_orders_after(&loaded.file, &loaded.src, opts, bounds(SearchBounds::default()), &trace));
    // The alternatives a search cut short did not meet are searched for one by one,
    // all within one time bound (not one each: there may be thousands).
    let shared = bounds(SearchBounds::default());
    let deadline = shared.time_limit.map(|t| (web_time::Instant::now() + t, t.as_secs()));
    let flags = search_flags(&opts, time_limit);
    // Each alternative that holds, with how.
    let mut holds = Vec::new();
    // Every wrong alternative is told, not the first only (fresh-clone
    // helper 81); an undecided one (a bound) ends the check.
    let mut wrong = Vec::new();
    let alts: Vec<&Expect> = expect.alternatives().collect();
    for (j, &alt) in alts.iter().enumerate() {
        // A repeat of an earlier alternative is told as one (a warning), not judged again.
        if crate::check::alternatives::repeats(&alts, j).is_some() {
            continue;
        }
        match alternative(loaded, opts, alt, &trace, all.as_ref(), shared, deadline, &flags) {
            Ok(h) => holds.push((alt, h)),
            Err(Verdict::Fail { problems, limit: false }) => wrong.extend(problems),
            Err(v) => return v,
        }
    }
    if !wrong.is_empty() {
        // And an order none of the possible ones names, if the search found
        // one (an impossible one names none: fresh-clone helper 83).
        let named = expect::Named::of_alternatives(holds.iter().map(|&(alt, _)| alt));
        if let Some(Err(p)) = all
            .as_ref()
            .filter(|a| a.cut.is_none())
            .map(|a| missing_among(expect, &named, a, loaded, &flags))
        {
            wrong.push(p);
        }
        return Verdict::Fail {
            problems: wrong,
            limit: false,
        };
    }
    let mut notes: Vec<String> = loaded.no_statements_note().into_iter().collect();
    if let Some((_, Holds::Node(race))) = holds.first().filter(|_| expect.or.is_empty()) {
        notes.push(format!(
            "real Node prints this order when {race}; the seed model's trace is another order Node can print (`loopsim run` shows it)"
        ));
    }
    // What was not compared in the alternatives held as orders the model
    // does not print, in an `or` block too (fresh-clone helper 85: a wrong
    // `limit` queue, and turns in an `or` block, passed without a word).
    let (mut fields, mut queue) = (false, false);
    for (alt, held) in &holds {
        if let Holds::Node(_) = held {
            fields |= alt.lines.iter().any(|l| l.turn.is_some() || l.at.is_some() || l.phase.is_some());
            queue |= alt.limit.is_some();
        }
    }
    if fields || queue {
        let what = match (fields, queue) {
            (true, true) => "turns, ticks, phases and a `limit` line's queue are",
            (true, false) => "turns, ticks and phases are",
            _ => "a `limit` line's queue is",
        };
        let compared = if queue {
            "the texts, and whether a limit stops the run,"
        } else {
            "the texts"
        };
        notes.push(format!(
            "{what} the model's: for an order the model does not print, only {compared} were compared"
        ));
    }
    let mut race = None;
    if let Some(all) = all {
        if let Err(p) = missing_order(expect, &all, loaded, &flags) {
            return Verdict::fail(p);
        }
        if let Some(cut) = all.cut {
            let p = Diag::SearchCut {
                cut: cut.describe(),
                found: all.count.min(usize::MAX as u128) as usize,
            }
            .at(expect.span);
            return Verdict::Fail {
                problems: vec![p],
                limit: true,
            };
        }
    } else if race_check && matches!(holds.first(), Some((_, Holds::Model))) && opts.profile(&loaded.file) != NodeVersion::Node10 {
        let command = all_orders_command(&loaded.name, &flags);
        let bounds = bounds(SearchBounds::race_check());
        let (warning, note) = orders::race_check(&loaded.file, &loaded.src, opts, bounds, &trace, &command);
        race = warning;
        notes.extend(note);
    }
    Verdict::Pass {
        lines: expect.lines.len(),
        notes,
        race,
    }
}

/// Whether `alt` is the model's trace or another order Node can print.
/// `all`: every order Node can print, when `alt` is one of `or` alternatives
/// (blamed as a whole when impossible); an order it does not hold is searched
/// for on its own only if that search was cut short. `flags`: the options
/// of the search, as `run` takes them ([`search_flags`]), for the command
/// the help gives.
#[allow(clippy::too_many_arguments)]
fn alternative(
    loaded: &Loaded,
    opts: RunOptions,
    alt: &Expect,
    trace: &Trace,
    all: Option<&orders::Orders>,
    bounds: SearchBounds,
    deadline: Option<(web_time::Instant, u64)>,
    flags: &str,
) -> Result<Holds, Verdict> {
    let several = all.is_some();
    let wrong = match expect::check_one(alt, trace) {
        Ok(()) => return Ok(Holds::Model),
        Err(_) if several => Diag::NotModelOrder.at(alt.span),
        Err(p) => p,
    };
    let texts: Vec<String> = alt.lines.iter().map(|l| l.text.clone()).collect();
    let end = expect::end_of(alt);
    let model: Vec<String> = trace.logs().map(|(_, t)| t.to_string()).collect();
    if texts == model && end == orders::End::of(&trace.ending) {
        return Err(Verdict::fail(wrong.add_help(
            "the lines come in the model's order: what differs is a turn, tick or phase written on a line, or the `limit` line",
        )));
    }
    if opts.profile(&loaded.file) == NodeVersion::Node10 {
        return Err(Verdict::fail(
            wrong.add_help("whether real Node can print this order is searched for Node 20 and later only"),
        ));
    }
    let found = match all {
        Some(all) => match all.race_of(&texts, end) {
            Some(race) => Some(Membership::Possible { race }),
            None if !all.truncated => Some(Membership::Impossible { parting: None }),
            None => None,
        },
        None => None,
    };
    let found = found.unwrap_or_else(|| match all {
        Some(_) => membership::can_print_until(&loaded.file, &loaded.src, opts, &texts, end, bounds, deadline),
        None => membership::can_print(&loaded.file, &loaded.src, opts, &texts, end, bounds),
    });
    match found {
        Membership::Possible { race } => Ok(Holds::Node(race)),
        Membership::Impossible { .. } if several => {
            let command = all_orders_command(&loaded.name, &format!(" --list{flags}"));
            let closest = all
                .and_then(|all| closest_listed(all, &texts))
                .and_then(|p| parted(&p, texts.len()));
            Err(Verdict::fail(Diag::NeverPrintedByNode { command, closest }.at(alt.span)))
        }
        Membership::Impossible { parting: Some(p) } if node_parts_later(&p, &texts, &model) => {
            // Node's closest order agrees with more of it than the model's
            // trace: blamed where Node parts from it, not where the model does.
            let span = match alt.lines.get(p.agreed) {
                Some(line) => line.span,
                None => crate::syntax::ast::Span::new(alt.span.end() - 1, alt.span.end()),
            };
            let at = p.agreed;
            let mut parts = Diag::NodeParts {
                expected: texts.get(at).cloned(),
                parting: p,
                model_at: first_difference(&texts, &model) + 1,
            }
            .at(span);
            if let Some(hint) = typo_hint(texts.get(at), &model) {
                parts.help = Some(hint);
            }
            Err(Verdict::fail(parts))
        }
        Membership::Impossible { parting } => {
            let why = "real Node cannot print this order either: no timing of the loop gives it (every schedule that agrees with the prediction so far was tried)";
            if let Some(hint) = typo_hint(texts.get(first_difference(&texts, &model)), &model) {
                return Err(Verdict::fail(Problem { help: Some(hint), ..wrong }));
            }
            // Before why the model's line ran there: the help is cut at
            // MAX_HELP bytes, and where Node parts is the answer.
            let node = match parting.and_then(|p| parted(&p, texts.len())) {
                Some(at) => format!("{why}; {at}"),
                None => why.to_string(),
            };
            let mut wrong = wrong;
            let model_why = wrong.help.replace(node);
            Err(Verdict::fail(match model_why {
                Some(h) => wrong.add_help(&h),
                None => wrong,
            }))
        }
        Membership::Undecided { cut } => Err(Verdict::Fail {
            problems: vec![wrong.add_help(&format!(
                "the model prints another order, and whether real Node can print this one is undecided: the search was cut short {} ({})",
                cut.describe(),
                match cut {
                    Cut::Seconds(_) => "`--orders-time-limit SECONDS` gives it longer",
                    _ => "a bound on the search's size, not its time, stopped it; a smaller file can be decided",
                }
            ))],
            limit: true,
        }),
    }
}

/// Where the closest of every order Node can print (`all`, when each is
/// listed) parts from `texts`: the most first lines agreed, and the line it
/// prints next (`None`: it ends there, or, all lines agreed, ends otherwise).
/// `texts` is no order Node prints ending as its prediction says: one of
/// its lines ends otherwise.
fn closest_listed(all: &orders::Orders, texts: &[String]) -> Option<membership::Parting> {
    if all.truncated || all.orders.len() as u128 != all.count {
        return None;
    }
    // (Not in the WebAssembly build, whose help does not say how it ends.)
    if let Some(same) = all.orders.iter().find(|o| !cfg!(target_family = "wasm") && o.logs == texts) {
        return Some(membership::Parting {
            agreed: texts.len(),
            next: None,
            ended: Some(same.end),
        });
    }
    // (The first of the closest: the model's order is listed first.)
    let best = all.orders.iter().rev().max_by_key(|o| first_difference(&o.logs, texts))?;
    let agreed = first_difference(&best.logs, texts);
    Some(membership::Parting {
        agreed,
        next: best.logs.get(agreed).cloned(),
        ended: None,
    })
}

/// The first position where `a` and `b` differ (the shorter's length when one begins the other).
fn first_difference(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()))
}

/// Whether the closest order Node can print (`p`) agrees with more of the
/// prediction `texts` than the seed model's trace `model` does, and says
/// where it parts (it does not only end otherwise: stopped by a limit).
fn node_parts_later(p: &membership::Parting, texts: &[String], model: &[String]) -> bool {
    p.agreed > first_difference(texts, model) && (p.agreed < texts.len() || p.next.is_some())
}

/// Where the closest order Node can print leaves a prediction of `lines`
/// lines it cannot print; `None` where it prints them all and only ends otherwise.
fn parted(p: &membership::Parting, lines: usize) -> Option<String> {
    // (Not in the WebAssembly build, for its size budget.)
    if let Some(end) = p.ended.filter(|_| !cfg!(target_family = "wasm")) {
        let then = match end {
            orders::End::Exit => "the process exits with code 0 (no `unhandled` or `unsettled` at the block's end)",
            orders::End::Unhandled => "an unhandled rejection ends the process (`unhandled` at the block's end names it)",
            orders::End::Unsettled => "the process exits with code 13 (`unsettled` at the block's end names it)",
            orders::End::Stopped => return None,
        };
        return Some(format!("Node can print exactly these lines, but then {then}"));
    }
    Some(match (p.agreed, &p.next) {
        (n, None) if n >= lines => return None,
        // (A block of no lines, `{ }` or `{ limit check }`: fresh-clone helper 82.)
        (0, Some(next)) if lines == 0 => format!("it names no line, and every order Node can print has some (one begins with {next:?})"),
        (n, Some(next)) if n >= lines => format!("Node can print all its lines in this order, but then prints {next:?} too"),
        (0, Some(next)) => format!("every order Node can print begins otherwise (one with {next:?})"),
        (0, None) => "Node prints no line".to_string(),
        _ => p.closest(),
    })
}

/// The block-level failure when real Node can print an order no alternative
/// names: one of the orders listed, else (past [`orders::MAX_LISTED`]) one
/// more than the distinct alternatives, by an exact count, shown from the
/// orbits of the orders found when one of them is unnamed. `loaded`: the
/// file (the timing of a renamed order names its statements; the help
/// names the file); `flags`: the options of the search, as `run` takes them
/// ([`search_flags`]), for the command the help gives.
///
/// # Errors
/// [`Diag::MissingOrder`] at the block, for the first order missing.
pub fn missing_order(expect: &Expect, all: &orders::Orders, loaded: &Loaded, flags: &str) -> Result<(), Problem> {
    missing_among(expect, &expect::Named::of(expect), all, loaded, flags)
}

/// [`missing_order`] with the orders `named` by the alternatives Node can
/// print (all of `expect`'s, or those left when some cannot be).
fn missing_among(expect: &Expect, named: &expect::Named, all: &orders::Orders, loaded: &Loaded, flags: &str) -> Result<(), Problem> {
    let src = loaded.src.as_str();
    let unnamed = |logs: &[String], end: orders::End| !named.names(logs, end);
    let missing = match all.orders.iter().find(|o| unnamed(&o.logs, o.end)) {
        Some(o) => Some((o.logs.clone(), o.end, o.race.clone())),
        // (The orders held are never all named while others were counted
        // without their lines: counting begins past 128 MiB of orders held,
        // more than a file may have.)
        None if all.count_exact && all.count > named.len() as u128 => all.entries.iter().find_map(|e| {
            let logs = e.expand_until(named.len() + 1, None).into_iter().find(|l| unnamed(l, e.end))?;
            let race = e.timing_of(&logs, &orders::symmetry::orbit_timing(e, src));
            Some((logs, e.end, race))
        }),
        None => None,
    };
    let Some((logs, end, race)) = missing else {
        return Ok(());
    };
    // Every alternative `named` holds is an order Node prints (checked
    // before): by an exact count, how many more are missing.
    let more = all.count.saturating_sub(named.len() as u128 + 1);
    let block = or_block(&logs, end);
    // A few more, all among the orders listed and each short: their blocks
    // too, so that one paste names every order (fresh-clone helper 71 pasted
    // three times).
    let (mut others, mut block) = (0, block);
    if let Some(first) = block
        .as_mut()
        .filter(|_| all.count_exact && more > 0 && more < MAX_OTHER_BLOCKS as u128)
    {
        let (mut extra, mut n) = (String::new(), 0);
        for o in all
            .orders
            .iter()
            .filter(|o| unnamed(&o.logs, o.end) && (o.logs != logs || o.end != end))
        {
            // One too long, or stopped by a limit: `or { … }` alone.
            let Some(b) = or_block(&o.logs, o.end) else {
                n = 0;
                break;
            };
            extra.push(' ');
            extra.push_str(&b);
            n += 1;
        }
        if n as u128 == more {
            first.push_str(&extra);
            others = n;
        }
    }
    // Labelled over every alternative, from the first block's `{` to the last's `}`.
    let last = expect.alternatives().last().map_or(expect.span, |alt| alt.span);
    let p = Diag::MissingOrder {
        node: all.node.to_string(),
        order: match logs.is_empty() {
            true => format!("no line{}", end.words()),
            false => format!("{}{}", logs.join(" | "), end.words()),
        },
        race,
        block,
        others,
    }
    .at(crate::syntax::ast::Span::new(expect.span.start(), last.end()));
    if !all.count_exact || more == 0 || others > 0 {
        return Err(p);
    }
    let n = if more == 1 { "order is" } else { "orders are" };
    let more = crate::render::thousands(more.min(u64::MAX.into()) as u64);
    let command = all_orders_command(&loaded.name, &format!(" --list{flags}"));
    Err(p.add_help(&format!("{more} more {n} missing too (`{command}` lists every order)")))
}

/// `loopsim run --all-orders` followed by `flags` (each with a space before
/// it) and the file `name`, ready to paste: quoted for a shell
/// ([`crate::cli::shell_word`]), a name that starts with `-` written
/// `./-x.loop`, standard input `- < FILE`. The WebAssembly build (the npm
/// package), for its size budget, has no quoting: it names the file only
/// when it needs none (letters, digits, `_-./:=@%+,`). (The playground,
/// which has no command line, names the command without a file.)
pub fn all_orders_command(name: &str, flags: &str) -> String {
    #[cfg(not(target_family = "wasm"))]
    let file = match name {
        "<stdin>" => " - < FILE".to_string(),
        name if name.starts_with('-') => format!(" {}", crate::cli::shell_word(&format!("./{name}"))),
        name => format!(" {}", crate::cli::shell_word(name)),
    };
    #[cfg(target_family = "wasm")]
    let file = if crate::cli::unquoted(name) {
        format!(" {name}")
    } else {
        String::new()
    };
    format!("loopsim run --all-orders{flags}{file}")
}

/// The options of `run` that give the search `opts` and `time_limit` make
/// (`--node 20 --pool 2 --max-turns 5 --orders-time-limit 3`, each with a
/// space before it): those given, limits that differ from the defaults.
pub fn search_flags(opts: &RunOptions, time_limit: Option<std::time::Duration>) -> String {
    let mut flags = String::new();
    if let Some(node) = opts.node {
        flags += &format!(" --node {}", node.name());
    }
    if let Some(pool) = opts.pool {
        flags += &format!(" --pool {pool}");
    }
    let default = crate::sched::Limits::default();
    if !opts.auto_limits && opts.limits.max_turns != default.max_turns {
        flags += &format!(" --max-turns {}", opts.limits.max_turns);
    }
    if !opts.auto_limits && opts.limits.max_callbacks != default.max_callbacks {
        flags += &format!(" --max-callbacks {}", opts.limits.max_callbacks);
    }
    if let Some(t) = time_limit {
        flags += &format!(" --orders-time-limit {}", t.as_secs());
    }
    flags
}

/// The `or { "a" "b" }` block that names `logs` ending as `end` says (`or {
/// "a" unhandled }`), on one line, when it has at most [`MAX_BLOCK_LINES`]
/// lines and [`MAX_BLOCK_CHARS`] characters (a help is read on one screen
/// line or two); `None` otherwise, and for an order a limit stopped.
fn or_block(logs: &[String], end: orders::End) -> Option<String> {
    let ending = match end {
        orders::End::Exit => "",
        orders::End::Unhandled => "unhandled ",
        orders::End::Unsettled => "unsettled ",
        orders::End::Stopped => return None,
    };
    if logs.len() > MAX_BLOCK_LINES {
        return None;
    }
    let mut block = "or { ".to_string();
    for l in logs {
        block.push_str(&crate::syntax::print::quote(l));
        block.push(' ');
    }
    block.push_str(ending);
    block.push('}');
    (block.chars().count() <= MAX_BLOCK_CHARS).then_some(block)
}

/// Fewer other missing orders than this have their blocks given too.
const MAX_OTHER_BLOCKS: usize = 4;

/// Most lines of an order [`or_block`] writes out.
const MAX_BLOCK_LINES: usize = 12;

/// Most characters of the block [`or_block`] writes out.
const MAX_BLOCK_CHARS: usize = 100;

/// "did you mean "timeout"? …" when the predicted line `expected` (of at
/// least [`MIN_TYPO_CHARS`] characters) is printed nowhere in the model's lines (`model`) and is a near miss of one
/// that is (the edit distance of misspelt keywords:
/// [`crate::syntax::suggest::closest`], over the first
/// [`MAX_TYPO_CANDIDATES`] lines): the whole help of a prediction Node
/// cannot print, as why the other line ran there is beside the point.
fn typo_hint(expected: Option<&String>, model: &[String]) -> Option<String> {
    let expected = expected.filter(|e| e.chars().count() >= MIN_TYPO_CHARS && !model.contains(e))?;
    let mut lines: Vec<&str> = Vec::new();
    for line in model.iter().take(MAX_TYPO_CANDIDATES) {
        if !lines.contains(&line.as_str()) {
            lines.push(line);
        }
    }
    let near = crate::syntax::suggest::closest(expected, &lines)?;
    Some(format!(
        "did you mean {near:?}? this run prints no line {expected:?}, and no timing of the loop gives this order"
    ))
}

/// The shortest predicted line [`typo_hint`] takes for a misspelling, in
/// characters: any one-letter label ("a", "b") is one edit from any other.
const MIN_TYPO_CHARS: usize = 4;

/// Most of the model's lines [`typo_hint`] compares a predicted line with.
const MAX_TYPO_CANDIDATES: usize = 1_000;

#[cfg(test)]
mod tests {
    use super::*;

    /// The help's ready block quotes each line as the grammar reads it, and
    /// gives way to `or { … }` past a dozen lines or 100 characters.
    #[test]
    fn the_ready_block_is_short_and_quoted() {
        let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            or_block(&lines(&["a", "say \"hi\"", "x\\y"]), orders::End::Exit).as_deref(),
            Some(r#"or { "a" "say \"hi\"" "x\\y" }"#)
        );
        assert_eq!(
            or_block(&lines(&["a"; 12]), orders::End::Exit).map(|b| b.len()),
            Some("or { ".len() + 12 * 4 - 1 + " }".len())
        );
        assert_eq!(or_block(&lines(&["a"; 13]), orders::End::Exit), None);
        assert_eq!(or_block(&lines(&[&"x".repeat(92)]), orders::End::Exit), None);
        assert_eq!(
            or_block(&lines(&[&"x".repeat(91)]), orders::End::Exit).map(|b| b.chars().count()),
            Some(100)
        );
        assert_eq!(or_block(&[], orders::End::Exit).as_deref(), Some("or { }"));
        // How the order ends is written at the block's end; a limit is not.
        assert_eq!(or_block(&[], orders::End::Unhandled).as_deref(), Some("or { unhandled }"));
        assert_eq!(
            or_block(&lines(&["a"]), orders::End::Unsettled).as_deref(),
            Some(r#"or { "a" unsettled }"#)
        );
        assert_eq!(or_block(&lines(&["a"]), orders::End::Stopped), None);
    }

    /// Past the orders listed, the count says an order is missing: a
    /// prediction naming every order listed (two, here) but not all five
    /// fails at one of the others, with its timing.
    #[test]
    fn an_order_past_those_listed_is_missing_by_the_count() {
        let body = "timeout 0 \"t\"\nimmediate \"i\"\nsubmit \"s\" 0\n";
        let with = |alternatives: &[&str]| {
            let blocks: Vec<String> = alternatives.iter().map(|a| format!("{{\n{a}}}\n")).collect();
            let src = format!("{body}expect {}", blocks.join("or "));
            crate::load::load_bytes("three.loop", src.as_bytes()).expect("valid")
        };
        let lines = |order: &str| order.split(' ').map(|l| format!("  \"{l}\"\n")).collect::<String>();
        let listed = [lines("s i t"), lines("i s t")];
        let loaded = with(&[&listed[0], &listed[1]]);
        let bounds = SearchBounds {
            max_listed: 2,
            ..SearchBounds::default()
        };
        let all = orders::all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), bounds);
        assert_eq!((all.count, all.count_exact, all.orders.len()), (5, true, 2));
        let expect = loaded.file.expect.as_ref().expect("a prediction");
        let p = missing_order(expect, &all, &loaded, "").expect_err("three orders unnamed");
        assert_eq!(p.message, "real Node 26 can also print: t | s | i");
        // Labelled over both alternatives.
        let labelled = &loaded.src[p.span.start()..p.span.end()];
        assert_eq!(labelled, format!("{{\n{}}}\nor {{\n{}}}", listed[0], listed[1]));
        assert_eq!(
            p.help.as_deref(),
            Some(
                "it happens when a millisecond boundary passed before the timers phase of turn 1; add it as `or { \"t\" \"s\" \"i\" }`; \
                 2 more orders are missing too (`loopsim run --all-orders --list three.loop` lists every order)"
            )
        );
        // With every order listed, the three missing are given in one help,
        // ready to paste (fresh-clone helper 71 pasted three times).
        let every = orders::all_orders_within(&loaded.file, &loaded.src, RunOptions::default(), SearchBounds::default());
        let p = missing_order(expect, &every, &loaded, "").expect_err("three orders unnamed");
        assert_eq!(
            p.help.as_deref(),
            Some(
                "it happens when a millisecond boundary passed before the timers phase of turn 1; add it and the 2 other \
                 orders missing as `or { \"t\" \"s\" \"i\" } or { \"i\" \"t\" \"s\" } or { \"t\" \"i\" \"s\" }`"
            )
        );
        // All five named (one of them twice): none is missing.
        let five = ["s i t", "i s t", "t s i", "i t s", "t i s", "s i t"].map(lines);
        let loaded = with(&five.iter().map(String::as_str).collect::<Vec<_>>());
        let expect = loaded.file.expect.as_ref().expect("a prediction");
        assert!(missing_order(expect, &all, &loaded, "").is_ok());
        // Five blocks, one twice and "t i s" left out: the count still tells.
        let four = [&five[..4], &five[..1]].concat();
        let loaded = with(&four.iter().map(String::as_str).collect::<Vec<_>>());
        let expect = loaded.file.expect.as_ref().expect("a prediction");
        let p = missing_order(expect, &all, &loaded, "").expect_err("one order unnamed");
        assert_eq!(p.message, "real Node 26 can also print: t | i | s");
        assert!(p.help.as_deref().is_some_and(|h| !h.contains("more")), "{:?}", p.help);
    }
}
