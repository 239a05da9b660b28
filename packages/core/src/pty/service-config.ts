/**
 * The PTY service's numeric limits: their defaults, and the options that
 * override them checked where they enter (each a non-negative integer),
 * with an error that names the option. What each limit means is documented
 * on PtyServiceOptions.
 */
import { DEFAULT_FLOOD_TURNS } from './flood-turns.js';
import { FLOOD } from './flood.js';
import { PtyError, type PtyServiceOptions } from './types.js';

const DEFAULTS = {
  maxLiveSessions: 32,
  reservedUserSessions: 8,
  sessionLogBytes: 4 * 1024 * 1024,
  totalLogBytes: 64 * 1024 * 1024,
  maxExitedSessions: 32,
  maxExitedTotal: 256,
  killGraceMs: 3000,
  maxDisplaySessions: 32,
  floodReaders: DEFAULT_FLOOD_TURNS.readers,
  // A flood is read by the thread: the event loop is for keystrokes and output that is not one.
  threadReadAfter: FLOOD.runBytes,
  floodQuietMs: FLOOD.quietMs as number,
};

export type ServiceConfig = typeof DEFAULTS;

/** The defaults with the given options applied; throws invalid_argument naming the first bad one. */
export function serviceConfig(options: PtyServiceOptions): ServiceConfig {
  const config = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw new PtyError('invalid_argument', `option ${key} must be a non-negative integer`);
    }
    config[key] = value;
  }
  return config;
}
