/** What a click on a desktop notification brings forward: a session's tab, or a chat in the chat pane. */
export type NotifyTarget = { kind: 'session'; id: string } | { kind: 'chat'; id: string };

/**
 * The desktop app's main process carries a notification's target as an
 * opaque string and hands it back on a click; these are the renderer's
 * spelling of it. Ids never hold the prefix's colon at their start, so
 * `kind:` then the id reads back unambiguously.
 */
export function encodeTarget(target: NotifyTarget): string {
  return `${target.kind}:${target.id}`;
}

/** The target a click names, or null for a string this renderer never made. */
export function decodeTarget(text: string): NotifyTarget | null {
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  const kind = text.slice(0, colon);
  const id = text.slice(colon + 1);
  if (id === '') return null;
  if (kind === 'session' || kind === 'chat') return { kind, id };
  return null;
}
