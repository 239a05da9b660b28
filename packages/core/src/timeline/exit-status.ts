// A shell's exit status above 128 names the signal that ended the command.
import { constants } from 'node:os';

const NAMES = new Map<number, string>(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/** The signal a status of 128 + n says ended the command (130: SIGINT), or null. */
export function signalFromStatus(status: number | null): string | null {
  if (status === null || status <= 128 || status > 128 + 64) return null;
  return NAMES.get(status - 128) ?? null;
}
