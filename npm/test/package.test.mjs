// The npm package, as a user gets it: `npm pack ./npm` (after `bash
// web/build.sh`), installed from the tarball into an empty temporary folder;
// its `loopsim` must print what the Rust binary prints (stdout, stderr, exit
// code) for every command it has, and refuse emit-js and verify with exit 2.
// Run from the repository's root: `node npm/test/package.test.mjs`
// (the Rust binary: $LOOPSIM_BIN, default target/debug/loopsim).
import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import test from 'node:test';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
process.chdir(root);
const rust = process.env.LOOPSIM_BIN || path.join(root, 'target/debug/loopsim');
assert.ok(fs.existsSync(rust), `the Rust binary is missing: ${rust} (cargo build first)`);
assert.ok(fs.existsSync('npm/dist/loopsim_bg.wasm'), 'npm/dist is missing: run bash web/build.sh first');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'loopsim-npm-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const packed = execFileSync('npm', ['pack', './npm', '--pack-destination', tmp, '--silent'], { encoding: 'utf8' })
  .trim()
  .split('\n')
  .pop();
const app = path.join(tmp, 'app');
fs.mkdirSync(app);
fs.writeFileSync(path.join(app, 'package.json'), '{"name":"app","version":"1.0.0","private":true}\n');
execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', path.join(tmp, packed)], { cwd: app });
const npmBin = path.join(app, 'node_modules/.bin/loopsim');
assert.ok(fs.existsSync(npmBin), 'the tarball installs a loopsim command');

// Files the cases use: a wrong prediction, a folder with invalid and odd files.
const cases = path.join(tmp, 'cases');
fs.mkdirSync(path.join(cases, 'odd/sub'), { recursive: true });
fs.writeFileSync(
  path.join(cases, 'wrong.loop'),
  'io "read" {\n  timeout 0 "timer"\n  immediate "immediate"\n}\n\nexpect {\n  "timer"\n  "immediate"\n}\n',
);
fs.writeFileSync(path.join(cases, 'odd/bad.loop'), 'timeout 5 "a"\nsetTimeout(() => {}, 5)\n');
fs.writeFileSync(path.join(cases, 'odd/bytes.loop'), Buffer.from([0x74, 0xff, 0xfe, 0x0a]));
fs.writeFileSync(path.join(cases, 'odd/sub/ok.loop'), 'immediate "i"\n\nexpect {\n  "i"\n}\n');
fs.symlinkSync('..', path.join(cases, 'odd/up'));
spawnSync('mkfifo', [path.join(cases, 'odd/pipe.loop')]);
// Once native only, for the module's size budget: lines that stay together
// in a race, the blocks of every missing order, a line separator in a comment.
fs.writeFileSync(
  path.join(cases, 'pairs.loop'),
  'pool 3\n' + ['a', 'b', 'c'].map((x) => `submit "read ${x}" 10 { log "read ${x}" nextTick "parse ${x}" }\n`).join(''),
);
fs.writeFileSync(
  path.join(cases, 'three-missing.loop'),
  'timeout 0 "t"\nimmediate "i"\nsubmit "s" 0\nexpect {\n  "s"\n  "i"\n  "t"\n} or {\n  "i"\n  "s"\n  "t"\n}\n',
);
fs.writeFileSync(path.join(cases, 'comment-break.loop'), '# a comment\u2028log "hidden"\nlog "a"\n');

function both(args, env = {}) {
  const opts = { encoding: 'utf8', env: { ...process.env, NO_COLOR: '', ...env }, timeout: 120_000 };
  return [spawnSync(rust, args, opts), spawnSync(npmBin, args, opts)];
}

const p02 = 'examples/phases/p02-timer-between-two-immediates.loop';
const p08 = 'examples/thread-pool/p08-eight-jobs-two-waves.loop';
const same = [
  ['run', p02],
  ['run', '--explain', 'examples/phases/p01-read-callback-schedules-three.loop'],
  ['run', '--verbose', p08],
  ['run', '--format', 'json', '--explain', p02],
  ['run', '--format', 'svg', p02],
  ['run', '--format', 'html', p02],
  ['run', '--all-orders', p02],
  ['run', '--all-orders', '--format', 'json', p08],
  ['run', '--node', '20', '--pool', '2', p08],
  ['check', path.join(cases, 'wrong.loop')],
  ['check', p02, 'examples/promises/p30-classic-async1-async2.loop'],
  ['test', 'examples'],
  ['test', path.join(cases, 'odd')],
  ['run', 'no-such-file.loop'],
  ['run', '--format', 'json', 'no-such-file.loop'],
  ['run', '--format', 'json', path.join(cases, 'odd/bad.loop')],
  ['run', 'examples'],
  ['run', path.join(cases, 'odd/bytes.loop')],
  ['run', '--explain', '--format', 'svg', p02],
  ['run', '--bogus', p02],
  ['run', '--all-orders', path.join(cases, 'pairs.loop')],
  ['check', path.join(cases, 'three-missing.loop')],
  ['run', path.join(cases, 'comment-break.loop')],
  ['--help'],
  ['run', '--help'],
  ['--version'],
  [],
];

for (const args of same) {
  test(`loopsim ${args.join(' ')}`, () => {
    const [r, n] = both(args);
    assert.equal(n.error, undefined);
    assert.equal(n.stdout, r.stdout);
    assert.equal(n.stderr, r.stderr);
    assert.equal(n.status, r.status);
  });
}

test('`test examples` ends with the Rust binary\'s summary line', () => {
  const [r, n] = both(['test', 'examples']);
  const last = (s) => s.trim().split('\n').pop();
  assert.match(last(r.stdout), /^\d+ passed, 0 failed$/);
  assert.equal(last(n.stdout), last(r.stdout));
  assert.equal(n.status, 0);
});

test('a file or an option given as a command: clap\'s error, without the binary\'s tip', () => {
  const [r, n] = both([p02]);
  assert.ok(r.stderr.includes(`  tip: \`loopsim run ${p02}\` runs the file`), r.stderr);
  assert.equal(n.stderr, r.stderr.replace(/  tip: [^\n]*\n\n/, ''));
  assert.equal(n.status, 2);
});

test('colour follows --color always in both', () => {
  const [r, n] = both(['--color', 'always', 'run', p02]);
  assert.ok(r.stdout.includes('\u001b['), 'the binary colours its trace');
  assert.equal(n.stdout, r.stdout);
  assert.equal(n.stderr, r.stderr);
});

test('--help is plain in the package, coloured by the binary under --color always', () => {
  const [r, n] = both(['--color', 'always', '--help']);
  assert.ok(r.stdout.includes('\u001b['), 'the binary colours its help');
  assert.ok(!n.stdout.includes('\u001b['), 'the package prints its help plain');
  assert.equal(n.stdout, r.stdout.replace(/\u001b\[[0-9;]*m/g, ''));
  assert.equal(n.status, r.status);
});

test('a closed pipe ends both at once, with the status a shell gives SIGPIPE', () => {
  for (const bin of [rust, npmBin]) {
    const r = spawnSync('bash', ['-c', `"${bin}" test examples | head -1; echo "status \${PIPESTATUS[0]}"`], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /^PASS  examples\//, bin);
    assert.equal(lines[1], 'status 141', bin);
  }
});

test('a full disk is told, with exit 74, by both', () => {
  for (const bin of [rust, npmBin]) {
    const r = spawnSync('bash', ['-c', `"${bin}" run "${p02}" > /dev/full`], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 74, `${bin}: ${r.stderr}`);
    assert.match(r.stderr, /error: cannot write to standard output: .*; the output is incomplete/, bin);
  }
});

test('emit-js and verify are the Rust binary\'s only', () => {
  for (const args of [['emit-js', p02], ['verify', p02]]) {
    const n = spawnSync(npmBin, args, { encoding: 'utf8' });
    assert.equal(n.status, 2);
    assert.match(n.stderr, /loopsim binary/);
    // Their help says so too, without the options the package cannot use.
    const help = spawnSync(npmBin, [args[0], '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /this command is in the loopsim binary only/);
    assert.doesNotMatch(help.stdout, /--scale/);
  }
});
