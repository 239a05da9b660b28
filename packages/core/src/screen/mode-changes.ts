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
const FINAL_M = 0x6d;
const FINAL_R = 0x72;
/** The scanner hands on at most this many parameter bytes (its MAX_CSI_PARAMS). */
const MAX_PARAMS = 64;

export function modeChanges(data: Uint8Array): string {
  let out = '';
  // The last colors, kept as bytes: colored output has one sequence every few words, and text made of
  // each of them was most of a skim's cost (bench README, "Colored delivery").
  const lastColors = new Uint8Array(MAX_PARAMS);
  let lastColorsLength = -1;
  const scanner = new SequenceScanner();
  scanner.on({
    csiFinals: 'hlrm',
    csiBytes: (params, length, final) => {
      if (final === FINAL_M) {
        if (!isColors(params, length)) return;
        // Only the last one matters. Copied by hand: a subarray to set() from is an object per sequence.
        for (let i = 0; i < length; i++) lastColors[i] = params[i]!;
        lastColorsLength = length;
        return;
      }
      const text = latin1(params, length);
      if (final === FINAL_R ? SCROLL_REGION.test(text) : PRIVATE_MODES.test(text)) out += `\x1b[${text}${String.fromCharCode(final)}`;
    },
    esc: (intermediates, final) => {
      if (intermediates !== '' || final !== 'c') return;
      out = '\x1bc'; // a full reset forgets everything before it
      lastColorsLength = -1;
    },
  });
  scanner.scan(0, data);
  return lastColorsLength < 0 ? out : `${out}\x1b[${latin1(lastColors, lastColorsLength)}m`;
}

/** Digits, ";" and ":" only: a color (SGR) sequence, not a private one such as "\x1b[>4;1m". */
function isColors(params: Uint8Array, length: number): boolean {
  for (let i = 0; i < length; i++) {
    const byte = params[i]!;
    if (byte < 0x30 || byte > 0x3b) return false;
  }
  return true;
}

/** The parameter bytes as the scanner's text handlers see them: one character a byte. */
function latin1(params: Uint8Array, length: number): string {
  return String.fromCharCode.apply(null, params.subarray(0, length) as unknown as number[]);
}
