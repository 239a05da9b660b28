// Panel scope for the developer's own processes, asked of the host with no secret (the kernel says who asks).
import { TICKET_EXCHANGE_PATH, TICKET_FRAGMENT_KEY, TICKET_PATH } from '@ptydeck/contract';
import { ensureHost } from './ensure-host.js';
import { requestJson } from './host-request.js';

/**
 * Panel scope for a process of the developer's own, asked of a running host
 * with no secret: anything such a process could read, a process in an agent's
 * shell could read too. The host asks the kernel who is calling (/ticket) and
 * hands a one-time link only to a process outside every session and chat;
 * the link's ticket is then traded for the panel token with the host's own
 * Origin, as the panel's page does. `ptydeck url`, `ls`, `attach` and the
 * desktop app's main process all come in this way.
 */

/** A link, or where a host that cannot tell who asks (no /proc) showed one instead. */
export type PanelLinkAnswer = { url: string } | { shownIn: string };

/** Why a host gave no link: the asker runs inside a ptydeck session, or the host refused otherwise. */
export class PanelLinkRefused extends Error {
  override readonly name = 'PanelLinkRefused';
  constructor(
    message: string,
    /** True when the host judged the asker to be inside a session or chat. */
    readonly inside: boolean,
  ) {
    super(message);
  }
}

const REQUEST_TIMEOUT_MS = 3000;

/** A fresh one-time panel link from the host at `server` (its http://127.0.0.1:PORT). */
export async function askPanelLink(server: string): Promise<PanelLinkAnswer> {
  const { status, body } = await postJson(server, TICKET_PATH);
  if (status !== 200 && status !== 202) {
    const reason = typeof body.error === 'string' ? body.error : `HTTP ${status}`;
    throw new PanelLinkRefused(`ptydeck at ${server} gave no link: ${reason}`, status === 403 && reason.startsWith('refused: '));
  }
  if (typeof body.url === 'string') return { url: body.url };
  if (typeof body.shownIn === 'string') return { shownIn: body.shownIn };
  throw new Error(`ptydeck at ${server} answered without a link`);
}

/** Trades a panel link's one-time ticket for the panel token. */
export async function redeemPanelLink(server: string, link: string): Promise<string> {
  const ticket = new URLSearchParams(new URL(link).hash.slice(1)).get(TICKET_FRAGMENT_KEY);
  const { status, body } = await postJson(server, TICKET_EXCHANGE_PATH, { ticket }, new URL(server).origin);
  if (status !== 200 || typeof body.token !== 'string') {
    throw new Error(`ptydeck at ${server} did not take its own ticket: ${typeof body.error === 'string' ? body.error : `HTTP ${status}`}`);
  }
  return body.token;
}

/** The panel token of the host at `server`, or an error saying why it is not given. */
export async function panelToken(server: string): Promise<string> {
  const answer = await askPanelLink(server);
  if ('shownIn' in answer) {
    throw new PanelLinkRefused(`this system cannot tell ptydeck which process asks, so it showed the link in ${answer.shownIn} instead`, false);
  }
  return redeemPanelLink(server, answer.url);
}

/** What a panel needs to connect to the host: where it is and the panel token. */
export interface HostPanel {
  url: string;
  panelToken: string;
  /** The host's pid. */
  pid: number;
}

/** Joins the host of `stateDir`, starting it detached when none runs, with panel scope. */
export async function joinHostAsPanel(options: { stateDir?: string; log: (line: string) => void }): Promise<HostPanel> {
  const { record } = await ensureHost({ ...(options.stateDir ? { stateDir: options.stateDir } : {}), log: options.log });
  return { url: record.url, panelToken: await panelToken(record.url), pid: record.pid };
}

async function postJson(server: string, path: string, body?: unknown, origin?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await requestJson(new URL(path, server), {
    method: 'POST',
    ...(origin === undefined ? {} : { headers: { Origin: origin } }),
    ...(body === undefined ? {} : { body }),
    timeoutMs: REQUEST_TIMEOUT_MS,
  }).catch((error: Error) => {
    throw new Error(`ptydeck at ${server} is not answering (${error.message})`);
  });
  const json = response.body;
  return { status: response.status, body: json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {} };
}
