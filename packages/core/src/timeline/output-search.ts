/**
 * A regular expression over the output of many sessions, line by line, with
 * lines of context around each match. An agent's pattern may backtrack for
 * minutes (terminal-tool/pattern-matcher.ts), so the whole search runs in a
 * worker thread of its own, terminated past its budget; the loop only copies
 * each session's log (yielding between sessions) and reads the answer.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

export interface SearchSession {
  id: string;
  /** Absolute cursor of bytes[0]. */
  start: number;
  bytes: Uint8Array;
  /**
   * Only lines overlapping these [start, end) cursor ranges, in order (the
   * commands' output, leaving out prompts and echoes); null: every line.
   */
  ranges: Array<[number, number]> | null;
}

export interface SearchMatch {
  session: string;
  /** Absolute cursor where the matching line begins. */
  cursor: number;
  line: string;
  before: string[];
  after: string[];
}

export interface SearchRequest {
  source: string;
  flags: string;
  context: number;
  maxMatches: number;
}

/** The search ran past its budget (or out of memory): the pattern costs too much on this output. */
export class SearchTooCostlyError extends Error {
  override readonly name = 'SearchTooCostlyError';
}

/**
 * The worker: splits each log into lines at \n, renders each as a person saw
 * it (escape sequences out, the last write after a carriage return), and
 * tests the pattern on it. Evaluated, so neither the bundle nor the tests need
 * an entry for it.
 */
const SEARCH_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { source, flags, context, maxMatches, sessions } = workerData;
const regex = new RegExp(source, flags.replace('g', ''));
const decoder = new TextDecoder();
const ESCAPES = /\\x1b(?:\\[[0-?]*[ -\\/]*[@-~]|\\][^\\x07\\x1b]*(?:\\x07|\\x1b\\\\)?|[PX^_][^\\x1b]*(?:\\x1b\\\\)?|[ -\\/]*[0-~])|[\\x00-\\x08\\x0b-\\x1f\\x7f]/g;
function plain(bytes) {
  let text = decoder.decode(bytes);
  if (text.endsWith('\\r')) text = text.slice(0, -1);
  const cr = text.lastIndexOf('\\r');
  if (cr >= 0) text = text.slice(cr + 1);
  return text.replace(ESCAPES, '');
}
const matches = [];
let truncated = false;
outer: for (const session of sessions) {
  const bytes = session.bytes;
  const lines = [];
  const starts = [];
  let from = 0;
  while (from < bytes.length) {
    let end = bytes.indexOf(10, from);
    if (end < 0) end = bytes.length;
    starts.push(from);
    lines.push(plain(bytes.subarray(from, end)));
    from = end + 1;
  }
  const ranges = session.ranges;
  let range = 0;
  for (let i = 0; i < lines.length; i++) {
    if (ranges) {
      // A line counts when it overlaps a range: a command's first line starts before its output mark.
      const at = session.start + starts[i];
      const end = session.start + (i + 1 < starts.length ? starts[i + 1] : bytes.length);
      while (range < ranges.length && ranges[range][1] <= at) range++;
      if (range >= ranges.length) break;
      if (end <= ranges[range][0]) continue;
    }
    if (!regex.test(lines[i])) continue;
    if (matches.length >= maxMatches) { truncated = true; break outer; }
    matches.push({
      session: session.id,
      cursor: session.start + starts[i],
      line: lines[i],
      before: lines.slice(Math.max(0, i - context), i),
      after: lines.slice(i + 1, i + 1 + context),
    });
  }
}
parentPort.postMessage({ matches, truncated });
`;

/** Searches waiting for the one running, at most: past it a search is refused, not queued. */
const MAX_WAITING = 8;
/** Searches run one at a time in the host (each thread may take 512 MiB): the tail of the queue. */
let running: Promise<unknown> = Promise.resolve();
let waiting = 0;

/** Thrown when too many searches wait already. */
export class SearchBusyError extends Error {
  override readonly name = 'SearchBusyError';
}

/**
 * Searches `sessions` (read one by one through `read`, on the loop, between
 * turns) in a fresh worker, one search at a time across the host; rejects
 * with SearchTooCostlyError past `budgetMs`, with SearchBusyError when
 * MAX_WAITING searches wait already.
 */
export function searchOutput(
  sessionIds: readonly string[],
  read: (id: string) => SearchSession | null,
  request: SearchRequest,
  budgetMs: number,
): Promise<{ matches: SearchMatch[]; truncated: boolean }> {
  if (waiting >= MAX_WAITING) return Promise.reject(new SearchBusyError(`${waiting} searches are waiting already; try again when they are done`));
  waiting++;
  const run = running.then(() => {
    waiting--;
    return searchNow(sessionIds, read, request, budgetMs);
  });
  running = run.catch(() => undefined);
  return run;
}

async function searchNow(
  sessionIds: readonly string[],
  read: (id: string) => SearchSession | null,
  request: SearchRequest,
  budgetMs: number,
): Promise<{ matches: SearchMatch[]; truncated: boolean }> {
  const sessions: SearchSession[] = [];
  for (const id of sessionIds) {
    const session = read(id);
    // A copy owning its whole buffer, which is handed to the worker (a read may be a view of a shared pool).
    if (session && session.bytes.length > 0) sessions.push({ ...session, bytes: new Uint8Array(session.bytes) });
    // A hundred logs copied in one turn would hold a keystroke's echo behind them.
    await nextTurn();
  }
  if (sessions.length === 0) return { matches: [], truncated: false };
  const worker = new Worker(SEARCH_SOURCE, {
    eval: true,
    workerData: { ...request, sessions },
    transferList: sessions.map((session) => session.bytes.buffer as ArrayBuffer),
    resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 8 },
  });
  worker.unref();
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new SearchTooCostlyError(`the search took longer than ${budgetMs} ms`)), budgetMs);
      worker.once('message', (reply: { matches: SearchMatch[]; truncated: boolean }) => {
        clearTimeout(timer);
        resolve(reply);
      });
      worker.once('error', (error) => {
        clearTimeout(timer);
        reject(new SearchTooCostlyError(`the search thread stopped (${error.message})`));
      });
      worker.once('exit', (code) => {
        clearTimeout(timer);
        reject(new SearchTooCostlyError(`the search thread stopped (exit code ${code})`));
      });
    });
  } finally {
    await worker.terminate();
  }
}
