import { describe, expect, it } from 'vitest';
import { byteCount, LOST_SUMMARY, lostNote } from './lost-note.js';

describe('lostNote', () => {
  it('says the host restarted, and how much of the end is known missing', () => {
    expect(lostNote({ foundAt: 1, unwrittenBytes: 0 })).toBe(LOST_SUMMARY);
    expect(lostNote({ foundAt: 1, unwrittenBytes: 3277 })).toBe(`${LOST_SUMMARY} (at least 3.2 KiB of its end is missing)`);
    // No figure from the old host, or no lost info at all: unknown, never "nothing".
    expect(lostNote({ foundAt: 1, unwrittenBytes: null })).toMatch(/not known/);
    expect(lostNote(null)).toMatch(/not known/);
  });

  it('counts bytes in the unit people read', () => {
    expect([byteCount(1), byteCount(512), byteCount(1024), byteCount(1024 * 1024)]).toEqual(['1 byte', '512 bytes', '1.0 KiB', '1.0 MiB']);
  });
});
