// Which sessions a panel client follows and where each one's stream stands: the cursors a reconnect resumes from.
import type { OutputFrame } from './output-frame.js';

/**
 * Which sessions this panel is attached to and, for each, the absolute byte
 * cursor just past the last output applied to its terminal. The cursor is what
 * a reconnect resumes from (`attach {id, cursor}`), so it must advance only for
 * bytes actually handed to the terminal.
 */
export class CursorBook {
  private readonly cursors = new Map<string, number | null>();

  /** Starts tracking a session. Keeps a known cursor if it was already tracked. */
  attach(id: string): void {
    if (!this.cursors.has(id)) this.cursors.set(id, null);
  }

  detach(id: string): void {
    this.cursors.delete(id);
  }

  isAttached(id: string): boolean {
    return this.cursors.has(id);
  }

  /** The cursor to resume from, or null when the screen must be restored from scratch. */
  cursor(id: string): number | null {
    return this.cursors.get(id) ?? null;
  }

  ids(): string[] {
    return [...this.cursors.keys()];
  }

  /** Keeps tracking a session but resumes it from scratch: its next attach asks for the screen. */
  forget(id: string): void {
    if (this.cursors.has(id)) this.cursors.set(id, null);
  }

  /** The server restored the screen; output continues from `cursor`. */
  resync(id: string, cursor: number): void {
    if (this.cursors.has(id)) this.cursors.set(id, cursor);
  }

  /**
   * Accounts for an output frame and returns the bytes to write, or null when
   * there is nothing new: the session is not attached, or the frame repeats
   * output already applied (a resume can overlap what arrived before a drop).
   * A frame that overlaps partly is trimmed to its new tail.
   */
  apply(frame: OutputFrame): Uint8Array | null {
    if (!this.cursors.has(frame.id)) return null;
    const known = this.cursors.get(frame.id) ?? null;
    const end = frame.cursor + frame.data.length;
    if (known === null || frame.cursor >= known) {
      // A gap (frame.cursor > known) is the server's to repair with a resync;
      // writing what arrived keeps the screen as close to true as possible.
      this.cursors.set(frame.id, end);
      return frame.data.length > 0 ? frame.data : null;
    }
    if (end <= known) return null;
    this.cursors.set(frame.id, end);
    return frame.data.subarray(known - frame.cursor);
  }

  /** A different server instance: every cursor is void, but the attachments stand until reconciled. */
  forgetCursors(): void {
    for (const id of this.cursors.keys()) this.cursors.set(id, null);
  }

  /** Drops sessions that no longer exist. */
  retainOnly(ids: Iterable<string>): void {
    const keep = new Set(ids);
    for (const id of [...this.cursors.keys()]) if (!keep.has(id)) this.cursors.delete(id);
  }
}
