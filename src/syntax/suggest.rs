//! "Did you mean …?": keyword suggestions by edit distance, and the `.loop`
//! statement for a JavaScript call pasted into a file.

/// Every statement keyword of LANGUAGE.md §3.
pub const STATEMENTS: [&str; 15] = [
    "log", "work", "clear", "repeat", "again", "timeout", "interval", "immediate", "nextTick", "microtask", "then",
    "io", "submit", "close", "pending",
];

/// The closest of `candidates` to `word` (case-insensitive edit distance at
/// most a third of its length, at least 1), if any.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), *c))
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
