// Warms xterm.js's parser and serializer, and the skimmer, while the worker is idle, so the first real parse a viewer waits for is
// not a cold one.
import { ScreenMirror } from './screen-mirror.js';

/** Output parsed to warm up, in pieces of the sample's size. */
const WARM_UP_BYTES = 512 * 1024;
const WARM_UP_SERIALIZES = 3;
/**
 * Output skimmed to warm up (ScreenMirror.skim: the mode changes' scanner),
 * which a read far behind uses on most of what it is behind: cold, it took
 * 30 ms for the 720 KiB that 3 to 7 ms take warm, as long as parsing the rest.
 */
const WARM_UP_SKIM_BYTES = 256 * 1024;
/**
 * Lines of sample output in one piece: a step of the warm-up, which a real
 * request that arrives during it waits for. A hundred lines are about 14 KB,
 * a few milliseconds of parsing once the first piece compiled the parser.
 */
const SAMPLE_LINES = 100;
/** The terminal warmed: a resync's scrollback. */
const WARM_UP_SIZE = { cols: 80, rows: 24, scrollback: 1000 };
/**
 * Pieces parsed before the first serialize: three hundred lines, which wrap
 * to about six hundred rows, so the first serialize already runs its loops
 * (what the JIT compiles) hundreds of times, as a resync's does, a few steps in.
 */
const PIECES_BEFORE_SERIALIZE = 3;

/**
 * A hundred lines of typical terminal output: plain and colored text
 * (16, 256 and truecolor SGR), line erases and cursor moves.
 */
function sampleOutput(): string {
  const lines: string[] = [];
  for (let i = 0; i < SAMPLE_LINES; i++) {
    const n = (i * 37) % 256;
    lines.push(
      `\x1b[1;32m${String(i).padStart(5, '0')}\x1b[0m \x1b[38;5;${n}mcompiled\x1b[39m module_${i % 97}.ts ` +
        `\x1b[38;2;${n};${255 - n};90min ${(i * 13) % 1000} ms\x1b[0m plain text after the colors, as logs have it`,
    );
    if (i % 50 === 0) lines.push('\x1b[2K\r\x1b[4mprogress\x1b[24m [=====>    ] 50%\x1b[1A\x1b[2K\x1b[1B');
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The warm-up's steps, in order: a few pieces parsed (something to
 * serialize), then a piece parsed, a piece skimmed and a serialize in turn
 * while each has some left. Interleaved, not one kind after another: the
 * serializer and the skimmer, which only a resync or a screen read runs,
 * are warm after the first few rounds, not only once all of the parsing is
 * done, which real output arriving meanwhile postpones (and warms the
 * parser itself).
 */
function* warmUpSteps(mirror: ScreenMirror, sample: Uint8Array): Generator<() => unknown> {
  let written = 0;
  let skimmed = 0;
  let serialized = 0;
  const write = () => {
    written += sample.length;
    return () => mirror.write(sample);
  };
  while (written < Math.min(PIECES_BEFORE_SERIALIZE * sample.length, WARM_UP_BYTES)) yield write();
  while (written < WARM_UP_BYTES || skimmed < WARM_UP_SKIM_BYTES || serialized < WARM_UP_SERIALIZES) {
    if (serialized < WARM_UP_SERIALIZES) {
      serialized++;
      yield () => mirror.serialize({ scrollback: WARM_UP_SIZE.scrollback });
    }
    if (skimmed < WARM_UP_SKIM_BYTES) {
      skimmed += sample.length;
      yield () => mirror.skim(sample);
    }
    if (written < WARM_UP_BYTES) yield write();
  }
}

/**
 * Runs xterm.js's parser and serializer, and the skimmer, over sample output in a throwaway
 * terminal. Both are several times slower cold than once the JIT has seen
 * them (the bench README's "Cold start" has the figures), and the first
 * real parse is often the one a viewer waits for (a reload right after a
 * build). The worker does this on its own thread when it starts, a step at
 * a time and only while it has nothing real to do (`whenIdle`): before each
 * step the event loop takes a turn, so a request that arrived meanwhile is
 * seen (and served, whenIdle waiting for it) first: real output and reads
 * never wait behind more than one step, and a developer's first shell,
 * opened at once, does not stop it.
 */
export async function warmUpParser(whenIdle: () => Promise<void>): Promise<void> {
  const mirror = new ScreenMirror({ ...WARM_UP_SIZE, synchronous: true });
  try {
    const sample = new TextEncoder().encode(sampleOutput());
    for (const step of warmUpSteps(mirror, sample)) {
      // A turn of the event loop (a macrotask): awaiting only promises, steps ran back to back
      // without one, and a resync that arrived during the first skim waited for every skim and
      // serialize after it (the bench README's "Figure 6's first resync, bimodal").
      await new Promise((resolve) => setImmediate(resolve));
      await whenIdle();
      await step();
    }
    mirror.screenText();
  } finally {
    mirror.dispose();
  }
}
