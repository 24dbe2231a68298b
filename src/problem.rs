//! Problems found in a `.loop` file: errors as data, rendered by miette.

use crate::syntax::ast::Span;
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
    /// An error at `span`.
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

    /// A warning at `span`.
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

/// Several problems in one file, reported together with the source attached once.
#[derive(Debug)]
pub struct FileProblems {
    pub src: NamedSource<String>,
    pub problems: Vec<Problem>,
}

impl FileProblems {
    /// Problems of the file `name` whose text is `text`.
    pub fn new(name: &str, text: &str, problems: Vec<Problem>) -> Self {
        FileProblems {
            src: NamedSource::new(name, text.to_string()),
            problems,
        }
    }

    /// Renders each problem with the source, as a user sees it.
    pub fn render(&self, handler: &miette::GraphicalReportHandler) -> String {
        let mut out = String::new();
        for p in &self.problems {
            let wrapped = WithSource {
                problem: p,
                src: &self.src,
            };
            let _ = handler.render_report(&mut out, &wrapped);
        }
        out
    }
}

/// A problem with its source attached, so that it renders with a snippet.
#[derive(Debug)]
pub struct WithSource<'a> {
    pub problem: &'a Problem,
    pub src: &'a NamedSource<String>,
}

impl fmt::Display for WithSource<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.problem.fmt(f)
    }
}

impl std::error::Error for WithSource<'_> {}

impl Diagnostic for WithSource<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.problem.code()
    }
    fn severity(&self) -> Option<Severity> {
        self.problem.severity()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.problem.help()
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.problem.labels()
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self.src)
    }
}
