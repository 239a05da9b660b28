/** Ctrl-\: as a prefix it cannot be a program's key by mistake (it is SIGQUIT's, which raw mode turns off). */
const PREFIX = 0x1c;
const DETACH = 'd'.charCodeAt(0);

/** How the detach key is named to the user. */
export const DETACH_KEY_NAME = 'Ctrl-\\ d';

export interface KeyVerdict {
  /** Bytes meant for the session (a writer sends them; a reader drops them). */
  forward: Uint8Array;
  /** The detach key was typed: stop reading, leave the session running. */
  detach: boolean;
}

/**
 * Finds the detach key (Ctrl-\ then d) in what the local terminal types, as
 * tmux finds its prefix: the prefix is held until the next key says what it
 * was. Ctrl-\ twice sends one Ctrl-\; Ctrl-\ then any other key sends both.
 */
export class DetachKeys {
  private pending = false;

  feed(chunk: Uint8Array): KeyVerdict {
    const out: number[] = [];
    for (const byte of chunk) {
      if (this.pending) {
        this.pending = false;
        if (byte === DETACH) return { forward: Uint8Array.from(out), detach: true };
        out.push(PREFIX);
        if (byte !== PREFIX) out.push(byte);
      } else if (byte === PREFIX) this.pending = true;
      else out.push(byte);
    }
    return { forward: Uint8Array.from(out), detach: false };
  }
}
