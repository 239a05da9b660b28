import { afterEach, describe, expect, it } from 'vitest';
import { PatternMatcher, PatternTooCostlyError } from './pattern-matcher.js';
import { runsInLinearTime } from './pattern-safety.js';

/**
 * Which patterns may run on the loop, and the matching thread that runs the
 * rest: a match past its budget is stopped with the thread, the next match
 * gets a new one, and a match nobody wants any more is dropped.
 */

describe('runsInLinearTime', () => {
  it.each([
    ['Listening on port', true],
    ['error|fail|ready', true],
    ['^ready$', true],
    ['(?:Compiled) successfully', true],
    ['[*+?{|(]', true],
    ['\\d\\d\\d\\d', true],
    ['\\*\\+', true],
    ['(?<name>ok)', true],
    ['port \\d+', false],
    ['Server.*ready', false],
    ['colou?r', false],
    ['a{2,}', false],
    ['(a|a)(a|a)', false],
    ['^(a+)+$', false],
    ['(a)\\1', false],
    ['(?<x>a)\\k<x>', false],
    ['\\u{61}', false],
    ['[unclosed', false],
    ['unbalanced)', false],
  ])('%s: %s', (source, linear) => {
    expect(runsInLinearTime(source)).toBe(linear);
  });
});

describe('PatternMatcher', () => {
  let matcher: PatternMatcher;
  afterEach(() => matcher.dispose());

  it('matches off the loop, stops a match past its budget, and matches again in a new thread', async () => {
    matcher = new PatternMatcher();
    expect(await matcher.match(/ready on port \d+/m, 'x\nready on port 8080\n', 5000)).toBe('ready on port 8080');
    const slow = matcher.match(/^(a+)+$/m, `${'a'.repeat(40)}b`, 200);
    // Queued behind it, and matched once the thread is replaced.
    const next = matcher.match(/(\d+) ms/m, 'took 12 ms', 5000);
    await expect(slow).rejects.toBeInstanceOf(PatternTooCostlyError);
    expect(await next).toBe('12 ms');
    expect(await matcher.match(/nothing.*here/m, 'not in it', 5000)).toBeNull();
  });

  it('drops a queued match and stops a running one once its signal aborts', async () => {
    matcher = new PatternMatcher();
    const running = new AbortController();
    const queued = new AbortController();
    const first = matcher.match(/^(a+)+$/m, `${'a'.repeat(40)}b`, 60_000, running.signal);
    const second = matcher.match(/^(a+)+$/m, `${'a'.repeat(40)}b`, 60_000, queued.signal);
    queued.abort(new Error('not wanted'));
    await expect(second).rejects.toThrow('not wanted');
    running.abort(new Error('refused'));
    await expect(first).rejects.toThrow('refused');
    expect(await matcher.match(/b+$/m, 'abb', 5000)).toBe('bb');
  });
});
