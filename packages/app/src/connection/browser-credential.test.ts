import { describe, expect, it } from 'vitest';
import { browserCredential, PANEL_TOKEN_STORAGE_KEY, takeTicket, type CredentialPage } from './browser-credential.js';

function page(hash: string, answer?: { status: number; body: unknown } | Error) {
  const stored = new Map<string, string>();
  const replaced: string[] = [];
  const requests: Array<{ input: string; init: RequestInit }> = [];
  const fake: CredentialPage = {
    location: { hash, pathname: '/', search: '' },
    history: { replaceState: (_data, _unused, url) => replaced.push(String(url)) },
    storage: { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => void stored.set(key, value) },
    fetch: async (input, init) => {
      requests.push({ input, init });
      if (!answer) throw new Error('no server');
      if (answer instanceof Error) throw answer;
      return { ok: answer.status === 200, status: answer.status, json: async () => answer.body };
    },
  };
  return { fake, stored, replaced, requests };
}

describe('takeTicket', () => {
  it('takes the ticket out of the fragment and the address bar', () => {
    const p = page('#ticket=abc_DEF-1');
    expect(takeTicket(p.fake)).toBe('abc_DEF-1');
    expect(p.replaced).toEqual(['/']);
  });
  it('leaves a page without a ticket alone', () => {
    const p = page('');
    expect(takeTicket(p.fake)).toBeNull();
    expect(p.replaced).toEqual([]);
  });
});

describe('browserCredential', () => {
  it('trades the ticket once, as a JSON POST to its own origin without cookies, and keeps the token in session storage', async () => {
    const p = page('', { status: 200, body: { token: 'panel_token-1' } });
    await expect(browserCredential(p.fake, 'tkt')).resolves.toEqual({ kind: 'token', token: 'panel_token-1' });
    expect(p.requests).toHaveLength(1);
    expect(p.requests[0]!.input).toBe('/ticket/exchange');
    expect(p.requests[0]!.init).toMatchObject({ method: 'POST', body: '{"ticket":"tkt"}', credentials: 'omit' });
    expect(p.stored.get(PANEL_TOKEN_STORAGE_KEY)).toBe('panel_token-1');
  });
  it('finds the kept token after a reload, without asking the server', async () => {
    const p = page('');
    p.stored.set(PANEL_TOKEN_STORAGE_KEY, 'kept');
    await expect(browserCredential(p.fake, null)).resolves.toEqual({ kind: 'token', token: 'kept' });
    expect(p.requests).toEqual([]);
  });
  it('falls back to the kept token when a link was already used', async () => {
    const p = page('', { status: 403, body: { error: 'This ptydeck link has expired or was already used.' } });
    p.stored.set(PANEL_TOKEN_STORAGE_KEY, 'kept');
    await expect(browserCredential(p.fake, 'spent')).resolves.toEqual({ kind: 'token', token: 'kept' });
  });
  it('without a link or a kept token, says why', async () => {
    await expect(browserCredential(page('').fake, null)).resolves.toEqual({ kind: 'missing', reason: 'This page was opened without a ptydeck link.' });
    const spent = page('', { status: 403, body: { error: 'This ptydeck link has expired or was already used.' } });
    await expect(browserCredential(spent.fake, 'spent')).resolves.toEqual({ kind: 'missing', reason: 'This ptydeck link has expired or was already used.' });
    const down = page('', new TypeError('Failed to fetch'));
    await expect(browserCredential(down.fake, 't')).resolves.toEqual({ kind: 'missing', reason: 'ptydeck did not answer (Failed to fetch).' });
  });
  it('refuses a token that could not travel in a subprotocol', async () => {
    const p = page('', { status: 200, body: { token: 'has space' } });
    await expect(browserCredential(p.fake, 't')).resolves.toMatchObject({ kind: 'missing' });
    expect(p.stored.size).toBe(0);
  });
});
