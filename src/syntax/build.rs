//! pest pairs → AST, collecting every problem on the way.

use super::ast::*;
use super::chunk::Refusal;
use super::lex::{Lexer, Tok, Token};
use super::suggest;
use super::{pest_error, LoopParser, Rule};
use crate::check::{clauses, names, numbers, order, texts};
use crate::problem::{Code, Diag, Problem, MAX_KEPT};
use pest::iterators::Pair;
use pest::Parser;

#[path = "build_promise.rs"]
mod build_promise;
pub(super) use build_promise::PROMISE_STATEMENTS;

/// How many syntax errors one file reports before giving up: a chunk stops
/// reading after this many, and the chunks after the one where the file
/// reaches this many are not read.
const MAX_SYNTAX_ERRORS: usize = 10;

/// How deep blocks may nest. The passes after parsing (this builder, the
/// checks, the interpreter, dropping the AST) recurse once per level, so a
/// deeper file is refused here rather than overflowing the stack.
pub const MAX_NESTING: usize = 100;

/// Problems one builder collects before it stops: twice [`MAX_KEPT`], as
/// pairs of them may be merged into one ([`numbers::merge_missing_numbers`]).
const ROOM: usize = 2 * MAX_KEPT;

/// Bytes of failed blocks one builder parses again to say what is wrong inside
/// them, beyond twice the size of its text: with blocks nested in blocks, each
/// level would read its content again.
const REPARSE: usize = 4 << 20;

pub fn parse_file(src: &str) -> Result<File, Vec<Problem>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    parse_on(src, cores)
}

/// [`parse_file`] on at most `threads` threads (the result is the same on any
/// number: a test holds it).
fn parse_on(src: &str, threads: usize) -> Result<File, Vec<Problem>> {
    // Refused before parsing: pest recurses once per `{` and per `(` (of an
    // unknown statement), without a stack guard, and its time grows with the
    // depth of a block that fails to parse; and it holds the tokens of a
    // whole chunk, at most one item longer than `CHUNK`. The chunks of a large
    // file are parsed while the rest of it is scanned (on as many threads as
    // there are cores), and what was parsed is dropped if the scan refuses it.
    // A file of up to `ONE_PIECE` bytes is parsed as it always was: from its
    // start again after each syntax error.
    let resume = src.len() > super::chunk::ONE_PIECE;
    let threads = if resume { threads } else { 1 };
    let mut file = File::default();
    let mut problems = Vec::new();
    let mut stopped = false;
    let mut syntax_errors = 0;
    let (mut seen_statement, mut seen_expect, mut sites) = (false, false, 0);
    let (mut given, mut taken) = (0, 0);
    // The tree takes up to about 8 bytes for each byte of text (dense
    // statements; fewer for most files), built on `threads` threads.
    let arena_share = src.len().saturating_mul(8) / threads;
    let parse = |(start, end): (usize, usize)| {
        if threads > 1 {
            super::chunk::reserve_arena(arena_share);
        }
        let mut builder = Builder::new(end - start);
        let (part, problems) = parse_chunk(&mut builder, &src[start..end], resume);
        (start, part, problems, builder)
    };
    let feed = |give: &mut dyn FnMut((usize, usize))| {
        super::chunk::plan_each(src, MAX_NESTING, |start, end| {
            given += 1;
            give((start, end));
        })
    };
    // Each part is merged as soon as the parts before it are: the parts of a
    // large file are not all held at once beside the merged file.
    let take = |(start, part, found, builder): (usize, Option<File>, Vec<Problem>, Builder)| {
        taken += 1;
        stopped |= builder.full || builder.unfinished;
        let shift = |p: Problem| super::chunk::shift_problem(p, start);
        problems.extend(found.into_iter().map(shift));
        // Order checks across chunks: each chunk's builder saw only its own items.
        problems.extend(
            order::across_chunks(
                seen_statement,
                seen_expect,
                &builder.early_directives,
                builder.first_statement,
                builder.first_expect,
            )
            .into_iter()
            .map(shift),
        );
        seen_statement |= builder.seen_statement;
        seen_expect |= builder.seen_expect;
        if let Some(mut part) = part {
            super::chunk::shift_file(&mut part, start, sites);
            super::chunk::merge(&mut file, part);
        }
        sites += builder.sites;
        syntax_errors += builder.syntax_errors;
        // Enough to show: the chunks after this one are not read.
        if stopped || problems.len() > MAX_KEPT || syntax_errors >= MAX_SYNTAX_ERRORS {
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    };
    match super::chunk::in_order_fed(threads, feed, parse, take, Result::is_ok) {
        Ok(()) => {}
        Err(Refusal::TooDeep(open)) => {
            return Err(vec![too_deep(Span::new(open, open + 1), src.as_bytes()[open])]);
        }
        Err(Refusal::TooLong(start)) => return Err(vec![too_long(src, start)]),
    }
    // Chunks left unread after the last one taken.
    let broke = stopped || problems.len() > MAX_KEPT || syntax_errors >= MAX_SYNTAX_ERRORS;
    stopped |= broke && taken < given;
    file.sites = sites;
    // The merged body grew by doubling: give back the room it does not use
    // (a large vector shrinks in place) before the run holds it throughout.
    file.body.shrink_to_fit();
    // A line or paragraph separator (or U+0085) inside a comment: the grammar
    // reads the rest of the line as comment, where the text looks like a new
    // line (fresh-clone helper 71 found a statement after one dropped
    // without a word).
    if src.chars().any(pest_error::is_odd_line_break) {
        problems.extend(odd_breaks_in_comments(src).take(MAX_KEPT + 1));
    }
    crate::sort::sort_by_key(&mut problems, |p| (p.span.start(), p.span.end()));
    if stopped || problems.len() > MAX_KEPT {
        let at = problems.get(MAX_KEPT).or(problems.last()).map_or(Span::default(), |p| p.span);
        problems.truncate(MAX_KEPT);
        let message = if problems.len() < MAX_KEPT && syntax_errors >= MAX_SYNTAX_ERRORS {
            format!("stopped after {syntax_errors} syntax errors: the rest of the file was not read")
        } else {
            format!("stopped after the first {} errors", problems.len())
        };
        problems.push(Problem::cut(Span::new(at.start(), at.start()), message, false));
    }
    if problems.iter().any(|p| !p.warning) {
        Err(problems)
    } else {
        Ok(file)
    }
}

/// Parses one chunk (spans relative to it): the part of the file it holds, if
/// it parsed, and the problems found. After a syntax error the offending line
/// is blanked and the chunk parsed again; with `resume`, from where it failed:
/// the items before the failing line, if they parse on their own, are built
/// and not read again (else a chunk with errors near its end would be read
/// once per error).
fn parse_chunk(builder: &mut Builder, chunk: &str, resume: bool) -> (Option<File>, Vec<Problem>) {
    // Copied only to blank a line.
    let mut text = std::borrow::Cow::Borrowed(chunk);
    let mut problems = Vec::new();
    let mut part = File::default();
    // `text[..base]` is built.
    let mut base = 0;
    let mut errors = 0;
    while errors < MAX_SYNTAX_ERRORS && !builder.full {
        match LoopParser::parse(Rule::file, &text[base..]) {
            Ok(pairs) => {
                builder.build(pairs, base, &mut part);
                append_new(&mut problems, &mut builder.problems);
                return (Some(part), numbers::merge_missing_numbers(chunk, problems));
            }
            Err(e) => {
                let (problem, at) = pest_error::convert(&text[base..], &e);
                let at = base + at;
                let line = super::lex::line_start(&text, at);
                if resume && line > base {
                    if let Some(end) = super::chunk::last_top_line(&text[base..], line - base) {
                        if let Ok(pairs) = LoopParser::parse(Rule::file, &text[base..base + end]) {
                            builder.build(pairs, base, &mut part);
                            base += end;
                            continue;
                        }
                    }
                }
                problems.push(super::chunk::shift_problem(problem, base));
                errors += 1;
                builder.syntax_errors = errors;
                // A parser limit (pest's stack guard) would be hit again on retry.
                let limit = matches!(e.variant, pest::error::ErrorVariant::CustomError { .. });
                if limit {
                    break;
                }
                // A `}` that closes no block is dropped, and parsing goes on
                // with the line's other tokens (its line does not balance).
                if stray_brace(&text, at) {
                    text.to_mut().replace_range(at..at + 1, " ");
                    continue;
                }
                if !blank_line(&mut text, at) {
                    break;
                }
            }
        }
    }
    // The loop ended without a parse of the whole chunk: at its bound on
    // syntax errors, the rest of the chunk was not read (the note says so).
    builder.unfinished = errors >= MAX_SYNTAX_ERRORS;
    if !resume {
        return (None, problems);
    }
    append_new(&mut problems, &mut builder.problems);
    (None, numbers::merge_missing_numbers(chunk, problems))
}

/// Moves the builder's problems after the parser's, less those the parser
/// reported already (a string left open on a line the builder built again
/// once a stray `}` was dropped from it): each problem once.
fn append_new(problems: &mut Vec<Problem>, built: &mut Vec<Problem>) {
    let parsed = problems.len();
    built.retain(|p| {
        !problems[..parsed]
            .iter()
            .any(|q: &Problem| q.span == p.span && q.message == p.message)
    });
    problems.append(built);
}

/// Whether byte `at` of `text` is a `}` outside every block (the braces
/// before it balance) and outside any string, closed or not.
fn stray_brace(text: &str, at: usize) -> bool {
    text[at..].starts_with('}') && braces(&text[..at + 1]) == (-1, true)
}

/// The depth of `text`'s braces at its end (`{` one more, `}` one less), and
/// whether its last token is a `}` that counted. Braces inside strings and
/// comments do not count, nor those after a `"` that closes nowhere on its
/// line (the rest of that line is the string that never ends).
fn braces(text: &str) -> (isize, bool) {
    let (mut depth, mut last_close, mut in_open_string) = (0isize, false, false);
    for token in Lexer::new(text, 0) {
        last_close = false;
        match token.kind {
            Tok::Newline => in_open_string = false,
            Tok::Str { closed: false } => in_open_string = true,
            _ if in_open_string => {}
            Tok::Open => depth += 1,
            Tok::Close => (depth, last_close) = (depth - 1, true),
            _ => {}
        }
    }
    (depth, last_close)
}

/// Blanks the line holding byte `at` (same byte length), so that parsing can
/// go on past a syntax error. Only lines with tokens, whose braces balance
/// (outside strings and comments), are blanked.
fn blank_line(text: &mut std::borrow::Cow<str>, at: usize) -> bool {
    let start = super::lex::line_start(text, at);
    let end = super::lex::line_end(text, start);
    let line = &text[start..end];
    let tokens = Lexer::new(line, 0).filter(|t| !t.is_trivia()).count();
    let (depth, _) = braces(line);
    if tokens == 0 || depth != 0 {
        return false;
    }
    let blank: String = line.bytes().map(|_| ' ').collect();
    text.to_mut().replace_range(start..end, &blank);
    true
}

#[derive(Default)]
struct Builder {
    problems: Vec<Problem>,
    /// Problems pushed so far (some may have been moved out of `problems`).
    count: usize,
    /// Problems it may push ([`ROOM`], or what an enclosing builder has left).
    room: usize,
    /// It had no room for a problem: it stopped, and the problems it kept are
    /// not all there are.
    full: bool,
    /// Bytes of failed blocks it may still parse again ([`REPARSE`]).
    budget: usize,
    /// Syntax errors found in its chunk.
    syntax_errors: usize,
    /// Its chunk's parse stopped at [`MAX_SYNTAX_ERRORS`] before its end.
    unfinished: bool,
    sites: usize,
    /// A statement was seen (in this chunk or an earlier one).
    seen_statement: bool,
    /// An expect block was seen.
    seen_expect: bool,
    /// Directives before this chunk's first statement (misplaced if an
    /// earlier chunk had statements), with their text.
    early_directives: Vec<(Span, String)>,
    /// This chunk's first statement before any expect block of its own.
    first_statement: Option<Span>,
    /// This chunk's first expect block.
    first_expect: Option<Span>,
    /// Blocks open around the statement being built.
    depth: usize,
    /// The parts of the text being built ([`Builder::text`]): kept between
    /// texts, so that each text's list is allocated once, at its length.
    text_parts: Vec<TextPart>,
    /// The literal run being read ([`Builder::text`]), kept between texts too.
    text_run: String,
}

impl Builder {
    /// A builder for a text of `len` bytes.
    fn new(len: usize) -> Self {
        Builder {
            room: ROOM,
            budget: REPARSE + 2 * len,
            ..Builder::default()
        }
    }

    /// Keeps a problem, if there is room.
    fn push(&mut self, p: Problem) {
        if self.count < self.room {
            self.problems.push(p);
            self.count += 1;
        } else {
            self.full = true;
        }
    }

    /// Builds the items of `pairs`, parsed from the text `base` bytes into
    /// the chunk, into `part`, spans as in the chunk.
    fn build(&mut self, mut pairs: pest::iterators::Pairs<Rule>, base: usize, part: &mut File) {
        let pair = pairs.next().expect("file rule");
        if base == 0 {
            return self.file(pair, part);
        }
        let (problems, directives) = (self.problems.len(), self.early_directives.len());
        let (statement, expect) = (self.first_statement.is_none(), self.first_expect.is_none());
        let mut piece = File::default();
        self.file(pair, &mut piece);
        let moved: Vec<Problem> = self.problems.drain(problems..).collect();
        self.problems
            .extend(moved.into_iter().map(|p| super::chunk::shift_problem(p, base)));
        for (span, _) in &mut self.early_directives[directives..] {
            *span = span.shifted(base);
        }
        for (fresh, span) in [(statement, &mut self.first_statement), (expect, &mut self.first_expect)] {
            if let Some(span) = span.as_mut().filter(|_| fresh) {
                *span = span.shifted(base);
            }
        }
        super::chunk::shift_file(&mut piece, base, 0);
        super::chunk::merge(part, piece);
    }

    /// Builds the items of one chunk into `file`.
    fn file(&mut self, pair: Pair<Rule>, file: &mut File) {
        for item in pair.into_inner() {
            if self.full {
                return;
            }
            let span: Span = item.as_span().into();
            match item.as_rule() {
                Rule::EOI => {}
                Rule::directive => {
                    if let Some(p) = order::directive(self.seen_statement, span, item.as_str()) {
                        self.push(p);
                    } else {
                        self.early_directives.push((span, item.as_str().to_string()));
                    }
                    self.directive(item, file);
                }
                Rule::expect_block => {
                    if let Some(p) = order::expect_block(self.seen_expect, span) {
                        self.push(p);
                    }
                    self.first_expect.get_or_insert(span);
                    self.seen_expect = true;
                    file.expect = Some(self.expect(item));
                }
                Rule::unknown if self.seen_expect && item.as_str().split(|c: char| !c.is_ascii_alphanumeric()).next() == Some("or") => {
                    // `expect { … } or` with no block after the `or`: one
                    // problem, not an unknown statement after the expect block.
                    let at = item.as_span().start();
                    self.push(Diag::DanglingOr.at(Span::new(at, at + 2)));
                }
                _ => {
                    self.seen_statement = true;
                    if let Some(p) = order::statement(self.seen_expect, span) {
                        self.push(p);
                    } else {
                        self.first_statement.get_or_insert(span);
                    }
                    if let Some(stmt) = self.statement(item) {
                        file.body.push(stmt);
                    }
                }
            }
        }
    }

    fn directive(&mut self, pair: Pair<Rule>, file: &mut File) {
        let span: Span = pair.as_span().into();
        let mut inner = pair.into_inner();
        let keyword = inner.next().expect("directive keyword");
        let value = inner.next().expect("directive value");
        match keyword.as_rule() {
            Rule::kw_pool => {
                if let Some(n) = self.integer(&value) {
                    if let Some(p) = numbers::pool(n, value.as_span().into()) {
                        self.push(p);
                    }
                    self.once(&file.pool, span, "pool");
                    file.pool = Some(Spanned { value: n, span });
                }
            }
            Rule::kw_rejections => self.rejections(value, span, file),
            Rule::kw_node => {
                if let Some(n) = self.integer(&value) {
                    match crate::sched::NodeProfile::from_major(n) {
                        Some(profile) => {
                            self.once(&file.node, span, "node");
                            file.node = Some(Spanned { value: profile, span });
                        }
                        None => self.push(Diag::UnknownNode { major: n }.at(value.as_span().into())),
                    }
                }
            }
            Rule::kw_module => {
                let module = match names::module(value.as_str()) {
                    Ok(m) => Some(m),
                    Err(d) => {
                        self.push(d.at(value.as_span().into()));
                        None
                    }
                };
                if let Some(m) = module {
                    self.once(&file.module, span, "module");
                    file.module = Some(Spanned { value: m, span });
                }
            }
            _ => {
                let text = self.text(value);
                self.once(&file.title, span, "title");
                file.title = Some(Spanned {
                    value: text.parts.iter().map(lit_of).collect(),
                    span,
                });
            }
        }
    }

    fn once<T>(&mut self, prev: &Option<Spanned<T>>, span: Span, name: &'static str) {
        if let Some(p) = order::directive_twice(prev, span, name) {
            self.push(p);
        }
    }

    fn statements(&mut self, body: Pair<Rule>) -> Block {
        if self.depth >= MAX_NESTING {
            let open = body.as_span().start();
            self.push(too_deep(Span::new(open, open + 1), b'{'));
            return Block::new();
        }
        self.depth += 1;
        let inner = body.into_inner();
        // Room for every statement (the pairs but the two braces): the list
        // is not grown, nor shrunk when boxed.
        let mut stmts = Block::with_capacity(inner.len().saturating_sub(2));
        for p in inner {
            if self.full {
                break;
            }
            if !matches!(p.as_rule(), Rule::open_brace | Rule::close_brace) {
                stmts.extend(self.statement(p));
            }
        }
        self.depth -= 1;
        stmts
    }

    /// The problems inside a block that did not parse, found by parsing its
    /// statements on their own; none once [`REPARSE`] bytes were parsed again.
    fn body_problems(&mut self, body: &Pair<Rule>) -> Vec<Problem> {
        let start = body.as_span().start() + 1;
        let text = body.as_str();
        let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
            return Vec::new();
        };
        if inner.len() > self.budget {
            return Vec::new();
        }
        let mut builder = Builder {
            room: self.room - self.count,
            budget: self.budget - inner.len(),
            ..Builder::default()
        };
        let problems = text_problems(&mut builder, inner);
        self.budget = builder.budget;
        self.full |= builder.full;
        problems
            .into_iter()
            .filter(|p| !p.warning && p.code != Code::DirectiveOrder.as_str())
            .map(|p| super::chunk::shift_problem(p, start))
            .collect()
    }

    fn statement(&mut self, pair: Pair<Rule>) -> Option<Stmt> {
        let rule = pair.as_rule();
        if rule == Rule::callback {
            // Its span ends where its last part does ([`trimmed`]), found on the one walk over them.
            let start = pair.as_span().start();
            let cb = self.callback(start, pair.into_inner())?;
            return Some(Stmt {
                span: cb.span,
                kind: StmtKind::Callback(cb),
            });
        }
        let span = trimmed(&pair);
        let mut inner = pair.into_inner();
        let kind = match rule {
            Rule::log_stmt => StmtKind::Log(self.text(inner.nth(1)?)),
            Rule::work_stmt => StmtKind::Work(self.spanned_int(inner.nth(1)?)?),
            Rule::clear_stmt => StmtKind::Clear(self.text(inner.nth(1)?)),
            Rule::repeat_stmt => {
                let count = self.spanned_int(inner.nth(1)?)?;
                let body = self.statements(inner.next()?);
                StmtKind::Repeat { count, body }
            }
            Rule::again_stmt => StmtKind::Again,
            rule if PROMISE_STATEMENTS.contains(&rule) => self.promise_statement(rule, inner)?,
            Rule::unknown => {
                let head = inner.next()?;
                let body = inner.next();
                let word = head.as_str().split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
                if word == "expect" {
                    let bad = body.as_ref().map(bad_expect_lines).unwrap_or_default();
                    if !bad.is_empty() {
                        for p in bad {
                            self.push(p);
                        }
                        return None;
                    }
                } else if let (Some(b), "after" | "times") = (&body, word) {
                    // `after {i}`: a placeholder for a number, not a block.
                    let inside = b.as_str().trim_matches(['{', '}']).trim();
                    self.push(unknown_statement(head, matches!(inside, "i" | "n" | "k")));
                    return None;
                } else if let Some(inner) = body.map(|b| self.body_problems(&b)).filter(|p| !p.is_empty()) {
                    // The block did not parse: report what is wrong inside
                    // it; and the head too where a good block would not have
                    // made it parse either: it starts with no keyword
                    // (`function main() {`, `timout 5 {`), or with an empty
                    // block it is still no statement (`async "f" {`).
                    if suggest::form(word).is_none() || !parses_with_empty_block(head.as_str()) {
                        self.push(unknown_statement(head, false));
                    }
                    for p in inner {
                        self.push(p);
                    }
                    return None;
                }
                self.push(unknown_statement(head, false));
                return None;
            }
            Rule::misplaced => {
                let what = inner.next()?;
                let directive = what.as_rule() == Rule::directive;
                self.push(Diag::Misplaced { directive }.at(span));
                return None;
            }
            _ => unreachable!("a statement rule the grammar has"),
        };
        Some(Stmt { kind, span })
    }

    /// A callback statement starting at byte `start`, from its parts. Its span
    /// ends where its last part ends: what [`trimmed`] gives, without a second
    /// walk over the parts (pest's pair of a rule ending in optional parts spans
    /// the blanks skipped looking for them).
    fn callback(&mut self, start: usize, mut inner: pest::iterators::Pairs<Rule>) -> Option<Callback> {
        let kw = inner.next()?;
        let kind_span: Span = kw.as_span().into();
        let kind = Kind::from_name(kw.as_str()).expect("grammar lists the kinds");
        // The keyword starts the statement: its span is derived from the statement's.
        debug_assert_eq!(kind_span, Span::new(start, start + kind.name().len()));
        let mut end = kind_span.end();
        let mut cb = Callback::bare(self.site(), kind_span, kind);
        let mut parts = CallbackParts::default();
        // The grammar takes at most two numbers in a header: no allocation for them.
        let mut ints: [Option<(Spanned<u64>, bool)>; 2] = [None, None];
        let mut after = None;
        // A number that is there but invalid (negative, too large) was reported already.
        let mut bad_number = false;
        let mut links = Vec::new();
        for part in inner {
            end = match part.as_rule() {
                Rule::link => content_end(&part),
                _ => part.as_span().end(),
            };
            match part.as_rule() {
                Rule::integer => {
                    let before_label = parts.label.is_none();
                    match self.spanned_int(part) {
                        Some(n) => {
                            let free = ints.iter_mut().find(|i| i.is_none()).expect("at most two numbers in a header");
                            *free = Some((n, before_label));
                        }
                        None => bad_number = true,
                    }
                }
                Rule::string => parts.label = Some(self.text(part)),
                Rule::after_clause => after = self.clause(part),
                Rule::times_clause => parts.times = self.times(part),
                Rule::body => parts.body = Some(self.statements(part)),
                Rule::async_body => {
                    cb.is_async = true;
                    parts.body = Some(self.async_body(part));
                }
                Rule::link => links.push(self.link(part)),
                _ => unreachable!("a callback part the grammar has"),
            }
        }
        parts.links = links.into_boxed_slice();
        let span = Span::new(start, end);
        cb.span = span;
        cb.set_parts(parts);
        let mut found = Vec::new();
        let amount = numbers::amount(kind, kind_span, span, ints.into_iter().flatten(), bad_number, &mut |p| {
            found.push(p)
        });
        for p in found {
            self.push(p);
        }
        cb.set_amount(if kind == Kind::Io { after } else { amount });
        if let Some(p) = after.and_then(|after| clauses::after(kind, after.span)) {
            self.push(p);
        }
        if let Some(p) = clauses::links(kind, cb.links()) {
            self.push(p);
        }
        Some(cb)
    }

    fn link(&mut self, pair: Pair<Rule>) -> Link {
        let span = trimmed(&pair);
        let mut link = Link {
            site: self.site(),
            kind: LinkKind::Then,
            is_async: false,
            label: None,
            times: None,
            body: None,
            span,
        };
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::link_kind => {
                    link.kind = match part.as_str() {
                        ".catch" => LinkKind::Catch,
                        ".finally" => LinkKind::Finally,
                        _ => LinkKind::Then,
                    }
                }
                Rule::string => link.label = Some(self.text(part)),
                Rule::times_clause => link.times = self.times(part),
                Rule::body => link.body = Some(self.statements(part)),
                Rule::async_body => {
                    link.is_async = true;
                    link.body = Some(self.async_body(part));
                }
                _ => unreachable!("a link part the grammar has"),
            }
        }
        link
    }

    fn site(&mut self) -> usize {
        self.sites += 1;
        self.sites - 1
    }

    fn clause(&mut self, pair: Pair<Rule>) -> Option<Spanned<u64>> {
        let value = pair.into_inner().nth(1)?;
        self.spanned_int(value)
    }

    fn times(&mut self, pair: Pair<Rule>) -> Option<Spanned<u64>> {
        let n = self.clause(pair)?;
        if let Some(p) = numbers::times(n) {
            self.push(p);
            return None;
        }
        Some(n)
    }

    fn spanned_int(&mut self, pair: Pair<Rule>) -> Option<Spanned<u64>> {
        let span = pair.as_span().into();
        self.integer(&pair).map(|value| Spanned { value, span })
    }

    fn integer(&mut self, pair: &Pair<Rule>) -> Option<u64> {
        match numbers::integer(pair.as_str(), pair.as_rule() == Rule::integer) {
            Ok(n) => Some(n),
            Err(d) => {
                self.push(d.at(pair.as_span().into()));
                None
            }
        }
    }

    /// A string literal: escapes resolved, `{i}`/`{n}`/`{k}` split out. The
    /// text between the quotes is read from the pair's own text (`string` is
    /// compound-atomic: its quotes are its first and last bytes), and runs
    /// without `\\` or `{` are copied whole.
    fn text(&mut self, pair: Pair<Rule>) -> Text {
        let span: Span = pair.as_span().into();
        let quoted = pair.as_str();
        let raw = &quoted[1..quoted.len() - 1];
        let base = span.start() + 1;
        // Most texts are one run: one part, no room for more.
        if !raw.bytes().any(|b| b == b'\\' || b == b'{') {
            let parts = if raw.is_empty() {
                ThinVec::new()
            } else {
                thin_vec::thin_vec![TextPart::Lit(raw.into())]
            };
            return Text { parts, span };
        }
        let mut parts = std::mem::take(&mut self.text_parts);
        let mut lit = std::mem::take(&mut self.text_run);
        lit.clear();
        let mut i = 0;
        while i < raw.len() {
            let run = raw[i..].find(['\\', '{']).unwrap_or(raw.len() - i);
            lit.push_str(&raw[i..i + run]);
            i += run;
            let Some(c) = raw[i..].chars().next() else { break };
            if c == '\\' {
                // The grammar takes any character but a newline after `\\`.
                if let Some(e) = raw[i + 1..].chars().next() {
                    match texts::escape(e) {
                        Ok(e) => lit.push(e),
                        Err(d) => self.push(d.at(Span::new(base + i, base + i + 1 + e.len_utf8()))),
                    }
                    i += 1 + e.len_utf8();
                } else {
                    i += 1;
                }
                continue;
            }
            let part = [("{i}", TextPart::Index), ("{n}", TextPart::Run), ("{k}", TextPart::Count)]
                .into_iter()
                .find(|(p, _)| raw[i..].starts_with(p));
            match part {
                Some((_, part)) => {
                    if !lit.is_empty() {
                        parts.push(TextPart::Lit(lit.as_str().into()));
                        lit.clear();
                    }
                    parts.push(part);
                    i += 3;
                }
                None => {
                    lit.push('{');
                    i += 1;
                }
            }
        }
        if !lit.is_empty() {
            parts.push(TextPart::Lit(lit.as_str().into()));
        }
        self.text_run = lit;
        // One allocation, at the list's length (a drain is exact-sized).
        let text = Text {
            parts: parts.drain(..).collect(),
            span,
        };
        self.text_parts = parts;
        text
    }

    fn expect(&mut self, pair: Pair<Rule>) -> Expect {
        let mut bodies = pair
            .into_inner()
            .filter(|p| p.as_rule() == Rule::expect_body)
            .map(|b| self.expect_body(b));
        let mut first = bodies.next().expect("an expect block has a body");
        first.or = bodies.collect();
        first
    }

    fn expect_body(&mut self, pair: Pair<Rule>) -> Expect {
        let span: Span = pair.as_span().into();
        let mut expect = Expect {
            lines: Vec::new(),
            limit: None,
            ending: None,
            span,
            or: Vec::new(),
        };
        for line in pair.into_inner() {
            let line_span: Span = line.as_span().into();
            if matches!(line.as_rule(), Rule::expect_line | Rule::limit_line | Rule::end_line) {
                let late = order::after_ending(expect.ending, line_span)
                    .or_else(|| order::after_limit(expect.limit, line_span, line.as_rule() == Rule::limit_line));
                if let Some(p) = late {
                    self.push(p);
                    continue;
                }
            }
            match line.as_rule() {
                Rule::expect_line => {
                    if let Some(l) = self.expect_line(line) {
                        expect.lines.push(l);
                    }
                }
                Rule::end_line => {
                    let value = match line.as_str().trim() {
                        "unhandled" => ExpectEnding::Unhandled,
                        _ => ExpectEnding::Unsettled,
                    };
                    expect.ending = Some(Spanned { value, span: line_span });
                }
                Rule::limit_line => {
                    let word = line.into_inner().nth(1).expect("limit word");
                    match names::limit_queue(word.as_str()) {
                        Ok(q) => expect.limit = Some(Spanned { value: q, span: line_span }),
                        Err(d) => self.push(d.at(word.as_span().into())),
                    }
                }
                _ => {}
            }
        }
        expect
    }

    fn expect_line(&mut self, pair: Pair<Rule>) -> Option<ExpectLine> {
        let span: Span = pair.as_span().into();
        let mut line = ExpectLine {
            turn: None,
            at: None,
            phase: None,
            text: String::new(),
            span,
        };
        // `turn "1"`, `limit "check"`: a field's keyword read as the phase,
        // shown with the quoted value after it (the line's string).
        let mut field: Option<(Box<Diag>, Span)> = None;
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::turn_field => line.turn = Some(self.clause(part)?.value),
                Rule::at_field => line.at = Some(self.clause(part)?.value),
                Rule::phase_field => {
                    let word = part.into_inner().next()?;
                    match names::phase(word.as_str()) {
                        Ok(p) => line.phase = Some(p),
                        Err(d) if matches!(*d, Diag::ExpectField { .. }) => field = Some((d, word.as_span().into())),
                        Err(d) => self.push(d.at(word.as_span().into())),
                    }
                }
                Rule::string => {
                    if let Some((_, word)) = &mut field {
                        *word = Span::new(word.start(), part.as_span().end());
                    }
                    let text = self.text(part);
                    line.text = text.parts.iter().map(lit_of).collect();
                }
                _ => {}
            }
        }
        if let Some((d, at)) = field {
            self.push(d.at(at));
        }
        Some(line)
    }
}

/// The pair's span without the white space pest may take after its last token.
/// That includes comments skipped before an optional part that is not there
/// (`nextTick "a" { again }` then a comment line): the span ends with the
/// last token.
fn trimmed(pair: &Pair<Rule>) -> Span {
    let start = pair.as_span().start();
    let text = &pair.as_str()[..content_end(pair) - start];
    Span::new(start, start + text.trim_end().len())
}

/// Where the pair's last present part ends: a rule that ends with optional
/// parts (`callback`, `then_link`, `unknown`) spans the blanks and comments
/// pest skipped looking for them.
fn content_end(pair: &Pair<Rule>) -> usize {
    match pair.as_rule() {
        Rule::callback
        | Rule::link
        | Rule::unknown
        | Rule::promise_stmt
        | Rule::resolve_stmt
        | Rule::reject_stmt
        | Rule::return_stmt
        | Rule::on_stmt
        | Rule::await_stmt
        | Rule::chain_stmt
        | Rule::expr
        | Rule::operand => pair
            .clone()
            .into_inner()
            .next_back()
            .map_or(pair.as_span().end(), |p| content_end(&p)),
        _ => pair.as_span().end(),
    }
}

/// The text of a part as written (placeholders kept verbatim).
fn lit_of(part: &TextPart) -> String {
    match part {
        TextPart::Lit(s) => s.to_string(),
        TextPart::Index => "{i}".into(),
        TextPart::Run => "{n}".into(),
        TextPart::Count => "{k}".into(),
    }
}

/// An item with more than [`super::chunk::MAX_ITEM`] tokens, starting at byte
/// `start` (or at the first token after it that is neither a blank nor a
/// comment): shown from that token to the end of its line, blanks trimmed.
fn too_long(src: &str, start: usize) -> Problem {
    match Lexer::new(src, start).find(|t| !t.is_trivia()) {
        Some(token) => {
            let end = super::lex::line_end(src, token.start);
            too_long_at(Span::new(token.start, token.start + src[token.start..end].trim_end().len()))
        }
        None => too_long_at(Span::new(start, start)),
    }
}

fn too_long_at(span: Span) -> Problem {
    Diag::TooLong {
        most: super::chunk::MAX_ITEM,
    }
    .at(span)
}

/// A block (or a `(` or `[`: `opener`) opened more than [`MAX_NESTING`] deep.
pub(super) fn too_deep(span: Span, opener: u8) -> Problem {
    Diag::TooDeep { opener, most: MAX_NESTING }.at(span)
}

/// Parses `text` (spans relative to it) for its problems only: in one piece if
/// short, else in chunks read one after the other with the same builder.
fn text_problems(builder: &mut Builder, text: &str) -> Vec<Problem> {
    if text.len() <= super::chunk::ONE_PIECE {
        return parse_chunk(builder, text, false).1;
    }
    let mut problems = Vec::new();
    for (start, end) in super::chunk::chunks(text) {
        let (_, found) = parse_chunk(builder, &text[start..end], true);
        problems.extend(found.into_iter().map(|p| super::chunk::shift_problem(p, start)));
        if builder.full {
            break;
        }
    }
    problems
}

/// In an expect block that did not parse, the first line that is not an
/// expect line: `[turn N] [at T] [PHASE] "text"`, `limit QUEUE`, blank or a comment.
fn bad_expect_lines(body: &Pair<Rule>) -> Vec<Problem> {
    let start = body.as_span().start();
    let text = body.as_str();
    let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return Vec::new();
    };
    let mut offset = start + 1;
    let mut found = Vec::new();
    for line in inner.split_inclusive('\n') {
        let trimmed = line.trim();
        let lead = line.len() - line.trim_start().len();
        if let Some((at, c)) = odd_space_outside_strings(line) {
            // (Before trimming: `trim` takes a no-break space for a blank.)
            found.push(odd_space(offset + at, c));
        } else if !trimmed.is_empty() && !is_expect_line(trimmed) {
            let at = offset + lead;
            let quoted = super::lex::wrong_quotes(trimmed);
            let row = table_row(trimmed);
            found.push(Diag::ExpectLine { quoted, row }.at(Span::new(at, at + trimmed.len())));
        }
        offset += line.len();
    }
    found
}

/// A row of `loopsim run`'s table (`1    20  timers     start 1`) pasted
/// into an expect block: the expect line that says the same (`turn 1 at 20
/// timers "start 1"`), or "" for a note row (`⏸ …`, `▶ …`, a `--verbose`
/// row), which is no log line.
fn table_row(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    let (turn, tick, phase) = (words.next()?, words.next()?, words.next()?);
    let number = |w: &str| w.bytes().all(|b| b.is_ascii_digit());
    // (The phase is the first word with a letter: the rest after it is the text.)
    let text = line[line.find(phase)? + phase.len()..].trim();
    if !number(turn) || !number(tick) || crate::sched::Phase::from_name(phase).is_none() || text.is_empty() {
        return None;
    }
    if text.starts_with(['⏸', '▶', '◀', '+', '×', '⋯']) {
        return Some(String::new());
    }
    // (A text quoted already, one string literal, is kept as it is.)
    let quoted = Lexer::new(text, 0)
        .next()
        .is_some_and(|t| t.kind == Tok::Str { closed: true } && t.end == text.len());
    let text = if quoted { text.to_string() } else { super::print::quote(text) };
    Some(format!("turn {turn} at {tick} {phase} {text}"))
}

/// Whether a line of a failed expect block reads as expect lines to the
/// grammar: `expect_line` (`[turn N] [at T] [PHASE] "text"`) or `limit_line`
/// (`limit QUEUE`), any number of them, blanks and a comment around them.
fn is_expect_line(line: &str) -> bool {
    let tokens: Vec<Token> = Lexer::new(line, 0).filter(|t| !t.is_trivia()).collect();
    let word = |i: usize, w: &str| tokens.get(i).is_some_and(|t| t.kind == Tok::Word && t.text(line) == w);
    let integer = |i: usize| {
        tokens
            .get(i)
            .is_some_and(|t| t.kind == Tok::Number && t.text(line).trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()))
    };
    let mut i = 0;
    while i < tokens.len() {
        if word(i, "limit") && tokens.get(i + 1).is_some_and(|t| t.kind == Tok::Word) {
            i += 2;
            continue;
        }
        for key in ["turn", "at"] {
            if word(i, key) && integer(i + 1) {
                i += 2;
            }
        }
        if tokens[i..].first().is_some_and(|t| t.kind == Tok::Word) {
            i += 1;
        }
        if !tokens.get(i).is_some_and(|t| t.kind == Tok::Str { closed: true }) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether the head of a statement (its text up to its block) is a
/// statement when an empty block follows it.
fn parses_with_empty_block(head: &str) -> bool {
    let text = format!("{} {{}}", head.trim_end());
    LoopParser::parse(Rule::file, &text).is_ok_and(|mut pairs| {
        pairs
            .next()
            .and_then(|file| file.into_inner().next())
            .is_some_and(|item| item.as_rule() != Rule::unknown)
    })
}

/// The first character of `text` outside its strings and comments that
/// looks like a blank but is none to the grammar
/// ([`pest_error::is_odd_space`]), and where it is (bytes): read through
/// [`Lexer`], so that strings and comments are the grammar's.
fn odd_space_outside_strings(text: &str) -> Option<(usize, char)> {
    Lexer::new(text, 0).filter(|t| t.kind == Tok::Other).find_map(|t| {
        let c = t.text(text).chars().next()?;
        pest_error::is_odd_space(c).then_some((t.start, c))
    })
}

/// "expected a space or a line break, found `\u{2028}`" ([`odd_space`]) at
/// the first odd line break ([`pest_error::is_odd_line_break`]) of each
/// comment of `src`, read through [`Lexer`].
fn odd_breaks_in_comments(src: &str) -> impl Iterator<Item = Problem> + '_ {
    Lexer::new(src, 0).filter(|t| t.kind == Tok::Comment).filter_map(move |t| {
        let (at, c) = t.text(src).char_indices().find(|&(_, c)| pest_error::is_odd_line_break(c))?;
        Some(odd_space(t.start + at, c))
    })
}

/// "expected a space, found `\u{a0}`" at `at`, where the odd space `c` is.
fn odd_space(at: usize, c: char) -> Problem {
    Diag::Syntax {
        expected: pest_error::odd_space_expected(c).to_string(),
        found: format!("`{}`", pest_error::odd_spaces_escaped(&c.to_string())),
        hint: crate::problem::SyntaxHint::OddSpace(c),
    }
    .at(Span::new(at, at + c.len_utf8()))
}

/// `placeholder`: a `{i}`, `{n}` or `{k}` follows it (`after {i}`).
fn unknown_statement(head: Pair<Rule>, placeholder: bool) -> Problem {
    let text = head.as_str().trim_end();
    let span = Span::new(head.as_span().start(), head.as_span().start() + text.len());
    let word_end = text.find(|c: char| c.is_whitespace() || c == '(').unwrap_or(text.len());
    let call = &text[..word_end];
    let word = call.split('.').next().unwrap_or(call);
    if let Some(open) = super::lex::open_quote(text) {
        let at = head.as_span().start() + open;
        return Diag::UnterminatedString.at(Span::new(at, span.end()));
    }
    // A no-break or zero-width space outside a string, where the grammar
    // takes a space (`log\u{a0}"x"`, pasted from a web page): named, as the
    // grammar's own errors name it (`immediate\u{a0}"x"`).
    // (Untrimmed: `trim_end` takes a no-break space for a blank, as in
    // `expect\u{a0}{`, where the head ends at it.)
    if let Some((at, c)) = odd_space_outside_strings(head.as_str()) {
        return odd_space(head.as_span().start() + at, c);
    }
    let input = head.as_span().get_input();
    // (A UTF-8 byte-order mark before the first line is no statement before it.)
    let before = input[super::lex::line_start(input, span.start())..span.start()].trim_start_matches('\u{feff}');
    // JavaScript first: `async function f() {` is JavaScript, not a malformed
    // `async` (no other row of the table starts with a keyword). After
    // `await new` (a name, to the grammar), `Promise(…)` is `new Promise(…)`.
    let after_new = before
        .trim_end()
        .strip_suffix("new")
        .is_some_and(|rest| !rest.bytes().last().is_some_and(super::lex::is_word_char));
    let js = if after_new && text.starts_with("Promise") {
        suggest::javascript(&format!("new {text}")).filter(|t| t.js == "new Promise")
    } else {
        suggest::javascript(text)
    };
    if let Some(t) = js {
        // The longer of the two: `Promise.resolve().then` (the table's) over
        // `Promise.resolve` (up to the first parenthesis), `fs.stat` (the
        // line's) over `fs`.
        let shown = if t.js.len() > call.len() { t.js } else { call };
        return Diag::Javascript {
            call: shown.to_string(),
            form: t.form,
            note: t.note,
        }
        .at(span);
    }
    if let Some(form) = suggest::form(word) {
        let quoted = super::lex::wrong_quotes(text);
        // `async "f" { … }`, `call "f"`, `await call "f"`: a NAME quoted.
        let rest = text[word.len()..].trim_start();
        let quoted_name = form.contains("NAME") && (rest.starts_with('"') || rest.starts_with("call \""));
        return Diag::Malformed {
            keyword: word.to_string(),
            form: form.to_string(),
            quoted,
            quoted_name,
        }
        .at(span);
    }
    let suggestion = suggest::closest(word, &suggest::items());
    Diag::UnknownStatement {
        word: word.to_string(),
        suggestion,
        keywords: suggest::keywords(),
        // (A misspelt keyword is told as one even there.)
        mid_line: suggestion.is_none() && !before.trim().is_empty() && !before.trim_end().ends_with(['{', '}']),
        twice: before.split_whitespace().any(|w| w == word),
        placeholder,
    }
    .at(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pasted row of `loopsim run`'s table: its expect line (a text quoted
    /// already kept as it is), "" for a note row, none for other lines.
    #[test]
    fn table_rows_become_expect_lines() {
        assert_eq!(
            table_row("1     0  check      say \"hi\"").as_deref(),
            Some("turn 1 at 0 check \"say \\\"hi\\\"\"")
        );
        assert_eq!(table_row("1 0 check \"imm\"").as_deref(), Some("turn 1 at 0 check \"imm\""));
        // Quotes inside, not one literal: quoted whole (helper 69).
        assert_eq!(
            table_row("1 0 check \"say \"hi\"\"").as_deref(),
            Some("turn 1 at 0 check \"\\\"say \\\"hi\\\"\\\"\"")
        );
        assert_eq!(
            table_row("0  0  main  ⏸ worker suspends at the await of line 3").as_deref(),
            Some("")
        );
        assert_eq!(table_row("turn 1 at 0 check \"i\""), None);
        assert_eq!(table_row("1 0 nowhere x"), None);
        assert_eq!(table_row("1 0 check"), None);
    }

    /// An odd space is looked for outside strings and comments only.
    #[test]
    fn odd_spaces_are_found_outside_strings_and_comments() {
        assert_eq!(odd_space_outside_strings("log\u{a0}\"a\""), Some((3, '\u{a0}')));
        assert_eq!(odd_space_outside_strings("log \"a\u{a0}\\\"b\""), None);
        assert_eq!(odd_space_outside_strings("turn x \"i\" // a\u{a0}note"), None);
        assert_eq!(odd_space_outside_strings("  # a\u{a0}note"), None);
    }

    /// The AST (spans and all) or the problems, as text.
    fn outcome(result: &Result<File, Vec<Problem>>) -> String {
        format!("{result:#?}")
    }

    /// The dense text of `benches/parser.rs`, `blocks` times.
    fn dense(blocks: usize) -> String {
        "repeat 1 {\n  timeout 5 \"t{i}\" {\n    log \"timer {i} ran\"\n    nextTick \"tick {i}\"\n    then \"a\" { work 1 } .then \"b\"\n  }\n  immediate \"imm\" times 2 { log \"immediate {n}\" again }\n  io \"read\" after 3 { log \"bytes\" }  # a comment\n  submit \"fs.stat\" 0 { log \"stat done\" }\n}\n".repeat(blocks)
    }

    /// Every example, its directives and expect block left out, in a block
    /// of its own (as in `benches/parser.rs`), until the text has `bytes`.
    fn realistic(bytes: usize) -> String {
        let mut paths = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from("examples")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).expect("examples/") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "loop") {
                    paths.push(path);
                }
            }
        }
        paths.sort();
        let mut body = String::new();
        for path in paths {
            let text = std::fs::read_to_string(path).expect("an example");
            if text.contains("\nmodule esm") {
                continue;
            }
            let cut = text.find("\nexpect {").unwrap_or(text.len());
            body.push_str("repeat 1 {\n");
            for line in text[..cut].lines() {
                if !["pool ", "module ", "title ", "node ", "rejections "]
                    .iter()
                    .any(|d| line.starts_with(d))
                {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            body.push_str("}\n");
        }
        body.repeat(bytes / body.len() + 1)
    }

    /// The same outcome on one thread as on two and three.
    fn same_on_any_threads(src: &str) -> Result<File, Vec<Problem>> {
        let serial = parse_on(src, 1);
        for threads in [2, 3] {
            assert!(
                outcome(&parse_on(src, threads)) == outcome(&serial),
                "{threads} threads, {} bytes",
                src.len()
            );
        }
        serial
    }

    /// A file larger than a chunk but of up to [`ONE_PIECE`](super::super::chunk::ONE_PIECE)
    /// bytes is parsed as a small file is: the same problems, worded the same
    /// (found by a fresh-clone check when such files were parsed in chunks).
    #[test]
    fn a_file_of_up_to_one_piece_has_the_problems_a_small_file_has() {
        use super::super::chunk::{CHUNK, ONE_PIECE};
        let line = "timeout 5 \"t\" { log \"x\" }\n";
        let problems = |src: &str| -> Vec<(&'static str, String, Span)> {
            let found = parse_on(src, 2).expect_err("invalid");
            found.into_iter().map(|p| (p.code, p.message, p.span)).collect()
        };
        for error in ["}\n", "timout 5\n", "log \"a\"\n@\n", "timout 5\n{}{}}\n"] {
            let error = error.replace("{}", line);
            let small = format!("{line}{line}{error}{line}");
            let large = format!("{small}{}", line.repeat((ONE_PIECE - small.len()) / line.len()));
            assert!(large.len() > 2 * CHUNK && large.len() <= ONE_PIECE);
            assert_eq!(problems(&small), problems(&large), "{error:?}");
        }
    }

    #[test]
    fn chunks_parsed_on_several_threads_give_what_one_thread_gives() {
        let dense = dense(super::super::chunk::ONE_PIECE * 5 / 250);
        assert_eq!(
            same_on_any_threads(&dense).expect("valid").body.len(),
            dense.matches("repeat").count()
        );
        let realistic = realistic(super::super::chunk::ONE_PIECE + 4 * super::super::chunk::CHUNK);
        assert!(super::super::chunk::chunks(&realistic).len() > 4);
        assert!(same_on_any_threads(&realistic).is_ok());
        // Errors in several chunks; a flood of them; a block nested too deep
        // late in the file (refused, whatever was parsed before it); an item
        // too long; a directive after the statements, chunks away.
        let errors = format!("{dense}timout 3\n{dense}log 5\nimmediate {{\n{dense}");
        assert!(same_on_any_threads(&errors).is_err());
        let flood = format!("{dense}{}", "timeout \"x\"\n".repeat(3000));
        assert!(same_on_any_threads(&flood).is_err());
        let deep = format!("{dense}{}", "{".repeat(MAX_NESTING + 1));
        let refused = same_on_any_threads(&deep).expect_err("too deep");
        assert_eq!(refused.len(), 1);
        let long = format!("{dense}repeat 1 {{\n{}}}\n", "again\n".repeat(super::super::chunk::MAX_ITEM));
        assert_eq!(same_on_any_threads(&long).expect_err("too long").len(), 1);
        let late = format!("{dense}pool 2\n");
        assert!(same_on_any_threads(&late).is_err());
    }

    #[test]
    fn chunks_give_the_tree_the_whole_text_parsed_at_once_gives() {
        // Texts cut where strings, comments, blocks, `.then` chains, `after`
        // and `times` clauses go over lines, and directives, come near every
        // possible cut.
        let unit = "timeout 1 \"a # not a comment {\" # a comment {\nthen \"b\"\n  .then \"c\" {\n    log \"}\"\n  }\n  .catch\nio \"r\"\n  after 3\n  times 2\n{ log \"x\" }\nrepeat 2 {\n  immediate \"i{i}\"\n}\npromise p {\n  resolve\n}\n  .then \"d\"\nasync f {\n  await p\n}\ncall f\n// end\n\n";
        let mut src = String::from("pool 2\ntitle \"t\"\n");
        while src.len() <= super::super::chunk::ONE_PIECE + 3 * super::super::chunk::CHUNK {
            src.push_str(unit);
        }
        src.push_str("expect {\n  \"a\"\n}\nor {\n  \"b\"\n}\n");
        let chunked = same_on_any_threads(&src).expect("valid");
        assert!(super::super::chunk::chunks(&src).len() > 1);
        // The whole text in one piece, as a small file is parsed.
        let mut builder = Builder::new(src.len());
        let (whole, problems) = parse_chunk(&mut builder, &src, false);
        assert!(problems.is_empty(), "{problems:?}");
        let mut whole = whole.expect("parsed");
        whole.sites = builder.sites;
        assert!(outcome(&Ok(whole)) == outcome(&Ok(chunked)));
        // And realistic text, the examples' statements.
        let realistic = realistic(super::super::chunk::ONE_PIECE + 2 * super::super::chunk::CHUNK);
        assert!(super::super::chunk::chunks(&realistic).len() > 1);
        let chunked = same_on_any_threads(&realistic).expect("valid");
        let mut builder = Builder::new(realistic.len());
        let (mut whole, _) = parse_chunk(&mut builder, &realistic, false);
        if let Some(w) = &mut whole {
            w.sites = builder.sites;
        }
        assert!(outcome(&Ok(whole.expect("parsed"))) == outcome(&Ok(chunked)));
    }
}
