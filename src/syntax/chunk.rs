//! Large files are parsed in chunks of whole top-level statements, so that
//! pest's token queue never holds more than one chunk (memory and time stay
//! proportional to the file). Spans are shifted back to file offsets.

use super::ast::*;
use crate::problem::Problem;

/// Files up to this size are parsed in one piece.
const CHUNK: usize = 256 * 1024;

/// Byte ranges covering `src`, each at least [`CHUNK`] long (but the last),
/// cut only before a line at nesting depth 0 that starts with a statement
/// keyword, a directive or `expect` (a new item: a header never continues
/// with one of those words).
pub fn chunks(src: &str) -> Vec<(usize, usize)> {
    if src.len() <= CHUNK {
        return vec![(0, src.len())];
    }
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut depth, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n') {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'#' => i = skip_line(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = skip_line(bytes, i),
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'\n' if depth == 0 && i + 1 - start >= CHUNK && starts_item(&src[i + 1..]) => {
                out.push((start, i + 1));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((start, src.len()));
    out
}

fn skip_line(bytes: &[u8], i: usize) -> usize {
    bytes[i..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |p| i + p) - 1
}

fn starts_item(rest: &str) -> bool {
    let word: &str = rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or("");
    super::suggest::STATEMENTS.contains(&word) || super::suggest::OTHER_ITEMS.contains(&word)
}

/// Moves a problem found in a chunk to its place in the file.
pub fn shift_problem(mut p: Problem, by: usize) -> Problem {
    shift(&mut p.span, by);
    for (span, _) in &mut p.secondary {
        shift(span, by);
    }
    p
}

/// Adds a chunk's part to the file.
pub fn merge(file: &mut File, part: File) {
    file.body.extend(part.body);
    file.pool = file.pool.or(part.pool);
    file.module = file.module.or(part.module);
    file.title = file.title.take().or(part.title);
    file.expect = file.expect.take().or(part.expect);
}

fn shift(span: &mut Span, by: usize) {
    *span = span.shifted(by);
}

fn shift_spanned<T>(s: &mut Spanned<T>, by: usize) {
    shift(&mut s.span, by);
}

/// Runs `f` on every item, on as many threads as there are cores, and
/// returns the results in order.
pub fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    items
                        .iter()
                        .enumerate()
                        .skip(t)
                        .step_by(threads)
                        .map(|(i, x)| (i, f(x)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, r) in h.join().expect("a parser thread panicked") {
                slots[i] = Some(r);
            }
        }
    });
    slots.into_iter().map(|r| r.expect("every chunk parsed")).collect()
}

/// Moves every span of a chunk's part by `by` bytes, and its callback site
/// numbers by `sites`.
pub fn shift_file(file: &mut File, by: usize, sites: usize) {
    if by == 0 && sites == 0 {
        return;
    }
    if let Some(s) = &mut file.pool {
        shift_spanned(s, by);
    }
    if let Some(s) = &mut file.module {
        shift_spanned(s, by);
    }
    if let Some(s) = &mut file.title {
        shift_spanned(s, by);
    }
    shift_stmts(&mut file.body, by, sites);
    if let Some(e) = &mut file.expect {
        shift_expect(e, by);
    }
}

fn shift_expect(e: &mut Expect, by: usize) {
    shift(&mut e.span, by);
    for line in &mut e.lines {
        shift(&mut line.span, by);
    }
    if let Some(l) = &mut e.limit {
        shift_spanned(l, by);
    }
    for alt in &mut e.or {
        shift_expect(alt, by);
    }
}

fn shift_stmts(stmts: &mut [Stmt], by: usize, sites: usize) {
    for stmt in stmts {
        shift(&mut stmt.span, by);
        match &mut stmt.kind {
            StmtKind::Log(t) | StmtKind::Clear(t) => shift(&mut t.span, by),
            StmtKind::Work(n) => shift_spanned(n, by),
            StmtKind::Repeat { count, body } => {
                shift_spanned(count, by);
                shift_stmts(body, by, sites);
            }
            StmtKind::Again => {}
            StmtKind::Callback(cb) => shift_callback(cb, by, sites),
        }
    }
}

fn shift_callback(cb: &mut Callback, by: usize, sites: usize) {
    cb.site += sites;
    shift(&mut cb.span, by);
    shift_spanned(&mut cb.kind, by);
    for n in [&mut cb.amount, &mut cb.times].into_iter().flatten() {
        shift_spanned(n, by);
    }
    if let Some(l) = &mut cb.label {
        shift(&mut l.span, by);
    }
    if let Some(body) = &mut cb.body {
        shift_stmts(body, by, sites);
    }
    for link in &mut cb.links {
        link.site += sites;
        shift(&mut link.span, by);
        if let Some(t) = &mut link.times {
            shift_spanned(t, by);
        }
        if let Some(l) = &mut link.label {
            shift(&mut l.span, by);
        }
        if let Some(body) = &mut link.body {
            shift_stmts(body, by, sites);
        }
    }
}
