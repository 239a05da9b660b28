// Desktop notifications in a test page: a recorder in place of window.Notification,
// and a page that believes it is not looked at.
import type { Page } from '@playwright/test';

export interface RecordedNotification {
  title: string;
  body: string;
  tag: string | undefined;
}

/**
 * Replaces window.Notification before the page loads with a recorder: every
 * construction is kept (and can be clicked), and permission requests are counted.
 */
export async function recordNotifications(page: Page, permission: NotificationPermission): Promise<void> {
  await page.addInitScript((initial) => {
    const shown: Array<{ title: string; body: string; tag: string | undefined; onclick: ((event: Event) => void) | null; closed: boolean }> = [];
    // Kept across reloads, as a browser keeps a page's permission.
    let current = (sessionStorage.getItem('recorded-permission') as NotificationPermission | null) ?? initial;
    class RecordingNotification {
      static get permission() {
        return current;
      }
      static requestPermission() {
        (window as unknown as { permissionRequests: number }).permissionRequests += 1;
        current = 'granted';
        sessionStorage.setItem('recorded-permission', current);
        return Promise.resolve(current);
      }
      onclick: ((event: Event) => void) | null = null;
      closed = false;
      constructor(
        readonly title: string,
        options: NotificationOptions = {},
      ) {
        shown.push(Object.assign(this, { body: options.body ?? '', tag: options.tag }));
      }
      close() {
        this.closed = true;
      }
    }
    Object.assign(window, { shownNotifications: shown, permissionRequests: 0 });
    Object.defineProperty(window, 'Notification', { value: RecordingNotification, configurable: true, writable: true });
  }, permission);
}

export const notifications = (page: Page) =>
  page.evaluate(() =>
    (window as unknown as { shownNotifications: RecordedNotification[] }).shownNotifications.map(({ title, body, tag }) => ({ title, body, tag })),
  );

/** Whether the page believes it is looked at; Playwright's page always has focus otherwise. */
export async function pretendFocus(page: Page, focused: boolean): Promise<void> {
  await page.evaluate((value) => {
    document.hasFocus = () => value;
  }, focused);
}

/** Clicks the `index`th notification shown, as the browser would. */
export async function clickNotification(page: Page, index: number): Promise<void> {
  await page.evaluate((at) => {
    const shown = (window as unknown as { shownNotifications: Array<{ onclick: ((event: Event) => void) | null }> }).shownNotifications;
    shown[at]!.onclick?.(new Event('click'));
  }, index);
}
