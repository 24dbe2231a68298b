//! The source shown under a diagnostic. miette would scan the whole file for
//! each diagnostic and print every line its labels touch in full; here each
//! diagnostic gets a small source of its own instead: the lines around its
//! labels, a long line cut to a window around them (`…` marks a cut), control
//! characters escaped (`\u{1b}`), spans moved to match. Line numbers and
//! columns shown are those of the real file (lines end at `\n`, columns count
//! characters from 1, a leading byte-order mark not counted).
//!
//! [`Lines`] finds the line of every label of every shown diagnostic in one
//! pass over the file, and the bounds of a line once, so rendering takes time
//! linear in the size of the file whatever the number of diagnostics.

use crate::term;
use miette::{LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::collections::HashMap;

/// Lines shown above and below a label (miette's default, which renders them).
const CONTEXT: usize = 1;
/// A line longer than this many bytes is shown cut to a window of this many
/// bytes around the labels of its group (shorter lines are shown whole).
pub const MAX_LINE: usize = 240;
/// Bytes of a cut line shown before the first label in it.
const LEFT: usize = 60;
/// A label over more lines than this is shown on its first line only.
pub const MAX_SPAN_LINES: usize = 4;

/// Line numbers and bounds in a source, for a set of offsets known up front.
pub(crate) struct Lines<'a> {
    src: &'a str,
    /// Each offset asked for, sorted, with its 0-based line.
    line_at: Vec<(usize, usize)>,
    /// 0-based line → its start and end (before its `\n`).
    bounds: HashMap<usize, (usize, usize)>,
}

impl<'a> Lines<'a> {
    /// Ready to answer for `offsets` (clamped to the source): one pass over `src`.
    pub(crate) fn new(src: &'a str, offsets: impl IntoIterator<Item = usize>) -> Self {
        let mut offsets: Vec<usize> = offsets.into_iter().map(|o| o.min(src.len())).collect();
        crate::sort::sort(&mut offsets);
        offsets.dedup();
        let bytes = src.as_bytes();
        let (mut line, mut prev) = (0, 0);
        let line_at = offsets
            .into_iter()
            .map(|o| {
                line += bytes[prev..o].iter().filter(|&&b| b == b'\n').count();
                prev = o;
                (o, line)
            })
            .collect();
        Lines {
            src,
            line_at,
            bounds: HashMap::new(),
        }
    }

    /// The 0-based line of `offset`, one of those given to [`Lines::new`].
    fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.src.len());
        let i = self.line_at.partition_point(|&(o, _)| o < offset);
        match self.line_at.get(i) {
            Some(&(o, line)) if o == offset => line,
            // Not asked for: count from the nearest offset before it (not reached in practice).
            _ => {
                let (from, line) = i.checked_sub(1).map_or((0, 0), |j| self.line_at[j]);
                line + self.src.as_bytes()[from..offset].iter().filter(|&&b| b == b'\n').count()
            }
        }
    }

    /// Start and end (before its `\n`) of `line`, which holds `at`; each line is scanned once.
    fn bounds(&mut self, line: usize, at: usize) -> (usize, usize) {
        let src = self.src;
        *self.bounds.entry(line).or_insert_with(|| {
            let at = at.min(src.len());
            let start = src.as_bytes()[..at].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            let end = src.as_bytes()[at..].iter().position(|&b| b == b'\n').map_or(src.len(), |p| at + p);
            (start, end)
        })
    }

    /// Bounds of lines `first..=last`, found from `known` (a line holding `at`).
    /// Fewer when the file has fewer lines.
    fn range(&mut self, known: usize, at: usize, first: usize, last: usize) -> Vec<(usize, usize)> {
        let (mut above, mut below) = (Vec::new(), Vec::new());
        let (mut start, _) = self.bounds(known, at);
        for line in (first..known).rev() {
            let b = self.bounds(line, start - 1);
            above.push(b);
            start = b.0;
        }
        let (_, mut end) = self.bounds(known, at);
        for line in known + 1..=last {
            if end >= self.src.len() {
                break;
            }
            let b = self.bounds(line, end + 1);
            below.push(b);
            end = b.1;
        }
        above.reverse();
        above.push(self.bounds(known, at));
        above.extend(below);
        above
    }
}

/// A label of a diagnostic in the real source.
#[derive(Debug, Clone)]
pub(crate) struct Label {
    pub start: usize,
    pub end: usize,
    pub text: String,
    pub primary: bool,
}

/// The offsets [`Lines`] must know to show `labels`.
pub(crate) fn offsets<'a>(src: &'a str, labels: &'a [Label]) -> impl Iterator<Item = usize> + 'a {
    labels.iter().flat_map(move |l| {
        let (a, b) = snap(src, l.start, l.end);
        [a, b]
    })
}

/// `start..end` clamped to `src` and widened to whole characters.
fn snap(src: &str, start: usize, end: usize) -> (usize, usize) {
    let mut a = start.min(src.len());
    let mut b = end.clamp(a, src.len());
    while !src.is_char_boundary(a) {
        a -= 1;
    }
    while !src.is_char_boundary(b) {
        b += 1;
    }
    (a, b)
}

/// One label placed: its lines and byte columns.
struct Placed {
    start: usize,
    end: usize,
    first_line: usize,
    last_line: usize,
    text: String,
    primary: bool,
}

impl Placed {
    /// An offset inside its last line: its end, or the newline it ends after.
    fn end_at(&self, src: &str) -> usize {
        if self.end > self.start && src.as_bytes()[self.end - 1] == b'\n' {
            self.end - 1
        } else {
            self.end
        }
    }
}

/// Consecutive real lines shown together, at `vstart..vend` of the excerpt.
#[derive(Debug)]
struct Segment {
    vstart: usize,
    vend: usize,
    /// Each line shown: its 0-based real line and where it starts in the excerpt.
    lines: Vec<(usize, usize)>,
}

/// The source of one diagnostic as miette reads it, with its labels.
#[derive(Debug)]
pub(crate) struct Excerpt {
    name: String,
    text: String,
    segments: Vec<Segment>,
    /// Excerpt offset of each label start → its real 0-based byte column.
    columns: HashMap<usize, usize>,
    /// The labels, with spans in the excerpt.
    pub labels: Vec<LabeledSpan>,
}

impl Excerpt {
    /// The excerpt of `lines`' source showing `labels`, for the file `name`.
    pub(crate) fn new(name: &str, lines: &mut Lines<'_>, labels: &[Label]) -> Self {
        let src = lines.src;
        let mut placed: Vec<Placed> = labels
            .iter()
            .map(|l| {
                let (start, mut end) = snap(src, l.start, l.end);
                let first_line = lines.line_of(start);
                let mut last_line = lines.line_of(end);
                if end > start && src.as_bytes()[end - 1] == b'\n' {
                    last_line -= 1;
                }
                let mut text = l.text.clone();
                if last_line >= first_line + MAX_SPAN_LINES {
                    text = format!("{text} (to line {})", last_line + 1);
                    end = lines.bounds(first_line, start).1;
                    last_line = first_line;
                }
                Placed {
                    start,
                    end,
                    first_line,
                    last_line,
                    text,
                    primary: l.primary,
                }
            })
            .collect();
        crate::sort::sort_by_key(&mut placed, |p| (p.first_line, p.start));

        // Groups of labels whose lines touch and that fit one window.
        let mut groups: Vec<Vec<Placed>> = Vec::new();
        for p in placed {
            let fits = groups.last().is_some_and(|g| {
                let last = g.iter().map(|q| q.last_line).max().unwrap_or(0);
                if p.first_line > last + 2 * CONTEXT + 1 {
                    return false;
                }
                let (lo, hi) = columns(lines, g.iter().chain(std::iter::once(&p)));
                hi - lo <= MAX_LINE - LEFT || !g.iter().chain(std::iter::once(&p)).any(|q| long(lines, q.first_line, q.start))
            });
            match groups.last_mut() {
                Some(g) if fits => g.push(p),
                _ => groups.push(vec![p]),
            }
        }

        let mut excerpt = Excerpt {
            name: term::escape(name).into_owned(),
            text: String::new(),
            segments: Vec::new(),
            columns: HashMap::new(),
            labels: Vec::new(),
        };
        for group in groups {
            excerpt.add_group(lines, group);
        }
        excerpt
    }

    /// Whether it shows no text (a diagnostic of a file with none to show).
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Adds the lines of one group of labels, and the labels.
    fn add_group(&mut self, lines: &mut Lines<'_>, group: Vec<Placed>) {
        let src = lines.src;
        let anchor = &group[0];
        let first = anchor.first_line.saturating_sub(CONTEXT);
        let on_last = group.iter().map(|p| p.last_line).max().unwrap_or(anchor.first_line);
        let mut shown = lines.range(anchor.first_line, anchor.start, first, on_last + CONTEXT);
        // No context line for the empty "line" after a final newline.
        while shown.len() > on_last + 1 - first && shown.last() == Some(&(src.len(), src.len())) {
            shown.pop();
        }
        let window = if shown.iter().any(|&(s, e)| e - s > MAX_LINE) {
            let (lo, _) = columns(lines, group.iter());
            let lo = lo.saturating_sub(LEFT);
            Some((lo, lo + MAX_LINE))
        } else {
            None
        };

        let vstart = self.text.len();
        let mut seg_lines = Vec::with_capacity(shown.len());
        // Per line: the real range shown, where it is in the excerpt, and whether it was cut on the right.
        let mut parts: Vec<(usize, usize, usize, usize, bool)> = Vec::with_capacity(shown.len());
        for (i, &(start, end)) in shown.iter().enumerate() {
            // A CRLF line ends before its CR.
            let visible_end = if end > start && end < src.len() && src.as_bytes()[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            let (a, b) = match window {
                Some((lo, hi)) if end - start > MAX_LINE => {
                    let (a, _) = snap(src, (start + lo).min(visible_end), visible_end);
                    let (_, b) = snap(src, a, (start + hi).min(visible_end));
                    (a, b)
                }
                _ => (start, visible_end),
            };
            seg_lines.push((first + i, self.text.len()));
            if a > start {
                self.text.push('…');
            }
            let content = self.text.len();
            self.text.push_str(&term::escape_source(&src[a..b]));
            let content_end = self.text.len();
            let cut = b < visible_end;
            if cut {
                self.text.push('…');
            }
            // Every line ends with a newline here, the last one of the file
            // too: miette shows an empty label at the end of a line only then.
            if !src.is_empty() {
                self.text.push('\n');
            }
            parts.push((a, b, content, content_end, cut));
        }
        let vend = self.text.len();

        // Where a real offset is in the excerpt.
        let map = |off: usize| -> usize {
            let i = shown.partition_point(|&(s, _)| s <= off);
            let Some(i) = i.checked_sub(1) else {
                return vstart;
            };
            if off > shown[i].1 {
                return vend;
            }
            let (a, b, content, content_end, cut) = parts[i];
            if off <= a {
                content
            } else if off == b || (off > b && !cut) {
                content_end
            } else if off > b {
                content_end + '…'.len_utf8()
            } else {
                content + term::escape_source(&src[a..off]).len()
            }
        };
        for p in &group {
            let (vs, ve) = (map(p.start), map(p.end));
            // The column a box's header shows when its first label is this one.
            let start = lines.bounds(p.first_line, p.start).0;
            let bom = start == 0 && src.starts_with('\u{feff}');
            self.columns
                .insert(vs, chars_in(&src.as_bytes()[start..p.start]).saturating_sub(usize::from(bom)));
            let text = Some(term::cut(&term::escape(&p.text), super::MAX_LABEL).into_owned());
            let span = (vs, ve.max(vs) - vs);
            self.labels.push(if p.primary {
                LabeledSpan::new_primary_with_span(text, span)
            } else {
                LabeledSpan::new_with_span(text, span)
            });
        }
        self.segments.push(Segment {
            vstart,
            vend,
            lines: seg_lines,
        });
    }
}

/// The smallest and largest byte column (from its line's start) of `placed`'s starts and ends.
fn columns<'p>(lines: &mut Lines<'_>, placed: impl Iterator<Item = &'p Placed>) -> (usize, usize) {
    let (mut lo, mut hi) = (usize::MAX, 0);
    for p in placed {
        let s = p.start - lines.bounds(p.first_line, p.start).0;
        let e = p.end - lines.bounds(p.last_line, p.end_at(lines.src)).0;
        lo = lo.min(s);
        hi = hi.max(e).max(s);
    }
    (lo.min(hi), hi)
}

/// The characters in UTF-8 `bytes`: those that continue none. (One plain
/// loop: a vectorised count costs the WebAssembly build room.)
fn chars_in(bytes: &[u8]) -> usize {
    let mut n = 0;
    for &b in bytes {
        n += usize::from((b as i8) >= -0x40);
    }
    n
}

/// Whether `line` (holding `at`) or a line next to it is longer than [`MAX_LINE`].
fn long(lines: &mut Lines<'_>, line: usize, at: usize) -> bool {
    lines
        .range(line, at, line.saturating_sub(CONTEXT), line + CONTEXT)
        .iter()
        .any(|&(s, e)| e - s > MAX_LINE)
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let (off, end) = (span.offset(), span.offset() + span.len());
        if self.segments.is_empty() {
            return Ok(Box::new(MietteSpanContents::new_named(
                self.name.clone(),
                b"",
                (0, 0).into(),
                0,
                0,
                0,
            )));
        }
        let seg = self
            .segments
            .iter()
            .find(|s| s.vstart <= off && end <= s.vend)
            .ok_or(MietteError::OutOfBounds)?;
        let line_at = |o: usize| seg.lines.partition_point(|&(_, v)| v <= o).saturating_sub(1);
        let i = line_at(off);
        let j = line_at(if end > off { end - 1 } else { off });
        let first = i.saturating_sub(context_lines_before);
        let last = (j + context_lines_after).min(seg.lines.len() - 1);
        let from = seg.lines[first].1;
        let to = seg.lines.get(last + 1).map_or(seg.vend, |&(_, v)| v);
        let column = if context_lines_before == 0 {
            self.columns.get(&off).copied().unwrap_or(0)
        } else {
            0
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &self.text.as_bytes()[from..to],
            (from, to - from).into(),
            seg.lines[first].0,
            column,
            last + 1 - first,
        )))
    }
}
