import { test as base, expect as baseExpect, type Locator, type Page } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { E2E_APP_DIR } from './app-dir.js';
import { startServerProcess, type E2eLostRecord, type E2eServer } from './server-harness.js';

export type { E2eLostRecord, E2eServer } from './server-harness.js';

// Playwright's expect.poll polls at 100, 250, 500 and then every 1000 ms: a condition met 0.4 s in is seen at
// 0.85 s, one met at 1.9 s at 2.85 s, and the specs wait on screens over a hundred times and poll some eighty other
// conditions (marks, the clipboard, what the server holds). Each poll reads the page or asks the server once:
// every 250 ms at most costs little. The specs' expect is this one; a poll may still name its own intervals.
const POLL_INTERVALS = [50, 100, 150, 250];
export const expect: typeof baseExpect = baseExpect.configure({});
const basePoll = expect.poll;
expect.poll = ((actual: () => unknown, options?: string | { message?: string; timeout?: number; intervals?: number[] }) =>
  basePoll(actual, typeof options === 'string' ? { message: options, intervals: POLL_INTERVALS } : { intervals: POLL_INTERVALS, ...options })) as typeof basePoll;

/** An agent: the official MCP SDK client over Streamable HTTP, as Claude Code or Codex would connect. */
export interface Agent {
  client: Client;
  /** Calls a terminal_* tool and returns its structured content; throws on an isError result. */
  call<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
}

export const AGENT_NAME = 'e2e-agent';

export async function connectAgent(server: Pick<E2eServer, 'url' | 'agentToken'>, name = AGENT_NAME): Promise<Agent> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
    requestInit: { headers: { Authorization: `Bearer ${server.agentToken}` } },
  });
  await client.connect(transport);
  return {
    client,
    async call(toolName, args = {}) {
      const result = await client.callTool({ name: toolName, arguments: args });
      if (result.isError) {
        throw new Error(`${toolName} failed: ${JSON.stringify(result.content)}`);
      }
      return result.structuredContent as never;
    },
  };
}

interface Options {
  /** Linger of exited agent tabs, through the app's setting (localStorage 'ptydeck.settings'); null keeps the default. */
  lingerMs: number | null;
  /** The text of the server's agents.json; null: there is none. */
  agentsJson: string | null;
  /**
   * Sessions an earlier host kept, which the server restores before it serves (issue 24).
   * In an object: test.use() would read a bare array as [value, fixture options].
   */
  lostRecords: { records: E2eLostRecord[] } | null;
}

/** The scripted ACP agent the core ships for tests and demos (its prompt picks a scenario). */
export const DEMO_AGENT = fileURLToPath(new URL('../packages/core/src/testing/demo-agent.mjs', import.meta.url));

/** An agents.json naming the demo agent "demo". */
export function demoAgentsJson(): string {
  return JSON.stringify({ agents: [{ name: 'demo', command: process.execPath, args: [DEMO_AGENT] }] });
}

/**
 * A real local server with a PTY service of its own, in a process of its own
 * (server-harness.ts), as the product runs it: a flood it reads never competes
 * with the test runner's event loop, which drives the browser. A temporary
 * state dir, and a HOME of its own, which keeps every shell off the machine's
 * rc files (a slow or hanging ~/.bashrc, pyenv waiting 60 s on a stale rehash
 * lock, leaves a terminal without a prompt and would make the suite measure
 * the dotfiles).
 */
export interface LaunchedServer {
  server: E2eServer;
  /** SIGKILLs the server's process, as a host is killed: nothing of it closes or flushes anything. */
  kill(): Promise<void>;
  /** Starts the next server on the same state dir and HOME, as the next host finds them; disposed with this one. */
  restart(): Promise<E2eServer>;
  dispose(): Promise<void>;
}

export async function launchServer(options: { agentsJson?: string | null; lost?: E2eLostRecord[]; persist?: boolean } = {}): Promise<LaunchedServer> {
  const stateDir = mkdtempSync(join(tmpdir(), 'ptydeck-e2e-'));
  const home = mkdtempSync(join(tmpdir(), 'ptydeck-e2e-home-'));
  // agents.json from the test, never the machine's (~/.config/ptydeck).
  const configDir = mkdtempSync(join(tmpdir(), 'ptydeck-e2e-config-'));
  if (options.agentsJson != null) writeFileSync(join(configDir, 'agents.json'), options.agentsJson);
  // A plain, recognisable prompt; the login shell reads ~/.profile, agent shells our rcfile then ~/.profile.
  writeFileSync(join(home, '.profile'), "PS1='e2e\\$ '\n");
  const removeDirs = () => {
    for (const dir of [stateDir, home, configDir]) rmSync(dir, { recursive: true, force: true });
  };
  // The e2e bundle: the production one has no test hook (app-dir.ts).
  const dirs = { stateDir, home, configDir, appDir: E2E_APP_DIR, lost: options.lost ?? [], persist: options.persist ?? false };
  const processes: Awaited<ReturnType<typeof startServerProcess>>[] = [];
  let started;
  try {
    started = await startServerProcess(dirs);
  } catch (error) {
    removeDirs();
    throw error;
  }
  processes.push(started);
  return {
    server: started.server,
    kill: () => started.kill(),
    async restart() {
      // The records were the first server's to restore; the next one finds what the store kept.
      const next = await startServerProcess({ ...dirs, lost: [] });
      processes.push(next);
      return next.server;
    },
    async dispose() {
      for (const running of processes) await running.stop();
      removeDirs();
    },
  };
}

/**
 * A worker's servers for the `server` fixture. Starting a host (a Node process, the core's modules, startHost) takes
 * a second or two of a test's wall time on a busy machine, mostly spent waiting for the CPU, and ending one (its
 * shells told to go, reaped) often as long: here the next test's server starts while the current test runs, and a
 * finished test's server ends while the next one runs. Each test still gets a host of its own, started after the
 * previous test's took its own and never used before; a spare started for other options or another environment
 * (a spec's beforeAll may set one, remote-host.spec.ts's PTYDECK_SSH) is thrown away, not used.
 */
class ServerPool {
  private spare: { key: string; launched: Promise<LaunchedServer> } | undefined;
  private readonly ending = new Set<Promise<void>>();

  async take(options: { agentsJson: string | null; lost: E2eLostRecord[] }): Promise<LaunchedServer> {
    const key = JSON.stringify([options, process.env]);
    const spare = this.spare;
    this.spare = undefined;
    if (spare && spare.key !== key) this.end(spare.launched);
    const launched = spare?.key === key ? spare.launched : launchServer(options);
    // The next test's, started now; a failed start surfaces in the test that takes it.
    const next = launchServer(options);
    next.catch(() => {});
    this.spare = { key, launched: next };
    return launched;
  }

  /** Ends a server without waiting for it: the worker's teardown does. */
  end(launched: Promise<LaunchedServer>): void {
    const ending = launched.then((running) => running.dispose(), () => {});
    this.ending.add(ending);
    void ending.finally(() => this.ending.delete(ending));
  }

  async dispose(): Promise<void> {
    if (this.spare) this.end(this.spare.launched);
    this.spare = undefined;
    while (this.ending.size > 0) await Promise.all(this.ending);
  }
}

export const test = base.extend<Options & { server: E2eServer; agent: Agent; panel: Page }, { servers: ServerPool }>({
  lingerMs: [null, { option: true }],
  agentsJson: [null, { option: true }],
  lostRecords: [null, { option: true }],
  servers: [
    async ({}, use) => {
      const pool = new ServerPool();
      await use(pool);
      await pool.dispose();
    },
    { scope: 'worker' },
  ],
  server: async ({ agentsJson, lostRecords, servers }, use) => {
    const launched = servers.take({ agentsJson, lost: lostRecords?.records ?? [] });
    await use((await launched).server);
    servers.end(launched);
  },
  agent: async ({ server }, use) => {
    const agent = await connectAgent(server);
    await use(agent);
    await agent.client.close();
  },
  /** The panel page, opened through the one-time link as a developer would (its ticket in the fragment). */
  panel: async ({ page, server, lingerMs }, use) => {
    if (lingerMs !== null) {
      await page.addInitScript((ms) => localStorage.setItem('ptydeck.settings', JSON.stringify({ lingerMs: ms })), lingerMs);
    }
    await page.goto(await server.panelUrl());
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
    await use(page);
  },
});

/** The panel region, found the way assistive technology finds it. */
export function panelRegion(page: Page): Locator {
  return page.getByRole('region', { name: 'Terminal panel' });
}

/** The host of one session's terminal. */
export function terminalOf(page: Page, id: string): Locator {
  return page.locator(`[data-testid="terminal"][data-session-id="${id}"]`);
}

/**
 * What a person sees in a session's terminal: the rows xterm.js rendered. The
 * DOM renderer (used where WebGL would be software-emulated, as in this
 * Chromium) puts them in `.xterm-rows`; with the WebGL renderer the rows are
 * pixels, so the app's debug hook reads the buffer instead.
 */
export async function screenText(page: Page, id: string): Promise<string> {
  return page.evaluate((sessionId) => {
    const host = document.querySelector(`[data-testid="terminal"][data-session-id="${sessionId}"]`);
    const rows = host?.querySelector('.xterm-rows');
    if (rows && rows.children.length > 0) {
      return Array.from(rows.children, (row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n');
    }
    const debug = (window as { __ptydeck?: { terminalText(id: string): string | null } }).__ptydeck;
    return debug?.terminalText(sessionId) ?? '';
  }, id);
}

/** Waits until a session's rendered screen matches. */
export async function expectScreen(page: Page, id: string, pattern: RegExp, timeout = 10_000): Promise<void> {
  await expect
    .poll(() => screenText(page, id), {
      message: `terminal ${id} shows ${pattern}`,
      timeout,
    })
    .toMatch(pattern);
}

/** The id of the active tab's session. */
export async function activeSessionId(page: Page): Promise<string> {
  const id = await page.getByRole('tab', { selected: true }).getAttribute('data-session-id');
  expect(id, 'an active tab with a session id').toBeTruthy();
  return id!;
}

/** Opens a terminal of the developer's own from the keyboard; resolves with its session id once its shell prompts, the keyboard in it. */
export async function openUserTerminal(page: Page): Promise<string> {
  const before = new Set(await page.getByRole('tab').evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('data-session-id'))));
  await page.keyboard.press('Control+Shift+T');
  // The new tab comes with the server's answer: until then the tab that was active still is.
  let id = '';
  await expect
    .poll(
      async () => {
        const selected = await page.getByRole('tab', { selected: true }).evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('data-session-id') ?? ''));
        id = selected.find((candidate) => candidate !== '' && !before.has(candidate)) ?? '';
        return id;
      },
      { message: 'a new tab is the active one' },
    )
    .not.toBe('');
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await expectScreen(page, id, /^e2e#/m);
  return id;
}

/** Keeps a screenshot of the page as a test artifact (attached to the report, and in test-results/). */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  const path = test.info().outputPath(`${name}.png`);
  await page.screenshot({ path });
  await test.info().attach(name, { path, contentType: 'image/png' });
}
