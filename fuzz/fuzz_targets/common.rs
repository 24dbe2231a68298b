//! Shared by the fuzz targets: every diagnostic must point inside its source
//! and render without panicking.

use loopsim::problem::FileProblems;
use miette::{GraphicalReportHandler, GraphicalTheme};

pub fn check_problems(fp: &FileProblems) {
    let src = fp.src.inner();
    assert!(!fp.problems.is_empty(), "an invalid file has at least one problem");
    for p in &fp.problems {
        let (start, end) = (p.span.start, p.span.end);
        assert!(
            start <= end && end <= src.len(),
            "span {start}..{end} outside a source of {} bytes",
            src.len()
        );
        assert!(
            src.is_char_boundary(start) && src.is_char_boundary(end),
            "span {start}..{end} splits a character"
        );
    }
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    let _ = fp.render(&handler);
}
