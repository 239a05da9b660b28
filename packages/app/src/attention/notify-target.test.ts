import { describe, expect, it } from 'vitest';
import { decodeTarget, encodeTarget } from './notify-target.js';

describe('notification targets', () => {
  it('read back what they wrote, for sessions and chats, ids with colons included', () => {
    for (const target of [{ kind: 'session', id: 's-1' }, { kind: 'chat', id: 'chat:7:x' }] as const) {
      expect(decodeTarget(encodeTarget(target))).toEqual(target);
    }
  });

  it('refuse what this renderer never made', () => {
    for (const text of ['', 's-1', 'session:', 'window:w-1', ':s-1']) expect(decodeTarget(text), text).toBeNull();
  });
});
