// The simulator off the page's thread. Each kind of call (run, orders,
// predict) has its own worker, so a long call never blocks typing, and a newer
// call of a kind cancels the older one still running (its worker is ended and
// a fresh one started). The workers share the page's compiled WebAssembly
// module. Where no module worker can be had, calls run on the page's thread.

const WORKER_URL = new URL('./engine-worker.js', import.meta.url);

/** The rejection of a call a newer call of its kind replaced. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled by a newer call');
    this.name = 'Cancelled';
  }
}

export class Slot {
  /**
   * @param {WebAssembly.Module | null} module the compiled module, for the worker
   * @param {object} direct the module's functions on this thread (the fallback)
   */
  constructor(module, direct) {
    this.module = module;
    this.direct = direct;
    this.worker = null;
    this.pending = null;
    this.seq = 0;
    this.broken = !module || typeof Worker !== 'function';
  }

  /** `fn(...args)` of the module, as a promise of its answer (a JSON string). */
  call(fn, args) {
    if (this.pending) {
      const old = this.pending;
      this.pending = null;
      if (this.worker) {
        this.worker.terminate();
        this.worker = null;
      }
      old.reject(new Cancelled());
    }
    if (this.broken) return this.here(fn, args);
    try {
      if (!this.worker) this.spawn();
    } catch {
      this.broken = true;
      return this.here(fn, args);
    }
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending = { seq, fn, args, resolve, reject };
      this.worker.postMessage({ seq, fn, args });
    });
  }

  /** Starts the worker now, so that the first call does not wait for it. */
  warm(early = null) {
    if (this.broken || this.worker) return;
    try {
      if (early) this.adopt(early);
      else this.spawn();
    } catch {
      this.broken = true;
    }
  }

  /**
   * Runs the call on this thread at once, without a worker (the page's first
   * run of a bundled example: see app.js firstRunHere).
   */
  now(fn, args) {
    try {
      return Promise.resolve(this.direct[fn](...args));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Runs the call on this thread, after the browser has painted. */
  here(fn, args) {
    return new Promise((resolve, reject) => {
      requestAnimationFrame(() => setTimeout(() => this.now(fn, args).then(resolve, reject), 0));
    });
  }

  spawn() {
    this.adopt(new Worker(WORKER_URL, { type: 'module' }));
  }

  /** Takes on a worker of engine-worker.js started earlier (index.html starts one before any module loads). */
  adopt(worker) {
    worker.onmessage = (event) => {
      const p = this.pending;
      if (!p || event.data.seq !== p.seq) return;
      this.pending = null;
      if (event.data.error !== undefined) p.reject(new Error(event.data.error));
      else p.resolve(event.data.answer);
    };
    worker.onerror = (event) => {
      // The worker could not start (or died): from now on, calls run here.
      event.preventDefault();
      worker.terminate();
      if (this.worker === worker) this.worker = null;
      this.broken = true;
      const p = this.pending;
      this.pending = null;
      if (p) this.here(p.fn, p.args).then(p.resolve, p.reject);
    };
    worker.postMessage({ init: this.module });
    this.worker = worker;
  }
}

/** Fetches and compiles the module (to share it with the workers). */
export async function compileModule(url) {
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch {
    // A server that does not say application/wasm: compile from the bytes.
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
    return WebAssembly.compile(await response.arrayBuffer());
  }
}
