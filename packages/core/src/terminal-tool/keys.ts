/**
 * Named keys a model can press, so it never has to spell escape bytes.
 * Arrow, Home and End keys follow the terminal's cursor-key mode, as a real
 * terminal's would: full-screen programs (less, vim) switch it on.
 */

const FIXED: Record<string, string> = {
  Enter: '\r',
  Tab: '\t',
  Escape: '\x1b',
  Backspace: '\x7f',
  Space: ' ',
  Delete: '\x1b[3~',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
};

/** Keys whose bytes depend on application cursor mode: the final byte after CSI or SS3. */
const CURSOR: Record<string, string> = { Up: 'A', Down: 'B', Right: 'C', Left: 'D', Home: 'H', End: 'F' };

/** Every accepted key name, for error messages and schema descriptions. */
export const KEY_NAMES: readonly string[] = [
  'Enter', 'Tab', 'Escape', 'Backspace', 'Up', 'Down', 'Left', 'Right', 'Home', 'End',
  'PageUp', 'PageDown', 'Delete', 'Space', 'Ctrl-C', 'Ctrl-D', 'Ctrl-Z', 'Ctrl-L', 'Ctrl-<letter>',
];

export type KeyEncoding = { ok: true; data: string } | { ok: false; unknown: string[] };

/** Encodes key names (case-insensitive) to the bytes a terminal would send. */
export function encodeKeys(names: readonly string[], applicationCursor = false): KeyEncoding {
  let data = '';
  const unknown: string[] = [];
  for (const name of names) {
    const bytes = encodeKey(name, applicationCursor);
    if (bytes === null) unknown.push(name);
    else data += bytes;
  }
  return unknown.length > 0 ? { ok: false, unknown } : { ok: true, data };
}

function encodeKey(name: string, applicationCursor: boolean): string | null {
  const trimmed = name.trim();
  const ctrl = /^(?:ctrl|control|c)[-+]([a-z])$/i.exec(trimmed);
  if (ctrl) return String.fromCharCode(ctrl[1]!.toUpperCase().charCodeAt(0) & 0x1f);
  const lower = trimmed.toLowerCase();
  const fixed = Object.keys(FIXED).find((key) => key.toLowerCase() === lower || (lower === 'esc' && key === 'Escape') || (lower === 'return' && key === 'Enter'));
  if (fixed) return FIXED[fixed]!;
  const cursor = Object.keys(CURSOR).find((key) => key.toLowerCase() === lower);
  if (cursor) return (applicationCursor ? '\x1bO' : '\x1b[') + CURSOR[cursor]!;
  return null;
}
