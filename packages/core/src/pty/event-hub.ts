/**
 * Synchronous typed events where every listener runs in isolation: a
 * listener that throws is reported and the others (and the service emitting)
 * carry on, because one broken panel client must not stall a PTY.
 */
export type ListenerErrorReporter = (error: unknown, event: string) => void;

export const reportListenerErrorToStderr: ListenerErrorReporter = (error, event) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`ptydeck: a '${event}' listener threw: ${detail}\n`);
};

export class EventHub<Map extends object> {
  private readonly listeners = new Map<keyof Map, Set<(event: never) => void>>();

  constructor(private readonly onListenerError: ListenerErrorReporter = reportListenerErrorToStderr) {}

  on<K extends keyof Map>(event: K, listener: (event: Map[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    // Wrap so the same function subscribed twice gets two independent subscriptions.
    const entry = (value: never) => listener(value as Map[K]);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** True when someone listens: lets hot paths skip building event objects. */
  has(event: keyof Map): boolean {
    const set = this.listeners.get(event);
    return set !== undefined && set.size > 0;
  }

  emit<K extends keyof Map>(event: K, value: Map[K]): void {
    const set = this.listeners.get(event);
    if (!set || set.size === 0) return;
    for (const listener of set) {
      try {
        listener(value as never);
      } catch (error) {
        try {
          this.onListenerError(error, String(event));
        } catch {
          // A throwing reporter must not break emission either.
        }
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
