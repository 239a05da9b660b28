// A remote's command timeline in this machine's panel, through real OpenSSH: the remote user's login shell is bash,
// so the remote host gives its tabs ptydeck's marks and records their commands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalServer } from '../host/local-server.js';
import { openSocket } from '../testing/http.js';
import { canRunSshServer, type SshServer } from '../testing/ssh-server.js';
import { startRemoteHost } from '../testing/remote-host.js';

describe.runIf(canRunSshServer())("a remote's timeline in this machine's panel over real OpenSSH", () => {
  let server: SshServer;
  let local: LocalServer;

  beforeAll(async () => {
    ({ server, local } = await startRemoteHost({ shell: '/bin/bash' }));
  }, 60_000);

  afterAll(async () => {
    await local?.close();
    await server?.close();
  }, 30_000);

  async function panel() {
    const opened = await openSocket(local.port, { headers: { Origin: local.url }, protocols: [`ptydeck.token.${local.panelToken}`] });
    if (!('ws' in opened)) throw new Error(`refused ${opened.refused}`);
    return { ws: opened.ws, messages: opened.messages, send: (message: unknown) => opened.ws.send(JSON.stringify(message)) };
  }

  it("a remote's command records reach this panel's timeline tagged with the remote, and its recording (asked here) is exported from there", async () => {
    const p = await panel();
    const own = await p.messages.json((m) => m.type === 'timeline.snapshot');
    expect(own.host).toBeUndefined();
    p.send({ type: 'hosts.watch' });
    await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
    const theirs = await p.messages.json((m) => m.type === 'timeline.snapshot' && m.host === 'box');
    expect(theirs.commands.every((c: { host?: string }) => c.host === 'box')).toBe(true);
    p.send({ type: 'create', requestId: 't1', host: 'box', cols: 80, rows: 24 });
    const { info } = await p.messages.json((m) => m.type === 'created' && m.requestId === 't1');
    p.send({ type: 'input', id: info.id, data: 'echo "timeline-$((6*7))"; (exit 3)\r' });
    const ended = await p.messages.json((m) => m.type === 'timeline.command' && m.command.session === info.id && m.command.status === 'done' && m.command.command?.includes('timeline-'));
    expect(ended.command.host).toBe('box');
    expect(ended.command.exitCode).toBe(3);
    expect(local.service.get(info.id)).toBeUndefined();
    p.send({ type: 'timeline.export', requestId: 'x1', id: info.id, format: 'text' });
    const exported = await p.messages.json((m) => (m.type === 'timeline.exported' || m.type === 'error') && m.requestId === 'x1');
    expect(exported.type, JSON.stringify(exported)).toBe('timeline.exported');
    expect(exported.data).toContain('timeline-42');
    p.send({ type: 'close', id: info.id });
    await p.messages.json((m) => m.type === 'event' && m.event.type === 'pty.removed' && m.event.id === info.id);
    p.ws.close();
  }, 60_000);

});
