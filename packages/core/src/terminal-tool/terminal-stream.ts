/**
 * What the agent tool needs from a session's output stream without rendering anything: OSC
 * sequences (shell-integration marks, cwd reports), and the alternate-screen and cursor-key modes.
 * Handlers on the session's sequence scanner (vt/), so the stream is scanned once for everyone.
 */
import type { SequenceHandlers } from '../vt/index.js';

export type StreamEvent =
  /** An OSC sequence; `start` is the cursor of its ESC, `end` one past its terminator. */
  | { kind: 'osc'; payload: string; start: number; end: number }
  | { kind: 'alt-screen'; on: boolean; end: number }
  | { kind: 'app-cursor'; on: boolean; end: number };

/**
 * Hands `listener` the stream's events as the scan `follow` registers handlers with finds them
 * (PtyService.onSequences); returns the function that stops it.
 */
export function followTerminalStream(follow: (handlers: SequenceHandlers) => () => void, listener: (event: StreamEvent) => void): () => void {
  return follow({
    osc: (payload, start, end) => listener({ kind: 'osc', payload: Buffer.from(payload.buffer, payload.byteOffset, payload.length).toString('utf8'), start, end }),
    csiFinals: 'hl',
    csi: (params, final, end) => {
      if (!params.startsWith('?')) return;
      const on = final === 'h';
      for (const mode of params.slice(1).split(';')) {
        if (mode === '1049' || mode === '1047' || mode === '47') listener({ kind: 'alt-screen', on, end });
        else if (mode === '1') listener({ kind: 'app-cursor', on, end });
      }
    },
    esc: (intermediates, final, end) => {
      // A full reset leaves the alternate screen.
      if (intermediates === '' && final === 'c') listener({ kind: 'alt-screen', on: false, end });
    },
  });
}
