import { describe, expect, it } from 'vitest';
import { encodeOutputFrame } from './output-frame.js';
import { encodeClientMessage, parseServerMessage } from './panel-wire.js';
import { AckMessage, ackOf } from './panel-protocol.js';
import type { SessionInfo } from './session.js';

const info: SessionInfo = {
  id: 's1', source: 'agent', owner: 'c1', ownerName: 'claude-code', title: 'bash', command: 'bash', args: [],
  cwd: '/tmp', pid: 42, cols: 80, rows: 24, status: 'running', exitCode: null, signal: null, createdAt: 1, exitedAt: null,
};

describe('parseServerMessage', () => {
  it('accepts a valid control message', () => {
    const parsed = parseServerMessage(JSON.stringify({ type: 'event', event: { type: 'pty.created', info } }));
    expect(parsed).toEqual({ kind: 'control', message: { type: 'event', event: { type: 'pty.created', info } } });
  });

  it('decodes a binary output frame from an ArrayBuffer and from a view', () => {
    const frame = encodeOutputFrame({ id: 's1', cursor: 12 }, new TextEncoder().encode('hi\r\n'));
    const buffer = frame.buffer.slice(frame.byteOffset, frame.byteOffset + frame.byteLength);
    for (const data of [buffer, frame]) {
      const parsed = parseServerMessage(data);
      expect(parsed.kind).toBe('output');
      if (parsed.kind !== 'output') return;
      expect(parsed.frame.id).toBe('s1');
      expect(parsed.frame.cursor).toBe(12);
      expect(new TextDecoder().decode(parsed.frame.data)).toBe('hi\r\n');
    }
  });

  it('keeps payload bytes untouched, including a split UTF-8 sequence', () => {
    const payload = new Uint8Array([0xe2, 0x82]); // first two bytes of "€"
    const parsed = parseServerMessage(encodeOutputFrame({ id: 's1', cursor: 0 }, payload));
    expect(parsed.kind === 'output' && [...parsed.frame.data]).toEqual([0xe2, 0x82]);
  });

  it('reports text that is not JSON', () => {
    const parsed = parseServerMessage('{nope');
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.reason).toMatch(/not JSON/);
  });

  it('reports a control message that breaks the schema and names where', () => {
    const parsed = parseServerMessage(JSON.stringify({ type: 'resync', id: 's1', cursor: -1, skipped: 0, screen: '' }));
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.reason).toMatch(/cursor/);
  });

  it('reports an unknown message type', () => {
    expect(parseServerMessage(JSON.stringify({ type: 'surprise' })).kind).toBe('invalid');
  });

  it('reports malformed binary frames instead of throwing', () => {
    expect(parseServerMessage(new Uint8Array([0])).kind).toBe('invalid');
    expect(parseServerMessage(new Uint8Array([0, 10, 1, 2])).kind).toBe('invalid');
    const badHeader = new Uint8Array([0, 2, 0x7b, 0x7d]); // "{}" lacks id and cursor
    expect(parseServerMessage(badHeader).kind).toBe('invalid');
  });

  it('reports values that are neither text nor binary', () => {
    expect(parseServerMessage(42).kind).toBe('invalid');
  });
});

describe('encodeClientMessage', () => {
  it('checks what a client worked out before it leaves, and passes keystrokes as they are', () => {
    expect(JSON.parse(encodeClientMessage({ type: 'resize', id: 's1', cols: 100, rows: 30 }))).toEqual({ type: 'resize', id: 's1', cols: 100, rows: 30 });
    expect(() => encodeClientMessage({ type: 'ack', id: 's1', cursor: -1 })).toThrow(/cursor/);
    expect(JSON.parse(encodeClientMessage({ type: 'input', id: 's1', data: '\u0003' }))).toEqual({ type: 'input', id: 's1', data: '\u0003' });
  });
});

describe('ackOf', () => {
  it('reads an ack exactly when AckMessage accepts it, with the same id and cursor', () => {
    const id128 = 'x'.repeat(128);
    const cases: unknown[] = [
      { type: 'ack', id: 's1', cursor: 0 },
      { type: 'ack', id: id128, cursor: Number.MAX_SAFE_INTEGER },
      { type: 'ack', id: 's1', cursor: 12, extra: true },
      { type: 'ack', id: `${id128}x`, cursor: 1 },
      { type: 'ack', id: '', cursor: 1 },
      { type: 'ack', id: 7, cursor: 1 },
      { type: 'ack', id: 's1', cursor: -1 },
      { type: 'ack', id: 's1', cursor: 1.5 },
      { type: 'ack', id: 's1', cursor: 2 ** 60 },
      { type: 'ack', id: 's1', cursor: '1' },
      { type: 'ack', id: 's1' },
      { type: 'input', id: 's1', data: 'x' },
      { id: 's1', cursor: 1 },
      null,
      [],
      'ack',
      JSON.parse('{"type":"ack","id":"s1","cursor":3,"__proto__":{"cursor":4}}'),
    ];
    for (const json of cases) {
      const parsed = AckMessage.safeParse(json);
      expect(ackOf(json), JSON.stringify(json)).toEqual(parsed.success ? { id: parsed.data.id, cursor: parsed.data.cursor } : undefined);
    }
  });
});
