import { describe, expect, it } from 'vitest';
import { Emitter } from './emitter.js';

function collecting() {
  const reports: Array<{ error: unknown; context: string }> = [];
  return { reports, onListenerError: (error: unknown, context: string) => reports.push({ error, context }) };
}

describe('Emitter', () => {
  it('calls each listener with the value until it unsubscribes', () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    const off = emitter.on((value) => seen.push(value));
    emitter.fire(1);
    off();
    off(); // harmless twice
    emitter.fire(2);
    expect(seen).toEqual([1]);
    expect(emitter.hasListeners).toBe(false);
  });

  it('isolates a throwing listener: it is reported once and the others still run', () => {
    const { reports, onListenerError } = collecting();
    const emitter = new Emitter<string>({ name: 'pty.data', onListenerError });
    const seen: string[] = [];
    emitter.on(() => seen.push('before'));
    emitter.on(() => {
      throw new Error('broken panel');
    });
    emitter.on((value) => seen.push(`after ${value}`));
    expect(() => emitter.fire('x')).not.toThrow();
    expect(seen).toEqual(['before', 'after x']);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.context).toBe("a 'pty.data' listener threw");
    expect((reports[0]!.error as Error).message).toBe('broken panel');
  });

  it('survives a reporter that throws too', () => {
    const emitter = new Emitter<void>({
      onListenerError: () => {
        throw new Error('reporter broke');
      },
    });
    let ran = false;
    emitter.on(() => {
      throw new Error('listener broke');
    });
    emitter.on(() => (ran = true));
    expect(() => emitter.fire()).not.toThrow();
    expect(ran).toBe(true);
  });

  it('fires to the listeners subscribed when fire() started', () => {
    const emitter = new Emitter<void>();
    const calls: string[] = [];
    let offB = () => {};
    emitter.on(() => {
      calls.push('a');
      offB(); // removed during the fire: still called this time, as in the snapshot
      emitter.on(() => calls.push('late')); // added during the fire: not called this time
    });
    offB = emitter.on(() => calls.push('b'));
    emitter.fire();
    expect(calls).toEqual(['a', 'b']);
    calls.length = 0;
    emitter.fire();
    expect(calls).toEqual(['a', 'late']);
  });

  it('keeps the same function subscribed twice as two subscriptions', () => {
    const emitter = new Emitter<void>();
    let count = 0;
    const listener = () => count++;
    const offFirst = emitter.on(listener);
    emitter.on(listener);
    emitter.fire();
    offFirst();
    emitter.fire();
    expect(count).toBe(3);
  });

  it('clear() drops every listener', () => {
    const emitter = new Emitter<void>();
    let count = 0;
    emitter.on(() => count++);
    emitter.clear();
    emitter.fire();
    expect(count).toBe(0);
  });
});
