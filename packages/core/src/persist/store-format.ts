/**
 * The session store's files: per session `<id>.json` (its metadata) and
 * `<id>.out` (the last of its output). The output file begins with a header
 * that carries the absolute cursor of its first byte, so a tail rewritten
 * by a compaction is never read against a stale start from the metadata
 * (the two files are replaced one after the other, and a kill may fall
 * between).
 */
import { join } from 'node:path';
import { SessionInfo } from '@ptydeck/contract';
import { z } from 'zod';

export const META_SUFFIX = '.json';
export const OUTPUT_SUFFIX = '.out';
/** The session's command records and output times (timeline/), as JSON. */
export const TIMELINE_SUFFIX = '.cmds';
/** Names that are ours but half-written: `.<id>.json.<random>`; a kill mid-write leaves one behind. */
export const TEMP_PREFIX = '.';

/** Ids become file names: anything else (a slash, a dot) is never written or read. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isStorableId(id: string): boolean {
  return SAFE_ID.test(id);
}

export function metaPath(dir: string, id: string): string {
  return join(dir, id + META_SUFFIX);
}

export function outputPath(dir: string, id: string): string {
  return join(dir, id + OUTPUT_SUFFIX);
}

export function timelinePath(dir: string, id: string): string {
  return join(dir, id + TIMELINE_SUFFIX);
}

/** The closed sessions' command records (timeline/), one file: no suffix of a session's, so load() passes it by. */
export const CLOSED_COMMANDS_FILE = 'closed-commands';

export function closedCommandsPath(dir: string): string {
  return join(dir, CLOSED_COMMANDS_FILE);
}

export const SessionMeta = z.object({
  version: z.literal(1),
  info: SessionInfo,
  /** End cursor of the output file when this was written: a shorter file was torn by a kill. */
  written: z.number().int().nonnegative(),
  /** The service log's end when this was written (LostRecord.readEnd). */
  readEnd: z.number().int().nonnegative().nullable(),
  /** The agent tool's read cursor for the session, when an agent reads it (LostRecord.agentCursor). */
  agentCursor: z.number().int().nonnegative().nullable(),
  savedAt: z.number(),
});
export type SessionMeta = z.infer<typeof SessionMeta>;

/** "PTYDOUT1" then the start cursor as a little-endian u64. */
const MAGIC = Buffer.from('PTYDOUT1', 'latin1');
export const HEADER_BYTES = 16;

export function outputHeader(start: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeBigUInt64LE(BigInt(start), MAGIC.length);
  return header;
}

/** The start cursor a file's header names, or undefined for a file too short or not ours. */
export function readHeader(file: Buffer): number | undefined {
  if (file.length < HEADER_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const start = file.readBigUInt64LE(MAGIC.length);
  return start <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(start) : undefined;
}
