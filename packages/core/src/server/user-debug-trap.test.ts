import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { createTerminalTool, type TerminalOwner, type TerminalTool } from '../terminal-tool/terminal-tool.js';
import { commandDone } from '../testing/command-waits.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForOutput } from '../testing/session-waits.js';
import { readCommandOutput } from '../timeline/command-output.js';
import { Timeline } from '../timeline/index.js';
import { DeveloperShell } from './developer-shell.js';

/**
 * A DEBUG trap of the user's own (bash-preexec, as atuin and starship use, or a plain one
 * in ~/.bashrc) in the developer's tab and in an agent's shell: ptydeck's command line
 * mark never replaces nor removes it, and the commands are still recorded.
 */

const owner: TerminalOwner = { id: 'debug-trap-agent', name: 'claude-code' };
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A service, timeline and tool whose shells start in a HOME with this ~/.bashrc (read through ~/.bash_profile). */
function homeWith(bashrc: string[]): { service: PtyService; timeline: Timeline; tool: TerminalTool; home: string; developerTab(): Promise<string> } {
  const env = isolatedEnv();
  const home = env.HOME!;
  writeFileSync(join(home, '.bash_profile'), '. "$HOME/.bashrc"\n');
  writeFileSync(join(home, '.bashrc'), [...bashrc, ''].join('\n'));
  const service = createPtyService({ env });
  const timeline = new Timeline(service);
  const tool = createTerminalTool(service);
  const shell = new DeveloperShell();
  cleanups.push(async () => {
    await tool.closeOwner(owner.id);
    tool.dispose();
    shell.dispose();
    timeline.dispose();
    await service.dispose();
  });
  const developerTab = async () => {
    const info = service.create({ source: 'user', cwd: home, cols: 120, rows: 30, shellArgs: (program) => shell.argsFor(program) });
    await waitForOutput(service, info.id, 'user$ ');
    return info.id;
  };
  return { service, timeline, tool, home, developerTab };
}

/** Below vitest's own timeout, so that a command the timeline never records fails saying what there was. */
const DIAGNOSE_AFTER_MS = 45_000;

/**
 * Types `line` into the developer's tab and resolves with its record's output once it is done. A record that
 * does not come fails with the session's last output and the timeline's records, to tell whether the shell or
 * the timeline lost the command (this test hung twice in one afternoon and passed 50 times after).
 */
async function typed(service: PtyService, timeline: Timeline, id: string, line: string): Promise<string> {
  const done = commandDone(timeline, line);
  service.write(id, `${line}\r`, 'user');
  let timer: NodeJS.Timeout | undefined;
  const lost = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const { data } = service.read(id, { cursor: 0, maxBytes: 1 << 20 });
      const records = timeline.list({ sessions: new Set([id]) }).map((r) => [r.command, r.status, r.exitCode]);
      reject(new Error(`no record of ${JSON.stringify(line)} done; records ${JSON.stringify(records)}; output ends ${JSON.stringify(Buffer.from(data).toString('latin1').slice(-2000))}`));
    }, DIAGNOSE_AFTER_MS);
  });
  try {
    return readCommandOutput(service, await Promise.race([done, lost]), 4096).text;
  } finally {
    clearTimeout(timer);
  }
}

// A plain DEBUG trap set in ~/.bashrc: it logs every command it runs before.
const PLAIN_TRAP = [`PS1='user$ '`, 'mytrap() { printf "T:%s\\n" "$BASH_COMMAND" >> "$HOME/trap.log"; }', 'trap mytrap DEBUG'];

function trapLog(home: string): string[] {
  return readFileSync(join(home, 'trap.log'), 'utf8').split('\n');
}

describe("a user's DEBUG trap", () => {
  it("keeps firing for every command typed in the developer's tab, and the commands are recorded", async () => {
    const { service, timeline, home, developerTab } = homeWith(PLAIN_TRAP);
    const id = await developerTab();
    expect(await typed(service, timeline, id, 'echo one')).toBe('one\n');
    expect(await typed(service, timeline, id, 'trap -p DEBUG')).toBe("trap -- 'mytrap' DEBUG\n");
    expect(await typed(service, timeline, id, 'echo two')).toBe('two\n');
    expect(trapLog(home)).toEqual(expect.arrayContaining(['T:echo one', 'T:trap -p DEBUG', 'T:echo two']));
    expect(timeline.list({ sessions: new Set([id]) }).map((r) => [r.command, r.actor.kind, r.exitCode])).toEqual([
      ['echo one', 'developer', 0],
      ['trap -p DEBUG', 'developer', 0],
      ['echo two', 'developer', 0],
    ]);
  });

  it("keeps firing for every command an agent runs in its shell, and the commands are recorded", async () => {
    const { tool, timeline, home } = homeWith(PLAIN_TRAP);
    const shell = await tool.create(owner, { cwd: home });
    expect((await tool.run(owner, { id: shell.id, command: 'echo one' })).output).toBe('one\n');
    expect((await tool.run(owner, { id: shell.id, command: 'trap -p DEBUG' })).output).toBe("trap -- 'mytrap' DEBUG\n");
    expect((await tool.run(owner, { id: shell.id, command: 'echo two' })).output).toBe('two\n');
    expect(trapLog(home)).toEqual(expect.arrayContaining(['T:echo one', 'T:trap -p DEBUG', 'T:echo two']));
    expect(timeline.list({ sessions: new Set([shell.id]) }).map((r) => [r.command, r.actor.kind, r.exitCode])).toEqual([
      ['echo one', 'agent', 0],
      ['trap -p DEBUG', 'agent', 0],
      ['echo two', 'agent', 0],
    ]);
  });

  it('set at the prompt stays, and ptydeck shows no trap of its own at the prompt before that', async () => {
    const { service, timeline, home, developerTab } = homeWith([`PS1='user$ '`]);
    const id = await developerTab();
    // ptydeck's trap is gone by the time the line's first command runs.
    expect(await typed(service, timeline, id, 'trap -p DEBUG')).toBe('');
    const set = `trap 'echo "L:$BASH_COMMAND" >> "$HOME/trap.log"' DEBUG`;
    await typed(service, timeline, id, set);
    expect(await typed(service, timeline, id, 'echo three')).toBe('three\n');
    expect(await typed(service, timeline, id, 'trap -p DEBUG')).toBe(`trap -- 'echo "L:$BASH_COMMAND" >> "$HOME/trap.log"' DEBUG\n`);
    expect(trapLog(home)).toEqual(expect.arrayContaining(['L:echo three', 'L:trap -p DEBUG']));
    expect(timeline.list({ sessions: new Set([id]) }).map((r) => r.command)).toEqual(['trap -p DEBUG', set, 'echo three', 'trap -p DEBUG']);
  });

  it('of a bash-preexec-like setup (installed from PROMPT_COMMAND at the first prompt) still calls its preexec once per command', async () => {
    const { service, timeline, home, developerTab } = homeWith([
      `PS1='user$ '`,
      'preexec() { printf "pre:%s\\n" "$1" >> "$HOME/trap.log"; }',
      // As bash-preexec: armed by the last PROMPT_COMMAND entry, the trap calls preexec for a line's
      // first command, unless that command is a whole line of PROMPT_COMMAND (the prompt's own).
      '__pre_interactive() { __pre_on=1; }',
      `__pre_trap() { [[ -n \${__pre_on:-} ]] || return 0; __pre_on=; [[ $'\\n'$PROMPT_COMMAND$'\\n' == *$'\\n'"$BASH_COMMAND"$'\\n'* ]] && return 0; preexec "$BASH_COMMAND"; }`,
      `__pre_install() { trap '__pre_trap' DEBUG; PROMPT_COMMAND=\${PROMPT_COMMAND//__pre_install/:}$'\\n'__pre_interactive; __pre_interactive; }`,
      `PROMPT_COMMAND="\${PROMPT_COMMAND:+$PROMPT_COMMAND$'\\n'}__pre_install"`,
    ]);
    const id = await developerTab();
    // The line after the install has no preexec, as before the command line mark's trap: ptydeck's
    // prompt commands run after the install's, and the first one disarms it as the prompt's own.
    expect(await typed(service, timeline, id, 'true')).toBe('');
    expect(await typed(service, timeline, id, 'echo one')).toBe('one\n');
    expect(await typed(service, timeline, id, 'echo two')).toBe('two\n');
    expect(await typed(service, timeline, id, 'trap -p DEBUG')).toBe("trap -- '__pre_trap' DEBUG\n");
    expect(trapLog(home).filter(Boolean)).toEqual(['pre:echo one', 'pre:echo two', 'pre:trap -p DEBUG']);
    expect(timeline.list({ sessions: new Set([id]) }).map((r) => [r.command, r.exitCode])).toEqual([
      ['true', 0],
      ['echo one', 0],
      ['echo two', 0],
      ['trap -p DEBUG', 0],
    ]);
  });
});
