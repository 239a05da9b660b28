// What the CLI prints of a session, an agent or a host: fields an agent's shell can set, made harmless to a terminal.

/**
 * C0 controls, DEL, C1 controls (U+0080 to U+009F: a terminal that reads UTF-8
 * may take U+009B for CSI and U+009D for OSC, as xterm and xterm.js do), and
 * the bidirectional overrides and isolates, which make a line read otherwise
 * than it is. Titles, working directories, commands and agents' names all come
 * from a session or an agent, so each may hold any of them.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** What of UNPRINTABLE JSON.stringify writes raw (it escapes C0 in strings, and its own line breaks are layout). */
const UNESCAPED_BY_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One line of `text` safe to print: every control character becomes a space. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, ' ');
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 but leaves DEL, C1 and the
 * bidirectional controls raw, so `ptydeck ls --json` in a terminal could still
 * carry a CSI. They are written as \u escapes instead: the same JSON value,
 * nothing lost for a program that parses it.
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNESCAPED_BY_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Controls, format characters (zero-width, bidirectional overrides and isolates), line and paragraph separators. */
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const MAX_AGENT_NAME = 64;

/**
 * An agent's name as the panel, `ptydeck ls` and the agent list show it: an
 * MCP client chooses it freely, and a record on disk says what it likes; it
 * labels every tab and command of that agent. Empty or invisible, the badge
 * that tells an agent's tab from the developer's was blank; a right-to-left
 * override made it read otherwise than it is.
 */
export function shownAgentName(raw: string | undefined): string {
  const name = Array.from((raw ?? '').replace(UNSHOWN, ' ').replace(/\s+/g, ' ').trim()).slice(0, MAX_AGENT_NAME).join('').trim();
  return name === '' ? 'unknown' : name;
}
