//! Problems as JSON: `run --format json` of a file that cannot run, and the
//! playground's diagnostics (web/wasm). Offsets and columns count UTF-16
//! code units, as JavaScript string indices and editors' positions do;
//! lines and columns are 1-based.

use super::Problem;
use crate::syntax::ast::Span;
use serde::Serialize;

/// One problem: what it is and the places it labels.
#[derive(Debug, Serialize)]
pub struct JsonProblem {
    /// `"error"` or `"warning"`.
    pub severity: &'static str,
    /// The stable code, `loop::…`.
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
    /// The main label first, then the others.
    pub labels: Vec<JsonLabel>,
}

/// A labelled place in the source.
#[derive(Debug, Serialize)]
pub struct JsonLabel {
    /// Offset of its first character, in UTF-16 code units.
    pub start: usize,
    /// Offset just past its last character, in UTF-16 code units.
    pub end: usize,
    /// 1-based line of `start`.
    pub line: usize,
    /// 1-based column of `start`, in UTF-16 code units.
    pub column: usize,
    pub text: Option<String>,
}

/// Byte offset → (UTF-16 offset, line, column), on a char boundary at or before it.
fn position(src: &str, byte: usize) -> (usize, usize, usize) {
    let mut byte = byte.min(src.len());
    while !src.is_char_boundary(byte) {
        byte -= 1;
    }
    let before = &src[..byte];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let utf16 = before.encode_utf16().count();
    let column = src[line_start..byte].encode_utf16().count() + 1;
    (utf16, before.matches('\n').count() + 1, column)
}

impl Problem {
    /// This problem as JSON, its spans placed in `src` (the text it points into).
    pub fn json(&self, src: &str) -> JsonProblem {
        let label = |span: Span, text: &str| {
            let (start, line, column) = position(src, span.start());
            let (end, _, _) = position(src, span.end());
            JsonLabel {
                start,
                end,
                line,
                column,
                text: (!text.is_empty()).then(|| text.to_string()),
            }
        };
        let mut labels = vec![label(self.span, &self.label)];
        labels.extend(self.secondary.iter().map(|(span, text)| label(*span, text)));
        JsonProblem {
            severity: if self.warning { "warning" } else { "error" },
            code: self.code,
            message: self.message.clone(),
            help: self.help.clone(),
            labels,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::position;
    use crate::problem::Problem;
    use crate::syntax::ast::Span;

    #[test]
    fn positions_count_utf16_units() {
        let src = "# é\ntimeout 1 \"😀\"\n";
        assert_eq!(position(src, 0), (0, 1, 1));
        let at = src.find("timeout").unwrap();
        assert_eq!(position(src, at), (4, 2, 1));
        let emoji = src.find('😀').unwrap();
        // 4 + 11 units before the emoji, which is 2 units (4 bytes): column 11 + 2 + 1.
        assert_eq!(position(src, emoji + 4), (17, 2, 14));
        // Inside a character: its start.
        assert_eq!(position(src, emoji + 1), (15, 2, 12));
    }

    #[test]
    fn positions_count_utf16_code_units_and_lines_from_one() {
        // "é" is 2 bytes and 1 UTF-16 unit; "𝄞" is 4 bytes and 2 units.
        let src = "log \"é\"\nlog \"𝄞\" bad\n";
        let at = src.find("bad").unwrap();
        let p = Problem::error("loop::syntax", Span::new(at, at + 3), "m", "here");
        let j = p.json(src);
        assert_eq!((j.severity, j.code), ("error", "loop::syntax"));
        let l = &j.labels[0];
        assert_eq!((l.line, l.column), (2, 10));
        assert_eq!((l.start, l.end), (17, 20));
        assert_eq!(l.text.as_deref(), Some("here"));
    }
}
