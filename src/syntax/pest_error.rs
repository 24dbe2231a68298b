//! pest's syntax errors, reworded: "expected X, Y or Z", unterminated strings
//! and blocks named as such.

use super::ast::{Amount, Span, STATEMENTS};
use super::lex::{self, Lexer, Tok};
use super::Rule;
use crate::problem::{Diag, Problem, SyntaxHint};
use pest::error::{ErrorVariant, InputLocation};

/// Converts a pest error into a problem, and the byte offset it points at.
pub fn convert(src: &str, e: &pest::error::Error<Rule>) -> (Problem, usize) {
    let at = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    if let ErrorVariant::CustomError { message } = &e.variant {
        if message.contains("stack limit") {
            let end = at + src[at.min(src.len())..].chars().next().map_or(0, char::len_utf8);
            return (super::build::too_deep(Span::new(at.min(src.len()), end.min(src.len())), b'{'), at);
        }
    }
    if let Some(p) = unterminated_string(src, at) {
        return (p, at);
    }
    let expected = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => describe(positives),
        ErrorVariant::CustomError { message } => message.clone(),
    };
    if at >= src.trim_end().len() {
        if let Some(open) = unclosed_brace(src) {
            return (Diag::UnclosedBlock.at(Span::new(open, open + 1)), at);
        }
    }
    let mut found = found_token(src, at);
    // A no-break or zero-width space where a blank goes: what was expected
    // there is a space, whatever else the grammar lists (`after` after
    // `timeout`, which takes none: fresh-clone helper 67), and what was
    // found that character alone.
    let expected = match found.chars().next() {
        Some(c) if is_odd_space(c) => {
            found = &found[..c.len_utf8()];
            odd_space_expected(c).to_string()
        }
        _ => expected,
    };
    let span = Span::new(at, at + found.len().max(1).min(src.len().saturating_sub(at)));
    let found_desc = if found.is_empty() {
        "the end of the file".to_string()
    } else {
        format!("`{}`", odd_spaces_escaped(&shortened(found)))
    };
    let hint = hint_for(&src[..at.min(src.len())], &expected, found);
    let p = Diag::Syntax {
        expected,
        found: found_desc,
        hint,
    }
    .at(span);
    (p, at)
}

/// The links a `then` or a promise takes (`grammar/loop.pest`'s `link_kind`),
/// and their words without the dot.
const LINKS: [&str; 3] = [".then", ".catch", ".finally"];
const LINK_WORDS: [&str; 3] = ["then", "catch", "finally"];

/// The help line, from the text `before` the error (only its last KiB is
/// looked at: this runs once per error, and the text may be a whole chunk).
fn hint_for(before: &str, expected: &str, found: &str) -> SyntaxHint {
    match found.chars().next() {
        Some(c) if is_odd_space(c) => return SyntaxHint::OddSpace(c),
        Some(c) if c.is_numeric() && !c.is_ascii() => return SyntaxHint::WideDigit(c),
        _ => {}
    }
    let mut from = before.len().saturating_sub(1024);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let before = &before[from..];
    if found.starts_with(lex::TYPOGRAPHIC_QUOTES) || found.starts_with(lex::JS_QUOTES) {
        SyntaxHint::CurlyQuote
    } else if found.starts_with('.') && before.ends_with("Promise") {
        SyntaxHint::PromiseCall
    } else if found.starts_with(';') {
        SyntaxHint::Semicolon
    } else if found.starts_with("/*") {
        SyntaxHint::BlockComment
    } else if found.starts_with('(') && LINKS.iter().any(|l| before.ends_with(l)) {
        // `.then("b")`, `.then(() => …)`.
        SyntaxHint::LinkParen
    } else if found.starts_with('(') {
        SyntaxHint::Paren
    } else if found.starts_with('.') && before.ends_with(|c: char| c.is_ascii_digit()) {
        SyntaxHint::Fraction
    } else if let Some(word) = found
        .strip_prefix('.')
        .map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or(""))
        .filter(|w| expected.contains("`.then`") || LINK_WORDS.contains(w))
    {
        // A misspelt link, or a link after a statement that takes none (`log "a" .then`).
        let close = (!LINK_WORDS.contains(&word))
            .then(|| super::suggest::closest(word, &LINK_WORDS))
            .flatten();
        let suggestion = close.and_then(|s| LINKS.into_iter().find(|l| l[1..] == *s));
        SyntaxHint::Link { suggestion }
    } else if ["{i}", "{n}", "{k}"].iter().any(|p| before.trim_end().ends_with(p)) {
        SyntaxHint::PlaceholderNumber
    } else if found.starts_with('"') && quoted_number(before) {
        SyntaxHint::QuotedNumber
    } else if found.starts_with('"')
        && before
            .trim_end()
            .strip_suffix("throw")
            .is_some_and(|b| !b.bytes().last().is_some_and(lex::is_word_char))
    {
        SyntaxHint::ThrowValue
    } else if found.starts_with('"') && second_string(before) {
        SyntaxHint::SecondString
    } else if found.starts_with('"') {
        SyntaxHint::StrayString
    } else if found.starts_with(|c: char| c.is_ascii_digit()) {
        SyntaxHint::StrayNumber
    } else if found == "}" {
        SyntaxHint::StrayBrace
    } else if expected.contains("string") {
        SyntaxHint::Quote
    } else {
        SyntaxHint::Docs
    }
}

/// Whether `c` looks like a blank (or like nothing) but is none to the
/// grammar, which takes a space or a tab: a no-break space, a typographic or
/// zero-width space, a word joiner; or looks like a line break but is none
/// to the grammar, which takes `\n` and `\r\n` ([`is_odd_line_break`]).
/// Text copied from a web page brings them.
pub(super) fn is_odd_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{2060}' | '\u{3000}' | '\u{feff}'
    ) || is_odd_line_break(c)
}

/// Unicode's line and paragraph separators and the next-line character.
pub(crate) fn is_odd_line_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// What the grammar takes where the odd space `c` is: "a space", or "a
/// space or a line break" for one that looks like a line break.
pub(super) fn odd_space_expected(c: char) -> &'static str {
    if is_odd_line_break(c) {
        "a space or a line break"
    } else {
        "a space"
    }
}

/// `found` with each [`is_odd_space`] character written `\u{a0}`, so that
/// "found …" shows what is there.
pub(super) fn odd_spaces_escaped(found: &str) -> String {
    let mut out = String::with_capacity(found.len());
    for c in found.chars() {
        if is_odd_space(c) {
            crate::term::push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `before` ends with a string on the line of the one found
/// (`log "x" "y"`): a statement given two strings. (A `"` there closes a
/// string: an open one would have taken the one found.)
fn second_string(before: &str) -> bool {
    before.trim_end_matches([' ', '\t']).ends_with('"')
}

/// Whether `before` ends with a keyword that takes a number, then a quoted
/// number (`timeout "5"`): the number was written as a string.
fn quoted_number(before: &str) -> bool {
    let mut words = before.split_whitespace().rev();
    let (Some(last), Some(keyword)) = (words.next(), words.next()) else {
        return false;
    };
    let digits = last.strip_prefix('"').and_then(|l| l.strip_suffix('"'));
    digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        && (["times", "after", "pool", "node"].contains(&keyword)
            || STATEMENTS
                .iter()
                .any(|row| row.name == keyword && matches!(row.amount, Amount::Delay | Amount::Ticks | Amount::Count)))
}

/// The text at `at`, for "found …": the tokens glued to the one there (no
/// blank between them), up to a comment, a brace, a parenthesis or a string
/// after the first; a string there is taken whole when it is closed (its
/// message shows a long one [`shortened`]), else as its quote and the start
/// of its text, read the same way.
fn found_token(src: &str, at: usize) -> &str {
    let at = at.min(src.len());
    let end = glued_end(src, at, true);
    &src[at..end]
}

/// The most characters "found …" shows of what was found: a longer closed
/// string is shown as its start, `…` and its closing quote.
const SHOWN_CHARS: usize = 32;

/// `found` as "found …" shows it (see [`SHOWN_CHARS`]).
fn shortened(found: &str) -> std::borrow::Cow<'_, str> {
    match found.char_indices().nth(SHOWN_CHARS) {
        Some(_) if found.starts_with('"') && found.ends_with('"') => {
            let cut = found.char_indices().nth(SHOWN_CHARS - 2).map_or(found.len(), |(i, _)| i);
            format!("{}…\"", &found[..cut]).into()
        }
        _ => found.into(),
    }
}

/// Where the run of glued tokens from `at` ends (see [`found_token`]).
fn glued_end(src: &str, at: usize, outer: bool) -> usize {
    let mut end = at;
    for token in Lexer::new(src, at) {
        let first = token.start == at;
        match token.kind {
            Tok::Blank | Tok::Newline | Tok::Comment => break,
            Tok::Str { closed: true } if first && outer => return token.end,
            Tok::Str { closed } if first && outer => {
                // Its quote, then its text up to a blank, a quote or a brace;
                // with its closing quote when that is where the text ends.
                let inner = token.start + 1;
                let end = glued_end(&src[..token.end], inner, false).max(inner);
                return if closed && end + 1 == token.end { token.end } else { end };
            }
            Tok::Open | Tok::Close | Tok::LParen | Tok::RParen | Tok::Str { .. } if !first => break,
            _ => end = token.end,
        }
    }
    end
}

/// A `"` that closes nowhere on the line holding `at`, outside comments,
/// means a string was opened and never closed.
fn unterminated_string(src: &str, at: usize) -> Option<Problem> {
    let at = at.min(src.len());
    let line_start = lex::line_start(src, at);
    let line_end = lex::line_end(src, line_start);
    let open = lex::open_quote(&src[line_start..line_end]);
    let start = line_start + open?;
    Some(Diag::UnterminatedString.at(Span::new(start, line_end)))
}

/// The byte offset of the last `{` left open at the end of the file, strings
/// and comments read as the grammar reads them ([`Lexer`]).
fn unclosed_brace(src: &str) -> Option<usize> {
    let mut stack = Vec::new();
    for token in Lexer::new(src, 0) {
        match token.kind {
            Tok::Open => stack.push(token.start),
            Tok::Close => {
                stack.pop();
            }
            _ => {}
        }
    }
    stack.pop()
}

fn describe(rules: &[Rule]) -> String {
    let mut names: Vec<&str> = rules.iter().filter_map(|r| name(*r)).collect();
    names.dedup();
    let mut unique = Vec::new();
    for n in names {
        if !unique.contains(&n) {
            unique.push(n);
        }
    }
    match unique.as_slice() {
        [] => "a statement".into(),
        [one] => (*one).into(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

fn name(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::EOI => "the end of the file",
        Rule::directive | Rule::kw_pool | Rule::kw_module | Rule::kw_title | Rule::kw_rejections | Rule::kw_node => "a directive",
        Rule::log_stmt
        | Rule::work_stmt
        | Rule::clear_stmt
        | Rule::repeat_stmt
        | Rule::again_stmt
        | Rule::callback
        | Rule::callback_kind
        | Rule::unknown
        | Rule::unknown_head
        | Rule::misplaced => "a statement",
        rule if super::build::PROMISE_STATEMENTS.contains(&rule) => "a statement",
        Rule::integer => "a number",
        Rule::string => "a string",
        Rule::body | Rule::open_brace | Rule::skipped_body => "`{`",
        Rule::close_brace => "`}`",
        Rule::after_clause | Rule::kw_after => "`after`",
        Rule::times_clause | Rule::kw_times => "`times`",
        // Named as before `.catch` and `.finally` existed: the messages stay short.
        Rule::link | Rule::link_kind => "`.then`",
        Rule::async_body | Rule::async_mark => "`async`",
        Rule::name | Rule::keyword => "a name",
        Rule::expr | Rule::operand => "a promise expression (`value`, `resolved`, `rejected`, a name, `call NAME`, …)",
        Rule::kw_catch => "`catch`",
        Rule::kw_with => "`with`",
        Rule::assign => "`=`",
        Rule::event_name => "`unhandledRejection` or `rejectionHandled`",
        Rule::list | Rule::open_bracket => "`[`",
        Rule::close_bracket => "`]`",
        Rule::comma => "`,`",
        Rule::end_line => "an expect line",
        Rule::expect_block | Rule::kw_expect | Rule::expect_body => "an expect block",
        Rule::kw_or => "`or`",
        Rule::expect_line | Rule::turn_field | Rule::kw_turn | Rule::at_field | Rule::kw_at | Rule::phase_field => "an expect line",
        Rule::limit_line | Rule::kw_limit => "`limit`",
        Rule::word => "a name",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::found_token;

    #[test]
    fn a_string_is_found_whole_when_closed_and_short() {
        assert_eq!(found_token("\"a b\"\n", 0), "\"a b\"");
        assert_eq!(found_token("\"t{i}\" x", 0), "\"t{i}\"");
        // A long one: whole, shown shortened.
        let long = "\"a log line far longer than the short ones\"\n";
        assert_eq!(found_token(long, 0), long.trim_end());
        assert_eq!(super::shortened(long.trim_end()), "\"a log line far longer than th…\"");
        assert_eq!(super::shortened("\"a b\""), "\"a b\"");
        // After a word, the glued run stops at a string.
        assert_eq!(found_token("x\"a\"", 0), "x");
    }

    /// A zero-width space after a statement is named in the help and shown
    /// escaped in "found …"; a plain word is neither.
    #[test]
    fn an_odd_space_is_named_and_shown() {
        use crate::problem::SyntaxHint;
        assert_eq!(super::hint_for("log \"a\"", "x", "\u{200b}"), SyntaxHint::OddSpace('\u{200b}'));
        assert_eq!(super::odd_spaces_escaped("\u{a0}log"), "\\u{a0}log");
        assert_ne!(super::hint_for("log \"a\" ", "x", "bogus"), SyntaxHint::OddSpace(' '));
        assert_eq!(super::odd_spaces_escaped("log x"), "log x");
    }
}
