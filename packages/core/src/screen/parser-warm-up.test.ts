import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmUpParser } from './parser-warm-up.js';
import { ScreenMirror } from './screen-mirror.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('warmUpParser', () => {
  it('runs what a read far behind runs, parsing, skimming and serializing, in a terminal it lets go', async () => {
    const write = vi.spyOn(ScreenMirror.prototype, 'write');
    const skim = vi.spyOn(ScreenMirror.prototype, 'skim');
    const serialize = vi.spyOn(ScreenMirror.prototype, 'serialize');
    const dispose = vi.spyOn(ScreenMirror.prototype, 'dispose');
    await warmUpParser(() => Promise.resolve());
    const skimmed = skim.mock.calls.reduce((sum, [data]) => sum + data.length, 0);
    expect(write).toHaveBeenCalled();
    expect(skimmed).toBeGreaterThanOrEqual(256 * 1024);
    expect(serialize).toHaveBeenCalled();
    expect(dispose).toHaveBeenCalledTimes(1);
  });

});
