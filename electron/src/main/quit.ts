/**
 * Quitting closes what the app holds before it exits: where the core runs inside this
 * process (no host, see host-connection.ts), every session ends and every child is reaped,
 * since its shells would outlive the window as orphans if Electron exited first; a host
 * client only lets go. The first `before-quit` is held (preventDefault) until the
 * server has closed; then the quit is re-issued and allowed through. A close that never
 * settles must not leave an unkillable app either, so a deadline forces the exit.
 */
import type { App } from 'electron';

/** What has to be closed before the app may exit (the LocalServer in production). */
export interface Closeable {
  close(): Promise<void>;
}

export interface QuitOptions {
  /** How long close() may take before the app exits anyway (ms). The core's own kill grace fits well inside it. */
  deadlineMs?: number;
  /** Where failures are reported. */
  log?: (message: string) => void;
}

const DEFAULT_DEADLINE_MS = 10_000;

/** Holds the first quit until `target.close()` settles, then quits for real. Returns an unsubscribe. */
export function closeBeforeQuit(
  app: Pick<App, 'on' | 'off' | 'quit' | 'exit'>,
  target: Closeable,
  options: QuitOptions = {},
): () => void {
  const log = options.log ?? ((message: string) => console.error(message));
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  let state: 'running' | 'closing' | 'closed' = 'running';

  const onBeforeQuit = (event: { preventDefault(): void }) => {
    if (state === 'closed') return;
    event.preventDefault();
    if (state === 'closing') return;
    state = 'closing';
    const deadline = setTimeout(() => {
      log(`ptydeck: sessions did not close within ${deadlineMs} ms; exiting anyway`);
      app.exit(1);
    }, deadlineMs);
    target.close().then(
      () => {
        clearTimeout(deadline);
        state = 'closed';
        app.quit();
      },
      (error: unknown) => {
        clearTimeout(deadline);
        state = 'closed';
        log(`ptydeck: closing the sessions failed: ${error instanceof Error ? error.message : String(error)}`);
        app.exit(1);
      },
    );
  };

  app.on('before-quit', onBeforeQuit);
  return () => app.off('before-quit', onBeforeQuit);
}

/**
 * Routes termination signals to `app.quit()`, so Ctrl-C in the terminal that ran
 * `npm start`, or a `kill`, goes through before-quit and closes the sessions instead of
 * dropping the process with its children still running.
 */
export function quitOnSignals(
  app: Pick<App, 'quit'>,
  processLike: Pick<NodeJS.Process, 'on' | 'off'> = process,
  signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'],
): () => void {
  const onSignal = () => app.quit();
  for (const signal of signals) processLike.on(signal, onSignal);
  return () => {
    for (const signal of signals) processLike.off(signal, onSignal);
  };
}
