//! A standalone HTML page around the SVG picture of a run.

use super::{escape, to_svg, FONT_FAMILY};
use crate::trace::Trace;

/// A complete HTML page: the run's title as heading, then its SVG picture inline.
pub fn to_html(trace: &Trace) -> String {
    let title = escape(&trace.title);
    let svg = to_svg(trace);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>loopsim: {title}</title>\n<style>\n\
body {{ margin: 16px; font-family: {font}; color: #111827; background: #ffffff; }}\n\
h1 {{ font-size: 18px; font-weight: bold; margin: 0 0 12px 0; }}\n\
.picture {{ overflow-x: auto; }}\n\
svg {{ display: block; }}\n\
</style>\n</head>\n<body>\n<h1>{title}</h1>\n<div class=\"picture\">\n{svg}</div>\n</body>\n</html>\n",
        font = FONT_FAMILY,
    )
}
