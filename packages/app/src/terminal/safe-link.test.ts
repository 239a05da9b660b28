import { describe, expect, it } from 'vitest';
import { openSafeLink, safeExternalUrl } from './safe-link.js';

describe('safeExternalUrl', () => {
  it('accepts plain http and https links', () => {
    expect(safeExternalUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(safeExternalUrl('http://localhost:3000')).toBe('http://localhost:3000/');
  });

  it('rejects every other scheme and garbage', () => {
    for (const uri of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', 'vscode://x', 'ms-settings:', 'not a url', '']) {
      expect(safeExternalUrl(uri)).toBeNull();
    }
  });

  it('rejects links carrying credentials', () => {
    expect(safeExternalUrl('https://bank.example@evil.example/')).toBeNull();
  });
});

describe('openSafeLink', () => {
  it('opens through window.open with noopener when there is no bridge', () => {
    const opened: unknown[][] = [];
    expect(openSafeLink('https://example.com', null, (...args) => opened.push(args))).toBe(true);
    expect(opened).toEqual([['https://example.com/', '_blank', 'noopener,noreferrer']]);
  });

  it('prefers the bridge and never opens an unsafe link', () => {
    const viaBridge: string[] = [];
    const viaWindow: string[] = [];
    const bridge = { openExternal: (url: string) => void viaBridge.push(url) };
    openSafeLink('https://example.com/x', bridge, (url) => viaWindow.push(url));
    expect(openSafeLink('javascript:alert(1)', bridge, (url) => viaWindow.push(url))).toBe(false);
    expect(viaBridge).toEqual(['https://example.com/x']);
    expect(viaWindow).toEqual([]);
  });
});
