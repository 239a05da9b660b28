import type { SerializedScreen, WriteMarks } from './mirror-screen.js';

/**
 * Messages between the core's main thread and the screen worker. Screens are
 * addressed by a number the main thread hands out, not by session id, so a
 * screen made again for the same session (after a worker restart) never
 * receives the old one's messages.
 */
export type ScreenRequest =
  | { type: 'open'; screen: number; cols: number; rows: number; scrollback: number }
  /**
   * `data` arrives transferred: the main thread gave up its copy. `skim`: pass over it (MirrorScreen.skim).
   * `background`: nobody waits for it: parsed in pieces, other screens' requests served between them.
   */
  | { type: 'write'; screen: number; req: number; data: Uint8Array; skim: boolean; marks?: WriteMarks; background?: boolean }
  | { type: 'resize'; screen: number; cols: number; rows: number }
  /** The screen's output ended: keep what reads return, not the terminal (ScreenMirror.freeze). */
  | { type: 'freeze'; screen: number }
  | { type: 'snapshot'; screen: number; req: number; scrollback: number }
  | { type: 'text'; screen: number; req: number }
  | { type: 'close'; screen: number }
  /** Answered once the worker's warm-up (warmUpParser) is over: for diagnostics (bench figure 6). */
  | { type: 'warmed'; req: number };

export interface ScreenTextValue {
  text: string;
  altScreen: boolean;
}

export type ScreenReply =
  /** `buffer`: a write's bytes' buffer, transferred back once parsed, for the main thread to fill again (ScreenWorker). */
  | { type: 'done'; req: number; value?: SerializedScreen | ScreenTextValue; buffer?: ArrayBuffer }
  | { type: 'failed'; req: number; message: string };
