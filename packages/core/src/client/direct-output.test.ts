import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module (vitest's global setup builds the core), run in a child whose stdout is a pipe of this test's.
const built = fileURLToPath(new URL('../../dist/client/direct-output.js', import.meta.url));

/** Runs `body` (with `io`, the child's standardIo().io) in a child; `readStdout` false closes its stdout pipe before it writes. */
function child(body: string, readStdout: boolean): Promise<{ code: number | null; stdout: Buffer; stderr: string }> {
  const script = `import { standardIo } from ${JSON.stringify(built)};
    const standard = standardIo();
    const io = standard.io;
    process.stdin.once('data', async () => { ${body}; await standard.drained(); process.exit(0); });`;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let stderr = '';
  if (readStdout) proc.stdout.on('data', (d: Buffer) => out.push(d));
  else proc.stdout.destroy();
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // Go once this side of the pipe is read from or closed.
  proc.stdin.write('go');
  return new Promise((resolve) => proc.once('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr })));
}

describe("a short command's direct output", () => {
  it('writes every byte to a pipe, more than the pipe holds at once, in order', async () => {
    const run = await child(`for (let i = 0; i < 64; i++) io.stdout.write(String(i % 10).repeat(16 * 1024))`, true);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBe(64 * 16 * 1024);
    expect(run.stdout.subarray(63 * 16 * 1024).toString()).toBe('3'.repeat(16 * 1024));
  });

  it('drops what a reader that went away (EPIPE) will not read, without a word, as process.stdout does', async () => {
    const run = await child(`io.stdout.write('nobody reads this\\n'); io.stdout.write('nor this\\n')`, false);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
