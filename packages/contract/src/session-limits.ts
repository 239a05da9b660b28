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

/**
 * Most characters the paths of one of a session's sandbox lists (`readOnly`, `hidden`) add up to in its info: the core
 * lists the first that fit and counts the rest (`readOnlyOmitted`, `hiddenOmitted`). Both lists name paths a shell made
 * (a project's `.vscode` or `.envrc` in each of 500 directories of its workspace, a socket in it), and every panel and
 * `ptydeck attach` gets every session's info in one message, which a client takes up to 8 MiB of.
 */
export const MAX_SANDBOX_LIST_CHARS = 32 * 1024;
