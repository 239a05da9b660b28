import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeOutputFrame, encodeOutputFrame, OUTPUT_FRAME_HEAD_ROOM, writeOutputFrameHead } from './output-frame.js';
import { SessionId } from './session.js';

/** What the header was as a schema, before the decoder checked it by hand: a session id and a cursor as every message has them. */
const OutputFrameHeader = z.object({ id: SessionId, cursor: z.number().int().min(0) });

const payload = new TextEncoder().encode('hello\r\n');

describe('output frames', () => {
  it('a head written before a payload in place decodes as the frame encodeOutputFrame makes', () => {
    const buffer = new Uint8Array(OUTPUT_FRAME_HEAD_ROOM + payload.length).fill(0xee);
    buffer.set(payload, OUTPUT_FRAME_HEAD_ROOM);
    const header = { id: 'a1b2c3d4-0000-4000-8000-000000000000', cursor: 2 ** 53 - 1 };
    const start = writeOutputFrameHead(header, buffer, OUTPUT_FRAME_HEAD_ROOM);
    const frame = buffer.subarray(start);
    expect([...frame]).toEqual([...encodeOutputFrame(header, payload)]);
    expect(decodeOutputFrame(frame)).toEqual({ ...header, data: payload });
  });

  it('the head room holds the longest header a session id allows, and a head that does not fit is refused', () => {
    // 128 characters that JSON escapes to 6 bytes each: the worst case.
    const id = '\u0001'.repeat(128);
    const buffer = new Uint8Array(OUTPUT_FRAME_HEAD_ROOM);
    const start = writeOutputFrameHead({ id, cursor: 2 ** 53 - 1 }, buffer, OUTPUT_FRAME_HEAD_ROOM);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(decodeOutputFrame(buffer.subarray(start)).id).toBe(id);
    expect(() => writeOutputFrameHead({ id: 'x', cursor: 0 }, buffer, 10)).toThrow(RangeError);
  });

  it('decodes a header exactly when the schema of a session id and a cursor takes it (the decoder checks by hand)', () => {
    const headers: unknown[] = [
      { id: 's', cursor: 0 },
      { id: 'x'.repeat(128), cursor: 2 ** 53 - 1 },
      { id: 's', cursor: 3, extra: true },
      { id: '', cursor: 0 },
      { id: 'x'.repeat(129), cursor: 0 },
      { id: 7, cursor: 0 },
      { id: 's', cursor: -1 },
      { id: 's', cursor: 1.5 },
      { id: 's', cursor: 2 ** 53 },
      { id: 's', cursor: '1' },
      { id: 's' },
      [],
      null,
      'text',
    ];
    for (const header of headers) {
      const json = new TextEncoder().encode(JSON.stringify(header));
      const frame = new Uint8Array([json.length >>> 8, json.length & 0xff, ...json, 1]);
      const decoded = (() => {
        try {
          return decodeOutputFrame(frame);
        } catch {
          return undefined;
        }
      })();
      const parsed = OutputFrameHeader.safeParse(header);
      expect(decoded && { id: decoded.id, cursor: decoded.cursor }, JSON.stringify(header)).toEqual(parsed.success ? parsed.data : undefined);
    }
  });
});
