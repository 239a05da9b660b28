import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startRawHost } from './hosts.mjs';

describe('bench hosts', () => {
  it('stops a host that is already gone without taking the bench process down', async () => {
    // What a figure that overran its deadline does: the run's cleanup killed its host, and its own finally stops it.
    const home = process.env.HOME;
    const host = await startRawHost({ env: { ...process.env }, home, state: home });
    const exited = once(host.child, 'exit');
    host.child.kill('SIGKILL');
    await exited;
    await expect(host.request('memory', {})).rejects.toThrow(/gone/);
    await host.stop();
    expect(host.child.connected).toBe(false);
  });
});
