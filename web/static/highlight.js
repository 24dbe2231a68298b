// Syntax highlighting of `.loop` text, and the diagnostics' spans, as DOM
// nodes (text only ever enters the page through text nodes).

/** Every keyword of the language (docs/language.md §2 and §9). */
const KEYWORDS = new Set(
  (
    'pool module title node rejections log timeout interval immediate nextTick microtask then io submit ' +
    'close pending readFile writeFile work clear repeat again after times expect or turn at limit ' +
    'async call await promise chain resolve reject return throw try catch finally on with ' +
    'cjs esm warn unhandledRejection rejectionHandled unhandled unsettled'
  ).split(' '),
);

/** Words that name a value or a phase rather than a statement. */
const CONSTANTS = new Set(
  'value resolved rejected thenable all race allSettled any main timers poll check nextTick microtask turns'.split(' '),
);

/** Past this length the editor shows plain text (highlighting a huge file would slow typing). */
export const HIGHLIGHT_LIMIT = 200000;

/**
 * The tokens of a text: `[{ start, end, cls }]` for the highlighted ones
 * (`kw`, `const`, `str`, `num`, `com`, `punct`), in order, UTF-16 offsets.
 */
export function tokenize(text) {
  const out = [];
  const n = text.length;
  let i = 0;
  let lineStart = true; // a word at the start of a statement is a keyword even when it is also a constant
  while (i < n) {
    const c = text[i];
    if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      let j = text.indexOf('\n', i);
      if (j < 0) j = n;
      out.push({ start: i, end: j, cls: 'com' });
      i = j;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' && text[j + 1] !== '\n' ? 2 : 1;
      if (j < n && text[j] === '"') j++;
      out.push({ start: i, end: Math.min(j, n), cls: 'str' });
      i = j;
      lineStart = false;
      continue;
    }
    if (c >= '0' && c <= '9') {
      let j = i + 1;
      while (j < n && text[j] >= '0' && text[j] <= '9') j++;
      out.push({ start: i, end: j, cls: 'num' });
      i = j;
      lineStart = false;
      continue;
    }
    if (/[A-Za-z_.]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(text[j])) j++;
      const word = text.slice(i, j);
      const bare = word.startsWith('.') ? word.slice(1) : word;
      if (word.startsWith('.') && (bare === 'then' || bare === 'catch' || bare === 'finally')) {
        out.push({ start: i, end: j, cls: 'kw' });
      } else if (KEYWORDS.has(bare) && !(CONSTANTS.has(bare) && !lineStart)) {
        out.push({ start: i, end: j, cls: 'kw' });
      } else if (CONSTANTS.has(bare)) {
        out.push({ start: i, end: j, cls: 'const' });
      }
      i = j;
      lineStart = false;
      continue;
    }
    if (c === '{' || c === '}' || c === '[' || c === ']' || c === '=') {
      out.push({ start: i, end: i + 1, cls: 'punct' });
      lineStart = c === '{' || c === '}';
      i++;
      continue;
    }
    if (c === '\n') lineStart = true;
    i++;
  }
  return out;
}

/**
 * Fills `pre` with `text`, highlighted, and the ranges `marks`
 * (`[{ start, end, cls }]`, e.g. a diagnostic's label) wrapped in spans of their
 * class. A mark of length zero is drawn on the character after it (or a space
 * at the end of the text).
 */
export function renderHighlighted(pre, text, marks) {
  const tokens = text.length > HIGHLIGHT_LIMIT ? [] : tokenize(text);
  const spans = marks
    .map((m) => {
      let start = Math.max(0, Math.min(m.start, text.length));
      let end = Math.max(start, Math.min(m.end, text.length));
      if (end === start) end = start + 1; // may pass the end: drawn as a space
      return { start, end, cls: m.cls };
    })
    .filter((m) => m.end > m.start);
  const shown = spans.some((m) => m.end > text.length) ? text + ' ' : text;
  const cuts = new Set([0, shown.length]);
  for (const t of tokens) cuts.add(t.start).add(t.end);
  for (const m of spans) cuts.add(m.start).add(m.end);
  const points = [...cuts].filter((p) => p >= 0 && p <= shown.length).sort((a, b) => a - b);
  const frag = document.createDocumentFragment();
  let ti = 0;
  for (let k = 0; k + 1 < points.length; k++) {
    const a = points[k];
    const b = points[k + 1];
    while (ti < tokens.length && tokens[ti].end <= a) ti++;
    const token = ti < tokens.length && tokens[ti].start <= a && tokens[ti].end >= b ? tokens[ti].cls : null;
    const classes = [];
    if (token) classes.push('t-' + token);
    for (const m of spans) if (m.start <= a && m.end >= b) classes.push(m.cls);
    const piece = shown.slice(a, b);
    if (classes.length === 0) frag.appendChild(document.createTextNode(piece));
    else {
      const span = document.createElement('span');
      span.className = classes.join(' ');
      span.textContent = piece;
      frag.appendChild(span);
    }
  }
  // A final newline needs a line after it to keep the layer as tall as the textarea.
  frag.appendChild(document.createTextNode('\n'));
  pre.replaceChildren(frag);
}
