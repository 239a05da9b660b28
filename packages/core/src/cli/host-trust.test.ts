import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HOST_PROTOCOL_VERSION, type SessionInfo } from '@ptydeck/contract';
import { until } from '../testing/poll-until.js';
import { exchangeTicket, openSocket } from '../testing/http.js';
import { bin, buildCore, discoveryOf, hostSandbox, isAlive, processesOf, reap, runCli, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';
import { readStat } from '../proc/proc-fs.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * Issue 31 items 1, 6 and 7 with real processes: a fake host (a plain node
 * http server that rewrites server.json, as an agent's shell could run one)
 * is refused by `ptydeck url`, `ls`, `mcp` and a reconnecting agent's bridge,
 * and hears nothing; a host that an agent's `ptydeck mcp` started with a
 * hostile environment is trusted, but the developer's tab gets the
 * developer's environment; config.json's `"persist": false` holds whoever
 * starts the host.
 */
beforeAll(buildCore, 120_000);

const DEMO_AGENT = fileURLToPath(new URL('../testing/demo-agent.mjs', import.meta.url));

/** A process's environment as the kernel keeps it (what it was started with). */
function environOf(pid: number): Record<string, string> {
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    // Gone meanwhile.
  }
  return Object.fromEntries(text.split('\0').filter(Boolean).map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

const fakeHost = join(dirname(fileURLToPath(import.meta.url)), '..', 'testing', 'fake-host.mjs');
const sandboxes: HostSandbox[] = [];
const clients: Client[] = [];
const strays: number[] = [];
/** Directories a test made outside its sandbox. */
const scratch: string[] = [];
afterEach(async () => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const box of sandboxes.splice(0)) {
    reap(box);
    await until(() => processesOf(box.stateDir).length === 0, `no process of ${box.stateDir} is left`);
  }
});

function sandbox(): HostSandbox {
  const box = hostSandbox();
  sandboxes.push(box);
  return box;
}

type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, any> };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** Why a call failed, whether the bridge answered with an error result or a JSON-RPC error. */
async function failure(client: Client): Promise<string> {
  const outcome = await call(client, 'terminal_list').then(
    (result) => ({ failed: result.isError === true, text: result.content.map((c) => c.text).join('') }),
    (error: Error) => ({ failed: true, text: error.message }),
  );
  expect(outcome.failed, outcome.text).toBe(true);
  return outcome.text;
}

/** The developer's `ptydeck`: starts the host from a terminal of their own. */
async function startHost(box: HostSandbox): Promise<number> {
  const opened = await runCli(box, []);
  expect(opened.code, opened.stderr).toBe(0);
  return discoveryOf(box).pid;
}

/** What the fake host heard: one line per request. */
function heard(log: string): string {
  return existsSync(log) ? readFileSync(log, 'utf8') : '';
}

/** `ptydeck url`, `ls` and `mcp` each refuse the server server.json names, saying why, and print no link. */
async function expectRefusedByEveryClient(box: HostSandbox, why: RegExp): Promise<void> {
  for (const args of [['url'], ['ls'], ['mcp'], ['stop']]) {
    const result = await runCli(box, args);
    expect(result.code, `${args[0]}: ${result.stderr}`).toBe(1);
    expect(result.stderr, args[0]).toMatch(/not connecting to the ptydeck host at http:\/\/127\.0\.0\.1:\d+: /);
    expect(result.stderr, args[0]).toMatch(why);
    expect(result.stdout, args[0]).not.toContain('ATTACKER');
  }
}

describe('a client confirms the host with the kernel, not with server.json', () => {
  it('refuses a fake host that a shell in an agent session wrote into server.json and host.lock, while the host runs and after it was killed', async () => {
    const box = sandbox();
    const host = await startHost(box);
    const log = join(box.home, 'fake-requests.log');
    // Unsandboxed: a sandboxed shell could not see server.json at all (sandboxed-shells.test.ts), and the kernel
    // check must hold where there is no sandbox.
    const attacker = await stdioAgent(box, 'attacker', { clients, args: ['--sandbox', 'off'] });
    const victim = await stdioAgent(box, 'victim', { clients });
    expect((await call(victim.client, 'terminal_run', { command: 'echo victim-ready' })).isError).toBeFalsy();

    // server.json rewritten while the host runs: the kernel says another process holds the port.
    const rewrite = await call(attacker.client, 'terminal_run', {
      command: `nohup node ${fakeHost} ${box.stateDir} ${log} ${HOST_PROTOCOL_VERSION} >/dev/null 2>&1 & echo started-$!`,
    });
    const fake = Number(/started-(\d+)/.exec(rewrite.content.map((c) => c.text).join(''))?.[1]);
    strays.push(fake);
    await until(() => discoveryOf(box).pid === fake, 'the fake host rewrote server.json');
    await expectRefusedByEveryClient(box, new RegExp(`process ${fake} listens on port \\d+, which server.json names, but the host for .* is process ${host} \\(it holds host.lock\\): server.json was rewritten`));
    expect(heard(log)).toBe('');
    process.kill(fake, 'SIGKILL');

    // The same, with host.lock taken too and a scrubbed environment: the leader of its POSIX session is the agent's shell.
    const takeover = await call(attacker.client, 'terminal_run', {
      command: `env -i PATH="$PATH" nohup node ${fakeHost} ${box.stateDir} ${log} ${HOST_PROTOCOL_VERSION} --lock >/dev/null 2>&1 & echo started-$!`,
    });
    const locked = Number(/started-(\d+)/.exec(takeover.content.map((c) => c.text).join(''))?.[1]);
    strays.push(locked);
    await until(() => discoveryOf(box).pid === locked, 'the second fake host rewrote server.json');
    await expectRefusedByEveryClient(box, new RegExp(`\\(pid ${locked}\\) runs inside a ptydeck session or chat: process \\d+ carries PTYDECK_SESSION_ID`));

    // The host killed: the agent's shell is hung up and gone, the fake lives on in that shell's POSIX session.
    const shell = readStat(locked)!.sid;
    process.kill(host, 'SIGKILL');
    await until(() => !isAlive(host) && !isAlive(shell), "the host and the agent's shell are gone");
    expect(isAlive(locked)).toBe(true);
    await expectRefusedByEveryClient(box, new RegExp(`is in the POSIX session ${shell}, whose leader is gone`));

    // The victim's bridge hears that its host is gone, then does not reconnect to the fake: its agent key stays its own.
    expect(await failure(victim.client)).toMatch(/is gone/);
    expect(await failure(victim.client)).toMatch(/could not reach a ptydeck host: not connecting to the ptydeck host/);
    expect(heard(log)).toBe('');
  }, 120_000);

  // The kernel check once held the listener on server.json's port to the host, but not the address: a url with the
  // host's port and another address passed, and the client then talked to whoever listens there (another user's
  // socket, as here, or another machine) with the developer's requests and keystrokes.
  it('refuses a server.json that names the host\'s port at another address, where another user listens', async () => {
    const box = sandbox();
    const host = await startHost(box);
    const record = discoveryOf(box);
    const port = Number(new URL(record.url).port);
    const rewrite = (url: string) => writeFileSync(join(box.stateDir, 'server.json'), JSON.stringify({ ...record, url }), { mode: 0o600 });
    const refusedBy = async (url: string) => {
      for (const args of [['url'], ['ls'], ['stop']]) {
        const result = await runCli(box, args);
        expect(result.code, `${args[0]}: ${result.stderr}`).toBe(1);
        expect(result.stderr, args[0]).toContain(`not connecting to the ptydeck host at ${url}: `);
        expect(result.stdout, args[0]).not.toContain('ATTACKER');
      }
    };
    rewrite(`http://127.0.0.2:${port}`);
    await refusedBy(`http://127.0.0.2:${port}`);
    expect((await runCli(box, ['url'])).stderr).toContain(`server.json names 127.0.0.2 port ${port}, where the host (pid ${host}) does not listen`);
    rewrite(`http://attacker.example:${port}`);
    await refusedBy(`http://attacker.example:${port}`);

    if (process.getuid?.() === 0) {
      // Another user's server at the host's port on 127.0.0.2: the kernel routes the client's connection there.
      const logs = fileTempDir('ptydeck-fake-log-');
      scratch.push(logs);
      chmodSync(logs, 0o777);
      const log = join(logs, 'requests.log');
      const other = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, fakeHost, logs, log, String(HOST_PROTOCOL_VERSION), `--at=127.0.0.2:${port}`], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      strays.push(other.pid!);
      await new Promise((resolve) => other.stdout!.once('data', resolve));
      rewrite(`http://127.0.0.2:${port}`);
      await refusedBy(`http://127.0.0.2:${port}`);
      expect((await runCli(box, ['url'])).stderr).toContain(`another user's socket listens at 127.0.0.2 port ${port}, which server.json names`);
      expect(heard(log)).toBe('');
    }
    rewrite(record.url);
    expect((await runCli(box, ['ls'])).code).toBe(0);

    // What an unsandboxed agent's shell can do to server.json without a listener of its own: `{}`, remove it, name a port
    // where nothing listens, or a token of its own. Before, every client refused or waited out its 15 s while the host
    // ran on, until the developer restarted it and so ended every live session; now a client asks the host holding
    // host.lock, found through the kernel, to write its record back, and reads it again.
    const file = join(box.stateDir, 'server.json');
    const spoils: Array<() => void> = [() => writeFileSync(file, '{}', { mode: 0o600 }), () => rmSync(file), () => rewrite('http://127.0.0.1:1')];
    for (const spoil of spoils) {
      spoil();
      const listed = await runCli(box, ['ls']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(discoveryOf(box)).toEqual(record);
    }
    writeFileSync(file, JSON.stringify({ ...record, token: 'x'.repeat(43) }), { mode: 0o600 });
    const agent = await stdioAgent(box, 'after-rewrite', { clients });
    expect((await call(agent.client, 'terminal_list')).isError).toBeFalsy();
    expect(discoveryOf(box)).toEqual(record);
  }, 120_000);

  it('refuses a fake host started with a session label, which took host.lock after the host was killed', async () => {
    const box = sandbox();
    const host = await startHost(box);
    process.kill(host, 'SIGKILL');
    await until(() => !isAlive(host), 'the host is gone');
    const log = join(box.home, 'fake-requests.log');
    const fake = spawn(process.execPath, [fakeHost, box.stateDir, log, String(HOST_PROTOCOL_VERSION), '--lock'], {
      env: { ...box.env, PTYDECK_CHAT_ID: 'chat-1' },
      stdio: 'ignore',
    });
    strays.push(fake.pid!);
    await until(() => discoveryOf(box).pid === fake.pid, 'the fake host rewrote server.json');
    await expectRefusedByEveryClient(box, /carries PTYDECK_CHAT_ID/);
    expect(heard(log)).toBe('');
  }, 60_000);
});

describe("a developer's tab gets the developer's environment, whoever started the host", () => {
  it("an agent's `ptydeck mcp` inside a session starts a host that clients trust, and its hostile environment reaches no tab", async () => {
    const box = sandbox();
    const bashEnv = join(box.home, 'bash-env.sh');
    writeFileSync(bashEnv, 'touch "$HOME/bash-env-ran"\n');
    // The agent's environment: inside a session and a chat, with ways to run code in the developer's next shell.
    const hostile = {
      PTYDECK_SESSION_ID: 'agent-session',
      PTYDECK_CHAT_ID: 'agent-chat',
      BASH_ENV: bashEnv,
      PROMPT_COMMAND: 'touch "$HOME/prompt-command-ran"',
      LD_PRELOAD: '/nonexistent/planted.so',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      PLANTED: 'by-the-agent',
    };
    await stdioAgent({ ...box, env: { ...box.env, ...hostile } }, 'agent', { clients });
    const host = discoveryOf(box).pid;
    // Started detached: adopted by init, in a POSIX session of its own, without a session's label.
    expect(readStat(host)).toMatchObject({ sid: host });
    const hostEnviron = readFileSync(`/proc/${host}/environ`, 'utf8').split('\0');
    for (const name of ['PTYDECK_SESSION_ID', 'PTYDECK_CHAT_ID', 'BASH_ENV', 'PROMPT_COMMAND', 'LD_PRELOAD']) {
      expect(hostEnviron.some((entry) => entry.startsWith(`${name}=`)), name).toBe(false);
    }

    // The developer, from a terminal of their own: the host passes the kernel's check.
    const developer: Record<string, string> = { ...box.env, DEVELOPER_MARK: 'mine' };
    delete developer.PAGER;
    delete developer.GIT_PAGER;
    const url = await runCli({ ...box, env: developer }, ['url']);
    expect(url.code, url.stderr).toBe(0);
    const link = url.stdout.trim();
    const exchanged = await exchangeTicket(link);
    expect(exchanged.status).toBe(200);
    const { token } = JSON.parse(exchanged.body) as { token: string };
    const server = new URL(link);
    const panel = await openSocket(Number(server.port), { headers: { Origin: server.origin }, protocols: ['ptydeck.v1', `ptydeck.token.${token}`] });
    if (!('ws' in panel)) throw new Error(`panel refused ${panel.refused}`);
    try {
      await panel.messages.json((m) => m.type === 'snapshot');
      panel.ws.send(JSON.stringify({ type: 'create', requestId: 'tab', cols: 80, rows: 24 }));
      const created = (await panel.messages.json((m) => m.type === 'created' && m.requestId === 'tab')) as { info: SessionInfo };
      // Until the exec, the forked child's environment is still the host's own.
      const environOf = (pid: number) => {
        try {
          return readFileSync(`/proc/${pid}/environ`, 'utf8');
        } catch {
          return '';
        }
      };
      await until(() => environOf(created.info.pid).includes(`PTYDECK_SESSION_ID=${created.info.id}\0`), "the tab's shell is running");
      const tab = Object.fromEntries(
        readFileSync(`/proc/${created.info.pid}/environ`, 'utf8')
          .split('\0')
          .filter(Boolean)
          .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
      );
      expect(tab.DEVELOPER_MARK).toBe('mine');
      expect(tab.PTYDECK_SESSION_ID).toBe(created.info.id);
      expect(tab.PTYDECK_STATE_DIR).toBe(box.stateDir);
      for (const name of ['PTYDECK_CHAT_ID', 'BASH_ENV', 'PROMPT_COMMAND', 'LD_PRELOAD', 'PAGER', 'GIT_PAGER', 'PLANTED']) expect(tab[name], name).toBeUndefined();
    } finally {
      panel.ws.close();
    }
  }, 60_000);
});

describe("a chat's agent gets the developer's environment, whoever started the host", () => {
  it('a host started with injection variables and planted ones passes none of them to the demo ACP agent, which keeps its chat labels', async () => {
    const box = sandbox();
    mkdirSync(box.env.PTYDECK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(box.env.PTYDECK_CONFIG_DIR!, 'agents.json'), JSON.stringify({ agents: [{ name: 'demo', command: process.execPath, args: [DEMO_AGENT] }] }));
    // The host itself runs with them: `ptydeck serve` from a shell an agent set up.
    const hostile = { BASH_ENV: join(box.home, 'bash-env.sh'), PROMPT_COMMAND: 'touch "$HOME/prompt-command-ran"', LD_PRELOAD: '/nonexistent/planted.so', PLANTED: 'by-the-agent' };
    const serve = spawn(process.execPath, [bin, 'serve'], { env: { ...box.env, ...hostile }, stdio: 'ignore' });
    strays.push(serve.pid!);
    await until(() => existsSync(join(box.stateDir, 'server.json')), 'the host serves');
    expect(readFileSync(`/proc/${discoveryOf(box).pid}/environ`, 'utf8')).toContain('\0PLANTED=by-the-agent\0');

    // The developer, from a terminal of their own, opens a chat in the panel.
    const url = await runCli({ ...box, env: { ...box.env, DEVELOPER_MARK: 'mine' } }, ['url']);
    expect(url.code, url.stderr).toBe(0);
    const link = url.stdout.trim();
    const { token } = JSON.parse((await exchangeTicket(link)).body) as { token: string };
    const server = new URL(link);
    const panel = await openSocket(Number(server.port), { headers: { Origin: server.origin }, protocols: ['ptydeck.v1', `ptydeck.token.${token}`] });
    if (!('ws' in panel)) throw new Error(`panel refused ${panel.refused}`);
    try {
      panel.ws.send(JSON.stringify({ type: 'chat.open', requestId: 'chat', agent: 'demo', cwd: box.home }));
      const chatId = (await panel.messages.json((m) => m.type === 'chat.opened' && m.requestId === 'chat')).info.id as string;
      await panel.messages.json((m) => m.type === 'chat.event' && m.chatId === chatId && m.event.type === 'state' && m.event.info.state === 'ready');
      const agents = processesOf(box.stateDir).map(environOf).filter((env) => env.PTYDECK_CHAT_ID === chatId);
      expect(agents.length).toBeGreaterThan(0);
      for (const agent of agents) {
        expect(agent.DEVELOPER_MARK).toBe('mine');
        expect(agent.PTYDECK_CHAT_HOST).toMatch(/^\d+:\d+$/);
        for (const name of Object.keys(hostile)) expect(agent[name], name).toBeUndefined();
      }
    } finally {
      panel.ws.close();
    }
  }, 60_000);
});

describe('settings that protect the developer live in config.json', () => {
  it('"persist": false holds when an agent\'s client starts the next host without PTYDECK_PERSIST', async () => {
    const box = sandbox();
    mkdirSync(box.env.PTYDECK_CONFIG_DIR!, { recursive: true });
    writeFileSync(join(box.env.PTYDECK_CONFIG_DIR!, 'config.json'), '{ "persist": false }\n');
    const { client } = await stdioAgent(box, 'agent', { clients });
    expect((await call(client, 'terminal_run', { command: 'echo kept-nowhere' })).isError).toBeFalsy();
    expect(readFileSync(join(box.stateDir, 'host.log'), 'utf8')).toContain(`session persistence is off ("persist": false in ${join(box.env.PTYDECK_CONFIG_DIR!, 'config.json')})`);
    expect(existsSync(join(box.stateDir, 'sessions'))).toBe(false);
  }, 60_000);
});
