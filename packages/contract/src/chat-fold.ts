// How a chat's events fold together, written once for the two places that fold
// them: the core compacting a chat's log for the replay after a reload
// (chats/chat-log.ts) and the app building the transcript it shows
// (chat/chat-reducer.ts). Were the rules two, a chat could read differently
// after a reload than it did live.
import type { ChatEvent } from './chat-protocol.js';

export type ChatMessageEvent = Extract<ChatEvent, { type: 'message' }>;
export type ChatToolEvent = Extract<ChatEvent, { type: 'tool' }>;

/**
 * Whether `chunk` continues the message `last`: the same role and the same
 * messageId, where a chunk without one continues only a message without one
 * (an id that appears or goes away starts another message).
 */
export function continuesMessage(last: { role: ChatMessageEvent['role']; messageId?: string | null | undefined }, chunk: ChatMessageEvent): boolean {
  return last.role === chunk.role && (last.messageId ?? undefined) === chunk.messageId;
}

/** A tool event applied to its call as folded so far: the fields it carries replace those, the others stay. */
export function foldToolCall(call: ChatToolEvent, update: ChatToolEvent): ChatToolEvent {
  const carried = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
  return { ...call, ...carried } as ChatToolEvent;
}
