// The host proven in the request a client needs anyway, instead of a /proof round trip before it.
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { readDiscovery, type DiscoveryRecord } from '../common/discovery.js';
import { loadProofCheck, newChallenge, PROOF_HEADER, proofHolds } from '../common/server-proof.js';
import { checkHostProcess } from './host-check.js';
import { UntrustedHostError } from './ensure-host.js';
import { requestJson, type HostAnswer, type HostRequest } from './host-request.js';

/**
 * The running host's record of `stateDir` when nothing is off, with no request
 * sent: server.json names a live process that speaks this host protocol, and
 * the kernel vouches for it as ensureHost requires (host-check.ts), or cannot
 * say. Throws UntrustedHostError when the kernel refuses it; undefined for
 * anything else, when the caller takes ensureHost's way, which says what is wrong.
 */
export function vouchedHost(stateDir: string): DiscoveryRecord | undefined {
  const found = readDiscovery(stateDir);
  if (found.status !== 'live' || found.record.protocol !== HOST_PROTOCOL_VERSION) return undefined;
  const check = checkHostProcess(found.record, stateDir);
  if (check.kind === 'refused') throw new UntrustedHostError(found.record, check.reason);
  return check.kind === 'absent' ? undefined : found.record;
}

/**
 * One request to a vouched host's /snapshot or /ticket with a fresh challenge
 * (`?challenge=`), whose answer counts only if it carries the HMAC of that
 * challenge under the record's token (PROOF_HEADER), as /proof would: one
 * round trip where there were two. The request carries no secret, so a server
 * that is not the host learns nothing from it. Undefined when the answer does
 * not prove the host, or none came: the caller then takes the long way.
 */
export async function provenRequest(record: DiscoveryRecord, path: string, options: HostRequest): Promise<HostAnswer | undefined> {
  const challenge = newChallenge();
  const url = new URL(path, record.url);
  url.searchParams.set('challenge', challenge);
  // The proof's check is loaded while the host judges the request, not after its answer came.
  const answer = await requestJson(url, { ...options, onSent: loadProofCheck }).catch(() => undefined);
  return answer && proofHolds(record.token, challenge, answer.headers[PROOF_HEADER]) ? answer : undefined;
}
