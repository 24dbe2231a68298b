// One worker of engine.js: the first message brings the compiled module,
// each later one a call { seq, fn, args } → { seq, answer } or { seq, error }.
import init, * as loopsim from './loopsim.js';

const CALLS = new Set(['run', 'orders', 'predict']);
let ready = null;

self.onmessage = async (event) => {
  const data = event.data;
  if (data.init) {
    ready = data.init ? init({ module_or_path: data.init }) : init();
    return;
  }
  try {
    if (!CALLS.has(data.fn)) throw new Error(`no call ${data.fn}`);
    await ready;
    self.postMessage({ seq: data.seq, answer: loopsim[data.fn](...data.args) });
  } catch (err) {
    self.postMessage({ seq: data.seq, error: String((err && err.message) || err) });
  }
};
