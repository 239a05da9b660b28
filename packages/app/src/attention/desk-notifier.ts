// Desktop notifications for the panel, through the web API or the desktop app's main process, behind one
// interface.
import { Emitter, reportError, type OnEvent } from '@ptydeck/contract';
import type { PtydeckBridge } from '../bridge.js';
import type { DeskNotification } from './notification-plan.js';
import { decodeTarget, encodeTarget, type NotifyTarget } from './notify-target.js';

/** Whether notifications reach the developer: the browser's permission, or 'unsupported'. */
export type NotifyPermission = 'granted' | 'default' | 'denied' | 'unsupported';

/** Shows desktop notifications and says when one was clicked. */
export interface DeskNotifier {
  permission(): NotifyPermission;
  /** Asks the developer (browser only); call it only from their click, never on load. */
  requestPermission(): Promise<NotifyPermission>;
  show(notification: DeskNotification): void;
  /** A notification was clicked: what to bring forward. */
  readonly onClick: OnEvent<NotifyTarget>;
  dispose(): void;
}

/** The part of the web Notification API the panel uses; a stub in tests has the same shape. */
export interface WebNotificationApi {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
  new (title: string, options?: NotificationOptions): Pick<Notification, 'onclick' | 'close'>;
}

/**
 * A browser's notifications: shown only once the developer allowed them.
 * Clicking one brings the window forward (a page may focus itself when the
 * click came from its own notification) and closes it.
 */
export function webNotifier(target: Pick<Window, 'focus'> & { Notification?: WebNotificationApi }): DeskNotifier {
  const clicks = new Emitter<NotifyTarget>({ name: 'notification click' });
  const api = () => target.Notification;
  const permission = (): NotifyPermission => api()?.permission ?? 'unsupported';
  return {
    permission,
    async requestPermission() {
      const Api = api();
      if (!Api) return 'unsupported';
      if (Api.permission !== 'default') return Api.permission;
      return Api.requestPermission();
    },
    show({ key, target: brought, title, body }) {
      const Api = api();
      if (!Api || Api.permission !== 'granted') return;
      try {
        // The tag replaces rather than stacks a notification shown twice for one prompt.
        const notification = new Api(title, { body, tag: key });
        notification.onclick = () => {
          target.focus();
          notification.close();
          clicks.fire(brought);
        };
      } catch (error) {
        // Some browsers allow notifications only from a service worker (Chrome on Android).
        reportError(error, 'could not show a notification');
      }
    },
    onClick: clicks.on,
    dispose: () => clicks.clear(),
  };
}

/**
 * The desktop app's notifications: shown by the main process (Electron's
 * Notification), which on a click focuses the window and hands back the
 * target, as an opaque string (see notify-target.ts).
 */
export function bridgeNotifier(bridge: Required<Pick<PtydeckBridge, 'notify' | 'onNotificationClick'>>): DeskNotifier {
  const clicks = new Emitter<NotifyTarget>({ name: 'notification click' });
  const unsubscribe = bridge.onNotificationClick((text) => {
    const target = decodeTarget(text);
    if (target) clicks.fire(target);
  });
  return {
    permission: () => 'granted',
    requestPermission: () => Promise.resolve('granted'),
    show({ target, title, body }) {
      bridge.notify({ title, body, target: encodeTarget(target) }).catch((error: unknown) => reportError(error, 'could not show a notification'));
    },
    onClick: clicks.on,
    dispose() {
      unsubscribe();
      clicks.clear();
    },
  };
}

/** The notifier for where the panel runs: the bridge's when it has one, else the web API's. */
export function createNotifier(bridge: PtydeckBridge | null, target: Window): DeskNotifier {
  if (bridge?.notify && bridge.onNotificationClick) {
    return bridgeNotifier({ notify: bridge.notify.bind(bridge), onNotificationClick: bridge.onNotificationClick.bind(bridge) });
  }
  return webNotifier(target as Window & { Notification?: WebNotificationApi });
}
