// The one event emitter the core, the app and Electron share: events are functions that return their
// unsubscribe.
import { reportError, reportSafely, type ErrorReporter } from './report.js';

/** Undoes a subscription or releases a resource. Calling it twice is harmless. */
export type Unsubscribe = () => void;

/** A subscribable event: call it with a listener, get back the function that removes it. */
export type OnEvent<T> = (listener: (value: T) => void) => Unsubscribe;

export interface EmitterOptions {
  /** Names the event in reports, e.g. `'pty.data'`. */
  name?: string;
  /** Where a throwing listener is reported. Default: reportError (stderr / the console). */
  onListenerError?: ErrorReporter;
}

/**
 * A private event source. The owner keeps the emitter and hands out `on`, so
 * only the owner can fire. Each subscription is independent (the same
 * function subscribed twice is called twice and removed once per
 * unsubscribe). A listener that throws is reported and the others still run,
 * as does the code that fired: one broken panel client must not stall a PTY.
 */
export class Emitter<T> {
  /**
   * Replaced, never mutated, on every subscribe and unsubscribe: fire()
   * iterates the array current when it started (a snapshot) without copying
   * it, which matters on the per-chunk output path.
   */
  private listeners: ReadonlyArray<(value: T) => void> = [];

  constructor(private readonly options: EmitterOptions = {}) {}

  /** Subscribes; an arrow so it can be handed out as `readonly onX = emitter.on`. */
  readonly on: OnEvent<T> = (listener) => {
    const entry = (value: T) => listener(value);
    this.listeners = [...this.listeners, entry];
    return () => {
      this.listeners = this.listeners.filter((other) => other !== entry);
    };
  };

  /** True when someone listens: lets hot paths skip building the value. */
  get hasListeners(): boolean {
    return this.listeners.length > 0;
  }

  /** Calls every listener subscribed when the call starts, each isolated from the others' throws. */
  fire(value: T): void {
    const listeners = this.listeners;
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (error) {
        const name = this.options.name === undefined ? 'an event' : `a '${this.options.name}'`;
        reportSafely(this.options.onListenerError ?? reportError, error, `${name} listener threw`);
      }
    }
  }

  /** Drops every listener (the owner is going away). */
  clear(): void {
    this.listeners = [];
  }
}
