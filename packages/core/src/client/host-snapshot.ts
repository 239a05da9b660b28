// `ptydeck ls` and `status`: every session and agent of the running host, in one request the host judges by who asks.
import { SNAPSHOT_PATH, type PanelServerMessage } from '@ptydeck/contract';
import { resolveStateDir, type DiscoveryRecord } from '../common/discovery.js';
import { requestJson, type HostAnswer } from './host-request.js';
import { provenRequest, vouchedHost } from './proven-request.js';
import { refusedInside, runningHost } from './running-host.js';
import { readsAsSnapshot } from './snapshot-check.js';

export type SnapshotMessage = Extract<PanelServerMessage, { type: 'snapshot' }>;

/** What the host said of itself and its sessions, and where it was asked. */
export interface HostSnapshot {
  snapshot: SnapshotMessage;
  /** The server's address, for messages. */
  url: string;
  /** The host's process, as the discovery record it was proven by names it. */
  hostPid: number;
}

const REQUEST_TIMEOUT_MS = 3000;

/**
 * The snapshot a panel gets first, asked of the running host of `stateDir`
 * (proven, as for a panel) with no secret: the host judges the asking process
 * as it does for /ticket and refuses one inside a session. One request, no
 * panel socket, the proof asked in it (proven-request.ts): `ptydeck ls`
 * starts in about the time of `node -e 0` (bench figure 12). Throws an Error
 * with a one-line message when none runs, it speaks another host protocol,
 * or it refuses this process.
 */
export async function hostSnapshot(command: string, stateDir: string = resolveStateDir()): Promise<HostSnapshot> {
  const { record, status, body } = await askSnapshot(stateDir);
  const server = record.url;
  if (status !== 200) {
    const reason = typeof (body as { error?: unknown } | undefined)?.error === 'string' ? (body as { error: string }).error : `HTTP ${status}`;
    if (status === 403 && reason.startsWith('refused: ')) throw refusedInside(command);
    throw new Error(`ptydeck at ${server} gave no session list: ${reason}`);
  }
  return { snapshot: await readSnapshot(body, server), url: server, hostPid: record.pid };
}

/** The host's answer to /snapshot: proven in the one request, or, when anything is off, the long way (ensureHost, then the request), which says what. */
async function askSnapshot(stateDir: string): Promise<HostAnswer & { record: DiscoveryRecord }> {
  const vouched = vouchedHost(stateDir);
  const quick = vouched && (await provenRequest(vouched, SNAPSHOT_PATH, { method: 'POST', timeoutMs: REQUEST_TIMEOUT_MS }));
  if (vouched && quick) return { record: vouched.record, ...quick };
  const record = await runningHost(stateDir);
  const answer = await requestJson(new URL(SNAPSHOT_PATH, record.url), { method: 'POST', timeoutMs: REQUEST_TIMEOUT_MS }).catch((error: Error) => {
    throw new Error(`ptydeck at ${record.url} is not answering (${error.message})`);
  });
  return { record, ...answer };
}

/**
 * The answer as a snapshot. The fields a client reads are checked by hand
 * (snapshot-check.ts); only an answer that fails that is parsed with the
 * contract's schema, which then decides, and says what is wrong: zod and the
 * contract's schemas were a third of `ptydeck ls`'s start.
 */
export async function readSnapshot(body: unknown, server: string): Promise<SnapshotMessage> {
  if (readsAsSnapshot(body)) return body;
  const { formatZodIssues, SnapshotMessage } = await import('./snapshot-schema.js');
  const parsed = SnapshotMessage.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new Error(`ptydeck at ${server} answered a session list this ptydeck cannot read: ${formatZodIssues(parsed.error, 3)}`);
}
