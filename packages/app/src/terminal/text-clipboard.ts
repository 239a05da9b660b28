// The system clipboard's text, through the desktop app's main process or the web API, behind one interface.
import type { PtydeckBridge } from '../bridge.js';

/** Reads and writes the system clipboard's text. */
export interface TextClipboard {
  readText(): Promise<string>;
  writeText(text: string): Promise<void>;
}

/**
 * The desktop app's main process when its bridge has the clipboard (the
 * sandboxed window is granted no permission, clipboard included), otherwise
 * the web API: a page on http://127.0.0.1 is a secure context; a browser may
 * ask the developer once before it lets the page read.
 */
export function textClipboard(bridge: PtydeckBridge | null, web: Pick<Clipboard, 'readText' | 'writeText'> | undefined): TextClipboard {
  if (bridge?.readClipboard && bridge.writeClipboard) {
    const { readClipboard, writeClipboard } = bridge;
    return {
      readText: async () => {
        const text: unknown = await readClipboard();
        if (typeof text !== 'string') throw new TypeError('the bridge returned no text from the clipboard');
        return text;
      },
      writeText: async (text) => writeClipboard(text),
    };
  }
  const unavailable = () => Promise.reject(new Error('this page has no clipboard access'));
  return {
    readText: () => (web ? web.readText() : unavailable()),
    writeText: (text) => (web ? web.writeText(text) : unavailable()),
  };
}
