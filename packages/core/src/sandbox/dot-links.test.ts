import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linksAmongDotFiles, rememberedDirectories } from './dot-links.js';
import { fileTempDir } from '../testing/isolated-env.js';

// HOME's directories are read again only when they changed: a link made or swapped in since must be seen.
const root = fileTempDir('ptydeck-dot-links-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A clock well past any change the test makes: every directory read has settled. */
const later = () => Date.now() + 60_000;

function homeWith(name: string): string {
  const home = join(root, name);
  for (const dir of ['.config/nvim', '.local/bin', '.local/share/app', 'project']) mkdirSync(join(home, dir), { recursive: true });
  return home;
}

describe('linksAmongDotFiles', () => {
  it("finds HOME's links two levels down its dot-directories, not in its other directories or deeper", () => {
    const home = homeWith('levels');
    symlinkSync('/etc/hostname', join(home, '.bashrc'));
    symlinkSync('/etc', join(home, '.config', 'tool'));
    symlinkSync('/etc', join(home, '.local', 'bin', 'tool'));
    symlinkSync('/etc', join(home, '.local', 'share', 'app', 'deeper'));
    symlinkSync('/etc', join(home, 'project', 'link'));
    expect(linksAmongDotFiles(home, later()).sort()).toEqual([join(home, '.bashrc'), join(home, '.config', 'tool'), join(home, '.local', 'bin', 'tool')].sort());
  });

  it('sees a link made, and a directory swapped for a link, in a directory it remembered', () => {
    const home = homeWith('changed');
    expect(linksAmongDotFiles(home, later())).toEqual([]);
    expect(rememberedDirectories()).toEqual(expect.arrayContaining([home, join(home, '.config'), join(home, '.local', 'bin')]));
    symlinkSync('/etc', join(home, '.config', 'nvim-new'));
    expect(linksAmongDotFiles(home, later())).toEqual([join(home, '.config', 'nvim-new')]);
    // The directory ~/.local/bin made a link: its parent changed, not the directory itself (moved away whole).
    renameSync(join(home, '.local', 'bin'), join(home, 'bin-old'));
    symlinkSync(join(root, 'elsewhere'), join(home, '.local', 'bin'));
    expect(linksAmongDotFiles(home, later()).sort()).toEqual([join(home, '.config', 'nvim-new'), join(home, '.local', 'bin')].sort());
  });

  it("sees a link made in a remembered directory whose modification time was set back as it was (its change time moved)", () => {
    const home = homeWith('touched');
    const config = join(home, '.config');
    const set = new Date(Date.UTC(2001, 0, 1));
    utimesSync(config, set, set);
    expect(linksAmongDotFiles(home, later())).toEqual([]);
    const read = statSync(config);
    const link = join(config, 'tool');
    // Made again until the filesystem's clock has moved on from the remembered change time (a tick, at most).
    do {
      rmSync(link, { force: true });
      symlinkSync('/etc', link);
      utimesSync(config, set, set);
    } while (statSync(config).ctimeMs === read.ctimeMs);
    expect(statSync(config).mtimeMs).toBe(read.mtimeMs);
    expect(linksAmongDotFiles(home, later())).toEqual([link]);
  });

  it('does not remember a directory changed within the last ticks of the clock (a change in the same tick keeps its stamp)', () => {
    const home = homeWith('fresh');
    linksAmongDotFiles(home);
    expect(rememberedDirectories().filter((dir) => dir.startsWith(home))).toEqual([]);
  });

  it('forgets the directories a HOME no longer holds', () => {
    const home = homeWith('forgets');
    linksAmongDotFiles(home, later());
    expect(rememberedDirectories()).toContain(join(home, '.local', 'share'));
    rmSync(join(home, '.local', 'share'), { recursive: true });
    linksAmongDotFiles(home, later());
    expect(rememberedDirectories()).not.toContain(join(home, '.local', 'share'));
  });
});
