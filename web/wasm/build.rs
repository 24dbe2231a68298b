//! Embeds every file of `examples/` for the tests (they compare the page with
//! the command line on each; the page reads `examples.json`): writes
//! `$OUT_DIR/examples.rs`, an array of (path under examples/, text).

use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    let mut out = String::from("/// Every example: its path under `examples/`, its title (or path) and its text.\npub const EXAMPLES: &[(&str, &str, &str)] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let rel = file
            .strip_prefix(&root)
            .expect("under examples/")
            .to_string_lossy()
            .replace('\\', "/");
        let abs = file.canonicalize().expect("an example file");
        let text = std::fs::read_to_string(file).expect("an example is UTF-8");
        let title = title(&text).unwrap_or_else(|| rel.clone());
        out.push_str(&format!(
            "    ({rel:?}, {title:?}, include_str!({:?})),\n",
            abs.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("examples.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}

/// The text of a `title "…"` directive at a line's start (escapes `\"` and `\\` read).
fn title(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("title "))?;
    let quoted = line["title ".len()..].trim_start().strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(chars.next()?),
            c => out.push(c),
        }
    }
    None
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            walk(&path, files);
        } else if path.extension().is_some_and(|e| e == "loop") {
            files.push(path);
        }
    }
}
