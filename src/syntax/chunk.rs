//! Large files are parsed in chunks of whole top-level items, so that pest's
//! token queue never holds more than one chunk (memory and time stay
//! proportional to the file). Spans are shifted back to file offsets.

use super::ast::*;
use super::lex::{self, Tok};
use crate::problem::Problem;
use std::ops::ControlFlow;

/// Texts up to this size (bytes) are parsed in one piece (and, after a
/// syntax error, again from their start), as small files always were.
pub const ONE_PIECE: usize = 256 * 1024;

/// A larger text is parsed in chunks of at least this many bytes (whole
/// top-level items): small enough that pest's token queue of a chunk is
/// still in cache when the builder walks it (issue 14 (e): 10.5 MB of dense
/// text 9% faster than in chunks of 256 KiB).
pub const CHUNK: usize = 64 * 1024;

/// Makes room for about `bytes` more in the calling thread's malloc arena,
/// once per thread (glibc on Linux; elsewhere it does nothing). glibc grows
/// the arena of a thread other than the main one by one `mprotect` call for
/// each page it newly needs: the parse threads, building their parts of the
/// tree a few dozen bytes at a time, made about 15,000 such calls for the
/// 10.5 MB dense file of `bench/compare.py` (issue 14 (e)). Taking the room
/// first in blocks of 64 KiB (below glibc's `mmap` threshold, so that they
/// come from the arena) and freeing them grows it by one call a block; the
/// blocks' pages are not written but for a header each, and freeing them
/// gives those back (`madvise`).
pub fn reserve_arena(bytes: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        thread_local!(static RESERVED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
        if RESERVED.replace(true) {
            return;
        }
        // At most 48 MiB: below the 64 MiB that glibc's arena of a thread
        // holds in one piece.
        const MAX_ARENA_RESERVE: usize = 48 << 20;
        const BLOCK: usize = 64 * 1024;
        const PAGE: usize = 4096;
        let blocks: Vec<Vec<u8>> = (0..bytes.min(MAX_ARENA_RESERVE) / BLOCK)
            .map(|_| Vec::with_capacity(BLOCK))
            .collect();
        // The room the blocks span (one piece of the arena, but for the
        // headers between them) may be backed by 2 MiB pages: the tree built
        // in it then faults a few dozen pages, not thousands of 4 KiB ones
        // (as the scheduler's large queues, `sched::grow_queue`).
        let starts = blocks.iter().map(|b| b.as_ptr() as usize);
        let (low, high) = starts.fold((usize::MAX, 0), |(low, high), p| (low.min(p), high.max(p + BLOCK)));
        let (first, end) = (low.next_multiple_of(PAGE), high / PAGE * PAGE);
        if first < end && end - first <= 2 * blocks.len() * BLOCK {
            // SAFETY: `[first, end)` lies within the arena's memory that the
            // blocks, allocations of ours held here, span; `MADV_HUGEPAGE`
            // changes how pages are backed, never their contents, and a
            // refusal (an error) leaves them as they were.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
        // Kept from being optimised away: the allocations are the point.
        drop(std::hint::black_box(blocks));
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = bytes;
}

/// What [`scan`] reports.
#[derive(Debug, Clone, Copy)]
pub enum Mark {
    /// A `{`, `(` or `[` at byte `at`, leaving `depth` of them open.
    Open { at: usize, depth: usize },
    /// A line starts at byte `at`; `top`: outside every block; `after_module`:
    /// the last word before it is `module` (a directive that may go on here);
    /// `weight`: the tokens before it (see [`MAX_ITEM`]).
    Line {
        at: usize,
        top: bool,
        after_module: bool,
        weight: usize,
    },
    /// The end of the text, and the tokens in all of it.
    End { weight: usize },
}

/// One pass over the tokens of `src` ([`lex::Lexer`], which reads strings
/// and comments as the grammar does: a `"` that closes nowhere on its line is
/// plain text, as `string_any` fails there); a `(` stays open past its line
/// only inside a `{ … }` opened after it (`paren_group`), and a `}` closes
/// the last `{` with every `(` opened in it. `f` sees every [`Mark`] and may
/// stop the pass with what it breaks with. Takes time linear in the length
/// of `src`.
pub fn scan<B>(src: &str, mut f: impl FnMut(Mark) -> ControlFlow<B>) -> Option<B> {
    let mut open: Vec<u8> = Vec::new();
    let mut module = false;
    let mut weight = 0;
    let mut lexer = lex::Lexer::new(src, 0);
    while let Some(token) = lexer.next_token() {
        match token.kind {
            Tok::Blank | Tok::Comment => continue,
            Tok::Newline => {
                while open.last() == Some(&b'(') {
                    open.pop();
                }
                let mark = Mark::Line {
                    at: token.end,
                    top: open.is_empty(),
                    after_module: module,
                    weight,
                };
                if let ControlFlow::Break(b) = f(mark) {
                    return Some(b);
                }
                continue;
            }
            Tok::Open | Tok::LParen => {
                open.push(if token.kind == Tok::Open { b'{' } else { b'(' });
                let mark = Mark::Open {
                    at: token.start,
                    depth: open.len(),
                };
                if let ControlFlow::Break(b) = f(mark) {
                    return Some(b);
                }
            }
            Tok::RParen => {
                if open.last() == Some(&b'(') {
                    open.pop();
                }
            }
            Tok::Close => {
                if let Some(at) = open.iter().rposition(|&c| c == b'{') {
                    open.truncate(at);
                }
            }
            // A list (`all [ … ]`) nests as a block does, over lines too; `]` closes the last `[`
            // if it is the innermost opening, as `)` does the last `(`.
            Tok::Other if src.as_bytes()[token.start] == b'[' => {
                open.push(b'[');
                let mark = Mark::Open {
                    at: token.start,
                    depth: open.len(),
                };
                if let ControlFlow::Break(b) = f(mark) {
                    return Some(b);
                }
            }
            Tok::Other if src.as_bytes()[token.start] == b']' => {
                if open.last() == Some(&b'[') {
                    open.pop();
                }
            }
            Tok::Word | Tok::Number | Tok::Str { .. } | Tok::Dot | Tok::Other => {}
        }
        module = token.kind == Tok::Word && token.text(src) == "module";
        weight += 1;
    }
    match f(Mark::End { weight }) {
        ControlFlow::Break(b) => Some(b),
        ControlFlow::Continue(()) => None,
    }
}

/// Why a text is not parsed at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A `{` or `(` at this byte is opened more than the depth allowed.
    TooDeep(usize),
    /// The item starting at this byte holds more than [`MAX_ITEM`] tokens.
    TooLong(usize),
}

/// Tokens one item may hold: 500,000 words, numbers, strings and other signs
/// (`{`, `.`, …), each counting one; blanks and comments count nothing. An
/// item is what lies between two lines where [`plan`] may cut: a statement
/// with its blocks and `.then` links, an expect block with its alternatives,
/// or (in a file that does not parse) any run of lines none of which starts
/// with a word. pest holds its tokens for a whole chunk, which is at most
/// [`CHUNK`] bytes and one item long: at most about 160 bytes of memory per
/// token.
pub const MAX_ITEM: usize = 500_000;

/// In one pass over `src`: the chunks to parse it in, or why it is refused:
/// the first `{` or `(` opened more than `max_depth` deep, or the first item
/// with more than [`MAX_ITEM`] tokens, whichever comes first.
///
/// The chunks are byte ranges covering `src`, each at least [`CHUNK`] long
/// (but the last), cut only before a line outside every block that starts
/// (after blanks) with a word that cannot go on the item before it: any word
/// but `after`, `times`, `or`, `catch`, `with` and `async {`, and not after a `module` still waiting for
/// its word. (A header goes on over lines only with a number, a string,
/// `after`, `times`, a `{` or `.then`; a line of anything else ends where it
/// ends.)
pub fn plan(src: &str, max_depth: usize) -> Result<Vec<(usize, usize)>, Refusal> {
    let mut out = Vec::new();
    plan_each(src, max_depth, |start, end| out.push((start, end)))?;
    Ok(out)
}

/// [`plan`], handing each chunk to `emit` as soon as it is found (the last
/// one when the pass ends), so that chunks can be parsed while the rest of
/// the text is scanned. When it refuses, the chunks emitted so far are not
/// all of `src`, and parsing them was in vain.
pub fn plan_each(src: &str, max_depth: usize, mut emit: impl FnMut(usize, usize)) -> Result<(), Refusal> {
    let (mut chunk, mut item, mut from) = (0, 0, 0);
    // Each token takes at least one byte.
    let long = src.len() > MAX_ITEM;
    let refused = scan(src, |mark| match mark {
        Mark::Open { at, depth } if depth > max_depth => ControlFlow::Break(Refusal::TooDeep(at)),
        Mark::Line { weight, .. } | Mark::End { weight } if long && weight - from > MAX_ITEM => ControlFlow::Break(Refusal::TooLong(item)),
        Mark::Line {
            at,
            top: true,
            after_module: false,
            weight,
        } if (long || at - chunk >= CHUNK) && starts_item(&src.as_bytes()[at..]) => {
            (item, from) = (at, weight);
            if at - chunk >= CHUNK && src.len() > ONE_PIECE {
                emit(chunk, at);
                chunk = at;
            }
            ControlFlow::Continue(())
        }
        _ => ControlFlow::Continue(()),
    });
    match refused {
        Some(refusal) => Err(refusal),
        None => {
            emit(chunk, src.len());
            Ok(())
        }
    }
}

/// The chunks to parse `src` in, refusing nothing (see [`plan`]).
pub fn chunks(src: &str) -> Vec<(usize, usize)> {
    plan(src, usize::MAX).unwrap_or_else(|_| vec![(0, src.len())])
}

/// Whether a line starting `rest` begins a new item (see [`plan`]).
fn starts_item(rest: &[u8]) -> bool {
    let start = rest.iter().position(|&b| b != b' ' && b != b'\t').unwrap_or(rest.len());
    let rest = &rest[start..];
    // The whole word `w` starts `rest`.
    let word = |w: &[u8]| rest.starts_with(w) && !rest.get(w.len()).is_some_and(|&b| lex::is_word_char(b));
    // `catch` goes on a `try`, `with` on a `resolve`, `async {` on a header.
    let async_body = || word(b"async") && rest[5..].iter().find(|&&b| b != b' ' && b != b'\t') == Some(&b'{');
    let goes_on = match rest.first() {
        Some(&b) if !lex::is_word_start(b) => return false,
        None => return false,
        Some(b'a') => word(b"after") || async_body(),
        Some(b't') => word(b"times"),
        Some(b'o') => word(b"or"),
        Some(b'c') => word(b"catch"),
        Some(b'w') => word(b"with"),
        Some(_) => false,
    };
    !goes_on
}

/// The start of the last line in `text[..=end]` (`end` a line start) that
/// begins outside every block, if after byte 0: where a part of `text` that
/// parses on its own may end.
pub fn last_top_line(text: &str, end: usize) -> Option<usize> {
    let mut last = None;
    scan::<()>(&text[..end], |mark| {
        if let Mark::Line { at, top: true, .. } = mark {
            last = Some(at);
        }
        ControlFlow::Continue(())
    });
    last
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
    if file.body.is_empty() && file.body.capacity() < part.body.len() {
        file.body = part.body;
    } else {
        file.body.extend(part.body);
    }
    file.pool = file.pool.or(part.pool);
    file.module = file.module.or(part.module);
    file.title = file.title.take().or(part.title);
    file.rejections = file.rejections.or(part.rejections);
    file.node = file.node.or(part.node);
    file.expect = file.expect.take().or(part.expect);
}

fn shift(span: &mut Span, by: usize) {
    *span = span.shifted(by);
}

fn shift_spanned<T>(s: &mut Spanned<T>, by: usize) {
    shift(&mut s.span, by);
}

/// Runs `f` on the items that `feed` gives, on `threads` threads, and hands
/// each result to `take`, on the calling thread and in the items' order, until
/// `take` breaks: then no more items are started. `feed` runs on the calling
/// thread while the first items are worked on; the results that are ready
/// each time it gives an item are taken then, the others after it returns,
/// if `go_on` says so of what it returned (else none is taken and no more
/// items are started). Results that arrive early wait for `take`, and an item
/// is started only a few items ahead of the last one taken, so that few
/// results wait at once. With `threads` ≤ 1 (one core, or wasm32, which has
/// no threads), `feed` runs to its end, then `f` and `take` on each item in
/// turn, on the calling thread. Returns what `feed` returned.
pub fn in_order_fed<T: Send, R: Send, B>(
    threads: usize,
    feed: impl FnOnce(&mut dyn FnMut(T)) -> B,
    f: impl Fn(T) -> R + Sync,
    take: impl FnMut(R) -> ControlFlow<()>,
    go_on: impl FnOnce(&B) -> bool,
) -> B {
    use std::sync::{mpsc, Condvar, Mutex};
    let mut take = take;
    if threads <= 1 {
        let mut items = Vec::new();
        let fed = feed(&mut |item| items.push(item));
        if go_on(&fed) {
            for item in items {
                if take(f(item)).is_break() {
                    break;
                }
            }
        }
        return fed;
    }
    /// What the threads share: the items given and not started, the index of
    /// the first of them, the number of results taken, whether `feed` has
    /// returned, and whether to stop.
    struct Shared<T> {
        queue: std::collections::VecDeque<T>,
        next: usize,
        taken: usize,
        fed_all: bool,
        stop: bool,
    }
    /// The calling thread's side: results waiting for the ones before them.
    struct Taker<R, F> {
        waiting: std::collections::BTreeMap<usize, R>,
        next: usize,
        stopped: bool,
        take: F,
    }
    impl<R, F: FnMut(R) -> ControlFlow<()>> Taker<R, F> {
        fn arrived<T>(&mut self, i: usize, r: R, shared: &Mutex<Shared<T>>, changed: &Condvar) {
            if self.stopped {
                return;
            }
            self.waiting.insert(i, r);
            while let Some(r) = self.waiting.remove(&self.next) {
                self.next += 1;
                self.stopped = (self.take)(r).is_break();
                let mut s = shared.lock().expect("no thread panics holding it");
                s.taken = self.next;
                s.stop |= self.stopped;
                drop(s);
                changed.notify_all();
                if self.stopped {
                    self.waiting.clear();
                    return;
                }
            }
        }
    }
    let ahead = 2 * threads;
    let shared = Mutex::new(Shared {
        queue: std::collections::VecDeque::new(),
        next: 0,
        taken: 0,
        fed_all: false,
        stop: false,
    });
    let changed = Condvar::new();
    let (send, results) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let send = send.clone();
            let (shared, changed, f) = (&shared, &changed, &f);
            scope.spawn(move || loop {
                let (i, item) = {
                    let mut s = shared.lock().expect("no thread panics holding it");
                    while !s.stop && (s.queue.is_empty() && !s.fed_all || !s.queue.is_empty() && s.next >= s.taken + ahead) {
                        s = changed.wait(s).expect("no thread panics holding it");
                    }
                    let Some(item) = s.queue.pop_front().filter(|_| !s.stop) else {
                        break;
                    };
                    s.next += 1;
                    (s.next - 1, item)
                };
                if send.send((i, f(item))).is_err() {
                    break;
                }
            });
        }
        drop(send);
        let mut taker = Taker {
            waiting: std::collections::BTreeMap::new(),
            next: 0,
            stopped: false,
            take: &mut take,
        };
        let fed = feed(&mut |item| {
            if taker.stopped {
                return;
            }
            shared.lock().expect("no thread panics holding it").queue.push_back(item);
            changed.notify_one();
            while let Ok((i, r)) = results.try_recv() {
                taker.arrived(i, r, &shared, &changed);
            }
        });
        let go_on = go_on(&fed);
        let mut s = shared.lock().expect("no thread panics holding it");
        s.fed_all = true;
        s.stop |= !go_on;
        drop(s);
        changed.notify_all();
        if go_on {
            for (i, r) in results {
                taker.arrived(i, r, &shared, &changed);
            }
        }
        fed
    })
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
    if let Some(s) = &mut file.rejections {
        shift_spanned(s, by);
    }
    if let Some(s) = &mut file.node {
        shift_spanned(s, by);
    }
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
    if let Some(l) = &mut e.ending {
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
            StmtKind::Again | StmtKind::Throw => {}
            StmtKind::Callback(cb) => shift_callback(cb, by, sites),
            StmtKind::AsyncDef { name, body } => {
                shift(&mut name.span, by);
                shift_stmts(body, by, sites);
            }
            StmtKind::Call(name) => shift(&mut name.span, by),
            StmtKind::Await(e) | StmtKind::Chain(e) => shift_expr(e, by, sites),
            StmtKind::Promise(p) => match &mut **p {
                PromiseStmt::Executor { name, body, links, .. } => {
                    if let Some(n) = name {
                        shift(&mut n.span, by);
                    }
                    shift_stmts(body, by, sites);
                    shift_links(links, by, sites);
                }
                PromiseStmt::Expr { name, expr } => {
                    shift(&mut name.span, by);
                    shift_expr(expr, by, sites);
                }
            },
            StmtKind::Resolve { target, with } => {
                if let Some(n) = target {
                    shift(&mut n.span, by);
                }
                if let Some(e) = with {
                    shift_expr(e, by, sites);
                }
            }
            StmtKind::Reject { target } => {
                if let Some(n) = target {
                    shift(&mut n.span, by);
                }
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    shift_expr(e, by, sites);
                }
            }
            StmtKind::Try { body, catch } => {
                shift_stmts(body, by, sites);
                shift_stmts(catch, by, sites);
            }
            StmtKind::On(l) => {
                l.site += sites;
                shift_spanned(&mut l.event, by);
                if let Some(t) = &mut l.label {
                    shift(&mut t.span, by);
                }
                if let Some(body) = &mut l.body {
                    shift_stmts(body, by, sites);
                }
            }
        }
    }
}

fn shift_expr(e: &mut Expr, by: usize, sites: usize) {
    shift(&mut e.span, by);
    match &mut e.operand {
        Operand::Value(s)
        | Operand::Resolved(s)
        | Operand::Rejected(s)
        | Operand::Thenable(s)
        | Operand::Immediate(s)
        | Operand::File(_, s) => {
            shift(s, by);
        }
        Operand::Name(n) => shift(&mut n.span, by),
        Operand::Call { name, span } => {
            shift(&mut name.span, by);
            shift(span, by);
        }
        Operand::Executor { body, span, .. } => {
            shift(span, by);
            shift_stmts(body, by, sites);
        }
        Operand::Combinator { list, span, .. } => {
            shift(span, by);
            for e in list {
                shift_expr(e, by, sites);
            }
        }
        Operand::Timeout(n, span) => {
            shift_spanned(n, by);
            shift(span, by);
        }
    }
    shift_links(&mut e.links, by, sites);
}

fn shift_callback(cb: &mut Callback, by: usize, sites: usize) {
    cb.set_site(cb.site() + sites);
    shift(&mut cb.span, by);
    cb.set_amount(cb.amount().map(|mut n| {
        shift_spanned(&mut n, by);
        n
    }));
    let Some(parts) = cb.parts_mut() else {
        return;
    };
    if let Some(n) = parts.times {
        shift_spanned(n, by);
    }
    if let Some(l) = parts.label {
        shift(&mut l.span, by);
    }
    if let Some(body) = parts.body {
        shift_stmts(body, by, sites);
    }
    shift_links(parts.links, by, sites);
}

fn shift_links(links: &mut [Link], by: usize, sites: usize) {
    for link in links {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines (1-based) of `src` where `plan` cuts it, `src` followed by
    /// enough lines that it is parsed in chunks (more than [`ONE_PIECE`]
    /// bytes): the cuts in those lines are not counted.
    fn cuts(src: &str) -> Vec<usize> {
        let lines = src.matches('\n').count();
        let padded = format!("{src}{}", "log \"z\"\n".repeat(ONE_PIECE / 8));
        let chunks = plan(&padded, usize::MAX).expect("not refused");
        chunks[1..]
            .iter()
            .map(|&(start, _)| padded[..start].matches('\n').count() + 1)
            .filter(|&line| line <= lines)
            .collect()
    }

    #[test]
    fn a_text_of_up_to_one_piece_is_not_cut() {
        let one_piece = "log \"a\"\n".repeat(ONE_PIECE / 8);
        assert_eq!(plan(&one_piece, usize::MAX), Ok(vec![(0, ONE_PIECE)]));
        let more = one_piece + "log \"b\"\n";
        let chunks = plan(&more, usize::MAX).expect("not refused");
        // Each chunk at least `CHUNK` long, but the last.
        assert_eq!(chunks.len(), ONE_PIECE / CHUNK + 1, "{chunks:?}");
        assert!(
            chunks[..chunks.len() - 1].iter().all(|&(start, end)| end - start >= CHUNK),
            "{chunks:?}"
        );
        assert_eq!(chunks.last(), Some(&(ONE_PIECE, ONE_PIECE + 8)));
    }

    /// A chunk's worth of lines, then `tail` (its lines numbered from `first`).
    fn after_a_chunk(tail: &str) -> (String, usize) {
        let head = "log \"a\"\n".repeat(CHUNK / 8);
        let first = CHUNK / 8 + 1;
        (head + tail, first)
    }

    #[test]
    fn cuts_before_any_word_that_cannot_go_on_the_item_before() {
        for word in ["x", "  log \"a\"", "$x", "_x", "timeout 1", "afterwards", "timesx", "order"] {
            let (src, first) = after_a_chunk(&format!("{word}\nlog \"b\"\n"));
            assert_eq!(cuts(&src), vec![first], "{word:?}");
        }
        // Not before a line that may go on the item before it, nor inside a block.
        for tail in [
            "after 3\nlog \"b\"\n",
            "times 2\nlog \"b\"\n",
            "or { \"a\" }\nlog \"b\"\n",
            "\"label\"\nlog \"b\"\n",
            "5\nlog \"b\"\n",
            ".then\nlog \"b\"\n",
            "{ log \"b\" }\nlog \"c\"\n",
            "# note\nlog \"b\"\n",
        ] {
            let (src, first) = after_a_chunk(tail);
            assert_eq!(cuts(&src), vec![first + 1], "{tail:?}");
        }
        let (src, first) = after_a_chunk("repeat 2 {\nlog \"b\"\n}\nlog \"c\"\n");
        assert_eq!(cuts(&src), vec![first], "before the block");
        let head = "log \"a\"\n".repeat(CHUNK / 8 - 1) + "module\n";
        let src = head + "esm\nlog \"b\"\n";
        assert_eq!(cuts(&src), vec![CHUNK / 8 + 2], "a directive waiting for its word");
    }

    #[test]
    fn strings_and_comments_hide_braces_only_as_the_grammar_reads_them() {
        // `line` ends the first chunk's bytes: where is the first cut after it?
        let cut_after = |line: &str, tail: &str| {
            let src = "log \"a\"\n".repeat(CHUNK / 8 - 1) + line + tail;
            cuts(&src).into_iter().map(|l| l - CHUNK / 8).collect::<Vec<_>>()
        };
        assert_eq!(cut_after("log \"{\" # {\n", "x\n"), vec![1], "a closed string and a comment");
        assert_eq!(cut_after("log 1 // {\n", "x\n"), vec![1], "a // comment");
        assert_eq!(cut_after("x \"a\\\"{\"\n", "y\n"), vec![1], "an escaped quote inside a string");
        assert_eq!(
            cut_after("x \"{ never closed\n", "x\n}\ny\n"),
            vec![3],
            "a quote that closes nowhere"
        );
        assert_eq!(cut_after("x ( {\n", "x\n}\ny\n"), vec![3], "a block in parentheses");
        assert_eq!(cut_after("x ( ( (\n", "y\n"), vec![1], "parentheses end with their line");
    }

    #[test]
    fn tokens_weigh_as_the_grammar_reads_them() {
        let weight = |src: &str| {
            scan(src, |mark| match mark {
                Mark::End { weight } => ControlFlow::Break(weight),
                _ => ControlFlow::Continue(()),
            })
        };
        // A negative number is one token, a byte order mark a blank, a
        // string one token, a quote that closes nowhere one and its line more.
        assert_eq!(weight("work -5 # c\n"), Some(2));
        assert_eq!(weight("\u{FEFF}log \"a b\""), Some(2));
        assert_eq!(weight("x \"a b"), Some(4));
    }

    #[test]
    fn refuses_too_deep_and_too_long_in_the_same_pass() {
        let deep = "{".repeat(101);
        assert_eq!(plan(&format!("log \"a\"\n{deep}"), 100), Err(Refusal::TooDeep(108)));
        assert_eq!(plan(&format!("log \"{deep}\"\n"), 100).map(|c| c.len()), Ok(1));
        let long = format!("log \"a\"\nrepeat 1 {{\n{}}}\n", "again\n".repeat(MAX_ITEM));
        assert_eq!(plan(&long, 100), Err(Refusal::TooLong(8)));
        let fits = format!("log \"a\"\nrepeat 1 {{\n{}}}\n", "again\n".repeat(MAX_ITEM - 4));
        assert!(plan(&fits, 100).is_ok());
        // Comments and blanks weigh nothing, a string or a word one.
        let light = format!("{}log \"{}\"\n", "# c\n\n".repeat(MAX_ITEM), "a".repeat(2 * MAX_ITEM));
        assert!(plan(&light, 100).is_ok());
    }

    /// [`in_order_fed`] over `0..100` on `threads` threads, `f` doubling,
    /// `take` breaking at `stop`; the results taken.
    fn taken(threads: usize, stop: Option<usize>, go_on: bool) -> Vec<usize> {
        let mut seen = Vec::new();
        let feed = |give: &mut dyn FnMut(usize)| {
            (0..100).for_each(give);
            "fed"
        };
        let take = |r| {
            seen.push(r);
            if Some(r) == stop {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        assert_eq!(in_order_fed(threads, feed, |i| i * 2, take, |&fed| go_on && fed == "fed"), "fed");
        seen
    }

    #[test]
    fn in_order_takes_every_result_in_order_until_it_breaks() {
        for threads in [1, 2, 3] {
            let all: Vec<usize> = (0..100).map(|i| i * 2).collect();
            assert_eq!(taken(threads, None, true), all, "{threads} threads");
            assert_eq!(taken(threads, Some(82), true), all[..=41], "{threads} threads");
            assert_eq!(taken(threads, Some(0), true), [0], "{threads} threads");
        }
        // What `feed` returns may say that no result is wanted.
        assert_eq!(taken(1, None, false), Vec::<usize>::new());
        let some = taken(2, None, false);
        assert_eq!(
            some,
            (0..some.len()).map(|i| i * 2).collect::<Vec<_>>(),
            "only those taken while feeding, in order"
        );
    }
}
