import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hardFromProc, raiseFdLimit } from './fd-limit.js';

const PROC = `Limit                     Soft Limit           Hard Limit           Units
Max processes             127352               127352               processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('raiseFdLimit', () => {
  it('asks Electron for the hard limit on Linux, read from /proc/self/limits', () => {
    const asked: number[] = [];
    expect(raiseFdLimit({ platform: 'linux', setFdLimit: (n) => asked.push(n), readProcLimits: () => PROC })).toBe(524288);
    expect(asked).toEqual([524288]);
  });

  it('asks a shell elsewhere on POSIX, and leaves an unlimited or unknown hard limit alone', () => {
    const asked: number[] = [];
    const setFdLimit = (n: number) => asked.push(n);
    expect(raiseFdLimit({ platform: 'darwin', setFdLimit, shellHardLimit: () => '10240\n' })).toBe(10240);
    expect(raiseFdLimit({ platform: 'darwin', setFdLimit, shellHardLimit: () => 'unlimited\n' })).toBeUndefined();
    expect(
      raiseFdLimit({
        platform: 'freebsd',
        setFdLimit,
        shellHardLimit: () => {
          throw new Error('no shell');
        },
      }),
    ).toBeUndefined();
    expect(asked).toEqual([10240]);
  });

  it('does nothing on Windows or without Electron', () => {
    expect(raiseFdLimit({ platform: 'win32', setFdLimit: () => expect.unreachable() })).toBeUndefined();
    expect(raiseFdLimit({ platform: 'linux', setFdLimit: undefined, readProcLimits: () => PROC })).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('reads this machine’s own limits', () => {
    expect(hardFromProc(readFileSync('/proc/self/limits', 'utf8'))).toBeGreaterThan(0);
  });
});
