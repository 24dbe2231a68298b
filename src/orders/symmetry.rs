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
    pub stopped: bool,
    /// The timing that made it differ from the default (empty for the default).
    pub race: String,
    pub(crate) meta: Vec<LineMeta>,
    pub marks: Vec<Mark>,
    /// How many orders it stands for (saturating).
    pub orbit: u128,
}

/// For each mark, each member's line positions (members with lines only).
fn member_lines(meta: &[LineMeta], mark: &Mark) -> Vec<(u32, Vec<usize>)> {
    let mut out: Vec<(u32, Vec<usize>)> = Vec::new();
    for (pos, m) in meta.iter().enumerate() {
        let Some(index) = m.index else { continue };
        if m.start < mark.span.0 || m.start >= mark.span.1 || mark.members.binary_search(&index).is_err() {
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
fn speaking(meta: &[LineMeta], mark: &Mark) -> Vec<(u32, Vec<usize>)> {
    let mut members: Vec<(u32, Vec<usize>)> = member_lines(meta, mark)
        .into_iter()
        .map(|(i, lines)| (i, lines.into_iter().filter(|&p| meta[p].pattern.is_some()).collect::<Vec<_>>()))
        .filter(|(_, lines)| !lines.is_empty())
        .collect();
    members.sort_by_key(|(_, lines)| lines[0]);
    members
}

/// `pattern` with `{i}` = `index`.
fn fill(pattern: &str, index: u32) -> String {
    pattern.replace('\0', &index.to_string())
}

/// `n! / (n - k)!`, saturating.
fn arrangements(n: usize, k: usize) -> u128 {
    ((n - k.min(n) + 1)..=n).fold(1u128, |a, x| a.saturating_mul(x as u128))
}

/// Puts `logs` (with its `meta` and `marks`) in canonical form and counts its orbit.
pub(crate) fn canonical(mut logs: Vec<String>, stopped: bool, race: String, meta: Vec<LineMeta>, marks: Vec<Mark>) -> Entry {
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
    Entry {
        logs,
        stopped,
        race,
        meta,
        marks,
        orbit,
    }
}

/// Adds `new` to the entries of the same canonical lines: an orbit inside
/// another (its marks covered by the other's) is dropped, the other kept.
pub(crate) fn merge(entries: &mut Vec<Entry>, new: Entry) {
    if entries.iter().any(|e| covers(&e.marks, &new.marks)) {
        return;
    }
    // The first found gives its timing.
    let race = entries.first().map_or_else(|| new.race.clone(), |e| e.race.clone());
    entries.retain(|e| !covers(&new.marks, &e.marks));
    entries.push(Entry { race, ..new });
}

/// How many distinct orders the orbits of `same` (entries of the same
/// canonical lines) hold together: counted by listing them while they are
/// few, else the widest orbit (a lower bound).
pub(crate) fn union_size(same: &[Entry]) -> u128 {
    const MAX_COUNTED: usize = 200_000;
    match same {
        [] => 0,
        [one] => one.orbit,
        _ if same.iter().any(|e| e.orbit > MAX_COUNTED as u128) => same.iter().map(|e| e.orbit).max().unwrap_or(0),
        _ => {
            let mut all = std::collections::HashSet::new();
            for e in same {
                all.extend(e.expand(MAX_COUNTED));
            }
            all.len() as u128
        }
    }
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
    /// Whether `logs` (ending stopped or not) is in this entry's orbit.
    pub fn contains(&self, logs: &[String], stopped: bool) -> bool {
        if stopped != self.stopped || logs.len() != self.logs.len() {
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

    /// The orders of the orbit, the canonical one first, at most `max`.
    pub fn expand(&self, max: usize) -> Vec<Vec<String>> {
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
                    if next.len() >= max {
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
        out
    }
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
        let e = canonical(logs, false, String::new(), m, vec![mark(&[1, 2, 3])]);
        assert_eq!(e.logs, ["job 1", "job 2", "other", "job 3"]);
        assert_eq!(e.orbit, 6);
        let all = e.expand(100);
        assert_eq!(all.len(), 6);
        assert_eq!(all[0], e.logs);
        assert!(all.iter().all(|o| e.contains(o, false) && o[2] == "other"));
        let wrong: Vec<String> = ["job 1", "job 1", "other", "job 3"].iter().map(|s| s.to_string()).collect();
        assert!(!e.contains(&wrong, false));
        assert!(!e.contains(&all[1], true));
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
        let e = canonical(logs, false, String::new(), m, vec![mark(&[1, 2])]);
        assert_eq!(e.orbit, 1);
        assert_eq!(e.expand(10).len(), 1);
    }
}
