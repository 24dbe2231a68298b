// The orders search (`loopsim.orders`, up to its time limit) off the page's
// thread, so typing never waits for it. One message in, one answer out:
// { seq, source, options } → { seq, answer } or { seq, error }.
import init, * as loopsim from './loopsim_web.js';

const ready = init();

self.onmessage = async (event) => {
  const { seq, source, options } = event.data;
  try {
    await ready;
    self.postMessage({ seq, answer: loopsim.orders(source, options) });
  } catch (err) {
    self.postMessage({ seq, error: String((err && err.message) || err) });
  }
};
