// The e2e server's own process, as `ptydeck serve` runs: started by server-harness.ts
// (child_process.fork) so that a flood's reading, the panel socket and the screen
// mirrors never share an event loop with the test runner and its browser traffic.
// Plain JavaScript: the runner's Node runs it without Playwright's transform.
//
// argv[2]: JSON { stateDir, home, configDir, appDir, lost?, persist? }. Tells the parent
// { type: 'ready', url, port, agentToken, panelToken } once serving, then answers
// { id, method, args } with { id, result } or { id, error }.
import { createPtyService, openSessionStore, sessionStoreDir, startLocalServer } from '@ptydeck/core';

const { stateDir, home, configDir, appDir, lost = [], persist = false } = JSON.parse(process.argv[2]);
const service = createPtyService({ env: { ...process.env, HOME: home } });
// Sessions an earlier host kept (issue 24), restored before serving as the host restores its
// store's. A harness option, not a way in for any client: the specs need no store to write them.
for (const { info, start, text, readEnd } of lost) service.restore({ info, start, output: new TextEncoder().encode(text), readEnd });

// What a spec may count that no client sees: the service's live subscriptions (a panel
// the server never let go keeps its own), each with the mark it was made after, and the
// sessions ever created.
let mark = 0;
const liveSubscriptions = new Set();
const subscribe = service.on.bind(service);
service.on = (event, listener) => {
  const subscription = { mark };
  liveSubscriptions.add(subscription);
  const off = subscribe(event, listener);
  return () => {
    liveSubscriptions.delete(subscription);
    off();
  };
};
let created = 0;
service.on('pty.created', () => created++);

// As the host keeps sessions (cli/host.ts): what the state dir holds comes back before serving.
const sessionStore = persist ? openSessionStore({ dir: sessionStoreDir(stateDir) }) : undefined;
const server = await startLocalServer({
  service,
  sessionStore,
  stateDir,
  port: 0,
  appDir,
  configDir,
  // Chats' agents, like the shells, start in the temporary HOME and never read the machine's.
  launchDir: home,
  agentEnv: { ...process.env, HOME: home },
});

let closing;
const close = () =>
  (closing ??= (async () => {
    await server.close();
    await service.dispose();
    sessionStore?.dispose();
  })());

const methods = {
  panelUrl: () => server.panelUrl(),
  sessions: () => service.list(),
  session: (id) => service.get(id) ?? null,
  logEnd: (id) => service.read(id, { maxBytes: 1 }).end,
  agents: () => server.agents.list(),
  created: () => created,
  markSubscriptions: () => ++mark,
  liveSubscriptionsSince: (since) => [...liveSubscriptions].filter((subscription) => subscription.mark >= since).length,
  persisted: () => sessionStore?.flush(),
  close,
};

process.on('message', async ({ id, method, args }) => {
  try {
    const result = await methods[method](...args);
    process.send({ id, result: result ?? null });
  } catch (error) {
    process.send({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
// The parent went away (a killed runner): nothing may outlive it.
process.on('disconnect', () => {
  close().finally(() => process.exit(0));
});

process.send({ type: 'ready', url: server.url, port: server.port, agentToken: server.agentToken, panelToken: server.panelToken });
