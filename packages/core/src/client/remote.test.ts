import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRemoteCommand } from './remote.js';

let dir: string;
let saved: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptydeck-remote-cmd-'));
  saved = process.env.PTYDECK_CONFIG_DIR;
  process.env.PTYDECK_CONFIG_DIR = dir;
});
afterEach(() => {
  if (saved === undefined) delete process.env.PTYDECK_CONFIG_DIR;
  else process.env.PTYDECK_CONFIG_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

async function add(name: string, destination: string): Promise<string> {
  let out = '';
  const io = { stdout: { write: (chunk: string | Uint8Array) => (out += String(chunk)) }, stderr: { write: () => true } };
  expect(await runRemoteCommand({ kind: 'remote-add', name, destination }, io)).toBe(0);
  return out;
}

describe('ptydeck remote add', () => {
  it('says which destination it replaced when the name was already a remote', async () => {
    expect(await add('box', 'me@devbox')).toBe("remote 'box' is me@devbox; try `ptydeck ls --remote box`\n");
    expect(await add('box', 'me@devbox')).toBe("remote 'box' is me@devbox; try `ptydeck ls --remote box`\n");
    expect(await add('box', 'me@other')).toBe("remote 'box' is me@other (it was me@devbox); try `ptydeck ls --remote box`\n");
  });
});
