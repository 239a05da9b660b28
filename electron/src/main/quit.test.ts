import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeBeforeQuit, quitOnSignals } from './quit.js';
import { FakeApp } from './testing/fakes.js';

/** A close() the test settles by hand. */
function deferredClose() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const close = vi.fn(
    () =>
      new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      }),
  );
  return { close, resolve: () => resolve(), reject: (error: Error) => reject(error) };
}

describe('closeBeforeQuit', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds the quit until the server has closed, then quits for real', async () => {
    const app = new FakeApp();
    const target = deferredClose();
    closeBeforeQuit(app, target, { log: () => {} });

    app.quit();
    expect(app.quitted).toBe(false);
    expect(target.close).toHaveBeenCalledTimes(1);

    // A second quit while closing neither closes twice nor slips through.
    app.quit();
    expect(app.quitted).toBe(false);
    expect(target.close).toHaveBeenCalledTimes(1);

    target.resolve();
    await vi.waitFor(() => expect(app.quitted).toBe(true));
    expect(app.exitCode).toBeNull();
  });

  it('exits with an error when closing fails, reporting why', async () => {
    const app = new FakeApp();
    const target = deferredClose();
    const log = vi.fn();
    closeBeforeQuit(app, target, { log });
    app.quit();
    target.reject(new Error('EBUSY'));
    await vi.waitFor(() => expect(app.exitCode).toBe(1));
    expect(log).toHaveBeenCalledWith(expect.stringContaining('EBUSY'));
  });

  it('exits anyway when closing never settles', () => {
    vi.useFakeTimers();
    const app = new FakeApp();
    const target = deferredClose();
    const log = vi.fn();
    closeBeforeQuit(app, target, { deadlineMs: 5_000, log });
    app.quit();
    vi.advanceTimersByTime(4_999);
    expect(app.exitCode).toBeNull();
    vi.advanceTimersByTime(1);
    expect(app.exitCode).toBe(1);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('did not close within 5000 ms'));
  });

  it('stops holding quits once unsubscribed', () => {
    const app = new FakeApp();
    const target = deferredClose();
    const unsubscribe = closeBeforeQuit(app, target);
    unsubscribe();
    app.quit();
    expect(app.quitted).toBe(true);
    expect(target.close).not.toHaveBeenCalled();
  });
});

describe('quitOnSignals', () => {
  it('turns SIGINT, SIGTERM and SIGHUP into app.quit(), and lets go when unsubscribed', () => {
    const processLike = new EventEmitter();
    const app = { quit: vi.fn() };
    const unsubscribe = quitOnSignals(app, processLike as unknown as NodeJS.Process);
    processLike.emit('SIGINT');
    processLike.emit('SIGTERM');
    processLike.emit('SIGHUP');
    expect(app.quit).toHaveBeenCalledTimes(3);
    unsubscribe();
    expect(processLike.listenerCount('SIGINT') + processLike.listenerCount('SIGTERM') + processLike.listenerCount('SIGHUP')).toBe(0);
  });
});
