import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, parseSettings } from './settings.js';

describe('parseSettings', () => {
  it('defaults the linger to 5 s', () => {
    expect(parseSettings(null)).toEqual({ lingerMs: 5_000 });
    expect(DEFAULT_SETTINGS.lingerMs).toBe(5_000);
  });

  it('takes a valid linger', () => {
    expect(parseSettings('{"lingerMs": 1500}')).toEqual({ lingerMs: 1_500 });
    expect(parseSettings('{"lingerMs": 0}')).toEqual({ lingerMs: 0 });
  });

  it('falls back on malformed or out-of-range values', () => {
    for (const raw of ['nope', 'null', '{"lingerMs": -1}', '{"lingerMs": "5"}', '{"lingerMs": 1e12}']) {
      expect(parseSettings(raw)).toEqual(DEFAULT_SETTINGS);
    }
  });
});
