import { describe, expect, it } from 'vitest';
import { clipboardKeyLabels, matchClipboardKey } from './clipboard-keys.js';
import type { KeyLike } from './shortcuts.js';

const key = (overrides: Partial<KeyLike>): KeyLike => ({
  key: '', code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...overrides,
});
const linux = { mac: false, hasSelection: false };
const linuxSelected = { mac: false, hasSelection: true };
const mac = { mac: true, hasSelection: false };
const macSelected = { mac: true, hasSelection: true };

describe('matchClipboardKey', () => {
  it('Ctrl+C copies while text is selected and is the interrupt otherwise', () => {
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'c', code: 'KeyC' }), linuxSelected)).toBe('copy-and-clear');
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'c', code: 'KeyC' }), linux)).toBeNull();
  });

  it('Ctrl+Shift+C copies (and is taken even with nothing selected), Ctrl+Shift+V and Ctrl+V paste', () => {
    expect(matchClipboardKey(key({ ctrlKey: true, shiftKey: true, key: 'C', code: 'KeyC' }), linuxSelected)).toBe('copy');
    expect(matchClipboardKey(key({ ctrlKey: true, shiftKey: true, key: 'C', code: 'KeyC' }), linux)).toBe('copy');
    expect(matchClipboardKey(key({ ctrlKey: true, shiftKey: true, key: 'V', code: 'KeyV' }), linux)).toBe('paste');
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'v', code: 'KeyV' }), linux)).toBe('paste');
  });

  it('matches by position or by character, so other layouts work', () => {
    // A Cyrillic layout: the key at C's place prints "с".
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'с', code: 'KeyC' }), linuxSelected)).toBe('copy-and-clear');
    // Dvorak: "v" printed by the key at KeyPeriod.
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'v', code: 'Period' }), linux)).toBe('paste');
  });

  it('on macOS uses Cmd, and leaves Ctrl+C and Ctrl+V to the shell', () => {
    expect(matchClipboardKey(key({ metaKey: true, key: 'c', code: 'KeyC' }), macSelected)).toBe('copy');
    expect(matchClipboardKey(key({ metaKey: true, key: 'c', code: 'KeyC' }), mac)).toBeNull();
    expect(matchClipboardKey(key({ metaKey: true, key: 'v', code: 'KeyV' }), mac)).toBe('paste');
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'c', code: 'KeyC' }), macSelected)).toBeNull();
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'v', code: 'KeyV' }), mac)).toBeNull();
    // Meta is not Cmd elsewhere (a Super key): never ours.
    expect(matchClipboardKey(key({ metaKey: true, key: 'v', code: 'KeyV' }), linux)).toBeNull();
  });

  it('leaves other keys and Alt chords to the shell', () => {
    expect(matchClipboardKey(key({ key: 'c', code: 'KeyC' }), linuxSelected)).toBeNull();
    expect(matchClipboardKey(key({ ctrlKey: true, altKey: true, key: 'v', code: 'KeyV' }), linux)).toBeNull();
    expect(matchClipboardKey(key({ ctrlKey: true, key: 'x', code: 'KeyX' }), linuxSelected)).toBeNull();
  });
});

describe('clipboardKeyLabels', () => {
  it('names the keys that work on every platform: Ctrl+Shift off macOS, Cmd on it', () => {
    expect(clipboardKeyLabels(false)).toEqual({ copy: 'Ctrl+Shift+C', paste: 'Ctrl+Shift+V' });
    expect(clipboardKeyLabels(true)).toEqual({ copy: 'Cmd+C', paste: 'Cmd+V' });
  });
});
