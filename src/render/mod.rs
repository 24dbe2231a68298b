//! Pictures of a run: an SVG timeline ([`to_svg`]) and a standalone HTML page
//! embedding it ([`to_html`]).
//!
//! Both are drawn from a verbose [`Trace`](crate::trace::Trace) and are
//! deterministic: the same trace gives the same bytes.
//!
//! Text is laid out without a font engine, so its width is estimated
//! conservatively by [`text_width`] (every character counted as
//! [`CHAR_EM`] of the font size, twice that for wide East Asian characters) and
//! the picture uses a monospace font list, whose glyphs are about 0.6 em wide.
//! Tests use the same estimate to check that no two texts overlap.

mod html;
mod svg;

pub use html::to_html;
pub use svg::{to_svg, MAX_BOXES, MAX_TURNS};

/// Estimated advance of one character, in em.
pub const CHAR_EM: f64 = 0.62;
/// Height above the baseline a text line may use, in em.
pub const ASCENT_EM: f64 = 0.95;
/// Depth below the baseline a text line may use, in em.
pub const DESCENT_EM: f64 = 0.25;

/// The font list of every text in the picture (monospace: widths are predictable,
/// and the usual ones cover Cyrillic).
pub const FONT_FAMILY: &str = "'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', 'Noto Sans Mono', monospace";

/// Estimated width in pixels of `text` set at `font_size` pixels.
pub fn text_width(text: &str, font_size: f64) -> f64 {
    text.chars().map(|c| if is_wide(c) { 2.0 } else { 1.0 }).sum::<f64>() * CHAR_EM * font_size
}

/// Estimated box of a text element: `(left, top, right, bottom)`, for a text at
/// `(x, y)` (baseline) with `anchor` `start`, `middle` or `end`.
pub fn text_box(text: &str, font_size: f64, x: f64, y: f64, anchor: &str) -> (f64, f64, f64, f64) {
    let w = text_width(text, font_size);
    let left = match anchor {
        "middle" => x - w / 2.0,
        "end" => x - w,
        _ => x,
    };
    (left, y - ASCENT_EM * font_size, left + w, y + DESCENT_EM * font_size)
}

/// Wide (two-column) characters: CJK, Hangul, full-width forms, emoji.
fn is_wide(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x115F | 0x2E80..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1FAFF | 0x20000..=0x3FFFD)
}

/// Escapes `& < > " '` for XML text and attribute values, and replaces with
/// U+FFFD what XML 1.0 forbids (C0 controls but tab and newline; U+FFFE,
/// U+FFFF), what a browser would not show (CR, DEL, C1 controls) and what
/// would reorder or break what it shows (the bidirectional formatting
/// characters and U+2028/U+2029, as [`crate::term::is_escaped`] names them):
/// the document is well-formed, and reads as written, whatever the texts of
/// the file.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (crate::term::is_escaped(c) && c != '\n' && c != '\t') || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to fit `max_width` pixels, ending with `…` when cut; the flag
/// says whether it was cut.
pub(crate) fn fit(text: &str, max_width: f64, font_size: f64) -> (String, bool) {
    if text_width(text, font_size) <= max_width {
        return (text.to_string(), false);
    }
    let mut out = String::new();
    for c in text.chars() {
        let mut next = out.clone();
        next.push(c);
        next.push('…');
        if text_width(&next, font_size) > max_width {
            break;
        }
        out.push(c);
    }
    let out = out.trim_end().to_string();
    if out.is_empty() && text_width("…", font_size) > max_width {
        return (String::new(), true);
    }
    (out + "…", true)
}

/// `text` broken into lines of at most `max_width` pixels: at spaces where
/// possible, inside a word that is too long by itself.
pub(crate) fn wrap(text: &str, max_width: f64, font_size: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if text_width(&candidate, font_size) <= max_width {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        // The word alone: split it if it is too long for a line.
        for c in word.chars() {
            let mut next = line.clone();
            next.push(c);
            if text_width(&next, font_size) > max_width && !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                line.push(c);
            } else {
                line = next;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_characters_not_bytes() {
        assert_eq!(text_width("abc", 10.0), text_width("абв", 10.0));
        assert!(text_width("日本", 10.0) > text_width("ab", 10.0));
    }

    #[test]
    fn fit_cuts_with_an_ellipsis() {
        assert_eq!(fit("short", 100.0, 10.0), ("short".to_string(), false));
        let (cut, was_cut) = fit("a rather long label indeed", 60.0, 10.0);
        assert!(was_cut);
        assert!(cut.ends_with('…'));
        assert!(text_width(&cut, 10.0) <= 60.0);
    }

    #[test]
    fn wrap_breaks_at_spaces_and_inside_long_words() {
        let lines = wrap("колбэк чтения файла назначил таймер", 80.0, 10.0);
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| text_width(l, 10.0) <= 80.0), "{lines:?}");
        let lines = wrap("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 62.0, 10.0);
        assert_eq!(lines, ["aaaaaaaaaa", "aaaaaaaaaa", "aaaaaaaaaa"]);
    }

    #[test]
    fn escapes_xml_specials() {
        assert_eq!(escape(r#"<a href="x">&'"#), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
        assert_eq!(
            escape("a\u{1b}b\u{fffe}c\u{ffff}d\re\u{9b}f\tg"),
            "a\u{fffd}b\u{fffd}c\u{fffd}d\u{fffd}e\u{fffd}f\tg"
        );
        // A title cannot reverse or break what the page shows.
        assert_eq!(
            escape("t\u{202e}x\u{2028}y\u{2029}z\u{2066}w\u{200f}v\u{61c}u"),
            "t\u{fffd}x\u{fffd}y\u{fffd}z\u{fffd}w\u{fffd}v\u{fffd}u"
        );
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(4_999_996), "4,999,996");
    }
}
