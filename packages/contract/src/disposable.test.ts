import { describe, expect, it } from 'vitest';
import { DisposableStore } from './disposable.js';

describe('DisposableStore', () => {
  it('disposes functions and disposables once each, last added first', () => {
    const store = new DisposableStore();
    const order: string[] = [];
    store.add(() => order.push('first'));
    store.add({ dispose: () => order.push('second') });
    store.add(() => order.push('third'));
    store.dispose();
    store.dispose();
    expect(order).toEqual(['third', 'second', 'first']);
    expect(store.isDisposed).toBe(true);
  });

  it('returns what it was given', () => {
    const store = new DisposableStore();
    const off = () => {};
    const resource = { dispose() {} };
    expect(store.add(off)).toBe(off);
    expect(store.add(resource)).toBe(resource);
  });

  it('reports a throwing disposer and still runs the rest', () => {
    const reports: string[] = [];
    const store = new DisposableStore((error, context) => reports.push(`${context}: ${(error as Error).message}`));
    const ran: string[] = [];
    store.add(() => ran.push('a'));
    store.add(() => {
      throw new Error('boom');
    });
    store.add(() => ran.push('c'));
    expect(() => store.dispose()).not.toThrow();
    expect(ran).toEqual(['c', 'a']);
    expect(reports).toEqual(['a disposer threw: boom']);
  });

  it('disposes at once what is added after dispose()', () => {
    const store = new DisposableStore();
    store.dispose();
    let disposed = 0;
    store.add(() => disposed++);
    expect(disposed).toBe(1);
    store.dispose();
    expect(disposed).toBe(1);
  });
});
