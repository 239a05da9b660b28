/**
 * Reads what an earlier host left in the store's directory, once, at start,
 * before anything is served. Nothing here trusts a file: a kill can fall
 * anywhere in a write, and anything running as the developer can write the
 * directory (common/untrusted-read.ts). So a file is read only when it is a regular
 * file under a cap, asynchronously (nothing can hold the host's loop while it
 * holds the host lock); an entry that is not, or a record that does not parse,
 * is set aside with one line in the log; an output file torn short is taken
 * as far as it goes; half-written temporary files and output without metadata
 * are removed. One bad record never costs the others, and nothing in here
 * throws out of a host's start.
 *
 * How many records come back, and how much of their output, is bounded
 * (LoadLimits): past that, records are left on disk unread, never removed,
 * since nothing tells the developer's from one planted beside it.
 */
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandRecord, formatZodIssues, type ErrorReporter } from '@ptydeck/contract';
import { z } from 'zod';
import type { LostRecord } from '../pty/lost-record.js';
import { CLOSED_COMMANDS_FILE, closedCommandsPath, HEADER_BYTES, isStorableId, META_SUFFIX, metaPath, OUTPUT_SUFFIX, outputPath, readHeader, SessionMeta, TEMP_PREFIX, TIMELINE_SUFFIX, timelinePath } from './store-format.js';
import { withoutControls } from '../pty/title-tracker.js';
import type { OnDisk } from './session-writer.js';
import { SET_ASIDE_DIR, setAside } from './untrusted-files.js';
import { recordsFromDisk } from './record-from-disk.js';
import { readUntrustedFile, UntrustedFileError } from '../common/untrusted-read.js';

export interface LoadedStore {
  records: LostRecord[];
  /** What each record's output file holds, so a writer for the restored session need not write it again. */
  onDisk: Map<string, OnDisk>;
}

export interface LoadLimits {
  /** The store's per-session cap: an output file of ours holds at most three times it (SessionWriter's compaction). */
  sessionBytes: number;
  /** Output read across records; the records past it are left on disk. */
  totalBytes: number;
  /** Records read at most; the others are left on disk. */
  maxRecords: number;
}

/** A session's command records (1000 at most, a few hundred bytes each) and output times. */
const MAX_TIMELINE_BYTES = 4 * 1024 * 1024;

/** Metadata is a few hundred bytes; this is room for a long command line and title, and bounds 256 of them to 64 MiB. */
const MAX_META_BYTES = 256 * 1024;

export async function loadRecords(dir: string, limits: LoadLimits, report: ErrorReporter): Promise<LoadedStore> {
  const records: LostRecord[] = [];
  const onDisk = new Map<string, OnDisk>();
  const entries = await listDir(dir, report);
  const bad = (name: string, why: string) => setAsideLogged(dir, name, why, report);
  const ids: string[] = [];
  for (const entry of entries) {
    const name = entry.name;
    if (name === SET_ASIDE_DIR) continue;
    if (name.startsWith(TEMP_PREFIX)) {
      if (entry.isDirectory()) await bad(name, 'a directory under the name of a half-written file');
      // Unlinking removes the name only: a link's target, a FIFO's writer are untouched.
      else await unlink(join(dir, name)).catch(() => undefined);
      continue;
    }
    if (!name.endsWith(META_SUFFIX)) continue;
    const id = name.slice(0, -META_SUFFIX.length);
    if (isStorableId(id)) ids.push(id);
  }
  const kept = new Set(ids);
  const metas: Array<{ id: string; meta: SessionMeta }> = [];
  for (const id of ids.slice(0, limits.maxRecords)) {
    try {
      metas.push({ id, meta: await readMeta(dir, id) });
    } catch (error) {
      kept.delete(id);
      await setAsideRecord(dir, id, error, report);
    }
  }
  // The newest first, for the output cap: what a developer just had open matters most.
  metas.sort((a, b) => b.meta.info.createdAt - a.meta.info.createdAt);
  let outputBytes = 0;
  let leftUnread = Math.max(0, ids.length - limits.maxRecords);
  for (const { id, meta } of metas) {
    try {
      const file = await readUntrustedFile(outputPath(dir, id), HEADER_BYTES + 3 * limits.sessionBytes);
      if (file && outputBytes + file.length > limits.totalBytes) {
        leftUnread++;
        continue;
      }
      outputBytes += file?.length ?? 0;
      const { record, output } = toRecord(meta, file ?? Buffer.alloc(0));
      const timeline = await readTimeline(dir, id, report);
      if (timeline !== undefined) record.timeline = timeline;
      records.push(record);
      onDisk.set(id, output);
    } catch (error) {
      kept.delete(id);
      await setAsideRecord(dir, id, error, report);
    }
  }
  if (leftUnread > 0) {
    logLine(report, `${leftUnread} more are left on disk unread (at most ${limits.maxRecords} records, and their output up to the store's total cap, come back)`, 'the session store restored only some records');
  }
  for (const entry of entries) {
    const name = entry.name;
    const suffix = name.endsWith(OUTPUT_SUFFIX) ? OUTPUT_SUFFIX : name.endsWith(TIMELINE_SUFFIX) ? TIMELINE_SUFFIX : null;
    if (suffix === null || kept.has(name.slice(0, -suffix.length))) continue;
    if (entry.isDirectory()) await bad(name, 'a directory where an output file would be');
    else await unlink(join(dir, name)).catch(() => undefined);
  }
  records.sort((a, b) => a.info.createdAt - b.info.createdAt);
  return { records, onDisk };
}

/** The closed sessions' records: 5000 at most, each a few hundred bytes, bounded by its command line and cwd. */
const MAX_CLOSED_BYTES = 16 * 1024 * 1024;

/** The closed sessions' command records file (timeline/'s persistedClosed()): every record a closed one. */
const ClosedCommandsFile = z.object({
  version: z.literal(1),
  commands: z.array(CommandRecord.required({ closed: true })).max(10_000),
});

/**
 * The closed sessions' command records an earlier host kept, one per id, or undefined when there are
 * none. A file that cannot be read or is not such records is set aside (with a line in the log), so the
 * next write does not replace it unseen.
 */
export async function loadClosedCommands(dir: string, report: ErrorReporter): Promise<CommandRecord[] | undefined> {
  const name = CLOSED_COMMANDS_FILE;
  let raw: unknown;
  try {
    const text = await readUntrustedFile(closedCommandsPath(dir), MAX_CLOSED_BYTES);
    if (text === undefined) return undefined;
    raw = JSON.parse(text.toString('utf8'));
  } catch (error) {
    await setAsideLogged(dir, name, error instanceof Error ? error.message : String(error), report);
    return undefined;
  }
  const parsed = ClosedCommandsFile.safeParse(raw);
  if (!parsed.success) {
    await setAsideLogged(dir, name, `not closed sessions' command records (${formatZodIssues(parsed.error, 3)})`, report);
    return undefined;
  }
  const seen = new Set<string>();
  return recordsFromDisk(parsed.data.commands.filter((record) => !seen.has(record.id) && seen.add(record.id)));
}

/**
 * The record's timeline file as parsed JSON, or undefined when there is none or it cannot be read: the
 * session comes back without its command records rather than not at all.
 */
async function readTimeline(dir: string, id: string, report: ErrorReporter): Promise<unknown> {
  try {
    const text = await readUntrustedFile(timelinePath(dir, id), MAX_TIMELINE_BYTES);
    return text === undefined ? undefined : JSON.parse(text.toString('utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    logLine(report, error instanceof Error ? error.message : String(error), `the session store could not read the command records of session ${id}`);
    return undefined;
  }
}

async function readMeta(dir: string, id: string): Promise<SessionMeta> {
  const text = await readUntrustedFile(metaPath(dir, id), MAX_META_BYTES);
  if (text === undefined) throw new UntrustedFileError('gone while the store read it');
  let json: unknown;
  try {
    json = JSON.parse(text.toString('utf8'));
  } catch (error) {
    throw new UntrustedFileError(`not JSON (${(error as Error).message})`);
  }
  const parsed = SessionMeta.safeParse(json);
  if (!parsed.success) throw new UntrustedFileError(`not a session record (${formatZodIssues(parsed.error, 3)})`);
  if (parsed.data.info.id !== id) throw new UntrustedFileError(`its metadata names session ${JSON.stringify(parsed.data.info.id)}`);
  return parsed.data;
}

function toRecord(meta: SessionMeta, file: Buffer): { record: LostRecord; output: OnDisk } {
  const headerStart = readHeader(file);
  // Without a header (the file is missing or torn inside it) nothing of the output is known, but where it ended is.
  const start = headerStart ?? meta.written;
  const output = headerStart === undefined ? new Uint8Array(0) : new Uint8Array(file.buffer, file.byteOffset + HEADER_BYTES, file.length - HEADER_BYTES);
  const end = start + output.length;
  return {
    record: {
      info: meta.info,
      start,
      output,
      // A kill between the output's write and the metadata's leaves output past the readEnd it recorded.
      readEnd: meta.readEnd === null ? null : Math.max(meta.readEnd, end),
      agentCursor: meta.agentCursor,
    },
    output: { start, length: output.length },
  };
}

/** Both of a record's files go to set-aside, with one line in the log saying why. */
async function setAsideRecord(dir: string, id: string, error: unknown, report: ErrorReporter): Promise<void> {
  const why = error instanceof UntrustedFileError ? error.message : `unreadable (${error instanceof Error ? error.message : String(error)})`;
  const moved = await setAside(dir, id + META_SUFFIX);
  await setAside(dir, id + OUTPUT_SUFFIX);
  logLine(report, why, moved ? `the session store set aside the record of session ${id} in ${SET_ASIDE_DIR}/` : `the session store skipped the record of session ${id}`);
}

async function setAsideLogged(dir: string, name: string, why: string, report: ErrorReporter): Promise<void> {
  const moved = await setAside(dir, name);
  logLine(report, why, moved ? `the session store set aside ${JSON.stringify(name)} in ${SET_ASIDE_DIR}/` : `the session store skipped ${JSON.stringify(name)}`);
}

async function listDir(dir: string, report: ErrorReporter) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logLine(report, String(error), 'the session store cannot list its directory; nothing is restored');
    return [];
  }
}

/** One line of the log, whatever a file or a name put in it: a string, not an Error, so no stack follows. */
function logLine(report: ErrorReporter, why: string, context: string): void {
  report(withoutControls(why).slice(0, 400), withoutControls(context));
}
