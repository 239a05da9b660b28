import { describe, expect, it } from 'vitest';
import { CursorBook } from './cursor-book.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | null) => (data === null ? null : new TextDecoder().decode(data));

describe('CursorBook', () => {
  it('advances the cursor by the bytes applied', () => {
    const book = new CursorBook();
    book.attach('a');
    expect(book.cursor('a')).toBeNull();
    expect(text(book.apply({ id: 'a', cursor: 0, data: bytes('hello') }))).toBe('hello');
    expect(book.cursor('a')).toBe(5);
    expect(text(book.apply({ id: 'a', cursor: 5, data: bytes(' world') }))).toBe(' world');
    expect(book.cursor('a')).toBe(11);
  });

  it('ignores output for sessions it is not attached to', () => {
    const book = new CursorBook();
    expect(book.apply({ id: 'x', cursor: 0, data: bytes('nope') })).toBeNull();
    expect(book.isAttached('x')).toBe(false);
  });

  it('drops a frame it already applied and trims a partly repeated one', () => {
    const book = new CursorBook();
    book.attach('a');
    book.apply({ id: 'a', cursor: 0, data: bytes('abcdef') });
    expect(book.apply({ id: 'a', cursor: 2, data: bytes('cd') })).toBeNull();
    expect(text(book.apply({ id: 'a', cursor: 4, data: bytes('efgh') }))).toBe('gh');
    expect(book.cursor('a')).toBe(8);
  });

  it('takes the cursor of a resync and continues from there', () => {
    const book = new CursorBook();
    book.attach('a');
    book.apply({ id: 'a', cursor: 0, data: bytes('old') });
    book.resync('a', 1_000);
    expect(book.cursor('a')).toBe(1_000);
    expect(book.apply({ id: 'a', cursor: 900, data: bytes('stale') })).toBeNull();
    expect(text(book.apply({ id: 'a', cursor: 1_000, data: bytes('new') }))).toBe('new');
  });

  it('does not resync a session it is not attached to', () => {
    const book = new CursorBook();
    book.resync('a', 10);
    expect(book.isAttached('a')).toBe(false);
  });

  it('keeps a known cursor when attached again, so a repeated attach cannot rewind', () => {
    const book = new CursorBook();
    book.attach('a');
    book.apply({ id: 'a', cursor: 0, data: bytes('xyz') });
    book.attach('a');
    expect(book.cursor('a')).toBe(3);
  });

  it('forgets cursors on an instance change but keeps the attachments', () => {
    const book = new CursorBook();
    book.attach('a');
    book.attach('b');
    book.apply({ id: 'a', cursor: 0, data: bytes('xyz') });
    book.forgetCursors();
    expect(book.ids()).toEqual(['a', 'b']);
    expect(book.cursor('a')).toBeNull();
  });

  it('retains only sessions that still exist', () => {
    const book = new CursorBook();
    book.attach('a');
    book.attach('b');
    book.retainOnly(['b', 'c']);
    expect(book.ids()).toEqual(['b']);
  });

  it('writes what follows a gap rather than losing it', () => {
    const book = new CursorBook();
    book.attach('a');
    book.apply({ id: 'a', cursor: 0, data: bytes('ab') });
    expect(text(book.apply({ id: 'a', cursor: 10, data: bytes('k') }))).toBe('k');
    expect(book.cursor('a')).toBe(11);
  });

  it('applies nothing for an empty frame but still records its cursor', () => {
    const book = new CursorBook();
    book.attach('a');
    expect(book.apply({ id: 'a', cursor: 7, data: new Uint8Array() })).toBeNull();
    expect(book.cursor('a')).toBe(7);
  });
});
