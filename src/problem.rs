//! Problems found in a `.loop` file: errors as data, rendered by miette.

mod excerpt;
mod json;
mod kind;

pub use json::{problems as to_json, JsonLabel, JsonProblem};
pub(crate) use kind::limit_reached;
pub use kind::{Code, Diag, SyntaxHint, CUT, IO_CODE};

use crate::syntax::ast::Span;
use crate::term;
use miette::{Diagnostic, LabeledSpan, NamedSource, Severity, SourceCode};
use std::fmt;

/// One problem at one place in the source: a message, a label at the span,
/// and a help line saying how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Stable code, e.g. `loop::syntax`, `loop::unknown-statement`.
    pub code: &'static str,
    /// One line saying what is wrong.
    pub message: String,
    /// Where.
    pub span: Span,
    /// The label shown at the span.
    pub label: String,
    /// How to fix it.
    pub help: Option<String>,
    /// Errors stop the run; warnings do not.
    pub warning: bool,
    /// More labelled places.
    pub secondary: Vec<(Span, String)>,
}

impl Problem {
    /// An error with the code, message and label given. loopsim's own
    /// diagnostics are built with [`Diag::at`] instead, from their kind; this
    /// is for problems made up by tests.
    pub fn error(code: &'static str, span: Span, message: impl Into<String>, label: impl Into<String>) -> Self {
        Problem {
            code,
            message: message.into(),
            span,
            label: label.into(),
            help: None,
            warning: false,
            secondary: Vec::new(),
        }
    }

    /// A warning, as [`Problem::error`].
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>, label: impl Into<String>) -> Self {
        Problem {
            warning: true,
            ..Problem::error(code, span, message, label)
        }
    }

    /// Adds a secondary labelled place.
    pub fn also(mut self, span: Span, label: impl Into<String>) -> Self {
        self.secondary.push((span, label.into()));
        self
    }

    /// Adds the help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds `more` to the help line, after a `; ` (or as the help line).
    pub fn add_help(mut self, more: &str) -> Self {
        self.help = Some(match self.help.take() {
            Some(h) => format!("{h}; {more}"),
            None => more.to_string(),
        });
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

impl Diagnostic for Problem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }
    fn severity(&self) -> Option<Severity> {
        Some(if self.warning { Severity::Warning } else { Severity::Error })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let label = LabeledSpan::new_primary_with_span(Some(self.label.clone()), self.span);
        let more = self.secondary.iter().map(|(s, l)| LabeledSpan::new_with_span(Some(l.clone()), *s));
        Some(Box::new(std::iter::once(label).chain(more)))
    }
}

/// Diagnostics shown for one file; the rest are counted in one line.
pub const MAX_SHOWN: usize = 50;
/// Bytes of rendered diagnostics for one file after which the rest are only counted.
pub const MAX_RENDERED: usize = 256 * 1024;
/// Bytes of a message shown; longer ones are cut with `…`.
pub const MAX_MESSAGE: usize = 400;
/// Bytes of a help line shown; longer ones are cut with `…`. More than a
/// message: a failed prediction's help says where Node's orders part from
/// it, then why the model's line ran there (about 400 bytes with short labels).
pub const MAX_HELP: usize = 600;
/// Bytes of a label shown.
pub const MAX_LABEL: usize = 160;
/// Labels shown per diagnostic.
pub const MAX_LABELS: usize = 8;

/// Problems kept for one file by each pass (parser, checks, `emit-js`): 1,000.
/// The parser stops reading the file once it has found this many errors; the
/// checks and `emit-js` go on counting the rest without keeping them. Each then
/// ends its list with a note ([`CUT`]) that says so.
pub const MAX_KEPT: usize = 1000;

impl Problem {
    /// The note ending a list cut at [`MAX_KEPT`]: an error unless only
    /// warnings were left out. `message` says what was left out.
    pub fn cut(span: Span, message: impl Into<String>, warning: bool) -> Self {
        Problem {
            warning,
            ..Diag::TooManyProblems { message: message.into() }.at(span)
        }
    }
}

/// Gathers a pass's problems: the first [`MAX_KEPT`] are kept (and the first
/// error always, so that a file with errors is never taken for valid), the
/// rest only counted.
#[derive(Debug, Default)]
pub struct Kept {
    kept: Vec<Problem>,
    error_kept: bool,
    errors_left: usize,
    warnings_left: usize,
    first_left: Option<Span>,
}

impl Kept {
    /// Keeps or counts `p`.
    pub fn push(&mut self, p: Problem) {
        self.push_with(p.warning, p.span, || p);
    }

    /// Keeps the problem `make` makes, or only counts a problem (a warning if
    /// `warning`) at `span` without making it.
    pub fn push_with(&mut self, warning: bool, span: Span, make: impl FnOnce() -> Problem) {
        if self.kept.len() < MAX_KEPT || (!warning && !self.error_kept) {
            self.error_kept |= !warning;
            self.kept.push(make());
        } else {
            if warning {
                self.warnings_left += 1;
            } else {
                self.errors_left += 1;
            }
            self.first_left.get_or_insert(span);
        }
    }

    /// Keeps or counts the problems `other` gathered as if they had been
    /// pushed here after the ones here, in the order they were pushed there:
    /// the same are kept and counted, and the same span is the first left
    /// out. (`other` counted a problem only after keeping [`MAX_KEPT`] of
    /// them, which fill this one: it would have been counted here too.)
    pub fn append(&mut self, other: Kept) {
        for p in other.kept {
            self.push(p);
        }
        self.errors_left += other.errors_left;
        self.warnings_left += other.warnings_left;
        if let Some(span) = other.first_left {
            self.first_left.get_or_insert(span);
        }
    }

    /// Whether a problem was left out already.
    pub fn is_full(&self) -> bool {
        self.first_left.is_some()
    }

    /// The kept problems in source order, then (if any were left out) a
    /// [`CUT`] note counting the others.
    pub fn into_sorted(self) -> Vec<Problem> {
        let mut problems = self.kept;
        crate::sort::sort_by_key(&mut problems, |p| (p.span.start(), p.span.end()));
        if let Some(span) = self.first_left {
            let count = |n: usize, what: &str| match n {
                0 => None,
                1 => Some(format!("1 more {what}")),
                n => Some(format!("{n} more {what}s")),
            };
            let left: Vec<String> = [count(self.errors_left, "error"), count(self.warnings_left, "warning")]
                .into_iter()
                .flatten()
                .collect();
            let message = format!("{} past the first {MAX_KEPT} were counted, not kept", left.join(" and "));
            problems.push(Problem::cut(span, message, self.errors_left == 0));
        }
        problems
    }
}

/// Several problems in one file, reported together with the source attached once.
#[derive(Debug)]
pub struct FileProblems {
    pub src: NamedSource<String>,
    pub problems: Vec<Problem>,
}

impl FileProblems {
    /// Problems of the file `name` whose text is `text`.
    pub fn new(name: &str, text: &str, problems: Vec<Problem>) -> Self {
        Self::owning(name, text.to_string(), problems)
    }

    /// [`FileProblems::new`] keeping `text` (no copy of a large file).
    pub fn owning(name: &str, text: String, problems: Vec<Problem>) -> Self {
        FileProblems {
            src: NamedSource::new(name, text),
            problems,
        }
    }

    /// Renders the problems with the source, as a user sees them: at most
    /// [`MAX_SHOWN`] of them (and about [`MAX_RENDERED`] bytes), then a line
    /// counting the others and ending with the message of a [`CUT`] note, if the
    /// list ends with one; each with a few lines of source around its labels,
    /// long lines cut, control characters escaped. Takes time linear in the
    /// size of the source.
    pub fn render(&self, handler: &miette::GraphicalReportHandler) -> String {
        let src = self.src.inner().as_str();
        let (problems, cut) = match self.problems.split_last() {
            Some((last, rest)) if last.code == CUT => (rest, Some(last)),
            _ => (&self.problems[..], None),
        };
        let shown = &problems[..problems.len().min(MAX_SHOWN)];
        let labels: Vec<Vec<excerpt::Label>> = shown.iter().map(Problem::excerpt_labels).collect();
        let mut lines = excerpt::Lines::new(src, labels.iter().flat_map(|l| excerpt::offsets(src, l)));
        let mut out = String::new();
        let mut rendered = 0;
        for (p, labels) in shown.iter().zip(&labels) {
            if out.len() >= MAX_RENDERED {
                break;
            }
            let excerpt = excerpt::Excerpt::new(self.src.name(), &mut lines, labels);
            let _ = handler.render_report(&mut out, &Shown { problem: p, excerpt });
            rendered += 1;
        }
        let rest = &problems[rendered..];
        let cut = cut.map(|p| term::cut(&term::escape(&p.message), MAX_MESSAGE).into_owned());
        if rest.is_empty() {
            if let Some(cut) = cut {
                out.push_str(&format!("… in {}: {cut}\n", term::escape(self.src.name())));
            }
        } else {
            let warnings = rest.iter().filter(|p| p.warning).count();
            let errors = rest.len() - warnings;
            let count = |n: usize, what: &str| match n {
                0 => None,
                1 => Some(format!("1 more {what}")),
                n => Some(format!("{n} more {what}s")),
            };
            let counted: Vec<String> = [count(errors, "error"), count(warnings, "warning")].into_iter().flatten().collect();
            let cut = cut.map_or(String::new(), |c| format!("; {c}"));
            out.push_str(&format!(
                "… and {} in {} (not shown){cut}\n",
                counted.join(" and "),
                term::escape(self.src.name())
            ));
        }
        out
    }
}

impl Problem {
    /// The labels to show, primary first.
    fn excerpt_labels(&self) -> Vec<excerpt::Label> {
        let primary = excerpt::Label {
            start: self.span.start(),
            end: self.span.end(),
            text: self.label.clone(),
            primary: true,
        };
        let more = self.secondary.iter().map(|(s, l)| excerpt::Label {
            start: s.start(),
            end: s.end(),
            text: l.clone(),
            primary: false,
        });
        std::iter::once(primary).chain(more).take(MAX_LABELS).collect()
    }
}

/// A problem as shown: its texts escaped and cut, with its own excerpt of the source.
#[derive(Debug)]
struct Shown<'a> {
    problem: &'a Problem,
    excerpt: excerpt::Excerpt,
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&term::cut(&term::escape(&self.problem.message), MAX_MESSAGE))
    }
}

impl std::error::Error for Shown<'_> {}

impl Diagnostic for Shown<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.problem.code()
    }
    fn severity(&self) -> Option<Severity> {
        self.problem.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let help = self.problem.help.as_ref()?;
        Some(Box::new(term::cut(&term::escape(help), MAX_HELP).into_owned()))
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.excerpt.labels.iter().cloned()))
    }
    /// None (no box at all) when there is no text to show: a file of 4 GiB or
    /// more, or in UTF-16 with nothing but white space at its start.
    fn source_code(&self) -> Option<&dyn SourceCode> {
        (!self.excerpt.is_empty()).then_some(&self.excerpt as &dyn SourceCode)
    }
}

#[cfg(test)]
mod kept_tests {
    use super::*;

    /// The problems one [`Kept`] gives for `first` then `second` pushed into
    /// it, and the ones it gives with `second` gathered apart and appended.
    fn both(first: &[bool], second: &[bool]) -> (String, String) {
        // Each problem's span is its place in the stream; `true`: a warning.
        let make = |i: usize, &warning: &bool| Problem::cut(Span::new(i, i + 1), format!("p{i}"), warning);
        let mut one = Kept::default();
        let mut apart = (Kept::default(), Kept::default());
        for (i, w) in first.iter().enumerate() {
            one.push(make(i, w));
            apart.0.push(make(i, w));
        }
        for (i, w) in second.iter().enumerate() {
            one.push(make(first.len() + i, w));
            apart.1.push(make(first.len() + i, w));
        }
        apart.0.append(apart.1);
        (format!("{:?}", one.into_sorted()), format!("{:?}", apart.0.into_sorted()))
    }

    #[test]
    fn appending_keeps_and_counts_as_pushing_in_order_does() {
        let runs = |parts: &[(usize, bool)]| -> Vec<bool> { parts.iter().flat_map(|&(n, w)| vec![w; n]).collect() };
        let streams = [
            runs(&[]),
            runs(&[(3, true), (2, false)]),
            runs(&[(MAX_KEPT, true)]),
            runs(&[(MAX_KEPT - 1, true)]),
            runs(&[(MAX_KEPT, true), (5, true), (2, false), (3, true)]),
            runs(&[(MAX_KEPT + 7, false)]),
            runs(&[(10, false), (MAX_KEPT, true), (1, false)]),
            runs(&[(2 * MAX_KEPT, true), (1, false), (4, true), (1, false)]),
        ];
        for first in &streams {
            for second in &streams {
                let (one, apart) = both(first, second);
                assert!(one == apart, "{} then {} problems", first.len(), second.len());
            }
        }
        // The note counts the problems left out of both.
        let (one, _) = both(&runs(&[(MAX_KEPT, true)]), &runs(&[(3, true), (1, false), (2, true)]));
        assert!(one.contains("5 more warnings past the first 1000"), "{one}");
    }
}
