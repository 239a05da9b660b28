import { readDiscovery, resolveStateDir } from '../server/discovery.js';
import { TICKET_PATH } from '../server/server-core.js';

/** What `ptydeck url` got: a link, or where the server showed one instead. */
export type PanelLinkAnswer = { url: string } | { shownIn: string };

/**
 * Asks the running ptydeck (found through server.json) for a new one-time panel
 * link. It presents no credential: the server decides by which process asks,
 * and refuses one that runs inside a ptydeck session. Where the server cannot
 * tell (no /proc), it shows the link itself and answers where.
 */
export async function freshPanelLink(stateDir: string = resolveStateDir()): Promise<PanelLinkAnswer> {
  const found = readDiscovery(stateDir);
  if (found.status !== 'live') {
    const why = found.status === 'stale' ? `${found.path} is stale (pid ${found.record.pid} is gone)` : `no ${found.path}`;
    throw new Error(`no running ptydeck found (${why}); start one with \`ptydeck serve\``);
  }
  const where = found.record.url;
  const response = await fetch(new URL(TICKET_PATH, where), { method: 'POST', signal: AbortSignal.timeout(3000) }).catch((error: Error) => {
    throw new Error(`ptydeck at ${where} is not answering (${error.message})`);
  });
  const body = (await response.json().catch(() => ({}))) as { url?: unknown; shownIn?: unknown; error?: unknown };
  if (!response.ok) {
    const reason = typeof body.error === 'string' ? body.error : `HTTP ${response.status}`;
    throw new Error(`ptydeck at ${where} gave no link: ${reason}`);
  }
  if (typeof body.url === 'string') return { url: body.url };
  if (typeof body.shownIn === 'string') return { shownIn: body.shownIn };
  throw new Error(`ptydeck at ${where} answered without a link`);
}
