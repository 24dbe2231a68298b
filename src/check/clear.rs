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
/// a common string. Wildcards match one or more digits. Each pattern is read
/// as an automaton whose state `k` is "the first `k` items matched", with a
/// loop on digits at a state after a wildcard (the wildcard takes more
/// digits); the two are run together, one character of the common string at
/// a time: both take an item, or one takes an item while the other's
/// wildcard takes one more digit. (The first version let a wildcard only
/// meet a whole wildcard or single characters, so `a{i}` and `a{i}{i}`, which
/// both give `a11`, did not match: fresh-clone helper 71.) Fills one cell per
/// pair of states, taken from `budget`; `None` (and nothing taken) if the
/// budget is too small. Memory: two rows.
fn glob_match(a: &[Option<char>], b: &[Option<char>], budget: &mut u64) -> Option<bool> {
    let (n, m) = (a.len(), b.len());
    let cells = cells(n, m);
    if cells > *budget {
        return None;
    }
    *budget -= cells;
    // An item can stand for a digit; two items for one common character.
    let digit = |x: &Option<char>| x.is_none_or(|c| c.is_ascii_digit());
    let common = |x: &Option<char>, y: &Option<char>| match (x, y) {
        (Some(x), Some(y)) => x == y,
        (None, y) => digit(y),
        (x, None) => digit(x),
    };
    // row[j]: some string takes a to state i and b to state j; next: i + 1.
    let mut row = vec![false; m + 1];
    let mut next = vec![false; m + 1];
    row[0] = true;
    for i in 0..=n {
        let a_loops = i > 0 && a[i - 1].is_none();
        for j in 0..=m {
            if !row[j] {
                continue;
            }
            // b takes an item while a's wildcard takes one more digit.
            if a_loops && j < m && digit(&b[j]) {
                row[j + 1] = true;
            }
            if i < n {
                if j < m && common(&a[i], &b[j]) {
                    next[j + 1] = true;
                }
                // a takes an item while b's wildcard takes one more digit.
                if j > 0 && b[j - 1].is_none() && digit(&a[i]) {
                    next[j] = true;
                }
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

    /// Whether `p` matches `s` (a placeholder: one or more digits), by
    /// trying every split.
    fn matches(p: &[Option<char>], s: &[char]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((Some(c), rest)) => s.first() == Some(c) && matches(rest, &s[1..]),
            Some((None, rest)) => (1..=s.len())
                .take_while(|&k| s[k - 1].is_ascii_digit())
                .any(|k| matches(rest, &s[k..])),
        }
    }

    /// Whether some string both patterns match exists, by trying every
    /// string over `a` and `1` of up to `max` characters (digits are
    /// interchangeable here, and `a` is the patterns' only other character).
    fn reference(a: &[Option<char>], b: &[Option<char>], max: usize) -> bool {
        let mut strings: Vec<Vec<char>> = vec![Vec::new()];
        for _ in 0..max {
            let longer: Vec<Vec<char>> = strings
                .iter()
                .filter(|s| s.len() == strings.last().map_or(0, Vec::len))
                .flat_map(|s| ['a', '1'].map(|c| [s.clone(), vec![c]].concat()))
                .collect();
            strings.extend(longer);
        }
        strings.iter().any(|s| matches(a, s) && matches(b, s))
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

    /// Every pair of patterns of up to four items matches exactly when some
    /// string of up to eight characters matches both (a common string, if
    /// any, needs no more characters than the two have items).
    #[test]
    fn patterns_match_when_a_common_string_exists() {
        let all = patterns(4);
        for a in &all {
            for b in &all {
                let mut budget = u64::MAX;
                assert_eq!(glob_match(a, b, &mut budget), Some(reference(a, b, 8)), "{a:?} {b:?}");
                assert_eq!(u64::MAX - budget, cells(a.len(), b.len()));
            }
        }
        // `a{i}` and `a{i}{i}`: `a11` (fresh-clone helper 71).
        let mut budget = u64::MAX;
        assert_eq!(glob_match(&[Some('a'), None], &[Some('a'), None, None], &mut budget), Some(true));
        assert_eq!(
            glob_match(&[Some('a'), None], &[Some('a'), None, Some('a')], &mut budget),
            Some(false)
        );
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
