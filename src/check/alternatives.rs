//! `expect { … } or { … }`: a warning for an alternative that repeats an
//! earlier one line for line (the same texts with the same `turn`, `at` and
//! phase, the same `limit` or ending): it predicts no other order, and was
//! most likely meant to differ. Runs after parsing ([`super::check`]).

use crate::problem::{Diag, Problem};
use crate::syntax::ast::Expect;

/// How many alternatives are compared with each other: more than any
/// prediction lists by hand. Each pair costs at most the shorter one's lines,
/// so the check costs at most this many times the file's expect lines.
pub const MAX_COMPARED: usize = 64;

/// Whether two alternatives predict the same, spans aside.
fn same(a: &Expect, b: &Expect) -> bool {
    a.lines.len() == b.lines.len()
        && a.lines
            .iter()
            .zip(&b.lines)
            .all(|(x, y)| (x.turn, x.at, x.phase, &x.text) == (y.turn, y.at, y.phase, &y.text))
        && a.limit.map(|l| l.value) == b.limit.map(|l| l.value)
        && a.ending.map(|e| e.value) == b.ending.map(|e| e.value)
}

/// The earlier alternative that alternative `j` of `alts` repeats, for the
/// first [`MAX_COMPARED`] alternatives. (Pairwise, not hashed: the
/// WebAssembly build's size budget has no room for another hash map.)
pub fn repeats<'a>(alts: &[&'a Expect], j: usize) -> Option<&'a Expect> {
    let alt = alts.get(j).filter(|_| j < MAX_COMPARED)?;
    alts[..j].iter().find(|earlier| same(earlier, alt)).copied()
}

/// One warning for each alternative that [`repeats`] an earlier one,
/// pointing at both. `check` judges only the first of them: the warning is
/// all a repeat gets (fresh-clone helper 83 got the same error at both).
pub fn repeated(expect: &Expect) -> Vec<Problem> {
    let alts: Vec<&Expect> = expect.alternatives().collect();
    (0..alts.len().min(MAX_COMPARED))
        .filter_map(|j| repeats(&alts, j).map(|first| Diag::RepeatedAlternative.at(alts[j].span).also(first.span, "predicted here first")))
        .collect()
}

#[cfg(test)]
mod tests {
    fn warnings(src: &str) -> Vec<(&'static str, String, bool)> {
        let loaded = crate::load::load_bytes("t.loop", src.as_bytes()).expect("valid");
        let expect = loaded.file.expect.as_ref().expect("an expect block");
        super::repeated(expect)
            .into_iter()
            .map(|p| (p.code, p.message, p.warning))
            .collect()
    }

    #[test]
    fn an_alternative_equal_to_an_earlier_one_is_warned_of() {
        let src = "timeout 0 \"t\"\nimmediate \"i\"\nexpect {\n  \"i\"\n  \"t\"\n} or {\n  \"t\"\n  \"i\"\n} or {\n  \"i\"\n  \"t\"\n}\n";
        let w = warnings(src);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].0, "loop::expect");
        assert_eq!(w[0].1, "this `or` block repeats an earlier one");
        assert!(w[0].2, "a warning");
    }

    #[test]
    fn only_the_first_alternatives_are_compared() {
        let src = format!("immediate \"i\"\nexpect {{\n  \"i\"\n}}{}\n", " or {\n  \"i\"\n}".repeat(100));
        // Of the first 64, every one after the first repeats it.
        assert_eq!(warnings(&src).len(), super::MAX_COMPARED - 1);
    }

    #[test]
    fn alternatives_that_differ_in_a_turn_a_phase_or_a_limit_are_not_repeats() {
        for src in [
            "immediate \"i\"\nexpect {\n  \"i\"\n} or {\n  turn 1 \"i\"\n}\n",
            "immediate \"i\"\nexpect {\n  check \"i\"\n} or {\n  poll \"i\"\n}\n",
            "immediate \"i\"\nexpect {\n  \"i\"\n} or {\n  \"i\"\n  limit turns\n}\n",
            "immediate \"i\"\nexpect {\n  \"i\"\n} or {\n  \"i\"\n  \"i\"\n}\n",
        ] {
            assert_eq!(warnings(src), [], "{src}");
        }
    }
}
