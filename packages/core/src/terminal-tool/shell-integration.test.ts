import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processIdentity } from '../common/process-identity.js';
import { bashRunInput, integrationFor, keepShellIntegration, nonceRunInput, parseShellMark, writeShellIntegration } from './shell-integration.js';

describe('parseShellMark', () => {
  it('parses OSC 133 marks with exit codes', () => {
    expect(parseShellMark('133;A')).toEqual({ kind: 'prompt-start', key: null });
    expect(parseShellMark('133;B;k=abc')).toEqual({ kind: 'prompt-end', key: 'abc' });
    expect(parseShellMark('133;C;k=abc')).toEqual({ kind: 'output-start', key: 'abc' });
    expect(parseShellMark('133;D;130;k=abc')).toEqual({ kind: 'command-done', exitCode: 130, key: 'abc' });
    expect(parseShellMark('133;D;k=abc')).toEqual({ kind: 'command-done', exitCode: null, key: 'abc' });
    expect(parseShellMark('133;D')).toEqual({ kind: 'command-done', exitCode: null, key: null });
    expect(parseShellMark('6973;key;f00d')).toEqual({ kind: 'shell-key', key: 'f00d' });
  });

  it('parses the cwd from OSC 7 (percent-encoded) and 633;P;Cwd', () => {
    expect(parseShellMark('7;file://host/tmp/a%20b')).toEqual({ kind: 'cwd', cwd: '/tmp/a b' });
    expect(parseShellMark('633;P;Cwd=/srv/x')).toEqual({ kind: 'cwd', cwd: '/srv/x' });
  });

  it('parses the nonce done mark and ignores other OSCs', () => {
    expect(parseShellMark('6973;done;3;abcd')).toEqual({ kind: 'nonce-done', nonce: 'abcd', exitCode: 3 });
    expect(parseShellMark('0;my title')).toBeNull();
  });
});

describe('run input', () => {
  it('pastes a bash command as one bracketed unit', () => {
    expect(bashRunInput('a\nb')).toBe('\x1b[200~a\nb\x1b[201~\r');
  });

  it('wraps a fallback run in start and done marks carrying the nonce, never printed literally', () => {
    const input = nonceRunInput('ls', 'n0nce');
    expect(input.trimEnd().endsWith('n0nce')).toBe(true);
    expect(input.startsWith("printf '\\033]6973;start;%s\\007' n0nce;")).toBe(true);
    expect(input).not.toContain('\x1b');
  });

  it('chooses integration by program', () => {
    expect(integrationFor('/bin/bash', true)).toBe('bash');
    expect(integrationFor('/bin/bash', false)).toBe('nonce');
    expect(integrationFor('sh', false)).toBe('nonce');
    expect(integrationFor('python3', false)).toBe('none');
  });
});

describe("the rcfile's directory", () => {
  it('is named for its process, goes with dispose, and is written again when something removed it', () => {
    const files = writeShellIntegration('# one\n');
    expect(basename(dirname(files.bashRcfile))).toMatch(new RegExp(`^ptydeck-shell-${processIdentity().replace(':', '-')}-[A-Za-z0-9]{6}$`));
    expect(keepShellIntegration(files, '# one\n')).toBe(files);
    rmSync(dirname(files.bashRcfile), { recursive: true });
    const again = keepShellIntegration(files, '# one\n');
    expect(readFileSync(again.bashRcfile, 'utf8')).toBe('# one\n');
    again.dispose();
    expect(existsSync(dirname(again.bashRcfile))).toBe(false);
  });
});
