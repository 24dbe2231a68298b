//! Lexical helpers shared by the passes that read the text again outside
//! pest (chunking, error recovery, help lines): what a word character is,
//! where a line starts and ends, where a string opened on a line is left
//! unclosed. The grammar's rules they follow: `ident_char`, `string_any`,
//! `COMMENT` in `grammar/loop.pest`.

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

/// The offset in `text` of a `"` that opens a string never closed (a `\`
/// escapes the character after it). With `comments`, a `#` or `//` outside a
/// string ends the text to look at.
pub fn open_quote(text: &str, comments: bool) -> Option<usize> {
    let mut open = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match (c, open, escaped) {
            (_, Some(_), true) => escaped = false,
            ('\\', Some(_), false) => escaped = true,
            ('"', Some(_), false) => open = None,
            ('"', None, _) => open = Some(i),
            ('#', None, _) if comments => break,
            ('/', None, _) if comments && text[i + 1..].starts_with('/') => break,
            _ => {}
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_quotes() {
        let text = "log \"a\"\nx \"b\n";
        assert_eq!((line_start(text, 10), line_end(text, 10)), (8, 12));
        assert_eq!((line_start(text, 99), line_end(text, 0)), (13, 7));
        assert_eq!(open_quote("x \"b", true), Some(2));
        assert_eq!(open_quote("x \"b\\\"\"", true), None);
        assert_eq!(open_quote("x # \"b", true), None);
        assert_eq!(open_quote("x # \"b", false), Some(4));
        assert_eq!(open_quote("x // \"b", true), None);
        assert_eq!(word_end(b"ab_1$ c", 0), 5);
    }
}
