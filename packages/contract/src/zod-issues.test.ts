import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodIssues, parseJsonAs } from './zod-issues.js';

describe('formatZodIssues', () => {
  it('names every issue with its path, root issues without one', () => {
    const schema = z.object({ cols: z.number().int('cols must be an integer'), env: z.record(z.string(), z.string()) });
    const result = schema.safeParse({ cols: 1.5, env: { A: 1 } });
    expect(result.success).toBe(false);
    expect(formatZodIssues(result.error!)).toBe('cols: cols must be an integer; env.A: Invalid input: expected string, received number');
    const root = z.string('must be a string').safeParse(3);
    expect(formatZodIssues(root.error!)).toBe('must be a string');
  });
});

describe('parseJsonAs', () => {
  const Point = z.object({ x: z.number(), y: z.number() });

  it('gives the checked value, or tells text that is not JSON from JSON the schema refuses', () => {
    expect(parseJsonAs(Point, '{"x":1,"y":2}')).toEqual({ ok: true, value: { x: 1, y: 2 } });
    expect(parseJsonAs(Point, '{"x":1')).toMatchObject({ ok: false, json: false, error: expect.any(String) });
    expect(parseJsonAs(Point, '{"x":1,"y":"2","id":7}')).toEqual({
      ok: false,
      json: true,
      value: { x: 1, y: '2', id: 7 },
      error: 'y: Invalid input: expected number, received string',
    });
  });

  it('formats only the first issues when asked', () => {
    const result = Point.safeParse({});
    expect(formatZodIssues(result.error!, 1)).toBe('x: Invalid input: expected number, received undefined');
  });
});
