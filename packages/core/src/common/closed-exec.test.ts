import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { closedSpawn } from './closed-exec.js';

const compiler = ['/usr/bin/cc', '/usr/bin/gcc'].find((path) => existsSync(path));

// A session's terminal master: node-pty does not open it close-on-exec, so without closedSpawn every child holds it.
const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
afterAll(() => service.dispose());

describe('closedSpawn', () => {
  it("closes every descriptor above 2, and a hostile environment neither runs code in its bash nor keeps it from closing", () => {
    service.create({ source: 'user', command: 'cat' });
    const dir = fileTempDir('ptydeck-closed-exec-');
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

  it('puts a carried variable back as given, never as arithmetic: bash declares OPTIND an integer, where a[$(cmd)] runs cmd', () => {
    const dir = fileTempDir('ptydeck-closed-exec-');
    const value = `a[$(touch '${join(dir, 'ran')}')]`;
    // env, not sh: dash refuses an OPTIND that is no number.
    const run = closedSpawn('/usr/bin/env', [], { PATH: '/usr/bin:/bin', OPTIND: value, OPTERR: value });
    const out = spawnSync(run.command, run.args, { env: run.env, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(out.stdout).toContain(`\nOPTIND=${value}\n`);
    expect(out.stdout).toContain(`\nOPTERR=${value}\n`);
  });

  it.skipIf(!compiler)("with the loader's variables in the environment: the library loads in the program only, never in the bash that still holds the descriptors", () => {
    service.create({ source: 'user', command: 'cat' });
    const dir = fileTempDir('ptydeck-closed-exec-');
    const seen = join(dir, 'seen');
    // What an agent's shell could build in its workspace and name in terminal_create's env: it notes the program
    // it was loaded into and every terminal master that program holds.
    const source = `#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
  char exe[512] = {0}, path[600], target[512];
  FILE *out = fopen("${seen}", "a");
  DIR *fds = opendir("/proc/self/fd");
  struct dirent *entry;
  if (!out || !fds) return;
  readlink("/proc/self/exe", exe, sizeof exe - 1);
  fprintf(out, "%s", exe);
  while ((entry = readdir(fds))) {
    ssize_t length;
    snprintf(path, sizeof path, "/proc/self/fd/%s", entry->d_name);
    length = readlink(path, target, sizeof target - 1);
    if (length > 0 && atoi(entry->d_name) > 2 && atoi(entry->d_name) != fileno(out) && atoi(entry->d_name) != dirfd(fds)) { target[length] = 0; fprintf(out, " %s", target); }
  }
  fputs("\\n", out);
  closedir(fds);
  fclose(out);
}
`;
    writeFileSync(join(dir, 'planted.c'), source);
    const built = spawnSync(compiler!, ['-shared', '-fPIC', '-o', join(dir, 'planted.so'), join(dir, 'planted.c')], { encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
    const loader = { LD_PRELOAD: join(dir, 'planted.so'), LD_LIBRARY_PATH: dir, 'LD_NOT-A-NAME': 'x' };
    const run = closedSpawn('/usr/bin/env', [], { PATH: '/usr/bin:/bin', ...loader });
    const out = spawnSync(run.command, run.args, { env: run.env, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    // Loaded once, in the program, which holds nothing: before, first in bash, which held the other session's ptmx.
    expect(readFileSync(seen, 'utf8')).toBe(`${realpathSync('/usr/bin/env')}\n`);
    // The program still gets them as given; a name no loader reads, which bash could not put back, does not pass.
    expect(`\n${out.stdout}`).toContain(`\nLD_PRELOAD=${loader.LD_PRELOAD}\n`);
    expect(`\n${out.stdout}`).toContain(`\nLD_LIBRARY_PATH=${dir}\n`);
    expect(out.stdout).not.toContain('LD_NOT-A-NAME');
    expect(out.stdout).not.toContain('PTYDECK_EXEC_');
  });
});
