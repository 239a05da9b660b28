import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestSpecification, Vitest } from 'vitest/node';
import { describe, expect, it } from 'vitest';
import SlowFirstSequencer from './slow-first-sequencer.ts';

const root = join(import.meta.dirname, '..');
const known: Record<string, number> = JSON.parse(readFileSync(join(import.meta.dirname, 'test-durations.json'), 'utf8'));

function spec(project: string, file: string): TestSpecification {
  const config = { sequence: { groupOrder: 0 }, isolate: project === 'isolated' };
  return { project: { name: project, config }, moduleId: join(root, file) } as unknown as TestSpecification;
}

function sequencer(cached: Record<string, number> = {}): SlowFirstSequencer {
  // A clean clone's cache: no durations of its own (unless given), every file 1 KiB on disk.
  const cache = {
    getFileTestResults: (key: string) => (key in cached ? { duration: cached[key], failed: false } : undefined),
    getFileStats: () => ({ size: 1024 }),
  };
  return new SlowFirstSequencer({ config: { root }, cache } as unknown as Vitest);
}

describe('the vitest sequencer', () => {
  it('names only test files that exist', () => {
    for (const key of Object.keys(known)) expect(existsSync(join(root, key.slice(key.indexOf(':') + 1))), key).toBe(true);
  });

  it('starts known-slow files first, longest first, and keeps the projects apart', async () => {
    const [slowest, second] = Object.keys(known).map((key) => key.slice(key.indexOf(':') + 1));
    const files = [
      spec('shared', 'packages/app/src/a.test.ts'),
      spec('isolated', 'packages/core/src/unknown.test.ts'),
      spec('isolated', second!),
      spec('isolated', slowest!),
    ];
    const order = (await sequencer().sort(files)).map((s) => `${s.project.name}:${s.moduleId.slice(root.length + 1)}`);
    expect(order).toEqual([`isolated:${slowest}`, `isolated:${second}`, 'isolated:packages/core/src/unknown.test.ts', 'shared:packages/app/src/a.test.ts']);
  });

  it("takes vitest's own durations over the committed ones", async () => {
    const [slowest, second] = Object.keys(known);
    const files = [spec('isolated', slowest!.slice(9)), spec('isolated', second!.slice(9))];
    const order = (await sequencer({ [second!]: known[slowest!]! * 1000 + 1 }).sort(files)).map((s) => s.moduleId);
    expect(order).toEqual([join(root, second!.slice(9)), join(root, slowest!.slice(9))]);
  });
});
