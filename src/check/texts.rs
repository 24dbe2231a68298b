//! Texts: the escapes a string may hold (`\"`, `\\`, `\n`; checked while
//! building, `syntax/build.rs`), no placeholder in a name (while building,
//! `syntax/build_promise.rs`), and where `{i}` (inside a `repeat`) and
//! `{n}`, `{k}` (inside a callback) may stand (after parsing,
//! [`super::check`]).

use crate::problem::{Diag, Problem};
use crate::syntax::ast::{Span, Text, TextPart};

/// The character the escape `\c` stands for, or the problem of an unknown
/// escape (to show at the backslash and `c`).
pub fn escape(c: char) -> Result<char, Box<Diag>> {
    match c {
        '"' => Ok('"'),
        '\\' => Ok('\\'),
        'n' => Ok('\n'),
        other => Err(Box::new(Diag::Escape { c: other })),
    }
}

/// A placeholder (at byte `at`) written on the name `name`: a name is one
/// program name, not a text.
pub fn placeholder_in_name(name: &str, at: usize) -> Problem {
    Diag::PlaceholderInName { name: name.to_string() }.at(Span::new(at, at + 3))
}

/// The placeholders of `text` that stand where they have no value, in order:
/// `{i}` outside a `repeat` (unless `in_repeat`), `{n}` then `{k}` outside a
/// callback (unless `in_callback`).
pub fn placeholders(text: &Text, in_repeat: bool, in_callback: bool, push: &mut impl FnMut(Problem)) {
    if text.uses(&TextPart::Index) && !in_repeat {
        push(Diag::IndexOutsideRepeat.at(text.span));
    }
    for (part, name) in [(TextPart::Run, "{n}"), (TextPart::Count, "{k}")] {
        if text.uses(&part) && !in_callback {
            push(Diag::RunOutsideCallback { name }.at(text.span));
        }
    }
}
