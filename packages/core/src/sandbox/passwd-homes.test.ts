import { renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { passwdHomes } from './policy.js';
import { fileTempDir } from '../testing/isolated-env.js';

// The passwd file is read once per change, not at every shell's start: what is remembered must follow the file.
const dir = fileTempDir('ptydeck-passwd-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (user: string, home: string) => `${user}:x:1000:1000::${home}:/bin/bash\n`;
/** A clock well past any change the test makes: every read is of a settled file. */
const later = () => Date.now() + 60_000;

describe('passwdHomes', () => {
  it('names the absolute homes but /, as written', () => {
    const file = join(dir, 'names');
    writeFileSync(file, `${line('a', '/home/a')}${line('root', '/')}${line('b', 'relative')}broken line\n${line('c', '/srv/c')}`);
    expect(passwdHomes(file, later())).toEqual(['/home/a', '/srv/c']);
  });

  it('remembers a settled file, and reads it again once it changed: edited in place to the same size, or replaced', () => {
    const file = join(dir, 'edited');
    writeFileSync(file, line('bob', '/home/bob'));
    const first = passwdHomes(file, later());
    expect(first).toEqual(['/home/bob']);
    expect(passwdHomes(file, later())).toBe(first);
    // Same length, same inode: only the times say it changed (set apart here, whatever the filesystem's clock's tick).
    writeFileSync(file, line('eve', '/home/eve'));
    utimesSync(file, new Date(2001, 0, 1), new Date(2001, 0, 1));
    expect(passwdHomes(file, later())).toEqual(['/home/eve']);
    const replacement = join(dir, 'edited.new');
    writeFileSync(replacement, line('eve', '/home/eve') + line('mal', '/srv/mal'));
    renameSync(replacement, file);
    expect(passwdHomes(file, later())).toEqual(['/home/eve', '/srv/mal']);
  });

  it('does not remember a file changed within the last ticks of the clock (a change in the same tick keeps its stamp)', () => {
    const file = join(dir, 'fresh');
    writeFileSync(file, line('bob', '/home/bob'));
    const first = passwdHomes(file);
    expect(first).toEqual(['/home/bob']);
    // Read again, not remembered: a second write in this tick would not have changed the stamp.
    expect(passwdHomes(file)).not.toBe(first);
  });

  it('names nothing for a missing file', () => {
    expect(passwdHomes(join(dir, 'missing'), later())).toEqual([]);
  });
});
