// Raw node-pty, the baseline: the fastest way to read a PTY from Node, with
// the same settings the core uses (binary chunks, 80x24, xterm-256color).
import * as nodePty from 'node-pty';
import { deferred, now, withDeadline } from './harness.mjs';

/** A program that echoes each keystroke itself (as a shell or editor does), byte for byte, after printing R. */
export const ECHO_PROGRAM = ['sh', ['-c', 'stty raw -echo && printf R && exec cat']];

const KEYS = 'abcdefghijklmnopqrstuvwxyz';
export const keyFor = (i) => KEYS[i % KEYS.length];

export function spawnRaw(file, args, { env, cwd, cols = 80, rows = 24 } = {}) {
  const pty = nodePty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd, env, encoding: null });
  const state = {
    pty,
    bytes: 0,
    done: false,
    /** Recent output as text, kept only while someone waits on it. */
    tail: '',
    watchers: new Set(),
  };
  pty.onData((chunk) => {
    state.bytes += chunk.length;
    if (state.watchers.size === 0) return;
    state.tail = (state.tail + chunk.toString('latin1')).slice(-4096);
    for (const w of [...state.watchers]) w();
  });
  const exit = deferred();
  pty.onExit((e) => {
    state.done = true;
    exit.resolve({ bytes: state.bytes, exitCode: e.exitCode, signal: e.signal });
    for (const w of [...state.watchers]) w();
  });
  state.exited = exit.promise;
  /** Resolves once the output so far satisfies `predicate(text tail, bytes)`. */
  state.waitFor = (predicate, ms = 10_000) => {
    const wait = new Promise((resolve) => {
      const check = () => {
        if (predicate(state.tail, state.bytes)) {
          state.watchers.delete(check);
          resolve();
        }
      };
      state.watchers.add(check);
      check();
    });
    return withDeadline(wait, ms, 'raw PTY output');
  };
  state.kill = async () => {
    if (!state.done) {
      try {
        pty.kill('SIGKILL');
      } catch {
        // already gone
      }
      await withDeadline(state.exited, 5000, 'raw PTY exit').catch(() => {});
    }
  };
  return state;
}

/** One keystroke round trip on a raw echo PTY: write a key, wait for its byte, in ms. */
export async function echoLatency(raw, i) {
  const target = raw.bytes + 1;
  const started = now();
  raw.pty.write(keyFor(i));
  await raw.waitFor((_tail, bytes) => bytes >= target, 10_000);
  return now() - started;
}
