import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { isolatedEnv } from '../testing/isolated-env.js';
import { listenerProblem } from './port-forward.js';

// Whose the forwarded local port is, asked of the kernel with real listeners: a browser sent to the port
// must reach ssh's listener, not one another process took after the port was picked.
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** A process listening on a loopback port it prints, standing in for ssh or for a process that took the port. */
function listener(): Promise<{ pid: number; port: number }> {
  const child = spawn(process.execPath, ['-e', "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => console.log(s.address().port))"], {
    env: isolatedEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve({ pid: child.pid!, port: Number(chunk.toString().trim()) })));
}

describe.skipIf(process.platform !== 'linux')('the forwarded port', () => {
  it('passes when the forwarding process alone listens there', async () => {
    const ssh = await listener();
    expect(listenerProblem(ssh.port, ssh.pid)).toBeUndefined();
  });

  it('is refused when another process holds it', async () => {
    const taken = await listener();
    const ssh = await listener();
    expect(listenerProblem(taken.port, ssh.pid)).toMatch(new RegExp(`held by process ${taken.pid}, not by the ssh`));
  });
});
