import { describe, expect, it } from 'vitest';
import { detectInputPrompt, looksLikeShellPrompt } from './input-prompts.js';

describe('detectInputPrompt', () => {
  it.each([
    ['Continue? [y/N] ', 'confirm'],
    ['Proceed (y/n)? ', 'confirm'],
    ['Are you sure you want to continue connecting (yes/no/[fingerprint])? ', 'confirm'],
    ['[sudo] password for dev: ', 'password'],
    ['Password:', 'password'],
    ['Enter passphrase for key /home/dev/.ssh/id_ed25519: ', 'password'],
    ['line\n(END)', 'pager'],
    ['--More--(42%)', 'pager'],
    ['? Pick a framework ›\n❯ react\n  vue', 'select'],
    ['Python 3.12\n>>> ', 'repl'],
    ['... ', 'repl'],
    ['Welcome to Node.js\n> ', 'repl'],
    ['Press ENTER to continue', 'press_key'],
  ])('recognises %j as %s', (tail, kind) => {
    expect(detectInputPrompt(tail)).toBe(kind);
  });

  it.each(['compiling...\n', 'all 42 tests passed\n', 'root@host:/tmp# ', '', 'password updated successfully\n'])(
    'does not see a prompt in %j',
    (tail) => {
      expect(detectInputPrompt(tail)).toBeNull();
    },
  );
});

describe('looksLikeShellPrompt', () => {
  it('accepts common prompt endings only on the last line', () => {
    expect(looksLikeShellPrompt('out\n$ ')).toBe(true);
    expect(looksLikeShellPrompt('root@h:/# ')).toBe(true);
    expect(looksLikeShellPrompt('$ \nrunning')).toBe(false);
  });
});
