import type { ChatEvent, OnEvent } from '@ptydeck/contract';

/**
 * Event-driven waits on a chat's events for tests: each resolves on the
 * event that proves the condition, or rejects after a timeout naming what
 * was seen, so a failure explains itself.
 */
export class ChatEvents {
  readonly seen: ChatEvent[] = [];
  private readonly waiters = new Set<{ test: (event: ChatEvent) => boolean; resolve: (event: ChatEvent) => void }>();
  private readonly unsubscribe: () => void;

  constructor(onEvent: OnEvent<{ chatId: string; event: ChatEvent }>, chatId: () => string | undefined) {
    this.unsubscribe = onEvent(({ chatId: id, event }) => {
      if (id !== chatId()) return;
      this.seen.push(event);
      for (const waiter of [...this.waiters]) {
        if (!waiter.test(event)) continue;
        this.waiters.delete(waiter);
        waiter.resolve(event);
      }
    });
  }

  /** The first event from index `from` on (already seen or still to come) that passes `test`. */
  next<T extends ChatEvent = ChatEvent>(test: (event: ChatEvent) => boolean, options: { from?: number; timeoutMs?: number } = {}): Promise<T> {
    const found = this.seen.slice(options.from ?? 0).find(test);
    if (found) return Promise.resolve(found as T);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out waiting for a chat event; seen: ${JSON.stringify(this.seen).slice(-3000)}`));
      }, options.timeoutMs ?? 20_000);
      const waiter = {
        test,
        resolve: (event: ChatEvent) => {
          clearTimeout(timer);
          resolve(event as T);
        },
      };
      this.waiters.add(waiter);
    });
  }

  /** The next state event entering `state`. */
  state(state: string, from?: number): Promise<Extract<ChatEvent, { type: 'state' }>> {
    return this.next((event) => event.type === 'state' && event.info.state === state, { from });
  }

  /** The agent's text since index `from`, chunks joined. */
  agentText(from = 0): string {
    return this.seen
      .slice(from)
      .flatMap((event) => (event.type === 'message' && event.role === 'agent' ? [event.text] : []))
      .join('');
  }

  dispose(): void {
    this.unsubscribe();
  }
}
