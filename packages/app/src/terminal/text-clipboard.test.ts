import { describe, expect, it, vi } from 'vitest';
import { textClipboard } from './text-clipboard.js';

describe('textClipboard', () => {
  it("goes through the desktop app's bridge when it has the clipboard, and checks what comes back", async () => {
    const writeClipboard = vi.fn(() => Promise.resolve());
    const web = { readText: vi.fn(() => Promise.resolve('web')), writeText: vi.fn(() => Promise.resolve()) };
    const clipboard = textClipboard({ connection: vi.fn(), readClipboard: () => Promise.resolve('from main'), writeClipboard }, web);
    await expect(clipboard.readText()).resolves.toBe('from main');
    await clipboard.writeText('copied');
    expect(writeClipboard).toHaveBeenCalledWith('copied');
    expect(web.readText).not.toHaveBeenCalled();
    const odd = textClipboard({ connection: vi.fn(), readClipboard: () => Promise.resolve(42 as never), writeClipboard }, web);
    await expect(odd.readText()).rejects.toThrow(/no text/);
  });

  it('uses the web API in a browser, and says so when the page has none', async () => {
    const web = { readText: vi.fn(() => Promise.resolve('web')), writeText: vi.fn(() => Promise.resolve()) };
    await expect(textClipboard(null, web).readText()).resolves.toBe('web');
    await expect(textClipboard({ connection: vi.fn() }, web).readText()).resolves.toBe('web');
    await expect(textClipboard(null, undefined).writeText('x')).rejects.toThrow(/no clipboard access/);
  });
});
