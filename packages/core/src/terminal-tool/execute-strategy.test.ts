import { describe, expect, it } from 'vitest';
import { CommandTracker } from './command-tracker.js';
import { NonceStrategy, ShellMarksStrategy, type ExecuteStrategy } from './execute-strategy.js';

/**
 * Each strategy answers what the tool once asked by testing its kind: the
 * tool picks one per session and asks it, never which one it is.
 */
describe('execute strategies', () => {
  it('with marks: follows the shell, keeps its own exit line out of the output, and falls back to nonce runs', () => {
    const marks: ExecuteStrategy = new ShellMarksStrategy();
    const tracker = new CommandTracker();
    expect(marks.starting(tracker)).toBe(true);
    expect(marks.shellActivity(tracker)).toBeNull();
    expect(marks.outputOfShellExit('bye\nexit\n')).toBe('bye\n');
    expect(marks.idleByLook(tracker, () => '$ ')).toBe(false);
    expect(marks.fallBack()).toBeInstanceOf(NonceStrategy);
  });

  it('with nonces: claims nothing of the shell, recognises its prompt by its look, and has nothing to fall back to', () => {
    const nonce: ExecuteStrategy = new NonceStrategy();
    const tracker = new CommandTracker();
    expect(nonce.starting(tracker)).toBe(false);
    expect(nonce.shellActivity(tracker)).toBeNull();
    expect(nonce.outputOfShellExit('bye\nexit\n')).toBe('bye\nexit\n');
    expect(nonce.idleByLook(tracker, () => 'user@host:~$ ')).toBe(true);
    expect(nonce.idleByLook(tracker, () => 'compiling...')).toBe(false);
    expect(nonce.fallBack()).toBe(nonce);
  });
});
