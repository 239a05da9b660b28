import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readUntrustedFile, readUntrustedFileSync } from './untrusted-read.js';
import { fileTempDir } from '../testing/isolated-env.js';

const MAX = 64;
const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise<void>((done) => server.close(() => done()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** What a face made of a path: its bytes, none, or its refusal's line (or another error's code). */
type Outcome = { bytes: string } | { none: true } | { refused: string };

async function outcomeOf(read: () => Promise<Buffer | undefined>): Promise<Outcome> {
  try {
    const bytes = await read();
    return bytes === undefined ? { none: true } : { bytes: bytes.toString('utf8') };
  } catch (error) {
    return { refused: error instanceof Error && error.name === 'UntrustedFileError' ? error.message : `${(error as NodeJS.ErrnoException).code}` };
  }
}

const faces = {
  sync: (path: string) => outcomeOf(async () => readUntrustedFileSync(path, MAX)),
  async: (path: string) => outcomeOf(() => readUntrustedFile(path, MAX)),
};

/** What an agent's shell could leave under a name of ours, and what both faces must make of it. */
const cases: Array<[string, (path: string) => void | Promise<void>, Outcome]> = [
  ['a regular file', (path) => writeFileSync(path, 'hello'), { bytes: 'hello' }],
  ['a regular file of exactly the cap', (path) => writeFileSync(path, 'x'.repeat(MAX)), { bytes: 'x'.repeat(MAX) }],
  ['an empty file', (path) => writeFileSync(path, ''), { bytes: '' }],
  ['nothing', () => {}, { none: true }],
  ['a file larger than the cap', (path) => writeFileSync(path, 'x'.repeat(MAX + 1)), { refused: '65 bytes, more than the 64 bytes such a file may hold' }],
  [
    'a link to a regular file',
    (path) => {
      writeFileSync(`${path}.real`, 'hello');
      symlinkSync(`${path}.real`, path);
    },
    { refused: 'a symbolic link, not a regular file' },
  ],
  ['a link to /dev/zero', (path) => symlinkSync('/dev/zero', path), { refused: 'a symbolic link, not a regular file' }],
  ['a dangling link', (path) => symlinkSync(`${path}.nowhere`, path), { refused: 'a symbolic link, not a regular file' }],
  ['a FIFO (no writer: a blocking open would never return)', (path) => void execFileSync('mkfifo', [path]), { refused: 'not a regular file (a FIFO)' }],
  ['a directory', (path) => mkdirSync(path), { refused: 'not a regular file (a directory)' }],
  [
    'a Unix socket',
    (path) =>
      new Promise<void>((listening) => {
        const server = createServer();
        servers.push(server);
        server.listen(path, listening);
      }),
    { refused: 'not a regular file (a socket or a device)' },
  ],
];

describe('reading a file an agent could have written: one set of rules, two faces', () => {
  it.each(cases)('%s: the sync and the async face make the same of it', async (_name, make, expected) => {
    const dir = fileTempDir('ptydeck-untrusted-');
    dirs.push(dir);
    const path = join(dir, 'file');
    await make(path);
    expect({ sync: await faces.sync(path), async: await faces.async(path) }).toEqual({ sync: expected, async: expected });
  });
});
