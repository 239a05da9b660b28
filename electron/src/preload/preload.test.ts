import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it, vi } from 'vitest';
import { bridgeChannels } from '../main/bridge.js';

/**
 * Runs the preload the way a sandboxed renderer does: as CommonJS with a `require` that
 * knows only 'electron'. Transpiling the source here (rather than reading dist/) keeps
 * the test independent of a prior build while exercising the same CommonJS output.
 */
function runPreload() {
  const source = readFileSync(fileURLToPath(new URL('./preload.cts', import.meta.url)), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  const required: string[] = [];
  const exposed = new Map<string, unknown>();
  const invoke = vi.fn((..._args: unknown[]) => Promise.resolve('answer'));
  const ipcRenderer = Object.assign(new EventEmitter(), { invoke });
  const electron = {
    contextBridge: { exposeInMainWorld: (name: string, api: unknown) => exposed.set(name, api) },
    ipcRenderer,
  };
  const sandboxRequire = (name: string) => {
    required.push(name);
    if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
    return electron;
  };
  // The same parameters Electron's sandboxed renderer compiles a preload with
  // (lib/sandboxed_renderer/preload.ts): require, process, exports, module.
  const exports = {};
  new Function('require', 'process', 'exports', 'module', outputText)(sandboxRequire, {}, exports, { exports });
  return { required, exposed, invoke, ipcRenderer };
}

describe('preload', () => {
  it("requires nothing but 'electron'", () => {
    expect(runPreload().required).toEqual(['electron']);
  });

  it('exposes exactly window.ptydeck with one function per capability, never ipcRenderer', () => {
    const { exposed } = runPreload();
    expect([...exposed.keys()]).toEqual(['ptydeck']);
    const bridge = exposed.get('ptydeck') as Record<string, unknown>;
    expect(Object.keys(bridge).sort()).toEqual(['connection', 'notify', 'onNotificationClick', 'openExternal', 'readClipboard', 'writeClipboard']);
    for (const value of Object.values(bridge)) expect(typeof value).toBe('function');
  });

  it("invokes the main process's channels", async () => {
    const { exposed, invoke } = runPreload();
    const bridge = exposed.get('ptydeck') as { connection(): Promise<unknown>; openExternal(url: unknown): Promise<unknown> };
    await expect(bridge.connection()).resolves.toBe('answer');
    await bridge.openExternal('https://example.com/');
    expect(invoke.mock.calls).toEqual([[bridgeChannels.connection], [bridgeChannels.openExternal, 'https://example.com/']]);
  });

  it('reads and writes the clipboard through main', async () => {
    const { exposed, invoke } = runPreload();
    const bridge = exposed.get('ptydeck') as { readClipboard(): Promise<unknown>; writeClipboard(text: unknown): Promise<unknown> };
    await expect(bridge.readClipboard()).resolves.toBe('answer');
    await bridge.writeClipboard('copied');
    expect(invoke.mock.calls).toEqual([[bridgeChannels.readClipboard], [bridgeChannels.writeClipboard, 'copied']]);
  });

  it('asks main for a notification and hands the page only the target string of a click', async () => {
    const { exposed, invoke, ipcRenderer } = runPreload();
    const bridge = exposed.get('ptydeck') as {
      notify(notification: unknown): Promise<unknown>;
      onNotificationClick(listener: (...args: unknown[]) => void): () => void;
    };
    const request = { title: 'codex needs input', body: 'make build: Continue?', target: 'session:s-1' };
    await bridge.notify(request);
    expect(invoke.mock.calls).toEqual([[bridgeChannels.notify, request]]);

    const clicks: unknown[][] = [];
    const unsubscribe = bridge.onNotificationClick((...args) => clicks.push(args));
    const event = { sender: ipcRenderer };
    ipcRenderer.emit(bridgeChannels.notificationClick, event, 's-1');
    ipcRenderer.emit(bridgeChannels.notificationClick, event, { not: 'an id' });
    expect(clicks).toEqual([['s-1']]);
    unsubscribe();
    expect(ipcRenderer.listenerCount(bridgeChannels.notificationClick)).toBe(0);
    ipcRenderer.emit(bridgeChannels.notificationClick, event, 's-2');
    expect(clicks).toEqual([['s-1']]);
  });
});
