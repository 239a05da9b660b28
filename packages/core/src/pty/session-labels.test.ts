import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostIdOf, SessionLabels } from './session-labels.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * What a process's labels say of where it was started (issue 32.1: another
 * host's are none of ours; issue 31.9: the key it kept outweighs the id it
 * claims). With real processes: facts/process-watch.test.ts and
 * terminal-tool/owned-processes.test.ts.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateDir(): string {
  const dir = fileTempDir('ptydeck-labels-');
  dirs.push(dir);
  return dir;
}

describe('hostIdOf', () => {
  it('is the same for every host of a state directory, and differs for another one', () => {
    const dir = stateDir();
    expect(hostIdOf(dir)).toBe(hostIdOf(dir));
    expect(hostIdOf(join(dir, '.'))).toBe(hostIdOf(dir));
    expect(hostIdOf(stateDir())).not.toBe(hostIdOf(dir));
  });

  it('comes from the kernel, not from what an agent could write in the directory', () => {
    const dir = stateDir();
    const other = stateDir();
    const before = hostIdOf(dir);
    writeFileSync(join(dir, 'host-id'), hostIdOf(other));
    writeFileSync(join(other, 'host-id'), before);
    expect(hostIdOf(dir)).toBe(before);
  });
});

describe('SessionLabels.sessionOf', () => {
  const labels = new SessionLabels('host-a');
  const agent = labels.issue('agent-session');
  const developer = labels.issue('developer-session');

  it("is a session's own labels' session", () => {
    expect(labels.sessionOf(agent)).toBe('agent-session');
    expect(labels.sessionOf(developer)).toBe('developer-session');
  });

  it("is none of another host's", () => {
    expect(labels.sessionOf({ ...agent, host: 'host-b' })).toBeUndefined();
    expect(labels.sessionOf({ ...agent, host: undefined })).toBeUndefined();
  });

  it('is the session whose key a process kept, whatever id it claims', () => {
    expect(labels.sessionOf({ ...agent, id: developer.id })).toBe('agent-session');
  });

  it("is none for an id of this host's without its key", () => {
    expect(labels.sessionOf({ id: developer.id, host: 'host-a', key: undefined })).toBeUndefined();
    expect(labels.sessionOf({ id: developer.id, host: 'host-a', key: 'f'.repeat(32) })).toBeUndefined();
  });

  it('is the id for a session an earlier host of the same state directory started', () => {
    const earlier = new SessionLabels('host-a').issue('earlier-session');
    expect(labels.sessionOf(earlier)).toBe('earlier-session');
  });
});
