//! The token layer: every pass that reads the text outside pest (chunking,
//! the depth and size limits, error recovery, "found …" and help lines) reads
//! it through [`Lexer`], so that they all agree with the grammar
//! (`grammar/loop.pest`) on what a string, a comment, a word and a number are.
//!
//! The grammar's rules it follows:
//! - a string (`string_any`, `string`) is `"` then characters up to the next
//!   unescaped `"` on the same line; `\` escapes the character after it, but
//!   never a newline: a string does not go on past its line. A `"` that
//!   closes nowhere on its line is one [`Tok::Str`] token of one byte with
//!   `closed: false`, and the rest of the line is read as other tokens (as
//!   `unknown_head` and `skipped_body` read it: a plain character);
//! - a comment (`comment`, `line_comment`) is `#` or `//` outside a string, to
//!   the end of its line;
//! - blanks (`WHITESPACE`) are spaces, tabs, carriage returns and byte order
//!   marks; a newline is its own token;
//! - a word is `ident_start ident_char*`; a number `-`? then a digit, then
//!   word characters (the grammar's `integer` takes it only if they are all
//!   digits: the builder says so).

/// What a [`Token`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// `ident_start ident_char*`: a keyword or a name.
    Word,
    /// `-`? digit word-character*: a number (well formed if all digits).
    Number,
    /// A string: `"…"` with its quotes (`closed`), or a lone `"` that closes
    /// nowhere on its line (not `closed`, one byte).
    Str { closed: bool },
    /// `{`
    Open,
    /// `}`
    Close,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `.`
    Dot,
    /// `#` or `//` to the end of the line (the newline not included).
    Comment,
    /// `\n`
    Newline,
    /// A run of spaces, tabs, carriage returns and byte order marks.
    Blank,
    /// Any other character (one token per character).
    Other,
}

/// A token: its kind and its byte range `start..end` in the text lexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: usize,
    pub end: usize,
}

impl Token {
    /// The text it covers in `src` (the text it was lexed from).
    pub fn text(self, src: &str) -> &str {
        &src[self.start..self.end]
    }

    /// Whether it is blank to the grammar: blanks, newlines and comments.
    pub fn is_trivia(self) -> bool {
        matches!(self.kind, Tok::Blank | Tok::Newline | Tok::Comment)
    }
}

/// The tokens of a text, in order, from a byte offset. Takes time linear in
/// the length of the text; never fails (every byte is in some token).
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    src: &'a str,
    at: usize,
}

impl<'a> Lexer<'a> {
    /// The tokens of `src` from byte `from` (a character boundary; the text
    /// before it is not looked at: `from` should start a token).
    pub fn new(src: &'a str, from: usize) -> Self {
        Lexer {
            src,
            at: from.min(src.len()),
        }
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        self.next_token()
    }
}

impl Lexer<'_> {
    /// [`Iterator::next`], inlined where it is called: the chunk scan
    /// ([`super::chunk::scan`]) reads every token of a large file with it.
    #[inline(always)]
    pub fn next_token(&mut self) -> Option<Token> {
        let bytes = self.src.as_bytes();
        let start = self.at;
        let &b = bytes.get(start)?;
        let (kind, end) = match b {
            b'\n' => (Tok::Newline, start + 1),
            b'#' => (Tok::Comment, line_end(self.src, start)),
            b'/' if bytes.get(start + 1) == Some(&b'/') => (Tok::Comment, line_end(self.src, start)),
            b'"' => match string_end(bytes, start) {
                Some(end) => (Tok::Str { closed: true }, end),
                None => (Tok::Str { closed: false }, start + 1),
            },
            b'{' => (Tok::Open, start + 1),
            b'}' => (Tok::Close, start + 1),
            b'(' => (Tok::LParen, start + 1),
            b')' => (Tok::RParen, start + 1),
            b'.' => (Tok::Dot, start + 1),
            b' ' | b'\t' | b'\r' | 0xEF => match blank_end(bytes, start) {
                end if end > start => (Tok::Blank, end),
                _ => (Tok::Other, start + 3),
            },
            b'-' if bytes.get(start + 1).is_some_and(u8::is_ascii_digit) => (Tok::Number, word_end(bytes, start + 1)),
            b'0'..=b'9' => (Tok::Number, word_end(bytes, start)),
            b if is_word_start(b) => (Tok::Word, word_end(bytes, start)),
            _ => {
                let len = self.src[start..].chars().next().map_or(1, char::len_utf8);
                (Tok::Other, start + len)
            }
        };
        self.at = end;
        Some(Token { kind, start, end })
    }
}

/// The byte order mark, U+FEFF, in UTF-8: a blank to the grammar.
const BOM: &[u8] = "\u{FEFF}".as_bytes();

/// Where the run of blanks starting at `i` ends (`i` if there is none: a
/// byte 0xEF that does not start a byte order mark).
fn blank_end(bytes: &[u8], mut i: usize) -> usize {
    loop {
        match bytes.get(i) {
            Some(b' ' | b'\t' | b'\r') => i += 1,
            Some(0xEF) if bytes[i..].starts_with(BOM) => i += BOM.len(),
            _ => return i,
        }
    }
}

/// The end of the string opened by the `"` at `i` (one past its closing
/// `"`), or `None` if it closes nowhere on its line (`string_any`).
fn string_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while let Some(&b) = bytes.get(j) {
        match b {
            b'"' => return Some(j + 1),
            b'\n' => return None,
            b'\\' if bytes.get(j + 1).is_some_and(|&n| n != b'\n') => j += 2,
            _ => j += 1,
        }
    }
    None
}

/// Whether `b` may start a word (`ident_start`).
pub fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}

/// Whether `b` may go on a word (`ident_char`).
pub fn is_word_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Where the word starting at byte `i` ends (the first byte after it).
pub fn word_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..].iter().position(|&b| !is_word_char(b)).map_or(bytes.len(), |n| i + n)
}

/// Typographic quotes (pasted from a document): they make no string.
pub const TYPOGRAPHIC_QUOTES: [char; 5] = ['“', '”', '‘', '’', '„'];

/// JavaScript's other string quotes, which make no string either.
pub const JS_QUOTES: [char; 2] = ['\'', '`'];

/// Whether `text` has quotes that make no string: typographic ones, or
/// single quotes or backticks with no double quote.
pub fn wrong_quotes(text: &str) -> bool {
    text.contains(TYPOGRAPHIC_QUOTES) || (text.contains(JS_QUOTES) && !text.contains('"'))
}

/// The start of the line holding byte `at` (clamped to the text).
pub fn line_start(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// The newline ending the line holding byte `at`, or the end of the text.
pub fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| at + i)
}

/// The offset in `text` of the first `"` that closes nowhere on its line,
/// outside comments: where an unterminated string starts.
pub fn open_quote(text: &str) -> Option<usize> {
    Lexer::new(text, 0).find(|t| t.kind == Tok::Str { closed: false }).map(|t| t.start)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, &str)> {
        Lexer::new(src, 0).map(|t| (t.kind, t.text(src))).collect()
    }

    #[test]
    fn every_kind_of_token() {
        use Tok::*;
        assert_eq!(
            kinds("timeout -5 \"a\\\"b\" { x.then(1) } # c\n// d\n7ab é"),
            vec![
                (Word, "timeout"),
                (Blank, " "),
                (Number, "-5"),
                (Blank, " "),
                (Str { closed: true }, "\"a\\\"b\""),
                (Blank, " "),
                (Open, "{"),
                (Blank, " "),
                (Word, "x"),
                (Dot, "."),
                (Word, "then"),
                (LParen, "("),
                (Number, "1"),
                (RParen, ")"),
                (Blank, " "),
                (Close, "}"),
                (Blank, " "),
                (Comment, "# c"),
                (Newline, "\n"),
                (Comment, "// d"),
                (Newline, "\n"),
                (Number, "7ab"),
                (Blank, " "),
                (Other, "é"),
            ]
        );
        assert_eq!(kinds("\u{FEFF} \r\t-"), vec![(Blank, "\u{FEFF} \r\t"), (Other, "-")]);
        assert_eq!(kinds("\u{FEFE}"), vec![(Other, "\u{FEFE}")]);
    }

    #[test]
    fn strings_end_with_their_line_as_string_any_does() {
        use Tok::*;
        // A string that closes nowhere is a lone quote; the rest is read on.
        assert_eq!(
            kinds("\"a {\n}"),
            vec![
                (Str { closed: false }, "\""),
                (Word, "a"),
                (Blank, " "),
                (Open, "{"),
                (Newline, "\n"),
                (Close, "}")
            ]
        );
        // A `\` before a newline escapes nothing: the string ends unclosed.
        assert_eq!(kinds("\"a\\\n\"")[0], (Str { closed: false }, "\""));
        // `#` inside a string is text, outside it a comment.
        assert_eq!(kinds("\"#\" #\"")[2], (Comment, "#\""));
        assert_eq!(kinds("\"a\\"), vec![(Str { closed: false }, "\""), (Word, "a"), (Other, "\\")]);
    }

    #[test]
    fn lines_and_quotes() {
        let text = "log \"a\"\nx \"b\n";
        assert_eq!((line_start(text, 10), line_end(text, 10)), (8, 12));
        assert_eq!((line_start(text, 99), line_end(text, 0)), (13, 7));
        assert_eq!(open_quote("x \"b"), Some(2));
        assert_eq!(open_quote("x \"b\\\"\""), None);
        assert_eq!(open_quote("x # \"b"), None);
        assert_eq!(open_quote("x // \"b"), None);
        assert_eq!(open_quote("x \"a\" \"b # c"), Some(6));
        assert_eq!(word_end(b"ab_1$ c", 0), 5);
    }
}
