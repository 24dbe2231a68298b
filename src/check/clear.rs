//! `clear LABEL`: a warning when no `timeout`, `interval` or `immediate`
//! (the callbacks Node's `clearTimeout`, `clearInterval`, `clearImmediate`
//! cancel) may have that label, saying which other kind has it if one does.
//! Labels with placeholders are patterns (a placeholder is a run of digits).
//! Runs after parsing ([`super::check`]).

use crate::problem::{Diag, Kept};
use crate::syntax::ast::*;
use indexmap::IndexMap;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

/// Cells of the matching tables one file's `clear` checks may fill (each
/// comparison of a `clear` with a label that has placeholders, or of a `clear`
/// with placeholders with any label, fills one cell per pair of characters).
/// Past it, a `clear` still undecided is taken to match a label: no warning.
const MATCH_BUDGET: u64 = 50_000_000;

/// A label as a pattern: literal characters, and `None` for a placeholder
/// (any run of digits).
type Pattern = Vec<Option<char>>;

fn pattern(t: &Text) -> Pattern {
    let mut out = Vec::new();
    for part in &t.parts {
        match part {
            TextPart::Lit(s) => out.extend(s.chars().map(Some)),
            _ => out.push(None),
        }
    }
    out
}

/// A label kept for `clear` checks.
enum Label<'a> {
    /// Without placeholders: the text, and its length in characters (its
    /// pattern is made only when needed).
    Literal(&'a str, usize),
    Pattern(Pattern),
}

/// The labels of one file's callbacks, for its `clear` checks.
pub(super) struct Labels<'a> {
    /// Labels without placeholders of clearable callbacks (timeout,
    /// interval, immediate), each once, in source order, with their length
    /// in characters.
    clearable: IndexMap<&'a str, usize, FxBuildHasher>,
    /// Labels with placeholders of clearable callbacks, each once.
    clearable_patterns: Vec<Pattern>,
    seen_patterns: FxHashSet<Pattern>,
    /// Labels of other callbacks in source order, with their kind.
    other: Vec<(Label<'a>, Kind)>,
    /// The first of `other` with each label without placeholders.
    other_first: FxHashMap<&'a str, usize>,
    /// Of `other`, those with placeholders.
    other_patterns: Vec<usize>,
    /// Every index of `other`.
    other_all: Vec<usize>,
    /// What is left of [`MATCH_BUDGET`].
    budget: u64,
}

impl Default for Labels<'_> {
    fn default() -> Self {
        Labels {
            clearable: IndexMap::default(),
            clearable_patterns: Vec::new(),
            seen_patterns: FxHashSet::default(),
            other: Vec::new(),
            other_first: FxHashMap::default(),
            other_patterns: Vec::new(),
            other_all: Vec::new(),
            budget: MATCH_BUDGET,
        }
    }
}

impl<'a> Labels<'a> {
    pub(super) fn collect_labels(&mut self, stmts: &'a [Stmt], _nested: bool) {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Repeat { body, .. } => self.collect_labels(body, true),
                StmtKind::Callback(cb) => {
                    if let Some(label) = cb.label() {
                        match (cb.kind, label.literal()) {
                            (Kind::Timeout | Kind::Interval | Kind::Immediate, Some(lit)) => {
                                self.clearable.entry(lit).or_insert(lit.chars().count());
                            }
                            (Kind::Timeout | Kind::Interval | Kind::Immediate, None) => {
                                let p = pattern(label);
                                if self.seen_patterns.insert(p.clone()) {
                                    self.clearable_patterns.push(p);
                                }
                            }
                            (k, lit) => {
                                let at = self.other.len();
                                match lit {
                                    Some(lit) => {
                                        self.other_first.entry(lit).or_insert(at);
                                    }
                                    None => self.other_patterns.push(at),
                                }
                                self.other_all.push(at);
                                let label = match label.literal() {
                                    Some(lit) => Label::Literal(lit, lit.chars().count()),
                                    None => Label::Pattern(pattern(label)),
                                };
                                self.other.push((label, k));
                            }
                        }
                    }
                    if let Some(body) = cb.body() {
                        self.collect_labels(body, true);
                    }
                    for link in cb.links() {
                        if let Some(body) = &link.body {
                            self.collect_labels(body, true);
                        }
                    }
                }
                other => promise_parts(other, &mut |part| {
                    if let Some(body) = part.body() {
                        self.collect_labels(body, true);
                    }
                }),
            }
        }
    }

    /// `clear` of `text`: a warning unless a clearable callback may have
    /// that label.
    pub(super) fn clear(&mut self, text: &Text, problems: &mut Kept) {
        if self.may_clear(text) != Some(false) {
            return;
        }
        let other = self.first_other(text);
        problems.push_with(true, text.span, || match other {
            Some(kind) => Diag::ClearNotClearable { kind }.at(text.span),
            None => Diag::ClearUnknown { label: text.to_string() }.at(text.span),
        });
    }

    /// Whether the label of a clearable callback may produce `text`; `None`
    /// if the budget ran out before that was known.
    fn may_clear(&mut self, text: &Text) -> Option<bool> {
        if let Some(lit) = text.literal() {
            if self.clearable.contains_key(lit) {
                return Some(true);
            }
            if self.clearable_patterns.is_empty() {
                return Some(false);
            }
        }
        let wanted = pattern(text);
        for label in &self.clearable_patterns {
            if glob_match(label, &wanted, &mut self.budget)? {
                return Some(true);
            }
        }
        if text.literal().is_none() {
            for (label, &chars) in &self.clearable {
                // Within budget before the pattern is made.
                if cells(chars, wanted.len()) > self.budget {
                    return None;
                }
                let label: Pattern = label.chars().map(Some).collect();
                if glob_match(&label, &wanted, &mut self.budget)? {
                    return Some(true);
                }
            }
        }
        Some(false)
    }

    /// The kind of the first other callback (in source order) whose label may
    /// produce `text`; `None` if none does, or the budget ran out first.
    fn first_other(&mut self, text: &Text) -> Option<Kind> {
        let wanted = pattern(text);
        let (first, candidates): (Option<usize>, &[usize]) = match text.literal() {
            // Only a label with placeholders may come before the first equal one.
            Some(lit) => (self.other_first.get(lit).copied(), &self.other_patterns),
            None => (None, &self.other_all),
        };
        for &i in candidates.iter().take_while(|&&i| first.is_none_or(|f| i < f)) {
            let matched = match &self.other[i].0 {
                Label::Pattern(label) => glob_match(label, &wanted, &mut self.budget)?,
                Label::Literal(label, chars) => {
                    if cells(*chars, wanted.len()) > self.budget {
                        return None;
                    }
                    let label: Pattern = label.chars().map(Some).collect();
                    glob_match(&label, &wanted, &mut self.budget)?
                }
            };
            if matched {
                return Some(self.other[i].1);
            }
        }
        first.map(|i| self.other[i].1)
    }
}

/// The cells of the matching table of two patterns of `n` and `m` items.
fn cells(n: usize, m: usize) -> u64 {
    (n as u64 + 1) * (m as u64 + 1)
}

/// Two patterns of literal chars and digit-run wildcards (`None`) can match
/// a common string. Wildcards match one or more digits. Fills one cell per
/// pair of positions, taken from `budget`; `None` (and nothing taken) if the
/// budget is too small. Memory: two rows.
fn glob_match(a: &[Option<char>], b: &[Option<char>], budget: &mut u64) -> Option<bool> {
    let (n, m) = (a.len(), b.len());
    let cells = cells(n, m);
    if cells > *budget {
        return None;
    }
    *budget -= cells;
    // row[j]: a[..i] and b[..j] can produce the same string; next: row i + 1.
    let mut row = vec![false; m + 1];
    let mut next = vec![false; m + 1];
    row[0] = true;
    for i in 0..=n {
        for j in 0..=m {
            if !row[j] {
                continue;
            }
            match (a.get(i), b.get(j)) {
                (Some(Some(x)), Some(Some(y))) if x == y => next[j + 1] = true,
                (Some(None), Some(Some(y))) if y.is_ascii_digit() => {
                    next[j + 1] = true;
                    row[j + 1] = true;
                }
                (Some(Some(x)), Some(None)) if x.is_ascii_digit() => {
                    next[j + 1] = true;
                    next[j] = true;
                }
                (Some(None), Some(None)) => {
                    next[j + 1] = true;
                }
                _ => {}
            }
        }
        if i == n {
            break;
        }
        std::mem::swap(&mut row, &mut next);
        next.iter_mut().for_each(|c| *c = false);
    }
    Some(row[m])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The matching as it was first written: the whole table.
    fn reference(a: &[Option<char>], b: &[Option<char>]) -> bool {
        let (n, m) = (a.len(), b.len());
        let mut reach = vec![vec![false; m + 1]; n + 1];
        reach[0][0] = true;
        for i in 0..=n {
            for j in 0..=m {
                if !reach[i][j] {
                    continue;
                }
                match (a.get(i), b.get(j)) {
                    (Some(Some(x)), Some(Some(y))) if x == y => reach[i + 1][j + 1] = true,
                    (Some(None), Some(Some(y))) if y.is_ascii_digit() => {
                        reach[i + 1][j + 1] = true;
                        reach[i][j + 1] = true;
                    }
                    (Some(Some(x)), Some(None)) if x.is_ascii_digit() => {
                        reach[i + 1][j + 1] = true;
                        reach[i + 1][j] = true;
                    }
                    (Some(None), Some(None)) => reach[i + 1][j + 1] = true,
                    _ => {}
                }
            }
        }
        reach[n][m]
    }

    /// Every pattern of up to `len` items over `a`, `1` and a placeholder.
    fn patterns(len: usize) -> Vec<Pattern> {
        let mut all = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..len {
            last = last
                .iter()
                .flat_map(|p: &Pattern| [Some('a'), Some('1'), None].map(|c| [p.clone(), vec![c]].concat()))
                .collect();
            all.extend(last.clone());
        }
        all
    }

    #[test]
    fn two_rows_match_as_the_whole_table_did() {
        let all = patterns(4);
        for a in &all {
            for b in &all {
                let mut budget = u64::MAX;
                assert_eq!(glob_match(a, b, &mut budget), Some(reference(a, b)), "{a:?} {b:?}");
                assert_eq!(u64::MAX - budget, cells(a.len(), b.len()));
            }
        }
    }

    #[test]
    fn a_comparison_past_the_budget_is_not_made() {
        let (a, b) = (vec![Some('a'); 9], vec![None; 9]);
        let mut budget = 99;
        assert_eq!(glob_match(&a, &b, &mut budget), None);
        assert_eq!(budget, 99, "nothing taken");
        budget = 100;
        assert_eq!(glob_match(&a, &b, &mut budget), Some(false));
        assert_eq!(budget, 0);
    }
}
