import { describe, expect, it, vi } from 'vitest';
import { connectDesktop } from './host-connection.js';

const hooks = { presentPanelLink: () => 'the ptydeck window' };

describe('connectDesktop', () => {
  it('on Linux joins the host, and letting go of it ends nothing', async () => {
    const joinHost = vi.fn(async () => ({ url: 'http://127.0.0.1:4000', panelToken: 'p4n3l' }));
    const startInProcess = vi.fn();
    const server = await connectDesktop({ platform: 'linux', joinHost, startInProcess })(hooks);
    expect(server).toMatchObject({ url: 'http://127.0.0.1:4000', panelToken: 'p4n3l' });
    await server.close();
    expect(joinHost).toHaveBeenCalledTimes(1);
    expect(startInProcess).not.toHaveBeenCalled();
  });

  it('where the host cannot tell who asks for panel scope, runs the core in-process', async () => {
    const inProcess = { url: 'http://127.0.0.1:4001', panelToken: 't', close: vi.fn(async () => {}) };
    const joinHost = vi.fn();
    const startInProcess = vi.fn(async () => inProcess);
    for (const platform of ['darwin', 'win32'] as const) {
      expect(await connectDesktop({ platform, joinHost, startInProcess })(hooks)).toBe(inProcess);
    }
    expect(startInProcess).toHaveBeenCalledWith(hooks);
    expect(joinHost).not.toHaveBeenCalled();
  });
});
