import { describe, expect, it } from 'vitest';
import { parseBridgeConnection } from './bridge.js';

describe('parseBridgeConnection', () => {
  it('accepts a server URL and a URL-safe token', () => {
    expect(parseBridgeConnection({ url: 'http://127.0.0.1:5000', token: 'aB3-_x' })).toEqual({ url: 'http://127.0.0.1:5000', token: 'aB3-_x' });
  });

  it('names what is wrong with a bad answer', () => {
    expect(() => parseBridgeConnection(null)).toThrow(/no object/);
    expect(() => parseBridgeConnection({ token: 't' })).toThrow(/url/);
    expect(() => parseBridgeConnection({ url: 'http://x', token: '' })).toThrow(/token/);
    // A token with a space or comma would break the WebSocket subprotocol header.
    expect(() => parseBridgeConnection({ url: 'http://x', token: 'a b' })).toThrow(/token/);
    expect(() => parseBridgeConnection({ url: 'http://x', token: 'a,b' })).toThrow(/token/);
  });
});
