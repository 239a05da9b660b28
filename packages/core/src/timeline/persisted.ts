// What the session store keeps of a session's timeline, checked on the way back: the file is untrusted input.
import { Cols, CommandRecord, formatZodIssues, Rows } from '@ptydeck/contract';
import { z } from 'zod';
import { recordsFromDisk } from '../persist/record-from-disk.js';
import type { PersistedTimeline } from './timeline.js';

const PersistedTimelineSchema = z.object({
  version: z.literal(1),
  commands: z.array(CommandRecord).max(10_000),
  times: z.array(z.number().int().nonnegative()).max(200_000),
  size: z.object({ cols: Cols, rows: Rows }).optional(),
  resizes: z.array(z.object({ cursor: z.number().int().nonnegative(), time: z.number(), cols: Cols, rows: Rows })).max(1000).optional(),
});

/** The timeline a store file holds, or an Error saying why it cannot be taken. */
export function parsePersistedTimeline(raw: unknown): PersistedTimeline | Error {
  const parsed = PersistedTimelineSchema.safeParse(raw);
  if (!parsed.success) return new Error(`not a command timeline (${formatZodIssues(parsed.error, 3)})`);
  // One record per id: a planted file naming an id twice gets the first.
  const seen = new Set<string>();
  // A kept session's records are its own, never a closed one's (`closed` is the host's to set when it closes one).
  const commands = recordsFromDisk(parsed.data.commands.filter((record) => !seen.has(record.id) && seen.add(record.id)).map(({ closed: _closed, ...record }) => record));
  const { times, size, resizes } = parsed.data;
  return { version: 1, commands, times, ...(size ? { size } : {}), ...(resizes ? { resizes } : {}) };
}
