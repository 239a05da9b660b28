import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForExit, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/http-core.js';
import { MessageQueue, openSocket } from '../testing/http.js';

/**
 * The panel's process messages over a real WebSocket: leftovers pushed to a
 * panel, a session's processes on request, and ending only what a session
 * owns. The watch looks only while a panel is connected.
 */

let service: PtyService;
let core: TestHttpServer;

beforeAll(async () => {
  service = createPtyService({ env: isolatedEnv() });
  core = await startTestHttpServer({ service, writeDiscovery: false, appDir: '/nonexistent', processWatch: { intervalMs: 50 } });
});

afterAll(async () => {
  await core.close();
  await service.dispose();
});

async function openPanel(): Promise<{ ws: WebSocket; messages: MessageQueue; send(message: unknown): void }> {
  const result = await openSocket(core.port, { headers: { Origin: core.url }, protocols: [`ptydeck.token.${core.panelToken}`] });
  if (!('ws' in result)) throw new Error(`refused ${result.refused}`);
  const { ws, messages } = result;
  return { ws, messages, send: (message) => ws.send(JSON.stringify(message)) };
}

function closed(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    ws.once('close', () => resolve());
    ws.close();
  });
}

describe.runIf(process.platform === 'linux')('process messages on the panel socket', () => {
  it('looks only with a panel connected, lists, and ends only what the session owns', async () => {
    const { id, pid: shellPid } = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'] });
    service.write(id, 'nohup sleep 985 >/dev/null 2>&1 & echo started-$!\r');
    const sleeper = Number(/started-(\d+)/.exec(await waitForOutput(service, id, /started-\d+/))![1]);
    // No panel yet: the watch has not looked once.
    expect(core.processes.stats).toEqual({ looks: 0, scans: 0 });

    const panel = await openPanel();
    await panel.messages.json((m) => m.type === 'processes.leftovers');
    panel.send({ type: 'processes.query', requestId: 'q1', id });
    const list = await panel.messages.json((m) => m.requestId === 'q1');
    expect(list.type).toBe('processes.list');
    expect(list.processes.map((proc: { pid: number }) => proc.pid)).toEqual(expect.arrayContaining([shellPid, sleeper]));

    service.write(id, 'exit\r');
    await waitForExit(service, id);
    const leftovers = await panel.messages.json((m) => m.type === 'processes.leftovers' && m.sessions.some((session: { id: string }) => session.id === id));
    // Other tests' sessions on this machine may be listed too (by the id in their environment): this test looks at its own.
    expect(leftovers.sessions.find((session: { id: string }) => session.id === id).processes).toEqual([expect.objectContaining({ pid: sleeper, command: 'sleep 985' })]);

    // A pid from the page is checked against the session's processes now: the test runner's is not the session's.
    panel.send({ type: 'processes.end', requestId: 'e1', id, pids: [process.pid, sleeper] });
    const ended = await panel.messages.json((m) => m.requestId === 'e1');
    expect(ended).toMatchObject({ type: 'processes.ended', id, ended: [{ pid: sleeper, command: 'sleep 985' }], notEnded: [], refused: [process.pid] });
    await panel.messages.json((m) => m.type === 'processes.leftovers' && !m.sessions.some((session: { id: string }) => session.id === id));

    panel.send({ type: 'processes.query', requestId: 'q2', id: 'no-such-session' });
    expect(await panel.messages.json((m) => m.requestId === 'q2')).toMatchObject({ type: 'error', code: 'no_such_session' });

    await closed(panel.ws);
  });
});
