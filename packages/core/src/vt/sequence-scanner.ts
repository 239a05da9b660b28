/**
 * The one pass over terminal output bytes that finds its escape sequences (ESC, CSI, OSC, and the
 * DCS/SOS/PM/APC strings) across chunk boundaries and hands them to the handlers its users register.
 */
import { incompleteTail } from './utf8.js';

/**
 * What a user of the scanner wants to hear about. Every array a handler is given is lent for its
 * call only (a flood's chunks go back to the read thread): copy what you keep.
 */
export interface SequenceHandlers {
  /** An OSC sequence's payload; `start` is the cursor of its ESC, `end` one past its terminator. Payloads over 4096 bytes are skipped. */
  osc?(payload: Uint8Array, start: number, end: number): void;
  /** The CSI final bytes this handler wants (e.g. 'hl'): the others cost it nothing. */
  csiFinals?: string;
  /** A CSI sequence with one of `csiFinals`: its parameter and intermediate bytes as text (the first 64), `end` one past its final byte. */
  csi?(params: string, final: string, end: number): void;
  /**
   * The same as `csi`, for a handler that wants most of its sequences' parameters only looked at:
   * the bytes themselves, `params[0, length)` (the array is lent, and longer than that), and the
   * final byte. Making text of them was most of the cost of scanning colored output for the last color.
   */
  csiBytes?(params: Uint8Array, length: number, final: number, end: number): void;
  /** An ESC sequence other than CSI and OSC and the strings: its intermediate bytes and final byte. */
  esc?(intermediates: string, final: string, end: number): void;
  /** Bytes outside any sequence, `data[from, to)`: text and C0 controls, never an ESC. */
  text?(data: Uint8Array, from: number, to: number): void;
}

/** A scanner as its users other than the one feeding it see it: they register handlers and ask where it is. */
export interface ScannedOutput {
  /** Registers handlers; returns the function that removes them. */
  on(handlers: SequenceHandlers): () => void;
  /** Cursor one past the last byte scanned. */
  readonly end: number;
  /** The latest cursor at which no escape sequence or UTF-8 character is open. */
  readonly safeEnd: number;
}

// The state names of xterm.js's EscapeSequenceParser, merged where nobody here tells them apart.
const enum State {
  Ground,
  Escape,
  EscapeIntermediate,
  Csi,
  OscString,
  /** An ESC inside an OSC: ST if a backslash follows, else the start of a new sequence. */
  OscEscape,
  /** DCS, SOS, PM and APC: skipped to ST or BEL. */
  ControlString,
  ControlStringEscape,
}

/** The bytes that start, end or abort a sequence. */
const enum Byte {
  Bel = 0x07,
  Can = 0x18,
  Sub = 0x1a,
  Esc = 0x1b,
  CsiBracket = 0x5b,
  Backslash = 0x5c,
  OscBracket = 0x5d,
}
/** Longer OSC payloads (OSC 52 clipboard data can be megabytes) are skipped, not collected. */
const MAX_OSC_PAYLOAD = 4096;
const MAX_CSI_PARAMS = 64;
const MAX_ESC_INTERMEDIATES = 8;
const MAX_CACHED_PARAMS = 6;
const PARAMS_CACHE_SIZE = 256;
const NO_BYTES = new Uint8Array(0);
/**
 * How far the ground state looks for the next ESC byte by byte before it asks indexOf: in colored
 * output the next one is a word away, closer than indexOf's call costs to make.
 */
const NEAR_ESC = 16;

/** The first ESC in `data` from `from`, or -1. */
function nextEsc(data: Uint8Array, from: number): number {
  const length = data.length;
  const near = Math.min(length, from + NEAR_ESC);
  for (let i = from; i < near; i++) if (data[i] === Byte.Esc) return i;
  return near === length ? -1 : data.indexOf(Byte.Esc, near);
}

/**
 * Scans a session's output once, chunk by chunk, keeping the cursor of the sequence (or UTF-8
 * character) in progress so readers can stop before it. Each user registers its handlers with `on`.
 * While only OSC handlers are registered (a developer's tab follows only its title) the ground
 * state skips to the next "]" with one native indexOf, as the title tracker always did; a CSI or
 * ESC handler registered later sees the sequences that start after it.
 */
export class SequenceScanner implements ScannedOutput {
  private state = State.Ground;
  private position: number;
  /** Cursor where the sequence in progress began. */
  private sequenceStart: number;
  /** The stream's last bytes (up to 4), so a UTF-8 character cut at a chunk's end is known. */
  private readonly tail = new Uint8Array(4);
  private tailLength = 0;
  private readonly oscPayload = new Uint8Array(MAX_OSC_PAYLOAD);
  private oscLength = 0;
  private oscOverflow = false;
  private readonly params = new Uint8Array(MAX_CSI_PARAMS);
  private paramsLength = 0;
  private intermediates = '';
  private readonly paramsCache = new Map<number, string>();
  private readonly handlers = new Set<SequenceHandlers>();
  private oscHandlers: SequenceHandlers[] = [];
  /** Per CSI final byte, the handlers that want it (undefined: nobody, and its parameters are never made text). */
  private csiByFinal: (SequenceHandlers[] | undefined)[] = [];
  private escHandlers: SequenceHandlers[] = [];
  private textHandlers: SequenceHandlers[] = [];
  private full = false;

  constructor(startCursor = 0) {
    this.position = startCursor;
    this.sequenceStart = startCursor;
  }

  /** Cursor one past the last byte scanned. */
  get end(): number {
    return this.position;
  }

  /** The latest cursor at which no escape sequence or UTF-8 character is open: readers stop here so the bytes of one stay together. */
  get safeEnd(): number {
    if (this.state !== State.Ground) return this.sequenceStart;
    return this.position - incompleteTail(this.tail.subarray(4 - this.tailLength));
  }

  /** Drops the sequence (or UTF-8 character) in progress and goes on from `cursor`, as after a gap. */
  restart(cursor: number): void {
    this.state = State.Ground;
    this.tailLength = 0;
    this.position = cursor;
    this.sequenceStart = cursor;
  }

  /** Registers handlers; returns the function that removes them. */
  on(handlers: SequenceHandlers): () => void {
    this.handlers.add(handlers);
    this.sortHandlers();
    return () => {
      if (this.handlers.delete(handlers)) this.sortHandlers();
    };
  }

  /** Scans a chunk that starts at `cursor`; a gap (bytes nobody scanned) drops what was open. */
  scan(cursor: number, data: Uint8Array): void {
    if (cursor !== this.position) this.restart(cursor);
    if (data.length === 0) return;
    if (this.full) this.scanFull(data, cursor);
    else this.scanOscOnly(data, cursor);
    this.position = cursor + data.length;
    this.keepTail(data);
  }

  private sortHandlers(): void {
    const all = [...this.handlers];
    this.oscHandlers = all.filter((h) => h.osc);
    const csiHandlers = all.filter((h) => h.csi || h.csiBytes);
    this.escHandlers = all.filter((h) => h.esc);
    this.textHandlers = all.filter((h) => h.text);
    this.csiByFinal = [];
    for (const handler of csiHandlers) {
      for (const final of handler.csiFinals ?? '') (this.csiByFinal[final.charCodeAt(0)] ??= []).push(handler);
    }
    this.full = csiHandlers.length + this.escHandlers.length + this.textHandlers.length > 0;
  }

  private keepTail(data: Uint8Array): void {
    if (data.length >= 4) {
      this.tail.set(data.subarray(data.length - 4));
      this.tailLength = 4;
      return;
    }
    this.tail.copyWithin(0, data.length);
    this.tail.set(data, 4 - data.length);
    this.tailLength = Math.min(4, this.tailLength + data.length);
  }

  /**
   * Only OSC matters: in ground, a one-byte indexOf of "]" is a memchr, and looking behind it for
   * the ESC finds "ESC ]" where the two-byte search took 1.4 ms a MiB of colored output.
   */
  private scanOscOnly(data: Uint8Array, cursor: number): void {
    const length = data.length;
    let i = 0;
    while (i < length) {
      if (this.state === State.Ground) {
        const at = data.indexOf(Byte.OscBracket, i);
        if (at === -1) {
          if (data[length - 1] === Byte.Esc) this.enter(State.Escape, cursor + length - 1);
          return;
        }
        // An ESC before i was part of something already read (or is the Escape state).
        if (at > i && data[at - 1] === Byte.Esc) this.startOsc(cursor + at - 1);
        i = at + 1;
      } else if (this.state === State.OscString) {
        i = this.collectOsc(data, i, cursor);
      } else if (this.state === State.OscEscape && data[i] === Byte.Backslash) {
        this.finishOsc(cursor + i + 1);
        i++;
      } else if (this.state === State.OscEscape) {
        // An ESC that is not ST aborts the OSC; this byte is looked at again after that ESC.
        this.enter(State.Escape, cursor + i - 1);
      } else if (this.state === State.Escape && data[i] === Byte.OscBracket) {
        this.startOsc(this.sequenceStart);
        i++;
      } else {
        // Any other sequence is nothing to an OSC handler: this byte is looked at again in ground.
        this.state = State.Ground;
      }
    }
  }

  private scanFull(data: Uint8Array, cursor: number): void {
    const length = data.length;
    let i = 0;
    while (i < length) {
      switch (this.state) {
        case State.Ground: {
          const at = nextEsc(data, i);
          const to = at === -1 ? length : at;
          if (to > i) for (const handler of this.textHandlers) handler.text!(data, i, to);
          if (at === -1) return;
          this.sequenceStart = cursor + at;
          if (at + 1 < length && data[at + 1] === Byte.CsiBracket) {
            // "ESC [" at once, as Escape then afterEscape would: nearly every sequence in colored output.
            this.state = State.Csi;
            this.paramsLength = 0;
            i = at + 2;
          } else {
            this.state = State.Escape;
            i = at + 1;
          }
          break;
        }
        case State.OscString:
          i = this.collectOsc(data, i, cursor);
          break;
        case State.Csi:
          i = this.collectCsi(data, i, cursor);
          break;
        default:
          i = this.stepOne(data, i, cursor);
      }
    }
  }

  /** Collects OSC payload up to its terminator (BEL, or the ESC that may begin ST); returns where to go on. */
  private collectOsc(data: Uint8Array, from: number, cursor: number): number {
    let i = from;
    const length = data.length;
    while (i < length) {
      const byte = data[i]!;
      if (byte === Byte.Bel) {
        this.finishOsc(cursor + i + 1);
        return i + 1;
      }
      if (byte === Byte.Esc) {
        this.state = State.OscEscape;
        return i + 1;
      }
      if (byte === Byte.Can || byte === Byte.Sub) {
        this.state = State.Ground;
        return i + 1;
      }
      if (this.oscLength < MAX_OSC_PAYLOAD) this.oscPayload[this.oscLength++] = byte;
      else this.oscOverflow = true;
      i++;
    }
    return i;
  }

  /** Collects CSI parameters up to the final byte; returns where to go on. */
  private collectCsi(data: Uint8Array, from: number, cursor: number): number {
    let i = from;
    const length = data.length;
    while (i < length) {
      const byte = data[i]!;
      if (byte >= 0x40 && byte <= 0x7e) {
        this.state = State.Ground;
        const handlers = this.csiByFinal[byte];
        if (handlers !== undefined) this.finishCsi(handlers, byte, cursor + i + 1);
        return i + 1;
      }
      if (byte === Byte.Esc) {
        this.enter(State.Escape, cursor + i);
        return i + 1;
      }
      if (byte === Byte.Can || byte === Byte.Sub) {
        this.state = State.Ground;
        return i + 1;
      }
      if (this.paramsLength < MAX_CSI_PARAMS) this.params[this.paramsLength++] = byte;
      i++;
    }
    return i;
  }

  /** The states decided one byte at a time; returns where to go on. */
  private stepOne(data: Uint8Array, i: number, cursor: number): number {
    const byte = data[i]!;
    if (byte === Byte.Can || byte === Byte.Sub) {
      this.state = State.Ground;
      return i + 1;
    }
    switch (this.state) {
      case State.Escape:
        return this.afterEscape(byte, i, cursor);
      case State.EscapeIntermediate:
        if (byte === Byte.Esc) this.enter(State.Escape, cursor + i);
        else if (byte >= 0x20 && byte <= 0x2f) {
          if (this.intermediates.length < MAX_ESC_INTERMEDIATES) this.intermediates += String.fromCharCode(byte);
        } else if (byte >= 0x30 && byte <= 0x7e) this.finishEsc(byte, cursor + i + 1);
        return i + 1;
      case State.OscEscape:
        if (byte === Byte.Backslash) {
          this.finishOsc(cursor + i + 1);
          return i + 1;
        }
        // An ESC that is not ST aborts the OSC and starts a new sequence with this byte.
        this.enter(State.Escape, cursor + i - 1);
        return this.afterEscape(byte, i, cursor);
      case State.ControlString:
        if (byte === Byte.Esc) this.state = State.ControlStringEscape;
        else if (byte === Byte.Bel) this.state = State.Ground;
        return i + 1;
      case State.ControlStringEscape:
        if (byte === Byte.Backslash) {
          this.state = State.Ground;
          return i + 1;
        }
        // As in an OSC: an ESC that is not ST starts a new sequence.
        this.enter(State.Escape, cursor + i - 1);
        return this.afterEscape(byte, i, cursor);
      default:
        return i + 1;
    }
  }

  private afterEscape(byte: number, i: number, cursor: number): number {
    if (byte === Byte.CsiBracket) {
      this.state = State.Csi;
      this.paramsLength = 0;
    } else if (byte === Byte.OscBracket) {
      this.startOsc(this.sequenceStart);
    } else if (byte === 0x50 /* P */ || byte === 0x58 /* X */ || byte === 0x5e /* ^ */ || byte === 0x5f /* _ */) {
      this.state = State.ControlString;
    } else if (byte >= 0x20 && byte <= 0x2f) {
      this.state = State.EscapeIntermediate;
      this.intermediates = String.fromCharCode(byte);
    } else if (byte === Byte.Esc) {
      this.sequenceStart = cursor + i;
    } else {
      this.intermediates = '';
      this.finishEsc(byte, cursor + i + 1);
    }
    return i + 1;
  }

  private enter(state: State, start: number): void {
    this.state = state;
    this.sequenceStart = start;
  }

  private startOsc(start: number): void {
    this.enter(State.OscString, start);
    this.oscLength = 0;
    this.oscOverflow = false;
  }

  private finishOsc(end: number): void {
    this.state = State.Ground;
    if (this.oscOverflow) return;
    const payload = this.oscLength === 0 ? NO_BYTES : this.oscPayload.subarray(0, this.oscLength);
    for (const handler of this.oscHandlers) handler.osc!(payload, this.sequenceStart, end);
  }

  private finishCsi(handlers: SequenceHandlers[], final: number, end: number): void {
    // Text only for a handler that takes text, made once for all of them.
    let params: string | undefined;
    let finalText: string | undefined;
    for (let k = 0; k < handlers.length; k++) {
      const handler = handlers[k]!;
      if (handler.csiBytes) handler.csiBytes(this.params, this.paramsLength, final, end);
      else handler.csi!((params ??= this.paramsText()), (finalText ??= String.fromCharCode(final)), end);
    }
  }

  /**
   * The parameters as text. Output repeats a few (colors above all): short ones of digits and
   * separators come from a cache, since building a string per sequence was most of a colored flood's scan.
   */
  private paramsText(): string {
    const length = this.paramsLength;
    const params = this.params;
    if (length <= MAX_CACHED_PARAMS) {
      // Four bits a byte (0x30-0x3f: digits, ":;<=>?") and the length: a small integer, one per string.
      let key = length;
      for (let i = 0; i < length; i++) {
        const nibble = params[i]! - 0x30;
        if (nibble < 0 || nibble > 0xf) return String.fromCharCode.apply(null, params.subarray(0, length) as unknown as number[]);
        key = (key << 4) | nibble;
      }
      let text = this.paramsCache.get(key);
      if (text === undefined) {
        if (this.paramsCache.size >= PARAMS_CACHE_SIZE) this.paramsCache.clear();
        text = String.fromCharCode.apply(null, params.subarray(0, length) as unknown as number[]);
        this.paramsCache.set(key, text);
      }
      return text;
    }
    return String.fromCharCode.apply(null, params.subarray(0, length) as unknown as number[]);
  }

  private finishEsc(final: number, end: number): void {
    this.state = State.Ground;
    const finalText = String.fromCharCode(final);
    for (const handler of this.escHandlers) handler.esc!(this.intermediates, finalText, end);
  }
}
