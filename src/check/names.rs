//! Names the grammar reads as any word: a `module` (`cjs`, `esm`), a
//! `rejections` mode, a `limit` queue and an expect line's phase. Checked
//! while building (`syntax/build.rs`, `syntax/build_promise.rs`), each
//! unknown word with the closest known one.

use crate::problem::Diag;
use crate::sched::{Module, Phase};
use crate::syntax::ast::{LimitQueue, Rejections};
use crate::syntax::suggest;

/// `module WORD`: the module system, or the problem (to show at the word).
pub fn module(word: &str) -> Result<Module, Box<Diag>> {
    match word {
        "cjs" => Ok(Module::Cjs),
        "esm" => Ok(Module::Esm),
        other => Err(Box::new(Diag::Module {
            word: other.to_string(),
            // Node's own names for the two: by file extension and by package.json "type".
            suggestion: match other.to_ascii_lowercase().as_str() {
                "mjs" | "es" | "es6" | "module" | "import" | "esmodule" | "esmodules" => Some("esm"),
                "js" | "commonjs" | "require" | "node" => Some("cjs"),
                _ => suggest::closest(other, &["cjs", "esm"]),
            },
        })),
    }
}

/// `rejections WORD`: the mode, or the problem (to show at the word).
pub fn rejections(word: &str) -> Result<Rejections, Box<Diag>> {
    Rejections::from_name(word).ok_or_else(|| {
        Box::new(Diag::RejectionsMode {
            word: word.to_string(),
            suggestion: suggest::closest(word, &Rejections::NAMES),
        })
    })
}

/// `limit WORD` in an expect block: the queue, or the problem (to show at the word).
pub fn limit_queue(word: &str) -> Result<LimitQueue, Box<Diag>> {
    LimitQueue::from_name(word).ok_or_else(|| unknown_word(word, "limit queue", &LimitQueue::NAMES))
}

/// The phase word of an expect line (`rejections` included: Node's
/// unhandled-rejection processing), or the problem (to show at the word).
pub fn phase(word: &str) -> Result<Phase, Box<Diag>> {
    // A field's keyword read as the phase: `turn "1" "a"`, `at "a"`, `limit "check"`.
    for field in ["turn", "at", "limit"] {
        if word == field {
            return Err(Box::new(Diag::ExpectField { field }));
        }
    }
    Phase::from_name(word).ok_or_else(|| {
        let names: Vec<&str> = Phase::ALL.iter().map(|p| p.name()).collect();
        unknown_word(word, "phase", &names)
    })
}

fn unknown_word(word: &str, what: &'static str, names: &[&'static str]) -> Box<Diag> {
    Box::new(Diag::UnknownName {
        what,
        word: word.to_string(),
        suggestion: suggest::closest(word, names),
        names: names.join(", "),
    })
}
