import { describe, expect, it } from 'vitest';
import { matchShortcut, type KeyLike } from './shortcuts.js';

const key = (overrides: Partial<KeyLike>): KeyLike => ({
  key: '', code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...overrides,
});

describe('matchShortcut', () => {
  it('maps the panel bindings', () => {
    expect(matchShortcut(key({ ctrlKey: true, key: '`', code: 'Backquote' }))).toBe('toggle-panel');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'T', code: 'KeyT' }))).toBe('new-terminal');
    expect(matchShortcut(key({ ctrlKey: true, key: 'PageDown', code: 'PageDown' }))).toBe('next-tab');
    expect(matchShortcut(key({ ctrlKey: true, key: 'PageUp', code: 'PageUp' }))).toBe('previous-tab');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'W', code: 'KeyW' }))).toBe('close-tab');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: 'F', code: 'KeyF' }))).toBe('find');
  });

  it('finds the backquote key by position on layouts that print something else', () => {
    expect(matchShortcut(key({ ctrlKey: true, key: 'ö', code: 'Backquote' }))).toBe('toggle-panel');
    expect(matchShortcut(key({ ctrlKey: true, shiftKey: true, key: '~', code: 'Backquote' }))).toBe('new-terminal');
  });

  it('leaves the shell its own control keys', () => {
    expect(matchShortcut(key({ ctrlKey: true, key: 'c', code: 'KeyC' }))).toBeNull();
    expect(matchShortcut(key({ ctrlKey: true, key: 't', code: 'KeyT' }))).toBeNull(); // Ctrl+T: transpose in readline
    expect(matchShortcut(key({ ctrlKey: true, key: 'w', code: 'KeyW' }))).toBeNull(); // Ctrl+W: delete word
    expect(matchShortcut(key({ key: '`', code: 'Backquote' }))).toBeNull();
    expect(matchShortcut(key({ key: 'PageDown', code: 'PageDown' }))).toBeNull();
  });

  it('ignores chords with Alt or Meta', () => {
    expect(matchShortcut(key({ ctrlKey: true, altKey: true, key: '`', code: 'Backquote' }))).toBeNull();
    expect(matchShortcut(key({ ctrlKey: true, metaKey: true, key: 'PageDown' }))).toBeNull();
  });
});
