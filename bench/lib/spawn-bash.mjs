// Figure 4's baseline: what a one-shot agent tool does per command, spawn
// `bash -c <command>` with child_process, output collected, until the child
// has closed its pipes; timed in the process that spawns it.
import { spawn } from 'node:child_process';
import { now, withDeadline } from './harness.mjs';

/** `bash -c <command>` in the given environment and cwd; resolves with the ms it took, rejects on another exit or output. */
export function spawnBash({ bash, command, env, cwd, expected }) {
  const started = now();
  const child = spawn(bash, ['-c', command], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const closed = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = now() - started;
      if (code !== 0 || output.trim() !== expected) reject(new Error(`bash -c ${command}: exit ${code}, output ${JSON.stringify(output)}`));
      else resolve(ms);
    });
  });
  return withDeadline(closed, 30_000, `bash -c ${command}`);
}
