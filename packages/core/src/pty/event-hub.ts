import { Emitter, reportError, type ErrorReporter, type Unsubscribe } from '@ptydeck/contract';

/**
 * Several typed events under one object (`on('pty.data', …)`), each an
 * Emitter from the contract: a listener that throws is reported and the
 * others (and the service emitting) carry on, because one broken panel client
 * must not stall a PTY.
 */
export class EventHub<Map extends object> {
  private readonly emitters = new Map<keyof Map, Emitter<never>>();

  constructor(private readonly onListenerError: ErrorReporter = reportError) {}

  on<K extends keyof Map>(event: K, listener: (event: Map[K]) => void): Unsubscribe {
    return this.emitter(event).on(listener);
  }

  /** True when someone listens: lets hot paths skip building event objects. */
  has(event: keyof Map): boolean {
    return this.emitters.get(event)?.hasListeners ?? false;
  }

  emit<K extends keyof Map>(event: K, value: Map[K]): void {
    this.emitters.get(event)?.fire(value as never);
  }

  clear(): void {
    for (const emitter of this.emitters.values()) emitter.clear();
  }

  private emitter<K extends keyof Map>(event: K): Emitter<Map[K]> {
    let emitter = this.emitters.get(event) as Emitter<Map[K]> | undefined;
    if (!emitter) {
      emitter = new Emitter<Map[K]>({ name: String(event), onListenerError: this.onListenerError });
      this.emitters.set(event, emitter as unknown as Emitter<never>);
    }
    return emitter;
  }
}
