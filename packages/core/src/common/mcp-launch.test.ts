import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpLaunchCommand, ptydeckLauncher } from './mcp-launch.js';
import { fileTempDir } from '../testing/isolated-env.js';

const path = process.env['PATH'];
const dirs: string[] = [];

/** An empty PATH directory: the search looks past it. */
function emptyDir(): string {
  const dir = fileTempDir('ptydeck-path-');
  dirs.push(dir);
  return dir;
}

/** A PATH directory holding `ptydeck` as npm install -g leaves it (a link), or someone else's. */
function binDir(ptydeck: 'this launcher' | 'another program'): string {
  const dir = emptyDir();
  if (ptydeck === 'this launcher') symlinkSync(ptydeckLauncher(), join(dir, 'ptydeck'));
  else writeFileSync(join(dir, 'ptydeck'), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

afterEach(() => {
  process.env['PATH'] = path;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the MCP launch command the panel shows', () => {
  it('is `ptydeck mcp` when the ptydeck on PATH is this launcher', () => {
    process.env['PATH'] = [emptyDir(), binDir('this launcher'), path].join(delimiter);
    expect(mcpLaunchCommand()).toEqual({ command: 'ptydeck', args: ['mcp'] });
  });

  it('names this launcher by its path when PATH finds another ptydeck first, or none', () => {
    process.env['PATH'] = [binDir('another program'), binDir('this launcher')].join(delimiter);
    expect(mcpLaunchCommand()).toEqual({ command: 'node', args: [ptydeckLauncher(), 'mcp'] });
    process.env['PATH'] = emptyDir();
    expect(mcpLaunchCommand()).toEqual({ command: 'node', args: [ptydeckLauncher(), 'mcp'] });
  });

  it('looks past node_modules/.bin, which npm scripts put on PATH and an agent would not have', () => {
    const bin = join(emptyDir(), 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(ptydeckLauncher(), join(bin, 'ptydeck'));
    process.env['PATH'] = bin;
    expect(mcpLaunchCommand()).toEqual({ command: 'node', args: [ptydeckLauncher(), 'mcp'] });
  });
});
