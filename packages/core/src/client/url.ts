// `ptydeck url`: a new one-time panel link from the running host, which decides by who asks.
import { readDiscovery, resolveStateDir } from '../common/discovery.js';
import { askPanelLink, type PanelLinkAnswer } from './panel-access.js';
import { assertTrustedHost } from './ensure-host.js';

export type { PanelLinkAnswer };

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
    throw new Error(`no running ptydeck found (${why}); start one with \`ptydeck\``);
  }
  // A link from a server that is not the host would be a page of someone else's choosing.
  assertTrustedHost(found.record, stateDir);
  return askPanelLink(found.record.url);
}
