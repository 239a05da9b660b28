import { describe, expect, it } from 'vitest';
import { isAppUrl, originOf } from './origin.js';

const appOrigin = 'http://127.0.0.1:4000';

describe('isAppUrl', () => {
  it('accepts any path, query or fragment on the app origin', () => {
    for (const url of ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/', 'http://127.0.0.1:4000/a/b?ticket=x#y']) {
      expect(isAppUrl(url, appOrigin), url).toBe(true);
    }
  });

  it('refuses lookalikes that a prefix comparison would let through', () => {
    for (const url of [
      'http://127.0.0.1:40000/',
      'http://127.0.0.1:4000.evil.example/',
      'http://127.0.0.1:4000@evil.example/',
      'https://127.0.0.1:4000/',
      'http://localhost:4000/',
      'ws://127.0.0.1:4000/',
      'file:///etc/passwd',
      'data:text/html,<script>1</script>',
      'about:blank',
      'javascript:alert(1)',
      'not a url',
      '',
    ]) {
      expect(isAppUrl(url, appOrigin), url).toBe(false);
    }
  });

  it('gives opaque origins no origin, so two of them never match', () => {
    expect(originOf('data:text/plain,x')).toBeNull();
    expect(isAppUrl('data:text/plain,x', 'null')).toBe(false);
  });
});
