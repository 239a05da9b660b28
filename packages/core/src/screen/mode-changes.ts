/**
 * The sequences in a stretch of output that change how later output is
 * drawn, rather than what is on the screen: private modes (the alternate
 * screen, cursor visibility, origin and wrap modes, bracketed paste), the
 * scroll region, and the colors in effect at its end. A screen that passes
 * over output without drawing it (SessionScreen skims a flood it is far
 * behind) applies these, so what it parses next lands as it would have.
 * Handlers on a sequence scanner (vt/) of its own: the stretch is not the agent's stream.
 */
import { SequenceScanner } from '../vt/index.js';

const PRIVATE_MODES = /^\?[\d;]*$/;
const SCROLL_REGION = /^\d*(?:;\d*)?$/;

export function modeChanges(data: Uint8Array): string {
  let out = '';
  let lastColors: string | null = null;
  const scanner = new SequenceScanner();
  scanner.on({
    csiFinals: 'hlrm',
    csi: (params, final) => {
      if (final === 'm') {
        if (isColors(params)) lastColors = params; // only the last one matters
      } else if (final === 'r' ? SCROLL_REGION.test(params) : PRIVATE_MODES.test(params)) {
        out += `\x1b[${params}${final}`;
      }
    },
    esc: (intermediates, final) => {
      if (intermediates !== '' || final !== 'c') return;
      out = '\x1bc'; // a full reset forgets everything before it
      lastColors = null;
    },
  });
  scanner.scan(0, data);
  return lastColors === null ? out : `${out}\x1b[${lastColors}m`;
}

/** Digits, ";" and ":" only: a color (SGR) sequence, not a private one such as "\x1b[>4;1m". Tested per color sequence, so no regex. */
function isColors(params: string): boolean {
  for (let i = 0; i < params.length; i++) {
    const code = params.charCodeAt(i);
    if (code < 0x30 || code > 0x3b) return false;
  }
  return true;
}
