// A remote's panel link that never comes up, through an ssh program that fails as ssh does: what the panel is told.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RemoteHostState } from '@ptydeck/contract';
import { RemotePanelLink } from './remote-panel-link.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  // Last made, first undone: the link before the directory its ssh runs from.
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** An ssh that refuses the key, as OpenSSH says it, and exits 255. */
function refusingSsh(): { env: Record<string, string | undefined>; stateDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ptydeck-link-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const ssh = join(dir, 'ssh');
  writeFileSync(ssh, '#!/bin/sh\necho "me@box.example: Permission denied (publickey)." >&2\nexit 255\n', { mode: 0o755 });
  return { env: { PATH: process.env.PATH, HOME: dir, PTYDECK_SSH: ssh }, stateDir: join(dir, 'state') };
}

describe('RemotePanelLink, never reached', () => {
  it('says it cannot reach the remote yet and what ssh said (a refused key), not that it is reconnecting to sessions it never had', async () => {
    const link = new RemotePanelLink({ name: 'box', destination: 'me@box.example' }, refusingSsh());
    cleanups.push(() => link.close());
    const states: Array<{ state: RemoteHostState; detail: string | null }> = [];
    // Two failed tries: the second too is not a drop.
    await new Promise<void>((resolve) => link.onState((state) => states.push(state) === 2 && resolve()));
    expect(states).toEqual([
      { state: 'connecting', detail: 'cannot reach box (me@box.example) yet: me@box.example: Permission denied (publickey); trying again' },
      { state: 'connecting', detail: 'cannot reach box (me@box.example) yet: me@box.example: Permission denied (publickey); trying again' },
    ]);
  });
});
