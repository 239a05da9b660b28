/**
 * The ptydeck window: the renderer from the local server, in a sandboxed, context-isolated
 * page with no Node and no webviews. The preload is its only bridge to the main process.
 */
import { BrowserWindow, type BrowserWindowConstructorOptions } from 'electron';

export interface MainWindowOptions {
  /** Absolute path of the compiled CommonJS preload (dist/preload/preload.cjs). */
  preloadPath: string;
}

/** The constructor options; a function of its own so the security settings are asserted in one place. */
export function mainWindowOptions(options: MainWindowOptions): BrowserWindowConstructorOptions {
  return {
    title: 'ptydeck',
    width: 1200,
    height: 800,
    minWidth: 480,
    minHeight: 320,
    // Shown on ready-to-show, so the user never sees a white flash before the dark UI paints.
    show: false,
    backgroundColor: '#1e1e1e',
    webPreferences: {
      preload: options.preloadPath,
      // The preload runs sandboxed: it can require only 'electron', so a renderer compromise
      // does not reach Node through it.
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      // Dropping a file on the window would otherwise navigate to it.
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
    },
  };
}

/** Creates the window and loads `url` (the server's URL) into it. */
export function createMainWindow(options: MainWindowOptions & { url: string }): BrowserWindow {
  const window = new BrowserWindow(mainWindowOptions(options));
  window.once('ready-to-show', () => window.show());
  // A failed load (the server refused, the port vanished) shows as a blank window; the
  // rejection is reported rather than left unhandled, which would abort the main process.
  window.loadURL(options.url).catch((error: unknown) => {
    console.error(`ptydeck: the window could not load ${new URL(options.url).origin}: ${String(error)}`);
  });
  return window;
}
