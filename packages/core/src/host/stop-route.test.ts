import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionInfo } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/http-core.js';
import type { PeerVerdict } from '../common/peer-process.js';
import { STOP_PATH } from '../common/stop-protocol.js';
import { stopRoute } from './stop-route.js';
import { fileTempDir } from '../testing/isolated-env.js';

/** The route through the real HTTP core; the sessions are plain records and the asker's verdict is chosen per test. */
const idleService = { list: () => [], get: () => undefined, on: () => () => {} } as unknown as PtyService;

function session(id: string, source: 'agent' | 'user', status: 'running' | 'exited' = 'running'): SessionInfo {
  return { id, source, status, ownerName: source === 'agent' ? 'claude-code' : null, command: 'sleep' } as SessionInfo;
}

let core: TestHttpServer | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

async function serve(verdict: PeerVerdict, sessions: SessionInfo[], chats = 1) {
  const stops: string[] = [];
  const announced: number[] = [];
  core = await startTestHttpServer({
    service: idleService,
    stateDir: fileTempDir('ptydeck-stop-'),
    writeDiscovery: false,
    appDir: '/nonexistent',
    judgePeer: () => verdict,
    route: stopRoute({ sessions: () => sessions, chatCount: () => chats, announceStop: () => announced.push(Date.now()) && 3, onStop: (how) => stops.push(how) }),
  });
  const url = core.url;
  const post = async (query = '', headers: Record<string, string> = {}) => {
    const response = await fetch(`${url}${STOP_PATH}${query}`, { method: 'POST', headers });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { post, stops, announced, url };
}

describe('POST /stop', () => {
  it('is refused to a process inside a session, to a system that cannot name the asker, and to web pages', async () => {
    const inside = await serve({ kind: 'refused', reason: 'the asker runs inside session abc' }, []);
    expect(await inside.post()).toEqual({ status: 403, body: { error: expect.stringMatching(/^refused: the asker runs inside session abc\. Only a process outside/) } });
    expect(await inside.post('', { Origin: inside.url })).toMatchObject({ status: 403 });
    await core!.close();
    const unknown = await serve({ kind: 'unknown', reason: 'no /proc' }, []);
    expect(await unknown.post('?force=1')).toMatchObject({ status: 403, body: { error: expect.stringContaining('cannot tell who is asking') } });
    expect(unknown.stops).toEqual([]);
  });

  it("lists agents' running sessions instead of ending them, unless forced; then answers how many end and stops", async () => {
    const sessions = [session('a1', 'agent'), session('u1', 'user'), session('a2', 'agent', 'exited')];
    const host = await serve({ kind: 'outside', pids: [1] }, sessions);
    expect(await host.post()).toEqual({
      status: 409,
      body: { error: '1 agent session running; stop with --force to end them too', agentSessions: [{ id: 'a1', ownerName: 'claude-code', command: 'sleep' }] },
    });
    expect(host.stops).toEqual([]);
    // How a newer client retires an older host: only when nothing runs in it.
    expect(await host.post('?ifIdle=1&force=1')).toEqual({ status: 409, body: { error: 'not idle: 2 running sessions, 1 chat' } });
    expect(host.stops).toEqual([]);
    expect(host.announced).toEqual([]);
    expect(await host.post('?force=1')).toEqual({ status: 200, body: { stopping: true, pid: process.pid, sessions: 2, chats: 1, agents: 3 } });
    // The developer's stop: the host leaves no session to the next one.
    expect(host.stops).toEqual(['stop']);
    // The agents' bridges were told once, before the host goes.
    expect(host.announced).toHaveLength(1);
  });

  it('tells no bridge when an idle older host is retired for a newer one: they are to join that one', async () => {
    const host = await serve({ kind: 'outside', pids: [1] }, [], 0);
    expect(await host.post('?ifIdle=1')).toMatchObject({ status: 200, body: { stopping: true, agents: 0 } });
    // Not the developer's stop: the newer host is to bring back what this one kept (an upgrade).
    expect(host.stops).toEqual(['retire']);
    expect(host.announced).toEqual([]);
  });

  it('stops without --force when only the developer\'s sessions run', async () => {
    const host = await serve({ kind: 'outside', pids: [1] }, [session('u1', 'user')]);
    expect(await host.post()).toMatchObject({ status: 200, body: { sessions: 1 } });
    expect(host.stops).toEqual(['stop']);
  });
});
