//! Checking a prediction (`expect` block) against a run's trace (LANGUAGE.md §4).

use crate::problem::Problem;
use crate::syntax::ast::{Expect, ExpectLine, LimitQueue, Span};
use crate::trace::{Ending, Event, Trace};

/// The queue a limit hit is reported as, in `limit` terms.
pub fn limit_queue(trace: &Trace) -> Option<LimitQueue> {
    use crate::sched::Phase;
    match &trace.ending {
        Ending::Finished { .. } => None,
        Ending::Limit(hit) => Some(match hit.queue {
            Phase::NextTick => LimitQueue::NextTick,
            Phase::Microtask => LimitQueue::Microtask,
            Phase::Check => LimitQueue::Check,
            Phase::Timers => LimitQueue::Timers,
            _ => LimitQueue::Turns,
        }),
    }
}

/// Compares the run's log lines with the expect lines one to one, in order,
/// comparing only the fields written. `Ok` if the prediction holds.
///
/// # Errors
/// A problem at the first differing expect line (or at the block's end when
/// the run printed more), labelled with what actually happened there.
pub fn check(expect: &Expect, trace: &Trace) -> Result<(), Problem> {
    let logs: Vec<(&Event, &str)> = trace.logs().collect();
    for (i, line) in expect.lines.iter().enumerate() {
        match logs.get(i) {
            Some(&(event, text)) => {
                if let Some(diff) = differs(line, event, text) {
                    return Err(Problem::error(
                        "loop::prediction",
                        line.span,
                        format!("prediction failed at log line {}: {diff}", i + 1),
                        format!("actually: {}", actual(event, text)),
                    )
                    .help(format!(
                        "the run printed {} log line(s); fix this expect line, or run `loopsim run --verbose` to see why it ran there",
                        logs.len()
                    )));
                }
            }
            None => return Err(ran_out(line, &logs, trace)),
        }
    }
    let end = Span::new(expect.span.end - 1, expect.span.end);
    if let Some(&(event, text)) = logs.get(expect.lines.len()) {
        return Err(Problem::error(
            "loop::prediction",
            end,
            format!("the run printed more: log line {} is not predicted", expect.lines.len() + 1),
            format!("next: {}", actual(event, text)),
        )
        .help(format!(
            "add the remaining {} line(s) to the expect block",
            logs.len() - expect.lines.len()
        )));
    }
    match (expect.limit, limit_queue(trace)) {
        (None, None) => Ok(()),
        (Some(want), Some(got)) if want.value == got => Ok(()),
        (Some(want), Some(got)) => Err(Problem::error(
            "loop::prediction",
            want.span,
            format!(
                "predicted the {} limit, but the {} limit stopped the run",
                want.value.name(),
                got.name()
            ),
            format!("actually: limit {}", got.name()),
        )
        .help(format!("write `limit {}`", got.name()))),
        (Some(want), None) => Err(Problem::error(
            "loop::prediction",
            want.span,
            "predicted a limit, but the run finished",
            "the run ended normally",
        )
        .help("delete the `limit` line: every callback ran")),
        (None, Some(got)) => Err(Problem::error(
            "loop::prediction",
            end,
            format!("the run was stopped by a limit ({})", got.name()),
            "the run did not finish",
        )
        .help(format!("if that is the point, end the expect block with `limit {}`", got.name()))),
    }
}

fn ran_out(line: &ExpectLine, logs: &[(&Event, &str)], trace: &Trace) -> Problem {
    let how = match &trace.ending {
        Ending::Finished { .. } => "the run finished".to_string(),
        Ending::Limit(_) => format!("the run was stopped by the {} limit", limit_queue(trace).map_or("", |q| q.name())),
    };
    Problem::error(
        "loop::prediction",
        line.span,
        format!("prediction failed: {how} after {} log line(s)", logs.len()),
        "never printed",
    )
    .help("delete this line and those after it, or change the program so that it runs")
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

/// "turn 2, tick 1, timers: \"timer\"".
pub fn actual(event: &Event, text: &str) -> String {
    format!("turn {} at {} {} \"{text}\"", event.turn, event.tick, event.phase)
}
