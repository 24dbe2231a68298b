//! Parser throughput: `syntax::parse` and parse + check on about 1 MB of
//! `.loop` text, realistic (the examples, comments and all) and dense (many
//! small statements). Reports MB/s.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// The directives of docs/language.md (each allowed once, before any statement).
const DIRECTIVES: [&str; 5] = ["pool ", "module ", "title ", "node ", "rejections "];

fn realistic() -> String {
    let mut body = String::new();
    let mut paths: Vec<_> = walk("examples");
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(p).unwrap();
        let cut = text.find("\nexpect {").unwrap_or(text.len());
        if text.contains("\nmodule esm") {
            continue; // its top-level await needs an ES module, which a block is not
        }
        // Each example in a block of its own, so that names it declares do not clash.
        body.push_str("repeat 1 {\n");
        for line in text[..cut].lines() {
            // Directives may come once, before any statement: left out, so the text is one valid file.
            if !DIRECTIVES.iter().any(|d| line.starts_with(d)) {
                body.push_str(line);
                body.push('\n');
            }
        }
        body.push_str("}\n");
    }
    body.repeat((1 << 20) / body.len() + 1)
}

fn dense() -> String {
    let block = "repeat 1 {\n  timeout 5 \"t{i}\" {\n    log \"timer {i} ran\"\n    nextTick \"tick {i}\"\n    then \"a\" { work 1 } .then \"b\"\n  }\n  immediate \"imm\" times 2 { log \"immediate {n}\" again }\n  io \"read\" after 3 { log \"bytes\" }\n  submit \"fs.stat\" 0 { log \"stat done\" }\n}\n";
    block.repeat((1 << 20) / block.len() + 1)
}

fn walk(dir: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(p.to_str().unwrap()));
        } else if p.extension().is_some_and(|e| e == "loop") {
            out.push(p);
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    g.sample_size(20);
    for (name, src) in [("realistic", realistic()), ("dense", dense())] {
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_function(format!("{name}/parse"), |b| b.iter(|| loopsim::syntax::parse(&src).unwrap()));
        g.bench_function(format!("{name}/parse+check"), |b| {
            b.iter(|| loopsim::load::load_bytes("bench.loop", src.as_bytes()).unwrap())
        });
        g.bench_function(format!("{name}/pest only"), |b| b.iter(|| loopsim::syntax::pest_tokens(&src)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
