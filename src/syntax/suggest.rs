//! "Did you mean …?": keyword suggestions by edit distance, and the `.loop`
//! statement for a JavaScript call pasted into a file.

use super::ast::{PROMISE_STATEMENTS, STATEMENTS};

/// Words that start a top-level item other than a statement: the directives
/// and `expect`.
pub const OTHER_ITEMS: [&str; 6] = ["pool", "module", "title", "node", "rejections", "expect"];

/// The words an item may start with, in the order [`closest`] prefers them
/// on a tie: the statements without a callback (`log`, `work`, `clear`,
/// `repeat`, `again`), the callback kinds, the promise language's statements
/// ([`PROMISE_STATEMENTS`]), then [`OTHER_ITEMS`].
pub fn items() -> Vec<&'static str> {
    let plain = STATEMENTS.iter().filter(|row| row.kind.is_none());
    let callbacks = STATEMENTS.iter().filter(|row| row.kind.is_some());
    plain
        .chain(callbacks)
        .map(|row| row.name)
        .chain(PROMISE_STATEMENTS.iter().map(|(name, _)| *name))
        .chain(OTHER_ITEMS)
        .collect()
}

/// Every statement keyword, as docs/language.md lists them (the event-loop
/// statements, then the promise language's), joined with `, `.
pub fn keywords() -> String {
    STATEMENTS
        .iter()
        .map(|row| row.name)
        .chain(PROMISE_STATEMENTS.iter().map(|(name, _)| *name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The closest of `candidates` to `word` (case-insensitive edit distance at
/// most a third of its length, at least 1), if any. The distance is strsim's
/// optimal string alignment (Levenshtein's, with a swap of two neighbours one
/// edit): as good for misspelt keywords as the full Damerau–Levenshtein
/// distance, whose alphabet map cost 0.7 KB of the WebAssembly, gzipped. A candidate whose length
/// is too far from the word's to be that close is not compared (the distance
/// takes time and memory proportional to the product of the lengths).
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = lowercase_for_ascii(word);
    let limit = (word.chars().count() / 3).max(1);
    let length = lower.chars().count();
    candidates
        .iter()
        .map(|c| (lowercase_for_ascii(c), *c))
        .filter(|(l, _)| l.chars().count().abs_diff(length) <= limit)
        .map(|(l, c)| (strsim::osa_distance(&lower, &l), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// `word` lowercased as far as comparing it with ASCII words (every candidate
/// of [`closest`]: keywords, names) can tell: what `str::to_lowercase` gives
/// but for non-ASCII characters whose lowercase holds no ASCII character,
/// which are kept (they match no candidate's character either way). Unicode's
/// case tables would be about 8 KB of the WebAssembly module, gzipped.
fn lowercase_for_ascii(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    for c in word.chars() {
        match c {
            // KELVIN SIGN and LATIN CAPITAL LETTER I WITH DOT ABOVE: the two
            // non-ASCII characters whose lowercase holds an ASCII letter.
            '\u{212A}' => out.push('k'),
            '\u{130}' => out.push_str("i\u{307}"),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// What a line of JavaScript (Node.js) is written as in `.loop`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    /// The JavaScript the line starts with, as the table names it
    /// (`setTimeout`, `new Promise`, `Promise.all`).
    pub js: &'static str,
    /// The `.loop` form, e.g. `timeout DELAY "label" { … }`; empty when
    /// there is none (`if`), and the note says what to write instead.
    pub form: &'static str,
    /// What else to know, or empty.
    pub note: &'static str,
}

/// The `.loop` statement for a line that starts with a JavaScript (Node.js)
/// API call or keyword, e.g. `setTimeout(…)` → `timeout DELAY "label" { … }`.
/// `head` is the line from its first word on; a name matches when what follows
/// it cannot go on the name (`for (` and `for(` match, `format` does not). The
/// longer names come first (`Promise.all` before `Promise`, `fs.readFile`
/// before `fs`).
pub fn javascript(head: &str) -> Option<Translation> {
    let row = |js, form, note| Translation { js, form, note };
    let table: [Translation; 28] = [
        row("setTimeout", "timeout DELAY \"label\" { … }", ""),
        row("setInterval", "interval DELAY \"label\" times N { … }", ""),
        row("setImmediate", "immediate \"label\" { … }", ""),
        row("process.nextTick", "nextTick \"label\" { … }", ""),
        row("queueMicrotask", "microtask \"label\" { … }", ""),
        row("Promise.resolve().then", "then \"a\" { … } .then \"b\" { … }", ""),
        row(
            "Promise.allSettled",
            "await allSettled [a, b]",
            "or `chain allSettled [a, b]`; each element is a promise NAME or an expression",
        ),
        row(
            "Promise.all",
            "await all [a, b]",
            "or `chain all [a, b]`; each element is a promise NAME or an expression",
        ),
        row("Promise.any", "await any [a, b]", "or `chain any [a, b]`"),
        row("Promise.race", "await race [a, b]", "or `chain race [a, b]`"),
        row(
            "new Promise",
            "promise NAME { … resolve }",
            "where the block is the executor and `resolve` or `reject` in it settles the promise",
        ),
        row(
            "Promise",
            "then \"label\" { … }",
            "or `promise NAME = resolved` for a promise to await",
        ),
        row("async function", "async NAME { … }", "and `call NAME` where JavaScript calls it"),
        row(
            "function",
            "async NAME { … }",
            "for an async function, with `call NAME`; a plain function's statements go where it is called",
        ),
        row("const", "promise NAME = EXPR", VARIABLE_NOTE),
        row("let", "promise NAME = EXPR", VARIABLE_NOTE),
        row("clearTimeout", "clear \"label\"", ""),
        row("clearInterval", "clear \"label\"", ""),
        row("clearImmediate", "clear \"label\"", ""),
        row("console.log", "log \"text\"", ""),
        row("fs.readFile", "readFile \"label\" { … }", ""),
        row("fs.writeFile", "writeFile \"label\" { … }", ""),
        row("fs", "submit \"fs call\" TICKS { … }", ""),
        row("crypto", "submit \"pbkdf2\" TICKS { … }", ""),
        row("for", "repeat N { … }", ""),
        row("while", "repeat N { … }", ""),
        row("if", "", NO_CONDITIONS),
        row("switch", "", NO_CONDITIONS),
    ];
    let found = table.into_iter().find(|t| {
        head.strip_prefix(t.js)
            .is_some_and(|rest| !rest.bytes().next().is_some_and(super::lex::is_word_char))
    })?;
    // `new Promise(r => setTimeout(r, 10))` is a sleep: `await timeout 10`.
    if found.js == "new Promise" && head.contains("setTimeout") {
        return Some(row("new Promise", "await timeout N", "in an async body: a sleep of N ticks"));
    }
    Some(found)
}

/// What a JavaScript promise expression is written as after `promise NAME =`,
/// `await` or `chain` (a macro, for `concat!`).
macro_rules! promise_expressions {
    () => {
        "`resolved` for `Promise.resolve()`, `rejected` for `Promise.reject()`, `all [a, b]` for \
         `Promise.all([a, b])` (`allSettled`, `any`, `race` alike), `promise { … }` for `new Promise(…)`, or another \
         promise's NAME"
    };
}

/// The JavaScript promise expressions and their .loop forms, as a help line's clause.
pub const PROMISE_EXPRESSIONS: &str = promise_expressions!();

/// The note of `if` and `switch`, which have no `.loop` form.
const NO_CONDITIONS: &str = "a .loop file has no conditions: write the statements of the branch the program takes";

/// The note of `const` and `let`.
const VARIABLE_NOTE: &str = concat!("where EXPR is ", promise_expressions!(), "; other variables have no .loop form");

/// The form of a statement or directive, for "malformed statement" help lines.
pub fn form(keyword: &str) -> Option<&'static str> {
    if let Some(row) = STATEMENTS.iter().find(|row| row.name == keyword) {
        return Some(row.usage);
    }
    if let Some((_, usage)) = super::ast::PROMISE_STATEMENTS.iter().find(|(name, _)| *name == keyword) {
        return Some(usage);
    }
    Some(match keyword {
        "pool" => "pool N, at the top of the file",
        "module" => "module cjs | module esm, at the top of the file",
        "title" => "title \"name\", at the top of the file",
        "expect" => "expect { [turn N] [at T] [PHASE] \"text\" … }",
        "rejections" => "rejections throw | rejections warn, at the top of the file",
        "node" => "node 26 | node 24 | node 22 | node 20 | node 10, at the top of the file",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_keep_the_order_suggestions_always_had() {
        assert_eq!(
            items(),
            [
                "log",
                "work",
                "clear",
                "repeat",
                "again",
                "timeout",
                "interval",
                "immediate",
                "nextTick",
                "microtask",
                "then",
                "io",
                "submit",
                "close",
                "pending",
                "readFile",
                "writeFile",
                "async",
                "call",
                "await",
                "promise",
                "chain",
                "resolve",
                "reject",
                "return",
                "throw",
                "try",
                "on",
                "pool",
                "module",
                "title",
                "node",
                "rejections",
                "expect"
            ]
        );
        assert_eq!(
            keywords(),
            "log, work, timeout, interval, immediate, nextTick, microtask, then, io, submit, close, pending, readFile, writeFile, clear, repeat, again, \
             async, call, await, promise, chain, resolve, reject, return, throw, try, on"
        );
        // The promise language's keywords and the directives are suggested too.
        assert_eq!(closest("asyn", &items()), Some("async"));
        assert_eq!(closest("NEXTTIC\u{212A}", &items()), Some("nextTick"));
        assert_eq!(closest("promis", &items()), Some("promise"));
        assert_eq!(closest("chian", &items()), Some("chain"));
        assert_eq!(closest("rejection", &items()), Some("rejections"));
        // On a tie the earlier candidate wins.
        assert_eq!(closest("clease", &items()), Some("clear"));
    }

    #[test]
    fn javascript_is_told_its_loop_form() {
        let form = |head: &str| javascript(head).map(|t| (t.js, t.form));
        assert_eq!(
            form("setTimeout(() => {}, 0)"),
            Some(("setTimeout", "timeout DELAY \"label\" { … }"))
        );
        assert_eq!(
            form("Promise.resolve().then(() => {})"),
            Some(("Promise.resolve().then", "then \"a\" { … } .then \"b\" { … }"))
        );
        assert_eq!(form("Promise.all([a, b])"), Some(("Promise.all", "await all [a, b]")));
        assert_eq!(
            form("Promise.allSettled([a])"),
            Some(("Promise.allSettled", "await allSettled [a, b]"))
        );
        assert_eq!(form("Promise.reject(new Error())").map(|f| f.0), Some("Promise"));
        assert_eq!(
            form("new Promise((resolve) => resolve())").map(|f| f.1),
            Some("promise NAME { … resolve }")
        );
        assert_eq!(form("new Promise(r => setTimeout(r, 10))").map(|f| f.1), Some("await timeout N"));
        assert_eq!(form("function f() {").map(|f| f.1), Some("async NAME { … }"));
        assert_eq!(form("async function main() {").map(|f| f.0), Some("async function"));
        assert_eq!(form("const p = new Promise(r => r())").map(|f| f.1), Some("promise NAME = EXPR"));
        assert_eq!(form("fs.readFile(\"x\", cb)").map(|f| f.1), Some("readFile \"label\" { … }"));
        assert_eq!(form("fs.writeFile(\"x\", d, cb)").map(|f| f.1), Some("writeFile \"label\" { … }"));
        assert_eq!(form("fs.stat(\"x\", cb)").map(|f| f.0), Some("fs"));
        assert_eq!(form("for (let i = 0; i < 3; i++) {").map(|f| f.0), Some("for"));
        // `if` has no form: the note says what to write.
        let branch = javascript("if (x) {").unwrap();
        assert_eq!((branch.js, branch.form), ("if", ""));
        assert!(branch.note.contains("no conditions"));
        assert_eq!(form("iffy"), None);
        // A name that only starts like one is no match.
        assert_eq!(form("format 3"), None);
        assert_eq!(form("functions"), None);
        assert_eq!(form("newPromise"), None);
        assert_eq!(form("Promises"), None);
    }

    #[test]
    fn closest_skips_candidates_too_long_or_short_to_be_close() {
        let statements: Vec<&str> = STATEMENTS.iter().map(|row| row.name).collect();
        assert_eq!(closest("timout", &statements), Some("timeout"));
        assert_eq!(closest("Immediat", &statements), Some("immediate"));
        assert_eq!(closest("lo", &statements), Some("log"));
        // A swap of two neighbours is one edit.
        assert_eq!(closest("tiemout", &statements), Some("timeout"));
        assert_eq!(closest("nextTcik", &statements), Some("nextTick"));
        // A distance table per candidate would take 10⁷ × 10 cells each.
        assert_eq!(closest(&"x".repeat(10_000_000), &statements), None);
        assert_eq!(closest(&"timeout".repeat(1_000_000), &statements), None);
    }

    /// Compared with an ASCII word, every character lowercases as
    /// `str::to_lowercase` lowercases it: as many characters, the same ASCII
    /// ones in the same places.
    #[test]
    fn lowercase_for_ascii_matches_unicode_against_ascii() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let ours: Vec<char> = lowercase_for_ascii(&c.to_string()).chars().collect();
            let unicode: Vec<char> = c.to_lowercase().collect();
            assert_eq!(ours.len(), unicode.len(), "{c:?}");
            for (a, b) in ours.iter().zip(&unicode) {
                assert!(a == b || !(a.is_ascii() || b.is_ascii()), "{c:?}: {a:?} vs {b:?}");
            }
        }
    }
}
