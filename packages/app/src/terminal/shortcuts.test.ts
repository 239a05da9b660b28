import { describe, expect, it } from 'vitest';
import { matchShortcut, shortcutLabels, type KeyLike } from './shortcuts.js';

const key = (overrides: Partial<KeyLike>): KeyLike => ({
  key: '', code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...overrides,
});

describe('matchShortcut', () => {
  it('maps the Electron bindings', () => {
    expect(matchShortcut(key({ ctrlKey: true, key: '`', code: 'Backquote' }))).toBe('toggle-panel');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'T', code: 'KeyT' }))).toBe('new-terminal');
    expect(matchShortcut(key({ ctrlKey: true, key: 'PageDown', code: 'PageDown' }))).toBe('next-tab');
    expect(matchShortcut(key({ ctrlKey: true, key: 'PageUp', code: 'PageUp' }))).toBe('previous-tab');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'W', code: 'KeyW' }))).toBe('close-tab');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'F', code: 'KeyF' }))).toBe('find');
  });

  it('maps the browser bindings, the keys a browser window passes to the page', () => {
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: '~', code: 'Backquote' }))).toBe('new-terminal');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'PageDown', code: 'PageDown' }))).toBe('next-tab');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'PageUp', code: 'PageUp' }))).toBe('previous-tab');
    expect(matchShortcut(key({ altKey: true, shiftKey: true, key: 'W', code: 'KeyW' }))).toBe('close-tab');
    // Alt+Shift+W by position: on macOS-style layouts Alt changes the printed character.
    expect(matchShortcut(key({ altKey: true, shiftKey: true, key: '„', code: 'KeyW' }))).toBe('close-tab');
  });

  it('advertises, per mode, only bindings that reach the page there', () => {
    const browser = Object.values(shortcutLabels('browser'));
    for (const reserved of ['Ctrl+PageDown', 'Ctrl+PageUp', 'Ctrl+Shift+W', 'Ctrl+Shift+T']) expect(browser).not.toContain(reserved);
    expect(shortcutLabels('electron')['close-tab']).toBe('Ctrl+Shift+W');
    expect(shortcutLabels('browser')['close-tab']).toBe('Alt+Shift+W');
  });

  it('finds the backquote key by position on layouts that print something else', () => {
    expect(matchShortcut(key({ ctrlKey: true, key: 'ö', code: 'Backquote' }))).toBe('toggle-panel');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: '~', code: 'Backquote' }))).toBe('new-terminal');
  });

  it('leaves the shell its own control and meta keys', () => {
    expect(matchShortcut(key({ ctrlKey: true, key: 'c', code: 'KeyC' }))).toBeNull();
    expect(matchShortcut(key({ ctrlKey: true, key: 't', code: 'KeyT' }))).toBeNull(); // Ctrl+T: transpose in readline
    expect(matchShortcut(key({ ctrlKey: true, key: 'w', code: 'KeyW' }))).toBeNull(); // Ctrl+W: delete word
    expect(matchShortcut(key({ altKey: true, key: 'w', code: 'KeyW' }))).toBeNull(); // Alt+W: copy-region in emacs mode
    expect(matchShortcut(key({ key: '`', code: 'Backquote' }))).toBeNull();
    expect(matchShortcut(key({ key: 'PageDown', code: 'PageDown' }))).toBeNull();
    expect(matchShortcut(key({ shiftKey: true, key: 'PageUp', code: 'PageUp' }))).toBeNull(); // scrolls the terminal
  });

  it('ignores chords with Meta, and Ctrl+Alt ones (AltGr on Windows)', () => {
    expect(matchShortcut(key({ ctrlKey: true, altKey: true, key: '`', code: 'Backquote' }))).toBeNull();
    expect(matchShortcut(key({ ctrlKey: true, altKey: true, shiftKey: true, key: 'W', code: 'KeyW' }))).toBeNull();
    expect(matchShortcut(key({ ctrlKey: true, metaKey: true, key: 'PageDown' }))).toBeNull();
  });
});
