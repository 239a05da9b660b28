/**
 * The sequences in a stretch of output that change how later output is
 * drawn, rather than what is on the screen: private modes (the alternate
 * screen, cursor visibility, origin and wrap modes, bracketed paste), the
 * scroll region, and the colors in effect at its end. A screen that passes
 * over output without drawing it (SessionScreen skims a flood it is far
 * behind) applies these, so what it parses next lands as it would have.
 */
const MODE_CHANGE = /\x1b\[\?[\d;]*[hl]|\x1b\[\d*(?:;\d*)?r|\x1b\[[\d;:]*m|\x1bc/g;

export function modeChanges(data: Uint8Array): string {
  // latin1 keeps every byte one character: the sequences are ASCII, and a
  // multi-byte character elsewhere cannot make a false match.
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  let out = '';
  let lastColors = '';
  for (const match of text.matchAll(MODE_CHANGE)) {
    const sequence = match[0];
    if (sequence.endsWith('m')) {
      lastColors = sequence; // only the last one matters
    } else if (sequence === '\x1bc') {
      out = sequence; // a full reset forgets everything before it
      lastColors = '';
    } else {
      out += sequence;
    }
  }
  return out + lastColors;
}
