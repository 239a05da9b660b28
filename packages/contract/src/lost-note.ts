// How a lost session is described to people, in the same words by the panel and the CLI.
import type { LostInfo } from './session.js';

/** What a lost session is, in the words the panel and `ptydeck attach` both use. */
export const LOST_SUMMARY = 'lost: the host restarted; output as last saved';

/**
 * A lost session in one line for people: LOST_SUMMARY, and how much of its
 * end is known to be missing. The figure is "at least": the old host may have
 * read more after it last saved (the README gives the bound).
 */
export function lostNote(lost: LostInfo | null | undefined): string {
  const unwritten = lost?.unwrittenBytes;
  if (unwritten === 0) return LOST_SUMMARY;
  if (unwritten === null || unwritten === undefined) return `${LOST_SUMMARY} (how much of its end is missing is not known)`;
  return `${LOST_SUMMARY} (at least ${byteCount(unwritten)} of its end is missing)`;
}

/** 1 byte, 512 bytes, 3.2 KiB, 1.0 MiB. */
export function byteCount(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
