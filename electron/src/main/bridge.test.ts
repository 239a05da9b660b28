import { describe, expect, it, vi } from 'vitest';
import { assertTrustedSender, bridgeChannels, MAX_CLIPBOARD_TEXT, registerBridge, type BridgeBackend } from './bridge.js';
import { FakeIpcMain } from './testing/fakes.js';

const appOrigin = 'http://127.0.0.1:4000';
const app = { url: `${appOrigin}/` };

function setup() {
  const ipcMain = new FakeIpcMain();
  const openExternal = vi.fn<(url: string) => Promise<void>>(() => Promise.resolve());
  const notify = vi.fn<BridgeBackend['notify']>();
  const clipboard = { text: 'on the clipboard', readText: () => clipboard.text, writeText: (text: string) => void (clipboard.text = text) };
  const backend: BridgeBackend = {
    appOrigin,
    connection: () => ({ url: appOrigin, token: 'secret-token' }),
    openExternal,
    notify,
    clipboard,
  };
  const unregister = registerBridge(ipcMain, backend);
  return { ipcMain, openExternal, notify, clipboard, unregister };
}

describe('assertTrustedSender', () => {
  it("accepts the app origin's top-level frame", () => {
    expect(() => assertTrustedSender({ senderFrame: { url: `${appOrigin}/?x=1`, parent: null } } as never, appOrigin)).not.toThrow();
  });

  it('refuses a destroyed frame, a subframe and any other origin', () => {
    const refuse = (senderFrame: unknown) => () => assertTrustedSender({ senderFrame } as never, appOrigin);
    expect(refuse(null)).toThrow(/untrusted_sender: the sending frame is gone/);
    expect(refuse({ url: `${appOrigin}/`, parent: {} })).toThrow(/untrusted_sender: only the top-level frame/);
    for (const url of ['https://example.com/', 'http://127.0.0.1:4001/', 'http://127.0.0.1:4000.evil.example/', 'about:blank', 'file:///x']) {
      expect(refuse({ url, parent: null }), url).toThrow(/untrusted_sender: the sending frame is not the ptydeck app/);
    }
  });
});

describe('registerBridge', () => {
  it("reads and writes the clipboard's text for the app only, a string of bounded size", async () => {
    const { ipcMain, clipboard } = setup();
    await expect(ipcMain.invoke(bridgeChannels.readClipboard, app)).resolves.toBe('on the clipboard');
    await ipcMain.invoke(bridgeChannels.writeClipboard, app, 'copied from a terminal');
    expect(clipboard.text).toBe('copied from a terminal');

    const evil = { url: 'https://evil.example/' };
    await expect(ipcMain.invoke(bridgeChannels.readClipboard, evil)).rejects.toThrow(/untrusted_sender/);
    await expect(ipcMain.invoke(bridgeChannels.writeClipboard, evil, 'x')).rejects.toThrow(/untrusted_sender/);
    await expect(ipcMain.invoke(bridgeChannels.readClipboard, { url: `${appOrigin}/`, parent: {} })).rejects.toThrow(/untrusted_sender/);
    for (const input of [undefined, 42, { toString: () => 'x' }, ['x']]) {
      await expect(ipcMain.invoke(bridgeChannels.writeClipboard, app, input)).rejects.toThrow(/invalid_clipboard_text: .* must be a string/);
    }
    await expect(ipcMain.invoke(bridgeChannels.writeClipboard, app, 'x'.repeat(MAX_CLIPBOARD_TEXT + 1))).rejects.toThrow(/invalid_clipboard_text: .* over/);
    expect(clipboard.text).toBe('copied from a terminal');
  });

  it('hands the connection to the app and to nobody else', async () => {
    const { ipcMain } = setup();
    await expect(ipcMain.invoke(bridgeChannels.connection, app)).resolves.toEqual({ url: appOrigin, token: 'secret-token' });
    await expect(ipcMain.invoke(bridgeChannels.connection, { url: 'https://evil.example/' })).rejects.toThrow(/untrusted_sender/);
    await expect(ipcMain.invoke(bridgeChannels.connection, { url: `${appOrigin}/`, parent: {} })).rejects.toThrow(/untrusted_sender/);
    await expect(ipcMain.invoke(bridgeChannels.connection, null)).rejects.toThrow(/untrusted_sender/);
  });

  it('opens http and https links, normalised', async () => {
    const { ipcMain, openExternal } = setup();
    await ipcMain.invoke(bridgeChannels.openExternal, app, 'https://example.com/a b');
    await ipcMain.invoke(bridgeChannels.openExternal, app, 'HTTP://Example.com');
    expect(openExternal.mock.calls).toEqual([['https://example.com/a%20b'], ['http://example.com/']]);
  });

  it('refuses every other scheme, credentials, non-strings and oversized input, opening nothing', async () => {
    const { ipcMain, openExternal } = setup();
    const cases: Array<[unknown, RegExp]> = [
      ['javascript:alert(1)', /only http: and https:/],
      ['file:///etc/passwd', /only http: and https:/],
      ['smb://host/share', /only http: and https:/],
      ['vscode://open?file=/x', /only http: and https:/],
      ['data:text/html,x', /only http: and https:/],
      ['https://user:pass@example.com/', /embedded credentials/],
      ['/relative/path', /does not parse/],
      ['', /does not parse/],
      [42, /must be a string, got number/],
      [{ toString: () => 'https://example.com' }, /must be a string, got object/],
      [undefined, /must be a string, got undefined/],
      [`https://example.com/${'a'.repeat(9000)}`, /longer than/],
    ];
    for (const [input, message] of cases) {
      await expect(ipcMain.invoke(bridgeChannels.openExternal, app, input), String(input).slice(0, 40)).rejects.toThrow(message);
    }
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('refuses a valid link from an untrusted sender', async () => {
    const { ipcMain, openExternal } = setup();
    await expect(ipcMain.invoke(bridgeChannels.openExternal, { url: 'https://evil.example/' }, 'https://example.com/')).rejects.toThrow(
      /untrusted_sender/,
    );
    expect(openExternal).not.toHaveBeenCalled();
  });

  it('shows a notification the app asks for, with only the fields it knows', async () => {
    const { ipcMain, notify } = setup();
    await ipcMain.invoke(bridgeChannels.notify, app, { title: 'codex needs input', body: 'make build: Continue? [y/N]', target: 'session:s-1', icon: '/etc/passwd' });
    expect(notify.mock.calls).toEqual([[{ title: 'codex needs input', body: 'make build: Continue? [y/N]', target: 'session:s-1' }]]);
  });

  it('refuses a notification from any other sender, showing nothing', async () => {
    const { ipcMain, notify } = setup();
    const request = { title: 't', body: 'b', target: 'session:s-1' };
    for (const sender of [{ url: 'https://evil.example/' }, { url: `${appOrigin}/`, parent: {} }, null]) {
      await expect(ipcMain.invoke(bridgeChannels.notify, sender, request)).rejects.toThrow(/untrusted_sender/);
    }
    expect(notify).not.toHaveBeenCalled();
  });

  it('refuses a malformed notification, naming the field', async () => {
    const { ipcMain, notify } = setup();
    const cases: Array<[unknown, RegExp]> = [
      [null, /expected an object, got null/],
      ['hello', /expected an object, got string/],
      [{ title: 1, body: 'b', target: 's' }, /title must be a string, got number/],
      [{ title: '', body: 'b', target: 's' }, /title must not be empty/],
      [{ title: 't', body: 'b'.repeat(2000), target: 's' }, /body is longer than/],
      [{ title: 't', body: 'b' }, /target must be a string, got undefined/],
      [{ title: 't', body: 'b', target: 'x'.repeat(200) }, /target is longer than/],
    ];
    for (const [input, message] of cases) {
      await expect(ipcMain.invoke(bridgeChannels.notify, app, input), JSON.stringify(input)?.slice(0, 40)).rejects.toThrow(message);
    }
    expect(notify).not.toHaveBeenCalled();
  });

  it('removes its handlers when unregistered', () => {
    const { ipcMain, unregister } = setup();
    expect([...ipcMain.handlers.keys()].sort()).toEqual([bridgeChannels.connection, bridgeChannels.openExternal, bridgeChannels.notify, bridgeChannels.readClipboard, bridgeChannels.writeClipboard].sort());
    unregister();
    expect(ipcMain.handlers.size).toBe(0);
  });
});
