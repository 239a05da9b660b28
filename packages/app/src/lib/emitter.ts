/** Undoes a subscription or releases a resource. Calling it twice is harmless. */
export type Unsubscribe = () => void;

/**
 * A private event source. The owner keeps the emitter and hands out `on`, so
 * only the owner can fire; every listener gets back a function that removes it.
 */
export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  on = (listener: (value: T) => void): Unsubscribe => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  fire(value: T): void {
    // A listener that throws must not keep the others from hearing the event;
    // rethrow asynchronously so the error still surfaces in the console.
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

/** Collects cleanups so an owner releases everything it holds in one place, last in first out. */
export class DisposableStore {
  private readonly cleanups: Unsubscribe[] = [];
  private disposed = false;

  add(cleanup: Unsubscribe): Unsubscribe {
    if (this.disposed) cleanup();
    else this.cleanups.push(cleanup);
    return cleanup;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const cleanup of this.cleanups.splice(0).reverse()) cleanup();
  }
}
