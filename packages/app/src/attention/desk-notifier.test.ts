import { describe, expect, it, vi } from 'vitest';
import { bridgeNotifier, webNotifier, type WebNotificationApi } from './desk-notifier.js';

const notification = { key: 'input:s-1:10', target: { kind: 'session', id: 's-1' } as const, title: 'codex needs input', body: 'make build: Continue? [y/N]' };

function fakeWeb(permission: NotificationPermission) {
  const shown: Array<{ title: string; options?: NotificationOptions; onclick: (() => void) | null; close: ReturnType<typeof vi.fn> }> = [];
  const requestPermission = vi.fn(async () => 'granted' as NotificationPermission);
  const Api = class {
    static permission = permission;
    static requestPermission = requestPermission;
    onclick: (() => void) | null = null;
    close = vi.fn();
    constructor(
      readonly title: string,
      readonly options?: NotificationOptions,
    ) {
      shown.push(this);
    }
  } as unknown as WebNotificationApi;
  const target = { focus: vi.fn(), Notification: Api };
  return { shown, requestPermission, target };
}

describe('webNotifier', () => {
  it('shows nothing until the developer allowed notifications', () => {
    for (const permission of ['default', 'denied'] as const) {
      const web = fakeWeb(permission);
      webNotifier(web.target).show(notification);
      expect(web.shown, permission).toEqual([]);
    }
    expect(webNotifier({ focus: vi.fn() }).permission()).toBe('unsupported');
  });

  it('asks the browser only when it was never asked', async () => {
    const asked = fakeWeb('default');
    await expect(webNotifier(asked.target).requestPermission()).resolves.toBe('granted');
    expect(asked.requestPermission).toHaveBeenCalledTimes(1);
    const denied = fakeWeb('denied');
    await expect(webNotifier(denied.target).requestPermission()).resolves.toBe('denied');
    expect(denied.requestPermission).not.toHaveBeenCalled();
  });

  it('on a click, brings the window forward, closes the notification and names the session', () => {
    const web = fakeWeb('granted');
    const notifier = webNotifier(web.target);
    const clicks: unknown[] = [];
    notifier.onClick((target) => clicks.push(target));
    notifier.show(notification);
    expect(web.shown.map((n) => [n.title, n.options])).toEqual([[notification.title, { body: notification.body, tag: notification.key }]]);
    web.shown[0]!.onclick?.();
    expect(web.target.focus).toHaveBeenCalled();
    expect(web.shown[0]!.close).toHaveBeenCalled();
    expect(clicks).toEqual([{ kind: 'session', id: 's-1' }]);
  });
});

describe('bridgeNotifier', () => {
  it("asks the desktop app's main process, and forwards its clicks until disposed", async () => {
    let listener: ((id: string) => void) | null = null;
    const unsubscribe = vi.fn(() => {
      listener = null;
    });
    const bridge = {
      notify: vi.fn(() => Promise.resolve()),
      onNotificationClick: (next: (id: string) => void) => {
        listener = next;
        return unsubscribe;
      },
    };
    const notifier = bridgeNotifier(bridge);
    expect(notifier.permission()).toBe('granted');
    notifier.show(notification);
    expect(bridge.notify.mock.calls).toEqual([[{ title: notification.title, body: notification.body, target: 'session:s-1' }]]);
    const clicks: unknown[] = [];
    notifier.onClick((target) => clicks.push(target));
    listener!('session:s-1');
    listener!('chat:c-1');
    // Not one this renderer made: nothing to bring forward.
    listener!('s-1');
    expect(clicks).toEqual([{ kind: 'session', id: 's-1' }, { kind: 'chat', id: 'c-1' }]);
    notifier.dispose();
    expect(unsubscribe).toHaveBeenCalled();
  });
});
