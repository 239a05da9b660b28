import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '@ptydeck/contract';
import { openSocket, type MessageQueue } from '../testing/http.js';
import { startHost, type Host } from './start-host.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * The developer's own bash tab, opened from a panel of the real host: its marks say when it sits at its prompt and
 * how its last command ended, as an agent's shell's do (`ptydeck ls` called an idle tab `running`).
 */

let dir: string;
let host: Host;
beforeAll(async () => {
  dir = fileTempDir('ptydeck-developer-tab-');
  host = await startHost({ stateDir: join(dir, 'state'), configDir: join(dir, 'config'), persist: false, exclusive: false, port: 0, appDir: '/nonexistent' });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The next `pty.updated` of session `id` whose info satisfies `test`, from message index `from`. */
function updated(messages: MessageQueue, id: string, test: (info: SessionInfo) => boolean, from = 0): Promise<SessionInfo> {
  return messages
    .json((m) => m.type === 'event' && m.event.type === 'pty.updated' && m.event.info.id === id && test(m.event.info), from)
    .then((m) => m.event.info as SessionInfo);
}

describe("the developer's bash tab", () => {
  it('is idle at its prompt, running during a command, and idle again with the exit code of the command', async () => {
    const opened = await openSocket(host.port, { headers: { Origin: host.url }, protocols: [`ptydeck.token.${host.panelToken}`] });
    if (!('ws' in opened)) throw new Error(`refused ${opened.refused}`);
    const { ws, messages } = opened;
    try {
      ws.send(JSON.stringify({ type: 'create', requestId: 'tab', cols: 100, rows: 30 }));
      const created = await messages.json((m) => m.requestId === 'tab');
      expect(created.type).toBe('created');
      const id = created.info.id as string;
      expect(created.info.source).toBe('user');

      await updated(messages, id, (info) => info.shell?.state === 'idle' && info.shell.lastExitCode === null);
      const from = messages.all.length;
      ws.send(JSON.stringify({ type: 'input', id, data: '(exit 3)\r' }));
      await updated(messages, id, (info) => info.shell?.state === 'running', from);
      const idle = await updated(messages, id, (info) => info.shell?.state === 'idle', from);
      expect(idle.shell).toEqual({ state: 'idle', lastExitCode: 3 });
    } finally {
      ws.close();
    }
  }, 30_000);
});
