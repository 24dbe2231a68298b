//! The JavaScript helpers an emitted program carries: how `work`, `io`,
//! `submit`, `close`, `pending`, `clear` and the limits are made real in Node.
//! Each piece is included only when the file needs it.

/// `timeout`/`interval` delays.
pub const TICKS: &str = r#"
// `timeout`/`interval` delays: n ticks in milliseconds. As in Node, a delay below 1 or above
// 2147483647 becomes 1 (here 1 tick: `timeout 0` and `timeout 1` are the same timer list, as
// setTimeout 0 and 1 are). loopsim refuses a scale at which some delay would exceed 2147483647 ms.
const ticks = (n) => (n >= 1 && n <= 2147483647 ? n : 1) * TICK;
"#;

/// The clock shared by `work` and the monitor thread.
pub const CLOCK: &str = r#"
// Milliseconds on the monotonic clock libuv's timers use (the same in every thread).
const clock = () => Number(process.hrtime.bigint()) / 1e6;
"#;

/// `work N`.
pub const WORK: &str = r#"
// `work n`: hold the main thread for n ticks (a busy loop, like pbkdf2Sync or a long computation).
function work(n) {
  const end = clock() + n * TICK;
  while (clock() < end);
}
"#;

/// `clear LABEL`.
pub const CLEAR: &str = r#"
// `clear "label"`: clearTimeout/clearInterval/clearImmediate of every timer and immediate with
// that label. Clearing one that already ran does nothing, as in Node.
const handles = new Map();
function track(label, handle) {
  if (!handles.has(label)) handles.set(label, []);
  handles.get(label).push(handle);
  return handle;
}
function clearLabel(label) {
  for (const handle of handles.get(label) ?? []) {
    if (handle.constructor.name === 'Immediate') clearImmediate(handle);
    else clearTimeout(handle); // a timeout or an interval
  }
  handles.delete(label);
}
"#;

/// The callback limit (only when loopsim's own run of the file stops at a limit).
pub const LIMIT: &str = r#"
// loopsim stops this program at a limit (it would never end by itself); so does this one:
// the callback after the first MAX_CALLBACKS does not run. Exit code 3, as loopsim's.
const MAX_CALLBACKS = {MAX};
let callbacks = 0;
function step() {
  if (callbacks++ === MAX_CALLBACKS) stop(`more than ${MAX_CALLBACKS} callbacks`);
}
function stop(why) {
  process.stderr.write(`loopsim: stopped: ${why}\n`);
  process.exit(3);
}
"#;

/// Named pipes: what `io` bytes arrive on, `submit` jobs block on, `close` handles wrap.
/// `{COUNT}`: how many to make at startup.
pub const FIFOS: &str = r#"
// Named pipes (FIFOs) in a temporary folder, removed at exit: `io` bytes arrive on them, a
// `submit` job's pool thread blocks reading one, a `close` handle wraps one.
const fifoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopsim-'));
process.on('exit', () => fs.rmSync(fifoDir, { recursive: true, force: true }));
const freeFifos = [];
let fifoCount = 0;
function makeFifos(count) {
  const paths = Array.from({ length: count }, () => path.join(fifoDir, `fifo${fifoCount++}`));
  execFileSync('mkfifo', paths);
  freeFifos.push(...paths);
}
makeFifos({COUNT});
function fifo() {
  if (freeFifos.length === 0) makeFifos(8);
  return freeFifos.pop();
}
"#;

/// The monitor thread. `{POOL}`: the thread-pool size.
pub const MONITOR: &str = r#"
// The monitor: a thread of its own (neither the event loop nor the thread pool) that writes each
// byte when it is due. Requests reach it through shared memory, so the event loop never sees
// them: [ARRIVES, fd, time] for `io … after N`; [JOB, fd, ms] for `submit`, whose byte is written
// ms after a pool thread is seen blocked reading fd (/proc/self/task/*/syscall).
const ARRIVES = 1, JOB = 2, CAPACITY = 4096;
function monitor() {
  const { workerData } = require('node:worker_threads');
  const fs = require('node:fs');
  const { shared, pool, capacity, ARRIVES } = workerData;
  const control = new Int32Array(shared, 0, 4); // [ready, requests written, requests read]
  const requests = new Float64Array(shared, 16, capacity * 3);
  const clock = () => Number(process.hrtime.bigint()) / 1e6;
  const self = fs.readlinkSync('/proc/thread-self').split('/').pop();
  const READ = { x64: '0 ', arm64: '63 ', riscv64: '63 ', loong64: '63 ' }[process.arch];
  const syscall = (tid) => {
    try {
      return fs.readFileSync(`/proc/self/task/${tid}/syscall`, 'latin1');
    } catch {
      return '';
    }
  };
  // Without a readable /proc/self/task/*/syscall (another kernel or architecture), a job is taken
  // to start when it is submitted with a thread free, or when a job before it finishes.
  const seen = READ !== undefined && syscall(self) !== '';
  const reader = (fd) => fs.readdirSync('/proc/self/task').find((tid) => syscall(tid).startsWith(`${READ}0x${fd.toString(16)} `));
  const byte = Buffer.from('x');
  const due = []; // bytes to write: { at, fd, job, seq }
  const waiting = new Map(); // fd -> { ms, seq }: jobs no pool thread has been seen taking yet
  const threadOf = new Map(); // fd -> the pool thread blocked reading it
  let taken = 0; // jobs holding a pool thread
  let seq = 0;
  Atomics.store(control, 0, 1);
  Atomics.notify(control, 0);
  for (;;) {
    let read = Atomics.load(control, 2);
    for (const written = Atomics.load(control, 1); read < written; read++) {
      const [kind, fd, value] = requests.subarray((read % capacity) * 3, (read % capacity) * 3 + 3);
      if (kind === ARRIVES) due.push({ at: value, fd, job: false, seq: seq++ });
      else waiting.set(fd, { ms: value, seq: seq++ });
    }
    Atomics.store(control, 2, read);
    if (waiting.size > 0 && taken < pool) {
      const now = clock();
      let last = seen ? -1 : [...waiting.values()].map((job) => job.seq).sort((a, b) => a - b)[pool - taken - 1] ?? Infinity;
      for (const tid of seen ? fs.readdirSync('/proc/self/task') : []) {
        const call = tid === self ? '' : syscall(tid);
        if (!call.startsWith(READ)) continue;
        const fd = parseInt(call.split(' ')[1], 16);
        if (!waiting.has(fd)) continue;
        threadOf.set(fd, tid);
        last = Math.max(last, waiting.get(fd).seq);
      }
      // libuv's queue is FIFO: a job submitted before one a thread has taken was taken too.
      for (const [fd, job] of waiting) {
        if (job.seq > last) continue;
        waiting.delete(fd);
        due.push({ at: now + job.ms, fd, job: true, seq: job.seq });
        taken++;
      }
    }
    due.sort((a, b) => a.at - b.at || a.seq - b.seq);
    while (due.length > 0 && due[0].at <= clock()) {
      const { fd, job } = due.shift();
      const tid = job && seen ? threadOf.get(fd) ?? reader(fd) : undefined;
      threadOf.delete(fd);
      fs.writeSync(fd, byte);
      if (!job) continue;
      taken--;
      // Let the thread hand its job back before the next byte: jobs due together finish in order.
      const inRead = `${READ}0x${fd.toString(16)} `;
      for (const end = clock() + 5; tid !== undefined && clock() < end; ) {
        const call = syscall(tid);
        if (call === '' || !(call.startsWith('running') || call.startsWith(inRead))) break;
      }
    }
    const next = due.length > 0 ? due[0].at - clock() : Infinity;
    const sleep = waiting.size > 0 && taken < pool ? Math.min(next, 0.2) : next;
    Atomics.wait(control, 1, read, Math.max(sleep, 0));
  }
}
const shared = new SharedArrayBuffer(16 + 8 * 3 * CAPACITY);
const control = new Int32Array(shared, 0, 4);
const requests = new Float64Array(shared, 16, CAPACITY * 3);
const monitorThread = new Worker(`(${monitor})()`, { eval: true, workerData: { shared, pool: {POOL}, capacity: CAPACITY, ARRIVES } });
monitorThread.on('error', (error) => {
  console.error('loopsim: the monitor thread failed:', error);
  process.exit(70);
});
monitorThread.unref();
if (Atomics.wait(control, 0, 0, 10000) === 'timed-out') throw new Error('loopsim: the monitor thread did not start');
function tell(kind, fd, value) {
  while (Atomics.load(control, 1) - Atomics.load(control, 2) >= CAPACITY) Atomics.wait(control, 2, Atomics.load(control, 2), 1);
  const at = (Atomics.load(control, 1) % CAPACITY) * 3;
  requests.set([kind, fd, value], at);
  Atomics.add(control, 1, 1);
  Atomics.notify(control, 1);
}
"#;

/// `io`. `{ARRIVE}`: how a byte due after `after > 0` ticks is written.
pub const IO: &str = r#"
// `io … after N`: a byte arrives on a named pipe N ticks from now, and the pipe's 'data'
// callback runs in the poll phase. No thread-pool work is involved. {WHO}
// Each `io` opens a descriptor of its own, as a new socket or request would: libuv registers it
// with epoll as the next poll phase begins. It is closed when its byte has come.
function io(after, callback) {
  const pipe = fifo();
  const fd = fs.openSync(pipe, 'r+');
  const socket = new net.Socket({ fd, writable: false });
  socket.on('data', () => {
    socket.destroy();
    freeFifos.push(pipe);
    callback();
  });
  {ARRIVE}
}
"#;

/// How an `io` byte is written when some `io` waits (`after N`, N > 0).
pub const IO_ARRIVE_LATER: &str = "if (after === 0) fs.writeSync(fd, 'x'); // already arrived
  else tell(ARRIVES, fd, clock() + after * TICK);";

/// How an `io` byte is written when every `io` has already arrived.
pub const IO_ARRIVE_NOW: &str = "fs.writeSync(fd, 'x'); // already arrived";

/// `submit` with some job of 1 tick or more.
pub const SUBMIT: &str = r#"
// `submit N`: a job that holds a pool thread for N ticks from when a thread takes it: the thread
// blocks reading a named pipe until the monitor writes to it. Its callback runs in the poll phase.
// `submit 0` (or any job with --scale 0) is a real quick pool job: fs.stat of this script.
function submit(n, callback) {
  if (n * TICK === 0) {
    fs.stat(process.argv[1], () => callback());
    return;
  }
  const pipe = fifo();
  const fd = fs.openSync(pipe, 'r+');
  jobs.add(fd);
  tell(JOB, fd, n * TICK);
  fs.read(fd, Buffer.alloc(1), 0, 1, null, () => {
    jobs.delete(fd);
    fs.closeSync(fd);
    freeFifos.push(pipe);
    callback();
  });
}
// Node waits for the pool threads as it exits: release any still blocked (a run stopped early).
const jobs = new Set();
process.on('exit', () => jobs.forEach((fd) => fs.writeSync(fd, 'x')));
"#;

/// `submit` when every job is `submit 0`.
pub const SUBMIT_QUICK: &str = r#"
// `submit 0`: a real quick pool job, fs.stat of this script. Its callback runs in the poll phase.
function submit(n, callback) {
  fs.stat(process.argv[1], () => callback());
}
"#;

/// Ctrl-C, `kill` or a closed terminal end the program through `exit`, so that the temporary
/// folder is removed then too (with the shell's codes: 130, 143, 129).
pub const CLEAN_ON_SIGNAL: &str = r#"
// Interrupted (Ctrl-C, kill, a closed terminal): exit, so that the temporary folder goes too.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
  process.on(signal, () => process.exit(code));
}
"#;

/// `writeFile`: the file it writes, in a private temporary folder removed at exit.
pub const WRITE_TARGET: &str = r#"
// `writeFile`: fs.writeFile of one byte into a private temporary folder, removed at exit.
const writeTarget = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'loopsim-')), 'written');
process.on('exit', () => fs.rmSync(path.dirname(writeTarget), { recursive: true, force: true }));
"#;

/// `close`.
pub const CLOSE: &str = r#"
// `close`: a pipe handle is destroyed now; its 'close' callback runs in the close phase
// (libuv runs closing handles last in, first out).
const closeFifo = fifo();
function close(callback) {
  const handle = new net.Socket({ fd: fs.openSync(closeFifo, 'r+'), readable: false, writable: false });
  handle.on('close', () => callback());
  handle.destroy();
}
"#;

/// `pending`.
pub const PENDING: &str = r#"
// `pending`: connecting to a pipe path that does not exist fails at once; libuv defers the
// failure to the next pending phase, where Node reports it ('error', ENOENT).
const missingPipe = path.join(os.tmpdir(), 'loopsim-no-such-folder', 'pipe');
function pending(callback) {
  net.connect(missingPipe).on('error', () => callback());
}
"#;

/// The re-run of an ES module whose pool size is not the one it needs.
/// `{POOL}`: the thread-pool size.
pub const ESM_POOL: &str = r#"
// Node 20 reads an ES module through the thread pool, so the pool already runs when this body
// starts and its size can only come from the environment: run again with UV_THREADPOOL_SIZE set.
if ((process.env.UV_THREADPOOL_SIZE ?? '4') !== '{POOL}') {
  const env = { ...process.env, UV_THREADPOOL_SIZE: '{POOL}' };
  const { status } = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit', env });
  process.exit(status ?? 1);
}
"#;

/// `rejections warn`: the run of the program under `node --unhandled-rejections=warn`.
pub const WARN: &str = r#"
// `rejections warn` is a flag of node itself, --unhandled-rejections=warn (an unhandled rejection
// prints a warning and the process goes on): without it, run again with it.
if (!process.execArgv.includes('--unhandled-rejections=warn')) {
  const args = ['--unhandled-rejections=warn', ...process.execArgv, ...process.argv.slice(1)];
  const { status } = spawnSync(process.execPath, args, { stdio: 'inherit' });
  process.exit(status ?? 1);
}
"#;
