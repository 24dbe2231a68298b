#!/usr/bin/env node
// `loopsim` for people with Node and no Rust: the loopsim command line itself,
// compiled to WebAssembly (web/wasm: the playground's own module), with Node's file
// system and streams as its host. Same output and exit codes as the Rust
// binary; `emit-js` and `verify` are in the Rust binary only.
import fs from 'node:fs';
import tty from 'node:tty';
import { initSync, cli } from '../dist/loopsim.js';

initSync({ module: fs.readFileSync(new URL('../dist/loopsim_bg.wasm', import.meta.url)) });

// Rust's standard library words these errors so (glibc's strerror); the CLI
// prints them after "cannot read FILE: ".
const WORDS = {
  ENOENT: ['No such file or directory', 2],
  EACCES: ['Permission denied', 13],
  EPERM: ['Operation not permitted', 1],
  ENOTDIR: ['Not a directory', 20],
  EISDIR: ['Is a directory', 21],
  ELOOP: ['Too many levels of symbolic links', 40],
  ENAMETOOLONG: ['File name too long', 36],
  EMFILE: ['Too many open files', 24],
  EIO: ['Input/output error', 5],
};

/** A Node error as the host's `{ code, message }`, worded as Rust words it. */
function hostError(e) {
  const known = WORDS[e.code];
  if (known) return { code: e.code, message: `${known[0]} (os error ${known[1]})` };
  const errno = typeof e.errno === 'number' ? ` (os error ${-e.errno})` : '';
  const text = String(e.message || e).replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
  return { code: e.code || 'EOTHER', message: text.charAt(0).toUpperCase() + text.slice(1) + errno };
}

function guard(f) {
  try {
    return f();
  } catch (e) {
    throw hostError(e);
  }
}

let closed = false;
/** The first error writing standard output met, other than a closed pipe. */
let outputError = null;

/** anstream's rules for `--color auto` (what the Rust binary follows). */
function autoColor(fd) {
  const env = process.env;
  if (env.NO_COLOR) return false;
  if (env.CLICOLOR_FORCE && env.CLICOLOR_FORCE !== '0') return true;
  if (env.CLICOLOR === '0') return false;
  const term = env.TERM !== undefined && env.TERM !== 'dumb';
  return tty.isatty(fd) && (term || env.CLICOLOR !== undefined || env.CI !== undefined);
}

const host = {
  read(path, max) {
    return guard(() => {
      const fd = fs.openSync(path, 'r');
      try {
        const chunks = [];
        let total = 0;
        for (;;) {
          const want = Math.min(1 << 20, max - total);
          if (want <= 0) break;
          const chunk = Buffer.allocUnsafe(want);
          const n = fs.readSync(fd, chunk, 0, want, null);
          if (n === 0) break;
          chunks.push(chunk.subarray(0, n));
          total += n;
        }
        return new Uint8Array(Buffer.concat(chunks, total));
      } finally {
        fs.closeSync(fd);
      }
    });
  },
  kind(path, follow) {
    return guard(() => {
      const s = follow ? fs.statSync(path) : fs.lstatSync(path);
      if (s.isFile()) return 'file';
      if (s.isDirectory()) return 'dir';
      if (s.isSymbolicLink()) return 'symlink';
      if (s.isFIFO()) return 'fifo';
      if (s.isCharacterDevice()) return 'char';
      if (s.isBlockDevice()) return 'block';
      if (s.isSocket()) return 'socket';
      return 'other';
    });
  },
  names(path) {
    return guard(() => fs.readdirSync(path));
  },
  write(fd, bytes) {
    if (closed) return;
    let at = 0;
    while (at < bytes.length) {
      try {
        at += fs.writeSync(fd, bytes, at, bytes.length - at);
      } catch (e) {
        if (e.code === 'EAGAIN') continue;
        // A closed pipe (`loopsim test | head`): end at once and quietly, as the
        // binary does (killed by SIGPIPE, which shells report as 141; Node
        // ignores SIGPIPE, so it exits with that code itself).
        if (e.code === 'EPIPE') {
          closed = true;
          process.exit(141);
        }
        // Standard output failed otherwise (a full disk): told once the
        // command ends, with exit 74, as the binary does.
        if (fd === 1) {
          outputError = outputError || e;
          return;
        }
        throw e;
      }
    }
  },
  autoColor,
};

try {
  process.exitCode = cli(process.argv.slice(2), host);
  if (outputError) {
    host.write(2, new TextEncoder().encode(`error: cannot write to standard output: ${outputError.message}; the output is incomplete\n`));
    process.exitCode = 74;
  }
} catch (e) {
  // The module trapped: WebAssembly's 4 GiB of memory ran out (the binary
  // stops such runs at its own bounds first, with room to spare), or a bug.
  // Said in one line, with exit 3 (a limit), not as Node's stack trace.
  host.write(2, new TextEncoder().encode(`error: loopsim's WebAssembly stopped (${e && e.message}): the run needs more memory than WebAssembly gives it; the loopsim binary has more room (cargo install --path . in loopsim's repository)\n`));
  process.exitCode = 3;
}
