import { describe, expect, it } from 'vitest';
import { WaitFirst } from '../common/wait-first.js';
import { SpawnTurns } from './spawn-turns.js';
import { busy, turnMeter } from '../testing/loop-turns.js';

describe('SpawnTurns', () => {
  it('runs creations in order, a few per turn of the loop, so the loop turns between them', async () => {
    const turns = new SpawnTurns(8);
    const ran: number[] = [];
    const meter = turnMeter();
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        turns.run(() => {
          busy(3);
          ran.push(i);
          meter.add(1);
          return `s${i}`;
        }),
      ),
    );
    const { mostPerTurn, turns: loopTurns } = meter.stop();
    expect(created).toEqual(Array.from({ length: 40 }, (_, i) => `s${i}`));
    expect(ran).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // 8 ms of 3 ms spawns: at most three a turn (the third starts before the budget runs out).
    expect(mostPerTurn).toBeGreaterThanOrEqual(1);
    expect(mostPerTurn).toBeLessThanOrEqual(3);
    expect(loopTurns).toBeGreaterThanOrEqual(40 / 3);
  });

  it('runs a creation that must wait first (WaitFirst) again once ready, before those asked for after it', async () => {
    const turns = new SpawnTurns();
    const ran: string[] = [];
    let tries = 0;
    const results = await Promise.allSettled([
      turns.run(() => {
        ran.push(`a${++tries}`);
        if (tries < 3) throw new WaitFirst(() => new Promise((resolve) => setImmediate(resolve)));
        return 'a';
      }),
      turns.run(() => {
        ran.push('b');
        throw new WaitFirst(() => Promise.reject(new Error('listing failed')));
      }),
      turns.run(() => (ran.push('c'), 'c')),
    ]);
    expect(ran).toEqual(['a1', 'a2', 'a3', 'b', 'c']);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'a' },
      { status: 'rejected', reason: new Error('listing failed') },
      { status: 'fulfilled', value: 'c' },
    ]);
  });

  it('settles each creation with what it threw, and goes on with the others', async () => {
    const turns = new SpawnTurns();
    const results = await Promise.allSettled([
      turns.run(() => 'a'),
      turns.run(() => {
        throw new Error('session_limit');
      }),
      turns.run(() => 'c'),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'a' },
      { status: 'rejected', reason: new Error('session_limit') },
      { status: 'fulfilled', value: 'c' },
    ]);
  });

  it('a check queued with its creation sees the creations before it', async () => {
    const turns = new SpawnTurns(1000);
    const live: string[] = [];
    const create = (name: string) =>
      turns.run(() => {
        if (live.length >= 2) throw new Error(`no room for ${name}`);
        live.push(name);
        return name;
      });
    const results = await Promise.allSettled([create('a'), create('b'), create('c')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(live).toEqual(['a', 'b']);
  });
});
