//! Problems as JSON: `run --format json` of a file that cannot run, and the
//! playground's diagnostics (web/wasm). Offsets and columns count UTF-16
//! code units, as JavaScript string indices and editors' positions do;
//! lines and columns are 1-based.

use super::Problem;
use crate::syntax::ast::Span;
use serde::Serialize;

/// One problem: what it is and the places it labels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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
#[cfg(test)]
fn position(src: &str, byte: usize) -> (usize, usize, usize) {
    Cursor::new(src).at(byte)
}

/// The UTF-16 offsets, lines and columns of byte offsets of a text, read
/// forward from the last one asked (one asked before it reads from the
/// start): a file's problems, in source order, are placed in one pass over
/// it, not one pass per label.
struct Cursor<'s> {
    src: &'s str,
    /// Where it stands: the byte offset, its UTF-16 offset and line, and the
    /// UTF-16 offset of that line's start.
    byte: usize,
    utf16: usize,
    line: usize,
    line_utf16: usize,
}

impl<'s> Cursor<'s> {
    fn new(src: &'s str) -> Self {
        Cursor {
            src,
            byte: 0,
            utf16: 0,
            line: 1,
            // A leading byte-order mark is no column: editors hide it.
            line_utf16: usize::from(src.starts_with('\u{feff}')),
        }
    }

    /// (UTF-16 offset, line, column) of byte offset `byte`, on a char
    /// boundary at or before it.
    fn at(&mut self, byte: usize) -> (usize, usize, usize) {
        let mut to = byte.min(self.src.len());
        while !self.src.is_char_boundary(to) {
            to -= 1;
        }
        if to < self.byte {
            *self = Cursor::new(self.src);
        }
        for c in self.src[self.byte..to].chars() {
            self.utf16 += c.len_utf16();
            if c == '\n' {
                self.line += 1;
                self.line_utf16 = self.utf16;
            }
        }
        self.byte = to;
        (self.utf16, self.line, self.utf16.saturating_sub(self.line_utf16) + 1)
    }
}

/// `problems` as JSON, their spans placed in `src` (the text they point
/// into) by one [`Cursor`].
pub fn problems(src: &str, problems: &[Problem]) -> Vec<JsonProblem> {
    let mut cursor = Cursor::new(src);
    problems.iter().map(|p| p.placed(&mut cursor)).collect()
}

impl Problem {
    /// This problem as JSON, its spans placed in `src` (the text it points into).
    pub fn json(&self, src: &str) -> JsonProblem {
        self.placed(&mut Cursor::new(src))
    }

    fn placed(&self, cursor: &mut Cursor) -> JsonProblem {
        let mut label = |span: Span, text: &str| {
            let (start, line, column) = cursor.at(span.start());
            let (end, _, _) = cursor.at(span.end());
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
        // A byte-order mark is an offset (JavaScript's text of the file keeps
        // it) but no column (editors hide it); on line 1 only.
        let bom = "\u{feff}timeout x\nlog x\n";
        assert_eq!(position(bom, bom.find('x').unwrap()), (9, 1, 9));
        assert_eq!(position(bom, 0), (0, 1, 1));
        assert_eq!(position(bom, bom.rfind('x').unwrap()), (15, 2, 5));
    }

    /// Problems in any order, labels on several lines, one pass: each label
    /// where it is.
    #[test]
    fn every_label_of_every_problem_is_placed() {
        let src = "a\n\u{e9}b\n\ncd\u{1d11e}e\n";
        let at = |s: &str| src.find(s).unwrap();
        let span = |s: &str| Span::new(at(s), at(s) + s.len());
        let mut second = Problem::error("loop::syntax", span("cd"), "m", "");
        second.secondary.push((span("a"), "first".into()));
        let problems = [
            Problem::error("loop::syntax", span("e\n"), "m", "e"),
            second,
            Problem::error("loop::syntax", span("b"), "m", "b"),
        ];
        let json = super::problems(src, &problems);
        let places = |j: &super::JsonProblem| j.labels.iter().map(|l| (l.start, l.end, l.line, l.column)).collect::<Vec<_>>();
        // Line 4 starts at unit 6; "e" after "cd" and a 2-unit character.
        assert_eq!(places(&json[0]), [(10, 12, 4, 5)]);
        assert_eq!(places(&json[1]), [(6, 8, 4, 1), (0, 1, 1, 1)]);
        assert_eq!(places(&json[2]), [(3, 4, 2, 2)]);
        assert_eq!(json[1].labels[0].text, None);
        assert_eq!(json[1].labels[1].text.as_deref(), Some("first"));
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
