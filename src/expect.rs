//! Checking a prediction (`expect` block) against a run's trace (docs/language.md).

// A failed prediction is one diagnostic per file, built once: its size does not matter.
#![allow(clippy::result_large_err)]

use crate::orders::End;
use crate::problem::{Diag, Problem};
use crate::sched::LimitKind;
use crate::syntax::ast::{Expect, ExpectEnding, ExpectLine, LimitQueue, Span};
use crate::trace::{Ending, Event, Trace};

/// The distinct orders a prediction's alternatives name (`expect { … } or
/// { … }`, docs/language.md "Alternatives"): each its lines' texts and
/// how it ends; looked up in constant time (a file may have thousands of
/// alternatives).
#[derive(Debug, Clone, Default)]
pub struct Named {
    /// The orders named, by how each ends (an [`End`] as an index).
    orders: [rustc_hash::FxHashSet<Vec<String>>; 4],
}

/// How the order an alternative names ends: stopped when it names a
/// `limit`, else as its `unhandled` or `unsettled` says (exit code 0 with neither).
pub fn end_of(alt: &Expect) -> End {
    match (alt.limit, alt.ending.map(|e| e.value)) {
        (Some(_), _) => End::Stopped,
        (None, Some(ExpectEnding::Unhandled)) => End::Unhandled,
        (None, Some(ExpectEnding::Unsettled)) => End::Unsettled,
        (None, None) => End::Exit,
    }
}

impl Named {
    /// The orders `expect`'s alternatives name.
    pub fn of(expect: &Expect) -> Named {
        Named::of_alternatives(expect.alternatives())
    }

    /// The orders these alternatives name (those of a prediction Node can
    /// print, when some cannot be).
    pub fn of_alternatives<'a>(alternatives: impl IntoIterator<Item = &'a Expect>) -> Named {
        let mut named = Named::default();
        for alt in alternatives {
            named.orders[end_of(alt) as usize].insert(alt.lines.iter().map(|l| l.text.clone()).collect());
        }
        named
    }

    /// How many distinct orders they name.
    pub fn len(&self) -> usize {
        self.orders.iter().map(|o| o.len()).sum()
    }

    /// Whether they name none (a prediction always names one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether they name the order `logs` ending as `end` says.
    pub fn names(&self, logs: &[String], end: End) -> bool {
        self.orders[end as usize].contains(logs)
    }
}

/// The queue a limit hit is reported as, in `limit` terms.
pub fn limit_queue(trace: &Trace) -> Option<LimitQueue> {
    use crate::sched::Phase;
    match &trace.ending {
        Ending::Finished { .. } | Ending::Unhandled { .. } | Ending::Unsettled { .. } => None,
        Ending::Limit(hit) => Some(match hit.queue {
            Phase::NextTick => LimitQueue::NextTick,
            Phase::Microtask => LimitQueue::Microtask,
            Phase::Check => LimitQueue::Check,
            Phase::Timers => LimitQueue::Timers,
            _ => LimitQueue::Turns,
        }),
    }
}

/// Checks the run against the prediction: the run's log lines must match one
/// of the alternatives (`expect { … } or { … }`). See [`check_one`].
///
/// # Errors
/// The problem of the alternative that matched longest.
pub fn check(expect: &Expect, trace: &Trace) -> Result<(), Problem> {
    let mut best: Option<(usize, Problem)> = None;
    for alt in expect.alternatives() {
        match check_one(alt, trace) {
            Ok(()) => return Ok(()),
            Err(p) => {
                let reached = alt.lines.iter().position(|l| l.span == p.span).unwrap_or(alt.lines.len());
                if best.as_ref().is_none_or(|(r, _)| reached > *r) {
                    best = Some((reached, p));
                }
            }
        }
    }
    Err(best.expect("at least one alternative").1)
}

/// Compares the run's log lines with one alternative's lines one to one, in
/// order, comparing only the fields written. `Ok` if the prediction holds.
///
/// # Errors
/// A problem at the first differing expect line (or at the block's end when
/// the run printed more), labelled with what actually happened there.
pub fn check_one(expect: &Expect, trace: &Trace) -> Result<(), Problem> {
    let logs: Vec<(&Event, &str)> = trace.logs().collect();
    for (i, line) in expect.lines.iter().enumerate() {
        match logs.get(i) {
            Some(&(event, text)) => {
                if let Some(diff) = differs(line, event, text) {
                    return Err(Diag::PredictionDiffers {
                        line: i + 1,
                        diff,
                        actual: actual(event, text),
                        text: text.to_string(),
                        why: trace.explanations.get(i).map(ToString::to_string),
                        printed: logs.len(),
                        note_copied: copied_note(&line.text),
                    }
                    .at(line.span));
                }
            }
            None => return Err(ran_out(line, &logs, trace)),
        }
    }
    let end = Span::new(expect.span.end() - 1, expect.span.end());
    if let Some(&(event, text)) = logs.get(expect.lines.len()) {
        return Err(Diag::PrintedMore {
            line: expect.lines.len() + 1,
            actual: actual(event, text),
            remaining: logs.len() - expect.lines.len(),
            limit: limit_queue(trace).map(|q| q.name()),
            // (Not in the WebAssembly build, for its size budget.)
            #[cfg(not(target_family = "wasm"))]
            bound: match &trace.ending {
                Ending::Limit(hit) if hit.bounded || !matches!(hit.limit, LimitKind::Turns | LimitKind::Callbacks) => {
                    Some(crate::problem::limit_reached(hit.limit, hit.max))
                }
                _ => None,
            },
        }
        .at(end));
    }
    let want = expect.ending.map(|e| e.value.name());
    let got = match trace.ending {
        Ending::Unhandled { .. } => Some("unhandled"),
        Ending::Unsettled { .. } => Some("unsettled"),
        Ending::Finished { .. } | Ending::Limit(_) => None,
    };
    // (A run a limit stopped has no ending of its own: the `limit` line is
    // what the prediction lacks, below, at the ending it wrote.)
    let stopped = matches!(trace.ending, Ending::Limit(_));
    if want != got && !stopped {
        return Err(Diag::WrongEnding { want, got }.at(expect.ending.map_or(end, |e| e.span)));
    }
    match (expect.limit, limit_queue(trace)) {
        (None, None) => Ok(()),
        (Some(want), Some(got)) if want.value == got => Ok(()),
        (Some(want), Some(got)) => Err(Diag::WrongLimit {
            want: want.value.name(),
            got: got.name(),
        }
        .at(want.span)),
        (Some(want), None) => Err(Diag::LimitNotHit.at(want.span)),
        (None, Some(got)) => Err(Diag::StoppedByLimit {
            got: got.name(),
            instead: want,
        }
        .at(expect.ending.map_or(end, |e| e.span))),
    }
}

fn ran_out(line: &ExpectLine, logs: &[(&Event, &str)], trace: &Trace) -> Problem {
    let how = match &trace.ending {
        Ending::Finished { .. } => "the run finished".to_string(),
        Ending::Unhandled { line, .. } => format!("the process ended by the unhandled rejection of line {line}"),
        Ending::Unsettled { .. } => "the run finished with the top-level await unsettled".to_string(),
        Ending::Limit(hit) => match (limit_queue(trace), hit.limit) {
            // `limit turns` stands for every limit not kept going by a queue:
            // name the one that stopped the run.
            (Some(LimitQueue::Turns), kind) if !matches!(kind, LimitKind::Turns | LimitKind::Callbacks) => format!(
                "the run was stopped at {} (a prediction writes it `limit turns`)",
                crate::problem::limit_reached(kind, hit.max)
            ),
            (Some(queue), _) => format!("the run was stopped at a limit (a prediction writes it `limit {}`)", queue.name()),
            (None, _) => "the run was stopped at a limit".to_string(),
        },
    };
    Diag::NeverPrinted {
        how,
        printed: logs.len(),
        note_copied: copied_note(&line.text),
    }
    .at(line.span)
}

/// An expect line copied from a trace's `⏸ suspends …`/`▶ resumes …` note,
/// which is no log line.
fn copied_note(text: &str) -> bool {
    text.starts_with("⏸ ") || text.starts_with("▶ ")
}

/// The first field of the expect line that does not match, described.
fn differs(line: &ExpectLine, event: &Event, text: &str) -> Option<String> {
    if line.text != text {
        return Some(format!("expected \"{}\", got \"{text}\"", line.text));
    }
    if let Some(turn) = line.turn.filter(|&t| t != event.turn) {
        return Some(format!("\"{text}\" ran on turn {}, not turn {turn}", event.turn));
    }
    if let Some(at) = line.at.filter(|&t| t != event.tick) {
        return Some(format!("\"{text}\" ran at tick {}, not at {at}", event.tick));
    }
    if let Some(phase) = line.phase.filter(|&p| p != event.phase) {
        return Some(format!("\"{text}\" ran in {}, not in {phase}", event.phase));
    }
    None
}

/// What ran, written as an expect line (`turn 2 at 1 timers "timer"`), so
/// that it can be copied into the prediction.
pub fn actual(event: &Event, text: &str) -> String {
    format!("turn {} at {} {} \"{text}\"", event.turn, event.tick, event.phase)
}
