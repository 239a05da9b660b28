/** Developer-adjustable behaviour of the panel, read once at start-up. */
export interface PanelSettings {
  /** How long an exited agent tab stays, showing its exit code, before it closes. */
  lingerMs: number;
}

export const DEFAULT_SETTINGS: PanelSettings = { lingerMs: 5_000 };

export const SETTINGS_STORAGE_KEY = 'ptydeck.settings';

/** Parses stored settings; anything missing or malformed falls back to the default, field by field. */
export function parseSettings(raw: string | null): PanelSettings {
  if (raw === null) return DEFAULT_SETTINGS;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return DEFAULT_SETTINGS;
  }
  const lingerMs = (value as { lingerMs?: unknown } | null)?.lingerMs;
  return {
    lingerMs: typeof lingerMs === 'number' && Number.isFinite(lingerMs) && lingerMs >= 0 && lingerMs <= 3_600_000 ? lingerMs : DEFAULT_SETTINGS.lingerMs,
  };
}
