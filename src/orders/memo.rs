//! Memoised futures of the orders search (docs/orders.md "Memoised states").
//!
//! Two schedules that reach the same state at a turn's start, the pending
//! phase's start or a poll phase's start (the three told apart) — the loop's
//! queues, timers, pool and clock (relative to now), the host's variables,
//! counters and handles, the symmetries met, and of the log so far only its
//! lines' count and bytes — have the same futures: the same suffixes of
//! lines follow, whatever lines came before. The search explores such a
//! state once and records every stretch it replays from one such point to
//! the next as an [`Edge`] of a graph of states. When another schedule
//! reaches an explored state with other lines before it, the search joins
//! those lines to each suffix the graph holds from there
//! ([`Memo::suffixes`]) instead of replaying its future.
//!
//! Suffixes are compared by a polynomial hash of their lines (modulo the
//! Mersenne prime 2⁶¹ − 1, under two bases): the hash of a suffix that
//! follows an edge is the edge's hash joined to it in constant time, so that
//! the distinct suffixes of a state are found without building their lines.

use super::node20::Member;
use super::symmetry::Mark;
use crate::interp::LineMeta;
use indexmap::IndexSet;
use rustc_hash::{FxHashMap, FxHashSet};
use std::hash::{Hash, Hasher};

/// The modulus of the polynomial hashes: the Mersenne prime 2⁶¹ − 1.
const P: u64 = (1 << 61) - 1;
/// The two bases (fixed, so that a search is deterministic).
const BASES: [u64; 2] = [0x0d8e_4e27_c47d_124f % P, 0x1b5a_d4ec_eda1_ce2b % P];
/// Symbols of a stretch's symmetries lie above every line's symbol.
const MARK_SYMBOLS: u64 = 1 << 60;

/// `a · b` modulo [`P`].
fn mul(a: u64, b: u64) -> u64 {
    let x = a as u128 * b as u128;
    let s = (x as u64 & P) + (x >> 61) as u64;
    let s = (s & P) + (s >> 61);
    if s >= P {
        s - P
    } else {
        s
    }
}

/// `a + b` modulo [`P`] (both below it).
fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

/// The hash of a sequence of symbols under both bases, and each base to
/// the power of the sequence's length (what joining a sequence after
/// another multiplies the first by).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Fp {
    h: [u64; 2],
    pow: [u64; 2],
}

impl Fp {
    /// The empty sequence.
    pub(crate) const EMPTY: Fp = Fp { h: [0, 0], pow: [1, 1] };

    /// Appends `symbol` (at least 1, below [`P`]).
    fn push(&mut self, symbol: u64) {
        for ((h, pow), base) in self.h.iter_mut().zip(&mut self.pow).zip(BASES) {
            *h = add(mul(*h, base), symbol);
            *pow = mul(*pow, base);
        }
    }

    /// This sequence followed by `next`.
    pub(crate) fn then(self, next: Fp) -> Fp {
        let mut out = Fp::EMPTY;
        for i in 0..2 {
            out.h[i] = add(mul(self.h[i], next.pow[i]), next.h[i]);
            out.pow[i] = mul(self.pow[i], next.pow[i]);
        }
        out
    }
}

/// Where a stretch leads: the state at the next point (a turn's, the pending
/// phase's or a poll phase's start), or the end
/// of the schedule and how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Next {
    State(u64),
    End(super::End),
}

/// A point (a turn's, the pending phase's or a poll phase's start) the
/// search met on a schedule: its state, and how much of
/// the log, the symmetries and the commuting groups came before it.
#[derive(Debug, Clone)]
pub(crate) struct Visit {
    pub state: u64,
    pub lines: usize,
    pub marks: usize,
    pub blocks: usize,
    /// How many choices the schedule made before it.
    pub choices: usize,
    /// The first choice after it (before the next turn) that differs from
    /// the default, described ([`Memo::race_id`]).
    pub race: Option<u32>,
}

/// Where a schedule stands: how many lines, symmetries and commuting groups
/// it has met.
type At = (usize, usize, usize);

impl Visit {
    /// Where the schedule stood at this visit.
    fn at(&self) -> At {
        (self.lines, self.marks, self.blocks)
    }
}

/// A stretch of a schedule: its lines, their meta (if recorded), its
/// symmetries and commuting groups.
type Piece<'s> = (&'s [String], Option<&'s [LineMeta]>, &'s [Mark], &'s [Vec<Member>]);

/// What one schedule met, up to where it ended: its visits, its lines (with
/// their [`LineMeta`] when recorded), symmetries and commuting groups.
pub(crate) struct Schedule<'s> {
    pub visits: &'s [Visit],
    pub logs: &'s [String],
    pub meta: &'s [LineMeta],
    pub marks: &'s [Mark],
    pub blocks: &'s [Vec<Member>],
}

impl<'s> Schedule<'s> {
    /// Where it ended.
    fn end(&self) -> At {
        (self.logs.len(), self.marks.len(), self.blocks.len())
    }

    /// Its lines (and their meta, if recorded), symmetries and commuting
    /// groups from `from` to `to`.
    fn between(&self, from: At, to: At) -> Piece<'s> {
        (
            self.logs.get(from.0..to.0.min(self.logs.len())).unwrap_or_default(),
            self.meta.get(from.0..to.0.min(self.meta.len())),
            self.marks.get(from.1..to.1).unwrap_or_default(),
            self.blocks.get(from.2..to.2).unwrap_or_default(),
        )
    }
}

/// One stretch from a point to the next: the lines it logged (each a text and
/// where it came from, interned; held in the memo's pool of symbols), the
/// first choice in it that differs from the default, the symmetries and
/// commuting groups it met (held apart: most stretches have none), and
/// where it led. Small and without a heap block of its own: a search may
/// record millions.
struct Edge {
    fp: Fp,
    to: Next,
    /// Its symbols: `len` of the pool's, from `start`.
    start: usize,
    len: u32,
    /// Its first deviation's id, or [`NONE`].
    race: u32,
    /// Its symmetries' and commuting groups' index in [`Memo::extras`], or [`NONE`].
    extra: u32,
}

/// The symmetries and commuting groups a stretch met.
type Extra = (Box<[Mark]>, Box<[Vec<Member>]>);

/// No race, no symmetries (in an [`Edge`]).
const NONE: u32 = u32::MAX;

/// One suffix from a state: its hash, ending and first deviation; its lines
/// are those of edge `edge` of the state, then (`tail`) those of suffix
/// `tail` of the state the edge leads to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Suffix {
    fp: Fp,
    /// Its first choice that differs from the default, described: an id, or [`NONE`].
    race: u32,
    edge: u32,
    /// [`NONE`]: the edge's lines end the suffix.
    tail: u32,
    /// How the schedule ended (stopped: by a limit, or repeating forever).
    pub end: super::End,
}

impl Suffix {
    /// Its first choice that differs from the default, described ([`Memo::race`]).
    pub(crate) fn race(&self) -> Option<u32> {
        (self.race != NONE).then_some(self.race)
    }

    /// Its hash (as [`Memo::prefix_fp`] hashes a schedule's lines up to a state).
    pub(crate) fn fp(&self) -> Fp {
        self.fp
    }
}

#[derive(Default)]
struct Node {
    edges: Vec<Edge>,
    /// The distinct suffixes, once asked for (the state's future is then
    /// explored: no edge is added after).
    suffixes: Option<Vec<Suffix>>,
}

/// The graph of states explored, with their suffixes.
#[derive(Default)]
pub(crate) struct Memo {
    /// Line texts, interned (a line's symbol: its text's index and its
    /// [`LineMeta`]'s index + 1, or 0 when none is recorded).
    texts: IndexSet<String>,
    metas: IndexSet<LineMeta>,
    /// Descriptions of deviations, interned.
    races: IndexSet<String>,
    nodes: FxHashMap<u64, Node>,
    /// The symbols of every edge's lines, one after another.
    pool: Vec<u64>,
    /// The symmetries and commuting groups of the edges that met some.
    extras: Vec<Extra>,
    /// Each edge's state, hash and end, hashed together (64 bits, as a
    /// state's key is): to record each stretch once.
    known: FxHashSet<u64>,
    /// States met with the log so far (both keyed): a second schedule
    /// reaching one brings no line before it that was not joined already.
    joined: FxHashSet<u64>,
    /// Orders joined, by hash and ending: each is added to the orders once.
    composed: FxHashSet<(Fp, super::End)>,
    /// Edges and suffixes held ([`Memo::suffix_room`]).
    held: usize,
    /// Suffixes held.
    suffixes: usize,
    /// Bytes the edges' lines, symmetries and texts hold, about.
    bytes: usize,
}

impl Memo {
    /// How many edges and suffixes the graph may hold, at most, within
    /// `budget` bytes: those it holds and as many more suffixes as the
    /// bytes left take ([`Memo::suffixes`]' room).
    pub(crate) fn suffix_room(&self, budget: usize) -> usize {
        self.held + budget.saturating_sub(self.bytes()) / std::mem::size_of::<Suffix>()
    }

    /// About how many bytes the graph holds: its states, edges, lines,
    /// symmetries and texts, its suffixes, and the sets of edges, states and
    /// orders met (a hash set's entry counted twice its size: the room a
    /// table keeps free).
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        let edges = self.held - self.suffixes;
        let sets = (self.known.len() + self.joined.len()) * 2 * size_of::<u64>() + self.composed.len() * 2 * size_of::<(Fp, super::End)>();
        self.bytes
            .saturating_add(self.nodes.len() * 2 * (size_of::<u64>() + size_of::<Node>()))
            .saturating_add(edges * size_of::<Edge>())
            .saturating_add(self.suffixes * size_of::<Suffix>())
            .saturating_add(sets)
    }

    /// Interns a deviation's description.
    pub(crate) fn race_id(&mut self, why: String) -> u32 {
        self.races.insert_full(why).0 as u32
    }

    /// The description interned as `id`.
    pub(crate) fn race(&self, id: u32) -> &str {
        &self.races[id as usize]
    }

    /// Suffix `index` of `state` (whose suffixes were computed).
    pub(crate) fn suffix(&self, state: u64, index: usize) -> Suffix {
        self.nodes[&state].suffixes.as_ref().expect("computed")[index]
    }

    /// Whether the order of hash `fp` ending as `end` says is joined for the
    /// first time (each is added to the orders once).
    pub(crate) fn compose_once(&mut self, fp: Fp, end: super::End) -> bool {
        self.composed.insert((fp, end))
    }

    /// Whether this is the first time `state` is met with the log `log`.
    pub(crate) fn first_with_log(&mut self, state: u64, log: u64) -> bool {
        self.joined.insert(combine(state, log))
    }

    /// The symbols of `lines` (with their `meta`, if recorded) appended to
    /// `out`, and the stretch's hash, its symmetries' symbol last.
    fn stretch(&mut self, lines: &[String], meta: Option<&[LineMeta]>, marks: &[Mark], blocks: &[Vec<Member>], out: &mut Vec<u64>) -> Fp {
        let mut fp = Fp::EMPTY;
        for (i, text) in lines.iter().enumerate() {
            let t = match self.texts.get_index_of(text.as_str()) {
                Some(t) => t,
                None => {
                    self.bytes += text.len() + 24;
                    self.texts.insert_full(text.clone()).0
                }
            };
            let m = match meta.and_then(|m| m.get(i)) {
                None => 0,
                Some(l) => match self.metas.get_index_of(l) {
                    Some(m) => m + 1,
                    None => {
                        self.bytes += std::mem::size_of::<LineMeta>() + l.pattern.as_ref().map_or(0, |p| p.len());
                        self.metas.insert_full(l.clone()).0 + 1
                    }
                },
            };
            let symbol = (t as u64) | ((m as u64) << 30);
            out.push(symbol);
            fp.push(symbol % MARK_SYMBOLS + 1);
        }
        if !marks.is_empty() || !blocks.is_empty() {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (marks, blocks).hash(&mut h);
            fp.push(MARK_SYMBOLS + h.finish() % (P - MARK_SYMBOLS));
        }
        fp
    }

    /// Records the stretches of `schedule`: from each visit to the next, and
    /// from the last to `end`. `replayed`: how many of its first choices the
    /// schedule before it made too, which recorded the stretches in them
    /// (`None`: no schedule before it recorded any).
    pub(crate) fn record(&mut self, schedule: &Schedule<'_>, replayed: Option<usize>, end: Next) {
        let visits = schedule.visits;
        let mut symbols = Vec::new();
        for (i, v) in visits.iter().enumerate() {
            let (to, upto) = match visits.get(i + 1) {
                Some(n) if replayed.is_some_and(|r| n.choices <= r) => continue,
                Some(n) => (Next::State(n.state), n.at()),
                None => (end, schedule.end()),
            };
            symbols.clear();
            let (lines, meta, marks, blocks) = schedule.between(v.at(), upto);
            let fp = self.stretch(lines, meta, marks, blocks, &mut symbols);
            if self.known.insert(combine(v.state, (fp, to))) {
                let extra = if marks.is_empty() && blocks.is_empty() {
                    NONE
                } else {
                    self.extras.push((marks.into(), blocks.into()));
                    self.bytes += 48 + marks.len() * 48 + blocks.iter().map(|b| 24 + b.len() * 24).sum::<usize>();
                    (self.extras.len() - 1) as u32
                };
                let edge = Edge {
                    fp,
                    to,
                    start: self.pool.len(),
                    len: symbols.len() as u32,
                    race: v.race.unwrap_or(NONE),
                    extra,
                };
                self.pool.extend_from_slice(&symbols);
                self.nodes.entry(v.state).or_default().edges.push(edge);
                self.held += 1;
                self.bytes += symbols.len() * 8;
            }
        }
    }

    /// The hash of `schedule`'s lines up to where it reached a state, cut
    /// into stretches at its visits as [`Memo::record`] cuts them.
    pub(crate) fn prefix_fp(&mut self, schedule: &Schedule<'_>) -> Fp {
        let mut symbols = Vec::new();
        let mut cuts: Vec<At> = vec![(0, 0, 0)];
        cuts.extend(schedule.visits.iter().map(Visit::at));
        cuts.push(schedule.end());
        let mut fp = Fp::EMPTY;
        for w in cuts.windows(2) {
            symbols.clear();
            let (lines, meta, marks, blocks) = schedule.between(w[0], w[1]);
            fp = fp.then(self.stretch(lines, meta, marks, blocks, &mut symbols));
        }
        fp
    }

    /// The distinct suffixes from explored state `state` (computed once;
    /// every state reachable from it is explored). `None`: more than `room`
    /// suffixes would be held (the caller stops the search).
    ///
    /// A stretch leading back to a state whose suffixes are being computed
    /// (the loop repeating itself) ends there, stopped: as a schedule
    /// meeting a state twice does.
    pub(crate) fn suffixes(&mut self, state: u64, room: usize) -> Option<&[Suffix]> {
        let mut stack = vec![(state, false)];
        let mut open: FxHashSet<u64> = FxHashSet::default();
        while let Some((n, expanded)) = stack.pop() {
            let Some(node) = self.nodes.get(&n) else { continue };
            if node.suffixes.is_some() {
                continue;
            }
            if !expanded {
                if !open.insert(n) {
                    continue;
                }
                stack.push((n, true));
                for e in &node.edges {
                    if let Next::State(m) = e.to {
                        if self.nodes.get(&m).is_some_and(|x| x.suffixes.is_none()) && !open.contains(&m) {
                            stack.push((m, false));
                        }
                    }
                }
                continue;
            }
            let mut out: Vec<Suffix> = Vec::new();
            let mut known: FxHashSet<(Fp, super::End)> = FxHashSet::default();
            for (i, e) in node.edges.iter().enumerate() {
                let tails = match e.to {
                    // (Every state an edge leads to was explored: it has edges.)
                    Next::State(m) if !self.nodes.contains_key(&m) => continue,
                    Next::State(m) => self.nodes.get(&m).and_then(|x| x.suffixes.as_deref()),
                    Next::End(_) => None,
                };
                match (e.to, tails) {
                    (Next::State(_), Some(tails)) => {
                        for (j, s) in tails.iter().enumerate() {
                            let fp = e.fp.then(s.fp);
                            if known.insert((fp, s.end)) {
                                out.push(Suffix {
                                    fp,
                                    end: s.end,
                                    race: if e.race == NONE { s.race } else { e.race },
                                    edge: i as u32,
                                    tail: j as u32,
                                });
                            }
                        }
                    }
                    (to, _) => {
                        let end = match to {
                            Next::End(end) => end,
                            // Back to a state being computed: the loop repeats itself.
                            Next::State(_) => super::End::Stopped,
                        };
                        if known.insert((e.fp, end)) {
                            out.push(Suffix {
                                fp: e.fp,
                                end,
                                race: e.race,
                                edge: i as u32,
                                tail: NONE,
                            });
                        }
                    }
                }
                if self.held.saturating_add(out.len()) > room {
                    return None;
                }
            }
            self.held += out.len();
            self.suffixes += out.len();
            open.remove(&n);
            if let Some(node) = self.nodes.get_mut(&n) {
                node.suffixes = Some(out);
            }
        }
        self.nodes.get(&state).and_then(|n| n.suffixes.as_deref())
    }

    /// Appends the lines (texts and, when `meta` is given, their
    /// [`LineMeta`]), symmetries and commuting groups of suffix `index` of
    /// `state` (whose suffixes were computed).
    pub(crate) fn spell(
        &self,
        state: u64,
        index: usize,
        logs: &mut Vec<String>,
        mut meta: Option<&mut Vec<LineMeta>>,
        marks: &mut Vec<Mark>,
        blocks: &mut Vec<Vec<Member>>,
    ) {
        let (mut n, mut i) = (state, index);
        while let Some(s) = self.nodes.get(&n).and_then(|x| x.suffixes.as_ref()).and_then(|s| s.get(i)) {
            let e = &self.nodes[&n].edges[s.edge as usize];
            for &symbol in &self.pool[e.start..e.start + e.len as usize] {
                logs.push(self.texts[(symbol & ((1 << 30) - 1)) as usize].clone());
                if let Some(meta) = meta.as_deref_mut() {
                    if let Some(m) = (symbol >> 30).checked_sub(1).and_then(|m| self.metas.get_index(m as usize)) {
                        meta.push(m.clone());
                    }
                }
            }
            if let Some((m, b)) = (e.extra != NONE).then(|| &self.extras[e.extra as usize]) {
                marks.extend(m.iter().cloned());
                blocks.extend(b.iter().cloned());
            }
            match (s.tail, e.to) {
                (j, Next::State(m)) if j != NONE => (n, i) = (m, j as usize),
                _ => break,
            }
        }
    }
}

/// `state` and `what` (the log so far's hash, an edge's hash and end) hashed together.
pub(crate) fn combine(state: u64, what: impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (state, what).hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(symbols: &[u64]) -> Fp {
        let mut f = Fp::EMPTY;
        for &s in symbols {
            f.push(s);
        }
        f
    }

    /// Joining two hashes gives the hash of the joined sequence: what lets a
    /// state's suffixes be compared without their lines.
    #[test]
    fn a_joined_hash_is_the_hash_of_the_joined_lines() {
        assert_eq!(fp(&[3, 1, 4]).then(fp(&[1, 5])), fp(&[3, 1, 4, 1, 5]));
        assert_eq!(Fp::EMPTY.then(fp(&[7])), fp(&[7]));
        assert_eq!(fp(&[7]).then(Fp::EMPTY), fp(&[7]));
        assert_ne!(fp(&[1, 2]), fp(&[2, 1]));
        assert_ne!(fp(&[1]), fp(&[1, 1]));
        // Near the modulus, products are reduced exactly.
        assert_eq!(mul(P - 1, P - 1), 1);
        assert_eq!(mul(P - 1, 2), P - 2);
    }

    /// An edge and a suffix take the bytes docs/orders.md ("Memoised
    /// states") says, which [`Memo::bytes`] counts: a search may hold millions.
    #[test]
    fn an_edge_and_a_suffix_stay_small() {
        assert_eq!(std::mem::size_of::<Edge>(), 72);
        assert_eq!(std::mem::size_of::<Suffix>(), 48);
    }

    fn visit(state: u64, lines: usize) -> Visit {
        Visit {
            state,
            lines,
            marks: 0,
            blocks: 0,
            choices: 0,
            race: None,
        }
    }

    fn texts(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Records a schedule of `visits` and `logs` (no meta, symmetries or groups).
    fn record(memo: &mut Memo, visits: &[Visit], logs: &[&str], end: Next) {
        let logs = texts(logs);
        let schedule = Schedule {
            visits,
            logs: &logs,
            meta: &[],
            marks: &[],
            blocks: &[],
        };
        memo.record(&schedule, None, end);
    }

    /// Two schedules from state 1 through state 2 to the end: the suffixes
    /// of 1 are each stretch to 2 followed by each suffix of 2, once each.
    #[test]
    fn a_states_suffixes_are_its_stretches_joined_to_the_next_states() {
        let mut memo = Memo::default();
        let end = Next::End(crate::orders::End::Exit);
        record(&mut memo, &[visit(1, 1), visit(2, 3)], &["m", "a", "b", "x"], end);
        record(&mut memo, &[visit(1, 1), visit(2, 3)], &["m", "b", "a", "y"], end);
        // The same stretches again: nothing new.
        record(&mut memo, &[visit(1, 1), visit(2, 3)], &["m", "a", "b", "y"], end);
        let n = memo.suffixes(1, 1_000).expect("room").len();
        let mut all = Vec::new();
        for i in 0..n {
            let mut logs = Vec::new();
            memo.spell(1, i, &mut logs, None, &mut Vec::new(), &mut Vec::new());
            all.push(logs.join(" "));
        }
        all.sort();
        assert_eq!(all, ["a b x", "a b y", "b a x", "b a y"]);
        // Bounded: no room for the suffixes of a state not yet computed.
        record(&mut memo, &[visit(5, 0)], &["z"], end);
        assert!(memo.suffixes(5, 0).is_none());
    }
}
