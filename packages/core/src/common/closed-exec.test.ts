import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { closedSpawn } from './closed-exec.js';

// A session's terminal master: node-pty does not open it close-on-exec, so without closedSpawn every child holds it.
const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
afterAll(() => service.dispose());

describe('closedSpawn', () => {
  it("closes every descriptor above 2, and a hostile environment neither runs code in its bash nor keeps it from closing", () => {
    service.create({ source: 'user', command: 'cat' });
    const dir = mkdtempSync(join(tmpdir(), 'ptydeck-closed-exec-'));
    const mark = (name: string) => `touch '${join(dir, name)}'`;
    writeFileSync(join(dir, 'bash-env'), `${mark('bash-env-ran')}\n`);
    // What an agent's terminal_create may put in the environment of a sandbox's launcher, which this bash runs outside.
    const hostile = {
      BASH_ENV: join(dir, 'bash-env'),
      SHELLOPTS: 'xtrace',
      PS4: `$(${mark('ps4-ran')})`,
      'BASH_FUNC_exec%%': `() { ${mark('exec-hijacked')}; }`,
      GLOBIGNORE: '*',
      'npm_config_//registry/:_authToken': 'kept',
    };
    // The program is sh, which reads none of them itself (bash as sh reads no BASH_ENV): what ran, ran in ours.
    // And what a bash between would not pass on as given (a non-interactive one drops PS1, resets IFS).
    const plain = { PS1: 'READY> ', PS2: '.. ', IFS: ':', OLDPWD: '/before', OPTIND: '3' };
    const run = closedSpawn('/bin/sh', ['-c', "ls -l /proc/$$/fd; tr '\\0' '\\n' < /proc/$$/environ"], { PATH: '/usr/bin:/bin', ...hostile, ...plain });
    const out = spawnSync(run.command, run.args, { env: run.env, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(['bash-env-ran', 'ps4-ran', 'exec-hijacked'].filter((name) => existsSync(join(dir, name)))).toEqual([]);
    // As ls prints them: "lrwx------ 1 user user 64 Dec  7 02:38 0 -> pipe:[123]".
    expect([...out.stdout.matchAll(/ (\d+) -> /g)].map((match) => Number(match[1])), out.stdout).toEqual([0, 1, 2]);
    expect(out.stdout).not.toContain('ptmx');
    // The program's environment is the caller's: names no shell could hold, PS4 as given (ours reset it).
    expect(out.stdout).toContain('npm_config_//registry/:_authToken=kept');
    expect(out.stdout).toContain(`PS4=${hostile.PS4}`);
    for (const [name, value] of Object.entries(plain)) expect(out.stdout).toContain(`\n${name}=${value}\n`);
    expect(out.stdout).not.toContain('PTYDECK_EXEC_');
  });
});
