import { describe, expect, it } from 'vitest';
import { agentShields, sandboxShield } from './sandbox-shield.js';

const workspace = { profile: 'workspace' as const, writable: ['/home/dev/project', '/tmp', '/home/dev/.npm'], hidden: ['/home/dev/.ssh', '/home/dev/.local/state/ptydeck'], network: true };

describe('a session\'s sandbox shield', () => {
  it('names the profile, and its hover lists writable paths, hidden paths and the network', () => {
    const shield = sandboxShield(workspace)!;
    expect(shield).toMatchObject({ kind: 'workspace', label: 'workspace' });
    expect(shield.title.split('\n')).toEqual([
      'Sandbox: workspace',
      'Writable: /home/dev/project, /tmp, /home/dev/.npm',
      'Hidden: /home/dev/.ssh, /home/dev/.local/state/ptydeck',
      expect.stringMatching(/^Network: on .*loopback/),
    ]);
    expect(sandboxShield({ ...workspace, profile: 'workspace-offline', network: false })!.title).toMatch(/Network: off/);
  });

  it('lists what the shell may only read, though it lies in a writable path (what your git and editor run)', () => {
    const title = sandboxShield({ ...workspace, readOnly: ['/home/dev/project/.git/hooks', '/home/dev/project/.envrc'] })!.title.split('\n');
    expect(title[2]).toBe('Read-only: /home/dev/project/.git/hooks, /home/dev/project/.envrc');
  });

  it('counts the paths the host left out of a long list', () => {
    const title = sandboxShield({ ...workspace, hiddenOmitted: 3, readOnly: ['/home/dev/project/.envrc'], readOnlyOmitted: 1200 })!.title.split('\n');
    expect(title[2]).toBe('Read-only: /home/dev/project/.envrc, and 1200 more');
    expect(title[3]).toBe('Hidden: /home/dev/.ssh, /home/dev/.local/state/ptydeck, and 3 more');
  });

  it('says why the working directory itself is read-only, with what an agent could name drawn escaped', () => {
    const why = '/home/dev/project/.vscode\u202e, or a directory on the way to it, is a symbolic link, which cannot be fenced';
    const title = sandboxShield({ ...workspace, writable: ['/tmp'], readOnly: ['/home/dev/project\u200b'], readOnlyWhy: why })!.title.split('\n');
    expect(title[2]).toBe('Read-only: /home/dev/project\\u200b');
    expect(title[3]).toBe('The working directory is read-only: /home/dev/project/.vscode\\u202e, or a directory on the way to it, is a symbolic link, which cannot be fenced');
  });

  it('says a shell runs unsandboxed when its default sandbox could not start, and why', () => {
    const shield = sandboxShield({ profile: 'off', writable: [], hidden: [], network: true, unavailable: 'bubblewrap (bwrap) is not installed' })!;
    expect(shield.kind).toBe('unsandboxed');
    expect(shield.title).toMatch(/Runs unsandboxed.*bubblewrap \(bwrap\) is not installed/);
  });

  it('marks neither the developer\'s tabs nor an agent run with --sandbox off', () => {
    expect(sandboxShield(undefined)).toBeNull();
    expect(sandboxShield(null)).toBeNull();
    expect(sandboxShield({ profile: 'off', writable: [], hidden: [], network: true })).toBeNull();
  });

  it('an agent card shows each profile its shells run under once', () => {
    const offline = { ...workspace, profile: 'workspace-offline' as const, network: false };
    expect(agentShields([workspace, undefined, offline, workspace]).map((s) => s.kind)).toEqual(['workspace', 'workspace-offline']);
  });
});
