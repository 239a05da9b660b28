import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForOutput } from '../testing/session-waits.js';
import { readCommandOutput } from '../timeline/command-output.js';
import { Timeline } from '../timeline/index.js';
import { DeveloperShell } from './developer-shell.js';
import { commandDone } from '../testing/command-waits.js';

/** The developer's own bash tab with ptydeck's marks: their startup files' prompt and PROMPT_COMMAND kept, their commands recorded as theirs. */

const env = isolatedEnv();
const home = env.HOME!;
// A login shell reads ~/.bash_profile; like most distributions' skeleton files, it reads ~/.bashrc.
writeFileSync(join(home, '.bash_profile'), '. "$HOME/.bashrc"\n');
writeFileSync(
  join(home, '.bashrc'),
  [
    'HISTCONTROL=ignoreboth',
    // A prompt command that rebuilds PS1 each time, exported as some users do.
    `export PROMPT_COMMAND='__n=$((__n+1)); echo "$__n" > "$HOME/prompts"; PS1="dev-$__n\\$ "'`,
    "PS1='dev-0$ '",
    '',
  ].join('\n'),
);
mkdirSync(join(home, 'work'));
const service = createPtyService({ env });
const timeline = new Timeline(service);
const shell = new DeveloperShell();
afterAll(async () => {
  shell.dispose();
  timeline.dispose();
  await service.dispose();
});

describe("the developer's bash tab", () => {
  it('keeps their prompt and PROMPT_COMMAND, records their commands as theirs, and leaks no hook to its children', async () => {
    const shellArgs = (program: string) => shell.argsFor(program);
    const info = service.create({ source: 'user', cwd: join(home, 'work'), cols: 120, rows: 30, shellArgs });
    expect(service.get(info.id)?.command).toMatch(/bash$/);
    expect(shell.argsFor(service.get(info.id)!.command)).toEqual(['--init-file', expect.stringMatching(/bashrc$/), '-i']);
    await waitForOutput(service, info.id, 'dev-1$ ');

    const first = commandDone(timeline, 'cd .. && echo hello-dev');
    service.write(info.id, 'cd .. && echo hello-dev\r', 'user');
    const record = await first;
    expect(record).toMatchObject({ actor: { kind: 'developer', name: null }, exitCode: 0, cwd: join(home, 'work') });
    expect(readCommandOutput(service, record, 4096).text).toBe('hello-dev\n');
    // Their PROMPT_COMMAND still runs, and the PS1 it rebuilds is still shown.
    await waitForOutput(service, info.id, 'dev-2$ ');
    expect(readFileSync(join(home, 'prompts'), 'utf8')).toBe('2\n');

    // What a program started from the tab inherits: none of ptydeck's hooks or markers, the history file as it was.
    const probe = 'env | grep -cE "^(PROMPT_COMMAND|PS0|BASH_ENV|__ptydeck)" ; echo "histfile=$HISTFILE"';
    const inherited = commandDone(timeline, probe);
    service.write(info.id, `${probe}\r`, 'user');
    expect(readCommandOutput(service, await inherited, 4096).text).toBe(`0\nhistfile=${env.HISTFILE}\n`);
    const failing = commandDone(timeline, 'false');
    service.write(info.id, 'false\r', 'user');
    expect((await failing).exitCode).toBe(1);

    expect(timeline.list({ sessions: new Set([info.id]) }).map((r) => [r.command, r.actor.kind, r.exitCode])).toEqual([
      ['cd .. && echo hello-dev', 'developer', 0],
      [probe, 'developer', 0],
      ['false', 'developer', 1],
    ]);
    await service.remove(info.id);
  });

  it('leaves a shell that is not bash as it is', () => {
    expect(shell.argsFor('/bin/sh')).toBeUndefined();
  });

  it("gives the marks to the shell the session's own environment names, not another (a service whose SHELL is not bash runs it)", async () => {
    const quick = join(home, 'quick-shell');
    writeFileSync(quick, '#!/bin/sh\necho quick-up\nexec cat\n', { mode: 0o755 });
    const own = createPtyService({ env: { ...env, SHELL: quick } });
    try {
      const info = own.create({ source: 'user', cols: 80, rows: 24, shellArgs: (program) => shell.argsFor(program) });
      await waitForOutput(own, info.id, 'quick-up');
      expect(own.get(info.id)?.command).toBe(quick);
    } finally {
      await own.dispose();
    }
  });
});
