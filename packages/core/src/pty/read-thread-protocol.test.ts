import { describe, expect, it } from 'vitest';
import { sameShape } from '../testing/v8-natives.js';
import { dataReport, endReport, quietReport } from './read-thread-protocol.js';

describe('read thread reports', () => {
  it('have one shape whatever they report, so the code handing them on never meets another', () => {
    const data = dataReport(1, new Uint8Array(4), true);
    expect(sameShape(data, quietReport(1))).toBe(true);
    expect(sameShape(data, endReport(1, 'EIO'))).toBe(true);
    // What the main thread holds are copies the port made, property by property in the same order.
    const copies = [data, quietReport(2), endReport(3, 'EOF')].map((report) => structuredClone(report));
    expect(copies.every((copy) => sameShape(copy, copies[0]!))).toBe(true);
  });
});
