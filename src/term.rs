//! Text from a `.loop` file on its way to a terminal: control characters shown
//! as escapes, so that a file cannot move the cursor, clear the screen, retitle
//! the window or reorder what is shown (an ESC, a CR, a C1 control, a
//! bidirectional override). Used by every text output; JSON keeps the real
//! strings, written with `\uXXXX` escapes ([`json_safe`]); SVG and HTML have
//! their own XML escaping.

use std::borrow::Cow;

/// A count with its noun, singular for one: `counted(1, "run")` is "1 run",
/// `counted(2, "run")` "2 runs" (nouns whose plural adds an "s").
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Whether `c` is shown escaped: C0 controls (tab and newline included), DEL,
/// C1 controls (U+0080–U+009F), the line and paragraph separators U+2028 and
/// U+2029 (some viewers break lines there), and the bidirectional formatting
/// characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
pub fn is_escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Appends `c` to `out` as an escape: `\n`, `\t`, `\r`, or `\u{1b}` (lowercase hex).
pub(crate) fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c => {
            use std::fmt::Write as _;
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every character [`is_escaped`] says must not reach a terminal
/// replaced by an escape (`\u{1b}`, `\n`, `\r`, `\t`): one line of text, whatever
/// the file holds. Borrowed when there is nothing to escape.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_but(text, |_| false)
}

/// Like [`escape`], but newlines are kept: for text of several lines put
/// together by loopsim (a report) around texts from a file.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    escape_but(text, |c| c == '\n')
}

/// Like [`escape`], but tabs are kept (for a source line, whose tabs the
/// diagnostic renderer expands to spaces).
pub(crate) fn escape_source(text: &str) -> Cow<'_, str> {
    escape_but(text, |c| c == '\t')
}

fn escape_but(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let Some(first) = text.char_indices().find(|&(_, c)| is_escaped(c) && !keep(c)) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first.0]);
    for c in text[first.0..].chars() {
        if is_escaped(c) && !keep(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// JSON text (as serde_json writes it) with the characters [`is_escaped`]
/// names written as `\uXXXX` escapes: the same strings once parsed, but safe
/// to print. serde_json escapes C0 controls itself; the others (DEL, C1,
/// bidirectional formatting) can only be inside strings, where `\uXXXX` means
/// the same character. The newlines of pretty-printing are kept.
pub fn json_safe(json: String) -> String {
    if !json.chars().any(|c| is_escaped(c) && c != '\n') {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_escaped(c) && c != '\n' {
            use std::fmt::Write as _;
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes `value` as pretty JSON to `out`, as it is built, with the
/// characters [`is_escaped`] names written as `\uXXXX` inside strings (what
/// [`json_safe`] does to a whole text).
///
/// # Errors
/// Whatever writing to `out` fails with.
pub fn write_json<W: std::io::Write, T: serde::Serialize + ?Sized>(out: W, value: &T) -> std::io::Result<()> {
    // In WebAssembly, one serializer for every writer: each type's
    // `Serialize` is compiled once for it, and the page's answers go
    // through it too (size budget, docs/playground.md).
    #[cfg(target_family = "wasm")]
    let mut out = out;
    #[cfg(target_family = "wasm")]
    let out: &mut dyn std::io::Write = &mut out;
    let mut ser = serde_json::Serializer::with_formatter(out, SafeFormatter(serde_json::ser::PrettyFormatter::new()));
    value.serialize(&mut ser).map_err(std::io::Error::from)
}

/// `value` as pretty JSON text, written by [`write_json`].
pub fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing to memory fails only if `Serialize` does (a map with non-text keys).
    write_json(&mut out, value).expect("JSON");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// A [`serde_json::Value`] that serializes as the value itself does, with
/// its numbers written as integers. The JSON loopsim writes holds no
/// fractions, and serializing a `Value` itself compiles in serde_json's
/// float formatting, whose tables (zmij's, 10 KB) were 9 KB of the
/// WebAssembly gzipped (docs/playground.md). A number with a fraction is
/// written as `serde_json` writes it natively, and as `null` in WebAssembly.
pub struct Integers<'a>(pub &'a serde_json::Value);

impl serde::Serialize for Integers<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde_json::Value;
        match self.0 {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => s.serialize_u64(u),
                (None, Some(i)) => s.serialize_i64(i),
                #[cfg(not(target_family = "wasm"))]
                _ => n.serialize(s),
                #[cfg(target_family = "wasm")]
                _ => s.serialize_unit(),
            },
            Value::String(t) => s.serialize_str(t),
            Value::Array(items) => s.collect_seq(items.iter().map(Integers)),
            Value::Object(map) => s.collect_map(map.iter().map(|(k, v)| (k, Integers(v)))),
        }
    }
}

/// serde_json's pretty formatter, escaping [`is_escaped`] characters in strings.
struct SafeFormatter<'a>(serde_json::ser::PrettyFormatter<'a>);

impl serde_json::ser::Formatter for SafeFormatter<'_> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, w: &mut W, fragment: &str) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some((i, c)) = rest.char_indices().find(|&(_, c)| is_escaped(c)) {
            w.write_all(&rest.as_bytes()[..i])?;
            write!(w, "\\u{:04x}", c as u32)?;
            rest = &rest[i + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// `text` cut to at most `max` bytes, ending with `…` when cut: after the
/// last whole word when a space falls within the last [`WORD_BACK`] bytes
/// kept, else at a character boundary (a long word, a label).
pub fn cut(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let bytes = text.as_bytes();
    // The last word kept is whole when a space follows it; else back to the
    // space before it, if near.
    if bytes[end] != b' ' {
        if let Some(space) = bytes[..end].iter().rposition(|&b| b == b' ') {
            if end - space <= WORD_BACK {
                end = space;
            }
        }
    }
    while end > 0 && matches!(bytes[end - 1], b' ' | b',' | b';' | b':') {
        end -= 1;
    }
    let kept = &text[..end];
    Cow::Owned(format!("{kept}…"))
}

/// How far [`cut`] goes back to end on a whole word, in bytes.
pub const WORD_BACK: usize = 40;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_write_a_value_as_serde_json_writes_it() {
        let values = [
            serde_json::json!(null),
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!({ "count": 3, "countExact": true, "cut": null, "orders": [["a", "b"], []], "races": [{}] }),
            serde_json::json!([u64::MAX, i64::MIN, -1, 0, 1.5, -0.25, 1e300]),
            serde_json::json!({ "z": "\"quote\" \\ \n\t\u{1}\u{7f}\u{2028} ünï 😀", "a": [[[]], {"k": {}}] }),
        ];
        for v in values {
            assert_eq!(
                json_text(&Integers(&v)),
                json_safe(serde_json::to_string_pretty(&v).unwrap()),
                "{v}"
            );
        }
    }

    #[test]
    fn a_count_takes_the_plural_but_for_one() {
        assert_eq!(counted(1, "run"), "1 run");
        assert_eq!(counted(0, "file"), "0 files");
        assert_eq!(counted(2, "running program"), "2 running programs");
    }

    #[test]
    fn control_characters_become_escapes() {
        assert_eq!(escape("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(escape("x\r\ny\tz"), "x\\r\\ny\\tz");
        assert_eq!(escape("c1 \u{9b} del \u{7f}"), "c1 \\u{9b} del \\u{7f}");
        assert_eq!(escape("bidi \u{202e}x\u{2066}"), "bidi \\u{202e}x\\u{2066}");
        assert_eq!(escape("plain, кириллица, 漢字 ✓"), "plain, кириллица, 漢字 ✓");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn variants_keep_newlines_or_tabs() {
        assert_eq!(escape_lines("a\u{1b}\nb\t"), "a\\u{1b}\nb\\t");
        assert_eq!(escape_source("\ta\u{85}\n"), "\ta\\u{85}\\n");
    }

    #[test]
    fn json_keeps_the_string_and_escapes_what_a_terminal_would_obey() {
        let text = "a\u{1b}b\u{9b}c\u{7f}d\u{202e}e\n";
        let json = json_safe(serde_json::to_string_pretty(&[text]).unwrap());
        assert_eq!(json, "[\n  \"a\\u001bb\\u009bc\\u007fd\\u202ee\\n\"\n]");
        assert_eq!(serde_json::from_str::<Vec<String>>(&json).unwrap(), [text]);
    }

    #[test]
    fn cut_keeps_characters_whole() {
        assert_eq!(cut("abcdef", 6), "abcdef");
        assert_eq!(cut("abcdefgh", 6), "abc…");
        assert_eq!(cut("ééééé", 6), "é…");
    }

    #[test]
    fn cut_ends_on_a_whole_word_when_one_ends_near() {
        assert_eq!(cut("delete this line and those after it", 20), "delete this line…");
        assert_eq!(cut("one, two, three", 12), "one, two…");
        // A word that ends exactly where the cut falls is whole.
        assert_eq!(cut("abc defg hij", 11), "abc defg…");
        // No space near: a long word is cut inside.
        let long = format!("a {}", "x".repeat(100));
        assert_eq!(cut(&long, 50), format!("a {}…", "x".repeat(45)));
    }
}
