// The e2e host's own process: the real host (startHost, as `ptydeck serve` starts it),
// started by server-harness.ts (child_process.fork, with HOME set to the spec's) so that a
// flood's reading, the panel socket and the screen mirrors never share an event loop with
// the test runner and its browser traffic. Plain JavaScript: the runner's Node runs it
// without Playwright's transform.
//
// argv[2]: JSON { stateDir, home, configDir, appDir, persist }. Tells the parent
// { type: 'ready', url, port, agentToken, panelToken } once serving, then answers
// { id, method, args } with { id, result } or { id, error }: what a spec may look at
// that no client sees, from the host's diagnostics.
import { existsSync, statSync } from 'node:fs';

// The host as `ptydeck serve` runs it: the core's bundle (dist/bundle/host.js, the host's side of the CLI), which a
// process imports in about half the CPU time of the few hundred modules of the tsc output (0.35 s against 0.7 s,
// paid once per test). As the launcher (bin/ptydeck.js) decides: a bundle older than the tsc build (after a bare
// `npx tsc -b`) would run stale code, so then the tsc output runs.
const core = new URL('../packages/core/', import.meta.url);
const bundle = new URL('dist/bundle/host.js', core);
const buildInfo = new URL('tsconfig.tsbuildinfo', core);
const fresh = existsSync(bundle) && (!existsSync(buildInfo) || statSync(bundle).mtimeMs >= statSync(buildInfo).mtimeMs);
const { startHost } = await import(fresh ? bundle.href : '@ptydeck/core');

const { stateDir, home, configDir, appDir, persist } = JSON.parse(process.argv[2]);
const host = await startHost({
  stateDir,
  port: 0,
  appDir,
  configDir,
  persist,
  // Chats' agents, like the shells, start in the temporary HOME and never read the machine's.
  launchDir: home,
  agentEnv: { ...process.env, HOME: home },
});
const { service } = host.diagnostics;

// The service's live subscriptions (a panel the server never let go keeps its own), each
// with the mark it was made after, and the sessions created since the host served.
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

const methods = {
  panelUrl: () => host.panelUrl(),
  sessions: () => service.list(),
  session: (id) => service.get(id) ?? null,
  logEnd: (id) => service.read(id, { maxBytes: 1 }).end,
  agents: () => host.diagnostics.agents(),
  created: () => created,
  markSubscriptions: () => ++mark,
  liveSubscriptionsSince: (since) => [...liveSubscriptions].filter((subscription) => subscription.mark >= since).length,
  persisted: () => host.diagnostics.persisted(),
  close: () => host.close(),
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
  host.close().finally(() => process.exit(0));
});

process.send({ type: 'ready', url: host.url, port: host.port, agentToken: host.agentToken, panelToken: host.panelToken });
