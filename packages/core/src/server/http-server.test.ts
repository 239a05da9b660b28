import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { SessionLabels } from '../pty/session-labels.js';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ASKER_PID_HEADER, HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { newChallenge, PROOF_HEADER, proofHolds } from '../common/server-proof.js';
import { requestJson } from '../client/host-request.js';
import { openWebSocket, UpgradeRefused, type ClientWebSocket } from '../client/web-socket.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/http-core.js';
import { lookEarlyFromProc, type EarlyLook, type EarlyLooker, type PeerJudge } from '../common/peer-process.js';
import { sameTurnStatTable } from '../proc/proc-fs.js';
import { connect } from 'node:net';
import { until } from '../testing/poll-until.js';
import { exchangeTicket, openSocket, rawRequest, ticketOf } from '../testing/http.js';
import { fileTempDir } from '../testing/isolated-env.js';

/** A PID namespace of its own (and a user namespace, so no root is needed), as a container sharing the user or `unshare -p` gives one. */
const UNSHARE_PID = ['--user', '--map-current-user', '--pid', '--fork', '--kill-child'];
const unshareWorks = process.platform === 'linux' && spawnSync('unshare', [...UNSHARE_PID, 'true']).status === 0;

/**
 * These tests exercise the HTTP boundary alone, so the PTY service is a
 * recorder: any call that would spawn or touch a session is counted, and the
 * refusal tests assert that count stays at zero.
 */
function recordingService(): PtyService & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => () => {
    calls.push(name);
    throw new Error(`${name} must not be reached`);
  };
  return {
    calls,
    create: record('create'),
    write: record('write'),
    resize: record('resize'),
    kill: record('kill'),
    remove: record('remove'),
    read: record('read'),
    get: () => undefined,
    list: () => [],
    on: () => () => {},
    // Read by the panel's process watch, which looks once as a panel connects.
    labels: new SessionLabels(),
    dispose: async () => {},
  } as unknown as PtyService & { calls: string[] };
}

let stateDir: string;
let appDir: string;
let core: TestHttpServer;
let service: ReturnType<typeof recordingService>;

beforeEach(async () => {
  const root = fileTempDir('ptydeck-core-');
  stateDir = join(root, 'state');
  appDir = join(root, 'app');
  mkdirSync(join(appDir, 'assets'), { recursive: true });
  writeFileSync(join(appDir, 'index.html'), '<!doctype html><title>ptydeck</title>');
  writeFileSync(join(appDir, 'assets', 'main.js'), 'console.log(1)');
  writeFileSync(join(appDir, 'assets', 'style.css'), 'body{}');
  writeFileSync(join(root, 'secret.txt'), 'outside');
  symlinkSync(join(root, 'secret.txt'), join(appDir, 'link.txt'));
  service = recordingService();
  core = await startTestHttpServer({ service, stateDir, appDir });
});

afterEach(async () => {
  await core.close();
});

describe('discovery file', () => {
  it('is written 0600 with url, token, pid, instance and the host protocol, and removed on close', async () => {
    const file = join(stateDir, 'server.json');
    expect(core.discoveryFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(file, 'utf8'));
    // The agent token only: the panel token is never written anywhere.
    expect(record).toEqual({ url: core.url, token: core.agentToken, pid: process.pid, instance: core.instance, protocol: HOST_PROTOCOL_VERSION });
    expect(readFileSync(file, 'utf8')).not.toContain(core.panelToken);
    await core.close();
    expect(existsSync(file)).toBe(false);
  });
});

describe('tokens', () => {
  it('are two different 256-bit base64url secrets, and the url is loopback', () => {
    expect(Buffer.from(core.agentToken, 'base64url')).toHaveLength(32);
    expect(Buffer.from(core.panelToken, 'base64url')).toHaveLength(32);
    expect(core.panelToken).not.toBe(core.agentToken);
    expect(core.url).toBe(`http://127.0.0.1:${core.port}`);
  });
});

describe('/mcp refuses without the right token, Origin and Host', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } },
  });
  const post = (headers: Record<string, string>) =>
    rawRequest(core.port, '/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    });

  it('no token => 401', async () => {
    expect((await post({})).status).toBe(401);
  });
  it('wrong token => 401', async () => {
    expect((await post({ Authorization: `Bearer ${core.agentToken.slice(0, -2)}xx` })).status).toBe(401);
    expect((await post({ Authorization: `Basic ${core.agentToken}` })).status).toBe(401);
  });
  it('foreign Origin => 403 even with the token', async () => {
    const res = await post({ Authorization: `Bearer ${core.agentToken}`, Origin: 'http://evil.example' });
    expect(res.status).toBe(403);
  });
  it('another localhost port as Origin => 403', async () => {
    const res = await post({ Authorization: `Bearer ${core.agentToken}`, Origin: `http://127.0.0.1:${core.port + 1}` });
    expect(res.status).toBe(403);
  });
  it('Origin: null => 403', async () => {
    expect((await post({ Authorization: `Bearer ${core.agentToken}`, Origin: 'null' })).status).toBe(403);
  });
  it('rebinding Host => 403', async () => {
    const res = await post({ Authorization: `Bearer ${core.agentToken}`, Host: `attacker.example:${core.port}` });
    expect(res.status).toBe(403);
    const wrongPort = await post({ Authorization: `Bearer ${core.agentToken}`, Host: `127.0.0.1:${core.port + 1}` });
    expect(wrongPort.status).toBe(403);
  });
  it('the panel token is no MCP bearer => 401', async () => {
    expect((await post({ Authorization: `Bearer ${core.panelToken}` })).status).toBe(401);
  });
  it('the right token from the right origin reaches MCP (503 here: no MCP factory given)', async () => {
    const res = await post({ Authorization: `Bearer ${core.agentToken}`, Origin: `http://localhost:${core.port}` });
    expect(res.status).toBe(503);
    expect(service.calls).toEqual([]);
  });
});

describe('panel WebSocket refuses without auth, Origin and Host', () => {
  const origin = () => `http://127.0.0.1:${core.port}`;
  it('no token => 401', async () => {
    expect(await openSocket(core.port, { headers: { Origin: origin() } })).toEqual({ refused: 401 });
  });
  it('wrong token => 401', async () => {
    const result = await openSocket(core.port, { headers: { Origin: origin() }, protocols: ['ptydeck.token.nope'] });
    expect(result).toEqual({ refused: 401 });
  });
  it('the agent token (the one in server.json) => 401', async () => {
    const result = await openSocket(core.port, { headers: { Origin: origin() }, protocols: ['ptydeck.v1', `ptydeck.token.${core.agentToken}`] });
    expect(result).toEqual({ refused: 401 });
    expect(service.calls).toEqual([]);
  });
  it('foreign Origin, Origin null and rebinding Host => 403 even with the token', async () => {
    const protocols = [`ptydeck.token.${core.panelToken}`];
    expect(await openSocket(core.port, { headers: { Origin: 'http://evil.example' }, protocols })).toEqual({ refused: 403 });
    expect(await openSocket(core.port, { headers: { Origin: 'null' }, protocols })).toEqual({ refused: 403 });
    expect(
      await openSocket(core.port, { headers: { Origin: `http://attacker.example:${core.port}`, Host: `attacker.example:${core.port}` }, protocols }),
    ).toEqual({ refused: 403 });
    expect(service.calls).toEqual([]);
  });
  it('the token subprotocol opens it and a snapshot arrives; the token is not echoed when ptydeck.v1 is offered', async () => {
    const result = await openSocket(core.port, {
      headers: { Origin: origin() },
      protocols: ['ptydeck.v1', `ptydeck.token.${core.panelToken}`],
    });
    if (!('ws' in result)) throw new Error(`refused ${result.refused}`);
    expect(result.ws.protocol).toBe('ptydeck.v1');
    expect(await result.messages.json()).toEqual({
      type: 'snapshot',
      sessions: [],
      agents: [],
      instance: core.instance,
      mcpLaunch: { command: 'node', args: [expect.stringMatching(/bin\/ptydeck\.js$/), 'mcp'] },
      // What `ptydeck status` shows: this host's own facts, over the authenticated panel socket.
      host: { pid: process.pid, protocol: expect.any(Number), startedAt: expect.any(Number), stateDir: expect.any(String), version: expect.any(String) },
    });
    result.ws.close();
  });
});

describe('ticket exchange', () => {
  it('puts the ticket in the fragment, and trades it once, for the panel token, with no cookie', async () => {
    const link = new URL(core.panelUrl());
    expect(link.origin).toBe(core.url);
    expect(link.pathname).toBe('/');
    expect(link.search).toBe('');
    expect(ticketOf(link.href)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const first = await exchangeTicket(link.href);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['set-cookie']).toBeUndefined();
    expect(JSON.parse(first.body)).toEqual({ token: core.panelToken });
    const again = await exchangeTicket(link.href);
    expect(again.status).toBe(403);
    // Why; the page that traded it says what to do (`ptydeck url`: e2e/credentials.spec.ts).
    expect(JSON.parse(again.body).error).toMatch(/already used: each link works once/);

    const result = await openSocket(core.port, { headers: { Origin: core.url }, protocols: ['ptydeck.v1', `ptydeck.token.${JSON.parse(first.body).token}`] });
    expect('ws' in result).toBe(true);
    if ('ws' in result) result.ws.close();
  });
  it('trades only for a page of this origin: Origin required, foreign refused, JSON POST only', async () => {
    const noOrigin = core.panelUrl();
    const body = JSON.stringify({ ticket: ticketOf(noOrigin) });
    const withoutOrigin = await rawRequest(core.port, '/ticket/exchange', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(withoutOrigin.status).toBe(403);
    expect((await exchangeTicket(noOrigin, { Origin: `http://127.0.0.1:${core.port + 1}` })).status).toBe(403);
    expect((await exchangeTicket(noOrigin, { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await rawRequest(core.port, '/ticket/exchange', { headers: { Origin: core.url } })).status).toBe(405);
    // None of those spent the ticket.
    expect((await exchangeTicket(noOrigin)).status).toBe(200);
  });
  it('the old query-string ticket sets no cookie: / is the static page', async () => {
    const res = await rawRequest(core.port, `/?ticket=${ticketOf(core.panelUrl())}`);
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toBeUndefined();
  });
  it('tells a page whether its panel token opens the panel socket at /panel/access, and nothing else does', async () => {
    expect((await rawRequest(core.port, '/panel/access')).status).toBe(401);
    expect((await rawRequest(core.port, '/panel/access', { headers: { Cookie: 'ptydeck_session=forged' } })).status).toBe(401);
    expect((await rawRequest(core.port, '/panel/access', { headers: { Authorization: `Bearer ${core.agentToken}` } })).status).toBe(401);
    expect((await rawRequest(core.port, '/panel/access', { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
    const allowed = await rawRequest(core.port, '/panel/access', { headers: { Authorization: `Bearer ${core.panelToken}` } });
    expect(allowed.status).toBe(204);
    expect(allowed.headers['cache-control']).toBe('no-store');
  });

  it('proves it knows the agent token to a challenge, without sending it (for ptydeck mcp)', async () => {
    const challenge = newChallenge();
    const answer = await rawRequest(core.port, `/proof?challenge=${challenge}`);
    expect(answer.status).toBe(200);
    expect(proofHolds(core.agentToken, challenge, JSON.parse(answer.body).proof)).toBe(true);
    expect(answer.body).not.toContain(core.agentToken);
    expect((await rawRequest(core.port, '/proof?challenge=short')).status).toBe(400);
  });

  it('refuses a forged ticket', async () => {
    expect((await exchangeTicket(`${core.url}/#ticket=forged`)).status).toBe(403);
  });
  it('expires', async () => {
    const short = await startTestHttpServer({ service, writeDiscovery: false, appDir, ticketTtlMs: 0 });
    try {
      expect((await exchangeTicket(short.panelUrl())).status).toBe(403);
    } finally {
      await short.close();
    }
  });
});

describe('POST /ticket (ptydeck url)', () => {
  it('mints a link for a process outside every session (this one), with no credential', async () => {
    expect((await rawRequest(core.port, '/ticket')).status).toBe(405);
    const minted = await rawRequest(core.port, '/ticket', { method: 'POST' });
    expect(minted.status).toBe(200);
    expect(minted.headers['cache-control']).toBe('no-store');
    const link = JSON.parse(minted.body).url as string;
    expect((await exchangeTicket(link)).status).toBe(200);
  });
  it('hands no link to a web page, even of its own origin', async () => {
    for (const origin of [core.url, 'http://evil.example']) {
      const res = await rawRequest(core.port, '/ticket', { method: 'POST', headers: { Origin: origin } });
      expect(res.status, origin).toBe(403);
      expect(res.body).not.toContain('#ticket=');
    }
  });
  it('refuses an asker the peer check places inside a session, and says why', async () => {
    const judged: Array<ReadonlySet<number>> = [];
    const judgePeer: PeerJudge = (_socket, pids) => {
      judged.push(pids);
      return { kind: 'refused', reason: 'process 42 is a ptydeck session\'s process' };
    };
    const strict = await startTestHttpServer({ service, writeDiscovery: false, appDir, judgePeer });
    try {
      const res = await rawRequest(strict.port, '/ticket', { method: 'POST' });
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body).error).toContain('process 42 is a ptydeck session');
      expect(res.body).not.toContain('#ticket=');
      expect(judged).toHaveLength(1);
    } finally {
      await strict.close();
    }
  });
  it('takes its early look at a connection as it accepts it, before a byte of the request, and hands it to the first request\'s judgement only', async () => {
    const looks: EarlyLook[] = [];
    const handed: Array<EarlyLook | undefined> = [];
    const lookEarly: EarlyLooker = () => {
      const look = { client: { uid: 0, inode: String(looks.length + 1) }, insideHolder: undefined };
      looks.push(look);
      return look;
    };
    const judgePeer: PeerJudge = (_socket, _pids, _claim, early) => {
      handed.push(early);
      return { kind: 'refused', reason: 'judged for the test' };
    };
    const strict = await startTestHttpServer({ service, writeDiscovery: false, appDir, judgePeer, lookEarly });
    const socket = connect(strict.port, '127.0.0.1');
    try {
      await until(() => looks.length === 1, 'the early look at the connection');
      expect(handed).toEqual([]);
      // Two requests on the one connection: the second is judged on a look of its own.
      const request = (close: boolean) => `POST /ticket HTTP/1.1\r\nHost: 127.0.0.1:${strict.port}\r\nContent-Length: 0\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
      let answers = '';
      socket.on('data', (chunk: Buffer) => (answers += chunk.toString('latin1')));
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.write(request(false) + request(true));
      await closed;
      expect(answers.match(/HTTP\/1\.1 403/g)).toHaveLength(2);
      expect(handed).toEqual([looks[0], undefined]);
      expect(looks).toHaveLength(1);
    } finally {
      socket.destroy();
      await strict.close();
    }
  });
  it('where the asker cannot be named, shows the link where the server says and tells the asker where', async () => {
    const shown: string[] = [];
    const blind = await startTestHttpServer({
      service,
      writeDiscovery: false,
      appDir,
      judgePeer: () => ({ kind: 'unknown', reason: 'no /proc' }),
      presentPanelLink: (url) => {
        shown.push(url);
        return 'the terminal running ptydeck serve';
      },
    });
    const mute = await startTestHttpServer({ service, writeDiscovery: false, appDir, judgePeer: () => ({ kind: 'unknown', reason: 'no /proc' }) });
    try {
      const res = await rawRequest(blind.port, '/ticket', { method: 'POST' });
      expect(res.status).toBe(202);
      expect(JSON.parse(res.body)).toEqual({ shownIn: 'the terminal running ptydeck serve' });
      expect(res.body).not.toContain('#ticket=');
      expect(shown).toHaveLength(1);
      expect((await exchangeTicket(shown[0]!)).status).toBe(200);
      // Without a place to show it, the server refuses rather than hand the link to an unknown asker.
      expect((await rawRequest(mute.port, '/ticket', { method: 'POST' })).status).toBe(403);
    } finally {
      await blind.close();
      await mute.close();
    }
  });
});

describe('POST /snapshot (ptydeck ls, ptydeck status)', () => {
  it('answers the panel snapshot to a process outside every session (this one), with no credential and no panel socket', async () => {
    expect((await rawRequest(core.port, '/snapshot')).status).toBe(405);
    const answer = await rawRequest(core.port, '/snapshot', { method: 'POST' });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(answer.body)).toMatchObject({ type: 'snapshot', sessions: [], agents: [], instance: core.instance, host: { pid: process.pid, protocol: HOST_PROTOCOL_VERSION, stateDir } });
    // Read only: it names no credential and opened no panel.
    expect(answer.body).not.toContain(core.panelToken);
    expect(answer.body).not.toContain(core.agentToken);
    expect(core.panelCount()).toBe(0);
    expect(service.calls).toEqual([]);
  });
  it('judges the sender a request names by its pid once the kernel says it holds the connection, and proves the host in the same answer', async () => {
    // The client's own request: this process named, a challenge asked with it.
    const challenge = newChallenge();
    const answer = await requestJson(`${core.url}/snapshot?challenge=${challenge}`, { method: 'POST', timeoutMs: 5000 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ type: 'snapshot', instance: core.instance });
    expect(proofHolds(core.agentToken, challenge, answer.headers[PROOF_HEADER])).toBe(true);
    const ticket = await requestJson(`${core.url}/ticket?challenge=${challenge}`, { method: 'POST', timeoutMs: 5000 });
    expect(ticket.status).toBe(200);
    expect(proofHolds(core.agentToken, challenge, ticket.headers[PROOF_HEADER])).toBe(true);
    // A process that does not hold the connection (this one's parent, outside every session too) is refused, not searched past.
    for (const path of ['/snapshot', '/ticket']) {
      for (const [claim, why] of [
        [String(process.ppid), 'does not hold the connection'],
        ['me', 'not a pid'],
        [`${process.pid}, ${process.pid}`, 'not a pid'],
      ]) {
        const res = await rawRequest(core.port, path, { method: 'POST', headers: { [ASKER_PID_HEADER]: claim! } });
        expect(res.status, `${path} claiming ${claim}`).toBe(403);
        expect(JSON.parse(res.body).error, `${path} claiming ${claim}`).toContain(why);
      }
    }
  });
  it.runIf(unshareWorks)('answers a sender in a PID namespace of its own (a container sharing the user, unshare -p), which names its pid there, once the kernel\'s NSpid line of a holder of the connection says it is that pid', async () => {
    // A client that names itself by its own process.pid, as ptydeck's do, and prints what the host answered.
    const client = `const req = require('node:http').request(process.argv[1], { method: 'POST', headers: { '${ASKER_PID_HEADER}': String(process.pid) } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => console.log(JSON.stringify({ status: res.statusCode, body })));
    });
    req.end();`;
    // Not spawnSync: the host answering is this process.
    const child = spawn('unshare', [...UNSHARE_PID, process.execPath, '-e', client, `${core.url}/snapshot`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((exited) => child.once('exit', exited));
    const answer = JSON.parse(out) as { status: number; body: string };
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ type: 'snapshot', instance: core.instance });
  });
  it('is not handed to a web page, even of its own origin, nor past the Host check', async () => {
    for (const origin of [core.url, 'http://evil.example']) {
      const res = await rawRequest(core.port, '/snapshot', { method: 'POST', headers: { Origin: origin } });
      expect(res.status, origin).toBe(403);
      expect(res.body).not.toContain('"snapshot"');
    }
    const rebound = await rawRequest(core.port, '/snapshot', { method: 'POST', headers: { Host: 'evil.example' } });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain('"snapshot"');
  });
  it.runIf(process.platform === 'linux')('takes the ports it shows from a look whose process table is the one the early look read as the connection was accepted', async () => {
    // A session's process to look for (a chat agent's pid counts as one), so that the early look reads every process's stat.
    const agent = spawn('sleep', ['30'], { stdio: 'ignore' });
    const looks: Array<EarlyLook | undefined> = [];
    const scanned: unknown[] = [];
    const watched = await startTestHttpServer({
      service,
      writeDiscovery: false,
      appDir,
      chats: { onAgentProcess: (listener: (pid: number) => void) => (listener(agent.pid!), () => {}) } as never,
      lookEarly: (socket, pids, stats) => {
        const early = lookEarlyFromProc(socket, pids, stats);
        looks.push(early);
        return early;
      },
      processWatch: {
        scan: () => {
          scanned.push(sameTurnStatTable());
          return new Map();
        },
      },
    });
    try {
      const answer = await rawRequest(watched.port, '/snapshot', { method: 'POST', headers: { [ASKER_PID_HEADER]: String(process.pid) } });
      expect(answer.status, answer.body).toBe(200);
      expect(looks).toHaveLength(1);
      expect(looks[0]?.table?.stats.has(agent.pid!)).toBe(true);
      // The watch's look, taken in the request's turn, reads no stat line of its own: the early look's stand for them.
      expect(scanned).toHaveLength(1);
      expect(scanned[0]).toBe(looks[0]!.table);
    } finally {
      agent.kill();
      await watched.close();
    }
  });
  it('refuses an asker the peer check places inside a session, or cannot name, and says why', async () => {
    const judged: Array<ReadonlySet<number>> = [];
    const strict = await startTestHttpServer({
      service,
      writeDiscovery: false,
      appDir,
      judgePeer: (_socket, pids) => {
        judged.push(pids);
        return { kind: 'refused', reason: "process 42 is a ptydeck session's process" };
      },
    });
    const blind = await startTestHttpServer({ service, writeDiscovery: false, appDir, judgePeer: () => ({ kind: 'unknown', reason: 'no /proc' }), presentPanelLink: () => 'elsewhere' });
    try {
      const inside = await rawRequest(strict.port, '/snapshot', { method: 'POST' });
      expect(inside.status).toBe(403);
      expect(JSON.parse(inside.body).error).toMatch(/^refused: process 42 is a ptydeck session's process/);
      expect(judged).toHaveLength(1);
      // A host that cannot name the asker has nowhere to show a list instead: it refuses, not as to one inside.
      const unknown = await rawRequest(blind.port, '/snapshot', { method: 'POST' });
      expect(unknown.status).toBe(403);
      expect(JSON.parse(unknown.body).error).toBe('cannot tell who is asking (no /proc)');
    } finally {
      await strict.close();
      await blind.close();
    }
  });
});

describe('the panel socket opened by pid (ptydeck attach)', () => {
  const url = (challenge?: string) => new URL(`${core.url.replace(/^http/, 'ws')}/panel${challenge ? `?challenge=${challenge}` : ''}`);
  const open = (target: URL, headers: Record<string, string>) => openWebSocket(target, { protocols: ['ptydeck.v1'], headers, timeoutMs: 5000, maxMessage: 1 << 24 });
  const snapshotOf = (ws: ClientWebSocket) => new Promise<unknown>((resolve) => ws.onMessage(({ data }) => resolve(JSON.parse(data.toString('utf8')))));

  it('opens, without a token, for the process the handshake names once the kernel says it holds the connection, and proves the host in its 101', async () => {
    const challenge = newChallenge();
    const ws = await open(url(challenge), { [ASKER_PID_HEADER]: String(process.pid) });
    try {
      expect(proofHolds(core.agentToken, challenge, ws.headers[PROOF_HEADER])).toBe(true);
      expect(ws.protocol).toBe('ptydeck.v1');
      expect(await snapshotOf(ws)).toMatchObject({ type: 'snapshot', instance: core.instance });
      expect(core.panelCount()).toBe(1);
    } finally {
      ws.terminate();
    }
  });

  it('refuses a claim that does not hold, a claim from a web page, no claim, and says why, with the proof asked', async () => {
    const challenge = newChallenge();
    for (const [headers, status, why] of [
      [{ [ASKER_PID_HEADER]: String(process.ppid) }, 403, 'does not hold the connection'],
      [{ [ASKER_PID_HEADER]: '1' }, 403, 'does not hold the connection'],
      [{ [ASKER_PID_HEADER]: 'me' }, 403, 'not a pid'],
      [{ [ASKER_PID_HEADER]: `${process.pid}, ${process.pid}` }, 403, 'not a pid'],
      // A browser sends Origin with every handshake, its own page's included: the pid way is not for pages.
      [{ [ASKER_PID_HEADER]: String(process.pid), Origin: core.url }, 403, 'outside web pages'],
      [{ [ASKER_PID_HEADER]: String(process.pid), Origin: 'http://evil.example' }, 403, 'Origin is not this server'],
      [{}, 401, 'Unauthorized'],
    ] as Array<[Record<string, string>, number, string]>) {
      const refused = await open(url(challenge), headers).catch((error: unknown) => error);
      expect(refused, JSON.stringify(headers)).toBeInstanceOf(UpgradeRefused);
      expect((refused as UpgradeRefused).status, JSON.stringify(headers)).toBe(status);
      expect((refused as UpgradeRefused).body, JSON.stringify(headers)).toContain(why);
    }
    // Past the Host check it is refused before any judging.
    const rebound = await openWebSocket(url(), { protocols: ['ptydeck.v1'], headers: { [ASKER_PID_HEADER]: String(process.pid), Host: 'evil.example' }, timeoutMs: 5000, maxMessage: 1024 }).catch((error: unknown) => error);
    expect((rebound as UpgradeRefused).status).toBe(403);
    expect(core.panelCount()).toBe(0);
    expect(service.calls).toEqual([]);
  });

  it('refuses an asker the peer check places inside a session, or cannot name', async () => {
    const strict = await startTestHttpServer({ service, writeDiscovery: false, appDir, judgePeer: () => ({ kind: 'refused', reason: "process 42 is a ptydeck session's process" }) });
    const blind = await startTestHttpServer({ service, writeDiscovery: false, appDir, judgePeer: () => ({ kind: 'unknown', reason: 'no /proc' }), presentPanelLink: () => 'elsewhere' });
    try {
      for (const [server, why] of [
        [strict, "refused: process 42 is a ptydeck session's process"],
        [blind, 'cannot tell who is asking (no /proc)'],
      ] as const) {
        const refused = await openWebSocket(new URL(`${server.url.replace(/^http/, 'ws')}/panel`), { protocols: ['ptydeck.v1'], headers: { [ASKER_PID_HEADER]: String(process.pid) }, timeoutMs: 5000, maxMessage: 1024 }).catch((error: unknown) => error);
        expect((refused as UpgradeRefused).status).toBe(403);
        expect((refused as UpgradeRefused).body).toContain(why);
        expect(server.panelCount()).toBe(0);
      }
    } finally {
      await strict.close();
      await blind.close();
    }
  });
});

describe('static files', () => {
  it('serves index.html at / with a strict CSP and the right MIME types, without a token', async () => {
    const index = await rawRequest(core.port, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    // WebAssembly compilation (the replay's player), never eval of JavaScript text.
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval';");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${core.port}`);
    expect(csp).not.toContain("'unsafe-eval'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect((await rawRequest(core.port, '/assets/main.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await rawRequest(core.port, '/assets/style.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await rawRequest(core.port, '/missing.js')).status).toBe(404);
  });
  it('refuses traversal, encoded traversal and symlinks out of the app directory', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e%2f%2e%2e%2fsecret.txt', '/link.txt', '/assets/..%5c..%5csecret.txt', '/%00']) {
      const res = await rawRequest(core.port, path);
      expect([403, 404], path).toContain(res.status);
      expect(res.body).not.toContain('outside');
    }
  });
  it('refuses a rebinding Host and a foreign Origin for static files too', async () => {
    expect((await rawRequest(core.port, '/', { headers: { Host: `attacker.example:${core.port}` } })).status).toBe(403);
    expect((await rawRequest(core.port, '/', { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
  });
  it('refuses methods other than GET and HEAD', async () => {
    expect((await rawRequest(core.port, '/', { method: 'POST', body: 'x' })).status).toBe(405);
  });
});
