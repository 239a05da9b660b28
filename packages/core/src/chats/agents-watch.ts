// Tells when agents.json changes, so the chat pane's list of agents follows the file without "Look again".
import { watch, type FSWatcher } from 'node:fs';
import { AGENTS_FILE } from './agents-config.js';

/** Editors save in bursts (a temp file, a rename, a chmod): one re-read after the burst. */
const SETTLE_MS = 150;

/**
 * Calls `onChange` once a burst of changes to agents.json in `configDir`
 * settles: created, edited, replaced by an editor's rename, or removed. The
 * directory is watched, not the file, so a file that does not exist yet or is
 * replaced is seen too. Without the directory there is nothing to watch: the
 * pane reads the file again whenever it is opened. Returns the stop.
 */
export function watchAgentsConfig(configDir: string, onChange: () => void, onError: (error: unknown) => void): () => void {
  let watcher: FSWatcher;
  try {
    watcher = watch(configDir, { persistent: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError(error);
    return () => undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  watcher.on('change', (_event, filename) => {
    // No name: the platform could not say which file changed, so it may be ours.
    if (filename !== null && filename.toString() !== AGENTS_FILE) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, SETTLE_MS);
  });
  // The directory went away (removed, unmounted): nothing more will be told.
  watcher.on('error', (error) => {
    clearTimeout(timer);
    watcher.close();
    onError(error);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
