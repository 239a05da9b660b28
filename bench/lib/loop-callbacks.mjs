// What a core host's loop ran, for the bench's tracing tools (in core-host.mjs): off unless a tool asks, since
// an async hook costs the host on every callback.
import { createHook } from 'node:async_hooks';

/** Where the current callback was armed: the first frame outside Node and the bench's own host files. */
function armedAt() {
  const frame = new Error().stack
    .split('\n')
    .slice(2)
    .find((line) => !line.includes('node:') && !line.includes('core-host.mjs') && !line.includes('loop-callbacks.mjs'));
  return frame ? frame.trim().replace(/^at /, '').replace(/\(?file:\/\/[^)]*\/packages\/core\/dist\//, '').replace(/\)$/, '') : '?';
}

/**
 * Every callback of the loop (not promises) that ran 1 ms or more, kept for the last 2 s, named by its kind (timers
 * and immediates by the start of their function's source, cheaper than a stack): BENCH_READ_CALLBACKS, figure 5's
 * slow screen reads. Returns { ran }, read by the caller; the hook stays on for the process's life.
 */
export function watchLongCallbacks() {
  const ran = [];
  const resources = new Map();
  const open = new Map();
  const name = (type, resource) => {
    const fn = type === 'Timeout' ? resource?._onTimeout : type === 'Immediate' ? resource?._onImmediate : undefined;
    return fn ? `${type} ${fn.name || String(fn).replace(/\s+/g, ' ').slice(0, 90)}` : type;
  };
  createHook({
    init(asyncId, type, _trigger, resource) {
      if (type !== 'PROMISE') resources.set(asyncId, [type, resource]);
    },
    before(asyncId) {
      if (resources.has(asyncId)) open.set(asyncId, performance.now());
    },
    after(asyncId) {
      const at = open.get(asyncId);
      if (at === undefined) return;
      open.delete(asyncId);
      const ms = performance.now() - at;
      if (ms < 1) return;
      const [type, resource] = resources.get(asyncId) ?? ['?'];
      ran.push({ what: name(type, resource), at, ms });
      while (ran.length > 0 && ran[0].at < at - 2000) ran.shift();
    },
    destroy(asyncId) {
      resources.delete(asyncId);
    },
  }).enable();
  return { ran };
}

/**
 * Every callback the loop runs (timers, immediates, I/O; not promises), named and stamped with `now()`: what ran
 * inside a slow key's span (echo-tail.mjs). A timer or immediate is named by its callback or where it was armed.
 * Naming each timer from its stack costs the host tens of us a timer: `named: false` (CALLBACKS=0 in echo-tail.mjs)
 * leaves the hook off. stop() ends it and returns [{ what, at, ms }].
 */
export function recordCallbacks({ now, named }) {
  const ran = [];
  const names = new Map();
  const open = new Map();
  const hook = createHook({
    init(asyncId, type, _trigger, resource) {
      if (type === 'PROMISE') return;
      if (type === 'Timeout' || type === 'Immediate') {
        const fn = type === 'Timeout' ? resource._onTimeout : resource._onImmediate;
        names.set(asyncId, `${type} ${fn?.name || armedAt()}`);
      } else names.set(asyncId, type);
    },
    before(asyncId) {
      if (names.has(asyncId)) open.set(asyncId, now());
    },
    after(asyncId) {
      const at = open.get(asyncId);
      if (at === undefined) return;
      open.delete(asyncId);
      ran.push({ what: names.get(asyncId), at, ms: now() - at });
    },
    destroy(asyncId) {
      names.delete(asyncId);
    },
  });
  if (named) hook.enable();
  return {
    stop: () => {
      hook.disable();
      return ran;
    },
  };
}

/** Who keeps the loop watch (pty/loop-watch.ts) ticking, by caller, until stop(), which returns { [caller]: count }. */
export function countLoopWatchKeeps(loopWatch) {
  const keeps = {};
  const keepUntil = loopWatch?.keepUntil;
  if (loopWatch)
    loopWatch.keepUntil = function countedKeep(until) {
      const who = armedAt();
      keeps[who] = (keeps[who] ?? 0) + 1;
      return keepUntil.call(this, until);
    };
  return {
    stop: () => {
      if (loopWatch) delete loopWatch.keepUntil;
      return keeps;
    },
  };
}
