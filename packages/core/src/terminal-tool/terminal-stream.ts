/**
 * A byte-level scanner over a session's output stream. It finds what the agent
 * tool needs to know without rendering anything: OSC sequences (shell
 * integration marks, cwd reports), alternate-screen and cursor-key modes, and
 * the cursor at which the stream is "between sequences" so a read never starts
 * in the middle of an escape sequence or a UTF-8 character.
 *
 * It works on bytes, not strings, because cursors are absolute byte offsets in
 * the session log and chunks may split anything.
 */

export type StreamEvent =
  /** An OSC sequence; `start` is the cursor of its ESC, `end` one past its terminator. */
  | { kind: 'osc'; payload: string; start: number; end: number }
  | { kind: 'alt-screen'; on: boolean; end: number }
  | { kind: 'app-cursor'; on: boolean; end: number };

const enum State {
  Ground,
  Esc,
  EscIntermediate,
  Csi,
  Osc,
  OscEsc,
  Str,
  StrEsc,
}

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
/** OSC payloads longer than this (e.g. OSC 52 clipboard data) are skipped, not collected. */
const MAX_OSC_PAYLOAD = 4096;
const MAX_CSI_PARAMS = 64;

export class TerminalStreamScanner {
  private state = State.Ground;
  /** Absolute cursor one past the last byte scanned. */
  private position = 0;
  /** Cursor where the sequence (or UTF-8 character) in progress began. */
  private sequenceStart = 0;
  private utf8Pending = 0;
  private osc: number[] = [];
  private oscOverflow = false;
  private csi = '';

  constructor(startCursor = 0) {
    this.position = startCursor;
    this.sequenceStart = startCursor;
  }

  /** Cursor one past the last byte scanned. */
  get end(): number {
    return this.position;
  }

  /**
   * The latest cursor at which no escape sequence or UTF-8 character is open:
   * readers stop here so the bytes of a split sequence stay together.
   */
  get safeEnd(): number {
    return this.state === State.Ground && this.utf8Pending === 0 ? this.position : this.sequenceStart;
  }

  /** Scans a chunk that starts at `cursor`; gaps (trimmed bytes) reset the state. */
  scan(cursor: number, data: Uint8Array): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (cursor !== this.position) {
      // Bytes were skipped: whatever was open is lost, start clean.
      this.state = State.Ground;
      this.utf8Pending = 0;
      this.position = cursor;
      this.sequenceStart = cursor;
    }
    for (let i = 0; i < data.length; i++) {
      const byte = data[i]!;
      const at = cursor + i;
      this.step(byte, at, events);
    }
    this.position = cursor + data.length;
    return events;
  }

  private step(byte: number, at: number, events: StreamEvent[]): void {
    if (byte === CAN || byte === SUB) {
      if (this.state !== State.Ground) this.state = State.Ground;
      return;
    }
    switch (this.state) {
      case State.Ground:
        if (byte === ESC) {
          this.state = State.Esc;
          this.sequenceStart = at;
          this.utf8Pending = 0;
          return;
        }
        this.trackUtf8(byte, at);
        return;
      case State.Esc:
        if (byte === 0x5b /* [ */) {
          this.state = State.Csi;
          this.csi = '';
        } else if (byte === 0x5d /* ] */) {
          this.state = State.Osc;
          this.osc = [];
          this.oscOverflow = false;
        } else if (byte === 0x50 /* P */ || byte === 0x58 /* X */ || byte === 0x5e /* ^ */ || byte === 0x5f /* _ */) {
          this.state = State.Str;
        } else if (byte >= 0x20 && byte <= 0x2f) {
          this.state = State.EscIntermediate;
        } else if (byte === ESC) {
          this.sequenceStart = at;
        } else {
          if (byte === 0x63 /* c: full reset */) events.push({ kind: 'alt-screen', on: false, end: at + 1 });
          this.state = State.Ground;
        }
        return;
      case State.EscIntermediate:
        if (byte >= 0x30 && byte <= 0x7e) this.state = State.Ground;
        return;
      case State.Csi:
        if (byte >= 0x40 && byte <= 0x7e) {
          this.finishCsi(byte, at, events);
          this.state = State.Ground;
        } else if (byte === ESC) {
          this.state = State.Esc;
          this.sequenceStart = at;
        } else if (this.csi.length < MAX_CSI_PARAMS) {
          this.csi += String.fromCharCode(byte);
        }
        return;
      case State.Osc:
        if (byte === BEL) {
          this.finishOsc(at + 1, events);
        } else if (byte === ESC) {
          this.state = State.OscEsc;
        } else if (this.osc.length < MAX_OSC_PAYLOAD) {
          this.osc.push(byte);
        } else {
          this.oscOverflow = true;
        }
        return;
      case State.OscEsc:
        if (byte === 0x5c /* \ */) {
          this.finishOsc(at + 1, events);
        } else {
          // An ESC that is not ST aborts the OSC and starts a new sequence.
          this.state = State.Esc;
          this.sequenceStart = at - 1;
          this.step(byte, at, events);
        }
        return;
      case State.Str:
        if (byte === ESC) this.state = State.StrEsc;
        else if (byte === BEL) this.state = State.Ground;
        return;
      case State.StrEsc:
        this.state = byte === 0x5c ? State.Ground : State.Str;
        return;
    }
  }

  private trackUtf8(byte: number, at: number): void {
    if (this.utf8Pending > 0 && (byte & 0xc0) === 0x80) {
      this.utf8Pending--;
      return;
    }
    if (byte >= 0xc0) {
      this.utf8Pending = byte >= 0xf0 ? 3 : byte >= 0xe0 ? 2 : 1;
      this.sequenceStart = at;
    } else {
      this.utf8Pending = 0;
    }
  }

  private finishCsi(final: number, at: number, events: StreamEvent[]): void {
    if ((final !== 0x68 /* h */ && final !== 0x6c) /* l */ || !this.csi.startsWith('?')) return;
    const on = final === 0x68;
    for (const mode of this.csi.slice(1).split(';')) {
      if (mode === '1049' || mode === '1047' || mode === '47') events.push({ kind: 'alt-screen', on, end: at + 1 });
      else if (mode === '1') events.push({ kind: 'app-cursor', on, end: at + 1 });
    }
  }

  private finishOsc(end: number, events: StreamEvent[]): void {
    this.state = State.Ground;
    if (this.oscOverflow) return;
    const payload = Buffer.from(this.osc).toString('utf8');
    events.push({ kind: 'osc', payload, start: this.sequenceStart, end });
  }
}
