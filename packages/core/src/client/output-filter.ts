// What of a session's output `ptydeck attach` gives the developer's own terminal: drawing, never requests.
import { StringDecoder } from 'node:string_decoder';
import { COUNT_BOUNDS } from '@ptydeck/contract';
import { SequenceScanner } from '../vt/index.js';

/**
 * Controls that draw: BEL, BS, HT, LF, VT, FF, CR, and SO/SI (the shift to a
 * line-drawing set that ncurses uses). Every other C0 is dropped: ENQ asks a
 * terminal for its answerback, and the rest mean nothing in a stream to draw.
 * DEL and the C1 code points go too: a terminal reading UTF-8 may take
 * U+009B for CSI or U+009D for OSC, a way round every check below.
 */
const UNDRAWN = /[\u0000-\u0006\u0010-\u001f\u007f-\u009f]/g;

/** Every CSI final byte: the scanner hands over only those a handler asks for. */
const ALL_CSI_FINALS = Array.from({ length: 0x7f - 0x40 }, (_, i) => String.fromCharCode(0x40 + i)).join('');
/** What the scanner keeps of a CSI's parameters; one this long may have been cut, so it is not rebuilt. */
const MAX_SCANNED_PARAMS = 64;
/** A CSI's parameter bytes: an optional private marker, the numbers, the intermediates. */
const CSI_PARTS = /^([<=>?]?)([0-9:;]*)([ -/]*)$/;

/**
 * Plain CSIs that only draw: cursor movement, erase, insert and delete,
 * scroll and its region, tabs, colours (SGR), saving the cursor. Absent, and
 * so dropped: the reports a terminal answers by typing into its input (DSR
 * `n`, DA `c`, DECREQTPARM `x`), window operations and their reports (`t`),
 * media copy (`i`), and every CSI with another private marker or intermediate
 * (DA2, DA3, XTVERSION, DECRQM, XTMODKEYS and the kitty keyboard's flags, which
 * would outlive the attach).
 */
const DRAWING_FINALS = new Set('@ABCDEFGHIJKLMPSTXZ`abdefgmrsu');
/** ANSI modes (CSI h / l) that only draw: insert mode. */
const DRAWING_ANSI_MODES = new Set(['4']);
/**
 * DEC private modes that only draw or shape keys the session expects: cursor
 * keys, origin, autowrap, cursor blink and visibility, reverse wrap, the
 * alternate screen, bracketed paste, synchronized output. Absent, and so
 * dropped: mouse tracking (9, 1000-1006, 1015, 1016: the terminal would send
 * reports as keys), focus events (1004), the colour-scheme reports (2031),
 * 132 columns (3, which resizes the window) and reverse video (5).
 */
const DRAWING_PRIVATE_MODES = new Set(['1', '6', '7', '12', '25', '45', '47', '1047', '1048', '1049', '2004', '2026']);

/**
 * ESC sequences that only draw: save and restore the cursor, index, next line,
 * tab set, reverse index, the keypad's modes. Character sets (ESC ( 0 and its
 * kin) and DEC line sizes are allowed by their intermediate. Dropped: RIS (a
 * reset reaches past the session's screen), DECID (answered like DA), S8C1T
 * (answers in 8-bit controls) and every other.
 */
const DRAWING_ESC = new Set(['7', '8', 'D', 'E', 'H', 'M', '=', '>', '(0', '(A', '(B', ')0', ')A', ')B', '*0', '*A', '*B', '+0', '+A', '+B', '#3', '#4', '#5', '#6', '#8']);

/**
 * Makes a session's output safe to draw on the developer's own terminal, as
 * tmux does by drawing what a pane shows instead of passing its bytes on. A
 * whitelist: text and the drawing controls above pass; OSC (titles, OSC 52's
 * clipboard set and query, OSC 8 links, colour queries), DCS (DECRQSS,
 * XTGETTCAP), APC, PM and SOS strings, report requests and mouse and focus
 * modes are dropped, so nothing the session writes makes this terminal type an
 * answer into it or reach the developer's clipboard or window. Sequences cut
 * across chunks are held until they end (the shared SequenceScanner keeps
 * their state). Report requests are dropped rather than answered: the panel's
 * terminal answers them when one is open, and two answers would both arrive.
 */
export class OutputFilter {
  private scanner!: SequenceScanner;
  private decoder!: StringDecoder;
  private drawn = '';

  constructor() {
    this.reset();
  }

  /** Forgets a sequence or character in progress: the next bytes are a new stream (a fresh screen). */
  reset(): void {
    this.scanner = new SequenceScanner();
    this.decoder = new StringDecoder('utf8');
    this.scanner.on({
      text: (data, from, to) => {
        this.drawn += this.decoder.write(Buffer.from(data.buffer, data.byteOffset + from, to - from)).replace(UNDRAWN, '');
      },
      csiFinals: ALL_CSI_FINALS,
      csi: (params, final) => {
        this.drawn += drawingCsi(params, final);
      },
      esc: (intermediates, final) => {
        if (DRAWING_ESC.has(intermediates + final)) this.drawn += `\x1b${intermediates}${final}`;
      },
    });
  }

  /** What of the next bytes of the stream the local terminal may be given; what ends in the middle of a sequence waits for its end. */
  filter(data: Uint8Array | string): string {
    this.scanner.scan(this.scanner.end, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    const drawn = this.drawn;
    this.drawn = '';
    return drawn;
  }
}

/** The CSI rebuilt from its parts if it only draws, else nothing; of a mode list, the modes that only draw. */
function drawingCsi(params: string, final: string): string {
  if (params.length >= MAX_SCANNED_PARAMS) return '';
  const parts = CSI_PARTS.exec(params);
  if (!parts) return '';
  const [, marker, args, intermediates] = parts as unknown as [string, string, string, string];
  if (final === 'h' || final === 'l') {
    if (intermediates !== '' || (marker !== '' && marker !== '?')) return '';
    const allowed = marker === '?' ? DRAWING_PRIVATE_MODES : DRAWING_ANSI_MODES;
    const modes = args.split(';').filter((mode) => allowed.has(mode));
    return modes.length === 0 ? '' : `\x1b[${marker}${modes.join(';')}${final}`;
  }
  if (marker !== '') return '';
  // DECSCUSR (the cursor's shape) and DECSTR (soft reset) are the only ones with an intermediate that only draw.
  if (intermediates !== '') return (intermediates === ' ' && final === 'q') || (intermediates === '!' && final === 'p') ? `\x1b[${params}${final}` : '';
  if (!DRAWING_FINALS.has(final)) return '';
  // ED 3 erases the terminal's own scrollback, which holds more than the session.
  if (final === 'J' && args === '3') return '';
  // A count a terminal carries out once per count, past the largest screen: the screen's own bound (terminals clamp there).
  const most = COUNT_BOUNDS.get(final);
  if (most !== undefined && Number.parseInt(args, 10) > most) return `\x1b[${most}${args.replace(/^[0-9]+/, '')}${final}`;
  return `\x1b[${params}${final}`;
}
