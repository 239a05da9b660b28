// Colour for the CLI's output only where the terminal wants it, so pipes and logs stay plain.
import { detectCapability, type EnvLike, type StreamLike } from '../capability/terminal-capability.js';

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
}

const plain = (text: string) => text;
const sgr = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;

/**
 * Colour for one output stream, as the terminal capability module decides it
 * (NO_COLOR, FORCE_COLOR, pipes): text stays plain wherever colour is off,
 * so a pipe or a log file never sees an escape sequence.
 */
export function styleFor(stream: StreamLike | null | undefined, env: EnvLike = process.env): Style {
  if (detectCapability(stream, env).color === 'none') return { bold: plain, dim: plain, red: plain, cyan: plain };
  return { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), cyan: sgr(36, 39) };
}
