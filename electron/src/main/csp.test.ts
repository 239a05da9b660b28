import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, withContentSecurityPolicy } from './csp.js';

const appOrigin = 'http://127.0.0.1:4000';

/** The policy as directive -> sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((part) => {
      const [name, ...sources] = part.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

describe('contentSecurityPolicy', () => {
  const policy = directives(contentSecurityPolicy(appOrigin));

  it('denies by default and allows scripts only from the app itself', () => {
    expect(policy.get('default-src')).toEqual(["'none'"]);
    // WebAssembly compilation only (asciinema's player), never eval or inline scripts.
    expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('frame-src')).toEqual(["'none'"]);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
  });

  it('lets the renderer reach only its own server, over HTTP and WebSocket', () => {
    expect(policy.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:4000']);
  });

  it('never allows eval or inline scripts', () => {
    const text = contentSecurityPolicy(appOrigin);
    expect(text).not.toContain("'unsafe-eval'");
    expect(policy.get('script-src')).not.toContain("'unsafe-inline'");
  });
});

describe('withContentSecurityPolicy', () => {
  it("adds the policy to the app's responses", () => {
    const answer = withContentSecurityPolicy({ url: `${appOrigin}/index.html`, responseHeaders: { 'Content-Type': ['text/html'] } }, appOrigin);
    expect(answer.responseHeaders).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': [contentSecurityPolicy(appOrigin)],
    });
  });

  it("keeps the server's own policy beside it, whatever case its header name has", () => {
    const answer = withContentSecurityPolicy(
      { url: `${appOrigin}/`, responseHeaders: { 'content-security-policy': ["default-src 'self'"] } },
      appOrigin,
    );
    expect(answer.responseHeaders).toEqual({
      'content-security-policy': ["default-src 'self'", contentSecurityPolicy(appOrigin)],
    });
  });

  it('leaves responses from other origins untouched', () => {
    for (const url of ['http://127.0.0.1:4001/', 'https://127.0.0.1:4000/', 'http://localhost:4000/', 'devtools://devtools/x']) {
      expect(withContentSecurityPolicy({ url, responseHeaders: {} }, appOrigin)).toEqual({});
    }
  });
});
