//! The SVG timeline of a run.
//!
//! Turns are columns, left to right; the phases and queues of the main thread
//! are lanes (rows), then one lane per thread-pool thread. Within a turn the
//! callbacks are placed one after another in the order they ran, each in its
//! lane, so the picture reads left to right like the trace. A box carries the
//! callback's kind and label, the tick it ran at (`@3`, or `@3→9` when `work`
//! took time, which also makes the box wider) and its `log` lines; its
//! `<title>` (a tooltip) holds everything untruncated. A poll-phase sleep is a
//! dashed gap labelled `sleep 0→100`; a pool job is a bar on its thread's lane
//! from the point of the run where it started to the point where it finished.
//!
//! Long runs are shortened: more than three identical callbacks in a row (same
//! turn, lane, label and log lines) are drawn as one `… ×N more` box, and after
//! [`MAX_BOXES`] boxes or [`MAX_TURNS`] turns the rest is counted per lane in a
//! last `…` column. Such boxes have class `more` and a `data-calls` attribute
//! (how many callbacks they stand for); real callback boxes have class `cb`.

use super::{escape, fit, text_width, thousands, wrap, FONT_FAMILY};
use crate::limit;
use crate::sched::{LimitKind, Phase};
use crate::trace::{Ending, EventKind, Trace};
use std::fmt::Write as _;

/// Most callback boxes drawn; the rest are counted in a last column.
pub const MAX_BOXES: usize = 60;
/// Most turn columns drawn.
pub const MAX_TURNS: usize = 60;
/// Identical callbacks in a row drawn before the rest are counted in one box.
const REPEATS_SHOWN: usize = 3;

const MARGIN: f64 = 12.0;
const TITLE_SIZE: f64 = 15.0;
const HEAD_SIZE: f64 = 12.0;
const LABEL_SIZE: f64 = 12.0;
const BODY_SIZE: f64 = 11.0;
const SMALL_SIZE: f64 = 10.0;
const LANE_NAME_SIZE: f64 = 11.0;
/// Text width of a box that took no time.
const BOX_INNER: f64 = 168.0;
const BOX_PAD: f64 = 6.0;
const GAP: f64 = 8.0;
const COL_PAD: f64 = 10.0;
const LANE_PAD: f64 = 6.0;
const MIN_LANE: f64 = 30.0;
const POOL_LANE: f64 = 26.0;
const MAX_BODY_LINES: usize = 6;
/// Most entries (log lines, `work`, awaits) a box's tooltip lists.
const TOOLTIP_LINES: usize = 50;
const MIN_WIDTH: f64 = 520.0;
/// The picture is made this wide, if need be, for its title to fit.
const MAX_TITLE_WIDTH: f64 = 1200.0;

/// Lanes of the main thread, top to bottom (then the pool threads). Node's
/// rejection listeners (the `rejections` phase) run at the end of a drain,
/// after the microtask queue: they are drawn in its lane.
const LANES: [Phase; 8] = [
    Phase::Main,
    Phase::Timers,
    Phase::Pending,
    Phase::Poll,
    Phase::Check,
    Phase::Close,
    Phase::NextTick,
    Phase::Microtask,
];

struct Colors {
    stroke: &'static str,
    fill: &'static str,
}

fn colors(lane: usize) -> Colors {
    let (stroke, fill) = match LANES.get(lane) {
        Some(Phase::Main) => ("#6b7280", "#f3f4f6"),
        Some(Phase::Timers) => ("#b45309", "#fef3c7"),
        Some(Phase::Pending) => ("#854d0e", "#fef9c3"),
        Some(Phase::Poll) => ("#1d4ed8", "#dbeafe"),
        Some(Phase::Check) => ("#15803d", "#dcfce7"),
        Some(Phase::Close) => ("#6d28d9", "#ede9fe"),
        Some(Phase::NextTick) => ("#b91c1c", "#fee2e2"),
        Some(Phase::Microtask | Phase::Rejections) => ("#0f766e", "#ccfbf1"),
        None => ("#475569", "#e2e8f0"),
    };
    Colors { stroke, fill }
}

fn lane_of(phase: Phase) -> usize {
    let phase = if phase == Phase::Rejections { Phase::Microtask } else { phase };
    LANES.iter().position(|p| *p == phase).unwrap_or(0)
}

/// A line inside a callback box.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Body {
    Log(String),
    Work(u64),
    /// An async function suspended at the `await` of this line (and whose
    /// body it is, [`EventKind::Suspend`]'s `by`).
    Suspend(usize, Option<crate::trace::Awaiter>),
}

/// A callback that ran, from its `Call` to its `Return`.
#[derive(Debug, Clone)]
struct Call {
    /// Which callback of the run this is: 0 for the first `Call` event (the
    /// main module), 1 for the next, … (`data-call` in the picture; the
    /// playground's steps count the same way).
    index: u64,
    lane: usize,
    /// `timeout`, `.then`, `main`, …
    kind: String,
    label: Option<String>,
    line: usize,
    turn: u64,
    start: u64,
    end: u64,
    body: Vec<Body>,
}

impl Call {
    fn same(&self, other: &Call) -> bool {
        self.lane == other.lane
            && self.turn == other.turn
            && self.kind == other.kind
            && self.label == other.label
            && self.line == other.line
            && self.body == other.body
    }
}

/// What the picture shows, in the order it happened.
enum Item {
    Turn {
        turn: u64,
        tick: u64,
        last: u64,
    },
    Sleep {
        from: u64,
        to: u64,
    },
    Call(Call),
    /// `count` more callbacks identical to `like`, up to tick `end`.
    More {
        like: Call,
        count: u64,
        end: u64,
    },
    PoolStart {
        thread: usize,
        job: u64,
        tick: u64,
        until: u64,
    },
    PoolFinish {
        thread: usize,
        job: u64,
    },
}

/// What was left out after [`MAX_BOXES`] or [`MAX_TURNS`].
#[derive(Default)]
struct Elided {
    per_lane: [u64; LANES.len()],
    turns: u64,
    first: Option<(u64, u64)>,
    last: (u64, u64),
}

impl Elided {
    fn any(&self) -> bool {
        self.turns > 0 || self.per_lane.iter().any(|&n| n > 0)
    }
}

struct Collected {
    items: Vec<Item>,
    elided: Elided,
    threads: usize,
}

impl Call {
    /// `timeout "label"`, `main module`, … (for tooltips).
    fn head(&self) -> String {
        match (self.kind.as_str(), &self.label) {
            ("main", _) => "main module".to_string(),
            (kind, Some(label)) => format!("{kind} \"{label}\""),
            (kind, None) => kind.to_string(),
        }
    }

    /// The box's first line: the label, else the kind.
    fn title(&self) -> &str {
        match (self.kind.as_str(), &self.label) {
            ("main", _) => "main module",
            (_, Some(label)) => label,
            (kind, None) => kind,
        }
    }

    /// The box's second line: kind and line, when the first line does not say them.
    fn meta(&self) -> String {
        match (self.kind.as_str(), &self.label) {
            ("main", _) => String::new(),
            (kind, Some(_)) => format!("{kind} · line {}", self.line),
            (_, None) => format!("line {}", self.line),
        }
    }
}

/// Walks the events: callbacks from `Call` to `Return`, sleeps, turns, pool jobs.
fn collect(trace: &Trace) -> Collected {
    let mut items = vec![Item::Turn { turn: 0, tick: 0, last: 0 }];
    let mut turn_item = 0;
    let mut open: Option<Call> = None;
    let mut boxes = 0;
    let mut turns = 1;
    let mut capped = false;
    let mut elided = Elided::default();
    let mut threads = 0;
    let mut calls = 0u64;
    for e in &trace.events {
        if !matches!(e.kind, EventKind::TurnStart | EventKind::Exit) && !capped {
            if let Item::Turn { last, .. } = &mut items[turn_item] {
                *last = (*last).max(e.tick);
            }
        }
        match &e.kind {
            EventKind::TurnStart => {
                if capped || turns >= MAX_TURNS {
                    capped = true;
                    elided.turns += 1;
                    elided.first.get_or_insert((e.turn, e.tick));
                    elided.last = (e.turn, e.tick);
                } else {
                    turn_item = items.len();
                    items.push(Item::Turn {
                        turn: e.turn,
                        tick: e.tick,
                        last: e.tick,
                    });
                    turns += 1;
                }
            }
            EventKind::Sleep { to } if !capped => {
                items.push(Item::Sleep { from: e.tick, to: *to });
                if let Item::Turn { last, .. } = &mut items[turn_item] {
                    *last = (*last).max(*to);
                }
            }
            EventKind::PoolStart { thread, job, until } if !capped => {
                threads = threads.max(*thread);
                items.push(Item::PoolStart {
                    thread: *thread,
                    job: *job,
                    tick: e.tick,
                    until: *until,
                });
            }
            EventKind::PoolFinish { thread, job } if !capped => {
                threads = threads.max(*thread);
                items.push(Item::PoolFinish {
                    thread: *thread,
                    job: *job,
                });
            }
            EventKind::Call { kind, label, line, .. } => {
                if let Some(call) = open.take() {
                    // A call inside a call (not produced today): end the outer one here.
                    push_call(&mut items, call, &mut boxes);
                }
                let lane = lane_of(e.phase);
                let index = calls;
                calls += 1;
                if capped || boxes >= MAX_BOXES {
                    capped = true;
                    elided.per_lane[lane] += 1;
                    elided.first.get_or_insert((e.turn, e.tick));
                    elided.last = (e.turn, e.tick);
                    continue;
                }
                open = Some(Call {
                    index,
                    lane,
                    kind: kind.to_string(),
                    label: label.clone(),
                    line: *line,
                    turn: e.turn,
                    start: e.tick,
                    end: e.tick,
                    body: Vec::new(),
                });
            }
            EventKind::Log { text } => {
                if let Some(call) = open.as_mut() {
                    call.body.push(Body::Log(text.clone()));
                }
            }
            EventKind::Work { ticks, .. } => {
                if let Some(call) = open.as_mut() {
                    call.body.push(Body::Work(*ticks));
                }
            }
            EventKind::Suspend { line, by } => {
                if let Some(call) = open.as_mut() {
                    call.body.push(Body::Suspend(*line, by.clone()));
                }
            }
            EventKind::Return => {
                if let Some(mut call) = open.take() {
                    call.end = e.tick;
                    push_call(&mut items, call, &mut boxes);
                }
            }
            _ => {}
        }
    }
    if let Some(call) = open.take() {
        // Stopped by a limit inside a callback.
        push_call(&mut items, call, &mut boxes);
    }
    Collected { items, elided, threads }
}

/// Appends a finished callback, or counts it in a `More` box when it repeats
/// the callbacks just before it.
fn push_call(items: &mut Vec<Item>, call: Call, boxes: &mut usize) {
    if let Some(Item::More { like, count, end }) = items.last_mut() {
        if like.same(&call) {
            *count += 1;
            *end = call.end;
            return;
        }
    }
    let run = items
        .iter()
        .rev()
        .take_while(|it| matches!(it, Item::Call(c) if c.same(&call)))
        .count();
    if run >= REPEATS_SHOWN {
        let end = call.end;
        items.push(Item::More { like: call, count: 1, end });
    } else {
        items.push(Item::Call(call));
        *boxes += 1;
    }
}

/// A text line placed inside a box.
struct Line {
    text: String,
    size: f64,
    fill: &'static str,
    italic: bool,
}

/// A box placed in a lane.
struct Placed {
    lane: usize,
    x: f64,
    w: f64,
    h: f64,
    /// First line: the label (or kind).
    title: String,
    /// Second line, left: kind and source line.
    meta: String,
    /// Second line, right: `@3` or `@3→9`.
    tick: String,
    lines: Vec<Line>,
    tooltip: String,
    /// `None`: a callback (`class="cb"`); `Some(n)`: stands for n callbacks.
    more: Option<u64>,
    /// The callback's index ([`Call::index`]; the first of a `more` box's
    /// callbacks), if it is known (not for callbacks not drawn at all).
    call: Option<u64>,
    took_time: bool,
}

struct Column {
    label: String,
    ticks: String,
    x0: f64,
    x1: f64,
}

struct Gap {
    x: f64,
    w: f64,
    label: String,
}

struct Bar {
    thread: usize,
    job: u64,
    start: u64,
    until: u64,
    x0: f64,
    x1: f64,
    finished: bool,
}

fn tick_span(start: u64, end: u64) -> String {
    if start == end {
        format!("@{start}")
    } else {
        format!("@{start}→{end}")
    }
}

/// Extra width of a callback that took `ticks` of clock time.
fn work_width(ticks: u64) -> f64 {
    if ticks == 0 {
        0.0
    } else {
        (36.0 * (1.0 + ticks as f64).log2()).round()
    }
}

/// Baselines inside a box: title, meta line, first body line; then every [`BODY_STEP`].
const TITLE_Y: f64 = 15.0;
const META_Y: f64 = 29.0;
const BODY_Y: f64 = 45.0;
const BODY_STEP: f64 = 15.0;

fn box_height(lines: usize) -> f64 {
    if lines == 0 {
        META_Y + 9.0
    } else {
        BODY_Y + BODY_STEP * (lines as f64 - 1.0) + 9.0
    }
}

/// A box with its first two lines fitted to its width.
#[allow(clippy::too_many_arguments)]
fn boxed(lane: usize, x: f64, w: f64, title: &str, meta: &str, tick: String, lines: Vec<Line>, tooltip: String) -> Placed {
    let inner = w - 2.0 * BOX_PAD;
    Placed {
        lane,
        x,
        w,
        h: box_height(lines.len()),
        title: fit(title, inner, LABEL_SIZE).0,
        meta: fit(meta, inner - text_width(&tick, SMALL_SIZE) - 8.0, SMALL_SIZE).0,
        tick,
        lines,
        tooltip,
        more: None,
        call: None,
        took_time: false,
    }
}

fn note(text: &str, inner: f64) -> Line {
    Line {
        text: fit(text, inner, BODY_SIZE).0,
        size: BODY_SIZE,
        fill: "#4b5563",
        italic: true,
    }
}

fn place_call(call: &Call, x: f64) -> Placed {
    let took = call.end.saturating_sub(call.start);
    let w = BOX_INNER + 2.0 * BOX_PAD + work_width(took);
    let inner = w - 2.0 * BOX_PAD;
    // The box shows its first lines; the tooltip its first TOOLTIP_LINES
    // entries: a callback that logs two million lines is drawn in the memory
    // of a few (the rest only counted).
    let mut lines = Vec::new();
    let mut hidden = 0usize;
    let mut full = Vec::new();
    let mut more = 0usize;
    let mut show = |line: Line, lines: &mut Vec<Line>| {
        if lines.len() < MAX_BODY_LINES {
            lines.push(line);
        } else {
            hidden += 1;
        }
    };
    for body in &call.body {
        if full.len() < TOOLTIP_LINES {
            full.push(match body {
                Body::Log(text) => text.clone(),
                Body::Work(n) => format!("work {n}"),
                Body::Suspend(line, by) => match by {
                    Some(by) => format!("{by} suspends at the await of line {line}"),
                    None => format!("suspends at the await of line {line}"),
                },
            });
        } else {
            more += 1;
        }
        match body {
            Body::Log(text) => {
                for part in text.split('\n') {
                    for l in wrap(part, inner, BODY_SIZE) {
                        let line = Line {
                            text: l,
                            size: BODY_SIZE,
                            fill: "#111827",
                            italic: false,
                        };
                        show(line, &mut lines);
                    }
                }
            }
            Body::Work(n) => show(note(&format!("⋯ work {n}"), inner), &mut lines),
            Body::Suspend(line, _) => show(note(&format!("suspends at await, line {line}"), inner), &mut lines),
        }
    }
    if hidden > 0 {
        // The last line shown makes room for the count.
        lines.truncate(MAX_BODY_LINES - 1);
        lines.push(note(&format!("… {} more lines", hidden + 1), inner));
    }
    let phase = LANES[call.lane].name();
    let ticks = if took > 0 {
        format!("ticks {}→{}", call.start, call.end)
    } else {
        format!("tick {}", call.start)
    };
    let mut tooltip = format!("{} (line {}) · turn {} · {phase} · {ticks}", call.head(), call.line, call.turn);
    for l in &full {
        tooltip.push('\n');
        tooltip.push_str(l);
    }
    if more > 0 {
        tooltip.push_str(&format!("\n… {} more", thousands(more as u64)));
    }
    let tick = tick_span(call.start, call.end);
    Placed {
        took_time: took > 0,
        call: Some(call.index),
        ..boxed(call.lane, x, w, call.title(), &call.meta(), tick, lines, tooltip)
    }
}

/// A box standing for `count` callbacks that are not drawn one by one.
fn place_more(lane: usize, x: f64, title: &str, meta: &str, count: u64, (start, end): (u64, u64), tooltip: String) -> Placed {
    let w = BOX_INNER + 2.0 * BOX_PAD;
    let lines = vec![note(&format!("… ×{} more", thousands(count)), w - 2.0 * BOX_PAD)];
    Placed {
        more: Some(count),
        ..boxed(lane, x, w, title, meta, tick_span(start, end), lines, tooltip)
    }
}

/// Narrowest bar of a pool job: room for `job N`.
fn bar_min_width(job: u64) -> f64 {
    (text_width(&format!("job {job}"), SMALL_SIZE) + 10.0).ceil()
}

/// Positions along x: columns, boxes, gaps and pool bars.
struct Layout {
    columns: Vec<Column>,
    boxes: Vec<Placed>,
    gaps: Vec<Gap>,
    bars: Vec<Bar>,
    end: f64,
}

fn column_head(turn: &str, ticks: &str) -> f64 {
    text_width(turn, HEAD_SIZE).max(text_width(ticks, SMALL_SIZE)) + 2.0 * COL_PAD
}

fn layout(collected: &Collected, x_start: f64) -> Layout {
    let mut columns: Vec<Column> = Vec::new();
    let mut boxes = Vec::new();
    let mut gaps = Vec::new();
    let mut bars: Vec<Bar> = Vec::new();
    let mut open_bars: Vec<Option<usize>> = vec![None; collected.threads + 1];
    // `cursor`: where the next box or gap goes; `content_end`: the right end of
    // everything in the current column; `drawn`: a box or gap is in it.
    let mut x0 = x_start;
    let mut cursor = x_start;
    let mut content_end = x_start;
    let mut drawn = false;
    let mut current: Option<(String, String)> = None;
    let close_column = |columns: &mut Vec<Column>, current: &mut Option<(String, String)>, x0: f64, content_end: f64| -> f64 {
        match current.take() {
            Some((label, ticks)) => {
                let x1 = (content_end + COL_PAD).max(x0 + column_head(&label, &ticks));
                columns.push(Column { label, ticks, x0, x1 });
                x1
            }
            None => x0,
        }
    };
    let advance = |w: f64, cursor: &mut f64, content_end: &mut f64, drawn: &mut bool| -> f64 {
        let x = *cursor;
        *content_end = content_end.max(x + w);
        *cursor = x + w + GAP;
        *drawn = true;
        x
    };
    for (i, item) in collected.items.iter().enumerate() {
        // Pool events happen between what is drawn: just after the last box or gap.
        let event_x = if drawn { cursor - GAP / 2.0 } else { cursor };
        match item {
            Item::Turn { turn, tick, last } => {
                // Turn 0 shows only when something happened in it (an ES module runs in turn 1).
                let empty = *turn == 0 && matches!(collected.items.get(i + 1), None | Some(Item::Turn { .. }));
                if empty {
                    continue;
                }
                x0 = close_column(&mut columns, &mut current, x0, content_end);
                let ticks = if tick == last {
                    format!("tick {tick}")
                } else {
                    format!("tick {tick}→{last}")
                };
                current = Some((format!("turn {turn}"), ticks));
                cursor = x0 + COL_PAD;
                content_end = cursor;
                drawn = false;
            }
            Item::Sleep { from, to } => {
                let label = format!("sleep {from}→{to}");
                let w = text_width(&label, SMALL_SIZE) + 16.0;
                let x = advance(w, &mut cursor, &mut content_end, &mut drawn);
                gaps.push(Gap { x, w, label });
            }
            Item::Call(call) => {
                let placed = place_call(call, cursor);
                advance(placed.w, &mut cursor, &mut content_end, &mut drawn);
                boxes.push(placed);
            }
            Item::More { like, count, end } => {
                let tooltip = format!(
                    "{} more {} like this: {} (line {}), ticks {}→{end}",
                    thousands(*count),
                    if *count == 1 { "callback" } else { "callbacks" },
                    like.head(),
                    like.line,
                    like.start
                );
                let placed = Placed {
                    call: Some(like.index),
                    ..place_more(like.lane, cursor, like.title(), &like.meta(), *count, (like.start, *end), tooltip)
                };
                advance(placed.w, &mut cursor, &mut content_end, &mut drawn);
                boxes.push(placed);
            }
            Item::PoolStart { thread, job, tick, until } => {
                content_end = content_end.max(event_x);
                open_bars[*thread] = Some(bars.len());
                bars.push(Bar {
                    thread: *thread,
                    job: *job,
                    start: *tick,
                    until: *until,
                    x0: event_x,
                    x1: event_x,
                    finished: false,
                });
            }
            Item::PoolFinish { thread, job } => {
                if let Some(b) = open_bars[*thread].take() {
                    let bar = &mut bars[b];
                    debug_assert_eq!(bar.job, *job);
                    // A job that started and finished between the same two boxes
                    // still gets a visible bar: make room for it.
                    let x = event_x.max(bar.x0 + bar_min_width(bar.job));
                    cursor += x - event_x;
                    bar.x1 = x;
                    bar.finished = true;
                    content_end = content_end.max(x);
                }
            }
        }
    }
    x0 = close_column(&mut columns, &mut current, x0, content_end);
    let elided = &collected.elided;
    if elided.any() {
        let (turn0, tick0) = elided.first.unwrap_or(elided.last);
        let (turn1, tick1) = elided.last;
        let label = if elided.turns > 0 {
            format!("… {} more turns", thousands(elided.turns))
        } else {
            "…".to_string()
        };
        let ticks = if (turn0, tick0) == (turn1, tick1) {
            format!("turn {turn0}, tick {tick0}")
        } else {
            format!("turns {turn0}→{turn1}, ticks {tick0}→{tick1}")
        };
        let mut end = x0 + COL_PAD;
        for (lane, &count) in elided.per_lane.iter().enumerate() {
            if count > 0 {
                let name = LANES[lane].name();
                let tooltip = format!(
                    "{} more {name} {} not drawn, {ticks}",
                    thousands(count),
                    if count == 1 { "callback" } else { "callbacks" }
                );
                let placed = place_more(
                    lane,
                    x0 + COL_PAD,
                    &format!("{name} callbacks"),
                    "not drawn",
                    count,
                    (tick0, tick1),
                    tooltip,
                );
                end = end.max(placed.x + placed.w);
                boxes.push(placed);
            }
        }
        let x1 = (end + COL_PAD).max(x0 + column_head(&label, &ticks));
        columns.push(Column { label, ticks, x0, x1 });
        x0 = x1;
    }
    // Jobs still running when the picture ends.
    for bar in bars.iter_mut().filter(|b| !b.finished) {
        bar.x1 = (x0 - COL_PAD).max(bar.x0 + bar_min_width(bar.job));
    }
    let end = bars.iter().map(|b| b.x1).fold(x0, f64::max);
    Layout {
        columns,
        boxes,
        gaps,
        bars,
        end,
    }
}

/// A number for an SVG attribute: at most one decimal, no trailing `.0`.
/// Written with integers (what `{:.1}` of the rounded value writes): float
/// formatting is about 17 KB of the WebAssembly module's code.
fn n(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{}", r as i64)
    } else if r.is_nan() {
        "NaN".to_string()
    } else if r.is_infinite() {
        if r > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        // |r| < 2^52 / 10 here (larger floats are whole), so the tenths are exact.
        let tenths = (v * 10.0).round() as i64;
        let sign = if tenths < 0 { "-" } else { "" };
        let t = tenths.unsigned_abs();
        format!("{sign}{}.{}", t / 10, t % 10)
    }
}

fn text(out: &mut String, x: f64, y: f64, size: f64, anchor: &str, extra: &str, content: &str) {
    let anchor = if anchor == "start" {
        String::new()
    } else {
        format!(" text-anchor=\"{anchor}\"")
    };
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" font-size=\"{}\"{anchor}{extra}>{}</text>",
        n(x),
        n(y),
        n(size),
        escape(content)
    );
}

fn ending_lines(trace: &Trace) -> Vec<String> {
    match &trace.ending {
        Ending::Finished { turns, ticks, .. } => vec![format!(
            "The loop exits after {turns} {} with the clock at tick {ticks}.",
            if *turns == 1 { "turn" } else { "turns" }
        )],
        Ending::Unhandled { .. } | Ending::Unsettled { .. } => {
            let exit = trace.ending.process_exit().unwrap_or_default();
            let mut first = exit[..1].to_ascii_uppercase();
            first.push_str(&exit[1..]);
            vec![format!("{first}.")]
        }
        Ending::Limit(hit) => {
            let problem = limit::problem(hit);
            let limit = match hit.limit {
                LimitKind::Turns | LimitKind::Callbacks => format!(
                    "{} {} ({})",
                    thousands(hit.max),
                    if hit.limit == LimitKind::Turns { "turns" } else { "callbacks" },
                    crate::bound::limit_source(hit.limit, hit.max, hit.bounded, hit.raised_for)
                ),
                // (The bounds worded as the diagnostic's help words them.)
                other => crate::problem::limit_reached(other, hit.max),
            };
            vec![
                format!(
                    "Stopped at turn {}, tick {}: {} (line {}).",
                    hit.turn, hit.tick, problem.message, hit.line
                ),
                format!("The limit was {limit}; {}.", limit::left_waiting(&hit.waiting)),
            ]
        }
    }
}

const LEGEND: &str = "Turns run left to right; each box is a callback in the lane of its phase or queue, in the order \
the callbacks ran, with the tick it ran at (@T, or @T→U when its work took time, which also widens it) and its log lines. \
Dashed gaps: the poll phase sleeping. Bars: thread-pool jobs, from start to finish.";

/// The picture of a verbose trace, as a standalone SVG document.
pub fn to_svg(trace: &Trace) -> String {
    let collected = collect(trace);
    let pool_lanes = collected.threads;
    let lane_names: Vec<String> = LANES
        .iter()
        .map(|p| p.name().to_string())
        .chain((1..=pool_lanes).map(|t| format!("pool thread {t}")))
        .collect();
    let gutter = MARGIN + lane_names.iter().map(|l| text_width(l, LANE_NAME_SIZE)).fold(0.0, f64::max) + 12.0;
    let lay = layout(&collected, gutter.ceil());

    // Lane heights and positions.
    let mut heights: Vec<f64> = vec![MIN_LANE; LANES.len()];
    for b in &lay.boxes {
        heights[b.lane] = heights[b.lane].max(b.h + 2.0 * LANE_PAD);
    }
    heights.extend(std::iter::repeat_n(POOL_LANE, pool_lanes));
    let lanes_top = 72.0;
    let mut lane_y = Vec::with_capacity(heights.len());
    let mut y = lanes_top;
    for h in &heights {
        lane_y.push(y);
        y += h;
    }
    let lanes_bottom = y;
    let main_bottom = lanes_top + heights[..LANES.len()].iter().sum::<f64>();

    let title = format!("loopsim: {}", trace.title);
    let title_room = (text_width(&title, TITLE_SIZE) + 2.0 * MARGIN).min(MAX_TITLE_WIDTH);
    let width = (lay.end + MARGIN).max(MIN_WIDTH).max(title_room).ceil();
    let text_room = width - 2.0 * MARGIN;
    let mut footer: Vec<(String, f64, &str)> = Vec::new();
    for line in ending_lines(trace) {
        for l in wrap(&line, text_room, BODY_SIZE) {
            footer.push((l, BODY_SIZE, "#111827"));
        }
    }
    for l in wrap(LEGEND, text_room, SMALL_SIZE) {
        footer.push((l, SMALL_SIZE, "#4b5563"));
    }
    let footer_top = lanes_bottom + 8.0;
    let height = (footer_top + 15.0 * footer.len() as f64 + 4.0 + MARGIN).ceil();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"{}\">",
        escape(FONT_FAMILY),
        w = n(width),
        h = n(height)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&title));
    let _ = writeln!(out, "<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>", n(width), n(height));
    let (shown_title, _) = fit(&title, text_room, TITLE_SIZE);
    text(
        &mut out,
        MARGIN,
        27.0,
        TITLE_SIZE,
        "start",
        " font-weight=\"bold\" fill=\"#111827\"",
        &shown_title,
    );

    // Columns: alternate shading, separators, headers.
    out.push_str("<g class=\"turns\">\n");
    for (i, c) in lay.columns.iter().enumerate() {
        let fill = if i % 2 == 0 { "#f9fafb" } else { "#ffffff" };
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"38\" width=\"{}\" height=\"{}\" fill=\"{fill}\"/>",
            n(c.x0),
            n(c.x1 - c.x0),
            n(lanes_bottom - 38.0)
        );
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"38\" x2=\"{x}\" y2=\"{}\" stroke=\"#d1d5db\"/>",
            n(lanes_bottom),
            x = n(c.x0)
        );
        text(
            &mut out,
            c.x0 + COL_PAD,
            50.0,
            HEAD_SIZE,
            "start",
            " font-weight=\"bold\" fill=\"#111827\"",
            &c.label,
        );
        text(&mut out, c.x0 + COL_PAD, 65.0, SMALL_SIZE, "start", " fill=\"#4b5563\"", &c.ticks);
    }
    if let Some(last) = lay.columns.last() {
        let _ = writeln!(
            out,
            "<line x1=\"{x}\" y1=\"38\" x2=\"{x}\" y2=\"{}\" stroke=\"#d1d5db\"/>",
            n(lanes_bottom),
            x = n(last.x1)
        );
    }
    out.push_str("</g>\n");

    // Lanes: separators and names.
    out.push_str("<g class=\"lanes\">\n");
    for (i, name) in lane_names.iter().enumerate() {
        let _ = writeln!(
            out,
            "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{}\"/>",
            n(MARGIN),
            n(width - MARGIN),
            if i == LANES.len() { "#9ca3af" } else { "#e5e7eb" },
            y = n(lane_y[i])
        );
        let colour = colors(i.min(LANES.len())).stroke;
        text(
            &mut out,
            MARGIN,
            lane_y[i] + heights[i] / 2.0 + 4.0,
            LANE_NAME_SIZE,
            "start",
            &format!(" fill=\"{colour}\""),
            name,
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#e5e7eb\"/>",
        n(MARGIN),
        n(width - MARGIN),
        y = n(lanes_bottom)
    );
    out.push_str("</g>\n");

    // Sleeps: a dashed band across the main thread's lanes, labelled in the poll lane.
    let poll = lane_of(Phase::Poll);
    for g in &lay.gaps {
        let _ = writeln!(
            out,
            "<g class=\"sleep\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f3f4f6\" stroke=\"#9ca3af\" stroke-dasharray=\"4 3\"/>",
            escape(&format!("the poll phase sleeps: {}", g.label.trim_start_matches("sleep "))),
            n(g.x),
            n(lanes_top + 2.0),
            n(g.w),
            n(main_bottom - lanes_top - 4.0)
        );
        text(
            &mut out,
            g.x + g.w / 2.0,
            lane_y[poll] + heights[poll] / 2.0 + 3.5,
            SMALL_SIZE,
            "middle",
            " fill=\"#374151\"",
            &g.label,
        );
        out.push_str("</g>\n");
    }

    // Pool jobs.
    for bar in &lay.bars {
        let lane = LANES.len() + bar.thread - 1;
        let (x0, x1) = (bar.x0 + 1.0, bar.x1 - 1.0);
        let y0 = lane_y[lane] + 4.0;
        let tip = format!("pool thread {}: job {}, ticks {}→{}", bar.thread, bar.job, bar.start, bar.until);
        let _ = writeln!(
            out,
            "<g class=\"job\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" fill=\"#e2e8f0\" stroke=\"#475569\"/>",
            escape(&tip),
            n(x0),
            n(y0),
            n((x1 - x0).max(1.0)),
            n(POOL_LANE - 8.0)
        );
        let label = format!("job {} · {}→{}", bar.job, bar.start, bar.until);
        let room = x1 - x0 - 8.0;
        let shown = if text_width(&label, SMALL_SIZE) <= room {
            label
        } else {
            fit(&format!("job {}", bar.job), room, SMALL_SIZE).0
        };
        if !shown.is_empty() && shown != "…" {
            text(&mut out, x0 + 4.0, y0 + 12.5, SMALL_SIZE, "start", " fill=\"#1f2937\"", &shown);
        }
        out.push_str("</g>\n");
    }

    // Callback boxes.
    for b in &lay.boxes {
        let c = colors(b.lane);
        let y0 = lane_y[b.lane] + LANE_PAD;
        let (class, mut calls) = match b.more {
            None => ("cb", String::new()),
            Some(count) => ("more", format!(" data-calls=\"{count}\"")),
        };
        if let Some(index) = b.call {
            let _ = write!(calls, " data-call=\"{index}\"");
        }
        let _ = writeln!(
            out,
            "<g class=\"{class}\" data-lane=\"{}\"{calls}><title>{}</title>",
            LANES[b.lane].name(),
            escape(&b.tooltip)
        );
        let dash = if b.more.is_some() { " stroke-dasharray=\"3 2\"" } else { "" };
        let _ = writeln!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" fill=\"{}\" stroke=\"{}\"{dash}/>",
            n(b.x),
            n(y0),
            n(b.w),
            n(b.h),
            c.fill,
            c.stroke
        );
        if b.took_time {
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"3\" fill=\"{}\"/>",
                n(b.x + 1.0),
                n(y0 + b.h - 4.0),
                n(b.w - 2.0),
                c.stroke
            );
        }
        text(
            &mut out,
            b.x + BOX_PAD,
            y0 + TITLE_Y,
            LABEL_SIZE,
            "start",
            " fill=\"#111827\"",
            &b.title,
        );
        if !b.meta.is_empty() {
            let fill = format!(" fill=\"{}\"", c.stroke);
            text(&mut out, b.x + BOX_PAD, y0 + META_Y, SMALL_SIZE, "start", &fill, &b.meta);
        }
        text(
            &mut out,
            b.x + b.w - BOX_PAD,
            y0 + META_Y,
            SMALL_SIZE,
            "end",
            &format!(" fill=\"{}\"", c.stroke),
            &b.tick,
        );
        for (i, l) in b.lines.iter().enumerate() {
            let style = if l.italic { " font-style=\"italic\"" } else { "" };
            text(
                &mut out,
                b.x + BOX_PAD,
                y0 + BODY_Y + BODY_STEP * i as f64,
                l.size,
                "start",
                &format!(" fill=\"{}\"{style}", l.fill),
                &l.text,
            );
        }
        out.push_str("</g>\n");
    }

    // How the run ended, and how to read the picture.
    out.push_str("<g class=\"footer\">\n");
    for (i, (line, size, fill)) in footer.iter().enumerate() {
        text(
            &mut out,
            MARGIN,
            footer_top + 12.0 + 15.0 * i as f64,
            *size,
            "start",
            &format!(" fill=\"{fill}\""),
            line,
        );
    }
    out.push_str("</g>\n</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::n;

    /// `n` writes what `{:.1}` of the value rounded to tenths writes.
    #[test]
    fn numbers_as_float_formatting_writes_them() {
        let mut rng = fastrand::Rng::with_seed(15);
        let mut values = vec![0.0, -0.0, 0.04, 0.05, -0.05, 0.25, 1.15, -2.35, 12.5, 599.95, -1e-9, 1e15 + 0.3];
        values.extend((0..10_000).map(|_| (rng.f64() - 0.5) * 10f64.powi(rng.i32(0..8))));
        for v in values {
            let r = (v * 10.0).round() / 10.0;
            let float = if r.fract() == 0.0 {
                format!("{}", r as i64)
            } else {
                format!("{r:.1}")
            };
            assert_eq!(n(v), float, "{v}");
        }
        assert_eq!(n(-2.35), "-2.4");
        assert_eq!(n(f64::NAN), "NaN");
        assert_eq!(n(f64::NEG_INFINITY), "-inf");
    }
}
