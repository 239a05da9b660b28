/**
 * Follows OSC 0 / OSC 2 ("set window title") in a session's output: an OSC handler on the
 * session's sequence scanner, which skips output without "]" with one native indexOf per chunk.
 */
import { SequenceScanner } from '../vt/index.js';

export class TitleTracker {
  private latest: string | undefined;

  /** Follows the titles `scanner` finds; returns the function that stops it. */
  follow(scanner: SequenceScanner): () => void {
    return scanner.on({
      osc: (payload) => {
        this.latest = titleOf(payload) ?? this.latest;
      },
    });
  }

  /** The last title completed since the previous call, if any. */
  take(): string | undefined {
    const title = this.latest;
    this.latest = undefined;
    return title;
  }
}

function titleOf(payload: Uint8Array): string | undefined {
  // "0;" or "2;": checked on the bytes, so the other codes' payloads (hyperlinks, marks) are never decoded.
  if (payload.length < 2 || payload[1] !== 0x3b || (payload[0] !== 0x30 && payload[0] !== 0x32)) return undefined;
  return withoutControls(Buffer.from(payload.buffer, payload.byteOffset + 2, payload.length - 2).toString('utf8'));
}

/** `text` without C0 and C1 control characters: they would corrupt a tab label, a list's row or the terminal printing it. */
export function withoutControls(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}
