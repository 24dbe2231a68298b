//! A small JavaScript tokenizer for the emit-js safety suites
//! (`tests/emit_safety.rs`, `tests/emit_promises.rs`): it splits an emitted
//! program into code, comments, string and template literals, to find where a
//! hostile text from the file went.

/// The pieces of a JavaScript source.
#[derive(Debug, Default)]
pub struct Pieces {
    /// Code outside comments and literals (template substitutions included).
    pub code: String,
    /// `//` and `/* */` comments.
    pub comments: Vec<String>,
    /// `'…'` and `"…"` literals, decoded.
    pub strings: Vec<String>,
    /// The literal text of template literals, as written.
    pub templates: Vec<String>,
}

/// JavaScript's line terminators (a `//` comment ends at any of them).
fn line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// Splits `js` into [`Pieces`]. Enough JavaScript for the emitted programs:
/// they have no regular-expression literals.
pub fn tokenize(js: &str) -> Pieces {
    let chars: Vec<char> = js.chars().collect();
    let mut pieces = Pieces::default();
    let end = code(&chars, 0, false, &mut pieces);
    assert_eq!(end, chars.len(), "unbalanced `}}` at char {end}");
    pieces
}

/// Code from `at` to the end, or (`in_template`) to the `}` closing a `${`.
fn code(c: &[char], mut at: usize, in_template: bool, out: &mut Pieces) -> usize {
    let mut depth = 0usize;
    while at < c.len() {
        match c[at] {
            '/' if c.get(at + 1) == Some(&'/') => {
                let start = at;
                while at < c.len() && !line_terminator(c[at]) {
                    at += 1;
                }
                out.comments.push(c[start..at].iter().collect());
            }
            '/' if c.get(at + 1) == Some(&'*') => {
                let start = at;
                at += 2;
                while at + 1 < c.len() && !(c[at] == '*' && c[at + 1] == '/') {
                    at += 1;
                }
                assert!(at + 1 < c.len(), "unterminated /* comment at char {start}");
                at += 2;
                out.comments.push(c[start..at].iter().collect());
            }
            q @ ('\'' | '"') => at = string(c, at + 1, q, out),
            '`' => at = template(c, at + 1, out),
            '{' => {
                depth += 1;
                out.code.push('{');
                at += 1;
            }
            '}' if in_template && depth == 0 => return at + 1,
            '}' => {
                depth = depth.checked_sub(1).expect("balanced braces");
                out.code.push('}');
                at += 1;
            }
            ch => {
                out.code.push(ch);
                at += 1;
            }
        }
    }
    assert!(!in_template, "unterminated ${{ … }}");
    at
}

/// A string literal from after its opening quote; returns the index after it.
fn string(c: &[char], mut at: usize, quote: char, out: &mut Pieces) -> usize {
    let start = at;
    let mut units: Vec<u16> = Vec::new();
    let hex = |s: &[char]| u32::from_str_radix(&s.iter().collect::<String>(), 16).expect("hex digits");
    loop {
        let ch = *c.get(at).unwrap_or_else(|| panic!("unterminated string at char {start}"));
        assert!(!matches!(ch, '\n' | '\r'), "a raw line break in the string literal at char {start}");
        at += 1;
        match ch {
            q if q == quote => break,
            '\\' => {
                let e = c[at];
                at += 1;
                let decoded = match e {
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'v' => '\u{b}',
                    '0' => '\0',
                    'x' => {
                        at += 2;
                        char::from_u32(hex(&c[at - 2..at])).unwrap()
                    }
                    'u' if c[at] == '{' => {
                        let close = at + c[at..].iter().position(|&x| x == '}').unwrap();
                        let v = hex(&c[at + 1..close]);
                        at = close + 1;
                        let mut buf = [0u16; 2];
                        units.extend_from_slice(char::from_u32(v).unwrap().encode_utf16(&mut buf));
                        continue;
                    }
                    'u' => {
                        at += 4;
                        units.push(hex(&c[at - 4..at]) as u16);
                        continue;
                    }
                    other => {
                        assert!(!line_terminator(other), "a line continuation in a string");
                        other
                    }
                };
                let mut buf = [0u16; 2];
                units.extend_from_slice(decoded.encode_utf16(&mut buf));
            }
            ch => {
                let mut buf = [0u16; 2];
                units.extend_from_slice(ch.encode_utf16(&mut buf));
            }
        }
    }
    out.strings.push(String::from_utf16(&units).expect("no lone surrogates"));
    at
}

/// A template literal from after its backtick; returns the index after it.
fn template(c: &[char], mut at: usize, out: &mut Pieces) -> usize {
    let mut text = String::new();
    loop {
        match *c.get(at).expect("unterminated template literal") {
            '`' => break,
            '\\' => {
                text.extend(&c[at..at + 2]);
                at += 2;
            }
            '$' if c.get(at + 1) == Some(&'{') => at = code(c, at + 2, true, out),
            ch => {
                text.push(ch);
                at += 1;
            }
        }
    }
    out.templates.push(text);
    at + 1
}

/// Where `PWN` (which starts the payload) occurs in `js` outside string literals.
pub fn outside_strings(js: &str) -> Vec<String> {
    let pieces = tokenize(js);
    let mut found = Vec::new();
    if pieces.code.contains("PWN") {
        found.push(format!("code: {}", pieces.code));
    }
    for comment in pieces.comments.iter().filter(|c| c.contains("PWN")) {
        found.push(format!("comment: {comment}"));
    }
    for template in pieces.templates.iter().filter(|t| t.contains("PWN")) {
        found.push(format!("template literal: {template}"));
    }
    found
}
