//! "Did you mean …?": keyword suggestions by edit distance, and the `.loop`
//! statement for a JavaScript call pasted into a file.

/// Every statement keyword of docs/language.md.
pub const STATEMENTS: [&str; 15] = [
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
];

/// Words that start a top-level item other than a statement: the directives
/// and `expect`.
pub const OTHER_ITEMS: [&str; 4] = ["pool", "module", "title", "expect"];

/// The closest of `candidates` to `word` (case-insensitive edit distance at
/// most a third of its length, at least 1), if any. A candidate whose length
/// is too far from the word's to be that close is not compared (the distance
/// takes time and memory proportional to the product of the lengths).
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(1);
    let length = lower.chars().count();
    candidates
        .iter()
        .map(|c| (c.to_lowercase(), *c))
        .filter(|(l, _)| l.chars().count().abs_diff(length) <= limit)
        .map(|(l, c)| (strsim::damerau_levenshtein(&lower, &l), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// The `.loop` statement for a JavaScript (Node.js) API name, e.g.
/// `setTimeout` → `timeout DELAY`.
pub fn javascript(head: &str) -> Option<&'static str> {
    let table: [(&str, &str); 16] = [
        ("setTimeout", "timeout DELAY \"label\" { … }"),
        ("setInterval", "interval DELAY \"label\" times N { … }"),
        ("setImmediate", "immediate \"label\" { … }"),
        ("process.nextTick", "nextTick \"label\" { … }"),
        ("queueMicrotask", "microtask \"label\" { … }"),
        ("Promise.resolve().then", "then \"a\" { … } .then \"b\" { … }"),
        ("Promise", "then \"label\" { … }"),
        ("clearTimeout", "clear \"label\""),
        ("clearInterval", "clear \"label\""),
        ("clearImmediate", "clear \"label\""),
        ("console.log", "log \"text\""),
        ("fs.readFile", "submit \"readFile\" TICKS { … }"),
        ("fs", "submit \"fs call\" TICKS { … }"),
        ("crypto", "submit \"pbkdf2\" TICKS { … }"),
        ("for", "repeat N { … }"),
        ("while", "repeat N { … }"),
    ];
    table
        .iter()
        .find(|(js, _)| head == *js || head.starts_with(&format!("{js}.")) || head.starts_with(&format!("{js}(")))
        .map(|(_, stmt)| *stmt)
}

/// The form of a statement, for "malformed statement" help lines.
pub fn form(keyword: &str) -> Option<&'static str> {
    Some(match keyword {
        "log" => "log \"text\"",
        "work" => "work TICKS",
        "clear" => "clear \"label\"",
        "repeat" => "repeat N { … }",
        "again" => "again",
        "timeout" => "timeout DELAY [\"label\"] [times N] [{ … }]",
        "interval" => "interval DELAY [\"label\"] [times N] [{ … }]",
        "immediate" | "nextTick" | "microtask" | "close" | "pending" => "KIND [\"label\"] [times N] [{ … }]",
        "then" => "then [\"label\"] [{ … }] (.then [\"label\"] [{ … }])*",
        "io" => "io [\"label\"] [after N] [{ … }]",
        "submit" => "submit [\"label\"] TICKS [{ … }]",
        "pool" => "pool N (1..=1024), at the top of the file",
        "module" => "module cjs | module esm, at the top of the file",
        "title" => "title \"name\", at the top of the file",
        "expect" => "expect { [turn N] [at T] [PHASE] \"text\" … }",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_skips_candidates_too_long_or_short_to_be_close() {
        assert_eq!(closest("timout", &STATEMENTS), Some("timeout"));
        assert_eq!(closest("Immediat", &STATEMENTS), Some("immediate"));
        assert_eq!(closest("lo", &STATEMENTS), Some("log"));
        // A distance table per candidate would take 10⁷ × 10 cells each.
        assert_eq!(closest(&"x".repeat(10_000_000), &STATEMENTS), None);
        assert_eq!(closest(&"timeout".repeat(1_000_000), &STATEMENTS), None);
    }
}
