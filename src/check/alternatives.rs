//! `expect { … } or { … }`: a warning for an alternative that repeats an
//! earlier one line for line (the same texts with the same `turn`, `at` and
//! phase, the same `limit` or ending): it predicts no other order, and was
//! most likely meant to differ. Runs after parsing ([`super::check`]).

use crate::problem::{Diag, Problem};
use crate::syntax::ast::{Expect, ExpectLine};
use rustc_hash::FxHashMap;

/// What an alternative predicts, without its spans.
type Prediction<'a> = (
    Vec<LineKey<'a>>,
    Option<crate::syntax::ast::LimitQueue>,
    Option<crate::syntax::ast::ExpectEnding>,
);

/// An expect line without its span.
type LineKey<'a> = (Option<u64>, Option<u64>, Option<crate::sched::Phase>, &'a str);

fn key(line: &ExpectLine) -> LineKey<'_> {
    (line.turn, line.at, line.phase, line.text.as_str())
}

/// One warning for each alternative equal to an earlier one, pointing at
/// both.
pub fn repeated(expect: &Expect) -> Vec<Problem> {
    let mut seen: FxHashMap<Prediction<'_>, &Expect> = FxHashMap::default();
    let mut out = Vec::new();
    for alt in expect.alternatives() {
        let prediction = (
            alt.lines.iter().map(key).collect(),
            alt.limit.map(|l| l.value),
            alt.ending.map(|e| e.value),
        );
        match seen.get(&prediction) {
            Some(first) => out.push(Diag::RepeatedAlternative.at(alt.span).also(first.span, "predicted here first")),
            None => {
                seen.insert(prediction, alt);
            }
        }
    }
    out
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
        assert_eq!(w[0].1, "this `or` block repeats an earlier alternative line for line");
        assert!(w[0].2, "a warning");
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
