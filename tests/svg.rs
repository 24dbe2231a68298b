//! The SVG picture (`loopsim run --format svg`) of every example as an insta
//! snapshot, and checks of its layout: no two texts overlap (by the renderer's
//! own width estimate), everything is inside the picture, one box per callback.

use loopsim::render::{self, text_box};
use loopsim::sched::Limits;
use loopsim::trace::{EventKind, Trace};
use loopsim::{interp, load};
use std::path::Path;

/// The verbose run the picture is drawn from. The starvation examples stop at a
/// lower callback limit than the command line's (five million verbose callbacks
/// take a minute and gigabytes in a debug build); their pictures differ from
/// `loopsim run --format svg` only in the count of their last `… ×N more` box
/// and the limit named under the picture.
fn trace_of(loaded: &load::Loaded) -> Trace {
    let opts = interp::RunOptions {
        verbose: true,
        limits: Limits {
            max_callbacks: 2_000,
            ..Limits::default()
        },
        max_statements: 20_000,
        ..interp::RunOptions::default()
    };
    interp::run(&loaded.file, &loaded.src, &loaded.title(), opts)
}

/// Loads an example by its path relative to the crate (the title is the path as given).
fn example(path: &Path) -> Trace {
    let rel = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path);
    trace_of(&load::load(rel).expect("examples are valid"))
}

fn source(src: &str) -> Trace {
    trace_of(&load::load_bytes("test.loop", src.as_bytes()).expect("valid source"))
}

#[test]
fn svg() {
    insta::with_settings!({snapshot_path => "../snapshots/svg", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("../examples", "**/*.loop", |path| {
            let svg = render::to_svg(&example(path));
            insta::assert_snapshot!(svg);
        });
    });
}

/// One `<text>` element: its estimated box and content.
#[derive(Debug)]
struct Text {
    content: String,
    rect: (f64, f64, f64, f64),
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(&tag[start..end])
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .unwrap_or_else(|| panic!("{name} in {tag}"))
        .parse()
        .unwrap_or_else(|_| panic!("number {name} in {tag}"))
}

/// Every `<text>` of the picture, with the box the renderer's estimate gives it.
fn texts(svg: &str) -> Vec<Text> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text ") {
        let open_end = rest[start..].find('>').unwrap() + start;
        let tag = &rest[start..open_end];
        let close = rest[open_end..].find("</text>").unwrap() + open_end;
        let raw = &rest[open_end + 1..close];
        assert!(!raw.contains('<'), "a text holds one line, no markup: {raw}");
        let content = unescape(raw);
        let (x, y, size) = (num(tag, "x"), num(tag, "y"), num(tag, "font-size"));
        let anchor = attr(tag, "text-anchor").unwrap_or("start");
        out.push(Text {
            rect: text_box(&content, size, x, y, anchor),
            content,
        });
        rest = &rest[close..];
    }
    out
}

fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// No two texts overlap and every text is inside the picture.
fn assert_legible(name: &str, svg: &str) {
    let root = &svg[..svg.find('>').unwrap()];
    let (width, height) = (num(root, "width"), num(root, "height"));
    let texts = texts(svg);
    assert!(texts.len() > 10, "{name}: {} texts", texts.len());
    for (i, a) in texts.iter().enumerate() {
        let r = a.rect;
        assert!(
            r.0 >= 0.0 && r.1 >= 0.0 && r.2 <= width && r.3 <= height,
            "{name}: {:?} at {r:?} is outside the {width}×{height} picture",
            a.content
        );
        for b in &texts[i + 1..] {
            assert!(!overlap(a.rect, b.rect), "{name}: {a:?} overlaps {b:?}");
        }
    }
}

fn calls(trace: &Trace) -> usize {
    trace.events.iter().filter(|e| matches!(e.kind, EventKind::Call { .. })).count()
}

/// `class="cb"` boxes, and how many callbacks the `class="more"` boxes stand for.
fn boxes(svg: &str) -> (usize, u64) {
    let cb = svg.matches("<g class=\"cb\"").count();
    let more = svg
        .match_indices("<g class=\"more\"")
        .map(|(at, _)| {
            let tag = &svg[at..at + svg[at..].find('>').unwrap()];
            num(tag, "data-calls") as u64
        })
        .sum();
    (cb, more)
}

fn each_example(f: &mut dyn FnMut(&Path)) {
    fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, f);
            } else if p.extension().is_some_and(|e| e == "loop") {
                f(&p);
            }
        }
    }
    walk(Path::new("examples"), f);
}

#[test]
fn one_box_per_call_and_no_text_overlaps_in_two_examples() {
    for path in [
        "examples/phases/p02-timer-between-two-immediates.loop",
        "examples/thread-pool/p08-eight-jobs-two-waves.loop",
    ] {
        let trace = example(Path::new(path));
        let svg = render::to_svg(&trace);
        assert_legible(path, &svg);
        assert_eq!(boxes(&svg), (calls(&trace), 0), "{path}");
    }
    let p08 = render::to_svg(&example(Path::new("examples/thread-pool/p08-eight-jobs-two-waves.loop")));
    assert_eq!(p08.matches("<g class=\"job\"").count(), 8, "eight pool jobs");
    assert_eq!(p08.matches("<g class=\"sleep\"").count(), 2, "two sleeps");
    assert!(p08.contains(">sleep 0→10</text>") && p08.contains(">sleep 11→20</text>"));
    assert!(p08.contains(">job 5 · 10→20</text>"));
}

#[test]
fn every_example_is_legible_and_accounts_for_every_call() {
    let mut n = 0;
    each_example(&mut |path| {
        let trace = example(path);
        let svg = render::to_svg(&trace);
        let name = path.display().to_string();
        assert_legible(&name, &svg);
        let (cb, more) = boxes(&svg);
        assert_eq!(cb as u64 + more, calls(&trace) as u64, "{name}");
        n += 1;
    });
    assert!(n >= 22);
}

/// Every example's picture parses as XML (hostile texts: `tests/hostile.rs`).
#[test]
fn every_example_is_well_formed_xml() {
    let mut n = 0;
    each_example(&mut |path| {
        let svg = render::to_svg(&example(path));
        if let Err(e) = roxmltree::Document::parse(&svg) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    });
    assert!(n >= 22);
}

#[test]
fn work_makes_a_box_wider() {
    let svg = render::to_svg(&source(
        "timeout 1 \"quick\" { log \"q\" }\ntimeout 2 \"busy\" { log \"b\" work 6 }\ntimeout 3 \"quick2\"\n",
    ));
    let widths: Vec<f64> = svg
        .match_indices("<g class=\"cb\"")
        .map(|(at, _)| {
            let rect = &svg[at + svg[at..].find("<rect ").unwrap()..];
            num(&rect[..rect.find('>').unwrap()], "width")
        })
        .collect();
    assert_eq!(widths.len(), 4, "main module and three timers");
    assert_eq!(widths[1], widths[3], "callbacks that took no time are as wide");
    assert!(widths[2] > widths[1], "{widths:?}");
    assert!(svg.contains(">@2→8</text>"), "the busy timer ran from tick 2 to 8");
}

#[test]
fn special_characters_are_escaped_and_long_texts_cut_with_a_tooltip() {
    let long = "a very long log line that cannot possibly fit in one box, ".repeat(6);
    let src = format!("title \"<b> & 'q'\"\nimmediate \"x < y & \\\"z\\\"\" {{ log \"{long}\" }}\n");
    let svg = render::to_svg(&source(&src));
    assert!(svg.contains("&lt;b&gt; &amp; &apos;q&apos;"));
    assert!(svg.contains("x &lt; y &amp; &quot;z&quot;"));
    assert!(!svg.contains("<b>"));
    assert!(svg.contains("more lines</text>"), "long logs are cut");
    assert!(svg.contains(long.trim_end()), "the tooltip holds the whole line");
    assert_legible("escapes", &svg);
}

#[test]
fn repeats_and_long_runs_are_shortened() {
    // The same callback over and over: three boxes, then one counting the rest.
    let trace = source("immediate \"again\" times 50 { again }\n");
    let svg = render::to_svg(&trace);
    assert_legible("repeats", &svg);
    let (cb, more) = boxes(&svg);
    assert_eq!(cb as u64 + more, calls(&trace) as u64);
    // Different callbacks: at most MAX_BOXES are drawn, the rest counted per lane.
    let trace = source("repeat 100 { immediate \"i{i}\" }\nrepeat 30 { nextTick \"t{i}\" }\n");
    let svg = render::to_svg(&trace);
    assert_legible("many", &svg);
    let (cb, more) = boxes(&svg);
    assert_eq!(cb, render::MAX_BOXES);
    assert_eq!(cb as u64 + more, calls(&trace) as u64);
    assert!(svg.contains("not drawn"));
    // Many turns: at most MAX_TURNS columns.
    let trace = source("interval 1 \"beat\" times 200 { log \"beat {n}\" }\n");
    let svg = render::to_svg(&trace);
    assert_legible("turns", &svg);
    let columns = svg.matches(">turn ").count();
    assert!(columns <= render::MAX_TURNS, "{columns}");
    assert!(svg.contains("more turns</text>"));
    let (cb, more) = boxes(&svg);
    assert_eq!(cb as u64 + more, calls(&trace) as u64);
}

#[test]
fn a_starved_run_says_why_it_stopped() {
    let trace = example(Path::new("examples/starvation/p21-nexttick-starvation.loop"));
    let svg = render::to_svg(&trace);
    assert!(svg.contains("the nextTick queue never empties"), "{svg}");
    let (cb, more) = boxes(&svg);
    assert!(cb < 10 && more > 1_000, "{cb} {more}");
}

#[test]
fn the_same_run_gives_the_same_bytes() {
    let path = Path::new("examples/thread-pool/p10-who-waits-behind-the-pool.loop");
    assert_eq!(render::to_svg(&example(path)), render::to_svg(&example(path)));
}

#[test]
fn html_page_embeds_the_svg_with_a_title() {
    let trace = example(Path::new("examples/phases/p02-timer-between-two-immediates.loop"));
    let html = render::to_html(&trace);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<title>loopsim: examples/phases/p02-timer-between-two-immediates.loop</title>"));
    assert!(html.contains("<meta charset=\"utf-8\">"));
    assert!(html.contains(&render::to_svg(&trace)));
}

/// The README's picture is the tool's output for P2, as committed.
#[test]
fn readme_picture_is_up_to_date() {
    let committed = std::fs::read_to_string("docs/p02.svg").expect("docs/p02.svg");
    let svg = render::to_svg(&example(Path::new("examples/phases/p02-timer-between-two-immediates.loop")));
    assert!(
        committed == svg,
        "docs/p02.svg is stale: run `cargo run -- run --format svg examples/phases/p02-timer-between-two-immediates.loop > docs/p02.svg`"
    );
}

/// A callback that logs many lines is drawn with its first five and a count,
/// and its tooltip lists the first 50 and counts the rest: the picture of a
/// callback that logs two million lines takes the memory of a few.
#[test]
fn a_box_shows_its_first_lines_and_counts_the_rest() {
    let svg = render::to_svg(&source("immediate \"many\" { repeat 60 { log \"entry {i}\" } }\n"));
    assert!(svg.contains("… 55 more lines"), "{svg}");
    assert!(svg.contains("entry 50\n… 10 more"), "{svg}");
    assert!(!svg.contains("entry 51"), "{svg}");
}
