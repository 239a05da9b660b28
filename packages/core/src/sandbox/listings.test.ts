import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WaitFirst } from '../common/wait-first.js';
import { KEPT_PER_KIND, LISTED_PER_TURN, Listings, listingOf } from './listings.js';
import { MAX_PROJECTS_LOOKED_AT, RUN_BY_YOUR_TOOLS } from './tool-fence.js';

const dir = mkdtempSync(join(tmpdir(), 'ptydeck-listings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Builds from `listings` until it needs nothing more, as the spawn queue does; how many tries it took. */
async function built<T>(listings: Listings, build: () => T, between?: (tries: number) => Promise<void>): Promise<{ value: T; tries: number }> {
  for (let tries = 1; ; tries++) {
    try {
      return { value: listings.buildFrom(build), tries };
    } catch (error) {
      if (!(error instanceof WaitFirst)) throw error;
      await error.ready();
      await between?.(tries);
    }
  }
}

describe('Listings', () => {
  it("keeps what a policy reads (directories, links, sockets, HEAD), and lists again a directory changed since: a socket made meanwhile is found", async () => {
    writeFileSync(join(dir, 'HEAD'), '');
    // More than a build may list in its own turn: listed in slices, between the builds.
    for (let i = 0; i < LISTED_PER_TURN; i++) writeFileSync(join(dir, `file${i}`), '');
    const names = () => (listingOf(dir) ?? []).map((entry) => entry.name).sort();
    const socket = createServer();
    const listings = new Listings();
    // After the first listing, before the build that reads it: a socket appears in the directory.
    const { value, tries } = await built(listings, names, async (tries) => {
      if (tries === 1) await new Promise<void>((resolve) => socket.listen(join(dir, 'sock'), resolve));
    });
    socket.close();
    expect(value).toEqual(['HEAD', 'sock']);
    expect(tries).toBe(3);
    // Read now, outside a build: kept the same way (the socket went with its server).
    expect(names()).toEqual(['HEAD']);
  });

  it("lists a small directory in the build's own turn, and one of more than LISTED_PER_TURN entries between builds", async () => {
    // Most shells start in a small directory: a round of listing for each (a build, a listing's turns, the build again)
    // took figure 14's sandboxed create from 1.48x to 1.57x of an unsandboxed one.
    const small = mkdtempSync(join(dir, 'small-'));
    const large = mkdtempSync(join(dir, 'large-'));
    for (let i = 0; i < 8; i++) writeFileSync(join(small, `file${i}`), '');
    for (let i = 0; i < LISTED_PER_TURN; i++) writeFileSync(join(large, `file${i}`), '');
    writeFileSync(join(small, 'HEAD'), '');
    writeFileSync(join(large, 'HEAD'), '');
    const names = (of: string) => () => (listingOf(of) ?? []).map((entry) => entry.name);
    expect(await built(new Listings(), names(small))).toEqual({ value: ['HEAD'], tries: 1 });
    expect(await built(new Listings(), names(large))).toEqual({ value: ['HEAD'], tries: 2 });
  });

  it('keeps more directories and links than any cap of a policy counts, so that a listing past it still goes past the cap', () => {
    // Caps: projects (and directories named as RUN_BY_YOUR_TOOLS, not counted as projects); linked worktrees, .git/modules' directories and links: 256.
    expect(KEPT_PER_KIND).toBeGreaterThan(MAX_PROJECTS_LOOKED_AT + RUN_BY_YOUR_TOOLS.length);
    expect(KEPT_PER_KIND).toBeGreaterThan(256);
  });
});
