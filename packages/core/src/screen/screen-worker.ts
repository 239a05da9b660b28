/**
 * The screen worker's entry: every session's headless terminal, parsed here so
 * the main thread (PTY reads, sockets, keystrokes) never waits for a parser.
 * It only does what the main thread asks, in the order asked, per screen: a
 * read runs once every write sent before it is parsed and before any later
 * one is handed to the terminal, so it reflects exactly the bytes the main
 * thread says it does.
 */
import { parentPort } from 'node:worker_threads';
import { warmUpParser } from './parser-warm-up.js';
import { loadXterm, ScreenMirror } from './screen-mirror.js';
import { SHARED_SCROLLBACK_LINES } from './mirror-screen.js';
import { ScrollbackShares } from './scrollback-shares.js';
import type { SerializedScreen, WriteMarks } from './mirror-screen.js';
import type { ScreenReply, ScreenRequest, ScreenTextValue } from './screen-worker-protocol.js';

type ReplyValue = SerializedScreen | ScreenTextValue;

/** A background write's pieces (writeInTurns): a few milliseconds of parsing each on a busy machine. */
const BACKGROUND_PIECE = 16 * 1024;

interface Entry {
  mirror: ScreenMirror;
  /** The screen's operations, one after another. */
  chain: Promise<void>;
}

const port = parentPort;
if (!port) throw new Error('screen-worker.js runs as a worker thread (new Worker), not as a script');

// Now, not on the first screen: the worker starts with the service, so the
// first screen read waits neither for xterm.js to load (95 to 160 ms) nor for
// its cold parser (see warmUpParser). A failed warm-up costs only speed.
loadXterm();

const screens = new Map<number, Entry>();
/** Every screen's history comes out of one budget (see ScrollbackShares). */
const shares = new ScrollbackShares(SHARED_SCROLLBACK_LINES);
/** Requests being served, and who waits for there to be none (the warm-up). */
let busy = 0;
let idleWaiters: Array<() => void> = [];

function whenIdle(): Promise<void> {
  if (busy === 0) return Promise.resolve();
  return new Promise((resolve) => idleWaiters.push(resolve));
}

function served(): void {
  if (--busy > 0) return;
  const waiters = idleWaiters;
  idleWaiters = [];
  for (const wake of waiters) wake();
}

const warmedUp = warmUpParser(whenIdle).catch(() => {});

function reply(message: ScreenReply, transfer?: ArrayBuffer[]): void {
  port!.postMessage(message, transfer);
}

/**
 * Runs `op` after the screen's earlier operations; its result or failure goes back as the reply to `req`.
 * `giveBack`: a write's buffer, which nothing here reads once it is parsed: it goes back with the answer.
 */
function enqueue(entry: Entry, req: number, op: () => Promise<ReplyValue | undefined> | ReplyValue | undefined, giveBack?: ArrayBuffer): void {
  busy++;
  entry.chain = entry.chain.then(async () => {
    try {
      const value = await op();
      if (giveBack) reply({ type: 'done', req, buffer: giveBack }, [giveBack]);
      else reply(value === undefined ? { type: 'done', req } : { type: 'done', req, value });
    } catch (error) {
      reply({ type: 'failed', req, message: error instanceof Error ? error.message : String(error) });
    } finally {
      served();
    }
  });
}

/**
 * A background write (a quiet session's catch-up, which nobody waits for) in pieces of
 * BACKGROUND_PIECE, a turn of this thread's loop between them: a read of another screen that
 * arrives meanwhile is parsed and answered there instead of behind the whole slice (bench figure 5's
 * screen reads). The parser takes a sequence cut between two pieces as it does one cut between two
 * PTY reads; each of `marks`' cursors goes with the piece it ends.
 */
async function writeInTurns(mirror: ScreenMirror, data: Uint8Array, marks: WriteMarks | undefined): Promise<void> {
  for (let at = 0; at < data.length; at += BACKGROUND_PIECE) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const end = Math.min(data.length, at + BACKGROUND_PIECE);
    const cursors = marks?.cursors.filter((cursor) => (at === 0 ? cursor >= marks.from : cursor > marks.from + at) && cursor <= marks.from + end);
    await mirror.write(data.subarray(at, end), cursors && cursors.length > 0 ? { from: marks!.from + at, cursors } : undefined);
  }
}

port.on('message', (message: ScreenRequest) => {
  if (message.type === 'warmed') {
    void warmedUp.then(() => reply({ type: 'done', req: message.req }));
    return;
  }
  if (message.type === 'open') {
    screens.set(message.screen, {
      mirror: new ScreenMirror({ cols: message.cols, rows: message.rows, scrollback: message.scrollback, synchronous: true, shares }),
      chain: Promise.resolve(),
    });
    return;
  }
  const entry = screens.get(message.screen);
  if (!entry) {
    if ('req' in message) reply({ type: 'failed', req: message.req, message: `no screen ${message.screen} in the screen worker` });
    return;
  }
  switch (message.type) {
    case 'write':
      return enqueue(
        entry,
        message.req,
        async () => {
          if (message.skim) await entry.mirror.skim(message.data);
          else if (message.background) await writeInTurns(entry.mirror, message.data, message.marks);
          else await entry.mirror.write(message.data, message.marks);
          return undefined;
        },
        message.data.buffer as ArrayBuffer,
      );
    case 'resize':
      // Nothing to reply to: a resize that throws (it never has) must still not stop the chain.
      entry.chain = entry.chain.then(() => entry.mirror.resize(message.cols, message.rows)).catch(() => {});
      return;
    case 'freeze':
      entry.chain = entry.chain.then(() => entry.mirror.freeze()).catch(() => {});
      return;
    case 'snapshot':
      return enqueue(entry, message.req, () => entry.mirror.serializeWithMarks(message.scrollback));
    case 'text':
      return enqueue(entry, message.req, () => ({ text: entry.mirror.screenText(), altScreen: entry.mirror.isAltScreen }));
    case 'close':
      screens.delete(message.screen);
      entry.chain = entry.chain.then(() => entry.mirror.dispose()).catch(() => {});
      return;
  }
});
