import type { Attention } from '@ptydeck/contract';
import { describe, expect, it } from 'vitest';
import type { TerminalOwner } from './terminal-tool.js';
import { useRealShells } from '../testing/real-shells.js';

/**
 * "Needs you": a command that stops to read the terminal is known at once, by
 * the kernel, whatever its prompt says; commands that are merely slow, quiet
 * or busy are not. Every run here uses the default 30 s timeout, so a missed
 * prompt shows as a run that comes back "running" 30 s later.
 */

const owner: TerminalOwner = { id: 'needs-you' };
const shells = useRealShells('needs-input', owner);

describe.skipIf(process.platform !== 'linux')('a command waiting for input', () => {
  it.each([
    ['bash read -p', `read -p 'Your name: ' n; echo "hello $n"`, 'Your name: '],
    ['python input()', `python3 -c 'print("hello " + input("token> "))'`, 'token> '],
    ['a Node readline question', `node -e 'const r=require("readline").createInterface({input:process.stdin,output:process.stdout});r.question("Project name? ",(a)=>{console.log("hello "+a);r.close()})'`, 'Project name? '],
    ['cat reading the terminal', `cat | sed 's/^/hello /'`, ''],
  ])('%s: terminal_run returns waiting_for_input, and the answer finishes it', async (_name, command, promptText) => {
    const run = await shells.tool.run(owner, { command });
    expect(run).toMatchObject({ outcome: 'waiting_for_input', exit_code: null, state: 'waiting_for_input', prompt_text: promptText });
    const sent = await shells.tool.send(owner, { id: run.id, text: 'ada', keys: command.startsWith('cat') ? ['Enter', 'Ctrl-D'] : ['Enter'] });
    const done = await shells.tool.wait(owner, { id: run.id, until: 'exit', timeout_ms: 20_000 });
    expect(done).toMatchObject({ reason: 'exit', exit_code: 0, state: 'idle_at_prompt' });
    expect(`${sent.output}${done.output}`).toContain('hello ada');
    await shells.tool.close(owner, { id: run.id });
  });

  it('tells the developer too: pty.updated carries the attention, and clears it once answered', async () => {
    const updates: Array<Attention | null | undefined> = [];
    const off = shells.facts.on('pty.updated', (event) => updates.push(event.info.attention));
    try {
      const run = await shells.tool.run(owner, { command: `printf 'Continue? [y/N] '; read x` });
      expect(run.outcome).toBe('waiting_for_input');
      const asked = updates.find((a) => a);
      expect(asked).toMatchObject({ kind: 'confirm', prompt: 'Continue? [y/N] ' });
      expect(asked!.since).toBeGreaterThan(0);
      // The developer answers in the tab (the panel writes to the PTY); the agent's wait returns with what followed.
      const waiting = shells.tool.wait(owner, { id: run.id, until: 'exit', timeout_ms: 20_000 });
      shells.service.write(run.id, 'y\r');
      expect(await waiting).toMatchObject({ reason: 'exit', exit_code: 0, output: 'y\n' });
      expect(updates.at(-1)).toBeNull();
      expect(shells.facts.get(run.id)?.attention ?? null).toBeNull();
      await shells.tool.close(owner, { id: run.id });
    } finally {
      off();
    }
  });
});

describe.skipIf(process.platform !== 'linux')('the developer answering a prompt', () => {
  it('a wait goes on while the developer types the answer in the panel, and a result says they are answering', async () => {
    const run = await shells.tool.run(owner, { command: `read -p "Continue? [y/N] " a; echo got=$a` });
    expect(run).toMatchObject({ outcome: 'waiting_for_input', prompt: 'confirm', prompt_text: 'Continue? [y/N] ' });
    // Once the echo of the developer's key cleared the prompt, the kernel finds bash still reading: the prompt is back.
    const seenAgain = new Promise<void>((resolve) => {
      let cleared = false;
      const off = shells.facts.on('pty.updated', (event) => {
        if (event.info.id !== run.id) return;
        if (!event.info.attention) cleared = true;
        else if (cleared) {
          off();
          resolve();
        }
      });
    });
    let settled = false;
    const waiting = shells.tool.wait(owner, { id: run.id, until: 'exit', timeout_ms: 20_000 });
    void waiting.finally(() => (settled = true));
    // The developer types y in the panel, without Enter yet.
    shells.service.write(run.id, 'y');
    await seenAgain;
    // A wait the prompt ends returns within the turn it is seen in: let that turn's promises settle.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    const read = await shells.tool.read(owner, { id: run.id });
    expect(read).toMatchObject({ state: 'waiting_for_input', prompt: 'confirm', prompt_text: 'Continue? [y/N] ', developer_answering: true });
    shells.service.write(run.id, '\r');
    expect(await waiting).toMatchObject({ reason: 'exit', exit_code: 0, state: 'idle_at_prompt' });
    expect(`${read.output}${(await waiting).output}`).toContain('got=y');
    await shells.tool.close(owner, { id: run.id });
  });

  it("the agent's own keys are not the developer's answer", async () => {
    const run = await shells.tool.run(owner, { command: `read -p "Name? " a; echo "hello $a"` });
    expect(run).toMatchObject({ outcome: 'waiting_for_input', prompt_text: 'Name? ' });
    const typed = await shells.tool.send(owner, { id: run.id, text: 'ada' });
    expect(typed).toMatchObject({ state: 'waiting_for_input' });
    expect(typed).not.toHaveProperty('developer_answering');
    await shells.tool.send(owner, { id: run.id, keys: ['Enter'] });
    expect(await shells.tool.wait(owner, { id: run.id, until: 'exit', timeout_ms: 20_000 })).toMatchObject({ reason: 'exit', exit_code: 0 });
    await shells.tool.close(owner, { id: run.id });
  });
});

describe.skipIf(process.platform !== 'linux')('no false alarms', () => {
  it.each([
    ['sleeping', 'sleep 1.5; echo slept'],
    ['a log line ending in ": " then silence', `printf 'Downloading: '; sleep 1.5; echo done`],
    ['a build waiting on its children', `(sleep 1.5 & wait); echo built`],
    ['busy after printing "Compiling: "', `printf 'Compiling: '; timeout 1.5 sh -c 'while :; do :; done'; echo compiled`],
    ['a quiet download to a file', `head -c 50000000 /dev/zero | gzip -1 > ${'$'}{TMPDIR:-/tmp}/ptydeck-needs-input-$$.gz; rm -f ${'$'}{TMPDIR:-/tmp}/ptydeck-needs-input-$$.gz; echo fetched`],
  ])('%s completes without being called waiting', async (_name, command) => {
    const run = await shells.tool.run(owner, { command });
    expect(run).toMatchObject({ outcome: 'completed', exit_code: 0 });
    expect(run.output).toMatch(/(slept|done|built|compiled|fetched)\n$/);
    await shells.tool.close(owner, { id: run.id });
  });
});
