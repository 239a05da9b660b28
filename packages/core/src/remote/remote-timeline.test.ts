// A remote's command timeline in this machine's panel, through real OpenSSH: the remote user's login shell is bash,
// so the remote host gives its tabs ptydeck's marks and records their commands.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { packageVersion } from '../common/package-version.js';
import type { LocalServer } from '../host/local-server.js';
import { bin } from '../testing/host-sandbox.js';
import { openSocket } from '../testing/http.js';
import { canRunSshServer, closeSshServers, type SshServer } from '../testing/ssh-server.js';
import { startRemoteHost } from '../testing/remote-host.js';

describe.runIf(canRunSshServer())("a remote's timeline in this machine's panel over real OpenSSH", () => {
  let server: SshServer;
  let local: LocalServer;

  beforeAll(async () => {
    ({ server, local } = await startRemoteHost({ shell: '/bin/bash' }));
  }, 60_000);

  afterAll(async () => {
    try {
      await local?.close();
    } finally {
      // Also the server of a beforeAll that timed out, once its start ends.
      await closeSshServers();
    }
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

  it("a remote's recording reaches the panel with no clipboard write in it, whatever the remote's ptydeck answers", async () => {
    // Anything of the remote user's (a box-side agent's shell) can put this first in the remote's PATH: the real
    // ptydeck behind it, each `timeline.exported` it answers rewritten to carry OSC 52 (split across two events too).
    const osc52 = '\x1b]52;c;cHduZWQ=\x07';
    const cast = [
      JSON.stringify({ version: 3, term: { cols: 80, rows: 24 }, title: 'box' }),
      JSON.stringify([0.1, 'o', `before${osc52}`]),
      JSON.stringify([0.1, 'o', 'mid\x1b]5']),
      JSON.stringify([0.1, 'o', '2;c;cHduZWQ=\x07after\u009d52;c;cHduZWQ=\u009c']),
      JSON.stringify([0.1, 'q', osc52]),
      'not json',
    ].join('\n');
    const answers = { text: `plain${osc52}text\n`, 'asciicast-v3': cast };
    const channel = join(server.home, 'hostile-channel.cjs');
    writeFileSync(
      channel,
      [
        "const { spawn } = require('node:child_process');",
        `const answers = ${JSON.stringify(answers)};`,
        "const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ['inherit', 'pipe', 'inherit'] });",
        'let held = Buffer.alloc(0);',
        "child.stdout.on('data', (chunk) => {",
        '  held = Buffer.concat([held, chunk]);',
        '  while (held.length >= 5 && held.length >= 5 + held.readUInt32BE(1)) {',
        '    const kind = held[0];',
        '    let body = held.subarray(5, 5 + held.readUInt32BE(1));',
        '    held = held.subarray(5 + body.length);',
        '    if (kind === 0) {',
        '      const message = JSON.parse(body.toString());',
        "      if (message.type === 'timeline.exported') body = Buffer.from(JSON.stringify({ ...message, data: answers[message.format] }));",
        '    }',
        '    const head = Buffer.alloc(5);',
        '    head[0] = kind;',
        '    head.writeUInt32BE(body.length, 1);',
        '    process.stdout.write(Buffer.concat([head, body]));',
        '  }',
        '});',
        "child.on('exit', (code) => process.exit(code ?? 1));",
        '',
      ].join('\n'),
    );
    server.install(
      [
        '#!/bin/sh',
        `if [ "$1" = --version ]; then echo "ptydeck ${packageVersion()} (host protocol ${HOST_PROTOCOL_VERSION})"; exit 0; fi`,
        `exec node '${channel}' '${bin}' "$@"`,
        '',
      ].join('\n'),
    );
    const p = await panel();
    try {
      p.send({ type: 'hosts.watch' });
      await p.messages.json((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected');
      p.send({ type: 'create', requestId: 'h1', host: 'box', cols: 80, rows: 24 });
      const { info } = await p.messages.json((m) => m.type === 'created' && m.requestId === 'h1');
      const unsafe = /\x1b\]|\u009d|5\x1b\]|cHduZWQ/;
      p.send({ type: 'timeline.export', requestId: 'h2', id: info.id, format: 'text' });
      const text = await p.messages.json((m) => m.type === 'timeline.exported' && m.requestId === 'h2');
      expect(text.data).toContain('plain');
      expect(text.data).not.toMatch(unsafe);
      p.send({ type: 'timeline.export', requestId: 'h3', id: info.id, format: 'asciicast-v3' });
      const recorded = await p.messages.json((m) => m.type === 'timeline.exported' && m.requestId === 'h3');
      const lines = (recorded.data as string).trimEnd().split('\n');
      expect(JSON.parse(lines[0]!).title).toBe('box');
      const events = lines.slice(1).map((line) => JSON.parse(line) as [number, string, string]);
      // What a player writes to the developer's terminal: the output events, one after the other.
      const played = events.map(([, , data]) => data).join('');
      expect(played).toContain('before');
      expect(played).toContain('after');
      expect(played).not.toMatch(unsafe);
      expect(events.map(([, code]) => code)).toEqual(['o', 'o', 'o']);
      p.send({ type: 'close', id: info.id });
      await p.messages.json((m) => m.type === 'event' && m.event.type === 'pty.removed' && m.event.id === info.id);
    } finally {
      p.ws.close();
      server.install();
    }
  }, 60_000);
});
