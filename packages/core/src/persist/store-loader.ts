/**
 * Reads what an earlier host left in the store's directory, once, at start,
 * before anything is served (so synchronously). A kill can fall anywhere in
 * a write, so nothing here trusts a file: metadata that does not parse is
 * reported and its session's files go; an output file torn short is taken
 * as far as it goes; half-written temporary files and output without
 * metadata are removed. One bad record never costs the others.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorReporter } from '@ptydeck/contract';
import type { LostRecord } from './lost-record.js';
import { HEADER_BYTES, isStorableId, META_SUFFIX, metaPath, OUTPUT_SUFFIX, outputPath, readHeader, SessionMeta, TEMP_PREFIX } from './store-format.js';
import type { OnDisk } from './session-writer.js';

export interface LoadedStore {
  records: LostRecord[];
  /** What each record's output file holds, so a writer for the restored session need not write it again. */
  onDisk: Map<string, OnDisk>;
}

export function loadRecords(dir: string, report: ErrorReporter): LoadedStore {
  const records: LostRecord[] = [];
  const onDisk = new Map<string, OnDisk>();
  const names = listDir(dir);
  const metas = new Set<string>();
  for (const name of names) {
    if (name.startsWith(TEMP_PREFIX)) {
      rmSync(join(dir, name), { force: true });
      continue;
    }
    if (!name.endsWith(META_SUFFIX)) continue;
    const id = name.slice(0, -META_SUFFIX.length);
    if (!isStorableId(id)) continue;
    metas.add(id);
    try {
      const { record, output } = loadRecord(dir, id);
      records.push(record);
      onDisk.set(id, output);
    } catch (error) {
      report(error, `the session store's record of session ${id} cannot be read; its files are removed`);
      metas.delete(id);
      rmSync(metaPath(dir, id), { force: true });
      rmSync(outputPath(dir, id), { force: true });
    }
  }
  for (const name of names) {
    if (name.endsWith(OUTPUT_SUFFIX) && !metas.has(name.slice(0, -OUTPUT_SUFFIX.length))) rmSync(join(dir, name), { force: true });
  }
  records.sort((a, b) => a.info.createdAt - b.info.createdAt);
  return { records, onDisk };
}

function loadRecord(dir: string, id: string): { record: LostRecord; output: OnDisk } {
  const meta = SessionMeta.parse(JSON.parse(readFileSync(metaPath(dir, id), 'utf8')));
  if (meta.info.id !== id) throw new Error(`the metadata names session ${meta.info.id}`);
  const file = readOrEmpty(outputPath(dir, id));
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

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function readOrEmpty(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw error;
  }
}
