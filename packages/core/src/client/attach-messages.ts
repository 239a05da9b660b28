// The panel messages `ptydeck attach` reads, checked by hand: the path to its first frame loads no zod.
import { decodeOutputFrame, SESSION_ID_MAX, SESSION_ID_MIN, type IncomingPanelMessage, type PanelServerMessage } from '@ptydeck/contract';
import { isObject, readsAsSession } from './snapshot-check.js';

/**
 * One panel socket message as attach reads it: output frames (the contract's
 * decoder, which checks by hand), and of the control messages those attach
 * acts on (resync, error, a session's update, exit and removal) with the
 * fields it reads checked by hand (a session's as snapshot-check.ts reads
 * one); the snapshot comes first and apart (readSnapshot). Never more lenient
 * than the contract on those (snapshot-check.test.ts holds the two
 * together); anything else comes back `invalid`, as a message the contract
 * refuses would, and attach leaves it out. The contract's PanelServerMessage
 * (zod, every message of every channel) was the rest of what attach loaded.
 */
export function readAttachMessage(data: Uint8Array, binary: boolean): IncomingPanelMessage {
  if (binary) {
    try {
      return { kind: 'output', frame: decodeOutputFrame(data) };
    } catch (error) {
      return { kind: 'invalid', reason: `invalid output frame: ${(error as Error).message}` };
    }
  }
  // A message whose type attach does not read is not parsed: the host sends a panel's chat list, agents, timeline (up
  // to 5000 records, megabytes on a host that ran many commands) and leftovers before the session's screen.
  const named = leadingType(data);
  if (named !== undefined && !ATTACH_TYPES.has(named)) return { kind: 'invalid', reason: 'a control message attach does not read, or malformed' };
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch {
    return { kind: 'invalid', reason: 'control message is not JSON' };
  }
  return readsAsAttachControl(value) ? { kind: 'control', message: value } : { kind: 'invalid', reason: 'a control message attach does not read, or malformed' };
}

type AttachControl = Extract<PanelServerMessage, { type: 'resync' | 'error' | 'event' }>;

/** The control messages attach reads (readsAsAttachControl). */
const ATTACH_TYPES: ReadonlySet<string> = new Set<AttachControl['type']>(['resync', 'error', 'event']);
/** How the host's JSON.stringify begins every control message: its type first. */
const TYPE_PREFIX = Buffer.from('{"type":"', 'latin1');
/** Longer than any type of the contract's: a longer name is left to the full parse. */
const MAX_TYPE_LENGTH = 64;

/**
 * The type a message names first, read from its opening bytes where they are `{"type":"NAME"` with no escape in NAME;
 * undefined otherwise. A message that names another type first is one attach leaves out, whatever follows (a later
 * `"type"` key would win in JSON.parse: leaving that one out is stricter than the contract, never more lenient).
 */
function leadingType(data: Uint8Array): string | undefined {
  if (data.byteLength < TYPE_PREFIX.length + 1) return undefined;
  for (let i = 0; i < TYPE_PREFIX.length; i++) if (data[i] !== TYPE_PREFIX[i]) return undefined;
  const end = Math.min(data.byteLength, TYPE_PREFIX.length + MAX_TYPE_LENGTH + 1);
  for (let i = TYPE_PREFIX.length; i < end; i++) {
    if (data[i] === 0x5c) return undefined;
    if (data[i] === 0x22) return Buffer.from(data.buffer, data.byteOffset + TYPE_PREFIX.length, i - TYPE_PREFIX.length).toString('latin1');
  }
  return undefined;
}

function readsAsAttachControl(value: unknown): value is AttachControl {
  if (!isObject(value)) return false;
  switch (value.type) {
    case 'resync':
      return isSessionId(value.id) && isCursor(value.cursor) && isCursor(value.skipped) && typeof value.screen === 'string';
    case 'error':
      return typeof value.message === 'string' && typeof value.code === 'string' && (value.requestId === undefined || typeof value.requestId === 'string');
    case 'event':
      return readsAsEvent(value.event);
    default:
      return false;
  }
}

function readsAsEvent(event: unknown): boolean {
  if (!isObject(event)) return false;
  switch (event.type) {
    case 'pty.updated':
      return readsAsSession(event.info);
    case 'pty.exited':
      return isSessionId(event.id) && (event.exitCode === null || Number.isSafeInteger(event.exitCode)) && (event.signal === null || typeof event.signal === 'string') && readsAsSession(event.info);
    case 'pty.removed':
      return isSessionId(event.id);
    default:
      return false;
  }
}

const isSessionId = (value: unknown): boolean => typeof value === 'string' && value.length >= SESSION_ID_MIN && value.length <= SESSION_ID_MAX;
const isCursor = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
