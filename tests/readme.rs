//! The README's worked example prints the trace the README shows, and its
//! prediction holds.

use loopsim::{expect, interp, load, trace::Style};

#[test]
fn readme_worked_example_prints_the_trace_shown() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let blocks: Vec<&str> = readme.split("```text\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    let (program, trace_shown) = (blocks[0], blocks[1]);
    let loaded = load::load_bytes("readme.loop", program.as_bytes()).expect("the README example is valid");
    let trace = interp::run(&loaded.file, &loaded.src, "readme", interp::RunOptions::default());
    assert_eq!(trace.to_text(false, &Style::default()), trace_shown);
    expect::check(loaded.file.expect.as_ref().unwrap(), &trace).expect("its prediction holds");
}
