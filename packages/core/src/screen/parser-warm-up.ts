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
 * A few hundred lines of typical terminal output: plain and colored text
 * (16, 256 and truecolor SGR), line erases and cursor moves.
 */
function sampleOutput(): string {
  const lines: string[] = [];
  for (let i = 0; i < 400; i++) {
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
 * Runs xterm.js's parser and serializer, and the skimmer, over sample output in a throwaway
 * terminal. Both are several times slower cold than once the JIT has seen
 * them (the bench README's "Cold start" has the figures), and the first
 * real parse is often the one a viewer waits for (a reload right after a
 * build). The worker does this on its own thread when it starts, a piece at
 * a time and only while it has nothing real to do (`whenIdle`): real output
 * never waits behind more than one piece, and a developer's first shell,
 * opened at once, does not stop it.
 */
export async function warmUpParser(whenIdle: () => Promise<void>): Promise<void> {
  const mirror = new ScreenMirror({ cols: 80, rows: 24, scrollback: 1000, synchronous: true });
  try {
    const sample = new TextEncoder().encode(sampleOutput());
    for (let written = 0; written < WARM_UP_BYTES; written += sample.length) {
      // A turn of the event loop between pieces, so a waiting message is seen first.
      await new Promise((resolve) => setImmediate(resolve));
      await whenIdle();
      await mirror.write(sample);
    }
    for (let skimmed = 0; skimmed < WARM_UP_SKIM_BYTES; skimmed += sample.length) {
      await whenIdle();
      await mirror.skim(sample);
    }
    for (let i = 0; i < WARM_UP_SERIALIZES; i++) {
      await whenIdle();
      mirror.serialize({ scrollback: 1000 });
    }
    mirror.screenText();
  } finally {
    mirror.dispose();
  }
}
