//! The HTML picture (`loopsim run --format html`) in a real browser: headless
//! Chromium lays out two examples' pages, and a script in the page measures
//! every SVG `<text>`: no two intersect, the texts of each callback box stay
//! inside it, and there is one box per callback. Screenshots are left in
//! `target/browser-artifacts/`. Skipped (and passing) without Chromium.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);

/// Measures the page after load and writes a JSON summary into `<pre id="result">`.
const PROBE: &str = r#"<script>
window.addEventListener('load', function () {
  function box(el) {
    var r = el.getBoundingClientRect();
    return { l: r.left, t: r.top, r: r.right, b: r.bottom };
  }
  function cross(a, b) {
    return Math.min(a.r, b.r) - Math.max(a.l, b.l) > 0.5 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 0.5;
  }
  var texts = Array.prototype.slice.call(document.querySelectorAll('svg text'));
  var boxes = texts.map(box);
  var overlaps = [];
  for (var i = 0; i < boxes.length; i++) {
    for (var j = i + 1; j < boxes.length; j++) {
      if (cross(boxes[i], boxes[j])) overlaps.push([texts[i].textContent, texts[j].textContent]);
    }
  }
  var outside = [];
  var cbs = document.querySelectorAll('svg g.cb, svg g.more, svg g.job');
  for (var k = 0; k < cbs.length; k++) {
    var frame = box(cbs[k].querySelector('rect'));
    var inner = cbs[k].querySelectorAll('text');
    for (var m = 0; m < inner.length; m++) {
      var t = box(inner[m]);
      if (t.l < frame.l - 0.5 || t.r > frame.r + 0.5 || t.t < frame.t - 0.5 || t.b > frame.b + 0.5) {
        outside.push(inner[m].textContent);
      }
    }
  }
  var pre = document.createElement('pre');
  pre.id = 'result';
  pre.textContent = JSON.stringify({
    texts: texts.length,
    callbacks: document.querySelectorAll('svg g.cb').length,
    overlaps: overlaps,
    outside: outside
  });
  document.body.appendChild(pre);
});
</script>
"#;

fn chromium() -> Option<PathBuf> {
    let fixed = PathBuf::from("/usr/bin/chromium");
    if fixed.is_file() {
        return Some(fixed);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
}

/// A fresh, empty directory under the system's temp dir.
fn fresh_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("loopsim-browser-{}-{what}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cmd`, killing it after [`TIMEOUT`]; returns its stdout.
fn run_bounded(mut cmd: Command) -> String {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

fn chromium_cmd(browser: &Path, profile: &Path) -> Command {
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

fn html_of(example: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["run", "--format", "html", example])
        .output()
        .expect("runs loopsim");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn calls(example: &str) -> usize {
    let out = Command::new(env!("CARGO_BIN_EXE_loopsim"))
        .args(["run", "--verbose", "--format", "json", example])
        .output()
        .expect("runs loopsim");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["events"].as_array().unwrap().iter().filter(|e| e["event"] == "call").count()
}

fn unescape_html(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

fn check_in_browser(browser: &Path, name: &str, example: &str) {
    let dir = fresh_dir(name);
    let html = html_of(example);
    let page = html.replacen("</body>", &format!("{PROBE}</body>"), 1);
    assert_ne!(page, html, "the page has a body");
    let file = dir.join(format!("{name}.html"));
    std::fs::write(&file, page).unwrap();
    let url = format!("file://{}", file.display());

    let profile = fresh_dir(&format!("{name}-profile"));
    let mut cmd = chromium_cmd(browser, &profile);
    cmd.args(["--virtual-time-budget=2000", "--dump-dom", &url]);
    let dom = run_bounded(cmd);
    let start = dom
        .find("<pre id=\"result\">")
        .unwrap_or_else(|| panic!("{name}: no result in the page:\n{dom}"));
    let json = &dom[start + "<pre id=\"result\">".len()..];
    let json = unescape_html(&json[..json.find("</pre>").unwrap()]);
    let result: serde_json::Value = serde_json::from_str(&json).unwrap();
    println!("{name}: {result}");
    assert_eq!(
        result["callbacks"].as_u64().unwrap() as usize,
        calls(example),
        "{name}: one box per callback"
    );
    assert!(result["texts"].as_u64().unwrap() > 10, "{name}: {result}");
    assert_eq!(result["overlaps"], serde_json::json!([]), "{name}: texts overlap");
    assert_eq!(result["outside"], serde_json::json!([]), "{name}: texts stick out of their boxes");

    let artifacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/browser-artifacts");
    std::fs::create_dir_all(&artifacts).unwrap();
    let png = artifacts.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    let shot_profile = fresh_dir(&format!("{name}-shot"));
    let mut cmd = chromium_cmd(browser, &shot_profile);
    cmd.arg(format!("--screenshot={}", png.display()))
        .args(["--window-size=1400,900", &url]);
    run_bounded(cmd);
    let size = std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0);
    assert!(size > 0, "{name}: no screenshot at {}", png.display());
    for d in [dir, profile, shot_profile] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn pictures_are_legible_in_chromium() {
    let browser = chromium().expect("the browser suite needs Chromium (/usr/bin/chromium or `chromium` on PATH): a failure, not a skip");
    check_in_browser(&browser, "p02", "examples/phases/p02-timer-between-two-immediates.loop");
    check_in_browser(&browser, "p08", "examples/thread-pool/p08-eight-jobs-two-waves.loop");
}
