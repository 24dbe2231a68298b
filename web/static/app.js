// The loopsim playground: an editor for `.loop` files and the panels of
// `loopsim run` (trace, explanations, picture, every order Node can print),
// a predict mode, stepping through the callbacks, and share links.
//
// Everything the page shows from a file goes in through textContent; the one
// exception is the SVG picture, which loopsim generates and escapes itself.

import init, * as loopsim from './loopsim.js';
import { renderHighlighted } from './highlight.js';
import { buildFragment, parseFragment, NODE_PROFILES, MAX_SHARED_BYTES } from './share.js';
import { Slot, Cancelled, compileModule } from './engine.js';

const RUN_DELAY_MS = 150;
/** A run that takes longer than this says "running…". */
const RUNNING_NOTE_MS = 250;
const ORDERS_DELAY_MS = 600;
const ORDERS_TIME_LIMIT_MS = 2000;
/** Trace rows drawn at most (a run may log two million lines). */
const MAX_ROWS = 2000;
/** The example opened when the page has no fragment. */
const DEFAULT_EXAMPLE = 'phases/p02-timer-between-two-immediates.loop';

const $ = (id) => document.getElementById(id);
const el = {
  status: $('status'),
  examples: $('examples'),
  node: $('node'),
  predictToggle: $('predict-toggle'),
  copyLink: $('copy-link'),
  linkError: $('link-error'),
  linkBox: $('link-box'),
  linkText: $('link-text'),
  linkNote: $('link-note'),
  fileName: $('file-name'),
  source: $('source'),
  highlight: $('highlight'),
  diagSummary: $('diagnostics-summary'),
  diagList: $('diagnostics'),
  renderedBox: $('rendered-box'),
  rendered: $('rendered'),
  traceNode: $('trace-node'),
  explain: $('explain'),
  verbose: $('verbose'),
  race: $('race'),
  traceRows: $('trace-rows'),
  traceEnd: $('trace-end'),
  verboseText: $('verbose-text'),
  stepPrev: $('step-prev'),
  stepNext: $('step-next'),
  stepAll: $('step-all'),
  stepInfo: $('step-info'),
  queues: $('queues'),
  predictPanel: $('predict-panel'),
  prediction: $('prediction'),
  predictionList: $('prediction-list'),
  fillShuffled: $('fill-shuffled'),
  check: $('check'),
  showTrace: $('show-trace'),
  verdict: $('verdict'),
  verdictTitle: $('verdict-title'),
  verdictDetail: $('verdict-detail'),
  verdictExpected: $('verdict-expected'),
  verdictGot: $('verdict-got'),
  verdictHelp: $('verdict-help'),
  verdictText: $('verdict-text'),
  ordersCount: $('orders-count'),
  ordersStatus: $('orders-status'),
  races: $('races'),
  ordersText: $('orders-text'),
  picture: $('picture'),
  version: $('version'),
};

const state = {
  /** Every example (examples.json), once read (see examples()). */
  examples: null,
  /** The example the editor holds, if it came from one. */
  openedExample: null,
  /** Whether the page has started a run (its first may go on the page's thread: firstRunHere). */
  runStarted: false,
  /** The last `run` answer, parsed. */
  result: null,
  /** The source the last answer is for. */
  resultSource: null,
  /** Index into result.steps while stepping, else null. */
  step: null,
  predict: false,
  runTimer: 0,
  ordersTimer: 0,
  /** The fragment this page wrote itself (its hashchange is not a new link). */
  ownHash: null,
  firstTraceShown: false,
};

/** The simulator's workers (engine.js): one per kind of call. */
const engine = { run: null, orders: null, predict: null };

// ---------------------------------------------------------------- helpers

function make(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function setStatus(text) {
  el.status.textContent = text;
}

/** The options JSON every module call takes. */
function options(extra = {}) {
  const opts = { ...extra };
  if (el.node.value) opts.node = el.node.value;
  return JSON.stringify(opts);
}

// ---------------------------------------------------------------- editor

/** What the highlight layer marks besides the tokens: diagnostics' labels, the step's line, a veiled expect block. */
function editorMarks() {
  const res = state.result;
  const text = el.source.value;
  const marks = [];
  if (res && state.resultSource === text) {
    for (const d of res.diagnostics || []) {
      for (const label of d.labels || []) {
        marks.push({ start: label.start, end: label.end, cls: d.severity === 'warning' ? 'm-warning' : 'm-error' });
      }
    }
    const step = currentStep();
    if (step && step.line) {
      const range = lineRange(text, step.line);
      if (range) marks.push({ ...range, cls: 'm-step' });
    }
  }
  if (state.predict) {
    // The file's own prediction would give the answer away: veil it (an expect block ends the file).
    const at = text.search(/^[ \t]*expect\b/m);
    if (at >= 0) marks.push({ start: at, end: text.length, cls: 'm-veiled' });
  }
  return marks;
}

/** The UTF-16 range of 1-based line `n` of `text` (without its newline). */
function lineRange(text, n) {
  let start = 0;
  for (let i = 1; i < n; i++) {
    const next = text.indexOf('\n', start);
    if (next < 0) return null;
    start = next + 1;
  }
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  return { start, end: Math.max(end, start + 1) };
}

function paintEditor() {
  renderHighlighted(el.highlight, el.source.value, editorMarks());
  syncScroll();
}

function syncScroll() {
  el.highlight.scrollTop = el.source.scrollTop;
  el.highlight.scrollLeft = el.source.scrollLeft;
}

function setSource(text, name) {
  el.source.value = text;
  el.fileName.textContent = name ? '— ' + name : '';
  el.fileName.dataset.name = name || '';
  el.source.scrollTop = 0;
  el.source.scrollLeft = 0;
  state.step = null;
  resetVerdict();
  paintEditor();
}

// ---------------------------------------------------------------- run

function scheduleRun(delay = RUN_DELAY_MS) {
  clearTimeout(state.runTimer);
  state.runTimer = setTimeout(doRun, delay);
}

/**
 * Whether a run may go on the page's own thread: only the page's first run,
 * and only of a bundled example's unchanged text, whose runs are known to take
 * milliseconds. A worker's first call waits for the worker to boot and
 * instantiate the module (about 150 ms here), which the first trace need not
 * wait for; any other text (a share link's, an edit) runs in a worker, so that
 * however long it runs, the page stays responsive.
 */
function firstRunHere(source) {
  if (state.runStarted) return false;
  const ex = state.openedExample && examples().find((e) => e.path === state.openedExample);
  return Boolean(ex && ex.source === source);
}

async function doRun() {
  clearTimeout(state.runTimer);
  const source = el.source.value;
  const opts = options();
  const here = firstRunHere(source);
  if (!state.runStarted) {
    state.runStarted = true;
    // Where the page's first run went (the page's test reads it).
    document.documentElement.dataset.firstRun = here ? 'page' : 'worker';
  }
  const note = setTimeout(() => {
    document.body.classList.add('running');
    setStatus('running…');
  }, RUNNING_NOTE_MS);
  let res;
  try {
    res = JSON.parse(await (here ? engine.run.now('run', [source, opts]) : engine.run.call('run', [source, opts])));
    // When the first answer arrived (the page's test tells computing from drawing).
    document.documentElement.dataset.firstResultMs ??= String(Math.round(performance.now()));
  } catch (err) {
    clearTimeout(note);
    if (err instanceof Cancelled) return; // a newer run replaced this one
    document.body.classList.remove('running');
    setStatus('the simulator failed: ' + err.message);
    return;
  }
  clearTimeout(note);
  document.body.classList.remove('running');
  if (source !== el.source.value || opts !== options()) return; // the text changed meanwhile: its own run follows
  state.result = res;
  state.resultSource = source;
  if (state.step !== null && (!res.steps || state.step >= res.steps.length)) state.step = null;
  renderDiagnostics(res);
  renderTrace(res);
  renderPicture(res);
  renderStep();
  paintEditor();
  const logs = logEvents(res).length;
  setStatus(
    res.exit === 2
      ? 'the file has errors'
      : `${logs} log line${logs === 1 ? '' : 's'}` + (res.exit === 3 ? ' · stopped by a limit' : ''),
  );
  if (!state.firstTraceShown && res.trace) {
    state.firstTraceShown = true;
    performance.mark('loopsim-first-trace');
    document.documentElement.dataset.firstTraceMs = String(Math.round(performance.now()));
  }
  scheduleOrders();
}

function logEvents(res) {
  return res && res.trace && Array.isArray(res.trace.events) ? res.trace.events.filter((e) => e.event === 'log') : [];
}

function renderDiagnostics(res) {
  const list = res.diagnostics || [];
  el.diagList.replaceChildren();
  const errors = list.filter((d) => d.severity === 'error').length;
  const warnings = list.length - errors;
  const parts = [];
  if (errors) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
  if (warnings) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  el.diagSummary.textContent = parts.length
    ? parts.join(', ')
    : res.exit === 3
      ? 'the run stopped at a limit: the command line says why below'
      : res.raceWarning
      ? 'no problems' + (state.predict ? '' : '; Node can print another order (see the trace)')
      : 'no problems';
  el.diagSummary.className = errors ? 'error-text' : 'muted';
  for (const d of list) {
    const item = make('li', 'diag ' + (d.severity === 'warning' ? 'warning' : 'error'));
    const head = make('div', 'diag-head');
    head.append(make('span', 'diag-sev', d.severity === 'warning' ? '⚠' : '×'), ' ', make('span', 'diag-msg', d.message));
    item.append(head);
    const meta = make('div', 'diag-meta');
    meta.append(make('code', '', d.code));
    for (const label of d.labels || []) {
      const jump = make('button', 'link', `line ${label.line}:${label.column}`);
      jump.type = 'button';
      jump.title = 'select this span in the editor';
      jump.addEventListener('click', () => {
        el.source.focus();
        el.source.setSelectionRange(label.start, Math.max(label.end, label.start));
      });
      meta.append(' ', jump);
      if (label.text) meta.append(' ', make('span', 'diag-label', label.text));
    }
    item.append(meta);
    if (d.help) item.append(make('div', 'diag-help', 'help: ' + d.help));
    el.diagList.append(item);
  }
  el.rendered.textContent = res.rendered || '';
  el.renderedBox.hidden = !res.rendered;
  if (res.exit === 3 && errors === 0) el.renderedBox.open = true;
  // Without errors it holds only warnings and notes, such as the race warning: part of the answer.
  el.renderedBox.classList.toggle('answer-only', errors === 0);
}

function renderTrace(res) {
  const trace = res.trace;
  el.traceNode.textContent = trace && trace.node ? `(Node ${trace.node})` : '';
  if (res.raceWarning) {
    el.race.replaceChildren(make('strong', '', '⚠ ' + res.raceWarning.message));
    if (res.raceWarning.help) el.race.append(make('span', 'race-help', ' ' + res.raceWarning.help));
    el.race.hidden = false;
  } else el.race.hidden = true;

  const rows = document.createDocumentFragment();
  const logs = logEvents(res);
  const explanations = (trace && trace.explanations) || [];
  const shown = Math.min(logs.length, MAX_ROWS);
  for (let i = 0; i < shown; i++) {
    const e = logs[i];
    const tr = make('tr', 'log-row');
    tr.dataset.index = String(i);
    tr.append(make('td', 'num', e.turn), make('td', 'num', e.tick), make('td', 'phase p-' + e.phase, e.phase), make('td', 'text', e.text));
    rows.append(tr);
    if (el.explain.checked && explanations[i]) {
      const ex = make('tr', 'explain-row');
      ex.dataset.index = String(i);
      const cell = make('td', 'explain', '↳ ' + explanations[i]);
      cell.colSpan = 4;
      ex.append(cell);
      rows.append(ex);
    }
  }
  if (logs.length > shown) {
    const tr = make('tr', 'more-row');
    const cell = make('td', 'muted', `… ${logs.length - shown} more lines (the first ${MAX_ROWS} are shown; the command line prints them all)`);
    cell.colSpan = 4;
    tr.append(cell);
    rows.append(tr);
  }
  if (!trace) {
    const tr = make('tr', 'more-row');
    const cell = make('td', 'muted', 'no trace: the file has errors (see under the editor)');
    cell.colSpan = 4;
    tr.append(cell);
    rows.append(tr);
  } else if (logs.length === 0) {
    const tr = make('tr', 'more-row');
    const cell = make('td', 'muted', 'the run logs nothing');
    cell.colSpan = 4;
    tr.append(cell);
    rows.append(tr);
  }
  el.traceRows.replaceChildren(rows);
  el.traceEnd.textContent = trace ? endText(trace) : '';
  el.verboseText.textContent = res.verbose || '';
  el.verboseText.hidden = !el.verbose.checked || !res.verbose;
}

function endText(trace) {
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;
  switch (trace.end) {
    case 'finished':
      return `finished: ${plural(trace.turns, 'turn')}, ${plural(trace.ticks, 'tick')}, ${plural(trace.callbacks, 'callback')}`;
    case 'limit':
      return `stopped by a limit (${trace.limit}${trace.queue ? ', the ' + trace.queue + ' queue' : ''}${trace.line ? ', line ' + trace.line : ''}): see under the editor`;
    case 'unhandled':
      return `the process exits with code ${trace.code}: an unhandled rejection (line ${trace.line})`;
    case 'unsettled':
      return `the process exits with code ${trace.code}: a top-level await never settled${trace.line ? ' (line ' + trace.line + ')' : ''}`;
    default:
      return trace.end ? `end: ${trace.end}` : '';
  }
}

function renderPicture(res) {
  if (res.svg) {
    // The one place markup enters the page: loopsim's own SVG, which escapes every text of the file.
    el.picture.innerHTML = res.svg;
  } else {
    el.picture.replaceChildren(make('p', 'muted', 'no picture: the file has errors'));
  }
}

// ---------------------------------------------------------------- stepping

function currentStep() {
  const res = state.result;
  if (state.step === null || !res || !res.steps) return null;
  return res.steps[state.step] || null;
}

function stepBy(delta) {
  const steps = state.result && state.result.steps;
  if (!steps || steps.length === 0) return;
  if (state.step === null) state.step = delta > 0 ? 0 : steps.length - 1;
  else state.step = Math.max(0, Math.min(steps.length - 1, state.step + delta));
  renderStep();
  paintEditor();
}

function stopStepping() {
  state.step = null;
  renderStep();
  paintEditor();
}

function renderStep() {
  const res = state.result;
  const steps = (res && res.steps) || [];
  const step = currentStep();
  el.stepPrev.disabled = steps.length === 0 || state.step === 0;
  el.stepNext.disabled = steps.length === 0 || state.step === steps.length - 1;
  el.stepAll.disabled = state.step === null;
  document.body.classList.toggle('stepping', step !== null);

  for (const g of el.picture.querySelectorAll('g.current, g.later')) g.classList.remove('current', 'later');
  for (const tr of el.traceRows.querySelectorAll('tr.later')) tr.classList.remove('later');
  if (!step) {
    el.stepInfo.textContent = steps.length
      ? `${steps.length} callback${steps.length === 1 ? '' : 's'}: press ▶ (or →) to step through them`
      : 'nothing to step through';
    el.queues.hidden = true;
    return;
  }
  // A resumption names whose body resumes ("worker resumes").
  const what = step.by
    ? `${step.by} resumes`
    : step.kind + (step.label !== null && step.label !== undefined ? ` “${step.label}”` : '');
  el.stepInfo.textContent = `callback ${state.step + 1} of ${steps.length}: ${what} (line ${step.line}) · turn ${step.turn} · tick ${step.tick} · ${step.phase}`;

  let box = null;
  for (const g of el.picture.querySelectorAll('g.cb[data-call]')) {
    const call = Number(g.getAttribute('data-call'));
    if (call === step.call) box = g;
    else if (call > step.call) g.classList.add('later');
  }
  if (box) {
    box.classList.add('current');
    scrollIntoPicture(box);
  } else el.stepInfo.textContent += ' (drawn inside a box of several callbacks)';

  for (const tr of el.traceRows.querySelectorAll('tr[data-index]')) {
    if (Number(tr.dataset.index) >= step.logs) tr.classList.add('later');
  }

  el.queues.replaceChildren(make('h4', '', 'waiting when this callback starts'));
  const queues = (step.queues || []).filter((q) => q.items && q.items.length);
  if (queues.length === 0) el.queues.append(make('p', 'muted', 'every queue is empty'));
  else {
    const dl = make('dl', 'queue-list');
    for (const q of queues) {
      dl.append(make('dt', 'p-' + q.name, q.name));
      const dd = make('dd');
      const ul = make('ul');
      for (const item of q.items) ul.append(make('li', '', item));
      const more = (q.count || 0) - q.items.length;
      if (more > 0) ul.append(make('li', 'muted', `… and ${more} more`));
      dd.append(ul);
      dl.append(dd);
    }
    el.queues.append(dl);
  }
  el.queues.hidden = false;
}

/** Scrolls the picture (only) so that the box is visible. */
function scrollIntoPicture(box) {
  const frame = el.picture.getBoundingClientRect();
  const r = box.getBoundingClientRect();
  if (r.left < frame.left || r.right > frame.right) {
    el.picture.scrollLeft += r.left - frame.left - (frame.width - r.width) / 2;
  }
  if (r.top < frame.top || r.bottom > frame.bottom) {
    el.picture.scrollTop += r.top - frame.top - (frame.height - r.height) / 2;
  }
}

// ---------------------------------------------------------------- orders

const orders = { seq: 0 };

function scheduleOrders() {
  clearTimeout(state.ordersTimer);
  if (state.result && state.result.exit === 2 && state.resultSource === el.source.value) {
    // Nothing to search: say so at once.
    showOrders({ exit: 2, text: '', report: null, rendered: '' }, ++orders.seq);
    return;
  }
  orders.seq++; // an answer still coming is for an older text
  el.ordersStatus.textContent = 'searching…';
  el.ordersStatus.classList.add('busy');
  state.ordersTimer = setTimeout(startOrders, ORDERS_DELAY_MS);
}

async function startOrders() {
  const source = el.source.value;
  const seq = ++orders.seq;
  let answer;
  try {
    answer = JSON.parse(await engine.orders.call('orders', [source, options({ timeLimitMs: ORDERS_TIME_LIMIT_MS })]));
  } catch (err) {
    if (!(err instanceof Cancelled)) showOrdersError(err.message, seq);
    return;
  }
  showOrders(answer, seq);
}

function showOrdersError(message, seq) {
  if (seq !== orders.seq) return;
  el.ordersStatus.classList.remove('busy');
  el.ordersStatus.textContent = 'the search failed: ' + message;
}

/** `{ bound: 'seconds', max: 2 }` → `its 2 s time limit`. */
function cutText(cut) {
  if (!cut || typeof cut !== 'object') return String(cut);
  if (cut.bound === 'seconds') return `by its ${cut.max} s time limit`;
  return `by its bound of ${cut.max} ${cut.bound}`;
}

function showOrders(answer, seq) {
  if (seq !== orders.seq) return; // an answer for an older text
  el.ordersStatus.classList.remove('busy');
  el.races.replaceChildren();
  const report = answer.report;
  if (answer.exit === 2 && !report) {
    el.ordersCount.textContent = '';
    el.ordersStatus.textContent = 'no orders: the file has errors';
    el.ordersText.textContent = answer.rendered || '';
    return;
  }
  if (report) {
    const exact = report.countExact !== false && !report.cut;
    el.ordersCount.textContent = `(${exact ? '' : 'at least '}${report.count})`;
    el.ordersStatus.textContent =
      report.count === 1 && exact
        ? 'one order: real Node prints the trace’s order, whatever the timing'
        : exact
          ? `${report.count} orders`
          : `the search was cut short${report.cut ? ' (' + cutText(report.cut) + ')' : ''}: a partial answer`;
    for (const race of report.races || []) el.races.append(make('li', 'race', race.statement));
  } else {
    el.ordersCount.textContent = '';
    el.ordersStatus.textContent = '';
  }
  el.ordersText.textContent = (answer.text || '') + (answer.rendered ? (answer.text ? '\n' : '') + answer.rendered : '');
}

// ---------------------------------------------------------------- predict mode

function setPredict(on) {
  state.predict = on;
  document.body.classList.toggle('predicting', on);
  el.predictToggle.setAttribute('aria-pressed', String(on));
  el.predictToggle.textContent = on ? 'Leave predict mode' : 'Predict mode';
  el.predictPanel.hidden = !on;
  for (const panel of document.querySelectorAll('.answer')) panel.hidden = on;
  if (state.result) renderDiagnostics(state.result);
  if (on && state.step !== null) {
    state.step = null;
    renderStep();
  }
  paintEditor();
  if (on) el.prediction.focus();
}

function predictedLines() {
  // A blank line separates nothing: it is not a predicted line.
  return el.prediction.value.split('\n').filter((line) => line.trim() !== '');
}

function setPredictedLines(lines) {
  el.prediction.value = lines.join('\n');
  renderPredictionList();
}

function renderPredictionList(wrong = null) {
  const lines = predictedLines();
  const list = document.createDocumentFragment();
  lines.forEach((line, i) => {
    const item = make('li', i === wrong ? 'wrong' : '');
    item.draggable = true;
    item.dataset.index = String(i);
    item.append(make('span', 'grip', '⠿'), make('span', 'pred-text', line));
    const up = make('button', 'small', '↑');
    up.type = 'button';
    up.setAttribute('aria-label', `move line ${i + 1} up`);
    up.disabled = i === 0;
    up.addEventListener('click', () => moveLine(i, i - 1));
    const down = make('button', 'small', '↓');
    down.type = 'button';
    down.setAttribute('aria-label', `move line ${i + 1} down`);
    down.disabled = i === lines.length - 1;
    down.addEventListener('click', () => moveLine(i, i + 1));
    item.append(up, down);
    item.addEventListener('dragstart', (event) => {
      event.dataTransfer.setData('text/x-loopsim-line', String(i));
      event.dataTransfer.effectAllowed = 'move';
      item.classList.add('dragging');
    });
    item.addEventListener('dragend', () => item.classList.remove('dragging'));
    item.addEventListener('dragover', (event) => {
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
    });
    item.addEventListener('drop', (event) => {
      event.preventDefault();
      const from = Number(event.dataTransfer.getData('text/x-loopsim-line'));
      if (Number.isInteger(from)) moveLine(from, i);
    });
    list.append(item);
  });
  el.predictionList.replaceChildren(list);
}

function moveLine(from, to) {
  const lines = predictedLines();
  if (to < 0 || to >= lines.length || from === to) return;
  const [line] = lines.splice(from, 1);
  lines.splice(to, 0, line);
  setPredictedLines(lines);
  const button = el.predictionList.children[to] && el.predictionList.children[to].querySelector(to < from ? 'button' : 'button:last-of-type');
  if (button && !button.disabled) button.focus();
}

async function fillShuffled() {
  if (!state.result || state.resultSource !== el.source.value) await doRun();
  const texts = logEvents(state.result).map((e) => e.text);
  if (texts.length === 0) {
    setPredictedLines([]);
    showVerdictMessage('the run logs nothing to arrange');
    return;
  }
  let lines = texts.slice();
  for (let attempt = 0; attempt < 10; attempt++) {
    for (let i = lines.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [lines[i], lines[j]] = [lines[j], lines[i]];
    }
    if (lines.some((line, i) => line !== texts[i])) break;
  }
  setPredictedLines(lines);
  resetVerdict();
}

function resetVerdict() {
  el.verdict.hidden = true;
  el.verdict.className = 'verdict';
  renderPredictionList();
}

function showVerdictMessage(text) {
  el.verdict.hidden = false;
  el.verdict.className = 'verdict';
  el.verdictTitle.textContent = text;
  el.verdictDetail.hidden = true;
  el.verdictText.textContent = '';
}

async function checkPrediction() {
  const lines = predictedLines();
  showVerdictMessage('checking…');
  let answer;
  try {
    answer = JSON.parse(await engine.predict.call('predict', [el.source.value, JSON.stringify(lines), options()]));
  } catch (err) {
    if (!(err instanceof Cancelled)) showVerdictMessage('the check failed: ' + err.message);
    return;
  }
  el.verdict.hidden = false;
  el.verdictText.textContent = answer.text || '';
  if (answer.pass) {
    el.verdict.className = 'verdict pass';
    el.verdictTitle.textContent = `✓ Right: ${lines.length} line${lines.length === 1 ? '' : 's'} as predicted.`;
    el.verdictDetail.hidden = true;
    renderPredictionList();
  } else if (answer.firstWrong !== null && answer.firstWrong !== undefined) {
    el.verdict.className = 'verdict fail';
    el.verdictTitle.textContent = `✗ Line ${answer.firstWrong + 1} is wrong.`;
    el.verdictExpected.textContent = answer.expected !== null && answer.expected !== undefined ? answer.expected : '(nothing: your prediction ends here)';
    el.verdictGot.textContent = answer.got !== null && answer.got !== undefined ? answer.got : '(nothing: the run ends here)';
    el.verdictHelp.textContent = answer.help || '';
    el.verdictDetail.hidden = false;
    renderPredictionList(answer.firstWrong);
    selectPredictionLine(answer.firstWrong);
  } else {
    el.verdict.className = 'verdict fail';
    el.verdictTitle.textContent =
      answer.exit === 2 ? '✗ The file has errors: fix them first (see under the editor).' : '✗ Not as predicted (see below).';
    el.verdictDetail.hidden = true;
    renderPredictionList();
  }
}

/** Selects line `index` (of the non-blank lines) in the prediction textarea. */
function selectPredictionLine(index) {
  const raw = el.prediction.value.split('\n');
  let offset = 0;
  let seen = -1;
  for (const line of raw) {
    if (line.trim() !== '') seen++;
    if (seen === index && line.trim() !== '') {
      el.prediction.setSelectionRange(offset, offset + line.length);
      return;
    }
    offset += line.length + 1;
  }
}

// ---------------------------------------------------------------- examples, links

function fillExampleMenu() {
  const groups = new Map();
  for (const ex of examples()) {
    const slash = ex.path.lastIndexOf('/');
    const folder = slash < 0 ? '.' : ex.path.slice(0, slash);
    if (!groups.has(folder)) groups.set(folder, []);
    groups.get(folder).push(ex);
  }
  for (const [folder, list] of groups) {
    const group = document.createElement('optgroup');
    group.label = folder;
    for (const ex of list) {
      const option = make('option', '', ex.path.slice(ex.path.lastIndexOf('/') + 1).replace(/\.loop$/, ''));
      option.value = ex.path;
      if (ex.title) option.title = ex.title;
      group.append(option);
    }
    el.examples.append(group);
  }
}

/** Every example (examples.json, read once the page starts; none if it could not be read). */
function examples() {
  return state.examples || [];
}

function openExample(path) {
  const ex = examples().find((e) => e.path === path);
  if (!ex) return false;
  state.openedExample = path;
  el.examples.value = path;
  setSource(ex.source, path);
  return true;
}

function showLinkError(message) {
  el.linkError.textContent = message;
  el.linkError.hidden = !message;
}

/** Opens what the fragment names; true when it named something. */
function openFragment(hash) {
  const link = parseFragment(hash);
  showLinkError('');
  if (link.node && NODE_PROFILES.includes(link.node)) el.node.value = link.node;
  switch (link.kind) {
    case 'code':
      el.examples.value = '';
      state.openedExample = null;
      setSource(link.source, 'from a link');
      return true;
    case 'example':
      if (!openExample(link.path)) {
        showLinkError(`This link names the example “${link.path}”, which does not exist.`);
        return false;
      }
      if (link.nodeError) showLinkError(link.nodeError);
      return true;
    case 'error':
      showLinkError(link.message);
      if (link.source !== undefined) {
        el.examples.value = '';
        state.openedExample = null;
        setSource(link.source, 'from a link');
        return true;
      }
      return false;
    default:
      return false;
  }
}

async function copyLink() {
  const hash = buildFragment(el.source.value, el.node.value || null);
  state.ownHash = hash;
  history.replaceState(null, '', hash);
  const url = location.href;
  el.linkText.value = url;
  el.linkBox.hidden = false;
  if (new TextEncoder().encode(el.source.value).length > MAX_SHARED_BYTES) {
    el.linkNote.textContent = 'this file is larger than 1 MiB: a page opening this link refuses it';
    return;
  }
  try {
    await navigator.clipboard.writeText(url);
    el.linkNote.textContent = 'copied to the clipboard';
  } catch {
    el.linkText.focus();
    el.linkText.select();
    el.linkNote.textContent = 'select and copy it (the clipboard is not available here)';
  }
}

// ---------------------------------------------------------------- wiring

function wire() {
  el.source.addEventListener('input', () => {
    state.step = null;
    if (el.fileName.dataset.name && !el.fileName.textContent.endsWith('(edited)')) el.fileName.textContent += ' (edited)';
    el.linkBox.hidden = true; // the link it showed is for the text before this edit
    paintEditor();
    scheduleRun();
  });
  el.source.addEventListener('scroll', syncScroll);
  el.source.addEventListener('keydown', (event) => {
    // Tab inserts two spaces (Escape first, then Tab, leaves the editor).
    if (event.key === 'Tab' && !event.shiftKey && !el.source.dataset.escaped) {
      event.preventDefault();
      el.source.setRangeText('  ', el.source.selectionStart, el.source.selectionEnd, 'end');
      el.source.dispatchEvent(new Event('input'));
    }
    if (event.key === 'Escape') el.source.dataset.escaped = '1';
    else if (event.key !== 'Tab') delete el.source.dataset.escaped;
  });
  el.source.addEventListener('blur', () => delete el.source.dataset.escaped);
  el.examples.addEventListener('change', () => {
    if (el.examples.value && openExample(el.examples.value)) {
      showLinkError('');
      doRun();
    }
  });
  el.node.addEventListener('change', () => doRun());
  el.explain.addEventListener('change', () => {
    if (state.result) {
      renderTrace(state.result);
      renderStep();
    }
  });
  el.verbose.addEventListener('change', () => {
    el.verboseText.hidden = !el.verbose.checked || !el.verboseText.textContent;
  });
  el.copyLink.addEventListener('click', copyLink);
  el.predictToggle.addEventListener('click', () => setPredict(!state.predict));
  el.stepPrev.addEventListener('click', () => stepBy(-1));
  el.stepNext.addEventListener('click', () => stepBy(1));
  el.stepAll.addEventListener('click', stopStepping);
  el.prediction.addEventListener('input', () => {
    el.verdict.hidden = true;
    renderPredictionList();
  });
  el.fillShuffled.addEventListener('click', fillShuffled);
  el.check.addEventListener('click', checkPrediction);
  el.showTrace.addEventListener('click', () => setPredict(false));
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || state.predict) return;
    const target = event.target;
    if (target instanceof HTMLElement && (target.isContentEditable || /^(TEXTAREA|INPUT|SELECT)$/.test(target.tagName))) return;
    event.preventDefault();
    stepBy(event.key === 'ArrowRight' ? 1 : -1);
  });
  window.addEventListener('hashchange', () => {
    if (location.hash === state.ownHash) return;
    state.ownHash = null;
    if (openFragment(location.hash)) doRun();
  });
}

async function main() {
  document.documentElement.dataset.scriptMs = String(Math.round(performance.now()));
  wire();
  // The examples come beside the WebAssembly, read while it compiles.
  const examplesRead = fetch(new URL('./examples.json', import.meta.url))
    .then((r) => (r.ok ? r.json() : []))
    .catch(() => []);
  try {
    const module = await compileModule(new URL('./loopsim_bg.wasm', import.meta.url));
    await init({ module_or_path: module });
    engine.run = new Slot(module, loopsim);
    // The worker index.html started, booted meanwhile (or a new one, starting while this thread reads the examples).
    engine.run.warm(window.loopsimEarlyWorker || null);
    window.loopsimEarlyWorker = null;
    engine.orders = new Slot(module, loopsim);
    engine.predict = new Slot(module, loopsim);
    document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
  } catch (err) {
    setStatus('the simulator could not be loaded: ' + err.message);
    return;
  }
  state.examples = await examplesRead;
  if (!openFragment(location.hash) && !el.source.value) {
    if (!openExample(DEFAULT_EXAMPLE) && examples().length) openExample(examples()[0].path);
  }
  // The first run goes to its worker before this thread builds the menu.
  doRun();
  el.version.textContent = String(loopsim.version()).replace(/^loopsim\s+/, '');
  fillExampleMenu();
  el.examples.value = state.openedExample || '';
}

main();
