/**
 * Desktop notifications for the window: the renderer asks (an agent waits for input
 * while the window is elsewhere), main checks what it asked and shows Electron's
 * Notification. A click focuses the window and hands the renderer back the notification's
 * target (which tab or chat to bring forward).
 */
import type { DeskNotificationRequest } from '../shared/bridge.js';
import { BridgeError } from './bridge-error.js';

/** Generous for a title and a prompt line; bounds what a hostile renderer can make main hold. */
const MAX_TITLE = 256;
const MAX_BODY = 1024;
/** A session or chat id (the contract bounds both at 128) with the renderer's prefix. */
const MAX_TARGET = 160;

/** Checks a notification the renderer asked for; throws BridgeError('invalid_notification') naming the field. */
export function parseNotification(input: unknown): DeskNotificationRequest {
  if (typeof input !== 'object' || input === null) {
    throw new BridgeError('invalid_notification', `notify: expected an object, got ${input === null ? 'null' : typeof input}`);
  }
  const { title, body, target } = input as Record<string, unknown>;
  const text = (name: string, value: unknown, max: number, allowEmpty: boolean): string => {
    if (typeof value !== 'string') throw new BridgeError('invalid_notification', `notify: ${name} must be a string, got ${typeof value}`);
    if (value.length > max) throw new BridgeError('invalid_notification', `notify: ${name} is longer than ${max} characters`);
    if (!allowEmpty && value.length === 0) throw new BridgeError('invalid_notification', `notify: ${name} must not be empty`);
    return value;
  };
  return {
    title: text('title', title, MAX_TITLE, false),
    body: text('body', body, MAX_BODY, true),
    target: text('target', target, MAX_TARGET, false),
  };
}

/** The part of Electron's Notification used here; a fake satisfies it in tests. */
export interface ShownNotification {
  on(event: 'click' | 'close', listener: () => void): unknown;
  show(): void;
}

/** The part of the window a notification click acts on. */
export interface NotifiedWindow {
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  focus(): void;
  webContents: { send(channel: string, ...args: unknown[]): void };
}

export interface DesktopNotifierDeps {
  /** `new Notification(options)` in production. */
  create(options: { title: string; body: string }): ShownNotification;
  /** The window to focus and tell on a click (the current one: it may have been recreated). */
  window(): NotifiedWindow | null;
  /** The channel the renderer listens on (bridgeChannels.notificationClick). */
  clickChannel: string;
}

/** Returns the bridge backend's `notify`. */
export function desktopNotifier(deps: DesktopNotifierDeps): (notification: DeskNotificationRequest) => void {
  // Electron drops a notification's click handler once the object is garbage-collected;
  // holding each until it is clicked or closed keeps the click working.
  const live = new Set<ShownNotification>();
  return ({ title, body, target }) => {
    const notification = deps.create({ title, body });
    live.add(notification);
    notification.on('close', () => live.delete(notification));
    notification.on('click', () => {
      live.delete(notification);
      const window = deps.window();
      if (window === null || window.isDestroyed()) return;
      if (window.isMinimized()) window.restore();
      window.focus();
      window.webContents.send(deps.clickChannel, target);
    });
    notification.show();
  };
}
