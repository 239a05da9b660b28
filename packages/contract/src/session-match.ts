// Which session a user's id or id prefix names: the CLI's choice (`ptydeck attach`, `export`) and the host's for a
// panel handshake that names one (PANEL_ATTACH_PARAM), which must be the same choice.
import type { SessionInfo } from './session.js';

export type SessionMatch = { kind: 'found'; info: SessionInfo } | { kind: 'none' } | { kind: 'ambiguous'; candidates: SessionInfo[] };

/** The session whose id is `query` or starts with it; an exact id wins over longer ones it prefixes. */
export function matchSession(sessions: readonly SessionInfo[], query: string): SessionMatch {
  const exact = sessions.find((info) => info.id === query);
  if (exact) return { kind: 'found', info: exact };
  const candidates = query.length === 0 ? [] : sessions.filter((info) => info.id.startsWith(query));
  if (candidates.length === 1) return { kind: 'found', info: candidates[0]! };
  return candidates.length === 0 ? { kind: 'none' } : { kind: 'ambiguous', candidates };
}
