import { beforeEach, describe, expect, it, vi } from 'vitest';

// The real 'electron' module, imported from Node, would try to download its binary.
// The window module only needs a BrowserWindow that records how it was built.
const created: FakeWindow[] = [];
class FakeWindow {
  readonly listeners = new Map<string, () => void>();
  shown = false;
  loaded: string | null = null;
  constructor(readonly options: Record<string, unknown>) {
    created.push(this);
  }
  once(event: string, listener: () => void) {
    this.listeners.set(event, listener);
    return this;
  }
  show() {
    this.shown = true;
  }
  loadURL(url: string) {
    this.loaded = url;
    return Promise.resolve();
  }
}
vi.mock('electron', () => ({ BrowserWindow: FakeWindow }));

const { createMainWindow, mainWindowOptions } = await import('./window.js');

describe('mainWindowOptions', () => {
  it('sandboxes and isolates the renderer, with no Node, no webviews and web security on', () => {
    const prefs = mainWindowOptions({ preloadPath: '/app/dist/preload/preload.cjs' }).webPreferences;
    expect(prefs).toMatchObject({
      preload: '/app/dist/preload/preload.cjs',
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
    });
  });

  it('sets no option that weakens the sandbox', () => {
    const prefs = mainWindowOptions({ preloadPath: '/p.cjs' }).webPreferences ?? {};
    for (const risky of ['enableBlinkFeatures', 'additionalArguments', 'partition', 'disableBlinkFeatures']) {
      expect(prefs).not.toHaveProperty(risky);
    }
  });
});

describe('createMainWindow', () => {
  beforeEach(() => {
    created.length = 0;
  });

  it('builds the window from mainWindowOptions, loads the url and shows it when ready', () => {
    createMainWindow({ preloadPath: '/p.cjs', url: 'http://127.0.0.1:4000/?ticket=abc' });
    expect(created).toHaveLength(1);
    const window = created[0]!;
    expect(window.options).toEqual(mainWindowOptions({ preloadPath: '/p.cjs' }));
    expect(window.loaded).toBe('http://127.0.0.1:4000/?ticket=abc');
    expect(window.shown).toBe(false);
    window.listeners.get('ready-to-show')?.();
    expect(window.shown).toBe(true);
  });
});
