import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { until } from '../testing/poll-until.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { createTerminalTool, type TerminalOwner, type TerminalTool } from './terminal-tool.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * The rule these tests hold, with real bash: every byte of a session's output
 * reaches each agent exactly once across its run, send, read and wait
 * results, in order, apart from the echo of input the agent itself sent;
 * read mode "all" shows everything retained.
 */

let service: PtyService;
let tool: TerminalTool;
let dir: string;
let home: string;
let fifos = 0;
const owner: TerminalOwner = { id: 'accounting' };

beforeAll(() => {
  dir = fileTempDir('ptydeck-accounting-');
  home = join(dir, 'home');
  mkdirSync(home);
  service = createPtyService({ env: { ...process.env, HOME: home, HISTFILE: join(home, '.history') } });
});

afterEach(async () => {
  await tool?.closeOwner(owner.id);
  tool?.dispose();
});

afterAll(async () => {
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A named pipe: a command blocked reading it goes on when the test writes a line. */
function gate(): { path: string; open: () => void } {
  const path = join(dir, `gate-${fifos++}`);
  execFileSync('mkfifo', [path]);
  return { path, open: () => writeFileSync(path, 'go\n') };
}

describe('agent output accounting', () => {
  it('keeps background output that arrives at the prompt, and hands it to the agent once', async () => {
    tool = createTerminalTool(service);
    const shell = await tool.create(owner, {});
    const bg = gate();
    const started = await tool.run(owner, { id: shell.id, command: `(read _ < ${bg.path}; echo BACK''GROUND-LINE) & echo "job-pid=$!"` });
    expect(started).toMatchObject({ outcome: 'completed', exit_code: 0 });
    const job = Number(/job-pid=(\d+)/.exec(started.output)![1]);
    // The job prints while the shell sits at its prompt, between two runs.
    bg.open();
    await waitForOutput(service, shell.id, 'BACKGROUND-LINE');
    // And ends, reaped by the shell (gone from /proc, not a zombie): bash notes it Done before its next prompt. Before
    // this, a loaded machine let `echo second` run while the job still lived, and the notice came a prompt later.
    await until(() => !existsSync(`/proc/${job}`), 'the background job was reaped');
    const second = await tool.run(owner, { id: shell.id, command: 'echo second' });
    expect(second).toMatchObject({ outcome: 'completed', exit_code: 0, output: 'second\n' });
    // The notice follows the command's end mark, maybe in a later chunk than the one the run returned on.
    await waitForOutput(service, shell.id, /\[1\]\+ +Done/);
    const after = await tool.read(owner, { id: shell.id });
    // Exactly once across the results: with the run, apart from its own output, or in the next read.
    const received = `${started.output}${second.earlier_output ?? ''}${second.output}${after.output}`;
    expect(received.match(/BACKGROUND-LINE/g)).toHaveLength(1);
    expect(second.earlier_output).toBe('BACKGROUND-LINE\n');
    // bash's job notice, printed before the next prompt, is output too.
    expect(after.output).toMatch(/^\[1\]\+ +Done/);
    // Everything retained is in mode all, the background line included, the prompts and echoes not.
    const all = await tool.read(owner, { id: shell.id, mode: 'all' });
    expect(all.output).toContain('BACKGROUND-LINE\n');
    expect(all.output).toContain('second\n');
    expect(all.output).not.toContain('echo second');
  });

  it('gives the echo of a line the developer typed into the agent shell, not only the agent\'s own', async () => {
    tool = createTerminalTool(service);
    const shell = await tool.create(owner, {});
    // The developer types into the agent's tab (the panel writes to the PTY directly).
    service.write(shell.id, 'echo from-the-developer\r');
    await waitForOutput(service, shell.id, 'from-the-developer\r\n');
    // The command's own output line (the echo's line starts with "echo "): a pattern within one line, since the
    // echo and the output may arrive apart (the shell forks for its command line mark in between).
    const waited = await tool.wait(owner, { id: shell.id, until: 'pattern', pattern: '(^|\\n)from-the-developer\\n' });
    const read = await tool.read(owner, { id: shell.id });
    expect(`${waited.output}${read.output}`).toContain('echo from-the-developer\nfrom-the-developer\n');
  });

  it('streams a coloured partial line as progress without dropping a byte', async () => {
    tool = createTerminalTool(service);
    const shell = await tool.create(owner, {});
    const rest = gate();
    const progress: string[] = [];
    const running = tool.run(
      owner,
      { id: shell.id, command: `printf 'first\\n\\033[31mPARTIAL\\033[0m'; read _ < ${rest.path}; printf ' rest\\nsecond line\\n'` },
      { onProgress: (text) => progress.push(text) },
    );
    await waitForOutput(service, shell.id, 'PARTIAL');
    rest.open();
    const result = await running;
    expect(result.output).toBe('first\nPARTIAL rest\nsecond line\n');
    expect(progress.join('')).toBe('first\nPARTIAL rest\nsecond line\n');
  });

  it('leaves bash\'s own "exit" line out of a run that ends the shell', async () => {
    tool = createTerminalTool(service);
    const shell = await tool.create(owner, {});
    const result = await tool.run(owner, { id: shell.id, command: 'echo bye; exit 3' });
    expect(result).toMatchObject({ outcome: 'shell_exited', exit_code: null, output: 'bye\n', state: 'exited', process_exit_code: 3 });
  });

  it('reads a 4 MiB log by rendering only the windows it returns', async () => {
    const file = join(dir, 'big.txt');
    writeFileSync(file, Array.from({ length: 48_000 }, (_, i) => `\x1b[32mline ${i}\x1b[0m ${'x'.repeat(64)}`).join('\n') + '\n');
    let bytesRead = 0;
    const counting: PtyService = Object.create(service, {
      read: {
        value: (id: string, options?: Parameters<PtyService['read']>[1]) => {
          const result = service.read(id, options);
          bytesRead += result.data.length;
          return result;
        },
      },
    });
    tool = createTerminalTool(counting);
    const created = await tool.create(owner, { command: 'cat', args: [file] });
    await tool.wait(owner, { id: created.id, until: 'exit', max_bytes: 4096 });
    const total = service.read(created.id).end;
    // About 4 MiB, all of it retained (the per-session cap is 4 MiB).
    expect(total).toBeGreaterThan(4_000_000);
    expect(service.read(created.id, { cursor: 0, maxBytes: 1 }).skipped).toBe(0);
    bytesRead = 0;
    const all = await tool.read(owner, { id: created.id, mode: 'all', max_bytes: 16_384 });
    expect(all.truncated).toBe(true);
    expect(all.output).toMatch(/^line 0 x+\n[\s\S]*\.\.\. \d+ bytes omitted \.\.\.\n[\s\S]*line 47999 x+\n$/);
    // The windows at each end, not the whole log.
    expect(bytesRead).toBeLessThan(16_384 * 8);
  });
});

describe('nonce fallback', () => {
  it('keeps a prompt the shell draws after the typed line out of the command\'s output', async () => {
    // sh reads $ENV at start: block it on a gate so the run is typed (and echoed) before the first prompt.
    const start = gate();
    const envFile = join(dir, 'sh-env');
    writeFileSync(envFile, `read _ < ${start.path}\nPS1='sh$ '\n`);
    tool = createTerminalTool(service, { shell: '/bin/sh', env: { ENV: envFile } });
    const created = service.on('pty.created', (event) => {
      created();
      // Open the gate once the typed line's echo is on the terminal.
      void waitForOutput(service, event.info.id, 'eval').then(start.open);
    });
    const result = await tool.run(owner, { command: 'echo $((6*7))' });
    expect(result).toMatchObject({ outcome: 'completed', exit_code: 0, output: '42\n' });
    const next = await tool.run(owner, { id: result.id, command: 'echo again' });
    expect(next).toMatchObject({ exit_code: 0, output: 'again\n' });
    expect(next.earlier_output).toBeUndefined();
  });
});
