import { describe, expect, it } from 'vitest';
import { sessionInfo } from '../testing/lost-records.js';
import { matchSession, type SessionInfo } from '@ptydeck/contract';
import { formatAge, formatTable, listEntry, sessionState } from './session-list.js';

function session(overrides: Partial<SessionInfo>): SessionInfo {
  return sessionInfo({ id: '3f2a1b4c-0000-4000-8000-000000000001', cwd: '/home/dev/project', createdAt: 1_000_000, ...overrides });
}

const workspace = { profile: 'workspace' as const, writable: ['/home/dev/project', '/tmp'], hidden: ['/home/dev/.ssh'], network: true };
const agent = { id: 'conn-1', name: 'claude-code', version: '1', transport: 'http' as const, connectedAt: 0 };

describe('session-list', () => {
  it('maps what a session carries to a state', () => {
    expect(sessionState(session({}))).toBe('running');
    expect(sessionState(session({ attention: { kind: 'confirm', prompt: 'Continue? [y/N] ', since: 1 } }))).toBe('waiting_for_input');
    expect(sessionState(session({ status: 'exited', exitCode: 0 }))).toBe('exited');
    expect(sessionState(session({ shell: { state: 'idle', lastExitCode: 1 } }))).toBe('idle_at_prompt');
    expect(sessionState(session({ shell: { state: 'running', lastExitCode: null } }))).toBe('running');
    expect(listEntry(session({ shell: { state: 'idle', lastExitCode: 1 } }), []).last_exit_code).toBe(1);
  });

  it('says lost for a session an earlier host ran, whatever it last reported, in the table and the JSON', () => {
    // What the restored info may still carry from before the restart must not read as live.
    const lost = session({ status: 'lost', pid: 0, lost: { foundAt: 1, unwrittenBytes: 10 }, shell: { state: 'idle', lastExitCode: 0 } });
    expect(sessionState(lost)).toBe('lost');
    expect(listEntry(lost, [])).toMatchObject({ state: 'lost', pid: 0, exit_code: null });
    expect(formatTable([listEntry(lost, [])], 1_000_000, '/home/dev').split('\n')[1]).toMatch(/^3f2a1b4c\s+user\s+you\s+bash\s+lost\s+-\s+\?\s+~\/project\s+0s$/);
  });

  it('marks a session an earlier host left on disk restored, in the JSON and the table (a lost one says lost)', () => {
    const exited = session({ status: 'exited', exitCode: 0, pid: 0, restored: true });
    const lost = session({ status: 'lost', pid: 0, lost: { foundAt: 1, unwrittenBytes: 0 }, restored: true });
    expect([listEntry(exited, []).restored, listEntry(lost, []).restored, listEntry(session({}), []).restored]).toEqual([true, true, false]);
    const states = (infos: SessionInfo[]) => formatTable(infos.map((info) => listEntry(info, [])), 1_000_000, '/home/dev').split('\n').slice(1, -1).map((row) => row.split(/\s{2,}/)[4]);
    expect(states([exited, lost, session({ status: 'exited', exitCode: 0 })])).toEqual(['exited (0, restored)', 'lost', 'exited (0)']);
  });

  it('names the owner: "you" for your sessions, the agent otherwise', () => {
    expect(listEntry(session({}), []).owner).toBe('you');
    expect(listEntry(session({ source: 'agent', owner: 'conn-1', ownerName: null }), [agent]).owner).toBe('claude-code');
    expect(listEntry(session({ source: 'agent', owner: 'gone', ownerName: 'codex' }), []).owner).toBe('codex');
    expect(listEntry(session({ status: 'exited', exitCode: 2 }), [])).toMatchObject({ state: 'exited', exit_code: 2, pid: 4242 });
  });

  it('prints a table with short ids, ports, ~ for home, ages, and control characters flattened', () => {
    const port = (number: number, address: string) => ({ port: number, address, pid: 7, command: 'node server.js' });
    const entries = [
      listEntry(session({ createdAt: 1_000_000 - 90_000, title: 'evil\x1b]0;x\x07', ports: [port(8080, '0.0.0.0'), port(3000, '127.0.0.1'), port(8080, '::')] }), []),
      listEntry(session({ id: 'abcdef12-ffff', source: 'agent', ownerName: 'codex', status: 'exited', exitCode: 1, cwd: '/tmp', ports: [], sandbox: workspace }), []),
      // What an agent names and its shell prints, C1 controls included (a UTF-8 terminal may take U+009B for CSI).
      listEntry(session({ id: 'c1c1c1c1-0000', source: 'agent', ownerName: 'x\u009b2Jy', title: 't\u009d0;z\u009c', cwd: '/tmp/\u009b31m' }), []),
    ];
    const table = formatTable(entries, 1_000_000 + 5_000, '/home/dev');
    const lines = table.split('\n');
    expect(lines[0]).toMatch(/^ID\s+SOURCE\s+OWNER\s+TITLE\s+STATE\s+SANDBOX\s+PORTS\s+CWD\s+AGE$/);
    expect(lines[1]).toMatch(/^3f2a1b4c\s+user\s+you\s+evil ]0;x \s+running\s+-\s+3000,8080\s+~\/project\s+1m$/);
    expect(lines[2]).toMatch(/^abcdef12\s+agent\s+codex\s+bash\s+exited \(1\)\s+workspace\s+-\s+\/tmp\s+5s$/);
    expect(lines[3]).toMatch(/^c1c1c1c1\s+agent\s+x 2Jy\s+t 0;z \s+running\s+-\s+\?\s+\/tmp\/ 31m\s+/);
    expect(table).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(formatTable([], 0, '/')).toBe('no sessions\n');
    expect([formatAge(59_999), formatAge(3_600_000), formatAge(2 * 86_400_000)]).toEqual(['59s', '1h', '2d']);
  });

  it("carries an agent shell's sandbox: its profile in the table, all of it in the JSON; unsandboxed where the default could not start", () => {
    const offline = { ...workspace, profile: 'workspace-offline' as const, network: false };
    const fellBack = { profile: 'off' as const, writable: [], hidden: [], network: true, unavailable: 'bubblewrap (bwrap) is not installed' };
    const entries = [offline, fellBack, { profile: 'off' as const, writable: [], hidden: [], network: true }].map((sandbox, index) =>
      listEntry(session({ id: `${index}0000000-0000`, source: 'agent', ownerName: 'codex', sandbox }), []),
    );
    expect(entries[0]!.sandbox).toEqual(offline);
    expect(entries[1]!.sandbox).toMatchObject({ profile: 'off', unavailable: expect.stringMatching(/not installed/) });
    expect(listEntry(session({}), []).sandbox).toBeNull();
    const rows = formatTable(entries, 1_000_000, '/home/dev').split('\n');
    expect(rows.slice(1, 4).map((row) => row.split(/\s{2,}/)[5])).toEqual(['workspace-offline', 'unsandboxed', 'off']);
  });

  it('finds a session by id or unique prefix, and lists the candidates of an ambiguous one', () => {
    const a = session({ id: 'abc-1' });
    const b = session({ id: 'abd-2' });
    const exact = session({ id: 'ab' });
    expect(matchSession([a, b], 'abc')).toEqual({ kind: 'found', info: a });
    expect(matchSession([a, b], 'ab')).toEqual({ kind: 'ambiguous', candidates: [a, b] });
    expect(matchSession([a, b, exact], 'ab')).toEqual({ kind: 'found', info: exact });
    expect(matchSession([a, b], 'x')).toEqual({ kind: 'none' });
    expect(matchSession([a, b], '')).toEqual({ kind: 'none' });
  });
});
