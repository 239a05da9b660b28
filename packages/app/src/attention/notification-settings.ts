/**
 * Whether the panel shows desktop notifications, persisted per origin in
 * localStorage. Unlike the start-up settings (terminal/settings.ts) these change
 * while the panel runs, from the overview.
 */
export interface NotificationSettings {
  /** When an agent's command waits for the developer's input and the window is not in front. */
  input: boolean;
  /** When an agent's shell exits non-zero (or by a signal nobody asked for). Off unless chosen. */
  failures: boolean;
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { input: true, failures: false };

export const NOTIFICATION_SETTINGS_KEY = 'ptydeck.notifications';

/** Parses stored settings; anything missing or malformed falls back to the default, field by field. */
export function parseNotificationSettings(raw: string | null): NotificationSettings {
  let value: unknown = null;
  try {
    value = raw === null ? null : JSON.parse(raw);
  } catch {
    value = null;
  }
  const stored = typeof value === 'object' && value !== null ? (value as Partial<Record<keyof NotificationSettings, unknown>>) : {};
  return {
    input: typeof stored.input === 'boolean' ? stored.input : DEFAULT_NOTIFICATION_SETTINGS.input,
    failures: typeof stored.failures === 'boolean' ? stored.failures : DEFAULT_NOTIFICATION_SETTINGS.failures,
  };
}
