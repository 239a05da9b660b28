import type { KeyLike } from './shortcuts.js';

/**
 * Keystrokes typed at a terminal that is not there yet. Between Ctrl+Shift+`
 * and the new session's first prompt there is no terminal to take keys (the
 * first ones were lost) and then a shell that has not set up its line editor
 * (the kernel echoes what arrives, and readline shows it again: typed twice).
 * So what is typed in that time is held, per request and then per session,
 * and sent once, in order, when the shell has printed something.
 */
export class TypeAhead {
  /** Held input per create request still in flight, oldest request first. */
  private readonly requests = new Map<string, string[]>();
  /** Held input per new session whose shell has printed nothing yet. */
  private readonly sessions = new Map<string, string[]>();

  /** Starts holding input for a create request. */
  expect(requestId: string): void {
    this.requests.set(requestId, []);
  }

  /** True while keys typed now belong to a terminal on its way (they must not reach any other). */
  get waiting(): boolean {
    return this.requests.size > 0;
  }

  /** Holds keys typed while a terminal is on its way, for the latest request; false if none is. */
  typed(data: string): boolean {
    const latest = [...this.requests.values()].at(-1);
    latest?.push(data);
    return latest !== undefined;
  }

  /** Holds input a new session's terminal produced before its shell printed anything; false if that time is over. */
  typedInto(sessionId: string, data: string): boolean {
    const queue = this.sessions.get(sessionId);
    queue?.push(data);
    return queue !== undefined;
  }

  /** The request became a session: its input is now held for the session. */
  created(requestId: string, sessionId: string): void {
    const queue = this.requests.get(requestId);
    if (!queue) return;
    this.requests.delete(requestId);
    this.sessions.set(sessionId, queue);
  }

  /** The request failed: what was typed for it goes nowhere. */
  failed(requestId: string): void {
    this.requests.delete(requestId);
  }

  /** True while input for the session is held rather than sent. */
  holds(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** The session's shell printed something: stops holding and returns what was typed, joined (possibly ''). */
  release(sessionId: string): string {
    const queue = this.sessions.get(sessionId) ?? [];
    this.sessions.delete(sessionId);
    return queue.join('');
  }
}

/**
 * The bytes a terminal would send for a key press, for the keys someone types
 * at a command line (printable characters, Enter, Backspace, Tab, Escape,
 * Ctrl+letter); null for everything else, which is left alone.
 */
export function keyToInput(event: KeyLike): string | null {
  if (event.metaKey || event.altKey) return null;
  if (event.ctrlKey) {
    return /^[a-z]$/i.test(event.key) ? String.fromCharCode(event.key.toUpperCase().charCodeAt(0) - 64) : null;
  }
  if ([...event.key].length === 1) return event.key;
  switch (event.key) {
    case 'Enter': return '\r';
    case 'Backspace': return '\x7f';
    case 'Tab': return '\t';
    case 'Escape': return '\x1b';
    default: return null;
  }
}

/**
 * Whether output shows the shell's line editor is up: anything but OSC
 * sequences. A shell with ptydeck's marks prints its key and the done and cwd
 * marks (OSC 6973, 133;D, 7) from its rc file and PROMPT_COMMAND, before
 * readline takes the terminal; keys sent then are echoed by the kernel and
 * again by readline. The prompt itself, or readline's bracketed-paste switch,
 * comes after. An OSC left open at the chunk's end counts as nothing.
 */
export function showsLineEditor(data: Uint8Array): boolean {
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 0x1b || data[i + 1] !== 0x5d) return true;
    // ESC ] … BEL or ESC \
    let j = i + 2;
    while (j < data.length && data[j] !== 0x07 && !(data[j] === 0x1b && data[j + 1] === 0x5c)) j++;
    if (j >= data.length) return false;
    i = data[j] === 0x07 ? j : j + 1;
  }
  return false;
}
