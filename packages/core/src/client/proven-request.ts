// The host proven in the request a client needs anyway, instead of a /proof round trip before it.
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { readDiscovery, type DiscoveryRecord } from '../common/discovery.js';
import { loadProofCheck, newChallenge, PROOF_HEADER, proofHolds } from '../common/server-proof.js';
import { checkHostProcess } from './host-check.js';
import { UntrustedHostError } from './ensure-host.js';
import { requestJson, type HostAnswer, type HostRequest } from './host-request.js';

/** The running host's record, and whether the kernel vouched for the process listening where it says. */
export interface VouchedHost {
  record: DiscoveryRecord;
  /**
   * True where the kernel named the listener as the host (checkHostProcess's
   * 'trusted'); false where it cannot say (no /proc), when only the /proof
   * challenge can tell the host from another process on the port.
   */
  byKernel: boolean;
}

/**
 * The running host of `stateDir` when nothing is off, with no request sent:
 * server.json names a live process that speaks this host protocol, and the
 * kernel vouches for it as ensureHost requires (host-check.ts), or cannot
 * say. Throws UntrustedHostError when the kernel refuses it; undefined for
 * anything else, when the caller takes ensureHost's way, which says what is wrong.
 */
export function vouchedHost(stateDir: string): VouchedHost | undefined {
  const found = readDiscovery(stateDir);
  if (found.status !== 'live' || found.record.protocol !== HOST_PROTOCOL_VERSION) return undefined;
  const check = checkHostProcess(found.record, stateDir);
  if (check.kind === 'refused') throw new UntrustedHostError(found.record, check.reason);
  return check.kind === 'absent' ? undefined : { record: found.record, byKernel: check.kind === 'trusted' };
}

/**
 * One request to a vouched host's /snapshot or /ticket. Where the kernel
 * vouched for the listener, that is all: the /proof challenge proves that the
 * server knows server.json's token, which every process that could rewrite
 * server.json can read too, and the kernel's check already holds the
 * listener to the host.lock holder, outside every session, of this user; so
 * the client does not load node:crypto, a tenth of its start (bench figure
 * 12), for a check that adds nothing. Where the kernel cannot say, the request
 * asks a fresh challenge (`?challenge=`) and its answer counts only if it
 * carries the HMAC of that challenge under the record's token (PROOF_HEADER),
 * as /proof would: one round trip where there were two. The request carries
 * no secret, so a server that is not the host learns nothing from it.
 * Undefined when the answer does not prove the host, or none came: the caller
 * then takes the long way.
 */
export async function provenRequest({ record, byKernel }: VouchedHost, path: string, options: HostRequest): Promise<HostAnswer | undefined> {
  const url = new URL(path, record.url);
  if (byKernel) return requestJson(url, options).catch(() => undefined);
  const challenge = newChallenge();
  url.searchParams.set('challenge', challenge);
  // The proof's check is loaded while the host judges the request, not after its answer came.
  const answer = await requestJson(url, { ...options, onSent: loadProofCheck }).catch(() => undefined);
  return answer && proofHolds(record.token, challenge, answer.headers[PROOF_HEADER]) ? answer : undefined;
}

