import type { Attention } from '@ptydeck/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InputWait } from '../proc/input-wait.js';
import { InputWatch, type InputWatchTarget } from './input-watch.js';

/** The watch under a fake clock, with the kernel's answer scripted. */

function setup(answer: InputWait, tail: string) {
  const target = { exited: false, lastDataAt: Date.now(), pid: 42, holds: true, tail };
  const changes: Array<Attention | null> = [];
  const probes: number[] = [];
  const watch = new InputWatch(
    {
      get exited() {
        return target.exited;
      },
      get lastDataAt() {
        return target.lastDataAt;
      },
      pid: 42,
      altScreen: false,
      commandHoldsTerminal: () => target.holds,
      tail: () => target.tail,
    } satisfies InputWatchTarget,
    (attention) => changes.push(attention),
    () => {
      probes.push(Date.now());
      return state.answer;
    },
  );
  const state = { answer };
  const output = (text: string) => {
    target.tail += text;
    target.lastDataAt = Date.now();
    watch.outputArrived();
  };
  return { watch, target, changes, probes, state, output };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('InputWatch', () => {
  it('a program reading the terminal needs input once output has been quiet, whatever the prompt says', async () => {
    const { watch, changes, output } = setup({ state: 'reading', pid: 43 }, '');
    output('Your name: ');
    await vi.advanceTimersByTimeAsync(299);
    expect(watch.attention).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(watch.attention).toMatchObject({ kind: 'unknown', prompt: 'Your name: ' });
    expect(changes).toHaveLength(1);
    // The answer's echo moves it on.
    output('ada\n');
    expect(watch.attention).toBeNull();
    expect(changes.at(-1)).toBeNull();
  });

  it('names the kind from the text', async () => {
    const { watch, output } = setup({ state: 'reading', pid: 43 }, '');
    output('Overwrite? [y/N] ');
    await vi.advanceTimersByTimeAsync(300);
    expect(watch.attention?.kind).toBe('confirm');
  });

  it('a server asleep in epoll with its log ending in a newline is not waiting; a question is', async () => {
    const { watch, output } = setup({ state: 'polling', pid: 43 }, '');
    output('  VITE ready in 300 ms\n  press h + enter to show help\n');
    await vi.advanceTimersByTimeAsync(5000);
    expect(watch.attention).toBeNull();
    output('Project name? ');
    // Within a second of the question: the quiet period, or the probe already due, whichever is later.
    await vi.advanceTimersByTimeAsync(700);
    expect(watch.attention).toMatchObject({ kind: 'unknown', prompt: 'Project name? ' });
  });

  it('keeps asking, with a backoff, while a quiet command is busy, and sees it when it starts reading', async () => {
    const { watch, probes, state, output } = setup({ state: 'busy' }, '');
    output('Compiling: ');
    await vi.advanceTimersByTimeAsync(5000);
    expect(watch.attention).toBeNull();
    const gaps = probes.slice(1).map((at, i) => at - probes[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(700);
    expect(probes.length).toBeLessThan(15);
    state.answer = { state: 'reading', pid: 43 };
    await vi.advanceTimersByTimeAsync(700);
    expect(watch.attention).not.toBeNull();
  });

  it('asks nothing while the shell sits at its own prompt', async () => {
    const { watch, target, probes, output } = setup({ state: 'reading', pid: 43 }, '');
    target.holds = false;
    output('$ ');
    await vi.advanceTimersByTimeAsync(5000);
    expect(probes).toHaveLength(0);
    expect(watch.attention).toBeNull();
  });

  it('where the kernel cannot be asked, a prompt recognised by its text for a second counts', async () => {
    const { watch, output } = setup({ state: 'unsupported' }, '');
    output('Password: ');
    await vi.advanceTimersByTimeAsync(900);
    expect(watch.attention).toBeNull();
    // Within a probe interval of the second.
    await vi.advanceTimersByTimeAsync(800);
    expect(watch.attention).toMatchObject({ kind: 'password', prompt: 'Password: ' });
    output('\nCompiling: ');
    await vi.advanceTimersByTimeAsync(5000);
    expect(watch.attention).toBeNull();
  });
});
