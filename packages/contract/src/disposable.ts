// Disposables and the store that releases everything an owner holds in one place, shared by the core, app and
// Electron.
import { reportError, reportSafely, type ErrorReporter } from './report.js';

export interface Disposable {
  dispose(): void;
}

/** What a store accepts: an object with dispose(), or a cleanup function such as an Unsubscribe. */
export type DisposableLike = Disposable | (() => void);

/**
 * Collects what an owner holds (subscriptions, timers, child objects) so it
 * is released in one place. dispose() runs each once, last added first, and
 * a cleanup that throws is reported without stopping the rest. Anything added
 * after dispose() is disposed at once: a late subscription cannot leak.
 */
export class DisposableStore implements Disposable {
  private items: DisposableLike[] = [];
  private disposed = false;

  constructor(private readonly onError: ErrorReporter = reportError) {}

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Registers `item` and returns it, so `const off = store.add(emitter.on(...))` reads naturally. */
  add<T extends DisposableLike>(item: T): T {
    if (this.disposed) this.release(item);
    else this.items.push(item);
    return item;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    const items = this.items;
    this.items = [];
    for (let i = items.length - 1; i >= 0; i--) this.release(items[i]!);
  }

  private release(item: DisposableLike): void {
    try {
      if (typeof item === 'function') item();
      else item.dispose();
    } catch (error) {
      reportSafely(this.onError, error, 'a disposer threw');
    }
  }
}
