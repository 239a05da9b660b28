import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodIssues } from './zod-issues.js';

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
