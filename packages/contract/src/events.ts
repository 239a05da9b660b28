// Session lifecycle events, shared by the core that emits them and the app that folds them into tabs.
import { z } from 'zod';
import { SessionId, SessionInfo } from './session.js';

/**
 * Session lifecycle events. Every event carries what a listener needs without
 * a second lookup; order per session is created → updated* → exited → removed.
 */
export const PtyCreatedEvent = z.object({ type: z.literal('pty.created'), info: SessionInfo });
export const PtyUpdatedEvent = z.object({ type: z.literal('pty.updated'), info: SessionInfo });
export const PtyExitedEvent = z.object({
  type: z.literal('pty.exited'),
  id: SessionId,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  info: SessionInfo,
});
export const PtyRemovedEvent = z.object({ type: z.literal('pty.removed'), id: SessionId });

export const PtyEvent = z.discriminatedUnion('type', [
  PtyCreatedEvent,
  PtyUpdatedEvent,
  PtyExitedEvent,
  PtyRemovedEvent,
]);
export type PtyEvent = z.infer<typeof PtyEvent>;
export type PtyEventType = PtyEvent['type'];
export type PtyEventOf<T extends PtyEventType> = Extract<PtyEvent, { type: T }>;
