//! Numbers: an integer is written as one, not negative and fits in 64 bits;
//! `pool` is 1 to 1024 threads; `times 0` is refused; a timer's delay (or
//! `submit`'s ticks) is there, before the label, and alone; a delay left out
//! before a word reads as that word given for the number. Called by the
//! builder (`syntax/build.rs`) while it builds each item.

use crate::problem::{Code, Diag, Problem};
use crate::sched::TIMEOUT_MAX;
use crate::syntax::ast::{Amount, Kind, Span, Spanned};

/// An integer as written: `text`, `is_integer` if the grammar read it as an
/// integer (else it is some other number, e.g. `1.5`). Its value, or the
/// problem with it (to show at the number): not an integer, negative, or
/// past `u64::MAX`.
pub fn integer(text: &str, is_integer: bool) -> Result<u64, Box<Diag>> {
    if !is_integer {
        return Err(Box::new(Diag::NotANumber { text: text.to_string() }));
    }
    if text.starts_with('-') {
        return Err(Box::new(Diag::Negative { text: text.to_string() }));
    }
    text.parse::<u64>().map_err(|_| Box::new(Diag::Overflow { text: text.to_string() }))
}

/// `pool N`: libuv's thread pool has 1 to 1024 threads (libuv
/// `src/threadpool.c`, `init_threads`, `UV_THREADPOOL_SIZE` capped at
/// `MAX_THREADPOOL_SIZE`). `span` is the number's.
pub fn pool(n: u64, span: Span) -> Option<Problem> {
    (!(1..=1024).contains(&n)).then(|| Diag::Pool { n }.at(span))
}

/// A timer's delay above Node's `TIMEOUT_MAX` (2³¹−1 ms): a warning, as
/// Node's `TimeoutOverflowWarning` (`lib/internal/timers.js`, `Timeout`),
/// and the timer runs after 1 tick as Node's after 1 ms. Called after
/// parsing, by [`crate::check::check`] (the builder's warnings are not kept).
pub fn delay_above_max(kind: Kind, delay: Option<Spanned<u64>>) -> Option<Problem> {
    let delay = delay.filter(|d| kind.statement().amount == Amount::Delay && d.value > TIMEOUT_MAX)?;
    Some(Diag::DelayAboveMax { kind, delay: delay.value }.at(delay.span))
}

/// `repeat N` with N = 0: a body that never runs, warned of.
pub fn repeat(n: Spanned<u64>) -> Option<Problem> {
    (n.value == 0).then(|| Diag::RepeatZero.at(n.span))
}

/// `times N` with N = 0: a callback that never runs is refused.
pub fn times(n: Spanned<u64>) -> Option<Problem> {
    (n.value == 0).then(|| Diag::TimesZero.at(n.span))
}

/// The amount of a callback of `kind` from the integers of its header, each
/// with whether it came before the label: a delay for timers, ticks for
/// `submit`, nothing for the others. Pushes, in order, a missing, misplaced
/// or extra number (a missing one only if no number was there but invalid,
/// `bad_number`: that one was reported already). `kind_span` is the
/// keyword's, `span` the statement's.
pub fn amount(
    kind: Kind,
    kind_span: Span,
    span: Span,
    ints: impl IntoIterator<Item = (Spanned<u64>, bool)>,
    bad_number: bool,
    push: &mut impl FnMut(Problem),
) -> Option<Spanned<u64>> {
    let mut amount = None;
    match kind.statement().amount {
        Amount::Delay => {
            let mut it = ints.into_iter();
            match it.next() {
                Some((n, true)) => amount = Some(n),
                Some((n, false)) => push(Diag::DelayAfterLabel { kind, delay: n.value }.at(n.span)),
                None if bad_number => {}
                None => push(Diag::NoDelay { kind }.at(kind_span)),
            }
            for (n, _) in it {
                push(Diag::ExtraNumber { kind }.at(n.span));
            }
        }
        Amount::Ticks => {
            let mut it = ints.into_iter();
            match it.next() {
                Some((n, _)) => amount = Some(n),
                None if bad_number => {}
                None => push(Diag::NoTicks.at(span)),
            }
            for (n, _) in it {
                push(Diag::ExtraNumber { kind }.at(n.span));
            }
        }
        _ => {
            for (n, _) in ints {
                push(Diag::ExtraNumber { kind }.at(n.span));
            }
        }
    }
    amount
}

/// `timeout soon "t"` reads as a timeout without a delay followed by an
/// unknown statement `soon "t"`: one problem, "needs a delay, found `soon`".
/// `problems` are one chunk's (spans in `src`); returned sorted by start.
pub fn merge_missing_numbers(src: &str, mut problems: Vec<Problem>) -> Vec<Problem> {
    crate::sort::sort_by_key(&mut problems, |p| p.span.start());
    let mut out: Vec<Problem> = Vec::with_capacity(problems.len());
    for p in problems {
        if let Some(prev) = out.last_mut() {
            let between = src.get(prev.span.end()..p.span.start()).unwrap_or("\n");
            let same_line = !between.contains('\n') && between.trim().is_empty();
            let (delay, ticks) = (Code::Delay.as_str(), Code::Ticks.as_str());
            if (prev.code == delay || prev.code == ticks) && p.code == Code::UnknownStatement.as_str() && same_line {
                let text = &src[p.span.start()..p.span.end()];
                let word = text.split_whitespace().next().unwrap_or(text);
                let kind = src[prev.span.start()..prev.span.end()]
                    .split_whitespace()
                    .next()
                    .unwrap_or("timeout")
                    .to_string();
                *prev = Diag::WordForNumber {
                    ticks: prev.code == ticks,
                    kind,
                    word: word.to_string(),
                }
                .at(Span::new(p.span.start(), p.span.start() + word.len()));
                continue;
            }
        }
        out.push(p);
    }
    out
}
