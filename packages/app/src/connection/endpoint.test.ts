import { describe, expect, it } from 'vitest';
import { checkSameOriginAccess, sameOriginEndpoint, tokenEndpoint } from './endpoint.js';

describe('panel endpoint', () => {
  it('uses the page origin in a browser, with the panel token subprotocol', () => {
    expect(sameOriginEndpoint({ protocol: 'http:', host: '127.0.0.1:4321' }, 'tok')).toEqual({
      url: 'ws://127.0.0.1:4321/panel',
      protocols: ['ptydeck.v1', 'ptydeck.token.tok'],
    });
    expect(sameOriginEndpoint({ protocol: 'https:', host: 'localhost:9' }, 'tok').url).toBe('wss://localhost:9/panel');
  });

  it('derives the socket URL from the server URL the bridge names, with the token subprotocol', () => {
    expect(tokenEndpoint('http://127.0.0.1:5000', 'abc_123')).toEqual({
      url: 'ws://127.0.0.1:5000/panel',
      protocols: ['ptydeck.v1', 'ptydeck.token.abc_123'],
    });
    expect(tokenEndpoint('ws://127.0.0.1:5000/panel?x=1', 't').url).toBe('ws://127.0.0.1:5000/panel');
  });

  it('rejects schemes that are not http(s) or ws(s)', () => {
    expect(() => tokenEndpoint('file:///etc/passwd', 't')).toThrow(/scheme/);
  });

  it('tells a refused page from a gone server', async () => {
    const answering = (status: number) => async (path: string) => {
      expect(path).toBe('/panel/access');
      return { status };
    };
    expect(await checkSameOriginAccess(answering(204), "tok")).toBe('allowed');
    expect(await checkSameOriginAccess(answering(401), "tok")).toBe('unauthorized');
    expect(await checkSameOriginAccess(answering(404), "tok")).toBe('allowed');
    expect(await checkSameOriginAccess(async () => { throw new TypeError("Failed to fetch"); }, "tok")).toBe('unreachable');
  });
});
