// A local host's panel showing a remote's sessions through real OpenSSH: a test sshd on loopback, the checkout's ptydeck
// installed for a test user there.
import { readdirSync, readFileSync } from 'node:fs';
import type WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeOutputFrame } from '@ptydeck/contract';
import type { LocalServer } from '../host/local-server.js';
import { MessageQueue, openSocket } from '../testing/http.js';
import { until } from '../testing/poll-until.js';
import { canRunSshServer, closeSshServers, type SshServer } from '../testing/ssh-server.js';
import { startRemoteHost } from '../testing/remote-host.js';

/** A panel socket that acknowledges every frame and checks each stream's cursors: a gap or a repeat throws. */
class Panel {
  readonly text = new Map<string, string>();
  readonly next = new Map<string, number>();
  readonly resyncs = new Map<string, number>();
  readonly problems: string[] = [];
  constructor(
    readonly ws: WebSocket,
    readonly messages: MessageQueue,
  ) {
    ws.on('message', (data, binary) => {
      if (binary) {
        const frame = decodeOutputFrame(new Uint8Array(data as Buffer));
        const expected = this.next.get(frame.id);
        if (expected !== undefined && frame.cursor !== expected) this.problems.push(`${frame.id}: frame at ${frame.cursor}, expected ${expected}`);
        this.text.set(frame.id, (this.text.get(frame.id) ?? '') + Buffer.from(frame.data).toString('utf8'));
        this.next.set(frame.id, frame.cursor + frame.data.length);
        this.send({ type: 'ack', id: frame.id, cursor: frame.cursor + frame.data.length });
        return;
      }
      const message = JSON.parse(data.toString());
      if (message.type === 'resync') {
        this.text.set(message.id, message.screen);
        this.next.set(message.id, message.cursor);
        this.resyncs.set(message.id, (this.resyncs.get(message.id) ?? 0) + 1);
      }
    });
  }
  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }
}

describe.runIf(canRunSshServer())("a panel of this machine's host showing a remote over real OpenSSH", () => {
  let server: SshServer;
  let local: LocalServer;

  beforeAll(async () => {
    ({ server, local } = await startRemoteHost());
  }, 60_000);

  afterAll(async () => {
    try {
      await local?.close();
    } finally {
      // Also the server of a beforeAll that timed out, once its start ends.
      await closeSshServers();
    }
  }, 30_000);

  async function panel(): Promise<Panel> {
    const opened = await openSocket(local.port, { headers: { Origin: local.url }, protocols: [`ptydeck.token.${local.panelToken}`] });
    if (!('ws' in opened)) throw new Error(`refused ${opened.refused}`);
    return new Panel(opened.ws, opened.messages);
  }

  it('opens a tab on the remote, types into it, and a CLI-like panel that never asks opens no ssh', async () => {
    const quiet = await panel();
    await quiet.messages.json((m) => m.type === 'snapshot');
    const p = await panel();
    p.send({ type: 'hosts.watch' });
    await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
    expect(sshChildren().length).toBe(1);
    // A second panel's channel is a session of the first one's connection, not a connection of its own.
    const connections = server.connections();
    const second = await panel();
    second.send({ type: 'hosts.watch' });
    await second.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
    expect(server.connections()).toBe(connections);
    second.ws.close();
    p.send({ type: 'create', requestId: 'r1', host: 'box', cols: 80, rows: 24 });
    const created = await p.messages.json((m) => m.type === 'created' && m.requestId === 'r1');
    expect(created.info.host).toBe('box');
    expect(created.info.cwd).toBe(server.home);
    expect(local.service.get(created.info.id)).toBeUndefined();
    p.send({ type: 'attach', id: created.info.id, cursor: null });
    p.send({ type: 'input', id: created.info.id, data: 'echo "remote-$((6*7)) $(id -un)"\r' });
    await until(() => (p.text.get(created.info.id) ?? '').includes(`remote-42 ${server.user}`), 'the remote shell echoes');
    quiet.ws.close();
    p.ws.close();
    await until(() => sshChildren().length === 0, 'the panel gone, its ssh ends');
  }, 60_000);

  it("a remote port chip is forwarded through the remote's one ssh connection (no new one), and undone with its session", async () => {
    const p = await panel();
    p.send({ type: 'hosts.watch' });
    await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
    p.send({ type: 'create', requestId: 'w1', host: 'box', cols: 80, rows: 24 });
    const { info } = await p.messages.json((m) => m.type === 'created' && m.requestId === 'w1');
    p.send({ type: 'input', id: info.id, data: 'mkdir -p site && echo served-on-box > site/index.html && cd site && exec python3 -m http.server 0 --bind 127.0.0.1\r' });
    const listening = await p.messages.json((m) => m.type === 'event' && m.event.info?.id === info.id && (m.event.info.ports?.length ?? 0) > 0);
    const port = listening.event.info.ports[0].port as number;
    const connections = server.connections();
    p.send({ type: 'port.forward', requestId: 'pf', id: info.id, port });
    const forwarded = await p.messages.json((m) => (m.type === 'port.forwarded' || m.type === 'error') && m.requestId === 'pf');
    expect(forwarded.type, JSON.stringify(forwarded)).toBe('port.forwarded');
    expect(await (await fetch(forwarded.url)).text()).toContain('served-on-box');
    expect(server.connections()).toBe(connections);
    p.send({ type: 'close', id: info.id });
    const local = Number(new URL(forwarded.url).port);
    // No event says the master let the port go: the port is tried until it refuses.
    for (const deadline = Date.now() + 20_000; await fetch(`http://127.0.0.1:${local}/`).then(() => true, () => false); ) {
      expect(Date.now(), 'the forward is cancelled with its session').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    p.ws.close();
  }, 60_000);

  it("a panel that reconnects to this machine's host resumes a remote stream from its cursor (asked before the remote's link is up): no resync, no byte lost or repeated", async () => {
    const first = await panel();
    first.send({ type: 'hosts.watch' });
    await first.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
    first.send({ type: 'create', requestId: 'c1', host: 'box', cols: 80, rows: 24 });
    const { info } = await first.messages.json((m) => m.type === 'created' && m.requestId === 'c1');
    first.send({ type: 'attach', id: info.id, cursor: null });
    await until(() => (first.resyncs.get(info.id) ?? 0) === 1, 'the first screen');
    // Typed before the shell's prompt, the line is echoed by the terminal ahead of it and "line 1" lands after the prompt.
    await until(() => (first.text.get(info.id) ?? '').includes('$ '), 'the prompt');
    first.send({ type: 'input', id: info.id, data: 'for i in $(seq 1 3000); do echo "line $i"; [ $((i % 300)) = 0 ] && sleep 0.05; done; echo loop-done\r' });
    await until(() => /^line 600\r?$/m.test(first.text.get(info.id) ?? ''), 'mid-loop');
    // The panel's socket drops; what it had applied is its cursor.
    first.ws.terminate();
    const cursor = first.next.get(info.id)!;
    const again = await panel();
    await again.messages.json((m) => m.type === 'snapshot');
    again.next.set(info.id, cursor);
    // As the app does on a reconnect: hosts.watch, then each stream from its cursor, at once.
    again.send({ type: 'hosts.watch' });
    again.send({ type: 'attach', id: info.id, cursor });
    await until(() => /^loop-done\r?$/m.test(again.text.get(info.id) ?? ''), 'the loop ends', 60_000);
    expect(again.problems).toEqual([]);
    expect(again.resyncs.get(info.id)).toBeUndefined();
    const text = (first.text.get(info.id) ?? '') + (again.text.get(info.id) ?? '');
    const numbers = [...text.matchAll(/^line (\d+)\r?$/gm)].map((m) => Number(m[1]));
    expect(numbers).toHaveLength(3000);
    expect(numbers.every((n, i) => n === i + 1)).toBe(true);
    again.ws.close();
  }, 90_000);

  it("a remote session's leftovers show in this panel, tagged with the remote, and ending them reaches the remote", async () => {
    const p = await panel();
    p.send({ type: 'hosts.watch' });
    await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
    p.send({ type: 'create', requestId: 'l1', host: 'box', cols: 80, rows: 24 });
    const { info } = await p.messages.json((m) => m.type === 'created' && m.requestId === 'l1');
    p.send({ type: 'input', id: info.id, data: 'nohup sleep 300 >/dev/null 2>&1 & exit\r' });
    const left = await p.messages.json((m) => m.type === 'processes.leftovers' && m.host === 'box' && m.sessions.some((s: { id: string }) => s.id === info.id));
    const session = left.sessions.find((s: { id: string }) => s.id === info.id);
    expect(session.host).toBe('box');
    const sleeper = session.processes.find((proc: { command: string }) => proc.command.includes('sleep'));
    expect(sleeper).toBeDefined();
    // Closed there: no longer a session of the remote's, yet its leftover is still the remote's to end.
    p.send({ type: 'close', id: info.id });
    await p.messages.json((m) => m.type === 'event' && m.event.type === 'pty.removed' && m.event.id === info.id);
    p.send({ type: 'processes.end', requestId: 'end1', id: info.id, pids: [sleeper.pid] });
    const ended = await p.messages.json((m) => (m.type === 'processes.ended' || m.type === 'error') && m.requestId === 'end1');
    expect(ended.type, JSON.stringify(ended)).toBe('processes.ended');
    expect(ended.ended.map((proc: { pid: number }) => proc.pid)).toContain(sleeper.pid);
    p.ws.close();
  }, 60_000);

  it('SIGKILL of ssh mid-flood: the remote session lives on, the panel hears "reconnecting to box", and its stream resumes from its cursor: every byte once', async () => {
    const p = await panel();
    p.send({ type: 'hosts.watch' });
    await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
    p.send({ type: 'create', requestId: 'f1', host: 'box', cols: 80, rows: 24 });
    const { info } = await p.messages.json((m) => m.type === 'created' && m.requestId === 'f1');
    p.send({ type: 'attach', id: info.id, cursor: null });
    await until(() => (p.resyncs.get(info.id) ?? 0) === 1, 'the first screen');
    // Typed before the shell's prompt, the line is echoed by the terminal ahead of it and "line 1" lands after the prompt.
    await until(() => (p.text.get(info.id) ?? '').includes('$ '), 'the prompt');
    p.send({ type: 'input', id: info.id, data: 'for i in $(seq 1 20000); do echo "line $i"; [ $((i % 500)) = 0 ] && sleep 0.05; done; echo flood-done\r' });
    await until(() => /^line 2000\r?$/m.test(p.text.get(info.id) ?? ''), 'mid-flood');
    const [ssh] = sshChildren();
    process.kill(ssh!, 'SIGKILL');
    const from = p.messages.all.length;
    const down = await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'reconnecting', from);
    expect(down.hosts[0].detail).toMatch(/reconnecting to box/);
    await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected', from);
    await until(() => /^flood-done\r?$/m.test(p.text.get(info.id) ?? ''), 'the flood ends', 60_000);
    expect(p.problems).toEqual([]);
    expect(p.resyncs.get(info.id)).toBe(1);
    const numbers = [...(p.text.get(info.id) ?? '').matchAll(/^line (\d+)\r?$/gm)].map((m) => Number(m[1]));
    const missing = [...Array(20000).keys()].map((i) => i + 1).filter((n) => !numbers.includes(n));
    const text = p.text.get(info.id) ?? '';
    const near = missing.length === 0 ? '' : JSON.stringify(text.slice(Math.max(0, text.indexOf(`line ${missing[0]! - 1}\r`) - 200), text.indexOf(`line ${missing[0]! - 1}\r`) + 300));
    expect(missing, `around the first missing line: ${near}`).toEqual([]);
    expect(numbers).toHaveLength(20000);
    expect(numbers.every((n, i) => n === i + 1)).toBe(true);
    p.ws.close();
  }, 120_000);
});

/** The ssh processes this test process started (the panels' links). */
function sshChildren(): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const match = /^\d+ \((.*)\) \S+ (\d+)/s.exec(readFileSync(`/proc/${name}/stat`, 'latin1'));
      if (match?.[1] === 'ssh' && Number(match[2]) === process.pid) found.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return found;
}
