// A session's limits as numbers, apart from the schemas that use them: a client that needs only these loads no zod.

/** A session id's length, in characters: SessionId's, and the output frame's hand check's (output-frame.ts). */
export const SESSION_ID_MIN = 1;
export const SESSION_ID_MAX = 128;

/** Terminal dimensions the core accepts; outside these a request is rejected, not clamped. */
export const MIN_COLS = 2;
export const MAX_COLS = 1000;
export const MIN_ROWS = 1;
export const MAX_ROWS = 500;

/** Largest input a panel may send in one frame (keystrokes and pastes). */
export const MAX_PANEL_INPUT_CHARS = 1024 * 1024;

/** Longest `sandbox.readOnlyWhy` a session's info carries: the core shortens a longer one (it may name a path a shell chose). */
export const MAX_READ_ONLY_WHY_CHARS = 4096;
