/**
 * Where failures that nobody awaits end up: a listener that threw, a
 * disposer that threw, a background parse or resync that rejected. Each is
 * logged once and the code that hit it carries on. Injectable wherever it is
 * used, so a test can collect reports instead of reading stderr.
 */
export type ErrorReporter = (error: unknown, context: string) => void;

/**
 * The default reporter: `console.error`, which is stderr in Node and Electron's
 * main process (never stdout, which carries MCP frames in `ptydeck mcp`) and
 * the devtools console in the renderer.
 */
export const reportError: ErrorReporter = (error, context) => {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`ptydeck: ${context}: ${detail}`);
};

/** Calls `report` and survives it throwing too: reporting must never break the caller. */
export function reportSafely(report: ErrorReporter, error: unknown, context: string): void {
  try {
    report(error, context);
  } catch {
    // Nowhere left to report to.
  }
}
