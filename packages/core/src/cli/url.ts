import { readDiscovery, resolveStateDir } from '../server/discovery.js';
import { TICKET_PATH } from '../server/server-core.js';

/** Asks the running ptydeck (found through server.json) for a new one-time panel link. */
export async function freshPanelUrl(stateDir: string = resolveStateDir()): Promise<string> {
  const found = readDiscovery(stateDir);
  if (found.status !== 'live') {
    const why = found.status === 'stale' ? `${found.path} is stale (pid ${found.record.pid} is gone)` : `no ${found.path}`;
    throw new Error(`no running ptydeck found (${why}); start one with \`ptydeck serve\``);
  }
  const response = await fetch(new URL(TICKET_PATH, found.record.url), {
    method: 'POST',
    headers: { Authorization: `Bearer ${found.record.token}` },
    signal: AbortSignal.timeout(3000),
  }).catch((error: Error) => {
    throw new Error(`ptydeck at ${found.record.url} is not answering (${error.message})`);
  });
  if (!response.ok) throw new Error(`ptydeck at ${found.record.url} refused a new link (HTTP ${response.status})`);
  const body = (await response.json()) as { url?: unknown };
  if (typeof body.url !== 'string') throw new Error(`ptydeck at ${found.record.url} answered without a link`);
  return body.url;
}
