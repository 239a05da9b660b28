import { describe, expect, it } from 'vitest';
import type { KeyLike } from './shortcuts.js';
import { keyToInput, showsLineEditor, TypeAhead } from './type-ahead.js';

const key = (overrides: Partial<KeyLike>): KeyLike => ({
  key: '', code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...overrides,
});

describe('TypeAhead', () => {
  it('holds what is typed for a request, then for its session, and releases it once, in order', () => {
    const ahead = new TypeAhead();
    expect(ahead.waiting).toBe(false);
    expect(ahead.typed('lost')).toBe(false);
    ahead.expect('r1');
    expect(ahead.waiting).toBe(true);
    expect(ahead.typed('ec')).toBe(true);
    ahead.created('r1', 'session-a');
    expect(ahead.waiting).toBe(false);
    expect(ahead.holds('session-a')).toBe(true);
    // Typed into the new terminal before its shell printed anything: still held, after the rest.
    expect(ahead.typedInto('session-a', 'ho x')).toBe(true);
    expect(ahead.release('session-a')).toBe('echo x');
    expect(ahead.holds('session-a')).toBe(false);
    expect(ahead.typedInto('session-a', 'y')).toBe(false);
    expect(ahead.release('session-a')).toBe('');
  });

  it('gives keys to the latest request still waiting, and drops a failed one\'s', () => {
    const ahead = new TypeAhead();
    ahead.expect('r1');
    ahead.expect('r2');
    ahead.typed('a');
    ahead.failed('r2');
    ahead.typed('b');
    ahead.created('r1', 's1');
    expect(ahead.release('s1')).toBe('b');
  });
});

describe('keyToInput', () => {
  it('turns command-line keys into the bytes a terminal sends', () => {
    expect(keyToInput(key({ key: 'e', code: 'KeyE' }))).toBe('e');
    expect(keyToInput(key({ key: 'E', code: 'KeyE', shiftKey: true }))).toBe('E');
    expect(keyToInput(key({ key: ' ', code: 'Space' }))).toBe(' ');
    expect(keyToInput(key({ key: 'é' }))).toBe('é');
    expect(keyToInput(key({ key: 'Enter' }))).toBe('\r');
    expect(keyToInput(key({ key: 'Backspace' }))).toBe('\x7f');
    expect(keyToInput(key({ key: 'Tab' }))).toBe('\t');
    expect(keyToInput(key({ key: 'c', ctrlKey: true }))).toBe('\x03');
    expect(keyToInput(key({ key: 'U', ctrlKey: true, shiftKey: true }))).toBe('\x15');
  });

  it('leaves modifiers, dead keys, navigation and Alt/Meta chords alone', () => {
    expect(keyToInput(key({ key: 'Shift' }))).toBeNull();
    expect(keyToInput(key({ key: 'Dead' }))).toBeNull();
    expect(keyToInput(key({ key: 'ArrowUp' }))).toBeNull();
    expect(keyToInput(key({ key: 'x', altKey: true }))).toBeNull();
    expect(keyToInput(key({ key: 'v', metaKey: true }))).toBeNull();
    expect(keyToInput(key({ key: '`', ctrlKey: true }))).toBeNull();
  });
});

describe('showsLineEditor', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  it('takes the marks a shell prints before readline is up for nothing, and anything else for the editor', () => {
    expect(showsLineEditor(bytes('\x1b]6973;key;ab12\x07\x1b]133;D;k=ab12\x07\x1b]7;file://h/tmp\x07'))).toBe(false);
    expect(showsLineEditor(bytes('\x1b]133;D;k=ab12\x1b\\'))).toBe(false);
    expect(showsLineEditor(bytes('\x1b]133;A;k=unterminated'))).toBe(false);
    expect(showsLineEditor(bytes(''))).toBe(false);
    expect(showsLineEditor(bytes('\x1b]7;file://h/tmp\x07\x1b[?2004h'))).toBe(true);
    expect(showsLineEditor(bytes('\x1b]7;file://h/tmp\x07me$ '))).toBe(true);
    expect(showsLineEditor(bytes('$ '))).toBe(true);
  });
});
