// Checks the PTY service's inputs where they enter, with errors that name the argument.
import { statSync } from 'node:fs';
import { formatZodIssues, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, SessionSource } from '@ptydeck/contract';
import { z } from 'zod';
import { PtyError, type CreateSessionInput, type ReadOptions } from './types.js';

const noNul = (what: string) => z.string().refine((value) => !value.includes('\0'), `${what} must not contain NUL`);

const Cols = z
  .number({ error: 'cols must be a number' })
  .int('cols must be an integer')
  .min(MIN_COLS, `cols must be between ${MIN_COLS} and ${MAX_COLS}`)
  .max(MAX_COLS, `cols must be between ${MIN_COLS} and ${MAX_COLS}`);
const Rows = z
  .number({ error: 'rows must be a number' })
  .int('rows must be an integer')
  .min(MIN_ROWS, `rows must be between ${MIN_ROWS} and ${MAX_ROWS}`)
  .max(MAX_ROWS, `rows must be between ${MIN_ROWS} and ${MAX_ROWS}`);

const CreateInput = z.object({
  command: noNul('command').min(1, 'command must not be empty').optional(),
  args: z.array(noNul('an argument')).optional(),
  cwd: noNul('cwd').min(1, 'cwd must not be empty').optional(),
  env: z.record(z.string().min(1).refine((key) => !key.includes('=') && !key.includes('\0'), 'env names must not contain = or NUL'), noNul('an env value')).optional(),
  cols: Cols.optional(),
  rows: Rows.optional(),
  title: z.string().max(4096).optional(),
  source: SessionSource,
  owner: z.string().optional(),
  ownerName: z.string().optional(),
  confine: z.custom<NonNullable<CreateSessionInput['confine']>>((value) => typeof value === 'function', 'confine must be a function').optional(),
  shellArgs: z.custom<NonNullable<CreateSessionInput['shellArgs']>>((value) => typeof value === 'function', 'shellArgs must be a function').optional(),
});

const ReadInput = z.object({
  cursor: z.number().int('cursor must be an integer').min(0, 'cursor must not be negative').optional(),
  maxBytes: z.number().int('maxBytes must be an integer').min(1, 'maxBytes must be at least 1').optional(),
  into: z.instanceof(Uint8Array, { message: 'into must be a Uint8Array' }).optional(),
});

function invalid(error: z.ZodError, what: string): PtyError {
  return new PtyError('invalid_argument', `invalid ${what}: ${formatZodIssues(error)}`);
}

/** Whether `dir` names a directory that exists now (a missing path, a file or an unreadable one: false). */
export function isExistingDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Checks a create() input where it enters; throws invalid_argument naming every problem. */
export function parseCreateInput(input: unknown): CreateSessionInput {
  const parsed = CreateInput.safeParse(input);
  if (!parsed.success) throw invalid(parsed.error, 'session input');
  const cwd = parsed.data.cwd;
  if (cwd !== undefined) {
    let isDirectory = false;
    try {
      isDirectory = statSync(cwd).isDirectory();
    } catch {
      throw new PtyError('invalid_argument', `invalid session input: cwd '${cwd}' does not exist`);
    }
    if (!isDirectory) throw new PtyError('invalid_argument', `invalid session input: cwd '${cwd}' is not a directory`);
  }
  return parsed.data;
}

/**
 * Read options, checked: every pump of a viewer, every screen slice and every
 * probe of a log's end is a read, so a flood makes reads by the thousand and
 * a zod parse on each showed in the main thread's profile. Valid options are
 * checked by hand; zod only words the error.
 */
export function parseReadOptions(options: unknown): ReadOptions {
  if (options === undefined) return {};
  if (typeof options === 'object' && options !== null) {
    const { cursor, maxBytes, into } = options as { cursor?: unknown; maxBytes?: unknown; into?: unknown };
    const cursorOk = cursor === undefined || (Number.isInteger(cursor) && (cursor as number) >= 0);
    const maxBytesOk = maxBytes === undefined || (Number.isInteger(maxBytes) && (maxBytes as number) >= 1);
    const intoOk = into === undefined || into instanceof Uint8Array;
    if (cursorOk && maxBytesOk && intoOk) return { cursor: cursor as number | undefined, maxBytes: maxBytes as number | undefined, into: into as Uint8Array | undefined };
  }
  const parsed = ReadInput.safeParse(options);
  if (!parsed.success) throw invalid(parsed.error, 'read options');
  return parsed.data;
}

export function checkSize(cols: unknown, rows: unknown): { cols: number; rows: number } {
  const parsed = z.object({ cols: Cols, rows: Rows }).safeParse({ cols, rows });
  if (!parsed.success) throw invalid(parsed.error, 'size');
  return parsed.data;
}

/** Cheap check for the write path, which is hot when a user types or pastes. */
export function checkWriteData(data: unknown): asserts data is string | Uint8Array {
  if (typeof data !== 'string' && !(data instanceof Uint8Array)) {
    throw new PtyError('invalid_argument', `write data must be a string or bytes, not ${data === null ? 'null' : typeof data}`);
  }
}
