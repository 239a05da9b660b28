import { describe, expect, it } from 'vitest';
import { DEFAULT_NOTIFICATION_SETTINGS, parseNotificationSettings } from './notification-settings.js';

describe('parseNotificationSettings', () => {
  it('notifies for prompts and not for failures unless told', () => {
    expect(parseNotificationSettings(null)).toEqual({ input: true, failures: false });
  });

  it('reads each field, falling back field by field on anything malformed', () => {
    expect(parseNotificationSettings('{"input":false,"failures":true}')).toEqual({ input: false, failures: true });
    expect(parseNotificationSettings('{"input":"no","failures":true}')).toEqual({ input: true, failures: true });
    for (const raw of ['', 'nope', 'null', '[]', '42']) expect(parseNotificationSettings(raw), raw).toEqual(DEFAULT_NOTIFICATION_SETTINGS);
  });
});
