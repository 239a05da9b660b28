// Words the chat pane shows for a chat's state and name, kept apart from the views so they are unit-tested.
import type { ChatState } from '@ptydeck/contract';
import type { Chat } from '../../chat/chat-state.js';

/** A chat's state in the words the pane, its tabs and the overview use. */
export const CHAT_STATE_LABEL: Record<ChatState, string> = {
  starting: 'starting',
  ready: 'ready',
  prompting: 'working',
  ended: 'ended',
};

/** A chat's name: its agent's, numbered from the second chat with the same agent so tabs tell them apart. */
export function chatName(chat: Pick<Chat, 'info'>, chats: readonly Pick<Chat, 'info'>[]): string {
  const same = chats.filter((other) => other.info.agentName === chat.info.agentName);
  const index = same.findIndex((other) => other.info.id === chat.info.id);
  return index > 0 ? `${chat.info.agentName} ${index + 1}` : chat.info.agentName;
}
