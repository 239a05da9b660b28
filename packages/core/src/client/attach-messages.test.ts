import { parseServerMessage } from '@ptydeck/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readAttachMessage } from './attach-messages.js';

const ID = '141282d3-a2da-4c84-ae4b-827d77aad8bd';
const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

describe('readAttachMessage', () => {
  afterEach(() => vi.restoreAllMocks());

  it('leaves out a message of a type attach does not read without parsing it (a timeline of thousands of records comes before the screen)', () => {
    const timeline = { type: 'timeline.snapshot', commands: Array.from({ length: 2000 }, (_, i) => ({ id: `c${i}`, command: `make test ${i}`, cwd: '/home/dev/project' })) };
    const parse = vi.spyOn(JSON, 'parse');
    for (const message of [timeline, { type: 'chat.list', chats: [] }, { type: 'processes.leftovers', sessions: [] }]) {
      expect(readAttachMessage(bytes(message), false)).toEqual({ kind: 'invalid', reason: 'a control message attach does not read, or malformed' });
    }
    expect(parse).not.toHaveBeenCalled();
  });

  it('reads the messages attach acts on as before, and leaves out one whose first type is another even where a later key names one it reads', () => {
    const resync = { type: 'resync', id: ID, cursor: 5, skipped: 0, screen: 'ready-0' };
    expect(readAttachMessage(bytes(resync), false)).toEqual({ kind: 'control', message: resync });
    const error = { type: 'error', code: 'no_such_session', message: 'no such session' };
    expect(readAttachMessage(bytes(error), false)).toEqual({ kind: 'control', message: error });
    const removed = { type: 'event', event: { type: 'pty.removed', id: ID } };
    expect(readAttachMessage(bytes(removed), false)).toEqual({ kind: 'control', message: removed });
    // JSON.parse keeps the last of two keys: a resync in disguise stays left out.
    expect(readAttachMessage(bytes(`{"type":"chat.list","type":"resync","id":"${ID}","cursor":0,"skipped":0,"screen":""}`), false).kind).toBe('invalid');
    // An escape in the type, or a message that does not open with its type, gets the full parse.
    expect(readAttachMessage(bytes(`{"type":"res\\u0079nc","id":"${ID}","cursor":0,"skipped":0,"screen":""}`), false).kind).toBe('control');
    expect(readAttachMessage(bytes({ id: ID, type: 'resync', cursor: 0, skipped: 0, screen: '' }), false).kind).toBe('control');
    expect(readAttachMessage(bytes('{"type":"resync",'), false)).toEqual({ kind: 'invalid', reason: 'control message is not JSON' });
  });

  it('reads as control only what the contract reads as control, the same message', () => {
    const texts = [
      JSON.stringify({ type: 'resync', id: ID, cursor: 5, skipped: 0, screen: 'ready-0' }),
      JSON.stringify({ type: 'resync', id: ID, cursor: -1, skipped: 0, screen: '' }),
      JSON.stringify({ type: 'resync', id: 'x', cursor: 0, skipped: 0, screen: '' }),
      JSON.stringify({ type: 'error', code: 'no_such_session', message: 'gone' }),
      JSON.stringify({ type: 'error', code: 'no_such_session' }),
      JSON.stringify({ type: 'event', event: { type: 'pty.removed', id: ID } }),
      JSON.stringify({ type: 'event', event: { type: 'pty.exited', id: ID, exitCode: 0, signal: null } }),
      JSON.stringify({ type: 'chat.list', chats: [] }),
      `{"type":"chat.list","type":"resync","id":"${ID}","cursor":0,"skipped":0,"screen":""}`,
    ];
    for (const text of texts) {
      const hand = readAttachMessage(bytes(text), false);
      if (hand.kind === 'control') expect(parseServerMessage(text), text).toEqual(hand);
    }
  });
});
