import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from './csp.js';
import { guardWebContents, hardenBrowserSession, type GuardedContents, type HardenedBrowserSession } from './guards.js';
import { FakeContents, FakeSession, fakeEvent } from './testing/fakes.js';

const appOrigin = 'http://127.0.0.1:4000';

function guarded(): FakeContents {
  const contents = new FakeContents();
  guardWebContents(contents as unknown as GuardedContents, appOrigin);
  return contents;
}

describe('guardWebContents', () => {
  it('denies every window.open, including ones to the app itself', () => {
    const contents = guarded();
    for (const url of ['https://example.com/', `${appOrigin}/`, 'file:///etc/passwd', 'javascript:alert(1)']) {
      expect(contents.windowOpenHandler?.({ url })).toEqual({ action: 'deny' });
    }
  });

  it('lets the window navigate within the app origin (the ticket redirect, a reload)', () => {
    const contents = guarded();
    expect(contents.navigate('will-navigate', `${appOrigin}/?ticket=abc`)).toBe(false);
    expect(contents.navigate('will-redirect', `${appOrigin}/`)).toBe(false);
    expect(contents.navigate('will-frame-navigate', `${appOrigin}/index.html`)).toBe(false);
  });

  it('blocks navigations and redirects that leave the app origin', () => {
    const contents = guarded();
    for (const url of ['https://example.com/', 'http://127.0.0.1:4001/', 'http://127.0.0.1:4000@evil.example/', 'file:///etc/passwd']) {
      expect(contents.navigate('will-navigate', url), url).toBe(true);
      expect(contents.navigate('will-frame-navigate', url), url).toBe(true);
      expect(contents.navigate('will-redirect', url), url).toBe(true);
    }
  });

  it('refuses to attach webviews', () => {
    const contents = guarded();
    const event = fakeEvent();
    contents.emit('will-attach-webview', event, {}, {});
    expect(event.defaultPrevented).toBe(true);
  });
});

describe('hardenBrowserSession', () => {
  function hardened(): FakeSession {
    const session = new FakeSession();
    hardenBrowserSession(session as unknown as HardenedBrowserSession, appOrigin);
    return session;
  }

  it('denies every permission request and check, even from the app origin', () => {
    const session = hardened();
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'openExternal', 'hid']) {
      const answers: boolean[] = [];
      session.permissionRequestHandler?.({}, permission, (granted) => answers.push(granted), { requestingUrl: `${appOrigin}/` });
      expect(answers, permission).toEqual([false]);
      expect(session.permissionCheckHandler?.({}, permission, appOrigin, {}), permission).toBe(false);
    }
  });

  it('cancels downloads', () => {
    const session = hardened();
    const event = fakeEvent();
    session.emit('will-download', event, {}, {});
    expect(event.defaultPrevented).toBe(true);
  });

  it("adds the CSP to the app's responses and only to them", () => {
    const session = hardened();
    expect(session.receive(`${appOrigin}/`).responseHeaders?.['Content-Security-Policy']).toEqual([contentSecurityPolicy(appOrigin)]);
    expect(session.receive('https://example.com/')).toEqual({});
  });
});
