//! Symmetry reduction of the orders search (docs/orders.md "How loopsim
//! searches").
//!
//! Completions of one statement written in a `repeat` of the main module —
//! `repeat 8 { submit "job {i}" 10 }` — differ only in `{i}`, and `{i}` only
//! fills in texts ([`crate::interp::interchangeable_sites`]). When several of
//! them complete in one tick, letting any other member go first gives the same
//! run with the members' `{i}` renamed. So the search offers only the first
//! submitted ([`super::node20`]) and records a [`Mark`]; this module puts the
//! renamings back: every order found stands for its *orbit*, the orders
//! obtained by renaming the `{i}` of the lines each mark's members logged.
//!
//! A member's lines are those logged from inside its statement with its `{i}`
//! (only it logs there with that `{i}`: the statement runs once per `{i}`).
//! Renaming changes a line only if its text has `{i}`: members whose lines do
//! not are *silent*, and permuting them changes nothing. So an order with one
//! mark of `m` members of which `s` are silent stands for `m! / s!` orders.

pub use super::node20::Member;
use crate::interp::LineMeta;

/// Interchangeable completions met on one schedule.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Mark {
    /// The callback statement's site number.
    pub site: usize,
    /// The statement's span in bytes (start, end).
    #[serde(skip)]
    pub span: (u32, u32),
    /// The members' `{i}`, ascending.
    pub members: Vec<u32>,
}

/// One order found by the reduced search, in its canonical form: the lines of
/// each mark's members renamed so that the `{i}` of those that log one appear
/// in ascending order of their first such line.
#[derive(Debug, Clone)]
pub struct Entry {
    pub logs: Vec<String>,
    /// How the process ends after them.
    pub end: super::End,
    /// The timing that made it differ from the default (empty for the default).
    pub race: String,
    pub(crate) meta: Vec<LineMeta>,
    pub marks: Vec<Mark>,
    /// Groups of commuting completions (each member's lines one block).
    pub blocks: Vec<Vec<Member>>,
    /// How many orders it stands for (saturating).
    pub orbit: u128,
    /// Its lines are those the schedule printed (the canonical form changed
    /// nothing), so `race` is the timing of exactly these lines.
    pub as_found: bool,
}

impl Entry {
    /// The timing of `logs`, one of the orders this entry stands for: the
    /// schedule's own timing (`race`) for the lines it printed, `orbit`
    /// (the orbit's, [`orbit_timing`]) for every other arrangement. (The
    /// canonical order need not be the one found, nor the first of the
    /// orbit: fresh-clone helper 78.)
    pub fn timing_of(&self, logs: &[String], orbit: &str) -> String {
        if self.as_found && logs == self.logs {
            self.race.clone()
        } else {
            orbit.to_string()
        }
    }
}

/// For matching an order against an entry's blocks: the group and length of
/// the slot each canonical position starts, and each group's blocks.
type SlotMap<'s> = (&'s [Option<(usize, usize)>], &'s [Vec<Vec<String>>]);

/// Whether line `l` was logged from inside the statement at `span` with `{i}` = `index`.
pub(crate) fn logged_by(l: &LineMeta, span: (u32, u32), index: Option<u32>) -> bool {
    l.start >= span.0 && l.start < span.1 && l.index == index
}

/// A member's line positions (only it logs from its statement with its `{i}`).
pub(crate) fn positions(meta: &[LineMeta], m: &Member) -> Vec<usize> {
    meta.iter()
        .enumerate()
        .filter(|(_, l)| logged_by(l, m.span, m.index))
        .map(|(p, _)| p)
        .collect()
}

/// An order's hash (its lines and how it ended), to tell orders apart without keeping them.
pub(crate) fn order_hash(logs: &[String], end: super::End) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (logs, end).hash(&mut h);
    h.finish()
}

/// The slots of a group of commuting completions: each member's block
/// (first position, length), ordered by position; `None` unless every member
/// logged one contiguous block.
fn slots(meta: &[LineMeta], group: &[Member]) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    for m in group {
        let p = positions(meta, m);
        let (&first, &last) = (p.first()?, p.last()?);
        if last - first + 1 != p.len() {
            return None;
        }
        out.push((first, p.len()));
    }
    crate::sort::sort(&mut out);
    Some(out)
}

/// `logs`/`meta` with the blocks at `slots` replaced by `contents` (one per slot, in order).
fn place(
    logs: &[String],
    meta: &[LineMeta],
    slots: &[(usize, usize)],
    contents: &[(Vec<String>, Vec<LineMeta>)],
) -> (Vec<String>, Vec<LineMeta>) {
    (
        spliced(logs, slots, contents.iter().map(|c| c.0.as_slice())),
        spliced(meta, slots, contents.iter().map(|c| c.1.as_slice())),
    )
}

/// `items` with the stretches at `slots` replaced by `contents` (one per slot, in order).
fn spliced<'c, T: Clone + 'c>(items: &[T], slots: &[(usize, usize)], contents: impl Iterator<Item = &'c [T]>) -> Vec<T> {
    let mut out = Vec::with_capacity(items.len());
    let mut p = 0;
    for (&(start, len), content) in slots.iter().zip(contents) {
        out.extend_from_slice(&items[p..start]);
        out.extend_from_slice(content);
        p = start + len;
    }
    out.extend_from_slice(&items[p..]);
    out
}

/// The blocks at `slots`, in slot order.
fn contents(logs: &[String], meta: &[LineMeta], slots: &[(usize, usize)]) -> Vec<(Vec<String>, Vec<LineMeta>)> {
    slots
        .iter()
        .map(|&(start, len)| (logs[start..start + len].to_vec(), meta[start..start + len].to_vec()))
        .collect()
}

/// `n! / Π m!` over the multiplicities `m` of equal blocks.
pub(crate) fn multinomial(blocks: &[Vec<String>]) -> u128 {
    let mut sorted: Vec<&Vec<String>> = blocks.iter().collect();
    crate::sort::sort(&mut sorted);
    let mut out = factorial(blocks.len());
    let mut run = 1;
    for w in sorted.windows(2) {
        if w[0] == w[1] {
            run += 1;
        } else {
            out /= factorial(run);
            run = 1;
        }
    }
    out / factorial(run)
}

/// `n!`, saturating.
pub(crate) fn factorial(n: usize) -> u128 {
    (1..=n as u128).fold(1u128, |a, x| a.saturating_mul(x))
}

/// For each mark, each member's line positions (members with lines only).
fn member_lines(meta: &[LineMeta], mark: &Mark) -> Vec<(u32, Vec<usize>)> {
    let mut out: Vec<(u32, Vec<usize>)> = Vec::new();
    for (pos, m) in meta.iter().enumerate() {
        let Some(index) = m.index else { continue };
        if !logged_by(m, mark.span, Some(index)) || mark.members.binary_search(&index).is_err() {
            continue;
        }
        match out.iter_mut().find(|(i, _)| *i == index) {
            Some((_, lines)) => lines.push(pos),
            None => out.push((index, vec![pos])),
        }
    }
    out
}

/// The members of `mark` that log a line with `{i}`, in order of their first
/// such line, with those lines' positions.
pub(crate) fn speaking(meta: &[LineMeta], mark: &Mark) -> Vec<(u32, Vec<usize>)> {
    let mut members: Vec<(u32, Vec<usize>)> = member_lines(meta, mark)
        .into_iter()
        .map(|(i, lines)| (i, lines.into_iter().filter(|&p| meta[p].pattern.is_some()).collect::<Vec<_>>()))
        .filter(|(_, lines)| !lines.is_empty())
        .collect();
    crate::sort::sort_by_key(&mut members, |(_, lines)| lines[0]);
    members
}

/// `pattern` with `{i}` = `index`.
fn fill(pattern: &str, index: u32) -> String {
    pattern.replace('\0', &index.to_string())
}

/// `n! / (n - k)!`, saturating.
pub(crate) fn arrangements(n: usize, k: usize) -> u128 {
    ((n - k.min(n) + 1)..=n).fold(1u128, |a, x| a.saturating_mul(x as u128))
}

/// Puts `logs` (with its `meta` and `marks`) in canonical form and counts its orbit.
pub(crate) fn canonical(
    mut logs: Vec<String>,
    end: super::End,
    race: String,
    mut meta: Vec<LineMeta>,
    marks: Vec<Mark>,
    blocks: Vec<Vec<Member>>,
) -> Entry {
    let found = (!marks.is_empty() || !blocks.is_empty()).then(|| logs.clone());
    let mut orbit = 1u128;
    for mark in &marks {
        let speaking = speaking(&meta, mark);
        orbit = orbit.saturating_mul(arrangements(mark.members.len(), speaking.len()));
        for ((_, lines), &index) in speaking.iter().zip(&mark.members) {
            for &p in lines {
                if let Some(pattern) = &meta[p].pattern {
                    logs[p] = fill(pattern, index);
                }
            }
        }
    }
    // Each group of commuting completions: its members' blocks put in the
    // members' order (statement, then `{i}`), slot by slot.
    let mut kept = Vec::new();
    for mut group in blocks {
        let Some(slots) = slots(&meta, &group) else { continue };
        crate::sort::sort(&mut group);
        let blocks: Vec<(Vec<String>, Vec<LineMeta>)> = group
            .iter()
            .map(|m| {
                let p = positions(&meta, m);
                (
                    p.iter().map(|&q| logs[q].clone()).collect(),
                    p.iter().map(|&q| meta[q].clone()).collect(),
                )
            })
            .collect();
        orbit = orbit.saturating_mul(multinomial(&blocks.iter().map(|b| b.0.clone()).collect::<Vec<_>>()));
        (logs, meta) = place(&logs, &meta, &slots, &blocks);
        kept.push(group);
    }
    let as_found = found.is_none_or(|f| f == logs);
    Entry {
        logs,
        end,
        race,
        meta,
        marks,
        blocks: kept,
        orbit,
        as_found,
    }
}

/// The timing behind the orders of an entry's orbit other than its canonical
/// one: completions of one tick that came in another order, by statement.
pub(crate) fn orbit_timing(entry: &Entry, src: &str) -> String {
    let mut heads: Vec<String> = Vec::new();
    let spans = entry
        .marks
        .iter()
        .map(|m| m.span)
        .chain(entry.blocks.iter().flatten().map(|m| m.span));
    for (start, end) in spans {
        let head = super::races::head(src.get(start as usize..end as usize).unwrap_or_default());
        let head = format!("`{head}`");
        if !heads.contains(&head) {
            heads.push(head);
        }
    }
    let what = if heads.len() > 3 {
        format!("{} and {} more", heads[..3].join(", "), heads.len() - 3)
    } else {
        heads.join(", ")
    };
    if entry.race == super::NO_CROSSING {
        format!("completions of one tick ({what}) came in another order")
    } else {
        format!("completions of one tick ({what}) came in another order; and {}", entry.race)
    }
}

/// Adds `new` to the entries of the same canonical lines: an orbit inside
/// another (its marks and groups covered by the other's, each member's
/// lines at the same places) is dropped, the other kept.
pub(crate) fn merge(entries: &mut Vec<Entry>, new: Entry) {
    let inside = |outer: &Entry, inner: &Entry| {
        covers(&outer.marks, &inner.marks) && covers_blocks(&outer.blocks, &inner.blocks) && same_places(outer, inner)
    };
    if entries.iter().any(|e| inside(e, &new)) {
        return;
    }
    // The first found gives its timing.
    let race = entries.first().map_or_else(|| new.race.clone(), |e| e.race.clone());
    entries.retain(|e| !inside(&new, e));
    entries.push(Entry { race, ..new });
}

/// How many distinct orders `entries` stand for, and whether that is exact:
/// one entry's orbit is when its arrangements print apart
/// ([`Entry::distinct`]); else the orders are listed and compared while they
/// hold at most [`MAX_COMPARED`] orders in all, and past that their sum is an
/// upper bound.
pub(crate) fn count(entries: &[Entry]) -> (u128, bool) {
    let sum = entries.iter().fold(0u128, |a, e| a.saturating_add(e.orbit));
    if entries.iter().all(Entry::plain) || matches!(entries, [e] if e.distinct()) {
        return (sum, true);
    }
    let lines = entries.iter().map(|e| e.logs.len().max(1) as u128).max().unwrap_or(1);
    if sum > MAX_COMPARED as u128 || sum.saturating_mul(lines) > MAX_COMPARED_LINES {
        return (sum, false);
    }
    let mut all = std::collections::HashSet::new();
    for e in entries {
        all.extend(e.expand(MAX_COMPARED).iter().map(|logs| order_hash(logs, e.end)));
    }
    (all.len() as u128, true)
}

/// Most orders [`count`] lists to count the orders of several entries exactly.
pub const MAX_COMPARED: usize = 50_000;

/// Most lines those orders may hold in all (memory).
pub const MAX_COMPARED_LINES: u128 = 2_000_000;

/// Whether each member of `inner`'s groups has its block, and each member of
/// its marks its lines with `{i}`, at the same places in `outer`. Two entries
/// of the same lines may hold them at other places, and then stand for other
/// orders:
/// - jobs a (“x”, “y”), b (“x”, and an immediate “y”) and c (“x”), a and c
///   commuting, print alike as a b c and a c b, but only the first's c b a
///   prints “x x x y” before a later job's lines (fresh-clone helper 76);
/// - `repeat 2 { submit "b" 10 { log "{i}" … } }` beside a `submit "c" 10 {
///   log "{i}" … }` in a `repeat` prints “1” and “2” from either statement:
///   renaming b's `{i}` swaps other lines in each entry.
fn same_places(outer: &Entry, inner: &Entry) -> bool {
    let named = |e: &Entry, m: &Mark| speaking(&e.meta, m).into_iter().map(|(_, l)| l).collect::<Vec<_>>();
    inner
        .blocks
        .iter()
        .flatten()
        .all(|m| positions(&outer.meta, m) == positions(&inner.meta, m))
        && inner.marks.iter().all(|m| named(outer, m) == named(inner, m))
}

/// Whether every group of `inner` lies within a group of `outer`.
fn covers_blocks(outer: &[Vec<Member>], inner: &[Vec<Member>]) -> bool {
    inner.iter().all(|g| outer.iter().any(|o| g.iter().all(|m| o.contains(m))))
}

/// Whether every mark of `inner` lies within a mark of `outer` (same site, members a subset).
fn covers(outer: &[Mark], inner: &[Mark]) -> bool {
    inner.iter().all(|m| {
        outer
            .iter()
            .any(|o| o.site == m.site && m.members.iter().all(|i| o.members.contains(i)))
    })
}

impl Entry {
    /// Whether it has no symmetries: its lines are the order itself, and its
    /// orbit that one order.
    pub fn plain(&self) -> bool {
        self.marks.is_empty() && self.blocks.is_empty()
    }

    /// Whether the orders of its orbit are all different, so that `orbit`
    /// counts them. Renamings print apart (a filled `{i}` shows its number).
    /// Arrangements of a group's blocks do when its blocks are all as long
    /// (each stands where another stood), or when the first line of each
    /// block is printed nowhere in the order but at the starts of blocks of
    /// the same lines: then where the blocks start, and which is which, can
    /// be read from the lines. (Group by group: once the arrangement of the
    /// groups read from their first lines is known, so is where every other
    /// block stands.) Otherwise they may print alike: blocks (“x”, “x”) and
    /// (“x”) print “x x x” in either order (fresh-clone helper 77). With
    /// renamings too, only if no line has `{i}`.
    pub fn distinct(&self) -> bool {
        if self.blocks.is_empty() {
            return true;
        }
        if !self.marks.is_empty() && self.meta.iter().any(|m| m.pattern.is_some()) {
            return false;
        }
        self.blocks.iter().all(|group| {
            let Some(slots) = slots(&self.meta, group) else { return false };
            if slots.iter().all(|s| s.1 == slots[0].1) {
                return true;
            }
            let mut blocks: Vec<&[String]> = slots.iter().map(|&(start, len)| &self.logs[start..start + len]).collect();
            crate::sort::sort(&mut blocks);
            // Blocks of one first line are equal, and that line is printed
            // only at their starts.
            let printed = self.logs.iter().filter(|l| blocks.binary_search_by(|b| b[0].cmp(*l)).is_ok());
            !blocks.windows(2).any(|w| w[0][0] == w[1][0] && w[0] != w[1]) && printed.count() == blocks.len()
        })
    }

    /// Whether `logs`, ending as `end` says, is in this entry's orbit.
    pub fn contains(&self, logs: &[String], end: super::End) -> bool {
        if end != self.end || logs.len() != self.logs.len() {
            return false;
        }
        if self.blocks.is_empty() {
            return self.contains_renamed(logs);
        }
        // The group and length of the slot each position starts, over all groups.
        let mut starts: Vec<Option<(usize, usize)>> = vec![None; self.logs.len()];
        let mut groups: Vec<Vec<Vec<String>>> = Vec::new();
        for (g, group) in self.blocks.iter().enumerate() {
            let Some(slots) = slots(&self.meta, group) else { return false };
            for &(start, len) in &slots {
                starts[start] = Some((g, len));
            }
            groups.push(contents(&self.logs, &self.meta, &slots).into_iter().map(|c| c.0).collect());
        }
        let mut used: Vec<Vec<bool>> = groups.iter().map(|g| vec![false; g.len()]).collect();
        let mut aligned = self.logs.clone();
        self.match_blocks(logs, (0, 0), (&starts, &groups), &mut used, &mut aligned)
    }

    /// Matches `logs[j..]` against the canonical lines from position `p`:
    /// each slot takes an unused block of its group; other lines are kept in
    /// `aligned` for the renaming check at the end.
    ///
    /// `at`: (canonical position, position in `logs`); `slots`: the group and
    /// length of the slot each canonical position starts, and each group's blocks.
    fn match_blocks(
        &self,
        logs: &[String],
        (p, j): (usize, usize),
        slots: SlotMap<'_>,
        used: &mut Vec<Vec<bool>>,
        aligned: &mut Vec<String>,
    ) -> bool {
        let (starts, groups) = slots;
        if p == self.logs.len() {
            return j == logs.len() && self.contains_renamed(aligned);
        }
        match starts[p] {
            Some((g, _)) => {
                let end = p + starts[p].map_or(0, |(_, len)| len);
                for b in 0..groups[g].len() {
                    if used[g][b] || (b > 0 && groups[g][b] == groups[g][b - 1] && !used[g][b - 1]) {
                        continue;
                    }
                    let block = &groups[g][b];
                    if logs.get(j..j + block.len()) != Some(block.as_slice()) {
                        continue;
                    }
                    used[g][b] = true;
                    if self.match_blocks(logs, (end, j + block.len()), slots, used, aligned) {
                        return true;
                    }
                    used[g][b] = false;
                }
                false
            }
            None => {
                let Some(line) = logs.get(j) else { return false };
                aligned[p] = line.clone();
                self.match_blocks(logs, (p + 1, j + 1), slots, used, aligned)
            }
        }
    }

    /// Whether `logs` is in the orbit of the renamings alone (positions as in the canonical lines).
    fn contains_renamed(&self, logs: &[String]) -> bool {
        if logs.len() != self.logs.len() {
            return false;
        }
        let mut renamed = vec![false; logs.len()];
        for mark in &self.marks {
            let mut used: Vec<u32> = Vec::new();
            for (_, lines) in speaking(&self.meta, mark) {
                // The member's `{i}` in `logs`: the one that renders its first line.
                let pattern = self.meta[lines[0]].pattern.as_deref().unwrap_or_default();
                let Some(&index) = mark
                    .members
                    .iter()
                    .find(|&&i| !used.contains(&i) && fill(pattern, i) == logs[lines[0]])
                else {
                    return false;
                };
                used.push(index);
                for &p in &lines {
                    let pattern = self.meta[p].pattern.as_deref().unwrap_or_default();
                    if fill(pattern, index) != logs[p] {
                        return false;
                    }
                    renamed[p] = true;
                }
            }
        }
        logs.iter().zip(&self.logs).zip(&renamed).all(|((a, b), &r)| r || a == b)
    }

    /// The orders of the orbit, at most `max`: the renamings from the
    /// canonical order on, and for each, each group's blocks in every
    /// arrangement, in the order of their lines (so the canonical order
    /// comes first only without groups).
    pub fn expand(&self, max: usize) -> Vec<Vec<String>> {
        self.expand_until(max, None)
    }

    /// [`Entry::expand`], stopping at `until` (with at least one order):
    /// listing a large orbit of long orders takes time.
    pub fn expand_until(&self, max: usize, until: Option<web_time::Instant>) -> Vec<Vec<String>> {
        let late = |made: usize| made > 0 && made.is_multiple_of(16) && until.is_some_and(|u| web_time::Instant::now() >= u);
        let mut out = vec![self.logs.clone()];
        // For each mark: its speaking members' line positions and patterns.
        let marks: Vec<(Vec<u32>, Vec<Vec<usize>>)> = self
            .marks
            .iter()
            .map(|m| {
                (
                    m.members.clone(),
                    speaking(&self.meta, m).into_iter().map(|(_, l)| l).collect::<Vec<_>>(),
                )
            })
            .filter(|(_, speakers)| !speakers.is_empty())
            .collect();
        for (members, speakers) in &marks {
            let mut next = Vec::new();
            for base in &out {
                for assignment in Arrangements::new(members, speakers.len()) {
                    if next.len() >= max || late(next.len()) {
                        break;
                    }
                    let mut logs = base.clone();
                    for (lines, &index) in speakers.iter().zip(&assignment) {
                        for &p in lines {
                            if let Some(pattern) = &self.meta[p].pattern {
                                logs[p] = fill(pattern, index);
                            }
                        }
                    }
                    next.push(logs);
                }
            }
            out = next;
        }
        out.truncate(max);
        if self.blocks.is_empty() {
            return out;
        }
        // Then every arrangement of each group's blocks over its slots. The
        // orders come group by group, the last group's arrangements fastest,
        // and only the first `max` are kept: an order made at one group has
        // as many descendants as the later groups have arrangements, so at
        // each group only the first ceil(max / that) need be made (most
        // groups' first arrangement alone, with many groups).
        let counts: Vec<u128> = self
            .blocks
            .iter()
            .map(|group| {
                slots(&self.meta, group).map_or(1, |slots| {
                    multinomial(
                        &contents(&self.logs, &self.meta, &slots)
                            .into_iter()
                            .map(|b| b.0)
                            .collect::<Vec<_>>(),
                    )
                })
            })
            .collect();
        let mut all: Vec<(Vec<String>, Vec<LineMeta>)> = out.into_iter().map(|l| (l, self.meta.clone())).collect();
        for (g, group) in self.blocks.iter().enumerate() {
            let later = counts[g + 1..].iter().fold(1u128, |a, &c| a.saturating_mul(c.max(1)));
            let cap = max.min((max as u128).div_ceil(later).max(1) as usize);
            // (Not in the WebAssembly build, for its size budget.)
            let last = cfg!(not(target_family = "wasm")) && g + 1 == self.blocks.len();
            let mut next = Vec::new();
            for (logs, meta) in &all {
                if next.len() >= cap || late(next.len()) {
                    break;
                }
                let Some(slots) = slots(meta, group) else {
                    next.push((logs.clone(), meta.clone()));
                    continue;
                };
                let mut blocks = contents(logs, meta, &slots);
                crate::sort::sort_by(&mut blocks, |a, b| a.0.cmp(&b.0));
                loop {
                    if next.len() >= cap || late(next.len()) {
                        break;
                    }
                    // The last group's orders need no line origins (no
                    // later group looks for its slots in them).
                    next.push(if last {
                        (spliced(logs, &slots, blocks.iter().map(|c| c.0.as_slice())), Vec::new())
                    } else {
                        place(logs, meta, &slots, &blocks)
                    });
                    if !next_permutation(&mut blocks) {
                        break;
                    }
                }
            }
            all = next;
        }
        all.into_iter().map(|(l, _)| l).take(max).collect()
    }
}

/// The next arrangement of `blocks` in lexicographic order of their lines (equal
/// blocks not told apart); `false` after the last.
fn next_permutation(blocks: &mut [(Vec<String>, Vec<LineMeta>)]) -> bool {
    let n = blocks.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && blocks[i - 1].0 >= blocks[i].0 {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while blocks[j].0 <= blocks[i - 1].0 {
        j -= 1;
    }
    blocks.swap(i - 1, j);
    blocks[i..].reverse();
    true
}

/// Every sequence of `k` distinct items of `items`, in lexicographic order of positions.
struct Arrangements<'a> {
    items: &'a [u32],
    picks: Vec<usize>,
    done: bool,
}

impl<'a> Arrangements<'a> {
    fn new(items: &'a [u32], k: usize) -> Self {
        Arrangements {
            items,
            picks: (0..k).collect(),
            done: k > items.len(),
        }
    }
}

impl Iterator for Arrangements<'_> {
    type Item = Vec<u32>;

    fn next(&mut self) -> Option<Vec<u32>> {
        if self.done {
            return None;
        }
        let out = self.picks.iter().map(|&p| self.items[p]).collect();
        // Advance: the last position that can take a larger unused item.
        let n = self.items.len();
        let k = self.picks.len();
        let mut pos = k;
        loop {
            if pos == 0 {
                self.done = true;
                break;
            }
            pos -= 1;
            let taken: Vec<usize> = self.picks[..pos].to_vec();
            let bigger = (self.picks[pos] + 1..n).find(|c| !taken.contains(c));
            if let Some(c) = bigger {
                self.picks[pos] = c;
                let mut used = self.picks[..=pos].to_vec();
                for slot in pos + 1..k {
                    let smallest = (0..n).find(|c| !used.contains(c)).expect("k <= n");
                    self.picks[slot] = smallest;
                    used.push(smallest);
                }
                break;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orders::End;

    fn meta(start: u32, index: u32, pattern: &str) -> LineMeta {
        LineMeta {
            start,
            index: Some(index),
            pattern: Some(pattern.into()),
        }
    }

    fn mark(members: &[u32]) -> Mark {
        Mark {
            site: 0,
            span: (10, 20),
            members: members.to_vec(),
        }
    }

    #[test]
    fn arrangements_are_every_ordered_pick() {
        let items = [1, 2, 3];
        let all: Vec<Vec<u32>> = Arrangements::new(&items, 2).collect();
        assert_eq!(all, vec![vec![1, 2], vec![1, 3], vec![2, 1], vec![2, 3], vec![3, 1], vec![3, 2]]);
        assert_eq!(Arrangements::new(&items, 3).count(), 6);
        assert_eq!(Arrangements::new(&items, 0).collect::<Vec<_>>(), vec![Vec::<u32>::new()]);
        assert_eq!(arrangements(10, 10), 3_628_800);
        assert_eq!(arrangements(4, 0), 1);
    }

    #[test]
    fn an_order_stands_for_its_renamings() {
        // Three members log "job {i}" (2 first, then 1, then 3); a line outside stays.
        let logs: Vec<String> = ["job 2", "job 1", "other", "job 3"].iter().map(|s| s.to_string()).collect();
        let mut m = vec![
            meta(12, 2, "job \0"),
            meta(12, 1, "job \0"),
            meta(30, 1, "other"),
            meta(12, 3, "job \0"),
        ];
        m[2].pattern = None;
        let e = canonical(logs, End::Exit, String::new(), m, vec![mark(&[1, 2, 3])], Vec::new());
        assert_eq!(e.logs, ["job 1", "job 2", "other", "job 3"]);
        assert_eq!(e.orbit, 6);
        let all = e.expand(100);
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], e.logs);
        assert!(all.iter().all(|o| e.contains(o, End::Exit) && o[2] == "other"));
        let wrong: Vec<String> = ["job 1", "job 1", "other", "job 3"].iter().map(|s| s.to_string()).collect();
        assert!(!e.contains(&wrong, End::Exit));
        assert!(!e.contains(&all[1], End::Stopped));
    }

    /// Listing stops at its deadline, with the canonical order and those
    /// made before it noticed (it looks every 16 orders).
    #[test]
    fn listing_an_orbit_stops_at_its_deadline() {
        let logs: Vec<String> = (1..=5).map(|i| format!("job {i}")).collect();
        let m = (1..=5).map(|i| meta(12, i, "job \0")).collect();
        let e = canonical(logs, End::Exit, String::new(), m, vec![mark(&[1, 2, 3, 4, 5])], Vec::new());
        assert_eq!(e.orbit, 120);
        assert_eq!(e.expand_until(100, None).len(), 100);
        let past = web_time::Instant::now();
        let late = e.expand_until(100, Some(past));
        assert_eq!(late.len(), 16);
        assert_eq!(late[0], e.logs);
        assert_eq!(late, e.expand(16));
    }

    #[test]
    fn silent_members_add_no_orders() {
        // Members log a counter, not `{i}`: every renaming prints the same lines.
        let logs: Vec<String> = ["done 1", "done 2"].iter().map(|s| s.to_string()).collect();
        let m = vec![
            LineMeta {
                start: 12,
                index: Some(1),
                pattern: None,
            },
            LineMeta {
                start: 12,
                index: Some(2),
                pattern: None,
            },
        ];
        let e = canonical(logs, End::Exit, String::new(), m, vec![mark(&[1, 2])], Vec::new());
        assert_eq!(e.orbit, 1);
        assert_eq!(e.expand(10).len(), 1);
    }
}
