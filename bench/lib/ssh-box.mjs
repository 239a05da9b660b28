// The tests' sshd kit (packages/core/src/testing/ssh-server.ts: a real OpenSSH server on loopback for a test user
// with the checkout's ptydeck), bundled for the bench, which runs plain JavaScript.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// As deep under packages/core as the kit's own file: it finds the checkout's launcher from its own URL.
const BUNDLE = `${ROOT}packages/core/dist/bench-kit/ssh-server.mjs`;

/** Whether this machine can run it: root (to add a user), sshd and ssh-keygen. */
export function canRunSshBox() {
  return process.getuid?.() === 0 && spawnSync('/usr/sbin/sshd', ['-V']).error === undefined && spawnSync('ssh-keygen', ['-?']).error === undefined;
}

/** Starts the kit's sshd with the checkout's ptydeck installed for its user; resolves with the kit's SshServer. */
export async function startSshBox() {
  await build({
    input: `${ROOT}packages/core/src/testing/ssh-server.ts`,
    platform: 'node',
    output: { file: BUNDLE, format: 'esm' },
    logLevel: 'silent',
  });
  const kit = await import(BUNDLE);
  const server = await kit.startSshServer();
  server.install();
  return server;
}
